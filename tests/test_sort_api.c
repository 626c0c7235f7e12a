/* API misuse must return the documented error, leave out-handles NULL, record nothing, log a
 * message naming the problem, and never crash; the requirement queries must follow the
 * two-call idiom. */
#include "check.h"
#include "sort_harness.h"
#include "splatsort_depth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char last_log[512];

/* Host-visible bytes the refused calls' buffers start with: still there after the command
 * buffer ran, nothing was recorded. */
#define UNTOUCHED 0xA5
static void fill(const vkh_buffer *b, VkDeviceSize size) { memset(b->mapped, UNTOUCHED, size); }
static VkDeviceSize first_touched(const vkh_buffer *b, VkDeviceSize size) {
  const unsigned char *m = b->mapped;
  VkDeviceSize i = 0;
  while (i < size && m[i] == UNTOUCHED) i++;
  return i;
}

static void capture_log(void *user, const char *message) {
  (void)user;
  snprintf(last_log, sizeof last_log, "%s", message);
}

static void expect_sort_error(splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, const char *word) {
  last_log[0] = 0;
  VkResult r = splatsort_cmd_sort(s, cmd, info, NULL);
  CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT, "got %s", vkh_result_name(r));
  CHECK(strstr(last_log, word) != NULL, "log '%s' should mention '%s'", last_log, word);
}

static VkQueryPool timestamp_pool(vkh_context *ctx, uint32_t count) {
  VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                              .queryCount = count};
  VkQueryPool pool;
  VK_CHECK(vkCreateQueryPool(ctx->device, &qi, NULL, &pool));
  return pool;
}

/* The refusal's log names both words (the arguments, and what is wrong with them). */
static void expect_sort_error2(splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, const char *word,
                               const char *word2) {
  expect_sort_error(s, cmd, info, word);
  CHECK(strstr(last_log, word2) != NULL, "log '%s' should mention '%s'", last_log, word2);
}

static void expect_depth_error(const splatsort_depth *d, VkCommandBuffer cmd, const splatsort_depth_info *info,
                               const char *word) {
  last_log[0] = 0;
  VkResult r = splatsort_depth_cmd_sort(d, cmd, info, NULL);
  CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT, "depth stage: got %s", vkh_result_name(r));
  CHECK(strstr(last_log, word) != NULL, "depth stage: log '%s' should mention '%s'", last_log, word);
}

/* The depth stage's record arguments, each refused with a message naming it and nothing
 * recorded (the buffers keep their bytes); the valid info then records and runs. */
