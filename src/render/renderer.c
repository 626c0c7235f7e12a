/* renderer.c: the splat renderer's life: create (sorters, pipelines, limits) and destroy (the
 * objects are objects.c's). See splat_renderer.h for the contract. */
#include "render_internal.h"
#include "ssvk_graphics.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


void splat_renderer_destroy(splat_renderer *r) {
  if (!r) return;
  VkDevice d = r->vk.device;
  const VkAllocationCallbacks *a = r->vk.allocator;
  (void)render_stream_ring_end(r); /* appends' copies still in flight */
  render_frame_buffers_destroy(r, &r->scene);
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) render_object_destroy(r, &r->objects[i]);
  lod_cut_pipeline_destroy(&r->vk, &r->lod_pipe);
  craster_destroy(&r->craster);
  render_target_destroy(r);
  ssvk_buffer_destroy(&r->vk, &r->readback);
  if (r->queries) r->vk.fn.vkDestroyQueryPool(d, r->queries, a);
  if (r->upload_pool) r->vk.fn.vkDestroyCommandPool(d, r->upload_pool, a);
  if (r->raster) r->vk.fn.vkDestroyPipeline(d, r->raster, a);
  if (r->host_raster) r->vk.fn.vkDestroyPipeline(d, r->host_raster, a);
  if (r->key_scan) r->vk.fn.vkDestroyPipeline(d, r->key_scan, a);
  if (r->key_compact) r->vk.fn.vkDestroyPipeline(d, r->key_compact, a);
  if (r->raster_layout) r->vk.fn.vkDestroyPipelineLayout(d, r->raster_layout, a);
  if (r->compute_layout) r->vk.fn.vkDestroyPipelineLayout(d, r->compute_layout, a);
  if (r->raster_set_layout) r->vk.fn.vkDestroyDescriptorSetLayout(d, r->raster_set_layout, a);
  if (r->set_layout) r->vk.fn.vkDestroyDescriptorSetLayout(d, r->set_layout, a);
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
  r->vk.fn.vkGetPhysicalDeviceProperties2(pd, &p2);
  r->max_buffer = r->props.limits.maxStorageBufferRange;
  if (m3.maxMemoryAllocationSize && m3.maxMemoryAllocationSize < r->max_buffer) r->max_buffer = m3.maxMemoryAllocationSize;
  if (m4.maxBufferSize && m4.maxBufferSize < r->max_buffer) r->max_buffer = m4.maxBufferSize;
  r->max_buffer &= ~(VkDeviceSize)255;
  VkPhysicalDeviceMemoryProperties mp;
  r->vk.fn.vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  r->memory_limit = 0;
  for (uint32_t i = 0; i < mp.memoryHeapCount; i++)
    if ((mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && mp.memoryHeaps[i].size > r->memory_limit)
      r->memory_limit = mp.memoryHeaps[i].size;
  r->memory_limit_is_budget = budget != 0;
  if (budget) r->memory_limit = budget;
}


/* The host's Vulkan functions (or the linked loader's): NULL, or the name of one it lacks. */
static const char *load_functions(ssvk_fns *fns, const splat_renderer_create_info *info) {
  const splatsort_vulkan_functions *host = info->vulkan_functions;
  if (host && !host->vkGetInstanceProcAddr) return "vkGetInstanceProcAddr (or the instance)";
  const char *missing = ssvk_load(fns, host ? host->vkGetInstanceProcAddr : NULL, host ? host->vkGetDeviceProcAddr : NULL,
                                  info->instance, info->device);
  return missing ? missing : ssvk_missing_graphics(fns);
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
  ssvk_fns fns;
  const char *missing = load_functions(&fns, info);
  if (missing) {
    ssvk_log_to(info->log, info->log_user, "splat_renderer_create: vulkan_functions: cannot find %s", missing);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  splat_renderer *r = render_host_alloc(info->allocator, sizeof *r);
  if (!r) {
    ssvk_log_to(info->log, info->log_user, "splat_renderer_create: out of host memory for the renderer");
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  ssvk_device_init(&r->vk, &fns, info->physical_device, info->device, info->allocator, info->pipeline_cache, info->log,
                   info->log_user, "splat renderer", (info->flags & SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT) != 0);
  r->queue = info->queue;
  r->queue_family = info->queue_family;
  r->slots = info->frame_slots ? info->frame_slots : 1;
  r->stereo = (info->flags & SPLAT_RENDERER_CREATE_STEREO_BIT) != 0;
  r->reverse_z = (info->flags & SPLAT_RENDERER_CREATE_REVERSE_Z_BIT) != 0;
  r->multiview = (info->flags & SPLAT_RENDERER_CREATE_MULTIVIEW_BIT) != 0;
  r->sh_precision = shp ? shp : SPLAT_SH_PRECISION_16;
  r->upload_threads = info->upload_threads ? info->upload_threads : render_default_upload_threads();
  r->pack_min_splats = RENDER_PACK_MIN_SPLATS;
  r->vk.fn.vkGetPhysicalDeviceProperties(info->physical_device, &r->props);
  VkResult checked = render_check_device(r, info);
  if (checked != VK_SUCCESS) {
    splat_renderer_destroy(r);
    return checked;
  }
  device_limits(r, info->physical_device, info->memory_budget);
  if (!take_sorters(r, info)) {
    splat_renderer_destroy(r);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  r->craster.initial_capacity = info->initial_pair_capacity;
  VkResult res = create_pipelines(r, info);
  r->craster.env = (craster_env){.vk = &r->vk, .limits = r->props.limits, .sorters = r->sorters,
                                 .sorter_count = r->sorter_count, .slots = r->slots, .extra_usage = r->extra_usage,
                                 .max_buffer = r->max_buffer, .owner = r, .allows = render_craster_allows,
                                 .create_buffers = render_craster_create_buffers};
  if (res == VK_SUCCESS) res = craster_create(&r->craster);
  if (res == VK_SUCCESS) res = create_sort_pipelines(r);
  VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                 .queueFamilyIndex = r->queue_family};
  const char *call = "building the pipelines";
  if (res == VK_SUCCESS)
    call = "vkCreateCommandPool", res = r->vk.fn.vkCreateCommandPool(r->vk.device, &cpi, r->vk.allocator, &r->upload_pool);
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                               .queryCount = TS_COUNT * r->slots};
  if (res == VK_SUCCESS)
    call = "vkCreateQueryPool", res = r->vk.fn.vkCreateQueryPool(r->vk.device, &qpi, r->vk.allocator, &r->queries);
  if (res == VK_SUCCESS)
    call = "the visible counts' buffer", res = ssvk_buffer_create(&r->vk, 16 * SPLAT_MAX_FRAME_SLOTS,
                                                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, false,
                                                                  "splat visible counts", &r->readback);
  if (res != VK_SUCCESS) {
    rlog(r, "splat_renderer_create: %s failed (%s)", call, ssvk_result_name(res));
    splat_renderer_destroy(r);
    return res;
  }
  *out = r;
  return VK_SUCCESS;
}
