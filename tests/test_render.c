/* test_render.c: the GPU splat renderer (src/render/splat_renderer.h) against the CPU specification,
 * run on lavapipe with the validation layer on (any validation message fails the test).
 *
 *   projection  random splats (around and behind the camera, anisotropic, opacities down to 0,
 *               ties in depth, SH 0..3) and random cameras: the GPU's visible set, records
 *               (mean, conic, radius, colour, opacity) and sorted keys against splat_project
 *               and splat_depth_key; 24/16-bit keys against the quantisation formula.
 *   image       GPU image against the CPU reference renderer (tests/refrender.h) by PSNR,
 *               generated scenes (SH 0 and 3) from several cameras, or the scene files given.
 *               With --spz-compare instead: each scene against itself written as .spz and
 *               loaded back, both on the GPU (what the .spz quantisation costs).
 *   sortpaths   quaternary / OneSweep / AUTO give bit-identical images at each key width;
 *               PSNR of 24- and 16-bit keys against 32-bit keys.
 *   api         a bad scene is refused and the previous one keeps rendering; bad frames are
 *               refused; two frames in one command buffer; timings.
 *   sog         a generated scene and the scenes given against their SOG encodings (tests/
 *               sog_writer.h; "PLY=SOG" for a SOG made elsewhere), GPU image against GPU image.
 *
 * usage: test_render MODE --out DIR [--scene FILE]... [--optional-scene FILE]... [--seed S]
 *                    [--write-images] [--spz-compare]
 * --optional-scene: skipped (exit 77 when no scene is left) when the file is absent.
 * Exit 0: pass, 1: fail, 77: skipped. On an image failure the GPU image, the reference and an
 * amplified diff are written to DIR as PNGs and their paths printed. */
#include "app_renderer.h"
#include "check.h"
#include "image.h"
#include "splat_project.h"
#include "refrender.h"
#include "splat_renderer.h"
#include "renderer_debug.h"
#include "splat_scene.h"
#include "sog_writer.h"
#include "splat_shared.h"
#include "util.h"
#include "view_control.h"
#include "vkh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static vkh_context ctx;
static splat_renderer *renderer;
static const char *outdir = ".";
static int write_images;
static uint32_t log_messages;
static char last_log[1024];

static void renderer_log(void *user, const char *message) {
  (void)user;
  log_messages++;
  snprintf(last_log, sizeof last_log, "%s", message);
  fprintf(stderr, "  renderer says: %s\n", message);
}

static splatsort *sort_quaternary_or_null(void) {
  splatsort_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                              .algorithm = SPLATSORT_ALGORITHM_QUATERNARY, .enabled_features = ctx.sort_features,
                              .log = renderer_log};
  splatsort *s = NULL;
  VK_CHECK(splatsort_create(&ci, &s));
  return s;
}

/* ---- random numbers, halves --------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t next_u64(void) { return splitmix64(&rng_state); }
static float uniform(float lo, float hi) {
  return lo + (hi - lo) * (float)((double)(next_u64() >> 11) * 0x1.0p-53);
}
static float gauss(void) {
  float u = uniform(1e-7f, 1.0f), v = uniform(0.0f, 1.0f);
  return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15), e = (h >> 10) & 31u, m = h & 1023u;
  float v;
  if (e == 0) v = ldexpf((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexpf((float)(m | 1024u), (int)e - 25);
  return sign ? -v : v;
}

/* Nearest half (ties to even), by search over the finite halves' values: slow, obviously right. */
static float round_to_half(float f) {
  if (!(fabsf(f) < 65520.0f)) return f > 0 ? INFINITY : -INFINITY;
  float a = fabsf(f);
  /* the exponent of a picks the spacing; clamp to the subnormal range */
  int e;
  frexpf(a, &e); /* a = m 2^e, m in [0.5, 1) */
  int p = e - 11; /* spacing of halves in [2^(e-1), 2^e) is 2^(e-11) */
  if (p < -24) p = -24;
  double q = ldexp(1.0, p), k = floor((double)a / q), r = (double)a - k * q;
  if (r > q / 2 || (r == q / 2 && fmod(k, 2.0) != 0.0)) k += 1.0;
  float v = (float)(k * q);
  return f < 0 ? -v : v;
}

/* ---- scenes --------------------------------------------------------------------------------- */

static void scene_alloc(splat_scene *s, uint32_t n, uint32_t degree) {
  memset(s, 0, sizeof *s);
  s->count = n;
  s->sh_degree = degree;
  s->sh_coeffs = (degree + 1) * (degree + 1);
  s->positions = calloc((size_t)n * 3, sizeof(float));
  s->scales = calloc((size_t)n * 3, sizeof(float));
  s->rotations = calloc((size_t)n * 4, sizeof(float));
  s->opacities = calloc(n, sizeof(float));
  s->sh = calloc((size_t)n * s->sh_coeffs * 3, sizeof(float));
  if (!s->positions || !s->scales || !s->rotations || !s->opacities || !s->sh) {
    fprintf(stderr, "test_render: out of memory\n");
    exit(1);
  }
}

static void random_rotation(float *q) {
  float w = gauss(), x = gauss(), y = gauss(), z = gauss();
  float l = sqrtf(w * w + x * x + y * y + z * z);
  q[0] = w / l, q[1] = x / l, q[2] = y / l, q[3] = z / l;
}

/* Random colours: DC in [-2, 2], higher bands in [-0.6, 0.6]. The GPU keeps SH as half
 * floats, so the coefficients are rounded to halves here: CPU and GPU then evaluate the same
 * numbers and the colours can be compared to float precision. */
static void random_sh(splat_scene *s, uint32_t i) {
  float *sh = s->sh + (size_t)i * s->sh_coeffs * 3;
  for (uint32_t k = 0; k < s->sh_coeffs * 3; k++) sh[k] = round_to_half(k < 3 ? uniform(-2, 2) : uniform(-0.6f, 0.6f));
}

/* Splats all around `centre` (within `spread`), many behind the camera and outside the view,
 * a few on the near plane's side; anisotropic log-uniform scales; opacities including values
 * below 1/255, exactly 1/255 and 1; every 16th splat a copy of an earlier one's position
 * (equal depths: the sort must keep index order). */
static void gen_projection_scene(splat_scene *s, uint32_t n, uint32_t degree, const float centre[3], float spread) {
  scene_alloc(s, n, degree);
  for (uint32_t i = 0; i < n; i++) {
    float *p = s->positions + 3 * i;
    for (int k = 0; k < 3; k++) p[k] = centre[k] + spread * uniform(-1, 1);
    if (i % 16 == 15) memcpy(p, s->positions + 3 * (next_u64() % i), 12);
    float base = expf(uniform(logf(1e-3f), logf(0.5f)));
    for (int k = 0; k < 3; k++) s->scales[3 * i + (uint32_t)k] = base * expf(uniform(-2.0f, 2.0f));
    random_rotation(s->rotations + 4 * i);
    uint32_t kind = (uint32_t)(next_u64() % 10);
    s->opacities[i] = kind == 0 ? uniform(0, 2.0f / 255.0f) : kind == 1 ? 1.0f / 255.0f : kind == 2 ? 1.0f : uniform(0, 1);
    random_sh(s, i);
  }
}

/* A compact object: splats in a ball of radius 1 (denser towards the centre), scales about
 * 0.006-0.1 (a pixel or two to ten at 256x192), mostly opaque, as a trained scene looks from
 * outside: sharp enough that a half-pixel error costs many dB. */
static void gen_object_scene(splat_scene *s, uint32_t n, uint32_t degree) {
  scene_alloc(s, n, degree);
  for (uint32_t i = 0; i < n; i++) {
    float d[3] = {gauss(), gauss(), gauss()};
    float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 1e-6f;
    float rad = powf(uniform(0, 1), 0.6f);
    for (int k = 0; k < 3; k++) s->positions[3 * i + (uint32_t)k] = d[k] / l * rad;
    float base = expf(uniform(logf(0.006f), logf(0.06f)));
    for (int k = 0; k < 3; k++) s->scales[3 * i + (uint32_t)k] = base * expf(uniform(-0.7f, 0.7f));
    random_rotation(s->rotations + 4 * i);
    s->opacities[i] = uniform(0, 1) < 0.2f ? uniform(0.01f, 0.3f) : uniform(0.5f, 1.0f);
    random_sh(s, i);
  }
  splat_scene_robust_bounds(s->positions, n, s->bounds_min, s->bounds_max);
}

static void random_camera(splat_camera *cam, const float eye[3], uint32_t w, uint32_t h, int skew) {
  for (;;) {
    float target[3] = {eye[0] + gauss(), eye[1] + gauss(), eye[2] + gauss()};
    float up[3] = {gauss(), gauss(), gauss()};
    if (splat_camera_look_at(cam, eye, target, up, uniform(25, 100), w, h) == 0) break;
  }
  if (skew) { /* fx != fy, principal point off centre */
    cam->fx *= uniform(0.7f, 1.3f);
    cam->cx += uniform(-0.2f, 0.2f) * (float)w;
    cam->cy += uniform(-0.2f, 0.2f) * (float)h;
  }
}

/* ---- rendering and read-back ---------------------------------------------------------------- */

/* Away from 8-bit rounding ties (v * 255 = k + 0.5), where the target's half precision would
 * tip a whole background one level the other way. */
static const float BACKGROUND[3] = {0.05f, 0.15f, 0.35f};

static splatsort_depth_key_mode key_mode; /* of the frames render_gpu records */
static const splat_instance *instances;   /* ... and their objects (NULL: all, untransformed) */
static uint32_t instance_count;
static splat_raster_path raster_path;     /* ... and their raster */
static splat_antialias frame_antialias;   /* ... and their anti-aliasing (AUTO: each scene's flag) */

static VkResult record_frame(VkCommandBuffer cmd, const splat_camera *cam, splatsort_algorithm algo, uint32_t bits,
                             int sh) {
  splat_frame f = {.camera = cam, .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]}, .sort = algo,
                   .key_bits = bits, .key_mode = key_mode, .sh_degree = sh, .instances = instances,
                   .instance_count = instance_count, .raster = raster_path, .antialias = frame_antialias};
  return splat_renderer_cmd_render(renderer, cmd, &f);
}

/* Transfer writes before the host reads the mapped memory. */
static void host_read_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Records the copy of the render target (in TRANSFER_SRC layout after a frame) into `dst`,
 * ready for the host. */
static void copy_target(VkCommandBuffer cmd, VkImage image, uint32_t w, uint32_t h, VkBuffer dst) {
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
  vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst, 1, &region);
  host_read_barrier(cmd);
}

/* Renders one frame and reads back the RGBA16F target: `half` (w*h*4 halves, optional) and
 * the 8-bit image (round(clamp(v, 0, 1) * 255), the reference renderer's conversion). */
static void render_gpu(const splat_camera *cam, splatsort_algorithm algo, uint32_t bits, int sh, uint16_t *half,
                       uint8_t *rgba8) {
  size_t npx = (size_t)cam->width * cam->height;
  vkh_buffer rb = vkh_buffer_create(&ctx, npx * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "readback");
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(record_frame(cmd, cam, algo, bits, sh));
  VkImage image;
  uint32_t w, h;
  splat_renderer_target(renderer, &image, &w, &h);
  if (w != cam->width || h != cam->height) {
    fprintf(stderr, "test_render: target is %ux%u, camera %ux%u\n", w, h, cam->width, cam->height);
    exit(1);
  }
  copy_target(cmd, image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  const uint16_t *hp = rb.mapped;
  if (half) memcpy(half, hp, npx * 8);
  float *f = malloc(npx * 4 * sizeof *f);
  float alpha_err = 0;
  for (size_t i = 0; i < npx * 4; i++) f[i] = half_to_float(hp[i]);
  for (size_t i = 0; i < npx; i++) alpha_err = fmaxf(alpha_err, fabsf(f[i * 4 + 3] - 1.0f));
  CHECK(alpha_err <= 2e-3f, "target alpha is not 1 (off by %g): the blend must keep the opaque background", alpha_err);
  refrender_to_rgba8(f, w, h, rgba8);
  free(f);
  vkh_buffer_destroy(&ctx, &rb);
}

static void read_buffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, void *out) {
  if (size == 0) return;
  vkh_buffer rb = vkh_buffer_create(&ctx, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "debug readback");
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VkBufferCopy region = {offset, 0, size};
  vkCmdCopyBuffer(cmd, buffer, rb.buffer, 1, &region);
  host_read_barrier(cmd);
  vkh_submit_wait(&ctx, cmd);
  memcpy(out, rb.mapped, size);
  vkh_buffer_destroy(&ctx, &rb);
}

static void set_scene_or_die(const splat_scene *s) {
  VkResult res = splat_renderer_set_scene(renderer, s);
  if (res != VK_SUCCESS) {
    fprintf(stderr, "test_render: set_scene failed: %s\n", vkh_result_name(res));
    exit(1);
  }
}

/* ---- projection ----------------------------------------------------------------------------- */

typedef struct gpu_record {
  float mean[2], conic[3], opacity, color[3];
  uint32_t radius;
} gpu_record;

