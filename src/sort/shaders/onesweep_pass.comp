#version 450
// OneSweep sort, one 8-bit digit pass. A workgroup takes the next tile in launch order,
// counts its digits and publishes the counts, ranks its keys by digit with subgroup ballots
// (multisplit), finds its global offsets by a decoupled lookback over the earlier tiles'
// partition descriptors (computing a predecessor's counts itself when they do not arrive),
// stages keys and then payloads in shared memory in digit order, and writes both out
// coalesced.
//
// Two ways to count (OS_VARIANT_LATE_COUNTS, chosen by the host at create time):
// - early counts (default where each subgroup gets its own counter array): every subgroup
//   counts its keys into its array, the tile's counts are published at once, and a scan over
//   the arrays leaves in each the subgroup's first position per digit, so ranking returns
//   final tile-local positions (CUB's order);
// - late counts: rank first (several subgroups may share an array and rank one after the
//   other), then scan the arrays, publish, and add the offsets to every rank.
//
// Nothing here assumes a subgroup size: ballots are uvec4 (with a one-word fast path when
// gl_SubgroupSize <= 32). Both ways work when subgroups share arrays: the subgroups of an
// array are consecutive and rank one after the other, in input order. Early counts pay off
// with one array per subgroup, which the host arranges where it chooses them by default.
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
layout(constant_id = OS_SPEC_VARIANT) const uint VARIANT = OS_VARIANT_DEFAULT;
layout(local_size_x_id = OS_SPEC_WORKGROUP) in;

// Descriptors are read and written by other workgroups while this one runs: every read must go
// to memory (volatile), writes are atomics.
layout(std430, binding = SS_BIND_INTERNAL) coherent volatile buffer Internal { uint data[]; };
layout(push_constant) uniform Push { os_push pc; };

const uint TILE = WG * K;
const uint REGION = TILE > ARRAYS * OS_RADIX ? TILE : ARRAYS * OS_RADIX;
const bool STEP_LOOKBACK = (VARIANT & OS_VARIANT_STEP_LOOKBACK) != 0;
const bool EARLY_VALUES = (VARIANT & OS_VARIANT_EARLY_VALUES) != 0;
const bool PLAIN_COUNTERS = (VARIANT & OS_VARIANT_PLAIN_COUNTERS) != 0;
const bool WIDE_RANKS = (VARIANT & OS_VARIANT_WIDE_RANKS) != 0;
const bool LATE_HEADER = (VARIANT & OS_VARIANT_LATE_HEADER) != 0;
const bool EARLY_COUNTS = (VARIANT & OS_VARIANT_LATE_COUNTS) == 0;

// Ranks are below TILE <= 65536: two to a register (fewer registers, more workgroups per SM),
// or one each (WIDE_RANKS). Indices are constants once the loops are unrolled.
#define RANK_GET(i) (WIDE_RANKS ? rk[i] : bitfieldExtract(rk[(i) >> 1], int(((i)&1u) * 16u), 16))
#define RANK_SET(i, v)                                                              \
  {                                                                                 \
    if (WIDE_RANKS)                                                                 \
      rk[i] = (v);                                                                  \
    else                                                                            \
      rk[(i) >> 1] = bitfieldInsert(rk[(i) >> 1], (v), int(((i)&1u) * 16u), 16);    \
  }

// Per-array digit counters while ranking, then the tile's keys (and later its payloads) in
// digit order.
shared uint s_region[REGION];
// Tile-local exclusive digit offsets; after the lookback, global offset minus local offset.
shared uint s_digit[OS_RADIX];
shared uint s_fallback[OS_RADIX];
shared uvec2 s_partial[MAX_SG];
shared uint s_tile;
shared uvec2 s_header; // OS_H_TILES, OS_H_COUNT (unless LATE_HEADER)
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

// One read of WINDOW descriptors of digit `desc` from tile `pos` down: adds what they give to
// excl and moves pos past every AGGREGATE; needs turns false at the first PREFIX (or tile 0).
void lookback_read(uint desc, inout int pos, inout uint excl, inout bool needs) {
  uint v[WINDOW];
  for (uint w = 0; w < WINDOW; w++) {
    v[w] = 0;
    if (pos >= int(w)) v[w] = data[desc + uint(pos - int(w)) * OS_RADIX];
  }
  for (uint w = 0; w < WINDOW && needs; w++) {
    if (v[w] == 0) break; // not published yet: read it again next time
    if ((v[w] & OS_FLAG_PREFIX) != 0) {
      excl += v[w] & ~OS_FLAG_PREFIX;
      needs = false;
    } else {
      excl += v[w] - 1u;
      needs = --pos >= 0;
    }
  }
}

