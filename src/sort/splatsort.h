/* splatsort.h: GPU radix sort of 32-bit keys with 32-bit payloads, recorded into
 * the caller's Vulkan command buffer. Depends on Vulkan only.
 *
 * The caller owns every Vulkan object: the device, the queue, the buffers and all
 * device memory. The library creates pipelines and layouts and nothing else.
 *
 * Typical use (see README.md, "The sort library"):
 *   splatsort_get_device_requirements()   -> merge extensions/features into VkDeviceCreateInfo
 *   splatsort_create()                    -> one sorter per device
 *   splatsort_get_memory_requirements()   -> allocate keys, values, tmp and internal buffers
 *   splatsort_cmd_sort()                  -> record, as often as you like
 *   splatsort_destroy()
 *
 * Errors: every call that can fail returns a VkResult. Invalid arguments give
 * VK_ERROR_VALIDATION_FAILED_EXT and, when a log callback is set, a message that
 * names the argument. The library never aborts and never prints on its own.
 *
 * Threads: a sorter is immutable after splatsort_create. Any number of threads may call the
 * const functions (splatsort_cmd_sort, the queries) on one sorter at the same time, each
 * recording into its own command buffer (the host synchronises command buffers and queues
 * as Vulkan requires). Several sorters may exist per device (e.g. one per algorithm).
 * Lifetime: a command buffer recorded by splatsort_cmd_sort refers to the sorter's pipelines
 * and layout and to the caller's buffers and query pool; all of them must outlive its
 * execution. splatsort_destroy must not run while such a command buffer is pending. The log
 * callback may be called from any thread that calls into the library.
 */
#ifndef SPLATSORT_H
#define SPLATSORT_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPLATSORT_VERSION_MAJOR 0
#define SPLATSORT_VERSION_MINOR 2
#define SPLATSORT_VERSION_PATCH 0
/* major << 22 | minor << 12 | patch, as VK_MAKE_API_VERSION without the variant */
#define SPLATSORT_VERSION \
  ((SPLATSORT_VERSION_MAJOR << 22) | (SPLATSORT_VERSION_MINOR << 12) | SPLATSORT_VERSION_PATCH)

/* Public functions are the only symbols a shared build exports. */
#if defined(SPLATSORT_SHARED_BUILD) && defined(__GNUC__)
#define SPLATSORT_API __attribute__((visibility("default")))
#else
#define SPLATSORT_API
#endif

/* The version of the library linked in (SPLATSORT_VERSION of its build): compare with the
 * header's SPLATSORT_VERSION when the library is loaded as a shared object. */
SPLATSORT_API uint32_t splatsort_get_version(void);

/* Opaque sorter: pipelines and layouts for one VkDevice. */
typedef struct splatsort splatsort;

