/* test_host_raster.c: the renderer as a host embeds it (src/render/splat_renderer.h), on lavapipe
 * with the validation layer on (any validation message fails the test).
 *
 *   into    splat_renderer_cmd_render_into: the compute raster over the host's own colour
 *           image (a pattern), depth-tested against the host's depth image (far, a rectangle
 *           in front of every splat, a rectangle at a plane through the splats), in RGBA8,
 *           RGBA16F and RGBA32F, forward and reverse-Z: against the CPU reference composited
 *           over the same colours (PSNR; exactly the host's colour where its depth hides every
 *           splat), and against the graphics host pass (cmd_prepare + cmd_draw, same images).
 *           Misuse: unsupported formats, missing views, no prepared frame.
 *   arrays  a scene built from the host's own arrays (no file, no allocation by the library)
 *           added as an object and rendered against the CPU reference; malformed scenes (each
 *           rule of splat_scene.h's "A scene from the host's own arrays") refused with a
 *           message, the renderer unchanged and still rendering the same image.
 *   multiview  stereo into a 2-layer host pass in one draw (SPLAT_RENDERER_CREATE_MULTIVIEW_BIT,
 *           viewMask 0b11) against the two-draw stereo path, layer by layer (identical);
 *           exit 77 when the device has no multiview.
 *   first   the first frame a host records, at 1920x1080, of a scene that needs more (tile,
 *           splat) pairs than the compute raster's least first capacity: into the host's images
 *           and through cmd_render, each on a new renderer, against the CPU reference, with no
 *           log message; under a memory budget too small for the pairs, the log says the frame
 *           left pairs out.
 *
 * usage: test_host_raster into|arrays|multiview|first --out DIR [--write-images]
 * Exit 0: pass, 1: fail, 77: skipped. On an image failure the GPU image, the reference and an
 * amplified diff are written to DIR as PNGs. */
#include "app_renderer.h"
#include "check.h"
#include "host_image.h"
#include "image.h"
#include "refrender.h"
#include "splat_project.h"
#include "splat_renderer.h"
#include "splat_scene.h"
#include "util.h"
#include "view_control.h"
#include "vkh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static vkh_context ctx;
static app_renderer app;
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

/* ---- numbers -------------------------------------------------------------------------------- */

static uint64_t rng_state = 20261201;
static float uniform(float lo, float hi) {
  return lo + (hi - lo) * (float)((double)(splitmix64(&rng_state) >> 11) * 0x1.0p-53);
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

/* Exact for the values used here (multiples of 1/64 in [0, 1]). */
static uint16_t float_to_half(float f) {
  if (f == 0.0f) return 0;
  int e;
  float m = frexpf(f, &e); /* f = m 2^e, m in [0.5, 1) */
  return (uint16_t)((uint32_t)(e - 1 + 15) << 10 | ((uint32_t)lrintf(m * 2048.0f) & 1023u));
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
    fprintf(stderr, "test_host_raster: out of memory\n");
    exit(1);
  }
}

/* Splats in a ball of radius 1, scales log-uniform in [smin, smax] (each axis within 2x of
 * the splat's), mostly opaque, random SH colours. */
static void gen_ball_scene(splat_scene *s, uint32_t n, uint32_t degree, float smin, float smax) {
  scene_alloc(s, n, degree);
  for (uint32_t i = 0; i < n; i++) {
    float d[3] = {gauss(), gauss(), gauss()};
    float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 1e-6f;
    float rad = powf(uniform(0, 1), 0.6f);
    for (int k = 0; k < 3; k++) s->positions[3 * i + (uint32_t)k] = d[k] / l * rad;
    float base = expf(uniform(logf(smin), logf(smax)));
    for (int k = 0; k < 3; k++) s->scales[3 * i + (uint32_t)k] = base * expf(uniform(-0.7f, 0.7f));
    float q[4] = {gauss(), gauss(), gauss(), gauss()};
    float ql = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) s->rotations[4 * i + (uint32_t)k] = q[k] / ql;
    s->opacities[i] = uniform(0, 1) < 0.2f ? uniform(0.01f, 0.3f) : uniform(0.5f, 1.0f);
    float *sh = s->sh + (size_t)i * s->sh_coeffs * 3;
    for (uint32_t k = 0; k < s->sh_coeffs * 3; k++) sh[k] = k < 3 ? uniform(-2, 2) : uniform(-0.6f, 0.6f);
  }
  splat_scene_robust_bounds(s->positions, n, s->bounds_min, s->bounds_max);
}

/* A compact object (test_render's generated object): scales of a pixel to ten at 192x144. */
static void gen_object_scene(splat_scene *s, uint32_t n, uint32_t degree) { gen_ball_scene(s, n, degree, 0.006f, 0.06f); }

static float view_z(const splat_camera *cam, const float *p) {
  return cam->view[2] * p[0] + cam->view[6] * p[1] + cam->view[10] * p[2] + cam->view[14];
}

/* ---- images --------------------------------------------------------------------------------- */

static uint32_t format_bytes(VkFormat f) {
  return f == VK_FORMAT_R8G8B8A8_UNORM ? 4u : f == VK_FORMAT_R16G16B16A16_SFLOAT ? 8u : 16u;
}

/* RGBA floats as a format's texels (8-bit: rounded; halves: exact for the values used here). */
static void pack(VkFormat f, const float *rgba, size_t n, void *out) {
  for (size_t i = 0; i < n; i++) {
    if (f == VK_FORMAT_R8G8B8A8_UNORM) ((uint8_t *)out)[i] = (uint8_t)lrintf(rgba[i] * 255.0f);
    else if (f == VK_FORMAT_R16G16B16A16_SFLOAT) ((uint16_t *)out)[i] = float_to_half(rgba[i]);
    else ((float *)out)[i] = rgba[i];
  }
}

static void unpack(VkFormat f, const void *in, size_t n, float *rgba) {
  for (size_t i = 0; i < n; i++) {
    if (f == VK_FORMAT_R8G8B8A8_UNORM) rgba[i] = ((const uint8_t *)in)[i] / 255.0f;
    else if (f == VK_FORMAT_R16G16B16A16_SFLOAT) rgba[i] = half_to_float(((const uint16_t *)in)[i]);
    else rgba[i] = ((const float *)in)[i];
  }
}

static void report_write(int rc, const char *path) {
  if (rc == 0) printf("    wrote %s\n", path);
  else fprintf(stderr, "test_host_raster: could not write %s\n", path);
}

static void save_images(const char *tag, uint32_t w, uint32_t h, const uint8_t *gpu, const uint8_t *ref) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s_gpu.png", outdir, tag);
  report_write(image_write_png(path, w, h, gpu), path);
  snprintf(path, sizeof path, "%s/%s_ref.png", outdir, tag);
  report_write(image_write_png(path, w, h, ref), path);
  snprintf(path, sizeof path, "%s/%s_diff.png", outdir, tag);
  report_write(image_write_diff_png(path, gpu, ref, w, h), path);
}

