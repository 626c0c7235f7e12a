#version 450
// Radix16 sort, step (c): ranks every key of a tile among the tile's keys of the same digit
// (stable: earlier keys first) and writes keys, then payloads, to scanned_counts[d][tile] + rank.
//
// Each subgroup ranks a contiguous segment of the tile, one item (a key per lane) at a time:
// four ballots give a key its peers (the lanes whose key has the same digit), its rank is the
// subgroup's counter of that digit in shared memory plus its peers in lower lanes, and the
// lowest peer moves the counter on by their number. An exclusive scan of all subgroups'
// counters in digit-major order (digit, then subgroup) gives each subgroup's first tile
// position per digit. The keys are staged in shared memory in digit order and written out in
// runs (coalesced per digit), then the payloads the same way.
//
// Nothing assumes a subgroup size: ballots are uvec4, the counters are per subgroup however
// many there are, and only basic and ballot subgroup operations are used.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "quaternary_shared.h"
#include "radix16_shared.h"
#include "scan512.glsl"

layout(constant_id = RADIX16_SPEC_KEYS) const uint K = 8;
layout(constant_id = RADIX16_SPEC_MAX_SUBGROUPS) const uint MAX_SG = 64;
layout(local_size_x = 256) in;
layout(std430, binding = SS_BIND_INTERNAL) readonly buffer Internal { uint data[]; };
layout(push_constant) uniform Push { quaternary_push pc; };

const uint TILE = RADIX16_WORKGROUP * K;
const uint COUNTERS = MAX_SG * RADIX16_RADIX;
const uint REGION = TILE > COUNTERS ? TILE : COUNTERS;
// The subgroups' digit counters (subgroup s, digit d at s * 16 + d) while ranking, then their
// exclusive prefixes; then the tile's keys, and later its payloads, in digit order.
shared uint s_region[REGION];
// Global position of digit d's first key of this tile minus its tile position (modular).
shared uint s_global[RADIX16_RADIX];

// Per-invocation state of the tile, shared by the stages of main() below.
uint keys[K];
uint pos[K]; // rank among the subgroup's keys of the digit, then position in the tile
uint tile, tile_base, valid_n, seg, lanes, lane, counters;
uvec4 everyone;

uint digit_of(uint key) { return (key >> pc.shift) & pc.mask; }

// Lane `lane` of item i holds element seg + i * lanes + lane of the tile: each item is one
// coalesced load, and the order of (subgroup, item, lane) is the input order. The last tile is
// padded with all-ones keys: their digit is the largest there is (pc.mask) and they come last
// in input order, so they take the tile positions from valid_n on, which are never written out.
void load_keys(uint t) {
  everyone = subgroupBallot(true);
  lanes = subgroupBallotBitCount(everyone);
  lane = subgroupBallotExclusiveBitCount(everyone);
  seg = subgroupBroadcastFirst(t) * K;
  counters = gl_SubgroupID * RADIX16_RADIX;
  for (uint i = 0; i < K; i++) {
    uint local = seg + i * lanes + lane;
    keys[i] = local < valid_n ? keys_in[tile_base + local] : ~0u;
  }
}

// pos[i] = the subgroup's keys of the same digit before key i (earlier items, lower lanes).
void rank_keys() {
  for (uint i = 0; i < K; i++) {
    uint d = digit_of(keys[i]);
    uvec4 peers = everyone;
    for (uint b = 0; b < 4; b++) {
      bool bit = ((d >> b) & 1u) != 0;
      uvec4 vote = subgroupBallot(bit);
      peers &= bit ? vote : ~vote;
    }
    uint below = subgroupBallotExclusiveBitCount(peers);
    uint before = s_region[counters + d];
    subgroupBarrier(); // every lane has read its counter before the lowest peer moves it on
    if (below == 0) s_region[counters + d] = before + subgroupBallotBitCount(peers);
    subgroupBarrier(); // the next item reads the counters moved
    pos[i] = before + below;
  }
}

