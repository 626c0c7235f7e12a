/* requirements.c: what the renderer needs of a device (splat_renderer_get_device_requirements)
 * and the check splat_renderer_create makes against what the host says it enabled, before any
 * pipeline exists. */
#include "render_internal.h"

#include "lod_cut_shared.h"
#include "splat_shared.h"

#include <stdio.h>
#include <string.h>

#define RENDER_API_VERSION VK_API_VERSION_1_3
#define RENDER_KNOWN_FLAGS                                                                                    \
  (uint32_t)(SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT | SPLAT_RENDERER_CREATE_REVERSE_Z_BIT |                    \
             SPLAT_RENDERER_CREATE_STEREO_BIT | SPLAT_RENDERER_CREATE_MULTIVIEW_BIT)
#define PUSH_DESCRIPTOR_EXT VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME

/* The most shared memory a render shader declares: the compute raster's blend into a host image
 * in per-pixel order (craster_blend.glsl, per pixel of the tile: s_box, s_mean_conic, s_ray0 and
 * s_ray1 of 16 bytes, s_conic_op and s_halves of 8, s_depth of 4; then s_done), above the fused
 * compaction's 2 * SP_FUSE_BLOCK + SP_PROJECT_WORKGROUP words (fuse_compact.comp: 17,408 bytes).
 * test_render_limits reads every shader's SPIR-V and checks this bound. */
#define RENDER_SHARED_BYTES (84u * SP_TILE * SP_TILE + 4u)

static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* The limits the renderer's pipelines need (the largest over them). */
static void fill_limits(splat_renderer_device_requirements *req) {
  req->max_compute_work_group_invocations =
      max_u32(max_u32(SP_PROJECT_WORKGROUP, LC_WORKGROUP), max_u32(LC_PROJECT_WORKGROUP, SP_TILE * SP_TILE));
  req->max_compute_work_group_size[0] = max_u32(max_u32(SP_PROJECT_WORKGROUP, LC_WORKGROUP), SP_TILE);
  req->max_compute_work_group_size[1] = SP_TILE;
  req->max_compute_work_group_size[2] = 1;
  req->max_compute_shared_memory_size = RENDER_SHARED_BYTES;
  uint32_t push = max_u32((uint32_t)sizeof(struct sp_project_push), (uint32_t)sizeof(struct sp_raster_push));
  push = max_u32(push, (uint32_t)sizeof(struct sp_craster_push));
  push = max_u32(push, (uint32_t)sizeof(struct sp_lod_cut_push));
  req->max_push_constants_size = max_u32(push, (uint32_t)sizeof(struct sp_compact_push));
  req->max_per_stage_descriptor_storage_buffers = max_u32(max_u32(SP_BINDINGS, SP_CR_BIND_COUNT + 1 /* the host blend: + depths */), LC_BIND_COUNT);
}

/* The first limit of `limits` below the requirement: its name and both values in *what. */
static const char *limit_short(const splat_renderer_device_requirements *req, const VkPhysicalDeviceLimits *l,
                               uint32_t *have, uint32_t *need) {
  const struct {
    const char *name;
    uint32_t have, need;
  } c[] = {
      {"maxComputeWorkGroupInvocations", l->maxComputeWorkGroupInvocations, req->max_compute_work_group_invocations},
      {"maxComputeWorkGroupSize[0]", l->maxComputeWorkGroupSize[0], req->max_compute_work_group_size[0]},
      {"maxComputeWorkGroupSize[1]", l->maxComputeWorkGroupSize[1], req->max_compute_work_group_size[1]},
      {"maxComputeWorkGroupSize[2]", l->maxComputeWorkGroupSize[2], req->max_compute_work_group_size[2]},
      {"maxComputeSharedMemorySize", l->maxComputeSharedMemorySize, req->max_compute_shared_memory_size},
      {"maxPushConstantsSize", l->maxPushConstantsSize, req->max_push_constants_size},
      {"maxPerStageDescriptorStorageBuffers", l->maxPerStageDescriptorStorageBuffers,
       req->max_per_stage_descriptor_storage_buffers},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++)
    if (c[i].have < c[i].need) {
      *have = c[i].have, *need = c[i].need;
      return c[i].name;
    }
  return NULL;
}

static bool has_device_extension(const ssvk_fns *fn, VkPhysicalDevice pd, const char *name, VkResult *res) {
  uint32_t n = 0;
  *res = fn->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
  if (*res != VK_SUCCESS || n == 0) return false;
  VkExtensionProperties props[512];
  if (n > 512) n = 512;
  *res = fn->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props);
  if (*res == VK_INCOMPLETE) *res = VK_SUCCESS;
  for (uint32_t i = 0; i < n && *res == VK_SUCCESS; i++)
    if (strcmp(props[i].extensionName, name) == 0) return true;
  return false;
}

/* The extensions the renderer itself needs on this device (push descriptors where offered). */
static uint32_t own_extensions(const ssvk_fns *fn, VkPhysicalDevice pd, const char *out[1], VkResult *res) {
  return has_device_extension(fn, pd, PUSH_DESCRIPTOR_EXT, res) ? (out[0] = PUSH_DESCRIPTOR_EXT, 1u) : 0u;
}