static void depth_refusals(vkh_context *ctx, const splatsort_depth *d, const splatsort_depth_memory_requirements *mr) {
  VkDeviceSize top = ~(VkDeviceSize)0 / mr->alignment * mr->alignment;
  vkh_buffer centers = vkh_buffer_create(ctx, 16000, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, "centers");
  vkh_buffer scratch = vkh_buffer_create(ctx, mr->scratch_size, mr->scratch_usage, true, "scratch");
  vkh_buffer indices = vkh_buffer_create(ctx, mr->indices_size + 256, mr->indices_usage, true, "indices");
  fill(&centers, 16000), fill(&scratch, mr->scratch_size), fill(&indices, mr->indices_size + 256);
  uint32_t stamps = splatsort_depth_timestamp_count(d, 32);
  VkQueryPool pool = timestamp_pool(ctx, stamps);
  const splatsort_depth_info ok = {.max_count = 1000, .count = 10, .centers = {centers.buffer, 0, 16000},
                                   .center_stride = 16, .key_bits = 32, .view_proj = {[0] = 1, [5] = 1, [11] = 1, [14] = 1},
                                   .scratch = {scratch.buffer, 0, VK_WHOLE_SIZE},
                                   .indices = {indices.buffer, 0, VK_WHOLE_SIZE}};
  splatsort_depth_info x;
  VkCommandBuffer cmd = vkh_begin(ctx);
#define DEPTH_CASE(word, ...) (x = ok, x.__VA_ARGS__, expect_depth_error(d, cmd, &x, word))
  DEPTH_CASE("key_bits 8 is not in 16..32", key_bits = 8);
  DEPTH_CASE("key_bits 40 is not in 16..32", key_bits = 40);
  DEPTH_CASE("center_stride 8 ", center_stride = 8);
  DEPTH_CASE("center_stride 14 ", center_stride = 14, x.opacity_cull = 1);
  DEPTH_CASE("center_stride 12 ", center_stride = 12, x.opacity_cull = 1);
  DEPTH_CASE("key_mode 7", key_mode = (splatsort_depth_key_mode)7);
  DEPTH_CASE("next", next = &ok);
  DEPTH_CASE("centers", centers.size = 1000);
  DEPTH_CASE("scratch", scratch.size = mr->scratch_size - 4);
  DEPTH_CASE("indices", indices.buffer = VK_NULL_HANDLE);
  DEPTH_CASE("max_count", max_count = 0);
  DEPTH_CASE("splatsort_depth_cmd_sort: count 1001 is above max_count 1000", count = 1001);
  DEPTH_CASE("draw_count", draw_count = (splatsort_buffer){indices.buffer, 2, 4});
  /* non-finite numbers */
  DEPTH_CASE("view_proj[5] is nan", view_proj[5] = NAN);
  DEPTH_CASE("view_proj[0] is inf", view_proj[0] = INFINITY);
  DEPTH_CASE("frustum_margin is inf", frustum_margin = INFINITY);
  DEPTH_CASE("near_w is -inf", near_w = -INFINITY);
  DEPTH_CASE("camera_position[1] is nan", camera_position[1] = NAN, x.key_mode = SPLATSORT_DEPTH_KEY_RADIAL);
  /* aliasing: a written range sharing bytes with another */
  DEPTH_CASE("scratch (bytes", indices = (splatsort_buffer){scratch.buffer, 0, VK_WHOLE_SIZE});
  DEPTH_CASE("centers (bytes 0..15995) and scratch", scratch = (splatsort_buffer){centers.buffer, 0, VK_WHOLE_SIZE});
  DEPTH_CASE("indices (bytes 0..3999) and draw_count", draw_count = (splatsort_buffer){indices.buffer, 3996, 4});
  DEPTH_CASE("scratch (bytes", count_buffer = (splatsort_buffer){scratch.buffer, 64, 4});
  /* wrap-around and queries */
  DEPTH_CASE("scratch.offset", scratch = (splatsort_buffer){scratch.buffer, top, VK_WHOLE_SIZE});
  DEPTH_CASE("indices.offset", indices = (splatsort_buffer){indices.buffer, mr->alignment, ~0ull - 1});
  DEPTH_CASE("beyond query_count", query_pool = pool, x.first_query = 1, x.query_count = stamps);
  DEPTH_CASE("wraps around past 2^32", query_pool = pool, x.first_query = UINT32_MAX);
#undef DEPTH_CASE
  vkh_submit_wait(ctx, cmd);
  CHECK(first_touched(&centers, 16000) == 16000 && first_touched(&scratch, mr->scratch_size) == mr->scratch_size &&
            first_touched(&indices, mr->indices_size + 256) == mr->indices_size + 256,
        "a refused depth stage wrote into centers, scratch or indices");
  /* not over-strict: draw_count just after the indices, the pool's exact size */
  x = ok;
  x.draw_count = (splatsort_buffer){indices.buffer, 4000, 4};
  x.query_pool = pool, x.query_count = stamps;
  memset(centers.mapped, 0, 16000);
  cmd = vkh_begin(ctx);
  VkResult r = splatsort_depth_cmd_sort(d, cmd, &x, NULL);
  CHECK(r == VK_SUCCESS, "depth stage with valid ranges: %s (%s)", vkh_result_name(r), last_log);
  vkh_submit_wait(ctx, cmd);
  vkDestroyQueryPool(ctx->device, pool, NULL);
  vkh_buffer_destroy(ctx, &centers), vkh_buffer_destroy(ctx, &scratch), vkh_buffer_destroy(ctx, &indices);
}

/* Allocation callbacks over malloc that count live blocks (each block keeps its size and
 * alignment in front of it). */
static int live_blocks;
static void *VKAPI_PTR test_alloc(void *user, size_t size, size_t alignment, VkSystemAllocationScope scope) {
  (void)user, (void)scope;
  if (alignment < 16) alignment = 16;
  void *base;
  if (posix_memalign(&base, alignment, alignment + (size ? size : 1)) != 0) return NULL;
  size_t *p = (size_t *)((char *)base + alignment);
  p[-1] = size, p[-2] = alignment;
  live_blocks++;
  return p;
}
static void VKAPI_PTR test_free(void *user, void *mem) {
  (void)user;
  if (!mem) return;
  live_blocks--;
  free((char *)mem - ((size_t *)mem)[-2]);
}
static void *VKAPI_PTR test_realloc(void *user, void *old, size_t size, size_t alignment,
                                    VkSystemAllocationScope scope) {
  if (!old) return test_alloc(user, size, alignment, scope);
  void *p = size ? test_alloc(user, size, alignment, scope) : NULL;
  if (p) memcpy(p, old, ((size_t *)old)[-1] < size ? ((size_t *)old)[-1] : size);
  if (p || !size) test_free(user, old);
  return p;
}
static void VKAPI_PTR test_internal(void *user, size_t size, VkInternalAllocationType type,
                                    VkSystemAllocationScope scope) {
  (void)user, (void)size, (void)type, (void)scope;
}

