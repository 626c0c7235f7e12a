/* The private Vulkan layer (ssvk.h): the one place where the sort, the renderer and the
 * viewer's HUD build shader modules, compute pipelines, push-descriptor layouts and buffers. */
#include "ssvk.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *ssvk_result_name(VkResult r) {
  switch (r) {
#define CASE(x) \
  case x: return #x;
    CASE(VK_SUCCESS) CASE(VK_NOT_READY) CASE(VK_TIMEOUT) CASE(VK_INCOMPLETE)
    CASE(VK_ERROR_OUT_OF_HOST_MEMORY) CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY) CASE(VK_ERROR_INITIALIZATION_FAILED)
    CASE(VK_ERROR_DEVICE_LOST) CASE(VK_ERROR_MEMORY_MAP_FAILED) CASE(VK_ERROR_LAYER_NOT_PRESENT)
    CASE(VK_ERROR_EXTENSION_NOT_PRESENT) CASE(VK_ERROR_FEATURE_NOT_PRESENT) CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    CASE(VK_ERROR_TOO_MANY_OBJECTS) CASE(VK_ERROR_FORMAT_NOT_SUPPORTED) CASE(VK_ERROR_UNKNOWN)
    CASE(VK_ERROR_OUT_OF_POOL_MEMORY) CASE(VK_ERROR_FRAGMENTED_POOL)
    CASE(VK_ERROR_OUT_OF_DATE_KHR) CASE(VK_SUBOPTIMAL_KHR) CASE(VK_ERROR_SURFACE_LOST_KHR)
    CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef CASE
  default: return "VkResult(unknown)";
  }
}

const char *ssvk_load(ssvk_fns *f, PFN_vkGetInstanceProcAddr get_instance_proc_addr,
                      PFN_vkGetDeviceProcAddr get_device_proc_addr, VkInstance instance, VkDevice device) {
  memset(f, 0, sizeof *f);
  if (!get_instance_proc_addr) {
#if SSVK_STATIC_VULKAN_FUNCTIONS
#define SSVK_STATIC(name) f->name = name;
    SSVK_INSTANCE_FUNCTIONS(SSVK_STATIC)
    SSVK_DEVICE_FUNCTIONS(SSVK_STATIC)
    SSVK_GRAPHICS_FUNCTIONS(SSVK_STATIC)
#undef SSVK_STATIC
    return NULL;
#else
    return "vkGetInstanceProcAddr (built without SPLATSORT_STATIC_VULKAN_FUNCTIONS: pass vulkan_functions)";
#endif
  }
  if (!instance) return "vkGetInstanceProcAddr (or the instance)";
#define SSVK_INSTANCE(name)                                                   \
  f->name = (PFN_##name)get_instance_proc_addr(instance, #name);         \
  if (!f->name) return #name;
  SSVK_INSTANCE_FUNCTIONS(SSVK_INSTANCE)
#undef SSVK_INSTANCE
  if (get_device_proc_addr) f->vkGetDeviceProcAddr = get_device_proc_addr;
  if (!device) return NULL;
#define SSVK_DEVICE(name)                                                     \
  f->name = (PFN_##name)f->vkGetDeviceProcAddr(device, #name);                \
  if (!f->name) return #name;
  SSVK_DEVICE_FUNCTIONS(SSVK_DEVICE)
#undef SSVK_DEVICE
#define SSVK_OPTIONAL(name) f->name = (PFN_##name)f->vkGetDeviceProcAddr(device, #name);
  SSVK_GRAPHICS_FUNCTIONS(SSVK_OPTIONAL)
#undef SSVK_OPTIONAL
  return NULL;
}

void ssvk_device_init(ssvk_device *d, const ssvk_fns *fn, VkPhysicalDevice physical_device, VkDevice device,
                      const VkAllocationCallbacks *allocator, VkPipelineCache cache, ssvk_log_fn log,
                      void *log_user, const char *log_prefix, bool debug_utils) {
  memset(d, 0, sizeof *d);
  if (fn)
    d->fn = *fn;
  else
    ssvk_load(&d->fn, NULL, NULL, VK_NULL_HANDLE, device);
  d->device = device;
  d->physical_device = physical_device;
  d->allocator = allocator;
  d->pipeline_cache = cache;
  d->log = log;
  d->log_user = log_user;
  d->log_prefix = log_prefix ? log_prefix : "splatsort";
  d->push_descriptor_set = (PFN_vkCmdPushDescriptorSetKHR)d->fn.vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSetKHR");
  if (!d->push_descriptor_set) /* the Vulkan 1.4 core name, same signature */
    d->push_descriptor_set = (PFN_vkCmdPushDescriptorSetKHR)d->fn.vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSet");
  if (debug_utils) {
    d->set_name = (PFN_vkSetDebugUtilsObjectNameEXT)d->fn.vkGetDeviceProcAddr(device, "vkSetDebugUtilsObjectNameEXT");
    d->begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)d->fn.vkGetDeviceProcAddr(device, "vkCmdBeginDebugUtilsLabelEXT");
    d->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)d->fn.vkGetDeviceProcAddr(device, "vkCmdEndDebugUtilsLabelEXT");
    if (!d->begin_label || !d->end_label) d->begin_label = NULL, d->end_label = NULL;
  }
}

