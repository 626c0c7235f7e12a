/* scene_shape.c: a scene's up direction, ground and extent from its splats' positions (principal
 * axes of a trimmed sample, the densest plane, which side of it the mass stands on), and the
 * three-quarter view from above that frames it: the viewer's start view. */
#include "splat_constants.h"
#include "tools_internal.h"
#include "view_control.h"

#include <cglm/cglm.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VEC3(p) {(p)[0], (p)[1], (p)[2]}

#define SHAPE_SAMPLE 65536   /* points looked at, every k-th: the principal axes need no more */
#define CORE_QUANTILE 0.9    /* the core: the points nearest the median, this share of them */
#define FLAT_RATIO 0.5f      /* spread3 / spread2 below it: flat, up is the thin axis */
#define LONG_RATIO 0.5f      /* spread2 / spread1 below it: long along the first axis */
#define TALL_COS 0.70710678f /* a long axis within 45 degrees of the prior stands up */
#define PLANE_TRIES 256      /* random planes tried for the densest one */
#define PLANE_POINTS 8192    /* points each try is scored on */
#define PLANE_COS 0.8660254f /* tried planes' normals within 30 degrees of the thin axis */
#define PLANE_MIN 0.1f       /* a plane below this share of the core is no ground */
#define SIDE_MARGIN 0.2f     /* |above - below| / (above + below) above it decides the sign */
#define SIDE_MIN 0.02f       /* ... when at least this share of the core is off the ground */
#define BASE_END 0.1f        /* a base: the densest layer within this share of one end */
#define GROUND_CLEAR 0.25f   /* a ground: this share of its cells with nothing just above them */
#define FRAME_MARGIN 0.9f    /* the box's corners within this share of the half-image */
#define FRAME_NEAR (SPLAT_NEAR_Z + 0.05f) /* every corner this deep: splats nearer are culled */

/* The prior: 3DGS scenes come from COLMAP, whose world y points down in the first camera. */
static const float prior_up[3] = {0.0f, -1.0f, 0.0f};

/* ---- small pieces -------------------------------------------------------------------------- */

/* The q-quantile of v[0..n) (n > 0; reorders v): the value of rank round(q (n-1)). */
static float quantile(float *v, size_t n, double q) {
  return splat_select_kth(v, n, (size_t)llround(q * (double)(n - 1)));
}

/* The 2nd and 98th percentiles of v[0..n) (reorders v). */
static void percentiles(float *v, size_t n, float *lo, float *hi) {
  *lo = quantile(v, n, 0.02);
  *hi = quantile(v, n, 0.98);
}

static float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* xorshift32: the same planes tried on every run. */
static uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Eigenvalues w (descending) and unit eigenvectors (columns of v) of the symmetric a, by
 * Jacobi rotations (a is destroyed). */
static void eigen_sym3(double a[3][3], double w[3], double v[3][3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) v[i][j] = i == j;
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
    if (off <= 1e-30 * diag || off == 0.0) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        if (a[p][q] == 0.0) continue;
        double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
        double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; k++) { /* A P */
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) { /* P^T (A P) */
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < 3; i++) w[i] = a[i][i];
  for (int i = 0; i < 2; i++) /* sort descending, columns with them */
    for (int j = i + 1; j < 3; j++)
      if (w[j] > w[i]) {
        double t = w[i];
        w[i] = w[j], w[j] = t;
        for (int k = 0; k < 3; k++) t = v[k][i], v[k][i] = v[k][j], v[k][j] = t;
      }
}

/* Principal axes of the points p[idx[0..m)] (all n when idx is NULL): axes[k] the k-th unit
 * axis, spread[k] the standard deviation along it, largest first; mean their centre. */
