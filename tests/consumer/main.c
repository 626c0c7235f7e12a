/* An outside host of the sort library, built as its own CMake project against the installed
 * package (find_package) or the source tree (add_subdirectory): its own instance and device
 * merging what the library asks for, no VK_EXT_debug_utils for the library, its own buffers;
 * it sorts direct and indirect counts and checks order and payloads on the CPU.
 *
 * With CONSUMER_DLOPEN it links no Vulkan loader symbol: it opens libvulkan.so.1 itself and
 * hands the library its vkGetInstanceProcAddr (splatsort_vulkan_functions), as a host that
 * loads Vulkan through volk does. Either way every device function the library asks for goes
 * through a wrapper that fails the run if the library asks for a debug-utils function the
 * host never enabled. With the validation layer (SPLATSORT_VALIDATION=1, synchronisation
 * validation included) its messages are counted through the layer's own debug-utils
 * messenger, which the library is not told of.
 * Exit status: 0 pass, 1 fail, 77 no Vulkan device. */
#ifdef CONSUMER_DLOPEN
#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#endif
#include <splatsort.h>
#include <splatsort_depth.h>

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_VK(expr)                                                                \
  do {                                                                                \
    VkResult r_ = (expr);                                                             \
    if (r_ != VK_SUCCESS) {                                                           \
      fprintf(stderr, "consumer: %s:%d: %s failed (%d)\n", __FILE__, __LINE__, #expr, r_); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static PFN_vkGetInstanceProcAddr gipa;
static PFN_vkGetDeviceProcAddr real_gdpa;
static int debug_asked, validation_messages;
/* Messages of this id are provoked on purpose (syncval_check) and counted apart. */
static const char *expected_id;
static int expected_messages;

/* Every Vulkan function this host uses, from the loader it chose. */
#define HOST_INSTANCE_FUNCTIONS(X)                                                             \
  X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice) X(vkDestroyInstance) X(vkGetDeviceProcAddr)
#define HOST_DEVICE_FUNCTIONS(X)                                                               \
  X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) \
  X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkCreateCommandPool) X(vkDestroyCommandPool)        \
  X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkQueueSubmit)                \
  X(vkQueueWaitIdle) X(vkCmdPipelineBarrier) X(vkCmdFillBuffer) X(vkDestroyDevice) X(vkDeviceWaitIdle)
#define DECLARE(name) static PFN_##name p_##name;
HOST_INSTANCE_FUNCTIONS(DECLARE)
HOST_DEVICE_FUNCTIONS(DECLARE)

/* The library's device functions pass through here: a debug-utils name means it called what
 * the host never enabled (the bug a library must not have). */
static PFN_vkVoidFunction VKAPI_CALL watched_gdpa(VkDevice device, const char *name) {
  if (strstr(name, "DebugUtils")) {
    debug_asked++;
    fprintf(stderr, "consumer: the library asked for %s without SPLATSORT_CREATE_DEBUG_UTILS_BIT\n", name);
  }
  return real_gdpa(device, name);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  (void)type, (void)user;
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    int expected = expected_id && data->pMessageIdName && strstr(data->pMessageIdName, expected_id);
    expected ? expected_messages++ : validation_messages++;
    fprintf(stderr, "consumer: VALIDATION%s: %s\n", expected ? " (expected)" : "", data->pMessage);
  }
  return VK_FALSE;
}

static void log_line(void *user, const char *message) {
  (void)user;
  fprintf(stderr, "consumer: splatsort: %s\n", message);
}

typedef struct host {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice pd;
  VkDevice device;
  VkQueue queue;
  uint32_t family;
  VkCommandPool pool;
  VkPhysicalDeviceMemoryProperties mem;
} host;

static void load_loader(void) {
#ifdef CONSUMER_DLOPEN
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "consumer: no libvulkan.so.1\n");
    exit(77);
  }
  gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
#else
  gipa = vkGetInstanceProcAddr;
#endif
}