/* Allocation callbacks with a NULL function are refused by the sorter and the stage (named in
 * the log, out-handle NULL, nothing allocated through them); complete ones are used and every
 * block is given back at destroy. */
static void allocator_refusals(const splatsort_create_info *base, const splatsort *s) {
  const VkAllocationCallbacks full = {.pfnAllocation = test_alloc, .pfnReallocation = test_realloc,
                                      .pfnFree = test_free};
  struct {
    VkAllocationCallbacks a;
    const char *word;
  } bad[] = {{full, "allocator->pfnAllocation is NULL"}, {full, "allocator->pfnReallocation is NULL"},
             {full, "allocator->pfnFree is NULL"}, {full, "pfnInternalAllocation and pfnInternalFree"}};
  bad[0].a.pfnAllocation = NULL, bad[1].a.pfnReallocation = NULL, bad[2].a.pfnFree = NULL;
  bad[3].a.pfnInternalAllocation = test_internal;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    splatsort_create_info ci = *base;
    ci.allocator = &bad[i].a;
    splatsort *t = (splatsort *)(uintptr_t)1;
    last_log[0] = 0;
    VkResult r = splatsort_create(&ci, &t);
    CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT && t == NULL && strstr(last_log, bad[i].word) &&
              strstr(last_log, "splatsort_create"),
          "sorter, %s: %s, log '%s'", bad[i].word, vkh_result_name(r), last_log);
    splatsort_depth_create_info dci = {.sorter = s, .allocator = &bad[i].a, .log = capture_log};
    splatsort_depth *d = (splatsort_depth *)(uintptr_t)1;
    last_log[0] = 0;
    r = splatsort_depth_create(&dci, &d);
    CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT && d == NULL && strstr(last_log, bad[i].word) &&
              strstr(last_log, "splatsort_depth_create"),
          "stage, %s: %s, log '%s'", bad[i].word, vkh_result_name(r), last_log);
  }
  CHECK(live_blocks == 0, "%d blocks allocated through refused callbacks", live_blocks);
  splatsort_create_info ci = *base;
  ci.allocator = &full;
  splatsort *t = NULL;
  VkResult r = splatsort_create(&ci, &t);
  CHECK(r == VK_SUCCESS && t && live_blocks > 0, "complete callbacks: %s, %d blocks", vkh_result_name(r), live_blocks);
  splatsort_depth_create_info dci = {.sorter = t ? t : s, .allocator = &full, .log = capture_log};
  splatsort_depth *d = NULL;
  r = splatsort_depth_create(&dci, &d);
  CHECK(r == VK_SUCCESS && d, "stage with complete callbacks: %s", vkh_result_name(r));
  splatsort_depth_destroy(d);
  splatsort_destroy(t);
  CHECK(live_blocks == 0, "%d blocks still allocated after destroy", live_blocks);
}

/* The self-test's queue family must be one of the device's: 99 is refused before anything is made. */
static void queue_family_refusal(vkh_context *ctx, const splatsort_create_info *base) {
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &families, NULL);
  splatsort_self_test test = {.type = SPLATSORT_STRUCTURE_TYPE_SELF_TEST, .queue = ctx->queue,
                              .queue_family_index = 99};
  splatsort_create_info ci = *base;
  ci.next = &test;
  splatsort *t = (splatsort *)(uintptr_t)1;
  last_log[0] = 0;
  VkResult r = splatsort_create(&ci, &t);
  char want[128];
  snprintf(want, sizeof want, "queue_family_index 99 is beyond the device's %u queue families", families);
  CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT && t == NULL && strstr(last_log, want), "family 99: %s, log '%s'",
        vkh_result_name(r), last_log);
  test.queue_family_index = families;
  r = splatsort_create(&ci, &t);
  CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT && t == NULL, "family %u (one past the last): %s", families,
        vkh_result_name(r));
}

