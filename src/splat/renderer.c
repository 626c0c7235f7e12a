/* The splat renderer: scene upload, projection + depth keys, GPU sort (the host's sorters),
 * back-to-front raster, per-stage timestamps. See renderer.h for the contract. */
#include "renderer_internal.h"

#include "project.h"
#include "splat_shared.h"
#include "splat_spv_spv.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define rlog(r, ...) ssvk_log(&(r)->vk, __VA_ARGS__)

static uint32_t objects_total(const splat_renderer *r);

static void *host_alloc(const VkAllocationCallbacks *a, size_t size) {
  void *p = a && a->pfnAllocation ? a->pfnAllocation(a->pUserData, size, 16, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT)
                                  : malloc(size);
  if (p) memset(p, 0, size);
  return p;
}

static void host_free(const VkAllocationCallbacks *a, void *p) {
  if (a && a->pfnFree)
    a->pfnFree(a->pUserData, p);
  else
    free(p);
}

static void scene_destroy(splat_renderer *r, scene_gpu *s) {
  ssvk_buffer *bufs[] = {&s->centres, &s->projected, &s->scratch, &s->indices, &s->draw};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) ssvk_buffer_destroy(&r->vk, bufs[i]);
  *s = (scene_gpu){0};
}

static void object_destroy(splat_renderer *r, object_gpu *o) {
  for (uint32_t c = 0; o->chunk && c < o->chunks; c++) {
    ssvk_buffer *bufs[] = {&o->chunk[c].pos, &o->chunk[c].cov, &o->chunk[c].sh};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) ssvk_buffer_destroy(&r->vk, bufs[i]);
  }
  host_free(r->vk.allocator, o->chunk);
  if (o->project) vkDestroyPipeline(r->vk.device, o->project, r->vk.allocator);
  *o = (object_gpu){0};
}

static void target_destroy(splat_renderer *r) {
  VkDevice d = r->vk.device;
  if (r->target_view) vkDestroyImageView(d, r->target_view, r->vk.allocator);
  if (r->target) vkDestroyImage(d, r->target, r->vk.allocator);
  if (r->target_memory) vkFreeMemory(d, r->target_memory, r->vk.allocator);
  r->target_view = VK_NULL_HANDLE;
  r->target = VK_NULL_HANDLE;
  r->target_memory = VK_NULL_HANDLE;
  r->width = r->height = 0;
}

void splat_renderer_destroy(splat_renderer *r) {
  if (!r) return;
  VkDevice d = r->vk.device;
  const VkAllocationCallbacks *a = r->vk.allocator;
  scene_destroy(r, &r->scene);
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) object_destroy(r, &r->objects[i]);
  craster_destroy(r);
  target_destroy(r);
  ssvk_buffer_destroy(&r->vk, &r->readback);
  if (r->queries) vkDestroyQueryPool(d, r->queries, a);
  if (r->upload_pool) vkDestroyCommandPool(d, r->upload_pool, a);
  if (r->raster) vkDestroyPipeline(d, r->raster, a);
  if (r->host_raster) vkDestroyPipeline(d, r->host_raster, a);
  for (uint32_t i = 0; i < SPLAT_MAX_SORTERS; i++) splatsort_depth_destroy(r->stages[i]);
  if (r->raster_layout) vkDestroyPipelineLayout(d, r->raster_layout, a);
  if (r->compute_layout) vkDestroyPipelineLayout(d, r->compute_layout, a);
  if (r->raster_set_layout) vkDestroyDescriptorSetLayout(d, r->raster_set_layout, a);
  if (r->set_layout) vkDestroyDescriptorSetLayout(d, r->set_layout, a);
  host_free(a, r);
}

/* Sorters: 1..SPLAT_MAX_SORTERS, each of a different algorithm. */
static bool take_sorters(splat_renderer *r, const splat_renderer_create_info *info) {
  if (!info->sorters || info->sorter_count == 0 || info->sorter_count > SPLAT_MAX_SORTERS) {
    rlog(r, "splat_renderer_create: sorters: expected 1..%d sorters, got %u", SPLAT_MAX_SORTERS, info->sorter_count);
    return false;
  }
  for (uint32_t i = 0; i < info->sorter_count; i++) {
    const splatsort *s = info->sorters[i];
    for (uint32_t j = 0; j < i && s; j++)
      if (splatsort_get_algorithm(r->sorters[j]) == splatsort_get_algorithm(s)) s = NULL;
    if (!s) {
      rlog(r, "splat_renderer_create: sorters[%u] is NULL or repeats an algorithm", i);
      return false;
    }
    r->sorters[r->sorter_count++] = s;
  }
  return true;
}

static VkResult create_pipelines(splat_renderer *r, const splat_renderer_create_info *info) {
  VkResult res = ssvk_push_layout(&r->vk, SP_BIND_COUNT_OF, VK_SHADER_STAGE_COMPUTE_BIT,
                                  sizeof(struct sp_project_push), VK_SHADER_STAGE_COMPUTE_BIT, "splat compute",
                                  &r->set_layout, &r->compute_layout);
  if (res == VK_SUCCESS)
    res = ssvk_push_layout(&r->vk, SP_BIND_COUNT_OF, VK_SHADER_STAGE_VERTEX_BIT, sizeof(struct sp_raster_push),
                           VK_SHADER_STAGE_VERTEX_BIT, "splat raster", &r->raster_set_layout, &r->raster_layout);
  if (res != VK_SUCCESS) return res;
  /* premultiplied "over", back to front */
  ssvk_graphics_desc gd = {.vert = splat_spv_splat_vert, .vert_size = splat_spv_splat_vert_size,
                           .frag = splat_spv_splat_frag, .frag_size = splat_spv_splat_frag_size,
                           .layout = r->raster_layout, .color_format = SPLAT_TARGET_FORMAT,
                           .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, .src_color_factor = VK_BLEND_FACTOR_ONE,
                           .name = "splat raster"};
  res = ssvk_graphics_pipeline(&r->vk, &gd, &r->raster);
  if (res != VK_SUCCESS || (info->host_color_format == VK_FORMAT_UNDEFINED && !info->host_render_pass)) return res;
  /* the same draw into the host's pass: its formats, its depth test */
  gd.color_format = info->host_color_format;
  gd.depth_format = info->host_depth_format;
  gd.depth_compare = info->flags & SPLAT_RENDERER_CREATE_REVERSE_Z_BIT ? VK_COMPARE_OP_GREATER_OR_EQUAL
                                                                        : VK_COMPARE_OP_LESS_OR_EQUAL;
  gd.samples = info->host_samples;
  gd.render_pass = info->host_render_pass;
  gd.subpass = info->host_subpass;
  if (info->host_depth_output_format != VK_FORMAT_UNDEFINED && !info->host_render_pass) {
    gd.second_color_format = info->host_depth_output_format;
    gd.frag = splat_spv_splat_depth_frag;
    gd.frag_size = splat_spv_splat_depth_frag_size;
  }
  gd.name = "splat raster (host pass)";
  return ssvk_graphics_pipeline(&r->vk, &gd, &r->host_raster);
}

