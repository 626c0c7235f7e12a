/* test_render_storage.c: how the renderer stores splats on the GPU (test_render's storage test):
 * bytes per splat by buffer at each SH precision and degree against the layout's formula, the
 * projection at 32- and 8-bit SH against the CPU mirror of the stored values, and images at
 * each precision against the CPU reference and against the default (16-bit) path. */
#include "render_common.h"

#include "image.h"
#include "refrender.h"
#include "renderer_debug.h"
#include "splat_project.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t PRECISIONS[3] = {32, 16, 8};

static splat_renderer *storage_renderer(const render_args *a, uint32_t precision) {
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)a->ar->sorters,
                                   .sorter_count = a->ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .sh_precision = precision};
  splat_renderer *r;
  VK_CHECK(splat_renderer_create(&ci, &r));
  splat_renderer_debug_enable(r); /* the projection cases read its buffers back */
  return r;
}

/* The layout written out independently of the renderer: 16 + 16 bytes, then 3 (d + 1)^2 SH
 * values at precision/8 bytes each, rounded up to whole words; 8-bit: 96 floats a chunk. */
static uint64_t sh_bytes_per_splat(uint32_t precision, uint32_t degree) {
  uint32_t values = 3 * (degree + 1) * (degree + 1);
  return (values * precision / 8 + 3) / 4 * 4;
}

/* Bytes per splat by buffer from splat_renderer_memory against the formula; prints the table. */
static void storage_bytes(const render_args *a) {
  splat_renderer_create_info bad = {.physical_device = ctx.physical_device, .device = ctx.device,
                                    .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                    .sorters = (const splatsort *const *)a->ar->sorters,
                                    .sorter_count = a->ar->sorter_count, .log = renderer_log, .sh_precision = 12};
  splat_renderer *none = (splat_renderer *)&bad;
  CHECK(splat_renderer_create(&bad, &none) == VK_ERROR_VALIDATION_FAILED_EXT && none == NULL,
        "sh_precision 12 was accepted");
  splat_renderer_memory_info m;
  CHECK(splat_renderer_memory(NULL, &m) == VK_ERROR_VALIDATION_FAILED_EXT, "memory(NULL)");
  printf("  GPU bytes per splat (positions + shapes + SH; 8-bit: + 384 B of tables per object chunk); "
         "before this layout: 48 + the 16-bit SH\n");
  printf("  %-9s %10s %10s %10s\n", "SH degree", "32-bit SH", "16-bit SH", "8-bit SH");
  uint64_t table[4][3];
  for (uint32_t p = 0; p < 3; p++) {
    splat_renderer *r = storage_renderer(a, PRECISIONS[p]);
    for (uint32_t d = 0; d <= 3; d++) {
      splat_scene s;
      const uint32_t n = 1000;
      gen_object_scene(&s, n, d);
      VK_CHECK(splat_renderer_set_scene(r, &s));
      VK_CHECK(splat_renderer_memory(r, &m));
      uint64_t header = PRECISIONS[p] == 8 ? 384 : 0, sh = sh_bytes_per_splat(PRECISIONS[p], d);
      CHECK(m.splats == n && m.positions == 16ull * n && m.shapes == 16ull * n && m.sh == sh * n + header,
            "%u-bit SH degree %u: %u splats, %llu + %llu + %llu bytes; expected %llu + %llu + %llu", PRECISIONS[p], d,
            m.splats, (unsigned long long)m.positions, (unsigned long long)m.shapes, (unsigned long long)m.sh,
            16ull * n, 16ull * n, (unsigned long long)(sh * n + header));
      CHECK(m.frame > 0, "no frame buffers reported");
      table[d][p] = 32 + sh;
      splat_scene_free(&s);
    }
    vkDeviceWaitIdle(ctx.device);
    splat_renderer_destroy(r);
  }
  for (uint32_t d = 0; d <= 3; d++)
    printf("  %-9u %10llu %10llu %10llu   (was %llu)\n", d, (unsigned long long)table[d][0],
           (unsigned long long)table[d][1], (unsigned long long)table[d][2],
           (unsigned long long)(48 + sh_bytes_per_splat(16, d)));
}

/* Projection cases on renderers storing 32- and 8-bit SH: the records against the CPU mirror. */
static void storage_projection(const render_args *a) {
  splat_renderer *kept = renderer;
  for (uint32_t p = 0; p < 3; p += 2) {
    renderer = storage_renderer(a, PRECISIONS[p]);
    test_sh_precision = PRECISIONS[p];
    uint32_t c0 = 20 + 3 * (p / 2);
    render_projection_case(c0, 3000 + (uint32_t)(next_u64() % 2000), 3, -1, 0);
    render_projection_case(c0 + 1, 3000 + (uint32_t)(next_u64() % 2000), 1, 1, 1);
    render_projection_case(c0 + 2, 3000 + (uint32_t)(next_u64() % 2000), 0, -1, 1);
    vkDeviceWaitIdle(ctx.device);
    splat_renderer_destroy(renderer);
  }
  renderer = kept;
  test_sh_precision = 16;
}

