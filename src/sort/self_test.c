/* The creation-time self-test (splatsort_self_test): one sort of an adversarial input on the
 * host's queue, read back and checked against the stable order on the CPU, with a bounded
 * wait, so that a device that sorts wrongly or never finishes is caught at create and the
 * sorter falls back to the portable path instead of handing out a wrong order. */
#include "sort_internal.h"

#include <stdlib.h>
#include <string.h>

#define SELF_TEST_COUNT 20011u
#define SELF_TEST_TIMEOUT_MS 2000u

/* Keys in eight runs, each a way GPU sorts go wrong: equal keys (stability), a descending run,
 * keys with the top bits set, random keys, a few distinct top-bit patterns, duplicates in
 * order, low bits only, and the two extremes alternating. */
static uint32_t adversarial_key(uint32_t i, uint32_t n, uint32_t *rng) {
  *rng ^= *rng << 13, *rng ^= *rng >> 17, *rng ^= *rng << 5;
  switch ((uint64_t)i * 8u / n) {
  case 0: return 0x7fffffffu;
  case 1: return n - i;
  case 2: return 0xffffffffu - i % 3u;
  case 3: return *rng;
  case 4: return (*rng & 3u) << 30;
  case 5: return i / 7u;
  case 6: return *rng & 0xffu;
  default: return i & 1u ? 0xffffffffu : 0u;
  }
}

typedef struct ref_pair {
  uint32_t key, index;
} ref_pair;

static int cmp_pair(const void *a, const void *b) {
  const ref_pair *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Frees what a run made (VK_NULL_HANDLE members are skipped). */
void ss_self_test_release(splatsort *s, ss_self_test_run *run) {
  VkDevice d = s->vk.device;
  const VkAllocationCallbacks *a = s->vk.allocator;
  if (run->pool) s->vk.fn.vkDestroyCommandPool(d, run->pool, a);
  if (run->fence) s->vk.fn.vkDestroyFence(d, run->fence, a);
  if (run->event) s->vk.fn.vkDestroyEvent(d, run->event, a);
  ssvk_buffer_destroy(&s->vk, &run->buffer);
  for (uint32_t i = 0; i < SS_MAX_PIPELINES; i++)
    if (run->pipelines[i]) s->vk.fn.vkDestroyPipeline(d, run->pipelines[i], a);
  memset(run, 0, sizeof *run);
}

/* Checks the sorted pairs against the stable order; logs the first difference. */
static bool check_order(splatsort *s, const uint32_t *in_keys, const uint32_t *keys, const uint32_t *values,
                        uint32_t n) {
  ref_pair *ref = malloc(sizeof *ref * n);
  if (!ref) return false;
  for (uint32_t i = 0; i < n; i++) ref[i] = (ref_pair){in_keys[i], i};
  qsort(ref, n, sizeof *ref, cmp_pair);
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; i++) {
    if (keys[i] != ref[i].key || values[i] != ref[i].index) {
      ss_log(s, "splatsort_create: self-test: the %s sort's pair %u of %u is (key 0x%08x, payload %u), the stable "
                "order has (0x%08x, %u)",
             splatsort_algorithm_name(s->algorithm), i, n, keys[i], values[i], ref[i].key, ref[i].index);
      ok = false;
    }
  }
  free(ref);
  return ok;
}

/* Records the sort of the n pairs in the buffer's regions into a new command buffer; *call: the
 * function that failed. */
static VkResult record(splatsort *s, const splatsort_self_test *t, ss_self_test_run *run, const VkDeviceSize *at,
                       const splatsort_memory_requirements *mr, uint32_t n, bool inject, splatsort_result *result,
                       const char **call) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = run->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  *call = "vkAllocateCommandBuffers";
  VkResult r = s->vk.fn.vkAllocateCommandBuffers(s->vk.device, &ai, &run->cmd);
  if (r != VK_SUCCESS) return r;
  *call = "vkBeginCommandBuffer";
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  r = s->vk.fn.vkBeginCommandBuffer(run->cmd, &bi);
  if (r != VK_SUCCESS) return r;
  if (run->event && inject && (t->flags & SPLATSORT_SELF_TEST_INJECT_STALL_BIT))
    s->vk.fn.vkCmdWaitEvents(run->cmd, 1, &run->event, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             0, NULL, 0, NULL, 0, NULL);
  VkBuffer b = run->buffer.buffer;
  splatsort_sort_info info = {
      .max_count = n,
      .count = n,
      .key_bits = inject && (t->flags & SPLATSORT_SELF_TEST_INJECT_WRONG_ORDER_BIT) ? 31 : 32,
      .keys = {b, at[0], mr->keyval_size},
      .values = {b, at[1], mr->keyval_size},
      .tmp_keys = {b, at[2], mr->keyval_size},
      .tmp_values = {b, at[3], mr->keyval_size},
      .internal = {b, at[4], mr->internal_size},
  };
  *call = "splatsort_cmd_sort";
  r = splatsort_cmd_sort(s, run->cmd, &info, result);
  if (r != VK_SUCCESS) return r;
  *call = "vkEndCommandBuffer";
  ssvk_memory_barrier(&s->vk, run->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  return s->vk.fn.vkEndCommandBuffer(run->cmd);
}

