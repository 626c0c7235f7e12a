#version 450
// OneSweep sort, one 8-bit digit pass. A workgroup takes the next tile in launch order,
// ranks its keys by digit with subgroup ballots (multisplit), publishes the tile's digit
// counts, finds its global offsets by a decoupled lookback over the earlier tiles' partition
// descriptors (computing a predecessor's counts itself when they do not arrive), stages keys
// and then payloads in shared memory in digit order, and writes both out coalesced.
//
// Nothing here assumes a subgroup size: ballots are uvec4 (with a one-word fast path when
// gl_SubgroupSize <= 32), and when there are more subgroups than counter arrays, several
// subgroups share an array and rank one after the other.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "onesweep_shared.h"

layout(constant_id = OS_SPEC_WORKGROUP) const uint WG = 512;
layout(constant_id = OS_SPEC_KEYS) const uint K = 15;
layout(constant_id = OS_SPEC_ARRAYS) const uint ARRAYS = 16;
layout(constant_id = OS_SPEC_SPIN) const uint SPIN = 64;
layout(constant_id = OS_SPEC_LOOKBACK_WINDOW) const uint WINDOW = 8;
layout(constant_id = OS_SPEC_FORCE_FALLBACK) const uint FORCE_FALLBACK = 0;
layout(constant_id = OS_SPEC_MAX_SUBGROUPS) const uint MAX_SG = 128;
layout(constant_id = OS_SPEC_WIDE_BALLOT) const uint WIDE_BALLOT = 0;
layout(constant_id = OS_SPEC_STATS) const uint STATS = 0;
layout(local_size_x_id = OS_SPEC_WORKGROUP) in;

// Descriptors are read and written by other workgroups while this one runs: every read must go
// to memory (volatile), writes are atomics.
layout(std430, binding = 4) coherent volatile buffer Internal { uint data[]; };
layout(push_constant) uniform Push { os_push pc; };

const uint TILE = WG * K;
const uint REGION = TILE > ARRAYS * OS_RADIX ? TILE : ARRAYS * OS_RADIX;

// Per-array digit counters while ranking, then the tile's keys (and later its payloads) in
// digit order.
shared uint s_region[REGION];
// Tile-local exclusive digit offsets; after the lookback, global offset minus local offset.
shared uint s_digit[OS_RADIX];
shared uint s_fallback[OS_RADIX];
shared uvec2 s_partial[MAX_SG];
shared uint s_tile;
shared uint s_vote[3];
shared uint s_stall[3];

uint shift;
uint digit_mask; // 255, or fewer bits in the last pass of a key_bits that is not a multiple of 8

uint digit_of(uint key) { return (key >> shift) & digit_mask; }

// Exclusive prefix sums of v over invocations 0..255 (the others pass zero).
uvec2 scan256(uvec2 v) {
  uvec2 ex = subgroupExclusiveAdd(v);
  uvec2 total = subgroupAdd(v);
  if (subgroupElect()) s_partial[gl_SubgroupID] = total;
  barrier();
  for (uint s = 0; s < gl_SubgroupID; s++) ex += s_partial[s];
  return ex;
}

