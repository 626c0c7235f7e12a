#version 450
// Compute raster, pass 3: each visible splat writes a (tile, record) pair for every bin
// (craster_common.glsl's bins_of), row by row, at its offset (front to back); pairs at or past the capacity are not
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
    bins b;
    if (rec == 0xFFFFFFFFu || !bins_of(rec, b)) continue;
    for (int ty = b.lo.y / SP_TILE; ty <= b.hi.y / SP_TILE && at < pc.capacity; ty++) {
      ivec2 t = bin_row(b, ty);
      for (int tx = t.x; tx <= t.y && at < pc.capacity; tx++) {
        keys[at] = uint(ty) * pc.tiles_x + uint(tx);
        values[at] = rec;
        at++;
      }
    }
  }
}