/* ---- the host's frame ----------------------------------------------------------------------- */

/* What the host drew before the splats: its colour and depth, pixel by pixel. */
typedef struct host_frame {
  uint32_t w, h;
  float *color; /* w * h * 4 */
  float *depth; /* w * h */
} host_frame;

typedef enum { VIA_COMPUTE, VIA_GRAPHICS } host_path;

/* Records the host's frame: colour and depth uploaded (its "geometry"), the splats prepared,
 * then composited by `path`; reads the colour back as floats into `out` (w * h * 4). */
static void render_host(splat_renderer *r, const splat_frame *f, const host_frame *hf, VkFormat color_format,
                        host_path path, float *out) {
  uint32_t w = hf->w, h = hf->h;
  size_t npx = (size_t)w * h, cbytes = npx * format_bytes(color_format);
  host_image color = host_image_create(&ctx, color_format,
                                       VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                           VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                           (path == VIA_GRAPHICS ? VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT : 0),
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h, 1);
  host_image depth = host_image_create(&ctx, VK_FORMAT_D32_SFLOAT,
                                       VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                           VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                       VK_IMAGE_ASPECT_DEPTH_BIT, w, h, 1);
  vkh_buffer up = vkh_buffer_create(&ctx, cbytes + npx * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, "host upload");
  vkh_buffer rb = vkh_buffer_create(&ctx, cbytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "host readback");
  pack(color_format, hf->color, npx * 4, up.mapped);
  memcpy((char *)up.mapped + cbytes, hf->depth, npx * 4);

  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(r, cmd, f));
  host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  host_image_barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  VkBufferImageCopy cc = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
  vkCmdCopyBufferToImage(cmd, up.buffer, color.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &cc);
  VkBufferImageCopy dc = {.bufferOffset = cbytes, .imageSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1},
                          .imageExtent = {w, h, 1}};
  vkCmdCopyBufferToImage(cmd, up.buffer, depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &dc);
  if (path == VIA_COMPUTE) {
    /* the contract of splat_renderer_cmd_render_into */
    host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    host_image_barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    splat_host_target t = {.color_view = color.view, .color_format = color_format, .depth_view = depth.view,
                           .depth_format = VK_FORMAT_D32_SFLOAT,
                           .depth_layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL};
    VK_CHECK(splat_renderer_cmd_render_into(r, cmd, f, &t));
    host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_GENERAL,
                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  } else {
    host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                   VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
    host_image_barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                   VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT);
    VkRenderingAttachmentInfo ca = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = color.view,
                                    .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                    .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
    VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = depth.view,
                                    .imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL,
                                    .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_NONE};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, h}}, .layerCount = 1,
                          .colorAttachmentCount = 1, .pColorAttachments = &ca, .pDepthAttachment = &da};
    vkCmdBeginRendering(cmd, &ri);
    VK_CHECK(splat_renderer_cmd_draw(r, cmd, f));
    vkCmdEndRendering(cmd);
    host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                   VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  }
  vkCmdCopyImageToBuffer(cmd, color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1, &cc);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
  vkh_submit_wait(&ctx, cmd);
  unpack(color_format, rb.mapped, npx * 4, out);
  vkh_buffer_destroy(&ctx, &up);
  vkh_buffer_destroy(&ctx, &rb);
  host_image_destroy(&ctx, &color);
  host_image_destroy(&ctx, &depth);
}

static void to_rgba8(const float *rgba, size_t npx, uint8_t *out) {
  for (size_t i = 0; i < npx * 4; i++) {
    float v = fminf(fmaxf(rgba[i], 0.0f), 1.0f);
    out[i] = i % 4 == 3 ? 255 : (uint8_t)(v * 255.0f + 0.5f);
  }
}

/* ---- into: the compute raster over the host's images ------------------------------------------ */

/* The scene, its camera and what the host drew: a checker of two colours (alpha 1 and 0.5),
 * depth at the far plane, a rectangle in front of every splat, a rectangle at a plane
 * through the middle of the splats (splats within 2% of it made transparent, so rounding
 * decides nothing). The references: refrender of the scene (background 0: RGB = the splats'
 * premultiplied colour, A = their alpha), and of the scene without the splats behind the
 * plane. */
typedef struct into_case {
  splat_scene s;
  splat_camera cam;
  float znear, zfar, z_front, z_plane;
  uint32_t rect_front[4], rect_plane[4]; /* x0, y0, x1, y1 (exclusive) */
  float *ref_all, *ref_front_of_plane;
  uint32_t hidden; /* splats behind the plane that are not transparent */
} into_case;

static int in_rect(const uint32_t r[4], uint32_t x, uint32_t y) { return x >= r[0] && x < r[2] && y >= r[1] && y < r[3]; }

static void into_setup(into_case *c) {
  gen_object_scene(&c->s, 2000, 3);
  const float eye[3] = {0.3f, -0.4f, -3.2f}, target[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&c->cam, eye, target, up, 50.0f, 192, 144) == 0, "camera");
  float zlo = INFINITY, zhi = 0;
  for (uint32_t i = 0; i < c->s.count; i++) {
    float z = view_z(&c->cam, c->s.positions + 3 * i);
    zlo = fminf(zlo, z), zhi = fmaxf(zhi, z);
  }
  c->znear = 0.05f, c->zfar = 100.0f;
  c->z_front = 0.5f * zlo;
  c->z_plane = 0.5f * (zlo + zhi);
  float *kept = malloc(sizeof(float) * c->s.count);
  c->hidden = 0;
  for (uint32_t i = 0; i < c->s.count; i++) {
    float z = view_z(&c->cam, c->s.positions + 3 * i);
    if (fabsf(z - c->z_plane) < 0.02f * c->z_plane) c->s.opacities[i] = 0.0f;
    kept[i] = z > c->z_plane ? 0.0f : c->s.opacities[i];
    c->hidden += z > c->z_plane && c->s.opacities[i] > 0.0f;
  }
  const uint32_t w = c->cam.width, h = c->cam.height;
  memcpy(c->rect_front, (uint32_t[4]){20, 30, 80, 90}, sizeof c->rect_front);
  memcpy(c->rect_plane, (uint32_t[4]){90, 10, 180, 130}, sizeof c->rect_plane);
  size_t npx = (size_t)w * h;
  c->ref_all = malloc(npx * 16), c->ref_front_of_plane = malloc(npx * 16);
  const float zero[3] = {0, 0, 0};
  CHECK(refrender_render(&c->s, &c->cam, 3, zero, c->ref_all, NULL) == 0, "refrender");
  float *opacities = c->s.opacities;
  c->s.opacities = kept;
  CHECK(refrender_render(&c->s, &c->cam, 3, zero, c->ref_front_of_plane, NULL) == 0, "refrender");
  c->s.opacities = opacities;
  free(kept);
}

