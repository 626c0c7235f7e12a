#version 450
// Odd-even merge sort, step 3: the payloads in sorted order, from the input positions.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "merge_common.glsl"
layout(local_size_x = OEM_WORKGROUP) in;
layout(std430, binding = SS_BIND_INTERNAL) readonly buffer Internal { uint data[]; };
layout(push_constant) uniform Push { oem_push pc; };

void main() {
  uint n = oem_count(pc, data[OEM_H_COUNT]);
  uint i = group_index() * OEM_WORKGROUP + gl_LocalInvocationID.x;
  if (i < n) values_out[i] = values_in[data[OEM_H_WORDS + i]];
}
