/* The OneSweep sort: 8-bit digits, one histogram pass over the keys for all digits, then one
 * pass per digit that ranks a tile with subgroup ballots and finds the tile's global offsets
 * with a chained scan and decoupled lookback (with a fallback, so it cannot hang on GPUs that
 * give no forward-progress guarantee between workgroups). */
#include "sort_internal.h"
#include "onesweep_shared.h"
#include "sort_spv_spv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OS_SETUP, OS_HISTOGRAM, OS_PASS, OS_PASS_LARGE, OS_PIPELINES };
_Static_assert(OS_PIPELINES <= SS_MAX_PIPELINES, "the sorter holds SS_MAX_PIPELINES pipelines");

_Static_assert(OS_DESC >= OS_GLOBAL_HIST + OS_MAX_PASSES * OS_RADIX && OS_DESC % 32 == 0,
               "partition descriptors must follow the global histograms on a 128-byte boundary");
_Static_assert(OS_H_DISPATCH_TILES + 3 <= OS_GLOBAL_HIST, "header overlaps the histograms");

/* Histogram kernel: fixed, it is bandwidth-bound and not sensitive to them. A workgroup reads
 * at least OS_HIST_MIN_KEYS keys, and there are at most OS_HIST_MAX_GROUPS of them (a few per
 * SM on large GPUs), which bounds the global atomics. */
#define OS_HIST_WORKGROUP 256u
#define OS_HIST_MIN_KEYS 4096u
#define OS_HIST_MAX_GROUPS 1024u
#define OS_MIN_KEYS 4u
/* Two pass kernels: sorts of max_count >= OS_LARGE_SORT take the early-counts kernel, whose
 * tile at 256 invocations is 256 x OS_LARGE_TILE_KEYS (see default_tuning). */
#define OS_LARGE_SORT (1u << 20)
#define OS_LARGE_TILE_KEYS 20u

typedef struct os_tuning {
  uint32_t workgroup;     /* pass kernel invocations per workgroup: 256 or more */
  uint32_t keys;          /* keys per invocation; tile = workgroup * keys */
  uint32_t arrays;        /* per-subgroup counter arrays */
  uint32_t max_subgroups; /* bound on gl_NumSubgroups */
  uint32_t spin;          /* lookback steps without progress before the fallback */
  uint32_t window;        /* lookback: descriptors read per step */
  uint32_t hist_unroll;   /* histogram kernel: keys in flight per invocation */
  uint32_t hist_copies;   /* histogram kernel: copies of each shared counter (power of two) */
  uint32_t wide_ballot;   /* 1: uvec4 ballots even where one word would do (testing) */
  uint32_t subgroup_size; /* required subgroup size where allowed (speed only); 0 = any */
  uint32_t stats;         /* 1: count lookback reads and fallbacks into the internal buffer */
  uint32_t variant;       /* OS_VARIANT_* bits (A/B measurements of earlier designs) */
  bool force_early;       /* the host asked for early counts: with shared arrays if need be */
} os_tuning;

static const VkSubgroupFeatureFlags os_needed_ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                                    VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                                    VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;

/* Bytes of shared memory the pass kernel declares (see onesweep_pass.comp). */
static uint32_t pass_shared_bytes(uint32_t workgroup, uint32_t keys, uint32_t arrays, uint32_t max_subgroups) {
  uint32_t tile = workgroup * keys, counters = arrays * OS_RADIX;
  uint32_t region = tile > counters ? tile : counters;
  return 4u * (region + 2u * OS_RADIX + 2u * max_subgroups + 9u);
}

static uint32_t hist_shared_bytes(uint32_t copies) { return 4u * OS_MAX_PASSES * OS_RADIX * copies; }

static uint32_t min_subgroup(const ss_device_info *dev) {
  uint32_t m = dev->min_subgroup_size < dev->subgroup_size ? dev->min_subgroup_size : dev->subgroup_size;
  return m ? m : 1;
}