static void into_free(into_case *c) {
  free(c->ref_all);
  free(c->ref_front_of_plane);
  splat_scene_free(&c->s);
}

/* The host's depth of camera depth z in [znear, zfar], as its projection writes it. */
static float host_depth(const into_case *c, float z, int reverse) {
  float n = c->znear, f = c->zfar;
  float d = f / (f - n) - f * n / ((f - n) * z);
  return reverse ? 1.0f - d : d;
}

static void make_host_frame(const into_case *c, int reverse, host_frame *hf) {
  uint32_t w = c->cam.width, h = c->cam.height;
  hf->w = w, hf->h = h;
  hf->color = malloc(sizeof(float) * 4 * w * h);
  hf->depth = malloc(sizeof(float) * w * h);
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      size_t i = (size_t)y * w + x;
      int odd = ((x / 8) + (y / 8)) & 1;
      const float a[4] = {0.25f, 0.5f, 0.75f, 1.0f}, b[4] = {0.875f, 0.625f, 0.125f, 0.5f};
      memcpy(hf->color + 4 * i, odd ? b : a, sizeof a);
      hf->depth[i] = in_rect(c->rect_front, x, y)   ? host_depth(c, c->z_front, reverse)
                     : in_rect(c->rect_plane, x, y) ? host_depth(c, c->z_plane, reverse)
                                                    : (reverse ? 0.0f : 1.0f);
    }
}

/* The expected image: the reference's splats over the host's colour, per its depth region. */
static void expected_image(const into_case *c, const host_frame *hf, VkFormat format, float *out) {
  uint32_t w = hf->w;
  for (uint32_t y = 0; y < hf->h; y++)
    for (uint32_t x = 0; x < w; x++) {
      size_t i = (size_t)y * w + x;
      float host[4]; /* as the image holds it */
      uint8_t texel[16];
      pack(format, hf->color + 4 * i, 4, texel);
      unpack(format, texel, 4, host);
      if (in_rect(c->rect_front, x, y)) {
        memcpy(out + 4 * i, host, sizeof host);
        continue;
      }
      const float *ref = in_rect(c->rect_plane, x, y) ? c->ref_front_of_plane : c->ref_all;
      float alpha = ref[4 * i + 3];
      for (int k = 0; k < 3; k++) out[4 * i + (size_t)k] = ref[4 * i + (size_t)k] + (1.0f - alpha) * host[k];
      out[4 * i + 3] = alpha + (1.0f - alpha) * host[3];
    }
}

static const char *format_name(VkFormat f) {
  return f == VK_FORMAT_R8G8B8A8_UNORM ? "rgba8" : f == VK_FORMAT_R16G16B16A16_SFLOAT ? "rgba16f" : "rgba32f";
}

/* A valid 16x16 target for calls that are refused before they record (nothing is drawn). */
static splat_host_target small_target(host_image *color, host_image *depth) {
  *color = host_image_create(&ctx, VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_USAGE_STORAGE_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
                             16, 16, 1);
  *depth = host_image_create(&ctx, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, 16, 16, 1);
  return (splat_host_target){.color_view = color->view, .color_format = VK_FORMAT_R16G16B16A16_SFLOAT,
                             .depth_view = depth->view, .depth_format = VK_FORMAT_D32_SFLOAT,
                             .depth_layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL};
}

/* The per-pixel order (SPLAT_ORDER_PER_PIXEL) into the host's RGBA16F: the host's depth test as
 * the global order's (pixels behind its front rectangle exactly its colour), the image near the
 * global order's expected one (the scene's splats barely overlap out of order); and refused
 * when the slot was prepared with the global order. */
static void into_per_pixel(splat_renderer *r, const into_case *c, const splat_frame *global, const host_frame *hf,
                           int reverse) {
  uint32_t w = hf->w, h = hf->h;
  size_t npx = (size_t)w * h;
  float *gpu = malloc(npx * 16), *exp = malloc(npx * 16);
  uint8_t *g8 = malloc(npx * 4), *e8 = malloc(npx * 4);
  splat_frame f = *global;
  f.order = SPLAT_ORDER_PER_PIXEL;
  render_host(r, &f, hf, VK_FORMAT_R16G16B16A16_SFLOAT, VIA_COMPUTE, gpu);
  expected_image(c, hf, VK_FORMAT_R16G16B16A16_SFLOAT, exp);
  uint32_t front_wrong = 0;
  for (uint32_t y = c->rect_front[1]; y < c->rect_front[3]; y++)
    for (uint32_t x = c->rect_front[0]; x < c->rect_front[2]; x++)
      front_wrong += memcmp(gpu + 4 * ((size_t)y * w + x), exp + 4 * ((size_t)y * w + x), 16) != 0;
  to_rgba8(gpu, npx, g8);
  to_rgba8(exp, npx, e8);
  double psnr = image_psnr(g8, e8, w, h);
  printf("  into_rgba16f_per_pixel%-6s vs the global order's reference: PSNR %6.2f dB, occluded pixels not the "
         "host's: %u\n", reverse ? "_rz" : "", psnr, front_wrong);
  CHECK(psnr >= 35.0 && !image_is_blank(g8, w, h), "per-pixel into the host's target: PSNR %.2f dB < 35", psnr);
  CHECK(front_wrong == 0, "per-pixel: %u pixels behind the host's front rectangle are not its colour", front_wrong);
  if (psnr < 35.0 || write_images) save_images(reverse ? "into_per_pixel_reverse_z" : "into_per_pixel", w, h, g8, e8);

  host_image color, depth;
  splat_host_target t = small_target(&color, &depth);
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(r, cmd, global));
  uint32_t before = log_messages;
  VkResult res = splat_renderer_cmd_render_into(r, cmd, &f, &t);
  CHECK(res == VK_ERROR_VALIDATION_FAILED_EXT && log_messages > before && strstr(last_log, "SPLAT_ORDER_PER_PIXEL"),
        "per-pixel into a slot prepared with the global order: %s (%s)", vkh_result_name(res), last_log);
  vkh_submit_wait(&ctx, cmd);
  render_host(r, &f, hf, VK_FORMAT_R16G16B16A16_SFLOAT, VIA_COMPUTE, gpu); /* the slot's timings: per-pixel */
  host_image_destroy(&ctx, &color);
  host_image_destroy(&ctx, &depth);
  free(gpu), free(exp), free(g8), free(e8);
}

/* One renderer (forward or reverse-Z), every colour format through cmd_render_into against the
 * expected image, and RGBA16F through the graphics host pass against the compute result. */
