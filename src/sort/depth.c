/* The depth-sort stage (splatsort_depth.h): the key pass (cull, keys and an ordered compaction:
 * one dispatch with a decoupled lookback, or the three-dispatch form), then the host's sorter,
 * all on the sorter's device and Vulkan functions. */
#include "depth_shared.h"
#include "sort_internal.h"
#include "splatsort_depth.h"
#include "sort_spv_spv.h"

#include <stdlib.h>
#include <string.h>

/* The three-dispatch key pass (keys, scan, compact), then the one-pass form and its quantiser;
 * a stage creates the pipelines of the form it uses. */
enum { DS_KEYS, DS_SCAN, DS_COMPACT, DS_ONEPASS, DS_QUANTISE, DS_PIPELINES };

static const VkSubgroupFeatureFlags ds_onepass_ops =
    VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;

struct splatsort_depth {
  ssvk_device vk;
  const splatsort *sorter;
  bool three_pass;     /* the host asked for it, or the device lacks ds_onepass_ops */
  bool force_fallback; /* testing: the one-pass lookback counts every predecessor itself */
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipelines[DS_PIPELINES];
};

_Static_assert(sizeof(struct ds_push) <= 128, "the push constants must fit the guaranteed 128 bytes");

void splatsort_depth_destroy(splatsort_depth *d) {
  if (!d) return;
  const VkAllocationCallbacks *a = d->vk.allocator;
  for (int i = 0; i < DS_PIPELINES; i++)
    if (d->pipelines[i]) d->vk.fn.vkDestroyPipeline(d->vk.device, d->pipelines[i], a);
  if (d->layout) d->vk.fn.vkDestroyPipelineLayout(d->vk.device, d->layout, a);
  if (d->set_layout) d->vk.fn.vkDestroyDescriptorSetLayout(d->vk.device, d->set_layout, a);
  if (a)
    a->pfnFree(a->pUserData, d);
  else
    free(d);
}

VkResult splatsort_depth_create(const splatsort_depth_create_info *info, splatsort_depth **out) {
  if (out) *out = NULL;
  if (!info || !out) return VK_ERROR_VALIDATION_FAILED_EXT;
  const uint32_t known = SPLATSORT_CREATE_DEBUG_UTILS_BIT | SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT |
                         SPLATSORT_DEPTH_CREATE_THREE_PASS_KEYS_BIT;
  if (!info->sorter || info->next || info->flags & ~known) {
    ssvk_log_to(info->log, info->log_user, "splatsort_depth_create: %s",
                !info->sorter ? "sorter is required" : info->next ? "next must be NULL" : "unknown flags");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!ss_check_allocator(info->log, info->log_user, "splatsort_depth_create", info->allocator))
    return VK_ERROR_VALIDATION_FAILED_EXT;
  const VkAllocationCallbacks *a = info->allocator;
  splatsort_depth *d = a ? a->pfnAllocation(a->pUserData, sizeof *d, 16, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT)
                         : malloc(sizeof *d);
  if (!d) return VK_ERROR_OUT_OF_HOST_MEMORY;
  memset(d, 0, sizeof *d);
  const ssvk_device *sv = &info->sorter->vk;
  ssvk_device_init(&d->vk, &sv->fn, sv->physical_device, sv->device, a, info->pipeline_cache, info->log,
                   info->log_user, "splatsort_depth", (info->flags & SPLATSORT_CREATE_DEBUG_UTILS_BIT) != 0);
  d->sorter = info->sorter;
  d->three_pass = (info->flags & SPLATSORT_DEPTH_CREATE_THREE_PASS_KEYS_BIT) ||
                  (info->sorter->dev.subgroup_ops & ds_onepass_ops) != ds_onepass_ops;
  d->force_fallback = (info->flags & SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT) != 0;
  VkResult r = ssvk_push_layout(&d->vk, DS_BINDINGS, VK_SHADER_STAGE_COMPUTE_BIT, sizeof(struct ds_push),
                                VK_SHADER_STAGE_COMPUTE_BIT, "splatsort depth layout", &d->set_layout, &d->layout);
  static const struct {
    const uint32_t *code;
    const size_t *size;
    const char *name;
  } shaders[DS_PIPELINES] = {
      [DS_KEYS] = {sort_spv_depth_keys_comp, &sort_spv_depth_keys_comp_size, "splatsort depth keys"},
      [DS_SCAN] = {sort_spv_depth_scan_comp, &sort_spv_depth_scan_comp_size, "splatsort depth scan"},
      [DS_COMPACT] = {sort_spv_depth_compact_comp, &sort_spv_depth_compact_comp_size,
                      "splatsort depth compact"},
      [DS_ONEPASS] = {sort_spv_depth_onepass_comp, &sort_spv_depth_onepass_comp_size,
                      "splatsort depth one-pass keys"},
      [DS_QUANTISE] = {sort_spv_depth_quantise_comp, &sort_spv_depth_quantise_comp_size,
                       "splatsort depth quantise"},
  };
  int first = d->three_pass ? DS_KEYS : DS_ONEPASS, end = d->three_pass ? DS_ONEPASS : DS_PIPELINES;
  for (int i = first; i < end && r == VK_SUCCESS; i++) {
    ssvk_compute_desc cd = {.code = shaders[i].code, .code_size = *shaders[i].size, .layout = d->layout,
                            .name = shaders[i].name};
    r = ssvk_compute_pipeline(&d->vk, &cd, &d->pipelines[i]);
  }
  if (r != VK_SUCCESS) {
    splatsort_depth_destroy(d);
    return r;
  }
  *out = d;
  return VK_SUCCESS;
}

