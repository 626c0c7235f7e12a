/* renderer_debug.h: read access to the splat renderer's internal buffers, for tests only
 * (tests/test_render_graphics.c checks the GPU projection and key/sort stages against the CPU
 * specification with it). The buffer layouts are in shaders/render/splat_shared.h. Built into
 * the tests (tests/renderer_debug.c), not into the library. */
#ifndef SPLAT_RENDERER_DEBUG_H
#define SPLAT_RENDERER_DEBUG_H

#include "splat_renderer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct splat_renderer_debug_buffers {
  uint32_t count;              /* splats in the scene */
  VkBuffer projected;          /* 32 bytes per splat index (binding 3's layout); only the
                                  visible splats' records are written by a frame */
  VkBuffer draw;               /* SP_DRAW_WORDS uint32: VkDrawIndirectCommand (instanceCount = the
                                  depth-sort stage's visible count) */
  splatsort_buffer keys;       /* the last recorded frame's sorted keys ... */
  splatsort_buffer values;     /* ... and payloads (splat indices), visible count of each */
  splatsort_buffer depth_range; /* two floats: the stage's visible depth range (quantised keys) */
  VkBuffer craster_state;      /* the compute raster's SP_CR_STATE_WORDS state words, or none */
} splat_renderer_debug_buffers;

/* Call before set_scene: the scene's buffers get VK_BUFFER_USAGE_TRANSFER_SRC_BIT. */
void splat_renderer_debug_enable(splat_renderer *r);

/* Fills *out for the current scene and the last recorded frame. With splat_renderer_debug_enable every
 * buffer has VK_BUFFER_USAGE_TRANSFER_SRC_BIT; read them after that frame has completed and before the
 * next frame or set_scene. Returns VK_NOT_READY (out zeroed) when no frame was recorded
 * since the scene was set, VK_ERROR_VALIDATION_FAILED_EXT for NULL arguments. */
VkResult splat_renderer_debug_get_buffers(const splat_renderer *r, splat_renderer_debug_buffers *out);

/* Splats per chunk of the objects set from now on (0: as many as the device's buffer limits
 * allow), so that tests reach several chunks with small scenes. */
void splat_renderer_debug_set_chunk_splats(splat_renderer *r, uint32_t n);
/* Chunks of an object (0: no such object). */
uint32_t splat_renderer_debug_chunks(const splat_renderer *r, uint32_t object);
/* The compute raster's pair capacity from the next frame on (its buffers are made again), not
 * grown ahead of a frame by the estimate of its pairs (only after a frame that overflowed): the
 * overflow path with small scenes. 0: back to the defaults. Only when no frame uses the renderer. */
void splat_renderer_debug_set_pair_capacity(splat_renderer *r, uint32_t pairs);
/* The compute raster's pairs a piece of a crowded tile (splat_shared.h, SP_CR_PIECES) from the
 * next frame on (its buffers are made again): small scenes split their tiles. 0: the default.
 * Only when no frame uses the renderer. And the piece size the buffers were made with. */
void splat_renderer_debug_set_piece_pairs(splat_renderer *r, uint32_t pairs);
uint32_t splat_renderer_debug_piece_pairs(const splat_renderer *r);
/* The upload's packing threads from now on (as create_info.upload_threads; 0: the default),
 * each given a slice however few splats there are (the renderer's own floor is 4,096 a thread). */
void splat_renderer_debug_set_upload_threads(splat_renderer *r, uint32_t threads);
/* Splats per staging piece of the uploads from now on (0: as many as a piece holds), so that
 * small scenes take many pieces and wrap the upload's ring. */
void splat_renderer_debug_set_upload_piece_splats(splat_renderer *r, uint32_t n);
/* Chunk `chunk` of an object's scene buffers (splat_shared.h: positions + opacity, shapes, SH
 * with its header) and their bytes in use; readable (TRANSFER_SRC) after
 * splat_renderer_debug_enable. VK_ERROR_VALIDATION_FAILED_EXT when there is no such chunk. */
VkResult splat_renderer_debug_chunk_buffers(const splat_renderer *r, uint32_t object, uint32_t chunk,
                                            VkBuffer buffers[3], VkDeviceSize sizes[3]);
/* The largest buffer the renderer makes on this device. */
VkDeviceSize splat_renderer_debug_max_buffer(const splat_renderer *r);

#ifdef __cplusplus
}
#endif
#endif