static void into_case_run(into_case *c, int reverse) {
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)app.sorters,
                                   .sorter_count = app.sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .host_color_format = VK_FORMAT_R16G16B16A16_SFLOAT,
                                   .host_depth_format = VK_FORMAT_D32_SFLOAT,
                                   .flags = reverse ? SPLAT_RENDERER_CREATE_REVERSE_Z_BIT : 0u};
  splat_renderer *r;
  VK_CHECK(splat_renderer_create(&ci, &r));
  VK_CHECK(splat_renderer_set_scene(r, &c->s));
  host_frame hf;
  make_host_frame(c, reverse, &hf);
  uint32_t w = hf.w, h = hf.h;
  size_t npx = (size_t)w * h;
  float *gpu = malloc(npx * 16), *exp = malloc(npx * 16), *graphics = malloc(npx * 16);
  uint8_t *g8 = malloc(npx * 4), *e8 = malloc(npx * 4), *gr8 = malloc(npx * 4);
  splat_frame f = {.camera = &c->cam, .key_bits = 32, .znear = c->znear, .zfar = c->zfar};
  const VkFormat formats[3] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT};
  for (int k = 0; k < 3; k++) {
    VkFormat fmt = formats[k];
    render_host(r, &f, &hf, fmt, VIA_COMPUTE, gpu);
    expected_image(c, &hf, fmt, exp);
    /* where the host's depth hides every splat: exactly the host's colour */
    uint32_t front_wrong = 0;
    float alpha_err = 0;
    for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++) {
        size_t i = (size_t)y * w + x;
        if (in_rect(c->rect_front, x, y)) front_wrong += memcmp(gpu + 4 * i, exp + 4 * i, 16) != 0;
        alpha_err = fmaxf(alpha_err, fabsf(gpu[4 * i + 3] - exp[4 * i + 3]));
      }
    to_rgba8(gpu, npx, g8);
    to_rgba8(exp, npx, e8);
    double psnr = image_psnr(g8, e8, w, h);
    char tag[128];
    snprintf(tag, sizeof tag, "into_%s%s", format_name(fmt), reverse ? "_reverse_z" : "");
    float alpha_tol = fmt == VK_FORMAT_R8G8B8A8_UNORM ? 1.0f / 255.0f : 3e-3f;
    printf("  %-28s vs reference over the host's colour: PSNR %6.2f dB, occluded pixels not the host's: %u, "
           "max |alpha err| %.4f\n", tag, psnr, front_wrong, (double)alpha_err);
    CHECK(psnr >= 40.0 && !image_is_blank(g8, w, h), "%s: PSNR %.2f dB < 40", tag, psnr);
    CHECK(front_wrong == 0, "%s: %u pixels behind the host's front rectangle are not its colour", tag, front_wrong);
    CHECK(alpha_err <= alpha_tol, "%s: alpha off by %g", tag, (double)alpha_err);
    if (psnr < 40.0 || write_images) save_images(tag, w, h, g8, e8);
    if (fmt != VK_FORMAT_R16G16B16A16_SFLOAT) continue;
    render_host(r, &f, &hf, fmt, VIA_GRAPHICS, graphics);
    to_rgba8(graphics, npx, gr8);
    double pg = image_psnr(g8, gr8, w, h), pr = image_psnr(gr8, e8, w, h);
    uint32_t front_graphics = 0;
    for (uint32_t y = c->rect_front[1]; y < c->rect_front[3]; y++)
      for (uint32_t x = c->rect_front[0]; x < c->rect_front[2]; x++)
        front_graphics += memcmp(graphics + 4 * ((size_t)y * w + x), exp + 4 * ((size_t)y * w + x), 16) != 0;
    printf("  %-28s vs the graphics host pass: PSNR %6.2f dB (graphics vs reference %6.2f dB)\n", tag, pg, pr);
    CHECK(pg >= 45.0, "%s: compute vs graphics host pass PSNR %.2f dB < 45", tag, pg);
    CHECK(pr >= 40.0 && front_graphics == 0, "%s: graphics host pass vs reference PSNR %.2f dB, %u front pixels", tag,
          pr, front_graphics);
    if (pg < 45.0 || write_images) {
      snprintf(tag, sizeof tag, "into%s_vs_graphics", reverse ? "_reverse_z" : "");
      save_images(tag, w, h, g8, gr8);
    }
  }
  into_per_pixel(r, c, &f, &hf, reverse);
  splat_timings t;
  VK_CHECK(splat_renderer_timings(r, 0, &t));
  CHECK(t.raster == SPLAT_RASTER_COMPUTE && t.pairs <= t.pair_capacity && t.visible > 0 &&
            t.order == SPLAT_ORDER_PER_PIXEL && t.order_window == SPLAT_ORDER_WINDOW_DEFAULT,
        "timings of the last frame (cmd_render_into, per-pixel): raster %d, %u pairs of %u, %u visible, order %d "
        "window %u", (int)t.raster, t.pairs, t.pair_capacity, t.visible, (int)t.order, t.order_window);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(r);
  free(gpu), free(exp), free(graphics), free(g8), free(e8), free(gr8);
  free(hf.color), free(hf.depth);
}

