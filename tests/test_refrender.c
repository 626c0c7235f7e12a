/* test_refrender.c: the CPU reference renderer against hand-computed pixels (one splat,
 * depth order, early termination, the footprint square, background), against a naive
 * per-pixel renderer on random scenes (checks the tile binning), its bins (the compute
 * raster's: no drawn pixel outside them, the square binning's image), its speed, and the
 * image utilities. With a scene path (argv[2]) it renders that scene and writes a PNG instead.
 * Usage: test_refrender <output dir> [scene.ply] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_control.h"
#include "image.h"
#include "splat_project.h"
#include "refrender.h"
#include "stability.h"
#include "splat_scene.h"
#include "util.h"

#include "check.h"

static const double C0 = 0.28209479177387814;
static char outdir[512] = ".";

/* The heavy WINDOW case (K = 1..4) against EXACT: the lowest PSNR accepted, below what was
 * measured (test_window prints it). */
#define WINDOW_HEAVY_MIN_PSNR 22.0
/* Splats of the WINDOW = EXACT case: long tile lists, at most 16 contributors a pixel. */
#define WINDOW_EQUAL_SPLATS 4096

static splat_scene make_scene(uint32_t n) {
  splat_scene s;
  memset(&s, 0, sizeof s);
  s.count = n;
  s.sh_degree = 0;
  s.sh_coeffs = 1;
  size_t m = n ? n : 1;
  s.positions = calloc(m * 3, sizeof(float));
  s.scales = calloc(m * 3, sizeof(float));
  s.rotations = calloc(m * 4, sizeof(float));
  s.opacities = calloc(m, sizeof(float));
  s.sh = calloc(m * 3, sizeof(float));
  for (uint32_t i = 0; i < n; i++) s.rotations[i * 4] = 1.0f;
  return s;
}

/* Isotropic splat of the given colour (via the DC coefficient: colour = C0 dc + 0.5). */
static void put(splat_scene *s, uint32_t i, float x, float y, float z, float scale, float opacity,
                float r, float g, float b) {
  float col[3] = {r, g, b};
  s->positions[i * 3 + 0] = x;
  s->positions[i * 3 + 1] = y;
  s->positions[i * 3 + 2] = z;
  for (int k = 0; k < 3; k++) {
    s->scales[i * 3 + (uint32_t)k] = scale;
    s->sh[i * 3 + (uint32_t)k] = (float)((col[k] - 0.5) / C0);
  }
  s->opacities[i] = opacity;
}

static splat_camera ident_camera(float f, uint32_t w, uint32_t h) {
  const float rot[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, pos[3] = {0, 0, 0};
  splat_camera c;
  splat_camera_from_pose(&c, pos, rot, f, f, w, h);
  return c;
}

static const float BG[3] = {0.2f, 0.3f, 0.4f};

static float *render(const splat_scene *s, const splat_camera *cam, refrender_stats *st) {
  float *img = malloc((size_t)cam->width * cam->height * 4 * sizeof(float));
  int rc = refrender_render(s, cam, 3, BG, img, st);
  CHECK(rc == 0, "refrender_render failed");
  return img;
}

static const float *px(const float *img, const splat_camera *cam, uint32_t x, uint32_t y) {
  return img + ((size_t)y * cam->width + x) * 4;
}

static void test_single(void) {
  /* f = 64, z = 2, s = 0.05: cov2D = diag(0.05^2 * 64^2 / 4 + 0.3) = diag(2.86). The mean
   * is (32, 32); pixel (32,32)'s centre (32.5, 32.5) is (0.5, 0.5) away:
   * alpha = 0.8 exp(-0.5 (0.25 + 0.25) / 2.86). */
  splat_scene s = make_scene(1);
  put(&s, 0, 0, 0, 2, 0.05f, 0.8f, 0.9f, 0.5f, 0.1f);
  splat_camera cam = ident_camera(64.0f, 64, 64);
  refrender_stats st;
  float *img = render(&s, &cam, &st);
  CHECK(st.visible == 1, "visible %u", st.visible);
  const double a = 0.05 * 0.05 * 64.0 * 64.0 / 4.0 + 0.3;
  const double col[3] = {0.9, 0.5, 0.1};
  const struct {
    uint32_t x, y;
    double dx, dy;
  } probes[] = {{32, 32, 0.5, 0.5}, {31, 31, -0.5, -0.5}, {34, 32, 2.5, 0.5}, {30, 35, -1.5, 3.5}};
  for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
    double alpha = 0.8 * exp(-0.5 * (probes[k].dx * probes[k].dx + probes[k].dy * probes[k].dy) / a);
    const float *p = px(img, &cam, probes[k].x, probes[k].y);
    for (int c = 0; c < 3; c++) CHECK_NEAR(p[c], col[c] * alpha + (1.0 - alpha) * BG[c], 2e-6);
    CHECK_NEAR(p[3], alpha, 2e-6);
  }
  /* 8-bit: round(v * 255) of the centre pixel. */
  uint8_t *img8 = malloc(64 * 64 * 4);
  CHECK(refrender_render_rgba8(&s, &cam, 3, BG, img8, NULL) == 0, "rgba8 render failed");
  double alpha = 0.8 * exp(-0.25 / a);
  for (int c = 0; c < 3; c++) {
    double v = col[c] * alpha + (1.0 - alpha) * BG[c];
    CHECK(img8[(32 * 64 + 32) * 4 + c] == (uint8_t)floor(v * 255.0 + 0.5), "channel %d: %u vs %g",
          c, img8[(32 * 64 + 32) * 4 + c], v * 255.0);
  }
  CHECK(img8[(32 * 64 + 32) * 4 + 3] == 255, "alpha");
  CHECK(!image_is_blank(img8, 64, 64), "single splat image is blank");
  free(img8);
  free(img);

  /* Principal point moved by half a pixel: the mean lies on pixel (32,32)'s centre and
   * its value is exactly opacity-weighted: alpha = 0.8. */
  cam.cx = 32.5f;
  cam.cy = 32.5f;
  img = render(&s, &cam, NULL);
  const float *p = px(img, &cam, 32, 32);
  for (int c = 0; c < 3; c++) CHECK_NEAR(p[c], col[c] * 0.8 + 0.2 * BG[c], 1e-6);
  free(img);
  splat_scene_free(&s);
}

