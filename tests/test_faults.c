/* test_faults.c: fault injection into the sort and render libraries (issue 25), the way SQLite
 * fails every malloc. Both libraries reach Vulkan through the vkGetDeviceProcAddr a host hands
 * them (splatsort_vulkan_functions); this test hands in its own, whose wrappers count every call
 * that can fail and make call N return an error without calling the driver. For every N of a
 * clean run of create -> sort -> renderer -> scene -> a graphics and a compute frame -> destroy
 * (a fresh device each run, the validation layer on): no crash, an error returned by the call
 * that reached the failure, a log message naming the failed Vulkan function, the objects made
 * still usable (the failed step, tried again, works) and destroyable, and no object left at
 * vkDestroyDevice (the validation layer's object tracking; LeakSanitizer in the sanitizer build).
 *   test_faults [--stride K [--offset O]] [--all-errors] [--verbose]
 * --stride K: every K-th N only, from O (K runs with O = 0..K-1 leave none out); the error
 * rotates over the runs (OUT_OF_DEVICE_MEMORY, OUT_OF_HOST_MEMORY, DEVICE_LOST), or with --all-errors
 * each N gets all three; --verbose prints the libraries' messages. */
#include "check.h"
#include "sort_harness.h"
#include "splat_renderer.h"
#include "vkh.h"

#include <stdlib.h>
#include <string.h>

/* ---- the injector ---------------------------------------------------------------------------- */

static struct {
  long calls;           /* fallible calls so far this run */
  long fail_at;         /* the call to fail (-1: none) */
  VkResult error;       /* what it returns */
  const char *failed;   /* the function failed this run, NULL until then */
  long create_calls;    /* of them in splatsort_create */
  int named;            /* a log message after the failure named it */
  int verbose;
} fi;

/* The calls of a clean run by function, for the summary. */
static struct {
  const char *name;
  long count;
} tally[32];

static int inject(const char *name) {
  if (fi.fail_at < 0)
    for (int i = 0; i < 32; i++)
      if (!tally[i].name || tally[i].name == name) {
        tally[i].name = name, tally[i].count++;
        break;
      }
  if (fi.calls++ != fi.fail_at) return 0;
  fi.failed = name;
  return 1;
}

/* One wrapper per fallible function: W(name, (params), (args), what the outputs get on failure). */
#define W(name, params, args, on_fail)                                          \
  static PFN_##name real_##name;                                              \
  static VKAPI_ATTR VkResult VKAPI_CALL wrap_##name params {                  \
    if (inject(#name)) {                                                      \
      on_fail;                                                                \
      return fi.error;                                                        \
    }                                                                         \
    return real_##name args;                                                  \
  }
#define CREATE(name, Info, Handle)                                                                            \
  W(name, (VkDevice d, const Info *ci, const VkAllocationCallbacks *a, Handle *out), (d, ci, a, out), (void)out)
CREATE(vkCreateBuffer, VkBufferCreateInfo, VkBuffer)
CREATE(vkCreateImage, VkImageCreateInfo, VkImage)
CREATE(vkCreateImageView, VkImageViewCreateInfo, VkImageView)
CREATE(vkCreateShaderModule, VkShaderModuleCreateInfo, VkShaderModule)
CREATE(vkCreatePipelineLayout, VkPipelineLayoutCreateInfo, VkPipelineLayout)
CREATE(vkCreateDescriptorSetLayout, VkDescriptorSetLayoutCreateInfo, VkDescriptorSetLayout)
CREATE(vkCreateQueryPool, VkQueryPoolCreateInfo, VkQueryPool)
CREATE(vkCreateCommandPool, VkCommandPoolCreateInfo, VkCommandPool)
CREATE(vkCreateFence, VkFenceCreateInfo, VkFence)
CREATE(vkCreateEvent, VkEventCreateInfo, VkEvent)
CREATE(vkAllocateMemory, VkMemoryAllocateInfo, VkDeviceMemory)
/* Vulkan sets every pipeline to VK_NULL_HANDLE when their creation fails. */
W(vkCreateComputePipelines,
  (VkDevice d, VkPipelineCache c, uint32_t n, const VkComputePipelineCreateInfo *ci, const VkAllocationCallbacks *a,
   VkPipeline *out),
  (d, c, n, ci, a, out), for (uint32_t i = 0; i < n; i++) out[i] = VK_NULL_HANDLE)