/* Refused with the documented errors and a message; nothing recorded, the renderer usable. */
static void into_misuse(into_case *c) {
  splat_renderer *r = app.renderer;
  splat_frame f = {.camera = &c->cam, .key_bits = 32};
  host_image color, depth;
  splat_host_target good = small_target(&color, &depth);
  VkCommandBuffer cmd = vkh_begin(&ctx);
  struct {
    const char *what;
    splat_host_target t;
    VkResult want;
  } cases[] = {
      {"BGRA8 colour", good, VK_ERROR_FORMAT_NOT_SUPPORTED},
      {"D16 depth", good, VK_ERROR_FORMAT_NOT_SUPPORTED},
      {"no depth view", good, VK_ERROR_VALIDATION_FAILED_EXT},
      {"depth in ATTACHMENT_OPTIMAL", good, VK_ERROR_VALIDATION_FAILED_EXT},
      {"no frame prepared", good, VK_ERROR_VALIDATION_FAILED_EXT},
  };
  cases[0].t.color_format = VK_FORMAT_B8G8R8A8_UNORM;
  cases[1].t.depth_format = VK_FORMAT_D16_UNORM;
  cases[2].t.depth_view = VK_NULL_HANDLE;
  cases[3].t.depth_layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint32_t before = log_messages;
    VkResult res = splat_renderer_cmd_render_into(r, cmd, &f, &cases[i].t);
    printf("  misuse: %-28s -> %s%s%s\n", cases[i].what, vkh_result_name(res), log_messages > before ? ": " : "",
           log_messages > before ? last_log : "");
    CHECK(res == cases[i].want && log_messages > before, "%s: %s, %u messages", cases[i].what, vkh_result_name(res),
          log_messages - before);
  }
  CHECK(splat_renderer_cmd_render_into(r, cmd, &f, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL target");
  CHECK(splat_renderer_cmd_render_into(NULL, cmd, &f, &good) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL renderer");
  vkh_submit_wait(&ctx, cmd); /* nothing was recorded */
  host_image_destroy(&ctx, &color);
  host_image_destroy(&ctx, &depth);
}

static void test_into(void) {
  into_case c;
  into_setup(&c);
  printf("  scene: %u splats, %u behind the plane at z %.3f, front rectangle at z %.3f\n", c.s.count, c.hidden,
         (double)c.z_plane, (double)c.z_front);
  CHECK(c.hidden > 100, "only %u splats behind the plane: its depth test is not exercised", c.hidden);
  into_misuse(&c); /* the app renderer has no scene yet: "no frame prepared" */
  into_case_run(&c, 0);
  into_case_run(&c, 1);
  into_free(&c);
}

/* ---- arrays: a scene from the host's own arrays ------------------------------------------------ */

/* Frame f recorded with cmd_render into the renderer's own target and read back as RGBA floats
 * (w * h * 4 into out); *t, when given, the frame's timings. */
static void read_own_target(splat_renderer *r, const splat_frame *f, float *out, splat_timings *t) {
  const splat_camera *cam = f->camera;
  size_t npx = (size_t)cam->width * cam->height;
  vkh_buffer rb = vkh_buffer_create(&ctx, npx * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "readback");
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_render(r, cmd, f));
  VkImage image;
  splat_renderer_target(r, &image, NULL, NULL);
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                              .imageExtent = {cam->width, cam->height, 1}};
  vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1, &region);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
  vkh_submit_wait(&ctx, cmd);
  unpack(VK_FORMAT_R16G16B16A16_SFLOAT, rb.mapped, npx * 4, out);
  if (t) VK_CHECK(splat_renderer_timings(r, 0, t));
  vkh_buffer_destroy(&ctx, &rb);
}

/* The renderer's own target after cmd_render, as 8-bit RGBA (refrender's conversion). */
static void render_own(splat_renderer *r, const splat_camera *cam, const float background[3], uint8_t *rgba8) {
  splat_frame f = {.camera = cam, .key_bits = 32, .background = {background[0], background[1], background[2]}};
  float *fl = malloc((size_t)cam->width * cam->height * 16);
  read_own_target(r, &f, fl, NULL);
  refrender_to_rgba8(fl, cam->width, cam->height, rgba8);
  free(fl);
}

/* What a host keeps: its own arrays, here a 16 x 16 sheet of round splats coloured by
 * position, in static storage (nothing the library allocates or frees). */
#define SHEET 16
#define SHEET_N (SHEET * SHEET)
static float sheet_xyz[SHEET_N * 3], sheet_scale[SHEET_N * 3], sheet_wxyz[SHEET_N * 4], sheet_alpha[SHEET_N],
    sheet_dc[SHEET_N * 3];

static splat_scene sheet_scene(void) {
  for (uint32_t i = 0; i < SHEET_N; i++) {
    float u = (float)(i % SHEET) / (SHEET - 1), v = (float)(i / SHEET) / (SHEET - 1);
    float rgb[3] = {u, v, 1.0f - 0.5f * (u + v)};
    float xyz[3] = {2.0f * u - 1.0f, 2.0f * v - 1.0f, 0.3f * sinf(6.0f * u) * v};
    for (int k = 0; k < 3; k++) {
      sheet_xyz[3 * i + (uint32_t)k] = xyz[k];
      sheet_scale[3 * i + (uint32_t)k] = k == 2 ? 0.01f : 0.05f;
      sheet_dc[3 * i + (uint32_t)k] = (rgb[k] - 0.5f) / (float)SPLAT_SH_C0; /* colour = 0.5 + C0 dc */
    }
    float a = 0.3f * u, q[4] = {cosf(a), 0.0f, 0.0f, sinf(a)}; /* turned about z */
    memcpy(sheet_wxyz + 4 * i, q, sizeof q);
    sheet_alpha[i] = 0.4f + 0.6f * v;
  }
  return (splat_scene){.count = SHEET_N, .sh_degree = 0, .sh_coeffs = 1, .positions = sheet_xyz,
                       .scales = sheet_scale, .rotations = sheet_wxyz, .opacities = sheet_alpha, .sh = sheet_dc};
}

