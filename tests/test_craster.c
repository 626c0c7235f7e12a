/* The compute raster alone (src/render/craster.h): no renderer, its inputs made on the CPU. A
 * generated scene is projected by the CPU reference (splat_project), its records packed as the
 * projection writes them and ordered back to front as the depth sort leaves them; craster_record
 * draws them, and the image and the pair count must be the CPU reference's (tests/refrender.c:
 * the same projection, the same bins). Cameras from outside and close up, the global and the
 * per-pixel order, tiles whole and in pieces (craster.piece_override), on lavapipe at its three
 * subgroup sizes with validation on. */
#include "check.h"
#include "craster.h"
#include "image.h"
#include "refrender.h"
#include "splat_camera.h"
#include "splat_project.h"
#include "splat_scene.h"
#include "splat_shared.h"
#include "vkh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static vkh_context ctx;

static bool allows(void *owner, VkDeviceSize bytes, const char *what) {
  (void)owner, (void)bytes, (void)what;
  return true;
}

static VkResult create_buffers(void *owner, const char *what, ssvk_buffer *const *b, const VkDeviceSize *size,
                               const VkBufferUsageFlags *usage, const char *const *name, size_t n) {
  (void)owner, (void)what;
  for (size_t i = 0; i < n; i++) {
    VkResult res = ssvk_buffer_create(&ctx.vk, size[i], usage[i], false, false, name[i], b[i]);
    if (res != VK_SUCCESS) return res;
  }
  return VK_SUCCESS;
}

