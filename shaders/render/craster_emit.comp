#version 450
// Compute raster, pass 3: each visible splat writes a (tile, record) pair for every one of its
// bins (craster_common.glsl's bins_of), row by row, at its offset (front to back); pairs at or
// past the capacity are not written (the frame then misses its farthest splats' pairs, and
// says so). A splat of more than COOP_BINS bins is written by the whole workgroup, row by row
// with each row's tiles spread over the invocations: one invocation writing a large splat's
// thousands of pairs alone would hold up its subgroup. Nothing assumes a subgroup size.
#include "craster_common.glsl"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_CR_OFFSETS) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = SP_CR_BLOCKS) readonly buffer Blocks { uint blocks[]; };
layout(std430, binding = SP_CR_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = SP_CR_VALUES) writeonly buffer Values { uint values[]; };

const uint COOP_BINS = 32u;
shared uint s_rec[SP_CR_BLOCK], s_at[SP_CR_BLOCK]; // the large splats and their first pairs
shared uint s_large;

// Writes record rec's pairs of tile row ty from `at` on, invocations `lane`, lane + lanes, ...
// of the row's tiles; returns the row's end.
uint emit_row(bins b, uint rec, int ty, uint at, uint lane, uint lanes) {
  ivec2 t = bin_row(b, ty);
  uint n = uint(t.y - t.x + 1);
  for (uint j = lane; j < n; j += lanes) {
    uint p = sat_add(at, j);
    if (p >= pc.capacity) break;
    keys[p] = uint(ty) * pc.tiles_x + uint(t.x) + j;
    values[p] = rec;
  }
  return sat_add(at, n);
}

void main() {
  uint block = linear_group();
  if (block >= pc.blocks) return; // the whole workgroup: the barrier below stays uniform
  uint lane = gl_LocalInvocationIndex;
  if (lane == 0u) s_large = 0u;
  barrier();
  uint visible = min(draw[SP_DRAW_INSTANCES], pc.max_count);
  uint first = block * SP_CR_BLOCK + lane * SP_CR_ITEMS;
  uint at = first < visible ? sat_add(blocks[block], offsets[first]) : pc.capacity;
  for (uint i = 0u; i < SP_CR_ITEMS && at < pc.capacity; i++) {
    uint rec = record_at(first + i, visible);
    bins b;
    if (rec == 0xFFFFFFFFu || !bins_of(rec, b)) continue;
    uint n = bin_count(b);
    if (n > COOP_BINS) {
      uint k = atomicAdd(s_large, 1u);
      s_rec[k] = rec;
      s_at[k] = at;
      at = sat_add(at, n);
    } else {
      for (int ty = b.lo.y / SP_TILE; ty <= b.hi.y / SP_TILE; ty++) at = emit_row(b, rec, ty, at, 0u, 1u);
    }
  }
  barrier();
  for (uint k = 0u; k < s_large; k++) {
    uint rec = s_rec[k], at = s_at[k];
    bins b;
    bins_of(rec, b); // true: it had bins above
    for (int ty = b.lo.y / SP_TILE; ty <= b.hi.y / SP_TILE && at < pc.capacity; ty++)
      at = emit_row(b, rec, ty, at, lane, SP_PROJECT_WORKGROUP);
  }
}