typedef enum splatsort_algorithm {
  /* By device and count (splatsort_choose_algorithm): merge for small counts, else OneSweep
   * where the device supports it (subgroup basic, ballot, shuffle and arithmetic in compute,
   * 256 invocations, enough shared memory), else radix16 where it has subgroup ballots, else
   * quaternary. The count comes from a splatsort_auto_hint on the create chain; without one,
   * large sorts of 32-bit keys. */
  SPLATSORT_ALGORITHM_AUTO = 0,
  /* Portable reference: 2-bit digits, per-chunk prefix sums, hierarchical scan, shuffle.
   * Needs no subgroup operations. 16 passes for 32-bit keys. */
  SPLATSORT_ALGORITHM_QUATERNARY = 1,
  /* 8-bit least-significant-digit OneSweep: one global histogram pass, then one pass per
   * digit with a chained scan and decoupled lookback (with a fallback, so it never waits
   * forever on GPUs without forward-progress guarantees). 4 passes for 32-bit keys. */
  SPLATSORT_ALGORITHM_ONESWEEP = 2,
  /* 4-bit least-significant-digit reduce-then-scan: per digit, every workgroup counts the 16
   * digits of its tile, one hierarchical scan (the quaternary sort's) turns all tiles' counts
   * into offsets, and every workgroup ranks its tile's keys with subgroup ballots and scatters
   * them. No workgroup ever waits on another: for GPUs where OneSweep's waiting on earlier
   * workgroups (its decoupled lookback) is unsafe or slow, such as GPUs that give no
   * forward-progress guarantee between workgroups. Needs subgroup basic and ballot operations
   * in compute, a subgroup size of 4 to 128 and 256 invocations per workgroup. AUTO picks it
   * where OneSweep cannot run but it can. 8 passes for 32-bit keys. */
  SPLATSORT_ALGORITHM_RADIX16 = 3,
  /* Batcher's odd-even merge sort: a comparison sort with no histogram and no scan. Each
   * workgroup sorts a tile (up to 4,096 keys, as shared memory allows) in shared memory; runs
   * longer than a tile are merged across workgroups, one dispatch per network stage
   * (ceil(log2(n / tile)) merges of up to log2(n) + 1 stages each); payloads are gathered at
   * the end. Stable: it sorts (masked key, input position) pairs, the positions held in the
   * internal buffer (internal_size grows with max_count). Its work grows as n log^2 n: for
   * small counts, where one dispatch (n <= tile) beats the radix sorts' fixed passes. Needs
   * only 256 invocations per workgroup. The result is always in the tmp buffers. */
  SPLATSORT_ALGORITHM_MERGE = 4,
} splatsort_algorithm;

/* Number of splatsort_algorithm values (AUTO included): 0 .. SPLATSORT_ALGORITHM_COUNT - 1. */
#define SPLATSORT_ALGORITHM_COUNT 5

/* Device features the host enabled on its VkDevice (splatsort_create_info::enabled_features).
 * The library cannot read them back from a VkDevice, so the host says what it enabled. */
typedef enum splatsort_feature_bits {
  /* subgroupSizeControl and computeFullSubgroups (Vulkan 1.3 or VK_EXT_subgroup_size_control). */
  SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT = 1u << 0,
} splatsort_feature_bits;

typedef enum splatsort_create_flag_bits {
  /* Testing only: OneSweep treats every predecessor tile as stalled and computes its
   * digit counts itself, so the forward-progress fallback runs on every lookback.
   * Correct but slow (quadratic in the tile count). */
  SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT = 1u << 0,
  /* Diagnosis: the host enabled VK_KHR_pipeline_executable_properties with the
   * pipelineExecutableInfo feature; the library captures each pipeline's statistics (for
   * example registers and shared memory per invocation) and sends them to the log callback,
   * one line per pipeline. */
  SPLATSORT_CREATE_LOG_PIPELINE_STATISTICS_BIT = 1u << 1,
  /* The host enabled VK_EXT_debug_utils on its instance: the library names its pipelines
   * and labels the regions it records (for captures and validation messages). Without this
   * bit it calls no debug-utils function. */
  SPLATSORT_CREATE_DEBUG_UTILS_BIT = 1u << 2,
} splatsort_create_flag_bits;

/* Identifies a structure chained on splatsort_create_info::next. */
typedef enum splatsort_structure_type {
  SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING = 1,
  SPLATSORT_STRUCTURE_TYPE_SELF_TEST = 2,
  SPLATSORT_STRUCTURE_TYPE_AUTO_HINT = 3,
} splatsort_structure_type;

/* What AUTO is choosing for, chained on splatsort_create_info::next (each structure type at
 * most once on the chain). Without it AUTO assumes large sorts of 32-bit keys. AUTO's rule is
 * splatsort_choose_algorithm's (see there and docs/sorting.md, "Which sort AUTO picks"). */
typedef struct splatsort_auto_hint {
  splatsort_structure_type type; /* SPLATSORT_STRUCTURE_TYPE_AUTO_HINT */
  const void *next;
  uint32_t max_count;            /* the most keys one sort will have; 0: unknown */
  uint32_t key_bits;             /* 1..32; 0: 32 */
} splatsort_auto_hint;
/* OneSweep does not read it: where it has two pass kernels it picks one per sort from the sort
 * info's max_count (see splatsort_get_onesweep_variant). */

