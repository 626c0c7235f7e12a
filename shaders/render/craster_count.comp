#version 450
// Compute raster, pass 1: each position's tile count (front to back), its exclusive offset
// inside its block of SP_CR_BLOCK positions, and each block's total.
#include "craster_common.glsl"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_CR_OFFSETS) writeonly buffer Offsets { uint offsets[]; };
layout(std430, binding = SP_CR_BLOCKS) writeonly buffer Blocks { uint blocks[]; };

shared uint sums[SP_PROJECT_WORKGROUP];

void main() {
  uint block = linear_group();
  if (block >= pc.blocks) return;
  uint visible = min(draw[SP_DRAW_INSTANCES], pc.max_count);
  uint t = gl_LocalInvocationIndex;
  uint first = block * SP_CR_BLOCK + t * SP_CR_ITEMS;
  uint n[SP_CR_ITEMS];
  uint mine = 0u;
  for (uint i = 0u; i < SP_CR_ITEMS; i++) {
    n[i] = tiles_of(record_at(first + i, visible));
    mine = sat_add(mine, n[i]);
  }
  // inclusive scan of the threads' sums (Hillis-Steele in shared memory: any subgroup size)
  sums[t] = mine;
  barrier();
  for (uint d = 1u; d < SP_PROJECT_WORKGROUP; d <<= 1) {
    uint add = t >= d ? sums[t - d] : 0u;
    barrier();
    sums[t] = sat_add(sums[t], add);
    barrier();
  }
  uint at = t > 0u ? sums[t - 1u] : 0u;
  for (uint i = 0u; i < SP_CR_ITEMS; i++) {
    if (first + i < pc.max_count) offsets[first + i] = at;
    at = sat_add(at, n[i]);
  }
  if (t == SP_PROJECT_WORKGROUP - 1u) blocks[block] = sums[t];
}
