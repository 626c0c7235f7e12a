/* Sorter object: device queries, requirements, create/destroy, argument checks and the
 * helpers every algorithm records with. */
#include "sort_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SS_PUSH_DESCRIPTOR_EXT "VK_KHR_push_descriptor"

/* The header and the build (CMake's project version) must agree. */
#ifdef SPLATSORT_BUILD_VERSION_MAJOR
_Static_assert(SPLATSORT_BUILD_VERSION_MAJOR == SPLATSORT_VERSION_MAJOR &&
                   SPLATSORT_BUILD_VERSION_MINOR == SPLATSORT_VERSION_MINOR &&
                   SPLATSORT_BUILD_VERSION_PATCH == SPLATSORT_VERSION_PATCH,
               "splatsort.h and CMakeLists.txt disagree on the version");
#endif

uint32_t splatsort_get_version(void) { return SPLATSORT_VERSION; }

const char *splatsort_algorithm_name(splatsort_algorithm algorithm) {
  switch (algorithm) {
  case SPLATSORT_ALGORITHM_AUTO: return "auto";
  case SPLATSORT_ALGORITHM_QUATERNARY: return "quaternary";
  case SPLATSORT_ALGORITHM_ONESWEEP: return "onesweep";
  case SPLATSORT_ALGORITHM_RADIX16: return "radix16";
  case SPLATSORT_ALGORITHM_MERGE: return "merge";
  }
  return "unknown";
}

bool splatsort_algorithm_from_name(const char *name, splatsort_algorithm *out) {
  if (!name || !out) return false;
  for (int a = 0; a < SPLATSORT_ALGORITHM_COUNT; a++) {
    if (!strcmp(name, splatsort_algorithm_name((splatsort_algorithm)a))) {
      *out = (splatsort_algorithm)a;
      return true;
    }
  }
  return false;
}

static bool has_device_extension(const ssvk_fns *fn, VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  if (fn->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0) return false;
  VkExtensionProperties *props = malloc(sizeof *props * n);
  if (!props) return false;
  bool found = false;
  if (fn->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) >= 0) {
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(props[i].extensionName, name) == 0;
  }
  free(props);
  return found;
}

static void query_device(const ssvk_fns *fn, VkPhysicalDevice pd, ss_device_info *dev) {
  memset(dev, 0, sizeof *dev);
  VkPhysicalDeviceProperties base;
  fn->vkGetPhysicalDeviceProperties(pd, &base);
  dev->api_version = base.apiVersion;
  dev->vendor_id = base.vendorID;
  dev->device_type = base.deviceType;
  dev->max_shared_memory = base.limits.maxComputeSharedMemorySize;
  dev->max_workgroup_invocations = base.limits.maxComputeWorkGroupInvocations;
  dev->max_workgroup_count_x = base.limits.maxComputeWorkGroupCount[0];
  dev->storage_alignment = base.limits.minStorageBufferOffsetAlignment;
  if (dev->storage_alignment < 4) dev->storage_alignment = 4;
  dev->max_storage_range = base.limits.maxStorageBufferRange;
  dev->subgroup_size = 1;
  dev->min_subgroup_size = dev->max_subgroup_size = 1;
  if (VK_API_VERSION_MINOR(base.apiVersion) < 1 && VK_API_VERSION_MAJOR(base.apiVersion) == 1) return;

  VkPhysicalDeviceSubgroupSizeControlProperties size_props = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  bool size_ext = base.apiVersion >= VK_API_VERSION_1_3 ||
                  has_device_extension(fn, pd, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  /* a key or value region must lie in one allocation: maxMemoryAllocationSize bounds it too */
  VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  sub.pNext = &m3;
  if (size_ext) m3.pNext = &size_props;
  VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sub};
  fn->vkGetPhysicalDeviceProperties2(pd, &props2);
  if (m3.maxMemoryAllocationSize && m3.maxMemoryAllocationSize < dev->max_storage_range)
    dev->max_storage_range = (uint32_t)m3.maxMemoryAllocationSize;
  dev->subgroup_size = sub.subgroupSize ? sub.subgroupSize : 1;
  if (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) dev->subgroup_ops = sub.supportedOperations;
  dev->min_subgroup_size = dev->max_subgroup_size = dev->subgroup_size;
  if (size_ext && size_props.minSubgroupSize) {
    dev->min_subgroup_size = size_props.minSubgroupSize;
    dev->max_subgroup_size = size_props.maxSubgroupSize;
    dev->required_size_stages = size_props.requiredSubgroupSizeStages;
  }
}

