/* The steps that the reduce-then-scan sorts (quaternary.c, radix16.c) share: a setup dispatch
 * that reads the count and writes every indirect dispatch on the GPU, and the hierarchical
 * exclusive scan of the digit-major chunk counts (quaternary_scan up the levels, quaternary_add
 * back down). */
#include "sort_internal.h"
#include "sort_spv_spv.h"

#include <stdio.h>

/* Word offsets of the scan levels: level l+1 holds one total per 512-entry block of level l;
 * the top level fits one block. */
ss_scan_plan ss_scan_plan_make(uint32_t max_count, uint32_t chunk, uint32_t digits) {
  ss_scan_plan p = {.chunk = chunk, .digits = digits};
  uint32_t m = digits * ss_div_up(max_count, chunk);
  uint32_t off = QUATERNARY_H_WORDS;
  for (;;) {
    p.offsets[p.levels++] = off;
    off += (uint32_t)ss_align(m, 16);
    if (m <= QUATERNARY_CHUNK || p.levels == QUATERNARY_MAX_LEVELS) break;
    m = ss_div_up(m, QUATERNARY_CHUNK);
  }
  p.offsets[p.levels] = off; /* end */
  return p;
}

VkDeviceSize ss_scan_internal_size(const ss_scan_plan *plan) { return (VkDeviceSize)plan->offsets[plan->levels] * 4u; }

VkResult ss_scan_create(splatsort *s, const char *algorithm) {
  static const struct {
    const uint32_t *code;
    const size_t *size;
    const char *step;
  } shaders[SS_SCAN_PIPELINES] = {
      [SS_SCAN_SETUP] = {sort_spv_quaternary_setup_comp, &sort_spv_quaternary_setup_comp_size, "setup"},
      [SS_SCAN_SCAN] = {sort_spv_quaternary_scan_comp, &sort_spv_quaternary_scan_comp_size, "scan"},
      [SS_SCAN_ADD] = {sort_spv_quaternary_add_comp, &sort_spv_quaternary_add_comp_size, "add"},
  };
  for (uint32_t i = 0; i < SS_SCAN_PIPELINES; i++) {
    char name[64];
    snprintf(name, sizeof name, "splatsort %s %s", algorithm, shaders[i].step);
    VkResult r = ss_create_pipeline(s, shaders[i].code, *shaders[i].size, NULL, 0, name, &s->pipelines[i]);
    if (r != VK_SUCCESS) return r;
  }
  return VK_SUCCESS;
}

void ss_scan_dispatch(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t entry) {
  s->vk.fn.vkCmdDispatchIndirect(cmd, info->internal.buffer,
                                 info->internal.offset + 4u * (QUATERNARY_H_DISPATCH + 4u * entry));
}

void ss_scan_sort_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits,
                         uint32_t digit_bits, const ss_scan_plan *plan, const char *algorithm) {
  struct quaternary_push pc = ss_scan_setup(s, cmd, info, plan);
  uint32_t passes = (key_bits + digit_bits - 1) / digit_bits;
  for (uint32_t p = 0; p < passes; p++) {
    char label[64] = "";
    if (s->vk.begin_label) snprintf(label, sizeof label, "%s pass %u", algorithm, p); /* labels are on */
    ssvk_label_begin(&s->vk, cmd, label);
    pc.shift = digit_bits * p;
    uint32_t bits = key_bits - pc.shift < digit_bits ? key_bits - pc.shift : digit_bits; /* the last may be short */
    pc.mask = (1u << bits) - 1u;
    ss_bind(s, cmd, s->pipelines[SS_SCAN_DIGIT_COUNT], info, p);
    ss_push(s, cmd, &pc, sizeof pc);
    ss_scan_dispatch(s, cmd, info, QUATERNARY_DISPATCH_CHUNKS);
    ss_barrier(s, cmd);
    ss_scan_record(s, cmd, info, p, plan, &pc);
    ss_bind(s, cmd, s->pipelines[SS_SCAN_DIGIT_SCATTER], info, p);
    ss_push(s, cmd, &pc, sizeof pc);
    ss_scan_dispatch(s, cmd, info, QUATERNARY_DISPATCH_CHUNKS);
    ss_barrier(s, cmd);
    ss_timestamp(s, cmd, info, p + 1);
    ssvk_label_end(&s->vk, cmd);
  }
}

struct quaternary_push ss_scan_setup(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info,
                                     const ss_scan_plan *plan) {
  struct quaternary_push pc = {
      .count = info->count,
      .indirect = info->count_buffer.buffer != VK_NULL_HANDLE,
      .count_index = ss_count_index(s, info),
      .max_count = info->max_count,
      .levels = plan->levels,
      .max_groups_x = s->max_groups_x,
      .keys_only = info->values.buffer == VK_NULL_HANDLE,
      .chunk = plan->chunk,
      .digits = plan->digits,
  };
  ss_bind(s, cmd, s->pipelines[SS_SCAN_SETUP], info, 0);
  ss_push(s, cmd, &pc, sizeof pc);
  s->vk.fn.vkCmdDispatch(cmd, 1, 1, 1);
  ss_barrier(s, cmd);
  return pc;
}

void ss_scan_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t pass,
                    const ss_scan_plan *plan, struct quaternary_push *pc) {
  uint32_t levels = plan->levels;
  for (uint32_t l = 0; l < levels; l++) {
    pc->level = l;
    pc->level_offset = plan->offsets[l];
    pc->next_offset = l + 1 < levels ? plan->offsets[l + 1] : 0;
    ss_bind(s, cmd, s->pipelines[SS_SCAN_SCAN], info, pass);
    ss_push(s, cmd, pc, sizeof *pc);
    ss_scan_dispatch(s, cmd, info, 1 + l);
    ss_barrier(s, cmd);
  }
  for (uint32_t l = levels - 1; l-- > 0;) {
    pc->level = l;
    pc->level_offset = plan->offsets[l];
    pc->next_offset = plan->offsets[l + 1];
    ss_bind(s, cmd, s->pipelines[SS_SCAN_ADD], info, pass);
    ss_push(s, cmd, pc, sizeof *pc);
    ss_scan_dispatch(s, cmd, info, 1 + l);
    ss_barrier(s, cmd);
  }
}