static uint64_t rng_state;
static float uniform(void) { /* [0, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)(rng_state >> 40) / 16777216.0f;
}

/* n splats in a ball of radius 1, SH degree 1, log scales around -3.5, any rotation. */
static splat_scene make_scene(uint32_t n, uint64_t seed) {
  rng_state = seed;
  splat_scene s = {.count = n, .sh_degree = 1, .sh_coeffs = 4};
  s.positions = malloc(12 * (size_t)n);
  s.scales = malloc(12 * (size_t)n);
  s.rotations = malloc(16 * (size_t)n);
  s.opacities = malloc(4 * (size_t)n);
  s.sh = malloc(48 * (size_t)n);
  CHECK(s.positions && s.scales && s.rotations && s.opacities && s.sh, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    float p[3];
    do
      for (int c = 0; c < 3; c++) p[c] = 2.0f * uniform() - 1.0f;
    while (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 1.0f);
    memcpy(s.positions + 3 * (size_t)i, p, sizeof p);
    for (int c = 0; c < 3; c++) s.scales[3 * (size_t)i + c] = expf(-3.5f + 1.5f * uniform());
    float q[4], len = 0;
    for (int c = 0; c < 4; c++) q[c] = uniform() - 0.5f, len += q[c] * q[c];
    for (int c = 0; c < 4; c++) s.rotations[4 * (size_t)i + c] = q[c] / sqrtf(len);
    s.opacities[i] = 0.05f + 0.9f * uniform();
    for (int c = 0; c < 12; c++) s.sh[12 * (size_t)i + c] = (c < 3 ? 1.5f : 0.3f) * (uniform() - 0.5f);
  }
  return s;
}

typedef struct inputs {
  vkh_buffer projected, sorted, draw, depths, rays, header, readback;
  uint32_t visible;
} inputs;

static int cmp_key(const void *pa, const void *pb) {
  const uint64_t *a = pa, *b = pb;
  return *a < *b ? -1 : *a > *b;
}

/* The records of every visible splat (as project.comp packs them), their ray-depth coefficients
 * (write_ray's), the visible depths' range in the header, and their indices back to front as the
 * depth sort leaves them ((key, index) ascending: refrender's order). */
static inputs make_inputs(const splat_scene *s, const splat_camera *cam) {
  inputs in = {0};
  uint32_t *rec = calloc((size_t)s->count + 1, 32), *order = malloc(4 * ((size_t)s->count + 1));
  uint64_t *keys = malloc(8 * ((size_t)s->count + 1));
  float *depths = malloc(4 * ((size_t)s->count + 1)), *rays = calloc((size_t)s->count + 1, 32);
  float zmin = INFINITY, zmax = 0.0f;
  CHECK(rec && order && keys && depths && rays, "out of memory");
  for (uint32_t i = 0; i < s->count; i++) {
    splat_projected p;
    if (!splat_project(s, i, cam, (int)s->sh_degree, &p)) continue;
    uint32_t *w = rec + 8 * (size_t)i;
    memcpy(w, p.mean2d, 8);
    memcpy(w + 2, p.conic, 12);
    memcpy(w + 5, &p.opacity, 4);
    w[6] = splat_float_to_half(p.color[0]) | (uint32_t)splat_float_to_half(p.color[1]) << 16;
    uint32_t r16 = (uint32_t)fminf(p.radius, (float)SP_MAX_RADIUS);
    w[7] = splat_float_to_half(p.color[2]) | r16 << 16;
    depths[i] = p.depth;
    zmin = fminf(zmin, p.depth), zmax = fmaxf(zmax, p.depth);
    splat_ray_depth rd;
    splat_project_ray_depth(s, i, cam, &rd);
    const float r8[8] = {rd.a00, rd.a11, rd.a01, rd.a02, rd.a12, rd.b[0], rd.b[1], rd.b[2]};
    memcpy(rays + 8 * (size_t)i, r8, sizeof r8);
    keys[in.visible++] = (uint64_t)splat_depth_key(p.depth) << 32 | i;
  }
  qsort(keys, in.visible, sizeof *keys, cmp_key);
  for (uint32_t k = 0; k < in.visible; k++) order[k] = (uint32_t)keys[k];
  uint32_t draw[SP_DRAW_WORDS] = {0};
  draw[SP_DRAW_INSTANCES] = in.visible;
  const VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  in.projected = vkh_buffer_create(&ctx, 32ull * (s->count + 1), st, false, "test records");
  in.sorted = vkh_buffer_create(&ctx, 4ull * (in.visible + 1), st, false, "test sorted indices");
  in.draw = vkh_buffer_create(&ctx, 4 * SP_DRAW_WORDS, st, false, "test draw");
  in.depths = vkh_buffer_create(&ctx, 4ull * (s->count + 1), st, false, "test depths");
  in.rays = vkh_buffer_create(&ctx, 32ull * (s->count + 1), st, false, "test ray coefficients");
  in.header = vkh_buffer_create(&ctx, 4 * SP_H_WORDS, st, false, "test header");
  in.readback = vkh_buffer_create(&ctx, 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "test read-back");
  vkh_buffer_write(&ctx, &in.projected, 0, rec, 32ull * (s->count + 1));
  vkh_buffer_write(&ctx, &in.sorted, 0, order, 4ull * (in.visible + 1));
  vkh_buffer_write(&ctx, &in.draw, 0, draw, sizeof draw);
  vkh_buffer_write(&ctx, &in.depths, 0, depths, 4ull * (s->count + 1));
  vkh_buffer_write(&ctx, &in.rays, 0, rays, 32ull * (s->count + 1));
  uint32_t header[SP_H_WORDS] = {[SP_H_VISIBLE] = in.visible};
  memcpy(&header[SP_H_ZMIN], &zmin, 4);
  memcpy(&header[SP_H_ZMAX], &zmax, 4);
  vkh_buffer_write(&ctx, &in.header, 0, header, sizeof header);
  free(rec);
  free(order);
  free(keys);
  free(depths);
  free(rays);
  return in;
}

static void free_inputs(inputs *in) {
  vkh_buffer *b[] = {&in->projected, &in->sorted, &in->draw, &in->depths, &in->rays, &in->header, &in->readback};
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) vkh_buffer_destroy(&ctx, b[i]);
}

