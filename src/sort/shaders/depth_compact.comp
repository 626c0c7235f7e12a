#version 450
// Depth-sort stage, step 3: each visible splat writes its key and index at its workgroup's
// first slot plus its rank among the workgroup's visible splats, so the sort's input is in
// splat index order (deterministic; the stable sort then breaks key ties by index).
// Narrower keys are quantised over the visible depth range (quantise_key).
#extension GL_GOOGLE_include_directive : require
#include "depth_shared.h"
layout(local_size_x = DS_WORKGROUP) in;
layout(std430, binding = DS_BIND_HEADER) readonly buffer Header { uint header[]; };
layout(std430, binding = DS_BIND_DEPTH) readonly buffer Depth { uint depth_keys[]; };
layout(std430, binding = DS_BIND_GROUPS) readonly buffer Groups { uint group_offsets[]; };
layout(std430, binding = DS_BIND_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = DS_BIND_VALUES) writeonly buffer Values { uint values[]; };
layout(push_constant) uniform Push { ds_push pc; };
#define DS_COMMON_QUANTISE_ONLY
#include "depth_common.glsl"

shared uint rank[DS_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint i = group * DS_WORKGROUP + t;
  uint key = i < pc.max_count ? depth_keys[i] : DS_CULLED;
  uint visible = key != DS_CULLED ? 1u : 0u;
  rank[t] = visible;
  barrier();
  for (uint offset = 1u; offset < DS_WORKGROUP; offset <<= 1) {
    uint v = t >= offset ? rank[t - offset] : 0u;
    barrier();
    rank[t] += v;
    barrier();
  }
  if (visible == 0u) return;
  if (pc.key_bits < 32)
    key = quantise_key(key, uintBitsToFloat(header[DS_H_ZMIN]), uintBitsToFloat(header[DS_H_ZMAX]), pc.key_bits);
  uint slot = group_offsets[group] + rank[t] - 1u;
  keys[slot] = key;
  values[slot] = i;
}