/* The largest buffer the renderer makes (storage range, allocation size, buffer size) and the
 * memory it may hold (the host's budget, else the largest device-local heap). */
static void device_limits(splat_renderer *r, VkPhysicalDevice pd, VkDeviceSize budget) {
  VkPhysicalDeviceMaintenance4Properties m4 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
                                               .pNext = r->props.apiVersion >= VK_API_VERSION_1_3 ? &m4 : NULL};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &m3};
  vkGetPhysicalDeviceProperties2(pd, &p2);
  r->max_buffer = r->props.limits.maxStorageBufferRange;
  if (m3.maxMemoryAllocationSize && m3.maxMemoryAllocationSize < r->max_buffer) r->max_buffer = m3.maxMemoryAllocationSize;
  if (m4.maxBufferSize && m4.maxBufferSize < r->max_buffer) r->max_buffer = m4.maxBufferSize;
  r->max_buffer &= ~(VkDeviceSize)255;
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  r->memory_limit = 0;
  for (uint32_t i = 0; i < mp.memoryHeapCount; i++)
    if ((mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && mp.memoryHeaps[i].size > r->memory_limit)
      r->memory_limit = mp.memoryHeaps[i].size;
  r->memory_limit_is_budget = budget != 0;
  if (budget) r->memory_limit = budget;
}

VkResult splat_renderer_create(const splat_renderer_create_info *info, splat_renderer **out) {
  if (out) *out = NULL;
  if (!info || !out) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!info->device || !info->physical_device || !info->queue || info->frame_slots > SPLAT_MAX_FRAME_SLOTS ||
      info->flags & ~(uint32_t)(SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT | SPLAT_RENDERER_CREATE_REVERSE_Z_BIT |
                                SPLAT_RENDERER_CREATE_STEREO_BIT)) {
    ssvk_log_to(info->log, info->log_user,
                "splat_renderer_create: device, physical_device and queue are required, frame_slots <= %d, "
                "known flags only",
                SPLAT_MAX_FRAME_SLOTS);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  splat_renderer *r = host_alloc(info->allocator, sizeof *r);
  if (!r) return VK_ERROR_OUT_OF_HOST_MEMORY;
  ssvk_device_init(&r->vk, NULL, info->physical_device, info->device, info->allocator, info->pipeline_cache, info->log,
                   info->log_user, "splat renderer", (info->flags & SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT) != 0);
  r->queue = info->queue;
  r->queue_family = info->queue_family;
  r->slots = info->frame_slots ? info->frame_slots : 1;
  r->stereo = (info->flags & SPLAT_RENDERER_CREATE_STEREO_BIT) != 0;
  vkGetPhysicalDeviceProperties(info->physical_device, &r->props);
  device_limits(r, info->physical_device, info->memory_budget);
  if (!take_sorters(r, info)) {
    splat_renderer_destroy(r);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  r->craster.initial_capacity = info->initial_pair_capacity;
  VkResult res = create_pipelines(r, info);
  if (res == VK_SUCCESS) res = craster_create(r);
  for (uint32_t i = 0; i < r->sorter_count && res == VK_SUCCESS; i++) {
    splatsort_depth_create_info dci = {.sorter = r->sorters[i], .pipeline_cache = info->pipeline_cache,
                                       .allocator = info->allocator, .log = info->log, .log_user = info->log_user,
                                       .flags = info->flags & SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT
                                                    ? SPLATSORT_CREATE_DEBUG_UTILS_BIT
                                                    : 0};
    res = splatsort_depth_create(&dci, &r->stages[i]);
  }
  VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                 .queueFamilyIndex = r->queue_family};
  if (res == VK_SUCCESS) res = vkCreateCommandPool(r->vk.device, &cpi, r->vk.allocator, &r->upload_pool);
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                               .queryCount = TS_COUNT * r->slots};
  if (res == VK_SUCCESS) res = vkCreateQueryPool(r->vk.device, &qpi, r->vk.allocator, &r->queries);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_create(&r->vk, 16 * SPLAT_MAX_FRAME_SLOTS, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, false,
                             "splat visible counts", &r->readback);
  if (res != VK_SUCCESS) {
    rlog(r, "splat_renderer_create failed (%d)", res);
    splat_renderer_destroy(r);
    return res;
  }
  *out = r;
  return VK_SUCCESS;
}

/* The index of the sorter (and stage) for an algorithm, or -1. */
static int find_sorter(const splat_renderer *r, splatsort_algorithm a) {
  if (a == SPLATSORT_ALGORITHM_AUTO) return r->sorter_count ? 0 : -1;
  for (uint32_t i = 0; i < r->sorter_count; i++)
    if (splatsort_get_algorithm(r->sorters[i]) == a) return (int)i;
  return -1;
}

/* A frame's sorter: AUTO takes what splatsort_choose_algorithm picks for the scene's splat
 * count (the visible count's bound) and key width where the host gave that sorter, else the
 * first sorter. */
static int frame_sorter(const splat_renderer *r, splatsort_algorithm a, uint32_t key_bits) {
  if (a != SPLATSORT_ALGORITHM_AUTO || !r->sorter_count) return find_sorter(r, a);
  int k = find_sorter(r, splatsort_choose_algorithm(r->sorters[0], objects_total(r), key_bits));
  return k >= 0 ? k : 0;
}

int splat_renderer_has_sort(const splat_renderer *r, splatsort_algorithm a) { return r && find_sorter(r, a) >= 0; }

uint32_t splat_renderer_scene_count(const splat_renderer *r) { return r ? objects_total(r) : 0; }

/* IEEE half from float, round to nearest even; SH values are small and finite. */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xFFu, m = x & 0x7FFFFFu;
  if (e == 0xFF) return (uint16_t)(sign | 0x7C00u | (m ? 0x200u : 0));
  int exp = (int)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7C00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    m |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - exp);
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (m >> 13), rem = m & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

/* Splats [first, first + count) of the scene in the GPU layout (splat_shared.h): positions +
 * opacity, covariances, SH halves (sh_words words a splat, unused halves zero). */