static void create_instance(host *h) {
  int validation = getenv("SPLATSORT_VALIDATION") && strcmp(getenv("SPLATSORT_VALIDATION"), "0");
  const char *layer = "VK_LAYER_KHRONOS_validation";
  const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
  VkDebugUtilsMessengerCreateInfoEXT mci = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
      .pfnUserCallback = on_message};
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "splatsort consumer",
                           .apiVersion = VK_API_VERSION_1_2};
  /* With the layer, its synchronisation validation too (hazards between the library's
   * commands and the host's; syncval_check shows it is on). */
  const VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, .pNext = &mci,
                                      .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &sync};
  /* The messenger (chained at creation) sees the layer's messages; the library is not told
   * that debug utils exist, so it must not use them. */
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = validation ? &features : NULL,
                              .pApplicationInfo = &app, .enabledLayerCount = validation ? 1u : 0u,
                              .ppEnabledLayerNames = &layer, .enabledExtensionCount = validation ? 2u : 0u,
                              .ppEnabledExtensionNames = exts};
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
  if (!create || create(&ici, NULL, &h->instance) != VK_SUCCESS) {
    fprintf(stderr, "consumer: no Vulkan instance\n");
    exit(77);
  }
#define LOAD_INSTANCE(name) p_##name = (PFN_##name)gipa(h->instance, #name);
  HOST_INSTANCE_FUNCTIONS(LOAD_INSTANCE)
  real_gdpa = p_vkGetDeviceProcAddr;
  if (validation) {
    PFN_vkCreateDebugUtilsMessengerEXT make =
        (PFN_vkCreateDebugUtilsMessengerEXT)gipa(h->instance, "vkCreateDebugUtilsMessengerEXT");
    CHECK_VK(make(h->instance, &mci, NULL, &h->messenger));
  }
}

/* The device, with the extensions the library lists for its AUTO algorithm. */
static void create_device(host *h, const splatsort_vulkan_functions *fns) {
  uint32_t n = 1;
  VkResult r = p_vkEnumeratePhysicalDevices(h->instance, &n, &h->pd);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) exit(77);
  p_vkGetPhysicalDeviceMemoryProperties(h->pd, &h->mem);
  VkQueueFamilyProperties qf[16];
  uint32_t nq = 16;
  p_vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nq, qf);
  for (h->family = 0; h->family < nq && !(qf[h->family].queueFlags & VK_QUEUE_COMPUTE_BIT); h->family++) {
  }
  splatsort_device_requirements req = {0};
  const char *names[8];
  CHECK_VK(splatsort_get_device_requirements_with(fns, h->instance, h->pd, SPLATSORT_ALGORITHM_AUTO, &req));
  req.extension_names = names;
  if (req.extension_count > 8) req.extension_count = 8;
  CHECK_VK(splatsort_get_device_requirements_with(fns, h->instance, h->pd, SPLATSORT_ALGORITHM_AUTO, &req));
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = h->family,
                                 .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci, .enabledExtensionCount = req.extension_count,
                            .ppEnabledExtensionNames = names};
  CHECK_VK(p_vkCreateDevice(h->pd, &dci, NULL, &h->device));
#define LOAD_DEVICE(name) p_##name = (PFN_##name)p_vkGetDeviceProcAddr(h->device, #name);
  HOST_DEVICE_FUNCTIONS(LOAD_DEVICE)
  p_vkGetDeviceQueue(h->device, h->family, 0, &h->queue);
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = h->family};
  CHECK_VK(p_vkCreateCommandPool(h->device, &pci, NULL, &h->pool));
}

typedef struct buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void *mapped;
} buffer;