static const ss_algorithm_ops *algorithm_ops(splatsort_algorithm algorithm) {
  switch (algorithm) {
  case SPLATSORT_ALGORITHM_ONESWEEP: return &ss_onesweep_ops;
  case SPLATSORT_ALGORITHM_RADIX16: return &ss_radix16_ops;
  case SPLATSORT_ALGORITHM_MERGE: return &ss_merge_ops;
  default: return &ss_quaternary_ops;
  }
}

/* AUTO's merge thresholds: the largest count (of the sizes measured) at which the merge sort
 * beat the radix sort the device would otherwise get, for key_bits above 16 and at most 16,
 * against OneSweep, radix16 and quaternary. Measured with sortbench (uniform keys with
 * payloads, timestamps around the sort, 2026-11-23; docs/sorting.md): GPUs from
 * an NVIDIA H100 (medians of 30 runs in 3 processes), CPU devices from lavapipe at subgroup
 * sizes 4, 8 and 16 (medians of 3 runs on a shared 2-core machine: noisy; the largest count
 * at which merge won at all three). Other GPUs are not measured: they get the H100's. */
typedef struct merge_limit {
  uint32_t wide, narrow;
} merge_limit;
static const merge_limit gpu_merge[3] = {{4096, 1024}, {32768, 8192}, {131072, 16384}};
static const merge_limit cpu_merge[3] = {{0, 0}, {1024, 0}, {16384, 0}};
/* On CPU devices radix16 beat OneSweep above these counts at all three subgroup sizes (wide,
 * narrow keys): there the ranking by ballots costs less than OneSweep's larger digits. */
static const merge_limit cpu_radix16_over_onesweep = {65536, 131072};

static splatsort_algorithm auto_pick(const ss_device_info *dev, uint32_t max_count, uint32_t key_bits) {
  bool cpu = dev->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const merge_limit *table = cpu ? cpu_merge : gpu_merge;
  splatsort_algorithm radix = SPLATSORT_ALGORITHM_QUATERNARY;
  merge_limit limit = table[2];
  if (ss_onesweep_ops.supported(dev)) {
    radix = SPLATSORT_ALGORITHM_ONESWEEP;
    limit = table[0];
  } else if (ss_radix16_ops.supported(dev)) {
    radix = SPLATSORT_ALGORITHM_RADIX16;
    limit = table[1];
  }
  bool wide = key_bits == 0 || key_bits > 16;
  if (max_count > 0 && max_count <= (wide ? limit.wide : limit.narrow) && ss_merge_ops.supported(dev))
    return SPLATSORT_ALGORITHM_MERGE;
  uint32_t radix16_above = wide ? cpu_radix16_over_onesweep.wide : cpu_radix16_over_onesweep.narrow;
  if (cpu && radix == SPLATSORT_ALGORITHM_ONESWEEP && ss_radix16_ops.supported(dev) &&
      (max_count == 0 || max_count > radix16_above))
    return SPLATSORT_ALGORITHM_RADIX16;
  return radix;
}

static splatsort_algorithm resolve_algorithm(const ss_device_info *dev, splatsort_algorithm algorithm,
                                             const splatsort_auto_hint *hint) {
  if (algorithm != SPLATSORT_ALGORITHM_AUTO) return algorithm;
  return auto_pick(dev, hint ? hint->max_count : 0, hint ? hint->key_bits : 0);
}

splatsort_algorithm splatsort_choose_algorithm(const splatsort *s, uint32_t max_count, uint32_t key_bits) {
  return s ? auto_pick(&s->dev, max_count, key_bits) : SPLATSORT_ALGORITHM_AUTO;
}