static void pack_splats(const splat_scene *sc, uint32_t first, uint32_t count, uint32_t sh_words, float *pos,
                        float *cov, uint16_t *sh) {
  uint32_t halves = sc->sh_coeffs * 3;
  memset(sh, 0, (size_t)count * sh_words * 4);
  for (uint32_t j = 0; j < count; j++) {
    size_t i = (size_t)first + j;
    memcpy(pos + 4 * j, sc->positions + 3 * i, 12);
    pos[4 * j + 3] = sc->opacities[i];
    float c[6];
    splat_cov3d(sc->scales + 3 * i, sc->rotations + 4 * i, c);
    float *o = cov + 8 * j;
    o[0] = c[0], o[1] = c[1], o[2] = c[2], o[3] = c[3], o[4] = c[4], o[5] = c[5], o[6] = 0, o[7] = 0;
    for (uint32_t h = 0; h < halves; h++) sh[(size_t)j * sh_words * 2 + h] = to_half(sc->sh[i * halves + h]);
  }
}

/* Uploads go through a staging ring of two halves: the CPU packs one piece while the GPU copies
 * the other, each piece waited for by its fence before its half is reused. */
#define UPLOAD_STAGING_BYTES (64ull << 20)

typedef struct uploader {
  splat_renderer *r;
  ssvk_buffer staging;
  VkDeviceSize half;
  VkCommandBuffer cmd[2];
  VkFence fence[2];
  bool pending[2];
  uint32_t next;
} uploader;

static VkResult uploader_wait(uploader *u, uint32_t k) {
  if (!u->pending[k]) return VK_SUCCESS;
  u->pending[k] = false;
  VkResult res = vkWaitForFences(u->r->vk.device, 1, &u->fence[k], VK_TRUE, UINT64_MAX);
  if (res == VK_SUCCESS) res = vkResetFences(u->r->vk.device, 1, &u->fence[k]);
  if (res != VK_SUCCESS) rlog(u->r, "uploading splats: waiting for a copy failed (%s)", ssvk_result_name(res));
  return res;
}

static void uploader_end(uploader *u) {
  VkDevice d = u->r->vk.device;
  for (uint32_t k = 0; k < 2; k++) {
    (void)uploader_wait(u, k);
    if (u->fence[k]) vkDestroyFence(d, u->fence[k], u->r->vk.allocator);
    if (u->cmd[k]) vkFreeCommandBuffers(d, u->r->upload_pool, 1, &u->cmd[k]);
  }
  ssvk_buffer_destroy(&u->r->vk, &u->staging);
}

static VkResult uploader_begin(splat_renderer *r, VkDeviceSize total, uploader *u) {
  *u = (uploader){.r = r};
  VkDeviceSize size = total < UPLOAD_STAGING_BYTES ? total : UPLOAD_STAGING_BYTES;
  if (size > r->max_buffer) size = r->max_buffer;
  u->half = (size / 2) & ~(VkDeviceSize)15;
  VkResult res = ssvk_buffer_create(&r->vk, 2 * u->half, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, false,
                                    "splat staging", &u->staging);
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = r->upload_pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  for (uint32_t k = 0; k < 2 && res == VK_SUCCESS; k++) {
    res = vkAllocateCommandBuffers(r->vk.device, &ai, &u->cmd[k]);
    if (res != VK_SUCCESS) u->cmd[k] = VK_NULL_HANDLE;
    if (res == VK_SUCCESS) res = vkCreateFence(r->vk.device, &fci, r->vk.allocator, &u->fence[k]);
    if (res != VK_SUCCESS) u->fence[k] = VK_NULL_HANDLE;
  }
  if (res != VK_SUCCESS) uploader_end(u);
  return res;
}

/* Packs splats [first, first + count) of one chunk into the next staging half and copies them
 * to the chunk's buffers at `at` splats in. */
static VkResult upload_piece(uploader *u, const splat_scene *sc, const object_gpu *o, const object_chunk *c,
                             uint32_t at, uint32_t count) {
  uint32_t k = u->next;
  u->next ^= 1u;
  VkResult res = uploader_wait(u, k);
  if (res != VK_SUCCESS) return res;
  VkDeviceSize base = k * u->half, pos_size = 16ull * count, cov_size = 32ull * count;
  char *m = (char *)u->staging.mapped + base;
  pack_splats(sc, c->first + at, count, o->sh_words, (float *)m, (float *)(m + pos_size),
              (uint16_t *)(m + pos_size + cov_size));
  VkCommandBuffer cmd = u->cmd[k];
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  res = vkBeginCommandBuffer(cmd, &bi);
  if (res == VK_SUCCESS) {
    VkBufferCopy c0 = {base, 16ull * at, pos_size}, c1 = {base + pos_size, 32ull * at, cov_size},
                 c2 = {base + pos_size + cov_size, 4ull * o->sh_words * at, 4ull * o->sh_words * count};
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->pos.buffer, 1, &c0);
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->cov.buffer, 1, &c1);
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->sh.buffer, 1, &c2);
    res = vkEndCommandBuffer(cmd);
  }
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  if (res == VK_SUCCESS) res = vkQueueSubmit(u->r->queue, 1, &si, u->fence[k]);
  if (res == VK_SUCCESS)
    u->pending[k] = true;
  else
    rlog(u->r, "uploading splats: recording or submitting a copy failed (%s)", ssvk_result_name(res));
  return res;
}

/* Every chunk of the object through the staging ring; returns once the last copy is done. */
static VkResult upload(splat_renderer *r, object_gpu *o, const splat_scene *sc) {
  VkDeviceSize per_splat = 48ull + 4ull * o->sh_words;
  uploader u;
  VkResult res = uploader_begin(r, per_splat * o->count, &u);
  if (res != VK_SUCCESS) return res;
  uint32_t piece = (uint32_t)(u.half / per_splat);
  for (uint32_t c = 0; c < o->chunks && res == VK_SUCCESS; c++)
    for (uint32_t at = 0; at < o->chunk[c].count && res == VK_SUCCESS; at += piece) {
      uint32_t n = o->chunk[c].count - at < piece ? o->chunk[c].count - at : piece;
      res = upload_piece(&u, sc, o, &o->chunk[c], at, n);
    }
  for (uint32_t k = 0; k < 2 && res == VK_SUCCESS; k++) res = uploader_wait(&u, k);
  uploader_end(&u);
  return res;
}