// The workgroup counts the digits of tile `stall_tile` (a full tile: only the last tile is
// partial, and it is nobody's predecessor) and publishes them as its AGGREGATE; each digit
// still waiting on exactly that tile takes its count.
void count_stalled_tile(uint t, uint desc, uint stall_tile, inout int pos, inout uint excl, inout bool needs) {
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
    }
    atomicMax(data[desc + stall_tile * OS_RADIX], c + 1u); // never lowers a PREFIX
  }
}

// For digit t (t < 256): the count of the digit in all tiles before `tile`.
//
// Each digit's invocation walks back over its digit's descriptors on its own, reading WINDOW
// tiles per read (one memory latency instead of WINDOW), and stops at the first PREFIX, with
// no workgroup barrier while it makes progress. A digit that makes no progress for SPIN reads
// is stalled: once every digit is done or stalled, the workgroup counts the nearest stalled
// tile's keys itself (every stalled digit of that tile takes its count) and publishes them as
// that tile's AGGREGATE, so the sort never waits on a workgroup that may not be running. The
// common case costs one workgroup barrier.
//
// STEP_LOOKBACK (the previous design, kept for measurements): every read is a workgroup-wide
// step with a barrier, and stalls are counted in steps without progress.
uint lookback(uint tile, uint t) {
  uint excl = 0;
  bool needs = t < OS_RADIX;
  int pos = int(tile) - 1; // the next tile whose count this digit needs
  uint idle = 0;           // reads without progress
  uint desc = OS_DESC + (pc.pass & 1u) * pc.desc_stride + t;
  uint reads = 0, fallbacks = 0;
  for (uint round = 0;; round++) {
    bool stalled = false;
    if (STEP_LOOKBACK) {
      if (needs) {
        if (FORCE_FALLBACK == 0) {
          int from = pos;
          lookback_read(desc, pos, excl, needs);
          reads++;
          idle = needs && pos == from ? idle + 1u : 0u;
          stalled = idle >= SPIN;
        } else {
          stalled = true;
        }
      }
    } else {
      idle = 0;
      while (needs) {
        if (FORCE_FALLBACK != 0 || idle >= SPIN) {
          stalled = true;
          break;
        }
        int from = pos;
        lookback_read(desc, pos, excl, needs);
        reads++;
        idle = pos == from ? idle + 1u : 0u;
      }
    }
    // Three vote slots in rotation: this round's, the next one's (cleared a round ago) and the
    // one cleared now, which nobody touches again before a barrier has passed.
    uint slot = round % 3u;
    if (needs) atomicOr(s_vote[slot], 1u);
    if (stalled) {
      atomicOr(s_vote[slot], 2u);
      atomicMax(s_stall[slot], uint(pos));
    }
    barrier();
    uint vote = s_vote[slot];
    uint stall_tile = s_stall[slot];
    if (t == 0) {
      s_vote[(round + 2u) % 3u] = 0;
      s_stall[(round + 2u) % 3u] = 0;
    }
    if (vote == 0) break;
    if ((vote & 2u) != 0) {
      fallbacks++;
      count_stalled_tile(t, desc, stall_tile, pos, excl, needs);
      idle = 0;
    }
  }
  if (STATS != 0) {
    uint sg_reads = subgroupAdd(reads); // one atomic per subgroup: the counters stay cheap
    if (subgroupElect() && sg_reads != 0) atomicAdd(data[OS_H_STAT_STEPS], sg_reads);
    if (t == 0 && fallbacks != 0) atomicAdd(data[OS_H_STAT_FALLBACKS], fallbacks);
  }
  return excl;
}

// Per-invocation state of the tile, shared by the stages of main() below.
uint keys[K];
uint rk[K]; // see RANK_GET
uint vals[K];
uint tile, tile_base, valid_n;
uint seg, lanes, lane, counters, per_array;
uvec4 everyone;

// Takes the next tile in launch order and clears the counters; false when there is none. The
// invocation that takes the tile also reads the header, so its latency overlaps the atomic's
// instead of following the barrier (LATE_HEADER: every invocation reads it after).
bool start_tile(uint t) {
  if (t == 0) {
    s_tile = atomicAdd(data[OS_H_TILE_COUNTER + pc.pass], 1u);
    if (!LATE_HEADER) s_header = uvec2(data[OS_H_TILES], data[OS_H_COUNT]);
    s_vote[0] = 0;
    s_vote[1] = 0;
    s_stall[0] = 0;
    s_stall[1] = 0;
  }
  for (uint i = t; i < ARRAYS * OS_RADIX; i += WG) s_region[i] = 0;
  barrier();
  tile = s_tile;
  uvec2 header = LATE_HEADER ? uvec2(data[OS_H_TILES], data[OS_H_COUNT]) : s_header;
  if (tile >= header.x) return false;
  shift = 8u * pc.pass;
  digit_mask = pc.key_bits - shift >= 8 ? 255u : (1u << (pc.key_bits - shift)) - 1u;
  tile_base = tile * TILE;
  valid_n = min(TILE, header.y - tile_base);
  return true;
}