static bool valid_algorithm(splatsort_algorithm a) {
  return a == SPLATSORT_ALGORITHM_AUTO || a == SPLATSORT_ALGORITHM_QUATERNARY || a == SPLATSORT_ALGORITHM_ONESWEEP ||
         a == SPLATSORT_ALGORITHM_RADIX16 || a == SPLATSORT_ALGORITHM_MERGE;
}

VkResult splatsort_get_device_requirements(VkPhysicalDevice physical_device, splatsort_algorithm algorithm,
                                           splatsort_device_requirements *req) {
#if SPLATSORT_STATIC_VULKAN_FUNCTIONS
  return splatsort_get_device_requirements_with(NULL, VK_NULL_HANDLE, physical_device, algorithm, req);
#else
  (void)physical_device, (void)algorithm, (void)req;
  return VK_ERROR_INITIALIZATION_FAILED; /* built without the loader: use ..._with */
#endif
}

/* The host's loader entry points, or the linked loader when it gives none (ssvk_load). */
static const char *load_functions(ssvk_fns *fns, const splatsort_vulkan_functions *host, VkInstance instance,
                                  VkDevice device) {
  if (host && !host->vkGetInstanceProcAddr) return "vkGetInstanceProcAddr (or the instance)";
  return ssvk_load(fns, host ? host->vkGetInstanceProcAddr : NULL, host ? host->vkGetDeviceProcAddr : NULL, instance,
                   device);
}

VkResult splatsort_get_device_requirements_with(const splatsort_vulkan_functions *functions, VkInstance instance,
                                                VkPhysicalDevice physical_device, splatsort_algorithm algorithm,
                                                splatsort_device_requirements *req) {
  if (!physical_device || !req || !valid_algorithm(algorithm)) return VK_ERROR_VALIDATION_FAILED_EXT;
  ssvk_fns fns;
  if (load_functions(&fns, functions, instance, VK_NULL_HANDLE)) return VK_ERROR_INITIALIZATION_FAILED;
  const ssvk_fns *fn = &fns;
  ss_device_info dev;
  query_device(fn, physical_device, &dev);
  splatsort_algorithm alg = resolve_algorithm(&dev, algorithm, NULL);
  req->api_version = VK_API_VERSION_1_1;
  req->subgroup_size_control = alg == SPLATSORT_ALGORITHM_ONESWEEP && dev.min_subgroup_size != dev.max_subgroup_size;
  if (dev.api_version < VK_API_VERSION_1_1) return VK_ERROR_FEATURE_NOT_PRESENT;
  if (!algorithm_ops(alg)->supported(&dev)) return VK_ERROR_FEATURE_NOT_PRESENT;

  const char *needed[2];
  uint32_t n = 0;
  /* Push descriptors are core in Vulkan 1.4, but only for hosts whose instance asks for 1.4;
   * drivers keep offering the extension, so ask for it whenever it is there. */
  if (has_device_extension(fn, physical_device, SS_PUSH_DESCRIPTOR_EXT))
    needed[n++] = SS_PUSH_DESCRIPTOR_EXT;
  else if (dev.api_version < VK_MAKE_API_VERSION(0, 1, 4, 0))
    return VK_ERROR_FEATURE_NOT_PRESENT;
  if (req->subgroup_size_control && dev.api_version < VK_API_VERSION_1_3)
    needed[n++] = VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME;
  if (!req->extension_names) {
    req->extension_count = n;
    return VK_SUCCESS;
  }
  uint32_t written = req->extension_count < n ? req->extension_count : n;
  for (uint32_t i = 0; i < written; i++) req->extension_names[i] = needed[i];
  req->extension_count = written;
  return written < n ? VK_INCOMPLETE : VK_SUCCESS;
}