VkResult splat_renderer_get_device_requirements(VkPhysicalDevice physical_device, uint32_t flags,
                                                splat_renderer_device_requirements *requirements) {
  return splat_renderer_get_device_requirements_with(NULL, VK_NULL_HANDLE, physical_device, flags, requirements);
}

VkResult splat_renderer_get_device_requirements_with(const splatsort_vulkan_functions *functions, VkInstance instance,
                                                     VkPhysicalDevice physical_device, uint32_t flags,
                                                     splat_renderer_device_requirements *req) {
  if (!physical_device || !req || (flags & ~RENDER_KNOWN_FLAGS)) return VK_ERROR_VALIDATION_FAILED_EXT;
  ssvk_fns fns;
  if ((functions && !functions->vkGetInstanceProcAddr) ||
      ssvk_load(&fns, functions ? functions->vkGetInstanceProcAddr : NULL,
                functions ? functions->vkGetDeviceProcAddr : NULL, instance, VK_NULL_HANDLE))
    return VK_ERROR_INITIALIZATION_FAILED;
  const char **names = req->extension_names;
  uint32_t room = names ? req->extension_count : 0;
  splat_renderer_device_requirements r = {.api_version = RENDER_API_VERSION, .dynamic_rendering = VK_TRUE,
                                          .multiview = (flags & SPLAT_RENDERER_CREATE_MULTIVIEW_BIT) != 0};
  fill_limits(&r);
  bool supported = true;

  /* the sort's for AUTO, then the renderer's own, each name once */
  const char *list[16];
  uint32_t n = 0;
  splatsort_device_requirements sort = {0};
  VkResult res = splatsort_get_device_requirements_with(functions, instance, physical_device, SPLATSORT_ALGORITHM_AUTO,
                                                        &sort);
  if (res == VK_SUCCESS) {
    const char *sort_names[8];
    sort.extension_names = sort_names;
    if (sort.extension_count > 8) sort.extension_count = 8;
    res = splatsort_get_device_requirements_with(functions, instance, physical_device, SPLATSORT_ALGORITHM_AUTO,
                                                 &sort);
    for (uint32_t i = 0; res == VK_SUCCESS && i < sort.extension_count; i++) list[n++] = sort_names[i];
    r.subgroup_size_control = sort.subgroup_size_control;
  }
  if (res == VK_ERROR_FEATURE_NOT_PRESENT)
    supported = false;
  else if (res != VK_SUCCESS)
    return res;
  const char *own[1];
  uint32_t n_own = own_extensions(&fns, physical_device, own, &res);
  if (res != VK_SUCCESS) return res;
  for (uint32_t i = 0; i < n_own; i++) {
    bool listed = false;
    for (uint32_t k = 0; k < n; k++) listed |= strcmp(list[k], own[i]) == 0;
    if (!listed) list[n++] = own[i];
  }

  VkPhysicalDeviceProperties props;
  fns.vkGetPhysicalDeviceProperties(physical_device, &props);
  if (props.apiVersion < RENDER_API_VERSION) {
    supported = false;
  } else {
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceMultiviewFeatures mv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES, .pNext = &f13};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &mv};
    fns.vkGetPhysicalDeviceFeatures2(physical_device, &f2);
    uint32_t have, need;
    if (!f13.dynamicRendering || (r.multiview && !mv.multiview) || limit_short(&r, &props.limits, &have, &need) ||
        (n_own == 0 && props.apiVersion < VK_MAKE_API_VERSION(0, 1, 4, 0)))
      supported = false;
  }

  uint32_t written = n;
  if (names) {
    written = room < n ? room : n;
    for (uint32_t i = 0; i < written; i++) names[i] = list[i];
  }
  r.extension_names = names;
  r.extension_count = written;
  *req = r;
  if (!supported) return VK_ERROR_FEATURE_NOT_PRESENT;
  return names && written < n ? VK_INCOMPLETE : VK_SUCCESS;
}

/* A feature structure of type `type` on the chain, or NULL. */
static const VkBaseInStructure *find_struct(const void *chain, VkStructureType type) {
  for (const VkBaseInStructure *s = chain; s; s = s->pNext)
    if (s->sType == type) return s;
  return NULL;
}