static void test_arrays(void) {
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)app.sorters,
                                   .sorter_count = app.sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .upload_threads = 4}; /* the values are checked in four ranges */
  splat_renderer *r;
  VK_CHECK(splat_renderer_create(&ci, &r));
  splat_scene s = sheet_scene();
  uint32_t id = 99;
  uint32_t before = log_messages;
  CHECK(splat_renderer_add_object(r, &s, &id) == VK_SUCCESS && id == 0, "add_object of the host's arrays: id %u", id);
  CHECK(log_messages == before, "a good scene logged: %s", last_log);
  splat_camera cam;
  const float eye[3] = {0.4f, -0.3f, -3.0f}, target[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&cam, eye, target, up, 50.0f, 160, 120) == 0, "camera");
  const float bg[3] = {0.05f, 0.15f, 0.35f};
  size_t npx = (size_t)cam.width * cam.height;
  uint8_t *gpu = malloc(npx * 4), *ref = malloc(npx * 4), *again = malloc(npx * 4);
  render_own(r, &cam, bg, gpu);
  refrender_stats rs;
  CHECK(refrender_render_rgba8(&s, &cam, 0, bg, ref, &rs) == 0, "refrender");
  double psnr = image_psnr(gpu, ref, cam.width, cam.height);
  printf("  %u splats from the host's arrays, %u visible: PSNR %.2f dB against refrender\n", s.count, rs.visible,
         psnr);
  CHECK(rs.visible == SHEET_N && psnr >= 40.0 && !image_is_blank(gpu, cam.width, cam.height), "arrays: PSNR %.2f dB",
        psnr);
  if (psnr < 40.0 || write_images) save_images("arrays", cam.width, cam.height, gpu, ref);

  /* malformed scenes: each refused with a message; nothing changes */
  static float nan_xyz[SHEET_N * 3], neg_scale[SHEET_N * 3], zero_q[SHEET_N * 4], long_q[SHEET_N * 4],
      big_alpha[SHEET_N], inf_dc[SHEET_N * 3];
  memcpy(nan_xyz, sheet_xyz, sizeof nan_xyz), nan_xyz[3 * 17 + 1] = NAN;
  memcpy(neg_scale, sheet_scale, sizeof neg_scale), neg_scale[3 * 5 + 2] = -0.01f;
  memcpy(zero_q, sheet_wxyz, sizeof zero_q), memset(zero_q + 4 * 9, 0, 16);
  memcpy(long_q, sheet_wxyz, sizeof long_q), long_q[4 * 200] = 2.0f;
  memcpy(big_alpha, sheet_alpha, sizeof big_alpha), big_alpha[255] = 1.5f;
  memcpy(inf_dc, sheet_dc, sizeof inf_dc), inf_dc[3 * 40] = INFINITY;
  struct {
    const char *what;
    splat_scene s;
  } bad[12];
  uint32_t nb = 0;
  for (uint32_t k = 0; k < 12; k++) bad[k].s = s;
  bad[nb].what = "count 0", bad[nb++].s.count = 0;
  bad[nb].what = "sh_coeffs 4 for degree 0", bad[nb++].s.sh_coeffs = 4;
  bad[nb].what = "sh_degree 4", bad[nb].s.sh_degree = 4, bad[nb++].s.sh_coeffs = 25;
  bad[nb].what = "NULL rotations", bad[nb++].s.rotations = NULL;
  bad[nb].what = "NULL sh", bad[nb++].s.sh = NULL;
  bad[nb].what = "a NaN position", bad[nb++].s.positions = nan_xyz;
  bad[nb].what = "a negative scale", bad[nb++].s.scales = neg_scale;
  bad[nb].what = "a zero rotation", bad[nb++].s.rotations = zero_q;
  bad[nb].what = "a rotation of length 2", bad[nb++].s.rotations = long_q;
  bad[nb].what = "opacity 1.5", bad[nb++].s.opacities = big_alpha;
  bad[nb].what = "an infinite SH coefficient", bad[nb++].s.sh = inf_dc;
  for (uint32_t k = 0; k < nb; k++) {
    before = log_messages;
    uint32_t got = 77;
    VkResult ra = splat_renderer_add_object(r, &bad[k].s, &got);
    printf("  add_object(%s) -> %s: %s\n", bad[k].what, vkh_result_name(ra), log_messages > before ? last_log : "");
    CHECK(ra == VK_ERROR_VALIDATION_FAILED_EXT && got == 77 && log_messages > before, "add_object(%s): %s",
          bad[k].what, vkh_result_name(ra));
    before = log_messages;
    VkResult rs2 = splat_renderer_set_scene(r, &bad[k].s);
    CHECK(rs2 == VK_ERROR_VALIDATION_FAILED_EXT && log_messages > before, "set_scene(%s): %s", bad[k].what,
          vkh_result_name(rs2));
  }
  /* two bad splats in different threads' ranges: the lower one is named */
  static float two_bad[SHEET_N];
  memcpy(two_bad, sheet_alpha, sizeof two_bad), two_bad[17] = -0.5f, two_bad[SHEET_N - 3] = 2.0f;
  splat_scene both = s;
  both.opacities = two_bad;
  before = log_messages;
  CHECK(splat_renderer_set_scene(r, &both) == VK_ERROR_VALIDATION_FAILED_EXT && log_messages > before &&
            strstr(last_log, "splat 17: opacity -0.5"),
        "two bad opacities: '%s' (want splat 17 named)", last_log);
  CHECK(splat_renderer_add_object(r, NULL, &id) == VK_ERROR_VALIDATION_FAILED_EXT, "add_object(NULL)");
  CHECK(splat_renderer_add_object(r, &s, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "add_object(id NULL)");
  CHECK(splat_renderer_scene_count(r) == SHEET_N, "after the refusals: %u splats", splat_renderer_scene_count(r));
  render_own(r, &cam, bg, again);
  CHECK(memcmp(gpu, again, npx * 4) == 0, "after the refusals the image changed");
  /* and it still takes a good object */
  uint32_t id2 = 0;
  CHECK(splat_renderer_add_object(r, &s, &id2) == VK_SUCCESS && id2 == 1, "second add_object: id %u", id2);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(r);
  free(gpu), free(ref), free(again);
}

/* ---- multiview: both eyes in one draw ----------------------------------------------------------- */

static splat_camera shifted(const splat_camera *cam, float d) {
  splat_camera c = *cam;
  float right[3];
  splat_camera_axes(cam, right, NULL, NULL);
  for (int k = 0; k < 3; k++) c.position[k] += d * right[k];
  for (int r = 0; r < 3; r++)
    c.view[12 + r] = -(c.view[r] * c.position[0] + c.view[4 + r] * c.position[1] + c.view[8 + r] * c.position[2]);
  return c;
}

static VkImageView layer_view(VkImage image, VkFormat format, VkImageAspectFlags aspect, uint32_t layer) {
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = image,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                               .subresourceRange = {aspect, 0, 1, layer, 1}};
  VkImageView v;
  VK_CHECK(vkCreateImageView(ctx.device, &vci, NULL, &v));
  return v;
}

/* A stereo host frame into 2-layer colour and depth (colour cleared to `plane`, depth to the
 * plane at camera depth zp): multiview in one cmd_draw, or one cmd_draw per eye into each
 * layer. Reads both layers back as 8-bit RGBA (2 * w * h * 4 bytes). */
static void render_stereo_layers(splat_renderer *r, const splat_frame *f0, int multiview, float zp,
                                 const float plane[3], uint8_t *rgba8) {
  uint32_t w = f0->camera->width, h = f0->camera->height;
  const VkFormat cf = VK_FORMAT_R16G16B16A16_SFLOAT, df = VK_FORMAT_D32_SFLOAT;
  host_image color = host_image_create(&ctx, cf, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h, 2);
  host_image depth = host_image_create(&ctx, df, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                                       w, h, 2);
  VkImageView cl[2], dl[2];
  for (uint32_t e = 0; e < 2; e++) {
    cl[e] = layer_view(color.image, cf, VK_IMAGE_ASPECT_COLOR_BIT, e);
    dl[e] = layer_view(depth.image, df, VK_IMAGE_ASPECT_DEPTH_BIT, e);
  }
  size_t layer_bytes = (size_t)w * h * 8;
  vkh_buffer rb = vkh_buffer_create(&ctx, 2 * layer_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "stereo rb");
  float n = f0->znear, fa = f0->zfar;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(r, cmd, f0));
  host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 2, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  host_image_barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, 2, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  for (uint32_t e = 0; e < (multiview ? 1u : 2u); e++) {
    VkRenderingAttachmentInfo ca = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                    .imageView = multiview ? color.view : cl[e],
                                    .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                    .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                    .clearValue = {.color = {.float32 = {plane[0], plane[1], plane[2], 1.0f}}}};
    VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                    .imageView = multiview ? depth.view : dl[e],
                                    .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                    .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                    .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                    .clearValue = {.depthStencil = {fa / (fa - n) - fa * n / ((fa - n) * zp), 0}}};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, h}},
                          .layerCount = 1, .viewMask = multiview ? 0x3u : 0u, .colorAttachmentCount = 1,
                          .pColorAttachments = &ca, .pDepthAttachment = &da};
    splat_frame f = *f0;
    f.eye = e;
    vkCmdBeginRendering(cmd, &ri);
    VK_CHECK(splat_renderer_cmd_draw(r, cmd, &f));
    vkCmdEndRendering(cmd);
    if (!multiview && e == 0) /* the second pass writes the other layer; order the two passes' depth use */
      host_image_barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, 2, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                     VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                     VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                     VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                     VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  }
  host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 2}, .imageExtent = {w, h, 1}};
  vkCmdCopyImageToBuffer(cmd, color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1, &region);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
  vkh_submit_wait(&ctx, cmd);
  float *fl = malloc(2 * layer_bytes * 2);
  unpack(cf, rb.mapped, (size_t)w * h * 8, fl);
  refrender_to_rgba8(fl, w, 2 * h, rgba8); /* the two layers one above the other */
  free(fl);
  vkh_buffer_destroy(&ctx, &rb);
  for (uint32_t e = 0; e < 2; e++) {
    vkDestroyImageView(ctx.device, cl[e], NULL);
    vkDestroyImageView(ctx.device, dl[e], NULL);
  }
  host_image_destroy(&ctx, &color);
  host_image_destroy(&ctx, &depth);
}