typedef enum splatsort_self_test_flag_bits {
  /* Testing only: the self-test sorts by 31 bits where it checks 32 (any algorithm but
   * quaternary), so the check finds a wrong order and the fallback runs. */
  SPLATSORT_SELF_TEST_INJECT_WRONG_ORDER_BIT = 1u << 0,
  /* Testing only: the self-test's command buffer first waits on an event the library sets
   * only after the timeout (any algorithm but quaternary), so the sort does not finish in
   * time and the fallback runs. */
  SPLATSORT_SELF_TEST_INJECT_STALL_BIT = 1u << 1,
  /* A quaternary sort that does not finish within timeout_ms fails create
   * (VK_ERROR_INITIALIZATION_FAILED) instead of being kept unverified. */
  SPLATSORT_SELF_TEST_FAIL_IF_LATE_BIT = 1u << 2,
} splatsort_self_test_flag_bits;

/* Trust, then verify: chained on splatsort_create_info::next, splatsort_create sorts a small
 * adversarial input (about 20,000 pairs across several tiles: equal runs, descending runs,
 * keys with the top bits set, few distinct keys, random keys; 32-bit keys with payloads) with
 * the chosen algorithm on `queue`, reads it back and checks it element by element against the
 * stable order. When the order is wrong, or the sort has not finished after timeout_ms (it may
 * be one that never finishes), the sorter falls back to the quaternary algorithm (which needs
 * no subgroup operations and never waits on another workgroup), says so through the log and
 * tests that too. The quaternary sort's test (the first, or the fallback's) is the last word:
 *   right:  create succeeds with it;
 *   wrong:  create fails with VK_ERROR_INITIALIZATION_FAILED (no sort can be trusted);
 *   late:   late is not wrong: create succeeds with quaternary, not verified, and says so in
 *           the log; with SPLATSORT_SELF_TEST_FAIL_IF_LATE_BIT it fails with
 *           VK_ERROR_INITIALIZATION_FAILED instead.
 * splatsort_get_algorithm tells the host which algorithm it got. GPU sorts do fail in the field
 * on some mobile, Apple and wave-64 GPUs; this is how a host avoids a wrong order that nobody
 * notices.
 *
 * The one place the library submits work and allocates device memory itself: a transient
 * command pool on queue_family_index, one command buffer, a fence, an event (with the stall
 * flag) and a host-visible buffer of about 400 KB per test, all freed before create returns,
 * except after a timeout: then they (and the late sort's pipelines) stay with the sorter, and
 * splatsort_destroy, or create itself when it fails, waits for the late sort's fence (past the
 * timeout if need be, with a log line, until it signals or the device is lost) and frees them
 * all. `queue` is externally synchronised: no other thread may use it during splatsort_create.
 * A sort that never finishes also keeps the queue busy (the fallback cannot undo that), and
 * then splatsort_destroy waits as long as the host's vkDeviceWaitIdle would. */
typedef struct splatsort_self_test {
  splatsort_structure_type type; /* SPLATSORT_STRUCTURE_TYPE_SELF_TEST */
  const void *next;
  VkQueue queue;                 /* a queue of queue_family_index that supports compute */
  uint32_t queue_family_index;   /* below the device's queue family count, with VK_QUEUE_COMPUTE_BIT */
  uint32_t timeout_ms;           /* 0: 2,000 ms */
  uint32_t flags;                /* splatsort_self_test_flag_bits (testing only) */
} splatsort_self_test;

