// Shared by the compute raster's passes (craster_*.comp): bindings, push constants, a splat's
// pixel and tile spans (the CPU reference's, tests/refrender.c), saturating sums.
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"

layout(push_constant) uniform Push { sp_craster_push pc; };
layout(std430, binding = SP_CR_PROJECTED) readonly buffer Projected { uvec4 projected[]; };
layout(std430, binding = SP_CR_SORTED) readonly buffer Sorted { uint sorted_index[]; };
layout(std430, binding = SP_CR_DRAW) readonly buffer Draw { uint draw[]; };

// a + b, or 2^32 - 1 when that overflows: associative on unsigned values, so a scan of
// saturating sums is exact below the saturation and stays there above it.
uint sat_add(uint a, uint b) {
  uint s = a + b;
  return s < a ? 0xFFFFFFFFu : s;
}

// Pixels [lo, hi] whose centres k + 0.5 lie in [m - r, m + r), clamped to [0, n); false when
// none (refrender.c's span()).
bool pixel_span(float m, float r, uint n, out int lo, out int hi) {
  float l = ceil((m - r) - 0.5), h = ceil((m + r) - 0.5) - 1.0;
  l = max(l, 0.0);
  h = min(h, float(n) - 1.0);
  lo = int(l);
  hi = int(h);
  return l <= h;
}

// The tiles of the splat whose record is `rec`: [t0, t1] (inclusive, tile coordinates).
// false for a culled record (radius 0) or one entirely outside the image.
bool tile_span(uint rec, out ivec2 t0, out ivec2 t1) {
  uvec4 p0 = projected[2 * rec];
  uint w = projected[2 * rec + 1].w;
  float radius = float(w >> 16);
  vec2 mean = uintBitsToFloat(p0.xy);
  ivec2 lo, hi;
  if (radius == 0.0 || !pixel_span(mean.x, radius, pc.width, lo.x, hi.x) ||
      !pixel_span(mean.y, radius, pc.height, lo.y, hi.y))
    return false;
  t0 = lo / SP_TILE;
  t1 = hi / SP_TILE;
  return true;
}

// Position j (front to back: 0 is the nearest visible splat) -> its record, or ~0u.
uint record_at(uint j, uint visible) {
  return j < visible ? sorted_index[visible - 1u - j] + pc.rec_offset : 0xFFFFFFFFu;
}

uint tiles_of(uint rec) {
  ivec2 t0, t1;
  if (rec == 0xFFFFFFFFu || !tile_span(rec, t0, t1)) return 0u;
  return uint(t1.x - t0.x + 1) * uint(t1.y - t0.y + 1);
}

uint linear_group() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