/* One log line with every statistic the driver reports for the pipeline's executables. */
static void log_pipeline_statistics(splatsort *s, VkPipeline pipeline, const char *name) {
  PFN_vkGetPipelineExecutablePropertiesKHR get_props =
      (PFN_vkGetPipelineExecutablePropertiesKHR)s->vk.fn.vkGetDeviceProcAddr(s->vk.device, "vkGetPipelineExecutablePropertiesKHR");
  PFN_vkGetPipelineExecutableStatisticsKHR get_stats =
      (PFN_vkGetPipelineExecutableStatisticsKHR)s->vk.fn.vkGetDeviceProcAddr(s->vk.device, "vkGetPipelineExecutableStatisticsKHR");
  if (!get_props || !get_stats) {
    ss_log(s, "%s: no pipeline statistics (VK_KHR_pipeline_executable_properties not enabled)", name);
    return;
  }
  VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipeline};
  uint32_t execs = 0;
  if (get_props(s->vk.device, &pi, &execs, NULL) != VK_SUCCESS) return;
  for (uint32_t e = 0; e < execs; e++) {
    VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipeline,
                                      .executableIndex = e};
    VkPipelineExecutableStatisticKHR st[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++) st[i] = (VkPipelineExecutableStatisticKHR){
        .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    VkResult r = get_stats(s->vk.device, &ei, &n, st);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) continue;
    char line[480];
    int len = snprintf(line, sizeof line, "%s statistics:", name);
    for (uint32_t i = 0; i < n && len > 0 && (size_t)len < sizeof line; i++) {
      const VkPipelineExecutableStatisticKHR *x = &st[i];
      if (x->format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s=%u;", x->name, x->value.b32);
      else if (x->format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s=%lld;", x->name, (long long)x->value.i64);
      else if (x->format == VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s=%llu;", x->name,
                        (unsigned long long)x->value.u64);
      else
        len += snprintf(line + len, sizeof line - (size_t)len, " %s=%g;", x->name, x->value.f64);
    }
    ss_log(s, "%s", line);
  }
}