/* "<prefix>: <message>", unless the message already starts with the prefix (messages that
 * name their function, "splatsort_create: ...", or their pipeline, "splatsort onesweep ..."). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 0)))  /* clang's -Wformat-nonliteral: fmt is checked at the callers */
#endif
static void vlog_to(ssvk_log_fn log, void *user, const char *prefix, const char *fmt, va_list ap) {
  if (!log) return;
  char body[480], msg[512];
  vsnprintf(body, sizeof body, fmt, ap);
  if (prefix && strncmp(body, prefix, strlen(prefix)))
    snprintf(msg, sizeof msg, "%s: %s", prefix, body);
  else
    snprintf(msg, sizeof msg, "%s", body);
  log(user, msg);
}

void ssvk_log(const ssvk_device *d, const char *fmt, ...) {
  if (!d || !d->log) return;
  va_list ap;
  va_start(ap, fmt);
  vlog_to(d->log, d->log_user, d->log_prefix, fmt, ap);
  va_end(ap);
}

void ssvk_log_to(ssvk_log_fn log, void *user, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog_to(log, user, NULL, fmt, ap);
  va_end(ap);
}

void ssvk_name(const ssvk_device *d, VkObjectType type, uint64_t handle, const char *name) {
  if (!d->set_name || !name || !handle) return;
  VkDebugUtilsObjectNameInfoEXT info = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                        .objectType = type, .objectHandle = handle, .pObjectName = name};
  d->set_name(d->device, &info);
}

void ssvk_label_begin(const ssvk_device *d, VkCommandBuffer cmd, const char *name) {
  if (!d->begin_label) return;
  VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
  d->begin_label(cmd, &label);
}

void ssvk_label_end(const ssvk_device *d, VkCommandBuffer cmd) {
  if (d->end_label) d->end_label(cmd);
}

VkResult ssvk_shader_module(const ssvk_device *d, const uint32_t *code, size_t size, const char *name,
                            VkShaderModule *out) {
  VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
  VkResult r = d->fn.vkCreateShaderModule(d->device, &ci, d->allocator, out);
  if (r != VK_SUCCESS) {
    *out = VK_NULL_HANDLE;
    ssvk_log(d, "vkCreateShaderModule for %s failed (%s)", name ? name : "?", ssvk_result_name(r));
  }
  return r;
}