// For digit t (t < 256): the count of the digit in all tiles before `tile`.
//
// Each invocation walks back over its digit's descriptors on its own, reading WINDOW tiles per
// step (one memory latency instead of WINDOW), and stops at the first PREFIX. A digit that
// makes no progress for SPIN steps is stalled: the workgroup then counts the nearest stalled
// tile's keys itself (every stalled digit of that tile takes its count) and publishes the
// counts as that tile's AGGREGATE, so the sort never waits on a workgroup that may not be
// running. Steps are workgroup-uniform (one barrier each) so that the fallback can be done
// by the whole workgroup.
uint lookback(uint tile, uint t) {
  uint excl = 0;
  bool needs = t < OS_RADIX;
  int pos = int(tile) - 1; // the next tile whose count this digit needs
  uint idle = 0;           // steps without progress
  uint desc = OS_DESC + (pc.pass & 1u) * pc.desc_stride + t;
  uint fallbacks = 0;
  for (uint step = 0;; step++) {
    bool stalled = false;
    if (needs) {
      if (FORCE_FALLBACK == 0) {
        uint v[WINDOW];
        for (uint w = 0; w < WINDOW; w++) {
          v[w] = 0;
          if (pos >= int(w)) v[w] = data[desc + uint(pos - int(w)) * OS_RADIX];
        }
        int from = pos;
        for (uint w = 0; w < WINDOW && needs; w++) {
          if (v[w] == 0) break; // not published yet: read it again next step
          if ((v[w] & OS_FLAG_PREFIX) != 0) {
            excl += v[w] & ~OS_FLAG_PREFIX;
            needs = false;
          } else {
            excl += v[w] - 1u;
            needs = --pos >= 0;
          }
        }
        idle = needs && pos == from ? idle + 1u : 0u;
        stalled = idle >= SPIN;
      } else {
        stalled = needs;
      }
    }
    // Three vote slots in rotation: this step's, the next one's (cleared a step ago) and the
    // one cleared now, which nobody touches again before a barrier has passed.
    uint slot = step % 3u;
    if (needs) atomicOr(s_vote[slot], 1u);
    if (stalled) {
      atomicOr(s_vote[slot], 2u);
      atomicMax(s_stall[slot], uint(pos));
    }
    barrier();
    uint vote = s_vote[slot];
    uint stall_tile = s_stall[slot];
    if (t == 0) {
      s_vote[(step + 2u) % 3u] = 0;
      s_stall[(step + 2u) % 3u] = 0;
    }
    if (vote == 0) {
      if (STATS != 0 && t == 0) {
        atomicAdd(data[OS_H_STAT_STEPS], step + 1u);
        atomicAdd(data[OS_H_STAT_FALLBACKS], fallbacks);
      }
      break;
    }
    if ((vote & 2u) != 0) {
      fallbacks++;
      // Count the stalled tile's keys here (a full tile: only the last tile is partial).
      if (t < OS_RADIX) s_fallback[t] = 0;
      barrier();
      uint base = stall_tile * TILE + t;
      for (uint m = 0; m < K; m++) atomicAdd(s_fallback[digit_of(keys_in[base + m * WG])], 1u);
      barrier();
      if (t < OS_RADIX) {
        uint c = s_fallback[t];
        if (needs && pos == int(stall_tile)) {
          excl += c;
          needs = --pos >= 0;
          idle = 0;
        }
        atomicMax(data[desc + stall_tile * OS_RADIX], c + 1u); // never lowers a PREFIX
      }
    }
  }
  return excl;
}