static void test_order(void) {
  /* Two big splats centred on pixel (32,32) (alpha = opacity there): red at z = 2, blue at
   * z = 4, both 0.9: pixel = red 0.9 + blue 0.9 * 0.1 + bg * 0.01. */
  splat_camera cam = ident_camera(64.0f, 64, 64);
  cam.cx = cam.cy = 32.5f;
  const double red[3] = {1, 0, 0}, blue[3] = {0, 0, 1};
  for (int variant = 0; variant < 4; variant++) {
    int swap_depth = variant & 1, swap_index = variant & 2;
    splat_scene s = make_scene(2);
    uint32_t ir = swap_index ? 1 : 0, ib = swap_index ? 0 : 1;
    put(&s, ir, 0, 0, swap_depth ? 4.0f : 2.0f, 0.5f, 0.9f, 1, 0, 0);
    put(&s, ib, 0, 0, swap_depth ? 2.0f : 4.0f, 0.5f, 0.9f, 0, 0, 1);
    float *img = render(&s, &cam, NULL);
    const double *front = swap_depth ? blue : red, *back = swap_depth ? red : blue;
    const float *p = px(img, &cam, 32, 32);
    for (int c = 0; c < 3; c++)
      CHECK_NEAR(p[c], front[c] * 0.9 + back[c] * 0.9 * 0.1 + BG[c] * 0.01, 1e-6);
    CHECK_NEAR(p[3], 0.99, 1e-6);
    free(img);
    splat_scene_free(&s);
  }
}

static void test_blank(void) {
  splat_camera cam = ident_camera(40.0f, 50, 30);
  for (int k = 0; k < 2; k++) {
    splat_scene s = make_scene(k ? 3 : 0);
    if (k) /* everything behind the camera or below 1/255 opacity */
      for (uint32_t i = 0; i < 3; i++)
        put(&s, i, 0, 0, i < 2 ? -1.0f - (float)i : 2.0f, 0.3f, i < 2 ? 1.0f : 0.001f, 1, 1, 1);
    refrender_stats st;
    float *img = render(&s, &cam, &st);
    CHECK(st.visible == 0, "visible %u", st.visible);
    int bad = 0;
    for (size_t i = 0; i < 50 * 30; i++)
      for (int c = 0; c < 3; c++) bad += img[i * 4 + (size_t)c] != BG[c];
    CHECK(bad == 0, "%d background values differ", bad);
    uint8_t img8[50 * 30 * 4];
    refrender_to_rgba8(img, 50, 30, img8);
    CHECK(image_is_blank(img8, 50, 30), "blank scene is not blank");
    CHECK(img8[0] == 51 && img8[1] == 77 && img8[2] == 102, "background 8-bit %u %u %u", img8[0],
          img8[1], img8[2]);
    free(img);
    splat_scene_free(&s);
  }
}