VkResult ssvk_push_layout(const ssvk_device *d, uint32_t count, VkShaderStageFlags stages, uint32_t push_size,
                          VkShaderStageFlags push_stages, const char *name, VkDescriptorSetLayout *set_layout,
                          VkPipelineLayout *layout) {
  *set_layout = VK_NULL_HANDLE;
  *layout = VK_NULL_HANDLE;
  if (!d->push_descriptor_set) {
    ssvk_log(d, "push descriptors are not available (enable VK_KHR_push_descriptor, or Vulkan 1.4)");
    return VK_ERROR_EXTENSION_NOT_PRESENT;
  }
  VkDescriptorSetLayoutBinding bindings[32]; /* maxPushDescriptors is at least 32 */
  if (count > 32) {
    ssvk_log(d, "%s: %u push descriptors, more than the 32 every device has", name, count);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  for (uint32_t i = 0; i < count; i++)
    bindings[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                 .descriptorCount = 1, .stageFlags = stages};
  VkDescriptorSetLayoutCreateInfo dsl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                         .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                         .bindingCount = count, .pBindings = bindings};
  VkResult r = d->fn.vkCreateDescriptorSetLayout(d->device, &dsl, d->allocator, set_layout);
  if (r != VK_SUCCESS) {
    *set_layout = VK_NULL_HANDLE;
    ssvk_log(d, "vkCreateDescriptorSetLayout for %s failed (%s)", name, ssvk_result_name(r));
    return r;
  }
  VkPushConstantRange range = {.stageFlags = push_stages, .offset = 0, .size = push_size};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                   .pSetLayouts = set_layout, .pushConstantRangeCount = push_size ? 1 : 0,
                                   .pPushConstantRanges = &range};
  r = d->fn.vkCreatePipelineLayout(d->device, &pl, d->allocator, layout);
  if (r != VK_SUCCESS) {
    d->fn.vkDestroyDescriptorSetLayout(d->device, *set_layout, d->allocator);
    *set_layout = VK_NULL_HANDLE;
    *layout = VK_NULL_HANDLE;
    ssvk_log(d, "vkCreatePipelineLayout for %s failed (%s)", name, ssvk_result_name(r));
    return r;
  }
  ssvk_name(d, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)*layout, name);
  return VK_SUCCESS;
}

void ssvk_push_buffers(const ssvk_device *d, VkCommandBuffer cmd, VkPipelineBindPoint bind_point,
                       VkPipelineLayout layout, const VkDescriptorBufferInfo *infos, uint32_t count) {
  VkWriteDescriptorSet w[32]; /* maxPushDescriptors is at least 32 */
  uint32_t n = 0;
  for (uint32_t i = 0; i < count && i < 32; i++) {
    if (!infos[i].buffer) continue;
    w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                    .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .pBufferInfo = &infos[i]};
  }
  d->push_descriptor_set(cmd, bind_point, layout, 0, n, w);
}

VkResult ssvk_pipeline_created(const ssvk_device *d, VkResult r, VkPipeline *out, const char *call, const char *name,
                               const char *hint) {
  if (r != VK_SUCCESS) {
    *out = VK_NULL_HANDLE;
    ssvk_log(d, "%s for pipeline %s failed (%s%s)", call, name ? name : "?", ssvk_result_name(r), hint);
    return r;
  }
  ssvk_name(d, VK_OBJECT_TYPE_PIPELINE, (uint64_t)*out, name);
  return VK_SUCCESS;
}

VkResult ssvk_compute_pipeline(const ssvk_device *d, const ssvk_compute_desc *desc, VkPipeline *out) {
  *out = VK_NULL_HANDLE;
  VkShaderModule module;
  VkResult r = ssvk_shader_module(d, desc->code, desc->code_size, desc->name, &module);
  if (r != VK_SUCCESS) return r;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo size_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
      .requiredSubgroupSize = desc->required_subgroup_size};
  bool sized = desc->required_subgroup_size != 0;
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .flags = desc->flags,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .pNext = sized ? &size_info : NULL,
                .flags = sized ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main",
                .pSpecializationInfo = desc->spec},
      .layout = desc->layout};
  r = d->fn.vkCreateComputePipelines(d->device, d->pipeline_cache, 1, &ci, d->allocator, out);
  d->fn.vkDestroyShaderModule(d->device, module, d->allocator);
  return ssvk_pipeline_created(d, r, out, "vkCreateComputePipelines", desc->name, "");
}


