/* Small Vulkan helpers for splatsort's tools and tests: instance and device with validation,
 * buffers, one-shot command buffers. Applications fail loudly: VK_CHECK prints and exits. */
#ifndef VKH_H
#define VKH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>

#include "splatsort.h"
#include "ssvk.h"

const char *vkh_result_name(VkResult r);
/* What a failure means for the user, for the errors that end a program ("" for the others). */
const char *vkh_result_hint(VkResult r);

#define VK_CHECK(expr)                                                                        \
  do {                                                                                        \
    VkResult vk_check_r_ = (expr);                                                            \
    if (vk_check_r_ != VK_SUCCESS) {                                                          \
      fprintf(stderr, "%s:%d: %s failed: %s%s\n", __FILE__, __LINE__, #expr,                  \
              vkh_result_name(vk_check_r_), vkh_result_hint(vk_check_r_));                    \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

typedef struct vkh_options {
  bool validation;                 /* enable VK_LAYER_KHRONOS_validation (fails if missing) */
  bool sync_validation;            /* with validation: its synchronisation validation too */
  bool headless;                   /* no surface extensions */
  const char *const *instance_extensions; /* extra, e.g. from glfwGetRequiredInstanceExtensions */
  uint32_t instance_extension_count;
  bool swapchain;                  /* enable VK_KHR_swapchain on the device */
  int device_index;                /* -1: prefer a discrete GPU, else the first */
  bool pipeline_statistics;        /* enable VK_KHR_pipeline_executable_properties where offered */
  /* Given to vkCreateDevice and vkDestroyDevice: the driver allocates the device's objects
   * through them (the soak test counts live allocations this way). Must outlive the context. */
  const VkAllocationCallbacks *device_allocator;
} vkh_options;

/* mapped is non-NULL for host-visible buffers */
typedef ssvk_buffer vkh_buffer;

typedef struct vkh_context {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice physical_device;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  VkCommandPool pool;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties memory;
  uint32_t subgroup_size;
  uint32_t sort_features;          /* splatsort_feature_bits enabled on the device */
  bool validation;
  bool sync_validation;            /* the layer's synchronisation validation is on */
  bool debug_utils;
  bool debug_labels;               /* the libraries may label command buffers (vkh.c says when not) */
  bool dynamic_rendering;          /* Vulkan 1.3 dynamicRendering enabled */
  bool multiview;                  /* Vulkan 1.1 multiview enabled (where the device has it) */
  bool pipeline_statistics;        /* pipelineExecutableInfo enabled */
  uint32_t validation_messages;    /* warnings and errors from the validation layer */
  /* A test that provokes a message on purpose names its message id here (e.g.
   * "SYNC-HAZARD-READ-AFTER-WRITE"): matching messages are counted in expected_messages
   * instead of validation_messages. NULL: every message counts as a failure. */
  const char *expected_message;
  uint32_t expected_messages;
  const VkAllocationCallbacks *device_allocator;
  vkh_buffer staging;              /* reused by vkh_buffer_write/read; grown when too small */
  bool transient_staging;          /* experiment: a fresh staging buffer for every copy */
  ssvk_device vk;                  /* the private Vulkan layer, for the tools' own objects */
  /* What the device was made with, kept for splat_renderer_create_info.device_create_info: the
   * create info (no queue infos) and the extensions and feature structures it points to. */
  VkDeviceCreateInfo device_create_info;
  const char *device_extensions[10];
  VkPhysicalDeviceFeatures2 device_features;
  VkPhysicalDeviceVulkan13Features device_features13;
  VkPhysicalDeviceMultiviewFeatures device_multiview;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR device_exec_props;
} vkh_context;

/* Options from the environment: SPLATSORT_VALIDATION=0/1 (default given), SPLATSORT_DEVICE=index,
 * SPLATSORT_SYNC_VALIDATION=0 (synchronisation validation off; on by default with validation). */
vkh_options vkh_default_options(bool validation);
/* Creates instance, device (with every extension/feature splatsort needs) and a command pool. */
void vkh_init(vkh_context *ctx, const vkh_options *options);
void vkh_destroy(vkh_context *ctx);


/* host_visible: HOST_VISIBLE|HOST_COHERENT (mapped); else DEVICE_LOCAL (TRANSFER_SRC/DST added). */
vkh_buffer vkh_buffer_create(vkh_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                             const char *name);
/* The same, with its own VkDeviceMemory made through VkMemoryDedicatedAllocateInfo when dedicated. */
vkh_buffer vkh_buffer_create_ex(vkh_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                                bool dedicated, const char *name);
void vkh_buffer_destroy(vkh_context *ctx, vkh_buffer *b);
/* Copies through a staging buffer when b is not mapped (waits for the queue). */
void vkh_buffer_write(vkh_context *ctx, vkh_buffer *b, VkDeviceSize offset, const void *data, VkDeviceSize size);
void vkh_buffer_read(vkh_context *ctx, vkh_buffer *b, VkDeviceSize offset, void *data, VkDeviceSize size);

VkCommandBuffer vkh_begin(vkh_context *ctx);
/* Ends, submits, waits for the queue and frees the command buffer. */
void vkh_submit_wait(vkh_context *ctx, VkCommandBuffer cmd);
uint32_t vkh_memory_type(vkh_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags props);
void vkh_name(vkh_context *ctx, VkObjectType type, uint64_t handle, const char *name);

/* The sorters a tool hands to the renderer, one per algorithm the device runs: OneSweep,
 * radix16, merge, quaternary (the first is the renderer's default when AUTO's choice is
 * missing). Returns how many were made (exits on a Vulkan error). */
#define VKH_MAX_SORTERS 4
uint32_t vkh_create_sorters(vkh_context *ctx, splatsort *out[VKH_MAX_SORTERS]);

/* The one log callback of the tools, for every library's create info: prints to stderr. */
void vkh_sort_log(void *user, const char *message);
/* splatsort_create_flag_bits the context allows: debug utils when the instance has them. */
uint32_t vkh_sort_flags(const vkh_context *ctx);

#endif
