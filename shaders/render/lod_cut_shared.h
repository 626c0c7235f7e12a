/* Shared by C (src/render/lod_cut.c) and GLSL (lod_cut.comp): the LOD cut's push constants,
 * bindings and state layout (docs/lod.md). */
#ifndef LOD_CUT_SHARED_H
#define LOD_CUT_SHARED_H

#include "splat_shared.h" /* SP_UINT, SP_VEC4, SP_MAT4 */

#define LC_WORKGROUP 256 /* one atomic per 256 nodes on the cut and frontier counts */

/* Bindings (push descriptors, storage buffers). */
#define LC_BIND_SPHERES 0  /* vec4 per interior node: centre xyz (world), w its error (lod_cut.h) */
#define LC_BIND_CHILDREN 1 /* uvec2 per interior node: first_child << LC_CHILD_SHIFT | child_count, and
                            * the bits of its culling radius (float) */
#define LC_BIND_FRONTIER_IN 2  /* uint node ids of this level */
#define LC_BIND_FRONTIER_OUT 3 /* uint node ids of the next level */
#define LC_BIND_STATE 4    /* uint words, below */
#define LC_BIND_CUT 5      /* uint node ids of the cut, in no particular order */
#define LC_BIND_PAGES 6    /* uint per page of LC_PAGE_LEAVES leaves: its pool slot, or LC_PAGE_NONE */
#define LC_BIND_REQUESTS 7 /* uint: [0] pages asked for, then their ids (pc.request_capacity at most) */
#define LC_BIND_STAMPS 8   /* uint per page: the last pc.frame whose cut drew its leaves */
#define LC_BIND_COUNT 9

/* Streaming (docs/lod.md): leaves live in pages of LC_PAGE_LEAVES consecutive leaves, each page in a
 * slot of the object's pool (object index slot * LC_PAGE_LEAVES + the leaf's place in its page) or
 * not resident; the interior nodes after the pool (object index LC_STATE_POOL_LEAVES + node -
 * leaf_count). Without streaming the table is the identity and the pool is the leaves. A node
 * whose leaf children are not all resident is kept instead (drawn at its level) and asks for them. */
#define LC_PAGE_LEAVES 4096u
#define LC_PAGE_NONE 0xFFFFFFFFu
#define LC_REQUEST_WORDS 1024u /* a request list's words (a frame slot's region: 4 KiB, aligned) */

/* A cut entry: a node id, with LC_FADING_BIT when it is a parent drawn fading out over its
 * children (the blend band, docs/lod.md). */
#define LC_FADING_BIT 0x80000000u
#define LC_CHILD_SHIFT 4u
#define LC_CHILD_MASK 15u
/* first_child must fit in 32 - LC_CHILD_SHIFT bits */
#define LC_MAX_NODES (1u << 28)

/* State words: a header, then one uvec4 per level L at LC_STATE_LEVEL + 4 L:
 * (groups x, 1, 1, frontier count): the first three are level L's vkCmdDispatchIndirect. */
#define LC_STATE_CUT_COUNT 0     /* nodes kept (an indirect count for what draws the cut; may pass
                                    the cut list's capacity: only that many were written) */
#define LC_STATE_OVERFLOW 1      /* bit 0: a frontier was too small; bit 1: the cut list was full */
#define LC_STATE_TAU 2           /* this frame's threshold (float bits), set before the cut */
#define LC_STATE_TAU_NEXT 3      /* the budget's threshold for the next frame (float bits) */
#define LC_STATE_INTERIOR 4      /* interior nodes kept (the budget lowers tau only while some are) */
#define LC_STATE_BLEND 5         /* the frame's blend band (float bits; 0: none) */
#define LC_STATE_RADIUS_SCALE 6  /* the model's scale (float bits; the projection reads it) */
#define LC_STATE_PREV_TAU 7      /* the budget's last step: its threshold (float bits; 0: none) ... */
#define LC_STATE_PREV_COUNT 8    /* ... and the count it kept */
#define LC_STATE_POOL_LEAVES 12  /* the object index of the first interior node (the pool's size) */
#define LC_STATE_LEAF_COUNT 13   /* the tree's leaves (node ids below it are leaves) */
#define LC_STATE_PROJECT 9       /* words 9..11: the projection's vkCmdDispatchIndirect over the cut
                                    (min(count, cut capacity) invocations in workgroups of
                                    LC_PROJECT_WORKGROUP, split over y beyond max_groups) */
#define LC_PROJECT_WORKGROUP 256 /* SP_PROJECT_WORKGROUP (splat_shared.h) */
#define LC_STATE_LEVEL 16
#define LC_MAX_LEVELS 64
/* pc.level of the last dispatch (one workgroup, after the last level): the projection's dispatch
 * size and, with a budget, its step. */
#define LC_LEVEL_CONTROL 0xFFFFFFFFu
/* The budget's rule (a secant step on log count against log tau): while the count kept is above
 * the budget, or below LC_BUDGET_LOW of it with interior nodes in the cut (a finer cut exists),
 * the next threshold moves log tau by (log(LC_BUDGET_AIM budget) - log kept) / slope, the slope
 * d log kept / d log tau measured from the last two steps (clamped to [LC_SLOPE_MIN, LC_SLOPE_MAX];
 * LC_SLOPE_DEFAULT, a surface's -2, without two), by a factor of at most LC_BUDGET_STEP either
 * way, within [LC_TAU_MIN, LC_TAU_MAX]. */
#define LC_BUDGET_AIM 0.92
#define LC_BUDGET_LOW 0.84
#define LC_BUDGET_STEP 4.0
#define LC_SLOPE_MIN -8.0
#define LC_SLOPE_MAX -0.5
#define LC_SLOPE_DEFAULT -2.0
#define LC_TAU_MIN 1e-4
#define LC_TAU_MAX 1e6

/* Push constants: 128 bytes (what every device has). */
struct sp_lod_cut_push {
  SP_MAT4 view;       /* object -> camera (x right, y down, z forward), column-major */
  SP_VEC4 frustum;    /* lim_x, lim_y (1.3 tan of the half fields of view), sqrt(1 + lim_x^2), sqrt(1 + lim_y^2) */
  SP_VEC4 params;     /* near plane z, tau (pixels: the CPU reference's; the shader reads the state's),
                         max(fx, fy), radius scale (the model's scale; 1 untransformed) */
  SP_UINT leaf_count; /* nodes below this are leaves */
  SP_UINT level;      /* the level this dispatch visits (its state slot), or LC_LEVEL_CONTROL */
  SP_UINT max_groups; /* the indirect dispatch's x at most this (maxComputeWorkGroupCount[0]) */
  SP_UINT capacity;   /* node ids a frontier buffer holds */
  SP_UINT cut_capacity; /* node ids the cut list holds */
  SP_UINT budget;     /* LC_LEVEL_CONTROL: the budget (nodes) */
  SP_UINT frame;      /* the stamp of the pages this cut draws */
  SP_UINT request_capacity; /* page ids the request list holds */
};

#endif