W(vkCreateGraphicsPipelines,
  (VkDevice d, VkPipelineCache c, uint32_t n, const VkGraphicsPipelineCreateInfo *ci, const VkAllocationCallbacks *a,
   VkPipeline *out),
  (d, c, n, ci, a, out), for (uint32_t i = 0; i < n; i++) out[i] = VK_NULL_HANDLE)
W(vkAllocateCommandBuffers, (VkDevice d, const VkCommandBufferAllocateInfo *ai, VkCommandBuffer *out), (d, ai, out),
  for (uint32_t i = 0; i < ai->commandBufferCount; i++) out[i] = VK_NULL_HANDLE)
W(vkBeginCommandBuffer, (VkCommandBuffer c, const VkCommandBufferBeginInfo *bi), (c, bi), (void)0)
W(vkEndCommandBuffer, (VkCommandBuffer c), (c), (void)0)
W(vkQueueSubmit, (VkQueue q, uint32_t n, const VkSubmitInfo *si, VkFence f), (q, n, si, f), (void)0)
W(vkWaitForFences, (VkDevice d, uint32_t n, const VkFence *f, VkBool32 all, uint64_t t), (d, n, f, all, t), (void)0)
W(vkResetFences, (VkDevice d, uint32_t n, const VkFence *f), (d, n, f), (void)0)
W(vkSetEvent, (VkDevice d, VkEvent e), (d, e), (void)0)
W(vkMapMemory, (VkDevice d, VkDeviceMemory m, VkDeviceSize o, VkDeviceSize s, VkMemoryMapFlags fl, void **p),
  (d, m, o, s, fl, p), (void)p)
W(vkBindBufferMemory, (VkDevice d, VkBuffer b, VkDeviceMemory m, VkDeviceSize o), (d, b, m, o), (void)0)
W(vkBindImageMemory, (VkDevice d, VkImage i, VkDeviceMemory m, VkDeviceSize o), (d, i, m, o), (void)0)
W(vkGetQueryPoolResults,
  (VkDevice d, VkQueryPool p, uint32_t first, uint32_t n, size_t size, void *data, VkDeviceSize stride,
   VkQueryResultFlags fl),
  (d, p, first, n, size, data, stride, fl), (void)0)

