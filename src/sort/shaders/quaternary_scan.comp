#version 450
// Quaternary and radix16 sorts, step (b): one level of the hierarchical exclusive scan. Each
// workgroup scans a block of 512 counts in place and, below the top level, stores the block's
// total in the next level.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quaternary_shared.h"
#include "scan512.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { quaternary_push pc; };

void main() {
  uint block = group_index();
  uint m = data[QUATERNARY_H_LEVEL_SIZE + pc.level];
  if (block * QUATERNARY_CHUNK >= m) return;
  uint t = gl_LocalInvocationID.x;
  uint i0 = block * QUATERNARY_CHUNK + t, i1 = i0 + 256;
  uint a = i0 < m ? data[pc.level_offset + i0] : 0;
  uint b = i1 < m ? data[pc.level_offset + i1] : 0;
  uint total = scan512(a, b);
  if (i0 < m) data[pc.level_offset + i0] = a;
  if (i1 < m) data[pc.level_offset + i1] = b;
  if (t == 0 && pc.next_offset != 0) data[pc.next_offset + block] = total;
}
