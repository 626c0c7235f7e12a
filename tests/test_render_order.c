/* test_render_order.c: the compute raster's per-pixel order (SPLAT_ORDER_PER_PIXEL; test_render's
 * order test, the table is in test_render.c). The GPU's images against the CPU reference's exact
 * emulation of its algorithm (refrender.h, REFRENDER_ORDER_WINDOW) at several window lengths,
 * down to windows that overflow at most pixels; both orders against the exact per-pixel order
 * (REFRENDER_ORDER_EXACT); a slow orbit's temporal stability (tests/stability.h), with the
 * issue's targets on the generated popping scene; the host's frame (cmd_render_into); and the
 * API's refusals. SPLATSORT_ORDER_ORBIT=FRAMES,WxH makes the orbit longer or larger (the GPU
 * machine's measurement, tests/bench/order_run.sh). */
#include "render_common.h"

#include "image.h"
#include "refrender.h"
#include "splat_project.h"
#include "stability.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The GPU's frame as floats (RGB of the RGBA16F target; alpha 1) and as 8-bit. */
static void gpu_frame(const splat_camera *cam, splat_order order, uint32_t window, float *rgba, uint8_t *rgba8) {
  size_t npx = (size_t)cam->width * cam->height;
  uint16_t *half = malloc(npx * 8);
  uint8_t *tmp = rgba8 ? NULL : malloc(npx * 4);
  frame_opts.raster = SPLAT_RASTER_COMPUTE;
  frame_opts.order = order;
  frame_opts.order_window = window;
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, half, rgba8 ? rgba8 : tmp);
  frame_opts.order = SPLAT_ORDER_GLOBAL;
  frame_opts.order_window = 0;
  if (rgba)
    for (size_t i = 0; i < npx * 4; i++) rgba[i] = half_to_float(half[i]);
  free(half);
  free(tmp);
}

/* The CPU reference in `order` (REFRENDER_ORDER_*), float and 8-bit. */
static void cpu_frame(const splat_scene *s, const splat_camera *cam, int order, uint32_t window, float *rgba,
                      uint8_t *rgba8, refrender_stats *st) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  refrender_options o = {.max_pairs = UINT64_MAX, .order = order, .window = window,
                         .threads = cores > 1 ? (int)(cores < 32 ? cores : 32) : 1};
  if (refrender_render_opts(s, cam, (int)s->sh_degree, BACKGROUND, rgba, st, &o) != 0) {
    fprintf(stderr, "test_render: refrender failed\n");
    exit(1);
  }
  if (rgba8) refrender_to_rgba8(rgba, cam->width, cam->height, rgba8);
}

/* The GPU's per-pixel order at each window length against the CPU's emulation of it (>= 40 dB,
 * as the global order against the reference), and both orders against the exact order. The
 * scene must be as stored (splat_scene_as_stored), so the CPU sees the GPU's shapes. Returns
 * the PSNR gain of per-pixel (window 8) over global against the exact order. */