typedef struct storage_psnr {
  double ref[3];     /* each precision's image against the CPU reference of the scene as given */
  double vs16[3];    /* against the 16-bit path's image */
} storage_psnr;

/* One view at every precision (renderers rs[], 16-bit at index 1): PSNRs, lowest kept in *lo. */
static void storage_view(splat_renderer *const rs[3], const splat_scene *s, const splat_camera *cam,
                         storage_psnr *lo) {
  size_t bytes = (size_t)cam->width * cam->height * 4;
  uint8_t *ref = malloc(bytes), *img[3];
  CHECK(refrender_render_rgba8(s, cam, (int)s->sh_degree, BACKGROUND, ref, NULL) == 0, "refrender");
  splat_renderer *kept = renderer;
  for (uint32_t p = 0; p < 3; p++) {
    renderer = rs[p];
    img[p] = malloc(bytes);
    render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img[p]);
    CHECK(!image_is_blank(img[p], cam->width, cam->height), "%u-bit SH: blank image", PRECISIONS[p]);
  }
  renderer = kept;
  for (uint32_t p = 0; p < 3; p++) {
    lo->ref[p] = fmin(lo->ref[p], image_psnr(img[p], ref, cam->width, cam->height));
    lo->vs16[p] = fmin(lo->vs16[p], image_psnr(img[p], img[1], cam->width, cam->height));
  }
  if (write_images) save_images("storage_8bit", cam, img[2], img[1], "16bit");
  for (uint32_t p = 0; p < 3; p++) free(img[p]);
  free(ref);
}

/* A scene's four views at each precision; prints the lowest PSNRs. generated: 8-bit must reach
 * 40 dB against the 16-bit path (on real scenes it is reported, with a floor that catches a
 * broken decode). */
static void storage_scene(splat_renderer *const rs[3], const char *name, const splat_scene *s, int generated) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 256, 192, cams, 4);
  CHECK(nc == 4, "%s: cameras", name);
  for (uint32_t p = 0; p < 3; p++) VK_CHECK(splat_renderer_set_scene(rs[p], s));
  storage_psnr lo = {{1e9, 1e9, 1e9}, {1e9, 1e9, 1e9}};
  for (uint32_t k = 0; k < nc; k++) storage_view(rs, s, &cams[k], &lo);
  printf("  %-36s SH %u  vs reference: 32-bit %6.2f  16-bit %6.2f  8-bit %6.2f dB;  vs 16-bit: 32-bit %6.2f  "
         "8-bit %6.2f dB\n", name, s->sh_degree, lo.ref[0], lo.ref[1], lo.ref[2], lo.vs16[0], lo.vs16[2]);
  CHECK(lo.ref[1] >= 40.0, "%s: 16-bit SH: %.2f dB against the reference < 40", name, lo.ref[1]);
  CHECK(lo.ref[0] >= lo.ref[1] - 0.5, "%s: 32-bit SH %.2f dB, 16-bit %.2f dB", name, lo.ref[0], lo.ref[1]);
  double floor8 = generated ? 40.0 : 30.0;
  CHECK(lo.vs16[2] >= floor8, "%s: 8-bit SH: %.2f dB against the 16-bit path < %.0f", name, lo.vs16[2], floor8);
}

static void storage_images(const render_args *a) {
  splat_renderer *rs[3] = {storage_renderer(a, 32), renderer, storage_renderer(a, 8)};
  for (uint32_t d = 0; d <= 3; d += 3) {
    splat_scene s;
    gen_object_scene(&s, d ? 3000 : 800, d);
    storage_scene(rs, d ? "generated3" : "generated0", &s, 1);
    splat_scene_free(&s);
  }
  for (uint32_t i = 0; i < a->nscenes; i++) {
    splat_scene s;
    if (load_scene(a->scenes[i], &s) != 0) {
      failures++;
      continue;
    }
    storage_scene(rs, base_name(a->scenes[i]), &s, 0);
    splat_scene_free(&s);
  }
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(rs[0]);
  splat_renderer_destroy(rs[2]);
}

void render_test_storage(const render_args *a) {
  storage_bytes(a);
  storage_projection(a);
  storage_images(a);
}
