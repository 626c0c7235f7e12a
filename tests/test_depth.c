/* The depth-sort stage (splatsort_depth.h) against a CPU reference: the visible set (near plane,
 * frustum with margin, opacity) and the back-to-front order, for view-depth and radial keys,
 * 32-bit and quantised, with OneSweep (where the device has it) and quaternary. Points are
 * kept clear of the cull boundaries, so float rounding cannot decide a case. */
#include "check.h"
#include "sort_harness.h"
#include "splatsort_depth.h"
#include "util.h"

#include <math.h>
#include <string.h>

static vkh_context ctx;

/* A camera at `eye` looking down +z: clip = (1.5 (x - ex), 1.5 (y - ey), 0, z - ez). */
static void view_proj(const float eye[3], float m[16]) {
  memset(m, 0, 16 * sizeof(float));
  m[0] = 1.5f, m[5] = 1.5f, m[11] = 1.0f;
  m[12] = -1.5f * eye[0], m[13] = -1.5f * eye[1], m[15] = -eye[2];
}

typedef struct reference {
  uint8_t *visible;
  float *key;     /* view depth or distance */
  uint32_t count; /* visible */
  float lo, hi;   /* key range of the visible */
} reference;

static void make_points(float *c, uint32_t n, const float eye[3], uint64_t seed, reference *ref) {
  ref->count = 0, ref->lo = INFINITY, ref->hi = 0;
  for (uint32_t i = 0; i < n; i++) {
    float x, y, z, w, lim;
    do {
      x = (float)(splitmix64(&seed) % 40001) / 1000.0f - 20.0f;
      y = (float)(splitmix64(&seed) % 40001) / 1000.0f - 20.0f;
      z = (float)(splitmix64(&seed) % 60001) / 1000.0f - 20.0f;
      w = z - eye[2], lim = 1.3f * w;
    } while (fabsf(w - 0.2f) < 1e-2f || fabsf(fabsf(1.5f * (x - eye[0])) - lim) < 1e-2f ||
             fabsf(fabsf(1.5f * (y - eye[1])) - lim) < 1e-2f);
    float opacity = i % 5 == 0 ? 0.002f : 0.8f;
    c[4 * i] = x, c[4 * i + 1] = y, c[4 * i + 2] = z, c[4 * i + 3] = opacity;
    ref->visible[i] = w > 0.2f && fabsf(1.5f * (x - eye[0])) <= lim && fabsf(1.5f * (y - eye[1])) <= lim &&
                      opacity >= 1.0f / 255.0f;
  }
}