/* Scratch layout for max_count: header, keys, tmp keys, the values scratch region (the sort's
 * values or tmp values, whichever the indices buffer is not), then the sort's internal. */
typedef struct ds_layout {
  VkDeviceSize header, keys, tmp_keys, values, internal, end, region;
} ds_layout;

static VkResult scratch_layout(const splatsort_depth *d, uint32_t max_count, ds_layout *l,
                               splatsort_memory_requirements *mr) {
  VkResult r = splatsort_get_memory_requirements(d->sorter, max_count, mr);
  if (r != VK_SUCCESS) return r;
  VkDeviceSize a = mr->alignment;
  l->region = ssvk_align(mr->keyval_size, a);
  l->header = 0;
  l->keys = ssvk_align(4 * DS_H_WORDS, a);
  l->tmp_keys = l->keys + l->region;
  l->values = l->tmp_keys + l->region;
  l->internal = l->values + l->region;
  l->end = l->internal + ssvk_align(mr->internal_size, a);
  return VK_SUCCESS;
}

VkResult splatsort_depth_get_memory_requirements(const splatsort_depth *d, uint32_t max_count,
                                                 splatsort_depth_memory_requirements *req) {
  if (!d || !req) return VK_ERROR_VALIDATION_FAILED_EXT;
  uint32_t max_sort = splatsort_max_count(d->sorter);
  if (max_count == 0 || max_count > max_sort) {
    ssvk_log(&d->vk, "splatsort_depth_get_memory_requirements: max_count %u is outside 1..%u", max_count, max_sort);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  ds_layout l;
  splatsort_memory_requirements mr;
  VkResult r = scratch_layout(d, max_count, &l, &mr);
  if (r != VK_SUCCESS) return r;
  req->scratch_size = l.end;
  req->scratch_usage = mr.keyval_usage | mr.internal_usage | mr.count_usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                       VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  req->indices_size = 4ull * max_count;
  req->indices_usage = mr.keyval_usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  req->alignment = mr.alignment;
  req->count_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; /* read by the key pass, not by the sort */
  return VK_SUCCESS;
}

static bool key_bits_valid(uint32_t key_bits) { return key_bits == 0 || (key_bits >= 16 && key_bits <= 32); }

uint32_t splatsort_depth_timestamp_count(const splatsort_depth *d, uint32_t key_bits) {
  return d && key_bits_valid(key_bits) ? 1 + splatsort_timestamp_count(d->sorter, key_bits) : 0;
}

const char *splatsort_depth_timestamp_label(const splatsort_depth *d, uint32_t key_bits, uint32_t index) {
  if (index == 0 || index >= splatsort_depth_timestamp_count(d, key_bits)) return "";
  return index == 1 ? "key pass" : splatsort_timestamp_label(d->sorter, key_bits, index - 1);
}

static const char depth_fn[] = "splatsort_depth_cmd_sort";

/* The centres' stride: the host's, or 0 for tightly packed (x, y, z, and the opacity with
 * opacity_cull). */
static uint32_t center_stride(const splatsort_depth_info *in) {
  return in->center_stride ? in->center_stride : in->opacity_cull ? 16u : 12u;
}

/* The scalar fields; each message repeats the value it refuses. */
static bool check_fields(const splatsort_depth *d, const splatsort_depth_info *in) {
  uint32_t min_stride = in->opacity_cull ? 16u : 12u;
  if (in->next)
    ssvk_log(&d->vk, "splatsort_depth_cmd_sort: next must be NULL");
  else if (!key_bits_valid(in->key_bits))
    ssvk_log(&d->vk, "splatsort_depth_cmd_sort: key_bits %u is not in 16..32 (0 means 32)", in->key_bits);
  else if (center_stride(in) % 4 || center_stride(in) < min_stride)
    ssvk_log(&d->vk,
             "splatsort_depth_cmd_sort: center_stride %u is not a multiple of 4 of at least %u (x, y, z%s)",
             in->center_stride, min_stride, in->opacity_cull ? " and the opacity" : "");
  else if (!ss_check_finite(&d->vk, depth_fn, "view_proj", in->view_proj, 16) ||
           !ss_check_finite(&d->vk, depth_fn, "frustum_margin", &in->frustum_margin, 1) ||
           !ss_check_finite(&d->vk, depth_fn, "near_w", &in->near_w, 1) ||
           (in->key_mode == SPLATSORT_DEPTH_KEY_RADIAL &&
            !ss_check_finite(&d->vk, depth_fn, "camera_position", in->camera_position, 3)))
    return false;
  else if (!(in->frustum_margin >= 0.0f) || !(in->near_w >= 0.0f))
    ssvk_log(&d->vk, "splatsort_depth_cmd_sort: frustum_margin %g and near_w %g must both be >= 0",
             (double)in->frustum_margin, (double)in->near_w);
  else if ((unsigned)in->key_mode > SPLATSORT_DEPTH_KEY_RADIAL)
    ssvk_log(&d->vk, "splatsort_depth_cmd_sort: key_mode %u is unknown", (unsigned)in->key_mode);
  else
    return true;
  return false;
}

/* The host's ranges: the centres and the count are read, scratch, indices and draw_count
 * written (none of those may share a byte with another range); then the timestamps. */
static bool check_info(const splatsort_depth *d, const splatsort_depth_info *in, const ds_layout *l,
                       VkDeviceSize align) {
  if (!check_fields(d, in)) return false;
  VkDeviceSize centers = (VkDeviceSize)center_stride(in) * (in->max_count - 1) + (in->opacity_cull ? 16u : 12u);
  ss_range r[5] = {{"centers", in->centers, d->sorter->dev.storage_alignment, centers, false},
                   {"scratch", in->scratch, align, l->end, true},
                   {"indices", in->indices, align, 4ull * in->max_count, true}};
  uint32_t n = 3;
  if (in->count_buffer.buffer) r[n++] = (ss_range){"count_buffer", in->count_buffer, 4, 4, false};
  if (in->draw_count.buffer) r[n++] = (ss_range){"draw_count", in->draw_count, 4, 4, true};
  return ss_check_ranges(&d->vk, depth_fn, r, n) &&
         ss_check_queries(&d->vk, depth_fn, in->query_pool, in->first_query,
                          splatsort_depth_timestamp_count(d, in->key_bits), in->query_count);
}

/* A storage-buffer descriptor for a uint32 at `b.offset`: bound at the aligned offset below
 * it; the shader reads word *index. */
static VkDescriptorBufferInfo word_range(const splatsort_depth *d, splatsort_buffer b, uint32_t *index) {
  VkDeviceSize base, range;
  *index = ssvk_count_word(b.offset, d->sorter->dev.storage_alignment, &base, &range);
  return (VkDescriptorBufferInfo){b.buffer, base, range};
}

static void dispatch_groups(const splatsort_depth *d, VkCommandBuffer cmd, uint32_t groups, uint32_t max_x) {
  uint32_t x = groups < max_x ? groups : max_x;
  if (x) d->vk.fn.vkCmdDispatch(cmd, x, (groups + x - 1) / x, 1);
}

static void compute_barrier(const splatsort_depth *d, VkCommandBuffer cmd) {
  ssvk_memory_barrier(&d->vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

/* The one-pass key pass: a tile descriptor per DS_TILE splats in the tmp_keys region (the sort
 * writes it only later), zeroed with the header; then, for key_bits < 32, the quantiser. */
static void record_onepass(const splatsort_depth *d, VkCommandBuffer cmd, const splatsort_depth_info *in,
                           const ds_layout *l, const struct ds_push *pc, VkDescriptorBufferInfo *bi) {
  VkBuffer sb = in->scratch.buffer;
  VkDeviceSize so = in->scratch.offset;
  uint32_t tiles = (in->max_count + DS_TILE - 1) / DS_TILE;
  bi[DS_BIND_GROUPS] = (VkDescriptorBufferInfo){sb, so + l->tmp_keys, 4ull * tiles};
  d->vk.fn.vkCmdFillBuffer(cmd, sb, so + l->tmp_keys, 4ull * tiles, 0);
  compute_barrier(d, cmd);
  ssvk_push_buffers(&d->vk, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, bi, DS_BINDINGS);
  d->vk.fn.vkCmdPushConstants(cmd, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *pc, pc);
  /* a direct count needs only its tiles; at least one runs, to write the visible count */
  uint32_t n = in->count_buffer.buffer ? in->max_count : in->count;
  uint32_t groups = n ? (n + DS_TILE - 1) / DS_TILE : 1;
  d->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipelines[DS_ONEPASS]);
  dispatch_groups(d, cmd, groups, pc->max_groups_x);
  compute_barrier(d, cmd);
  if (pc->key_bits < 32) {
    d->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipelines[DS_QUANTISE]);
    dispatch_groups(d, cmd, (n + DS_WORKGROUP - 1) / DS_WORKGROUP, pc->max_groups_x);
    compute_barrier(d, cmd);
  }
}

/* Key pass and compaction into the sort's input (keys, and values in `values`). */
static void record_keys(const splatsort_depth *d, VkCommandBuffer cmd, const splatsort_depth_info *in,
                        const ds_layout *l, splatsort_buffer values, splatsort_buffer tmp_values, uint32_t bits) {
  VkBuffer sb = in->scratch.buffer;
  /* ranges of 4 * max_count bytes: the host's indices buffer may be no larger */
  VkDeviceSize so = in->scratch.offset, region = 4ull * in->max_count;
  struct ds_push pc = {.count = in->count, .max_count = in->max_count, .stride = center_stride(in) / 4,
                       .key_bits = bits, .max_groups_x = d->sorter->dev.max_workgroup_count_x,
                       .margin = in->frustum_margin > 0.0f ? in->frustum_margin : 1.3f, .near = in->near_w};
  memcpy(pc.view_proj.m, in->view_proj, sizeof pc.view_proj.m);
  if (in->opacity_cull) pc.flags |= DS_FLAG_OPACITY_CULL;
  if (center_stride(in) == 16 && in->centers.offset % 16 == 0) pc.flags |= DS_FLAG_VEC4;
  if (d->force_fallback) pc.flags |= DS_FLAG_FORCE_FALLBACK;
  if (in->key_mode == SPLATSORT_DEPTH_KEY_RADIAL) {
    pc.flags |= DS_FLAG_RADIAL;
    pc.cam_x = in->camera_position[0], pc.cam_y = in->camera_position[1], pc.cam_z = in->camera_position[2];
  }
  VkDescriptorBufferInfo header = {sb, so + l->header, 4 * DS_H_WORDS};
  VkDescriptorBufferInfo bi[DS_BINDINGS] = {
      [DS_BIND_CENTERS] = {in->centers.buffer, in->centers.offset, in->centers.size},
      [DS_BIND_COUNT] = header,
      [DS_BIND_HEADER] = header,
      [DS_BIND_DEPTH] = {sb, so + l->tmp_keys, region},
      [DS_BIND_GROUPS] = {tmp_values.buffer, tmp_values.offset, region},
      [DS_BIND_KEYS] = {sb, so + l->keys, region},
      [DS_BIND_VALUES] = {values.buffer, values.offset, region},
      [DS_BIND_DRAW] = header,
      [DS_BIND_CENTERS4] = {in->centers.buffer, in->centers.offset, in->centers.size},
  };
  if (in->count_buffer.buffer) {
    bi[DS_BIND_COUNT] = word_range(d, in->count_buffer, &pc.count_index);
    pc.flags |= DS_FLAG_INDIRECT;
  }
  if (in->draw_count.buffer) {
    bi[DS_BIND_DRAW] = word_range(d, in->draw_count, &pc.draw_index);
    pc.flags |= DS_FLAG_DRAW;
  }
  const uint32_t init[DS_H_WORDS] = {0, 0x7F7FFFFFu, 0, 0}; /* visible, zmin = FLT_MAX, zmax, tiles taken */
  d->vk.fn.vkCmdUpdateBuffer(cmd, sb, so + l->header, sizeof init, init);
  if (!d->three_pass) {
    record_onepass(d, cmd, in, l, &pc, bi);
    return;
  }
  compute_barrier(d, cmd);
  ssvk_push_buffers(&d->vk, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, bi, DS_BINDINGS);
  d->vk.fn.vkCmdPushConstants(cmd, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  uint32_t groups = (in->max_count + DS_WORKGROUP - 1) / DS_WORKGROUP;
  d->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipelines[DS_KEYS]);
  dispatch_groups(d, cmd, groups, pc.max_groups_x);
  compute_barrier(d, cmd);
  d->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipelines[DS_SCAN]);
  d->vk.fn.vkCmdDispatch(cmd, 1, 1, 1);
  compute_barrier(d, cmd);
  d->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipelines[DS_COMPACT]);
  dispatch_groups(d, cmd, groups, pc.max_groups_x);
  compute_barrier(d, cmd);
}

