/* Batcher's odd-even merge sort: a comparison sort with no histogram and no scan. Each
 * workgroup sorts a tile in shared memory; runs longer than a tile are merged by one dispatch
 * per network stage; the payloads are gathered at the end. It sorts (masked key, input
 * position) pairs, so no two elements compare equal and the order is the stable one. Its work
 * grows as n log^2 n: it is for small counts, where one or a few dispatches beat the radix
 * sorts' fixed passes. */
#include "sort_internal.h"
#include "merge_shared.h"
#include "sort_spv_spv.h"

enum { OEM_SETUP, OEM_TILE, OEM_STAGE, OEM_GATHER, OEM_PIPELINES };

/* Invocations of the tile sort where the device allows: 2 comparators each per stage of a
 * 4,096-key tile. */
#define OEM_TILE_WORKGROUP 1024u

static bool oem_supported(const ss_device_info *dev) {
  return dev->max_workgroup_invocations >= OEM_WORKGROUP && dev->max_shared_memory >= 8u << OEM_MIN_TILE_LOG;
}

/* The largest tile of (key, position) pairs that fits in shared memory. */
static uint32_t tile_log(const ss_device_info *dev) {
  uint32_t t = OEM_MAX_TILE_LOG;
  while (t > OEM_MIN_TILE_LOG && (8u << t) > dev->max_shared_memory) t--;
  return t;
}

/* Merge levels above the tile for max_count keys: runs of tile << i for i below this. */
static uint32_t merge_levels(const splatsort *s, uint32_t max_count) {
  uint32_t levels = 0;
  while (levels < OEM_MAX_MERGES && ((uint64_t)s->tile_size << levels) < max_count) levels++;
  return levels;
}

static VkDeviceSize oem_internal_size(const splatsort *s, uint32_t max_count) {
  (void)s;
  return 4u * ((VkDeviceSize)OEM_H_WORDS + max_count);
}

/* The result is always in the tmp buffers: one "pass" for splatsort_result_location. */
static uint32_t oem_pass_count(uint32_t key_bits) {
  (void)key_bits;
  return 1;
}

static uint32_t oem_timestamp_count(uint32_t key_bits) {
  (void)key_bits;
  return 4;
}

static const char *oem_timestamp_label(uint32_t key_bits, uint32_t index) {
  static const char *names[3] = {"tile sort", "merges", "payload gather"};
  (void)key_bits;
  return index >= 1 && index <= 3 ? names[index - 1] : "";
}

static VkResult oem_create(splatsort *s) {
  uint32_t t = tile_log(&s->dev);
  uint32_t wg = s->dev.max_workgroup_invocations < OEM_TILE_WORKGROUP ? OEM_WORKGROUP : OEM_TILE_WORKGROUP;
  const uint32_t values[2] = {t, wg < (1u << t) / 2 ? wg : (1u << t) / 2};
  VkSpecializationMapEntry map[2] = {{0, 0, 4}, {1, 4, 4}};
  VkSpecializationInfo spec = {2, map, sizeof values, values};
  s->tile_size = 1u << t;
  s->workgroup_size = OEM_WORKGROUP;
  VkResult r = ss_create_pipeline(s, sort_spv_merge_setup_comp, sort_spv_merge_setup_comp_size, NULL, 0,
                                  "splatsort merge setup", &s->pipelines[OEM_SETUP]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_merge_tile_comp, sort_spv_merge_tile_comp_size, &spec, 0,
                           "splatsort merge tile sort", &s->pipelines[OEM_TILE]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_merge_stage_comp, sort_spv_merge_stage_comp_size, NULL, 0,
                           "splatsort merge stage", &s->pipelines[OEM_STAGE]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_merge_gather_comp, sort_spv_merge_gather_comp_size, NULL, 0,
                           "splatsort merge gather", &s->pipelines[OEM_GATHER]);
  if (r != VK_SUCCESS) return r;
  s->pipeline_count = OEM_PIPELINES;
  return VK_SUCCESS;
}

/* A direct dispatch of `groups` workgroups, split over y beyond the device's limit in x. */
static void dispatch_direct(const splatsort *s, VkCommandBuffer cmd, uint32_t groups) {
  if (!groups) return;
  uint32_t x = groups < s->max_groups_x ? groups : s->max_groups_x;
  s->vk.fn.vkCmdDispatch(cmd, x, ss_div_up(groups, x), 1);
}

