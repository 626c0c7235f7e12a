/* test_faults.c: fault injection into the sort and render libraries (issue 25), the way SQLite
 * fails every malloc. Both libraries reach Vulkan through the vkGetDeviceProcAddr a host hands
 * them (splatsort_vulkan_functions); this test hands in its own, whose wrappers count every call
 * that can fail and make call N return an error without calling the driver. For every N of a
 * clean run of create -> sort -> renderer -> scene -> a graphics and a compute frame -> a streamed
 * level-of-detail object and two frames of it -> destroy
 * (a fresh device each run, the validation layer on): no crash, an error returned by the call
 * that reached the failure, a log message naming the failed Vulkan function, the objects made
 * still usable (the failed step, tried again, works) and destroyable, and no object left at
 * vkDestroyDevice (the validation layer's object tracking; LeakSanitizer in the sanitizer build).
 *   test_faults [--stride K [--offset O]] [--all-errors] [--only C | --from C] [--upload-threads T]
 *               [--piece-splats P] [--log FILE] [--verbose]
 * The sweep's cases are numbered C = 0, 1, ...: first each call of splatsort_create with the
 * self-test on, then each call after create with it off. Every case is named on stdout (and in
 * FILE, flushed) before it starts, with the function it fails (from the clean run's sequence) and
 * the error; a crash prints the case it died in. --only C / --from C replay one case / the rest.
 * --stride K: every K-th case only, from O (K runs with O = 0..K-1 leave none out); the error
 * rotates with the case number (OUT_OF_DEVICE_MEMORY, OUT_OF_HOST_MEMORY, DEVICE_LOST), or with
 * --all-errors each case gets all three. --upload-threads / --piece-splats: the renderer's
 * packing threads and splats per staging piece (default 1 / a piece's worth; small pieces wrap
 * the upload's ring many times). --no-lod leaves the level-of-detail object out. --verbose prints
 * the libraries' messages. */
#include "check.h"
#include "sort_harness.h"
#include "splat_renderer.h"
#include "vkh.h"

#include "renderer_debug.h"

#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the injector ---------------------------------------------------------------------------- */

static struct {
  long calls;           /* fallible calls so far this run */
  long fail_at;         /* the call to fail (-1: none) */
  VkResult error;       /* what it returns */
  const char *failed;   /* the function failed this run, NULL until then */
  long create_calls;    /* of them in splatsort_create */
  int named;            /* a log message after the failure named it */
  int destroying;       /* inside a destroy call, which returns nothing: a failure there is only logged */
  int failed_destroying; /* the failure came inside one */
  int verbose;
} fi;

/* The calls of a clean run by function, for the summary. */
static struct {
  const char *name;
  long count;
} tally[32];

/* The functions of the clean runs' calls in order (without / with the self-test), so that a case
 * is named before it runs. */
#define MAX_CALLS 4096
static const char *sequence[2][MAX_CALLS];
static int sequence_of = -1; /* the clean run recording now (-1: none) */

static int inject(const char *name) {
  if (fi.fail_at < 0)
    for (int i = 0; i < 32; i++)
      if (!tally[i].name || tally[i].name == name) {
        tally[i].name = name, tally[i].count++;
        break;
      }
  if (sequence_of >= 0 && fi.calls < MAX_CALLS) sequence[sequence_of][fi.calls] = name;
  if (fi.calls++ != fi.fail_at) return 0;
  fi.failed = name;
  fi.failed_destroying = fi.destroying;
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

/* The renderer's upload settings (0: the defaults of the create info below). */
static struct {
  uint32_t upload_threads, piece_splats;
  uint32_t self_test_timeout_ms; /* 0: 600 s (see make_sorter) */
  int no_lod;                    /* leave the level-of-detail object out of the sequence */
} opt;

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
  /* A self-test that misses its timeout falls back to quaternary, a longer sequence of calls: on
   * a loaded machine with lavapipe compiling the shaders at their first dispatch, 2 s (the
   * default) was missed, and every case after it failed another call than the one it named. The
   * late path has its own tests (tests/test_self_test.c, the stall injection); here it must not run. */
  splatsort_self_test t = {.type = SPLATSORT_STRUCTURE_TYPE_SELF_TEST, .queue = s->ctx.queue,
                           .queue_family_index = s->ctx.queue_family,
                           .timeout_ms = opt.self_test_timeout_ms ? opt.self_test_timeout_ms : 600000};
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
                                   .flags = s->ctx.debug_labels ? SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT : 0,
                                   .log = fault_log, .instance = s->ctx.instance,
                                   .vulkan_functions = &fault_functions};
  splat_renderer *r = NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    VkResult res = splat_renderer_create(&ci, &r);
    CHECK((res == VK_SUCCESS) == (r != NULL), "splat_renderer_create: %s with renderer %p", ssvk_result_name(res),
          (void *)r);
    if (!failed(s, res, "splat_renderer_create", attempt)) break;
  }
  if (r && opt.upload_threads) splat_renderer_debug_set_upload_threads(r, opt.upload_threads);
  if (r && opt.piece_splats) splat_renderer_debug_set_upload_piece_splats(r, opt.piece_splats);
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

