/* Internal interface of the sort library: the sorter object shared by sorter.c and the
 * per-algorithm files (quaternary.c, onesweep.c). Not installed, not for callers. */
#ifndef SPLATSORT_INTERNAL_H
#define SPLATSORT_INTERNAL_H

#include "sort_bindings.h"
#include "splatsort.h"
#include "ssvk.h"

#include <stdbool.h>
#include <stddef.h>

/* Every pipeline shares one layout with this much push-constant space (the minimum any
 * Vulkan device guarantees). */
#define SS_PUSH_SIZE 128u

#define SS_MAX_PIPELINES 16

typedef struct ss_device_info {
  uint32_t api_version;
  uint32_t subgroup_size;             /* default subgroup size */
  uint32_t min_subgroup_size, max_subgroup_size;
  VkSubgroupFeatureFlags subgroup_ops; /* supported in compute */
  bool size_control;                  /* subgroupSizeControl supported and enabled by host */
  VkShaderStageFlags required_size_stages;
  uint32_t max_shared_memory;
  uint32_t max_workgroup_invocations;
  uint32_t max_workgroup_count_x;
  VkDeviceSize storage_alignment;
  uint32_t max_storage_range; /* min(maxStorageBufferRange, maxMemoryAllocationSize) */
  float timestamp_period;
  uint32_t vendor_id;
} ss_device_info;

struct ss_algorithm_ops;

struct splatsort {
  ssvk_device vk;
  splatsort_algorithm algorithm;
  uint32_t flags;
  ss_device_info dev;
  const splatsort_onesweep_tuning *tuning; /* the host's chain entry, during create only */
  uint32_t max_groups_x;                   /* dispatch split: the device's limit or the tuning's */

  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;

  const struct ss_algorithm_ops *ops;
  VkPipeline pipelines[SS_MAX_PIPELINES];
  uint32_t pipeline_count;
  /* Algorithm-chosen tuning, filled by ops->create. */
  uint32_t tile_size;
  uint32_t workgroup_size;
};

/* What each algorithm provides. */
typedef struct ss_algorithm_ops {
  /* True when the device has what the algorithm needs. */
  bool (*supported)(const ss_device_info *dev);
  /* Creates the algorithm's pipelines into sorter->pipelines (through ss_create_pipeline). */
  VkResult (*create)(splatsort *sorter);
  /* Bytes of internal scratch for max_count elements. */
  VkDeviceSize (*internal_size)(const splatsort *sorter, uint32_t max_count);
  uint32_t (*pass_count)(uint32_t key_bits);
  /* Timestamps written: 1 + number of stages. */
  uint32_t (*timestamp_count)(uint32_t key_bits);
  const char *(*timestamp_label)(uint32_t key_bits, uint32_t index);
  /* Records the sort. Arguments are already validated; key_bits is 1..32. The ping-pong
   * bindings are made with ss_bind(). */
  void (*record)(const splatsort *sorter, VkCommandBuffer cmd, const splatsort_sort_info *info,
                 uint32_t key_bits);
} ss_algorithm_ops;

extern const ss_algorithm_ops ss_quaternary_ops;
extern const ss_algorithm_ops ss_onesweep_ops;
/* Creates a compute pipeline from embedded SPIR-V with the shared layout.
 * spec: optional specialization constants. required_subgroup_size: 0 = none; otherwise
 * used only where the host enabled subgroup size control and the size is in range.
 * Names the pipeline through debug utils when available. */
VkResult ss_create_pipeline(splatsort *sorter, const uint32_t *code, size_t code_size,
                            const VkSpecializationInfo *spec, uint32_t required_subgroup_size,
                            const char *name, VkPipeline *out);

/* Binds a pipeline and pushes the descriptors for pass `pass` (even: input -> tmp,
 * odd: tmp -> input). */
void ss_bind(const splatsort *sorter, VkCommandBuffer cmd, VkPipeline pipeline, const splatsort_sort_info *info,
             uint32_t pass);
void ss_push(const splatsort *sorter, VkCommandBuffer cmd, const void *data, uint32_t size);
/* Compute writes -> compute reads/writes and indirect-argument reads. */
void ss_barrier(const splatsort *sorter, VkCommandBuffer cmd);
/* Writes timestamp `index` (relative to info->first_query) when timestamps are requested. */
void ss_timestamp(const splatsort *sorter, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t index);
/* Word index of an indirect count in the count binding (0 for direct sorts). */
uint32_t ss_count_index(const splatsort *sorter, const splatsort_sort_info *info);
#define ss_log(sorter, ...) ssvk_log(&(sorter)->vk, __VA_ARGS__)

static inline uint32_t ss_div_up(uint32_t a, uint32_t b) { return ssvk_div_up(a, b); }
static inline VkDeviceSize ss_align(VkDeviceSize v, VkDeviceSize a) { return ssvk_align(v, a); }

#endif /* SPLATSORT_INTERNAL_H */