/* An RGBA16F image of w x h for the raster's copy. */
static VkImage make_target(uint32_t w, uint32_t h, VkDeviceMemory *mem) {
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = VK_FORMAT_R16G16B16A16_SFLOAT, .extent = {w, h, 1}, .mipLevels = 1,
                           .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                           .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                           .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  VkImage img;
  VK_CHECK(ctx.vk.fn.vkCreateImage(ctx.device, &ici, NULL, &img));
  VkMemoryRequirements mr;
  ctx.vk.fn.vkGetImageMemoryRequirements(ctx.device, img, &mr);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = vkh_memory_type(&ctx, mr.memoryTypeBits,
                                                                 VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  VK_CHECK(ctx.vk.fn.vkAllocateMemory(ctx.device, &mai, NULL, mem));
  VK_CHECK(ctx.vk.fn.vkBindImageMemory(ctx.device, img, *mem, 0));
  return img;
}

static const float BACKGROUND[3] = {0.1f, 0.2f, 0.3f};

/* One frame through the raster alone against the CPU reference: the same pairs, and the image
 * (the raster's RGBA16F buffer) within the halves' rounding. */
static void raster_case(const char *tag, craster *c, const splat_scene *s, const splat_camera *cam, bool per_pixel,
                        uint32_t piece, const splatsort *sorter, VkQueryPool queries) {
  inputs in = make_inputs(s, cam);
  VkDeviceMemory mem;
  VkImage target = make_target(cam->width, cam->height, &mem);
  if (c->piece_override != piece) {
    craster_release(c);
    c->piece_override = piece;
  }
  craster_frame f = {.slot = 0, .camera = cam, .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]},
                     .order = per_pixel ? SPLAT_ORDER_PER_PIXEL : SPLAT_ORDER_GLOBAL, .projected = in.projected.buffer,
                     .draw = in.draw.buffer, .depths = in.depths.buffer, .rays = in.rays.buffer,
                     .header = in.header.buffer, .sorted = {in.sorted.buffer, 0, in.sorted.size},
                     .positions = in.visible, .sorter = sorter, .queries = queries, .first_query = 0,
                     .readback = in.readback.buffer, .needed_offset = 4, .target = target};
  uint32_t window = 99;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VkResult res = craster_record(c, cmd, &f, &window);
  vkh_submit_wait(&ctx, cmd);
  CHECK(res == VK_SUCCESS, "%s: craster_record: %d", tag, (int)res);
  CHECK(window == (per_pixel ? SP_CR_WINDOW_DEFAULT : 0u), "%s: window %u", tag, window);
  uint32_t needed, state[SP_CR_STATE_WORDS];
  memcpy(&needed, (const char *)in.readback.mapped + 4, 4);
  vkh_buffer_read(&ctx, &c->state, 0, state, sizeof state);
  size_t npx = (size_t)cam->width * cam->height;
  uint16_t *half = malloc(npx * 8);
  float *gpu = malloc(npx * 16), *ref = malloc(npx * 16);
  CHECK(half && gpu && ref, "out of memory");
  vkh_buffer_read(&ctx, &c->image, 0, half, npx * 8);
  for (size_t i = 0; i < npx * 4; i++) gpu[i] = splat_half_to_float(half[i]);
  refrender_stats st;
  refrender_options o = {.max_pairs = UINT64_MAX, .order = per_pixel ? REFRENDER_ORDER_WINDOW : REFRENDER_ORDER_GLOBAL,
                         .window = per_pixel ? SP_CR_WINDOW_DEFAULT : 0, .piece = piece};
  CHECK(refrender_render_opts(s, cam, (int)s->sh_degree, BACKGROUND, ref, &st, &o) == 0, "%s: reference", tag);
  double worst = 0;
  for (size_t p = 0; p < npx; p++)
    for (int ch = 0; ch < 3; ch++) worst = fmax(worst, fabs(gpu[4 * p + ch] - ref[4 * p + ch]));
  uint8_t *a8 = malloc(npx * 4), *b8 = malloc(npx * 4);
  refrender_to_rgba8(gpu, cam->width, cam->height, a8);
  refrender_to_rgba8(ref, cam->width, cam->height, b8);
  double psnr = image_psnr(a8, b8, cam->width, cam->height);
  printf("  %-30s %ux%u %5u visible, %6u pairs (CPU %6llu), %4u extra pieces, PSNR %6.2f dB, largest difference "
         "%.4f\n", tag, cam->width, cam->height, in.visible, needed, (unsigned long long)st.pairs_needed,
         state[SP_CR_STATE_EXTRA], psnr, worst);
  CHECK(piece ? state[SP_CR_STATE_EXTRA] > 0 : state[SP_CR_STATE_EXTRA] == 0, "%s: %u extra pieces", tag,
        state[SP_CR_STATE_EXTRA]);
  /* the colours travel as halves (2^-11 relative), the sums in 32-bit floats both sides */
  CHECK(worst <= 0.002, "%s: a pixel differs by %.4f from the reference", tag, worst);
  CHECK(needed == st.pairs_needed, "%s: %u pairs on the GPU, %llu on the CPU", tag, needed,
        (unsigned long long)st.pairs_needed);
  CHECK(st.visible == in.visible, "%s: %u visible on the CPU, %u given", tag, st.visible, in.visible);
  CHECK(psnr >= 50.0 && !image_is_blank(a8, cam->width, cam->height), "%s: PSNR %.2f dB < 50", tag, psnr);
  free(a8);
  free(b8);
  free(half);
  free(gpu);
  free(ref);
  ctx.vk.fn.vkDestroyImage(ctx.device, target, NULL);
  ctx.vk.fn.vkFreeMemory(ctx.device, mem, NULL);
  free_inputs(&in);
}