static void test_multiview(void) {
  splat_scene s;
  gen_object_scene(&s, 2000, 3);
  splat_camera mid;
  const float eye[3] = {0.3f, -0.4f, -3.2f}, target[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&mid, eye, target, up, 50.0f, 160, 120) == 0, "camera");
  splat_camera eyes[2] = {shifted(&mid, -0.06f), shifted(&mid, 0.06f)};
  float zp = 0;
  for (uint32_t i = 0; i < s.count; i++) zp += view_z(&mid, s.positions + 3 * i) / (float)s.count;
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)app.sorters,
                                   .sorter_count = app.sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .host_color_format = VK_FORMAT_R16G16B16A16_SFLOAT,
                                   .host_depth_format = VK_FORMAT_D32_SFLOAT,
                                   .flags = SPLAT_RENDERER_CREATE_STEREO_BIT | SPLAT_RENDERER_CREATE_MULTIVIEW_BIT};
  splat_renderer *mv, *two;
  VK_CHECK(splat_renderer_create(&ci, &mv));
  ci.flags = SPLAT_RENDERER_CREATE_STEREO_BIT;
  VK_CHECK(splat_renderer_create(&ci, &two));
  VK_CHECK(splat_renderer_set_scene(mv, &s));
  VK_CHECK(splat_renderer_set_scene(two, &s));
  splat_frame f = {.camera = &mid, .eyes = {&eyes[0], &eyes[1]}, .key_bits = 32, .znear = 0.05f,
                   .zfar = 100.0f};
  const float plane[3] = {0.2f, 0.35f, 0.5f};
  size_t layer = (size_t)mid.width * mid.height * 4;
  uint8_t *a = malloc(2 * layer), *b = malloc(2 * layer);
  render_stereo_layers(mv, &f, 1, zp, plane, a);
  render_stereo_layers(two, &f, 0, zp, plane, b);
  splat_timings tm, tt;
  VkResult rm = splat_renderer_timings(mv, 0, &tm), rt = splat_renderer_timings(two, 0, &tt);
  printf("  timings: multiview %s (raster %.2f ms), two draws %s (raster %.2f ms; lavapipe)\n", vkh_result_name(rm),
         tm.raster_ms, vkh_result_name(rt), tt.raster_ms);
  CHECK(rm == VK_SUCCESS && rt == VK_SUCCESS, "timings: %s, %s", vkh_result_name(rm), vkh_result_name(rt));
  for (uint32_t e = 0; e < 2; e++) {
    double p = image_psnr(a + e * layer, b + e * layer, mid.width, mid.height);
    int same = memcmp(a + e * layer, b + e * layer, layer) == 0;
    printf("  eye %u: multiview (one draw) vs two draws: %s (PSNR %.2f dB)\n", e, same ? "identical" : "differ", p);
    CHECK(same, "multiview eye %u differs from the two-draw path (PSNR %.2f dB)", e, p);
    CHECK(!image_is_blank(a + e * layer, mid.width, mid.height), "eye %u is blank", e);
    if (!same || write_images) {
      char tag[64];
      snprintf(tag, sizeof tag, "multiview_eye%u", e);
      save_images(tag, mid.width, mid.height, a + e * layer, b + e * layer);
    }
  }
  CHECK(memcmp(a, a + layer, layer) != 0, "both eyes drew the same image");
  /* misuse: multiview without stereo, or on a render pass, is refused at create */
  splat_renderer *bad = (splat_renderer *)&bad;
  uint32_t before = log_messages;
  ci.flags = SPLAT_RENDERER_CREATE_MULTIVIEW_BIT;
  CHECK(splat_renderer_create(&ci, &bad) == VK_ERROR_VALIDATION_FAILED_EXT && bad == NULL && log_messages > before,
        "multiview without stereo accepted");
  /* a mono frame on the multiview renderer's cmd_draw is refused (before recording anything) */
  splat_frame mono = {.camera = &mid, .key_bits = 32};
  before = log_messages;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  CHECK(splat_renderer_cmd_draw(mv, cmd, &mono) == VK_ERROR_VALIDATION_FAILED_EXT && log_messages > before,
        "a mono frame drawn by the multiview renderer");
  vkh_submit_wait(&ctx, cmd);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(mv);
  splat_renderer_destroy(two);
  free(a), free(b);
  splat_scene_free(&s);
}

/* ---- main ----------------------------------------------------------------------------------- */

/* ---- first: the first frame a host records, at 1080p ------------------------------------------ */

/* The host's first frame through cmd_render (own target, the compute raster) on a new renderer,
 * as RGBA floats (w * h * 4), and its timings. */
static void render_own_compute(splat_renderer *r, const splat_camera *cam, const float background[3], float *out,
                               splat_timings *t) {
  splat_frame f = {.camera = cam, .key_bits = 32, .sh_degree = -1, .raster = SPLAT_RASTER_COMPUTE,
                   .background = {background[0], background[1], background[2]}};
  read_own_target(r, &f, out, t);
}

/* A first frame's image (RGB against the reference over `host`) and pair counts. */
static double first_check(const char *tag, const float *gpu, const float *ref, uint32_t w, uint32_t h,
                          const splat_timings *t, uint64_t need, uint32_t messages) {
  size_t npx = (size_t)w * h;
  uint8_t *g8 = malloc(npx * 4), *r8 = malloc(npx * 4);
  to_rgba8(gpu, npx, g8);
  to_rgba8(ref, npx, r8);
  double psnr = image_psnr(g8, r8, w, h);
  printf("  %-30s %ux%u: PSNR %6.2f dB against the reference; %u pairs (the reference: %llu), room for %u; %u "
         "log messages\n", tag, w, h, psnr, t->pairs, (unsigned long long)need, t->pair_capacity, messages);
  CHECK(psnr >= 40.0 && !image_is_blank(g8, w, h), "%s: the first frame: PSNR %.2f dB < 40", tag, psnr);
  if (psnr < 40.0 || write_images) save_images(tag, w, h, g8, r8);
  free(g8), free(r8);
  return psnr;
}