/* The largest of the stages' memory requirements for n splats. */
static VkResult stage_requirements(const splat_renderer *r, uint32_t n, splatsort_depth_memory_requirements *out) {
  *out = (splatsort_depth_memory_requirements){.alignment = 4};
  for (uint32_t i = 0; i < r->sorter_count; i++) {
    splatsort_depth_memory_requirements m;
    if (n > splatsort_max_count(r->sorters[i])) {
      rlog(r, "%u splats is above this device's sort maximum %u", n, splatsort_max_count(r->sorters[i]));
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    VkResult res = splatsort_depth_get_memory_requirements(r->stages[i], n, &m);
    if (res != VK_SUCCESS) return res;
    if (m.scratch_size > out->scratch_size) out->scratch_size = m.scratch_size;
    if (m.indices_size > out->indices_size) out->indices_size = m.indices_size;
    out->scratch_usage |= m.scratch_usage;
    out->indices_usage |= m.indices_usage;
  }
  return VK_SUCCESS;
}

static double mib(VkDeviceSize bytes) { return (double)bytes / (1024.0 * 1024.0); }

/* Device memory held by the renderer's objects and frame buffers. */
static VkDeviceSize bytes_in_use(const splat_renderer *r) {
  VkDeviceSize n = r->scene.centres.size + r->scene.projected.size + r->scene.scratch.size + r->scene.indices.size;
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++)
    for (uint32_t c = 0; r->objects[i].chunk && c < r->objects[i].chunks; c++)
      n += r->objects[i].chunk[c].pos.size + r->objects[i].chunk[c].cov.size + r->objects[i].chunk[c].sh.size;
  const craster *cr = &r->craster;
  n += cr->offsets.size + cr->blocks.size + cr->state.size + cr->ranges.size + cr->image.size;
  for (int i = 0; i < 5; i++) n += cr->pairs[i].size;
  return n;
}

bool splat_memory_allows(splat_renderer *r, VkDeviceSize bytes, const char *what) {
  VkDeviceSize used = bytes_in_use(r);
  if (used + bytes <= r->memory_limit) return true;
  rlog(r, "the %s needs %.2f MiB more device memory; with %.2f MiB in use %s %.2f MiB", what, mib(bytes), mib(used),
       r->memory_limit_is_budget ? "the renderer's memory budget is" : "the device has", mib(r->memory_limit));
  return false;
}

VkResult splat_create_buffers(splat_renderer *r, const char *what, ssvk_buffer *const *b, const VkDeviceSize *size,
                              const VkBufferUsageFlags *usage, const char *const *name, size_t n) {
  VkResult res = VK_SUCCESS;
  for (size_t i = 0; i < n && res == VK_SUCCESS; i++) {
    if (size[i] > r->max_buffer) {
      rlog(r, "the %s (%.2f MiB) is larger than one buffer may be on this device (%.2f MiB: maxStorageBufferRange, "
              "maxMemoryAllocationSize, maxBufferSize)", name[i], mib(size[i]), mib(r->max_buffer));
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    res = ssvk_buffer_create(&r->vk, size[i], usage[i], false, false, name[i], b[i]);
    if (res != VK_SUCCESS)
      rlog(r, "creating the %s (%.2f MiB) for the %s failed (%s) with %.2f MiB already in use by this renderer",
           name[i], mib(size[i]), what, ssvk_result_name(res), mib(bytes_in_use(r)));
  }
  return res;
}

/* The most splats one frame can hold: a record each in one storage buffer. */
static uint32_t max_frame_splats(const splat_renderer *r) {
  VkDeviceSize n = r->max_buffer / (r->stereo ? 64u : 32u);
  return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
}

/* The frame's shared buffers for `n` splats over all objects. */
static VkResult create_scene_buffers(splat_renderer *r, scene_gpu *s, uint32_t n) {
  s->count = n;
  if (n > max_frame_splats(r)) return VK_ERROR_OUT_OF_DEVICE_MEMORY; /* check_memory said why */
  splatsort_depth_memory_requirements mq;
  VkResult res = stage_requirements(r, n, &mq);
  if (res != VK_SUCCESS) return res;
  const VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, dst = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkBufferUsageFlags x = r->extra_usage;
  ssvk_buffer *const bufs[] = {&s->centres, &s->projected, &s->scratch, &s->indices, &s->draw};
  const VkDeviceSize sizes[] = {16ull * n, (r->stereo ? 64ull : 32ull) * n, mq.scratch_size, mq.indices_size,
                                4 * SP_DRAW_WORDS};
  const VkBufferUsageFlags usages[] = {st | x, st | x, mq.scratch_usage | x, mq.indices_usage | x,
                                       st | dst | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT | x};
  const char *const names[] = {"splat centres", "splat projected", "splat depth-sort scratch", "splat sorted indices",
                               "splat draw"};
  return splat_create_buffers(r, "frame", bufs, sizes, usages, names, 5);
}

/* Splats per chunk for an object with sh_words: as many as keep each of its buffers within
 * max_buffer, a multiple of the projection's workgroup. */
static uint32_t chunk_splats(const splat_renderer *r, uint32_t sh_words) {
  VkDeviceSize widest = 4ull * sh_words > 32 ? 4ull * sh_words : 32;
  VkDeviceSize n = r->max_buffer / widest / SP_PROJECT_WORKGROUP * SP_PROJECT_WORKGROUP;
  if (r->chunk_splats && r->chunk_splats < n) n = r->chunk_splats;
  return n > UINT32_MAX ? UINT32_MAX / SP_PROJECT_WORKGROUP * SP_PROJECT_WORKGROUP : (uint32_t)(n ? n : 1);
}

/* One object's arrays in chunks, uploaded, and its projection pipeline. */
static VkResult create_object(splat_renderer *r, const splat_scene *sc, object_gpu *o) {
  *o = (object_gpu){.count = sc->count, .sh_degree = sc->sh_degree, .sh_words = (sc->sh_coeffs * 3 + 1) / 2,
                    .scene_flags = sc->flags};
  uint32_t per = chunk_splats(r, o->sh_words);
  o->chunks = (o->count + per - 1) / per;
  o->chunk = host_alloc(r->vk.allocator, sizeof *o->chunk * o->chunks);
  VkResult res = o->chunk ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
  const VkBufferUsageFlags sd = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  for (uint32_t c = 0; c < o->chunks && res == VK_SUCCESS; c++) {
    object_chunk *ch = &o->chunk[c];
    ch->first = c * per;
    ch->count = o->count - ch->first < per ? o->count - ch->first : per;
    ssvk_buffer *const bufs[] = {&ch->pos, &ch->cov, &ch->sh};
    const VkDeviceSize sizes[] = {16ull * ch->count, 32ull * ch->count, 4ull * o->sh_words * ch->count};
    const VkBufferUsageFlags usages[] = {sd, sd, sd};
    const char *const names[] = {"splat positions", "splat covariances", "splat SH"};
    res = splat_create_buffers(r, "scene", bufs, sizes, usages, names, 3);
  }
  if (res == VK_SUCCESS) res = upload(r, o, sc);
  if (res == VK_SUCCESS) {
    VkSpecializationMapEntry entry = {0, 0, 4};
    VkSpecializationInfo spec = {1, &entry, 4, &o->sh_words};
    ssvk_compute_desc cd = {.code = splat_spv_project_comp, .code_size = splat_spv_project_comp_size,
                            .layout = r->compute_layout, .spec = &spec, .name = "splat project"};
    res = ssvk_compute_pipeline(&r->vk, &cd, &o->project);
  }
  if (res != VK_SUCCESS) object_destroy(r, o);
  return res;
}

/* Refuses, with a message, a change that would hold more than the renderer's memory limit:
 * `adding` bytes of new object arrays, the frame buffers grown to `total` splats. */
static bool check_memory(splat_renderer *r, const splat_scene *sc, uint32_t total, bool replacing, const char *then) {
  uint32_t sh_words = (sc->sh_coeffs * 3 + 1) / 2;
  VkDeviceSize object = (48ull + 4ull * sh_words) * sc->count;
  VkDeviceSize frame = (16ull + (r->stereo ? 64u : 32u) + 24u) * total; /* centres, records, stage (about) */
  VkDeviceSize kept = 0;
  if (!replacing)
    for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) kept += (48ull + 4ull * r->objects[i].sh_words) * r->objects[i].count;
  VkDeviceSize need = object + frame + kept;
  if (total > max_frame_splats(r)) {
    rlog(r, "%u splats in one frame is above this device's maximum of %u (a %u-byte record per splat in one "
            "storage buffer of at most %.2f MiB); %s", total, max_frame_splats(r), r->stereo ? 64u : 32u,
         mib(r->max_buffer), then);
    return false;
  }
  if (need <= r->memory_limit) return true;
  rlog(r, "a scene of %u splats (SH degree %u) needs about %.2f MiB of device memory (%.2f MiB of splat arrays, "
          "%.2f MiB of frame buffers for %u splats%s); %s %.2f MiB; %s",
       sc->count, sc->sh_degree, mib(need), mib(object + kept), mib(frame), total,
       replacing ? "" : ", with the objects already loaded",
       r->memory_limit_is_budget ? "the renderer's memory budget is" : "the device has", mib(r->memory_limit), then);
  return false;
}

