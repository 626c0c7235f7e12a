/* Shared by C (src/render/lod_cut.c) and GLSL (lod_cut.comp): the LOD cut's push constants,
 * bindings and state layout (docs/lod.md). */
#ifndef LOD_CUT_SHARED_H
#define LOD_CUT_SHARED_H

#include "splat_shared.h" /* SP_UINT, SP_VEC4, SP_MAT4 */

#define LC_WORKGROUP 64

/* Bindings (push descriptors, storage buffers). */
#define LC_BIND_SPHERES 0  /* vec4 per node: centre xyz (world), radius = 3 * largest scale */
#define LC_BIND_CHILDREN 1 /* uint per interior node: first_child << LC_CHILD_SHIFT | child_count */
#define LC_BIND_FRONTIER_IN 2  /* uint node ids of this level */
#define LC_BIND_FRONTIER_OUT 3 /* uint node ids of the next level */
#define LC_BIND_STATE 4    /* uint words, below */
#define LC_BIND_CUT 5      /* uint node ids of the cut, in no particular order */
#define LC_BIND_COUNT 6

#define LC_CHILD_SHIFT 4u
#define LC_CHILD_MASK 15u
/* first_child must fit in 32 - LC_CHILD_SHIFT bits */
#define LC_MAX_NODES (1u << 28)

/* State words: a header, then one uvec4 per level L at LC_STATE_LEVEL + 4 L:
 * (groups x, 1, 1, frontier count): the first three are level L's vkCmdDispatchIndirect. */
#define LC_STATE_CUT_COUNT 0     /* nodes in the cut (an indirect count for what draws it) */
#define LC_STATE_OVERFLOW 1      /* non-zero: an append did not fit (never, with the sizes upload gives) */
#define LC_STATE_LEVEL 4
#define LC_MAX_LEVELS 64

/* Push constants: 112 bytes (of the 128 every device has). */
struct sp_lod_cut_push {
  SP_MAT4 view;       /* world -> camera (x right, y down, z forward), column-major */
  SP_VEC4 frustum;    /* lim_x, lim_y (1.3 tan of the half fields of view), sqrt(1 + lim_x^2), sqrt(1 + lim_y^2) */
  SP_VEC4 params;     /* near plane z, tau (pixels), max(fx, fy), unused */
  SP_UINT leaf_count; /* nodes below this are leaves */
  SP_UINT level;      /* the level this dispatch visits (its state slot) */
  SP_UINT max_groups; /* the indirect dispatch's x at most this (maxComputeWorkGroupCount[0]) */
  SP_UINT capacity;   /* node ids a frontier buffer holds */
};

#endif