/* A streamed level-of-detail object (splat_renderer_add_lod_object: the tree's buffers through
 * ssvk_buffer_upload, a pool of one page of leaves for two) drawn by two compute frames, whose
 * cuts ask for the missing page and copy it in, then removed. The tree is built once, before
 * the sweep (its build is CPU work with no fallible call). */
static splat_scene lod_scene;
static splat_lod lod_tree;

static void lod_prepare(void) {
  enum { N = 6000 }; /* two pages of 4,096 leaves */
  splat_scene *sc = &lod_scene;
  *sc = (splat_scene){.count = N, .sh_degree = 1, .sh_coeffs = 4, .bounds_min = {-1, -1, -1}, .bounds_max = {1, 1, 1}};
  sc->positions = malloc(sizeof(float) * 3 * N), sc->scales = malloc(sizeof(float) * 3 * N);
  sc->rotations = malloc(sizeof(float) * 4 * N), sc->opacities = malloc(sizeof(float) * N);
  sc->sh = malloc(sizeof(float) * 12 * N);
  CHECK(sc->positions && sc->scales && sc->rotations && sc->opacities && sc->sh, "out of memory");
  if (!(sc->positions && sc->scales && sc->rotations && sc->opacities && sc->sh)) exit(1);
  uint64_t seed = 9;
  for (uint32_t i = 0; i < 3 * N; i++) sc->positions[i] = (float)(splitmix64(&seed) >> 40) / (float)(1 << 24) * 2 - 1;
  for (uint32_t i = 0; i < 3 * N; i++) sc->scales[i] = 0.01f + 0.02f * (float)(i % 5) / 5;
  for (uint32_t i = 0; i < N; i++) {
    float *q = sc->rotations + 4 * i;
    q[0] = 1, q[1] = q[2] = q[3] = 0, sc->opacities[i] = 0.6f;
  }
  for (uint32_t i = 0; i < 12 * N; i++) sc->sh[i] = (float)(i % 13) / 13 - 0.5f;
  char err[256];
  splat_lod_options lo = {.threads = 1, .method = SPLAT_LOD_SPLITS}; /* the shape the sweeps are sized for */
  if (splat_lod_build(sc, &lo, &lod_tree, err, sizeof err) != 0) {
    fprintf(stderr, "test_faults: splat_lod_build: %s\n", err);
    exit(1);
  }
}