static void principal_axes(const float *p, const uint32_t *idx, size_t m, float mean[3], float axes[3][3],
                           float spread[3]) {
  double mu[3] = {0, 0, 0}, cov[3][3] = {{0}}, w[3], v[3][3];
  for (size_t i = 0; i < m; i++)
    for (int a = 0; a < 3; a++) mu[a] += p[(idx ? idx[i] : i) * 3 + (size_t)a];
  for (int a = 0; a < 3; a++) mu[a] /= (double)(m ? m : 1);
  for (size_t i = 0; i < m; i++) {
    const float *q = p + (idx ? idx[i] : i) * 3;
    double d[3] = {q[0] - mu[0], q[1] - mu[1], q[2] - mu[2]};
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) cov[a][b] += d[a] * d[b];
  }
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) cov[a][b] /= (double)(m ? m : 1);
  eigen_sym3(cov, w, v);
  for (int k = 0; k < 3; k++) {
    mean[k] = (float)mu[k];
    spread[k] = (float)sqrt(fmax(w[k], 0.0));
    for (int a = 0; a < 3; a++) axes[k][a] = (float)v[a][k];
  }
}

/* Up's sign from the prior: the side of -Y, else of +Z (Blender's up), else of +X. */
static void prior_sign(float u[3]) {
  float s = dot3(u, prior_up);
  if (fabsf(s) < 0.1f) s = u[2];
  if (fabsf(s) < 0.1f) s = u[0];
  if (s < 0.0f) glm_vec3_negate(u);
}

/* ---- the sample and its core ------------------------------------------------------------- */

typedef struct shape_work {
  float *p;        /* the sample, xyz: n finite points */
  size_t n;
  uint32_t *core;  /* indices into p: the trimmed core, m of them */
  size_t m;
  float *tmp;      /* n floats of scratch */
} shape_work;

static void work_free(shape_work *w) {
  free(w->p);
  free(w->core);
  free(w->tmp);
}

/* Every k-th finite point (at most SHAPE_SAMPLE), then the core: the CORE_QUANTILE nearest the
 * coordinate-wise median (far background, sky and floaters out), then of the sample those
 * inside the 2nd..98th percentiles along the core's principal axes. Returns -1 for no finite
 * point or no memory. */
static int work_init(shape_work *w, const float *positions, uint32_t count) {
  memset(w, 0, sizeof *w);
  if (!positions || count == 0) return -1;
  uint32_t stride = (uint32_t)(((uint64_t)count + SHAPE_SAMPLE - 1) / SHAPE_SAMPLE);
  size_t cap = ((size_t)count + stride - 1) / stride;
  w->p = malloc(cap * 3 * sizeof *w->p);
  w->core = malloc(cap * sizeof *w->core);
  w->tmp = malloc(cap * sizeof *w->tmp);
  if (!w->p || !w->core || !w->tmp) return work_free(w), -1;
  for (uint64_t i = 0; i < count; i += stride) {
    const float *q = positions + (size_t)i * 3;
    if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) continue;
    memcpy(w->p + w->n * 3, q, 3 * sizeof *q);
    w->n++;
  }
  if (w->n == 0) return work_free(w), -1;
  float med[3];
  for (int a = 0; a < 3; a++) {
    for (size_t i = 0; i < w->n; i++) w->tmp[i] = w->p[i * 3 + (size_t)a];
    med[a] = quantile(w->tmp, w->n, 0.5);
  }
  for (size_t i = 0; i < w->n; i++) {
    vec3 d = VEC3(w->p + i * 3);
    glm_vec3_sub(d, med, d);
    w->tmp[i] = glm_vec3_norm2(d);
  }
  float *d2 = malloc(w->n * sizeof *d2);
  if (!d2) return work_free(w), -1;
  memcpy(d2, w->tmp, w->n * sizeof *d2);
  float r2 = quantile(w->tmp, w->n, CORE_QUANTILE);
  for (size_t i = 0; i < w->n; i++)
    if (d2[i] <= r2) w->core[w->m++] = (uint32_t)i;
  free(d2);
  float mean[3], axes[3][3], spread[3], lo[3], hi[3];
  principal_axes(w->p, w->core, w->m, mean, axes, spread);
  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < w->n; i++) w->tmp[i] = dot3(w->p + i * 3, axes[k]);
    percentiles(w->tmp, w->n, &lo[k], &hi[k]);
  }
  w->m = 0;
  for (size_t i = 0; i < w->n; i++) {
    int in = 1;
    for (int k = 0; k < 3 && in; k++) {
      float h = dot3(w->p + i * 3, axes[k]);
      in = h >= lo[k] && h <= hi[k];
    }
    if (in) w->core[w->m++] = (uint32_t)i;
  }
  if (w->m == 0) /* every point on a percentile's wrong side cannot happen; be safe */
    for (; w->m < w->n; w->m++) w->core[w->m] = (uint32_t)w->m;
  return 0;
}

