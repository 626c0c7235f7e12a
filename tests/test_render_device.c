/* test_render_device.c: what the renderer needs of a device (splat_renderer_get_device_requirements)
 * and its refusal of a device without it: the two-call list, a device made without dynamicRendering
 * (one log line, an error, no handle and no validation message), a create info that leaves out an
 * extension or a feature, a limit below the requirement (the device's properties lowered through
 * the host's Vulkan functions), a queue family without timestamps or out of range. And the limits
 * themselves against the renderer's SPIR-V: every shader's shared memory, workgroup size and
 * storage buffers within them, the largest equal to them (RENDER_SPV_DIR: the build's shaders). */
#include "render_common.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static splatsort *quaternary_on(VkDevice device) {
  splatsort_create_info ci = {.physical_device = ctx.physical_device, .device = device,
                              .algorithm = SPLATSORT_ALGORITHM_QUATERNARY, .log = renderer_log};
  splatsort *s = NULL;
  VK_CHECK(splatsort_create(&ci, &s));
  return s;
}

/* splat_renderer_create(ci) refused with `want`, *out NULL, one log line holding `says`, and no
 * validation message. */
static void expect_refusal(const char *what, const splat_renderer_create_info *ci, VkResult want, const char *says) {
  splat_renderer *out = (splat_renderer *)(uintptr_t)1;
  uint32_t logs = log_messages, validation = ctx.validation_messages;
  last_log[0] = 0;
  VkResult res = splat_renderer_create(ci, &out);
  CHECK(res == want && out == NULL, "%s: %s with %p, expected %s and NULL", what, ssvk_result_name(res), (void *)out,
        ssvk_result_name(want));
  CHECK(log_messages == logs + 1 && strstr(last_log, says), "%s: %u log lines, the last '%s' (expected one naming '%s')",
        what, log_messages - logs, last_log, says);
  CHECK(ctx.validation_messages == validation, "%s: %u validation messages", what, ctx.validation_messages - validation);
  printf("  %s: %s: %s\n", what, ssvk_result_name(res), last_log);
}

/* ---- a device whose properties report a lower limit (the host's Vulkan functions) ------------- */

static PFN_vkGetPhysicalDeviceProperties real_properties;
static uint32_t lowered_shared;

