/* test_render_stream.c: the streamed object (test_render's stream test): begin_object and
 * append_object in parts of many sizes give set_scene's GPU bytes, a frame of k resident splats
 * is the image of a scene of those k, finish_object, 8-bit SH's tables from the first part and
 * their error bound, the errors (resident unchanged), and the upload statistics. */
#include "render_common.h"

#include "renderer_debug.h"
#include "splat_project.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CHUNKS = 64, W = 96, H = 72 };

/* Splats [first, first + n) of s, as a part (the arrays point into s). */
static splat_scene part_of(const splat_scene *s, uint32_t first, uint32_t n) {
  splat_scene p = *s;
  size_t v = (size_t)s->sh_coeffs * 3;
  p.count = n;
  p.positions = s->positions + 3ull * first, p.scales = s->scales + 3ull * first;
  p.rotations = s->rotations + 4ull * first, p.opacities = s->opacities + first, p.sh = s->sh + v * first;
  return p;
}

/* Every chunk's three buffers of an object (their bytes in use), read back into one allocation. */
static uint8_t *read_object(splat_renderer *r, uint32_t id, size_t *bytes) {
  uint32_t chunks = splat_renderer_debug_chunks(r, id);
  CHECK(chunks > 0 && chunks <= MAX_CHUNKS, "stream: %u chunks", chunks);
  size_t total = 0;
  VkBuffer b[MAX_CHUNKS][3];
  VkDeviceSize size[MAX_CHUNKS][3];
  for (uint32_t c = 0; c < chunks && c < MAX_CHUNKS; c++) {
    VK_CHECK(splat_renderer_debug_chunk_buffers(r, id, c, b[c], size[c]));
    total += size[c][0] + size[c][1] + size[c][2];
  }
  uint8_t *out = malloc(total ? total : 1), *at = out;
  for (uint32_t c = 0; c < chunks && c < MAX_CHUNKS; c++)
    for (int k = 0; k < 3; k++) read_buffer(b[c][k], 0, size[c][k], at), at += size[c][k];
  *bytes = total;
  return out;
}

/* Part sizes that cover 1, 2, odd sizes, pieces and chunks crossed; cycled. */
static const uint32_t PART_SIZES[] = {1, 2, 97, 3, 1000, 1, 517, 4099, 31, 2048};

/* Fills an object's positions and shapes with big opaque splats at (0.5, 0.5, 0.5) (the
 * floats 0.5; halves 1.0 and a quaternion of 0.47s), so a frame that draws a splat that is
 * not resident shows it. */
static void poison(splat_renderer *r, uint32_t id) {
  VkCommandBuffer cmd = vkh_begin(&ctx);
  for (uint32_t c = 0; c < splat_renderer_debug_chunks(r, id); c++) {
    VkBuffer b[3];
    VkDeviceSize size[3];
    VK_CHECK(splat_renderer_debug_chunk_buffers(r, id, c, b, size));
    vkCmdFillBuffer(cmd, b[0], 0, size[0], 0x3f000000u);
    vkCmdFillBuffer(cmd, b[1], 0, size[1], 0x3c003c00u);
  }
  vkh_submit_wait(&ctx, cmd);
}

/* Begins an object of `total` splats of s's degree (poisoned) and appends s's first `upto` in parts. */
static uint32_t stream(splat_renderer *r, const splat_scene *s, uint32_t total, uint32_t upto) {
  splat_object_desc d = {.count = total, .sh_degree = s->sh_degree, .flags = s->flags};
  uint32_t id = UINT32_MAX;
  VK_CHECK(splat_renderer_begin_object(r, &d, &id));
  CHECK(splat_renderer_object_resident(r, id) == 0, "stream: a new object has %u resident",
        splat_renderer_object_resident(r, id));
  if (splat_renderer_debug_chunks(r, id)) poison(r, id); /* with splat_renderer_debug_enable */
  for (uint32_t at = 0, k = 0; at < upto; k++) {
    uint32_t n = PART_SIZES[k % (sizeof PART_SIZES / sizeof *PART_SIZES)];
    n = n < upto - at ? n : upto - at;
    splat_scene p = part_of(s, at, n);
    VK_CHECK(splat_renderer_append_object(r, id, &p));
    at += n;
    CHECK(splat_renderer_object_resident(r, id) == at, "stream: %u resident after appending up to %u",
          splat_renderer_object_resident(r, id), at);
  }
  return id;
}

/* The scene streamed in parts against set_scene: the same bytes (at 32- and 16-bit SH); also
 * through finish_object with fewer splats than begun. */
