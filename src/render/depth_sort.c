/* depth_sort.c: the frame's depth sort, fused with the projection: project.comp culls, keys and
 * counts each splat into its block (see splat_shared.h); here the blocks' scan, the ordered
 * compaction of the visible keys and slots, and the host's sorter (splatsort.h, indirect count),
 * whose result lands in the indices buffer the raster reads. The keys are the depth-sort
 * stage's (splatsort_depth.h), from its own GLSL definitions, without its second read of the
 * positions. */
#include "render_internal.h"

#include "splat_shared.h"

#include <string.h>


/* The scratch layout for n frame slots on every one of the renderer's sorters: the header and
 * the block counts, the sort's keys, tmp keys (the per-slot keys until the sort), the values
 * region that is not the indices buffer, and the sort's internal. */
VkResult render_sort_layout(const splat_renderer *r, uint32_t n, sort_layout *l) {
  *l = (sort_layout){.scratch_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     .indices_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  VkDeviceSize align = r->props.limits.minStorageBufferOffsetAlignment, internal = 0;
  if (align < 4) align = 4;
  for (uint32_t i = 0; i < r->sorter_count; i++) {
    splatsort_memory_requirements m;
    if (n > splatsort_max_count(r->sorters[i])) {
      rlog(r, "%u splats is above this device's sort maximum %u", n, splatsort_max_count(r->sorters[i]));
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    VkResult res = splatsort_get_memory_requirements(r->sorters[i], n, &m);
    if (res != VK_SUCCESS) return res;
    if (m.alignment > align) align = m.alignment;
    if (m.keyval_size > l->region) l->region = m.keyval_size;
    if (m.internal_size > internal) internal = m.internal_size;
    l->scratch_usage |= m.keyval_usage | m.internal_usage | m.count_usage;
    l->indices_usage |= m.keyval_usage;
  }
  l->blocks = 4 * SP_H_WORDS;
  l->region = ssvk_align(l->region > 4ull * n ? l->region : 4ull * n, align);
  l->keys = ssvk_align(l->blocks + 4ull * ((n + SP_FUSE_BLOCK - 1) / SP_FUSE_BLOCK), align);
  l->tmp_keys = l->keys + l->region;
  l->values = l->tmp_keys + l->region;
  l->internal = l->values + l->region;
  l->internal_size = ssvk_align(internal, align);
  l->end = l->internal + l->internal_size;
  return VK_SUCCESS;
}


/* Before the projection: the draw arguments, the header (nothing visible, an empty key range)
 * and every block count reset (N/512 bytes), visible to the projection's atomics. */
void render_sort_reset(splat_renderer *r, VkCommandBuffer cmd) {
  scene_gpu *s = &r->scene;
  const uint32_t draw_init[SP_DRAW_WORDS] = {4, 0, 0, 0}, header[SP_H_WORDS] = {0, 0x7F7FFFFFu, 0, 0};
  r->vk.fn.vkCmdUpdateBuffer(cmd, s->draw.buffer, 0, sizeof draw_init, draw_init);
  r->vk.fn.vkCmdUpdateBuffer(cmd, s->scratch.buffer, 0, sizeof header, header);
  r->vk.fn.vkCmdFillBuffer(cmd, s->scratch.buffer, s->layout.blocks, s->layout.keys - s->layout.blocks, 0);
  ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}


/* The projection's outputs besides the records and inputs (bindings 5-8 and 11), and the
 * compaction's outputs: `values` is the sort's input payload region. */
void render_sort_bindings(const splat_renderer *r, VkDescriptorBufferInfo *bi, splatsort_buffer values) {
  const scene_gpu *s = &r->scene;
  const sort_layout *l = &s->layout;
  VkBuffer sb = s->scratch.buffer;
  VkDeviceSize kv = 4ull * s->count;
  bi[SP_BIND_DEPTHS] = (VkDescriptorBufferInfo){s->depths.buffer, 0, VK_WHOLE_SIZE};
  bi[SP_BIND_KEYS] = (VkDescriptorBufferInfo){sb, l->tmp_keys, kv};
  bi[SP_BIND_BLOCKS] = (VkDescriptorBufferInfo){sb, l->blocks, l->keys - l->blocks};
  bi[SP_BIND_HEADER] = (VkDescriptorBufferInfo){sb, 0, 4 * SP_H_WORDS};
  bi[SP_BIND_SORT_KEYS] = (VkDescriptorBufferInfo){sb, l->keys, kv};
  if (values.buffer) bi[SP_BIND_SORT_VALUES] = (VkDescriptorBufferInfo){values.buffer, values.offset, kv};
  bi[SP_BIND_DRAW] = (VkDescriptorBufferInfo){s->draw.buffer, 0, 4 * SP_DRAW_WORDS};
}


/* The sort of up to the frame's slots, its count the header's visible count, arranged so that
 * the sorted slots land in the indices buffer. */
static splatsort_sort_info sort_info(const splat_renderer *r, const splatsort *sorter, uint32_t key_bits) {
  const scene_gpu *s = &r->scene;
  const sort_layout *l = &s->layout;
  VkBuffer sb = s->scratch.buffer;
  VkDeviceSize kv = 4ull * s->count;
  splatsort_buffer mine = {sb, l->values, kv}, indices = {s->indices.buffer, 0, kv};
  splatsort_sort_info si = {.max_count = s->count, .count_buffer = {sb, 4 * SP_H_VISIBLE, 4}, .key_bits = key_bits,
                            .keys = {sb, l->keys, kv}, .tmp_keys = {sb, l->tmp_keys, kv},
                            .internal = {sb, l->internal, l->internal_size}, .values = indices, .tmp_values = mine};
  if (splatsort_result_location(sorter, &si).pass_count & 1u) {
    si.values = mine;
    si.tmp_values = indices;
  }
  return si;
}


static void compute_barrier(splat_renderer *r, VkCommandBuffer cmd) {
  ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}


/* After the projection (its writes visible to compute): the blocks' scan, which also writes
 * the draw's instance count, the ordered compaction (keys quantised there), then the sort. */
VkResult render_record_sort(splat_renderer *r, VkCommandBuffer cmd, int k, uint32_t key_bits, uint32_t count,
                            splatsort_result *sorted) {
  splatsort_sort_info si = sort_info(r, r->sorters[k], key_bits);
  VkDescriptorBufferInfo bi[SP_BINDINGS] = {0};
  render_sort_bindings(r, bi, si.values);
  struct sp_compact_push pc = {.count = count, .key_bits = key_bits};
  ssvk_label_begin(&r->vk, cmd, "splat depth sort");
  ssvk_push_buffers(&r->vk, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->compute_layout, bi, SP_BINDINGS);
  r->vk.fn.vkCmdPushConstants(cmd, r->compute_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  r->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->key_scan);
  r->vk.fn.vkCmdDispatch(cmd, 1, 1, 1);
  compute_barrier(r, cmd);
  r->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->key_compact);
  render_dispatch_1d(r, cmd, (count + SP_FUSE_ITEMS - 1) / SP_FUSE_ITEMS); /* a workgroup per block */
  compute_barrier(r, cmd);
  VkResult res = splatsort_cmd_sort(r->sorters[k], cmd, &si, sorted);
  ssvk_label_end(&r->vk, cmd);
  return res;
}