static gpu_record decode_record(const uint32_t w[8]) {
  gpu_record g;
  memcpy(g.mean, w, 8);
  memcpy(g.conic, w + 2, 12);
  memcpy(&g.opacity, w + 5, 4);
  g.color[0] = half_to_float((uint16_t)(w[6] & 0xFFFFu));
  g.color[1] = half_to_float((uint16_t)(w[6] >> 16));
  g.color[2] = half_to_float((uint16_t)(w[7] & 0xFFFFu));
  g.radius = w[7] >> 16;
  return g;
}

static int near(double x, double threshold, double tol) { return fabs(x - threshold) <= tol; }

/* 1 when splat i lies within a tiny margin of one of the projection's cull boundaries, so
 * that 32-bit float rounding may put it either side; recomputed in double from the inputs. */
static int on_cull_boundary(const splat_scene *s, uint32_t i, const splat_camera *cam) {
  const float *p = s->positions + 3 * i, *v = cam->view;
  double t[3];
  for (int r = 0; r < 3; r++)
    t[r] = (double)v[r] * p[0] + (double)v[4 + r] * p[1] + (double)v[8 + r] * p[2] + (double)v[12 + r];
  const double rel = 1e-5;
  if (near(t[2], 0.2, rel)) return 1;
  if (t[2] <= 0.2) return 0;
  double limx = 1.3 * cam->width / (2.0 * cam->fx), limy = 1.3 * cam->height / (2.0 * cam->fy);
  double xz = t[0] / t[2], yz = t[1] / t[2];
  if (near(fabs(xz), limx, rel * limx) || near(fabs(yz), limy, rel * limy)) return 1;
  if (fabs(xz) > limx || fabs(yz) > limy) return 0;
  float c3f[6];
  splat_cov3d(s->scales + 3 * i, s->rotations + 4 * i, c3f);
  double S[3][3] = {{c3f[0], c3f[1], c3f[2]}, {c3f[1], c3f[3], c3f[4]}, {c3f[2], c3f[4], c3f[5]}};
  double T[2][3];
  for (int c = 0; c < 3; c++) {
    T[0][c] = cam->fx / t[2] * v[c * 4 + 0] - cam->fx * xz / t[2] * v[c * 4 + 2];
    T[1][c] = cam->fy / t[2] * v[c * 4 + 1] - cam->fy * yz / t[2] * v[c * 4 + 2];
  }
  double cv[2][2];
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      double acc = 0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) acc += T[a][k] * S[k][l] * T[b][l];
      cv[a][b] = acc;
    }
  double a = cv[0][0] + 0.3, b = cv[0][1], c = cv[1][1] + 0.3, det = a * c - b * b;
  if (det <= 1e-4 * a * c) return 1;
  double mid = 0.5 * (a + c), l1 = mid + sqrt(fmax(0.1, mid * mid - det)), r3 = 3.0 * sqrt(l1);
  double mx = cam->fx * xz + cam->cx, my = cam->fy * yz + cam->cy;
  /* the radius is ceil(r3): near an integer it may come out one either side */
  for (double r = ceil(r3 * (1 - rel)); r <= ceil(r3 * (1 + rel)); r += 1.0) {
    double tol = rel * (fabs(mx) + fabs(my) + r + 1.0);
    if (near(mx + r, 0, tol) || near(mx - r, cam->width, tol) || near(my + r, 0, tol) || near(my - r, cam->height, tol))
      return 1;
  }
  return 0;
}

typedef struct proj_stats {
  uint32_t visible_cpu, visible_gpu, boundary_mismatches, key_diffs, radius_off_by_one;
  double max_mean_err, max_conic_rel, max_color_err, max_opacity_err;
} proj_stats;

static int antialiased_cases; /* projection cases whose scenes have SPLAT_SCENE_ANTIALIASED */

/* One projection case: its scene and camera, what the GPU wrote and what splat_project gives. */
typedef struct proj_case {
  uint32_t index, n, degree, w, h;
  int sh_eval, skew;
  splat_camera cam;
  splat_scene s;
  uint8_t *img;
  uint32_t nvis;               /* the GPU's visible count, at most n */
  uint32_t *rec, *keys, *vals; /* projected records (8 words a splat), sorted keys and payloads */
  splat_projected *cpu;
  uint8_t *vis_cpu, *vis_gpu; /* culled by splat_project; drawn by the GPU (sorted, radius > 0) */
  uint8_t *in_sort;           /* handed to the raster by the depth-sort stage (culled by centre) */
  float *zgpu; /* the depth each sorted splat's GPU key encodes */
  proj_stats st;
} proj_case;

/* A random camera and scene, rendered with 32-bit keys; reads back the draw arguments, records,
 * keys and payloads, and projects every splat on the CPU. */
static void projection_setup(proj_case *pc) {
  float eye[3] = {uniform(-3, 3), uniform(-3, 3), uniform(-3, 3)};
  pc->w = 64 + (uint32_t)(next_u64() % 300), pc->h = 48 + (uint32_t)(next_u64() % 250);
  uint32_t n = pc->n;
  random_camera(&pc->cam, eye, pc->w, pc->h, pc->skew);
  gen_projection_scene(&pc->s, n, pc->degree, eye, 4.0f);
  pc->s.flags = antialiased_cases ? SPLAT_SCENE_ANTIALIASED : 0;
  set_scene_or_die(&pc->s);
  pc->img = malloc((size_t)pc->w * pc->h * 4);
  render_gpu(&pc->cam, SPLATSORT_ALGORITHM_QUATERNARY, 32, pc->sh_eval, NULL, pc->img);

  splat_renderer_debug_buffers dbg;
  VK_CHECK(splat_renderer_debug_get_buffers(renderer, &dbg));
  uint32_t draw[SP_DRAW_WORDS];
  read_buffer(dbg.draw, 0, sizeof draw, draw);
  pc->nvis = draw[SP_DRAW_INSTANCES];
  CHECK(pc->nvis <= n, "case %u: %u visible of %u splats", pc->index, pc->nvis, n);
  if (pc->nvis > n) pc->nvis = n;
  pc->rec = malloc((size_t)n * 32);
  read_buffer(dbg.projected, 0, (VkDeviceSize)n * 32, pc->rec);
  pc->keys = malloc(sizeof(uint32_t) * (pc->nvis + 1)), pc->vals = malloc(sizeof(uint32_t) * (pc->nvis + 1));
  read_buffer(dbg.keys.buffer, dbg.keys.offset, 4ull * pc->nvis, pc->keys);
  read_buffer(dbg.values.buffer, dbg.values.offset, 4ull * pc->nvis, pc->vals);

  pc->cpu = calloc(n, sizeof *pc->cpu);
  pc->vis_cpu = calloc(n, 1), pc->vis_gpu = calloc(n, 1), pc->in_sort = calloc(n, 1);
  pc->zgpu = calloc(n, sizeof *pc->zgpu);
  /* the frame's sh_degree < 0 means the scene's degree; splat_project's means 0 */
  int cpu_sh = pc->sh_eval < 0 ? (int)pc->degree : pc->sh_eval;
  for (uint32_t i = 0; i < n; i++) pc->vis_cpu[i] = (uint8_t)splat_project(&pc->s, i, &pc->cam, cpu_sh, &pc->cpu[i]);
  CHECK(draw[0] == 4 && draw[2] == 0 && draw[3] == 0, "draw arguments %u %u %u %u", draw[0], draw[1], draw[2], draw[3]);
}

static void projection_free(proj_case *pc) {
  free(pc->zgpu);
  free(pc->keys);
  free(pc->vals);
  free(pc->rec);
  free(pc->cpu);
  free(pc->vis_cpu);
  free(pc->vis_gpu);
  free(pc->in_sort);
  free(pc->img);
  splat_scene_free(&pc->s);
}

/* The sorted payloads name each splat at most once, keys ascending with ties in index order;
 * marks the GPU's visible set. */
static void check_sorted_payloads(proj_case *pc) {
  int order_ok = 1, dup = 0;
  const uint32_t *keys = pc->keys, *vals = pc->vals;
  for (uint32_t k = 0; k < pc->nvis && k < pc->n; k++) {
    if (vals[k] >= pc->n || pc->in_sort[vals[k]]) {
      dup++;
      continue;
    }
    pc->in_sort[vals[k]] = 1;
    /* drawn: the projection kept it (a culled splat's record is zeros: radius 0) */
    pc->vis_gpu[vals[k]] = decode_record(pc->rec + 8 * vals[k]).radius != 0;
    if (k > 0 && (keys[k] < keys[k - 1] || (keys[k] == keys[k - 1] && vals[k] < vals[k - 1]))) order_ok = 0;
  }
  CHECK(pc->nvis <= pc->n && dup == 0, "case %u: %u visible of %u, %d repeated or out-of-range payloads", pc->index,
        pc->nvis, pc->n, dup);
  CHECK(order_ok, "case %u: sorted keys are not ascending with ties in index order", pc->index);
}

/* Splat i's GPU record against splat_project's. */
static void check_record(proj_case *pc, uint32_t i) {
  const splat_projected *c = &pc->cpu[i];
  gpu_record g = decode_record(pc->rec + 8 * i);
  proj_stats *st = &pc->st;
  uint32_t ci = pc->index;
  /* mean: a few float roundings of fx x/z + cx, whose terms are up to the image size */
  for (int k = 0; k < 2; k++) {
    double e = fabs((double)g.mean[k] - c->mean2d[k]);
    st->max_mean_err = fmax(st->max_mean_err, e);
    CHECK(e <= 5e-7 * (fabs(c->mean2d[k]) + pc->w + pc->h), "case %u splat %u: mean[%d] GPU %.9g CPU %.9g", ci, i, k,
          (double)g.mean[k], (double)c->mean2d[k]);
  }
  /* conic: relative to its largest entry, scaled by the 2D covariance's condition (the
   * inverse of an ill-conditioned matrix amplifies the product's rounding) */
  double cmax = fmax(fabs(c->conic[0]), fmax(fabs(c->conic[1]), fabs(c->conic[2])));
  double det = (double)c->cov2d[0] * c->cov2d[2] - (double)c->cov2d[1] * c->cov2d[1];
  double cond = ((double)c->cov2d[0] * c->cov2d[2] + (double)c->cov2d[1] * c->cov2d[1]) / det;
  for (int k = 0; k < 3; k++) {
    double e = fabs((double)g.conic[k] - c->conic[k]) / cmax;
    st->max_conic_rel = fmax(st->max_conic_rel, e / cond);
    CHECK(e <= 2e-5 * cond, "case %u splat %u: conic[%d] GPU %.9g CPU %.9g (cond %.3g)", ci, i, k,
          (double)g.conic[k], (double)c->conic[k], cond);
  }
  /* radius: exact, but ceil() of a value within float rounding of an integer may differ */
  uint32_t rc = c->radius > SP_MAX_RADIUS ? SP_MAX_RADIUS : (uint32_t)c->radius;
  if (g.radius != rc) {
    double mid = 0.5 * ((double)c->cov2d[0] + c->cov2d[2]);
    double r3 = 3.0 * sqrt(mid + sqrt(fmax(0.1, mid * mid - det)));
    int ok = abs((int)g.radius - (int)rc) == 1 && fabs(r3 - round(r3)) <= 1e-5 * r3;
    st->radius_off_by_one += (uint32_t)ok;
    CHECK(ok, "case %u splat %u: radius GPU %u CPU %u", ci, i, g.radius, rc);
  }
  /* colour is stored as half: within half a half-ulp plus float noise */
  for (int k = 0; k < 3; k++) {
    double e = fabs((double)g.color[k] - c->color[k]);
    st->max_color_err = fmax(st->max_color_err, e);
    CHECK(e <= fabs(c->color[k]) * 0x1.0p-11 * 1.01 + 1e-5, "case %u splat %u: colour[%d] GPU %.6g CPU %.6g", ci, i,
          k, (double)g.color[k], (double)c->color[k]);
  }
  if (!(pc->s.flags & SPLAT_SCENE_ANTIALIASED)) {
    CHECK(g.opacity == c->opacity, "case %u splat %u: opacity GPU %.9g CPU %.9g", ci, i, (double)g.opacity,
          (double)c->opacity);
    return;
  }
  /* times sqrt(det(C) / det(C + 0.3 I)): det(C) cancels for thin splats, and the square root
   * amplifies what is left of it near 0, so the bound comes from the CPU's own C */
  double a0 = c->cov2d[0] - 0.3, b = c->cov2d[1], c0 = c->cov2d[2] - 0.3;
  double x = fmax(0.0, (a0 * c0 - b * b) / det), dx = 1e-5 * (fabs(a0 * c0) + b * b) / det + 1e-6 * x;
  double ds = x > 4.0 * dx ? dx / sqrt(x) : sqrt(dx), e = fabs((double)g.opacity - c->opacity);
  st->max_opacity_err = fmax(st->max_opacity_err, e);
  CHECK(e <= pc->s.opacities[i] * ds + 1e-7, "case %u splat %u: anti-aliased opacity GPU %.9g CPU %.9g", ci, i,
        (double)g.opacity, (double)c->opacity);
}

/* Visibility splat by splat (a mismatch is allowed only on a cull boundary) and the records of
 * the splats both see. */