static double order_case(const char *tag, const splat_scene *s, const splat_camera *cam) {
  size_t npx = (size_t)cam->width * cam->height;
  float *f = malloc(npx * 16);
  uint8_t *gpu = malloc(npx * 4), *ref = malloc(npx * 4), *exact = malloc(npx * 4);
  refrender_stats st;
  cpu_frame(s, cam, REFRENDER_ORDER_EXACT, 0, f, exact, &st);
  printf("  %-40s %ux%u: up to %u splats a pixel, %llu blends\n", tag, cam->width, cam->height, st.max_contributors,
         (unsigned long long)st.contributions);
  const uint32_t windows[] = {1, 2, 4, 8, 16};
  for (size_t k = 0; k < sizeof windows / sizeof *windows; k++) {
    gpu_frame(cam, SPLAT_ORDER_PER_PIXEL, windows[k], NULL, gpu);
    cpu_frame(s, cam, REFRENDER_ORDER_WINDOW, windows[k], f, ref, &st);
    double p = image_psnr(gpu, ref, cam->width, cam->height);
    printf("    window %2u: GPU vs its CPU emulation PSNR %6.2f dB; late blends %5.2f%% (the window overflowed)\n",
           windows[k], p, st.contributions ? 100.0 * (double)st.late / (double)st.contributions : 0.0);
    CHECK(!image_is_blank(gpu, cam->width, cam->height), "%s window %u: blank", tag, windows[k]);
    CHECK(p >= 40.0, "%s window %u: GPU vs CPU emulation PSNR %.2f dB < 40", tag, windows[k], p);
    if (p < 40.0 || write_images) {
      char name[300];
      snprintf(name, sizeof name, "%s_window%u", tag, windows[k]);
      save_images(name, cam, gpu, ref, "emulation");
    }
  }
  gpu_frame(cam, SPLAT_ORDER_PER_PIXEL, 0, NULL, gpu);
  double pp = image_psnr(gpu, exact, cam->width, cam->height);
  gpu_frame(cam, SPLAT_ORDER_GLOBAL, 0, NULL, ref);
  double pg = image_psnr(ref, exact, cam->width, cam->height);
  printf("    against the exact per-pixel order: per-pixel (window %u) %6.2f dB, global %6.2f dB\n",
         SPLAT_ORDER_WINDOW_DEFAULT, pp, pg);
  CHECK(pp >= pg, "%s: per-pixel %.2f dB is further from the exact order than global %.2f dB", tag, pp, pg);
  free(f);
  free(gpu);
  free(ref);
  free(exact);
  return pp - pg;
}

/* The orbit's middle frame in each order as PNGs: <tag>_{exact,global,per_pixel}.png. */
static void write_frame(const char *tag, float *img[3][2], int cur, uint32_t w, uint32_t h) {
  const char *names[3] = {"exact", "global", "per_pixel"};
  uint8_t *rgba8 = malloc((size_t)w * h * 4);
  for (int m = 0; m < 3; m++) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s_%s.png", outdir, tag, names[m]);
    refrender_to_rgba8(img[m][cur], w, h, rgba8);
    CHECK(image_write_png(path, w, h, rgba8) == 0, "%s: writing %s failed", tag, path);
  }
  free(rgba8);
}

typedef struct orbit_result {
  double psnr_mean[2], psnr_min[2]; /* global, per-pixel: against the exact order */
  uint64_t pops[2];
} orbit_result;

/* A slow orbit (frames over 30 degrees) around `centre`: per frame each order's PSNR against the
 * exact per-pixel order, and its popping pixels between frames (stability_pops, threshold 0.1);
 * a CSV and an SVG of both per frame in the output folder. */