#define FALLIBLE(X)                                                                                          \
  X(vkCreateBuffer) X(vkCreateImage) X(vkCreateImageView) X(vkCreateShaderModule) X(vkCreatePipelineLayout)   \
  X(vkCreateDescriptorSetLayout) X(vkCreateQueryPool) X(vkCreateCommandPool) X(vkCreateFence) X(vkCreateEvent) \
  X(vkAllocateMemory) X(vkCreateComputePipelines) X(vkCreateGraphicsPipelines) X(vkAllocateCommandBuffers)     \
  X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkQueueSubmit) X(vkWaitForFences) X(vkResetFences)          \
  X(vkSetEvent) X(vkMapMemory) X(vkBindBufferMemory) X(vkBindImageMemory) X(vkGetQueryPoolResults)

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fault_get_device_proc_addr(VkDevice device, const char *name) {
#define LOOKUP(fn)                                                             \
  if (!strcmp(name, #fn)) {                                                    \
    real_##fn = (PFN_##fn)vkGetDeviceProcAddr(device, name);                   \
    return real_##fn ? (PFN_vkVoidFunction)wrap_##fn : NULL;                   \
  }
  FALLIBLE(LOOKUP)
#undef LOOKUP
  return vkGetDeviceProcAddr(device, name);
}

static const splatsort_vulkan_functions fault_functions = {vkGetInstanceProcAddr, fault_get_device_proc_addr};

/* Every library message: counted, printed with --verbose, and checked for the failed call. */
static void fault_log(void *user, const char *message) {
  (void)user;
  if (fi.failed && strstr(message, fi.failed)) fi.named = 1;
  if (fi.verbose) fprintf(stderr, "  log: %s\n", message);
}

/* ---- one run of the sequence ------------------------------------------------------------------ */

/* What a run saw: API calls that returned an error, and steps that failed a second time. */
typedef struct run_state {
  vkh_context ctx;
  int errors;
  bool self_test;
} run_state;

/* A step's result: 1 when it failed (counted; the caller tries it once more, which must work,
 * since only one call fails a run). */
static int failed(run_state *s, VkResult res, const char *step, int attempt) {
  if (res == VK_SUCCESS) return 0;
  s->errors++;
  CHECK(attempt == 0, "%s failed again (%s) after the injected failure of %s", step, ssvk_result_name(res),
        fi.failed ? fi.failed : "(none)");
  return 1;
}

static splatsort *make_sorter(run_state *s) {
  splatsort_self_test t = {.type = SPLATSORT_STRUCTURE_TYPE_SELF_TEST, .queue = s->ctx.queue,
                           .queue_family_index = s->ctx.queue_family};
  splatsort_create_info ci = {.next = s->self_test ? &t : NULL, .physical_device = s->ctx.physical_device,
                              .device = s->ctx.device, .enabled_features = s->ctx.sort_features,
                              .flags = vkh_sort_flags(&s->ctx), .log = fault_log, .instance = s->ctx.instance,
                              .instance_api_version = VK_API_VERSION_1_3, .vulkan_functions = &fault_functions};
  splatsort *sorter = NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    VkResult res = splatsort_create(&ci, &sorter);
    CHECK((res == VK_SUCCESS) == (sorter != NULL), "splatsort_create: %s with sorter %p", ssvk_result_name(res),
          (void *)sorter);
    if (!failed(s, res, "splatsort_create", attempt)) break;
  }
  return sorter;
}

/* A small sort recorded and submitted by the test, its result checked. */
static void sort_once(run_state *s, splatsort *sorter) {
  enum { N = 1000 };
  sort_buffers b;
  sort_buffers_create(&s->ctx, sorter, N, 0, true, &b);
  uint32_t keys[N];
  gen_keys(keys, N, DIST_UNIFORM, 25);
  for (uint32_t i = 0; i < N; i++) ((uint32_t *)((char *)b.keyvals.mapped + sort_region(&b, 1)))[i] = i;
  memcpy((char *)b.keyvals.mapped + sort_region(&b, 0), keys, sizeof keys);
  for (int attempt = 0; attempt < 2; attempt++) {
    VkCommandBuffer cmd = vkh_begin(&s->ctx);
    splatsort_result where;
    VkResult res = splatsort_cmd_sort(sorter, cmd, &b.info, &where);
    if (failed(s, res, "splatsort_cmd_sort", attempt)) {
      VK_CHECK(vkEndCommandBuffer(cmd));
      vkFreeCommandBuffers(s->ctx.device, s->ctx.pool, 1, &cmd);
      continue;
    }
    vkh_submit_wait(&s->ctx, cmd);
    const char *m = b.keyvals.mapped;
    CHECK(check_sorted_indices(keys, N, 32, (const uint32_t *)(m + where.keys.offset),
                               (const uint32_t *)(m + where.values.offset)) == N, "the sort's order is wrong");
    break;
  }
  sort_buffers_destroy(&s->ctx, &b);
}