/* ---- the ground -------------------------------------------------------------------------- */

/* The densest plane of the core with its normal within 30 degrees of `thin`: of PLANE_TRIES
 * planes through three random core points, the one with the most points (of up to
 * PLANE_POINTS) within `t` of it, refitted twice to its points (their thinnest principal
 * axis). Sets n (unit, on thin's side) and c (a point on it); returns the core's share within t
 * of it, 0 when no plane was found. */
static float densest_plane(const shape_work *w, const float thin[3], float t, float n[3], float c[3]) {
  size_t step = w->m > PLANE_POINTS ? (w->m + PLANE_POINTS - 1) / PLANE_POINTS : 1;
  uint32_t seed = 0x9E3779B9u;
  size_t best = 0;
  for (int k = 0; k < PLANE_TRIES && w->m >= 3; k++) {
    const float *a = w->p + (size_t)w->core[next_rand(&seed) % w->m] * 3;
    const float *b = w->p + (size_t)w->core[next_rand(&seed) % w->m] * 3;
    const float *d = w->p + (size_t)w->core[next_rand(&seed) % w->m] * 3;
    vec3 ab = VEC3(b), ad = VEC3(d), nn, va = VEC3(a);
    glm_vec3_sub(ab, va, ab);
    glm_vec3_sub(ad, va, ad);
    glm_vec3_cross(ab, ad, nn);
    float len = glm_vec3_norm(nn);
    if (!(len > 0.0f)) continue;
    glm_vec3_divs(nn, len, nn);
    if (fabsf(dot3(nn, thin)) < PLANE_COS) continue;
    float h0 = dot3(nn, a);
    size_t in = 0;
    for (size_t i = 0; i < w->m; i += step) in += fabsf(dot3(nn, w->p + (size_t)w->core[i] * 3) - h0) < t;
    if (in > best) best = in, memcpy(n, nn, sizeof nn), memcpy(c, a, sizeof nn);
  }
  if (best == 0) return 0.0f;
  uint32_t *idx = malloc(w->m * sizeof *idx);
  if (!idx) return 0.0f;
  size_t in = 0;
  for (int refit = 0; refit < 3; refit++) {
    float h0 = dot3(n, c);
    in = 0;
    for (size_t i = 0; i < w->m; i++)
      if (fabsf(dot3(n, w->p + (size_t)w->core[i] * 3) - h0) < t) idx[in++] = w->core[i];
    if (refit == 2 || in < 3) break;
    float mean[3], axes[3][3], spread[3];
    principal_axes(w->p, idx, in, mean, axes, spread);
    if (fabsf(dot3(axes[2], thin)) < PLANE_COS) break; /* the refit leans too far: keep the try */
    memcpy(n, axes[2], sizeof axes[2]);
    memcpy(c, mean, sizeof mean);
  }
  free(idx);
  if (dot3(n, thin) < 0.0f) glm_vec3_negate(n);
  return (float)in / (float)w->m;
}

/* The densest layer along unit u (a 64-bin histogram of the core's heights, smoothed over three
 * bins): its height. */
