/* Placeholder until the OneSweep path lands (issue 3): reports itself unsupported so AUTO
 * picks the quaternary path and an explicit ONESWEEP request fails cleanly. */
#include "sort_internal.h"

bool ss_onesweep_supported(const ss_device_info *dev) {
  (void)dev;
  return false;
}

static VkResult os_create(splatsort *s) {
  ss_log(s, "splatsort: the OneSweep path is not built yet");
  return VK_ERROR_FEATURE_NOT_PRESENT;
}
static VkDeviceSize os_internal_size(const splatsort *s, uint32_t max_count) {
  (void)s;
  (void)max_count;
  return 16;
}
static uint32_t os_pass_count(uint32_t key_bits) { return (key_bits + 7) / 8; }
static uint32_t os_timestamp_count(uint32_t key_bits) { return os_pass_count(key_bits) + 2; }
static const char *os_timestamp_label(uint32_t key_bits, uint32_t index) {
  (void)key_bits;
  (void)index;
  return "";
}
static void os_record(splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits) {
  (void)s;
  (void)cmd;
  (void)info;
  (void)key_bits;
}

const ss_algorithm_ops ss_onesweep_ops = {
    .create = os_create, .internal_size = os_internal_size, .pass_count = os_pass_count,
    .timestamp_count = os_timestamp_count, .timestamp_label = os_timestamp_label, .record = os_record,
};
