/* The quaternary (2-bit digit) sort: per digit, chunk digit counts, a hierarchical exclusive
 * scan over all chunks' counts, and a stable shuffle. Portable: no subgroup operations. */
#include "sort_internal.h"
#include "quaternary_shared.h"
#include "splatsort_spv_spv.h"

enum { Q_SETUP, Q_COUNT, Q_SCAN, Q_ADD, Q_SHUFFLE, Q_PIPELINES };

/* Word offsets of the scan levels for max_count, and how many levels are recorded:
 * level l+1 holds one total per 512-entry block of level l; the top level fits one block. */
static uint32_t scan_levels(uint32_t max_count, uint32_t offsets[QS_MAX_LEVELS + 1]) {
  uint32_t m = 4u * ss_div_up(max_count, QS_CHUNK);
  uint32_t off = QS_H_WORDS, levels = 0;
  for (;;) {
    offsets[levels++] = off;
    off += (uint32_t)ss_align(m, 16);
    if (m <= QS_CHUNK || levels == QS_MAX_LEVELS) break;
    m = ss_div_up(m, QS_CHUNK);
  }
  offsets[levels] = off; /* end */
  return levels;
}

static VkDeviceSize q_internal_size(const splatsort *s, uint32_t max_count) {
  (void)s;
  uint32_t offsets[QS_MAX_LEVELS + 1];
  uint32_t levels = scan_levels(max_count, offsets);
  return (VkDeviceSize)offsets[levels] * 4u;
}

static uint32_t q_pass_count(uint32_t key_bits) { return (key_bits + 1) / 2; }
static uint32_t q_timestamp_count(uint32_t key_bits) { return q_pass_count(key_bits) + 1; }

static const char *q_timestamp_label(uint32_t key_bits, uint32_t index) {
  static const char *names[16] = {"pass 0",  "pass 1",  "pass 2",  "pass 3",  "pass 4",  "pass 5",
                                  "pass 6",  "pass 7",  "pass 8",  "pass 9",  "pass 10", "pass 11",
                                  "pass 12", "pass 13", "pass 14", "pass 15"};
  (void)key_bits;
  return index >= 1 && index <= 16 ? names[index - 1] : "";
}

static VkResult q_create(splatsort *s) {
  static const struct {
    const uint32_t *code;
    const size_t *size;
    const char *name;
  } shaders[Q_PIPELINES] = {
      [Q_SETUP] = {splatsort_spv_q_setup_comp, &splatsort_spv_q_setup_comp_size, "splatsort quaternary setup"},
      [Q_COUNT] = {splatsort_spv_q_count_comp, &splatsort_spv_q_count_comp_size, "splatsort quaternary count"},
      [Q_SCAN] = {splatsort_spv_q_scan_comp, &splatsort_spv_q_scan_comp_size, "splatsort quaternary scan"},
      [Q_ADD] = {splatsort_spv_q_add_comp, &splatsort_spv_q_add_comp_size, "splatsort quaternary add"},
      [Q_SHUFFLE] = {splatsort_spv_q_shuffle_comp, &splatsort_spv_q_shuffle_comp_size, "splatsort quaternary shuffle"},
  };
  if (s->dev.max_workgroup_invocations < QS_WORKGROUP) {
    ss_log(s, "the quaternary sort needs %u invocations per workgroup, the device has %u", QS_WORKGROUP,
           s->dev.max_workgroup_invocations);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  for (uint32_t i = 0; i < Q_PIPELINES; i++) {
    VkResult r = ss_create_pipeline(s, shaders[i].code, *shaders[i].size, NULL, 0, shaders[i].name, &s->pipelines[i]);
    if (r != VK_SUCCESS) return r;
  }
  s->pipeline_count = Q_PIPELINES;
  s->tile_size = QS_CHUNK;
  s->workgroup_size = QS_WORKGROUP;
  return VK_SUCCESS;
}

static void dispatch(const splatsort *s, const splatsort_sort_info *info, VkCommandBuffer cmd, uint32_t entry) {
  s->vk.fn.vkCmdDispatchIndirect(cmd, info->internal.buffer, info->internal.offset + 4u * (QS_H_DISPATCH + 4u * entry));
}

static bool q_supported(const ss_device_info *dev) { return dev->max_workgroup_invocations >= QS_WORKGROUP; }

static void q_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits) {
  uint32_t offsets[QS_MAX_LEVELS + 1];
  uint32_t levels = scan_levels(info->max_count, offsets);
  bool indirect = info->count_buffer.buffer != VK_NULL_HANDLE;

  struct qs_push pc = {
      .count = info->count,
      .indirect = indirect,
      .count_index = ss_count_index(s, info),
      .max_count = info->max_count,
      .levels = levels,
      .max_groups_x = s->max_groups_x,
      .keys_only = info->values.buffer == VK_NULL_HANDLE,
  };
  ss_bind(s, cmd, s->pipelines[Q_SETUP], info, 0);
  ss_push(s, cmd, &pc, sizeof pc);
  s->vk.fn.vkCmdDispatch(cmd, 1, 1, 1);
  ss_barrier(s, cmd);

  uint32_t passes = q_pass_count(key_bits);
  for (uint32_t p = 0; p < passes; p++) {
    pc.shift = 2u * p;
    pc.mask = key_bits - pc.shift >= 2 ? 3u : 1u;
    ss_bind(s, cmd, s->pipelines[Q_COUNT], info, p);
    ss_push(s, cmd, &pc, sizeof pc);
    dispatch(s, info, cmd, QS_DISPATCH_CHUNKS);
    ss_barrier(s, cmd);
    for (uint32_t l = 0; l < levels; l++) {
      pc.level = l;
      pc.level_offset = offsets[l];
      pc.next_offset = l + 1 < levels ? offsets[l + 1] : 0;
      ss_bind(s, cmd, s->pipelines[Q_SCAN], info, p);
      ss_push(s, cmd, &pc, sizeof pc);
      dispatch(s, info, cmd, 1 + l);
      ss_barrier(s, cmd);
    }
    for (uint32_t l = levels - 1; l-- > 0;) {
      pc.level = l;
      pc.level_offset = offsets[l];
      pc.next_offset = offsets[l + 1];
      ss_bind(s, cmd, s->pipelines[Q_ADD], info, p);
      ss_push(s, cmd, &pc, sizeof pc);
      dispatch(s, info, cmd, 1 + l);
      ss_barrier(s, cmd);
    }
    ss_bind(s, cmd, s->pipelines[Q_SHUFFLE], info, p);
    ss_push(s, cmd, &pc, sizeof pc);
    dispatch(s, info, cmd, QS_DISPATCH_CHUNKS);
    ss_barrier(s, cmd);
    ss_timestamp(s, cmd, info, p + 1);
  }
}

const ss_algorithm_ops ss_quaternary_ops = {
    .supported = q_supported,
    .create = q_create,
    .internal_size = q_internal_size,
    .pass_count = q_pass_count,
    .timestamp_count = q_timestamp_count,
    .timestamp_label = q_timestamp_label,
    .record = q_record,
};