static void check_records(proj_case *pc) {
  uint32_t unexplained = 0;
  for (uint32_t i = 0; i < pc->n; i++) {
    pc->st.visible_cpu += pc->vis_cpu[i];
    pc->st.visible_gpu += pc->vis_gpu[i];
    if (pc->vis_cpu[i] != pc->vis_gpu[i]) {
      if (on_cull_boundary(&pc->s, i, &pc->cam)) {
        pc->st.boundary_mismatches++;
      } else {
        unexplained++;
        if (unexplained <= 5) fprintf(stderr, "case %u: splat %u: CPU %s, GPU %s\n", pc->index, i,
                                      pc->vis_cpu[i] ? "visible" : "culled", pc->vis_gpu[i] ? "visible" : "culled");
      }
      continue;
    }
    if (pc->vis_cpu[i]) check_record(pc, i);
  }
  CHECK(unexplained == 0, "case %u: %u visibility mismatches away from any cull boundary", pc->index, unexplained);
}

/* Keys: exactly splat_depth_key(depth): the depth-sort stage computes clip w (= camera z) in
 * project.c's order with `precise` (no fused multiply-add), and Vulkan rounds fmul and fadd
 * correctly. Records the depth each sorted splat's key encodes, for the quantised keys. */
static void check_depth_keys(proj_case *pc) {
  for (uint32_t k = 0; k < pc->nvis && k < pc->n; k++) {
    uint32_t i = pc->vals[k], bits = ~pc->keys[k];
    if (i >= pc->n) continue;
    memcpy(&pc->zgpu[i], &bits, 4);
    if (!pc->vis_cpu[i]) continue;
    uint32_t want = splat_depth_key(pc->cpu[i].depth);
    pc->st.key_diffs += pc->keys[k] != want;
    CHECK(pc->keys[k] == want, "case %u splat %u: key %08x (z %.9g), splat_depth_key(%.9g) = %08x", pc->index, i,
          pc->keys[k], (double)pc->zgpu[i], (double)pc->cpu[i].depth, want);
  }
}

/* Quantised keys: key = min(round((1 - (z - zmin)/(zmax - zmin)) (2^b - 1)), 2^b - 1) over the
 * visible depth range, sorted ascending with ties in index order. */
static void check_quantised_keys(proj_case *pc, uint32_t bits) {
  render_gpu(&pc->cam, SPLATSORT_ALGORITHM_QUATERNARY, bits, pc->sh_eval, NULL, pc->img);
  splat_renderer_debug_buffers dbg;
  VK_CHECK(splat_renderer_debug_get_buffers(renderer, &dbg));
  uint32_t draw[SP_DRAW_WORDS];
  read_buffer(dbg.draw, 0, sizeof draw, draw);
  uint32_t nq = draw[SP_DRAW_INSTANCES], *keys = pc->keys, *vals = pc->vals;
  CHECK(nq == pc->nvis, "case %u: %u-bit keys: %u visible, 32-bit: %u", pc->index, bits, nq, pc->nvis);
  if (nq > pc->nvis) nq = pc->nvis;
  read_buffer(dbg.keys.buffer, dbg.keys.offset, 4ull * nq, keys);
  read_buffer(dbg.values.buffer, dbg.values.offset, 4ull * nq, vals);
  /* the range is that of the sorted splats' depths (the stage culls by centre only) */
  float zmin = INFINITY, zmax = 0, gzmin, gzmax;
  float range[2];
  read_buffer(dbg.depth_range.buffer, dbg.depth_range.offset, sizeof range, range);
  gzmin = range[0], gzmax = range[1];
  for (uint32_t i = 0; i < pc->n; i++)
    if (pc->in_sort[i]) zmin = fminf(zmin, pc->zgpu[i]), zmax = fmaxf(zmax, pc->zgpu[i]);
  CHECK(gzmin == zmin && gzmax == zmax, "case %u: depth range [%.9g, %.9g], the visible depths' [%.9g, %.9g]",
        pc->index, (double)gzmin, (double)gzmax, (double)zmin, (double)zmax);
  uint32_t top = (1u << bits) - 1u, off = 0, bad = 0, order_bad = 0, max_off = 0;
  for (uint32_t k = 0; k < nq; k++) {
    uint32_t i = vals[k];
    if (k > 0 && (keys[k] < keys[k - 1] || (keys[k] == keys[k - 1] && vals[k] <= vals[k - 1]))) order_bad++;
    if (i >= pc->n || !pc->in_sort[i]) continue;
    double u = gzmax > gzmin ? ((double)pc->zgpu[i] - gzmin) / ((double)gzmax - gzmin) : 0.0;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    double want = floor((1.0 - u) * top + 0.5);
    if (want > top) want = top;
    double d = fabs((double)keys[k] - want);
    off += d != 0;
    max_off = d > max_off ? (uint32_t)d : max_off;
    /* In float, u = (z - zmin)/(zmax - zmin) is off by up to 2^-23, 1 - u and the product
     * by half a step each: up to 3 steps of a 24-bit key, 3/256 of a 16-bit one. */
    bad += d > (bits == 24 ? 3.0 : 1.0) || keys[k] > top;
  }
  CHECK(order_bad == 0, "case %u: %u-bit keys: %u places out of order", pc->index, bits, order_bad);
  CHECK(bad == 0, "case %u: %u-bit keys: %u keys differ from the quantisation formula", pc->index, bits, bad);
  printf("    %u-bit keys: %u visible, %u keys off the double-precision formula (at most by %u)\n", bits, nq, off,
         max_off);
}

/* One random camera and scene: GPU records and sorted keys against splat_project. */
static void projection_case(uint32_t case_index, uint32_t n, uint32_t degree, int sh_eval, int skew) {
  proj_case pc = {.index = case_index, .n = n, .degree = degree, .sh_eval = sh_eval, .skew = skew};
  projection_setup(&pc);
  check_sorted_payloads(&pc);
  check_records(&pc);
  check_depth_keys(&pc);
  const proj_stats *st = &pc.st;
  CHECK(st->boundary_mismatches <= 2 + n / 2000, "case %u: %u boundary mismatches (allowance %u)", case_index,
        st->boundary_mismatches, 2 + n / 2000);
  CHECK(st->visible_cpu > n / 50, "case %u: only %u of %u visible: the case tests too little", case_index,
        st->visible_cpu, n);
  printf("  case %u: %ux%u%s%s, %u splats SH %u (eval %d): visible CPU %u GPU %u, boundary mismatches %u, "
         "keys != splat_depth_key %u, radius +-1 %u; max |mean| err %.2e px, "
         "conic err/cond %.2e, colour err %.2e",
         case_index, pc.w, pc.h, skew ? " skewed" : "", antialiased_cases ? " anti-aliased" : "", n, degree, sh_eval,
         st->visible_cpu, st->visible_gpu, st->boundary_mismatches, st->key_diffs, st->radius_off_by_one,
         st->max_mean_err, st->max_conic_rel, st->max_color_err);
  if (antialiased_cases) printf(", opacity err %.2e", st->max_opacity_err);
  printf("\n");
  for (uint32_t bits = 24; bits >= 16; bits -= 8) check_quantised_keys(&pc, bits);
  projection_free(&pc);
}

static void test_projection(void) {
  /* SH degree d evaluated at d, below it, and through "the scene's" (-1) */
  static const struct { uint32_t degree; int eval; int skew; } cases[] = {
      {0, -1, 0}, {1, 1, 1}, {2, 1, 0}, {3, -1, 0}, {3, 3, 1}, {3, 0, 0}, {2, 2, 1}, {1, 0, 0},
  };
  for (uint32_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    projection_case(c, 3000 + (uint32_t)(next_u64() % 2000), cases[c].degree, cases[c].eval, cases[c].skew);
  /* anti-aliased scenes: the opacities scaled by the compensation (project.h) */
  antialiased_cases = 1;
  projection_case(8, 3000 + (uint32_t)(next_u64() % 2000), 1, -1, 0);
  projection_case(9, 3000 + (uint32_t)(next_u64() % 2000), 3, 3, 1);
  antialiased_cases = 0;
}

/* ---- images --------------------------------------------------------------------------------- */


static void report_write(int rc, const char *path, const char *what) {
  if (rc == 0)
    printf("    wrote %s%s\n", path, what);
  else
    fprintf(stderr, "test_render: could not write %s\n", path);
}

/* The GPU image, the reference and their amplified difference, as PNGs in the output folder. */
static void save_images(const char *tag, const splat_camera *cam, const uint8_t *gpu, const uint8_t *ref,
                        const char *ref_name) {
  char path[1024];
  uint32_t w = cam->width, h = cam->height;
  snprintf(path, sizeof path, "%s/%s_gpu.png", outdir, tag);
  report_write(image_write_png(path, w, h, gpu), path, "");
  snprintf(path, sizeof path, "%s/%s_%s.png", outdir, tag, ref_name);
  report_write(image_write_png(path, w, h, ref), path, "");
  snprintf(path, sizeof path, "%s/%s_diff.png", outdir, tag);
  report_write(image_write_diff_png(path, gpu, ref, w, h), path, " (|gpu - reference| x 8)");
}

/* GPU against refrender; returns the PSNR. */
static double compare_with_reference(const char *tag, const splat_scene *s, const splat_camera *cam, int sh,
                                     double min_psnr) {
  size_t bytes = (size_t)cam->width * cam->height * 4;
  uint8_t *gpu = malloc(bytes), *ref = malloc(bytes);
  double t0 = now_seconds();
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, sh, NULL, gpu);
  double t1 = now_seconds();
  refrender_stats rs;
  /* the frame's sh_degree < 0 means the scene's degree; refrender's means 0 */
  if (refrender_render_rgba8(s, cam, sh < 0 ? (int)s->sh_degree : sh, BACKGROUND, ref, &rs) != 0) {
    fprintf(stderr, "test_render: refrender failed\n");
    exit(1);
  }
  double t2 = now_seconds();
  double psnr = image_psnr(gpu, ref, cam->width, cam->height);
  uint32_t max_diff = 0, over2 = 0;
  for (size_t i = 0; i < bytes; i++) {
    if (i % 4 == 3) continue;
    uint32_t d = (uint32_t)abs((int)gpu[i] - (int)ref[i]);
    max_diff = d > max_diff ? d : max_diff;
    over2 += d > 2;
  }
  int blank = image_is_blank(gpu, cam->width, cam->height);
  int ok = psnr >= min_psnr && !blank && !image_is_blank(ref, cam->width, cam->height);
  printf("  %-44s %ux%u visible %6u  PSNR %6.2f dB  max |diff| %3u  >2: %5u px-ch  (gpu %.2f s, ref %.2f s)%s\n",
         tag, cam->width, cam->height, rs.visible, psnr, max_diff, over2, t1 - t0, t2 - t1, ok ? "" : "  FAIL");
  CHECK(!blank, "%s: the GPU image is blank", tag);
  CHECK(psnr >= min_psnr, "%s: PSNR %.2f dB < %.1f dB", tag, psnr, min_psnr);
  if (!ok) { /* localise: is the renderer wrong, or the sort that AUTO picked? */
    render_gpu(cam, SPLATSORT_ALGORITHM_QUATERNARY, 32, sh, NULL, gpu);
    double pq = image_psnr(gpu, ref, cam->width, cam->height);
    printf("    with the quaternary sort instead of %s: PSNR %.2f dB%s\n",
           splatsort_algorithm_name(splat_renderer_has_sort(renderer, SPLATSORT_ALGORITHM_ONESWEEP)
                                        ? SPLATSORT_ALGORITHM_ONESWEEP
                                        : SPLATSORT_ALGORITHM_QUATERNARY),
           pq, pq >= min_psnr ? ": the sort AUTO picked is at fault" : "");
    render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, sh, NULL, gpu);
  }
  if (!ok || write_images) save_images(tag, cam, gpu, ref, "ref");
  free(gpu);
  free(ref);
  return psnr;
}

/* Cameras around a scene: the framing view and views turned about the up axis, and one
 * close up (splats behind the camera and across the near plane). */
static uint32_t scene_cameras(const splat_scene *s, splat_up_axis up_axis, uint32_t w, uint32_t h,
                              splat_camera *cams, uint32_t max) {
  float lo[3], hi[3];
  if (splat_scene_robust_bounds(s->positions, s->count, lo, hi) != 0) return 0;
  splat_orbit o;
  float c[3] = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])};
  splat_orbit_init(&o, c, 1.0f, up_axis);
  const float fovy = 50.0f;
  uint32_t n = 0;
  const float yaws[] = {0.0f, 2.1f, -1.0f, 0.6f};
  const float pitches[] = {0.0f, 0.35f, -0.5f, 0.1f};
  const float zoom[] = {1.0f, 1.0f, 1.0f, 0.5f};
  for (uint32_t k = 0; k < 4 && n < max; k++) {
    o.yaw = yaws[k];
    o.pitch = pitches[k];
    if (splat_orbit_frame_bounds(&o, lo, hi, fovy, w, h) != 0) continue;
    o.distance *= zoom[k];
    if (splat_orbit_camera(&o, fovy, w, h, &cams[n]) == 0) n++;
  }
  return n;
}

static double scene_psnr_min = 1e9;

