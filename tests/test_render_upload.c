/* test_render_upload.c: the scene upload (test_render's upload test): the GPU buffers an upload
 * writes are byte for byte the same whatever the number of packing threads, at every SH precision
 * and degree, with counts that the thread counts do not divide, fewer splats than threads, one
 * splat, several chunks and a staging ring wrapped many times. */
#include "render_common.h"

#include "renderer_debug.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CHUNKS = 64 };

/* Every chunk's three buffers of object 0, read back into one allocation (*bytes long). */
static uint8_t *read_object(splat_renderer *r, size_t *bytes) {
  uint32_t chunks = splat_renderer_debug_chunks(r, 0);
  CHECK(chunks > 0 && chunks <= MAX_CHUNKS, "upload: %u chunks", chunks);
  VkBuffer b[MAX_CHUNKS][3];
  VkDeviceSize size[MAX_CHUNKS][3];
  size_t total = 0;
  for (uint32_t c = 0; c < chunks && c < MAX_CHUNKS; c++) {
    VK_CHECK(splat_renderer_debug_chunk_buffers(r, 0, c, b[c], size[c]));
    total += size[c][0] + size[c][1] + size[c][2];
  }
  uint8_t *out = malloc(total ? total : 1), *at = out;
  for (uint32_t c = 0; c < chunks && c < MAX_CHUNKS; c++)
    for (int k = 0; k < 3; k++) {
      read_buffer(b[c][k], 0, size[c][k], at);
      at += size[c][k];
    }
  *bytes = total;
  return out;
}

/* One scene uploaded with 1 thread and with each of `threads`: the same bytes each time. */
static void upload_case(splat_renderer *r, uint32_t precision, uint32_t n, uint32_t degree, uint32_t chunk_splats,
                        uint32_t piece_splats) {
  static const uint32_t threads[] = {2, 3, 4, 7, 16, 0};
  splat_scene s;
  gen_object_scene(&s, n, degree);
  splat_renderer_debug_set_chunk_splats(r, chunk_splats);
  splat_renderer_debug_set_upload_piece_splats(r, piece_splats);
  splat_renderer_debug_set_upload_threads(r, 1);
  VK_CHECK(splat_renderer_set_scene(r, &s));
  size_t bytes, other_bytes;
  uint8_t *one = read_object(r, &bytes);
  size_t zeros = 0;
  for (size_t i = 0; i < 16ull * n; i++) zeros += one[i] == 0; /* positions of chunk 0 */
  CHECK(bytes > 0 && zeros < 16ull * n, "upload: %u-bit SH degree %u, %u splats: one thread's buffers are empty",
        precision, degree, n);
  for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
    splat_renderer_debug_set_upload_threads(r, threads[t]);
    VK_CHECK(splat_renderer_set_scene(r, &s));
    uint8_t *other = read_object(r, &other_bytes);
    size_t first = 0;
    while (first < bytes && first < other_bytes && one[first] == other[first]) first++;
    CHECK(other_bytes == bytes && first == bytes,
          "upload: %u-bit SH degree %u, %u splats (chunks of %u, pieces of %u): %u threads differ from one at byte "
          "%zu of %zu",
          precision, degree, n, chunk_splats, piece_splats, threads[t], first, bytes);
    free(other);
  }
  free(one);
  splat_scene_free(&s);
}

void render_test_upload(const render_args *a) {
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)a->ar->sorters,
                                   .sorter_count = a->ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .upload_threads = SPLAT_MAX_UPLOAD_THREADS + 1};
  splat_renderer *r = (splat_renderer *)&ci;
  CHECK(splat_renderer_create(&ci, &r) == VK_ERROR_VALIDATION_FAILED_EXT && r == NULL,
        "upload_threads %u was accepted", ci.upload_threads);
  static const uint32_t precisions[] = {32, 16, 8};
  for (uint32_t p = 0; p < 3; p++) {
    ci.sh_precision = precisions[p];
    ci.upload_threads = 5; /* the create info's count; the cases set theirs */
    VK_CHECK(splat_renderer_create(&ci, &r));
    splat_renderer_debug_enable(r);
    for (uint32_t degree = 0; degree <= 3; degree += 3) {
      upload_case(r, precisions[p], 1, degree, 0, 0);
      upload_case(r, precisions[p], 3, degree, 0, 0);       /* fewer splats than threads */
      upload_case(r, precisions[p], 10007, degree, 0, 0);   /* one piece, no count divides it */
      upload_case(r, precisions[p], 10007, degree, 4096, 997); /* 3 chunks, 12 pieces: the ring wraps */
    }
    splat_renderer_destroy(r);
  }
  printf("  uploads at 32/16/8-bit SH, degrees 0 and 3, 1..10007 splats, 1 chunk and 3: "
         "2, 3, 4, 7, 16 and the default threads give one thread's bytes\n");
}
