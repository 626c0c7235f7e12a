/* Batcher's odd-even merge sort: a comparison sort with no histogram and no scan. Each
 * workgroup sorts a tile in shared memory; runs longer than a tile are merged by one dispatch
 * per network stage; the payloads are gathered at the end. It sorts (masked key, input
 * position) pairs, so no two elements compare equal and the order is the stable one. Its work
 * grows as n log^2 n: it is for small counts, where one or a few dispatches beat the radix
 * sorts' fixed passes. */
#include "sort_internal.h"
#include "merge_shared.h"
#include "sort_spv_spv.h"

enum { MERGE_SETUP, MERGE_TILE, MERGE_STAGE, MERGE_GATHER, MERGE_PIPELINES };
_Static_assert(MERGE_PIPELINES <= SS_MAX_PIPELINES, "the sorter holds SS_MAX_PIPELINES pipelines");

/* Invocations of the tile sort where the device allows: 2 comparators each per stage of a
 * 4,096-key tile. */
#define MERGE_TILE_WORKGROUP 1024u

static bool merge_supported(const ss_device_info *dev) {
  return dev->max_workgroup_invocations >= MERGE_WORKGROUP && dev->max_shared_memory >= 8u << MERGE_MIN_TILE_LOG;
}

/* The largest tile of (key, position) pairs that fits in shared memory. */
static uint32_t tile_log(const ss_device_info *dev) {
  uint32_t t = MERGE_MAX_TILE_LOG;
  while (t > MERGE_MIN_TILE_LOG && (8u << t) > dev->max_shared_memory) t--;
  return t;
}

/* Merge levels above the tile for max_count keys: runs of tile << i for i below this. */
static uint32_t merge_levels(const splatsort *s, uint32_t max_count) {
  uint32_t levels = 0;
  while (levels < MERGE_MAX_MERGES && ((uint64_t)s->tile_size << levels) < max_count) levels++;
  return levels;
}

static VkDeviceSize merge_internal_size(const splatsort *s, uint32_t max_count) {
  (void)s;
  return 4u * ((VkDeviceSize)MERGE_H_WORDS + max_count);
}

/* The result is always in the tmp buffers: one "pass" for splatsort_result_location. */
static uint32_t merge_pass_count(uint32_t key_bits) {
  (void)key_bits;
  return 1;
}

static uint32_t merge_timestamp_count(uint32_t key_bits) {
  (void)key_bits;
  return 4;
}

static const char *merge_timestamp_label(uint32_t key_bits, uint32_t index) {
  static const char *names[3] = {"tile sort", "merges", "payload gather"};
  (void)key_bits;
  return index >= 1 && index <= 3 ? names[index - 1] : "";
}

static VkResult merge_create(splatsort *s) {
  uint32_t t = tile_log(&s->dev);
  uint32_t wg = s->dev.max_workgroup_invocations < MERGE_TILE_WORKGROUP ? MERGE_WORKGROUP : MERGE_TILE_WORKGROUP;
  const uint32_t values[2] = {t, wg < (1u << t) / 2 ? wg : (1u << t) / 2};
  VkSpecializationMapEntry map[2] = {{0, 0, 4}, {1, 4, 4}};
  VkSpecializationInfo spec = {2, map, sizeof values, values};
  s->tile_size = 1u << t;
  VkResult r = ss_create_pipeline(s, sort_spv_merge_setup_comp, sort_spv_merge_setup_comp_size, NULL, 0,
                                  "splatsort merge setup", &s->pipelines[MERGE_SETUP]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_merge_tile_comp, sort_spv_merge_tile_comp_size, &spec, 0,
                           "splatsort merge tile sort", &s->pipelines[MERGE_TILE]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_merge_stage_comp, sort_spv_merge_stage_comp_size, NULL, 0,
                           "splatsort merge stage", &s->pipelines[MERGE_STAGE]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_merge_gather_comp, sort_spv_merge_gather_comp_size, NULL, 0,
                           "splatsort merge gather", &s->pipelines[MERGE_GATHER]);
  return r;
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
                                   info->internal.offset + 4u * (MERGE_H_DISPATCH + 4u * entry));
  else
    dispatch_direct(s, cmd, direct_groups);
}

/* One labelled step: its pipeline, the push constants, its dispatch, a barrier. */
static void step(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t pipeline,
                 const struct merge_push *pc, uint32_t entry, uint32_t direct_groups, const char *label) {
  ssvk_label_begin(&s->vk, cmd, label);
  ss_bind(s, cmd, s->pipelines[pipeline], info, 0);
  ss_push(s, cmd, pc, sizeof *pc);
  dispatch(s, cmd, info, entry, direct_groups);
  ss_barrier(s, cmd);
  ssvk_label_end(&s->vk, cmd);
}

static void merge_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits) {
  bool indirect = info->count_buffer.buffer != VK_NULL_HANDLE;
  bool keys_only = !info->values.buffer;
  uint32_t tile = s->tile_size, levels = merge_levels(s, info->max_count);
  uint32_t n = indirect ? info->max_count : info->count; /* the most a direct record covers */
  struct merge_push pc = {
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
    ss_bind(s, cmd, s->pipelines[MERGE_SETUP], info, 0);
    ss_push(s, cmd, &pc, sizeof pc);
    s->vk.fn.vkCmdDispatch(cmd, 1, 1, 1);
    ss_barrier(s, cmd);
  }
  step(s, cmd, info, MERGE_TILE, &pc, MERGE_E_TILES, ss_div_up(n, tile), "merge tile sort");
  ss_timestamp(s, cmd, info, 1);

  /* Direct counts record only the levels the count reaches; indirect ones record every level
   * for max_count, and the setup kernel gives the unneeded ones no workgroups. */
  ssvk_label_begin(&s->vk, cmd, "merge stages");
  ss_bind(s, cmd, s->pipelines[MERGE_STAGE], info, 0);
  for (uint32_t i = 0; i < levels && (uint64_t)tile << i < n; i++) {
    pc.run_log = pc.tile_log + i;
    for (uint32_t k = pc.run_log + 1; k-- > 0;) {
      pc.stride_log = k;
      ss_push(s, cmd, &pc, sizeof pc);
      dispatch(s, cmd, info, MERGE_E_MERGE + i, ss_div_up(n / 2u, MERGE_WORKGROUP));
      ss_barrier(s, cmd);
    }
  }
  ssvk_label_end(&s->vk, cmd);
  ss_timestamp(s, cmd, info, 2);

  if (!keys_only && n > tile)
    step(s, cmd, info, MERGE_GATHER, &pc, MERGE_E_GATHER, ss_div_up(n, MERGE_WORKGROUP), "merge payload gather");
  ss_timestamp(s, cmd, info, 3);
}

/* The positions share the internal buffer with the header, and the binding must fit the
 * device's storage range. */
static uint32_t merge_max_count(const ss_device_info *dev) {
  return (dev->max_storage_range - 4u * MERGE_H_WORDS) / 4u;
}

const ss_algorithm_ops ss_merge_ops = {
    .supported = merge_supported,
    .needs = "it needs 256 invocations per workgroup and 4 KB of shared memory",
    .create = merge_create,
    .internal_size = merge_internal_size,
    .pass_count = merge_pass_count,
    .timestamp_count = merge_timestamp_count,
    .timestamp_label = merge_timestamp_label,
    .record = merge_record,
    .max_count = merge_max_count,
};