static void image_scene(const char *name, const splat_scene *s, splat_up_axis up, uint32_t w, uint32_t h) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, up, w, h, cams, 4);
  CHECK(nc == 4, "%s: could not make cameras", name);
  set_scene_or_die(s);
  for (uint32_t k = 0; k < nc; k++) {
    char tag[256];
    snprintf(tag, sizeof tag, "%s_cam%u_sh%u", name, k, s->sh_degree);
    double p = compare_with_reference(tag, s, &cams[k], -1, 40.0);
    scene_psnr_min = fmin(scene_psnr_min, p);
    if (s->sh_degree > 0 && k == 0) { /* the same view with SH degree 0 only */
      snprintf(tag, sizeof tag, "%s_cam%u_sh0of%u", name, k, s->sh_degree);
      compare_with_reference(tag, s, &cams[k], 0, 40.0);
    }
  }
}

static void test_image_generated(void) {
  for (uint32_t degree = 0; degree <= 3; degree += 3) {
    splat_scene s;
    gen_object_scene(&s, degree ? 3000 : 800, degree);
    char name[64];
    snprintf(name, sizeof name, "generated%u", degree);
    image_scene(name, &s, SPLAT_UP_NEG_Y, 256, 192);
    splat_scene_free(&s);
  }
}

/* An anti-aliased scene (SPLAT_SCENE_ANTIALIASED, each object's flag from its upload) against
 * the reference, then the frame's override both ways, each against the reference of the scene
 * with or without the flag; and the flag must change the image. */
static void test_image_antialiased(void) {
  splat_scene s;
  gen_object_scene(&s, 800, 0);
  s.flags = SPLAT_SCENE_ANTIALIASED;
  image_scene("antialiased0", &s, SPLAT_UP_NEG_Y, 256, 192);
  splat_camera cam; /* smaller splats on screen, where the compensation matters more */
  CHECK(scene_cameras(&s, SPLAT_UP_NEG_Y, 128, 96, &cam, 1) == 1, "antialiased: no camera");
  frame_antialias = SPLAT_ANTIALIAS_OFF; /* uploaded with the flag, drawn without */
  s.flags = 0;
  double off = compare_with_reference("antialiased0_cam0_frame_off", &s, &cam, -1, 40.0);
  set_scene_or_die(&s); /* uploaded without the flag, drawn with */
  frame_antialias = SPLAT_ANTIALIAS_ON;
  s.flags = SPLAT_SCENE_ANTIALIASED;
  double on = compare_with_reference("plain0_cam0_frame_on", &s, &cam, -1, 40.0);
  size_t bytes = (size_t)cam.width * cam.height * 4;
  uint8_t *with = malloc(bytes), *without = malloc(bytes);
  render_gpu(&cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, with);
  frame_antialias = SPLAT_ANTIALIAS_AUTO; /* the scene uploaded without the flag */
  render_gpu(&cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, without);
  double apart = image_psnr(with, without, cam.width, cam.height);
  printf("  anti-aliased vs not, same view: PSNR %.2f dB (each against its reference: %.2f, %.2f dB)\n", apart, on,
         off);
  /* below the image tests' 40 dB: they would catch a renderer that ignored the flag */
  CHECK(apart < 40.0, "the anti-aliasing flag hardly changes the image (%.2f dB)", apart);
  free(with);
  free(without);
  splat_scene_free(&s);
}

static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

static int load_scene(const char *path, splat_scene *s) {
  char err[512];
  if (splat_scene_load(path, s, err, sizeof err) != 0) {
    fprintf(stderr, "test_render: %s\n", err);
    return -1;
  }
  return 0;
}

static void test_image_file(const char *path) {
  splat_scene s;
  if (load_scene(path, &s) != 0) {
    failures++;
    return;
  }
  char name[256];
  snprintf(name, sizeof name, "%s", base_name(path));
  char *dot = strrchr(name, '.');
  if (dot) *dot = 0;
  image_scene(name, &s, SPLAT_UP_NEG_Y, 256, 192);
  splat_scene_free(&s);
}

/* ---- .spz: the quantisation's cost in the image ------------------------------------------------ */

/* The PSNR an image of a scene keeps through .spz, which stores colour and opacity in 8 bits,
 * log scales in steps of 1/16, rotations within ~0.3 degrees and SH at 5 and 4 bits. Nearly all
 * of the loss is the SH (one field at a time with the CPU reference on the real scenes: SH alone
 * 32.9-43.2 dB, colour 41-58, scales 47-54, positions, rotations and opacity above 56). 35 dB
 * for the views that frame the scene (measured on lavapipe: 35.8-42.4 dB, docs/formats.md); 28 dB
 * for the close-up (scene_cameras' fourth, half the distance), where a few large splats fill
 * the view and carry their SH error over the whole image (measured 30.2-38.7). */
#define SPZ_MIN_PSNR 35.0
#define SPZ_MIN_PSNR_CLOSE 28.0
static double spz_psnr_min[2] = {1e9, 1e9}; /* framing views, close-ups */

/* The scene and its .spz round trip (written to the output folder), from the same cameras. */
static void spz_compare_scene(const char *name, const splat_scene *s) {
  char path[1024], err[512];
  splat_scene q;
  snprintf(path, sizeof path, "%s/%s.spz", outdir, name);
  if (splat_scene_write_spz(path, s, err, sizeof err) != 0 || splat_scene_load(path, &q, err, sizeof err) != 0) {
    CHECK(0, "%s", err);
    return;
  }
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 256, 192, cams, 4);
  CHECK(nc == 4, "%s: could not make cameras", name);
  size_t bytes = (size_t)256 * 192 * 4;
  uint8_t *a = malloc(bytes * nc), *b = malloc(bytes * nc);
  set_scene_or_die(s);
  for (uint32_t k = 0; k < nc; k++) render_gpu(&cams[k], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, a + k * bytes);
  set_scene_or_die(&q);
  for (uint32_t k = 0; k < nc; k++) render_gpu(&cams[k], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, b + k * bytes);
  for (uint32_t k = 0; k < nc; k++) {
    char tag[300];
    snprintf(tag, sizeof tag, "%s_cam%u_sh%u_spz", name, k, s->sh_degree);
    double p = image_psnr(a + k * bytes, b + k * bytes, 256, 192), min = k == 3 ? SPZ_MIN_PSNR_CLOSE : SPZ_MIN_PSNR;
    int blank = image_is_blank(b + k * bytes, 256, 192), ok = p >= min && !blank;
    printf("  %-44s .ply vs .spz  PSNR %6.2f dB%s\n", tag, p, ok ? "" : "  FAIL");
    CHECK(ok, "%s: PSNR %.2f dB < %.1f dB (or blank)", tag, p, min);
    spz_psnr_min[k == 3] = fmin(spz_psnr_min[k == 3], p);
    if (!ok || write_images) save_images(tag, &cams[k], b + k * bytes, a + k * bytes, "ply");
  }
  free(a);
  free(b);
  splat_scene_free(&q);
}

static void test_spz_compare(const char *const *scenes, uint32_t nscenes) {
  splat_scene s;
  gen_object_scene(&s, 3000, 3);
  spz_compare_scene("generated3", &s);
  splat_scene_free(&s);
  for (uint32_t i = 0; i < nscenes; i++) {
    if (load_scene(scenes[i], &s) != 0) {
      failures++;
      continue;
    }
    char name[256];
    snprintf(name, sizeof name, "%s", base_name(scenes[i]));
    char *dot = strrchr(name, '.');
    if (dot) *dot = 0;
    spz_compare_scene(name, &s);
    splat_scene_free(&s);
  }
  printf("  lowest PSNR: framing views %.2f dB (threshold %.0f), close-ups %.2f dB (threshold %.0f)\n",
         spz_psnr_min[0], SPZ_MIN_PSNR, spz_psnr_min[1], SPZ_MIN_PSNR_CLOSE);
}

/* ---- sort paths and key widths ---------------------------------------------------------------- */

static void sortpaths_scene(const char *name, const splat_scene *s) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 256, 192, cams, 4);
  CHECK(nc >= 2, "%s: no cameras", name);
  set_scene_or_die(s);
  /* every algorithm the renderer was given (tools give all the device runs), and AUTO */
  enum { NA = 5 };
  const splatsort_algorithm algos[NA] = {SPLATSORT_ALGORITHM_QUATERNARY, SPLATSORT_ALGORITHM_ONESWEEP,
                                         SPLATSORT_ALGORITHM_RADIX16, SPLATSORT_ALGORITHM_MERGE,
                                         SPLATSORT_ALGORITHM_AUTO};
  char names[128] = "";
  for (uint32_t a = 0; a + 1 < NA; a++)
    if (splat_renderer_has_sort(renderer, algos[a]))
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ", splatsort_algorithm_name(algos[a]));
  const uint32_t widths[3] = {32, 24, 16};
  for (uint32_t k = 0; k < nc; k += 3) { /* cameras 0 and 3 (the close-up) */
    const splat_camera *cam = &cams[k];
    size_t npx = (size_t)cam->width * cam->height;
    uint16_t *half[3][NA] = {{0}};
    uint8_t *img[3][NA] = {{0}};
    for (uint32_t wi = 0; wi < 3; wi++)
      for (uint32_t a = 0; a < NA; a++) {
        if (!splat_renderer_has_sort(renderer, algos[a])) continue;
        half[wi][a] = malloc(npx * 8);
        img[wi][a] = malloc(npx * 4);
        render_gpu(cam, algos[a], widths[wi], -1, half[wi][a], img[wi][a]);
      }
    int identical = 1;
    for (uint32_t wi = 0; wi < 3; wi++) {
      /* every path sorts stably from the same ordered input: identical bits at each width */
      for (uint32_t a = 1; a < NA; a++) {
        if (!half[wi][a]) continue;
        int same = memcmp(half[wi][a], half[wi][0], npx * 8) == 0;
        identical &= same;
        CHECK(same, "%s cam %u: %u-bit keys: the %s image differs from quaternary's", name, k, widths[wi],
              splatsort_algorithm_name(algos[a]));
      }
      if (wi > 0) {
        double p = image_psnr(img[wi][0], img[0][0], cam->width, cam->height);
        printf("  %-24s cam %u: %u-bit keys vs 32-bit: PSNR %6.2f dB (%s)\n", name, k, widths[wi], p,
               p == IMAGE_PSNR_IDENTICAL ? "identical" : "differs");
        CHECK(p >= 30.0, "%s cam %u: %u-bit keys: PSNR %.2f dB against 32-bit keys < 30", name, k, widths[wi], p);
        if (p < 30.0 || write_images) {
          char tag[256];
          snprintf(tag, sizeof tag, "%s_cam%u_%ubit", name, k, widths[wi]);
          save_images(tag, cam, img[wi][0], img[0][0], "32bit");
        }
      }
    }
    /* radial keys: another back-to-front order of the same splats, close to the depth order's image */
    uint8_t *radial = malloc(npx * 4);
    key_mode = SPLATSORT_DEPTH_KEY_RADIAL;
    render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, radial);
    key_mode = SPLATSORT_DEPTH_KEY_VIEW_DEPTH;
    double pr = image_psnr(radial, img[0][0], cam->width, cam->height);
    printf("  %-24s cam %u: radial keys vs view depth: PSNR %6.2f dB\n", name, k, pr);
    CHECK(pr >= 30.0 && !image_is_blank(radial, cam->width, cam->height),
          "%s cam %u: radial keys: PSNR %.2f dB against view-depth keys < 30 (or blank)", name, k, pr);
    free(radial);
    printf("  %-24s cam %u: %sand auto bit-identical at 32, 24 and 16 bits: %s\n", name, k, names,
           identical ? "yes" : "NO");
    for (uint32_t wi = 0; wi < 3; wi++)
      for (uint32_t a = 0; a < NA; a++) {
        free(half[wi][a]);
        free(img[wi][a]);
      }
  }
}

/* A generated SH-3 object of n splats and its four test cameras at w x h. */
static void generated_with_cameras(splat_scene *a, uint32_t n, uint32_t w, uint32_t h, splat_camera cams[4]) {
  gen_object_scene(a, n, 3);
  uint32_t nc = scene_cameras(a, SPLAT_UP_NEG_Y, w, h, cams, 4);
  CHECK(nc == 4, "cameras: %u", nc);
}

/* ---- the compute raster ---------------------------------------------------------------------- */

static splat_timings last_timings(void) {
  splat_timings t;
  VK_CHECK(splat_renderer_timings(renderer, 0, &t));
  return t;
}

/* One camera: the compute raster against the CPU reference (>= 40 dB) and against the
 * graphics raster (>= 45 dB); its timings must report a complete frame. */