/* Host-visible and coherent: simple for a test, and what an integrated GPU would use. */
static buffer make_buffer(host *h, VkDeviceSize size, VkBufferUsageFlags usage) {
  buffer b = {0};
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size ? size : 4, .usage = usage};
  CHECK_VK(p_vkCreateBuffer(h->device, &bci, NULL, &b.buffer));
  VkMemoryRequirements mr;
  p_vkGetBufferMemoryRequirements(h->device, b.buffer, &mr);
  VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = 0;
  while (type < h->mem.memoryTypeCount &&
         !((mr.memoryTypeBits >> type & 1u) && (h->mem.memoryTypes[type].propertyFlags & want) == want))
    type++;
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = type};
  CHECK_VK(p_vkAllocateMemory(h->device, &mai, NULL, &b.memory));
  CHECK_VK(p_vkBindBufferMemory(h->device, b.buffer, b.memory, 0));
  CHECK_VK(p_vkMapMemory(h->device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
  return b;
}

static void free_buffer(host *h, buffer *b) {
  p_vkDestroyBuffer(h->device, b->buffer, NULL);
  p_vkFreeMemory(h->device, b->memory, NULL);
}

static VkCommandBuffer begin(host *h) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = h->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  VkCommandBuffer cmd;
  CHECK_VK(p_vkAllocateCommandBuffers(h->device, &ai, &cmd));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK_VK(p_vkBeginCommandBuffer(cmd, &bi));
  return cmd;
}

/* After the library's work: its writes (COMPUTE_SHADER / SHADER_WRITE) made visible to the
 * host, then submit and wait. */