VkResult ss_create_pipeline(splatsort *s, const uint32_t *code, size_t code_size, const VkSpecializationInfo *spec,
                            uint32_t required_subgroup_size, const char *name, VkPipeline *out) {
  bool use_size = required_subgroup_size && s->dev.size_control &&
                  (s->dev.required_size_stages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                  required_subgroup_size >= s->dev.min_subgroup_size &&
                  required_subgroup_size <= s->dev.max_subgroup_size;
  bool stats = (s->flags & SPLATSORT_CREATE_LOG_PIPELINE_STATISTICS_BIT) != 0;
  ssvk_compute_desc desc = {.code = code, .code_size = code_size, .layout = s->layout, .spec = spec,
                            .required_subgroup_size = use_size ? required_subgroup_size : 0,
                            .flags = stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0, .name = name};
  VkResult r = ssvk_compute_pipeline(&s->vk, &desc, out);
  if (r == VK_SUCCESS && stats) log_pipeline_statistics(s, *out, name);
  return r;
}

void splatsort_destroy(splatsort *s) {
  if (!s) return;
  bool idle = ss_self_test_finish(s);
  VkDevice d = s->vk.device;
  const VkAllocationCallbacks *a = s->vk.allocator;
  for (uint32_t i = 0; i < SS_MAX_PIPELINES && idle; i++)
    if (s->pipelines[i]) s->vk.fn.vkDestroyPipeline(d, s->pipelines[i], a);
  if (s->layout) s->vk.fn.vkDestroyPipelineLayout(d, s->layout, a);
  if (s->set_layout) s->vk.fn.vkDestroyDescriptorSetLayout(d, s->set_layout, a);
  if (a)
    a->pfnFree(a->pUserData, s);
  else
    free(s);
}

#define SS_KNOWN_FLAGS                                                                          \
  (SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT | SPLATSORT_CREATE_LOG_PIPELINE_STATISTICS_BIT | \
   SPLATSORT_CREATE_DEBUG_UTILS_BIT)

/* The structures a create info's next chain may hold, each at most once. */
typedef struct create_chain {
  const splatsort_onesweep_tuning *tuning;
  const splatsort_auto_hint *hint;
  const splatsort_self_test *self_test;
} create_chain;

typedef struct chain_header {
  splatsort_structure_type type;
  const void *next;
} chain_header;

static bool walk_chain(const splatsort_create_info *info, create_chain *c) {
  memset(c, 0, sizeof *c);
  for (const chain_header *h = info->next; h; h = h->next) {
    const void **slot = h->type == SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING ? (const void **)&c->tuning
                        : h->type == SPLATSORT_STRUCTURE_TYPE_AUTO_HINT     ? (const void **)&c->hint
                        : h->type == SPLATSORT_STRUCTURE_TYPE_SELF_TEST     ? (const void **)&c->self_test
                                                                             : NULL;
    if (!slot || *slot) {
      ssvk_log_to(info->log, info->log_user, "splatsort_create: next: unknown or repeated structure type %d",
                  (int)h->type);
      return false;
    }
    *slot = h;
  }
  if (c->hint && c->hint->key_bits > 32) {
    ssvk_log_to(info->log, info->log_user, "splatsort_create: splatsort_auto_hint: key_bits %u is above 32",
                c->hint->key_bits);
    return false;
  }
  if (c->self_test && !c->self_test->queue) {
    ssvk_log_to(info->log, info->log_user, "splatsort_create: splatsort_self_test: queue is VK_NULL_HANDLE");
    return false;
  }
  if (c->self_test && c->self_test->flags & ~(uint32_t)(SPLATSORT_SELF_TEST_INJECT_WRONG_ORDER_BIT |
                                                        SPLATSORT_SELF_TEST_INJECT_STALL_BIT |
                                                        SPLATSORT_SELF_TEST_FAIL_IF_LATE_BIT)) {
    ssvk_log_to(info->log, info->log_user, "splatsort_create: splatsort_self_test: unknown bits in flags");
    return false;
  }
  return true;
}

/* Checks the create info and walks its next chain. */
static bool check_create_info(const splatsort_create_info *info, create_chain *chain) {
  if (!walk_chain(info, chain)) return false;
  if (!info->physical_device || !info->device) {
    ssvk_log_to(info->log, info->log_user, "splatsort_create: physical_device and device are required");
    return false;
  }
  if (info->instance_api_version && info->instance_api_version < VK_API_VERSION_1_1) {
    ssvk_log_to(info->log, info->log_user,
                "splatsort_create: the instance was created for Vulkan %u.%u; the library needs 1.1 "
                "(VkApplicationInfo::apiVersion)",
                VK_API_VERSION_MAJOR(info->instance_api_version), VK_API_VERSION_MINOR(info->instance_api_version));
    return false;
  }
  if (!valid_algorithm(info->algorithm)) {
    ssvk_log_to(info->log, info->log_user, "splatsort_create: unknown algorithm %d", (int)info->algorithm);
    return false;
  }
  if (!ss_check_allocator(info->log, info->log_user, "splatsort_create", info->allocator)) return false;
  if (info->flags & ~(uint32_t)SS_KNOWN_FLAGS ||
      info->enabled_features & ~(uint32_t)SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT) {
    ssvk_log_to(info->log, info->log_user, "splatsort_create: unknown bits in flags or enabled_features");
    return false;
  }
  return true;
}

/* The self-test's queue family is one the device has, with compute. */
static bool check_queue_family(const splatsort_create_info *info, const ssvk_fns *fn, const splatsort_self_test *t) {
  uint32_t n = 0;
  fn->vkGetPhysicalDeviceQueueFamilyProperties(info->physical_device, &n, NULL);
  if (t->queue_family_index >= n) {
    ssvk_log_to(info->log, info->log_user,
                "splatsort_create: splatsort_self_test: queue_family_index %u is beyond the device's %u queue "
                "families", t->queue_family_index, n);
    return false;
  }
  VkQueueFamilyProperties *props = malloc(sizeof *props * n);
  if (!props) return true; /* unchecked rather than refused for want of memory */
  fn->vkGetPhysicalDeviceQueueFamilyProperties(info->physical_device, &n, props);
  bool compute = t->queue_family_index < n && (props[t->queue_family_index].queueFlags & VK_QUEUE_COMPUTE_BIT);
  free(props);
  if (!compute)
    ssvk_log_to(info->log, info->log_user,
                "splatsort_create: splatsort_self_test: queue family %u has no VK_QUEUE_COMPUTE_BIT",
                t->queue_family_index);
  return compute;
}

static splatsort *sorter_alloc(const VkAllocationCallbacks *a) {
  splatsort *s = a ? a->pfnAllocation(a->pUserData, sizeof *s, 16, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT)
                   : malloc(sizeof *s);
  if (s) memset(s, 0, sizeof *s);
  return s;
}

/* The device can run the chosen algorithm: Vulkan 1.1, its own needs, push descriptors. */
static VkResult check_device(splatsort *s) {
  if (s->dev.api_version < VK_API_VERSION_1_1) {
    ss_log(s, "splatsort_create: the device's Vulkan version is below 1.1");
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  if (!s->ops->supported(&s->dev)) {
    ss_log(s, "splatsort_create: the device cannot run the %s sort (%s)", splatsort_algorithm_name(s->algorithm),
           s->ops->needs);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  if (!s->vk.push_descriptor_set) {
    ss_log(s, "splatsort_create: " SS_PUSH_DESCRIPTOR_EXT " is not enabled on the device");
    return VK_ERROR_EXTENSION_NOT_PRESENT;
  }
  return VK_SUCCESS;
}

/* What the quaternary sort's self-test (the last word) means for create: wrong fails it, late
 * keeps it unverified unless the host asked to fail. */
static VkResult settle(splatsort *s, const splatsort_self_test *t, ss_self_test_outcome o, VkResult error,
                       bool fallback) {
  switch (o) {
  case SS_SELF_TEST_PASSED:
    if (fallback) ss_log(s, "splatsort_create: self-test: the quaternary sort passed; the sorter uses it");
    return VK_SUCCESS;
  case SS_SELF_TEST_ERROR: return error;
  case SS_SELF_TEST_WRONG:
    ss_log(s, "splatsort_create: self-test: the quaternary sort failed%s; no sort on this device can be trusted",
           fallback ? " too" : "");
    return VK_ERROR_INITIALIZATION_FAILED;
  case SS_SELF_TEST_TIMEOUT: break;
  }
  if (t->flags & SPLATSORT_SELF_TEST_FAIL_IF_LATE_BIT) {
    ss_log(s, "splatsort_create: self-test: the quaternary sort was late; create fails "
              "(SPLATSORT_SELF_TEST_FAIL_IF_LATE_BIT)");
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  ss_log(s, "splatsort_create: self-test: the quaternary sort did not finish in time and was not verified; the "
            "sorter uses it unverified (late is not wrong: destroy waits for the sort)");
  return VK_SUCCESS;
}

/* The self-test, and the fallback to quaternary (tested too) when the sort was wrong or late:
 * a late sort may be one that never finishes, which quaternary cannot be. */
static VkResult verify(splatsort *s, const splatsort_self_test *t) {
  VkResult error;
  ss_self_test_outcome o = ss_self_test(s, t, &error);
  if (s->algorithm == SPLATSORT_ALGORITHM_QUATERNARY || o == SS_SELF_TEST_PASSED || o == SS_SELF_TEST_ERROR)
    return settle(s, t, o, error, false);
  ss_log(s, "splatsort_create: self-test: falling back from the %s sort to quaternary",
         splatsort_algorithm_name(s->algorithm));
  ss_self_test_retire(s, o == SS_SELF_TEST_TIMEOUT);
  s->algorithm = SPLATSORT_ALGORITHM_QUATERNARY;
  s->ops = &ss_quaternary_ops;
  s->onesweep_split = 0;
  VkResult r = s->ops->create(s);
  if (r != VK_SUCCESS) return r;
  o = ss_self_test(s, t, &error);
  return settle(s, t, o, error, true);
}

VkResult splatsort_create(const splatsort_create_info *info, splatsort **out) {
  if (out) *out = NULL;
  if (!info || !out) return VK_ERROR_VALIDATION_FAILED_EXT;
  create_chain chain;
  if (!check_create_info(info, &chain)) return VK_ERROR_VALIDATION_FAILED_EXT;
  ssvk_fns fns;
  const char *missing = load_functions(&fns, info->vulkan_functions, info->instance, info->device);
  if (missing) {
    ssvk_log_to(info->log, info->log_user, "splatsort_create: vulkan_functions: cannot find %s", missing);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  if (chain.self_test && !check_queue_family(info, &fns, chain.self_test)) return VK_ERROR_VALIDATION_FAILED_EXT;
  splatsort *s = sorter_alloc(info->allocator);
  if (!s) return VK_ERROR_OUT_OF_HOST_MEMORY;
  ssvk_device_init(&s->vk, &fns, info->physical_device, info->device, info->allocator, info->pipeline_cache, info->log,
                   info->log_user, "splatsort", (info->flags & SPLATSORT_CREATE_DEBUG_UTILS_BIT) != 0);
  s->flags = info->flags;
  s->tuning = chain.tuning;
  query_device(&s->vk.fn, info->physical_device, &s->dev);
  s->dev.size_control = (info->enabled_features & SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT) != 0;
  s->max_groups_x = s->dev.max_workgroup_count_x;
  s->algorithm = resolve_algorithm(&s->dev, info->algorithm, chain.hint);
  s->ops = algorithm_ops(s->algorithm);

  VkResult r = check_device(s);
  if (r == VK_SUCCESS)
    r = ssvk_push_layout(&s->vk, SS_BINDINGS, VK_SHADER_STAGE_COMPUTE_BIT, SS_PUSH_SIZE,
                         VK_SHADER_STAGE_COMPUTE_BIT, "splatsort layout", &s->set_layout, &s->layout);
  if (r == VK_SUCCESS) r = s->ops->create(s);
  if (r == VK_SUCCESS && chain.self_test) r = verify(s, chain.self_test);
  s->tuning = NULL; /* the host's chain need not outlive create */
  if (r != VK_SUCCESS) {
    splatsort_destroy(s);
    return r;
  }
  *out = s;
  return VK_SUCCESS;
}

splatsort_algorithm splatsort_get_algorithm(const splatsort *s) { return s ? s->algorithm : SPLATSORT_ALGORITHM_AUTO; }

uint32_t splatsort_get_tile_size(const splatsort *s) { return s ? s->tile_size : 0; }

uint32_t splatsort_get_onesweep_variant(const splatsort *s, uint32_t max_count, uint32_t *tile) {
  bool onesweep = s && s->algorithm == SPLATSORT_ALGORITHM_ONESWEEP;
  bool large = onesweep && s->onesweep_split && max_count >= s->onesweep_split;
  if (tile) *tile = !onesweep ? 0 : large ? s->onesweep_large_tile : s->tile_size;
  return !onesweep ? 0 : large ? s->onesweep_large_variant : s->onesweep_variant;
}

uint32_t splatsort_max_count(const splatsort *s) {
  if (!s) return 0;
  uint32_t by_range = s->ops->max_count ? s->ops->max_count(&s->dev) : s->dev.max_storage_range / 4u;
  uint32_t cap = 1u << 30;
  return by_range < cap ? by_range : cap;
}

VkResult splatsort_get_memory_requirements(const splatsort *s, uint32_t max_count, splatsort_memory_requirements *req) {
  if (!s || !req) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (max_count == 0 || max_count > splatsort_max_count(s)) {
    ss_log(s, "splatsort_get_memory_requirements: max_count %u is outside 1..%u", max_count, splatsort_max_count(s));
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  req->alignment = s->dev.storage_alignment;
  req->keyval_size = ss_align((VkDeviceSize)max_count * 4u, req->alignment);
  req->internal_size = ss_align(s->ops->internal_size(s, max_count), req->alignment);
  req->keyval_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  req->internal_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                        VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  req->count_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  return VK_SUCCESS;
}

static uint32_t effective_bits(uint32_t key_bits) { return key_bits == 0 ? 32 : key_bits; }

uint32_t splatsort_timestamp_count(const splatsort *s, uint32_t key_bits) {
  if (!s || key_bits > 32) return 0;
  return s->ops->timestamp_count(effective_bits(key_bits));
}

const char *splatsort_timestamp_label(const splatsort *s, uint32_t key_bits, uint32_t index) {
  if (!s || key_bits > 32 || index == 0 || index >= splatsort_timestamp_count(s, key_bits)) return "";
  return s->ops->timestamp_label(effective_bits(key_bits), index);
}

splatsort_result splatsort_result_location(const splatsort *s, const splatsort_sort_info *info) {
  splatsort_result r = {0};
  if (!s || !info || info->key_bits > 32) return r;
  r.pass_count = s->ops->pass_count(effective_bits(info->key_bits));
  bool in_tmp = r.pass_count & 1u;
  r.keys = in_tmp ? info->tmp_keys : info->keys;
  r.values = in_tmp ? info->tmp_values : info->values;
  return r;
}

VkResult splatsort_cmd_sort(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info,
                            splatsort_result *result) {
  if (!s || !cmd || !info) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!ss_check_sort_info(s, info, splatsort_max_count(s))) return VK_ERROR_VALIDATION_FAILED_EXT;
  uint32_t bits = effective_bits(info->key_bits);
  ssvk_label_begin(&s->vk, cmd, "splatsort");
  if (info->query_pool) {
    s->vk.fn.vkCmdResetQueryPool(cmd, info->query_pool, info->first_query, s->ops->timestamp_count(bits));
    ss_timestamp(s, cmd, info, 0);
  }
  s->ops->record(s, cmd, info, bits);
  ssvk_label_end(&s->vk, cmd);
  if (result) *result = splatsort_result_location(s, info);
  return VK_SUCCESS;
}

/* ---- recording helpers ---- */

uint32_t ss_count_index(const splatsort *s, const splatsort_sort_info *info) {
  if (!info->count_buffer.buffer) return 0;
  return ssvk_count_word(info->count_buffer.offset, s->dev.storage_alignment, NULL, NULL);
}

void ss_bind(const splatsort *s, VkCommandBuffer cmd, VkPipeline pipeline, const splatsort_sort_info *info,
             uint32_t pass) {
  s->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  VkDeviceSize kv = (VkDeviceSize)info->max_count * 4u;
  bool odd = pass & 1u;
  splatsort_buffer kin = odd ? info->tmp_keys : info->keys, vin = odd ? info->tmp_values : info->values;
  splatsort_buffer kout = odd ? info->keys : info->tmp_keys, vout = odd ? info->values : info->tmp_values;
  if (!info->values.buffer) vin = kin, vout = kout; /* keys only: bound, never accessed */
  VkDescriptorBufferInfo bi[SS_BINDINGS] = {
      [SS_BIND_KEYS_IN] = {kin.buffer, kin.offset, kv},
      [SS_BIND_VALUES_IN] = {vin.buffer, vin.offset, kv},
      [SS_BIND_KEYS_OUT] = {kout.buffer, kout.offset, kv},
      [SS_BIND_VALUES_OUT] = {vout.buffer, vout.offset, kv},
      [SS_BIND_INTERNAL] = {info->internal.buffer, info->internal.offset, s->ops->internal_size(s, info->max_count)},
      [SS_BIND_COUNT] = {info->internal.buffer, info->internal.offset, 16},
  };
  if (info->count_buffer.buffer) {
    VkDeviceSize base, range;
    ssvk_count_word(info->count_buffer.offset, s->dev.storage_alignment, &base, &range);
    bi[SS_BIND_COUNT] = (VkDescriptorBufferInfo){info->count_buffer.buffer, base, range};
  }
  ssvk_push_buffers(&s->vk, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, bi, SS_BINDINGS);
}

void ss_push(const splatsort *s, VkCommandBuffer cmd, const void *data, uint32_t size) {
  s->vk.fn.vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, size, data);
}

void ss_barrier(const splatsort *s, VkCommandBuffer cmd) {
  ssvk_memory_barrier(&s->vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}

void ss_timestamp(const splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t index) {
  if (info->query_pool)
    s->vk.fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->query_pool, info->first_query + index);
}
