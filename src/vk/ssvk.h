/* ssvk.h: the private Vulkan layer, compiled into the sort and the render libraries (each its
 * own copy, its symbols local) and used by the viewer's HUD: shader-module and compute-pipeline
 * builders, push-descriptor layouts from a binding count, buffer allocation, debug names and
 * labels, and log formatting; the graphics helpers are in ssvk_graphics.h. It depends on
 * Vulkan alone. Not part of the public API and not installed. Library convention: every
 * call returns a VkResult (or nothing) and reports detail through the log callback. */
#ifndef SSVK_H
#define SSVK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* A library's log callback (the same type as splatsort_log_fn in splatsort.h). */
typedef void (*ssvk_log_fn)(void *user, const char *message);

/* Every Vulkan function the library calls, reached through this table: the host's loader
 * (splatsort_vulkan_functions, for hosts that load Vulkan themselves, e.g. through volk) or,
 * with SSVK_STATIC_VULKAN_FUNCTIONS (the default), the loader symbols linked in. */
#ifndef SSVK_STATIC_VULKAN_FUNCTIONS
#define SSVK_STATIC_VULKAN_FUNCTIONS 1
#endif
#define SSVK_INSTANCE_FUNCTIONS(X)                                                              \
  X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceProperties2)                             \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkEnumerateDeviceExtensionProperties) X(vkGetDeviceProcAddr)        \
  X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceFeatures2)
#define SSVK_DEVICE_FUNCTIONS(X)                                                                \
  X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout)                \
  X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)           \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreateBuffer) X(vkDestroyBuffer)          \
  X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory)      \
  X(vkMapMemory) X(vkCmdPipelineBarrier) X(vkCmdBindPipeline) X(vkCmdPushConstants) X(vkCmdDispatch) \
  X(vkCmdDispatchIndirect) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp) X(vkCmdUpdateBuffer)      \
  X(vkCmdFillBuffer)                                                                              \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) \
  X(vkEndCommandBuffer) X(vkQueueSubmit) X(vkCreateFence) X(vkDestroyFence) X(vkWaitForFences)     \
  X(vkCreateEvent) X(vkDestroyEvent) X(vkSetEvent) X(vkCmdWaitEvents)
/* Only the graphics helpers and the renderer (and the HUD) need these; the sort runs without
 * them (a Vulkan 1.1 or 1.2 device has no vkCmdBeginRendering), so ssvk_load leaves any it cannot
 * find NULL and the renderer checks them (ssvk_missing_graphics in ssvk_graphics.h). */
#define SSVK_GRAPHICS_FUNCTIONS(X)                                                              \
  X(vkCreateGraphicsPipelines) X(vkCmdBeginRendering) X(vkCmdEndRendering) X(vkCmdSetViewport)   \
  X(vkCmdSetScissor) X(vkCmdDrawIndirect) X(vkCmdCopyBuffer) X(vkCmdCopyBufferToImage)           \
  X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory)         \
  X(vkCreateImageView) X(vkDestroyImageView) X(vkCreateQueryPool) X(vkDestroyQueryPool)           \
  X(vkGetQueryPoolResults) X(vkFreeCommandBuffers) X(vkResetFences)

typedef struct ssvk_fns {
#define SSVK_MEMBER(name) PFN_##name name;
  SSVK_INSTANCE_FUNCTIONS(SSVK_MEMBER)
  SSVK_DEVICE_FUNCTIONS(SSVK_MEMBER)
  SSVK_GRAPHICS_FUNCTIONS(SSVK_MEMBER)
#undef SSVK_MEMBER
} ssvk_fns;

/* Fills the table from the host's functions (instance needed then; device may be
 * VK_NULL_HANDLE for the instance functions only), or from the linked loader when host is
 * NULL. Returns the name of the first function it could not find, or NULL when all are there. */
/* "VK_ERROR_DEVICE_LOST" etc., for messages. */
const char *ssvk_result_name(VkResult r);

const char *ssvk_load(ssvk_fns *f, PFN_vkGetInstanceProcAddr get_instance_proc_addr,
                      PFN_vkGetDeviceProcAddr get_device_proc_addr, VkInstance instance, VkDevice device);

/* What the layer needs of the host: its device, allocator, pipeline cache and log, and the
 * entry points it resolved once. Debug-utils entry points stay NULL unless the host said it
 * enabled the extension. */
typedef struct ssvk_device {
  ssvk_fns fn;
  VkDevice device;
  VkPhysicalDevice physical_device;
  const VkAllocationCallbacks *allocator;
  VkPipelineCache pipeline_cache;
  ssvk_log_fn log;
  void *log_user;
  const char *log_prefix; /* "splatsort", "splat renderer", ... */
  PFN_vkCmdPushDescriptorSetKHR push_descriptor_set; /* NULL: push descriptors unavailable */
  PFN_vkSetDebugUtilsObjectNameEXT set_name;
  PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
  PFN_vkCmdEndDebugUtilsLabelEXT end_label;
} ssvk_device;

/* Fills *d and resolves the device entry points (push descriptors under their extension or
 * Vulkan 1.4 name; debug utils only when debug_utils is true). fn: the loaded table (NULL:
 * the linked loader's functions). */
