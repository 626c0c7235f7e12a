#version 450
// Ordered compaction, step 3: each visible splat writes its key and index at its workgroup's
// offset plus its rank among the workgroup's visible splats, so the sort input is in splat
// index order (deterministic, and a stable sort then breaks key ties by index).
// Narrower keys are quantised here over the frame's visible depth range [zmin, zmax]:
// key = min(round((1 - (z - zmin)/(zmax - zmin)) * (2^bits - 1)), 2^bits - 1), so ascending
// order stays back to front and the sort needs fewer passes.
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_BIND_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = SP_BIND_VALUES) writeonly buffer Values { uint values[]; };
layout(std430, binding = SP_BIND_DRAW) readonly buffer Draw { uint draw[]; };
layout(std430, binding = SP_BIND_DEPTH_KEYS) readonly buffer DepthKeys { uint depth_keys[]; };
layout(std430, binding = SP_BIND_GROUP_OFFSETS) readonly buffer GroupOffsets { uint group_offsets[]; };
layout(push_constant) uniform Push { sp_project_push pc; };

shared uint rank[SP_PROJECT_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint i = group * SP_PROJECT_WORKGROUP + t;
  uint key = i < pc.count ? depth_keys[i] : SP_CULLED_KEY;
  uint visible = key != SP_CULLED_KEY ? 1u : 0u;
  rank[t] = visible;
  barrier();
  for (uint offset = 1u; offset < SP_PROJECT_WORKGROUP; offset <<= 1) {
    uint v = t >= offset ? rank[t - offset] : 0u;
    barrier();
    rank[t] += v;
    barrier();
  }
  if (visible == 0u) return;
  if (pc.key_bits < 32) {
    float zmin = uintBitsToFloat(draw[SP_DRAW_ZMIN]), zmax = uintBitsToFloat(draw[SP_DRAW_ZMAX]);
    float z = uintBitsToFloat(~key);
    float u = zmax > zmin ? clamp((z - zmin) / (zmax - zmin), 0.0, 1.0) : 0.0;
    uint top = (1u << pc.key_bits) - 1u;
    // float(top) + 0.5 rounds up to 2^bits for 24 bits: clamp
    key = min(uint((1.0 - u) * float(top) + 0.5), top);
  }
  uint slot = group_offsets[group] + rank[t] - 1u;
  keys[slot] = key;
  values[slot] = i;
}