static uint32_t objects_total(const splat_renderer *r) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) n += r->objects[i].count;
  return n;
}

static bool check_scene(splat_renderer *r, const splat_scene *sc) {
  if (!sc || sc->count == 0) {
    rlog(r, "set_scene: the scene is %s; the previous scene stays", sc ? "empty" : "NULL");
    return false;
  }
  if (sc->sh_degree > 3 || sc->sh_coeffs != (sc->sh_degree + 1) * (sc->sh_degree + 1) || !sc->positions ||
      !sc->scales || !sc->rotations || !sc->opacities || !sc->sh) {
    rlog(r, "set_scene: inconsistent scene (SH degree %u with %u coefficients, or a missing array); "
            "the previous scene stays", sc->sh_degree, sc->sh_coeffs);
    return false;
  }
  return true;
}

VkResult splat_renderer_set_scene(splat_renderer *r, const splat_scene *sc) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!check_scene(r, sc)) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!check_memory(r, sc, sc->count, true, "the previous scene stays")) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  object_gpu o;
  scene_gpu s = {0};
  VkResult res = create_object(r, sc, &o);
  if (res == VK_SUCCESS) {
    res = create_scene_buffers(r, &s, sc->count);
    if (res != VK_SUCCESS) object_destroy(r, &o), scene_destroy(r, &s);
  }
  if (res != VK_SUCCESS) {
    rlog(r, "uploading a scene of %u splats failed (%s); the previous scene stays", sc->count, ssvk_result_name(res));
    return res;
  }
  /* the caller has made sure no frame still uses the old ones */
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) object_destroy(r, &r->objects[i]);
  scene_destroy(r, &r->scene);
  craster_release(r);
  r->objects[0] = o;
  r->scene = s;
  r->last_sorted = (splatsort_result){0};
  return VK_SUCCESS;
}

