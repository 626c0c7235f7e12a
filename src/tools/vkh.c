/* Vulkan helpers for tools and tests. */
#include "vkh.h"

#include "splatsort.h"
#include "ssvk.h"

#include <string.h>
#include <stdlib.h>

const char *vkh_result_name(VkResult r) { return ssvk_result_name(r); }

const char *vkh_result_hint(VkResult r) {
  switch (r) {
  case VK_ERROR_DEVICE_LOST:
    return " (the GPU stopped working for this program: a driver reset, a hang or a fault; nothing more can run)";
  case VK_ERROR_OUT_OF_DEVICE_MEMORY: return " (the GPU's memory is full)";
  case VK_ERROR_OUT_OF_HOST_MEMORY: return " (the computer's memory is full)";
  default: return "";
  }
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  vkh_context *ctx = user;
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT &&
      (type & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT))) {
    const char *id = data->pMessageIdName ? data->pMessageIdName : "";
    if (ctx->expected_message && strstr(id, ctx->expected_message)) {
      ctx->expected_messages++;
      fprintf(stderr, "VALIDATION (expected): %s\n", data->pMessage);
    } else {
      ctx->validation_messages++;
      fprintf(stderr, "VALIDATION: %s\n", data->pMessage);
    }
  }
  return VK_FALSE;
}

vkh_options vkh_default_options(bool validation) {
  vkh_options o = {.validation = validation, .sync_validation = true, .headless = true, .device_index = -1};
  const char *v = getenv("SPLATSORT_VALIDATION");
  if (v && *v) o.validation = strcmp(v, "0") != 0;
  const char *sv = getenv("SPLATSORT_SYNC_VALIDATION");
  if (sv && *sv) o.sync_validation = strcmp(sv, "0") != 0;
  const char *d = getenv("SPLATSORT_DEVICE");
  if (d && *d) o.device_index = atoi(d);
  return o;
}

/* The layer's specVersion (the Vulkan headers it was built from), or 0 where it is not installed. */
static uint32_t layer_version(const char *name) {
  uint32_t n = 0, version = 0;
  vkEnumerateInstanceLayerProperties(&n, NULL);
  VkLayerProperties *p = calloc(n ? n : 1, sizeof *p);
  vkEnumerateInstanceLayerProperties(&n, p);
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(p[i].layerName, name) == 0) version = p[i].specVersion ? p[i].specVersion : 1;
  free(p);
  return version;
}

static bool has_layer(const char *name) { return layer_version(name) != 0; }

/* layer: NULL for the loader's and the drivers' extensions, else that layer's own. */
static bool has_instance_extension(const char *layer, const char *name) {
  uint32_t n = 0;
  vkEnumerateInstanceExtensionProperties(layer, &n, NULL);
  VkExtensionProperties *p = calloc(n ? n : 1, sizeof *p);
  vkEnumerateInstanceExtensionProperties(layer, &n, p);
  bool found = false;
  for (uint32_t i = 0; i < n; i++) found |= strcmp(p[i].extensionName, name) == 0;
  free(p);
  return found;
}

static bool device_has_extension(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
  VkExtensionProperties *p = calloc(n ? n : 1, sizeof *p);
  vkEnumerateDeviceExtensionProperties(pd, NULL, &n, p);
  bool found = false;
  for (uint32_t i = 0; i < n; i++) found |= strcmp(p[i].extensionName, name) == 0;
  free(p);
  return found;
}

/* The sanitizer build (tests/CMakeLists.txt): lavapipe must stay mapped until exit, or
 * LeakSanitizer reports its heap from "<unknown module>" once the loader unloads it; the tests
 * preload it. A process that would create a device on lavapipe without it stops here, whatever
 * it goes on to do, so that no test's pass depends on the line it fails at. */
static bool driver_preloaded = true;

/* Before the instance: whether lavapipe is in LD_PRELOAD. (Whether it is mapped says nothing: the
 * loader keeps the drivers it enumerated before an instance loaded for a while.) */
static void note_driver_preloaded(void) {
#ifdef SPLATSORT_SANITIZER_CHECKS
  const char *pre = getenv("LD_PRELOAD");
  driver_preloaded = pre && strstr(pre, "libvulkan_lvp.so");
#endif
}