static void bytes_case(splat_renderer *r, uint32_t precision, uint32_t n, uint32_t degree, uint32_t chunk_splats,
                       uint32_t piece_splats) {
  splat_scene s;
  gen_object_scene(&s, n, degree);
  splat_renderer_debug_set_chunk_splats(r, chunk_splats);
  splat_renderer_debug_set_upload_piece_splats(r, piece_splats);
  for (int finish = 0; finish < 2; finish++) {
    uint32_t m = finish ? n - n / 3 : n; /* finish: an object begun with n that gets m */
    splat_scene whole = part_of(&s, 0, m);
    VK_CHECK(splat_renderer_set_scene(r, &whole));
    size_t bytes, other_bytes;
    uint8_t *one = read_object(r, 0, &bytes);
    VK_CHECK(splat_renderer_remove_object(r, 0));
    uint32_t id = stream(r, &s, n, m);
    if (finish) VK_CHECK(splat_renderer_finish_object(r, id));
    uint8_t *other = read_object(r, id, &other_bytes);
    size_t first = 0;
    while (first < bytes && first < other_bytes && one[first] == other[first]) first++;
    CHECK(other_bytes == bytes && first == bytes,
          "stream: %u-bit SH degree %u, %u of %u splats (chunks of %u, pieces of %u): streamed bytes differ from "
          "set_scene's at byte %zu of %zu (%zu streamed)",
          precision, degree, m, n, chunk_splats, piece_splats, first, bytes, other_bytes);
    free(one);
    free(other);
    VK_CHECK(splat_renderer_remove_object(r, id));
  }
  splat_scene_free(&s);
}

/* 8-bit SH: the tables are the first part's range; every later value decodes within half a step
 * of itself clamped to that range (the documented bound). The first part holds splats 0..f-1,
 * the others are widened so some fall outside. */
static void sh8_case(splat_renderer *r, uint32_t n, uint32_t f) {
  splat_scene s;
  gen_object_scene(&s, n, 3);
  uint32_t v = s.sh_coeffs * 3;
  for (size_t i = (size_t)f * v; i < (size_t)n * v; i++) s.sh[i] *= 1.5f;
  splat_renderer_debug_set_chunk_splats(r, 0);
  splat_renderer_debug_set_upload_piece_splats(r, 0);
  splat_scene first = part_of(&s, 0, f), rest = part_of(&s, f, n - f);
  float scale[48], offset[48];
  splat_sh8_range(&first, scale, offset);
  splat_object_desc d = {.count = n, .sh_degree = 3};
  uint32_t id;
  VK_CHECK(splat_renderer_begin_object(r, &d, &id));
  VK_CHECK(splat_renderer_append_object(r, id, &first));
  VK_CHECK(splat_renderer_append_object(r, id, &rest));
  size_t bytes;
  uint8_t *b = read_object(r, id, &bytes);
  const uint8_t *sh = b + 32ull * n; /* one chunk: positions, shapes, then SH with its header */
  uint32_t words = (v + 3) / 4, header = 4 * 96;
  CHECK(bytes == 32ull * n + header + 4ull * words * n, "stream sh8: %zu bytes", bytes);
  CHECK(!memcmp(sh, scale, sizeof scale) && !memcmp(sh + sizeof scale, offset, sizeof offset),
        "stream sh8: the tables are not the first part's range");
  double worst = 0;
  uint32_t outside = 0;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t h = 0; h < v; h++) {
      float x = s.sh[(size_t)i * v + h], lo = offset[h], hi = offset[h] + 255 * scale[h];
      float c = x < lo ? lo : x > hi ? hi : x;
      outside += c != x;
      float got = splat_sh8_decode(sh[header + 4ull * words * i + h], scale[h], offset[h]);
      double err = fabs((double)got - c) - 0.5 * scale[h];
      worst = err > worst ? err : worst;
    }
  CHECK(worst <= 1e-6 && outside > 0, "stream sh8: a value %g beyond half a step of its clamped self (%u outside)",
        worst, outside);
  free(b);
  VK_CHECK(splat_renderer_remove_object(r, id));
  splat_scene_free(&s);
}