static void compute_case(const char *tag, const splat_scene *s, const splat_camera *cam) {
  size_t bytes = (size_t)cam->width * cam->height * 4;
  uint8_t *graphics = malloc(bytes), *compute = malloc(bytes);
  raster_path = SPLAT_RASTER_COMPUTE;
  double p = compare_with_reference(tag, s, cam, -1, 40.0);
  scene_psnr_min = fmin(scene_psnr_min, p);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, compute);
  splat_timings t = last_timings();
  raster_path = SPLAT_RASTER_GRAPHICS;
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, graphics);
  double pg = image_psnr(compute, graphics, cam->width, cam->height);
  printf("  %-44s compute vs graphics: PSNR %6.2f dB; %u pairs (capacity %u), %.1f per visible splat\n", tag, pg,
         t.pairs, t.pair_capacity, t.visible ? (double)t.pairs / t.visible : 0.0);
  CHECK(t.raster == SPLAT_RASTER_COMPUTE && t.pairs <= t.pair_capacity, "%s: timings say raster %d, %u pairs of %u",
        tag, (int)t.raster, t.pairs, t.pair_capacity);
  CHECK(pg >= 45.0, "%s: compute vs graphics PSNR %.2f dB < 45", tag, pg);
  if (pg < 45.0 || write_images) {
    char name[300];
    snprintf(name, sizeof name, "%s_vs_graphics", tag);
    save_images(name, cam, compute, graphics, "graphics");
  }
  free(graphics);
  free(compute);
}

static void compute_scene(const char *name, const splat_scene *s) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 256, 192, cams, 4);
  CHECK(nc == 4, "%s: could not make cameras", name);
  set_scene_or_die(s);
  for (uint32_t k = 0; k < nc; k++) {
    char tag[256];
    snprintf(tag, sizeof tag, "compute_%s_cam%u", name, k);
    compute_case(tag, s, &cams[k]);
  }
}

/* Splats of many tiles: the generated object with its splats 12x larger, seen close up (a
 * splat then spans up to the whole image), and at an odd size (partial edge tiles). */
static void compute_big_splats(void) {
  splat_scene s;
  gen_object_scene(&s, 600, 3);
  for (uint32_t i = 0; i < 3 * s.count; i++) s.scales[i] *= 12.0f;
  splat_camera cams[4];
  uint32_t nc = scene_cameras(&s, SPLAT_UP_NEG_Y, 203, 141, cams, 4);
  CHECK(nc == 4, "big splats: could not make cameras");
  set_scene_or_die(&s);
  compute_case("compute_big_splats_cam0", &s, &cams[0]);
  compute_case("compute_big_splats_closeup", &s, &cams[3]);
  splat_scene_free(&s);
}

/* Nothing in view: the background, exactly, and no pairs. */
static void compute_empty_view(void) {
  splat_scene s;
  gen_object_scene(&s, 500, 0);
  set_scene_or_die(&s);
  splat_camera cam;
  const float eye[3] = {0, 0, -4}, away[3] = {0, 0, -8}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&cam, eye, away, up, 50, 96, 64) == 0, "empty view: camera");
  size_t npx = (size_t)cam.width * cam.height;
  uint8_t *img = malloc(npx * 4), *ref = malloc(npx * 4);
  raster_path = SPLAT_RASTER_COMPUTE;
  render_gpu(&cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img);
  splat_timings t = last_timings();
  raster_path = SPLAT_RASTER_GRAPHICS;
  refrender_stats rs;
  CHECK(refrender_render_rgba8(&s, &cam, 0, BACKGROUND, ref, &rs) == 0 && rs.visible == 0, "empty view: %u visible",
        rs.visible);
  CHECK(memcmp(img, ref, npx * 4) == 0, "empty view: the compute raster's image is not the background");
  CHECK(t.pairs == 0, "empty view: %u pairs", t.pairs);
  printf("  compute_empty_view: background only, %u visible, %u pairs\n", t.visible, t.pairs);
  free(img);
  free(ref);
  splat_scene_free(&s);
}

/* A pair capacity far too small: the first frame draws the front-most pairs that fit (the
 * CPU reference capped alike), reports the overflow, and the next frame in that slot has
 * grown buffers and is complete. */
static void compute_overflow(void) {
  splat_scene s;
  gen_object_scene(&s, 3000, 3);
  splat_camera cams[4];
  CHECK(scene_cameras(&s, SPLAT_UP_NEG_Y, 256, 192, cams, 4) == 4, "overflow: cameras");
  set_scene_or_die(&s);
  const uint32_t cap = 1500;
  splat_renderer_debug_set_pair_capacity(renderer, cap);
  const splat_camera *cam = &cams[3];
  size_t npx = (size_t)cam->width * cam->height;
  uint8_t *img = malloc(npx * 4), *ref = malloc(npx * 4);
  float *reff = malloc(npx * 16);
  raster_path = SPLAT_RASTER_COMPUTE;
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img);
  splat_timings t1 = last_timings();
  refrender_stats rs;
  CHECK(refrender_render_capped(&s, cam, (int)s.sh_degree, BACKGROUND, reff, &rs, cap) == 0, "capped reference");
  refrender_to_rgba8(reff, cam->width, cam->height, ref);
  double pc = image_psnr(img, ref, cam->width, cam->height);
  printf("  compute_overflow: capacity %u, needed %u (CPU %llu): capped image vs capped reference PSNR %.2f dB\n",
         t1.pair_capacity, t1.pairs, (unsigned long long)rs.pairs_needed, pc);
  CHECK(t1.pair_capacity == cap && t1.pairs > cap, "overflow not reported: %u pairs, capacity %u", t1.pairs,
        t1.pair_capacity);
  CHECK(pc >= 40.0 && !image_is_blank(img, cam->width, cam->height), "overflowed frame: PSNR %.2f dB vs capped reference",
        pc);
  if (pc < 40.0 || write_images) save_images("compute_overflow_capped", cam, img, ref, "ref_capped");
  /* the next frame in slot 0 grows the buffers first */
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img);
  splat_timings t2 = last_timings();
  CHECK(refrender_render_rgba8(&s, cam, (int)s.sh_degree, BACKGROUND, ref, NULL) == 0, "reference");
  double pf = image_psnr(img, ref, cam->width, cam->height);
  printf("  compute_overflow: next frame: capacity %u, %u pairs: PSNR %.2f dB vs the full reference\n",
         t2.pair_capacity, t2.pairs, pf);
  CHECK(t2.pair_capacity >= t2.pairs && t2.pairs == t1.pairs, "after growth: %u pairs, capacity %u", t2.pairs,
        t2.pair_capacity);
  CHECK(pf >= 40.0, "after growth: PSNR %.2f dB < 40", pf);
  raster_path = SPLAT_RASTER_GRAPHICS;
  splat_renderer_debug_set_pair_capacity(renderer, 0);
  free(img);
  free(ref);
  free(reff);
  splat_scene_free(&s);
}

static void test_compute(const char *const *scenes, uint32_t nscenes) {
  for (uint32_t degree = 0; degree <= 3; degree += 3) {
    splat_scene s;
    gen_object_scene(&s, degree ? 3000 : 800, degree);
    compute_scene(degree ? "generated3" : "generated0", &s);
    splat_scene_free(&s);
  }
  for (uint32_t i = 0; i < nscenes; i++) {
    splat_scene s;
    if (load_scene(scenes[i], &s) != 0) {
      failures++;
      continue;
    }
    compute_scene(base_name(scenes[i]), &s);
    splat_scene_free(&s);
  }
  compute_big_splats();
  compute_empty_view();
  compute_overflow();
  printf("  lowest PSNR against the reference %.2f dB (threshold 40)\n", scene_psnr_min);
}

/* ---- SOG: a scene against its SOG encoding --------------------------------------------------- */

/* What SOG's quantisation costs on screen: the GPU image of a scene against the GPU image of the
 * same scene written as SOG (tests/sog_writer.h, version 2) and read back by splat_scene_load,
 * from the same cameras. "PLY=SOG" compares a given SOG file (splat-transform's, say) instead.
 * Measured on lavapipe: 44.9-57.7 dB (generated, the close-up lowest), 46.6-50.1 dB (bundled
 * scene; 46.1-49.4 dB with splat-transform 3.7.0's SOG of it): 42 dB leaves about 3 dB. */
#define SOG_PSNR_MIN 42.0
static double sog_psnr_lowest = 1e9;

static void sog_compare(const char *name, const splat_scene *s, const splat_scene *q) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 256, 192, cams, 4);
  CHECK(nc == 4, "%s: could not make cameras", name);
  size_t bytes = (size_t)256 * 192 * 4;
  uint8_t *a = malloc(bytes * nc), *b = malloc(bytes * nc);
  set_scene_or_die(s);
  for (uint32_t k = 0; k < nc; k++) render_gpu(&cams[k], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, a + k * bytes);
  set_scene_or_die(q);
  for (uint32_t k = 0; k < nc; k++) {
    render_gpu(&cams[k], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, b + k * bytes);
    double psnr = image_psnr(a + k * bytes, b + k * bytes, 256, 192);
    int blank = image_is_blank(b + k * bytes, 256, 192);
    sog_psnr_lowest = fmin(sog_psnr_lowest, psnr);
    char tag[300];
    snprintf(tag, sizeof tag, "%s_sog_cam%u", name, k);
    printf("  %-44s SH %u: SOG against the original PSNR %6.2f dB%s\n", tag, s->sh_degree, psnr,
           psnr >= SOG_PSNR_MIN && !blank ? "" : "  FAIL");
    CHECK(!blank, "%s: the SOG image is blank", tag);
    CHECK(psnr >= SOG_PSNR_MIN, "%s: PSNR %.2f dB < %.1f dB", tag, psnr, SOG_PSNR_MIN);
    if (psnr < SOG_PSNR_MIN || write_images) save_images(tag, &cams[k], b + k * bytes, a + k * bytes, "original");
  }
  free(a);
  free(b);
}

static void sog_scene(const char *name, const splat_scene *s, const char *given) {
  char path[1200], err[512];
  if (given) {
    snprintf(path, sizeof path, "%s", given);
  } else {
    sog_output out;
    snprintf(path, sizeof path, "%s/%s_sog", outdir, name);
    if (sog_write(s, NULL, &out, err, sizeof err) != 0 || sog_output_save(&out, path, err, sizeof err) != 0) {
      CHECK(0, "%s: %s", name, err);
      return;
    }
    sog_output_free(&out);
  }
  splat_scene q;
  if (load_scene(path, &q) != 0) {
    failures++;
    return;
  }
  CHECK(q.count == s->count && q.sh_degree == s->sh_degree, "%s: %u splats of degree %u, expected %u of %u", path,
        q.count, q.sh_degree, s->count, s->sh_degree);
  sog_compare(name, s, &q);
  splat_scene_free(&q);
}

static void test_sog(const char *const *scenes, uint32_t nscenes) {
  splat_scene s;
  gen_object_scene(&s, 3000, 3);
  sog_scene("generated3", &s, NULL);
  splat_scene_free(&s);
  for (uint32_t i = 0; i < nscenes; i++) {
    char ply[1024];
    snprintf(ply, sizeof ply, "%s", scenes[i]);
    char *eq = strchr(ply, '=');
    if (eq) *eq = '\0';
    if (load_scene(ply, &s) != 0) {
      failures++;
      continue;
    }
    char name[1024];
    snprintf(name, sizeof name, "%s", base_name(ply));
    char *dot = strrchr(name, '.');
    if (dot) *dot = 0;
    sog_scene(name, &s, eq ? eq + 1 : NULL);
    splat_scene_free(&s);
  }
  printf("  lowest PSNR %.2f dB (threshold %.0f)\n", sog_psnr_lowest, SOG_PSNR_MIN);
}

/* ---- drawing into the host's pass ------------------------------------------------------------ */

typedef struct host_image {
  VkImage image;
  VkDeviceMemory memory;
  VkImageView view;
} host_image;

/* An RGBA16F read-back as 8-bit RGBA (refrender's conversion); frees the buffer. */
static void halves_to_rgba8(vkh_buffer *rb, uint32_t w, uint32_t h, uint8_t *rgba8) {
  float *fl = malloc(sizeof(float) * 4 * w * h);
  const uint16_t *hp = rb->mapped;
  for (size_t i = 0; i < (size_t)w * h * 4; i++) fl[i] = half_to_float(hp[i]);
  refrender_to_rgba8(fl, w, h, rgba8);
  free(fl);
  vkh_buffer_destroy(&ctx, rb);
}

static host_image host_image_create(VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, uint32_t w,
                                    uint32_t h) {
  host_image hi;
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = format, .extent = {w, h, 1}, .mipLevels = 1, .arrayLayers = 1,
                           .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage};
  VK_CHECK(vkCreateImage(ctx.device, &ici, NULL, &hi.image));
  VkMemoryRequirements mr;
  vkGetImageMemoryRequirements(ctx.device, hi.image, &mr);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = vkh_memory_type(&ctx, mr.memoryTypeBits,
                                                                 VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  VK_CHECK(vkAllocateMemory(ctx.device, &mai, NULL, &hi.memory));
  VK_CHECK(vkBindImageMemory(ctx.device, hi.image, hi.memory, 0));
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = hi.image,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                               .subresourceRange = {aspect, 0, 1, 0, 1}};
  VK_CHECK(vkCreateImageView(ctx.device, &vci, NULL, &hi.view));
  return hi;
}

static void host_image_destroy(host_image *hi) {
  vkDestroyImageView(ctx.device, hi->view, NULL);
  vkDestroyImage(ctx.device, hi->image, NULL);
  vkFreeMemory(ctx.device, hi->memory, NULL);
}

static void layout_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                           VkImageLayout to, VkPipelineStageFlags src, VkAccessFlags src_access,
                           VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
                            .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
                            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                            .image = image, .subresourceRange = {aspect, 0, 1, 0, 1}};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 0, NULL, 1, &b);
}