/* Early counts pay off with one counter array per subgroup: as many arrays as the workgroup can
 * have subgroups at the device's smallest subgroup size, at most OS_MAX_ARRAYS, in shared
 * memory beside the smallest tile. (They are correct with shared arrays too, as forced in
 * tests at subgroup sizes 4 and 8, but have not been measured so.) */
static bool early_counts_fit(const ss_device_info *dev, uint32_t workgroup) {
  uint32_t max_subgroups = workgroup / min_subgroup(dev);
  return max_subgroups <= OS_MAX_ARRAYS &&
         pass_shared_bytes(workgroup, OS_MIN_KEYS, max_subgroups, max_subgroups) <= dev->max_shared_memory;
}

static void fit_tuning(const ss_device_info *dev, os_tuning *t) {
  uint32_t sg = dev->subgroup_size ? dev->subgroup_size : 1;
  if (t->subgroup_size) sg = t->subgroup_size;
  t->max_subgroups = t->workgroup / min_subgroup(dev);
  if (t->max_subgroups == 0) t->max_subgroups = 1;
  t->arrays = t->workgroup / sg;
  if (t->arrays > OS_MAX_ARRAYS) t->arrays = OS_MAX_ARRAYS;
  if (t->arrays == 0) t->arrays = 1;
  if (!(t->variant & OS_VARIANT_LATE_COUNTS))
    t->arrays = t->max_subgroups < OS_MAX_ARRAYS ? t->max_subgroups : OS_MAX_ARRAYS;
  while (t->hist_copies > 1 && hist_shared_bytes(t->hist_copies) > dev->max_shared_memory) t->hist_copies /= 2;
  while (t->keys > OS_MIN_KEYS &&
         pass_shared_bytes(t->workgroup, t->keys, t->arrays, t->max_subgroups) > dev->max_shared_memory)
    t->keys--;
}

/* Defaults by device. NVIDIA (subgroup 32, 48 KiB): 256 x 12 = 3072-key tiles, one counter
 * array per warp, ~15 KiB of shared memory, three workgroups per SM. The spin bound (lookback
 * steps without progress before the fallback counts a tile itself) is long enough that a
 * predecessor that is merely slow is never taken for a stalled one: at 64 steps an H200
 * sometimes fell back on running tiles. Small-subgroup devices
 * (lavapipe, some mobile GPUs) keep 256 invocations and share counter arrays.
 *
 * Counting (OS_VARIANT_LATE_COUNTS): early counts where every subgroup can have its own
 * counter array (early_counts_fit) and the subgroup is at least 32 wide, as on NVIDIA; late
 * counts elsewhere. Early counts also fit lavapipe's 16-wide subgroups one array each, and
 * work with shared arrays at 4 and 8, where the tests force them
 * (SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT); no GPU with subgroups under 32 has been measured, so
 * they stay off there by default. Measured on an H100 (issue 22, a scratch copy of the
 * kernel, 16M / 32M keys, 256 x 12): 0.870 / 1.655 ms with late counts and the late header
 * read, 0.812 / 1.545 ms with both changes; CUB 0.615 / 1.149. Other GPUs with 32- or 64-wide
 * subgroups get early counts unmeasured.
 *
 * Two kernels, chosen per sort by its max_count (os_create, os_record): where early counts
 * are the default, the sorter also builds the kernel before issue 22 (late counts and the late
 * header read, OS_VARIANT_LATE_COUNTS | OS_VARIANT_LATE_HEADER, the tile above) and runs it for
 * sorts of max_count below OS_LARGE_SORT (1M); from 1M on the early-counts kernel, whose tile at
 * 256 invocations is 256 x 20 = 5120 keys (large_tile; 512 x 10 on NVIDIA). Measured on an H100 on 2026-11-25
 * (sortbench --os-variant, medians of 30, ms; docs/sorting.md): early counts pay only with the
 * large tile (256 x 20, 90 registers, two workgroups per SM: 0.742 / 1.393 at 16M / 32M against
 * the old kernel's 0.853 / 1.633), are slower than the old kernel at every size at 256 x 12, and
 * at 64K-256K the old kernel at 256 x 12 is fastest (0.067 / 0.075 against 0.075 / 0.081).
 * 256 x 22 and 256 x 24 fell off register cliffs. A host tuning that picks the kernel
 * (workgroup, keys, variant, early counts) gives one kernel for every sort. */
