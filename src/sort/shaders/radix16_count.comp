#version 450
// Radix16 sort, step (a): the 16 digit counts of one tile (256 x K keys), written digit-major
// (counts[d * tiles + tile]) so that the shared hierarchical scan gives every tile's global
// offset per digit. Each subgroup round takes four ballots (one per digit bit); from them lane
// l counts digits l, l + lanes, ... in registers, so nothing is contended until the
// subgroups add their totals.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "quaternary_shared.h"
#include "radix16_shared.h"

layout(constant_id = RADIX16_SPEC_KEYS) const uint K = 8;
layout(constant_id = RADIX16_SPEC_DIGITS_PER_LANE) const uint DPL = 4;
layout(local_size_x = 256) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { quaternary_push pc; };

const uint TILE = RADIX16_WORKGROUP * K;
shared uint s_count[RADIX16_RADIX];

// Those of `lanes` whose digit is dd, from the ballots of the four digit bits.
uvec4 match(uint dd, uvec4 lanes, uvec4 b0, uvec4 b1, uvec4 b2, uvec4 b3) {
  lanes &= (dd & 1u) != 0 ? b0 : ~b0;
  lanes &= (dd & 2u) != 0 ? b1 : ~b1;
  lanes &= (dd & 4u) != 0 ? b2 : ~b2;
  return lanes & ((dd & 8u) != 0 ? b3 : ~b3);
}

void main() {
  uint tile = group_index();
  uint tiles = data[QUATERNARY_H_CHUNKS];
  if (tile >= tiles) return;
  uint t = gl_LocalInvocationID.x;
  if (t < RADIX16_RADIX) s_count[t] = 0;
  uvec4 everyone = subgroupBallot(true);
  uint lanes = subgroupBallotBitCount(everyone);
  uint lane = subgroupBallotExclusiveBitCount(everyone);
  uint base = tile * TILE;
  uint valid_n = min(TILE, data[QUATERNARY_H_COUNT] - base);
  uint acc[DPL];
  for (uint k = 0; k < DPL; k++) acc[k] = 0;
  for (uint m = 0; m < K; m++) {
    uint j = m * RADIX16_WORKGROUP + t; // coalesced; the order of counting does not matter
    bool valid = j < valid_n;
    uint d = valid ? (keys_in[base + j] >> pc.shift) & pc.mask : 0u;
    uvec4 v = subgroupBallot(valid);
    uvec4 b0 = subgroupBallot((d & 1u) != 0), b1 = subgroupBallot((d & 2u) != 0);
    uvec4 b2 = subgroupBallot((d & 4u) != 0), b3 = subgroupBallot((d & 8u) != 0);
    for (uint k = 0; k < DPL; k++) acc[k] += subgroupBallotBitCount(match(lane + k * lanes, v, b0, b1, b2, b3));
  }
  barrier(); // s_count is cleared
  for (uint k = 0; k < DPL; k++) {
    uint dd = lane + k * lanes;
    if (dd < RADIX16_RADIX && acc[k] != 0) atomicAdd(s_count[dd], acc[k]);
  }
  barrier();
  if (t < RADIX16_RADIX) data[QUATERNARY_H_WORDS + t * tiles + tile] = s_count[t];
}
