/* renderer.c: the splat renderer's life: create (sorters, pipelines, limits), destroy, and
 * the objects (set_scene, add_object, remove_object). See splat_renderer.h for the contract. */
#include "render_internal.h"
#include "ssvk_graphics.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


void splat_renderer_destroy(splat_renderer *r) {
  if (!r) return;
  VkDevice d = r->vk.device;
  const VkAllocationCallbacks *a = r->vk.allocator;
  render_frame_buffers_destroy(r, &r->scene);
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) render_object_destroy(r, &r->objects[i]);
  craster_destroy(r);
  render_target_destroy(r);
  ssvk_buffer_destroy(&r->vk, &r->readback);
  if (r->queries) vkDestroyQueryPool(d, r->queries, a);
  if (r->upload_pool) vkDestroyCommandPool(d, r->upload_pool, a);
  if (r->raster) vkDestroyPipeline(d, r->raster, a);
  if (r->host_raster) vkDestroyPipeline(d, r->host_raster, a);
  if (r->key_scan) vkDestroyPipeline(d, r->key_scan, a);
  if (r->key_compact) vkDestroyPipeline(d, r->key_compact, a);
  if (r->raster_layout) vkDestroyPipelineLayout(d, r->raster_layout, a);
  if (r->compute_layout) vkDestroyPipelineLayout(d, r->compute_layout, a);
  if (r->raster_set_layout) vkDestroyDescriptorSetLayout(d, r->raster_set_layout, a);
  if (r->set_layout) vkDestroyDescriptorSetLayout(d, r->set_layout, a);
  render_host_free(a, r);
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
  VkResult res = ssvk_push_layout(&r->vk, SP_BINDINGS, VK_SHADER_STAGE_COMPUTE_BIT,
                                  sizeof(struct sp_project_push), VK_SHADER_STAGE_COMPUTE_BIT, "splat compute",
                                  &r->set_layout, &r->compute_layout);
  if (res == VK_SUCCESS)
    res = ssvk_push_layout(&r->vk, SP_BINDINGS, VK_SHADER_STAGE_VERTEX_BIT, sizeof(struct sp_raster_push),
                           VK_SHADER_STAGE_VERTEX_BIT, "splat raster", &r->raster_set_layout, &r->raster_layout);
  if (res != VK_SUCCESS) return res;
  /* premultiplied "over", back to front */
  ssvk_graphics_desc gd = {.vert = render_spv_splat_vert, .vert_size = render_spv_splat_vert_size,
                           .frag = render_spv_splat_frag, .frag_size = render_spv_splat_frag_size,
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
    gd.frag = render_spv_splat_depth_frag;
    gd.frag_size = render_spv_splat_depth_frag_size;
  }
  if (info->flags & SPLAT_RENDERER_CREATE_MULTIVIEW_BIT) { /* both eyes, one draw */
    gd.vert = render_spv_splat_multiview_vert;
    gd.vert_size = render_spv_splat_multiview_vert_size;
    gd.view_mask = 0x3u;
  }
  gd.name = "splat raster (host pass)";
  return ssvk_graphics_pipeline(&r->vk, &gd, &r->host_raster);
}