/* A host's frame: its own colour and depth (an opaque plane at camera depth zp, cleared), the
 * splats prepared, then drawn inside its pass. Reads the colour back as 8-bit RGBA. */
static void render_into_host_pass(splat_renderer *hr, const splat_camera *cam, float zp, const float plane[3],
                                  uint8_t *rgba8) {
  uint32_t w = cam->width, h = cam->height;
  host_image color = host_image_create(SPLAT_TARGET_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h);
  host_image depth = host_image_create(VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                       VK_IMAGE_ASPECT_DEPTH_BIT, w, h);
  vkh_buffer rb = vkh_buffer_create(&ctx, (VkDeviceSize)w * h * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "host rb");
  splat_frame f = {.camera = cam, .sort = SPLATSORT_ALGORITHM_AUTO, .key_bits = 32, .sh_degree = -1,
                   .znear = 0.01f, .zfar = 1000.0f};
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(hr, cmd, &f));
  layout_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  layout_barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  /* the host's "geometry": the plane's colour, and its depth in the same projection */
  float n = f.znear, fa = f.zfar;
  VkRenderingAttachmentInfo ca = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = color.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                  .clearValue = {.color = {.float32 = {plane[0], plane[1], plane[2], 1.0f}}}};
  VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = depth.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                  .clearValue = {.depthStencil = {fa / (fa - n) - fa * n / ((fa - n) * zp), 0}}};
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, h}}, .layerCount = 1,
                        .colorAttachmentCount = 1, .pColorAttachments = &ca, .pDepthAttachment = &da};
  vkCmdBeginRendering(cmd, &ri);
  VK_CHECK(splat_renderer_cmd_draw(hr, cmd, &f));
  vkCmdEndRendering(cmd);
  layout_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  copy_target(cmd, color.image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  halves_to_rgba8(&rb, w, h, rgba8);
  host_image_destroy(&color);
  host_image_destroy(&depth);
}

/* The same host frame on a VkRenderPass (a host not on dynamic rendering): renderer `hr` was
 * made for `pass`, subpass 0. */
static VkRenderPass host_render_pass_create(void) {
  VkAttachmentDescription att[2] = {
      {.format = SPLAT_TARGET_FORMAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
       .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
      {.format = VK_FORMAT_D32_SFLOAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
       .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL}};
  VkAttachmentReference cref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
                        dref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                              .pColorAttachments = &cref, .pDepthStencilAttachment = &dref};
  /* the colour goes to the copy after the pass */
  VkSubpassDependency dep = {.srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
                             .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                             .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
                             .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
  VkRenderPassCreateInfo rpci = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 2,
                                 .pAttachments = att, .subpassCount = 1, .pSubpasses = &sub, .dependencyCount = 1,
                                 .pDependencies = &dep};
  VkRenderPass pass;
  VK_CHECK(vkCreateRenderPass(ctx.device, &rpci, NULL, &pass));
  return pass;
}

static void render_into_host_render_pass(splat_renderer *hr, VkRenderPass pass, const splat_camera *cam, float zp,
                                         const float plane[3], uint8_t *rgba8) {
  uint32_t w = cam->width, h = cam->height;
  host_image color = host_image_create(SPLAT_TARGET_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h);
  host_image depth = host_image_create(VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                       VK_IMAGE_ASPECT_DEPTH_BIT, w, h);
  VkImageView views[2] = {color.view, depth.view};
  VkFramebufferCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = pass,
                                 .attachmentCount = 2, .pAttachments = views, .width = w, .height = h, .layers = 1};
  VkFramebuffer fb;
  VK_CHECK(vkCreateFramebuffer(ctx.device, &fci, NULL, &fb));
  vkh_buffer rb = vkh_buffer_create(&ctx, (VkDeviceSize)w * h * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "host rb");
  splat_frame f = {.camera = cam, .sort = SPLATSORT_ALGORITHM_AUTO, .key_bits = 32, .sh_degree = -1,
                   .znear = 0.01f, .zfar = 1000.0f};
  float n = f.znear, fa = f.zfar;
  VkClearValue clears[2] = {{.color = {.float32 = {plane[0], plane[1], plane[2], 1.0f}}},
                            {.depthStencil = {fa / (fa - n) - fa * n / ((fa - n) * zp), 0}}};
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(hr, cmd, &f));
  VkRenderPassBeginInfo rbi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = pass,
                               .framebuffer = fb, .renderArea = {{0, 0}, {w, h}}, .clearValueCount = 2,
                               .pClearValues = clears};
  vkCmdBeginRenderPass(cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
  VK_CHECK(splat_renderer_cmd_draw(hr, cmd, &f));
  vkCmdEndRenderPass(cmd);
  copy_target(cmd, color.image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  halves_to_rgba8(&rb, w, h, rgba8);
  vkDestroyFramebuffer(ctx.device, fb, NULL);
  host_image_destroy(&color);
  host_image_destroy(&depth);
}

/* Splats drawn into a host's pass over an opaque plane at a known depth: the ones behind it
 * are hidden by the depth test, the rest blend over the plane's colour. The CPU reference is
 * refrender of the scene with the hidden splats made transparent, over the plane's colour.
 * (With the test inverted, reverse-Z on a forward depth buffer, this measured 17 dB.) */
static void test_host_pass(const app_renderer *ar) {
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 2000, 192, 144, cams);
  const splat_camera *cam = &cams[0];
  /* the plane through the middle of the splats' depths; splats within 2% of it are made
   * transparent (on both sides), so the depth test decides nothing by rounding */
  float *z = malloc(sizeof(float) * a.count), zlo = INFINITY, zhi = 0;
  for (uint32_t i = 0; i < a.count; i++) {
    const float *p = a.positions + 3 * i;
    z[i] = cam->view[2] * p[0] + cam->view[6] * p[1] + cam->view[10] * p[2] + cam->view[14];
    if (z[i] > 0.2f) zlo = fminf(zlo, z[i]), zhi = fmaxf(zhi, z[i]);
  }
  float zp = 0.5f * (zlo + zhi);
  uint32_t hidden = 0;
  float *cpu_opacity = malloc(sizeof(float) * a.count);
  for (uint32_t i = 0; i < a.count; i++) {
    if (fabsf(z[i] - zp) < 0.02f * zp) a.opacities[i] = 0.0f;
    cpu_opacity[i] = z[i] > zp ? 0.0f : a.opacities[i];
    hidden += z[i] > zp && a.opacities[i] > 0.0f;
  }
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)ar->sorters,
                                   .sorter_count = ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .host_color_format = SPLAT_TARGET_FORMAT, .host_depth_format = VK_FORMAT_D32_SFLOAT};
  splat_renderer *hr;
  VK_CHECK(splat_renderer_create(&ci, &hr));
  VK_CHECK(splat_renderer_set_scene(hr, &a));
  const float plane[3] = {0.2f, 0.35f, 0.5f};
  size_t bytes = (size_t)cam->width * cam->height * 4;
  uint8_t *gpu = malloc(bytes), *ref = malloc(bytes);
  render_into_host_pass(hr, cam, zp, plane, gpu);
  float *kept = a.opacities;
  a.opacities = cpu_opacity;
  CHECK(refrender_render_rgba8(&a, cam, (int)a.sh_degree, plane, ref, NULL) == 0, "refrender");
  a.opacities = kept;
  double psnr = image_psnr(gpu, ref, cam->width, cam->height);
  printf("  host pass over a plane at z %.3f (%u splats behind it): PSNR %.2f dB against refrender\n", (double)zp,
         hidden, psnr);
  CHECK(hidden > 100, "only %u splats behind the plane: the depth test is not exercised", hidden);
  CHECK(psnr >= 40.0 && !image_is_blank(gpu, cam->width, cam->height), "host pass: PSNR %.2f dB < 40", psnr);
  if (psnr < 40.0 || write_images) save_images("host_pass", cam, gpu, ref, "reference");
  /* the same frame in a VkRenderPass: identical to the dynamic-rendering one */
  VkRenderPass pass = host_render_pass_create();
  ci.host_color_format = VK_FORMAT_UNDEFINED;
  ci.host_render_pass = pass;
  splat_renderer *pr;
  VK_CHECK(splat_renderer_create(&ci, &pr));
  VK_CHECK(splat_renderer_set_scene(pr, &a));
  uint8_t *by_pass = malloc(bytes);
  render_into_host_render_pass(pr, pass, cam, zp, plane, by_pass);
  CHECK(memcmp(by_pass, gpu, bytes) == 0, "host render pass: the image differs from the dynamic-rendering one");
  printf("  the same in a VkRenderPass: %s\n", memcmp(by_pass, gpu, bytes) == 0 ? "identical" : "DIFFERS");
  free(by_pass);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(pr);
  vkDestroyRenderPass(ctx.device, pass, NULL);
  /* misuse: a renderer made without host formats refuses to draw into a host pass */
  splat_frame f = {.camera = cam};
  CHECK(splat_renderer_cmd_draw(renderer, VK_NULL_HANDLE, &f) == VK_ERROR_VALIDATION_FAILED_EXT, "draw, no cmd");
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(hr);
  free(gpu);
  free(ref);
  free(z);
  free(cpu_opacity);
  splat_scene_free(&a);
}

/* The weighted-depth output: every splat moved to one camera depth zc, so red / alpha must be
 * zc wherever the splats cover the pixel. */
