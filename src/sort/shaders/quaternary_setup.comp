#version 450
// Quaternary and radix16 sorts: reads the element count (direct or from the caller's buffer),
// clamps it, and writes the chunk count, scan level sizes and every indirect dispatch of the sort.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quaternary_shared.h"
layout(local_size_x = 1) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { quaternary_push pc; };

void main() {
  uint n = pc.indirect != 0 ? min(count_buf[pc.count_index], pc.max_count) : pc.count;
  uint chunks = (n + pc.chunk - 1) / pc.chunk;
  data[QUATERNARY_H_COUNT] = n;
  data[QUATERNARY_H_CHUNKS] = chunks;
  WRITE_DISPATCH(data, QUATERNARY_H_DISPATCH + 4 * QUATERNARY_DISPATCH_CHUNKS, chunks, pc.max_groups_x);
  uint m = pc.digits * chunks;
  for (uint l = 0; l < QUATERNARY_MAX_LEVELS; l++) {
    uint blocks = (m + QUATERNARY_CHUNK - 1) / QUATERNARY_CHUNK;
    data[QUATERNARY_H_LEVEL_SIZE + l] = m;
    WRITE_DISPATCH(data, QUATERNARY_H_DISPATCH + 4 * (1 + l), l < pc.levels ? blocks : 0, pc.max_groups_x);
    m = blocks;
  }
}