static os_tuning default_tuning(const ss_device_info *dev) {
  os_tuning t = {.workgroup = 256, .keys = 15, .spin = 1024, .window = 8, .hist_unroll = 8, .hist_copies = 4};
  if (dev->subgroup_size >= 32 && dev->max_workgroup_invocations >= 512) t.workgroup = 512;
  if (dev->vendor_id == 0x10DE) {
    /* Measured on an H200 (docs/performance.md): 4-tile lookback windows and one histogram
     * counter copy were fastest at 3M-16M keys. On an H100 (bench/results/2026-11-23-h100/ab_run5):
     * 256 x 12-key tiles, whose 80 registers let three workgroups share an SM, beat 512 x 15
     * (one workgroup per SM) by 5-10% at 3M-16M and 12% at 64K-256K. */
    t.workgroup = 256;
    t.keys = 12;
    t.window = 4;
    t.hist_copies = 1;
  }
  if (dev->subgroup_size < 32 || !early_counts_fit(dev, t.workgroup)) t.variant = OS_VARIANT_LATE_COUNTS;
  fit_tuning(dev, &t);
  return t;
}

/* The early-counts kernel's tile: 256 x OS_LARGE_TILE_KEYS at 256 invocations unless the host
 * gave keys_per_invocation (or shared memory is short: fit_tuning lowers it). On NVIDIA with
 * 32-wide subgroups, 512 x 10 instead (the same 5120 keys, one counter array for each of the 16
 * subgroups): 64 registers against 90, measured on an H100 on 2026-11-25 (sortbench
 * --os-variant, medians of 30; bench/results/2026-11-25-h100-tile512): 0.3223 / 0.7267 /
 * 1.3785 ms at 6M / 16M / 32M keys against 256 x 20's 0.3400 / 0.7402 / 1.3876, the same at
 * 1M; 512 x 12 (80 registers, one workgroup per SM) and 384 x 16 were much slower. */
static void large_tile(const splatsort *s, os_tuning *t) {
  bool host_keys = s->tuning && s->tuning->keys_per_invocation;
  bool host_workgroup = s->tuning && s->tuning->workgroup_size;
  if (!(t->variant & OS_VARIANT_LATE_COUNTS) && !host_keys && t->workgroup == 256) {
    t->keys = OS_LARGE_TILE_KEYS;
    if (!host_workgroup && s->dev.vendor_id == 0x10DE && s->dev.subgroup_size == 32 &&
        s->dev.max_workgroup_invocations >= 512 && early_counts_fit(&s->dev, 512)) {
      t->workgroup = 512;
      t->keys = OS_LARGE_TILE_KEYS / 2;
    }
    fit_tuning(&s->dev, t);
  }
}

/* Whether the host's tuning picks the pass kernel itself: then it runs every sort. */
static bool host_picks_kernel(const splatsort_onesweep_tuning *h) {
  return h && (h->workgroup_size || h->keys_per_invocation || h->variant ||
               (h->flags & SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT));
}

/* Applies the host's splatsort_onesweep_tuning (chained on the create info's next): every
 * non-zero field replaces the default, checked against what the kernels and device allow. */
