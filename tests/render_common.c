/* render_common.c: test_render's shared pieces (render_common.h): the device and renderer under
 * test, random scenes and cameras, rendering and read-back, the comparison with the CPU reference. */
#include "render_common.h"

#include "image.h"
#include "refrender.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* check.h's counters, one for the whole program (CHECK_SHARED_COUNTER) */
int failures;
int check_print_limit;

vkh_context ctx;
splat_renderer *renderer;
const char *outdir = ".";
int write_images;
uint32_t log_messages;
char last_log[1024];
uint32_t test_sh_precision = 16;

void renderer_log(void *user, const char *message) {
  (void)user;
  log_messages++;
  snprintf(last_log, sizeof last_log, "%s", message);
  fprintf(stderr, "  renderer says: %s\n", message);
}

/* ---- random numbers, halves --------------------------------------------------------------- */

uint64_t rng_state;
uint64_t next_u64(void) { return splitmix64(&rng_state); }
float uniform(float lo, float hi) {
  return lo + (hi - lo) * (float)((double)(next_u64() >> 11) * 0x1.0p-53);
}
float gauss(void) {
  float u = uniform(1e-7f, 1.0f), v = uniform(0.0f, 1.0f);
  return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

float half_to_float(uint16_t h) {
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
void gen_projection_scene(splat_scene *s, uint32_t n, uint32_t degree, const float centre[3], float spread) {
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
void gen_object_scene(splat_scene *s, uint32_t n, uint32_t degree) {
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

void random_camera(splat_camera *cam, const float eye[3], uint32_t w, uint32_t h, int skew) {
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

/* Cameras around a scene: the framing view and views turned about the up axis, and one
 * close up (splats behind the camera and across the near plane). */
uint32_t scene_cameras(const splat_scene *s, splat_up_axis up_axis, uint32_t w, uint32_t h, splat_camera *cams,
                       uint32_t max) {
  float lo[3], hi[3];
  if (splat_scene_robust_bounds(s->positions, s->count, lo, hi) != 0) return 0;
  splat_orbit o;
  float c[3] = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])}, up[3];
  splat_up_axis_vector(up_axis, up);
  splat_orbit_init(&o, c, 1.0f, up);
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

const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

int load_scene(const char *path, splat_scene *s) {
  char err[512];
  if (splat_scene_load(path, s, err, sizeof err) != 0) {
    fprintf(stderr, "test_render: %s\n", err);
    return -1;
  }
  return 0;
}

/* A generated SH-3 object of n splats and its four test cameras at w x h. */
void generated_with_cameras(splat_scene *a, uint32_t n, uint32_t w, uint32_t h, splat_camera cams[4]) {
  gen_object_scene(a, n, 3);
  uint32_t nc = scene_cameras(a, SPLAT_UP_NEG_Y, w, h, cams, 4);
  CHECK(nc == 4, "cameras: %u", nc);
}


/* ---- rendering and read-back ---------------------------------------------------------------- */

/* Away from 8-bit rounding ties (v * 255 = k + 0.5), where the target's half precision would
 * tip a whole background one level the other way. */
const float BACKGROUND[3] = {0.05f, 0.15f, 0.35f};

render_frame_options frame_opts; /* of the frames render_gpu records */

VkResult record_frame(VkCommandBuffer cmd, const splat_camera *cam, splatsort_algorithm algo, uint32_t bits,
                             int sh) {
  splat_frame f = {.camera = cam, .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]}, .sort = algo,
                   .key_bits = bits, .key_mode = frame_opts.key_mode,
                   .sh_degree = sh < 0 ? SPLAT_SH_DEGREE_SCENE : SPLAT_SH_DEGREE(sh),
                   .instances = frame_opts.instances, .instance_count = frame_opts.instance_count,
                   .raster = frame_opts.raster, .antialias = frame_opts.antialias, .order = frame_opts.order,
                   .order_window = frame_opts.order_window};
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
void copy_target(VkCommandBuffer cmd, VkImage image, uint32_t w, uint32_t h, VkBuffer dst) {
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
  vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst, 1, &region);
  host_read_barrier(cmd);
}

/* Renders one frame and reads back the RGBA16F target: `half` (w*h*4 halves, optional) and
 * the 8-bit image (round(clamp(v, 0, 1) * 255), the reference renderer's conversion). */
void render_gpu(const splat_camera *cam, splatsort_algorithm algo, uint32_t bits, int sh, uint16_t *half,
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

void read_buffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, void *out) {
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

/* An RGBA16F read-back as 8-bit RGBA (refrender's conversion); frees the buffer. */
void halves_to_rgba8(vkh_buffer *rb, uint32_t w, uint32_t h, uint8_t *rgba8) {
  float *fl = malloc(sizeof(float) * 4 * w * h);
  const uint16_t *hp = rb->mapped;
  for (size_t i = 0; i < (size_t)w * h * 4; i++) fl[i] = half_to_float(hp[i]);
  refrender_to_rgba8(fl, w, h, rgba8);
  free(fl);
  vkh_buffer_destroy(&ctx, rb);
}

void set_scene_or_die(const splat_scene *s) {
  VkResult res = splat_renderer_set_scene(renderer, s);
  if (res != VK_SUCCESS) {
    fprintf(stderr, "test_render: set_scene failed: %s\n", vkh_result_name(res));
    exit(1);
  }
}

/* ---- images --------------------------------------------------------------------------------- */

static void report_write(int rc, const char *path, const char *what) {
  if (rc == 0)
    printf("    wrote %s%s\n", path, what);
  else
    fprintf(stderr, "test_render: could not write %s\n", path);
}

/* The GPU image, the reference and their amplified difference, as PNGs in the output folder. */
void save_images(const char *tag, const splat_camera *cam, const uint8_t *gpu, const uint8_t *ref,
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
double compare_with_reference(const char *tag, const splat_scene *s, const splat_camera *cam, int sh,
                                     double min_psnr) {
  size_t bytes = (size_t)cam->width * cam->height * 4;
  uint8_t *gpu = malloc(bytes), *ref = malloc(bytes);
  double t0 = now_seconds();
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, sh, NULL, gpu);
  double t1 = now_seconds();
  refrender_stats rs;
  /* sh < 0: the scene's degree (record_frame); refrender's < 0 means 0 */
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
