/* host.c: the outside hosts' shared set-up (host.h). */
#include "host.h"

#include <math.h>
#include <string.h>

int validation_messages, library_messages;
const char *host_program = "render_consumer";

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  (void)severity, (void)type, (void)user;
  validation_messages++;
  fprintf(stderr, "%s: validation: %s\n", host_program, data->pMessage);
  return VK_FALSE;
}

void on_library_log(void *user, const char *message) {
  library_messages++;
  fprintf(stderr, "%s: %s: %s\n", host_program, (const char *)user, message);
}


static int env_on(const char *name, int fallback) {
  const char *v = getenv(name);
  return v && *v ? strcmp(v, "0") != 0 : fallback;
}

void create_instance(host *h) {
  int validation = env_on("SPLATSORT_VALIDATION", 0);
  int sync = validation && env_on("SPLATSORT_SYNC_VALIDATION", 1);
  const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
  const char *exts[2];
  uint32_t next = 0;
  if (validation) exts[next++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  if (sync) exts[next++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
  VkDebugUtilsMessengerCreateInfoEXT mci = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
      .pfnUserCallback = on_message};
  const VkValidationFeatureEnableEXT sync_feature = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = &mci,
                                      .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &sync_feature};
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = host_program,
                           .apiVersion = VK_API_VERSION_1_3};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                              .pNext = sync ? (void *)&features : validation ? (void *)&mci : NULL,
                              .pApplicationInfo = &app, .enabledLayerCount = validation ? 1 : 0,
                              .ppEnabledLayerNames = layers, .enabledExtensionCount = next, .ppEnabledExtensionNames = exts};
  VkResult r = vkCreateInstance(&ici, NULL, &h->instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) exit(77);
  CHECK_VK(r);
  if (validation) {
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(h->instance, "vkCreateDebugUtilsMessengerEXT");
    CHECK_VK(create(h->instance, &mci, NULL, &h->messenger));
  }
  printf("%s: validation %s, synchronisation validation %s\n", host_program, validation ? "on" : "off",
         sync ? "on" : "off");
}

/* The device: what the renderer asks for (splat_renderer_get_device_requirements: its own
 * extensions and features with those of the AUTO sorter it is given, and the limits it checks),
 * merged with what this host uses itself, as an engine builds its VkDeviceCreateInfo. */
void create_device(host *h) {
  uint32_t n = 1;
  VkResult r = vkEnumeratePhysicalDevices(h->instance, &n, &h->pd);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) exit(77);
  vkGetPhysicalDeviceMemoryProperties(h->pd, &h->mem);
  VkQueueFamilyProperties qf[16];
  uint32_t nq = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nq, qf);
  const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (h->family = 0; h->family < nq && (qf[h->family].queueFlags & want) != want; h->family++) {
  }
  if (h->family == nq) exit(77);
  splat_renderer_device_requirements req = {0};
  r = splat_renderer_get_device_requirements(h->pd, 0, &req);
  if (r == VK_ERROR_FEATURE_NOT_PRESENT) {
    fprintf(stderr, "%s: the device cannot run the renderer\n", host_program);
    exit(77);
  }
  CHECK_VK(r);
  req.extension_names = h->extensions;
  if (req.extension_count > 8) req.extension_count = 8;
  CHECK_VK(splat_renderer_get_device_requirements(h->pd, 0, &req));
  VkPhysicalDeviceVulkan13Features have13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceFeatures2 have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have13};
  vkGetPhysicalDeviceFeatures2(h->pd, &have);
  h->enable13 = (VkPhysicalDeviceVulkan13Features){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                                   .dynamicRendering = req.dynamic_rendering};
  if (req.subgroup_size_control && have13.subgroupSizeControl && have13.computeFullSubgroups) {
    h->enable13.subgroupSizeControl = h->enable13.computeFullSubgroups = VK_TRUE;
    h->sort_features = SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT;
  }
  h->enable = (VkPhysicalDeviceFeatures2){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &h->enable13};
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = h->family,
                                 .queueCount = 1, .pQueuePriorities = &prio};
  h->dci = (VkDeviceCreateInfo){.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &h->enable,
                                .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                                .enabledExtensionCount = req.extension_count, .ppEnabledExtensionNames = h->extensions};
  CHECK_VK(vkCreateDevice(h->pd, &h->dci, NULL, &h->device));
  h->dci.queueCreateInfoCount = 0, h->dci.pQueueCreateInfos = NULL; /* those were on the stack */
  vkGetDeviceQueue(h->device, h->family, 0, &h->queue);
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = h->family};
  CHECK_VK(vkCreateCommandPool(h->device, &pci, NULL, &h->pool));
}

