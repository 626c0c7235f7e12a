/* Internal interface of the sort library: the sorter object shared by sorter.c and the
 * per-algorithm files (quaternary.c, onesweep.c, radix16.c, merge.c, and chunk_scan.c, which the
 * reduce-then-scan sorts share). Not installed, not for callers. */
#ifndef SPLATSORT_INTERNAL_H
#define SPLATSORT_INTERNAL_H

#include "quaternary_shared.h"
#include "sort_bindings.h"
#include "splatsort.h"
#include "ssvk.h"

#include <stdbool.h>
#include <stddef.h>

#define SS_MAX_PIPELINES 16

/* Every pipeline shares one layout with this much push-constant space (the minimum any
 * Vulkan device guarantees). */
#define SS_PUSH_SIZE 128u


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
  uint32_t vendor_id;
  VkPhysicalDeviceType device_type;
} ss_device_info;

struct ss_algorithm_ops;

#define SS_SELF_TEST_RUNS 2 /* at most per create: the chosen algorithm, then quaternary */
/* What a creation-time self-test made (self_test.c), kept by the sorter after a timeout. */
typedef struct ss_self_test_run {
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkEvent event;
  ssvk_buffer buffer;
  VkPipeline pipelines[SS_MAX_PIPELINES]; /* the tested algorithm's, when its sort did not finish */
} ss_self_test_run;

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
  /* Algorithm-chosen tuning, filled by ops->create. */
  uint32_t tile_size;
  uint32_t onesweep_variant; /* OneSweep: the OS_VARIANT_* bits of its (small-sort) pass kernel */
  /* OneSweep with two pass kernels: sorts whose max_count is at least onesweep_split run the
   * second, with these tile and variant; 0: one kernel for every sort. */
  uint32_t onesweep_split, onesweep_large_tile, onesweep_large_variant;
  /* self-tests that timed out (the chosen algorithm's, quaternary's): waited for and freed at destroy */
  ss_self_test_run pending[SS_SELF_TEST_RUNS];
  uint32_t pending_count;
  uint32_t pending_timeout_ms;
};

/* What each algorithm provides. */
typedef struct ss_algorithm_ops {
  /* True when the device has what the algorithm needs. */
  bool (*supported)(const ss_device_info *dev);
  /* What that is, for the log when it does not ("it needs ..."). */
  const char *needs;
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
  /* Optional: the most keys it can sort when below the library's general bound. */
  uint32_t (*max_count)(const ss_device_info *dev);
} ss_algorithm_ops;

extern const ss_algorithm_ops ss_quaternary_ops;
extern const ss_algorithm_ops ss_onesweep_ops;
extern const ss_algorithm_ops ss_radix16_ops;
extern const ss_algorithm_ops ss_merge_ops;

/* ---- chunk_scan.c: what the reduce-then-scan sorts (quaternary, radix16) share ----
 * Per digit pass they count each chunk's digits into the internal buffer digit-major
 * (level 0 at QUATERNARY_H_WORDS: counts[d * chunks + chunk]), scan that list exclusively, and
 * scatter each chunk's keys to scanned[d * chunks + chunk] + rank. The setup, scan and add
 * pipelines are s->pipelines[SS_SCAN_*]; the algorithm's own follow them. */
enum { SS_SCAN_SETUP, SS_SCAN_SCAN, SS_SCAN_ADD, SS_SCAN_PIPELINES };
/* The algorithm's own two pipelines follow them: its digit count and its scatter. */
enum { SS_SCAN_DIGIT_COUNT = SS_SCAN_PIPELINES, SS_SCAN_DIGIT_SCATTER, SS_SCAN_SORT_PIPELINES };

typedef struct ss_scan_plan {
  uint32_t chunk;  /* keys per chunk */
  uint32_t digits; /* digit counts per chunk */
  uint32_t levels; /* hierarchical scan levels recorded for max_count */
  uint32_t offsets[QUATERNARY_MAX_LEVELS + 1]; /* word offset of each level; [levels]: the end */
} ss_scan_plan;

ss_scan_plan ss_scan_plan_make(uint32_t max_count, uint32_t chunk, uint32_t digits);
/* Bytes of internal buffer the plan needs (header and scan levels). */
VkDeviceSize ss_scan_internal_size(const ss_scan_plan *plan);
/* Creates the setup, scan and add pipelines, named "splatsort <algorithm> <step>". */
VkResult ss_scan_create(splatsort *s, const char *algorithm);
/* Records the setup dispatch and a barrier; returns the push constants for the later steps. */
struct quaternary_push ss_scan_setup(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info,
                                     const ss_scan_plan *plan);