/* The resources of one run: command pool, fence, the stall's event, one host-visible buffer
 * with the five regions (offsets in at[]); *call: the function that failed. */
static VkResult make_run(splatsort *s, const splatsort_self_test *t, const splatsort_memory_requirements *mr,
                         ss_self_test_run *run, VkDeviceSize at[5], const char **call) {
  VkDeviceSize size = 0;
  for (int i = 0; i < 5; i++) {
    at[i] = size;
    size = ss_align(size + (i < 4 ? mr->keyval_size : mr->internal_size), mr->alignment);
  }
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                 .queueFamilyIndex = t->queue_family_index};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  *call = "vkCreateCommandPool";
  VkResult r = s->vk.fn.vkCreateCommandPool(s->vk.device, &pci, s->vk.allocator, &run->pool);
  if (r == VK_SUCCESS)
    *call = "vkCreateFence", r = s->vk.fn.vkCreateFence(s->vk.device, &fci, s->vk.allocator, &run->fence);
  if (r == VK_SUCCESS && (t->flags & SPLATSORT_SELF_TEST_INJECT_STALL_BIT)) {
    VkEventCreateInfo eci = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    *call = "vkCreateEvent";
    r = s->vk.fn.vkCreateEvent(s->vk.device, &eci, s->vk.allocator, &run->event);
  }
  if (r == VK_SUCCESS)
    *call = "the self-test's buffer", r = ssvk_buffer_create(&s->vk, size, mr->keyval_usage | mr->internal_usage, true,
                                                             false, "splatsort self-test", &run->buffer);
  return r;
}

ss_self_test_outcome ss_self_test(splatsort *s, const splatsort_self_test *t, VkResult *error) {
  *error = VK_SUCCESS;
  uint32_t n = SELF_TEST_COUNT;
  if (n < 3u * s->tile_size + 7u) n = 3u * s->tile_size + 7u;
  if (n > splatsort_max_count(s)) n = splatsort_max_count(s);
  uint32_t timeout_ms = t->timeout_ms ? t->timeout_ms : SELF_TEST_TIMEOUT_MS;
  bool inject = s->algorithm != SPLATSORT_ALGORITHM_QUATERNARY;
  splatsort_memory_requirements mr;
  ss_self_test_run run = {0};
  VkDeviceSize at[5];
  splatsort_result where;
  const char *call = "splatsort_get_memory_requirements";
  VkResult r = splatsort_get_memory_requirements(s, n, &mr);
  if (r == VK_SUCCESS) r = make_run(s, t, &mr, &run, at, &call);
  uint32_t *in_keys = malloc(4u * (size_t)n);
  if (r == VK_SUCCESS && !in_keys) call = "malloc", r = VK_ERROR_OUT_OF_HOST_MEMORY;
  if (r == VK_SUCCESS) {
    uint8_t *m = run.buffer.mapped;
    uint32_t rng = 0x9e3779b9u;
    for (uint32_t i = 0; i < n; i++) {
      in_keys[i] = adversarial_key(i, n, &rng);
      ((uint32_t *)(m + at[0]))[i] = in_keys[i];
      ((uint32_t *)(m + at[1]))[i] = i;
    }
    r = record(s, t, &run, at, &mr, n, inject, &where, &call);
  }
  if (r == VK_SUCCESS) {
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &run.cmd};
    call = "vkQueueSubmit";
    r = s->vk.fn.vkQueueSubmit(t->queue, 1, &si, run.fence);
  }
  if (r == VK_SUCCESS) {
    call = "vkWaitForFences";
    r = s->vk.fn.vkWaitForFences(s->vk.device, 1, &run.fence, VK_TRUE, (uint64_t)timeout_ms * 1000000u);
    if (r == VK_TIMEOUT) {
      ss_log(s, "splatsort_create: self-test: the %s sort of %u pairs did not finish within %u ms",
             splatsort_algorithm_name(s->algorithm), n, timeout_ms);
      if (run.event) s->vk.fn.vkSetEvent(s->vk.device, run.event); /* the injected stall ends now */
      /* The GPU may still use all of it (the pipelines too, see ss_self_test_retire): kept until
       * splatsort_destroy waits for it. */
      s->pending[s->pending_count++] = run;
      s->pending_timeout_ms = timeout_ms;
      free(in_keys);
      return SS_SELF_TEST_TIMEOUT;
    }
    if (r != VK_SUCCESS) {
      /* The sort may still run: as for a late one, everything stays until splatsort_destroy
       * (create's failure path) waits for the fence again (and frees it all once it signals or
       * the device is lost). */
      ss_log(s, "splatsort_create: self-test: vkWaitForFences failed (%s)", ssvk_result_name(r));
      s->pending[s->pending_count++] = run;
      s->pending_timeout_ms = timeout_ms;
      free(in_keys);
      *error = r;
      return SS_SELF_TEST_ERROR;
    }
  }
  ss_self_test_outcome out = SS_SELF_TEST_ERROR;
  if (r == VK_SUCCESS) {
    const uint8_t *m = run.buffer.mapped;
    bool in_tmp = where.keys.offset == at[2];
    out = check_order(s, in_keys, (const uint32_t *)(m + at[in_tmp ? 2 : 0]), (const uint32_t *)(m + at[in_tmp ? 3 : 1]),
                      n)
              ? SS_SELF_TEST_PASSED
              : SS_SELF_TEST_WRONG;
  } else {
    ss_log(s, "splatsort_create: self-test: %s failed (%s)", call, ssvk_result_name(r));
    *error = r;
  }
  free(in_keys);
  ss_self_test_release(s, &run);
  return out;
}

