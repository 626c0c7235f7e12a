/* The depth-sort stage (splatsort_depth.h) against a CPU reference: the visible set (near plane,
 * frustum with margin, opacity) and the back-to-front order, for view-depth and radial keys,
 * 32-bit and quantised, direct and indirect counts, with every sorter the device has; the
 * promised input order among equal depths; the timestamps in order. Points are kept clear of
 * the cull boundaries, so float rounding cannot decide a case.
 *
 * usage: test_depth [--three-pass | --force-fallback] [--onesweep-tuned]: the key pass as three
 * dispatches, or in one with every lookback falling back to counting its predecessors
 * (default: one pass); --onesweep-tuned: see tuned_onesweep(). */
#include "check.h"
#include "sort_harness.h"
#include "splatsort_depth.h"
#include "util.h"

#include <math.h>
#include <string.h>

static vkh_context ctx;
static uint32_t stage_flags; /* splatsort_depth_create_info::flags beside the harness's */

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

static void make_points(float *c, uint32_t n, const float eye[3], uint64_t seed, bool opaque, reference *ref) {
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
    float opacity = i % 5 == 0 && !opaque ? 0.002f : 0.8f;
    c[4 * i] = x, c[4 * i + 1] = y, c[4 * i + 2] = z, c[4 * i + 3] = opacity;
    ref->visible[i] = w > 0.2f && fabsf(1.5f * (x - eye[0])) <= lim && fabsf(1.5f * (y - eye[1])) <= lim &&
                      opacity >= 1.0f / 255.0f;
  }
}

/* The buffers of one stage run: centres (x, y, z, opacity), scratch, indices, the draw
 * arguments (the visible count at offset 4), the indirect count (at offset 4) and the queries. */
typedef struct stage_run {
  splatsort_depth *stage;
  splatsort_depth_memory_requirements mr;
  uint32_t max_count;
  vkh_buffer centres, scratch, indices, draw, count;
  VkQueryPool pool;
  uint32_t queries;
  VkDeviceSize centres_range; /* bound for the stage; 0: the whole buffer */
} stage_run;

static void stage_run_create(stage_run *sr, const splatsort *sorter, uint32_t max_count, uint32_t bits) {
  splatsort_depth_create_info dci = {.sorter = sorter, .flags = vkh_sort_flags(&ctx) | stage_flags, .log = vkh_sort_log};
  VK_CHECK(splatsort_depth_create(&dci, &sr->stage));
  sr->max_count = max_count;
  sr->centres_range = 0;
  VK_CHECK(splatsort_depth_get_memory_requirements(sr->stage, max_count, &sr->mr));
  sr->centres = vkh_buffer_create(&ctx, 16ull * max_count, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, "c");
  sr->scratch = vkh_buffer_create(&ctx, sr->mr.scratch_size, sr->mr.scratch_usage, false, "scratch");
  sr->indices = vkh_buffer_create(&ctx, sr->mr.indices_size, sr->mr.indices_usage, true, "indices");
  sr->draw = vkh_buffer_create(&ctx, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, "draw");
  /* only what the stage asks for: validation fails the test if that is not enough */
  sr->count = vkh_buffer_create(&ctx, 16, sr->mr.count_usage, true, "count");
  sr->queries = splatsort_depth_timestamp_count(sr->stage, bits);
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = sr->queries + 3};
  VK_CHECK(vkCreateQueryPool(ctx.device, &qpi, NULL, &sr->pool));
}

static void stage_run_destroy(stage_run *sr) {
  vkDestroyQueryPool(ctx.device, sr->pool, NULL);
  vkh_buffer *bufs[] = {&sr->centres, &sr->scratch, &sr->indices, &sr->draw, &sr->count};
  for (int i = 0; i < 5; i++) vkh_buffer_destroy(&ctx, bufs[i]);
  splatsort_depth_destroy(sr->stage);
}

/* Records the stage with di (buffers filled in here), waits, and checks that the timestamps
 * (at query 3 on) are in order. Returns the visible count the stage wrote. */
