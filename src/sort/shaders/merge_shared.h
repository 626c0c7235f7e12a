/* Shared by C and GLSL: push constants and internal-buffer layout of Batcher's odd-even merge
 * sort (merge.c, merge_*.comp). It sorts (masked key, input position) pairs, so every pair is
 * distinct and the network's output is the stable order; the input positions live in the
 * internal buffer and gather the payloads at the end. */
#ifndef MERGE_SHARED_H
#define MERGE_SHARED_H

#ifdef VULKAN
#define OEM_UINT uint
#else
#include <stdint.h>
#define OEM_UINT uint32_t
#endif

#define OEM_WORKGROUP 256u   /* invocations per workgroup of every merge kernel */
#define OEM_MIN_TILE_LOG 9u  /* 512 keys: 4 KB of shared memory */
#define OEM_MAX_TILE_LOG 12u /* 4,096 keys: 32 KB */
#define OEM_MAX_MERGES 30u   /* merge levels above the tile: 2^(tile_log + merges) >= any count */

/* Internal buffer, in 32-bit words. */
#define OEM_H_COUNT 0u       /* clamped element count (indirect sorts) */
#define OEM_H_DISPATCH 4u    /* VkDispatchIndirectCommand per entry, 4 words apart */
#define OEM_E_TILES 0u       /* entry 0: one workgroup per tile */
#define OEM_E_GATHER 1u      /* entry 1: payload gather (none when one tile held everything) */
#define OEM_E_MERGE 2u       /* entry 2 + i: the stages merging runs of tile << i keys */
#define OEM_H_WORDS 256u     /* header size; the input positions follow */

struct oem_push {
  OEM_UINT count;        /* direct count */
  OEM_UINT indirect;     /* 1: the count is OEM_H_COUNT (written by the setup kernel) */
  OEM_UINT count_index;  /* setup: word index of the count in the count binding */
  OEM_UINT max_count;    /* setup */
  OEM_UINT mask;         /* compared bits of the key */
  OEM_UINT run_log;      /* merge stage: log2 of the sorted runs being merged (p) */
  OEM_UINT stride_log;   /* merge stage: log2 of the comparator distance (k) */
  OEM_UINT keys_only;    /* 1: no payloads */
  OEM_UINT tile_log;     /* setup: log2 of the tile */
  OEM_UINT merges;       /* setup: merge levels recorded */
  OEM_UINT max_groups_x; /* setup: device limit on workgroups in x */
};

#endif