static void test_early_stop(void) {
  /* Three splats centred on a pixel centre: alphas 0.99, 0.9, 0.95 front to back.
   * T: 1 -> 0.01 -> 0.001; the third would give 5e-5 < 1e-4, so compositing stops and
   * neither it nor anything behind it contributes: pixel = c1 0.99 + c2 0.9 0.01 + bg 0.001. */
  splat_scene s = make_scene(4);
  put(&s, 0, 0, 0, 3, 0.5f, 0.95f, 0, 1, 0);
  put(&s, 1, 0, 0, 1, 0.5f, 0.99f, 1, 0, 0);
  put(&s, 2, 0, 0, 2, 0.5f, 0.9f, 0, 0, 1);
  /* Behind them a faint one that would still pass the T test (0.001 * 0.5 >= 1e-4): the
   * loop has stopped, so it must not show either. */
  put(&s, 3, 0, 0, 4, 0.5f, 0.5f, 1, 1, 1);
  splat_camera cam = ident_camera(64.0f, 64, 64);
  cam.cx = cam.cy = 32.5f;
  float *img = render(&s, &cam, NULL);
  const float *p = px(img, &cam, 32, 32);
  const double expect[3] = {0.99 + 0.001 * BG[0], 0.001 * BG[1], 0.9 * 0.01 + 0.001 * BG[2]};
  for (int c = 0; c < 3; c++) CHECK_NEAR(p[c], expect[c], 1e-6);
  CHECK_NEAR(p[3], 0.999, 1e-6);
  free(img);
  /* Opacity above 0.99 is clamped to 0.99. */
  put(&s, 1, 0, 0, 1, 0.5f, 1.0f, 1, 0, 0);
  img = render(&s, &cam, NULL);
  p = px(img, &cam, 32, 32);
  for (int c = 0; c < 3; c++) CHECK_NEAR(p[c], expect[c], 1e-6);
  free(img);
  splat_scene_free(&s);
}

static void test_footprint(void) {
  /* s f / z = 10: a = 100.3, radius = ceil(3 sqrt(100.3 + sqrt(0.1))) = 31. Mean at
   * (48, 48); in row 48 (dy = 0.5) pixels 17..78 have centres in [17, 79), pixel 79
   * (centre 79.5) and 16 (16.5) lie outside and keep the background although the
   * Gaussian there is still above 1/255 (the reference's tiles would draw them). */
  splat_scene s = make_scene(1);
  const float f = 96.0f, z = 2.0f, sc = 10.0f * z / f;
  put(&s, 0, 0, 0, z, sc, 1.0f, 1, 1, 1);
  splat_camera cam = ident_camera(f, 96, 96);
  splat_projected pr;
  CHECK(splat_project(&s, 0, &cam, 0, &pr) == 1, "culled");
  CHECK_NEAR(pr.radius, 31.0, 0.0);
  float *img = render(&s, &cam, NULL);
  const double a = 100.3;
  for (int side = -1; side <= 1; side += 2) {
    uint32_t inside = side > 0 ? 78 : 17, outside = side > 0 ? 79 : 16;
    double dx_out = (double)outside + 0.5 - 48.0;
    double alpha_out = exp(-0.5 * (dx_out * dx_out + 0.25) / a);
    CHECK(alpha_out > 1.0 / 255.0, "test set-up: alpha outside %g", alpha_out);
    const float *pi = px(img, &cam, inside, 48), *po = px(img, &cam, outside, 48);
    double dx_in = (double)inside + 0.5 - 48.0;
    double alpha_in = exp(-0.5 * (dx_in * dx_in + 0.25) / a);
    CHECK_NEAR(pi[0], alpha_in + (1.0 - alpha_in) * BG[0], 1e-6);
    CHECK(po[0] == BG[0] && po[1] == BG[1] && po[2] == BG[2] && po[3] == 0.0f,
          "pixel %u outside the square was drawn (%g)", outside, po[0]);
  }
  free(img);
  splat_scene_free(&s);
}

/* ---- naive renderer: every visible splat for every pixel, no tiles ------------------------ */

/* It checks refrender's tile binning and its order; the Gaussian at a pixel comes from
 * refrender_splat_power, whose footprint and values the hand-computed cases above check. The
 * thresholds and the blend are written out again here, from refrender.h's contract. */

typedef struct naive_item {
  splat_projected p;
  uint32_t index;
} naive_item;

static int cmp_front_to_back(const void *pa, const void *pb) {
  const naive_item *a = pa, *b = pb;
  if (a->p.depth != b->p.depth) return a->p.depth < b->p.depth ? -1 : 1;
  return a->index > b->index ? -1 : (a->index < b->index); /* equal depth: higher index first */
}

