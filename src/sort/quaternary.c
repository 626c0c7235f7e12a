/* The quaternary (2-bit digit) sort: per digit, chunk digit counts, a hierarchical exclusive
 * scan over all chunks' counts, and a stable shuffle. Portable: no subgroup operations. */
#include "sort_internal.h"
#include "sort_spv_spv.h"

/* The shared setup, scan and add pipelines come first (chunk_scan.c). */
enum {
  QUATERNARY_COUNT = SS_SCAN_DIGIT_COUNT,
  QUATERNARY_SHUFFLE = SS_SCAN_DIGIT_SCATTER,
  QUATERNARY_PIPELINES = SS_SCAN_SORT_PIPELINES
};
_Static_assert(QUATERNARY_PIPELINES <= SS_MAX_PIPELINES, "the sorter holds SS_MAX_PIPELINES pipelines");

static ss_scan_plan quaternary_plan(uint32_t max_count) {
  return ss_scan_plan_make(max_count, QUATERNARY_CHUNK, 4);
}

static VkDeviceSize quaternary_internal_size(const splatsort *s, uint32_t max_count) {
  (void)s;
  ss_scan_plan plan = quaternary_plan(max_count);
  return ss_scan_internal_size(&plan);
}

static uint32_t quaternary_pass_count(uint32_t key_bits) { return (key_bits + 1) / 2; }
static uint32_t quaternary_timestamp_count(uint32_t key_bits) { return quaternary_pass_count(key_bits) + 1; }

static const char *quaternary_timestamp_label(uint32_t key_bits, uint32_t index) {
  static const char *names[16] = {"pass 0",  "pass 1",  "pass 2",  "pass 3",  "pass 4",  "pass 5",
                                  "pass 6",  "pass 7",  "pass 8",  "pass 9",  "pass 10", "pass 11",
                                  "pass 12", "pass 13", "pass 14", "pass 15"};
  (void)key_bits;
  return index >= 1 && index <= 16 ? names[index - 1] : "";
}

static VkResult quaternary_create(splatsort *s) {
  if (s->dev.max_workgroup_invocations < QUATERNARY_WORKGROUP) {
    ss_log(s, "the quaternary sort needs %u invocations per workgroup, the device has %u", QUATERNARY_WORKGROUP,
           s->dev.max_workgroup_invocations);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  VkResult r = ss_scan_create(s, "quaternary");
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_quaternary_count_comp, sort_spv_quaternary_count_comp_size, NULL, 0,
                           "splatsort quaternary count", &s->pipelines[QUATERNARY_COUNT]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_quaternary_shuffle_comp, sort_spv_quaternary_shuffle_comp_size, NULL, 0,
                           "splatsort quaternary shuffle", &s->pipelines[QUATERNARY_SHUFFLE]);
  if (r != VK_SUCCESS) return r;
  s->tile_size = QUATERNARY_CHUNK;
  return VK_SUCCESS;
}

static bool quaternary_supported(const ss_device_info *dev) {
  return dev->max_workgroup_invocations >= QUATERNARY_WORKGROUP;
}

static void quaternary_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info,
                              uint32_t key_bits) {
  ss_scan_plan plan = quaternary_plan(info->max_count);
  ss_scan_sort_record(s, cmd, info, key_bits, 2, &plan, "quaternary");
}

const ss_algorithm_ops ss_quaternary_ops = {
    .supported = quaternary_supported,
    .needs = "it needs 256 invocations per workgroup",
    .create = quaternary_create,
    .internal_size = quaternary_internal_size,
    .pass_count = quaternary_pass_count,
    .timestamp_count = quaternary_timestamp_count,
    .timestamp_label = quaternary_timestamp_label,
    .record = quaternary_record,
};