/* The depth-sort stage refuses bad create and record arguments with a message naming them. */
static void depth_stage_misuse(vkh_context *ctx, const splatsort *s) {
  splatsort_depth *d = (splatsort_depth *)(uintptr_t)1;
  splatsort_depth_create_info dci = {.log = capture_log};
  CHECK(splatsort_depth_create(&dci, &d) == VK_ERROR_VALIDATION_FAILED_EXT && d == NULL && strstr(last_log, "sorter"),
        "stage without a sorter: %s", last_log);
  dci.sorter = s;
  dci.flags = 0x40;
  CHECK(splatsort_depth_create(&dci, &d) == VK_ERROR_VALIDATION_FAILED_EXT && d == NULL, "stage flags");
  dci.flags = vkh_sort_flags(ctx);
  CHECK(splatsort_depth_create(&dci, &d) == VK_SUCCESS && d != NULL, "stage create");
  if (!d) return;
  splatsort_depth_memory_requirements mr;
  CHECK(splatsort_depth_get_memory_requirements(d, 1000, &mr) == VK_SUCCESS && mr.scratch_size > 0, "stage requirements");
  CHECK(mr.count_usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "stage count_usage %#x", (unsigned)mr.count_usage);
  /* its own name in the log, not the sort's */
  splatsort_depth_memory_requirements bad;
  last_log[0] = 0;
  CHECK(splatsort_depth_get_memory_requirements(d, 0, &bad) == VK_ERROR_VALIDATION_FAILED_EXT &&
            strstr(last_log, "splatsort_depth_get_memory_requirements: max_count 0"),
        "stage requirements for 0: log '%s'", last_log);
  last_log[0] = 0;
  CHECK(splatsort_depth_get_memory_requirements(d, splatsort_max_count(s) + 1u, &bad) == VK_ERROR_VALIDATION_FAILED_EXT &&
            strstr(last_log, "splatsort_depth_get_memory_requirements: max_count"),
        "stage requirements above the maximum: log '%s'", last_log);
  CHECK(splatsort_depth_get_memory_requirements(NULL, 10, &bad) == VK_ERROR_VALIDATION_FAILED_EXT &&
            splatsort_depth_get_memory_requirements(d, 10, NULL) == VK_ERROR_VALIDATION_FAILED_EXT,
        "stage requirements with NULL");
  /* timestamps: the start, "key pass", then the sort's labels one index later */
  for (uint32_t bits = 0; bits <= 32; bits += bits ? 8 : 16) {
    uint32_t n = splatsort_depth_timestamp_count(d, bits), sn = splatsort_timestamp_count(s, bits);
    CHECK(n == sn + 1, "%u-bit keys: %u stage timestamps, sort %u", bits, n, sn);
    CHECK(!*splatsort_depth_timestamp_label(d, bits, 0) && !*splatsort_depth_timestamp_label(d, bits, n) &&
              !strcmp(splatsort_depth_timestamp_label(d, bits, 1), "key pass"),
          "%u-bit keys: stage labels 0, 1, %u", bits, n);
    for (uint32_t i = 2; i < n; i++)
      CHECK(*splatsort_depth_timestamp_label(d, bits, i) &&
                !strcmp(splatsort_depth_timestamp_label(d, bits, i), splatsort_timestamp_label(s, bits, i - 1)),
            "%u-bit keys: stage label %u '%s'", bits, i, splatsort_depth_timestamp_label(d, bits, i));
  }
  CHECK(splatsort_depth_timestamp_count(d, 8) == 0 && splatsort_depth_timestamp_count(d, 33) == 0 &&
            splatsort_depth_timestamp_count(NULL, 32) == 0 && !*splatsort_depth_timestamp_label(NULL, 32, 1) &&
            !*splatsort_depth_timestamp_label(d, 8, 1),
        "stage timestamps for bad key_bits or a NULL stage");
  depth_refusals(ctx, d, &mr);
  splatsort_depth_destroy(d);
  splatsort_depth_destroy(NULL); /* accepted */
}

/* Ranges that alias, wrap around past 2^64 or reach past the query pool: refused, named, and
 * nothing recorded (the buffers keep their bytes after the command buffer ran); then the same
 * buffers with the pool's exact size sort, with the validation layer silent. */