static orbit_result orbit(const char *tag, const splat_scene *s, const float centre[3], float distance,
                          uint32_t frames, uint32_t w, uint32_t h) {
  size_t n = (size_t)w * h * 4;
  float *img[3][2]; /* exact, global, per-pixel; previous and current frame */
  for (int m = 0; m < 3; m++)
    for (int k = 0; k < 2; k++) img[m][k] = malloc(n * sizeof(float));
  double *psnr[2], *pops[2];
  for (int m = 0; m < 2; m++) {
    psnr[m] = calloc(frames, sizeof(double));
    pops[m] = calloc(frames, sizeof(double));
  }
  orbit_result r = {.psnr_min = {INFINITY, INFINITY}};
  for (uint32_t k = 0; k < frames; k++) {
    splat_camera cam;
    stability_orbit_camera(centre, distance, 20.0f, 0.0f, 30.0f, k, frames, 50.0f, w, h, &cam);
    int cur = (int)(k & 1u), prev = cur ^ 1;
    cpu_frame(s, &cam, REFRENDER_ORDER_EXACT, 0, img[0][cur], NULL, NULL);
    gpu_frame(&cam, SPLAT_ORDER_GLOBAL, 0, img[1][cur], NULL);
    gpu_frame(&cam, SPLAT_ORDER_PER_PIXEL, 0, img[2][cur], NULL);
    if (k == frames / 2) write_frame(tag, img, cur, w, h);
    for (int m = 0; m < 2; m++) {
      psnr[m][k] = stability_psnr(img[m + 1][cur], img[0][cur], w, h);
      r.psnr_mean[m] += psnr[m][k] / frames;
      r.psnr_min[m] = fmin(r.psnr_min[m], psnr[m][k]);
      if (k) {
        uint64_t p = stability_pops(img[m + 1][prev], img[m + 1][cur], img[0][prev], img[0][cur], w, h,
                                    STABILITY_POP_THRESHOLD);
        pops[m][k - 1] = (double)p;
        r.pops[m] += p;
      }
    }
  }
  printf("  %-40s orbit of %u frames over 30 deg at %ux%u, against the exact per-pixel order:\n", tag, frames, w, h);
  const char *names[2] = {"global", "per-pixel"};
  for (int m = 0; m < 2; m++)
    printf("    %-10s PSNR mean %6.2f dB, min %6.2f dB; popping pixels %8llu (%.1f a frame)\n", names[m],
           r.psnr_mean[m], r.psnr_min[m], (unsigned long long)r.pops[m], (double)r.pops[m] / (frames - 1));
  char path[600];
  snprintf(path, sizeof path, "%s/%s_orbit.csv", outdir, tag);
  FILE *csv = fopen(path, "w");
  if (csv) {
    fprintf(csv, "frame,psnr_global,psnr_per_pixel,pops_global,pops_per_pixel\n");
    for (uint32_t k = 0; k < frames; k++)
      fprintf(csv, "%u,%.3f,%.3f,%.0f,%.0f\n", k, psnr[0][k], psnr[1][k], k ? pops[0][k - 1] : 0.0,
              k ? pops[1][k - 1] : 0.0);
    CHECK(fclose(csv) == 0, "%s: writing %s failed", tag, path);
  }
  stability_series series[2] = {{"global", psnr[0], pops[0], "#d62728"}, {"per-pixel", psnr[1], pops[1], "#1f77b4"}};
  snprintf(path, sizeof path, "%s/%s_orbit.svg", outdir, tag);
  char title[300];
  snprintf(title, sizeof title, "%s: %u frames over 30 deg, %ux%u, against the exact per-pixel order", tag, frames, w,
           h);
  CHECK(stability_write_svg(path, title, frames, series, 2) == 0, "%s: writing %s failed", tag, path);
  for (int m = 0; m < 3; m++)
    for (int k = 0; k < 2; k++) free(img[m][k]);
  for (int m = 0; m < 2; m++) {
    free(psnr[m]);
    free(pops[m]);
  }
  return r;
}

/* SPLATSORT_ORDER_ORBIT=FRAMES,WxH, else the defaults. */
static void orbit_size(uint32_t *frames, uint32_t *w, uint32_t *h) {
  const char *e = getenv("SPLATSORT_ORDER_ORBIT");
  unsigned f, a, b;
  if (e && sscanf(e, "%u,%ux%u", &f, &a, &b) == 3 && f >= 2 && a && b && a <= 4096 && b <= 4096) {
    *frames = f;
    *w = a;
    *h = b;
  }
}

/* The popping scene (stability.h): windows against the emulation, then the orbit and the
 * issue's targets: popping >= 10x lower than global, PSNR against the exact order >= 3 dB
 * higher. */
static void order_popping(void) {
  splat_scene s = stability_popping_scene(48, 1);
  CHECK(s.count == 48, "popping scene: out of memory");
  splat_scene_as_stored(&s, SPLAT_SH_PRECISION_16);
  set_scene_or_die(&s);
  const float centre[3] = {0, 0, 0};
  splat_camera cam;
  stability_orbit_camera(centre, 4.0f, 20.0f, 10.0f, 0.0f, 0, 1, 50.0f, 160, 120, &cam);
  order_case("order_popping", &s, &cam);
  uint32_t frames = 24, w = 320, h = 240;
  orbit_size(&frames, &w, &h);
  orbit_result r = orbit("order_popping", &s, centre, 4.0f, frames, w, h);
  CHECK(r.pops[1] * 10 <= r.pops[0], "popping scene: per-pixel pops %llu, not 10x fewer than global's %llu",
        (unsigned long long)r.pops[1], (unsigned long long)r.pops[0]);
  CHECK(r.psnr_mean[1] >= r.psnr_mean[0] + 3.0, "popping scene: per-pixel %.2f dB, not 3 dB above global's %.2f dB",
        r.psnr_mean[1], r.psnr_mean[0]);
  splat_scene_free(&s);
}