static VKAPI_ATTR void VKAPI_CALL lowered_properties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p) {
  real_properties(pd, p);
  p->limits.maxComputeSharedMemorySize = lowered_shared;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL lowered_instance_proc(VkInstance instance, const char *name) {
  if (!strcmp(name, "vkGetPhysicalDeviceProperties")) {
    real_properties = (PFN_vkGetPhysicalDeviceProperties)vkGetInstanceProcAddr(instance, name);
    return (PFN_vkVoidFunction)lowered_properties;
  }
  return vkGetInstanceProcAddr(instance, name);
}

static const splatsort_vulkan_functions lowered_functions = {lowered_instance_proc, vkGetDeviceProcAddr};

/* ---- the SPIR-V: shared memory, workgroup size, storage buffers -------------------------------- */

typedef struct spirv_use {
  uint64_t shared_bytes;
  uint32_t local[3];   /* 0: not a compute shader */
  uint32_t storage_buffers;
} spirv_use;

enum { SPV_MAX_IDS = 1 << 16 };

/* What one module declares: the Workgroup variables' bytes (types laid out without padding: the
 * least any driver needs), the LocalSize execution mode, the StorageBuffer variables. Returns 0,
 * or -1 for a module it cannot read. */
static int spirv_read(const uint32_t *w, size_t n, spirv_use *u) {
  memset(u, 0, sizeof *u);
  if (n < 5 || w[0] != 0x07230203u || w[3] > SPV_MAX_IDS) return -1;
  uint64_t *size = calloc(SPV_MAX_IDS, sizeof *size), *value = calloc(SPV_MAX_IDS, sizeof *value);
  uint32_t *pointee = calloc(SPV_MAX_IDS, sizeof *pointee);
  if (!size || !value || !pointee) return free(size), free(value), free(pointee), -1;
  int rc = 0;
  for (size_t i = 5; i < n;) {
    uint32_t op = w[i] & 0xffffu, wc = w[i] >> 16;
    const uint32_t *a = w + i + 1;
    if (wc == 0 || i + wc > n) {
      rc = -1;
      break;
    }
    uint32_t id = wc > 1 ? a[0] % SPV_MAX_IDS : 0;
    switch (op) {
    case 20: size[id] = 4; break;                                               /* OpTypeBool */
    case 21: case 22: size[id] = a[1] / 8; break;                               /* OpTypeInt, OpTypeFloat */
    case 23: case 24: size[id] = size[a[1] % SPV_MAX_IDS] * a[2]; break;       /* OpTypeVector, Matrix */
    case 28: size[id] = size[a[1] % SPV_MAX_IDS] * value[a[2] % SPV_MAX_IDS]; break; /* OpTypeArray */
    case 30:                                                                    /* OpTypeStruct */
      for (uint32_t k = 1; k + 1 < wc; k++) size[id] += size[a[k] % SPV_MAX_IDS];
      break;
    case 32: pointee[id] = a[2] % SPV_MAX_IDS; break;                           /* OpTypePointer */
    case 43: case 50: value[a[1] % SPV_MAX_IDS] = a[2]; break;                 /* OpConstant, OpSpecConstant */
    case 59:                                                                    /* OpVariable */
      if (a[2] == 4) u->shared_bytes += size[pointee[a[0] % SPV_MAX_IDS]];     /* Workgroup */
      if (a[2] == 12) u->storage_buffers++;                                     /* StorageBuffer */
      break;
    case 16:                                                                    /* OpExecutionMode */
      if (a[1] == 17) u->local[0] = a[2], u->local[1] = a[3], u->local[2] = a[4]; /* LocalSize */
      break;
    }
    i += wc;
  }
  free(size), free(value), free(pointee);
  return rc;
}

/* glslc -mfmt=c's text: "{0x07230203,0x...,...}". */
static uint32_t *read_inc(const char *path, size_t *count) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1024, n = 0;
  uint32_t *w = malloc(cap * sizeof *w);
  char token[16];
  size_t t = 0;
  for (int ch; w;) {
    ch = fgetc(f);
    if (ch != EOF && (isxdigit(ch) || ch == 'x' || ch == 'X')) {
      if (t < sizeof token - 1) token[t++] = (char)ch;
      continue;
    }
    if (t) {
      token[t] = 0;
      t = 0;
      if (n == cap) {
        uint32_t *more = realloc(w, (cap *= 2) * sizeof *w);
        if (!more) free(w);
        w = more;
        if (!w) break;
      }
      w[n++] = (uint32_t)strtoul(token, NULL, 16);
    }
    if (ch == EOF) break;
  }
  fclose(f);
  *count = n;
  return w;
}

static void limits_against_spirv(const splat_renderer_device_requirements *req) {
  DIR *d = opendir(RENDER_SPV_DIR);
  CHECK(d != NULL, "cannot open %s", RENDER_SPV_DIR);
  if (!d) return;
  uint64_t most_shared = 0;
  uint32_t most_invocations = 0, most_buffers = 0, modules = 0;
  char most_shared_name[256] = "";
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".inc")) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", RENDER_SPV_DIR, e->d_name);
    size_t n = 0;
    uint32_t *w = read_inc(path, &n);
    spirv_use u;
    CHECK(w && spirv_read(w, n, &u) == 0, "%s: not SPIR-V this test reads", path);
    free(w);
    if (!w) continue;
    modules++;
    uint32_t inv = u.local[0] * u.local[1] * u.local[2];
    CHECK(u.shared_bytes <= req->max_compute_shared_memory_size, "%s: %llu bytes of shared memory, above the %u required",
          e->d_name, (unsigned long long)u.shared_bytes, req->max_compute_shared_memory_size);
    CHECK(inv <= req->max_compute_work_group_invocations && u.local[0] <= req->max_compute_work_group_size[0] &&
              u.local[1] <= req->max_compute_work_group_size[1] && u.local[2] <= req->max_compute_work_group_size[2],
          "%s: workgroup %ux%ux%u beyond the requirements", e->d_name, u.local[0], u.local[1], u.local[2]);
    CHECK(u.storage_buffers <= req->max_per_stage_descriptor_storage_buffers, "%s: %u storage buffers, above %u",
          e->d_name, u.storage_buffers, req->max_per_stage_descriptor_storage_buffers);
    if (u.shared_bytes > most_shared) {
      most_shared = u.shared_bytes;
      snprintf(most_shared_name, sizeof most_shared_name, "%s", e->d_name);
    }
    if (inv > most_invocations) most_invocations = inv;
    if (u.storage_buffers > most_buffers) most_buffers = u.storage_buffers;
  }
  closedir(d);
  CHECK(modules >= 10, "%u shaders in %s", modules, RENDER_SPV_DIR);
  /* the requirements are the shaders' largest, not a guess above them */
  CHECK(most_shared == req->max_compute_shared_memory_size,
        "the largest shared memory is %llu bytes (%s), the requirement %u", (unsigned long long)most_shared,
        most_shared_name, req->max_compute_shared_memory_size);
  CHECK(most_invocations == req->max_compute_work_group_invocations, "the largest workgroup is %u invocations, the "
        "requirement %u", most_invocations, req->max_compute_work_group_invocations);
  printf("  %u shaders: at most %llu bytes of shared memory (%s), %u invocations, %u storage buffers\n", modules,
         (unsigned long long)most_shared, most_shared_name, most_invocations, most_buffers);
}