void ss_self_test_retire(splatsort *s, bool late) {
  for (uint32_t i = 0; i < SS_MAX_PIPELINES; i++) {
    if (!s->pipelines[i]) continue;
    if (late)
      s->pending[s->pending_count - 1].pipelines[i] = s->pipelines[i];
    else
      s->vk.fn.vkDestroyPipeline(s->vk.device, s->pipelines[i], s->vk.allocator);
    s->pipelines[i] = VK_NULL_HANDLE;
  }
}

/* A late sort is late, not lost: the wait goes on past the timeout (as the host's own
 * vkDeviceWaitIdle before vkDestroyDevice would) until the fence signals or the device is lost. */
bool ss_self_test_finish(splatsort *s) {
  bool all = true;
  for (uint32_t i = 0; i < s->pending_count; i++) {
    ss_self_test_run *run = &s->pending[i];
    VkResult r = s->vk.fn.vkWaitForFences(s->vk.device, 1, &run->fence, VK_TRUE,
                                          (uint64_t)s->pending_timeout_ms * 1000000u);
    if (r == VK_TIMEOUT) {
      ss_log(s, "splatsort_destroy: the self-test's late sort has not finished %u ms after its timeout either; "
                "waiting for it", s->pending_timeout_ms);
      r = s->vk.fn.vkWaitForFences(s->vk.device, 1, &run->fence, VK_TRUE, UINT64_MAX);
    }
    if (r != VK_SUCCESS) { /* a failed wait is tried once more (a lost device says so again) */
      ss_log(s, "splatsort_destroy: vkWaitForFences for the self-test's late sort failed (%s); waiting again",
             ssvk_result_name(r));
      r = s->vk.fn.vkWaitForFences(s->vk.device, 1, &run->fence, VK_TRUE, UINT64_MAX);
    }
    if (r == VK_ERROR_DEVICE_LOST)
      ss_log(s, "splatsort_destroy: vkWaitForFences for the self-test's late sort: %s; freeing what it used",
             ssvk_result_name(r));
    if (r == VK_SUCCESS || r == VK_ERROR_DEVICE_LOST) {
      ss_self_test_release(s, run);
      continue;
    }
    ss_log(s, "splatsort_destroy: vkWaitForFences for the self-test's late sort failed twice (%s): its command pool, fence, "
              "buffer and pipelines (the sorter's too) are left allocated rather than freed under the GPU",
           ssvk_result_name(r));
    all = false;
  }
  s->pending_count = 0;
  return all;
}