/* A small scene of large splats at 1920x1080 (more (tile, splat) pairs than the compute raster's
 * least first capacity, max(4 per splat, 65,536)): the first frame a host records, into its own
 * images (cmd_prepare + cmd_render_into) and through cmd_render, each on a new renderer, is
 * complete, without a log message. Then a memory budget that cannot hold the pairs: the frame
 * draws those that fit and the log says so, before the frame and after it. */
static void test_first(void) {
  splat_scene s;
  gen_ball_scene(&s, 400, 1, 0.05f, 0.3f);
  splat_camera cam;
  const float eye[3] = {0.3f, -0.5f, -3.4f}, target[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&cam, eye, target, up, 50.0f, 1920, 1080) == 0, "camera");
  const uint32_t w = cam.width, h = cam.height;
  size_t npx = (size_t)w * h;
  const float host_rgb[3] = {0.125f, 0.25f, 0.375f};
  float *ref = malloc(npx * 16), *gpu = malloc(npx * 16);
  refrender_stats rs;
  CHECK(refrender_render(&s, &cam, 1, host_rgb, ref, &rs) == 0, "refrender");
  uint64_t least = 4ull * s.count > 65536 ? 4ull * s.count : 65536;
  printf("  scene: %u splats, %u visible, %llu (tile, splat) pairs at %ux%u (least first capacity %llu)\n", s.count,
         rs.visible, (unsigned long long)rs.pairs_needed, w, h, (unsigned long long)least);
  CHECK(rs.pairs_needed > least, "the scene needs only %llu pairs: the case tests nothing", (unsigned long long)rs.pairs_needed);

  /* into the host's images: its colour, and its depth at the far plane */
  host_frame hf = {.w = w, .h = h, .color = malloc(npx * 16), .depth = malloc(npx * 4)};
  for (size_t i = 0; i < npx; i++) {
    memcpy(hf.color + 4 * i, (float[4]){host_rgb[0], host_rgb[1], host_rgb[2], 1.0f}, 16);
    hf.depth[i] = 1.0f;
  }
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)app.sorters,
                                   .sorter_count = app.sorter_count, .frame_slots = 1, .log = renderer_log};
  splat_renderer *r;
  VK_CHECK(splat_renderer_create(&ci, &r));
  VK_CHECK(splat_renderer_set_scene(r, &s));
  splat_frame f = {.camera = &cam, .key_bits = 32, .sh_degree = -1};
  uint32_t before = log_messages;
  render_host(r, &f, &hf, VK_FORMAT_R16G16B16A16_SFLOAT, VIA_COMPUTE, gpu);
  splat_timings t;
  VK_CHECK(splat_renderer_timings(r, 0, &t));
  first_check("first_into", gpu, ref, w, h, &t, rs.pairs_needed, log_messages - before);
  CHECK(t.pairs <= t.pair_capacity && t.pairs > least, "first frame into the host's images: %u pairs, room for %u",
        t.pairs, t.pair_capacity);
  CHECK(log_messages == before, "the first frame logged: %s", last_log);
  splat_renderer_memory_info m;
  VK_CHECK(splat_renderer_memory(r, &m));
  VkDeviceSize full = m.positions + m.shapes + m.sh + m.frame, pair_keyvals = 16ull * t.pair_capacity;
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(r);

  /* through cmd_render */
  VK_CHECK(splat_renderer_create(&ci, &r));
  VK_CHECK(splat_renderer_set_scene(r, &s));
  before = log_messages;
  render_own_compute(r, &cam, host_rgb, gpu, &t);
  first_check("first_render", gpu, ref, w, h, &t, rs.pairs_needed, log_messages - before);
  CHECK(t.pairs <= t.pair_capacity && t.pairs > least, "first frame of cmd_render: %u pairs, room for %u", t.pairs,
        t.pair_capacity);
  CHECK(log_messages == before, "the first frame logged: %s", last_log);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(r);

  /* a budget without room for the pairs (half their keys and values short): the pairs that fit,
   * and the log says so */
  ci.memory_budget = full - pair_keyvals / 2;
  VK_CHECK(splat_renderer_create(&ci, &r));
  VK_CHECK(splat_renderer_set_scene(r, &s));
  before = log_messages;
  render_own_compute(r, &cam, host_rgb, gpu, &t);
  printf("  budget %.1f MiB (%.1f MiB with the pairs): %u pairs, room for %u; %u log messages, the last: %s\n",
         (double)ci.memory_budget / 1048576.0, (double)full / 1048576.0, t.pairs, t.pair_capacity,
         log_messages - before, log_messages > before ? last_log : "-");
  CHECK(t.pairs > t.pair_capacity, "under the budget the frame had room for its %u pairs (%u)", t.pairs,
        t.pair_capacity);
  CHECK(log_messages >= before + 2 && strstr(last_log, "left out"),
        "a frame short of pairs: %u log messages, the last '%s'", log_messages - before, last_log);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(r);
  free(ref), free(gpu), free(hf.color), free(hf.depth);
  splat_scene_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_host_raster into|arrays|multiview|first --out DIR [--write-images]\n");
    return 2;
  }
  check_print_limit = 40;
  const char *mode = argv[1];
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) outdir = argv[++i];
    else if (!strcmp(argv[i], "--write-images")) write_images = 1;
    else {
      fprintf(stderr, "test_host_raster: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  mkdir(outdir, 0777);
  double t0 = now_seconds();
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  app_renderer_create(&ctx, 1, renderer_log, NULL, &app);
  printf("test_host_raster %s: %s, subgroup size %u, validation %s\n", mode, ctx.props.deviceName, ctx.subgroup_size,
         ctx.validation ? "on" : "off");
  if (!strcmp(mode, "into")) {
    test_into();
  } else if (!strcmp(mode, "arrays")) {
    test_arrays();
  } else if (!strcmp(mode, "first")) {
    test_first();
  } else if (!strcmp(mode, "multiview")) {
    if (!ctx.multiview || !ctx.dynamic_rendering) {
      printf("skipped: the device has no multiview with dynamic rendering\n");
      app_renderer_destroy(&app);
      vkh_destroy(&ctx);
      return 77;
    }
    test_multiview();
  } else {
    fprintf(stderr, "test_host_raster: unknown mode '%s'\n", mode);
    return 2;
  }
  app_renderer_destroy(&app);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  printf("%.1f s\n", now_seconds() - t0);
  char name[64];
  snprintf(name, sizeof name, "test_host_raster %s", mode);
  return check_report(name);
}
