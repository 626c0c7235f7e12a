#version 450
// Compute raster, pass 3: each visible splat writes a (tile, record) pair for every tile it
// touches, row by row, at its offset (front to back); pairs at or past the capacity are not
// written (the frame then misses its farthest splats' pairs, and says so).
#include "craster_common.glsl"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_CR_OFFSETS) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = SP_CR_BLOCKS) readonly buffer Blocks { uint blocks[]; };
layout(std430, binding = SP_CR_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = SP_CR_VALUES) writeonly buffer Values { uint values[]; };

void main() {
  uint block = linear_group();
  if (block >= pc.blocks) return;
  uint visible = min(draw[SP_DRAW_INSTANCES], pc.max_count);
  uint first = block * SP_CR_BLOCK + gl_LocalInvocationIndex * SP_CR_ITEMS;
  if (first >= visible) return;
  uint at = sat_add(blocks[block], offsets[first]);
  for (uint i = 0u; i < SP_CR_ITEMS && at < pc.capacity; i++) {
    uint rec = record_at(first + i, visible);
    ivec2 t0, t1;
    if (rec == 0xFFFFFFFFu || !tile_span(rec, t0, t1)) continue;
    for (int ty = t0.y; ty <= t1.y && at < pc.capacity; ty++)
      for (int tx = t0.x; tx <= t1.x && at < pc.capacity; tx++) {
        keys[at] = uint(ty) * pc.tiles_x + uint(tx);
        values[at] = rec;
        at++;
      }
  }
}