static void lod_once(run_state *s, splat_renderer *r) {
  splat_lod_object_desc d = {.leaves = &lod_scene, .lod = &lod_tree, .resident_leaves = 4096};
  uint32_t id = UINT32_MAX;
  for (int attempt = 0; attempt < 2; attempt++)
    if (!failed(s, splat_renderer_add_lod_object(r, &d, &id), "splat_renderer_add_lod_object", attempt)) break;
  if (id == UINT32_MAX) return;
  splat_camera cam;
  const float eye[3] = {0, 0, -3}, target[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  splat_camera_look_at(&cam, eye, target, up, 50, 64, 64);
  splat_frame f = {.camera = &cam, .sh_degree = -1, .raster = SPLAT_RASTER_COMPUTE, .lod_threshold = 0.5f};
  for (int frame = 0; frame < 2; frame++)
    for (int attempt = 0; attempt < 2; attempt++) {
      VkCommandBuffer cmd = vkh_begin(&s->ctx);
      if (failed(s, splat_renderer_cmd_render(r, cmd, &f), "splat_renderer_cmd_render (LOD)", attempt)) {
        VK_CHECK(vkEndCommandBuffer(cmd));
        vkFreeCommandBuffers(s->ctx.device, s->ctx.pool, 1, &cmd);
        continue;
      }
      vkh_submit_wait(&s->ctx, cmd);
      break;
    }
  CHECK(splat_renderer_remove_object(r, id) == VK_SUCCESS, "removing the LOD object failed");
}

/* The whole sequence on a fresh device, call fail_at failing with `error` (-1: none); returns
 * the fallible calls it made. */
static long run_once(long fail_at, VkResult error, bool self_test) {
  fi.calls = 0, fi.fail_at = fail_at, fi.error = error, fi.failed = NULL, fi.named = 0, fi.failed_destroying = 0;
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
    if (!opt.no_lod) lod_once(&s, r);
  }
  fi.destroying = 1;
  splat_renderer_destroy(r);
  splatsort_destroy(sorter);
  fi.destroying = 0;
  vkh_destroy(&s.ctx);
  CHECK(s.ctx.validation_messages == 0, "%u validation message(s)", s.ctx.validation_messages);
  if (fail_at < 0) {
    CHECK(s.errors == 0, "a clean run returned %d error(s)", s.errors);
  } else if (!fi.failed) {
    CHECK(0, "call %ld was never reached (%ld calls)", fail_at, fi.calls);
  } else {
    CHECK(s.errors > 0 || fi.failed_destroying, "the failure of %s (%s) came back from no call", fi.failed,
          ssvk_result_name(error));
    CHECK(fi.named, "no log message named %s", fi.failed);
  }
  if (failures != before)
    fprintf(stderr, "test_faults: ^ call %ld (%s) failing with %s, self-test %s\n", fail_at,
            fi.failed ? fi.failed : "-", ssvk_result_name(error), self_test ? "on" : "off");
  return fi.calls;
}

/* ---- the sweep --------------------------------------------------------------------------------- */

static const VkResult errors[3] = {VK_ERROR_OUT_OF_DEVICE_MEMORY, VK_ERROR_OUT_OF_HOST_MEMORY, VK_ERROR_DEVICE_LOST};

/* The case running now, for the crash handler: its line as printed before it started. */
static char current_case[256];
static FILE *case_log;

static void on_crash(int sig) {
  /* async-signal-safe only: write(2) and backtrace_symbols_fd */
  static const char head[] = "\ntest_faults: crashed (signal ";
  char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), ')', ' '};
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, num, sizeof num);
  (void)!write(2, "in ", 3);
  (void)!write(2, current_case, strlen(current_case));
  (void)!write(2, "\n", 1);
  void *frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Case c's self-test setting and call: the create calls of the self-test run, then the calls
 * after create of the run without it. */
typedef struct sweep_plan {
  long total[2], create[2]; /* per self-test off/on */
} sweep_plan;

static long plan_cases(const sweep_plan *p) { return p->create[1] + p->total[0] - p->create[0]; }

static void plan_case(const sweep_plan *p, long c, bool *self_test, long *call) {
  *self_test = c < p->create[1];
  *call = *self_test ? c : c - p->create[1] + p->create[0];
}

static void run_case(const sweep_plan *p, long c, VkResult error) {
  bool st;
  long call;
  plan_case(p, c, &st, &call);
  const char *fn = call < MAX_CALLS ? sequence[st][call] : NULL;
  snprintf(current_case, sizeof current_case, "case %ld of %ld: call %ld (%s) failing with %s, self-test %s", c,
           plan_cases(p), call, fn ? fn : "?", ssvk_result_name(error), st ? "on" : "off");
  printf("test_faults: %s\n", current_case);
  if (case_log) {
    fprintf(case_log, "%s\n", current_case);
    fflush(case_log);
  }
  run_once(call, error, st);
  CHECK(!fi.failed || !fn || !strcmp(fi.failed, fn), "case %ld failed %s where the clean run made %s", c, fi.failed,
        fn);
}

