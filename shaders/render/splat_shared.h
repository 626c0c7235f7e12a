/* Shared by C and GLSL: push constants and buffer layouts of the splat projection and raster
 * passes. */
#ifndef SPLAT_SHARED_H
#define SPLAT_SHARED_H

/* The reference's constants (near plane, alpha limits, transmittance floor, ...), written once
 * for C and GLSL in the public src/render/splat_constants.h. */
#include "splat_constants.h"

#ifdef VULKAN
#define SP_UINT uint
#define SP_VEC4 vec4
#define SP_MAT4 mat4
#else
#include <stdint.h>
#define SP_UINT uint32_t
typedef struct { float v[4]; } sp_vec4;
typedef struct { float m[16]; } sp_mat4;
#define SP_VEC4 sp_vec4
#define SP_MAT4 sp_mat4
#endif

/* Workgroup size of the projection and compaction passes, and the slots of a block (a plain
 * int: GLSL layout qualifiers take it too). */
#define SP_PROJECT_WORKGROUP 256

/* Projection push constants: exactly 128 bytes, the minimum every device guarantees. */
struct sp_project_push {
  SP_MAT4 view;        /* world -> camera (x right, y down, z forward), column-major */
  SP_VEC4 campos;      /* xyz camera centre (object space); w: the record offset, as uint bits */
  SP_VEC4 intrinsics;  /* fx, fy, cx, cy (continuous pixel coordinates) */
  SP_VEC4 limits;      /* 1.3 tan_fovx, 1.3 tan_fovy, SP_PROJECT_* bits (uint bits), unused */
  SP_UINT count;       /* splats in the scene */
  SP_UINT sh_degree;   /* SH degree evaluated (<= the scene's) */
  SP_UINT base;        /* the object's first slot in the frame's shared arrays */
  SP_UINT size;        /* width | height << 16 */
};

/* Raster push constants. */
struct sp_raster_push {
  SP_VEC4 viewport;    /* width, height, 1/width, 1/height */
  SP_VEC4 depth_proj;  /* quad depth = x + y / view z: the host's projection, for its depth test;
                          z: the record offset (uint bits; stereo: an eye's records);
                          w: multiview: the second eye's records are this far on (uint bits) */
};

/* Scene buffers (one splat each), as upload.c packs them and splat_scene_as_stored
 * (src/render/splat_project.h) decodes them on the CPU:
 *   binding 0: vec4 position.xyz (object space), opacity (float, as given)
 *   binding 1: uvec4 shape: the rotation quaternion (w, x, y, z) as 4 snorm16 (w | x << 16,
 *              y | z << 16; decoded as int * SP_SNORM16_STEP), the scales as halves
 *              (x | y << 16, z | 0 << 16); the projection forms the 3D covariance from them
 *   binding 2: SH coefficients, coefficient k, channel c at value index k*3 + c, `sh_words`
 *              uint32 per splat after SP_SH_HEADER_WORDS(format) words of header, by the
 *              object's SP_SH_FORMAT_* (a specialization constant of its projection pipeline):
 *              F16: half floats, two a word (value h in word h/2, low half first);
 *              F32: floats, one a word;
 *              U8:  bytes, four a word (value h in word h/4, byte h%4), decoded as
 *                   offset[h] + scale[h] * byte with the header's per-object float tables
 *                   scale[48] (words 0..47) and offset[48] (words 48..95), index k*3 + c
 *                   (the host fills them per band and channel: splat_sh8_range)
 * (32 bytes a splat besides the SH: 48 until the covariance was packed.) */
#define SP_SH_FORMAT_F16 0u
#define SP_SH_FORMAT_F32 1u
#define SP_SH_FORMAT_U8 2u
#define SP_SH_MAX_VALUES 48
#define SP_SH_HEADER_WORDS(format) ((format) == SP_SH_FORMAT_U8 ? 2u * SP_SH_MAX_VALUES : 0u)
/* 1 / 32767 rounded to float: the snorm16 decode is a product with it on both sides (a GPU
 * division is not correctly rounded; a product is). */
