/* Test-only access to the splat renderer's buffers (renderer_debug.h), built into the tests'
 * own library from the renderer's private header: the shipped library carries none of it. */
#include "renderer_debug.h"
#include "render_internal.h"

#include "splat_shared.h"

void splat_renderer_debug_enable(splat_renderer *r) {
  if (r) r->extra_usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
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
  craster_release(r);
  r->craster.initial_capacity = pairs;
}