static void naive_render(const splat_scene *s, const splat_camera *cam, float *rgba) {
  naive_item *items = malloc((s->count ? s->count : 1) * sizeof *items);
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->count; i++)
    if (splat_project(s, i, cam, 3, &items[n].p)) items[n++].index = i;
  qsort(items, n, sizeof *items, cmp_front_to_back);
  for (uint32_t y = 0; y < cam->height; y++)
    for (uint32_t x = 0; x < cam->width; x++) {
      float fx = (float)x + 0.5f, fy = (float)y + 0.5f, T = 1.0f, C[3] = {0, 0, 0};
      for (uint32_t k = 0; k < n; k++) {
        const splat_projected *p = &items[k].p;
        float power;
        if (!refrender_splat_power(p, fx, fy, &power)) continue;
        float alpha = fminf(0.99f, p->opacity * expf(power));
        if (alpha < 1.0f / 255.0f) continue;
        float tt = T * (1.0f - alpha);
        if (tt < 0.0001f) break;
        for (int c = 0; c < 3; c++) C[c] += p->color[c] * alpha * T;
        T = tt;
      }
      float *o = rgba + ((size_t)y * cam->width + x) * 4;
      for (int c = 0; c < 3; c++) o[c] = C[c] + T * BG[c];
      o[3] = 1.0f - T;
    }
  free(items);
}

static uint32_t rng_state = 0x9e3779b9u;
static float frand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return (float)(rng_state >> 8) / 16777216.0f;
}

static splat_scene random_scene(uint32_t n, uint32_t seed, float extent) {
  rng_state = seed;
  splat_scene s = make_scene(n);
  for (uint32_t i = 0; i < n; i++) {
    s.positions[i * 3 + 0] = (frand() - 0.5f) * 2.0f * extent;
    s.positions[i * 3 + 1] = (frand() - 0.5f) * 2.0f * extent;
    s.positions[i * 3 + 2] = 1.0f + frand() * 4.0f * extent;
    for (int k = 0; k < 3; k++) {
      s.scales[i * 3 + (uint32_t)k] = 0.005f + 0.1f * frand() * frand();
      s.sh[i * 3 + (uint32_t)k] = (frand() - 0.5f) * 4.0f;
    }
    float q[4] = {frand() - 0.5f, frand() - 0.5f, frand() - 0.5f, frand() - 0.5f};
    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) s.rotations[i * 4 + (uint32_t)k] = q[k] / l;
    s.opacities[i] = frand();
  }
  /* A few equal depths to exercise the tie order. */
  for (uint32_t i = 1; i < n && i < 40; i += 2) s.positions[i * 3 + 2] = s.positions[(i - 1) * 3 + 2];
  return s;
}

static void test_against_naive(void) {
  const uint32_t seeds[3] = {1u, 77u, 123456u};
  for (int k = 0; k < 3; k++) {
    splat_scene s = random_scene(400, seeds[k], 1.0f);
    splat_camera cam = ident_camera(50.0f, 83, 61); /* not a multiple of the tile size */
    cam.cx = 40.3f;
    float *a = render(&s, &cam, NULL);
    float *b = malloc((size_t)83 * 61 * 4 * sizeof(float));
    naive_render(&s, &cam, b);
    size_t diff = 0;
    for (size_t i = 0; i < (size_t)83 * 61 * 4; i++) diff += a[i] != b[i];
    CHECK(diff == 0, "seed %u: %zu values differ from the naive renderer", seeds[k], diff);
    uint8_t *a8 = malloc((size_t)83 * 61 * 4);
    refrender_to_rgba8(a, 83, 61, a8);
    CHECK(!image_is_blank(a8, 83, 61), "seed %u: blank", seeds[k]);
    free(a8);
    free(a);
    free(b);
    splat_scene_free(&s);
  }
}

/* ---- the bins (refrender_bins_of, the compute raster's rule) -------------------------------- */

/* Splats for the bins: sub-pixel to thousands of pixels, needles to discs, any rotation and
 * opacity (many near the 1/255 cut), centres past the image's borders and close up. */
static splat_scene bins_scene(uint32_t n, uint32_t seed) {
  rng_state = seed;
  splat_scene s = make_scene(n);
  for (uint32_t i = 0; i < n; i++) {
    float z = 0.3f + 6.0f * frand() * frand();
    s.positions[i * 3 + 0] = (frand() - 0.5f) * 2.6f * z;
    s.positions[i * 3 + 1] = (frand() - 0.5f) * 2.6f * z;
    s.positions[i * 3 + 2] = z;
    for (int k = 0; k < 3; k++) {
      s.scales[i * 3 + (uint32_t)k] = expf(logf(1e-4f) + frand() * logf(3e4f)); /* 1e-4 .. 3 */
      s.sh[i * 3 + (uint32_t)k] = (frand() - 0.5f) * 4.0f;
    }
    float q[4] = {frand() - 0.5f, frand() - 0.5f, frand() - 0.5f, frand() - 0.5f};
    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) s.rotations[i * 4 + (uint32_t)k] = q[k] / l;
    float u = frand();
    s.opacities[i] = u < 0.3f ? (1.0f + 0.2f * frand()) / 255.0f : u < 0.5f ? 1.0f - 1e-3f * frand() : frand();
  }
  return s;
}