typedef enum splatsort_onesweep_tuning_flag_bits {
  /* uvec4 ballots at every subgroup size (tests the wide path on small-subgroup devices). */
  SPLATSORT_ONESWEEP_WIDE_BALLOT_BIT = 1u << 0,
  /* Count the lookback's descriptor reads and fallbacks into the internal buffer (words
   * OS_H_STAT_* of the library's shaders/onesweep_shared.h in the source tree; slower, for diagnosis). */
  SPLATSORT_ONESWEEP_STATISTICS_BIT = 1u << 1,
  /* Early counts in the pass kernel even where the library would not choose them (its
   * default is early counts on devices with subgroups of 32 or more where every subgroup can
   * have its own counter array, of at most 16): where the workgroup may have more subgroups,
   * consecutive subgroups share an array and rank in turn (correct, not measured for speed).
   * With OS_VARIANT_LATE_COUNTS in variant an error (VK_ERROR_VALIDATION_FAILED_EXT). To
   * force late counts, set OS_VARIANT_LATE_COUNTS (32) in variant. Like workgroup_size,
   * keys_per_invocation and variant, it makes the sorter build one pass kernel for every sort. */
  SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT = 1u << 2,
  /* Testing only: the two pass kernels chosen per sort by max_count (see
   * splatsort_get_onesweep_variant) on any device, as where early counts are the default.
   * With workgroup_size, keys_per_invocation, variant or SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT
   * an error (VK_ERROR_VALIDATION_FAILED_EXT). */
  SPLATSORT_ONESWEEP_TWO_KERNELS_BIT = 1u << 3,
} splatsort_onesweep_tuning_flag_bits;

/* Optional OneSweep tuning, chained on splatsort_create_info::next (ignored by the quaternary
 * and radix16 sorts). Every field 0 means the library's choice for the device; a value that
 * the device cannot run is an error (VK_ERROR_VALIDATION_FAILED_EXT with a log message),
 * except that keys_per_invocation is lowered until the tile fits in shared memory. For tuning
 * runs and tests; production hosts leave it out. */
typedef struct splatsort_onesweep_tuning {
  splatsort_structure_type type;  /* SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING */
  const void *next;
  uint32_t workgroup_size;        /* pass kernel invocations per workgroup: 256..device max */
  uint32_t keys_per_invocation;   /* tile = workgroup_size * keys_per_invocation; <= 64 */
  uint32_t lookback_spin;         /* lookback steps without progress before the fallback */
  uint32_t lookback_window;       /* descriptors read per lookback step; <= 64 */
  uint32_t histogram_unroll;      /* histogram kernel: keys in flight per invocation; <= 64 */
  uint32_t histogram_copies;      /* histogram kernel: shared counter copies, power of two <= 32 */
  uint32_t required_subgroup_size;/* where the host enabled subgroup size control */
  uint32_t variant;               /* OS_VARIANT_* bits: earlier pass-kernel designs (A/B); <= 63 */
  uint32_t max_workgroups_x;      /* testing: split dispatches over y beyond this many in x */
  uint32_t flags;                 /* splatsort_onesweep_tuning_flag_bits */
} splatsort_onesweep_tuning;

/* Optional log sink for error details. `message` is one line without a newline. */
typedef void (*splatsort_log_fn)(void *user, const char *message);

/* How the library reaches Vulkan, for hosts that load it themselves (volk, their own loader;
 * VMA's VmaVulkanFunctions is the model): every Vulkan function the library calls is looked
 * up through these, the instance-level ones with splatsort_create_info::instance. NULL
 * (the default) uses the Vulkan loader linked with the program; a library built with
 * -DSPLATSORT_STATIC_VULKAN_FUNCTIONS=0 (CMake option of the same name) references no
 * loader symbol at all and then requires these. */
typedef struct splatsort_vulkan_functions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr vkGetDeviceProcAddr;
} splatsort_vulkan_functions;