uint32_t ssvk_memory_type(const ssvk_device *d, uint32_t type_bits, VkMemoryPropertyFlags props) {
  VkPhysicalDeviceMemoryProperties mp;
  d->fn.vkGetPhysicalDeviceMemoryProperties(d->physical_device, &mp);
  for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
    if ((type_bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & props) == props) return i;
  return UINT32_MAX;
}

void ssvk_buffer_destroy(const ssvk_device *d, ssvk_buffer *b) {
  if (b->buffer) d->fn.vkDestroyBuffer(d->device, b->buffer, d->allocator);
  if (b->memory) d->fn.vkFreeMemory(d->device, b->memory, d->allocator);
  *b = (ssvk_buffer){0};
}

VkResult ssvk_buffer_upload(const ssvk_device *d, VkQueue queue, VkCommandPool pool, VkBuffer dst, VkDeviceSize offset,
                            const void *data, VkDeviceSize bytes) {
  if (!bytes) return VK_SUCCESS;
  VkDeviceSize piece = bytes < (64u << 20) ? bytes : (64u << 20);
  ssvk_buffer staging = {0};
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkResult res = ssvk_buffer_create(d, piece, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, false, "upload staging", &staging);
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  const char *call = "vkAllocateCommandBuffers";
  if (res == VK_SUCCESS) res = d->fn.vkAllocateCommandBuffers(d->device, &ai, &cmd);
  if (res != VK_SUCCESS) cmd = VK_NULL_HANDLE;
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (res == VK_SUCCESS) call = "vkCreateFence", res = d->fn.vkCreateFence(d->device, &fi, d->allocator, &fence);
  if (res != VK_SUCCESS) fence = VK_NULL_HANDLE;
  for (VkDeviceSize at = 0; res == VK_SUCCESS && at < bytes; at += piece) {
    VkDeviceSize n = bytes - at < piece ? bytes - at : piece;
    memcpy(staging.mapped, (const char *)data + at, (size_t)n);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    call = "vkBeginCommandBuffer", res = d->fn.vkBeginCommandBuffer(cmd, &bi);
    if (res != VK_SUCCESS) break;
    VkBufferCopy c = {0, offset + at, n};
    d->fn.vkCmdCopyBuffer(cmd, staging.buffer, dst, 1, &c);
    call = "vkEndCommandBuffer", res = d->fn.vkEndCommandBuffer(cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    if (res == VK_SUCCESS) call = "vkQueueSubmit", res = d->fn.vkQueueSubmit(queue, 1, &si, fence);
    if (res != VK_SUCCESS) break;
    /* Submitted: nothing it uses is freed before its fence says it is done. A failed wait is
     * the upload's error, and is tried once more to know whether the copy ended (a lost device
     * says so again); a copy that may still run (a second failure, the device not lost) keeps
     * the staging buffer, command buffer and fence allocated rather than freed under the GPU. */
    call = "vkWaitForFences", res = d->fn.vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX);
    if (res != VK_SUCCESS) {
      VkResult again = d->fn.vkWaitForFences(d->device, 1, &fence, VK_TRUE, UINT64_MAX);
      if (again != VK_SUCCESS && again != VK_ERROR_DEVICE_LOST) {
        ssvk_log(d, "vkWaitForFences for an upload's copy failed twice (%s, %s): its staging buffer, command "
                    "buffer and fence are left allocated rather than freed under the GPU",
                 ssvk_result_name(res), ssvk_result_name(again));
        return res;
      }
    }
    if (res == VK_SUCCESS) call = "vkResetFences", res = d->fn.vkResetFences(d->device, 1, &fence);
  }
  if (res != VK_SUCCESS && staging.buffer)
    ssvk_log(d, "%s for an upload of %llu bytes failed (%s)", call, (unsigned long long)bytes, ssvk_result_name(res));
  if (fence) d->fn.vkDestroyFence(d->device, fence, d->allocator);
  if (cmd) d->fn.vkFreeCommandBuffers(d->device, pool, 1, &cmd);
  ssvk_buffer_destroy(d, &staging);
  return res;
}


