/* Shared by C and GLSL: push constants and internal-buffer layout of the reduce-then-scan
 * sorts, quaternary (2-bit digits, 512-key chunks) and radix16 (4-bit digits, its own tiles):
 * both count digits per chunk, scan the counts with q_scan/q_add and scatter. */
#ifndef QUATERNARY_SHARED_H
#define QUATERNARY_SHARED_H

#ifdef VULKAN
#define QS_UINT uint
#else
#include <stdint.h>
#define QS_UINT uint32_t
#endif

#define QS_CHUNK 512u         /* elements per chunk (and per scan block) */
#define QS_WORKGROUP 256u     /* threads per workgroup: two elements each */
#define QS_MAX_LEVELS 6u      /* hierarchical scan levels: 512^6 > any count */

/* Internal buffer, in 32-bit words. */
#define QS_H_COUNT 0u         /* clamped element count */
#define QS_H_CHUNKS 1u        /* chunks = ceil(count / chunk) */
#define QS_H_LEVEL_SIZE 2u    /* [QS_MAX_LEVELS] sizes of the scan levels */
#define QS_H_DISPATCH 16u     /* VkDispatchIndirectCommand per entry, 4 words apart */
#define QS_DISPATCH_CHUNKS 0u /* entry 0: one workgroup per chunk; entry 1+l: scan level l */
#define QS_H_WORDS 64u        /* header size; level 0 (digits x chunks counts) starts here */

struct qs_push {
  QS_UINT shift;        /* digit = (key >> shift) & mask */
  QS_UINT mask;
  QS_UINT level_offset; /* word offset of this scan level */
  QS_UINT next_offset;  /* word offset of the next level, 0 = top level */
  QS_UINT level;        /* index into QS_H_LEVEL_SIZE */
  /* setup only */
  QS_UINT count;        /* direct count */
  QS_UINT indirect;     /* 1: read the count from the count buffer */
  QS_UINT count_index;  /* word index of the count in the count binding */
  QS_UINT max_count;
  QS_UINT levels;
  QS_UINT max_groups_x; /* device limit on workgroups in x */
  QS_UINT keys_only;    /* 1: no payloads (the value bindings are the key buffers, untouched) */
  QS_UINT chunk;        /* setup: keys per chunk (QS_CHUNK, or a radix16 tile) */
  QS_UINT digits;       /* setup: digit counts per chunk (4 or 16) */
};

#endif