typedef struct splatsort_create_info {
  /* NULL or a chain of splatsort_onesweep_tuning, splatsort_auto_hint, splatsort_self_test */
  const void *next;
  VkPhysicalDevice physical_device;        /* required */
  VkDevice device;                         /* required; must outlive the sorter */
  VkPipelineCache pipeline_cache;          /* optional */
  /* optional; also used at destroy. When given, pfnAllocation, pfnReallocation and pfnFree
   * must all be set, and pfnInternalAllocation and pfnInternalFree both or neither (Vulkan's rule). */
  const VkAllocationCallbacks *allocator;
  splatsort_algorithm algorithm;           /* 0 = AUTO */
  uint32_t enabled_features;               /* splatsort_feature_bits the host enabled */
  uint32_t flags;                          /* splatsort_create_flag_bits */
  splatsort_log_fn log;                    /* optional */
  void *log_user;
  VkInstance instance;                     /* required with vulkan_functions */
  /* The apiVersion the host created its instance with (VkApplicationInfo); 0: not given.
   * The library needs Vulkan 1.1 instance functions: below that, create fails with a
   * message instead of calling them. */
  uint32_t instance_api_version;
  const splatsort_vulkan_functions *vulkan_functions; /* optional, see above */
} splatsort_create_info;

/* What a VkDevice must have for `algorithm` (AUTO: what the algorithm AUTO would pick on
 * this physical device needs).
 *
 * Two-call idiom for the extension list: call with extension_names == NULL to get
 * extension_count, then with an array of that many entries. The names are static strings.
 * Extensions already core in the device's API version are not listed.
 *
 * required: the host must enable these or splatsort_create fails.
 *   api_version            minimum VkPhysicalDeviceProperties::apiVersion
 *   extension names        must be in VkDeviceCreateInfo::ppEnabledExtensionNames
 * optional (faster where enabled; never needed for correctness):
 *   subgroup_size_control  enable VkPhysicalDeviceSubgroupSizeControlFeatures::subgroupSizeControl
 *                          and ::computeFullSubgroups (or the Vulkan 1.3 feature struct), then
 *                          pass SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT at create.
 *
 * Returns VK_SUCCESS, VK_INCOMPLETE when extension_names is too small (the first
 * *extension_count names are written), VK_ERROR_FEATURE_NOT_PRESENT when the device
 * cannot run `algorithm`, VK_ERROR_VALIDATION_FAILED_EXT on a bad argument. */
typedef struct splatsort_device_requirements {
  uint32_t api_version;
  uint32_t extension_count;
  const char **extension_names;
  VkBool32 subgroup_size_control;
} splatsort_device_requirements;

SPLATSORT_API VkResult splatsort_get_device_requirements(VkPhysicalDevice physical_device,
                                           splatsort_algorithm algorithm,
                                           splatsort_device_requirements *requirements);
/* The same for hosts that load Vulkan themselves (see splatsort_vulkan_functions). */
SPLATSORT_API VkResult splatsort_get_device_requirements_with(const splatsort_vulkan_functions *functions, VkInstance instance,
                                                VkPhysicalDevice physical_device, splatsort_algorithm algorithm,
                                                splatsort_device_requirements *requirements);

/* Creates a sorter. On failure *out is NULL and nothing stays allocated.
 * VK_ERROR_VALIDATION_FAILED_EXT (with a log line naming the argument): bad argument (NULL
 * info/out/device, an unknown structure on next or a tuning value out of range, unknown
 * algorithm or flag, an allocator with a NULL allocation function, a self-test without a queue
 * or whose queue_family_index is not one of the device's families with compute).
 * VK_ERROR_FEATURE_NOT_PRESENT: the device cannot run the algorithm.
 * VK_ERROR_INITIALIZATION_FAILED: the self-test found no sort it can trust (see
 * splatsort_self_test). Other errors come from Vulkan (out of memory, pipeline creation). */
SPLATSORT_API VkResult splatsort_create(const splatsort_create_info *info, splatsort **out);

/* Destroys the sorter's pipelines and layouts. Accepts NULL. The caller must make sure no
 * command buffer recorded with it is still pending. A self-test sort that was late at create
 * is waited for here, then freed with everything it used (see splatsort_self_test). */
SPLATSORT_API void splatsort_destroy(splatsort *sorter);

/* The algorithm the sorter runs (AUTO resolved; quaternary after a self-test's fallback). */
SPLATSORT_API splatsort_algorithm splatsort_get_algorithm(const splatsort *sorter);

