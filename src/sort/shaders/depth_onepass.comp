#version 450
// Depth-sort stage, the key pass in one dispatch: a workgroup takes the next tile of DS_TILE
// splats in launch order, reads each centre once, culls and keys it (depth_common.glsl),
// counts its visible splats, finds the visible count of all earlier tiles by a decoupled
// lookback over their descriptors (counting a predecessor's splats itself when its count does
// not arrive, so no workgroup waits on one that may not be running), and writes the key and
// index of each visible splat at its place in input order: the sort's input, compacted.
// Quantised keys (key_bits < 32) are written as 32-bit ~bits(w) with the visible depth range
// in the header; depth_quantise.comp narrows them once the range is known.
//
// Nothing assumes a subgroup size: each subgroup takes a segment of the tile placed by the
// lane counts of the subgroups before it, and ranks come from ballot bit counts.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "depth_shared.h"
layout(local_size_x = DS_WORKGROUP) in;
layout(std430, binding = DS_BIND_CENTERS) readonly buffer Centers { uint centers[]; };
layout(std430, binding = DS_BIND_CENTERS4) readonly buffer Centers4 { vec4 centers4[]; };
layout(std430, binding = DS_BIND_COUNT) readonly buffer CountBuf { uint count_buf[]; };
layout(std430, binding = DS_BIND_HEADER) coherent buffer Header { uint header[]; };
// Read and written by other workgroups while this one runs: every read goes to memory.
layout(std430, binding = DS_BIND_GROUPS) coherent volatile buffer Desc { uint desc[]; };
layout(std430, binding = DS_BIND_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = DS_BIND_VALUES) writeonly buffer Values { uint values[]; };
layout(std430, binding = DS_BIND_DRAW) writeonly buffer Draw { uint draw[]; };
layout(push_constant) uniform Push { ds_push pc; };

#define DS_COMMON_VEC4
#include "depth_common.glsl"

shared uint s_tile;
shared uint s_lanes[DS_WORKGROUP]; // per subgroup: its invocations, then its visible count
shared uint s_state, s_stall, s_count, s_excl, s_zmin, s_zmax;

const uint STATE_DONE = 0u, STATE_STALLED = 1u;

// Exclusive sum of s_lanes[0 .. gl_SubgroupID) and the sum of all; the caller's barrier makes
// the entries visible, and the next barrier ends their reads.
uvec2 subgroup_prefix() {
  uint ex = 0u, all = 0u;
  for (uint s = 0u; s < gl_NumSubgroups; s++) {
    uint v = s_lanes[s];
    ex += s < gl_SubgroupID ? v : 0u;
    all += v;
  }
  return uvec2(ex, all);
}

// Subgroup 0: walks back from tile `pos` over the descriptors, a subgroup-wide window per read
// (lane r reads tile pos - r), adding what they give to excl, until a PREFIX (done: needs turns
// false) or DS_SPIN reads without progress (stalled: pos is the tile that did not arrive).
void lookback(uint lane, uint lanes, inout int pos, inout uint excl, inout bool needs) {
  bool force = (pc.flags & DS_FLAG_FORCE_FALLBACK) != 0;
  for (uint idle = 0u; needs && !force && idle < DS_SPIN;) {
    int p = pos - int(lane);
    uint v = p >= 0 ? desc[p] : DS_DESC_PREFIX; // before tile 0: a prefix of nothing
    uint not_ready = subgroupMin(v == 0u ? lane : lanes);
    uint prefix = subgroupMin((v & DS_DESC_PREFIX) != 0u ? lane : lanes);
    if (prefix < not_ready) {
      excl += subgroupAdd(lane < prefix ? v - 1u : lane == prefix ? v & ~DS_DESC_PREFIX : 0u);
      needs = false;
    } else {
      excl += subgroupAdd(lane < not_ready ? v - 1u : 0u);
      pos -= int(not_ready);
      idle = not_ready == 0u ? idle + 1u : 0u;
    }
  }
}