int main(void) {
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  printf("subgroup size %u\n", ctx.subgroup_size);
  splatsort *sorters[VKH_MAX_SORTERS];
  uint32_t nsorters = vkh_create_sorters(&ctx, sorters);
  VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                              .queryCount = 3};
  VkQueryPool queries;
  VK_CHECK(ctx.vk.fn.vkCreateQueryPool(ctx.device, &qi, NULL, &queries));
  craster c = {.env = {.vk = &ctx.vk, .limits = ctx.props.limits, .sorters = (const splatsort *const *)sorters,
                       .sorter_count = nsorters, .slots = 1, .extra_usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                       .max_buffer = 1ull << 30, .allows = allows, .create_buffers = create_buffers}};
  VK_CHECK(craster_create(&c));
  splat_scene s = make_scene(4000, 20261128u);
  splat_camera cams[2];
  const float up[3] = {0, -1, 0}, centre[3] = {0, 0, 0}, far_eye[3] = {0.3f, -0.4f, -3.5f}, near_eye[3] = {0.1f, 0, -1.2f};
  CHECK(splat_camera_look_at(&cams[0], far_eye, centre, up, 50, 200, 150) == 0, "camera");
  CHECK(splat_camera_look_at(&cams[1], near_eye, centre, up, 60, 177, 131) == 0, "camera");
  for (uint32_t k = 0; k < 2; k++)
    for (int pp = 0; pp < 2; pp++)
      for (uint32_t piece = 0; piece <= 64; piece += 64) {
        char tag[64];
        snprintf(tag, sizeof tag, "cam%u %s%s", k, pp ? "per-pixel" : "global", piece ? " pieces of 64" : "");
        raster_case(tag, &c, &s, &cams[k], pp != 0, piece, sorters[0], queries);
      }
  craster_destroy(&c);
  splat_scene_free(&s);
  ctx.vk.fn.vkDestroyQueryPool(ctx.device, queries, NULL);
  for (uint32_t i = 0; i < nsorters; i++) splatsort_destroy(sorters[i]);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  return check_report("test_craster");
}