int main(int argc, char **argv) {
  long stride = 1, offset = 0, only = -1, from = 0;
  int all_errors = 0;
  const char *log_path = NULL;
  check_print_limit = 50;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--stride") && i + 1 < argc) stride = atol(argv[++i]);
    else if (!strcmp(argv[i], "--offset") && i + 1 < argc) offset = atol(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = atol(argv[++i]);
    else if (!strcmp(argv[i], "--from") && i + 1 < argc) from = atol(argv[++i]);
    else if (!strcmp(argv[i], "--upload-threads") && i + 1 < argc) opt.upload_threads = (uint32_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "--piece-splats") && i + 1 < argc) opt.piece_splats = (uint32_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "--log") && i + 1 < argc) log_path = argv[++i];
    else if (!strcmp(argv[i], "--self-test-timeout") && i + 1 < argc) opt.self_test_timeout_ms = (uint32_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "--all-errors")) all_errors = 1;
    else if (!strcmp(argv[i], "--no-lod")) opt.no_lod = 1;
    else if (!strcmp(argv[i], "--verbose")) fi.verbose = 1;
    else {
      fprintf(stderr, "usage: test_faults [--stride K] [--offset O] [--all-errors] [--only C | --from C] "
                      "[--upload-threads T] [--piece-splats P] [--self-test-timeout MS] [--no-lod] [--log FILE] [--verbose]\n");
      return 2;
    }
  }
  if (stride < 1) stride = 1;
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (log_path && !(case_log = fopen(log_path, "w"))) {
    fprintf(stderr, "test_faults: %s: cannot write the case log\n", log_path);
    return 2;
  }
  signal(SIGBUS, on_crash);
  signal(SIGSEGV, on_crash);
  signal(SIGABRT, on_crash);
  signal(SIGILL, on_crash);
  signal(SIGFPE, on_crash);
  double t0 = now_seconds();
  /* With the self-test, splatsort_create makes the calls it makes without it and then the
   * self-test's; the rest of the sequence is the same. So the self-test run's create and the
   * other run's calls after create cover every call once. */
  if (!opt.no_lod) lod_prepare();
  sweep_plan plan;
  for (int st = 0; st < 2; st++) {
    memset(tally, 0, sizeof tally); /* the self-test run's calls are the ones swept */
    snprintf(current_case, sizeof current_case, "the clean run, self-test %s", st ? "on" : "off");
    sequence_of = st;
    plan.total[st] = run_once(-1, VK_SUCCESS, st);
    sequence_of = -1;
    plan.create[st] = fi.create_calls;
    printf("test_faults: self-test %s: a clean run makes %ld fallible calls, %ld in splatsort_create\n",
           st ? "on" : "off", plan.total[st], plan.create[st]);
  }
  CHECK(plan.total[0] <= MAX_CALLS && plan.total[1] <= MAX_CALLS, "more than %d calls a run", MAX_CALLS);
  if (opt.self_test_timeout_ms) {
    /* Late self-tests: the sorter keeps the late runs until destroy, so the calls after create
     * differ from the run without it: every call of the self-test run is a case. */
    plan.create[1] = plan.total[1], plan.create[0] = plan.total[0];
  } else {
    CHECK(plan.total[1] - plan.create[1] == plan.total[0] - plan.create[0], "the runs after create differ in length");
  }
  for (int st = 0; st < 2 && !opt.self_test_timeout_ms; st++)
    for (long c = plan.create[st]; c < plan.total[st] && c < MAX_CALLS; c++)
      CHECK(sequence[st][c] == sequence[!st][c - plan.create[st] + plan.create[!st]],
            "call %ld after create differs with the self-test %s", c, st ? "on" : "off");
  printf("test_faults: the calls swept:");
  for (int i = 0; i < 32 && tally[i].name; i++) printf(" %s %ld", tally[i].name, tally[i].count);
  printf("\n");
  if (failures) return check_report("test_faults");
  long cases = plan_cases(&plan), runs = 0;
  if (only >= cases || from >= cases) {
    fprintf(stderr, "test_faults: case %ld does not exist (cases 0 to %ld)\n", only >= 0 ? only : from, cases - 1);
    return 2;
  }
  for (long c = only >= 0 ? only : from + offset % stride; c < cases; c += only >= 0 ? cases : stride)
    for (int e = 0; e < 3; e++) {
      if (!all_errors && e != c % 3) continue;
      run_case(&plan, c, errors[e]);
      runs++;
    }
  printf("test_faults: %ld runs, each failing one call (every %ld of the %ld cases: %ld in create with the "
         "self-test, then %ld after it), %s, in %.1f s\n", runs, only >= 0 ? cases : stride, cases, plan.create[1],
         plan.total[0] - plan.create[0], all_errors ? "each with all three errors" : "the error rotating with the case",
         now_seconds() - t0);
  if (case_log) fclose(case_log);
  return check_report("test_faults");
}
