/* Sorter object: device queries, requirements, create/destroy, argument checks and the
 * helpers every algorithm records with. */
#include "sort_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SS_PUSH_DESCRIPTOR_EXT "VK_KHR_push_descriptor"

void ss_log(const splatsort *sorter, const char *fmt, ...) {
  if (!sorter || !sorter->log) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sorter->log(sorter->log_user, msg);
}

const char *splatsort_algorithm_name(splatsort_algorithm algorithm) {
  switch (algorithm) {
  case SPLATSORT_ALGORITHM_AUTO: return "auto";
  case SPLATSORT_ALGORITHM_QUATERNARY: return "quaternary";
  case SPLATSORT_ALGORITHM_ONESWEEP: return "onesweep";
  }
  return "unknown";
}

static bool has_device_extension(VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0) return false;
  VkExtensionProperties *props = malloc(sizeof *props * n);
  if (!props) return false;
  bool found = false;
  if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) >= 0) {
    for (uint32_t i = 0; i < n && !found; i++) found = strcmp(props[i].extensionName, name) == 0;
  }
  free(props);
  return found;
}

static void query_device(VkPhysicalDevice pd, ss_device_info *dev) {
  memset(dev, 0, sizeof *dev);
  VkPhysicalDeviceProperties base;
  vkGetPhysicalDeviceProperties(pd, &base);
  dev->api_version = base.apiVersion;
  dev->vendor_id = base.vendorID;
  dev->max_shared_memory = base.limits.maxComputeSharedMemorySize;
  dev->max_workgroup_invocations = base.limits.maxComputeWorkGroupInvocations;
  dev->max_workgroup_count_x = base.limits.maxComputeWorkGroupCount[0];
  dev->storage_alignment = base.limits.minStorageBufferOffsetAlignment;
  if (dev->storage_alignment < 4) dev->storage_alignment = 4;
  dev->max_storage_range = base.limits.maxStorageBufferRange;
  dev->timestamp_period = base.limits.timestampPeriod;
  dev->subgroup_size = 1;
  dev->min_subgroup_size = dev->max_subgroup_size = 1;
  if (VK_API_VERSION_MINOR(base.apiVersion) < 1 && VK_API_VERSION_MAJOR(base.apiVersion) == 1) return;

  VkPhysicalDeviceSubgroupSizeControlProperties size_props = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  bool size_ext = base.apiVersion >= VK_API_VERSION_1_3 ||
                  has_device_extension(pd, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if (size_ext) sub.pNext = &size_props;
  VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sub};
  vkGetPhysicalDeviceProperties2(pd, &props2);
  dev->subgroup_size = sub.subgroupSize ? sub.subgroupSize : 1;
  if (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) dev->subgroup_ops = sub.supportedOperations;
  dev->min_subgroup_size = dev->max_subgroup_size = dev->subgroup_size;
  if (size_ext && size_props.minSubgroupSize) {
    dev->min_subgroup_size = size_props.minSubgroupSize;
    dev->max_subgroup_size = size_props.maxSubgroupSize;
    dev->required_size_stages = size_props.requiredSubgroupSizeStages;
  }
}

static splatsort_algorithm resolve_algorithm(const ss_device_info *dev, splatsort_algorithm algorithm) {
  if (algorithm != SPLATSORT_ALGORITHM_AUTO) return algorithm;
  return ss_onesweep_supported(dev) ? SPLATSORT_ALGORITHM_ONESWEEP : SPLATSORT_ALGORITHM_QUATERNARY;
}

static bool valid_algorithm(splatsort_algorithm a) {
  return a == SPLATSORT_ALGORITHM_AUTO || a == SPLATSORT_ALGORITHM_QUATERNARY || a == SPLATSORT_ALGORITHM_ONESWEEP;
}

VkResult splatsort_get_device_requirements(VkPhysicalDevice physical_device, splatsort_algorithm algorithm,
                                           splatsort_device_requirements *req) {
  if (!physical_device || !req || !valid_algorithm(algorithm)) return VK_ERROR_VALIDATION_FAILED_EXT;
  ss_device_info dev;
  query_device(physical_device, &dev);
  splatsort_algorithm alg = resolve_algorithm(&dev, algorithm);
  req->api_version = VK_API_VERSION_1_1;
  req->subgroup_size_control = alg == SPLATSORT_ALGORITHM_ONESWEEP && dev.min_subgroup_size != dev.max_subgroup_size;
  if (dev.api_version < VK_API_VERSION_1_1) return VK_ERROR_FEATURE_NOT_PRESENT;
  if (alg == SPLATSORT_ALGORITHM_ONESWEEP && !ss_onesweep_supported(&dev)) return VK_ERROR_FEATURE_NOT_PRESENT;

  const char *needed[2];
  uint32_t n = 0;
  /* Push descriptors are core in Vulkan 1.4, but only for hosts whose instance asks for 1.4;
   * drivers keep offering the extension, so ask for it whenever it is there. */
  if (has_device_extension(physical_device, SS_PUSH_DESCRIPTOR_EXT))
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

static void name_object(splatsort *s, VkObjectType type, uint64_t handle, const char *name) {
  PFN_vkSetDebugUtilsObjectNameEXT set_name =
      (PFN_vkSetDebugUtilsObjectNameEXT)vkGetDeviceProcAddr(s->device, "vkSetDebugUtilsObjectNameEXT");
  if (!set_name || !name) return;
  VkDebugUtilsObjectNameInfoEXT info = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                        .objectType = type, .objectHandle = handle, .pObjectName = name};
  set_name(s->device, &info);
}