static void submit_and_read(host *h, VkCommandBuffer cmd) {
  VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                           .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  p_vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, NULL,
                         0, NULL);
  CHECK_VK(p_vkEndCommandBuffer(cmd));
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  CHECK_VK(p_vkQueueSubmit(h->queue, 1, &submit, VK_NULL_HANDLE));
  CHECK_VK(p_vkQueueWaitIdle(h->queue));
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_random(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* One sort of n random pairs (the count given directly or, indirect, written by a GPU fill
 * before the sort, as a host's own compute pass would); checks the result on the CPU. */
static int sort_and_check(host *h, const splatsort *sorter, uint32_t n, int indirect) {
  const uint32_t max_count = 100000;
  splatsort_memory_requirements mr;
  CHECK_VK(splatsort_get_memory_requirements(sorter, max_count, &mr));
  buffer kv = make_buffer(h, 4 * mr.keyval_size, mr.keyval_usage);
  buffer internal = make_buffer(h, mr.internal_size, mr.internal_usage);
  buffer count = make_buffer(h, 256, mr.count_usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  uint32_t *keys = kv.mapped, *vals = keys + mr.keyval_size / 4;
  for (uint32_t i = 0; i < n; i++) keys[i] = next_random(), vals[i] = i;

  VkCommandBuffer cmd = begin(h);
  if (indirect) p_vkCmdFillBuffer(cmd, count.buffer, 64, 4, n);
  /* before: host writes (and the fill) visible to the sort's compute reads */
  VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                            .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
  p_vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &before, 0, NULL, 0, NULL);
  VkDeviceSize region = mr.keyval_size;
  splatsort_sort_info si = {.max_count = max_count, .count = indirect ? 0 : n, .key_bits = 32,
                            .keys = {kv.buffer, 0, region}, .values = {kv.buffer, region, region},
                            .tmp_keys = {kv.buffer, 2 * region, region},
                            .tmp_values = {kv.buffer, 3 * region, region},
                            .internal = {internal.buffer, 0, mr.internal_size}};
  if (indirect) si.count_buffer = (splatsort_buffer){count.buffer, 64, 4};
  splatsort_result where;
  CHECK_VK(splatsort_cmd_sort(sorter, cmd, &si, &where));
  uint32_t *in_keys = malloc(4ull * (n + 1));
  memcpy(in_keys, keys, 4ull * n);
  submit_and_read(h, cmd);

  const uint32_t *ok = (const uint32_t *)((const char *)kv.mapped + where.keys.offset);
  const uint32_t *ov = (const uint32_t *)((const char *)kv.mapped + where.values.offset);
  int bad = 0;
  for (uint32_t i = 0; i < n && !bad; i++) {
    /* stable: (key, input index) strictly increasing, and each key its payload's input key */
    bad = ov[i] >= n || ok[i] != in_keys[ov[i]] || (i > 0 && (ok[i - 1] > ok[i] || (ok[i - 1] == ok[i] && ov[i - 1] >= ov[i])));
    if (bad) fprintf(stderr, "consumer: %s sort of %u: wrong at %u\n", indirect ? "indirect" : "direct", n, i);
  }
  free(in_keys);
  free_buffer(h, &kv);
  free_buffer(h, &internal);
  free_buffer(h, &count);
  return bad;
}

/* Vulkan-style perspective (clip w = view depth) times a view that looks down +z from
 * (0, 0, -5): clip = P * (x, y, z + 5). Column-major. */
static void view_proj(float m[16]) {
  const float f = 1.5f, n = 0.1f, far = 1000.0f;
  memset(m, 0, 16 * sizeof(float));
  m[0] = f, m[5] = f, m[10] = far / (far - n), m[11] = 1.0f;
  m[14] = -far * n / (far - n) + 5.0f * m[10];
  m[15] = 5.0f;
}

/* The stage over n centres (float4: x, y, z, opacity) with its count given directly or by
 * the GPU, writing the visible count into a draw command's instanceCount; checks the visible
 * set and the back-to-front order on the CPU. */
static int depth_stage_check(host *h, const splatsort_depth *stage, uint32_t n, uint32_t key_bits, int indirect) {
  const uint32_t max_count = 50000;
  splatsort_depth_memory_requirements mr;
  CHECK_VK(splatsort_depth_get_memory_requirements(stage, max_count, &mr));
  buffer centres = make_buffer(h, 16ull * max_count, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  buffer scratch = make_buffer(h, mr.scratch_size, mr.scratch_usage);
  buffer indices = make_buffer(h, mr.indices_size, mr.indices_usage);
  buffer draw = make_buffer(h, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  float *c = centres.mapped, m[16];
  view_proj(m);
  float *w_of = malloc(sizeof(float) * (n + 1));
  uint8_t *visible = calloc(n + 1, 1);
  uint32_t expect = 0;
  for (uint32_t i = 0; i < n; i++) {
    /* a box around the view, kept clear of the cull boundaries so float rounding cannot flip one */
    float x, y, z, wv, lim;
    do {
      x = (float)(next_random() % 20000) / 1000.0f - 10.0f;
      y = (float)(next_random() % 20000) / 1000.0f - 10.0f;
      z = (float)(next_random() % 40000) / 1000.0f - 10.0f;
      wv = z + 5.0f, lim = 1.3f * wv;
    } while (fabsf(wv - 0.2f) < 1e-2f || fabsf(fabsf(1.5f * x) - lim) < 1e-2f || fabsf(fabsf(1.5f * y) - lim) < 1e-2f);
    float opacity = (i % 7 == 0) ? 0.001f : 0.5f;
    c[4 * i] = x, c[4 * i + 1] = y, c[4 * i + 2] = z, c[4 * i + 3] = opacity;
    w_of[i] = wv;
    visible[i] = wv > 0.2f && fabsf(1.5f * x) <= lim && fabsf(1.5f * y) <= lim && opacity >= 1.0f / 255.0f;
    expect += visible[i];
  }
  uint32_t *cnt = draw.mapped;
  cnt[32] = n; /* the indirect splat count, at byte 128 */

  VkCommandBuffer cmd = begin(h);
  p_vkCmdFillBuffer(cmd, draw.buffer, 0, 16, 4); /* the host's own work: draw args (4, ?, 4, 4) */
  VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                            .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  p_vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &before, 0, NULL, 0, NULL);
  splatsort_depth_info di = {.max_count = max_count, .count = indirect ? 0 : n,
                             .centers = {centres.buffer, 0, 16ull * max_count}, .center_stride = 16,
                             .opacity_cull = 1, .near_w = 0.2f, .key_bits = key_bits,
                             .scratch = {scratch.buffer, 0, mr.scratch_size},
                             .indices = {indices.buffer, 0, mr.indices_size}, .draw_count = {draw.buffer, 4, 4}};
  if (indirect) di.count_buffer = (splatsort_buffer){draw.buffer, 128, 4};
  memcpy(di.view_proj, m, sizeof m);
  CHECK_VK(splatsort_depth_cmd_sort(stage, cmd, &di, NULL));
  submit_and_read(h, cmd);

  int bad = cnt[1] != expect || cnt[0] != 4;
  if (bad) fprintf(stderr, "consumer: depth stage: %u visible, expected %u (draw %u)\n", cnt[1], expect, cnt[0]);
  const uint32_t *idx = indices.mapped;
  /* each visible splat once; back to front: w non-increasing (quantised keys: within one step) */
  float wmin = 1e30f, wmax = 0.0f;
  for (uint32_t i = 0; i < n; i++)
    if (visible[i]) wmin = fminf(wmin, w_of[i]), wmax = fmaxf(wmax, w_of[i]);
  float tol = key_bits < 32 ? 2.0f * (wmax - wmin) / (float)((1u << key_bits) - 1) : 0.0f;
  for (uint32_t k = 0; k < cnt[1] && k < expect && !bad; k++) {
    uint32_t i = idx[k];
    bad = i >= n || visible[i] != 1 || (k > 0 && w_of[i] > w_of[idx[k - 1]] + tol);
    if (i < n) visible[i] = 2;
    if (bad) fprintf(stderr, "consumer: depth stage (%u bits): wrong index %u at %u\n", key_bits, i, k);
  }
  free(w_of);
  free(visible);
  free_buffer(h, &centres);
  free_buffer(h, &scratch);
  free_buffer(h, &indices);
  free_buffer(h, &draw);
  return bad;
}

/* Two fills of one range with no barrier between them: synchronisation validation must call
 * it a write-after-write hazard, or the silence of the checks above would mean nothing. */
static int syncval_check(host *h) {
  buffer b = make_buffer(h, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  expected_id = "SYNC-HAZARD-WRITE-AFTER-WRITE";
  VkCommandBuffer cmd = begin(h);
  p_vkCmdFillBuffer(cmd, b.buffer, 0, 256, 1);
  p_vkCmdFillBuffer(cmd, b.buffer, 0, 256, 2);
  CHECK_VK(p_vkEndCommandBuffer(cmd));
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  CHECK_VK(p_vkQueueSubmit(h->queue, 1, &submit, VK_NULL_HANDLE));
  CHECK_VK(p_vkQueueWaitIdle(h->queue));
  expected_id = NULL;
  free_buffer(h, &b);
  if (expected_messages == 0) fprintf(stderr, "consumer: synchronisation validation missed a hazard: is it on?\n");
  return expected_messages == 0;
}

/* A device made without what the library asked for: create must fail and say what is missing
 * (on a Vulkan 1.4 device push descriptors are core, so create may succeed there). */
static int missing_extension_check(host *h, const splatsort_vulkan_functions *fns) {
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = h->family,
                                 .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci};
  VkDevice bare;
  CHECK_VK(p_vkCreateDevice(h->pd, &dci, NULL, &bare));
  splatsort_create_info ci = {.physical_device = h->pd, .device = bare, .log = log_line, .instance = h->instance,
                              .vulkan_functions = fns};
  splatsort *s = NULL;
  VkResult r = splatsort_create(&ci, &s);
  VkPhysicalDeviceProperties props;
  p_vkGetPhysicalDeviceProperties(h->pd, &props);
  int bad = props.apiVersion < VK_MAKE_API_VERSION(0, 1, 4, 0) && (r != VK_ERROR_EXTENSION_NOT_PRESENT || s);
  if (bad) fprintf(stderr, "consumer: a device without VK_KHR_push_descriptor gave %d\n", r);
  splatsort_destroy(s);
  PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)p_vkGetDeviceProcAddr(bare, "vkDestroyDevice");
  destroy(bare, NULL);
  return bad;
}

int main(void) {
  host h = {0};
  load_loader();
  create_instance(&h);
  splatsort_vulkan_functions fns = {.vkGetInstanceProcAddr = gipa, .vkGetDeviceProcAddr = watched_gdpa};
  create_device(&h, &fns);
  printf("consumer: splatsort %u.%u.%u (header %u.%u.%u)\n", splatsort_get_version() >> 22,
         splatsort_get_version() >> 12 & 1023, splatsort_get_version() & 4095, SPLATSORT_VERSION_MAJOR,
         SPLATSORT_VERSION_MINOR, SPLATSORT_VERSION_PATCH);
  int failed = splatsort_get_version() != SPLATSORT_VERSION;
  failed |= missing_extension_check(&h, &fns);
  if (h.messenger) failed |= syncval_check(&h);
  /* AUTO (told the largest count, and verified at create by the self-test on our queue) and
   * every algorithm by name, as a host picks them from its configuration */
  const char *const names[] = {"auto", "quaternary", "radix16", "merge"};
  for (int a = 0; a < 4; a++) {
    splatsort_algorithm algo;
    if (!splatsort_algorithm_from_name(names[a], &algo)) {
      fprintf(stderr, "consumer: '%s' is not an algorithm name\n", names[a]);
      return 1;
    }
    splatsort_self_test self_test = {.type = SPLATSORT_STRUCTURE_TYPE_SELF_TEST, .queue = h.queue,
                                     .queue_family_index = h.family};
    splatsort_auto_hint hint = {.type = SPLATSORT_STRUCTURE_TYPE_AUTO_HINT, .next = &self_test, .max_count = 99999};
    splatsort_create_info ci = {.next = algo == SPLATSORT_ALGORITHM_AUTO ? &hint : NULL, .physical_device = h.pd,
                                .device = h.device, .algorithm = algo, .log = log_line, .instance = h.instance,
                                .vulkan_functions = &fns};
    splatsort *sorter;
    CHECK_VK(splatsort_create(&ci, &sorter));
    const uint32_t sizes[] = {0, 1, 1000, 99999};
    for (int s = 0; s < 4; s++)
      for (int indirect = 0; indirect < 2; indirect++) failed |= sort_and_check(&h, sorter, sizes[s], indirect);
    printf("consumer: %s sorts checked\n", splatsort_algorithm_name(splatsort_get_algorithm(sorter)));
    splatsort_depth_create_info dci = {.sorter = sorter, .log = log_line};
    splatsort_depth *stage;
    CHECK_VK(splatsort_depth_create(&dci, &stage));
    const uint32_t counts[] = {0, 1, 777, 50000};
    for (int k = 0; k < 4; k++) {
      failed |= depth_stage_check(&h, stage, counts[k], 32, k & 1);
      failed |= depth_stage_check(&h, stage, counts[k], k < 2 ? 16 : 24, !(k & 1));
    }
    printf("consumer: %s depth stage checked\n", splatsort_algorithm_name(splatsort_get_algorithm(sorter)));
    splatsort_depth_destroy(stage);
    splatsort_destroy(sorter);
  }
  p_vkDeviceWaitIdle(h.device);
  p_vkDestroyCommandPool(h.device, h.pool, NULL);
  p_vkDestroyDevice(h.device, NULL);
  if (h.messenger)
    ((PFN_vkDestroyDebugUtilsMessengerEXT)gipa(h.instance, "vkDestroyDebugUtilsMessengerEXT"))(h.instance, h.messenger,
                                                                                            NULL);
  p_vkDestroyInstance(h.instance, NULL);
  if (debug_asked || validation_messages) failed = 1;
  printf("consumer: %s (%d validation messages, %d provoked hazard reports, %d debug-utils lookups)\n",
         failed ? "FAIL" : "PASS", validation_messages, expected_messages, debug_asked);
  return failed;
}
