/* Shared by C and GLSL: push constants and internal-buffer layout of the reduce-then-scan
 * sorts, quaternary (2-bit digits, 512-key chunks) and radix16 (4-bit digits, its own tiles):
 * both count digits per chunk, scan the counts with quaternary_scan/quaternary_add and
 * scatter. */
#ifndef QUATERNARY_SHARED_H
#define QUATERNARY_SHARED_H

#ifdef VULKAN
#define QUATERNARY_UINT uint
#else
#include <stdint.h>
#define QUATERNARY_UINT uint32_t
#endif

#define QUATERNARY_CHUNK 512u         /* elements per chunk (and per scan block) */
#define QUATERNARY_WORKGROUP 256u     /* threads per workgroup: two elements each */
#define QUATERNARY_MAX_LEVELS 6u      /* hierarchical scan levels: 512^6 > any count */

/* Internal buffer, in 32-bit words. */
#define QUATERNARY_H_COUNT 0u         /* clamped element count */
#define QUATERNARY_H_CHUNKS 1u        /* chunks = ceil(count / chunk) */
#define QUATERNARY_H_LEVEL_SIZE 2u    /* [QUATERNARY_MAX_LEVELS] sizes of the scan levels */
#define QUATERNARY_H_DISPATCH 16u     /* VkDispatchIndirectCommand per entry, 4 words apart */
#define QUATERNARY_DISPATCH_CHUNKS 0u /* entry 0: one workgroup per chunk; entry 1+l: scan level l */
#define QUATERNARY_H_WORDS 64u        /* header size; level 0 (digits x chunks counts) starts here */

struct quaternary_push {
  QUATERNARY_UINT shift;        /* digit = (key >> shift) & mask */
  QUATERNARY_UINT mask;
  QUATERNARY_UINT level_offset; /* word offset of this scan level */
  QUATERNARY_UINT next_offset;  /* word offset of the next level, 0 = top level */
  QUATERNARY_UINT level;        /* index into QUATERNARY_H_LEVEL_SIZE */
  /* setup only */
  QUATERNARY_UINT count;        /* direct count */
  QUATERNARY_UINT indirect;     /* 1: read the count from the count buffer */
  QUATERNARY_UINT count_index;  /* word index of the count in the count binding */
  QUATERNARY_UINT max_count;
  QUATERNARY_UINT levels;
  QUATERNARY_UINT max_groups_x; /* device limit on workgroups in x */
  QUATERNARY_UINT keys_only;    /* 1: no payloads (the value bindings are the key buffers, untouched) */
  QUATERNARY_UINT chunk;        /* setup: keys per chunk (QUATERNARY_CHUNK, or a radix16 tile) */
  QUATERNARY_UINT digits;       /* setup: digit counts per chunk (4 or 16) */
};

#endif
