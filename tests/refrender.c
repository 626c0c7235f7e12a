/* refrender.c: CPU reference renderer (see refrender.h). Splats are projected, sorted,
 * binned into 16x16-pixel tiles in front-to-back order, then each pixel walks its tile's
 * list; the binning only skips work, it does not change which splats a pixel sees. */
#include "refrender.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TILE 16

typedef struct sort_item {
  uint32_t key, index;
} sort_item;

static int cmp_item(const void *pa, const void *pb) {
  const sort_item *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* Pixels [*i0, *i1] whose centres k + 0.5 lie in [m - r, m + r), clamped to [0, n). */
static int span(float m, float r, uint32_t n, int64_t *i0, int64_t *i1) {
  double lo = ceil((double)(m - r) - 0.5), hi = ceil((double)(m + r) - 0.5) - 1.0;
  if (lo < 0.0) lo = 0.0;
  if (hi > (double)n - 1.0) hi = (double)n - 1.0;
  if (lo > hi) return 0;
  *i0 = (int64_t)lo;
  *i1 = (int64_t)hi;
  return 1;
}

/* craster_common.glsl's bins, float for float (see there for the rule and its margins): the
 * GPU and this reference must bin alike, or their pair counts and capped images differ. */
#define BIN_PAD (1.0f / 32.0f)

/* Pixels whose centres lie in [m - e, m + e] (BIN_PAD wider), within [*lo, *hi]. */
static void ellipse_span(float m, float e, int64_t *lo, int64_t *hi) {
  float l = ceilf(m - e - BIN_PAD - 0.5f), h = floorf(m + e + BIN_PAD - 0.5f);
  *lo = (int64_t)fmaxf(l, (float)*lo);
  *hi = (int64_t)fminf(h, (float)*hi);
}

int refrender_bins_of(const splat_projected *p, uint32_t W, uint32_t H, refrender_bins *b) {
  if (p->radius == 0.0f || !span(p->mean2d[0], p->radius, W, &b->lo[0], &b->hi[0]) ||
      !span(p->mean2d[1], p->radius, H, &b->lo[1], &b->hi[1]))
    return 0;
  memcpy(b->mean, p->mean2d, sizeof b->mean);
  memcpy(b->conic, p->conic, sizeof b->conic);
  float a = p->conic[0], c = p->conic[2], det = a * c - p->conic[1] * p->conic[1];
  float kappa = (a * c + fabsf(p->conic[1]) * sqrtf(a * c)) / det;
  b->whole = !(a > 0.0f && det > 0.0f && kappa <= 65536.0f);
  if (b->whole) return 1;
  b->thr = (fmaxf(2.0f * logf(255.0f * p->opacity), 0.0f) + 1.0f / 1024.0f) *
           (1.0f + 1.0f / 4096.0f + kappa / 65536.0f);
  b->ext_dy = -p->conic[1] * sqrtf(b->thr / (c * det));
  ellipse_span(p->mean2d[0], sqrtf(b->thr * c / det), &b->lo[0], &b->hi[0]);
  ellipse_span(p->mean2d[1], sqrtf(b->thr * a / det), &b->lo[1], &b->hi[1]);
  return b->lo[0] <= b->hi[0] && b->lo[1] <= b->hi[1];
}

/* The x offset of the ellipse's right (side 1) or left (side -1) edge at dy. */
static float edge_dx(const refrender_bins *b, float dy, float side) {
  float a = b->conic[0], det = a * b->conic[2] - b->conic[1] * b->conic[1];
  return (-b->conic[1] * dy + side * sqrtf(fmaxf(a * b->thr - det * dy * dy, 0.0f))) / a;
}

static float clampf(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }

int refrender_bin_row(const refrender_bins *b, int64_t ty, int64_t *tx0, int64_t *tx1) {
  int64_t r0 = b->lo[1] > ty * TILE ? b->lo[1] : ty * TILE;
  int64_t r1 = b->hi[1] < ty * TILE + TILE - 1 ? b->hi[1] : ty * TILE + TILE - 1;
  int64_t x0 = b->lo[0], x1 = b->hi[0];
  if (!b->whole) {
    float d0 = (float)r0 + 0.5f - b->mean[1], d1 = (float)r1 + 0.5f - b->mean[1];
    float xl = edge_dx(b, clampf(-b->ext_dy, d0, d1), -1.0f), xr = edge_dx(b, clampf(b->ext_dy, d0, d1), 1.0f);
    float l = ceilf(b->mean[0] + xl - BIN_PAD - 0.5f), h = floorf(b->mean[0] + xr + BIN_PAD - 0.5f);
    x0 = (int64_t)fmaxf(l, (float)b->lo[0]);
    x1 = (int64_t)fminf(h, (float)b->hi[0]);
  }
  if (x0 > x1) return 0;
  *tx0 = x0 / TILE;
  *tx1 = x1 / TILE;
  return 1;
}

/* The square binning (before the bins): every tile the footprint square overlaps. */
static int square_bins(const splat_projected *p, uint32_t W, uint32_t H, refrender_bins *b) {
  if (!span(p->mean2d[0], p->radius, W, &b->lo[0], &b->hi[0]) || !span(p->mean2d[1], p->radius, H, &b->lo[1], &b->hi[1]))
    return 0;
  b->whole = 1;
  return 1;
}

int refrender_splat_power(const splat_projected *p, float fx, float fy, float *power) {
  /* The quad's footprint, half-open: centres in [mean - r, mean + r). */
  if (!(fx >= p->mean2d[0] - p->radius && fx < p->mean2d[0] + p->radius && fy >= p->mean2d[1] - p->radius &&
        fy < p->mean2d[1] + p->radius))
    return 0;
  float dx = fx - p->mean2d[0], dy = fy - p->mean2d[1];
  *power = -0.5f * (p->conic[0] * dx * dx + p->conic[2] * dy * dy) - p->conic[1] * dx * dy;
  return !(*power > 0.0f); /* renderCUDA's test: a NaN power is not skipped */
}

int refrender_render(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                     const float background[3], float *rgba, refrender_stats *stats) {
  return refrender_render_capped(s, cam, sh_degree_max, background, rgba, stats, UINT64_MAX);
}

int refrender_render_capped(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                            const float background[3], float *rgba, refrender_stats *stats, uint64_t max_pairs) {
  refrender_options o = {.max_pairs = max_pairs};
  return refrender_render_opts(s, cam, sh_degree_max, background, rgba, stats, &o);
}

int refrender_render_opts(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                          const float background[3], float *rgba, refrender_stats *stats,
                          const refrender_options *opt) {
  uint32_t W = cam->width, H = cam->height;
  if (W == 0 || H == 0) return -1;
  uint32_t tw = (W + TILE - 1) / TILE, th = (H + TILE - 1) / TILE;
  size_t ntiles = (size_t)tw * th;
  int rc = -1;
  splat_projected *proj = malloc((s->count ? s->count : 1) * sizeof *proj);
  sort_item *items = malloc((s->count ? s->count : 1) * sizeof *items);
  uint64_t *offsets = calloc(ntiles + 1, sizeof *offsets);
  uint32_t *lists = NULL;
  if (!proj || !items || !offsets) goto done;

  /* Project everything; proj[] is indexed by the visible item. */
  uint32_t nvis = 0;
  for (uint32_t i = 0; i < s->count; i++) {
    splat_projected p;
    if (!splat_project(s, i, cam, sh_degree_max, &p)) continue;
    items[nvis].key = splat_depth_key(p.depth);
    items[nvis].index = i;
    proj[i] = p;
    nvis++;
  }
  /* (key, index) ascending is back to front; walk it backwards for front to back. */
  qsort(items, nvis, sizeof *items, cmp_item);

  /* Bin into tiles (count, prefix sum, fill) so each tile's list is front to back. */
  uint64_t needed = 0;
  for (uint32_t pass = 0; pass < 2; pass++) {
    uint64_t *cursor = NULL, emitted = 0;
    if (pass == 1) {
      for (size_t t = 0; t < ntiles; t++) offsets[t + 1] += offsets[t];
      if (offsets[ntiles] > SIZE_MAX / sizeof *lists) goto done;
      lists = malloc((size_t)(offsets[ntiles] ? offsets[ntiles] : 1) * sizeof *lists);
      cursor = malloc(ntiles * sizeof *cursor);
      if (!lists || !cursor) {
        free(cursor);
        goto done;
      }
      memcpy(cursor, offsets, ntiles * sizeof *cursor);
    }
    for (uint32_t k = nvis; k-- > 0;) {
      const splat_projected *p = &proj[items[k].index];
      refrender_bins b;
      if (!(opt->square_bins ? square_bins(p, W, H, &b) : refrender_bins_of(p, W, H, &b))) continue;
      for (int64_t ty = b.lo[1] / TILE; ty <= b.hi[1] / TILE; ty++) {
        int64_t tx0, tx1;
        if (!refrender_bin_row(&b, ty, &tx0, &tx1)) continue;
        for (int64_t tx = tx0; tx <= tx1; tx++) {
          if (emitted++ >= opt->max_pairs) continue; /* the GPU's pair capacity: front to back */
          size_t t = (size_t)ty * tw + (size_t)tx;
          if (pass == 0)
            offsets[t + 1]++;
          else
            lists[cursor[t]++] = items[k].index;
        }
      }
    }
    free(cursor);
    needed = emitted;
  }

  for (uint32_t py = 0; py < H; py++) {
    for (uint32_t px = 0; px < W; px++) {
      size_t t = (size_t)(py / TILE) * tw + px / TILE;
      float fx = (float)px + 0.5f, fy = (float)py + 0.5f;
      float T = 1.0f, C[3] = {0.0f, 0.0f, 0.0f};
      for (uint64_t e = offsets[t]; e < offsets[t + 1]; e++) {
        const splat_projected *p = &proj[lists[e]];
        float power;
        if (!refrender_splat_power(p, fx, fy, &power)) continue;
        float alpha = fminf(SPLAT_MAX_ALPHA, p->opacity * expf(power));
        if (alpha < SPLAT_MIN_ALPHA) continue;
        float test_T = T * (1.0f - alpha);
        if (test_T < SPLAT_T_EPSILON) break;
        for (int c = 0; c < 3; c++) C[c] += p->color[c] * alpha * T;
        T = test_T;
      }
      float *o = rgba + ((size_t)py * W + px) * 4;
      for (int c = 0; c < 3; c++) o[c] = C[c] + T * background[c];
      o[3] = 1.0f - T;
    }
  }
  if (stats) {
    stats->visible = nvis;
    stats->tile_entries = offsets[ntiles];
    stats->pairs_needed = needed;
  }
  rc = 0;
done:
  free(proj);
  free(items);
  free(offsets);
  free(lists);
  return rc;
}

void refrender_to_rgba8(const float *rgba, uint32_t w, uint32_t h, uint8_t *rgba8) {
  size_t n = (size_t)w * h;
  for (size_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) {
      float v = rgba[i * 4 + (size_t)c];
      v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; /* NaN -> 0 */
      rgba8[i * 4 + (size_t)c] = (uint8_t)(v * 255.0f + 0.5f); /* round half up */
    }
    rgba8[i * 4 + 3] = 255;
  }
}

int refrender_render_rgba8(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                           const float background[3], uint8_t *rgba8, refrender_stats *stats) {
  size_t n = (size_t)cam->width * cam->height;
  float *f = malloc((n ? n : 1) * 4 * sizeof *f);
  if (!f) return -1;
  int rc = refrender_render(s, cam, sh_degree_max, background, f, stats);
  if (rc == 0) refrender_to_rgba8(f, cam->width, cam->height, rgba8);
  free(f);
  return rc;
}