static bool host_tuning(splatsort *s, os_tuning *t) {
  const splatsort_onesweep_tuning *h = s->tuning;
  if (!h) return true;
  if (h->workgroup_size) t->workgroup = h->workgroup_size;
  if (h->keys_per_invocation) t->keys = h->keys_per_invocation;
  if (h->lookback_spin) t->spin = h->lookback_spin;
  if (h->lookback_window) t->window = h->lookback_window;
  if (h->histogram_unroll) t->hist_unroll = h->histogram_unroll;
  if (h->histogram_copies) t->hist_copies = h->histogram_copies;
  if (h->required_subgroup_size) t->subgroup_size = h->required_subgroup_size;
  /* The host's bits join the device's choice of counting; the flag or the bit overrules it. */
  t->variant = h->variant | (t->variant & OS_VARIANT_LATE_COUNTS);
  t->force_early = (h->flags & SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT) != 0;
  if (t->force_early) t->variant &= ~OS_VARIANT_LATE_COUNTS;
  t->wide_ballot = (h->flags & SPLATSORT_ONESWEEP_WIDE_BALLOT_BIT) != 0;
  t->stats = (h->flags & SPLATSORT_ONESWEEP_STATISTICS_BIT) != 0;
  const uint32_t known_flags = SPLATSORT_ONESWEEP_WIDE_BALLOT_BIT | SPLATSORT_ONESWEEP_STATISTICS_BIT |
                               SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT | SPLATSORT_ONESWEEP_TWO_KERNELS_BIT;
  bool two = (h->flags & SPLATSORT_ONESWEEP_TWO_KERNELS_BIT) != 0;
  if (t->workgroup < OS_RADIX || t->workgroup > s->dev.max_workgroup_invocations || t->hist_unroll > 64 ||
      t->keys > 64 || t->window > 64 || t->hist_copies > 32 || (t->hist_copies & (t->hist_copies - 1)) ||
      h->variant > OS_VARIANT_ALL || t->spin > 65536 || t->subgroup_size > 128 || (h->flags & ~known_flags) ||
      (t->force_early && (h->variant & OS_VARIANT_LATE_COUNTS)) || (two && host_picks_kernel(h))) {
    ss_log(s, "splatsort_create: onesweep tuning: workgroup_size must be %u..%u; keys_per_invocation, "
              "lookback_window and histogram_unroll <= 64; histogram_copies a power of two <= 32; "
              "lookback_spin <= 65536; variant <= %u, without OS_VARIANT_LATE_COUNTS when early counts "
              "are forced; known flags only; two kernels only without workgroup_size, "
              "keys_per_invocation, variant and early counts",
           OS_RADIX, s->dev.max_workgroup_invocations, OS_VARIANT_ALL);
    return false;
  }
  /* Not forced: early counts only with one array per subgroup (a larger workgroup than the
   * default's may not allow it). Forced: with shared arrays if need be. */
  if (!(t->variant & OS_VARIANT_LATE_COUNTS) && !t->force_early && !early_counts_fit(&s->dev, t->workgroup))
    t->variant |= OS_VARIANT_LATE_COUNTS;
  if (h->max_workgroups_x) s->max_groups_x = h->max_workgroups_x;
  fit_tuning(&s->dev, t);
  return true;
}

static bool os_supported(const ss_device_info *dev) {
  if ((dev->subgroup_ops & os_needed_ops) != os_needed_ops) return false;
  if (dev->max_workgroup_invocations < OS_RADIX || dev->subgroup_size > 128) return false;
  os_tuning t = {.workgroup = OS_RADIX, .keys = OS_MIN_KEYS, .variant = OS_VARIANT_LATE_COUNTS};
  fit_tuning(dev, &t);
  return pass_shared_bytes(t.workgroup, t.keys, t.arrays, t.max_subgroups) <= dev->max_shared_memory &&
         hist_shared_bytes(1) <= dev->max_shared_memory;
}

static uint32_t os_pass_count(uint32_t key_bits) { return (key_bits + 7) / 8; }
static uint32_t os_timestamp_count(uint32_t key_bits) { return os_pass_count(key_bits) + 2; }

static const char *os_timestamp_label(uint32_t key_bits, uint32_t index) {
  static const char *names[] = {"histogram", "pass 0", "pass 1", "pass 2", "pass 3"};
  return index >= 1 && index < os_timestamp_count(key_bits) ? names[index - 1] : "";
}