void main() {
  uint t = gl_LocalInvocationID.x;
  if (t == 0) {
    s_tile = atomicAdd(data[OS_H_TILE_COUNTER + pc.pass], 1u);
    s_vote[0] = 0;
    s_vote[1] = 0;
    s_stall[0] = 0;
    s_stall[1] = 0;
  }
  for (uint i = t; i < ARRAYS * OS_RADIX; i += WG) s_region[i] = 0;
  barrier();
  uint tile = s_tile;
  uint n = data[OS_H_COUNT];
  if (tile >= data[OS_H_TILES]) return;
  shift = 8u * pc.pass;
  digit_mask = pc.key_bits - shift >= 8 ? 255u : (1u << (pc.key_bits - shift)) - 1u;
  uint tile_base = tile * TILE;
  uint valid_n = min(TILE, n - tile_base);
  uint gcount = t < OS_RADIX ? data[OS_GLOBAL_HIST + pc.pass * OS_RADIX + t] : 0;
  if (pc.pass + 1 < pc.passes && t < OS_RADIX)
    data[OS_DESC + ((pc.pass + 1u) & 1u) * pc.desc_stride + tile * OS_RADIX + t] = 0;

  // This subgroup's segment of the tile: lane `lane` of item i holds element
  // seg + i * lanes + lane, so each item is one coalesced load and the order of (item, lane)
  // is the input order.
  uvec4 everyone = subgroupBallot(true);
  uint lanes = subgroupBallotBitCount(everyone);
  uint lane = subgroupBallotExclusiveBitCount(everyone);
  uint seg = subgroupBroadcastFirst(t) * K;
  uint sg = gl_SubgroupID;
  uint per_array = (gl_NumSubgroups + ARRAYS - 1u) / ARRAYS;
  uint counters = (sg / per_array) * OS_RADIX;

  bool full = valid_n == TILE;
  uint keys[K];
  uint rank[K];
  for (uint i = 0; i < K; i++) {
    uint local = seg + i * lanes + lane;
    keys[i] = 0;
    if (local < valid_n) keys[i] = keys_in[tile_base + local];
  }

  // Rank: rank[i] = earlier keys of the same digit in this subgroup's counter array. Peers
  // (same digit, same item) are found with one ballot per digit bit; the lowest peer bumps
  // the counter and hands the old value to the others.
  for (uint phase = 0; phase < per_array; phase++) {
    if (phase > 0) barrier();
    if (sg % per_array != phase) continue;
    if (WIDE_BALLOT == 0 && gl_SubgroupSize <= 32) {
      uint lower = gl_SubgroupLtMask.x;
      for (uint i = 0; i < K; i++) {
        bool valid = seg + i * lanes + lane < valid_n;
        uint d = digit_of(keys[i]);
        uint peers = everyone.x;
        if (!full) peers = subgroupBallot(valid).x;
        for (uint b = 0; b < 8; b++) {
          bool bit = ((d >> b) & 1u) != 0;
          uint vote = subgroupBallot(bit).x;
          peers &= bit ? vote : ~vote;
        }
        uint below = bitCount(peers & lower);
        uint before = 0;
        if (valid && below == 0) {
          before = s_region[counters + d];
          s_region[counters + d] = before + bitCount(peers);
        }
        before = subgroupShuffle(before, valid ? uint(findLSB(peers)) : 0u);
        rank[i] = before + below;
        subgroupBarrier();
      }
    } else {
      for (uint i = 0; i < K; i++) {
        bool valid = seg + i * lanes + lane < valid_n;
        uint d = digit_of(keys[i]);
        uvec4 peers = everyone;
        if (!full) peers = subgroupBallot(valid);
        for (uint b = 0; b < 8; b++) {
          bool bit = ((d >> b) & 1u) != 0;
          uvec4 vote = subgroupBallot(bit);
          peers &= bit ? vote : ~vote;
        }
        uint below = subgroupBallotExclusiveBitCount(peers);
        uint before = 0;
        if (valid && below == 0) {
          before = s_region[counters + d];
          s_region[counters + d] = before + subgroupBallotBitCount(peers);
        }
        before = subgroupShuffle(before, valid ? subgroupBallotFindLSB(peers) : 0u);
        rank[i] = before + below;
        subgroupBarrier();
      }
    }
  }
  barrier();

  // Per digit: exclusive prefix over the counter arrays (in segment order), the tile total,
  // published at once so that later tiles can look back past this one.
  uint arrays = (gl_NumSubgroups + per_array - 1u) / per_array;
  uint total = 0;
  uint desc = OS_DESC + (pc.pass & 1u) * pc.desc_stride + tile * OS_RADIX + t;
  if (t < OS_RADIX) {
    for (uint a = 0; a < arrays; a++) {
      uint c = s_region[a * OS_RADIX + t];
      s_region[a * OS_RADIX + t] = total;
      total += c;
    }
    atomicMax(data[desc], tile == 0 ? OS_FLAG_PREFIX | total : total + 1u);
  }
  uvec2 offsets = scan256(uvec2(total, gcount)); // x: tile-local, y: global digit offset
  if (t < OS_RADIX) s_digit[t] = offsets.x;
  barrier();

  // Position of each key in the tile, in digit order (stable).
  for (uint i = 0; i < K; i++) {
    if (seg + i * lanes + lane < valid_n) {
      uint d = digit_of(keys[i]);
      rank[i] += s_digit[d] + s_region[counters + d];
    }
  }
  barrier();
  for (uint i = 0; i < K; i++)
    if (seg + i * lanes + lane < valid_n) s_region[rank[i]] = keys[i];
  // The payloads load while the lookback waits on other workgroups.
  uint vals[K];
  for (uint i = 0; i < K; i++) {
    uint local = seg + i * lanes + lane;
    vals[i] = 0;
    if (local < valid_n) vals[i] = values_in[tile_base + local];
  }

  uint excl = 0;
  if (tile != 0) excl = lookback(tile, t);
  if (t < OS_RADIX) {
    if (tile != 0) atomicMax(data[desc], OS_FLAG_PREFIX | (excl + total));
    s_digit[t] = offsets.y + excl - offsets.x; // modular: + local index >= offsets.x
  }
  barrier();

  // Digits of the slots this invocation writes, four to a word: fewer registers than
  // keeping the destinations for the payloads.
  uint slot_digits[(K + 3) / 4];
  for (uint w = 0; w < (K + 3) / 4; w++) slot_digits[w] = 0;
  for (uint m = 0; m < K; m++) {
    uint j = m * WG + t;
    if (j < valid_n) {
      uint key = s_region[j];
      uint d = digit_of(key);
      slot_digits[m / 4] |= d << (8 * (m % 4));
      keys_out[s_digit[d] + j] = key;
    }
  }
  barrier();
  for (uint i = 0; i < K; i++)
    if (seg + i * lanes + lane < valid_n) s_region[rank[i]] = vals[i];
  barrier();
  for (uint m = 0; m < K; m++) {
    uint j = m * WG + t;
    if (j < valid_n) values_out[s_digit[(slot_digits[m / 4] >> (8 * (m % 4))) & 255u] + j] = s_region[j];
  }
}