// This subgroup's segment of the tile: lane `lane` of item i holds element
// seg + i * lanes + lane, so each item is one coalesced load and the order of (item, lane)
// is the input order. The last tile is padded with all-ones keys: they rank after every real
// key (highest digit, last in input order), so they take the slots from valid_n on, which
// are never written out, and no key needs a validity test while ranking.
void load_keys(uint t) {
  everyone = subgroupBallot(true);
  lanes = subgroupBallotBitCount(everyone);
  lane = subgroupBallotExclusiveBitCount(everyone);
  seg = subgroupBroadcastFirst(t) * K;
  per_array = (gl_NumSubgroups + ARRAYS - 1u) / ARRAYS;
  counters = (gl_SubgroupID / per_array) * OS_RADIX;
  for (uint i = 0; i < K; i++) rk[i] = 0;
  for (uint i = 0; i < K; i++) {
    uint local = seg + i * lanes + lane;
    keys[i] = local < valid_n ? keys_in[tile_base + local] : ~0u;
  }
}

void load_values() {
  for (uint i = 0; i < K; i++) {
    uint local = seg + i * lanes + lane;
    vals[i] = local < valid_n ? values_in[tile_base + local] : 0u;
  }
}

// The counter update of one group of peers: the lowest peer adds their number and hands the
// old value on (returned to every peer by the caller's shuffle).
uint bump(uint below, uint d, uint peer_count) {
  uint before = 0;
  if (below == 0) {
    if (PLAIN_COUNTERS) {
      before = s_region[counters + d];
      s_region[counters + d] = before + peer_count;
    } else {
      before = atomicAdd(s_region[counters + d], peer_count);
    }
  }
  return before;
}

// Rank of a key of digit d among this subgroup's earlier keys of the same digit, with one
// ballot per digit bit; the atomic's result feeds the shuffle, so the next item's update of
// the same counter comes after it without a subgroup barrier. One-word ballots (subgroups of
// at most 32) or uvec4 ones.
uint rank_narrow(uint d) {
  uint peers = everyone.x;
  for (uint b = 0; b < 8; b++) {
    bool bit = ((d >> b) & 1u) != 0;
    uint vote = subgroupBallot(bit).x;
    peers &= bit ? vote : ~vote;
  }
  uint below = bitCount(peers & gl_SubgroupLtMask.x);
  return subgroupShuffle(bump(below, d, bitCount(peers)), uint(findLSB(peers))) + below;
}

uint rank_wide(uint d) {
  uvec4 peers = everyone;
  for (uint b = 0; b < 8; b++) {
    bool bit = ((d >> b) & 1u) != 0;
    uvec4 vote = subgroupBallot(bit);
    peers &= bit ? vote : ~vote;
  }
  uint below = subgroupBallotExclusiveBitCount(peers);
  return subgroupShuffle(bump(below, d, subgroupBallotBitCount(peers)), subgroupBallotFindLSB(peers)) + below;
}

// rank i = earlier keys of the same digit in this subgroup's counter array plus the array's
// value for the digit before ranking; subgroups that share an array take turns.
void rank_keys() {
  bool narrow = WIDE_BALLOT == 0 && gl_SubgroupSize <= 32;
  for (uint phase = 0; phase < per_array; phase++) {
    if (phase > 0) barrier();
    if (gl_SubgroupID % per_array != phase) continue;
    for (uint i = 0; i < K; i++) {
      uint d = digit_of(keys[i]);
      RANK_SET(i, narrow ? rank_narrow(d) : rank_wide(d));
      if (PLAIN_COUNTERS) subgroupBarrier();
    }
  }
  barrier();
}

// Per digit: exclusive prefix over the counter arrays (in segment order) and the tile total,
// published at once so that later tiles can look back past this one (padding keys are
// counted too; they sit in the last tile, which no tile looks back at). Then each key's
// position in the tile in digit order (stable), and the keys staged there. Returns the
// tile-local (x) and global (y) offsets of digit t; *total: digit t's count in the tile.
uvec2 publish_and_stage(uint t, uint desc, out uint total) {
  uint gcount = t < OS_RADIX ? data[OS_GLOBAL_HIST + pc.pass * OS_RADIX + t] : 0;
  uint arrays = (gl_NumSubgroups + per_array - 1u) / per_array;
  total = 0;
  if (t < OS_RADIX) {
    for (uint a = 0; a < arrays; a++) {
      uint c = s_region[a * OS_RADIX + t];
      s_region[a * OS_RADIX + t] = total;
      total += c;
    }
    atomicMax(data[desc], tile == 0 ? OS_FLAG_PREFIX | total : total + 1u);
  }
  uvec2 offsets = scan256(uvec2(total, gcount));
  if (t < OS_RADIX) s_digit[t] = offsets.x;
  barrier();
  for (uint i = 0; i < K; i++) {
    uint d = digit_of(keys[i]);
    RANK_SET(i, RANK_GET(i) + s_digit[d] + s_region[counters + d]);
  }
  barrier();
  for (uint i = 0; i < K; i++) s_region[RANK_GET(i)] = keys[i];
  return offsets;
}