/* Records the exclusive scan of pass `pass`'s counts, each level followed by a barrier. */
void ss_scan_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t pass,
                    const ss_scan_plan *plan, struct quaternary_push *pc);
/* The whole sort of digit_bits-bit digits: setup, then per digit pass the count
 * (s->pipelines[SS_SCAN_DIGIT_COUNT]), the scan and the scatter (SS_SCAN_DIGIT_SCATTER), a
 * timestamp after each pass and a label "<algorithm> pass N". */
void ss_scan_sort_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits,
                         uint32_t digit_bits, const ss_scan_plan *plan, const char *algorithm);
/* Indirect dispatch of entry QUATERNARY_DISPATCH_CHUNKS (one workgroup per chunk) or 1 + level. */
void ss_scan_dispatch(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t entry);

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
/* ---- self_test.c ---- */
typedef enum ss_self_test_outcome { SS_SELF_TEST_PASSED, SS_SELF_TEST_WRONG, SS_SELF_TEST_TIMEOUT, SS_SELF_TEST_ERROR } ss_self_test_outcome;
/* Sorts the adversarial input with the sorter's pipelines and checks it; *error: the Vulkan
 * error of SS_SELF_TEST_ERROR. After a timeout the run moves to s->pending (the sort may
 * still be running: the sorter's pipelines must outlive it, see ss_self_test_retire). */
ss_self_test_outcome ss_self_test(splatsort *s, const splatsort_self_test *t, VkResult *error);
void ss_self_test_release(splatsort *s, ss_self_test_run *run);
/* Before a fallback replaces the sorter's pipelines: after a late test (late: its run is the
 * last pending one) that run keeps them until destroy, else they are destroyed now. */
void ss_self_test_retire(splatsort *s, bool late);
/* At destroy (before the sorter's pipelines go): waits for every pending run, past the
 * timeout if need be, and frees it. False when a wait failed and a run was left (the sorter's
 * pipelines, which it may use, must then stay too). */
bool ss_self_test_finish(splatsort *s);

/* ---- validate.c: argument checks (each logs "<fn>: <argument> ..." and returns false) ---- */
/* A buffer range a call binds: the host's range and the bytes from its offset the call uses. */
typedef struct ss_range {
  const char *name;  /* the argument, e.g. "tmp_keys" */
  splatsort_buffer b;
  VkDeviceSize align; /* of b.offset */
  VkDeviceSize need;  /* bytes from b.offset the call reads or writes */
  bool written;       /* written by the call: it may share no byte with another range */
} ss_range;
/* Each range present, aligned, without wrap-around and large enough (VK_WHOLE_SIZE: not
 * checked against the buffer); then no written range sharing a byte of its VkBuffer with another. */
bool ss_check_ranges(const ssvk_device *vk, const char *fn, const ss_range *ranges, uint32_t n);
/* count queries from first: no wrap-around, and within pool_size when it is given (not 0). */
bool ss_check_queries(const ssvk_device *vk, const char *fn, VkQueryPool pool, uint32_t first, uint32_t count,
                      uint32_t pool_size);
/* NULL, or all three allocation functions set (the internal pair both or neither), as Vulkan requires. */
bool ss_check_allocator(ssvk_log_fn log, void *user, const char *fn, const VkAllocationCallbacks *a);
/* n floats, none NaN or infinite; name[i] in the message when n > 1. */
bool ss_check_finite(const ssvk_device *vk, const char *fn, const char *name, const float *v, uint32_t n);
/* The sort info that splatsort_cmd_sort would accept (it logs as splatsort_cmd_sort); max_count:
 * splatsort_max_count(s), passed in so that this file calls nothing of the sorter's. */
bool ss_check_sort_info(const splatsort *s, const splatsort_sort_info *info, uint32_t max_count);

#define ss_log(sorter, ...) ssvk_log(&(sorter)->vk, __VA_ARGS__)

static inline uint32_t ss_div_up(uint32_t a, uint32_t b) { return ssvk_div_up(a, b); }
static inline VkDeviceSize ss_align(VkDeviceSize v, VkDeviceSize a) { return ssvk_align(v, a); }

#endif /* SPLATSORT_INTERNAL_H */