static void test_depth_output(const app_renderer *ar) {
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 2000, 160, 120, cams);
  const splat_camera *cam = &cams[0];
  float fwd[3], zc = 0;
  splat_camera_axes(cam, NULL, NULL, fwd);
  for (uint32_t i = 0; i < a.count; i++) {
    const float *p = a.positions + 3 * i;
    zc += (cam->view[2] * p[0] + cam->view[6] * p[1] + cam->view[10] * p[2] + cam->view[14]) / (float)a.count;
  }
  for (uint32_t i = 0; i < a.count; i++) {
    float *p = a.positions + 3 * i;
    float z = cam->view[2] * p[0] + cam->view[6] * p[1] + cam->view[10] * p[2] + cam->view[14];
    for (int k = 0; k < 3; k++) p[k] += (zc - z) * fwd[k];
  }
  uint32_t w = cam->width, h = cam->height;
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)ar->sorters,
                                   .sorter_count = ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .host_color_format = SPLAT_TARGET_FORMAT,
                                   .host_depth_output_format = VK_FORMAT_R32G32B32A32_SFLOAT};
  splat_renderer *dr;
  VK_CHECK(splat_renderer_create(&ci, &dr));
  VK_CHECK(splat_renderer_set_scene(dr, &a));
  host_image color = host_image_create(SPLAT_TARGET_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h);
  host_image depth = host_image_create(VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                                         VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h);
  vkh_buffer rb = vkh_buffer_create(&ctx, (VkDeviceSize)w * h * 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "wd");
  splat_frame f = {.camera = cam, .key_bits = 32, .sh_degree = -1};
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(dr, cmd, &f));
  host_image *imgs[2] = {&color, &depth};
  VkRenderingAttachmentInfo att[2];
  for (int i = 0; i < 2; i++) {
    layout_barrier(cmd, imgs[i]->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                   VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
    att[i] = (VkRenderingAttachmentInfo){.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                         .imageView = imgs[i]->view,
                                         .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                         .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
  }
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, h}}, .layerCount = 1,
                        .colorAttachmentCount = 2, .pColorAttachments = att};
  vkCmdBeginRendering(cmd, &ri);
  VK_CHECK(splat_renderer_cmd_draw(dr, cmd, &f));
  vkCmdEndRendering(cmd);
  layout_barrier(cmd, depth.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  copy_target(cmd, depth.image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  const float *d = rb.mapped;
  uint32_t covered = 0, off = 0;
  double worst = 0;
  for (size_t i = 0; i < (size_t)w * h; i++) {
    if (d[4 * i + 3] < 0.05f) continue;
    covered++;
    double e = fabs(d[4 * i] / d[4 * i + 3] - zc) / zc;
    worst = fmax(worst, e);
    off += e > 1e-3;
  }
  printf("  weighted depth output: %u covered pixels, all at depth %.4f: worst relative error %.2e\n", covered,
         (double)zc, worst);
  CHECK(covered > w * h / 20 && off == 0, "weighted depth: %u of %u covered pixels off by more than 0.1%%", off,
        covered);
  vkDeviceWaitIdle(ctx.device);
  vkh_buffer_destroy(&ctx, &rb);
  host_image_destroy(&color);
  host_image_destroy(&depth);
  splat_renderer_destroy(dr);
  splat_scene_free(&a);
}

/* ---- objects ---------------------------------------------------------------------------------- */

/* a ++ b as one scene (same SH degree). */
static void merge_scenes(const splat_scene *a, const splat_scene *b, splat_scene *m) {
  *m = *a;
  m->count = a->count + b->count;
  size_t n = m->count, c = a->sh_coeffs * 3;
  m->positions = malloc(sizeof(float) * 3 * n), m->scales = malloc(sizeof(float) * 3 * n);
  m->rotations = malloc(sizeof(float) * 4 * n), m->opacities = malloc(sizeof(float) * n);
  m->sh = malloc(sizeof(float) * c * n);
  const splat_scene *parts[2] = {a, b};
  for (size_t p = 0, at = 0; p < 2; at += parts[p]->count, p++) {
    size_t k = parts[p]->count;
    if (k == 0) continue; /* an empty scene's arrays are NULL (memcpy from NULL is undefined) */
    memcpy(m->positions + 3 * at, parts[p]->positions, sizeof(float) * 3 * k);
    memcpy(m->scales + 3 * at, parts[p]->scales, sizeof(float) * 3 * k);
    memcpy(m->rotations + 4 * at, parts[p]->rotations, sizeof(float) * 4 * k);
    memcpy(m->opacities + at, parts[p]->opacities, sizeof(float) * k);
    memcpy(m->sh + c * at, parts[p]->sh, sizeof(float) * c * k);
  }
}

/* The scene moved by a rotation of `angle` about y, a uniform `scale` and translation t, on the
 * CPU (positions, rotations as quaternions w,x,y,z, scales); *model: the same as a matrix. */
static void transform_scene(splat_scene *s, float angle, float scale, const float t[3], float model[16]) {
  float c = cosf(angle), sn = sinf(angle), qw = cosf(0.5f * angle), qy = sinf(0.5f * angle);
  const float m[16] = {scale * c, 0, -scale * sn, 0, 0, scale, 0, 0, scale * sn, 0, scale * c, 0, t[0], t[1], t[2], 1};
  memcpy(model, m, sizeof m);
  for (uint32_t i = 0; i < s->count; i++) {
    float *p = s->positions + 3 * i, x = p[0], y = p[1], z = p[2];
    p[0] = m[0] * x + m[4] * y + m[8] * z + m[12];
    p[1] = m[1] * x + m[5] * y + m[9] * z + m[13];
    p[2] = m[2] * x + m[6] * y + m[10] * z + m[14];
    for (int k = 0; k < 3; k++) s->scales[3 * i + k] *= scale;
    float *q = s->rotations + 4 * i, w = q[0], qx = q[1], qyy = q[2], qz = q[3];
    /* (qw, 0, qy, 0) * q, Hamilton product */
    q[0] = qw * w - qy * qyy;
    q[1] = qw * qx + qy * qz;
    q[2] = qw * qyy + qy * w;
    q[3] = qw * qz - qy * qx;
  }
}

/* Two objects sorted together render exactly as the one scene they make; an object with a
 * model transform renders as the scene transformed on the CPU (SH degree 0: view-independent
 * colour, since the CPU copy keeps the SH coefficients in the object's frame). */
static void test_objects(void) {
  splat_scene a, b, m;
  splat_camera cams[4];
  generated_with_cameras(&a, 1500, 160, 120, cams);
  gen_object_scene(&b, 1500, 3);
  merge_scenes(&a, &b, &m);
  const splat_camera *cam = &cams[0];
  size_t npx = (size_t)cam->width * cam->height;
  uint16_t *merged = malloc(npx * 8), *two = malloc(npx * 8);
  uint8_t *img = malloc(npx * 4), *ref = malloc(npx * 4);
  set_scene_or_die(&m);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, merged, img);
  set_scene_or_die(&a);
  uint32_t id;
  CHECK(splat_renderer_add_object(renderer, &b, &id) == VK_SUCCESS && id == 1, "add_object: id %u", id);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, two, img);
  int same = memcmp(merged, two, npx * 8) == 0;
  printf("  two objects against the merged scene: %s\n", same ? "bit-identical" : "DIFFER");
  CHECK(same, "two objects render differently from the scene they make");
  CHECK(splat_renderer_remove_object(renderer, 1) == VK_SUCCESS, "remove_object");
  CHECK(splat_renderer_remove_object(renderer, 1) == VK_ERROR_VALIDATION_FAILED_EXT, "removing twice accepted");

  /* a transformed object against the transformed scene */
  splat_scene moved;
  merge_scenes(&a, &(splat_scene){.sh_coeffs = a.sh_coeffs}, &moved);
  splat_instance inst = {.object = 0};
  const float t[3] = {0.3f, -0.1f, 0.2f};
  transform_scene(&moved, 0.5f, 1.2f, t, inst.model);
  instances = &inst, instance_count = 1;
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, 0, NULL, img);
  instances = NULL, instance_count = 0;
  set_scene_or_die(&moved);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, 0, NULL, ref);
  double p = image_psnr(img, ref, cam->width, cam->height);
  printf("  object with a model transform against the scene moved on the CPU: PSNR %.2f dB\n", p);
  CHECK(p >= 40.0 && !image_is_blank(img, cam->width, cam->height), "transformed object: PSNR %.2f dB < 40", p);
  free(merged);
  free(two);
  free(img);
  free(ref);
  splat_scene_free(&moved);
  splat_scene_free(&m);
  splat_scene_free(&a);
  splat_scene_free(&b);
}

/* ---- scenes larger than one buffer --------------------------------------------------------------- */

/* An object split into chunks renders bit-identically to one buffer, with either sort. */
static void large_chunks(void) {
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 5000, 160, 120, cams);
  size_t npx = (size_t)cams[0].width * cams[0].height;
  uint16_t *one = malloc(npx * 8), *many = malloc(npx * 8);
  uint8_t *img = malloc(npx * 4);
  const splatsort_algorithm algos[2] = {SPLATSORT_ALGORITHM_QUATERNARY, SPLATSORT_ALGORITHM_AUTO};
  for (int k = 0; k < 2; k++) {
    splat_renderer_debug_set_chunk_splats(renderer, 0);
    set_scene_or_die(&a);
    CHECK(splat_renderer_debug_chunks(renderer, 0) == 1, "5000 splats in %u chunks", splat_renderer_debug_chunks(renderer, 0));
    render_gpu(&cams[1], algos[k], 32, -1, one, img);
    const uint32_t per[2] = {777, 256};
    for (int c = 0; c < 2; c++) {
      splat_renderer_debug_set_chunk_splats(renderer, per[c]);
      set_scene_or_die(&a);
      uint32_t chunks = splat_renderer_debug_chunks(renderer, 0);
      CHECK(chunks == (5000 + per[c] - 1) / per[c], "%u splats a chunk: %u chunks", per[c], chunks);
      render_gpu(&cams[1], algos[k], 32, -1, many, img);
      int same = memcmp(one, many, npx * 8) == 0;
      printf("  %s, %u chunks of %u splats against one buffer: %s\n", splatsort_algorithm_name(algos[k]), chunks,
             per[c], same ? "bit-identical" : "DIFFER");
      CHECK(same, "%u chunks render differently from one buffer", chunks);
    }
  }
  splat_renderer_debug_set_chunk_splats(renderer, 0);
  free(one);
  free(many);
  free(img);
  splat_scene_free(&a);
}

/* An SH-3 scene whose SH array is larger than one storage-buffer binding may be (lavapipe:
 * 2^27 bytes, above 1,398,101 splats) renders against the CPU reference, validation-clean. */
static void large_scene(void) {
  VkDeviceSize max_buffer = splat_renderer_debug_max_buffer(renderer);
  uint64_t n = max_buffer / 96 + 4096;
  if (n > 3000000) {
    printf("  one buffer holds %llu SH-3 splats here: the over-the-limit scene is left to the GPU machine\n",
           (unsigned long long)(max_buffer / 96));
    return;
  }
  splat_scene big;
  gen_object_scene(&big, (uint32_t)n, 3);
  splat_camera cam;
  CHECK(scene_cameras(&big, SPLAT_UP_NEG_Y, 96, 72, &cam, 1) == 1, "camera");
  set_scene_or_die(&big);
  uint32_t chunks = splat_renderer_debug_chunks(renderer, 0);
  printf("  %u SH-3 splats (SH array %.1f MiB, one buffer at most %.1f MiB): %u chunks\n", big.count,
         96.0 * big.count / 1048576.0, max_buffer / 1048576.0, chunks);
  CHECK(chunks >= 2, "%u splats in %u chunk(s)", big.count, chunks);
  compare_with_reference("large SH-3 scene", &big, &cam, -1, 40.0);
  splat_scene_free(&big);
}

/* A memory budget, and the device's frame limit: a scene above either is refused with a message
 * that says how much it needs, and the previous scene stays. */
static void large_refusals(const app_renderer *ar) {
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)ar->sorters,
                                   .sorter_count = ar->sorter_count, .memory_budget = 1u << 20, .log = renderer_log};
  splat_renderer *budget = NULL;
  VK_CHECK(splat_renderer_create(&ci, &budget));
  splat_scene small, a;
  splat_camera cams[4];
  generated_with_cameras(&small, 1000, 64, 48, cams);
  gen_object_scene(&a, 5000, 3);
  CHECK(splat_renderer_set_scene(budget, &small) == VK_SUCCESS, "1000 splats within 1 MiB refused: %s", last_log);
  VkResult res = splat_renderer_set_scene(budget, &a);
  printf("  5000 SH-3 splats with a 1 MiB budget: %s\n", last_log);
  CHECK(res == VK_ERROR_OUT_OF_DEVICE_MEMORY, "over the budget: %s", vkh_result_name(res));
  CHECK(strstr(last_log, "needs about") && strstr(last_log, "budget is 1.00 MiB"), "message: %s", last_log);
  CHECK(splat_renderer_scene_count(budget) == 1000, "the previous scene did not stay (%u splats)",
        splat_renderer_scene_count(budget));
  size_t npx = 64 * 48;
  uint8_t *img = malloc(npx * 4), *ref = malloc(npx * 4);
  splat_renderer *saved = renderer;
  renderer = budget;
  render_gpu(&cams[0], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img);
  renderer = saved;
  set_scene_or_die(&small);
  render_gpu(&cams[0], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, ref);
  CHECK(memcmp(img, ref, npx * 4) == 0 && !image_is_blank(img, 64, 48), "the kept scene does not render as before");
  splat_renderer_destroy(budget);
  free(img);
  free(ref);
  splat_scene_free(&a);

  /* one more splat than a frame's records fit in one buffer: refused before any upload */
  uint64_t over = splat_renderer_debug_max_buffer(renderer) / 32 + 1;
  if (over <= 8000000) {
    splat_scene huge = {.count = (uint32_t)over, .sh_degree = 0, .sh_coeffs = 1};
    huge.positions = calloc(over * 3, 4), huge.scales = calloc(over * 3, 4), huge.rotations = calloc(over * 4, 4);
    huge.opacities = calloc(over, 4), huge.sh = calloc(over * 3, 4);
    res = splat_renderer_set_scene(renderer, &huge);
    printf("  %llu splats: %s\n", (unsigned long long)over, last_log);
    CHECK(res == VK_ERROR_OUT_OF_DEVICE_MEMORY && strstr(last_log, "above this device's maximum"), "%s", last_log);
    CHECK(splat_renderer_scene_count(renderer) == 1000, "the previous scene did not stay");
    free(huge.positions), free(huge.scales), free(huge.rotations), free(huge.opacities), free(huge.sh);
  }
  splat_scene_free(&small);
}

static void test_large(const app_renderer *ar) {
  large_chunks();
  large_refusals(ar);
  large_scene();
}

/* ---- stereo ----------------------------------------------------------------------------------- */

/* cam moved by d along its right axis. */
static splat_camera shifted(const splat_camera *cam, float d) {
  splat_camera c = *cam;
  float right[3];
  splat_camera_axes(cam, right, NULL, NULL);
  for (int k = 0; k < 3; k++) c.position[k] += d * right[k];
  for (int r = 0; r < 3; r++)
    c.view[12 + r] = -(c.view[r] * c.position[0] + c.view[4 + r] * c.position[1] + c.view[8 + r] * c.position[2]);
  return c;
}

/* One cull and sort from between the eyes, drawn for each eye, against each eye rendered and
 * sorted on its own: the images must be close (the order differs only for splats whose depth
 * order changes between the eyes), and the two eyes must differ. */