/* The tile a sort of max_count runs with, and its pass pipeline. */
static bool large_kernel(const splatsort *s, uint32_t max_count) {
  return s->onesweep_split && max_count >= s->onesweep_split;
}
static uint32_t sort_tile(const splatsort *s, uint32_t max_count) {
  return large_kernel(s, max_count) ? s->onesweep_large_tile : s->tile_size;
}

/* Sized with the smallest tile (the most tiles), so a buffer sized for max_count also holds
 * any sort of a smaller max_count, whichever kernel that one selects. */
static VkDeviceSize os_internal_size(const splatsort *s, uint32_t max_count) {
  uint32_t tile = s->tile_size;
  if (s->onesweep_split && s->onesweep_large_tile < tile) tile = s->onesweep_large_tile;
  return 4u * ((VkDeviceSize)OS_DESC + 2u * (VkDeviceSize)ss_div_up(max_count, tile) * OS_RADIX);
}

static VkResult create_pass(splatsort *s, const os_tuning *t, const char *name, VkPipeline *out) {
  if (pass_shared_bytes(t->workgroup, t->keys, t->arrays, t->max_subgroups) > s->dev.max_shared_memory) {
    ss_log(s, "OneSweep workgroup %u does not fit in %u bytes of shared memory", t->workgroup,
           s->dev.max_shared_memory);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  uint32_t force = (s->flags & SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT) != 0;
  /* Entries i: constant_id i (OS_SPEC_*), the i-th word of the values. */
  const uint32_t values[] = {t->workgroup,     t->keys,        t->arrays, t->spin,  force,
                             t->max_subgroups, t->wide_ballot, t->window, t->stats, t->variant};
  VkSpecializationMapEntry map[10];
  for (uint32_t i = 0; i < 10; i++) map[i] = (VkSpecializationMapEntry){i, 4u * i, 4};
  VkSpecializationInfo spec = {10, map, sizeof values, values};
  return ss_create_pipeline(s, sort_spv_onesweep_pass_comp, sort_spv_onesweep_pass_comp_size, &spec,
                            t->subgroup_size, name, out);
}

static VkResult os_create(splatsort *s) {
  if (!os_supported(&s->dev)) {
    ss_log(s, "OneSweep needs subgroup basic, ballot, shuffle and arithmetic operations in compute, "
              "256 invocations per workgroup and %u bytes of shared memory",
           pass_shared_bytes(OS_RADIX, OS_MIN_KEYS, OS_MAX_ARRAYS, OS_RADIX / min_subgroup(&s->dev)));
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  os_tuning t = default_tuning(&s->dev);
  bool early_default = !(t.variant & OS_VARIANT_LATE_COUNTS);
  if (!host_tuning(s, &t)) return VK_ERROR_VALIDATION_FAILED_EXT;
  bool two = (early_default && !host_picks_kernel(s->tuning)) ||
             (s->tuning && (s->tuning->flags & SPLATSORT_ONESWEEP_TWO_KERNELS_BIT));
  os_tuning large = t;
  if (two) {
    t.variant |= OS_VARIANT_LATE_COUNTS | OS_VARIANT_LATE_HEADER;
    fit_tuning(&s->dev, &t);
    large.variant &= ~(OS_VARIANT_LATE_COUNTS | OS_VARIANT_LATE_HEADER);
    fit_tuning(&s->dev, &large);
    large_tile(s, &large);
    s->onesweep_split = OS_LARGE_SORT;
    s->onesweep_large_tile = large.workgroup * large.keys;
    s->onesweep_large_variant = large.variant;
  } else {
    large_tile(s, &t);
  }
  s->tile_size = t.workgroup * t.keys;
  s->onesweep_variant = t.variant;

  const uint32_t hist_values[] = {OS_HIST_WORKGROUP, t.hist_unroll, t.hist_copies};
  VkSpecializationMapEntry map[3];
  for (uint32_t i = 0; i < 3; i++) map[i] = (VkSpecializationMapEntry){i, 4u * i, 4};
  VkSpecializationInfo hist_spec = {3, map, sizeof hist_values, hist_values};

  VkResult r = ss_create_pipeline(s, sort_spv_onesweep_setup_comp, sort_spv_onesweep_setup_comp_size, NULL,
                                  0, "splatsort onesweep setup", &s->pipelines[OS_SETUP]);
  if (r == VK_SUCCESS)
    r = ss_create_pipeline(s, sort_spv_onesweep_histogram_comp, sort_spv_onesweep_histogram_comp_size,
                           &hist_spec, t.subgroup_size, "splatsort onesweep histogram", &s->pipelines[OS_HISTOGRAM]);
  if (r == VK_SUCCESS)
    r = create_pass(s, &t, two ? "splatsort onesweep pass (small sorts)" : "splatsort onesweep pass",
                    &s->pipelines[OS_PASS]);
  if (r == VK_SUCCESS && two)
    r = create_pass(s, &large, "splatsort onesweep pass (large sorts)", &s->pipelines[OS_PASS_LARGE]);
  return r;
}

static void os_record(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t key_bits) {
  bool indirect = info->count_buffer.buffer != VK_NULL_HANDLE;
  uint32_t passes = os_pass_count(key_bits), tile = sort_tile(s, info->max_count);
  VkPipeline pass_pipeline = s->pipelines[large_kernel(s, info->max_count) ? OS_PASS_LARGE : OS_PASS];
  struct os_push pc = {
      .key_bits = key_bits,
      .passes = passes,
      .desc_stride = ss_div_up(info->max_count, tile) * OS_RADIX,
      .count = info->count,
      .indirect = indirect,
      .count_index = ss_count_index(s, info),
      .max_count = info->max_count,
      .tile = tile,
      .hist_workgroup = OS_HIST_WORKGROUP,
      .hist_min_keys = OS_HIST_MIN_KEYS,
      .hist_max_groups = OS_HIST_MAX_GROUPS,
      .max_groups_x = s->max_groups_x,
      .keys_only = info->values.buffer == VK_NULL_HANDLE,
  };
  VkDeviceSize args = info->internal.offset;

  ssvk_label_begin(&s->vk, cmd, "onesweep histogram");
  ss_bind(s, cmd, s->pipelines[OS_SETUP], info, 0);
  ss_push(s, cmd, &pc, sizeof pc);
  s->vk.fn.vkCmdDispatch(cmd, 1, 1, 1);
  ss_barrier(s, cmd);
  ss_bind(s, cmd, s->pipelines[OS_HISTOGRAM], info, 0);
  ss_push(s, cmd, &pc, sizeof pc);
  s->vk.fn.vkCmdDispatchIndirect(cmd, info->internal.buffer, args + 4u * OS_H_DISPATCH_HIST);
  ss_barrier(s, cmd);
  ss_timestamp(s, cmd, info, 1);
  ssvk_label_end(&s->vk, cmd);

  for (uint32_t p = 0; p < passes; p++) {
    static const char *labels[] = {"onesweep pass 0", "onesweep pass 1", "onesweep pass 2", "onesweep pass 3"};
    ssvk_label_begin(&s->vk, cmd, labels[p]);
    pc.pass = p;
    ss_bind(s, cmd, pass_pipeline, info, p);
    ss_push(s, cmd, &pc, sizeof pc);
    s->vk.fn.vkCmdDispatchIndirect(cmd, info->internal.buffer, args + 4u * OS_H_DISPATCH_TILES);
    ss_barrier(s, cmd);
    ss_timestamp(s, cmd, info, p + 2);
    ssvk_label_end(&s->vk, cmd);
  }
}

const ss_algorithm_ops ss_onesweep_ops = {
    .supported = os_supported,
    .needs = "it needs subgroup basic, ballot, shuffle and arithmetic operations in compute shaders, 256 "
             "invocations per workgroup and enough shared memory",
    .create = os_create,
    .internal_size = os_internal_size,
    .pass_count = os_pass_count,
    .timestamp_count = os_timestamp_count,
    .timestamp_label = os_timestamp_label,
    .record = os_record,
};
