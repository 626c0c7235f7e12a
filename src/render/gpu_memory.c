/* gpu_memory.c: the renderer's device memory: the frame's shared buffers, objects' chunks,
 * the budget and the per-buffer limit. */
#include "render_internal.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


void *render_host_alloc(const VkAllocationCallbacks *a, size_t size) {
  void *p = a && a->pfnAllocation ? a->pfnAllocation(a->pUserData, size, 16, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT)
                                  : malloc(size);
  if (p) memset(p, 0, size);
  return p;
}


void render_host_free(const VkAllocationCallbacks *a, void *p) {
  if (a && a->pfnFree)
    a->pfnFree(a->pUserData, p);
  else
    free(p);
}


void render_frame_buffers_destroy(splat_renderer *r, scene_gpu *s) {
  ssvk_buffer *bufs[] = {&s->depths, &s->projected, &s->scratch, &s->indices, &s->draw, &s->rays};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) ssvk_buffer_destroy(&r->vk, bufs[i]);
  *s = (scene_gpu){0};
}


void render_lod_destroy(splat_renderer *r, object_lod *l) {
  if (!l) return;
  lod_cut_gpu_destroy(&r->vk, &l->cut);
  ssvk_buffer_destroy(&r->vk, &l->parent);
  for (uint32_t i = 0; i < SPLAT_MAX_FRAME_SLOTS; i++) ssvk_buffer_destroy(&r->vk, &l->staging[i]);
  free(l->slot_of_page);
  free(l->page_of_slot);
  render_host_free(r->vk.allocator, l);
}


void render_object_destroy(splat_renderer *r, object_gpu *o) {
  for (uint32_t c = 0; o->chunk && c < o->chunks; c++) {
    ssvk_buffer *bufs[] = {&o->chunk[c].pos, &o->chunk[c].cov, &o->chunk[c].sh};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) ssvk_buffer_destroy(&r->vk, bufs[i]);
  }
  render_host_free(r->vk.allocator, o->chunk);
  if (o->project) r->vk.fn.vkDestroyPipeline(r->vk.device, o->project, r->vk.allocator);
  render_lod_destroy(r, o->lod);
  if (o->pairs.v) r->pair_want.generation++;
  pair_sample_free(&o->pairs, r->vk.allocator);
  *o = (object_gpu){0};
}


double render_mib(VkDeviceSize bytes) { return (double)bytes / (1024.0 * 1024.0); }


/* Device memory of the objects' scene buffers and of the frame (shared buffers, compute raster). */
static void memory_by_buffer(const splat_renderer *r, splat_renderer_memory_info *m) {
  *m = (splat_renderer_memory_info){.splats = render_objects_total(r)};
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++)
    for (uint32_t c = 0; r->objects[i].chunk && c < r->objects[i].chunks; c++) {
      const object_chunk *ch = &r->objects[i].chunk[c];
      m->positions += ch->pos.size, m->shapes += ch->cov.size, m->sh += ch->sh.size;
    }
  m->frame = r->scene.depths.size + r->scene.projected.size + r->scene.scratch.size + r->scene.indices.size +
             r->scene.rays.size;
  m->frame += craster_bytes(&r->craster);
}


static VkDeviceSize bytes_in_use(const splat_renderer *r) {
  splat_renderer_memory_info m;
  memory_by_buffer(r, &m);
  return m.positions + m.shapes + m.sh + m.frame;
}