/* One run of the stage; checks count, set and order against the CPU. */
static void run_case(const splatsort *sorter, uint32_t n, uint32_t bits, splatsort_depth_key_mode mode,
                     uint64_t seed) {
  splatsort_depth_create_info dci = {.sorter = sorter, .flags = vkh_sort_flags(&ctx), .log = vkh_sort_log};
  splatsort_depth *stage;
  VK_CHECK(splatsort_depth_create(&dci, &stage));
  splatsort_depth_memory_requirements mr;
  uint32_t max_count = n ? n : 1;
  VK_CHECK(splatsort_depth_get_memory_requirements(stage, max_count, &mr));
  vkh_buffer centres = vkh_buffer_create(&ctx, 16ull * max_count, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, "c");
  vkh_buffer scratch = vkh_buffer_create(&ctx, mr.scratch_size, mr.scratch_usage, false, "scratch");
  vkh_buffer indices = vkh_buffer_create(&ctx, mr.indices_size, mr.indices_usage, true, "indices");
  vkh_buffer draw = vkh_buffer_create(&ctx, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, "draw");
  const float eye[3] = {0.5f, -0.25f, -4.0f};
  reference ref = {.visible = calloc(max_count, 1), .key = calloc(max_count, sizeof(float))};
  make_points(centres.mapped, n, eye, seed, &ref);
  const float *c = centres.mapped;
  for (uint32_t i = 0; i < n; i++) {
    if (!ref.visible[i]) continue;
    float dx = c[4 * i] - eye[0], dy = c[4 * i + 1] - eye[1], dz = c[4 * i + 2] - eye[2];
    ref.key[i] = mode == SPLATSORT_DEPTH_KEY_RADIAL ? sqrtf(dx * dx + dy * dy + dz * dz) : dz;
    ref.count++, ref.lo = fminf(ref.lo, ref.key[i]), ref.hi = fmaxf(ref.hi, ref.key[i]);
  }
  splatsort_depth_info di = {.max_count = max_count, .count = n, .centers = {centres.buffer, 0, centres.size},
                             .center_stride = 16, .opacity_cull = 1, .near_w = 0.2f, .key_bits = bits,
                             .key_mode = mode, .camera_position = {eye[0], eye[1], eye[2]},
                             .scratch = {scratch.buffer, 0, mr.scratch_size},
                             .indices = {indices.buffer, 0, mr.indices_size}, .draw_count = {draw.buffer, 4, 4}};
  view_proj(eye, di.view_proj);
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splatsort_depth_cmd_sort(stage, cmd, &di, NULL));
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                       NULL);
  vkh_submit_wait(&ctx, cmd);

  uint32_t got = ((const uint32_t *)draw.mapped)[1];
  const char *mname = mode == SPLATSORT_DEPTH_KEY_RADIAL ? "radial" : "view depth";
  const char *sname = splatsort_algorithm_name(splatsort_get_algorithm(sorter));
  CHECK(got == ref.count, "%s %s %u-bit n=%u: %u visible, expected %u", sname, mname, bits, n, got, ref.count);
  /* each visible splat once, farthest first (quantised: within two key steps) */
  float step = bits < 32 ? 2.0f * (ref.hi - ref.lo) / (float)((1u << bits) - 1) : 1e-5f * ref.hi;
  const uint32_t *idx = indices.mapped;
  uint32_t bad = 0;
  for (uint32_t k = 0; k < got && k < ref.count; k++) {
    uint32_t i = idx[k];
    bool ok = i < n && ref.visible[i] == 1 && (k == 0 || ref.key[i] <= ref.key[idx[k - 1]] + step);
    if (i < n) ref.visible[i] = 2;
    if (!ok && bad++ < 3) fprintf(stderr, "  %s %s %u-bit: index %u at %u out of place\n", sname, mname, bits, i, k);
  }
  CHECK(bad == 0, "%s %s %u-bit n=%u: %u misplaced", sname, mname, bits, n, bad);
  printf("%s %s keys, %u bits, %u splats: %u visible%s\n", sname, mname, bits, n, got, bad ? " FAIL" : "");
  free(ref.visible);
  free(ref.key);
  vkh_buffer *bufs[] = {&centres, &scratch, &indices, &draw};
  for (int i = 0; i < 4; i++) vkh_buffer_destroy(&ctx, bufs[i]);
  splatsort_depth_destroy(stage);
}

int main(void) {
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  splatsort *sorters[VKH_MAX_SORTERS];
  uint32_t count = vkh_create_sorters(&ctx, sorters);
  uint64_t seed = 20261123;
  for (uint32_t s = 0; s < count; s++)
    for (int mode = 0; mode < 2; mode++) {
      run_case(sorters[s], 0, 32, (splatsort_depth_key_mode)mode, seed++);
      run_case(sorters[s], 3000, 32, (splatsort_depth_key_mode)mode, seed++);
      run_case(sorters[s], 40000, 32, (splatsort_depth_key_mode)mode, seed++);
      run_case(sorters[s], 40000, 16, (splatsort_depth_key_mode)mode, seed++);
      run_case(sorters[s], 20000, 24, (splatsort_depth_key_mode)mode, seed++);
    }
  for (uint32_t s = 0; s < count; s++) splatsort_destroy(sorters[s]);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  return check_report("test_depth");
}
