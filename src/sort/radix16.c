/* The radix16 sort: 4-bit digits, reduce-then-scan. Per digit, a count kernel writes every
 * tile's 16 digit counts, the hierarchical scan shared with the quaternary sort (chunk_scan.c)
 * turns them into offsets, and a scatter kernel ranks each tile with subgroup ballots and
 * writes it out. No workgroup ever waits on another. */
#include "sort_internal.h"
#include "radix16_shared.h"
#include "sort_spv_spv.h"

/* The shared setup, scan and add pipelines come first (chunk_scan.c). */
enum {
  RADIX16_COUNT = SS_SCAN_DIGIT_COUNT,
  RADIX16_SCATTER = SS_SCAN_DIGIT_SCATTER,
  RADIX16_PIPELINES = SS_SCAN_SORT_PIPELINES
};
_Static_assert(RADIX16_PIPELINES <= SS_MAX_PIPELINES, "the sorter holds SS_MAX_PIPELINES pipelines");

static const VkSubgroupFeatureFlags radix16_needed_ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;

/* Keys per invocation: 256 x 12 = 3,072-key tiles. Measured on lavapipe (CPU time per 1M-pair
 * sort at subgroup sizes 4, 8 and 16, a shared 2-core machine, 2026-11): 4 keys cost 1.1-1.5x
 * as much as 8; 12 and 16 were mostly 8-15% below 8 and level with each other. The scatter
 * kernel takes ~70% of the time, and a larger tile spreads its fixed costs (clearing the
 * counters, the 512-entry scan and its ~20 barriers) over more keys. 12 rather than 16: the
 * scatter kernel then needs 14.1 KB of shared memory even with 64 subgroups of 4 (within the
 * 16 KB every Vulkan device has) and holds three arrays of 12 per invocation (keys, positions,
 * payloads), kinder to GPUs with few registers. */
#define RADIX16_DEFAULT_KEYS 12u
#define RADIX16_MIN_KEYS 2u

/* The smallest subgroup a pipeline may run with (at least RADIX16_MIN_SUBGROUP, which
 * radix16_supported requires of the default size): it bounds the subgroups per workgroup. */
static uint32_t smallest_subgroup(const ss_device_info *dev) {
  uint32_t m = dev->min_subgroup_size < dev->subgroup_size ? dev->min_subgroup_size : dev->subgroup_size;
  return m < RADIX16_MIN_SUBGROUP ? RADIX16_MIN_SUBGROUP : m;
}

static uint32_t max_subgroups(const ss_device_info *dev) { return RADIX16_WORKGROUP / smallest_subgroup(dev); }

/* Bytes of shared memory the scatter kernel declares (radix16_scatter.comp and scan512.glsl). */
static uint32_t scatter_shared_bytes(uint32_t keys, uint32_t subgroups) {
  uint32_t tile = RADIX16_WORKGROUP * keys, counters = subgroups * RADIX16_RADIX;
  return 4u * ((tile > counters ? tile : counters) + RADIX16_RADIX + 512u + 16u + 1u);
}

static bool radix16_supported(const ss_device_info *dev) {
  return (dev->subgroup_ops & radix16_needed_ops) == radix16_needed_ops &&
         dev->max_workgroup_invocations >= RADIX16_WORKGROUP &&
         dev->subgroup_size >= RADIX16_MIN_SUBGROUP && dev->subgroup_size <= RADIX16_MAX_SUBGROUP &&
         scatter_shared_bytes(RADIX16_MIN_KEYS, max_subgroups(dev)) <= dev->max_shared_memory;
}

/* The default tile, lowered until the scatter kernel fits in shared memory. */
static uint32_t radix16_keys(const ss_device_info *dev) {
  uint32_t keys = RADIX16_DEFAULT_KEYS;
  while (keys > RADIX16_MIN_KEYS && scatter_shared_bytes(keys, max_subgroups(dev)) > dev->max_shared_memory) keys--;
  return keys;
}

static ss_scan_plan radix16_plan(const splatsort *s, uint32_t max_count) {
  return ss_scan_plan_make(max_count, s->tile_size, RADIX16_RADIX);
}

static VkDeviceSize radix16_internal_size(const splatsort *s, uint32_t max_count) {
  ss_scan_plan plan = radix16_plan(s, max_count);
  return ss_scan_internal_size(&plan);
}

static uint32_t radix16_pass_count(uint32_t key_bits) { return (key_bits + 3) / 4; }
static uint32_t radix16_timestamp_count(uint32_t key_bits) { return radix16_pass_count(key_bits) + 1; }

static const char *radix16_timestamp_label(uint32_t key_bits, uint32_t index) {
  static const char *names[8] = {"pass 0", "pass 1", "pass 2", "pass 3", "pass 4", "pass 5", "pass 6", "pass 7"};
  return index >= 1 && index < radix16_timestamp_count(key_bits) ? names[index - 1] : "";
}

static VkResult radix16_create(splatsort *s) {
  if (!radix16_supported(&s->dev)) return VK_ERROR_FEATURE_NOT_PRESENT;
  uint32_t keys = radix16_keys(&s->dev);
  uint32_t smallest = smallest_subgroup(&s->dev);
  s->tile_size = RADIX16_WORKGROUP * keys;
  /* Entries i: constant_id i (RADIX16_SPEC_*), the i-th word of the values. */
  const uint32_t values[] = {keys, max_subgroups(&s->dev), (RADIX16_RADIX + smallest - 1) / smallest};
  VkSpecializationMapEntry map[3];
  for (uint32_t i = 0; i < 3; i++) map[i] = (VkSpecializationMapEntry){i, 4u * i, 4};
  VkSpecializationInfo spec = {3, map, sizeof values, values};

  VkResult r = ss_scan_create(s, "radix16");
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_radix16_count_comp, sort_spv_radix16_count_comp_size, &spec, 0,
                           "splatsort radix16 count", &s->pipelines[RADIX16_COUNT]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_radix16_scatter_comp, sort_spv_radix16_scatter_comp_size, &spec, 0,
                           "splatsort radix16 scatter", &s->pipelines[RADIX16_SCATTER]);
  return r;
}

static void radix16_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info,
                           uint32_t key_bits) {
  ss_scan_plan plan = radix16_plan(s, info->max_count);
  ss_scan_sort_record(s, cmd, info, key_bits, 4, &plan, "radix16");
}

const ss_algorithm_ops ss_radix16_ops = {
    .supported = radix16_supported,
    .needs = "it needs subgroup basic and ballot operations in compute shaders, a subgroup size of 4 to 128, 256 "
             "invocations per workgroup and enough shared memory",
    .create = radix16_create,
    .internal_size = radix16_internal_size,
    .pass_count = radix16_pass_count,
    .timestamp_count = radix16_timestamp_count,
    .timestamp_label = radix16_timestamp_label,
    .record = radix16_record,
};