static void check_driver_preloaded(const VkPhysicalDeviceProperties *p) {
  if (driver_preloaded || strncmp(p->deviceName, "llvmpipe", 8) || getenv("SPLATSORT_ALLOW_DRIVER_UNLOAD")) return;
  fprintf(stderr, "error: sanitizer build on lavapipe without the driver preloaded: run with "
                  "LD_PRELOAD=libvulkan_lvp.so (tests/CMakeLists.txt says why; SPLATSORT_ALLOW_DRIVER_UNLOAD=1 "
                  "goes on without it)\n");
  exit(1);
}

static void create_instance(vkh_context *ctx, const vkh_options *o) {
  const char *exts[16];
  uint32_t next = 0;
  for (uint32_t i = 0; i < o->instance_extension_count && next < 12; i++) exts[next++] = o->instance_extensions[i];
  ctx->debug_utils = has_instance_extension(NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (ctx->debug_utils) exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  const char *layers[1] = {"VK_LAYER_KHRONOS_validation"};
  if (o->validation && !has_layer(layers[0])) {
    fprintf(stderr, "error: validation requested but VK_LAYER_KHRONOS_validation is not installed "
                    "(apt-get install vulkan-validationlayers)\n");
    exit(1);
  }
  if (o->validation && !ctx->debug_utils) {
    fprintf(stderr, "error: validation requested but VK_EXT_debug_utils is missing\n");
    exit(1);
  }
  ctx->validation = o->validation;
  /* The libraries name their objects and label their command-buffer regions (one create flag:
   * SPLATSORT_CREATE_DEBUG_UTILS_BIT, SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT) where debug_utils is
   * on, except under a validation layer older than 1.3.243 (Debian 12 ships 1.3.239): its label
   * bookkeeping erases a freed command buffer's labels without its lock (Vulkan-ValidationLayers
   * issue 5172, fixed by pull request 5312 in February 2023), racing with the layer's own
   * queue threads, which retire submissions beside the application's thread; a label begun then
   * can crash inside the layer (issue 33: SIGBUS in std::string's move in
   * vkCmdBeginDebugUtilsLabelEXT, in a single-threaded test_sort and test_render). There the flag
   * is left off (validation messages name handles by number); SPLATSORT_DEBUG_LABELS=1 sets it
   * anyway. */
  ctx->debug_labels = ctx->debug_utils;
  if (o->validation && layer_version(layers[0]) < VK_MAKE_API_VERSION(0, 1, 3, 243) &&
      !(getenv("SPLATSORT_DEBUG_LABELS") && !strcmp(getenv("SPLATSORT_DEBUG_LABELS"), "1")))
    ctx->debug_labels = false;
  /* Synchronisation validation (hazards between commands, barriers that do not cover them)
   * through VK_EXT_validation_features, which the layer itself offers. */
  ctx->sync_validation = o->validation && o->sync_validation;
  if (ctx->sync_validation && !has_instance_extension(layers[0], VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
    fprintf(stderr, "error: synchronisation validation requested but the validation layer lacks %s "
                    "(SPLATSORT_SYNC_VALIDATION=0 runs without it)\n", VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    exit(1);
  }
  if (ctx->sync_validation) exts[next++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
  const VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "splatsort",
                           .apiVersion = VK_API_VERSION_1_3};
  VkDebugUtilsMessengerCreateInfoEXT mci = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
      .pfnUserCallback = on_message,
      .pUserData = ctx};
  VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = &mci,
                                      .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &sync};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                              .pNext = ctx->sync_validation ? (void *)&features : o->validation ? (void *)&mci : NULL,
                              .pApplicationInfo = &app, .enabledLayerCount = o->validation ? 1 : 0,
                              .ppEnabledLayerNames = layers, .enabledExtensionCount = next,
                              .ppEnabledExtensionNames = exts};
  note_driver_preloaded();
  VkResult r = vkCreateInstance(&ici, NULL, &ctx->instance);
  if (r != VK_SUCCESS) {
    fprintf(stderr, "error: no Vulkan instance (%s): is a Vulkan driver installed? "
                    "(apt-get install mesa-vulkan-drivers for the software one)\n", vkh_result_name(r));
    exit(1);
  }
  if (o->validation) {
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(ctx->instance, "vkCreateDebugUtilsMessengerEXT");
    VK_CHECK(create(ctx->instance, &mci, NULL, &ctx->messenger));
  }
}

