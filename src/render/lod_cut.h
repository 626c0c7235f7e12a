/* lod_cut.h: the cut of a level-of-detail tree (splat_lod, src/scene/splat_scene.h) on the GPU,
 * one compute dispatch per tree level (shaders/render/lod_cut.comp), and the same cut on the CPU
 * as its reference. Internal to the renderer: frame.c records it before the projection of a LOD
 * object (docs/lod.md). It takes an ssvk_device, so a test can run it alone.
 *
 * The cut from a camera and a threshold tau (pixels): from the root, a node whose bounding sphere
 * (centre, radius 3 x its largest scale) is wholly behind the near plane (z + r <= near) or wholly
 * outside one of the widened frustum's side planes (x/z, y/z within +-1.3 tan of the half field of
 * view) is dropped with its subtree; otherwise a node straddling the near plane
 * (z <= near < z + r) is opened, and any other node is kept when its projected error
 * max(fx, fy) e / z <= tau, else opened (e <= r: how unlike its children the node's Gaussian looks,
 * times r, and never below a child's e: lod_cut_tree_pack, docs/lod.md). An opened node's children are visited, or, when they are
 * leaves, all kept without a test (the projection culls a leaf outside the view): leaves never
 * enter a frontier. With a blend band b > 0 (the state's LC_STATE_BLEND; the CPU reference has
 * none), a node opened at a size within (tau, (1 + b) tau] is also kept, marked LC_FADING_BIT. */
#ifndef SPLAT_LOD_CUT_H
#define SPLAT_LOD_CUT_H

#include "ssvk.h"
#include "lod_cut_shared.h"
#include "splat_camera.h"
#include "splat_scene.h"

#include <stdbool.h>
#include <stdint.h>

/* A tree as the cut reads it, on the CPU: per node a sphere (x, y, z, r), per interior node its
 * children packed as first_child << LC_CHILD_SHIFT | child_count, and the frontier sizes. */
typedef struct lod_cut_tree {
  uint32_t leaf_count, node_count;
  float *spheres;     /* 4 per node: centre, and the radius the size test takes: an interior node's
                       * error (docs/lod.md), a leaf's 3 x its largest scale (never tested) */
  float *radii;       /* per node: the bounding radius the culling takes, 3 x its largest scale */
  uint32_t *children; /* per interior node */
  uint32_t levels;    /* the tree's height in levels: the root alone is 1 */
  uint32_t max_width; /* the most interior nodes of one level below the root (>= 1): a frontier's */
} lod_cut_tree;

/* Packs `lod` over its (reordered) scene `leaves` into *out (free with lod_cut_tree_free).
 * Returns 0, or -1 with a message in err (too many nodes or levels, out of memory). */
int lod_cut_tree_pack(const splat_scene *leaves, const splat_lod *lod, lod_cut_tree *out, char *err, size_t err_size);
void lod_cut_tree_free(lod_cut_tree *t);

/* The push constants for a camera (its view, fx, fy and fields of view), a near plane and tau. */
struct sp_lod_cut_push lod_cut_push_for(const splat_camera *cam, float near_z, float tau);

/* The CPU reference: the cut's node ids into cut (room for leaf_count), in the order a
 * level-by-level walk finds them; returns how many. */
uint32_t lod_cut_reference(const lod_cut_tree *t, const struct sp_lod_cut_push *pc, uint32_t *cut);

/* The pipeline. */
typedef struct lod_cut_pipeline {
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  uint32_t max_groups; /* maxComputeWorkGroupCount[0] */
} lod_cut_pipeline;

/* Needs push descriptors (d->push_descriptor_set). Returns the first failure, everything made
 * so far destroyed. */
VkResult lod_cut_pipeline_create(const ssvk_device *d, lod_cut_pipeline *out);
void lod_cut_pipeline_destroy(const ssvk_device *d, lod_cut_pipeline *p);

/* A tree on the GPU, all device-local: the interior nodes' spheres and children (copied in at create), the two
 * frontiers (max_width ids each), the state (LC_STATE_* words: the cut count at word
 * LC_STATE_CUT_COUNT) and the cut (cut_capacity ids). */
typedef struct lod_cut_gpu {
  ssvk_buffer spheres, children, frontier[2], state, cut;
  uint32_t leaf_count, node_count, levels, capacity;
  uint32_t cut_capacity; /* node ids the cut list holds */
  /* Streaming (lod_cut_shared.h): the page table (device-local, the identity at create), the pages'
   * stamps and the request lists (host-visible: request_regions lists of LC_REQUEST_WORDS words,
   * one a frame slot), the pool's size in leaves (the object index of the first interior node;
   * leaf_count at create) */
  ssvk_buffer page_table, stamps, requests;
  uint32_t pages, pool_leaves, request_regions;
  bool steered;          /* the last record had a budget: the state holds its next threshold */
} lod_cut_gpu;

/* The most entries a cut holds: every leaf, and beside them a parent fading out over each pair of
 * leaves or more (fading nodes are never nested: lod_cut.comp), at most every node. */
static inline uint32_t lod_cut_most_entries(uint32_t leaf_count, uint32_t node_count) {
  uint64_t most = (uint64_t)leaf_count + leaf_count / 2;
  return most < node_count ? (uint32_t)most : node_count;
}

/* Uploads `t` (through staging on `queue`, blocking: ssvk_buffer_upload), with room for
 * cut_capacity nodes in the cut (0 or more: lod_cut_most_entries, which no cut passes).
 * Returns the first failure, everything made so far destroyed. */
VkResult lod_cut_gpu_create(const ssvk_device *d, const lod_cut_tree *t, uint32_t cut_capacity, uint32_t request_regions,
                            VkQueue queue, VkCommandPool pool, lod_cut_gpu *out);
void lod_cut_gpu_destroy(const ssvk_device *d, lod_cut_gpu *g);

/* Records the cut into cmd: a reset of the state and the first frontier (transfer), then
 * g->levels dispatches, each indirect from the count the previous one wrote (an empty level
 * dispatches no workgroup). pc's level, leaf_count, max_groups, capacities and budget are set
 * here. The threshold: budget 0, pc.params.y; otherwise the one the previous record's budget step
 * left in the state (pc.params.y at the first). After the last level one more dispatch writes
 * the projection's indirect dispatch (LC_STATE_PROJECT) and, with a budget, the budget's step
 * (lod_cut_shared.h) sets the next record's threshold from this cut's count. blend is
 * stored in the state for the projection (LC_STATE_BLEND), as pc.params.w (LC_STATE_RADIUS_SCALE).
 * Pages asked for go to request list `region` (its count, word 0, is the caller's to reset), pages
 * drawn are stamped with pc.frame.
 * Synchronisation: nothing may read or write g's buffers in the transfer or compute stages
 * before, unsynchronised; after it the cut (g->cut, the count at word LC_STATE_CUT_COUNT of
 * g->state) is written by COMPUTE_SHADER with SHADER_WRITE: the caller's barrier makes it
 * visible to what reads it (shader, indirect command or transfer). */
void lod_cut_cmd_record(const ssvk_device *d, const lod_cut_pipeline *p, lod_cut_gpu *g, VkCommandBuffer cmd,
                        struct sp_lod_cut_push pc, uint32_t budget, float blend, uint32_t region);

#endif
