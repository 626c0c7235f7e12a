/* craster.h: the renderer's compute raster (tiles in compute instead of quads through the
 * graphics pipeline; shaders/render/craster_*.comp). Internal to the renderer. */
#ifndef SPLAT_CRASTER_H
#define SPLAT_CRASTER_H

#include "ssvk.h"
#include "splat_renderer.h"
#include "splat_shared.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct splat_renderer splat_renderer;
struct splat_frame;
struct splat_host_target;

/* The host colour formats the blend writes (p_blend_host's index), or -1. */
int craster_host_format_index(VkFormat format);

/* Pair buffers replaced by growth while earlier frames may still read them: freed once every
 * other frame slot has been recorded again (a slot is recorded again only after its previous
 * frame finished: renderer.h). */
/* The buffers sized by the pair capacity: keys, values, the sort's tmp keys, tmp values and
 * internal, and the crowded tiles' extra pieces and partial slots (one buffer). */
#define CRASTER_PAIR_SET 6

typedef struct craster_retired {
  ssvk_buffer pairs[CRASTER_PAIR_SET];
  uint32_t waiting_slots; /* bit per slot still to be recorded again */
} craster_retired;

#define CRASTER_RETIRED_MAX 4

typedef struct craster {
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline p_count, p_scan, p_emit, p_ranges, p_pieces, p_blend;
  /* the blend into the host's images: its own layout (buffers, depths, two images), one
   * pipeline per colour format (CRASTER_HOST_*) */
  VkDescriptorSetLayout host_set_layout;
  VkPipelineLayout host_layout;
  VkPipeline p_blend_host[3];
  /* the per-pixel order's blends (own target, then the host formats), per window length:
   * made on first use */
  VkPipeline p_order[4][SP_CR_WINDOW_MAX + 1];
  /* per position (the frame's splats): offsets; per block; state */
  ssvk_buffer offsets, blocks, state;
  uint32_t positions;
  /* per tile (ranges, pieces) and per pixel, for the target's size */
  ssvk_buffer ranges, pieces, image;
  uint32_t width, height;
  /* the pairs: keys, values, the sort's tmp keys, tmp values and internal; the pieces */
  ssvk_buffer pairs[CRASTER_PAIR_SET];
  uint32_t capacity;         /* pairs the buffers hold */
  uint32_t piece;            /* pairs a piece of a crowded tile (piece_for(capacity)) */
  uint32_t piece_override;   /* tests/renderer_debug.c: the piece size, 0: piece_for's */
  VkDeviceSize partials_offset; /* of the partial slots in pairs[PAIR_PIECES] (the extras first) */
  uint32_t initial_capacity; /* create_info's, or 0 */
  bool fixed_capacity;       /* tests/renderer_debug.c: initial_capacity, never estimated */
  craster_retired retired[CRASTER_RETIRED_MAX];
  /* The pairs a frame needs, estimated before it is recorded (pair_estimate.h), with their
   * margin; kept while the frame's camera, instances and objects stay the same (estimate_key,
   * a hash of them; generation counts the objects' changes). */
  uint64_t estimate_key, estimate_pairs, estimate_want;
  bool estimate_exact;
  uint32_t generation, estimate_generation, estimate_width, estimate_height;
  uint64_t failed_want;                     /* the estimate whose growth the memory refused */
  bool told_short;                          /* logged that frames need more than the buffers can hold */
  bool overflow_told[SPLAT_MAX_FRAME_SLOTS]; /* the slot's last frame's overflow was logged */
} craster;

VkResult craster_create(splat_renderer *r);
/* Everything, pipelines included. */
void craster_destroy(splat_renderer *r);
/* The buffers (made again by the next compute frame); only when no frame uses them. */
void craster_release(splat_renderer *r);
/* Called for every prepared frame: frees retired pair buffers no frame can still read, and
 * grows the pair buffers when the slot's previous frame needed more (and logs that it did). */
void craster_frame_begin(splat_renderer *r, uint32_t slot);
/* Logs, once, that the compute frame last recorded in `slot` (finished) needed more pairs than
 * it had. */
void craster_tell_overflow(splat_renderer *r, uint32_t slot);
/* The compute raster of a prepared frame, with its timestamps: host NULL: into the renderer's
 * target (written by TRANSFER, left in TRANSFER_SRC_OPTIMAL with a barrier to TRANSFER_READ);
 * else over the host's images (checked by the caller), as splat_renderer_cmd_render_into says. */
VkResult craster_record(splat_renderer *r, VkCommandBuffer cmd, const struct splat_frame *f, int sorter,
                        const struct splat_host_target *host);

#endif
