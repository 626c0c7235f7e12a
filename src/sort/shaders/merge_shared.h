/* Shared by C and GLSL: push constants and internal-buffer layout of Batcher's odd-even merge
 * sort (merge.c, merge_*.comp). It sorts (masked key, input position) pairs, so every pair is
 * distinct and the network's output is the stable order; the input positions live in the
 * internal buffer and gather the payloads at the end. */
#ifndef MERGE_SHARED_H
#define MERGE_SHARED_H

#ifdef VULKAN
#define MERGE_UINT uint
#else
#include <stdint.h>
#define MERGE_UINT uint32_t
#endif

#define MERGE_WORKGROUP 256u   /* invocations per workgroup of every merge kernel */
#define MERGE_MIN_TILE_LOG 9u  /* 512 keys: 4 KB of shared memory */
#define MERGE_MAX_TILE_LOG 12u /* 4,096 keys: 32 KB */
#define MERGE_MAX_MERGES 30u   /* merge levels above the tile: 2^(tile_log + merges) >= any count */

/* Internal buffer, in 32-bit words. */
#define MERGE_H_COUNT 0u       /* clamped element count (indirect sorts) */
#define MERGE_H_DISPATCH 4u    /* VkDispatchIndirectCommand per entry, 4 words apart */
#define MERGE_E_TILES 0u       /* entry 0: one workgroup per tile */
#define MERGE_E_GATHER 1u      /* entry 1: payload gather (none when one tile held everything) */
#define MERGE_E_MERGE 2u       /* entry 2 + i: the stages merging runs of tile << i keys */
#define MERGE_H_WORDS 256u     /* header size; the input positions follow */

struct merge_push {
  MERGE_UINT count;        /* direct count */
  MERGE_UINT indirect;     /* 1: the count is MERGE_H_COUNT (written by the setup kernel) */
  MERGE_UINT count_index;  /* setup: word index of the count in the count binding */
  MERGE_UINT max_count;    /* setup */
  MERGE_UINT mask;         /* compared bits of the key */
  MERGE_UINT run_log;      /* merge stage: log2 of the sorted runs being merged (p) */
  MERGE_UINT stride_log;   /* merge stage: log2 of the comparator distance (k) */
  MERGE_UINT keys_only;    /* 1: no payloads */
  MERGE_UINT tile_log;     /* setup: log2 of the tile */
  MERGE_UINT merges;       /* setup: merge levels recorded */
  MERGE_UINT max_groups_x; /* setup: device limit on workgroups in x */
};

#endif
