/* Test-only access to the splat renderer's buffers (renderer_debug.h), built into the tests'
 * own library from the renderer's private header: the shipped library carries none of it. */
#include "renderer_debug.h"
#include "render_internal.h"

#include "splat_shared.h"

void splat_renderer_debug_enable(splat_renderer *r) {
  if (!r) return;
  r->extra_usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  r->craster.env.extra_usage = r->extra_usage; /* its buffers from the next frame that makes them */
}

VkResult splat_renderer_debug_get_buffers(const splat_renderer *r, splat_renderer_debug_buffers *out) {
  if (!r || !out) return VK_ERROR_VALIDATION_FAILED_EXT;
  *out = (splat_renderer_debug_buffers){0};
  if (!r->last_sorted.values.buffer) return VK_NOT_READY;
  out->count = r->scene.count;
  out->projected = r->scene.projected.buffer;
  out->draw = r->scene.draw.buffer;
  out->keys = r->last_sorted.keys;
  out->values = r->last_sorted.values;
  out->depth_range = (splatsort_buffer){r->scene.scratch.buffer, 4 * SP_H_ZMIN, 8};
  out->craster_state = r->craster.state.buffer;
  return VK_SUCCESS;
}

void splat_renderer_debug_set_chunk_splats(splat_renderer *r, uint32_t n) {
  if (r) r->chunk_splats = n;
}

uint32_t splat_renderer_debug_chunks(const splat_renderer *r, uint32_t object) {
  return r && object < SPLAT_MAX_OBJECTS ? r->objects[object].chunks : 0;
}

VkDeviceSize splat_renderer_debug_max_buffer(const splat_renderer *r) { return r ? r->max_buffer : 0; }

void splat_renderer_debug_set_pair_capacity(splat_renderer *r, uint32_t pairs) {
  if (!r) return;
  render_craster_release(r);
  r->craster.initial_capacity = pairs;
  r->craster.fixed_capacity = pairs != 0;
}

void splat_renderer_debug_set_piece_pairs(splat_renderer *r, uint32_t pairs) {
  if (!r) return;
  render_craster_release(r);
  r->craster.piece_override = pairs;
}

uint32_t splat_renderer_debug_piece_pairs(const splat_renderer *r) { return r ? r->craster.piece : 0; }

void splat_renderer_debug_set_upload_threads(splat_renderer *r, uint32_t threads) {
  if (!r) return;
  r->upload_threads = threads ? threads : render_default_upload_threads();
  r->pack_min_splats = 1; /* every thread a slice, however small: small scenes reach them all */
}

void splat_renderer_debug_set_upload_piece_splats(splat_renderer *r, uint32_t n) {
  if (r) r->upload_piece_splats = n;
}

VkResult splat_renderer_debug_chunk_buffers(const splat_renderer *r, uint32_t object, uint32_t chunk,
                                            VkBuffer buffers[3], VkDeviceSize sizes[3]) {
  if (!r || object >= SPLAT_MAX_OBJECTS || chunk >= r->objects[object].chunks) return VK_ERROR_VALIDATION_FAILED_EXT;
  const object_gpu *o = &r->objects[object];
  const object_chunk *c = &o->chunk[chunk];
  buffers[0] = c->pos.buffer;
  buffers[1] = c->cov.buffer;
  buffers[2] = c->sh.buffer;
  sizes[0] = sizes[1] = 16ull * c->count;
  sizes[2] = 4ull * (SP_SH_HEADER_WORDS(o->sh_format) + (VkDeviceSize)o->sh_words * c->count);
  return VK_SUCCESS;
}
