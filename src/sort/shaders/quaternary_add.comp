#version 450
// Quaternary and radix16 sorts, step (b'): adds the scanned block totals of the level above
// back into a level's blocks.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quaternary_shared.h"
layout(local_size_x = 256) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { quaternary_push pc; };

void main() {
  uint block = group_index();
  uint m = data[QUATERNARY_H_LEVEL_SIZE + pc.level];
  if (block * QUATERNARY_CHUNK >= m) return;
  uint add = data[pc.next_offset + block];
  uint i0 = block * QUATERNARY_CHUNK + gl_LocalInvocationID.x, i1 = i0 + 256;
  if (i0 < m) data[pc.level_offset + i0] += add;
  if (i1 < m) data[pc.level_offset + i1] += add;
}