/* What AUTO picks on the sorter's device (any sorter of that device will do) for sorts of up
 * to max_count keys (0: unknown, many) of key_bits bits (0: 32), by device capabilities and
 * count, from measurements (docs/sorting.md, "Which sort AUTO picks"):
 *   - merge for small counts, at or below a threshold that depends on which radix sort the
 *     device can run and on key_bits;
 *   - otherwise OneSweep where the device can run it, else radix16 where it can (subgroup
 *     ballots), else quaternary; on CPU devices (VK_PHYSICAL_DEVICE_TYPE_CPU, e.g. lavapipe)
 *     radix16 rather than OneSweep above 64K keys (128K for key_bits <= 16).
 * A host whose counts change (an indirect count, a scene that grows) asks with its max_count
 * and keeps a sorter per answer, as the splat renderer does. AUTO for NULL. */
SPLATSORT_API splatsort_algorithm splatsort_choose_algorithm(const splatsort *sorter, uint32_t max_count,
                                                             uint32_t key_bits);

/* Keys per tile of the sorter's main pass (OneSweep and radix16: workgroup size x keys per
 * invocation; quaternary: its 512-key chunk; merge: the keys one workgroup sorts in shared
 * memory; OneSweep with two pass kernels: the small-sort kernel's, see
 * splatsort_get_onesweep_variant). Sizes at tile boundaries are where sorts go
 * wrong, so tests and tuning runs use it; hosts need not. 0 for NULL. */
SPLATSORT_API uint32_t splatsort_get_tile_size(const splatsort *sorter);

/* The OneSweep pass kernel that a sort whose splatsort_sort_info::max_count is max_count runs:
 * its OS_VARIANT_* bits (onesweep_shared.h in the library's source tree); *tile (optional, may be NULL):
 * its keys per tile. OS_VARIANT_LATE_COUNTS (32) set: the late-counts path, clear: early counts.
 *
 * Where early counts are the device's default (subgroups of 32 or more, every subgroup its own
 * counter array) and the host's splatsort_onesweep_tuning chooses no kernel (no
 * workgroup_size, keys_per_invocation, variant or SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT), the
 * sorter has two pass kernels and each sort takes one by its max_count: below 1M (2^20) keys
 * the kernel before issue 22 (late counts, late header read: OS_VARIANT_LATE_COUNTS |
 * OS_VARIANT_LATE_HEADER, the device's tile, on NVIDIA 256 x 12), from 1M on early counts with
 * 5120-key tiles, 512 x 10 on NVIDIA, 256 x 20 elsewhere (docs/sorting.md has the H100
 * measurements behind the rule). Elsewhere,
 * and with such a tuning, one kernel runs every sort and max_count does not matter.
 * For tests and A/B measurements; hosts need not. 0 (and *tile 0) for NULL or another
 * algorithm (after a self-test fallback too). */
SPLATSORT_API uint32_t splatsort_get_onesweep_variant(const splatsort *sorter, uint32_t max_count, uint32_t *tile);

/* Buffers the caller must provide to sort up to max_count pairs. A sort may then give any
 * max_count up to this one in its splatsort_sort_info (OneSweep's internal size is that of its
 * smallest tile, so the buffers fit whichever pass kernel a smaller max_count selects). Every
 * buffer is bound as a
 * storage buffer with the given offset and the size below; offsets must be multiples of
 * `alignment`. keys, values, tmp_keys and tmp_values: keyval_size bytes each, usage
 * keyval_usage. internal: internal_size bytes, usage internal_usage (the library writes
 * dispatch arguments and scratch there; its contents need not survive between sorts, but a
 * single internal buffer must not be used by two sorts that may run at the same time).
 * count_buffer (indirect sorts only): count_usage.
 * VK_ERROR_VALIDATION_FAILED_EXT when max_count is 0 or above splatsort_max_count(). */
