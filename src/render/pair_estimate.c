/* The compute raster's pairs of a frame, estimated on the CPU (pair_estimate.h): each object keeps
 * a sample of its splats as the GPU stores them; a frame's sampled splats are projected and
 * binned with the compute raster's own rules, so a scene of up to PAIR_SAMPLE_MAX splats an
 * object is counted exactly and a larger one from an even subsample. */
#include "pair_estimate.h"

#include "render_internal.h"
#include "splat_shared.h"

#include <math.h>
#include <string.h>

enum { SAMPLE_FLOATS = 10 };

void pair_sample_add(pair_sample *s, const VkAllocationCallbacks *a, uint32_t total, uint32_t first,
                     const splat_scene *part) {
  if (s->failed || total == 0) return;
  if (!s->v) {
    s->total = total;
    s->stride = (uint32_t)(((uint64_t)total + PAIR_SAMPLE_MAX - 1) / PAIR_SAMPLE_MAX);
    s->capacity = (uint32_t)(((uint64_t)total + s->stride - 1) / s->stride);
    s->v = render_host_alloc(a, sizeof(float) * SAMPLE_FLOATS * s->capacity);
    if (!s->v) {
      s->failed = true;
      return;
    }
  }
  uint64_t end = (uint64_t)first + part->count;
  for (uint64_t g = ((uint64_t)first + s->stride - 1) / s->stride * s->stride; g < end && s->count < s->capacity;
       g += s->stride) {
    size_t i = (size_t)(g - first);
    uint32_t packed[4];
    float scale[3], rot[4], *o = s->v + (size_t)SAMPLE_FLOATS * s->count;
    splat_pack_shape(part->scales + 3 * i, part->rotations + 4 * i, packed); /* as the GPU decodes them */
    splat_unpack_shape(packed, scale, rot);
    memcpy(o, part->positions + 3 * i, 3 * sizeof(float));
    splat_cov3d(scale, rot, o + 3);
    o[9] = part->opacities[i];
    s->count++;
  }
}

void pair_sample_free(pair_sample *s, const VkAllocationCallbacks *a) {
  render_host_free(a, s->v);
  *s = (pair_sample){0};
}

/* ---- craster_common.glsl's bins, float for float ---- */

#define BIN_PAD (1.0f / 32.0f)

typedef struct bins {
  float mean[2], conic[3], thr, ext_dy;
  int lo[2], hi[2];
  bool whole;
} bins;

/* Pixels [lo, hi] whose centres k + 0.5 lie in [m - r, m + r), clamped to [0, n). */
static bool pixel_span(float m, float r, uint32_t n, int *lo, int *hi) {
  float l = fmaxf(ceilf((m - r) - 0.5f), 0.0f), h = fminf(ceilf((m + r) - 0.5f) - 1.0f, (float)n - 1.0f);
  if (!(l <= h)) return false;
  *lo = (int)l;
  *hi = (int)h;
  return true;
}

/* Pixels whose centres lie in [m - e, m + e] (BIN_PAD wider), within [*lo, *hi]; false when none. */
static bool ellipse_span(float m, float e, int *lo, int *hi) {
  float l = fmaxf(ceilf(m - e - BIN_PAD - 0.5f), (float)*lo), h = fminf(floorf(m + e + BIN_PAD - 0.5f), (float)*hi);
  if (!(l <= h)) return false;
  *lo = (int)l;
  *hi = (int)h;
  return true;
}

static bool bins_of(const splat_projected *p, uint32_t width, uint32_t height, bins *b) {
  float radius = fminf(p->radius, (float)SP_MAX_RADIUS); /* the record's 16 bits */
  if (radius == 0.0f || !pixel_span(p->mean2d[0], radius, width, &b->lo[0], &b->hi[0]) ||
      !pixel_span(p->mean2d[1], radius, height, &b->lo[1], &b->hi[1]))
    return false;
  memcpy(b->mean, p->mean2d, sizeof b->mean);
  memcpy(b->conic, p->conic, sizeof b->conic);
  float a = p->conic[0], c = p->conic[2], det = a * c - p->conic[1] * p->conic[1];
  float kappa = (a * c + fabsf(p->conic[1]) * sqrtf(a * c)) / det;
  b->whole = !(a > 0.0f && det > 0.0f && kappa <= 65536.0f);
  if (b->whole) return true;
  b->thr = (fmaxf(2.0f * logf(255.0f * p->opacity), 0.0f) + 1.0f / 1024.0f) * (1.0f + 1.0f / 4096.0f + kappa / 65536.0f);
  b->ext_dy = -p->conic[1] * sqrtf(b->thr / (c * det));
  return ellipse_span(b->mean[0], sqrtf(b->thr * c / det), &b->lo[0], &b->hi[0]) &&
         ellipse_span(b->mean[1], sqrtf(b->thr * a / det), &b->lo[1], &b->hi[1]);
}

