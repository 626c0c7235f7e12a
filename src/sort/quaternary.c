/* The quaternary (2-bit digit) sort: per digit, chunk digit counts, a hierarchical exclusive
 * scan over all chunks' counts, and a stable shuffle. Portable: no subgroup operations. */
#include "sort_internal.h"
#include "sort_spv_spv.h"

/* The shared setup, scan and add pipelines come first (chunk_scan.c). */
enum { Q_COUNT = SS_SCAN_DIGIT_COUNT, Q_SHUFFLE = SS_SCAN_DIGIT_SCATTER, Q_PIPELINES = SS_SCAN_SORT_PIPELINES };

static ss_scan_plan q_plan(uint32_t max_count) { return ss_scan_plan_make(max_count, QS_CHUNK, 4); }

static VkDeviceSize q_internal_size(const splatsort *s, uint32_t max_count) {
  (void)s;
  ss_scan_plan plan = q_plan(max_count);
  return ss_scan_internal_size(&plan);
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
  if (s->dev.max_workgroup_invocations < QS_WORKGROUP) {
    ss_log(s, "the quaternary sort needs %u invocations per workgroup, the device has %u", QS_WORKGROUP,
           s->dev.max_workgroup_invocations);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  VkResult r = ss_scan_create(s, "quaternary");
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_q_count_comp, sort_spv_q_count_comp_size, NULL, 0,
                           "splatsort quaternary count", &s->pipelines[Q_COUNT]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_q_shuffle_comp, sort_spv_q_shuffle_comp_size, NULL, 0,
                           "splatsort quaternary shuffle", &s->pipelines[Q_SHUFFLE]);
  if (r != VK_SUCCESS) return r;
  s->pipeline_count = Q_PIPELINES;
  s->tile_size = QS_CHUNK;
  s->workgroup_size = QS_WORKGROUP;
  return VK_SUCCESS;
}

static bool q_supported(const ss_device_info *dev) { return dev->max_workgroup_invocations >= QS_WORKGROUP; }

static void q_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits) {
  ss_scan_plan plan = q_plan(info->max_count);
  ss_scan_sort_record(s, cmd, info, key_bits, 2, &plan, "quaternary");
}

const ss_algorithm_ops ss_quaternary_ops = {
    .supported = q_supported,
    .needs = "it needs 256 invocations per workgroup",
    .create = q_create,
    .internal_size = q_internal_size,
    .pass_count = q_pass_count,
    .timestamp_count = q_timestamp_count,
    .timestamp_label = q_timestamp_label,
    .record = q_record,
};
