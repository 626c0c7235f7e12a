/* test_render_upload.c: the scene upload (test_render's upload test): the GPU buffers an upload
 * writes are byte for byte the same whatever the number of packing threads, at every SH precision
 * and degree, with counts that the thread counts do not divide, fewer splats than threads, one
 * splat, several chunks and a staging ring wrapped many times. */
#include "render_common.h"

#include "renderer_debug.h"
#include "splat_project.h"

#include <math.h>
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

/* SH values at every half's edges: each finite half, the midpoints between neighbours (ties
 * round to even) and a float ulp either side, subnormal halves, past the largest half up to
 * where it becomes infinity (65,520 and beyond are refused: one such value, and the scene is),
 * and random floats over many exponents: the GPU's 16-bit SH words hold splat_float_to_half's bits
 * of each (the upload's vector conversion against the scalar one tested in test_project). */
static void upload_halves(splat_renderer *r) {
  enum { PER = 48 };
  size_t want = 65536u * 4 + 40000, n = (want + PER - 1) / PER;
  splat_scene s;
  gen_object_scene(&s, (uint32_t)n, 3);
  size_t k = 0, values = n * PER;
  uint64_t seed = 12345;
  for (uint32_t h = 0; h < 65536 && k + 4 <= values; h++) {
    float f = splat_half_to_float((uint16_t)h), g = splat_half_to_float((uint16_t)(h + 1));
    if (!isfinite(f)) continue;
    s.sh[k++] = f;
    if (!isfinite(g) || (h & 0x7fffu) == 0x7fffu || ((h + 1) & 0x7fffu) == 0) {
      /* up to where a half becomes infinity (65,520; from there the upload refuses the scene) */
      s.sh[k++] = nextafterf(copysignf(65520.0f, f), 0.0f);
      s.sh[k++] = copysignf(65512.0f, f); /* the midpoint between the largest half and infinity */
      s.sh[k++] = copysignf(65519.0f, f);
      continue;
    }
    float mid = (float)(((double)f + (double)g) / 2);
    s.sh[k++] = mid, s.sh[k++] = nextafterf(mid, f), s.sh[k++] = nextafterf(mid, g);
  }
  while (k < values) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t bits = (uint32_t)(seed >> 32);
    bits = (bits & 0x807fffffu) | ((uint32_t)(96 + (bits >> 23) % 46) << 23); /* 2^-31 .. 2^15: a half holds them */
    float f;
    memcpy(&f, &bits, 4);
    s.sh[k++] = f;
  }
  splat_renderer_debug_set_chunk_splats(r, 0);
  splat_renderer_debug_set_upload_piece_splats(r, 0);
  splat_renderer_debug_set_upload_threads(r, 0);
  VK_CHECK(splat_renderer_set_scene(r, &s));
  size_t bytes;
  uint8_t *all = read_object(r, &bytes);
  const uint16_t *sh = (const uint16_t *)(const void *)(all + 32 * n);
  size_t bad = 0, first = 0;
  CHECK(bytes == 32 * n + 2 * values, "halves: %zu bytes read back for %zu splats", bytes, n);
  for (size_t i = 0; i < values && bytes == 32 * n + 2 * values; i++)
    if (sh[i] != splat_float_to_half(s.sh[i]) && bad++ == 0) first = i;
  CHECK(bad == 0, "halves: %zu of %zu SH values differ from splat_float_to_half, first %.9g -> %04x, want %04x", bad,
        values, (double)s.sh[first], sh[first], splat_float_to_half(s.sh[first]));
  free(all);
  s.sh[values / 2] = -65520.0f;
  CHECK(splat_renderer_set_scene(r, &s) == VK_ERROR_VALIDATION_FAILED_EXT, "halves: an SH value of -65520 accepted");
  splat_scene_free(&s);
  printf("  16-bit SH: %zu values at every half's edges stored as splat_float_to_half gives\n", values);
}

void render_test_upload(const render_args *a) {
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
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
    if (precisions[p] == 16) upload_halves(r);
    splat_renderer_destroy(r);
  }
  printf("  uploads at 32/16/8-bit SH, degrees 0 and 3, 1..10007 splats, 1 chunk and 3: "
         "2, 3, 4, 7, 16 and the default threads give one thread's bytes\n");
}
