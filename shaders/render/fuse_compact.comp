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
  uint i = block * SP_PROJECT_WORKGROUP + t;
  uint key = i < pc.count ? keys[i] : DS_CULLED;
  uint visible = key != DS_CULLED ? 1u : 0u;
  rank[t] = visible;
  barrier();
  for (uint offset = 1u; offset < SP_PROJECT_WORKGROUP; offset <<= 1) { // inclusive scan
    uint v = t >= offset ? rank[t - offset] : 0u;
    barrier();
    rank[t] += v;
    barrier();
  }
  if (visible == 0u) return;
  if (pc.key_bits < 32u)
    key = quantise_key(key, uintBitsToFloat(header[SP_H_ZMIN]), uintBitsToFloat(header[SP_H_ZMAX]), pc.key_bits);
  uint slot = blocks[block] + rank[t] - 1u;
  sort_keys[slot] = key;
  sort_values[slot] = i;
}