VkResult splat_renderer_memory(const splat_renderer *r, splat_renderer_memory_info *out) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!out) {
    rlog(r, "memory: out is NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  memory_by_buffer(r, out);
  return VK_SUCCESS;
}


VkDeviceSize render_memory_free(const splat_renderer *r) {
  VkDeviceSize used = bytes_in_use(r);
  return used < r->memory_limit ? r->memory_limit - used : 0;
}


bool render_memory_allows(splat_renderer *r, VkDeviceSize bytes, const char *what) {
  VkDeviceSize used = bytes_in_use(r);
  if (used + bytes <= r->memory_limit) return true;
  rlog(r, "the %s needs %.2f MiB more device memory; with %.2f MiB in use %s %.2f MiB", what, render_mib(bytes), render_mib(used),
       r->memory_limit_is_budget ? "the renderer's memory budget is" : "the device has", render_mib(r->memory_limit));
  return false;
}


VkResult render_create_buffers(splat_renderer *r, const char *what, ssvk_buffer *const *b, const VkDeviceSize *size,
                              const VkBufferUsageFlags *usage, const char *const *name, size_t n) {
  VkResult res = VK_SUCCESS;
  for (size_t i = 0; i < n && res == VK_SUCCESS; i++) {
    if (size[i] > r->max_buffer) {
      rlog(r, "the %s (%.2f MiB) is larger than one buffer may be on this device (%.2f MiB: maxStorageBufferRange, "
              "maxMemoryAllocationSize, maxBufferSize)", name[i], render_mib(size[i]), render_mib(r->max_buffer));
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    res = ssvk_buffer_create(&r->vk, size[i], usage[i], false, false, name[i], b[i]);
    if (res != VK_SUCCESS)
      rlog(r, "creating the %s (%.2f MiB) for the %s failed (%s) with %.2f MiB already in use by this renderer",
           name[i], render_mib(size[i]), what, ssvk_result_name(res), render_mib(bytes_in_use(r)));
  }
  return res;
}


/* The most splats one frame can hold: a record each in one storage buffer. */
uint32_t render_max_frame_splats(const splat_renderer *r) {
  VkDeviceSize n = r->max_buffer / (r->stereo ? 64u : 32u);
  return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
}


uint32_t splat_renderer_max_frame_splats(const splat_renderer *r) { return r ? render_max_frame_splats(r) : 0; }

/* The frame's shared buffers for `n` splats over all objects. */
VkResult render_create_frame_buffers(splat_renderer *r, scene_gpu *s, uint32_t n) {
  s->count = n;
  if (n > render_max_frame_splats(r)) return VK_ERROR_OUT_OF_DEVICE_MEMORY; /* check_memory said why */
  VkResult res = render_sort_layout(r, n, &s->layout);
  if (res != VK_SUCCESS) return res;
  const VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, dst = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkBufferUsageFlags x = r->extra_usage;
  ssvk_buffer *const bufs[] = {&s->depths, &s->projected, &s->scratch, &s->indices, &s->draw};
  const VkDeviceSize sizes[] = {4ull * n, (r->stereo ? 64ull : 32ull) * n, s->layout.end, 4ull * n, 4 * SP_DRAW_WORDS};
  const VkBufferUsageFlags usages[] = {st | x, st | x, s->layout.scratch_usage | x, s->layout.indices_usage | x,
                                       st | dst | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT | x};
  const char *const names[] = {"splat depths", "splat projected", "splat depth-sort scratch", "splat sorted indices",
                               "splat draw"};
  return render_create_buffers(r, "frame", bufs, sizes, usages, names, 5);
}


/* The per-pixel order's ray-depth coefficients, 32 bytes for each of the projected buffer's
 * 32-byte records (made on the first frame that needs them; freed with the frame's buffers). */
VkResult render_ensure_rays(splat_renderer *r) {
  scene_gpu *s = &r->scene;
  VkDeviceSize size = s->projected.size;
  if (s->rays.buffer && s->rays.size == size) return VK_SUCCESS;
  ssvk_buffer_destroy(&r->vk, &s->rays);
  if (!render_memory_allows(r, size, "per-pixel order's ray-depth coefficients")) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  ssvk_buffer *const bufs[] = {&s->rays};
  const VkDeviceSize sizes[] = {size};
  const VkBufferUsageFlags usages[] = {VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | r->extra_usage};
  const char *const names[] = {"splat ray-depth coefficients"};
  return render_create_buffers(r, "frame", bufs, sizes, usages, names, 1);
}


void render_sh_layout(uint32_t precision, uint32_t coeffs, uint32_t *format, uint32_t *words) {
  uint32_t values = 3 * coeffs;
  *format = precision == 32 ? SP_SH_FORMAT_F32 : precision == 8 ? SP_SH_FORMAT_U8 : SP_SH_FORMAT_F16;
  *words = precision == 32 ? values : precision == 8 ? (values + 3) / 4 : (values + 1) / 2;
}


/* Positions + opacity and shape: 16 bytes each a splat; SH: its words, and each chunk's header. */
VkDeviceSize render_object_bytes(uint32_t format, uint32_t words, uint32_t count, uint32_t chunks) {
  return (32ull + 4ull * words) * count + 4ull * SP_SH_HEADER_WORDS(format) * chunks;
}


/* Splats per chunk for an object's SH storage: as many as keep each of its buffers within
 * max_buffer, a multiple of the projection's workgroup. */
uint32_t render_chunk_splats(const splat_renderer *r, uint32_t sh_format, uint32_t sh_words) {
  VkDeviceSize widest = 4ull * sh_words > 16 ? 4ull * sh_words : 16;
  VkDeviceSize n = (r->max_buffer - 4ull * SP_SH_HEADER_WORDS(sh_format)) / widest / SP_PROJECT_WORKGROUP *
                   SP_PROJECT_WORKGROUP;
  if (r->chunk_splats && r->chunk_splats < n) n = r->chunk_splats;
  return n > UINT32_MAX ? UINT32_MAX / SP_PROJECT_WORKGROUP * SP_PROJECT_WORKGROUP : (uint32_t)(n ? n : 1);
}


uint32_t render_objects_total(const splat_renderer *r) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) n += r->objects[i].count;
  return n;
}


/* The compute raster's hooks into the memory accounting above (craster_env). */
bool render_craster_allows(void *owner, VkDeviceSize bytes, const char *what) {
  return render_memory_allows(owner, bytes, what);
}

VkResult render_craster_create_buffers(void *owner, const char *what, ssvk_buffer *const *b, const VkDeviceSize *size,
                                const VkBufferUsageFlags *usage, const char *const *name, size_t n) {
  return render_create_buffers(owner, what, b, size, usage, name, n);
}

void render_craster_release(splat_renderer *r) {
  craster_release(&r->craster);
  r->pair_want.key = 0; /* the next compute frame estimates again, with the whole budget */
}
