/* Shared by C and GLSL: push constants, specialization constant ids and the internal-buffer
 * layout of the OneSweep sort (8-bit digits, chained scan with decoupled lookback). */
#ifndef ONESWEEP_SHARED_H
#define ONESWEEP_SHARED_H

#ifdef VULKAN
#define OS_UINT uint
#else
#include <stdint.h>
#define OS_UINT uint32_t
#endif

#define OS_RADIX 256u
#define OS_MAX_PASSES 4u

/* Internal buffer, in 32-bit words. */
#define OS_H_COUNT 0u          /* clamped element count n */
#define OS_H_TILES 1u          /* ceil(n / tile) */
#define OS_H_HIST_GROUPS 2u    /* workgroups of the histogram kernel */
#define OS_H_HIST_CHUNK 3u     /* keys per histogram workgroup (a multiple of its size) */
#define OS_H_TILE_COUNTER 4u   /* [OS_MAX_PASSES] tiles taken so far, per pass */
#define OS_H_DISPATCH_HIST 8u  /* VkDispatchIndirectCommand of the histogram kernel */
#define OS_H_STAT_STEPS 11u    /* with OS_SPEC_STATS: descriptor reads (window reads, all digits) of the last sort */
#define OS_H_DISPATCH_TILES 12u /* VkDispatchIndirectCommand of the pass kernel */
#define OS_H_STAT_FALLBACKS 15u /* with OS_SPEC_STATS: tiles counted by a fallback in the last sort */
#define OS_GLOBAL_HIST 16u     /* [OS_MAX_PASSES][256] digit counts of all keys */
/* Two arrays of per-tile partition descriptors, [tile][256] each; pass p uses array p & 1.
 * The histogram kernel zeroes array 0; pass p zeroes its tiles' entries of the other array
 * for pass p + 1. */
#define OS_DESC 1088u          /* >= OS_GLOBAL_HIST + OS_MAX_PASSES * OS_RADIX, 128-byte multiple */

/* A partition descriptor is one word: 0 = nothing published yet; 1..2^31-1 = AGGREGATE, the
 * tile's own count of the digit plus one; bit 31 set = PREFIX, the count of the digit in all
 * tiles up to and including this one (excluding the global digit offset). Counts are at
 * most 2^30, so neither overflows, and the states only grow: publishing is atomicMax. */
#define OS_FLAG_PREFIX 0x80000000u

/* Specialization constant ids. */
#define OS_SPEC_WORKGROUP 0u   /* pass and fallback: invocations per workgroup (>= 256) */
#define OS_SPEC_KEYS 1u        /* keys per invocation; tile = workgroup * keys */
#define OS_SPEC_ARRAYS 2u      /* per-subgroup digit counter arrays in shared memory (<= 16) */
#define OS_SPEC_SPIN 3u        /* lookback: steps without progress before falling back */
#define OS_SPEC_FORCE_FALLBACK 4u /* 1: treat every predecessor as stalled (testing) */
#define OS_SPEC_MAX_SUBGROUPS 5u  /* upper bound on gl_NumSubgroups (workgroup / min size) */
#define OS_SPEC_WIDE_BALLOT 6u    /* 1: use the uvec4 ballot path at every subgroup size (testing) */
#define OS_SPEC_LOOKBACK_WINDOW 7u /* lookback: descriptors read per step */
#define OS_SPEC_STATS 8u          /* 1: count lookback reads and fallbacks (diagnosis) */
#define OS_SPEC_VARIANT 9u        /* OS_VARIANT_* bits: earlier designs, kept for A/B measurements */

/* Pass-kernel variants (OS_SPEC_VARIANT). 0 is the default; each bit brings back one earlier
 * design so that a benchmark can measure the change it undid, in the same run. */
#define OS_VARIANT_DEFAULT 0u
#define OS_VARIANT_STEP_LOOKBACK 1u   /* lookback in workgroup-wide steps, a barrier per read */
#define OS_VARIANT_EARLY_VALUES 2u    /* payloads loaded before the lookback (live across it) */
#define OS_VARIANT_PLAIN_COUNTERS 4u  /* ranking counters read and written, subgroup barrier per key */
#define OS_VARIANT_WIDE_RANKS 8u      /* one rank per register instead of two */
#define OS_VARIANT_LATE_HEADER 16u    /* tile header (count, tiles) read after the first barrier */
/* Counts after ranking, then a fix-up of every rank; without it (early counts) each subgroup
 * counts into its array first, the tile's counts are published before ranking and ranks come
 * out final. By default the host sets it unless every subgroup gets its own array and
 * subgroups are 32 wide or more (onesweep.c, default_tuning). */
#define OS_VARIANT_LATE_COUNTS 32u
#define OS_VARIANT_ALL 63u
#define OS_MAX_ARRAYS 16u             /* counter arrays at most (OS_SPEC_ARRAYS) */
#define OS_SPEC_HIST_WORKGROUP 0u /* histogram kernel: invocations per workgroup */
#define OS_SPEC_HIST_UNROLL 1u    /* histogram kernel: keys loaded per invocation per step */
#define OS_SPEC_HIST_COPIES 2u    /* histogram kernel: copies of each counter (power of two) */

struct os_push {
  OS_UINT pass;         /* 0-based digit pass: digit = (key >> 8 * pass) & mask */
  OS_UINT key_bits;     /* 1..32 */
  OS_UINT passes;       /* ceil(key_bits / 8) */
  OS_UINT desc_stride;  /* words per descriptor array = 256 * max tiles */
  /* setup only */
  OS_UINT count;        /* direct count */
  OS_UINT indirect;     /* 1: read the count from the count buffer */
  OS_UINT count_index;  /* word index of the count in the count binding */
  OS_UINT max_count;
  OS_UINT tile;         /* keys per tile of the pass kernel */
  OS_UINT hist_workgroup;
  OS_UINT hist_min_keys;  /* a histogram workgroup reads at least this many keys ... */
  OS_UINT hist_max_groups; /* ... and there are at most this many of them */
  OS_UINT max_groups_x;  /* device limit on workgroups in x */
  OS_UINT keys_only;     /* 1: no payloads (the value bindings are the key buffers, untouched) */
};

#endif