static void sort_refusals(vkh_context *ctx, splatsort *s, sort_buffers *b) {
  VkDeviceSize kv_size = b->pad + 4 * b->region, align = b->req.alignment;
  VkDeviceSize top = ~(VkDeviceSize)0 / align * align; /* aligned, a few bytes below 2^64 */
  VkBuffer kv = b->keyvals.buffer;
  uint32_t stamps = splatsort_timestamp_count(s, 32);
  VkQueryPool pool = timestamp_pool(ctx, stamps);
  fill(&b->keyvals, kv_size);
  fill(&b->internal, b->req.internal_size);
  VkCommandBuffer cmd = vkh_begin(ctx);
  splatsort_sort_info x;
#define REFUSE(word, word2, ...) (x = b->info, x.__VA_ARGS__, expect_sort_error2(s, cmd, &x, word, word2))
  REFUSE("keys (bytes", "and tmp_keys (bytes", tmp_keys = x.keys);
  REFUSE("keys (bytes", "and values (bytes", values.offset = x.keys.offset + align);
  REFUSE("values (bytes", "and tmp_values", tmp_values.offset = x.values.offset + b->region - align);
  REFUSE("internal (bytes", "and tmp_values", internal = (splatsort_buffer){kv, sort_region(b, 3), VK_WHOLE_SIZE});
  REFUSE("keys (bytes", "and count_buffer", count_buffer = (splatsort_buffer){kv, sort_region(b, 0) + 8, 4});
  REFUSE("internal (bytes", "and count_buffer", count_buffer = (splatsort_buffer){b->internal.buffer, 0, 4});
  REFUSE("keys.offset", "+ size 4000 wraps around", keys = (splatsort_buffer){kv, top, 4000});
  REFUSE("tmp_keys.offset", "the bytes it needs 4000 wraps", tmp_keys = (splatsort_buffer){kv, top, VK_WHOLE_SIZE});
  REFUSE("internal.offset", "wraps around", internal = (splatsort_buffer){b->internal.buffer, align, ~0ull - 1});
  REFUSE("count_buffer.offset", "wraps around", count_buffer = (splatsort_buffer){b->count.buffer, ~0ull - 3, 4});
  REFUSE("first_query 1 + the", "beyond query_count", query_pool = pool, x.first_query = 1, x.query_count = stamps);
  REFUSE("first_query 4294967293", "wraps around past 2^32", query_pool = pool, x.first_query = UINT32_MAX - 2);
#undef REFUSE
  vkh_submit_wait(ctx, cmd);
  CHECK(first_touched(&b->keyvals, kv_size) == kv_size && first_touched(&b->internal, b->req.internal_size) ==
            b->req.internal_size, "a refused sort wrote byte %llu of the key/value buffer, %llu of internal",
        (unsigned long long)first_touched(&b->keyvals, kv_size),
        (unsigned long long)first_touched(&b->internal, b->req.internal_size));
  /* not over-strict: adjacent ranges and a pool of exactly the timestamps */
  x = b->info;
  x.query_pool = pool, x.query_count = stamps;
  cmd = vkh_begin(ctx);
  VkResult r = splatsort_cmd_sort(s, cmd, &x, NULL);
  CHECK(r == VK_SUCCESS, "adjacent ranges, %u queries in a pool of %u: %s (%s)", stamps, stamps, vkh_result_name(r),
        last_log);
  vkh_submit_wait(ctx, cmd);
  vkDestroyQueryPool(ctx->device, pool, NULL);
}

/* The radix16 sorter: requirements, name, passes and timestamps of 4-bit digits, its tile, and
 * an internal buffer smaller than its own requirement refused. */
static void radix16_queries(vkh_context *ctx, const splatsort_create_info *base) {
  CHECK(!strcmp(splatsort_algorithm_name(SPLATSORT_ALGORITHM_RADIX16), "radix16"), "radix16 name");
  splatsort_device_requirements req = {0};
  VkResult r = splatsort_get_device_requirements(ctx->physical_device, SPLATSORT_ALGORITHM_RADIX16, &req);
  CHECK(r == VK_SUCCESS && !req.subgroup_size_control, "radix16 requirements: %s", vkh_result_name(r));
  splatsort_create_info ci = *base;
  ci.algorithm = SPLATSORT_ALGORITHM_RADIX16;
  splatsort *s = NULL;
  r = splatsort_create(&ci, &s);
  CHECK(r == VK_SUCCESS && s != NULL, "radix16 create: %s", vkh_result_name(r));
  if (!s) return;
  CHECK(splatsort_get_algorithm(s) == SPLATSORT_ALGORITHM_RADIX16, "radix16 algorithm");
  uint32_t tile = splatsort_get_tile_size(s);
  CHECK(tile >= 256 && tile % 256 == 0, "radix16 tile %u", tile);
  CHECK(splatsort_timestamp_count(s, 32) == 9 && splatsort_timestamp_count(s, 0) == 9 &&
            splatsort_timestamp_count(s, 13) == 5 && splatsort_timestamp_count(s, 4) == 2 &&
            splatsort_timestamp_count(s, 33) == 0,
        "radix16 timestamp counts");
  CHECK(!strcmp(splatsort_timestamp_label(s, 32, 1), "pass 0") &&
            !strcmp(splatsort_timestamp_label(s, 32, 8), "pass 7") && !*splatsort_timestamp_label(s, 32, 9) &&
            !*splatsort_timestamp_label(s, 13, 5),
        "radix16 labels");
  splatsort_sort_info probe = {.key_bits = 13};
  CHECK(splatsort_result_location(s, &probe).pass_count == 4, "radix16 passes for 13 bits");
  splatsort_memory_requirements mr;
  CHECK(splatsort_get_memory_requirements(s, 1000, &mr) == VK_SUCCESS && mr.internal_size > 0, "radix16 requirements");
  sort_buffers b;
  sort_buffers_create(ctx, s, 1000, 0, true, &b);
  VkCommandBuffer cmd = vkh_begin(ctx);
  splatsort_sort_info x = b.info;
  x.internal.size = mr.internal_size - 4;
  expect_sort_error(s, cmd, &x, "internal.size");
  vkh_submit_wait(ctx, cmd);
  sort_buffers_destroy(ctx, &b);
  splatsort_destroy(s);
}

