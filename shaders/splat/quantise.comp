#version 450
// Narrows the 32-bit depth keys to key_bits bits over the frame's visible depth range
// [zmin, zmax] (found by project.comp): key = round((1 - (z - zmin)/(zmax - zmin)) * (2^bits - 1)),
// so ascending order stays back to front and the sort needs ceil(bits/8) OneSweep passes.
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"
layout(local_size_x = 256) in;
layout(std430, binding = 4) buffer Keys { uint keys[]; };
layout(std430, binding = 6) readonly buffer Draw { uint draw[]; };
layout(push_constant) uniform Push { sp_project_push pc; };

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= draw[SP_DRAW_INSTANCES]) return;
  float zmin = uintBitsToFloat(draw[SP_DRAW_ZMIN]), zmax = uintBitsToFloat(draw[SP_DRAW_ZMAX]);
  float z = uintBitsToFloat(~keys[i]);
  float u = zmax > zmin ? clamp((z - zmin) / (zmax - zmin), 0.0, 1.0) : 0.0;
  float top = float((1u << pc.key_bits) - 1u);
  keys[i] = uint((1.0 - u) * top + 0.5);
}