#define SP_SNORM16_STEP 3.051850945e-05f

/* Projection output:
 *   binding 3: uvec4[2] per splat index: float bits of (mean.x, mean.y, conic.x, conic.y),
 *              (conic.z bits, opacity bits, packHalf2x16(r, g), packHalf2x16(b, 0) | radius << 16)
 *              where radius is the integer pixel radius clamped to 65535 (exact: the mean lies
 *              inside the widened frustum, so a 65535-pixel square covers any 16384 image);
 *              only the visible splats' records are written, except in stereo, where an eye
 *              zeroes the records of the splats it culls (radius 0: no area), as the frame's
 *              visible set is the centre camera's
 *   binding 5: float per frame slot: the visible splat's camera-space z (the raster's depth
 *              in the host's projection); every object of the frame at its own base slot
 *   binding 6: uint per frame slot: the depth key of a visible splat (ds_depth_key of its key
 *              value: view depth or radial distance, as the depth-sort stage's), else
 *              DS_CULLED (src/sort/shaders/depth_shared.h)
 *   binding 7: uint per SP_FUSE_BLOCK frame slots (a block): its visible splats, then
 *              (after the scan) the place of its first one among the frame's visible splats
 *   binding 8: SP_H_* words: the visible count and the visible key-value range
 * Bindings 0-2 are one object's; 3 and 5-7 are indexed by frame slot (object base + splat).
 *   binding 12 (SP_PROJECT_RAYS only, per-pixel order): vec4[2] per record, indexed as binding 3:
 *              the splat's ray-depth coefficients (a00, a11, a01, a02), (a12, b0, b1, b2): the
 *              depth of its maximum along the ray (u, v, 1) is (b0 u + b1 v + b2) /
 *              (a00 u^2 + a11 v^2 + 1 + 2 (a01 u v + a02 u + a12 v)) (splat_project_ray_depth)
 * Compaction output, the sort's input: binding 9 the keys (quantised to key_bits), binding 10
 * the frame slots, visible splats in slot order; binding 11 the draw (its instanceCount).
 * Raster input:
 *   binding 4: the sorted frame slots, back to front
 * Passes: project.comp (one thread a splat: cull, record, key), fuse_scan.comp (the blocks'
 * places), fuse_compact.comp (the keys and slots of the visible splats, in slot order), the
 * host's sorter (splatsort_cmd_sort, indirect count), then the raster's indirect draw of the
 * visible count. */
#define SP_BIND_POS 0
#define SP_BIND_COV 1
#define SP_BIND_SH 2
#define SP_BIND_PROJECTED 3
#define SP_BIND_INDICES 4
#define SP_BIND_DEPTHS 5
#define SP_BIND_KEYS 6
#define SP_BIND_BLOCKS 7
#define SP_BIND_HEADER 8
#define SP_BIND_SORT_KEYS 9
#define SP_BIND_SORT_VALUES 10
#define SP_BIND_DRAW 11
#define SP_BIND_RAYS 12
/* Level-of-detail objects (docs/lod.md; the projection's LOD pipeline only, stand-ins otherwise):
 * the cut's entries (uint node ids, LC_FADING_BIT on a fading parent), the cut's state
 * (lod_cut_shared.h: the count, the threshold, the blend band, the radius scale), each node's
 * parent (uint; the root's UINT32_MAX), each node's bounding sphere (the cut's, vec4) and the
 * page table (a leaf's object index: its page's pool slot; interior nodes after the pool). */
#define SP_BIND_LOD_CUT 13
#define SP_BIND_LOD_STATE 14
#define SP_BIND_LOD_PARENT 15
#define SP_BIND_LOD_SPHERES 16
#define SP_BIND_LOD_PAGES 17   /* uint per page: its pool slot (lod_cut_shared.h, streaming) */
#define SP_BINDINGS 18

/* Header words (binding 8): the visible count (the sort's indirect count), then the visible
 * key values' range as float bits (positive: they order like floats), for quantised keys. */
