#version 450
// After fuse_scan.comp, one workgroup per block: each visible splat's key (quantised to
// key_bits over the visible range, as the depth-sort stage does) and frame slot at its block's
// first place plus its rank in the block. The sort's input is then in slot order, whatever
// order the projection's workgroups ran in, and the stable sort leaves equal keys in slot
// order, as the stage and the CPU reference do.
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"
#include "depth_shared.h"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_BIND_KEYS) readonly buffer Keys { uint keys[]; };
layout(std430, binding = SP_BIND_BLOCKS) readonly buffer Blocks { uint blocks[]; };
layout(std430, binding = SP_BIND_HEADER) readonly buffer Header { uint header[]; };
layout(std430, binding = SP_BIND_SORT_KEYS) writeonly buffer SortKeys { uint sort_keys[]; };
layout(std430, binding = SP_BIND_SORT_VALUES) writeonly buffer SortValues { uint sort_values[]; };
layout(push_constant) uniform Push { sp_compact_push pc; };
#define DS_COMMON_QUANTISE_ONLY
#include "depth_common.glsl"

shared uint rank[SP_PROJECT_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint block = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint first = block * SP_FUSE_BLOCK + t * SP_FUSE_ITEMS; // each invocation: a run of slots
  uint key[SP_FUSE_ITEMS], mine = 0u;
  for (uint j = 0u; j < SP_FUSE_ITEMS; j++) {
    key[j] = first + j < pc.count ? keys[first + j] : DS_CULLED;
    mine += key[j] != DS_CULLED ? 1u : 0u;
  }
  rank[t] = mine;
  barrier();
  for (uint offset = 1u; offset < SP_PROJECT_WORKGROUP; offset <<= 1) { // inclusive scan of the runs
    uint v = t >= offset ? rank[t - offset] : 0u;
    barrier();
    rank[t] += v;
    barrier();
  }
  if (mine == 0u) return;
  float zmin = uintBitsToFloat(header[SP_H_ZMIN]), zmax = uintBitsToFloat(header[SP_H_ZMAX]);
  uint slot = blocks[block] + rank[t] - mine;
  for (uint j = 0u; j < SP_FUSE_ITEMS; j++) {
    if (key[j] == DS_CULLED) continue;
    sort_keys[slot] = pc.key_bits < 32u ? quantise_key(key[j], zmin, zmax, pc.key_bits) : key[j];
    sort_values[slot] = first + j;
    slot++;
  }
}
