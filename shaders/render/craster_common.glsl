// Shared by the compute raster's passes (craster_*.comp): bindings, push constants, a splat's
// pixel span and bins (the CPU reference's, tests/refrender.c), saturating sums.
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

// A splat's bins: the tiles holding a pixel centre that lies in its footprint square AND can
// get alpha >= SPLAT_MIN_ALPHA from it, i.e. lies in the ellipse q(d) = conic.x dx^2 +
// 2 conic.y dx dy + conic.z dy^2 <= 2 ln(255 opacity) (the blend's alpha cut). Found row by
// row: per tile row, the ellipse's x-interval over that row's band of pixel centres. The CPU
// reference bins with the same rule (refrender.c's bin_rows()/bin_row(), float for float), so
// GPU and CPU pair counts agree.
struct bins {
  vec2 mean;
  vec3 conic;
  float thr;    // q <= thr, inflated (bins_of)
  float ext_dy; // dy of the ellipse's rightmost point; its leftmost point is at -ext_dy
  ivec2 lo, hi; // pixels: the square's, clipped by the ellipse's bounding box and the image
  bool whole;   // ill-conditioned: the square's rows whole, as before
};

// Conservative against float rounding, so the image is exactly the square binning's:
// the blend's q at a pixel is off by at most ~2^-21 (a dx^2 + c dy^2 + 2|b dx dy|) <=
// 2^-20 kappa q, kappa = (ac + |b| sqrt(ac)) / det, and the spans below lose about as much,
// so the threshold is widened by 2^-12 + kappa 2^-16 (>= 16x that) plus 2^-10 (exp/log
// error) and every span by BIN_PAD pixels (the mean's rounding, |mean| < 2^15). Splats with
// kappa > 2^16 (axes over ~500:1, where the blend's own q is noise) keep the square.
const float BIN_PAD = 1.0 / 32.0;

// Pixels [lo, hi] whose centres k + 0.5 lie in [m - e, m + e] (BIN_PAD wider), within [lo, hi].
ivec2 ellipse_span(float m, float e, ivec2 span) {
  float l = ceil(m - e - BIN_PAD - 0.5), h = floor(m + e + BIN_PAD - 0.5);
  return ivec2(int(max(l, float(span.x))), int(min(h, float(span.y))));
}

// The bins of the splat whose record is `rec`; false for a culled record (radius 0) or one
// with no pixel centre in the image.
bool bins_of(uint rec, out bins b) {
  uvec4 p0 = projected[2 * rec], p1 = projected[2 * rec + 1];
  float radius = float(p1.w >> 16);
  b.mean = uintBitsToFloat(p0.xy);
  b.conic = vec3(uintBitsToFloat(p0.zw), uintBitsToFloat(p1.x));
  if (radius == 0.0 || !pixel_span(b.mean.x, radius, pc.width, b.lo.x, b.hi.x) ||
      !pixel_span(b.mean.y, radius, pc.height, b.lo.y, b.hi.y))
    return false;
  float a = b.conic.x, c = b.conic.z, det = a * c - b.conic.y * b.conic.y;
  float kappa = (a * c + abs(b.conic.y) * sqrt(a * c)) / det;
  b.whole = !(a > 0.0 && det > 0.0 && kappa <= 65536.0);
  if (b.whole) return true;
  float opacity = uintBitsToFloat(p1.y);
  b.thr = (max(2.0 * log(255.0 * opacity), 0.0) + 1.0 / 1024.0) * (1.0 + 1.0 / 4096.0 + kappa / 65536.0);
  b.ext_dy = -b.conic.y * sqrt(b.thr / (c * det));
  ivec2 x = ellipse_span(b.mean.x, sqrt(b.thr * c / det), ivec2(b.lo.x, b.hi.x));
  ivec2 y = ellipse_span(b.mean.y, sqrt(b.thr * a / det), ivec2(b.lo.y, b.hi.y));
  b.lo = ivec2(x.x, y.x);
  b.hi = ivec2(x.y, y.y);
  return b.lo.x <= b.hi.x && b.lo.y <= b.hi.y;
}

// The x offset of the ellipse's right (side 1) or left (side -1) edge at dy.
float edge_dx(bins b, float dy, float side) {
  float a = b.conic.x, det = a * b.conic.z - b.conic.y * b.conic.y;
  return (-b.conic.y * dy + side * sqrt(max(a * b.thr - det * dy * dy, 0.0))) / a;
}

// Tile row ty's bins [x, y] (tile columns; x > y when none). The right edge is concave in dy,
// so its maximum over the band is at the rightmost point's dy clamped into the band; the left
// edge's minimum likewise.
ivec2 bin_row(bins b, int ty) {
  int r0 = max(b.lo.y, ty * SP_TILE), r1 = min(b.hi.y, ty * SP_TILE + SP_TILE - 1);
  ivec2 px = ivec2(b.lo.x, b.hi.x);
  if (!b.whole) {
    float d0 = float(r0) + 0.5 - b.mean.y, d1 = float(r1) + 0.5 - b.mean.y;
    float xl = edge_dx(b, clamp(-b.ext_dy, d0, d1), -1.0), xr = edge_dx(b, clamp(b.ext_dy, d0, d1), 1.0);
    float l = ceil(b.mean.x + xl - BIN_PAD - 0.5), h = floor(b.mean.x + xr + BIN_PAD - 0.5);
    px = ivec2(int(max(l, float(b.lo.x))), int(min(h, float(b.hi.x))));
  }
  return px.x <= px.y ? px / SP_TILE : ivec2(1, 0);
}

// Position j (front to back: 0 is the nearest visible splat) -> its record, or ~0u.
uint record_at(uint j, uint visible) {
  return j < visible ? sorted_index[visible - 1u - j] + pc.rec_offset : 0xFFFFFFFFu;
}

// How many bins b has (O(its tile rows)).
uint bin_count(bins b) {
  uint n = 0u;
  for (int ty = b.lo.y / SP_TILE; ty <= b.hi.y / SP_TILE; ty++) {
    ivec2 t = bin_row(b, ty);
    n += uint(t.y - t.x + 1);
  }
  return n;
}

// The pairs of record rec (~0u: none).
uint tiles_of(uint rec) {
  bins b;
  return rec == 0xFFFFFFFFu || !bins_of(rec, b) ? 0u : bin_count(b);
}

// Per-pixel order (SPLAT_ORDER_PER_PIXEL): the camera-space depth of a splat's maximum along the
// ray (uv, 1), from its coefficients r0 = (a00, a11, a01, a02), r1 = (a12, b0, b1, b2)
// (project.comp's write_ray; splat_ray_depth_at, in the same order of operations).
float ray_depth(vec4 r0, vec4 r1, vec2 uv) {
  float n = r1.y * uv.x + r1.z * uv.y + r1.w;
  float d = r0.x * uv.x * uv.x + r0.y * uv.y * uv.y + 1.0 + 2.0 * (r0.z * uv.x * uv.y + r0.w * uv.x + r1.x * uv.y);
  return n / d;
}

// A pixel position's camera ray (u, v, 1) as (u, v).
vec2 ray_of(vec2 p) { return (p - pc.intrinsics.zw) / pc.intrinsics.xy; }

uint linear_group() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