/* Names both ways for every algorithm, and unknown names refused. */
static void algorithm_names(void) {
  for (int a = 0; a < SPLATSORT_ALGORITHM_COUNT; a++) {
    splatsort_algorithm back = (splatsort_algorithm)99;
    const char *name = splatsort_algorithm_name((splatsort_algorithm)a);
    CHECK(strcmp(name, "unknown") && splatsort_algorithm_from_name(name, &back) && back == (splatsort_algorithm)a,
          "algorithm %d named '%s' reads back as %d", a, name, (int)back);
  }
  splatsort_algorithm x = SPLATSORT_ALGORITHM_RADIX16;
  CHECK(!splatsort_algorithm_from_name("Merge", &x) && !splatsort_algorithm_from_name("", &x) &&
            !splatsort_algorithm_from_name(NULL, &x) && !splatsort_algorithm_from_name("merge", NULL) &&
            x == SPLATSORT_ALGORITHM_RADIX16,
        "unknown names refused, output untouched");
  CHECK(!strcmp(splatsort_algorithm_name((splatsort_algorithm)SPLATSORT_ALGORITHM_COUNT), "unknown"), "past the last");
}

/* The merge sorter: one pass (the result in the tmp buffers) and four timestamps at every key
 * width, a power-of-two tile, its max_count 256 keys under the radix sorts' (the positions
 * share the internal buffer with its header), internal_size growing with max_count. */
static void merge_queries(vkh_context *ctx, const splatsort_create_info *base) {
  splatsort_create_info ci = *base;
  ci.algorithm = SPLATSORT_ALGORITHM_MERGE;
  splatsort *s = NULL, *q = NULL;
  VkResult r = splatsort_create(&ci, &s);
  CHECK(r == VK_SUCCESS && s != NULL, "merge create: %s", vkh_result_name(r));
  ci.algorithm = SPLATSORT_ALGORITHM_QUATERNARY;
  r = splatsort_create(&ci, &q);
  CHECK(r == VK_SUCCESS && q != NULL, "quaternary create: %s", vkh_result_name(r));
  if (!s || !q) return;
  CHECK(splatsort_get_algorithm(s) == SPLATSORT_ALGORITHM_MERGE, "merge algorithm");
  uint32_t tile = splatsort_get_tile_size(s);
  CHECK(tile >= 512 && tile <= 4096 && (tile & (tile - 1)) == 0, "merge tile %u", tile);
  CHECK(splatsort_timestamp_count(s, 32) == 4 && splatsort_timestamp_count(s, 1) == 4 &&
            splatsort_timestamp_count(s, 33) == 0,
        "merge timestamp counts");
  CHECK(!strcmp(splatsort_timestamp_label(s, 32, 1), "tile sort") &&
            !strcmp(splatsort_timestamp_label(s, 9, 3), "payload gather") && !*splatsort_timestamp_label(s, 32, 4),
        "merge labels");
  splatsort_sort_info probe = {.key_bits = 32, .keys = {(VkBuffer)(uintptr_t)1, 0, 4}, .tmp_keys = {(VkBuffer)(uintptr_t)2, 0, 4}};
  splatsort_result res = splatsort_result_location(s, &probe);
  CHECK(res.pass_count == 1 && res.keys.buffer == probe.tmp_keys.buffer, "merge result in tmp_keys");
  CHECK(splatsort_max_count(s) == splatsort_max_count(q) - 256 || splatsort_max_count(q) == 1u << 30,
        "merge max_count %u vs %u", splatsort_max_count(s), splatsort_max_count(q));
  splatsort_memory_requirements small, big;
  CHECK(splatsort_get_memory_requirements(s, 1000, &small) == VK_SUCCESS &&
            splatsort_get_memory_requirements(s, 100000, &big) == VK_SUCCESS && small.internal_size >= 4 * (256 + 1000) &&
            big.internal_size >= 4 * (256 + 100000),
        "merge internal sizes %llu, %llu", (unsigned long long)small.internal_size, (unsigned long long)big.internal_size);
  CHECK(splatsort_get_memory_requirements(s, splatsort_max_count(s) + 1, &big) == VK_ERROR_VALIDATION_FAILED_EXT,
        "merge max_count + 1 refused");
  sort_buffers b;
  sort_buffers_create(ctx, s, 1000, 0, true, &b);
  VkCommandBuffer cmd = vkh_begin(ctx);
  splatsort_sort_info x = b.info;
  x.internal.size = 4 * (256 + 1000) - 4; /* one word short of the unaligned need */
  expect_sort_error(s, cmd, &x, "internal.size");
  vkh_submit_wait(ctx, cmd);
  sort_buffers_destroy(ctx, &b);
  splatsort_destroy(s);
  splatsort_destroy(q);
}