static float densest_layer(const shape_work *w, const float u[3], float lo, float hi) {
  enum { BINS = 64 };
  uint32_t hist[BINS] = {0};
  float width = (hi - lo) / BINS;
  if (!(width > 0.0f)) return lo;
  for (size_t i = 0; i < w->m; i++) {
    float b = (dot3(u, w->p + (size_t)w->core[i] * 3) - lo) / width;
    if (b >= 0.0f && b < (float)BINS) hist[(int)b]++;
  }
  int peak = 0;
  uint32_t most = 0;
  for (int b = 0; b < BINS; b++) {
    uint32_t s = hist[b] + (b > 0 ? hist[b - 1] : 0) + (b + 1 < BINS ? hist[b + 1] : 0);
    if (s > most) most = s, peak = b;
  }
  return lo + ((float)peak + 0.5f) * width;
}

/* The core's shares above and below the slab [ground - t, ground + t] along unit u. */
static void sides(const shape_work *w, const float u[3], float ground, float t, float *above, float *below) {
  size_t a = 0, b = 0;
  for (size_t i = 0; i < w->m; i++) {
    float h = dot3(u, w->p + (size_t)w->core[i] * 3) - ground;
    a += h > t;
    b += h < -t;
  }
  *above = (float)a / (float)w->m;
  *below = (float)b / (float)w->m;
}

/* A ground is seen around the things on it: of the cells of a GRID x GRID raster (over the
 * ground's own extent, looked at along u) that hold points of the slab |h - ground| <= t, the
 * share that hold fewer than two points just above it, on the side `sign` (t < h * sign <=
 * `band`: what stands on the ground touches it, floaters over it mostly do not). A flat object's
 * densest layer (a doughnut's icing) lies on the rest of it instead: few such cells. */
static float ground_clear(const shape_work *w, const float u[3], float ground, float t, float band, float sign) {
  enum { GRID = 16 };
  float ahead[3], right[3], lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  splat_up_basis(u, NULL, ahead, right);
  for (size_t i = 0; i < w->m; i++) {
    const float *q = w->p + (size_t)w->core[i] * 3;
    if (fabsf(dot3(u, q) - ground) > t) continue;
    float x = dot3(ahead, q), y = dot3(right, q);
    lo[0] = fminf(lo[0], x), hi[0] = fmaxf(hi[0], x);
    lo[1] = fminf(lo[1], y), hi[1] = fmaxf(hi[1], y);
  }
  if (!(hi[0] > lo[0] && hi[1] > lo[1])) return 0.0f;
  uint32_t on[GRID][GRID] = {{0}};
  bool ground_in[GRID][GRID] = {{false}};
  for (size_t i = 0; i < w->m; i++) {
    const float *q = w->p + (size_t)w->core[i] * 3;
    float h = (dot3(u, q) - ground) * sign;
    int cx = (int)((dot3(ahead, q) - lo[0]) / (hi[0] - lo[0]) * GRID);
    int cy = (int)((dot3(right, q) - lo[1]) / (hi[1] - lo[1]) * GRID);
    if (cx < 0 || cy < 0 || cx > GRID || cy > GRID || !(fabsf(h) <= band)) continue;
    cx = cx < GRID ? cx : GRID - 1, cy = cy < GRID ? cy : GRID - 1;
    if (h > t) on[cx][cy]++;
    else if (h >= -t) ground_in[cx][cy] = true;
  }
  int ground_cells = 0, clear = 0;
  for (int x = 0; x < GRID; x++)
    for (int y = 0; y < GRID; y++) ground_cells += ground_in[x][y], clear += ground_in[x][y] && on[x][y] < 2;
  return ground_cells ? (float)clear / (float)ground_cells : 0.0f;
}