/* A frame with k of n resident is the image of the scene of the first k splats, exactly. */
static void image_case(splat_renderer *r, uint32_t n) {
  splat_scene s;
  splat_camera cams[4];
  generated_with_cameras(&s, n, W, H, cams);
  splat_renderer_debug_set_chunk_splats(r, 1024);
  splat_renderer_debug_set_upload_piece_splats(r, 300);
  size_t px = (size_t)W * H * 4;
  uint16_t *a = malloc(px * 2), *b = malloc(px * 2);
  uint8_t *rgba = malloc(px);
  splat_renderer *saved = renderer;
  renderer = r;
  /* begun, nothing resident yet (poisoned): a frame of the background alone */
  splat_object_desc d0 = {.count = n, .sh_degree = s.sh_degree};
  uint32_t id0;
  VK_CHECK(splat_renderer_begin_object(r, &d0, &id0));
  poison(r, id0);
  for (int raster = SPLAT_RASTER_GRAPHICS; raster <= SPLAT_RASTER_COMPUTE; raster++) {
    splat_raster_path keep = frame_opts.raster;
    frame_opts.raster = (splat_raster_path)raster;
    render_gpu(&cams[0], SPLATSORT_ALGORITHM_AUTO, 32, -1, b, rgba);
    frame_opts.raster = keep;
    size_t drawn = 0;
    for (size_t i = 4; i < px; i++) drawn += b[i] != b[i % 4];
    CHECK(drawn == 0, "stream: a frame (raster %d) with no splat resident drew %zu values off the background", raster,
          drawn);
  }
  VK_CHECK(splat_renderer_remove_object(r, id0));
  uint16_t *single = malloc(px * 2);
  const uint32_t ks[] = {1, 777, n / 2 + 5, n};
  for (uint32_t t = 0; t < 4; t++) {
    uint32_t k = ks[t];
    splat_scene first = part_of(&s, 0, k);
    VK_CHECK(splat_renderer_set_scene(r, &first));
    render_gpu(&cams[0], SPLATSORT_ALGORITHM_AUTO, 32, -1, a, rgba);
    VK_CHECK(splat_renderer_remove_object(r, 0));
    uint32_t id = stream(r, &s, n, k);
    render_gpu(&cams[0], SPLATSORT_ALGORITHM_AUTO, 32, -1, b, rgba);
    size_t d = 0;
    while (d < px && a[d] == b[d]) d++;
    CHECK(d == px, "stream: %u of %u resident: the image differs from the %u-splat scene's at half %zu", k, n, k, d);
    if (t == 0) memcpy(single, b, px * 2);
    VK_CHECK(splat_renderer_remove_object(r, id));
  }
  size_t changed = 0;
  for (size_t i = 0; i < px; i++) changed += single[i] != b[i];
  free(single);
  renderer = saved;
  CHECK(changed > 0, "stream: the full scene's image is the one-splat one's");
  free(a), free(b), free(rgba);
  splat_scene_free(&s);
}

/* The errors, each refused with the resident count unchanged, and begin_object over the budget. */
static void error_cases(splat_renderer *r, const render_args *a) {
  splat_scene s;
  gen_object_scene(&s, 100, 1);
  splat_renderer_debug_set_chunk_splats(r, 0);
  uint32_t id = stream(r, &s, 100, 40);
  splat_scene over = part_of(&s, 40, 60);
  over.count = 61;
  CHECK(splat_renderer_append_object(r, id, &over) == VK_ERROR_VALIDATION_FAILED_EXT, "stream: a part past the count");
  splat_scene deg;
  gen_object_scene(&deg, 5, 3);
  CHECK(splat_renderer_append_object(r, id, &deg) == VK_ERROR_VALIDATION_FAILED_EXT && strstr(last_log, "degree"),
        "stream: a part of another SH degree: %s", last_log);
  splat_scene bad = part_of(&s, 40, 10);
  float keep = bad.opacities[3];
  bad.opacities[3] = 2.0f;
  CHECK(splat_renderer_append_object(r, id, &bad) == VK_ERROR_VALIDATION_FAILED_EXT && strstr(last_log, "splat 43:"),
        "stream: a bad opacity named by its index in the object: %s", last_log);
  bad.opacities[3] = keep;
  CHECK(splat_renderer_append_object(r, id + 1, &bad) == VK_ERROR_VALIDATION_FAILED_EXT, "stream: append to no object");
  CHECK(splat_renderer_append_object(r, id, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "stream: a NULL part");
  CHECK(splat_renderer_object_resident(r, id) == 40, "stream: %u resident after the errors",
        splat_renderer_object_resident(r, id));
  splat_object_desc zero = {.count = 0}, deep = {.count = 5, .sh_degree = 4};
  uint32_t other = 77;
  CHECK(splat_renderer_begin_object(r, &zero, &other) == VK_ERROR_VALIDATION_FAILED_EXT && other == 77,
        "stream: begin with no splats");
  CHECK(splat_renderer_begin_object(r, &deep, &other) == VK_ERROR_VALIDATION_FAILED_EXT, "stream: begin at degree 4");
  CHECK(splat_renderer_finish_object(r, id + 1) == VK_ERROR_VALIDATION_FAILED_EXT, "stream: finish no object");
  splat_scene rest = part_of(&s, 40, 60);
  VK_CHECK(splat_renderer_append_object(r, id, &rest)); /* the object fills after its errors */
  CHECK(splat_renderer_object_resident(r, id) == 100, "stream: resident %u", splat_renderer_object_resident(r, id));
  CHECK(splat_renderer_append_object(r, id, &deg) == VK_ERROR_VALIDATION_FAILED_EXT, "stream: append to a full object");
  VK_CHECK(splat_renderer_remove_object(r, id));
  splat_scene_free(&deg);

  /* a budget that holds one object of 100 splats: a second begin is refused, the first stays */
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)a->ar->sorters,
                                   .sorter_count = a->ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .memory_budget = 1u << 20};
  splat_renderer *small;
  VK_CHECK(splat_renderer_create(&ci, &small));
  uint32_t first = stream(small, &s, 100, 100);
  splat_object_desc big = {.count = 20000, .sh_degree = 1};
  other = 77;
  CHECK(splat_renderer_begin_object(small, &big, &other) == VK_ERROR_OUT_OF_DEVICE_MEMORY && other == 77 &&
            strstr(last_log, "budget"),
        "stream: a begin over the budget: %s", last_log);
  CHECK(splat_renderer_object_resident(small, first) == 100 && splat_renderer_scene_count(small) == 100,
        "stream: the object before a refused begin changed");
  /* 9,300 SH-1 splats: 56 bytes each of arrays and ~56 of frame buffers, 1,041,600 bytes alone; beside
   * the 100 (5,600 bytes of arrays), with frame buffers for 9,400: 1,052,800, above 1 MiB */
  splat_object_desc alone = {.count = 9300, .sh_degree = 1};
  CHECK(splat_renderer_object_fits(small, &big, true) == VK_ERROR_OUT_OF_DEVICE_MEMORY &&
            splat_renderer_object_fits(small, &alone, true) == VK_SUCCESS &&
            splat_renderer_object_fits(small, &alone, false) == VK_ERROR_OUT_OF_DEVICE_MEMORY &&
            splat_renderer_object_fits(small, &zero, true) == VK_ERROR_VALIDATION_FAILED_EXT,
        "stream: object_fits: alone or beside the objects, in the budget or not");
  splat_renderer_destroy(small);
  splat_scene_free(&s);
}