static float edge_dx(const bins *b, float dy, float side) {
  float a = b->conic[0], det = a * b->conic[2] - b->conic[1] * b->conic[1];
  return (-b->conic[1] * dy + side * sqrtf(fmaxf(a * b->thr - det * dy * dy, 0.0f))) / a;
}

static float clampf(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }

/* Tile row ty's bins: tile columns [*x0, *x1], or false when none. */
static bool bin_row(const bins *b, int ty, int *x0, int *x1) {
  int r0 = b->lo[1] > ty * SP_TILE ? b->lo[1] : ty * SP_TILE;
  int r1 = b->hi[1] < ty * SP_TILE + SP_TILE - 1 ? b->hi[1] : ty * SP_TILE + SP_TILE - 1;
  int l = b->lo[0], h = b->hi[0];
  if (!b->whole) {
    float d0 = (float)r0 + 0.5f - b->mean[1], d1 = (float)r1 + 0.5f - b->mean[1];
    float xl = edge_dx(b, clampf(-b->ext_dy, d0, d1), -1.0f), xr = edge_dx(b, clampf(b->ext_dy, d0, d1), 1.0f);
    float fl = fmaxf(ceilf(b->mean[0] + xl - BIN_PAD - 0.5f), (float)l);
    float fh = fminf(floorf(b->mean[0] + xr + BIN_PAD - 0.5f), (float)h);
    if (!(fl <= fh)) return false;
    l = (int)fl;
    h = (int)fh;
  }
  if (l > h) return false;
  *x0 = l / SP_TILE;
  *x1 = h / SP_TILE;
  return true;
}

uint32_t pair_estimate_bins(const splat_projected *p, uint32_t width, uint32_t height) {
  bins b;
  if (!bins_of(p, width, height, &b)) return 0;
  uint32_t n = 0;
  for (int ty = b.lo[1] / SP_TILE; ty <= b.hi[1] / SP_TILE; ty++) {
    int x0, x1;
    if (bin_row(&b, ty, &x0, &x1)) n += (uint32_t)(x1 - x0 + 1);
  }
  return n;
}

/* ---- the frame ---- */

/* Samples of the resident splats [0, resident). */
static uint32_t resident_samples(const pair_sample *s, uint32_t resident) {
  uint64_t n = ((uint64_t)resident + s->stride - 1) / s->stride;
  return n < s->count ? (uint32_t)n : s->count;
}

pair_estimate pair_estimate_frame(const pair_instance *in, uint32_t n, const splat_camera *cam, uint32_t budget) {
  pair_estimate e = {.exact = true};
  uint64_t available = 0;
  for (uint32_t k = 0; k < n; k++)
    if (in[k].sample && in[k].sample->v) available += resident_samples(in[k].sample, in[k].resident);
  uint32_t step = budget && available > budget ? (uint32_t)((available + budget - 1) / budget) : 1;
  double total = 0;
  for (uint32_t k = 0; k < n; k++) {
    const pair_sample *s = in[k].sample;
    if (!in[k].resident) continue;
    uint32_t have = s && s->v ? resident_samples(s, in[k].resident) : 0;
    if (!have) { /* nothing to go by: counts as none, and says so */
      e.exact = false;
      continue;
    }
    if (s->stride > 1 || step > 1 || (uint64_t)have * s->stride < in[k].resident) e.exact = false;
    splat_camera oc = *cam;
    render_object_view(cam, in[k].model, oc.view, oc.position);
    uint64_t pairs = 0;
    uint32_t used = 0;
    for (uint32_t j = 0; j < have; j += step, used++) {
      const float *v = s->v + (size_t)SAMPLE_FLOATS * j;
      splat_projected p;
      if (render_project_footprint(&oc, v, v + 3, v[9], in[k].antialiased, &p))
        pairs += pair_estimate_bins(&p, cam->width, cam->height);
    }
    total += (double)pairs * ((double)in[k].resident / used);
    e.sampled += used;
  }
  e.pairs = total < 1.8e19 ? (uint64_t)ceil(total) : UINT64_MAX;
  return e;
}