/* ---- the test --------------------------------------------------------------------------------- */

void render_test_device(const render_args *args) {
  (void)args;
  /* the query: two calls, what lavapipe offers */
  splat_renderer_device_requirements req = {0};
  CHECK(splat_renderer_get_device_requirements(ctx.physical_device, 0, &req) == VK_SUCCESS, "requirements");
  uint32_t n = req.extension_count;
  const char *names[16] = {0};
  CHECK(n >= 1 && n <= 16, "%u extensions", n);
  req.extension_names = names;
  req.extension_count = 0;
  CHECK(splat_renderer_get_device_requirements(ctx.physical_device, 0, &req) == VK_INCOMPLETE &&
            req.extension_count == 0, "no room: VK_INCOMPLETE with 0 written");
  req.extension_count = 16;
  CHECK(splat_renderer_get_device_requirements(ctx.physical_device, 0, &req) == VK_SUCCESS && req.extension_count == n,
        "the list: %u names", req.extension_count);
  int push = 0;
  for (uint32_t i = 0; i < req.extension_count; i++) {
    push += names[i] && !strcmp(names[i], VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    for (uint32_t k = 0; k < i; k++) CHECK(strcmp(names[i], names[k]), "%s listed twice", names[i]);
    printf("  requires %s\n", names[i]);
  }
  CHECK(push == 1, "VK_KHR_push_descriptor (lavapipe offers it) is not listed once");
  CHECK(req.api_version == VK_API_VERSION_1_3 && req.dynamic_rendering && !req.multiview, "api %u.%u, features %u %u",
        VK_API_VERSION_MAJOR(req.api_version), VK_API_VERSION_MINOR(req.api_version), req.dynamic_rendering,
        req.multiview);
  printf("  limits: %u invocations (%u x %u x %u), %u bytes shared, %u bytes of push constants, %u storage buffers\n",
         req.max_compute_work_group_invocations, req.max_compute_work_group_size[0], req.max_compute_work_group_size[1],
         req.max_compute_work_group_size[2], req.max_compute_shared_memory_size, req.max_push_constants_size,
         req.max_per_stage_descriptor_storage_buffers);
  CHECK(req.max_push_constants_size >= 4 && req.max_push_constants_size <= 128, "push constants %u bytes",
        req.max_push_constants_size);
  splat_renderer_device_requirements mv = {0};
  VkResult mres = splat_renderer_get_device_requirements(ctx.physical_device, SPLAT_RENDERER_CREATE_MULTIVIEW_BIT, &mv);
  CHECK(mv.multiview && mres == (ctx.multiview ? VK_SUCCESS : VK_ERROR_FEATURE_NOT_PRESENT), "multiview: %u, %s",
        mv.multiview, ssvk_result_name(mres));
  CHECK(splat_renderer_get_device_requirements(ctx.physical_device, 1u << 30, &mv) == VK_ERROR_VALIDATION_FAILED_EXT,
        "an unknown flag accepted");
  CHECK(splat_renderer_get_device_requirements(VK_NULL_HANDLE, 0, &mv) == VK_ERROR_VALIDATION_FAILED_EXT &&
            splat_renderer_get_device_requirements(ctx.physical_device, 0, NULL) == VK_ERROR_VALIDATION_FAILED_EXT,
        "NULL arguments accepted");
  limits_against_spirv(&req);

  /* a device made without dynamicRendering, as a host that forgot it makes it: refused before
   * anything is made, so the validation layer has nothing to say */
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = ctx.queue_family,
                                 .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo plain = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci, .enabledExtensionCount = req.extension_count,
                              .ppEnabledExtensionNames = names};
  VkDevice dev;
  VK_CHECK(vkCreateDevice(ctx.physical_device, &plain, NULL, &dev));
  VkQueue queue;
  vkGetDeviceQueue(dev, ctx.queue_family, 0, &queue);
  splatsort *plain_sort = quaternary_on(dev);
  const splatsort *plain_sorters[1] = {plain_sort};
  splat_renderer_create_info pci = {.physical_device = ctx.physical_device, .device = dev, .device_create_info = &plain,
                                    .queue = queue, .queue_family = ctx.queue_family, .sorters = plain_sorters,
                                    .sorter_count = 1, .log = renderer_log};
  expect_refusal("a device made without dynamicRendering", &pci, VK_ERROR_FEATURE_NOT_PRESENT, "dynamicRendering");
  splatsort_destroy(plain_sort);
  vkDestroyDevice(dev, NULL);

  /* on the test's own device: what the create info says it enabled, and the device's limits */
  splatsort *qs = quaternary_on(ctx.device);
  const splatsort *sorters[1] = {qs};
  splat_renderer_create_info ok = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = sorters, .sorter_count = 1,
                                   .log = renderer_log};
  splat_renderer_create_info ci = ok;
  /* without the host's create info (0.2 hosts): what the physical device offers is checked, and
   * this one offers everything */
  ci.device_create_info = NULL;
  {
    splat_renderer *r = NULL;
    CHECK(splat_renderer_create(&ci, &r) == VK_SUCCESS && r, "no device_create_info on a capable device refused");
    splat_renderer_destroy(r);
  }
  VkDeviceCreateInfo wrong = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
  ci.device_create_info = &wrong;
  expect_refusal("a device_create_info that is not one", &ci, VK_ERROR_VALIDATION_FAILED_EXT, "device_create_info");
  VkDeviceCreateInfo said = ctx.device_create_info;
  said.pNext = NULL;
  ci.device_create_info = &said;
  expect_refusal("a create info without features", &ci, VK_ERROR_FEATURE_NOT_PRESENT, "dynamicRendering");
  VkPhysicalDeviceDynamicRenderingFeatures dr = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES,
                                                 .dynamicRendering = VK_TRUE};
  said.pNext = &dr;
  said.enabledExtensionCount = 0;
  expect_refusal("a create info without extensions", &ci, VK_ERROR_EXTENSION_NOT_PRESENT,
                 VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (ctx.multiview && ctx.dynamic_rendering) {
    said = ctx.device_create_info;
    said.pNext = &dr; /* dynamic rendering (its own structure), no multiview */
    ci.flags = SPLAT_RENDERER_CREATE_STEREO_BIT | SPLAT_RENDERER_CREATE_MULTIVIEW_BIT;
    ci.host_color_format = SPLAT_TARGET_FORMAT;
    expect_refusal("multiview asked, not enabled", &ci, VK_ERROR_FEATURE_NOT_PRESENT, "multiview");
  }
  ci = ok;
  ci.queue_family = 1000;
  expect_refusal("a queue family out of range", &ci, VK_ERROR_FEATURE_NOT_PRESENT, "queue_family 1000");
  /* a limit below the requirement: the device's properties lowered by one byte */
  lowered_shared = req.max_compute_shared_memory_size - 1;
  ci = ok;
  ci.instance = ctx.instance;
  ci.vulkan_functions = &lowered_functions;
  expect_refusal("shared memory a byte short", &ci, VK_ERROR_FEATURE_NOT_PRESENT, "maxComputeSharedMemorySize");
  splat_renderer_device_requirements low = {0};
  CHECK(splat_renderer_get_device_requirements_with(&lowered_functions, ctx.instance, ctx.physical_device, 0, &low) ==
            VK_ERROR_FEATURE_NOT_PRESENT, "the query passes a device a byte short of shared memory");
  /* exactly the requirement is enough */
  lowered_shared = req.max_compute_shared_memory_size;
  splat_renderer *r = NULL;
  CHECK(splat_renderer_create(&ci, &r) == VK_SUCCESS && r, "a device at exactly the requirement refused: %s", last_log);
  splat_renderer_destroy(r);
  /* and the honest create info makes a renderer */
  r = NULL;
  CHECK(splat_renderer_create(&ok, &r) == VK_SUCCESS && r, "the test's device refused: %s", last_log);
  splat_renderer_destroy(r);
  splatsort_destroy(qs);
}