/* SPLATSORT_DEVICE's index, else the first discrete GPU, else the first device. */
static void pick_device(vkh_context *ctx, const vkh_options *o) {
  VkResult r;
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(ctx->instance, &count, NULL));
  if (count == 0) {
    fprintf(stderr, "error: no Vulkan device found\n");
    exit(1);
  }
  VkPhysicalDevice devices[16];
  if (count > 16) count = 16;
  r = vkEnumeratePhysicalDevices(ctx->instance, &count, devices);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) VK_CHECK(r);
  uint32_t pick = 0;
  if (o->device_index >= 0) {
    if ((uint32_t)o->device_index >= count) {
      fprintf(stderr, "error: SPLATSORT_DEVICE=%d but only %u devices\n", o->device_index, count);
      exit(1);
    }
    pick = (uint32_t)o->device_index;
  } else {
    for (uint32_t i = 0; i < count; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devices[i], &p);
      if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
        pick = i;
        break;
      }
    }
  }
  ctx->physical_device = devices[pick];
  vkGetPhysicalDeviceProperties(ctx->physical_device, &ctx->props);
  check_driver_preloaded(&ctx->props);
  vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &ctx->memory);
  VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sub};
  vkGetPhysicalDeviceProperties2(ctx->physical_device, &p2);
  ctx->subgroup_size = sub.subgroupSize;
}

static void pick_queue_family(vkh_context *ctx) {
  uint32_t qf_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &qf_count, NULL);
  VkQueueFamilyProperties qf[16];
  if (qf_count > 16) qf_count = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &qf_count, qf);
  ctx->queue_family = UINT32_MAX;
  for (uint32_t i = 0; i < qf_count && ctx->queue_family == UINT32_MAX; i++)
    if ((qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) ctx->queue_family = i;
  if (ctx->queue_family == UINT32_MAX) {
    fprintf(stderr, "error: the device has no graphics+compute queue\n");
    exit(1);
  }
}

/* The device with what the sort library asks for (merged as a host would), the swapchain
 * where wanted, pipeline statistics where offered and the Vulkan 1.3 features we use (the
 * renderer's, splat_renderer_get_device_requirements: vkh does not link the renderer, so it
 * enables dynamic rendering and multiview wherever the device has them). What it enabled stays
 * in ctx (device_create_info) for the renderer's check. */
static void create_device(vkh_context *ctx, const vkh_options *o) {
  /* What the sort library needs, merged into our device create info as a host would. */
  splatsort_device_requirements req = {0};
  VK_CHECK(splatsort_get_device_requirements(ctx->physical_device, SPLATSORT_ALGORITHM_AUTO, &req));
  const char **dev_exts = ctx->device_extensions;
  req.extension_names = dev_exts;
  if (req.extension_count > 6) req.extension_count = 6;
  VK_CHECK(splatsort_get_device_requirements(ctx->physical_device, SPLATSORT_ALGORITHM_AUTO, &req));
  uint32_t dev_ext_count = req.extension_count;
  if (o->swapchain) dev_exts[dev_ext_count++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
  /* Pipeline statistics (registers, spills) for sortbench --pipeline-stats, where offered. */
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR *exec_props = &ctx->device_exec_props;
  *exec_props = (VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR){
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  bool want_exec = o->pipeline_statistics && device_has_extension(ctx->physical_device,
                                                                  VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (want_exec) {
    VkPhysicalDeviceFeatures2 q = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = exec_props};
    vkGetPhysicalDeviceFeatures2(ctx->physical_device, &q);
    exec_props->pNext = NULL;
    want_exec = exec_props->pipelineExecutableInfo;
  }
  if (want_exec) {
    dev_exts[dev_ext_count++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    ctx->pipeline_statistics = true;
  }

  /* Vulkan 1.3 features: dynamic rendering for the raster pass, subgroup size control for
   * the sort where the device offers it. */
  VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceFeatures2 feat2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f13};
  bool v13 = ctx->props.apiVersion >= VK_API_VERSION_1_3;
  if (v13) vkGetPhysicalDeviceFeatures2(ctx->physical_device, &feat2);
  VkPhysicalDeviceVulkan13Features *enable13 = &ctx->device_features13;
  *enable13 = (VkPhysicalDeviceVulkan13Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  enable13->dynamicRendering = f13.dynamicRendering;
  ctx->dynamic_rendering = f13.dynamicRendering;
  if (req.subgroup_size_control && f13.subgroupSizeControl && f13.computeFullSubgroups) {
    enable13->subgroupSizeControl = VK_TRUE;
    enable13->computeFullSubgroups = VK_TRUE;
    ctx->sort_features |= SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT;
  }
  /* Multiview (Vulkan 1.1) for the renderer's one-draw stereo, where the device has it. */
  VkPhysicalDeviceMultiviewFeatures mv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES};
  VkPhysicalDeviceFeatures2 mvq = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &mv};
  if (ctx->props.apiVersion >= VK_API_VERSION_1_1) vkGetPhysicalDeviceFeatures2(ctx->physical_device, &mvq);
  VkPhysicalDeviceMultiviewFeatures *enable_mv = &ctx->device_multiview;
  *enable_mv = (VkPhysicalDeviceMultiviewFeatures){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES,
                                                   .pNext = v13 ? enable13 : NULL, .multiview = mv.multiview};
  ctx->multiview = mv.multiview;
  VkPhysicalDeviceFeatures2 *enable2 = &ctx->device_features;
  *enable2 = (VkPhysicalDeviceFeatures2){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                         .pNext = mv.multiview ? (void *)enable_mv : (v13 ? (void *)enable13 : NULL)};
  if (want_exec) {
    exec_props->pNext = enable2->pNext;
    enable2->pNext = exec_props;
  }

  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = ctx->queue_family, .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = enable2,
                            .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                            .enabledExtensionCount = dev_ext_count, .ppEnabledExtensionNames = dev_exts};
  ctx->device_allocator = o->device_allocator;
  VK_CHECK(vkCreateDevice(ctx->physical_device, &dci, ctx->device_allocator, &ctx->device));
  ctx->device_create_info = dci;
  ctx->device_create_info.queueCreateInfoCount = 0; /* the queue infos were on the stack */
  ctx->device_create_info.pQueueCreateInfos = NULL;
  vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                 .queueFamilyIndex = ctx->queue_family};
  VK_CHECK(vkCreateCommandPool(ctx->device, &pci, NULL, &ctx->pool));
}