/* A scene file (or the generated object): the windows at one framing camera, then the orbit
 * around its framing camera's target: per-pixel never further from the exact order, never
 * more popping. */
static void order_scene(const char *name, splat_scene *s) {
  splat_scene_as_stored(s, SPLAT_SH_PRECISION_16);
  set_scene_or_die(s);
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 160, 120, cams, 4);
  CHECK(nc >= 1, "%s: could not make cameras", name);
  if (!nc) return;
  char tag[256];
  snprintf(tag, sizeof tag, "order_%s", name);
  order_case(tag, s, &cams[0]);
  /* orbit around the middle of the scene's robust bounds, at the framing camera's distance */
  float d = 0.0f;
  float lo[3], hi[3];
  splat_scene_robust_bounds(s->positions, s->count, lo, hi);
  float centre[3];
  for (int k = 0; k < 3; k++) centre[k] = 0.5f * (lo[k] + hi[k]);
  for (int k = 0; k < 3; k++) d += (cams[0].position[k] - centre[k]) * (cams[0].position[k] - centre[k]);
  uint32_t frames = 24, w = 160, h = 120;
  orbit_size(&frames, &w, &h);
  orbit_result r = orbit(tag, s, centre, sqrtf(d), frames, w, h);
  CHECK(r.pops[1] <= r.pops[0], "%s: per-pixel pops %llu > global's %llu", name, (unsigned long long)r.pops[1],
        (unsigned long long)r.pops[0]);
  CHECK(r.psnr_mean[1] >= r.psnr_mean[0], "%s: per-pixel %.2f dB below global's %.2f dB against the exact order",
        name, r.psnr_mean[1], r.psnr_mean[0]);
}

/* Frames the renderer must refuse: an unknown order, a window above 16 (cmd_render_into in a
 * slot prepared with the global order: test_host_raster). Each is logged, nothing recorded. */
static void order_refusals(void) {
  splat_scene s;
  gen_object_scene(&s, 300, 0);
  set_scene_or_die(&s);
  splat_camera cam;
  const float eye[3] = {0, 0, -4}, at[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&cam, eye, at, up, 50, 64, 48) == 0, "refusals: camera");
  splat_frame f = {.camera = &cam, .raster = SPLAT_RASTER_COMPUTE, .order = (splat_order)7};
  VkCommandBuffer cmd = vkh_begin(&ctx);
  uint32_t before = log_messages;
  CHECK(splat_renderer_cmd_render(renderer, cmd, &f) == VK_ERROR_VALIDATION_FAILED_EXT, "order 7 accepted");
  f.order = SPLAT_ORDER_PER_PIXEL;
  f.order_window = SPLAT_ORDER_WINDOW_MAX + 1;
  CHECK(splat_renderer_cmd_render(renderer, cmd, &f) == VK_ERROR_VALIDATION_FAILED_EXT, "window 17 accepted");
  CHECK(log_messages == before + 2 && strstr(last_log, "order_window"), "refusals not logged (last: %s)", last_log);
  vkh_submit_wait(&ctx, cmd);
  splat_scene_free(&s);
}

void render_test_order(const render_args *a) {
  order_refusals();
  order_popping();
  splat_scene g;
  gen_object_scene(&g, 2000, 3);
  order_scene("generated", &g);
  splat_scene_free(&g);
  for (uint32_t i = 0; i < a->nscenes; i++) {
    splat_scene s;
    if (load_scene(a->scenes[i], &s) != 0) continue;
    order_scene(base_name(a->scenes[i]), &s);
    splat_scene_free(&s);
  }
}