typedef struct splatsort_memory_requirements {
  VkDeviceSize keyval_size;
  VkDeviceSize internal_size;
  VkDeviceSize alignment;
  VkBufferUsageFlags keyval_usage;
  VkBufferUsageFlags internal_usage;
  VkBufferUsageFlags count_usage;
} splatsort_memory_requirements;

SPLATSORT_API VkResult splatsort_get_memory_requirements(const splatsort *sorter, uint32_t max_count,
                                           splatsort_memory_requirements *requirements);

/* Largest max_count the sorter accepts on this device: exactly
 *   min(2^30, min(maxStorageBufferRange, maxMemoryAllocationSize) / 4)
 * 2^30 = 1,073,741,824 is the status-word bound, as in CUB's and the OneSweep paper's
 * decoupled lookback: a OneSweep tile status holds one flag bit and a 31-bit count (an
 * inclusive prefix up to max_count, or an aggregate + 1), and 2^30 keeps every count and
 * scan total of both algorithms clear of it with a bit to spare. The device term is a key or
 * value region (4 * max_count bytes) bound as one storage buffer in one allocation. Measured:
 * on an NVIDIA H100 (maxStorageBufferRange 2^32 - 1, maxMemoryAllocationSize 0xffe00000) this
 * is 1,073,217,536, sorted and checked on 2026-11-23; on lavapipe (2^27-byte range) 33,554,432.
 * The merge sort keeps its keys' input positions in the internal buffer after a 1 KB header,
 * so its bound is 256 keys lower: (range - 1024) / 4. */
SPLATSORT_API uint32_t splatsort_max_count(const splatsort *sorter);

/* A range of a VkBuffer. size: the bytes from offset the library may use, checked against
 * what the sort needs (a buffer too small is an error, not a GPU fault); VK_WHOLE_SIZE: the
 * rest of the buffer, unchecked. 0 is an error, and so is an offset + size (or offset + the
 * bytes needed) beyond 2^64 - 1. */
typedef struct splatsort_buffer {
  VkBuffer buffer;
  VkDeviceSize offset;
  VkDeviceSize size;
} splatsort_buffer;

typedef struct splatsort_sort_info {
  const void *next;               /* reserved: must be NULL */
  /* The max_count the buffers were sized for (> 0), or less: every buffer must hold what this
   * max_count needs (checked where its size is given). OneSweep with two pass kernels picks
   * one by it (splatsort_get_onesweep_variant). */
  uint32_t max_count;
  /* Direct count: number of pairs, 0..max_count. Used when count_buffer.buffer is VK_NULL_HANDLE. */
  uint32_t count;
  /* Indirect count: a uint32 at count_buffer.offset (a multiple of 4; size >= 4), read on
   * the GPU; the CPU never waits for it. Values above max_count are clamped. */
  splatsort_buffer count_buffer;
  /* Sort by the low key_bits bits (1..32; 0 means 32). Higher bits are ignored, pairs with
   * equal low bits keep their input order. Passes: ceil(key_bits/8) for OneSweep,
   * ceil(key_bits/4) for radix16, ceil(key_bits/2) for quaternary, 1 for merge. */
  uint32_t key_bits;
  /* keys, values, tmp_*: offsets multiples of `alignment`, size >= 4 * max_count bytes */
  splatsort_buffer keys;          /* in: keys to sort */
  splatsort_buffer values;        /* in: payloads; VK_NULL_HANDLE with tmp_values: keys only */
  splatsort_buffer tmp_keys;      /* scratch */
  splatsort_buffer tmp_values;    /* scratch */
  splatsort_buffer internal;      /* scratch, size >= internal_size for max_count */
  /* Optional GPU timestamps: when query_pool is not VK_NULL_HANDLE, the library resets and
   * writes splatsort_timestamp_count() timestamp queries from first_query on: the first
   * before any work, then one after each stage (see splatsort_timestamp_label). */
  VkQueryPool query_pool;
  uint32_t first_query;
  /* Optional: the pool's size (its VkQueryPoolCreateInfo::queryCount), so that a range past
   * its end is an error rather than a GPU fault. 0: not given; the library cannot read it
   * back from the pool, so the range is then checked only for wrap-around past 2^32. */
  uint32_t query_count;
} splatsort_sort_info;