/* Frame slots a block of the fused compaction (binding 7): SP_FUSE_ITEMS per invocation of a
 * SP_PROJECT_WORKGROUP workgroup, so the compaction's workgroup scan and the blocks' scan are
 * spent on 2,048 slots, not on 256 (a projection workgroup's slots straddle at most two). */
#define SP_FUSE_ITEMS 8
#define SP_FUSE_BLOCK (SP_PROJECT_WORKGROUP * SP_FUSE_ITEMS)

#define SP_H_VISIBLE 0
#define SP_H_ZMIN 1
#define SP_H_ZMAX 2
#define SP_H_WORDS 4

/* Push constants of the scan and compaction passes. */
struct sp_compact_push {
  SP_UINT count;       /* frame slots in use */
  SP_UINT key_bits;    /* 32, or 16..31: quantised over [zmin, zmax] (the stage's quantise_key) */
};

#define SP_MAX_RADIUS 65535u

/* What a projection dispatch writes, and how. KEYS: the frame's visible set, its keys, depths
 * and block counts; RECORDS: the records. Mono: both in one dispatch, the projection's cull
 * decides the visible set. Stereo: KEYS from the point between the eyes (culled by its centre
 * tests: near plane, frustum, opacity), then RECORDS from each eye. ANTIALIAS scales each
 * record's opacity by the anti-aliasing compensation (an object of an anti-aliased scene,
 * src/render/splat_project.h); RADIAL keys by the distance to the camera, not view depth;
 * RAYS also writes each record's ray-depth coefficients (binding 12), for the per-pixel order. */
#define SP_PROJECT_KEYS 1u
#define SP_PROJECT_RECORDS 2u
#define SP_PROJECT_ANTIALIAS 4u
#define SP_PROJECT_RADIAL 8u
#define SP_PROJECT_RAYS 16u

/* Draw buffer words: VkDrawIndirectCommand; the stage writes instanceCount (the visible count). */
#define SP_DRAW_INSTANCES 1
#define SP_DRAW_WORDS 4

/* ---- the compute raster (src/render/craster.c) -------------------------------------------
 * After the depth sort: one (tile, record) pair per 16x16 tile each visible splat's quad
 * touches, emitted front to back (count, scan, emit), sorted by tile with the stable sort on
 * ceil(log2(tiles)) key bits (so each tile's list stays front to back; per-pixel order: also
 * by depth at the tile, SP_CR_FLAG_PER_PIXEL), each tile's range found, then one workgroup per
 * tile blends its list front to back. */
#define SP_TILE 16
#define SP_CR_ITEMS 4                                    /* positions per thread (count, emit) */
#define SP_CR_BLOCK (SP_PROJECT_WORKGROUP * SP_CR_ITEMS) /* positions per workgroup: 1024 */

struct sp_craster_push {
  SP_VEC4 background;  /* rgb; a: unused */
  SP_UINT width, height, tiles_x, tiles_y;
  SP_UINT max_count;   /* positions dispatched (the frame's slots; the visible count is <= it) */
  SP_UINT capacity;    /* pairs the pair buffers hold */
  SP_UINT rec_offset;  /* record offset (stereo: an eye's records) */
  SP_UINT blocks;      /* SP_CR_BLOCK-position blocks: ceil(max_count / SP_CR_BLOCK) */
  SP_UINT max_groups_x; /* maxComputeWorkGroupCount[0], for the indirect dispatch it writes */
  SP_UINT flags;       /* SP_CR_FLAG_* */
  SP_UINT depth_bits;  /* per-pixel order: the pair keys' depth bits below the tile's */
  SP_UINT piece;       /* pairs a piece: a tile with more is blended in pieces (SP_CR_PIECES) */
  SP_VEC4 depth_proj;  /* into the host's target: a splat's depth = x + y / view z (sp_raster_push's) */
  SP_VEC4 intrinsics;  /* fx, fy, cx, cy of the drawn camera: per-pixel order's rays */
};
/* The host's depth is reversed: a splat is drawn where its depth >= the host's (else <=). */
#define SP_CR_FLAG_REVERSE_Z 1u
/* Per-pixel order: the pair keys are tile << depth_bits | the splat's depth at the tile (log
 * scale over the frame's visible depths), so the pair sort leaves each tile's list ordered by
 * depth at the tile, not by the centres' global order. */