// Entry e of the digit-major order (digit e / ns, subgroup e % ns) is this counter.
uint entry_at(uint e, uint ns) { return (e % ns) * RADIX16_RADIX + e / ns; }

// The scan has 512 slots of `per` consecutive entries each (per = 1 for up to 32 subgroups).
uint slot_sum(uint slot, uint per, uint ns) {
  uint sum = 0, entries = RADIX16_RADIX * ns;
  for (uint k = 0, e = slot * per; k < per && e < entries; k++, e++) sum += s_region[entry_at(e, ns)];
  return sum;
}

void slot_write(uint slot, uint per, uint ns, uint prefix) {
  uint entries = RADIX16_RADIX * ns;
  for (uint k = 0, e = slot * per; k < per && e < entries; k++, e++) {
    uint at = entry_at(e, ns);
    uint c = s_region[at];
    s_region[at] = prefix;
    prefix += c;
  }
}

// Every counter becomes its exclusive prefix in digit-major order: the tile position of the
// subgroup's first key of the digit (subgroup 0's is where the digit starts in the tile).
void scan_counters(uint t) {
  uint ns = gl_NumSubgroups;
  uint per = (RADIX16_RADIX * ns + 511u) / 512u;
  uint a = slot_sum(t, per, ns), b = slot_sum(t + 256u, per, ns);
  scan512(a, b); // its barriers order the reads above before the writes below
  slot_write(t, per, ns, a);
  slot_write(t + 256u, per, ns, b);
  barrier();
}

// Keys, then payloads, out of shared memory in digit order (runs of one digit are contiguous
// in the output too).
void scatter(uint t, uint vals[K]) {
  // the digits of the slots this invocation writes, eight to a word, for the payloads
  uint slot_digits[(K + 7) / 8];
  for (uint w = 0; w < (K + 7) / 8; w++) slot_digits[w] = 0;
  for (uint m = 0; m < K; m++) {
    uint j = m * RADIX16_WORKGROUP + t;
    uint key = s_region[j];
    uint d = digit_of(key);
    slot_digits[m / 8] |= d << (4 * (m % 8));
    if (j < valid_n) keys_out[s_global[d] + j] = key;
  }
  if (pc.keys_only != 0) return; // uniform: the whole workgroup leaves before the barrier
  barrier();
  for (uint i = 0; i < K; i++) s_region[pos[i]] = vals[i];
  barrier();
  for (uint m = 0; m < K; m++) {
    uint j = m * RADIX16_WORKGROUP + t;
    if (j < valid_n) values_out[s_global[(slot_digits[m / 8] >> (4 * (m % 8))) & 15u] + j] = s_region[j];
  }
}

void main() {
  tile = group_index();
  uint tiles = data[QUATERNARY_H_CHUNKS];
  if (tile >= tiles) return;
  uint t = gl_LocalInvocationID.x;
  tile_base = tile * TILE;
  valid_n = min(TILE, data[QUATERNARY_H_COUNT] - tile_base);
  for (uint i = t; i < RADIX16_RADIX * gl_NumSubgroups; i += RADIX16_WORKGROUP) s_region[i] = 0;
  load_keys(t);
  barrier();
  rank_keys();
  barrier();
  scan_counters(t);
  if (t < RADIX16_RADIX) s_global[t] = data[QUATERNARY_H_WORDS + t * tiles + tile] - s_region[t];
  for (uint i = 0; i < K; i++) pos[i] += s_region[counters + digit_of(keys[i])];
  // payloads load now, while the keys are staged and written
  uint vals[K];
  for (uint i = 0; i < K; i++) {
    uint local = seg + i * lanes + lane;
    vals[i] = pc.keys_only == 0 && local < valid_n ? values_in[tile_base + local] : 0u;
  }
  barrier(); // every counter is read: the tile may overwrite them
  for (uint i = 0; i < K; i++) s_region[pos[i]] = keys[i];
  barrier();
  scatter(t, vals);
}