/* One log line with every statistic the driver reports for the pipeline's executables. */
static void log_pipeline_statistics(splatsort *s, VkPipeline pipeline, const char *name) {
  PFN_vkGetPipelineExecutablePropertiesKHR get_props =
      (PFN_vkGetPipelineExecutablePropertiesKHR)vkGetDeviceProcAddr(s->device, "vkGetPipelineExecutablePropertiesKHR");
  PFN_vkGetPipelineExecutableStatisticsKHR get_stats =
      (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(s->device, "vkGetPipelineExecutableStatisticsKHR");
  if (!get_props || !get_stats) {
    ss_log(s, "splatsort: %s: no pipeline statistics (VK_KHR_pipeline_executable_properties not enabled)", name);
    return;
  }
  VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipeline};
  uint32_t execs = 0;
  if (get_props(s->device, &pi, &execs, NULL) != VK_SUCCESS) return;
  for (uint32_t e = 0; e < execs; e++) {
    VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipeline,
                                      .executableIndex = e};
    VkPipelineExecutableStatisticKHR st[32];
    uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++) st[i] = (VkPipelineExecutableStatisticKHR){
        .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    VkResult r = get_stats(s->device, &ei, &n, st);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) continue;
    char line[480];
    int len = snprintf(line, sizeof line, "splatsort: %s statistics:", name);
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
  *out = VK_NULL_HANDLE;
  VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = code_size, .pCode = code};
  VkShaderModule module;
  VkResult r = vkCreateShaderModule(s->device, &mci, s->allocator, &module);
  if (r != VK_SUCCESS) {
    ss_log(s, "splatsort: vkCreateShaderModule(%s) failed (%d)", name, r);
    return r;
  }
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo size_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
      .requiredSubgroupSize = required_subgroup_size};
  bool use_size = required_subgroup_size && s->dev.size_control &&
                  (s->dev.required_size_stages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                  required_subgroup_size >= s->dev.min_subgroup_size &&
                  required_subgroup_size <= s->dev.max_subgroup_size;
  VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .pNext = use_size ? &size_info : NULL,
                .flags = use_size ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main",
                .pSpecializationInfo = spec},
      .layout = s->layout};
  bool stats = (s->flags & SPLATSORT_CREATE_LOG_PIPELINE_STATISTICS_BIT) != 0;
  if (stats) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  r = vkCreateComputePipelines(s->device, s->pipeline_cache, 1, &ci, s->allocator, out);
  vkDestroyShaderModule(s->device, module, s->allocator);
  if (r != VK_SUCCESS) {
    *out = VK_NULL_HANDLE;
    ss_log(s, "splatsort: creating pipeline %s failed (%d)", name, r);
    return r;
  }
  name_object(s, VK_OBJECT_TYPE_PIPELINE, (uint64_t)*out, name);
  if (stats) log_pipeline_statistics(s, *out, name);
  return VK_SUCCESS;
}

void splatsort_destroy(splatsort *s) {
  if (!s) return;
  for (uint32_t i = 0; i < SS_MAX_PIPELINES; i++)
    if (s->pipelines[i]) vkDestroyPipeline(s->device, s->pipelines[i], s->allocator);
  if (s->layout) vkDestroyPipelineLayout(s->device, s->layout, s->allocator);
  if (s->set_layout) vkDestroyDescriptorSetLayout(s->device, s->set_layout, s->allocator);
  const VkAllocationCallbacks *a = s->allocator;
  if (a && a->pfnFree)
    a->pfnFree(a->pUserData, s);
  else
    free(s);
}

