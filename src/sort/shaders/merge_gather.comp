#version 450
// Odd-even merge sort, step 3: the payloads in sorted order, from the input positions.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "merge_common.glsl"
layout(local_size_x = MERGE_WORKGROUP) in;
layout(std430, binding = SS_BIND_INTERNAL) readonly buffer Internal { uint data[]; };
layout(push_constant) uniform Push { merge_push pc; };

void main() {
  uint n = merge_count(pc, data[MERGE_H_COUNT]);
  uint i = group_index() * MERGE_WORKGROUP + gl_LocalInvocationID.x;
  if (i < n) values_out[i] = values_in[data[MERGE_H_WORDS + i]];
}