void vkh_init(vkh_context *ctx, const vkh_options *o) {
  memset(ctx, 0, sizeof *ctx);
  create_instance(ctx, o);
  pick_device(ctx, o);
  pick_queue_family(ctx);
  create_device(ctx, o);
  ssvk_device_init(&ctx->vk, NULL, ctx->physical_device, ctx->device, NULL, VK_NULL_HANDLE, vkh_sort_log, NULL, "vkh",
                   ctx->debug_labels);
}

uint32_t vkh_sort_flags(const vkh_context *ctx) { return ctx->debug_labels ? SPLATSORT_CREATE_DEBUG_UTILS_BIT : 0; }

void vkh_destroy(vkh_context *ctx) {
  if (ctx->device) {
    vkDeviceWaitIdle(ctx->device);
    vkh_buffer_destroy(ctx, &ctx->staging);
    vkDestroyCommandPool(ctx->device, ctx->pool, NULL);
    vkDestroyDevice(ctx->device, ctx->device_allocator);
  }
  if (ctx->messenger) {
    PFN_vkDestroyDebugUtilsMessengerEXT destroy =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(ctx->instance, "vkDestroyDebugUtilsMessengerEXT");
    destroy(ctx->instance, ctx->messenger, NULL);
  }
  if (ctx->instance) vkDestroyInstance(ctx->instance, NULL);
  ctx->device = VK_NULL_HANDLE;
  ctx->instance = VK_NULL_HANDLE;
}

uint32_t vkh_memory_type(vkh_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags props) {
  return ssvk_memory_type(&ctx->vk, type_bits, props);
}

void vkh_name(vkh_context *ctx, VkObjectType type, uint64_t handle, const char *name) {
  ssvk_name(&ctx->vk, type, handle, name);
}

vkh_buffer vkh_buffer_create(vkh_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                             const char *name) {
  return vkh_buffer_create_ex(ctx, size, usage, host_visible, false, name);
}

vkh_buffer vkh_buffer_create_ex(vkh_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                                bool dedicated, const char *name) {
  vkh_buffer b;
  VK_CHECK(ssvk_buffer_create(&ctx->vk, size ? size : 4,
                              usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, host_visible,
                              dedicated, name, &b));
  b.size = size;
  return b;
}