void ssvk_device_init(ssvk_device *d, const ssvk_fns *fn, VkPhysicalDevice physical_device, VkDevice device,
                      const VkAllocationCallbacks *allocator, VkPipelineCache cache, ssvk_log_fn log,
                      void *log_user, const char *log_prefix, bool debug_utils);

/* Formats "<prefix>: <message>" and hands it to the log callback (nothing without one). */
void ssvk_log(const ssvk_device *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same for a log callback without a device (argument checks before one exists). */
void ssvk_log_to(ssvk_log_fn log, void *user, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void ssvk_name(const ssvk_device *d, VkObjectType type, uint64_t handle, const char *name);
void ssvk_label_begin(const ssvk_device *d, VkCommandBuffer cmd, const char *name);
void ssvk_label_end(const ssvk_device *d, VkCommandBuffer cmd);

VkResult ssvk_shader_module(const ssvk_device *d, const uint32_t *code, size_t size, const char *name,
                            VkShaderModule *out);

/* A push-descriptor set layout of `count` storage buffers (bindings 0..count-1, every one
 * visible to `stages`) and a pipeline layout with it and one push-constant range. */
VkResult ssvk_push_layout(const ssvk_device *d, uint32_t count, VkShaderStageFlags stages, uint32_t push_size,
                          VkShaderStageFlags push_stages, const char *name, VkDescriptorSetLayout *set_layout,
                          VkPipelineLayout *layout);
/* Pushes storage-buffer descriptors infos[0..count-1] to set 0; entries with a null buffer are
 * left out. */
void ssvk_push_buffers(const ssvk_device *d, VkCommandBuffer cmd, VkPipelineBindPoint bind_point,
                       VkPipelineLayout layout, const VkDescriptorBufferInfo *infos, uint32_t count);

typedef struct ssvk_compute_desc {
  const uint32_t *code;
  size_t code_size;
  VkPipelineLayout layout;
  const VkSpecializationInfo *spec;        /* optional */
  uint32_t required_subgroup_size;         /* 0: none (the caller checked it is allowed) */
  VkPipelineCreateFlags flags;
  const char *name;
} ssvk_compute_desc;
VkResult ssvk_compute_pipeline(const ssvk_device *d, const ssvk_compute_desc *desc, VkPipeline *out);
/* After vkCreate*Pipelines (`call`): names the pipeline, or logs the failure (with a hint); returns r. */
VkResult ssvk_pipeline_created(const ssvk_device *d, VkResult r, VkPipeline *out, const char *call, const char *name,
                               const char *hint);


/* A buffer with its own memory: device-local, or host-visible, coherent and mapped. */
typedef struct ssvk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
  void *mapped;
} ssvk_buffer;
/* dedicated: allocate through VkMemoryDedicatedAllocateInfo (Vulkan 1.1). */
VkResult ssvk_buffer_create(const ssvk_device *d, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                            bool dedicated, const char *name, ssvk_buffer *out);
void ssvk_buffer_destroy(const ssvk_device *d, ssvk_buffer *b);
/* Copies `bytes` of `data` into dst at `offset` through a host-visible staging buffer of at most
 * 64 MiB, piece by piece on `queue` (a command buffer from `pool`), waiting for each piece's
 * fence: a blocking upload for data made once (not for per-frame work). dst needs
 * TRANSFER_DST usage. Returns the first failure. */
VkResult ssvk_buffer_upload(const ssvk_device *d, VkQueue queue, VkCommandPool pool, VkBuffer dst, VkDeviceSize offset,
                            const void *data, VkDeviceSize bytes);
/* A memory type in type_bits with the properties, or UINT32_MAX. */
uint32_t ssvk_memory_type(const ssvk_device *d, uint32_t type_bits, VkMemoryPropertyFlags props);

/* `groups` workgroups, split over y where they exceed max_x (the device's
 * maxComputeWorkGroupCount[0]); shaders fold the two back with gl_NumWorkGroups.x. */
void ssvk_dispatch_1d(const ssvk_device *d, VkCommandBuffer cmd, uint32_t groups, uint32_t max_x);

/* A global memory barrier (the one most passes need between dispatches). */
void ssvk_memory_barrier(const ssvk_device *d, VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                         VkPipelineStageFlags dst, VkAccessFlags dst_access);

/* A colour image's layout transition (whole image, one mip level and layer). */
void ssvk_image_barrier(const ssvk_device *d, VkCommandBuffer cmd, VkImage image, VkPipelineStageFlags src, VkAccessFlags src_access,
                        VkImageLayout old_layout, VkPipelineStageFlags dst, VkAccessFlags dst_access,
                        VkImageLayout new_layout);


/* A 4-byte count at `offset` of a storage buffer: the descriptor is bound at the largest
 * multiple of `alignment` below it (*base, *range) and the shader reads word *index. */
static inline uint32_t ssvk_count_word(VkDeviceSize offset, VkDeviceSize alignment, VkDeviceSize *base,
                                       VkDeviceSize *range) {
  VkDeviceSize b = offset / alignment * alignment;
  if (base) *base = b;
  if (range) *range = offset - b + 4;
  return (uint32_t)((offset - b) / 4u);
}

static inline uint32_t ssvk_div_up(uint32_t a, uint32_t b) { return a / b + (a % b != 0); }
static inline VkDeviceSize ssvk_align(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

#endif /* SSVK_H */