// The visible count of every tile before `tile`; every invocation of the workgroup calls it.
uint tiles_before(uint tile, uint n, uint lane, uint lanes, uint t) { // t: local invocation index
  int pos = int(tile) - 1;
  uint excl = 0u;
  bool needs = tile > 0u;
  for (;;) {
    if (gl_SubgroupID == 0u) {
      lookback(lane, lanes, pos, excl, needs);
      if (subgroupElect()) { // subgroup 0 need not hold invocation 0
        s_state = needs ? STATE_STALLED : STATE_DONE;
        s_stall = uint(pos);
        s_excl = excl;
        s_count = 0u;
      }
    }
    barrier();
    if (s_state == STATE_DONE) break;
    // Fallback: count the stalled tile (a full one: only the last tile is partial, and it is
    // nobody's predecessor) and publish it as that tile's AGGREGATE.
    uint stall = s_stall, c = 0u;
    for (uint m = 0u; m < DS_ITEMS; m++) {
      uint i = stall * DS_TILE + m * DS_WORKGROUP + t;
      c += i < n && visible_w(i) > 0.0 ? 1u : 0u;
    }
    c = subgroupAdd(c);
    if (subgroupElect()) atomicAdd(s_count, c);
    barrier();
    if (gl_SubgroupID == 0u) {
      c = s_count;
      if (subgroupElect()) atomicMax(desc[stall], c + 1u);
      excl += c;
      needs = --pos >= 0;
    }
    barrier(); // s_count and s_state are read before subgroup 0 writes them again
  }
  return s_excl;
}

void main() {
  uint t = gl_LocalInvocationIndex;
  if (t == 0u) {
    s_tile = atomicAdd(header[DS_H_TILE], 1u);
    s_zmin = 0x7F7FFFFFu;
    s_zmax = 0u;
  }
  uvec4 everyone = subgroupBallot(true);
  uint lanes = subgroupBallotBitCount(everyone), lane = subgroupBallotExclusiveBitCount(everyone);
  if (subgroupElect()) s_lanes[gl_SubgroupID] = lanes;
  barrier();
  uint tile = s_tile, n = splat_count();
  uint tiles = max((n + DS_TILE - 1u) / DS_TILE, 1u); // tile 0 runs even for no splats: it writes the count
  if (tile >= tiles) return;
  uint base = tile * DS_TILE + subgroup_prefix().x * DS_ITEMS;
  barrier();

  // Coalesced: item m of the subgroup is one contiguous row of `lanes` splats. Every load is
  // issued before the first is used.
  vec4 c[DS_ITEMS];
  for (uint m = 0u; m < DS_ITEMS; m++) {
    uint i = base + m * lanes + lane;
    c[m] = i < n ? load_center(i) : vec4(0.0);
  }
  float w[DS_ITEMS];
  uint rank[DS_ITEMS];
  uint visible = 0u;
  for (uint m = 0u; m < DS_ITEMS; m++) {
    uint i = base + m * lanes + lane;
    w[m] = i < n ? centre_w(c[m]) : 0.0;
    uvec4 vis = subgroupBallot(w[m] > 0.0);
    rank[m] = visible + subgroupBallotExclusiveBitCount(vis);
    visible += subgroupBallotBitCount(vis);
  }
  if (subgroupElect()) s_lanes[gl_SubgroupID] = visible;
  if (pc.key_bits < 32u) {
    uint lo = 0x7F7FFFFFu, hi = 0u;
    for (uint m = 0u; m < DS_ITEMS; m++)
      if (w[m] > 0.0) lo = min(lo, floatBitsToUint(w[m])), hi = max(hi, floatBitsToUint(w[m]));
    lo = subgroupMin(lo), hi = subgroupMax(hi);
    if (subgroupElect() && visible != 0u) {
      atomicMin(s_zmin, lo);
      atomicMax(s_zmax, hi);
    }
  }
  barrier();
  uvec2 sub = subgroup_prefix(); // (visible before this subgroup in the tile, the tile's)
  if (t == 0u) {
    atomicMax(desc[tile], tile == 0u ? DS_DESC_PREFIX | sub.y : sub.y + 1u);
    if (pc.key_bits < 32u && sub.y != 0u) {
      atomicMin(header[DS_H_ZMIN], s_zmin);
      atomicMax(header[DS_H_ZMAX], s_zmax);
    }
  }
  uint excl = tiles_before(tile, n, lane, lanes, t);
  if (t == 0u) {
    if (tile != 0u) atomicMax(desc[tile], DS_DESC_PREFIX | (excl + sub.y));
    if (tile == tiles - 1u) {
      header[DS_H_VISIBLE] = excl + sub.y;
      if ((pc.flags & DS_FLAG_DRAW) != 0u) draw[pc.draw_index] = excl + sub.y;
    }
  }
  uint first = excl + sub.x;
  for (uint m = 0u; m < DS_ITEMS; m++) {
    if (!(w[m] > 0.0)) continue;
    keys[first + rank[m]] = ds_depth_key(w[m]);
    values[first + rank[m]] = base + m * lanes + lane;
  }
}