VkResult splat_renderer_add_object(splat_renderer *r, const splat_scene *sc, uint32_t *id) {
  if (!r || !id) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!check_scene(r, sc)) return VK_ERROR_VALIDATION_FAILED_EXT;
  uint32_t slot = 0;
  while (slot < SPLAT_MAX_OBJECTS && r->objects[slot].count) slot++;
  if (slot == SPLAT_MAX_OBJECTS) {
    rlog(r, "add_object: already %d objects", SPLAT_MAX_OBJECTS);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  object_gpu o;
  scene_gpu s = {0};
  uint64_t sum = (uint64_t)objects_total(r) + sc->count;
  if (sum > UINT32_MAX) {
    rlog(r, "add_object: %llu splats in all is above 2^32 - 1", (unsigned long long)sum);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  uint32_t total = (uint32_t)sum;
  if (!check_memory(r, sc, total, false, "the objects stay as they were")) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkResult res = create_object(r, sc, &o);
  if (res == VK_SUCCESS && total > r->scene.count) {
    res = create_scene_buffers(r, &s, total);
    if (res != VK_SUCCESS) object_destroy(r, &o), scene_destroy(r, &s);
  }
  if (res != VK_SUCCESS) {
    rlog(r, "add_object: uploading %u splats failed (%s); the objects stay as they were", sc->count,
         ssvk_result_name(res));
    return res;
  }
  if (s.count) {
    scene_destroy(r, &r->scene);
    craster_release(r);
    r->scene = s;
    r->last_sorted = (splatsort_result){0};
  }
  r->objects[slot] = o;
  *id = slot;
  return VK_SUCCESS;
}

VkResult splat_renderer_remove_object(splat_renderer *r, uint32_t id) {
  if (!r || id >= SPLAT_MAX_OBJECTS || !r->objects[id].count) {
    if (r) rlog(r, "remove_object: %u is not an object", id);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  object_destroy(r, &r->objects[id]);
  return VK_SUCCESS;
}

static VkResult ensure_target(splat_renderer *r, uint32_t w, uint32_t h) {
  if (r->target && r->width == w && r->height == h) return VK_SUCCESS;
  target_destroy(r);
  VkDevice d = r->vk.device;
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = SPLAT_TARGET_FORMAT, .extent = {w, h, 1}, .mipLevels = 1, .arrayLayers = 1,
                           .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                           .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_DST_BIT, /* the compute raster copies in */
                           .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  VkResult res = vkCreateImage(d, &ici, r->vk.allocator, &r->target);
  if (res != VK_SUCCESS) {
    r->target = VK_NULL_HANDLE;
    return res;
  }
  VkMemoryRequirements mr;
  vkGetImageMemoryRequirements(d, r->target, &mr);
  VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
      .memoryTypeIndex = ssvk_memory_type(&r->vk, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  res = vkAllocateMemory(d, &mai, r->vk.allocator, &r->target_memory);
  if (res != VK_SUCCESS) r->target_memory = VK_NULL_HANDLE;
  if (res == VK_SUCCESS) res = vkBindImageMemory(d, r->target, r->target_memory, 0);
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = r->target,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = SPLAT_TARGET_FORMAT,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  if (res == VK_SUCCESS) res = vkCreateImageView(d, &vci, r->vk.allocator, &r->target_view);
  if (res != VK_SUCCESS) {
    r->target_view = VK_NULL_HANDLE;
    rlog(r, "creating the %ux%u target failed (%d)", w, h, res);
    target_destroy(r);
    return res;
  }
  ssvk_name(&r->vk, VK_OBJECT_TYPE_IMAGE, (uint64_t)r->target, "splat target");
  r->width = w;
  r->height = h;
  return VK_SUCCESS;
}

static void dispatch_1d(splat_renderer *r, VkCommandBuffer cmd, uint32_t threads) {
  uint32_t groups = (threads + SP_PROJECT_WORKGROUP - 1) / SP_PROJECT_WORKGROUP;
  uint32_t max_x = r->props.limits.maxComputeWorkGroupCount[0];
  uint32_t x = groups < max_x ? groups : max_x;
  if (x) vkCmdDispatch(cmd, x, (groups + x - 1) / x, 1);
}

static void timestamp(splat_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t which) {
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, slot * TS_COUNT + which);
}

/* Checks a frame and picks its sorter's index; -1 (with a log message) when it cannot be
 * rendered. */
static int check_frame(splat_renderer *r, const splat_frame *f, uint32_t key_bits) {
  const splat_camera *cam = f->camera;
  if (f->raster != SPLAT_RASTER_GRAPHICS && f->raster != SPLAT_RASTER_COMPUTE) {
    rlog(r, "raster must be SPLAT_RASTER_GRAPHICS or SPLAT_RASTER_COMPUTE (got %d)", (int)f->raster);
    return -1;
  }
  if (key_bits != 16 && key_bits != 24 && key_bits != 32) {
    rlog(r, "key_bits must be 16, 24 or 32 (got %u)", key_bits);
    return -1;
  }
  if (f->antialias != SPLAT_ANTIALIAS_AUTO && f->antialias != SPLAT_ANTIALIAS_OFF && f->antialias != SPLAT_ANTIALIAS_ON) {
    rlog(r, "antialias must be SPLAT_ANTIALIAS_AUTO, _OFF or _ON (got %d)", (int)f->antialias);
    return -1;
  }
  if (cam->width == 0 || cam->height == 0 || cam->width > 16384 || cam->height > 16384) {
    rlog(r, "image size %ux%u is outside 1..16384", cam->width, cam->height);
    return -1;
  }
  if (!objects_total(r)) {
    rlog(r, "no scene loaded");
    return -1;
  }
  if (f->eyes[0] || f->eyes[1]) {
    const splat_camera *const *e = f->eyes;
    if (!r->stereo || !e[0] || !e[1] || e[0]->width != cam->width || e[1]->width != cam->width ||
        e[0]->height != cam->height || e[1]->height != cam->height) {
      rlog(r, "stereo frame: %s", !r->stereo ? "the renderer was made without SPLAT_RENDERER_CREATE_STEREO_BIT"
                                             : "both eyes are needed, of the camera's size");
      return -1;
    }
  }
  for (uint32_t i = 0; i < f->instance_count; i++) {
    uint32_t o = f->instances ? f->instances[i].object : SPLAT_MAX_OBJECTS;
    bool again = false;
    for (uint32_t j = 0; j < i && !again; j++) again = f->instances[j].object == o;
    if (o >= SPLAT_MAX_OBJECTS || !r->objects[o].count || again) {
      rlog(r, "instances[%u]: object %u is %s", i, o, again ? "drawn twice" : "not loaded");
      return -1;
    }
  }
  int k = frame_sorter(r, f->sort, key_bits);
  if (k < 0) rlog(r, "no %s sorter was given to the renderer", splatsort_algorithm_name(f->sort));
  return k;
}

/* camera-from-object (view * model) and the camera position in object space; identity
 * models are passed through untouched, so one object renders bit-identically to a scene. */
static void object_view(const splat_camera *cam, const float *model, float view[16], float campos[3]) {
  memcpy(campos, cam->position, 3 * sizeof(float));
  memcpy(view, cam->view, 16 * sizeof(float));
  if (!model) return;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      float v = 0;
      for (int k = 0; k < 4; k++) v += cam->view[k * 4 + r] * model[c * 4 + k];
      view[c * 4 + r] = v;
    }
  /* object = A^-1 (world - t) for the affine model A|t: A^-1 by its adjugate */
  const float *m = model;
  float a[9] = {m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]}; /* row-major 3x3 */
  float inv[9] = {a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                  a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                  a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
  float det = a[0] * inv[0] + a[1] * inv[3] + a[2] * inv[6];
  float d[3] = {cam->position[0] - m[12], cam->position[1] - m[13], cam->position[2] - m[14]};
  for (int r = 0; r < 3; r++) campos[r] = (inv[r * 3] * d[0] + inv[r * 3 + 1] * d[1] + inv[r * 3 + 2] * d[2]) / det;
}

static float uint_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* One projection of every drawn object from `cam` into the frame's slots: `mode` says whether
 * it writes the camera-space centres, the records (at record offset `rec`), or both. Returns
 * the number of slots used. */
static uint32_t project_objects(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f, const splat_camera *cam,
                                uint32_t mode, uint32_t rec) {
  scene_gpu *s = &r->scene;
  uint32_t base = 0, n = f->instance_count ? f->instance_count : SPLAT_MAX_OBJECTS;
  for (uint32_t k = 0; k < n; k++) {
    const object_gpu *o = &r->objects[f->instance_count ? f->instances[k].object : k];
    if (!o->count) continue;
    bool aa = f->antialias == SPLAT_ANTIALIAS_ON ||
              (f->antialias == SPLAT_ANTIALIAS_AUTO && (o->scene_flags & SPLAT_SCENE_ANTIALIASED));
    struct sp_project_push pc;
    float campos[3];
    object_view(cam, f->instance_count ? f->instances[k].model : NULL, pc.view.m, campos);
    pc.campos = (sp_vec4){{campos[0], campos[1], campos[2], uint_bits(rec)}};
    pc.intrinsics = (sp_vec4){{cam->fx, cam->fy, cam->cx, cam->cy}};
    pc.limits = (sp_vec4){{SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovx(cam),
                           SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovy(cam),
                           uint_bits(mode | (aa ? SP_PROJECT_ANTIALIAS : 0u)), 0}};
    pc.sh_degree = f->sh_degree < 0 || (uint32_t)f->sh_degree > o->sh_degree ? o->sh_degree : (uint32_t)f->sh_degree;
    pc.size = cam->width | cam->height << 16;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->project);
    for (uint32_t c = 0; c < o->chunks; c++) {
      const object_chunk *ch = &o->chunk[c];
      pc.count = ch->count;
      pc.base = base + ch->first;
      VkDescriptorBufferInfo bi[SP_BIND_COUNT_OF] = {
          [SP_BIND_POS] = {ch->pos.buffer, 0, VK_WHOLE_SIZE},
          [SP_BIND_COV] = {ch->cov.buffer, 0, VK_WHOLE_SIZE},
          [SP_BIND_SH] = {ch->sh.buffer, 0, VK_WHOLE_SIZE},
          [SP_BIND_PROJECTED] = {s->projected.buffer, 0, VK_WHOLE_SIZE},
          [SP_BIND_CENTRES] = {s->centres.buffer, 0, VK_WHOLE_SIZE},
      };
      ssvk_push_buffers(&r->vk, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->compute_layout, bi, SP_BIND_COUNT_OF);
      vkCmdPushConstants(cmd, r->compute_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
      dispatch_1d(r, cmd, ch->count);
    }
    base += o->count;
  }
  return base;
}

/* Projection of every splat of every drawn object (a culled one's record zeroed) into the
 * frame's slots, and the draw arguments reset for the stage to fill in the visible count.
 * Stereo: the centres from the frame's camera, the records from each eye. Returns the number
 * of slots used. */
static uint32_t record_projection(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  scene_gpu *s = &r->scene;
  uint32_t draw_init[SP_DRAW_WORDS] = {4, 0, 0, 0};
  vkCmdUpdateBuffer(cmd, s->draw.buffer, 0, sizeof draw_init, draw_init);
  uint32_t used;
  if (f->eyes[0]) {
    used = project_objects(r, cmd, f, f->camera, SP_PROJECT_CENTRES, 0);
    for (uint32_t e = 0; e < 2; e++) project_objects(r, cmd, f, f->eyes[e], SP_PROJECT_RECORDS, e * s->count);
  } else {
    used = project_objects(r, cmd, f, f->camera, SP_PROJECT_CENTRES | SP_PROJECT_RECORDS, 0);
  }
  /* the stage reads the centres and writes the draw's instanceCount after the reset above */
  ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  return used;
}

/* The culling matrix the stage gets, for camera-space centres: a centred projection from the
 * camera's focal lengths, so that |x|, |y| <= 1.3 w is exactly the reference's
 * |x/z| <= 1.3 tan(fov) test (whatever the principal point), and clip w = camera z. */
static void culling_proj(const splat_camera *cam, float vp[16]) {
  memset(vp, 0, 16 * sizeof(float));
  vp[0] = 2.0f * cam->fx / (float)cam->width;
  vp[5] = 2.0f * cam->fy / (float)cam->height;
  vp[11] = 1.0f;
}

/* The depth-sort stage over the positions: cull by centre (near, frustum margin, opacity),
 * keys, compaction, sort; the visible count lands in the draw's instanceCount. */
static VkResult record_sort(splat_renderer *r, VkCommandBuffer cmd, int k, const splat_frame *f, uint32_t key_bits,
                            uint32_t count, splatsort_result *sorted) {
  scene_gpu *s = &r->scene;
  splatsort_depth_info di = {
      .max_count = s->count, .count = count, .centers = {s->centres.buffer, 0, s->centres.size}, .center_stride = 16,
      .opacity_cull = 1, .frustum_margin = SPLAT_FRUSTUM_MARGIN, .near_w = SPLAT_NEAR_Z, .key_bits = key_bits,
      .key_mode = f->key_mode, /* camera space: the camera is at the origin */
      .scratch = {s->scratch.buffer, 0, s->scratch.size}, .indices = {s->indices.buffer, 0, s->indices.size},
      .draw_count = {s->draw.buffer, 4 * SP_DRAW_INSTANCES, 4}};
  culling_proj(f->camera, di.view_proj);
  VkResult res = splatsort_depth_cmd_sort(r->stages[k], cmd, &di, sorted);
  if (res != VK_SUCCESS) return res;
  ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                          VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  return VK_SUCCESS;
}

/* The sorted splats, back to front, with `pipeline`, inside a pass that is already begun. */
static void draw_splats(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f, VkPipeline pipeline) {
  bool stereo = f->eyes[0] != NULL;
  const splat_camera *cam = stereo ? f->eyes[f->eye & 1u] : f->camera;
  scene_gpu *s = &r->scene;
  VkViewport vp = {0, 0, (float)cam->width, (float)cam->height, 0, 1};
  VkRect2D sc = {{0, 0}, {cam->width, cam->height}};
  vkCmdSetViewport(cmd, 0, 1, &vp);
  vkCmdSetScissor(cmd, 0, 1, &sc);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  VkDescriptorBufferInfo rb[SP_BIND_COUNT_OF] = {
      [SP_BIND_CENTRES] = {s->centres.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_PROJECTED] = {s->projected.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_INDICES] = {r->last_sorted.values.buffer, r->last_sorted.values.offset, VK_WHOLE_SIZE},
  };
  ssvk_push_buffers(&r->vk, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->raster_layout, rb, SP_BIND_COUNT_OF);
  /* quad depth = z_ndc of the centre in [znear, zfar] -> [0, 1] (splat_camera_projection's) */
  float n = f->znear > 0 ? f->znear : 0.01f, fa = f->zfar > n ? f->zfar : 1000.0f;
  struct sp_raster_push rp = {
      .viewport = {{(float)cam->width, (float)cam->height, 1.0f / cam->width, 1.0f / cam->height}},
      .depth_proj = {{fa / (fa - n), -fa * n / (fa - n), uint_bits(stereo ? (f->eye & 1u) * s->count : 0), 0}}};
  vkCmdPushConstants(cmd, r->raster_layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof rp, &rp);
  vkCmdDrawIndirect(cmd, s->draw.buffer, 0, 1, 16);
  timestamp(r, cmd, f->slot, TS_RASTERED);
}

/* Checks the frame and records everything before the draw; *k: the sorter used. */
static VkResult prepare(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f, int *k) {
  if (!r || !cmd || !f || !f->camera || f->slot >= r->slots) return VK_ERROR_VALIDATION_FAILED_EXT;
  uint32_t key_bits = f->key_bits ? f->key_bits : 32;
  *k = check_frame(r, f, key_bits);
  if (*k < 0) return f->sort != SPLATSORT_ALGORITHM_AUTO && objects_total(r) && find_sorter(r, f->sort) < 0
                         ? VK_ERROR_FEATURE_NOT_PRESENT
                         : VK_ERROR_VALIDATION_FAILED_EXT;
  craster_frame_begin(r, f->slot);
  ssvk_label_begin(&r->vk, cmd, "splat prepare");
  /* Earlier frames on the queue must be done with what this one overwrites: their reads
   * (draw arguments, vertex fetch, sort, count copy) and their writes (write-after-write). */
  ssvk_memory_barrier(&r->vk, cmd,
                      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                          VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdResetQueryPool(cmd, r->queries, f->slot * TS_COUNT, TS_COUNT);
  timestamp(r, cmd, f->slot, TS_START);
  uint32_t count = record_projection(r, cmd, f);
  timestamp(r, cmd, f->slot, TS_PROJECTED);
  splatsort_result sorted;
  VkResult res = record_sort(r, cmd, *k, f, key_bits, count, &sorted);
  if (res == VK_SUCCESS) {
    timestamp(r, cmd, f->slot, TS_SORTED);
    /* visible count for the HUD / timings */
    VkBufferCopy cnt = {4 * SP_DRAW_INSTANCES, 16ull * f->slot, 4};
    vkCmdCopyBuffer(cmd, r->scene.draw.buffer, r->readback.buffer, 1, &cnt);
    ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    r->recorded[f->slot] = true;
    r->last_sorted = sorted;
    r->frame_count = count;
    r->slot_bits[f->slot] = key_bits;
    r->slot_sort[f->slot] = splatsort_get_algorithm(r->sorters[*k]);
    r->slot_raster[f->slot] = SPLAT_RASTER_GRAPHICS;
  }
  ssvk_label_end(&r->vk, cmd);
  return res;
}

VkResult splat_renderer_cmd_prepare(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  int k;
  return prepare(r, cmd, f, &k);
}

VkResult splat_renderer_cmd_draw(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  if (!r || !cmd || !f || !f->camera || f->slot >= r->slots) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!r->host_raster || !r->last_sorted.values.buffer) {
    rlog(r, "cmd_draw: %s", !r->host_raster ? "no host_color_format or host_render_pass was given at create"
                                           : "no frame was prepared since the scene was set");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  ssvk_label_begin(&r->vk, cmd, "splat draw");
  draw_splats(r, cmd, f, r->host_raster);
  ssvk_label_end(&r->vk, cmd);
  return VK_SUCCESS;
}

/* The graphics raster into the renderer's target: cleared to the background, the quads. */
static void raster_graphics(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  ssvk_label_begin(&r->vk, cmd, "splat raster");
  ssvk_image_barrier(&r->vk, cmd, r->target, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
  const float clear[4] = {f->background[0], f->background[1], f->background[2], 1.0f};
  ssvk_begin_color_pass(&r->vk, cmd, r->target_view, (VkExtent2D){f->camera->width, f->camera->height}, clear);
  draw_splats(r, cmd, f, r->raster);
  vkCmdEndRendering(cmd);
  ssvk_image_barrier(&r->vk, cmd, r->target, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  ssvk_label_end(&r->vk, cmd);
}

VkResult splat_renderer_cmd_render(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  if (!r || !f || !f->camera) return VK_ERROR_VALIDATION_FAILED_EXT;
  VkResult res = f->camera->width && f->camera->height && f->camera->width <= 16384 && f->camera->height <= 16384
                     ? ensure_target(r, f->camera->width, f->camera->height)
                     : VK_SUCCESS; /* prepare names a bad size */
  int k;
  if (res == VK_SUCCESS) res = prepare(r, cmd, f, &k);
  if (res != VK_SUCCESS) return res;
  if (f->raster == SPLAT_RASTER_COMPUTE) {
    res = craster_record(r, cmd, f, k);
    if (res != VK_SUCCESS) {
      r->recorded[f->slot] = false; /* nothing after the sort was recorded: no timings */
      return res;
    }
    r->slot_raster[f->slot] = SPLAT_RASTER_COMPUTE;
    r->slot_capacity[f->slot] = r->craster.capacity;
    return VK_SUCCESS;
  }
  raster_graphics(r, cmd, f);
  return VK_SUCCESS;
}

void splat_renderer_target(const splat_renderer *r, VkImage *image, uint32_t *width, uint32_t *height) {
  if (image) *image = r ? r->target : VK_NULL_HANDLE;
  if (width) *width = r ? r->width : 0;
  if (height) *height = r ? r->height : 0;
}

VkResult splat_renderer_timings(splat_renderer *r, uint32_t slot, splat_timings *out) {
  if (!r || !out || slot >= r->slots) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!r->recorded[slot]) return VK_NOT_READY;
  uint64_t ts[TS_COUNT];
  VkQueryPool q = r->queries;
  uint32_t first = slot * TS_COUNT;
  bool compute = r->slot_raster[slot] == SPLAT_RASTER_COMPUTE;
  /* the graphics raster writes no TS_PAIRS / TS_TILESORTED */
  VkResult res = compute ? vkGetQueryPoolResults(r->vk.device, q, first, TS_COUNT, sizeof ts, ts, 8, VK_QUERY_RESULT_64_BIT)
                         : vkGetQueryPoolResults(r->vk.device, q, first, TS_SORTED + 1, sizeof ts, ts, 8,
                                                 VK_QUERY_RESULT_64_BIT);
  if (res == VK_SUCCESS && !compute)
    res = vkGetQueryPoolResults(r->vk.device, q, first + TS_RASTERED, 1, 8, &ts[TS_RASTERED], 8, VK_QUERY_RESULT_64_BIT);
  if (res != VK_SUCCESS) return res;
  double period = r->props.limits.timestampPeriod * 1e-6;
  *out = (splat_timings){0};
  out->projection_ms = (double)(ts[TS_PROJECTED] - ts[TS_START]) * period;
  out->sort_ms = (double)(ts[TS_SORTED] - ts[TS_PROJECTED]) * period;
  out->raster_ms = (double)(ts[TS_RASTERED] - ts[TS_SORTED]) * period;
  out->total_ms = (double)(ts[TS_RASTERED] - ts[TS_START]) * period;
  memcpy(&out->visible, (const char *)r->readback.mapped + 16 * slot, 4);
  out->key_bits = r->slot_bits[slot];
  out->sort = r->slot_sort[slot];
  out->raster = r->slot_raster[slot];
  if (compute) {
    out->pairs_ms = (double)(ts[TS_PAIRS] - ts[TS_SORTED]) * period;
    out->tile_sort_ms = (double)(ts[TS_TILESORTED] - ts[TS_PAIRS]) * period;
    out->blend_ms = (double)(ts[TS_RASTERED] - ts[TS_TILESORTED]) * period;
    memcpy(&out->pairs, (const char *)r->readback.mapped + 16 * slot + 4, 4);
    out->pair_capacity = r->slot_capacity[slot];
  }
  return VK_SUCCESS;
}