static uint32_t stage_run_sort(stage_run *sr, splatsort_depth_info *di, bool indirect, uint32_t count) {
  di->max_count = sr->max_count;
  di->centers = (splatsort_buffer){sr->centres.buffer, 0, sr->centres_range ? sr->centres_range : sr->centres.size};
  di->scratch = (splatsort_buffer){sr->scratch.buffer, 0, sr->mr.scratch_size};
  di->indices = (splatsort_buffer){sr->indices.buffer, 0, sr->mr.indices_size};
  di->draw_count = (splatsort_buffer){sr->draw.buffer, 4, 4};
  di->count = indirect ? 0 : count;
  if (indirect) {
    ((uint32_t *)sr->count.mapped)[1] = count;
    di->count_buffer = (splatsort_buffer){sr->count.buffer, 4, 4};
  }
  bool timed = ctx.props.limits.timestampComputeAndGraphics;
  if (timed) di->query_pool = sr->pool, di->first_query = 3;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splatsort_depth_cmd_sort(sr->stage, cmd, di, NULL));
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                       NULL);
  vkh_submit_wait(&ctx, cmd);
  uint64_t ts[64];
  if (timed && sr->queries <= 64) {
    VK_CHECK(vkGetQueryPoolResults(ctx.device, sr->pool, 3, sr->queries, sizeof ts, ts, 8,
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    for (uint32_t q = 1; q < sr->queries; q++)
      CHECK(ts[q] >= ts[q - 1], "timestamp %u (%s) is before timestamp %u", q,
            splatsort_depth_timestamp_label(sr->stage, di->key_bits, q), q - 1);
  }
  return ((const uint32_t *)sr->draw.mapped)[1];
}

/* How the centres lie: x, y, z, opacity records (the opacity culls); x, y, z in 16-byte
 * records with the range ending after the last z; packed x, y, z (stride 12). */
typedef enum centre_layout { XYZO_16, XYZ_16_SHORT, XYZ_12 } centre_layout;

/* One run of the stage; checks count, set and order against the CPU. */
static void run_case_in(const splatsort *sorter, uint32_t n, uint32_t bits, splatsort_depth_key_mode mode,
                        bool indirect, uint64_t seed, centre_layout layout) {
  stage_run sr;
  uint32_t max_count = n ? n : 1;
  if (layout == XYZ_12) max_count = n + 5000; /* room for more tiles than the count fills */
  stage_run_create(&sr, sorter, max_count, bits);
  const float eye[3] = {0.5f, -0.25f, -4.0f};
  reference ref = {.visible = calloc(max_count, 1), .key = calloc(max_count, sizeof(float))};
  make_points(sr.centres.mapped, n, eye, seed, layout != XYZO_16, &ref);
  float *c = sr.centres.mapped;
  for (uint32_t i = 0; i < n; i++) {
    if (!ref.visible[i]) continue;
    float dx = c[4 * i] - eye[0], dy = c[4 * i + 1] - eye[1], dz = c[4 * i + 2] - eye[2];
    ref.key[i] = mode == SPLATSORT_DEPTH_KEY_RADIAL ? sqrtf(dx * dx + dy * dy + dz * dz) : dz;
    ref.count++, ref.lo = fminf(ref.lo, ref.key[i]), ref.hi = fmaxf(ref.hi, ref.key[i]);
  }
  /* every other seed leaves the stride 0: tightly packed (12, or 16 with opacity_cull) */
  uint32_t stride = layout == XYZ_12 ? 12 : 16;
  splatsort_depth_info di = {.center_stride = layout != XYZ_16_SHORT && seed % 2 ? 0 : stride,
                             .opacity_cull = layout == XYZO_16,
                             .near_w = 0.2f, .key_bits = bits, .key_mode = mode,
                             .camera_position = {eye[0], eye[1], eye[2]}};
  if (layout == XYZ_16_SHORT) sr.centres_range = 16ull * (max_count - 1) + 12;
  if (layout == XYZ_12) {
    for (uint32_t i = 0; i < n; i++) /* in place: the packed copy never overtakes its source */
      for (int k = 0; k < 3; k++) c[3 * i + k] = c[4 * i + k];
    sr.centres_range = 12ull * max_count;
  }
  view_proj(eye, di.view_proj);
  uint32_t got = stage_run_sort(&sr, &di, indirect, n);

  const char *mname = mode == SPLATSORT_DEPTH_KEY_RADIAL ? "radial" : "view depth";
  const char *sname = splatsort_algorithm_name(splatsort_get_algorithm(sorter));
  const char *cname = indirect ? "indirect" : "direct";
  CHECK(got == ref.count, "%s %s %u-bit %s n=%u: %u visible, expected %u", sname, mname, bits, cname, n, got,
        ref.count);
  /* each visible splat once, farthest first (quantised: within two key steps) */
  float step = bits < 32 ? 2.0f * (ref.hi - ref.lo) / (float)((1u << bits) - 1) : 1e-5f * ref.hi;
  const uint32_t *idx = sr.indices.mapped;
  uint32_t bad = 0;
  for (uint32_t k = 0; k < got && k < ref.count; k++) {
    uint32_t i = idx[k];
    bool ok = i < n && ref.visible[i] == 1 && (k == 0 || ref.key[i] <= ref.key[idx[k - 1]] + step);
    if (i < n) ref.visible[i] = 2;
    if (!ok && bad++ < 3) fprintf(stderr, "  %s %s %u-bit: index %u at %u out of place\n", sname, mname, bits, i, k);
  }
  static const char *const lname[] = {"x,y,z,opacity", "x,y,z,pad short range", "x,y,z packed"};
  CHECK(bad == 0, "%s %s %u-bit %s n=%u %s: %u misplaced", sname, mname, bits, cname, n, lname[layout], bad);
  printf("%s %s keys, %u bits, %s count, %s, %u splats: %u visible%s\n", sname, mname, bits, cname, lname[layout], n,
         got, bad ? " FAIL" : "");
  free(ref.visible);
  free(ref.key);
  stage_run_destroy(&sr);
}

static void run_case(const splatsort *sorter, uint32_t n, uint32_t bits, splatsort_depth_key_mode mode,
                     bool indirect, uint64_t seed) {
  run_case_in(sorter, n, bits, mode, indirect, seed, XYZO_16);
}

/* The header's promise: splats of equal key come out in input order. n splats on `levels`
 * planes of equal view depth (exact in float), shuffled over the indices, every 7th culled by
 * its opacity; the expected order is a stable sort by depth, farthest first. */
static void equal_depth_case(const splatsort *sorter, uint32_t n, uint32_t levels, uint32_t bits, uint64_t seed) {
  static const float plane_w[] = {5.0f, 2.0f, 9.0f, 3.5f};
  stage_run sr;
  stage_run_create(&sr, sorter, n, bits);
  const float eye[3] = {0.0f, 0.0f, -4.0f};
  float *c = sr.centres.mapped;
  uint32_t *level = malloc(sizeof(uint32_t) * n), *expect = malloc(sizeof(uint32_t) * n), visible = 0;
  for (uint32_t i = 0; i < n; i++) {
    level[i] = (uint32_t)(splitmix64(&seed) % levels);
    c[4 * i] = (float)(splitmix64(&seed) % 2001) / 1000.0f - 1.0f; /* |1.5 x| <= 1.5 < 1.3 * 2 */
    c[4 * i + 1] = (float)(splitmix64(&seed) % 2001) / 1000.0f - 1.0f;
    c[4 * i + 2] = plane_w[level[i]] + eye[2]; /* clip w = z + 4: the plane's w exactly */
    c[4 * i + 3] = i % 7 == 3 ? 0.002f : 0.8f;
  }
  for (float far = INFINITY;;) { /* planes farthest first, each in index order */
    float w = -INFINITY;
    for (uint32_t l = 0; l < levels; l++)
      if (plane_w[l] < far && plane_w[l] > w) w = plane_w[l];
    if (w == -INFINITY) break;
    for (uint32_t i = 0; i < n; i++)
      if (plane_w[level[i]] == w && i % 7 != 3) expect[visible++] = i;
    far = w;
  }
  splatsort_depth_info di = {.center_stride = 16, .opacity_cull = 1, .near_w = 0.2f, .key_bits = bits};
  view_proj(eye, di.view_proj);
  uint32_t got = stage_run_sort(&sr, &di, false, n);
  const char *sname = splatsort_algorithm_name(splatsort_get_algorithm(sorter));
  CHECK(got == visible, "%s equal depths, %u planes, %u-bit n=%u: %u visible, expected %u", sname, levels, bits, n,
        got, visible);
  const uint32_t *idx = sr.indices.mapped;
  uint32_t bad = 0;
  for (uint32_t k = 0; k < got && k < visible; k++)
    if (idx[k] != expect[k] && bad++ < 3)
      fprintf(stderr, "  %s equal depths %u-bit: position %u holds %u, expected %u\n", sname, bits, k, idx[k],
              expect[k]);
  CHECK(bad == 0, "%s equal depths, %u planes, %u-bit n=%u (seed %llu): %u out of input order", sname, levels, bits,
        n, (unsigned long long)seed, bad);
  printf("%s equal depths, %u plane(s), %u bits, %u splats: %u visible%s\n", sname, levels, bits, n, got,
         bad ? " FAIL" : "");
  free(level);
  free(expect);
  stage_run_destroy(&sr);
}

/* --onesweep-tuned: only a OneSweep sorter with SPLATSORT_ONESWEEP_TUNING (e.g. two=1, two
 * pass kernels picked by max_count), at counts on both sides of the 1M switch. */
static int tuned_onesweep(void) {
  splatsort *s = sort_create_or_die(&ctx, SPLATSORT_ALGORITHM_ONESWEEP, 0);
  uint64_t seed = 20261125;
  const uint32_t split = 1u << 20;
  run_case(s, split - 1, 32, SPLATSORT_DEPTH_KEY_VIEW_DEPTH, false, seed++);
  run_case(s, split + 3, 32, SPLATSORT_DEPTH_KEY_VIEW_DEPTH, false, seed++);
  run_case(s, split, 16, SPLATSORT_DEPTH_KEY_RADIAL, true, seed++);
  splatsort_destroy(s);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  return check_report("test_depth");
}

int main(int argc, char **argv) {
  bool tuned = false;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--three-pass"))
      stage_flags |= SPLATSORT_DEPTH_CREATE_THREE_PASS_KEYS_BIT;
    else if (!strcmp(argv[a], "--force-fallback"))
      stage_flags |= SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT;
    else if (!strcmp(argv[a], "--onesweep-tuned"))
      tuned = true;
    else {
      fprintf(stderr, "usage: test_depth [--three-pass | --force-fallback] [--onesweep-tuned]\n");
      return 2;
    }
  }
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  if (tuned) return tuned_onesweep();
  splatsort *sorters[VKH_MAX_SORTERS];
  uint32_t count = vkh_create_sorters(&ctx, sorters);
  uint64_t seed = 20261123;
  for (uint32_t s = 0; s < count; s++) {
    for (int mode = 0; mode < 2; mode++) {
      splatsort_depth_key_mode m = (splatsort_depth_key_mode)mode;
      run_case(sorters[s], 0, 32, m, false, seed++);
      run_case(sorters[s], 3000, 32, m, false, seed++);
      for (uint32_t n = 2047; n <= 2049; n++) run_case(sorters[s], n, 32, m, n == 2049, seed++); /* one-pass tile */
      run_case(sorters[s], 40000, 32, m, false, seed++);
      run_case(sorters[s], 40000, 16, m, false, seed++);
      run_case(sorters[s], 20000, 24, m, false, seed++);
      run_case(sorters[s], 3000, 32, m, true, seed++);
      run_case(sorters[s], 20000, 16, m, true, seed++);
    }
    /* the centres read as words rather than vec4 (all but the last, where the range ends early) */
    run_case_in(sorters[s], 5000, 32, SPLATSORT_DEPTH_KEY_VIEW_DEPTH, false, seed++, XYZ_16_SHORT);
    run_case_in(sorters[s], 5000, 32, SPLATSORT_DEPTH_KEY_VIEW_DEPTH, true, seed++, XYZ_12);
    run_case_in(sorters[s], 5000, 32, SPLATSORT_DEPTH_KEY_VIEW_DEPTH, false, seed++, XYZ_12);
    equal_depth_case(sorters[s], 5000, 1, 32, seed++);
    equal_depth_case(sorters[s], 5000, 1, 16, seed++);
    equal_depth_case(sorters[s], 20000, 4, 32, seed++);
    equal_depth_case(sorters[s], 20000, 3, 24, seed++);
  }
  for (uint32_t s = 0; s < count; s++) splatsort_destroy(sorters[s]);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  return check_report("test_depth");
}
