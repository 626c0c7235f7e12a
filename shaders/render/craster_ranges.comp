#version 450
// Compute raster, pass 5 (after the tile sort; indirect, one thread a pair): each tile's
// [begin, end) in the sorted pairs. Tiles without pairs keep the (0, 0) they were cleared to.
// A key is the tile, above pc.depth_bits of depth with the per-pixel order (else 0 bits).
#include "craster_common.glsl"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_CR_STATE) readonly buffer State { uint state[]; };
layout(std430, binding = SP_CR_KEYS) readonly buffer Keys { uint keys[]; };
layout(std430, binding = SP_CR_RANGES) writeonly buffer Ranges { uvec2 ranges[]; };

void main() {
  uint p = linear_group() * SP_PROJECT_WORKGROUP + gl_LocalInvocationIndex;
  uint n = state[SP_CR_STATE_PAIRS];
  if (p >= n) return;
  uint shift = (pc.flags & SP_CR_FLAG_PER_PIXEL) != 0u ? pc.depth_bits : 0u;
  uint tile = keys[p] >> shift;
  if (p == 0u || keys[p - 1u] >> shift != tile) ranges[tile].x = p;
  if (p == n - 1u || keys[p + 1u] >> shift != tile) ranges[tile].y = p + 1u;
}
