/* Synchronisation validation really runs: hazards recorded on purpose must be reported, and the
 * same work with the barriers the API documents must not be, so that the silence of every other
 * GPU test means something. On lavapipe with the validation layer (SPLATSORT_VALIDATION=1).
 *
 *   transfer -> transfer  vkCmdFillBuffer, then vkCmdCopyBuffer from that buffer, no barrier
 *   compute -> transfer   splatsort_cmd_sort, then a copy of its result without the barrier its
 *                         synchronisation contract asks for (compute write -> transfer read)
 *   transfer after compute  an indirect sort, then a fill of its count buffer (read by the sort's
 *                         first dispatch) without a barrier: write after read
 * Exit 0: pass, 1: fail (also when synchronisation validation is off). */
#include "check.h"
#include "sort_harness.h"
#include "vkh.h"

static vkh_context ctx;

/* Records `record` into one command buffer, runs it, and returns how many messages of id
 * `expect` the layer gave (any other message is counted as a failure by vkh). */
static uint32_t run(const char *expect, void (*record)(VkCommandBuffer, void *), void *arg) {
  uint32_t before = ctx.expected_messages;
  ctx.expected_message = expect;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  record(cmd, arg);
  vkh_submit_wait(&ctx, cmd);
  ctx.expected_message = NULL;
  return ctx.expected_messages - before;
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                    VkAccessFlags dst_access) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access,
                        .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

typedef struct transfer_case {
  vkh_buffer a, b;
  bool with_barrier;
} transfer_case;

static void record_fill_copy(VkCommandBuffer cmd, void *arg) {
  transfer_case *t = arg;
  vkCmdFillBuffer(cmd, t->a.buffer, 0, 4096, 7);
  if (t->with_barrier)
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferCopy region = {0, 0, 4096};
  vkCmdCopyBuffer(cmd, t->a.buffer, t->b.buffer, 1, &region);
}

typedef struct sort_case {
  splatsort *sorter;
  sort_buffers sb;
  vkh_buffer out;
  bool with_barrier, refill_count;
} sort_case;

/* The sort, then either a copy of its result (read after its write) or, with an indirect
 * count, a fill of the count for a next sort (write after its read). */
static void record_sort_then(VkCommandBuffer cmd, void *arg) {
  sort_case *c = arg;
  splatsort_sort_info si = c->sb.info;
  if (c->refill_count) si.count_buffer = (splatsort_buffer){c->sb.count.buffer, 0, 4};
  splatsort_result where;
  VK_CHECK(splatsort_cmd_sort(c->sorter, cmd, &si, &where));
  if (c->refill_count) {
    if (c->with_barrier) /* a write after a read needs only the execution dependency */
      barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, 0);
    vkCmdFillBuffer(cmd, c->sb.count.buffer, 0, 4, c->sb.max_count);
    return;
  }
  if (c->with_barrier) /* the contract: the sort's compute writes before the reader */
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferCopy region = {where.keys.offset, 0, 4ull * c->sb.max_count};
  vkCmdCopyBuffer(cmd, where.keys.buffer, c->out.buffer, 1, &region);
}

int main(void) {
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  printf("test_syncval: %s, validation %s, synchronisation validation %s\n", ctx.props.deviceName,
         ctx.validation ? "on" : "off", ctx.sync_validation ? "on" : "off");
  CHECK(ctx.validation && ctx.sync_validation, "this test needs the validation layer with synchronisation validation "
                                               "(SPLATSORT_VALIDATION=1, SPLATSORT_SYNC_VALIDATION unset)");
  if (!ctx.sync_validation) {
    vkh_destroy(&ctx);
    return check_report("test_syncval");
  }
  const char *raw = "SYNC-HAZARD-READ-AFTER-WRITE", *war = "SYNC-HAZARD-WRITE-AFTER-READ";

  transfer_case t = {.a = vkh_buffer_create(&ctx, 4096, 0, false, "syncval a"),
                     .b = vkh_buffer_create(&ctx, 4096, 0, false, "syncval b")};
  uint32_t n = run(raw, record_fill_copy, &t);
  printf("  fill, copy without a barrier: %u %s\n", n, raw);
  CHECK(n >= 1, "a transfer write then a transfer read of the same buffer without a barrier was not reported");
  t.with_barrier = true;
  n = run(raw, record_fill_copy, &t);
  CHECK(n == 0, "fill, barrier, copy reported %u hazards", n);
  vkh_buffer_destroy(&ctx, &t.a);
  vkh_buffer_destroy(&ctx, &t.b);

  splatsort *sorters[VKH_MAX_SORTERS];
  uint32_t count = vkh_create_sorters(&ctx, sorters);
  for (uint32_t i = 0; i < count; i++) {
    const char *name = splatsort_algorithm_name(splatsort_get_algorithm(sorters[i]));
    sort_case c = {.sorter = sorters[i]};
    sort_buffers_create(&ctx, sorters[i], 4096, 0, false, &c.sb);
    c.sb.info.count = 4096;
    c.out = vkh_buffer_create(&ctx, c.sb.keyvals.size, 0, false, "syncval out");
    n = run(raw, record_sort_then, &c);
    printf("  %s sort, copy of its result without a barrier: %u %s\n", name, n, raw);
    CHECK(n >= 1, "%s: the sort's compute write then a transfer read without a barrier was not reported", name);
    c.with_barrier = true;
    n = run(raw, record_sort_then, &c);
    CHECK(n == 0, "%s: sort, barrier, copy reported %u hazards", name, n);

    c.refill_count = true, c.with_barrier = false;
    n = run(war, record_sort_then, &c);
    printf("  %s sort of an indirect count, the count refilled without a barrier: %u %s\n", name, n, war);
    CHECK(n >= 1, "%s: the sort's compute read then a transfer write without a barrier was not reported", name);
    c.with_barrier = true;
    n = run(war, record_sort_then, &c);
    CHECK(n == 0, "%s: sort, barrier, fill reported %u hazards", name, n);
    vkh_buffer_destroy(&ctx, &c.out);
    sort_buffers_destroy(&ctx, &c.sb);
    splatsort_destroy(sorters[i]);
  }
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u unexpected validation messages", ctx.validation_messages);
  return check_report("test_syncval");
}