uint32_t memory_type(const host *h, uint32_t bits, VkMemoryPropertyFlags props) {
  for (uint32_t i = 0; i < h->mem.memoryTypeCount; i++)
    if ((bits >> i & 1u) && (h->mem.memoryTypes[i].propertyFlags & props) == props) return i;
  fprintf(stderr, "%s: no memory type with properties 0x%x\n", host_program, (unsigned)props);
  exit(1);
}

VkDeviceMemory allocate(const host *h, VkMemoryRequirements mr, VkMemoryPropertyFlags props) {
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = memory_type(h, mr.memoryTypeBits, props)};
  VkDeviceMemory m;
  CHECK_VK(vkAllocateMemory(h->device, &mai, NULL, &m));
  return m;
}


image make_image(const host *h, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                        uint32_t w, uint32_t ht) {
  image im;
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = format, .extent = {w, ht, 1}, .mipLevels = 1, .arrayLayers = 1,
                           .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage};
  CHECK_VK(vkCreateImage(h->device, &ici, NULL, &im.image));
  VkMemoryRequirements mr;
  vkGetImageMemoryRequirements(h->device, im.image, &mr);
  im.memory = allocate(h, mr, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  CHECK_VK(vkBindImageMemory(h->device, im.image, im.memory, 0));
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = im.image,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                               .subresourceRange = {aspect, 0, 1, 0, 1}};
  CHECK_VK(vkCreateImageView(h->device, &vci, NULL, &im.view));
  return im;
}

void free_image(const host *h, image *im) {
  vkDestroyImageView(h->device, im->view, NULL);
  vkDestroyImage(h->device, im->image, NULL);
  vkFreeMemory(h->device, im->memory, NULL);
}

void barrier(VkCommandBuffer cmd, VkImage im, VkImageAspectFlags aspect, VkImageLayout from, VkImageLayout to,
                    VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                    VkAccessFlags dst_access) {
  VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
                            .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
                            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                            .image = im, .subresourceRange = {aspect, 0, 1, 0, 1}};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 0, NULL, 1, &b);
}

float half_to_float(uint16_t v) {
  uint32_t sign = (uint32_t)(v >> 15), exp = (v >> 10) & 31u, man = v & 1023u;
  float f = exp == 0 ? ldexpf((float)man, -24) : exp == 31 ? INFINITY : ldexpf((float)(man | 1024u), (int)exp - 25);
  return sign ? -f : f;
}

uint8_t to8(float v) { return (uint8_t)lrintf(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f); }

static int compare_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

int frame_scene(const splat_scene *s, uint32_t w, uint32_t ht, splat_camera *cam) {
  float centre[3], radius = 0;
  float *axis = malloc(sizeof(float) * s->count);
  if (!axis || s->count == 0) return free(axis), -1;
  for (int k = 0; k < 3; k++) {
    for (uint32_t i = 0; i < s->count; i++) axis[i] = s->positions[3 * i + k];
    qsort(axis, s->count, sizeof *axis, compare_float);
    float lo = axis[s->count / 10], hi = axis[s->count - 1 - s->count / 10];
    centre[k] = 0.5f * (lo + hi);
    radius += 0.25f * (hi - lo) * (hi - lo);
  }
  free(axis);
  radius = sqrtf(radius);
  const float eye[3] = {centre[0], centre[1], centre[2] - 2.0f * radius}, up[3] = {0, -1, 0};
  return splat_camera_look_at(cam, eye, centre, up, 50.0f, w, ht);
}