static bool dynamic_rendering_enabled(const VkDeviceCreateInfo *dci) {
  const VkPhysicalDeviceVulkan13Features *f13 =
      (const void *)find_struct(dci->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  const VkPhysicalDeviceDynamicRenderingFeatures *dr =
      (const void *)find_struct(dci->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES);
  return (f13 && f13->dynamicRendering) || (dr && dr->dynamicRendering);
}

static bool multiview_enabled(const VkDeviceCreateInfo *dci) {
  const VkPhysicalDeviceVulkan11Features *f11 =
      (const void *)find_struct(dci->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  const VkPhysicalDeviceMultiviewFeatures *mv =
      (const void *)find_struct(dci->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES);
  return (f11 && f11->multiview) || (mv && mv->multiview);
}

static bool extension_enabled(const VkDeviceCreateInfo *dci, const char *name) {
  for (uint32_t i = 0; i < dci->enabledExtensionCount; i++)
    if (dci->ppEnabledExtensionNames && dci->ppEnabledExtensionNames[i] &&
        strcmp(dci->ppEnabledExtensionNames[i], name) == 0)
      return true;
  return false;
}

VkResult render_check_device(splat_renderer *r, const splat_renderer_create_info *info) {
  const VkDeviceCreateInfo *dci = info->device_create_info;
  const char *fn = "splat_renderer_create";
  if (dci && dci->sType != VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO) {
    rlog(r, "%s: device_create_info is not a VkDeviceCreateInfo (sType %d)", fn, (int)dci->sType);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  /* Without the host's create info, what the device enabled cannot be known: what the physical
   * device offers is checked instead (the zero-initialised create info of 0.2 hosts). */
  VkPhysicalDeviceVulkan13Features offered13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceMultiviewFeatures offered_mv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES,
                                                  .pNext = &offered13};
  if (!dci) {
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &offered_mv};
    if (r->props.apiVersion >= RENDER_API_VERSION) r->vk.fn.vkGetPhysicalDeviceFeatures2(info->physical_device, &f2);
  }
  uint32_t v = r->props.apiVersion;
  if (v < RENDER_API_VERSION) {
    rlog(r, "%s: the device (%s) has Vulkan %u.%u; the renderer needs 1.3", fn, r->props.deviceName,
         VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v));
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  const char *own[1];
  VkResult res;
  uint32_t n_own = own_extensions(&r->vk.fn, info->physical_device, own, &res);
  if (res != VK_SUCCESS) {
    rlog(r, "%s: vkEnumerateDeviceExtensionProperties failed (%s)", fn, ssvk_result_name(res));
    return res;
  }
  for (uint32_t i = 0; i < n_own && dci; i++)
    if (!extension_enabled(dci, own[i])) {
      rlog(r, "%s: the device was made without %s (device_create_info's extensions; "
              "splat_renderer_get_device_requirements lists it)", fn, own[i]);
      return VK_ERROR_EXTENSION_NOT_PRESENT;
    }
  if (!r->vk.push_descriptor_set) {
    rlog(r, "%s: the device has no push descriptors (vkCmdPushDescriptorSetKHR: enable %s, or Vulkan 1.4)", fn,
         PUSH_DESCRIPTOR_EXT);
    return VK_ERROR_EXTENSION_NOT_PRESENT;
  }
  if (dci ? !dynamic_rendering_enabled(dci) : !offered13.dynamicRendering) {
    rlog(r, dci ? "%s: the device was made without dynamicRendering (VkPhysicalDeviceVulkan13Features on "
                  "device_create_info's pNext chain)"
                : "%s: the physical device has no dynamicRendering", fn);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  if ((info->flags & SPLAT_RENDERER_CREATE_MULTIVIEW_BIT) && (dci ? !multiview_enabled(dci) : !offered_mv.multiview)) {
    rlog(r, "%s: SPLAT_RENDERER_CREATE_MULTIVIEW_BIT, but the device was made without multiview "
            "(VkPhysicalDeviceVulkan11Features or VkPhysicalDeviceMultiviewFeatures on device_create_info's "
            "pNext chain)", fn);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  splat_renderer_device_requirements req;
  fill_limits(&req);
  uint32_t have, need;
  const char *limit = limit_short(&req, &r->props.limits, &have, &need);
  if (limit) {
    rlog(r, "%s: the device (%s) has %s %u; the renderer needs %u", fn, r->props.deviceName, limit, have, need);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  VkQueueFamilyProperties qf[64];
  uint32_t nq = 64;
  r->vk.fn.vkGetPhysicalDeviceQueueFamilyProperties(info->physical_device, &nq, qf);
  const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  if (info->queue_family >= nq || (qf[info->queue_family].queueFlags & want) != want ||
      qf[info->queue_family].timestampValidBits == 0) {
    rlog(r, "%s: queue_family %u %s", fn, info->queue_family,
         info->queue_family >= nq ? "is not one of the device's"
         : (qf[info->queue_family].queueFlags & want) != want ? "lacks graphics or compute"
                                                                : "has no timestamps (timestampValidBits 0)");
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  /* the host pass's sample count: one bit the device's framebuffers take (issue 37: 64 reached
   * the driver's pipeline creation and crashed there) */
  uint32_t s = info->host_samples ? (uint32_t)info->host_samples : 1u;
  VkSampleCountFlags color = r->props.limits.framebufferColorSampleCounts,
                     depth = r->props.limits.framebufferDepthSampleCounts;
  bool has_depth = info->host_depth_format != VK_FORMAT_UNDEFINED;
  if ((s & (s - 1)) != 0 || s > 64 || !(color & s) || (has_depth && !(depth & s))) {
    rlog(r, "%s: host_samples %u: expected one of the sample counts the device's %s attachments take (0x%x)", fn, s,
         has_depth ? "colour and depth" : "colour", (unsigned)(has_depth ? color & depth : color));
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  return VK_SUCCESS;
}