void vkh_buffer_destroy(vkh_context *ctx, vkh_buffer *b) { ssvk_buffer_destroy(&ctx->vk, b); }

/* Staged copies go through one host-visible buffer per context, kept and grown as needed:
 * freeing large host-visible allocations was measured to slow the GPU's memory traffic for
 * up to a second afterwards on NVIDIA (bench/results/2026-11-23-h100/SLOWMODE.md).
 * ctx->transient_staging brings back a fresh buffer per copy, for that experiment. */
static void staged_copy(vkh_context *ctx, vkh_buffer *b, VkDeviceSize offset, void *data, VkDeviceSize size,
                        bool to_device) {
  if (ctx->transient_staging || ctx->staging.size < size) {
    vkh_buffer_destroy(ctx, &ctx->staging);
    VkDeviceSize grown = ctx->transient_staging ? size : size < (1u << 20) ? (1u << 20) : size;
    ctx->staging = vkh_buffer_create(ctx, grown, 0, true, "staging");
  }
  vkh_buffer *staging = &ctx->staging;
  if (to_device) memcpy(staging->mapped, data, size);
  VkCommandBuffer cmd = vkh_begin(ctx);
  VkBufferCopy region = {.srcOffset = to_device ? 0 : offset, .dstOffset = to_device ? offset : 0, .size = size};
  vkCmdCopyBuffer(cmd, to_device ? staging->buffer : b->buffer, to_device ? b->buffer : staging->buffer, 1, &region);
  vkh_submit_wait(ctx, cmd);
  if (!to_device) memcpy(data, staging->mapped, size);
  if (ctx->transient_staging) vkh_buffer_destroy(ctx, staging);
}

void vkh_buffer_write(vkh_context *ctx, vkh_buffer *b, VkDeviceSize offset, const void *data, VkDeviceSize size) {
  if (size == 0) return;
  if (b->mapped)
    memcpy((char *)b->mapped + offset, data, size);
  else
    staged_copy(ctx, b, offset, (void *)(uintptr_t)data, size, true);
}

void vkh_buffer_read(vkh_context *ctx, vkh_buffer *b, VkDeviceSize offset, void *data, VkDeviceSize size) {
  if (size == 0) return;
  if (b->mapped)
    memcpy(data, (const char *)b->mapped + offset, size);
  else
    staged_copy(ctx, b, offset, data, size, false);
}

VkCommandBuffer vkh_begin(vkh_context *ctx) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = ctx->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  VkCommandBuffer cmd;
  VK_CHECK(vkAllocateCommandBuffers(ctx->device, &ai, &cmd));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
  return cmd;
}

void vkh_submit_wait(vkh_context *ctx, VkCommandBuffer cmd) {
  VK_CHECK(vkEndCommandBuffer(cmd));
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  VK_CHECK(vkQueueSubmit(ctx->queue, 1, &si, VK_NULL_HANDLE));
  VK_CHECK(vkQueueWaitIdle(ctx->queue));
  vkFreeCommandBuffers(ctx->device, ctx->pool, 1, &cmd);
}

uint32_t vkh_create_sorters(vkh_context *ctx, splatsort *out[VKH_MAX_SORTERS]) {
  uint32_t n = 0;
  const splatsort_algorithm algos[VKH_MAX_SORTERS] = {SPLATSORT_ALGORITHM_ONESWEEP, SPLATSORT_ALGORITHM_RADIX16,
                                                      SPLATSORT_ALGORITHM_MERGE, SPLATSORT_ALGORITHM_QUATERNARY};
  for (int i = 0; i < VKH_MAX_SORTERS; i++) {
    splatsort_create_info ci = {.physical_device = ctx->physical_device, .device = ctx->device,
                                .algorithm = algos[i], .enabled_features = ctx->sort_features,
                                .flags = vkh_sort_flags(ctx), .log = vkh_sort_log};
    splatsort_device_requirements req = {0};
    if (splatsort_get_device_requirements(ctx->physical_device, algos[i], &req) == VK_ERROR_FEATURE_NOT_PRESENT)
      continue; /* one the device cannot run (OneSweep, radix16 need subgroup ballots): quaternary remains */
    VK_CHECK(splatsort_create(&ci, &out[n]));
    n++;
  }
  return n;
}

void vkh_sort_log(void *user, const char *message) {
  (void)user;
  fprintf(stderr, "%s\n", message);
}