static splat_renderer *make_renderer(run_state *s, splatsort *sorter) {
  const splatsort *sorters[1] = {sorter};
  splat_renderer_create_info ci = {.physical_device = s->ctx.physical_device, .device = s->ctx.device,
                                   .device_create_info = &s->ctx.device_create_info,
                                   .queue = s->ctx.queue, .queue_family = s->ctx.queue_family,
                                   .sorters = sorters, .sorter_count = 1, .upload_threads = 1,
                                   .flags = s->ctx.debug_utils ? SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT : 0,
                                   .log = fault_log, .instance = s->ctx.instance,
                                   .vulkan_functions = &fault_functions};
  splat_renderer *r = NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    VkResult res = splat_renderer_create(&ci, &r);
    CHECK((res == VK_SUCCESS) == (r != NULL), "splat_renderer_create: %s with renderer %p", ssvk_result_name(res),
          (void *)r);
    if (!failed(s, res, "splat_renderer_create", attempt)) break;
  }
  return r;
}

/* 256 splats in a ball, SH degree 1. */
static void scene_once(run_state *s, splat_renderer *r) {
  enum { N = 256 };
  static float pos[3 * N], scl[3 * N], rot[4 * N], opa[N], sh[3 * 4 * N];
  uint64_t seed = 7;
  for (uint32_t i = 0; i < 3 * N; i++) pos[i] = (float)(splitmix64(&seed) >> 40) / (float)(1 << 24) * 2 - 1;
  for (uint32_t i = 0; i < 3 * N; i++) scl[i] = 0.03f + 0.05f * (float)(i % 7) / 7;
  for (uint32_t i = 0; i < N; i++) rot[4 * i] = 1, rot[4 * i + 1] = rot[4 * i + 2] = rot[4 * i + 3] = 0, opa[i] = 0.7f;
  for (uint32_t i = 0; i < 12 * N; i++) sh[i] = (float)(i % 11) / 11 - 0.5f;
  splat_scene sc = {.count = N, .sh_degree = 1, .sh_coeffs = 4, .positions = pos, .scales = scl, .rotations = rot,
                    .opacities = opa, .sh = sh, .bounds_min = {-1, -1, -1}, .bounds_max = {1, 1, 1}};
  for (int attempt = 0; attempt < 2; attempt++)
    if (!failed(s, splat_renderer_set_scene(r, &sc), "splat_renderer_set_scene", attempt)) break;
  CHECK(splat_renderer_scene_count(r) == N, "the renderer holds %u splats, not %u", splat_renderer_scene_count(r), N);
}