int main(void) {
  vkh_context ctx;
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);

  /* requirements: two-call idiom */
  splatsort_device_requirements req = {0};
  VkResult r = splatsort_get_device_requirements(ctx.physical_device, SPLATSORT_ALGORITHM_QUATERNARY, &req);
  CHECK(r == VK_SUCCESS, "%s", vkh_result_name(r));
  CHECK(req.api_version >= VK_API_VERSION_1_1, "api %u", req.api_version);
  uint32_t need = req.extension_count;
  const char *names[8] = {0};
  if (need > 0) {
    req.extension_names = names;
    req.extension_count = need - 1;
    r = splatsort_get_device_requirements(ctx.physical_device, SPLATSORT_ALGORITHM_QUATERNARY, &req);
    CHECK(r == VK_INCOMPLETE, "short array: %s", vkh_result_name(r));
    req.extension_count = need;
    r = splatsort_get_device_requirements(ctx.physical_device, SPLATSORT_ALGORITHM_QUATERNARY, &req);
    CHECK(r == VK_SUCCESS && names[need - 1] != NULL, "%s", vkh_result_name(r));
  }
  CHECK(splatsort_get_device_requirements(VK_NULL_HANDLE, SPLATSORT_ALGORITHM_AUTO, &req) ==
            VK_ERROR_VALIDATION_FAILED_EXT, "NULL physical device");
  CHECK(splatsort_get_device_requirements(ctx.physical_device, (splatsort_algorithm)7, &req) ==
            VK_ERROR_VALIDATION_FAILED_EXT, "bad algorithm");

  /* create: bad arguments leave *out NULL */
  splatsort *s = (splatsort *)(uintptr_t)1;
  splatsort_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                              .enabled_features = ctx.sort_features, .log = capture_log};
  CHECK(splatsort_create(NULL, &s) == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL, "NULL info");
  CHECK(splatsort_create(&ci, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL out");
  splatsort_create_info bad = ci;
  bad.device = VK_NULL_HANDLE;
  s = (splatsort *)(uintptr_t)1;
  CHECK(splatsort_create(&bad, &s) == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL && strstr(last_log, "device"),
        "no device: %s", last_log);
  bad = ci;
  bad.next = &ci;
  CHECK(splatsort_create(&bad, &s) == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL && strstr(last_log, "next"),
        "next: %s", last_log);
  bad = ci;
  bad.algorithm = (splatsort_algorithm)42;
  CHECK(splatsort_create(&bad, &s) == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL && strstr(last_log, "algorithm"),
        "algorithm: %s", last_log);
  bad = ci;
  bad.instance_api_version = VK_API_VERSION_1_0;
  CHECK(splatsort_create(&bad, &s) == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL && strstr(last_log, "1.1"),
        "1.0 instance: %s", last_log);
  bad = ci;
  bad.flags = 0x80;
  CHECK(splatsort_create(&bad, &s) == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL, "flags");
  /* OneSweep tuning on next: out-of-range values and repeated structures are named */
  splatsort_onesweep_tuning tune = {.type = SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING, .workgroup_size = 7};
  bad = ci;
  bad.algorithm = SPLATSORT_ALGORITHM_ONESWEEP;
  bad.next = &tune;
  last_log[0] = 0;
  r = splatsort_create(&bad, &s);
  CHECK((r == VK_ERROR_VALIDATION_FAILED_EXT || r == VK_ERROR_FEATURE_NOT_PRESENT) && s == NULL &&
            (r == VK_ERROR_FEATURE_NOT_PRESENT || strstr(last_log, "workgroup_size")),
        "tuning workgroup_size 7: %s %s", vkh_result_name(r), last_log);
  splatsort_onesweep_tuning twice = {.type = SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING, .next = &tune};
  tune.workgroup_size = 0;
  bad.next = &twice;
  r = splatsort_create(&bad, &s);
  CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL && strstr(last_log, "repeated"), "tuning twice: %s",
        last_log);
  splatsort_destroy(NULL); /* accepted */

  ci.algorithm = SPLATSORT_ALGORITHM_QUATERNARY;
  r = splatsort_create(&ci, &s);
  CHECK(r == VK_SUCCESS && s != NULL, "%s", vkh_result_name(r));
  if (!s) return 1;
  CHECK(splatsort_get_algorithm(s) == SPLATSORT_ALGORITHM_QUATERNARY, "algorithm");
  CHECK(splatsort_max_count(s) >= (1u << 27) || splatsort_max_count(s) == ctx.props.limits.maxStorageBufferRange / 4,
        "max count %u", splatsort_max_count(s));
  CHECK(splatsort_timestamp_count(s, 32) == 17 && splatsort_timestamp_count(s, 0) == 17 &&
            splatsort_timestamp_count(s, 13) == 8 && splatsort_timestamp_count(s, 33) == 0,
        "timestamp counts");
  CHECK(strcmp(splatsort_timestamp_label(s, 32, 1), "pass 0") == 0 && !*splatsort_timestamp_label(s, 32, 0) &&
            !*splatsort_timestamp_label(s, 32, 17),
        "labels");

  /* memory requirements */
  splatsort_memory_requirements mr;
  last_log[0] = 0;
  CHECK(splatsort_get_memory_requirements(s, 0, &mr) == VK_ERROR_VALIDATION_FAILED_EXT && strstr(last_log, "max_count"),
        "max_count 0: %s", last_log);
  CHECK(splatsort_get_memory_requirements(s, splatsort_max_count(s) + 1u, &mr) == VK_ERROR_VALIDATION_FAILED_EXT ||
            splatsort_max_count(s) == UINT32_MAX,
        "max_count too large");
  CHECK(splatsort_get_memory_requirements(NULL, 10, &mr) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL sorter");
  CHECK(splatsort_get_memory_requirements(s, 1000, &mr) == VK_SUCCESS && mr.keyval_size >= 4000 &&
            mr.internal_size > 0 && (mr.keyval_usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) &&
            (mr.internal_usage & VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT),
        "requirements for 1000");

  /* cmd_sort argument checks: nothing is recorded, the command buffer stays usable */
  sort_buffers b;
  sort_buffers_create(&ctx, s, 1000, 0, true, &b);
  VkCommandBuffer cmd = vkh_begin(&ctx);
  splatsort_sort_info info = b.info;
  CHECK(splatsort_cmd_sort(NULL, cmd, &info, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL sorter");
  CHECK(splatsort_cmd_sort(s, VK_NULL_HANDLE, &info, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL cmd");
  CHECK(splatsort_cmd_sort(s, cmd, NULL, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL info");
  splatsort_sort_info x;
#define SORT_CASE(word, ...) (x = info, x.__VA_ARGS__, expect_sort_error(s, cmd, &x, word))
  SORT_CASE("max_count", max_count = 0);
  SORT_CASE("count", count = 1001);
  SORT_CASE("key_bits", key_bits = 33);
  SORT_CASE("keys", keys.buffer = VK_NULL_HANDLE);
  SORT_CASE("tmp_values", tmp_values.buffer = VK_NULL_HANDLE);
  SORT_CASE("internal", internal.buffer = VK_NULL_HANDLE);
  SORT_CASE("values.offset", values.offset += 2);
  SORT_CASE("count_buffer.offset", count_buffer = (splatsort_buffer){b.count.buffer, 6, 4});
  SORT_CASE("next", next = &info);
  /* ranges smaller than max_count needs (or with no size given) are refused, named */
  SORT_CASE("tmp_keys.size", tmp_keys.size = 4ull * x.max_count - 4);
  SORT_CASE("values.size", values.size = 0);
  SORT_CASE("internal.size", internal.size = 16);
  SORT_CASE("count_buffer.size", count_buffer = (splatsort_buffer){b.count.buffer, 8, 3});
#undef SORT_CASE
  vkh_submit_wait(&ctx, cmd);
  sort_refusals(&ctx, s, &b);
  depth_stage_misuse(&ctx, s);
  allocator_refusals(&ci, s);
  queue_family_refusal(&ctx, &ci);

  sort_buffers_destroy(&ctx, &b);
  splatsort_destroy(s);
  radix16_queries(&ctx, &ci);
  merge_queries(&ctx, &ci);
  algorithm_names();
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  return check_report("test_sort_api");
}