/* The core's 1st..99th percentiles along unit a, over every step-th core point (tmp: scratch). */
static void extent(const shape_work *w, const float a[3], size_t step, float *lo, float *hi) {
  size_t k = 0;
  for (size_t i = 0; i < w->m; i += step) w->tmp[k++] = dot3(w->p + (size_t)w->core[i] * 3, a);
  *lo = quantile(w->tmp, k, 0.01);
  *hi = quantile(w->tmp, k, 0.99);
}

/* Horizontal axes and the extents along them and up: the core's 1st and 99th percentiles. The
 * horizontal axes are those of the smallest such box (every 3 degrees, on at most 4,096 core
 * points; a square's principal axes are any two), the longer side first. The ground stays if it
 * is inside, else the bottom. */
static void finish(shape_work *w, splat_scene_shape *s) {
  float ahead[3], right[3], best = INFINITY, a0[3] = {0, 0, 0};
  splat_up_basis(s->up, NULL, ahead, right);
  size_t step = w->m > 4096 ? (w->m + 4095) / 4096 : 1;
  for (int deg = 0; deg < 90; deg += 3) {
    float c = cosf(glm_rad((float)deg)), sn = sinf(glm_rad((float)deg)), a[3], b[3], lo[2], hi[2];
    for (int k = 0; k < 3; k++) a[k] = c * ahead[k] + sn * right[k], b[k] = -sn * ahead[k] + c * right[k];
    extent(w, a, step, &lo[0], &hi[0]);
    extent(w, b, step, &lo[1], &hi[1]);
    float area = (hi[0] - lo[0]) * (hi[1] - lo[1]);
    if (area < best) best = area, memcpy(a0, hi[0] - lo[0] >= hi[1] - lo[1] ? a : b, sizeof a0);
  }
  if (!(best < INFINITY)) memcpy(a0, right, sizeof a0);
  memcpy(s->axes[0], a0, sizeof a0);
  glm_vec3_cross(s->up, a0, s->axes[1]); /* a0 x a1 = up: right-handed */
  memcpy(s->axes[2], s->up, sizeof s->up);
  for (int k = 0; k < 3; k++) extent(w, s->axes[k], 1, &s->lo[k], &s->hi[k]);
  if (!(s->ground >= s->lo[2] && s->ground <= s->hi[2])) s->ground = s->lo[2];
}

