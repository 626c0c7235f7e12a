/* Shared by C and GLSL: bindings, push constants and scratch layout of the depth-sort stage
 * (splatsort_depth.h): a key pass over the host's splat centres that keeps the visible ones in
 * input order (one dispatch with a decoupled lookback, or the three-dispatch form: keys, scan,
 * ordered compaction), then the sort. */
#ifndef DEPTH_SHARED_H
#define DEPTH_SHARED_H

#ifdef VULKAN
#define DS_UINT uint
#define DS_MAT4 mat4
#else
#include <stdint.h>
#define DS_UINT uint32_t
typedef struct { float m[16]; } ds_mat4;
#define DS_MAT4 ds_mat4
#endif

#define DS_WORKGROUP 256
#define DS_ITEMS 8          /* one-pass key pass: splats per invocation */
#define DS_TILE (DS_WORKGROUP * DS_ITEMS)
#define DS_SPIN 1024u       /* lookback reads without progress before the workgroup counts the tile itself */

#define DS_BIND_CENTERS 0   /* the host's centres, as words (any stride) */
#define DS_BIND_COUNT 1     /* the host's splat count (indirect), else the header */
#define DS_BIND_HEADER 2    /* DS_H_* words in the scratch buffer */
#define DS_BIND_DEPTH 3     /* per splat: depth key or DS_CULLED (the sort's tmp_keys region) */
#define DS_BIND_GROUPS 4    /* per key-pass workgroup: visible count, then its first slot;
                               one pass: per tile, its lookback descriptor (DS_DESC_*) */
#define DS_BIND_KEYS 5      /* sort input keys */
#define DS_BIND_VALUES 6    /* sort input values (splat indices) */
#define DS_BIND_DRAW 7      /* the host's visible-count word, else the header */
#define DS_BIND_CENTERS4 8  /* the host's centres as vec4 (DS_FLAG_VEC4: stride 16, offset 16-aligned) */
#define DS_BINDINGS 9       /* number of bindings */

/* Header words (scratch buffer, at its start). */
#define DS_H_VISIBLE 0      /* visible count: the sort's indirect count */
#define DS_H_ZMIN 1         /* visible depth range, float bits (positive: they order like floats) */
#define DS_H_ZMAX 2
#define DS_H_TILE 3         /* one pass: tiles taken so far (launch order, not gl_WorkGroupID) */
#define DS_H_WORDS 4

#define DS_CULLED 0xFFFFFFFFu
#define DS_FLAG_INDIRECT 1u       /* splat count from DS_BIND_COUNT[count_index] */
#define DS_FLAG_OPACITY_CULL 2u   /* float4 centres: w is the opacity; below 1/255 is culled */
#define DS_FLAG_DRAW 4u           /* write the visible count to DS_BIND_DRAW[draw_index] */
#define DS_FLAG_RADIAL 8u         /* keys: distance to the camera position, not clip w */
#define DS_FLAG_VEC4 16u          /* centres readable as vec4 through DS_BIND_CENTERS4 */
#define DS_FLAG_FORCE_FALLBACK 32u /* testing: the lookback counts every predecessor tile itself */

/* One-pass lookback descriptor of a tile: 0 = nothing published yet; AGGREGATE: the tile's
 * visible count + 1; DS_DESC_PREFIX set: the visible count of all tiles up to and including
 * it. Counts stay below 2^30 (max_count <= the storage range / 4), so a PREFIX is above every
 * AGGREGATE and atomicMax publishes either without ever lowering a PREFIX. */
#define DS_DESC_PREFIX 0x80000000u

/* At most 128 bytes: the push-constant space every device has. */
struct ds_push {
  DS_MAT4 view_proj;   /* world -> clip, column-major */
  DS_UINT count;       /* direct splat count (clamped to max_count) */
  DS_UINT max_count;
  DS_UINT count_index; /* word of the indirect count in DS_BIND_COUNT */
  DS_UINT draw_index;  /* word of the visible count in DS_BIND_DRAW */
  DS_UINT stride;      /* centre stride in words */
  DS_UINT flags;       /* DS_FLAG_* */
  DS_UINT key_bits;    /* 32, or 16..31: quantised over the visible depth range */
  DS_UINT max_groups_x;
  float margin;        /* |x|, |y| <= margin * w in clip space */
  float near;          /* w <= near is culled (behind or too close) */
  float cam_x, cam_y, cam_z; /* camera position (radial keys) */
};

#endif