static void test_stereo(const app_renderer *ar) {
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 2000, 160, 120, cams);
  const splat_camera *mid = &cams[0];
  float ipd = 0.02f * (a.bounds_max[0] - a.bounds_min[0] + a.bounds_max[2] - a.bounds_min[2]);
  splat_camera eye[2] = {shifted(mid, -0.5f * ipd), shifted(mid, 0.5f * ipd)};
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)ar->sorters,
                                   .sorter_count = ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .flags = SPLAT_RENDERER_CREATE_STEREO_BIT};
  splat_renderer *sr;
  VK_CHECK(splat_renderer_create(&ci, &sr));
  VK_CHECK(splat_renderer_set_scene(sr, &a));
  set_scene_or_die(&a);
  size_t bytes = (size_t)mid->width * mid->height * 4;
  uint8_t *st[2] = {malloc(bytes), malloc(bytes)}, *single = malloc(bytes);
  for (uint32_t e = 0; e < 2; e++) {
    splat_frame f = {.camera = mid, .eyes = {&eye[0], &eye[1]}, .eye = e, .key_bits = 32, .sh_degree = -1,
                     .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]}};
    vkh_buffer rb = vkh_buffer_create(&ctx, bytes * 2, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "stereo rb");
    VkCommandBuffer cmd = vkh_begin(&ctx);
    VK_CHECK(splat_renderer_cmd_render(sr, cmd, &f));
    VkImage image;
    splat_renderer_target(sr, &image, NULL, NULL);
    copy_target(cmd, image, mid->width, mid->height, rb.buffer);
    vkh_submit_wait(&ctx, cmd);
    halves_to_rgba8(&rb, mid->width, mid->height, st[e]);
    render_gpu(&eye[e], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, single);
    double p = image_psnr(st[e], single, mid->width, mid->height);
    printf("  stereo, eye %u (one sort from between the eyes) against that eye sorted alone: PSNR %.2f dB\n", e, p);
    CHECK(p >= 35.0 && !image_is_blank(st[e], mid->width, mid->height), "stereo eye %u: PSNR %.2f dB < 35", e, p);
  }
  CHECK(memcmp(st[0], st[1], bytes) != 0, "stereo: both eyes drew the same image");
  /* an exaggerated baseline (a quarter of the scene): the shared order shows */
  splat_camera wide[2] = {shifted(mid, -6.0f * ipd), shifted(mid, 6.0f * ipd)};
  splat_frame f = {.camera = mid, .eyes = {&wide[0], &wide[1]}, .eye = 1, .key_bits = 32, .sh_degree = -1,
                   .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]}};
  vkh_buffer rb = vkh_buffer_create(&ctx, bytes * 2, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "stereo rb");
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_render(sr, cmd, &f));
  VkImage image;
  splat_renderer_target(sr, &image, NULL, NULL);
  copy_target(cmd, image, mid->width, mid->height, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  halves_to_rgba8(&rb, mid->width, mid->height, st[1]);
  render_gpu(&wide[1], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, single);
  printf("  stereo with a 12x wider baseline, eye 1 against it sorted alone: PSNR %.2f dB\n",
         image_psnr(st[1], single, mid->width, mid->height));
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(sr);
  free(st[0]);
  free(st[1]);
  free(single);
  splat_scene_free(&a);
}

/* ---- api -------------------------------------------------------------------------------------- */

static void test_api(const char *asset) {
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 1000, 160, 120, cams);
  set_scene_or_die(&a);
  size_t bytes = (size_t)160 * 120 * 4;
  uint8_t *first = malloc(bytes), *again = malloc(bytes), *ref = malloc(bytes);
  render_gpu(&cams[0], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, first);
  CHECK(!image_is_blank(first, 160, 120), "blank image");

  /* bad create infos are refused with a message and leave *out NULL: no sorters, two sorters
   * of one algorithm */
  {
    splatsort *qs[2] = {NULL, NULL};
    qs[0] = sort_quaternary_or_null();
    qs[1] = qs[0];
    splat_renderer_create_info bad = {.physical_device = ctx.physical_device, .device = ctx.device,
                                      .queue = ctx.queue, .queue_family = ctx.queue_family,
                                      .sorters = (const splatsort *const *)qs, .sorter_count = 0,
                                      .log = renderer_log};
    splat_renderer *out = (splat_renderer *)(uintptr_t)1;
    uint32_t before = log_messages;
    CHECK(splat_renderer_create(&bad, &out) == VK_ERROR_VALIDATION_FAILED_EXT && out == NULL &&
              log_messages > before, "no sorters accepted");
    bad.sorter_count = 2;
    out = (splat_renderer *)(uintptr_t)1;
    before = log_messages;
    CHECK(splat_renderer_create(&bad, &out) == VK_ERROR_VALIDATION_FAILED_EXT && out == NULL &&
              log_messages > before, "two quaternary sorters accepted");
    splatsort_destroy(qs[0]);
  }

  /* bad scenes are refused with a message, and the previous scene stays */
  splat_scene empty;
  memset(&empty, 0, sizeof empty);
  uint32_t logs = log_messages;
  CHECK(splat_renderer_set_scene(renderer, &empty) == VK_ERROR_VALIDATION_FAILED_EXT, "empty scene accepted");
  CHECK(log_messages > logs, "no message for an empty scene");
  CHECK(splat_renderer_set_scene(renderer, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL scene accepted");
  splat_scene bad = a;
  bad.sh_coeffs = 4; /* degree 3 needs 16 */
  CHECK(splat_renderer_set_scene(renderer, &bad) == VK_ERROR_VALIDATION_FAILED_EXT, "inconsistent scene accepted");
  bad = a;
  bad.opacities = NULL;
  CHECK(splat_renderer_set_scene(renderer, &bad) == VK_ERROR_VALIDATION_FAILED_EXT, "scene without opacities accepted");
  CHECK(splat_renderer_scene_count(renderer) == a.count, "scene count %u after refused scenes",
        splat_renderer_scene_count(renderer));
  render_gpu(&cams[0], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, again);
  CHECK(memcmp(first, again, bytes) == 0, "the image changed after a refused set_scene");

  /* bad frames: nothing recorded, an error back */
  VkCommandBuffer cmd = vkh_begin(&ctx);
  splat_frame f = {.camera = &cams[0], .sort = SPLATSORT_ALGORITHM_AUTO};
  f.key_bits = 12;
  CHECK(splat_renderer_cmd_render(renderer, cmd, &f) == VK_ERROR_VALIDATION_FAILED_EXT, "key_bits 12 accepted");
  f.key_bits = 32;
  f.slot = 1; /* created with 1 slot */
  CHECK(splat_renderer_cmd_render(renderer, cmd, &f) == VK_ERROR_VALIDATION_FAILED_EXT, "slot 1 of 1 accepted");
  f.slot = 0;
  splat_camera zero = cams[0];
  zero.width = 0;
  f.camera = &zero;
  CHECK(splat_renderer_cmd_render(renderer, cmd, &f) == VK_ERROR_VALIDATION_FAILED_EXT, "0-wide camera accepted");
  CHECK(splat_renderer_cmd_render(renderer, cmd, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL frame accepted");
  vkh_submit_wait(&ctx, cmd);

  /* timings of the last frame: the visible count is the CPU's */
  splat_timings t;
  CHECK(splat_renderer_timings(renderer, 0, &t) == VK_SUCCESS, "no timings");
  uint32_t vis = 0;
  for (uint32_t i = 0; i < a.count; i++) {
    splat_projected p;
    vis += (uint32_t)splat_project(&a, i, &cams[0], 3, &p);
  }
  CHECK(t.visible == vis, "timings: %u visible, CPU %u", t.visible, vis);
  CHECK(t.key_bits == 32 && t.total_ms >= 0 && t.total_ms >= t.sort_ms, "timings: %u bits, %.3f ms", t.key_bits,
        t.total_ms);
  printf("  timings: projection %.3f ms, sort %.3f ms (%s), raster %.3f ms, %u visible\n", t.projection_ms, t.sort_ms,
         splatsort_algorithm_name(t.sort), t.raster_ms, t.visible);

  /* Another scene, then two frames in one command buffer (different cameras and key widths):
   * the second must come out as when rendered alone. */
  splat_scene b;
  if (load_scene(asset, &b) != 0) {
    failures++;
  } else {
    splat_camera bc[4];
    CHECK(scene_cameras(&b, SPLAT_UP_NEG_Y, 160, 120, bc, 4) == 4, "asset cameras");
    set_scene_or_die(&b);
    CHECK(splat_renderer_scene_count(renderer) == b.count, "scene count %u, want %u",
          splat_renderer_scene_count(renderer), b.count);
    render_gpu(&bc[1], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, first);
    cmd = vkh_begin(&ctx);
    VK_CHECK(record_frame(cmd, &bc[0], SPLATSORT_ALGORITHM_QUATERNARY, 16, 0));
    vkh_submit_wait(&ctx, cmd); /* a frame submitted before; the next command buffer records two */
    vkh_buffer rb = vkh_buffer_create(&ctx, bytes * 2, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "readback");
    cmd = vkh_begin(&ctx);
    VK_CHECK(record_frame(cmd, &bc[2], SPLATSORT_ALGORITHM_QUATERNARY, 24, 1));
    VK_CHECK(record_frame(cmd, &bc[1], SPLATSORT_ALGORITHM_AUTO, 32, -1));
    VkImage image;
    splat_renderer_target(renderer, &image, NULL, NULL);
    copy_target(cmd, image, 160, 120, rb.buffer);
    vkh_submit_wait(&ctx, cmd);
    float *fl = malloc(bytes * sizeof(float));
    for (size_t i = 0; i < bytes; i++) fl[i] = half_to_float(((const uint16_t *)rb.mapped)[i]);
    refrender_to_rgba8(fl, 160, 120, again);
    free(fl);
    vkh_buffer_destroy(&ctx, &rb);
    CHECK(memcmp(first, again, bytes) == 0, "two frames in one command buffer: the second differs from it alone");
    CHECK(refrender_render_rgba8(&b, &bc[1], 3, BACKGROUND, ref, NULL) == 0, "refrender");
    double p = image_psnr(again, ref, 160, 120);
    printf("  asset after scene switch, 2 frames in one command buffer: PSNR %.2f dB against refrender\n", p);
    CHECK(p >= 40.0, "asset PSNR %.2f", p);
    splat_scene_free(&b);
  }
  free(first);
  free(again);
  free(ref);
  splat_scene_free(&a);
}

/* ---- main ------------------------------------------------------------------------------------- */

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* mkdir -p */
static void make_dirs(const char *path) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(buf, 0777);
      *p = '/';
    }
  mkdir(buf, 0777);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_render projection|image|sortpaths|api|large --out DIR [--scene FILE]... "
                    "[--optional-scene FILE]... [--seed S] [--write-images] [--spz-compare]\n");
    return 2;
  }
  check_print_limit = 40; /* a broken stage fails thousands of checks */
  const char *mode = argv[1];
  const char *scenes[32];
  uint32_t nscenes = 0, optional_missing = 0;
  uint64_t seed = 20261121;
  int spz_compare = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      outdir = argv[++i];
    } else if ((!strcmp(argv[i], "--scene") || !strcmp(argv[i], "--optional-scene")) && i + 1 < argc && nscenes < 32) {
      int optional = !strcmp(argv[i], "--optional-scene");
      const char *p = argv[++i];
      if (optional && !file_exists(p)) {
        printf("skipping %s: not present\n", p);
        optional_missing++;
      } else {
        scenes[nscenes++] = p;
      }
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = strtoull(argv[++i], NULL, 0);
    } else if (!strcmp(argv[i], "--write-images")) {
      write_images = 1;
    } else if (!strcmp(argv[i], "--spz-compare")) {
      spz_compare = 1;
    } else {
      fprintf(stderr, "test_render: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (optional_missing && nscenes == 0) return 77;
  rng_state = seed;
  make_dirs(outdir);

  double t0 = now_seconds();
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  app_renderer ar;
  app_renderer_create(&ctx, 1, renderer_log, NULL, &ar);
  renderer = ar.renderer;
  splat_renderer_debug_enable(renderer);
  printf("test_render %s: %s, subgroup size %u, onesweep %s, validation %s, seed %llu\n", mode, ctx.props.deviceName,
         ctx.subgroup_size, splat_renderer_has_sort(renderer, SPLATSORT_ALGORITHM_ONESWEEP) ? "yes" : "no",
         ctx.validation ? "on" : "off", (unsigned long long)seed);
  double t1 = now_seconds();

  if (!strcmp(mode, "projection")) {
    test_projection();
  } else if (!strcmp(mode, "image") && spz_compare) {
    test_spz_compare(scenes, nscenes);
  } else if (!strcmp(mode, "image")) {
    if (nscenes == 0) test_image_generated(), test_image_antialiased();
    for (uint32_t i = 0; i < nscenes; i++) test_image_file(scenes[i]);
    printf("  lowest PSNR %.2f dB (threshold 40)\n", scene_psnr_min);
  } else if (!strcmp(mode, "sortpaths")) {
    splat_scene s;
    gen_object_scene(&s, 2000, 3);
    sortpaths_scene("generated3", &s);
    splat_scene_free(&s);
    for (uint32_t i = 0; i < nscenes; i++) {
      if (load_scene(scenes[i], &s) != 0) {
        failures++;
        continue;
      }
      sortpaths_scene(base_name(scenes[i]), &s);
      splat_scene_free(&s);
    }
  } else if (!strcmp(mode, "api")) {
    if (nscenes == 0) {
      fprintf(stderr, "test_render api: needs --scene (the bundled asset)\n");
      return 2;
    }
    test_api(scenes[0]);
    test_host_pass(&ar);
    test_depth_output(&ar);
    test_objects();
    test_stereo(&ar);
  } else if (!strcmp(mode, "compute")) {
    test_compute(scenes, nscenes);
  } else if (!strcmp(mode, "large")) {
    test_large(&ar);
  } else if (!strcmp(mode, "sog")) {
    test_sog(scenes, nscenes);
  } else if (!strcmp(mode, "sog")) {
    test_sog(scenes, nscenes);
  } else {
    fprintf(stderr, "test_render: unknown mode '%s'\n", mode);
    return 2;
  }

  app_renderer_destroy(&ar);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  printf("setup %.1f s, tests %.1f s\n", t1 - t0, now_seconds() - t1);
  char name[64];
  snprintf(name, sizeof name, "test_render %s", mode);
  return check_report(name);
}