VkResult splatsort_depth_cmd_sort(const splatsort_depth *d, VkCommandBuffer cmd, const splatsort_depth_info *in,
                                  splatsort_result *result) {
  if (!d || !cmd || !in) return VK_ERROR_VALIDATION_FAILED_EXT;
  uint32_t max_sort = splatsort_max_count(d->sorter);
  if (in->max_count == 0 || in->max_count > max_sort) {
    ssvk_log(&d->vk, "splatsort_depth_cmd_sort: max_count %u is outside 1..%u", in->max_count, max_sort);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  ds_layout l;
  splatsort_memory_requirements mr;
  VkResult r = scratch_layout(d, in->max_count, &l, &mr);
  if (r != VK_SUCCESS) return r;
  if (!check_info(d, in, &l, mr.alignment)) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!in->count_buffer.buffer && in->count > in->max_count) {
    ssvk_log(&d->vk, "splatsort_depth_cmd_sort: count %u is above max_count %u", in->count, in->max_count);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  uint32_t bits = in->key_bits ? in->key_bits : 32;

  /* The sorted indices must end in the host's buffer: it is the sort's values buffer after an
   * even number of passes and its tmp values after an odd one. */
  VkBuffer sb = in->scratch.buffer;
  VkDeviceSize so = in->scratch.offset;
  VkDeviceSize kv = 4ull * in->max_count;
  splatsort_buffer mine = {sb, so + l.values, kv}, host = {in->indices.buffer, in->indices.offset, kv};
  splatsort_sort_info si = {.max_count = in->max_count, .count_buffer = {sb, so + l.header + 4 * DS_H_VISIBLE, 4},
                            .key_bits = bits, .keys = {sb, so + l.keys, kv},
                            .tmp_keys = {sb, so + l.tmp_keys, kv},
                            .internal = {sb, so + l.internal, mr.internal_size}};
  si.values = host;
  si.tmp_values = mine;
  if (splatsort_result_location(d->sorter, &si).pass_count & 1u) {
    si.values = mine;
    si.tmp_values = host;
  }
  if (in->query_pool) {
    si.query_pool = in->query_pool;
    si.first_query = in->first_query + 1;
    si.query_count = in->query_count;
  }
  /* the checks above cover what the sort checks: this one only keeps a partial recording out */
  if (!ss_check_sort_info(d->sorter, &si, splatsort_max_count(d->sorter))) return VK_ERROR_VALIDATION_FAILED_EXT;
  ssvk_label_begin(&d->vk, cmd, "splatsort depth stage");
  if (in->query_pool) {
    d->vk.fn.vkCmdResetQueryPool(cmd, in->query_pool, in->first_query, 1);
    d->vk.fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, in->query_pool, in->first_query);
  }
  record_keys(d, cmd, in, &l, si.values, si.tmp_values, bits);
  r = splatsort_cmd_sort(d->sorter, cmd, &si, result);
  ssvk_label_end(&d->vk, cmd);
  return r;
}