VkResult splatsort_create(const splatsort_create_info *info, splatsort **out) {
  if (out) *out = NULL;
  if (!info || !out) return VK_ERROR_VALIDATION_FAILED_EXT;
  splatsort probe = {.log = info->log, .log_user = info->log_user};
  if (info->next) {
    ss_log(&probe, "splatsort_create: next must be NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!info->physical_device || !info->device) {
    ss_log(&probe, "splatsort_create: physical_device and device are required");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!valid_algorithm(info->algorithm)) {
    ss_log(&probe, "splatsort_create: unknown algorithm %d", (int)info->algorithm);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (info->flags & ~(uint32_t)(SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT |
                                 SPLATSORT_CREATE_LOG_PIPELINE_STATISTICS_BIT) ||
      info->enabled_features & ~(uint32_t)SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT) {
    ss_log(&probe, "splatsort_create: unknown bits in flags or enabled_features");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }

  const VkAllocationCallbacks *a = info->allocator;
  splatsort *s = a && a->pfnAllocation
                     ? a->pfnAllocation(a->pUserData, sizeof *s, 16, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT)
                     : malloc(sizeof *s);
  if (!s) return VK_ERROR_OUT_OF_HOST_MEMORY;
  memset(s, 0, sizeof *s);
  s->device = info->device;
  s->physical_device = info->physical_device;
  s->pipeline_cache = info->pipeline_cache;
  s->allocator = a;
  s->flags = info->flags;
  s->log = info->log;
  s->log_user = info->log_user;
  query_device(info->physical_device, &s->dev);
  s->dev.size_control = (info->enabled_features & SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT) != 0;
  s->algorithm = resolve_algorithm(&s->dev, info->algorithm);

  VkResult r = VK_SUCCESS;
  if (s->dev.api_version < VK_API_VERSION_1_1) {
    ss_log(s, "splatsort_create: the device's Vulkan version is below 1.1");
    r = VK_ERROR_FEATURE_NOT_PRESENT;
    goto fail;
  }
  if (s->algorithm == SPLATSORT_ALGORITHM_ONESWEEP && !ss_onesweep_supported(&s->dev)) {
    ss_log(s, "splatsort_create: OneSweep needs subgroup basic, ballot, shuffle and arithmetic operations in compute "
               "shaders, 256 invocations per workgroup and enough shared memory");
    r = VK_ERROR_FEATURE_NOT_PRESENT;
    goto fail;
  }
  s->push_descriptor_set = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(s->device, "vkCmdPushDescriptorSetKHR");
  if (!s->push_descriptor_set) /* Vulkan 1.4 core name, same signature */
    s->push_descriptor_set = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(s->device, "vkCmdPushDescriptorSet");
  if (!s->push_descriptor_set) {
    ss_log(s, "splatsort_create: " SS_PUSH_DESCRIPTOR_EXT " is not enabled on the device");
    r = VK_ERROR_EXTENSION_NOT_PRESENT;
    goto fail;
  }
  s->begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetDeviceProcAddr(s->device, "vkCmdBeginDebugUtilsLabelEXT");
  s->end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetDeviceProcAddr(s->device, "vkCmdEndDebugUtilsLabelEXT");
  if (!s->begin_label || !s->end_label) s->begin_label = NULL, s->end_label = NULL;

  VkDescriptorSetLayoutBinding bindings[SS_BIND_COUNT_OF];
  for (uint32_t i = 0; i < SS_BIND_COUNT_OF; i++)
    bindings[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                 .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo dsl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                         .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                         .bindingCount = SS_BIND_COUNT_OF, .pBindings = bindings};
  r = vkCreateDescriptorSetLayout(s->device, &dsl, s->allocator, &s->set_layout);
  if (r != VK_SUCCESS) goto fail;
  VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = SS_PUSH_SIZE};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                   .pSetLayouts = &s->set_layout, .pushConstantRangeCount = 1,
                                   .pPushConstantRanges = &range};
  r = vkCreatePipelineLayout(s->device, &pl, s->allocator, &s->layout);
  if (r != VK_SUCCESS) goto fail;
  name_object(s, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)s->layout, "splatsort layout");

  s->ops = s->algorithm == SPLATSORT_ALGORITHM_ONESWEEP ? &ss_onesweep_ops : &ss_quaternary_ops;
  r = s->ops->create(s);
  if (r != VK_SUCCESS) goto fail;
  *out = s;
  return VK_SUCCESS;
fail:
  splatsort_destroy(s);
  return r;
}

splatsort_algorithm splatsort_get_algorithm(const splatsort *s) { return s ? s->algorithm : SPLATSORT_ALGORITHM_AUTO; }