/* Every pixel a splat draws alone (alpha >= 1/255 in its square) lies in one of its bins.
 * Returns the pixels checked. */
static uint64_t check_drawn_pixels_binned(const splat_scene *s, const splat_camera *cam, uint32_t seed) {
  uint64_t checked = 0, missed = 0;
  for (uint32_t i = 0; i < s->count; i++) {
    splat_projected p;
    if (!splat_project(s, i, cam, 0, &p)) continue;
    refrender_bins b;
    int any = refrender_bins_of(&p, cam->width, cam->height, &b);
    for (uint32_t y = 0; y < cam->height; y++)
      for (uint32_t x = 0; x < cam->width; x++) {
        float power;
        if (!refrender_splat_power(&p, (float)x + 0.5f, (float)y + 0.5f, &power)) continue;
        if (fminf(SPLAT_MAX_ALPHA, p.opacity * expf(power)) < SPLAT_MIN_ALPHA) continue;
        checked++;
        int64_t ty = y / 16, tx0 = 1, tx1 = 0;
        int in = any && ty >= b.lo[1] / 16 && ty <= b.hi[1] / 16 && refrender_bin_row(&b, ty, &tx0, &tx1) &&
                 (int64_t)(x / 16) >= tx0 && (int64_t)(x / 16) <= tx1;
        if (!in && missed++ < 5)
          printf("seed %u splat %u: pixel (%u, %u) drawn but its tile is not binned (conic %g %g %g, opacity %g)\n",
                 seed, i, x, y, p.conic[0], p.conic[1], p.conic[2], p.opacity);
      }
  }
  CHECK(missed == 0, "seed %u: %llu drawn pixels outside the bins", seed, (unsigned long long)missed);
  return checked;
}

/* The bins against the square binning: the same image, bit for bit, and no more pairs. */
static void compare_with_square(const char *tag, const splat_scene *s, const splat_camera *cam) {
  size_t n = (size_t)cam->width * cam->height * 4;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  refrender_stats sa, sb;
  refrender_options o = {.max_pairs = UINT64_MAX};
  CHECK(refrender_render_opts(s, cam, 3, BG, a, &sa, &o) == 0, "%s: render", tag);
  o.square_bins = 1;
  CHECK(refrender_render_opts(s, cam, 3, BG, b, &sb, &o) == 0, "%s: render", tag);
  size_t diff = 0;
  for (size_t i = 0; i < n; i++) diff += memcmp(&a[i], &b[i], sizeof *a) != 0;
  printf("%s: %u visible, %llu pairs with the bins, %llu with the square (%.1f%% fewer; %.2f vs %.2f per splat)\n",
         tag, sa.visible, (unsigned long long)sa.pairs_needed, (unsigned long long)sb.pairs_needed,
         sb.pairs_needed ? 100.0 * (1.0 - (double)sa.pairs_needed / (double)sb.pairs_needed) : 0.0,
         sa.visible ? (double)sa.pairs_needed / sa.visible : 0.0, sb.visible ? (double)sb.pairs_needed / sb.visible : 0.0);
  CHECK(diff == 0, "%s: %zu values differ from the square binning's image", tag, diff);
  CHECK(sa.pairs_needed <= sb.pairs_needed, "%s: more pairs than the square binning", tag);
  free(a);
  free(b);
}

static void test_bins(void) {
  const uint32_t seeds[4] = {5u, 99u, 2024u, 31337u};
  uint64_t checked = 0;
  for (int k = 0; k < 4; k++) {
    splat_scene s = bins_scene(k == 3 ? 3000 : 400, seeds[k]);
    splat_camera cam = ident_camera(k == 3 ? 200.0f : 60.0f, k == 3 ? 211 : 97, k == 3 ? 157 : 71);
    cam.cx += 0.37f; /* means off the pixel grid */
    char tag[64];
    snprintf(tag, sizeof tag, "bins seed %u", seeds[k]);
    if (k < 3) checked += check_drawn_pixels_binned(&s, &cam, seeds[k]);
    compare_with_square(tag, &s, &cam);
    splat_scene_free(&s);
  }
  printf("bins: %llu drawn (splat, pixel) pairs checked, all binned\n", (unsigned long long)checked);
  CHECK(checked > 100000, "only %llu drawn pixels checked", (unsigned long long)checked);
}