/* The statistics of an upload: its splats and bytes (the layout's), times that add up. */
static void stats_case(splat_renderer *r) {
  splat_scene s;
  gen_object_scene(&s, 5000, 3);
  splat_renderer_debug_set_chunk_splats(r, 0);
  splat_renderer_debug_set_upload_piece_splats(r, 0);
  VK_CHECK(splat_renderer_set_scene(r, &s));
  splat_upload_stats st;
  VK_CHECK(splat_renderer_upload_stats(r, &st));
  uint64_t want = (32ull + 4ull * 24) * 5000; /* 16-bit SH-3: 48 halves, 24 words a splat */
  CHECK(st.splats == 5000 && st.bytes == want, "stream stats: %u splats, %llu bytes (want %llu)", st.splats,
        (unsigned long long)st.bytes, (unsigned long long)want);
  CHECK(st.total_s > 0 && st.validate_s > 0 && st.pack_s > 0 && st.wait_s >= 0 &&
            st.validate_s + st.pack_s + st.wait_s <= st.total_s && st.gb_per_s > 0,
        "stream stats: validate %g, pack %g, wait %g, total %g s, %g GB/s", st.validate_s, st.pack_s, st.wait_s,
        st.total_s, st.gb_per_s);
  CHECK(splat_renderer_upload_stats(r, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "stream stats: NULL out");
  splat_scene_free(&s);
}

void render_test_stream(const render_args *a) {
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)a->ar->sorters,
                                   .sorter_count = a->ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .upload_threads = 3};
  static const uint32_t precisions[] = {32, 16, 8};
  for (uint32_t p = 0; p < 3; p++) {
    ci.sh_precision = precisions[p];
    splat_renderer *r;
    VK_CHECK(splat_renderer_create(&ci, &r));
    splat_renderer_debug_enable(r);
    if (precisions[p] == 8) {
      sh8_case(r, 6000, 1500);
    } else {
      for (uint32_t degree = 0; degree <= 3; degree += 3) {
        bytes_case(r, precisions[p], 1, degree, 0, 0);
        bytes_case(r, precisions[p], 10007, degree, 0, 0);
        bytes_case(r, precisions[p], 10007, degree, 4096, 997); /* 3 chunks, parts across pieces and chunks */
      }
    }
    if (precisions[p] == 16) image_case(r, 6000), error_cases(r, a), stats_case(r);
    splat_renderer_destroy(r);
  }
  printf("  streamed objects: 32/16-bit SH bytes as set_scene's (1 and 10007 splats, parts of 1..4099, 3 chunks, "
         "finish_object), 8-bit tables from the first part within half a step, k of n resident drawn as a k-splat "
         "scene, errors leave resident, begin over a budget, upload statistics\n");
}