uint32_t splatsort_max_count(const splatsort *s) {
  if (!s) return 0;
  uint32_t by_range = s->dev.max_storage_range / 4u;
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

static bool check_buffer(const splatsort *s, splatsort_buffer b, const char *name) {
  if (b.buffer == VK_NULL_HANDLE) {
    ss_log(s, "splatsort_cmd_sort: %s.buffer is VK_NULL_HANDLE", name);
    return false;
  }
  if (b.offset % s->dev.storage_alignment) {
    ss_log(s, "splatsort_cmd_sort: %s.offset %llu is not a multiple of %llu", name, (unsigned long long)b.offset,
           (unsigned long long)s->dev.storage_alignment);
    return false;
  }
  return true;
}

VkResult splatsort_cmd_sort(splatsort *s, VkCommandBuffer cmd, const splatsort_sort_info *info,
                            splatsort_result *result) {
  if (!s || !cmd || !info) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (info->next) {
    ss_log(s, "splatsort_cmd_sort: next must be NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (info->max_count == 0 || info->max_count > splatsort_max_count(s)) {
    ss_log(s, "splatsort_cmd_sort: max_count %u is outside 1..%u", info->max_count, splatsort_max_count(s));
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (info->key_bits > 32) {
    ss_log(s, "splatsort_cmd_sort: key_bits %u is above 32", info->key_bits);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  bool indirect = info->count_buffer.buffer != VK_NULL_HANDLE;
  if (!indirect && info->count > info->max_count) {
    ss_log(s, "splatsort_cmd_sort: count %u is above max_count %u", info->count, info->max_count);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (indirect && info->count_buffer.offset % 4) {
    ss_log(s, "splatsort_cmd_sort: count_buffer.offset %llu is not a multiple of 4",
           (unsigned long long)info->count_buffer.offset);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!check_buffer(s, info->keys, "keys") || !check_buffer(s, info->values, "values") ||
      !check_buffer(s, info->tmp_keys, "tmp_keys") || !check_buffer(s, info->tmp_values, "tmp_values") ||
      !check_buffer(s, info->internal, "internal"))
    return VK_ERROR_VALIDATION_FAILED_EXT;

  uint32_t bits = effective_bits(info->key_bits);
  ss_label_begin(s, cmd, "splatsort");
  if (info->query_pool) {
    vkCmdResetQueryPool(cmd, info->query_pool, info->first_query, s->ops->timestamp_count(bits));
    ss_timestamp(cmd, info, 0);
  }
  s->ops->record(s, cmd, info, bits);
  ss_label_end(s, cmd);
  if (result) *result = splatsort_result_location(s, info);
  return VK_SUCCESS;
}

/* ---- recording helpers ---- */

void ss_bind(splatsort *s, VkCommandBuffer cmd, VkPipeline pipeline, const splatsort_sort_info *info, uint32_t pass) {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  VkDeviceSize kv = (VkDeviceSize)info->max_count * 4u;
  bool odd = pass & 1u;
  splatsort_buffer kin = odd ? info->tmp_keys : info->keys, vin = odd ? info->tmp_values : info->values;
  splatsort_buffer kout = odd ? info->keys : info->tmp_keys, vout = odd ? info->values : info->tmp_values;
  VkDescriptorBufferInfo bi[SS_BIND_COUNT_OF] = {
      {kin.buffer, kin.offset, kv},
      {vin.buffer, vin.offset, kv},
      {kout.buffer, kout.offset, kv},
      {vout.buffer, vout.offset, kv},
      {info->internal.buffer, info->internal.offset, s->ops->internal_size(s, info->max_count)},
      {info->internal.buffer, info->internal.offset, 16},
  };
  if (info->count_buffer.buffer) {
    /* Bound at the aligned offset below the count; the shader gets the word index. */
    VkDeviceSize base = info->count_buffer.offset / s->dev.storage_alignment * s->dev.storage_alignment;
    bi[SS_BIND_COUNT] = (VkDescriptorBufferInfo){info->count_buffer.buffer, base, info->count_buffer.offset - base + 4};
  }
  VkWriteDescriptorSet w[SS_BIND_COUNT_OF];
  for (uint32_t i = 0; i < SS_BIND_COUNT_OF; i++)
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &bi[i]};
  s->push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, SS_BIND_COUNT_OF, w);
}

void ss_push(splatsort *s, VkCommandBuffer cmd, const void *data, uint32_t size) {
  vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, size, data);
}

void ss_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                       .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                       .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                        VK_ACCESS_INDIRECT_COMMAND_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &b, 0, NULL,
                       0, NULL);
}

void ss_timestamp(VkCommandBuffer cmd, const splatsort_sort_info *info, uint32_t index) {
  if (info->query_pool)
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->query_pool, info->first_query + index);
}

void ss_label_begin(splatsort *s, VkCommandBuffer cmd, const char *name) {
  if (!s->begin_label) return;
  VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
  s->begin_label(cmd, &label);
}

void ss_label_end(splatsort *s, VkCommandBuffer cmd) {
  if (s->end_label) s->end_label(cmd);
}