VkResult ssvk_buffer_create(const ssvk_device *d, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                            bool dedicated, const char *name, ssvk_buffer *b) {
  *b = (ssvk_buffer){.size = size};
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size ? size : 16, .usage = usage,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult r = d->fn.vkCreateBuffer(d->device, &bci, d->allocator, &b->buffer);
  if (r != VK_SUCCESS) {
    b->buffer = VK_NULL_HANDLE;
    ssvk_log(d, "vkCreateBuffer for buffer %s (%llu bytes) failed (%s)", name ? name : "?", (unsigned long long)size,
             ssvk_result_name(r));
    return r;
  }
  VkMemoryRequirements mr;
  d->fn.vkGetBufferMemoryRequirements(d->device, b->buffer, &mr);
  VkMemoryPropertyFlags want = host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                            : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = ssvk_memory_type(d, mr.memoryTypeBits, want);
  if (type == UINT32_MAX) {
    ssvk_log(d, "no %s memory type for buffer %s", host_visible ? "host-visible" : "device-local", name ? name : "?");
    ssvk_buffer_destroy(d, b);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  VkMemoryDedicatedAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .buffer = b->buffer};
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = dedicated ? &dai : NULL,
                              .allocationSize = mr.size, .memoryTypeIndex = type};
  const char *call = "vkAllocateMemory";
  r = d->fn.vkAllocateMemory(d->device, &mai, d->allocator, &b->memory);
  if (r != VK_SUCCESS) b->memory = VK_NULL_HANDLE;
  if (r == VK_SUCCESS) call = "vkBindBufferMemory", r = d->fn.vkBindBufferMemory(d->device, b->buffer, b->memory, 0);
  if (r == VK_SUCCESS && host_visible)
    call = "vkMapMemory", r = d->fn.vkMapMemory(d->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
  if (r != VK_SUCCESS) {
    ssvk_log(d, "%s for buffer %s (%llu bytes) failed (%s)", call, name ? name : "?", (unsigned long long)mr.size,
             ssvk_result_name(r));
    ssvk_buffer_destroy(d, b);
    return r;
  }
  ssvk_name(d, VK_OBJECT_TYPE_BUFFER, (uint64_t)b->buffer, name);
  return VK_SUCCESS;
}

void ssvk_image_barrier(const ssvk_device *d, VkCommandBuffer cmd, VkImage image, VkPipelineStageFlags src, VkAccessFlags src_access,
                        VkImageLayout old_layout, VkPipelineStageFlags dst, VkAccessFlags dst_access,
                        VkImageLayout new_layout) {
  VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                            .srcAccessMask = src_access,
                            .dstAccessMask = dst_access,
                            .oldLayout = old_layout,
                            .newLayout = new_layout,
                            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                            .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                            .image = image,
                            .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  d->fn.vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 0, NULL, 1, &b);
}


void ssvk_dispatch_1d(const ssvk_device *d, VkCommandBuffer cmd, uint32_t groups, uint32_t max_x) {
  uint32_t x = groups < max_x ? groups : max_x;
  if (x) d->fn.vkCmdDispatch(cmd, x, (groups + x - 1) / x, 1);
}


void ssvk_memory_barrier(const ssvk_device *d, VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                         VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access,
                       .dstAccessMask = dst_access};
  d->fn.vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}