/* The depth sort's passes after the projection (depth_sort.c), on the projection's layout. */
static VkResult create_sort_pipelines(splat_renderer *r) {
  ssvk_compute_desc scan = {.code = render_spv_fuse_scan_comp, .code_size = render_spv_fuse_scan_comp_size,
                            .layout = r->compute_layout, .name = "splat key scan"};
  ssvk_compute_desc compact = {.code = render_spv_fuse_compact_comp, .code_size = render_spv_fuse_compact_comp_size,
                               .layout = r->compute_layout, .name = "splat key compaction"};
  VkResult res = ssvk_compute_pipeline(&r->vk, &scan, &r->key_scan);
  if (res == VK_SUCCESS) res = ssvk_compute_pipeline(&r->vk, &compact, &r->key_compact);
  return res;
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
                                SPLAT_RENDERER_CREATE_STEREO_BIT | SPLAT_RENDERER_CREATE_MULTIVIEW_BIT)) {
    ssvk_log_to(info->log, info->log_user,
                "splat_renderer_create: device, physical_device and queue are required, frame_slots <= %d, "
                "known flags only",
                SPLAT_MAX_FRAME_SLOTS);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if ((info->flags & SPLAT_RENDERER_CREATE_MULTIVIEW_BIT) &&
      (!(info->flags & SPLAT_RENDERER_CREATE_STEREO_BIT) || info->host_color_format == VK_FORMAT_UNDEFINED ||
       info->host_render_pass)) {
    ssvk_log_to(info->log, info->log_user,
                "splat_renderer_create: SPLAT_RENDERER_CREATE_MULTIVIEW_BIT needs SPLAT_RENDERER_CREATE_STEREO_BIT and "
                "host_color_format (dynamic rendering, no host_render_pass)");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  uint32_t shp = info->sh_precision;
  if (shp != SPLAT_SH_PRECISION_DEFAULT && shp != 8 && shp != 16 && shp != 32) {
    ssvk_log_to(info->log, info->log_user, "splat_renderer_create: sh_precision %u: expected 0 (default), 8, 16 or 32",
                shp);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (info->upload_threads > SPLAT_MAX_UPLOAD_THREADS) {
    ssvk_log_to(info->log, info->log_user, "splat_renderer_create: upload_threads %u: at most %d (0: default)",
                info->upload_threads, SPLAT_MAX_UPLOAD_THREADS);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  splat_renderer *r = render_host_alloc(info->allocator, sizeof *r);
  if (!r) return VK_ERROR_OUT_OF_HOST_MEMORY;
  ssvk_device_init(&r->vk, NULL, info->physical_device, info->device, info->allocator, info->pipeline_cache, info->log,
                   info->log_user, "splat renderer", (info->flags & SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT) != 0);
  r->queue = info->queue;
  r->queue_family = info->queue_family;
  r->slots = info->frame_slots ? info->frame_slots : 1;
  r->stereo = (info->flags & SPLAT_RENDERER_CREATE_STEREO_BIT) != 0;
  r->reverse_z = (info->flags & SPLAT_RENDERER_CREATE_REVERSE_Z_BIT) != 0;
  r->multiview = (info->flags & SPLAT_RENDERER_CREATE_MULTIVIEW_BIT) != 0;
  r->sh_precision = shp ? shp : SPLAT_SH_PRECISION_16;
  r->upload_threads = info->upload_threads ? info->upload_threads : render_default_upload_threads();
  vkGetPhysicalDeviceProperties(info->physical_device, &r->props);
  device_limits(r, info->physical_device, info->memory_budget);
  if (!take_sorters(r, info)) {
    splat_renderer_destroy(r);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  r->craster.initial_capacity = info->initial_pair_capacity;
  VkResult res = create_pipelines(r, info);
  if (res == VK_SUCCESS) res = craster_create(r);
  if (res == VK_SUCCESS) res = create_sort_pipelines(r);
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


uint32_t splat_renderer_scene_count(const splat_renderer *r) { return r ? render_objects_total(r) : 0; }


/* The object's projection pipeline, specialised for its SH storage. */
static VkResult create_project_pipeline(splat_renderer *r, object_gpu *o) {
  const uint32_t data[2] = {o->sh_words, o->sh_format};
  VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
  VkSpecializationInfo spec = {2, entries, sizeof data, data};
  ssvk_compute_desc cd = {.code = render_spv_project_comp, .code_size = render_spv_project_comp_size,
                          .layout = r->compute_layout, .spec = &spec, .name = "splat project"};
  return ssvk_compute_pipeline(&r->vk, &cd, &o->project);
}


/* One object's arrays in chunks, uploaded, and its projection pipeline. */
static VkResult create_object(splat_renderer *r, const splat_scene *sc, object_gpu *o) {
  *o = (object_gpu){.count = sc->count, .sh_degree = sc->sh_degree, .scene_flags = sc->flags};
  render_sh_layout(r->sh_precision, sc->sh_coeffs, &o->sh_format, &o->sh_words);
  if (o->sh_format == SP_SH_FORMAT_U8) splat_sh8_range(sc, o->sh8_scale, o->sh8_offset);
  uint32_t per = render_chunk_splats(r, o->sh_format, o->sh_words);
  o->chunks = (o->count + per - 1) / per;
  o->chunk = render_host_alloc(r->vk.allocator, sizeof *o->chunk * o->chunks);
  VkResult res = o->chunk ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
  const VkBufferUsageFlags sd = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | r->extra_usage;
  for (uint32_t c = 0; c < o->chunks && res == VK_SUCCESS; c++) {
    object_chunk *ch = &o->chunk[c];
    ch->first = c * per;
    ch->count = o->count - ch->first < per ? o->count - ch->first : per;
    ssvk_buffer *const bufs[] = {&ch->pos, &ch->cov, &ch->sh};
    const VkDeviceSize sizes[] = {16ull * ch->count, 16ull * ch->count,
                                  4ull * (SP_SH_HEADER_WORDS(o->sh_format) + (VkDeviceSize)o->sh_words * ch->count)};
    const VkBufferUsageFlags usages[] = {sd, sd, sd};
    const char *const names[] = {"splat positions", "splat shapes", "splat SH"};
    res = render_create_buffers(r, "scene", bufs, sizes, usages, names, 3);
  }
  if (res == VK_SUCCESS) res = render_upload(r, o, sc);
  if (res == VK_SUCCESS) res = create_project_pipeline(r, o);
  if (res != VK_SUCCESS) render_object_destroy(r, o);
  return res;
}


/* Refuses, with a message, a change that would hold more than the renderer's memory limit:
 * `adding` bytes of new object arrays, the frame buffers grown to `total` splats. */
static bool check_memory(splat_renderer *r, const splat_scene *sc, uint32_t total, bool replacing, const char *then) {
  uint32_t sh_format, sh_words;
  render_sh_layout(r->sh_precision, sc->sh_coeffs, &sh_format, &sh_words);
  VkDeviceSize object = render_object_bytes(sh_format, sh_words, sc->count, 1);
  VkDeviceSize frame = (4ull + (r->stereo ? 64u : 32u) + 20u) * total; /* depths, records, sort (about) */
  VkDeviceSize kept = 0;
  if (!replacing)
    for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) {
      const object_gpu *o = &r->objects[i];
      kept += render_object_bytes(o->sh_format, o->sh_words, o->count, o->chunks);
    }
  VkDeviceSize need = object + frame + kept;
  if (total > render_max_frame_splats(r)) {
    rlog(r, "%u splats in one frame is above this device's maximum of %u (a %u-byte record per splat in one "
            "storage buffer of at most %.2f MiB); %s", total, render_max_frame_splats(r), r->stereo ? 64u : 32u,
         render_mib(r->max_buffer), then);
    return false;
  }
  if (need <= r->memory_limit) return true;
  rlog(r, "a scene of %u splats (SH degree %u) needs about %.2f MiB of device memory (%.2f MiB of splat arrays, "
          "%.2f MiB of frame buffers for %u splats%s); %s %.2f MiB; %s",
       sc->count, sc->sh_degree, render_mib(need), render_mib(object + kept), render_mib(frame), total,
       replacing ? "" : ", with the objects already loaded",
       r->memory_limit_is_budget ? "the renderer's memory budget is" : "the device has", render_mib(r->memory_limit), then);
  return false;
}


/* The scene's shape: a count, a degree its coefficient count matches, every array. `call`
 * and `then` start and end the message. */
static bool check_scene(splat_renderer *r, const splat_scene *sc, const char *call, const char *then) {
  if (!sc || sc->count == 0) {
    rlog(r, "%s: the scene is %s; %s", call, sc ? "empty (count 0)" : "NULL", then);
    return false;
  }
  if (sc->sh_degree > SPLAT_SCENE_MAX_SH_DEGREE || sc->sh_coeffs != (sc->sh_degree + 1) * (sc->sh_degree + 1)) {
    rlog(r, "%s: sh_degree %u with sh_coeffs %u: the degree must be 0..%d and sh_coeffs (degree + 1)^2; %s", call,
         sc->sh_degree, sc->sh_coeffs, SPLAT_SCENE_MAX_SH_DEGREE, then);
    return false;
  }
  const char *missing = !sc->positions ? "positions" : !sc->scales ? "scales" : !sc->rotations ? "rotations"
                        : !sc->opacities ? "opacities" : !sc->sh ? "sh" : NULL;
  if (missing) {
    rlog(r, "%s: the scene's %s array is NULL; %s", call, missing, then);
    return false;
  }
  return true;
}


/* Splat i's values as splat_scene.h's "A scene from the host's own arrays" asks: finite
 * positions and SH, scales >= 0, unit rotations, opacities in [0, 1] (report_values names what
 * is wrong; the two agree). */
static bool splat_ok(const splat_scene *sc, uint32_t i) {
  const float *p = sc->positions + 3ull * i, *s = sc->scales + 3ull * i, *q = sc->rotations + 4ull * i;
  bool ok = true;
  for (int k = 0; k < 3; k++) ok &= isfinite(p[k]) && s[k] >= 0.0f && !isinf(s[k]);
  float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], o = sc->opacities[i];
  ok &= fabsf(len2 - 1.0f) <= 2e-3f && o >= 0.0f && o <= 1.0f;
  const float *sh = sc->sh + (size_t)i * sc->sh_coeffs * 3;
  for (uint32_t h = 0; h < sc->sh_coeffs * 3; h++) ok &= isfinite(sh[h]);
  return ok;
}

typedef struct value_scan {
  const splat_scene *sc;
  _Atomic uint32_t first_bad; /* the lowest bad splat found so far, or the count */
} value_scan;

static void scan_values(void *ctx, uint32_t lo, uint32_t hi) {
  value_scan *v = ctx;
  for (uint32_t i = lo; i < hi; i++) {
    if ((i & 4095) == 0 && atomic_load_explicit(&v->first_bad, memory_order_relaxed) < lo) return;
    if (splat_ok(v->sc, i)) continue;
    uint32_t was = atomic_load(&v->first_bad);
    while (i < was && !atomic_compare_exchange_weak(&v->first_bad, &was, i)) {}
    return;
  }
}

/* Splats [from, count) one by one until the first bad value, which is named. */
static bool report_values(splat_renderer *r, const splat_scene *sc, uint32_t from, const char *call,
                          const char *then) {
  const uint32_t halves = sc->sh_coeffs * 3;
  for (uint32_t i = from; i < sc->count; i++) {
    const float *p = sc->positions + 3ull * i, *s = sc->scales + 3ull * i, *q = sc->rotations + 4ull * i;
    const float *sh = sc->sh + (size_t)i * halves;
    float o = sc->opacities[i];
    for (int k = 0; k < 3; k++) {
      if (!isfinite(p[k])) {
        rlog(r, "%s: splat %u: position %c is %g (positions must be finite); %s", call, i, "xyz"[k], p[k], then);
        return false;
      }
      if (!(s[k] >= 0.0f) || isinf(s[k])) {
        rlog(r, "%s: splat %u: scale %d is %g (scales are activated, exp(log scale): finite and >= 0); %s", call, i,
             k, s[k], then);
        return false;
      }
    }
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(fabsf(len2 - 1.0f) <= 2e-3f)) {
      rlog(r, "%s: splat %u: rotation (%g, %g, %g, %g) has length %g (rotations are unit quaternions w, x, y, z); "
              "%s", call, i, q[0], q[1], q[2], q[3], sqrtf(len2), then);
      return false;
    }
    if (!(o >= 0.0f && o <= 1.0f)) {
      rlog(r, "%s: splat %u: opacity %g is outside [0, 1] (opacities are activated, sigmoid(logit)); %s", call, i,
           o, then);
      return false;
    }
    for (uint32_t h = 0; h < halves; h++)
      if (!isfinite(sh[h])) {
        rlog(r, "%s: splat %u: SH coefficient %u, channel %u is %g (must be finite); %s", call, i, h / 3, h % 3,
             sh[h], then);
        return false;
      }
  }
  return true;
}

/* Every value checked on the upload threads; the first bad one (the lowest splat) is named. */
static bool check_values(splat_renderer *r, const splat_scene *sc, const char *call, const char *then) {
  value_scan v = {sc, sc->count};
  render_parallel(r->upload_threads, sc->count, scan_values, &v);
  uint32_t bad = atomic_load(&v.first_bad);
  return bad == sc->count || report_values(r, sc, bad, call, then);
}


VkResult splat_renderer_set_scene(splat_renderer *r, const splat_scene *sc) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  const char *then = "the previous scene stays";
  if (!check_scene(r, sc, "set_scene", then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!check_memory(r, sc, sc->count, true, then)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (!check_values(r, sc, "set_scene", then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  object_gpu o;
  scene_gpu s = {0};
  VkResult res = create_object(r, sc, &o);
  if (res == VK_SUCCESS) {
    res = render_create_frame_buffers(r, &s, sc->count);
    if (res != VK_SUCCESS) render_object_destroy(r, &o), render_frame_buffers_destroy(r, &s);
  }
  if (res != VK_SUCCESS) {
    rlog(r, "uploading a scene of %u splats failed (%s); the previous scene stays", sc->count, ssvk_result_name(res));
    return res;
  }
  /* the caller has made sure no frame still uses the old ones */
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) render_object_destroy(r, &r->objects[i]);
  render_frame_buffers_destroy(r, &r->scene);
  craster_release(r);
  r->objects[0] = o;
  r->scene = s;
  r->last_sorted = (splatsort_result){0};
  return VK_SUCCESS;
}


VkResult splat_renderer_add_object(splat_renderer *r, const splat_scene *sc, uint32_t *id) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  const char *then = "the objects stay as they were";
  if (!id) {
    rlog(r, "add_object: id is NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!check_scene(r, sc, "add_object", then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  uint32_t slot = 0;
  while (slot < SPLAT_MAX_OBJECTS && r->objects[slot].count) slot++;
  if (slot == SPLAT_MAX_OBJECTS) {
    rlog(r, "add_object: already %d objects", SPLAT_MAX_OBJECTS);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  object_gpu o;
  scene_gpu s = {0};
  uint64_t sum = (uint64_t)render_objects_total(r) + sc->count;
  if (sum > UINT32_MAX) {
    rlog(r, "add_object: %llu splats in all is above 2^32 - 1", (unsigned long long)sum);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  uint32_t total = (uint32_t)sum;
  if (!check_memory(r, sc, total, false, then)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (!check_values(r, sc, "add_object", then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  VkResult res = create_object(r, sc, &o);
  if (res == VK_SUCCESS && total > r->scene.count) {
    res = render_create_frame_buffers(r, &s, total);
    if (res != VK_SUCCESS) render_object_destroy(r, &o), render_frame_buffers_destroy(r, &s);
  }
  if (res != VK_SUCCESS) {
    rlog(r, "add_object: uploading %u splats failed (%s); the objects stay as they were", sc->count,
         ssvk_result_name(res));
    return res;
  }
  if (s.count) {
    render_frame_buffers_destroy(r, &r->scene);
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
  render_object_destroy(r, &r->objects[id]);
  return VK_SUCCESS;
}