static void dispatch(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t entry,
                     uint32_t direct_groups) {
  if (info->count_buffer.buffer)
    s->vk.fn.vkCmdDispatchIndirect(cmd, info->internal.buffer,
                                   info->internal.offset + 4u * (OEM_H_DISPATCH + 4u * entry));
  else
    dispatch_direct(s, cmd, direct_groups);
}

/* One labelled step: its pipeline, the push constants, its dispatch, a barrier. */
static void step(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t pipeline,
                 const struct oem_push *pc, uint32_t entry, uint32_t direct_groups, const char *label) {
  ssvk_label_begin(&s->vk, cmd, label);
  ss_bind(s, cmd, s->pipelines[pipeline], info, 0);
  ss_push(s, cmd, pc, sizeof *pc);
  dispatch(s, cmd, info, entry, direct_groups);
  ss_barrier(s, cmd);
  ssvk_label_end(&s->vk, cmd);
}

static void oem_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits) {
  bool indirect = info->count_buffer.buffer != VK_NULL_HANDLE;
  bool keys_only = !info->values.buffer;
  uint32_t tile = s->tile_size, levels = merge_levels(s, info->max_count);
  uint32_t n = indirect ? info->max_count : info->count; /* the most a direct record covers */
  struct oem_push pc = {
      .count = info->count,
      .indirect = indirect,
      .count_index = ss_count_index(s, info),
      .max_count = info->max_count,
      .mask = key_bits >= 32 ? ~0u : (1u << key_bits) - 1u,
      .keys_only = keys_only,
      .tile_log = 0,
      .merges = levels,
      .max_groups_x = s->max_groups_x,
  };
  while ((1u << pc.tile_log) < tile) pc.tile_log++;
  if (indirect) {
    ss_bind(s, cmd, s->pipelines[OEM_SETUP], info, 0);
    ss_push(s, cmd, &pc, sizeof pc);
    s->vk.fn.vkCmdDispatch(cmd, 1, 1, 1);
    ss_barrier(s, cmd);
  }
  step(s, cmd, info, OEM_TILE, &pc, OEM_E_TILES, ss_div_up(n, tile), "merge tile sort");
  ss_timestamp(s, cmd, info, 1);

  /* Direct counts record only the levels the count reaches; indirect ones record every level
   * for max_count, and the setup kernel gives the unneeded ones no workgroups. */
  ssvk_label_begin(&s->vk, cmd, "merge stages");
  ss_bind(s, cmd, s->pipelines[OEM_STAGE], info, 0);
  for (uint32_t i = 0; i < levels && (uint64_t)tile << i < n; i++) {
    pc.run_log = pc.tile_log + i;
    for (uint32_t k = pc.run_log + 1; k-- > 0;) {
      pc.stride_log = k;
      ss_push(s, cmd, &pc, sizeof pc);
      dispatch(s, cmd, info, OEM_E_MERGE + i, ss_div_up(n / 2u, OEM_WORKGROUP));
      ss_barrier(s, cmd);
    }
  }
  ssvk_label_end(&s->vk, cmd);
  ss_timestamp(s, cmd, info, 2);

  if (!keys_only && n > tile)
    step(s, cmd, info, OEM_GATHER, &pc, OEM_E_GATHER, ss_div_up(n, OEM_WORKGROUP), "merge payload gather");
  ss_timestamp(s, cmd, info, 3);
}

/* The positions share the internal buffer with the header, and the binding must fit the
 * device's storage range. */
static uint32_t oem_max_count(const ss_device_info *dev) { return (dev->max_storage_range - 4u * OEM_H_WORDS) / 4u; }

const ss_algorithm_ops ss_merge_ops = {
    .supported = oem_supported,
    .needs = "it needs 256 invocations per workgroup and 4 KB of shared memory",
    .create = oem_create,
    .internal_size = oem_internal_size,
    .pass_count = oem_pass_count,
    .timestamp_count = oem_timestamp_count,
    .timestamp_label = oem_timestamp_label,
    .record = oem_record,
    .max_count = oem_max_count,
};
