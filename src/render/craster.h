/* craster.h: the renderer's compute raster (tiles in compute instead of quads through the
 * graphics pipeline; shaders/render/craster_*.comp). Internal to the renderer. */
#ifndef SPLAT_CRASTER_H
#define SPLAT_CRASTER_H

#include "ssvk.h"
#include "splat_camera.h"
#include "splat_renderer.h"
#include "splat_shared.h"
#include "splatsort.h"

#include <stdbool.h>
#include <stdint.h>

struct splat_host_target;

/* The host colour formats the blend writes (p_blend_host's index), or -1. */
int craster_host_format_index(VkFormat format);

/* What the renderer hands the compute raster at create: the device and its limits, the host's
 * sorters (the tile sort takes the frame's), the frame slots, the usage every buffer gets beside
 * its own (tests read them back), the largest buffer, and the renderer's device-memory
 * accounting: allows(owner, bytes, what) before buffers are made (false: logged, none made), and
 * create_buffers(owner, ...) makes them (render_create_buffers' contract). */
typedef struct craster_env {
  const ssvk_device *vk;
  VkPhysicalDeviceLimits limits;
  const splatsort *const *sorters;
  uint32_t sorter_count, slots;
  VkBufferUsageFlags extra_usage;
  VkDeviceSize max_buffer;
  void *owner;
  bool (*allows)(void *owner, VkDeviceSize bytes, const char *what);
  VkResult (*create_buffers)(void *owner, const char *what, ssvk_buffer *const *b, const VkDeviceSize *size,
                             const VkBufferUsageFlags *usage, const char *const *name, size_t n);
} craster_env;

/* The buffers sized by the pair capacity: keys, values, the sort's tmp keys, tmp values and
 * internal, and the crowded tiles' extra pieces and partial slots (one buffer). */
#define CRASTER_PAIR_SET 6

/* Pair buffers replaced by growth while earlier frames may still read them: freed once every
 * other frame slot has been recorded again (a slot is recorded again only after its previous
 * frame finished: renderer.h). */
typedef struct craster_retired {
  ssvk_buffer pairs[CRASTER_PAIR_SET];
  uint32_t waiting_slots; /* bit per slot still to be recorded again */
} craster_retired;

#define CRASTER_RETIRED_MAX 4

typedef struct craster {
  craster_env env;
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
  uint64_t failed_want;                     /* the estimate whose growth the memory refused */
  bool told_short;                          /* logged that frames need more than the buffers can hold */
  bool overflow_told[SPLAT_MAX_FRAME_SLOTS]; /* the slot's last frame's overflow was logged */
} craster;

/* The pipelines; c->env set by the caller first. */
VkResult craster_create(craster *c);
/* Everything, pipelines included. */
void craster_destroy(craster *c);
/* The buffers (made again by the next compute frame); only when no frame uses them. */
void craster_release(craster *c);
/* Device memory its buffers hold now. */
VkDeviceSize craster_bytes(const craster *c);

/* What the last frame recorded in a slot left, once it finished (the renderer's record of the
 * slot and its read-back): compute: it was a compute-raster frame; needed: the pairs it needed;
 * capacity: the pairs it had room for. */
typedef struct craster_slot_report {
  bool compute;
  uint32_t needed, capacity;
} craster_slot_report;

/* Called for every prepared frame with its slot's last frame's report: frees retired pair
 * buffers no frame can still read, and grows the pair buffers when that frame needed more (and
 * logs that it did). */
void craster_frame_begin(craster *c, uint32_t slot, craster_slot_report last);
/* Logs, once, that the compute frame last recorded in `slot` (finished) needed more pairs than
 * it had. */
void craster_tell_overflow(craster *c, uint32_t slot, craster_slot_report last);

/* A compute frame as craster_record takes it: the camera drawn, its background and order; the
 * prepared frame's buffers (projected records, depth-sorted values, the draw with the visible
 * count, camera-space depths, ray coefficients, the projection's header), the frame slots
 * projected and this eye's record offset; the tile sort's sorter; three consecutive timestamp
 * queries (pairs made, tile-sorted, rastered), reset here; where the pairs needed go (a
 * host-visible buffer and offset); the pairs the frame wants (the renderer's estimate with its
 * margin, `estimate` without it, exact: from every splat; want 0: none) and its target: the
 * renderer's image (host NULL) or the host's images with the host pass's depth mapping. */
typedef struct craster_frame {
  uint32_t slot;
  const splat_camera *camera;
  float background[3];
  splat_order order;
  uint32_t order_window;
  VkBuffer projected, draw, depths, rays, header;
  splatsort_buffer sorted;
  uint32_t positions, rec_offset;
  const splatsort *sorter;
  VkQueryPool queries;
  uint32_t first_query;
  VkBuffer readback;
  VkDeviceSize needed_offset;
  uint64_t want, estimate;
  bool estimate_exact;
  VkImage target;
  const struct splat_host_target *host;
  float depth_proj[2];
  bool reverse_z;
} craster_frame;

/* The compute raster of a prepared frame, with its timestamps: host NULL: into f->target
 * (written by TRANSFER, left in TRANSFER_SRC_OPTIMAL with a barrier to TRANSFER_READ); else over
 * the host's images (checked by the caller), as splat_renderer_cmd_render_into says. *window:
 * the per-pixel window it drew with (0: the global order). */
VkResult craster_record(craster *c, VkCommandBuffer cmd, const craster_frame *f, uint32_t *window);

#endif
