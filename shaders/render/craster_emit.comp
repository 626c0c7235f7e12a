#version 450
// Compute raster, pass 3: each visible splat writes a (tile, record) pair for every one of its
// bins (craster_common.glsl's bins_of), row by row, at its offset (front to back; the key is
// the tile, and with the per-pixel order the splat's depth at the tile too); pairs at or
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
layout(std430, binding = SP_CR_RAYS) readonly buffer Rays { vec4 rays[]; };        // per-pixel order only: 2 a record
layout(std430, binding = SP_CR_HEADER) readonly buffer Header { uint header[]; }; // per-pixel order only

const uint COOP_BINS = 32u;
shared uint s_rec[SP_CR_BLOCK], s_at[SP_CR_BLOCK]; // the large splats and their first pairs
shared uint s_large;

// Per-pixel order: the depth part of a pair's key, the splat's depth along the ray through the
// tile's pixel centre nearest its mean (its mean when inside: a small splat keeps its centre's
// depth, as in the global order), on a log scale over the frame's visible depths [zmin, zmax]
// in depth_bits bits, nearest 0 (refrender.c's tile_depth_key). (The footprint's point nearest
// the tile's centre was tried: fewer popping pixels on the generated popping scene, 599 against
// 1098 on test_stability's orbit, but many more on real scenes, e.g. 1398 against 79 on
// gshairlod's donut.)
struct tile_depth {
  vec4 r0, r1;
  float lmin, scale, maxq;
};

// The quantisation, once an invocation; the splat's coefficients, once a splat.
tile_depth quantisation() {
  tile_depth d;
  float lmin = log2(uintBitsToFloat(header[SP_H_ZMIN])), lmax = log2(uintBitsToFloat(header[SP_H_ZMAX]));
  d.maxq = float((1u << pc.depth_bits) - 1u);
  d.lmin = lmin;
  d.scale = lmax > lmin ? d.maxq / (lmax - lmin) : 0.0;
  return d;
}

uint depth_part(tile_depth d, vec2 mean, uvec2 tile) {
  vec2 lo = vec2(tile * SP_TILE) + 0.5;
  float z = ray_depth(d.r0, d.r1, ray_of(clamp(mean, lo, lo + float(SP_TILE - 1))));
  if (!(z > 0.0)) return uint(d.maxq);
  return uint(min(max((log2(z) - d.lmin) * d.scale, 0.0), d.maxq));
}

// Writes record rec's pairs of tile row ty from `at` on, invocations `lane`, lane + lanes, ...
// of the row's tiles; returns the row's end.
uint emit_row(bins b, uint rec, tile_depth d, int ty, uint at, uint lane, uint lanes) {
  ivec2 t = bin_row(b, ty);
  uint n = uint(t.y - t.x + 1);
  bool per_pixel = (pc.flags & SP_CR_FLAG_PER_PIXEL) != 0u;
  for (uint j = lane; j < n; j += lanes) {
    uint p = sat_add(at, j);
    if (p >= pc.capacity) break;
    uint tile = uint(ty) * pc.tiles_x + uint(t.x) + j;
    keys[p] = per_pixel ? tile << pc.depth_bits | depth_part(d, b.mean, uvec2(uint(t.x) + j, ty)) : tile;
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
  bool per_pixel = (pc.flags & SP_CR_FLAG_PER_PIXEL) != 0u;
  tile_depth d;
  if (per_pixel) d = quantisation();
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
      if (per_pixel) d.r0 = rays[2 * rec], d.r1 = rays[2 * rec + 1];
      for (int ty = b.lo.y / SP_TILE; ty <= b.hi.y / SP_TILE; ty++) at = emit_row(b, rec, d, ty, at, 0u, 1u);
    }
  }
  barrier();
  for (uint k = 0u; k < s_large; k++) {
    uint rec = s_rec[k], at = s_at[k];
    bins b;
    bins_of(rec, b); // true: it had bins above
    if (per_pixel) d.r0 = rays[2 * rec], d.r1 = rays[2 * rec + 1];
    for (int ty = b.lo.y / SP_TILE; ty <= b.hi.y / SP_TILE && at < pc.capacity; ty++)
      at = emit_row(b, rec, d, ty, at, lane, SP_PROJECT_WORKGROUP);
  }
}