#define SP_CR_FLAG_PER_PIXEL 2u
/* The blend dispatch over the extra pieces (SP_CR_EXTRAS), not one workgroup per tile. */
#define SP_CR_FLAG_EXTRA 4u

/* Compute-raster buffers (push descriptors of their own layout):
 *   0: projected records (above), 1: the depth-sorted record indices (back to front),
 *   2: the draw buffer (the visible count at word SP_DRAW_INSTANCES),
 *   3: per position, its pairs' offset inside its block, 4: per block, its pairs, then
 *      (after the scan) its first pair, 5: state (SP_CR_STATE_*),
 *   6/7: pair keys (tile) and values (record), 8: per tile its pair range (uvec2 begin, end),
 *   9: the image, packHalf2x16 (r, g), (b, 1) per pixel, row-major. */
#define SP_CR_PROJECTED 0
#define SP_CR_SORTED 1
#define SP_CR_DRAW 2
#define SP_CR_OFFSETS 3
#define SP_CR_BLOCKS 4
#define SP_CR_STATE 5
#define SP_CR_KEYS 6
#define SP_CR_VALUES 7
#define SP_CR_RANGES 8
#define SP_CR_IMAGE 9
#define SP_CR_RAYS 10   /* per-pixel order: the projection's ray-depth coefficients (SP_BIND_RAYS) */
#define SP_CR_HEADER 11 /* per-pixel order: the projection's header (SP_H_*: the visible depths' range) */
/* Crowded tiles: a tile of more than pc.piece pairs is blended in pieces of pc.piece pairs by
 * workgroups of their own, each from T = 1 with the stop rule; each piece leaves its pixels'
 * (C, T) in a partial slot (T negated where the pixel stopped) and the last piece of the tile
 * to finish composites them front to back (C += T C_k, T *= T_k, nothing after a piece where
 * the pixel stopped). 12: per tile (first partial slot, pieces, pieces finished, the first
 * piece where every pixel stopped: the later ones quit), written by craster_pieces.comp;
 * 13: the extra pieces (tile, k >= 1) the blend's second dispatch takes, one a workgroup;
 * 14: the partial slots, SP_TILE^2 vec4 a slot. */
#define SP_CR_PIECES 12
#define SP_CR_EXTRAS 13
#define SP_CR_PARTIALS 14
#define SP_CR_BIND_COUNT 15
/* The blend into the host's target (craster_blend_host_*.comp) has a layout of its own: the
 * buffers above, 15: the camera-space depths (binding 5 of the projection), 16: the host's
 * colour (storage image), 17: the host's depth (sampled image, read with texelFetch). */
#define SP_CR_DEPTHS 15
#define SP_CR_HOST_COLOR 16
#define SP_CR_HOST_DEPTH 17
#define SP_CR_HOST_BIND_COUNT 18
/* Per-pixel order (SPLAT_ORDER_PER_PIXEL, craster_blend.glsl with SP_CR_PER_PIXEL): the most
 * slots a pixel's window may have, and the default. */
#define SP_CR_WINDOW_MAX 16
#define SP_CR_WINDOW_DEFAULT 8
/* State words: every pair the frame needed (saturating at 2^32 - 1), the pairs written
 * (min(needed, capacity): the sort's indirect count), the ranges pass's indirect dispatch, the
 * extra pieces' indirect dispatch (x: their count) and the partial slots taken. */
#define SP_CR_STATE_NEEDED 0
#define SP_CR_STATE_PAIRS 1
#define SP_CR_STATE_DISPATCH 2
#define SP_CR_STATE_EXTRA 5
#define SP_CR_STATE_SLOTS 8
#define SP_CR_STATE_WORDS 12

#endif