/* Where the sorted pairs are: the input buffers after an even number of passes, the tmp
 * buffers after an odd one (values: a null buffer for a keys-only sort). Also returned by
 * splatsort_cmd_sort. */
typedef struct splatsort_result {
  splatsort_buffer keys;
  splatsort_buffer values;
  uint32_t pass_count;
} splatsort_result;

/* Records a stable key-value sort into `cmd` (a compute-capable queue's command buffer, in
 * the recording state, outside a render pass). Binds its own pipelines, push descriptors and
 * push constants: the caller's compute bindings are disturbed and must be re-bound.
 *
 * Synchronisation contract:
 *   before: writes to keys, values and count_buffer must be visible to
 *           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT (a compute or
 *           transfer write followed by a pipeline barrier to that stage and access), and
 *           previous users of tmp_*, internal and the queries must be finished.
 *   inside: the library puts its own barriers between its dispatches.
 *   after:  the result (see splatsort_result) is written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
 *           with VK_ACCESS_SHADER_WRITE_BIT; the caller adds a barrier from there to its
 *           consumer (e.g. VERTEX_SHADER / SHADER_READ, or TRANSFER / TRANSFER_READ).
 * Both input and tmp buffers are overwritten; which pair holds the result is in *result
 * (optional, may be NULL). Keys only: leave values and tmp_values both VK_NULL_HANDLE; the
 * sort then reads and writes no payloads (less memory traffic).
 *
 * Errors (nothing is recorded; a log line names the argument, except for a NULL sorter, cmd or
 * info): VK_ERROR_VALIDATION_FAILED_EXT for a NULL sorter/cmd/info, max_count 0 or above
 * splatsort_max_count, direct count > max_count, key_bits > 32, a missing buffer, a misaligned
 * offset, a range smaller than the sort needs, an offset + size beyond 2^64 - 1, two ranges of
 * one VkBuffer that share a byte (keys, values, tmp_keys, tmp_values and internal are all
 * written, by the sort's passes, and the count may not lie in any of them; compared are the
 * bytes the sort uses: 4 * max_count from each key or value offset, internal_size, 4 bytes of
 * count), timestamps whose range (first_query + splatsort_timestamp_count) passes 2^32, or
 * query_count where given, next != NULL. The sorter is only read: several threads may record with one sorter at the same
 * time (into different command buffers). */
SPLATSORT_API VkResult splatsort_cmd_sort(const splatsort *sorter, VkCommandBuffer cmd, const splatsort_sort_info *info,
                            splatsort_result *result);

/* Where the sorted pairs will be for a sort of key_bits (0 = 32), given the input and tmp
 * buffers, without recording anything. */
SPLATSORT_API splatsort_result splatsort_result_location(const splatsort *sorter, const splatsort_sort_info *info);

/* Number of timestamp queries a sort with key_bits (0 = 32) writes. */
SPLATSORT_API uint32_t splatsort_timestamp_count(const splatsort *sorter, uint32_t key_bits);

/* Name of the stage that ends at timestamp `index` (1 .. count-1): "histogram", "pass 0", ... */
SPLATSORT_API const char *splatsort_timestamp_label(const splatsort *sorter, uint32_t key_bits, uint32_t index);

/* Human-readable name of an algorithm ("auto", "quaternary", "onesweep", "radix16", "merge"). */
SPLATSORT_API const char *splatsort_algorithm_name(splatsort_algorithm algorithm);

/* The algorithm splatsort_algorithm_name calls `name` (for command lines and configuration
 * files). Returns false, *out untouched, for NULL or a name that is none of them. */
SPLATSORT_API bool splatsort_algorithm_from_name(const char *name, splatsort_algorithm *out);

#ifdef __cplusplus
}
#endif
#endif /* SPLATSORT_H */