// Early counts: each subgroup counts its keys (padding included) into its array, and the
// tile's digit counts are published before ranking, so later tiles' lookbacks can pass this one
// sooner. Then per digit the arrays are scanned, from the digit's tile-local offset on, so that
// each array holds its (first) subgroup's first position of the digit in the tile. Returns the
// tile-local (x) and global (y) offsets of digit t; *total: digit t's count in the tile.
uvec2 count_and_publish(uint t, uint desc, out uint total) {
  for (uint i = 0; i < K; i++) atomicAdd(s_region[counters + digit_of(keys[i])], 1u);
  uint gcount = t < OS_RADIX ? data[OS_GLOBAL_HIST + pc.pass * OS_RADIX + t] : 0;
  uint arrays = (gl_NumSubgroups + per_array - 1u) / per_array;
  barrier();
  total = 0;
  if (t < OS_RADIX) {
    for (uint a = 0; a < arrays; a++) total += s_region[a * OS_RADIX + t];
    atomicMax(data[desc], tile == 0 ? OS_FLAG_PREFIX | total : total + 1u);
  }
  uvec2 offsets = scan256(uvec2(total, gcount));
  if (t < OS_RADIX) {
    uint first = offsets.x;
    for (uint a = 0; a < arrays; a++) {
      uint c = s_region[a * OS_RADIX + t];
      s_region[a * OS_RADIX + t] = first;
      first += c;
    }
  }
  barrier();
  return offsets;
}

// Keys, then payloads, out of shared memory in digit order (coalesced per digit run).
void scatter(uint t) {
  // Digits of the slots this invocation writes, four to a word: fewer registers than
  // keeping the destinations for the payloads.
  uint slot_digits[(K + 3) / 4];
  for (uint w = 0; w < (K + 3) / 4; w++) slot_digits[w] = 0;
  for (uint m = 0; m < K; m++) {
    uint j = m * WG + t;
    uint key = s_region[j];
    uint d = digit_of(key);
    slot_digits[m / 4] |= d << (8 * (m % 4));
    if (j < valid_n) keys_out[s_digit[d] + j] = key;
  }
  if (pc.keys_only != 0) return; // uniform: the whole workgroup leaves before the barrier
  barrier();
  for (uint i = 0; i < K; i++) s_region[RANK_GET(i)] = vals[i];
  barrier();
  for (uint m = 0; m < K; m++) {
    uint j = m * WG + t;
    if (j < valid_n) values_out[s_digit[(slot_digits[m / 4] >> (8 * (m % 4))) & 255u] + j] = s_region[j];
  }
}

void main() {
  uint t = gl_LocalInvocationID.x;
  if (!start_tile(t)) return;
  if (pc.pass + 1 < pc.passes && t < OS_RADIX)
    data[OS_DESC + ((pc.pass + 1u) & 1u) * pc.desc_stride + tile * OS_RADIX + t] = 0;
  load_keys(t);
  uint desc = OS_DESC + (pc.pass & 1u) * pc.desc_stride + tile * OS_RADIX + t;
  uint total;
  uvec2 offsets;
  if (EARLY_COUNTS) {
    offsets = count_and_publish(t, desc, total);
    rank_keys(); // ranks are final positions; its closing barrier frees the arrays
    for (uint i = 0; i < K; i++) s_region[RANK_GET(i)] = keys[i];
  } else {
    rank_keys();
    offsets = publish_and_stage(t, desc, total);
  }

  // EARLY_VALUES: the payloads load while the lookback waits on other workgroups (more
  // registers live across it); by default they load while the keys go out.
  bool payloads = pc.keys_only == 0;
  if (EARLY_VALUES && payloads) load_values();
  uint excl = 0;
  if (tile != 0) excl = lookback(tile, t);
  if (t < OS_RADIX) {
    if (tile != 0) atomicMax(data[desc], OS_FLAG_PREFIX | (excl + total));
    s_digit[t] = offsets.y + excl - offsets.x; // modular: + local index >= offsets.x
  }
  if (!EARLY_VALUES && payloads) load_values();
  barrier();
  scatter(t);
}