/* One 64 x 64 frame recorded and submitted by the test. */
static void frame_once(run_state *s, splat_renderer *r, splat_raster_path raster) {
  splat_camera cam;
  const float eye[3] = {0, 0, -4}, target[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  splat_camera_look_at(&cam, eye, target, up, 50, 64, 64);
  splat_frame f = {.camera = &cam, .raster = raster};
  const char *step = raster == SPLAT_RASTER_COMPUTE ? "splat_renderer_cmd_render (compute)" : "splat_renderer_cmd_render";
  for (int attempt = 0; attempt < 2; attempt++) {
    VkCommandBuffer cmd = vkh_begin(&s->ctx);
    if (failed(s, splat_renderer_cmd_render(r, cmd, &f), step, attempt)) {
      VK_CHECK(vkEndCommandBuffer(cmd));
      vkFreeCommandBuffers(s->ctx.device, s->ctx.pool, 1, &cmd);
      continue;
    }
    vkh_submit_wait(&s->ctx, cmd);
    break;
  }
}

/* The whole sequence on a fresh device, call fail_at failing with `error` (-1: none); returns
 * the fallible calls it made. */
static long run_once(long fail_at, VkResult error, bool self_test) {
  fi.calls = 0, fi.fail_at = fail_at, fi.error = error, fi.failed = NULL, fi.named = 0;
  int before = failures;
  run_state s = {.self_test = self_test};
  vkh_options o = vkh_default_options(true);
  vkh_init(&s.ctx, &o);
  splatsort *sorter = make_sorter(&s);
  fi.create_calls = fi.calls;
  splat_renderer *r = NULL;
  if (sorter) {
    sort_once(&s, sorter);
    r = make_renderer(&s, sorter);
  }
  if (r) {
    scene_once(&s, r);
    frame_once(&s, r, SPLAT_RASTER_GRAPHICS);
    frame_once(&s, r, SPLAT_RASTER_COMPUTE);
  }
  splat_renderer_destroy(r);
  splatsort_destroy(sorter);
  vkh_destroy(&s.ctx);
  CHECK(s.ctx.validation_messages == 0, "%u validation message(s)", s.ctx.validation_messages);
  if (fail_at < 0) {
    CHECK(s.errors == 0, "a clean run returned %d error(s)", s.errors);
  } else if (!fi.failed) {
    CHECK(0, "call %ld was never reached (%ld calls)", fail_at, fi.calls);
  } else {
    CHECK(s.errors > 0, "the failure of %s (%s) came back from no call", fi.failed, ssvk_result_name(error));
    CHECK(fi.named, "no log message named %s", fi.failed);
  }
  if (failures != before)
    fprintf(stderr, "test_faults: ^ call %ld (%s) failing with %s, self-test %s\n", fail_at,
            fi.failed ? fi.failed : "-", ssvk_result_name(error), self_test ? "on" : "off");
  return fi.calls;
}

/* ---- the sweep --------------------------------------------------------------------------------- */

static const VkResult errors[3] = {VK_ERROR_OUT_OF_DEVICE_MEMORY, VK_ERROR_OUT_OF_HOST_MEMORY, VK_ERROR_DEVICE_LOST};

/* Fails every stride-th call in [from, to) (from `offset`), with every error or one rotating over
 * the runs; returns the runs made (*runs: all so far). */
static void sweep(long from, long to, long stride, long offset, int all_errors, bool self_test, long *runs) {
  for (long n = from + (offset % stride); n < to; n += stride)
    for (int e = 0; e < 3; e++) {
      if (!all_errors && e != *runs % 3) continue;
      run_once(n, errors[e], self_test);
      ++*runs;
      if (!all_errors) break;
    }
}

int main(int argc, char **argv) {
  long stride = 1, offset = 0;
  int all_errors = 0;
  check_print_limit = 50;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--stride") && i + 1 < argc) stride = atol(argv[++i]);
    else if (!strcmp(argv[i], "--offset") && i + 1 < argc) offset = atol(argv[++i]);
    else if (!strcmp(argv[i], "--all-errors")) all_errors = 1;
    else if (!strcmp(argv[i], "--verbose")) fi.verbose = 1;
    else {
      fprintf(stderr, "usage: test_faults [--stride K] [--offset O] [--all-errors] [--verbose]\n");
      return 2;
    }
  }
  if (stride < 1) stride = 1;
  setvbuf(stdout, NULL, _IOLBF, 0);
  double t0 = now_seconds();
  /* With the self-test, splatsort_create makes the calls it makes without it and then the
   * self-test's; the rest of the sequence is the same. So the self-test run's create and the
   * other run's calls after create cover every call once. */
  long total[2], create[2];
  for (int st = 0; st < 2; st++) {
    memset(tally, 0, sizeof tally); /* the self-test run's calls are the ones swept */
    total[st] = run_once(-1, VK_SUCCESS, st);
    create[st] = fi.create_calls;
    printf("test_faults: self-test %s: a clean run makes %ld fallible calls, %ld in splatsort_create\n",
           st ? "on" : "off", total[st], create[st]);
  }
  CHECK(total[1] - create[1] == total[0] - create[0], "the runs after create differ in length");
  printf("test_faults: the calls swept:");
  for (int i = 0; i < 32 && tally[i].name; i++) printf(" %s %ld", tally[i].name, tally[i].count);
  printf("\n");
  if (failures) return check_report("test_faults");
  long runs = 0;
  sweep(0, create[1], stride, offset, all_errors, true, &runs);
  sweep(create[0], total[0], stride, offset, all_errors, false, &runs);
  printf("test_faults: %ld runs, each failing one call (every %ld of the %ld in create with the self-test, then "
         "%ld after it), %s, in %.1f s\n", runs, stride, create[1], total[0] - create[0],
         all_errors ? "each with all three errors" : "the error rotating over the runs", now_seconds() - t0);
  return check_report("test_faults");
}