static void test_speed(void) {
  /* 10,000 splats at 256x256 must render well under a second (Release). */
  splat_scene s = random_scene(10000, 42u, 2.0f);
  const float eye[3] = {0, 0, -1}, tgt[3] = {0, 0, 4}, up[3] = {0, -1, 0};
  splat_camera cam;
  splat_camera_look_at(&cam, eye, tgt, up, 60.0f, 256, 256);
  refrender_stats st;
  double t0 = now_seconds();
  float *img = render(&s, &cam, &st);
  double dt = now_seconds() - t0;
  printf("refrender: 10000 splats (%u visible, %llu tile entries) at 256x256 in %.1f ms\n",
         st.visible, (unsigned long long)st.tile_entries, dt * 1e3);
  CHECK(st.visible > 5000, "only %u visible", st.visible);
  CHECK(dt < 3.0, "too slow: %.2f s", dt);
  uint8_t *img8 = malloc(256 * 256 * 4);
  refrender_to_rgba8(img, 256, 256, img8);
  char path[600];
  snprintf(path, sizeof path, "%s/refrender_random.png", outdir);
  CHECK(image_write_png(path, 256, 256, img8) == 0, "cannot write %s", path);
  free(img8);
  free(img);
  splat_scene_free(&s);
}

static void test_image_utils(void) {
  enum { W = 20, H = 10 };
  uint8_t a[W * H * 4], b[W * H * 4];
  for (size_t i = 0; i < sizeof a; i++) a[i] = (uint8_t)(i * 7);
  memcpy(b, a, sizeof a);
  CHECK(image_psnr(a, b, W, H) == IMAGE_PSNR_IDENTICAL, "identical images");
  /* Alpha is ignored. */
  b[3] ^= 0xff;
  CHECK(image_psnr(a, b, W, H) == IMAGE_PSNR_IDENTICAL, "alpha counted");
  /* One channel of one pixel off by 10: MSE = 100 / (3 W H). */
  b[4 * 5 + 1] = (uint8_t)(a[4 * 5 + 1] + 10);
  double expect = 10.0 * log10(255.0 * 255.0 * 3.0 * W * H / 100.0);
  CHECK_NEAR(image_psnr(a, b, W, H), expect, 1e-9);
  /* Every channel off by 255 (black vs white): 0 dB. */
  uint8_t k[W * H * 4], w[W * H * 4];
  memset(k, 0, sizeof k);
  memset(w, 255, sizeof w);
  CHECK_NEAR(image_psnr(k, w, W, H), 0.0, 1e-12);
  CHECK(image_is_blank(k, W, H), "black is blank");
  CHECK(!image_is_blank(a, W, H), "pattern is blank");
  k[W * H * 4 - 1] = 1; /* last pixel's alpha differs */
  CHECK(!image_is_blank(k, W, H), "differing last pixel missed");

  char path[600];
  snprintf(path, sizeof path, "%s/refrender_diff.png", outdir);
  CHECK(image_write_diff_png(path, a, b, W, H) == 0, "cannot write %s", path);
  FILE *f = fopen(path, "rb");
  unsigned char sig[8] = {0};
  size_t n = f ? fread(sig, 1, 8, f) : 0;
  if (f) fclose(f);
  CHECK(n == 8 && memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG", path);
  snprintf(path, sizeof path, "%s/no/such/dir/x.png", outdir);
  CHECK(image_write_png(path, W, H, a) != 0, "writing into a missing directory succeeded");
}

/* ---- blend orders: EXACT, WINDOW, threads ---------------------------------------------------- */

static float *render_order(const splat_scene *s, const splat_camera *cam, int order, uint32_t K, int threads,
                           refrender_stats *st) {
  float *img = malloc((size_t)cam->width * cam->height * 4 * sizeof(float));
  refrender_options o = {.max_pairs = UINT64_MAX, .order = order, .window = K, .threads = threads};
  CHECK(refrender_render_opts(s, cam, 3, BG, img, st, &o) == 0, "order %d K %u threads %d: render failed", order, K,
        threads);
  return img;
}

static size_t count_diff(const float *a, const float *b, const splat_camera *cam) {
  size_t diff = 0, n = (size_t)cam->width * cam->height * 4;
  for (size_t i = 0; i < n; i++) diff += memcmp(&a[i], &b[i], sizeof *a) != 0;
  return diff;
}

/* A flat square-ish splat (scales sc, sc, 1e-3) whose normal is +z turned by theta about y. */
static void put_flat(splat_scene *s, uint32_t i, float x, float z, double theta, float r, float g, float b) {
  put(s, i, x, 0, z, 2.0f, 0.7f, r, g, b);
  s->scales[i * 3 + 2] = 1e-3f;
  s->rotations[i * 4 + 0] = (float)cos(theta / 2);
  s->rotations[i * 4 + 2] = (float)sin(theta / 2);
}

static void test_exact_crossing(void) {
  /* Red lies in the plane z = 3 + x/2, green in z = 3 - x/2 (camera space); they cross along
   * x = 0, the image's middle column. Green's centre is nearer (2.95 vs 3), so the global order
   * puts green in front everywhere; along the rays red is in front on the left (x < 0). */
  splat_scene s = make_scene(2);
  const double th = atan2(0.5, 1.0);
  put_flat(&s, 0, 0.0f, 3.0f, -th, 1, 0, 0);
  put_flat(&s, 1, 0.1f, 2.95f, th, 0, 1, 0);
  splat_camera cam = ident_camera(64.0f, 64, 64);
  splat_projected pr[2];
  CHECK(splat_project(&s, 0, &cam, 0, &pr[0]) && splat_project(&s, 1, &cam, 0, &pr[1]), "culled");
  float *exact = render_order(&s, &cam, REFRENDER_ORDER_EXACT, 0, 1, NULL);
  float *global = render_order(&s, &cam, REFRENDER_ORDER_GLOBAL, 0, 1, NULL);
  const double col[2][3] = {{1, 0, 0}, {0, 1, 0}};
  for (uint32_t y = 8; y < 64; y += 20)
    for (uint32_t x = 6; x < 64; x += 52) { /* columns 6 and 58, far from the crossing */
      double alpha[2];
      for (int k = 0; k < 2; k++) {
        float power;
        CHECK(refrender_splat_power(&pr[k], x + 0.5f, y + 0.5f, &power), "no power at (%u, %u)", x, y);
        alpha[k] = fmin(0.99, pr[k].opacity * exp(power));
      }
      for (int variant = 0; variant < 2; variant++) {
        int f = variant ? 1 : x < 32 ? 0 : 1, b = 1 - f; /* variant 1: the global order, green first */
        const float *p = px(variant ? global : exact, &cam, x, y);
        for (int c = 0; c < 3; c++) {
          double want = col[f][c] * alpha[f] + col[b][c] * alpha[b] * (1 - alpha[f]) +
                        BG[c] * (1 - alpha[f]) * (1 - alpha[b]);
          CHECK_NEAR(p[c], want, 2e-6);
        }
      }
    }
  CHECK(count_diff(exact, global, &cam) > 0, "the crossing changed nothing");
  free(exact);
  free(global);
  splat_scene_free(&s);
}

static void test_window(void) {
  /* Few contributors per pixel (<= 16), long tile lists: WINDOW K = 16 is EXACT bit for bit
   * (the window never overflows). */
  splat_camera cam = ident_camera(50.0f, 64, 32);
  splat_scene s = random_scene(WINDOW_EQUAL_SPLATS, 4242u, 1.0f);
  for (uint32_t i = 0; i < s.count; i++) { /* faint points (a pixel or so each) spread over the image */
    float z = s.positions[i * 3 + 2];
    s.positions[i * 3 + 0] = (frand() - 0.5f) * 64.0f / 50.0f * z;
    s.positions[i * 3 + 1] = (frand() - 0.5f) * 32.0f / 50.0f * z;
    for (int k = 0; k < 3; k++) s.scales[i * 3 + (uint32_t)k] = 0.002f * z;
    s.opacities[i] = 0.01f + 0.02f * frand();
  }
  refrender_stats se, sw;
  float *exact = render_order(&s, &cam, REFRENDER_ORDER_EXACT, 0, 1, &se);
  float *win = render_order(&s, &cam, REFRENDER_ORDER_WINDOW, 16, 1, &sw);
  printf("window: %llu tile entries over %u tiles, at most %u contributors a pixel, %llu blends\n",
         (unsigned long long)se.tile_entries, 4 * 2, se.max_contributors, (unsigned long long)se.contributions);
  CHECK(se.max_contributors <= 16 && se.max_contributors >= 8, "set-up: %u contributors", se.max_contributors);
  CHECK(se.tile_entries > 8 * 256, "set-up: %llu tile entries", (unsigned long long)se.tile_entries);
  CHECK(count_diff(exact, win, &cam) == 0, "WINDOW K=16 differs from EXACT in %zu values", count_diff(exact, win, &cam));
  CHECK(sw.contributions == se.contributions && sw.late == 0 && se.late == 0, "stats: %llu/%llu blends, late %llu",
        (unsigned long long)sw.contributions, (unsigned long long)se.contributions, (unsigned long long)sw.late);
  free(exact);
  free(win);
  splat_scene_free(&s);

  /* A heavy case, the popping scene (48 large crossing sheets): small windows blend late. */
  s = stability_popping_scene(48, 1);
  const float centre[3] = {0, 0, 0};
  stability_orbit_camera(centre, 4.0f, 20.0f, 0.0f, 0.0f, 0, 1, 50.0f, 160, 120, &cam);
  exact = render_order(&s, &cam, REFRENDER_ORDER_EXACT, 0, 2, &se);
  float *global = render_order(&s, &cam, REFRENDER_ORDER_GLOBAL, 0, 2, NULL);
  printf("heavy: %u contributors a pixel at most; GLOBAL %.2f dB vs EXACT\n", se.max_contributors,
         stability_psnr(global, exact, 160, 120));
  for (uint32_t K = 1; K <= 4; K++) {
    win = render_order(&s, &cam, REFRENDER_ORDER_WINDOW, K, 2, &sw);
    double psnr = stability_psnr(win, exact, 160, 120);
    printf("heavy: WINDOW K=%u: %.2f dB vs EXACT, %llu late of %llu blends\n", K, psnr, (unsigned long long)sw.late,
           (unsigned long long)sw.contributions);
    CHECK(sw.late > 0, "K=%u: no late blends", K);
    CHECK(psnr >= WINDOW_HEAVY_MIN_PSNR, "K=%u: %.2f dB vs EXACT", K, psnr);
    free(win);
  }
  free(exact);
  free(global);
  splat_scene_free(&s);

  /* K out of range, an unknown order: refused. */
  float img[4 * 4 * 4];
  splat_camera small = ident_camera(10.0f, 4, 4);
  refrender_options o = {.max_pairs = UINT64_MAX, .order = REFRENDER_ORDER_WINDOW, .window = 0};
  CHECK(refrender_render_opts(&s, &small, 0, BG, img, NULL, &o) == -1, "K = 0 accepted");
  o.window = REFRENDER_MAX_WINDOW + 1;
  CHECK(refrender_render_opts(&s, &small, 0, BG, img, NULL, &o) == -1, "K = 17 accepted");
  o.order = 3, o.window = 4;
  CHECK(refrender_render_opts(&s, &small, 0, BG, img, NULL, &o) == -1, "order 3 accepted");
}

static void test_threads(void) {
  /* The image and the stats do not depend on the thread count. */
  splat_scene s = stability_popping_scene(32, 7);
  splat_camera cam;
  const float centre[3] = {0, 0, 0};
  stability_orbit_camera(centre, 4.0f, 10.0f, 30.0f, 0.0f, 0, 1, 50.0f, 101, 75, &cam);
  const int orders[3] = {REFRENDER_ORDER_GLOBAL, REFRENDER_ORDER_EXACT, REFRENDER_ORDER_WINDOW};
  for (int k = 0; k < 3; k++) {
    refrender_stats a, b;
    float *one = render_order(&s, &cam, orders[k], 4, 1, &a), *four = render_order(&s, &cam, orders[k], 4, 4, &b);
    CHECK(count_diff(one, four, &cam) == 0, "order %d: 4 threads differ from 1", orders[k]);
    CHECK(memcmp(&a, &b, sizeof a) == 0, "order %d: stats differ", orders[k]);
    free(one);
    free(four);
  }
  splat_scene_free(&s);
}

/* Renders a real scene framed by its robust bounds; writes <outdir>/refrender_<name>.png. */
static int render_scene_file(const char *path) {
  splat_scene s;
  char err[512];
  if (splat_scene_load(path, &s, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  float lo[3], hi[3], up[3] = {0, -1, 0};
  splat_camera cam;
  if (splat_scene_robust_bounds(s.positions, s.count, lo, hi) != 0 ||
      splat_camera_frame_bounds(&cam, lo, hi, up, 256, 256, 50.0f) != 0) {
    fprintf(stderr, "%s: cannot frame the scene\n", path);
    splat_scene_free(&s);
    return 1;
  }
  uint8_t *img8 = malloc(256 * 256 * 4);
  refrender_stats st;
  const float black[3] = {0, 0, 0};
  double t0 = now_seconds();
  int rc = refrender_render_rgba8(&s, &cam, 3, black, img8, &st);
  double dt = now_seconds() - t0;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char out[1024];
  snprintf(out, sizeof out, "%s/refrender_%s.png", outdir, base);
  printf("%s: %u splats, %u visible, 256x256 in %.1f ms -> %s\n", path, s.count, st.visible,
         dt * 1e3, out);
  CHECK(rc == 0, "render failed");
  CHECK(st.visible > s.count / 4, "only %u of %u visible", st.visible, s.count);
  CHECK(!image_is_blank(img8, 256, 256), "blank render");
  CHECK(image_write_png(out, 256, 256, img8) == 0, "cannot write %s", out);
  compare_with_square(base, &s, &cam);
  free(img8);
  splat_scene_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) snprintf(outdir, sizeof outdir, "%s", argv[1]);
  if (argc > 2) {
    if (!optional_file_present(argv[2])) return 77;
    if (render_scene_file(argv[2])) return 1;
  } else {
    test_single();
    test_order();
    test_blank();
    test_early_stop();
    test_footprint();
    test_against_naive();
    test_bins();
    test_speed();
    test_image_utils();
    test_exact_crossing();
    test_window();
    test_threads();
  }
  return check_report("test_refrender");
}