int splat_scene_shape_find(const float *positions, uint32_t count, splat_scene_shape *s) {
  memset(s, 0, sizeof *s);
  shape_work w;
  if (work_init(&w, positions, count) != 0) return -1;
  float mean[3], axes[3][3], plane[3] = {0, 0, 0};
  principal_axes(w.p, w.core, w.m, mean, axes, s->spread);
  const float *sp = s->spread;
  /* the core's heights along its long axis span about 4 spreads; the ground slab is thin beside */
  float t = 0.01f * 4.0f * sp[0];
  bool have_plane = false, flat = sp[2] < FLAT_RATIO * sp[1], long_ = sp[1] < LONG_RATIO * sp[0];
  /* flat and long (a street, a guitar): up is whichever of the normal and the long axis is
   * nearer the prior's line */
  if (flat && long_) flat = fabsf(dot3(axes[2], prior_up)) >= fabsf(dot3(axes[0], prior_up));
  if (flat) {
    s->kind = SPLAT_SHAPE_FLAT;
    float n[3];
    s->plane_fraction = densest_plane(&w, axes[2], t, n, plane);
    have_plane = s->plane_fraction >= PLANE_MIN;
    memcpy(s->up, have_plane ? n : axes[2], sizeof n);
  } else if (long_) {
    s->kind = SPLAT_SHAPE_TALL;
    memcpy(s->up, axes[0], sizeof axes[0]);
    if (fabsf(dot3(axes[0], prior_up)) < TALL_COS) { /* lying: the prior, across the long axis */
      s->kind = SPLAT_SHAPE_LONG;
      vec3 u = VEC3(prior_up);
      glm_vec3_muladds(axes[0], -dot3(prior_up, axes[0]), u);
      glm_vec3_normalize(u);
      memcpy(s->up, u, sizeof u);
    }
  } else {
    s->kind = SPLAT_SHAPE_ROUND;
    memcpy(s->up, prior_up, sizeof prior_up);
  }
  prior_sign(s->up);
  /* the core's heights: 1st..99th percentiles for the layers, 5th..95th for "at one end" (a few
   * floaters left in the core would stretch its min and max) */
  for (size_t i = 0; i < w.m; i++) w.tmp[i] = dot3(s->up, w.p + (size_t)w.core[i] * 3);
  float hlo = quantile(w.tmp, w.m, 0.01), hhi = quantile(w.tmp, w.m, 0.99);
  float h5 = quantile(w.tmp, w.m, 0.05), h95 = quantile(w.tmp, w.m, 0.95);
  s->ground = have_plane ? dot3(s->up, plane) : densest_layer(&w, s->up, hlo, hhi);
  float slab = fmaxf(t, 1.5f * (hhi - hlo) / 64.0f);
  sides(&w, s->up, s->ground, slab, &s->above, &s->below);
  /* Things stand up from the ground. A flat scene's ground is its densest plane: more of the
   * scene lies above it than below, and it is seen around what stands on it. Elsewhere the
   * densest layer may be a body's middle (a person's torso): only a base, the densest layer in
   * the last tenth at one end, says which end is down. Where neither decides, the prior's side. */
  float off = s->above + s->below;
  bool decides = off >= SIDE_MIN && fabsf(s->above - s->below) > SIDE_MARGIN * off;
  if (decides && s->kind == SPLAT_SHAPE_FLAT) {
    float sign = s->above > s->below ? 1.0f : -1.0f, top = sign > 0 ? hhi - s->ground : s->ground - hlo;
    s->ground_clear = ground_clear(&w, s->up, s->ground, slab, slab + 0.25f * top, sign);
    decides = s->ground_clear >= GROUND_CLEAR;
  }
  if (s->kind != SPLAT_SHAPE_FLAT) decides = decides && fminf(s->ground - h5, h95 - s->ground) < BASE_END * (h95 - h5);
  if (decides) {
    s->sign_from_ground = true;
    if (s->below > s->above) {
      glm_vec3_negate(s->up);
      s->ground = -s->ground;
      float x = s->above;
      s->above = s->below, s->below = x;
    }
  }
  finish(&w, s);
  work_free(&w);
  return 0;
}

int splat_scene_shape_along(const float *positions, uint32_t count, const float up[3], splat_scene_shape *s) {
  memset(s, 0, sizeof *s);
  vec3 u = VEC3(up);
  float len = glm_vec3_norm(u);
  if (!(len > 0.0f) || !isfinite(len)) return -1;
  shape_work w;
  if (work_init(&w, positions, count) != 0) return -1;
  float mean[3], axes[3][3];
  principal_axes(w.p, w.core, w.m, mean, axes, s->spread);
  glm_vec3_divs(u, len, s->up);
  s->kind = SPLAT_SHAPE_GIVEN;
  s->ground = NAN;
  finish(&w, s);
  work_free(&w);
  return 0;
}

/* ---- the cameras' up ------------------------------------------------------------------------ */

int splat_cameras_up(const splat_camera_desc *cams, uint32_t count, float up[3]) {
  double sum[3] = {0, 0, 0};
  uint32_t used = 0;
  for (uint32_t i = 0; i < count; i++) {
    /* column 1 of the camera-to-world rotation: the camera's y axis, down in its image */
    float d[3] = {cams[i].rotation[0][1], cams[i].rotation[1][1], cams[i].rotation[2][1]};
    float len = sqrtf(dot3(d, d));
    if (!(len > 0.0f) || !isfinite(len)) continue;
    for (int a = 0; a < 3; a++) sum[a] -= d[a] / len;
    used++;
  }
  if (used == 0) return -1;
  double len = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
  /* cameras held every which way (or half of them upside down) have no common up */
  if (!(len >= 0.5 * used)) return -1;
  for (int a = 0; a < 3; a++) up[a] = (float)(sum[a] / len);
  return 0;
}

/* ---- the view ------------------------------------------------------------------------------ */

int splat_shape_view(const splat_scene_shape *s, const float heading[3], float elevation_deg, float fovy_deg,
                     uint32_t width, uint32_t height, float eye[3], float target[3]) {
  if (width == 0 || height == 0 || !(fovy_deg > 0.0f && fovy_deg < 180.0f) ||
      !(elevation_deg > -89.0f && elevation_deg < 89.0f))
    return -1;
  for (int k = 0; k < 3; k++)
    if (!isfinite(s->lo[k]) || !isfinite(s->hi[k]) || s->lo[k] > s->hi[k] || !isfinite(dot3(s->axes[k], s->axes[k])))
      return -1;
  vec3 u = VEC3(s->axes[2]), h = GLM_VEC3_ZERO_INIT;
  if (heading) {
    memcpy(h, heading, sizeof h);
    glm_vec3_muladds(u, -glm_vec3_dot(h, u), h);
  }
  if (!(glm_vec3_norm(h) > 1e-6f)) {
    /* three-quarter: along the diagonal of the horizontal axes nearest the up's yaw-0 direction */
    vec3 ahead;
    splat_up_basis(u, NULL, ahead, NULL);
    float best = -INFINITY;
    for (int k = 0; k < 4; k++) {
      vec3 d;
      for (int a = 0; a < 3; a++) d[a] = ((k & 1) ? -1.0f : 1.0f) * s->axes[0][a] + ((k & 2) ? -1.0f : 1.0f) * s->axes[1][a];
      if (glm_vec3_dot(d, ahead) > best) best = glm_vec3_dot(d, ahead), glm_vec3_copy(d, h);
    }
  }
  glm_vec3_normalize(h);
  float el = glm_rad(elevation_deg);
  vec3 f, r, d, centre = GLM_VEC3_ZERO_INIT;
  for (int a = 0; a < 3; a++) f[a] = cosf(el) * h[a] - sinf(el) * u[a];
  glm_vec3_cross(f, u, r);
  glm_vec3_normalize(r);
  glm_vec3_cross(f, r, d);
  for (int k = 0; k < 3; k++)
    for (int a = 0; a < 3; a++) centre[a] += s->axes[k][a] * 0.5f * (s->lo[k] + s->hi[k]);
  /* The nearest distance along f at which every corner of the box is inside the image (within
   * FRAME_MARGIN of each half) and at least FRAME_NEAR deep: per corner at (x, y, z) from the
   * centre in camera axes, |x| <= m tan_x (D + z), and likewise y. */
  float tan_y = tanf(glm_rad(0.5f * fovy_deg)), tan_x = tan_y * (float)width / (float)height;
  float dist = FRAME_NEAR;
  for (int c = 0; c < 8; c++) {
    vec3 q = GLM_VEC3_ZERO_INIT;
    for (int k = 0; k < 3; k++) {
      float half = 0.5f * (s->hi[k] - s->lo[k]) * ((c >> k & 1) ? 1.0f : -1.0f);
      for (int a = 0; a < 3; a++) q[a] += s->axes[k][a] * half;
    }
    float x = glm_vec3_dot(q, r), y = glm_vec3_dot(q, d), z = glm_vec3_dot(q, f);
    dist = fmaxf(dist, fabsf(x) / (FRAME_MARGIN * tan_x) - z);
    dist = fmaxf(dist, fabsf(y) / (FRAME_MARGIN * tan_y) - z);
    dist = fmaxf(dist, FRAME_NEAR - z);
  }
  if (!isfinite(dist)) return -1;
  memcpy(target, centre, sizeof centre);
  for (int a = 0; a < 3; a++) eye[a] = centre[a] - dist * f[a];
  return 0;
}
