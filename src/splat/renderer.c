/* The splat renderer: scene upload, projection + depth keys, GPU sort, back-to-front raster,
 * per-stage timestamps. See renderer.h for the contract. */
#include "renderer.h"
#include "renderer_debug.h"

#include "project.h"
#include "splat_shared.h"
#include "splat_spv_spv.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TS_START, TS_PROJECTED, TS_SORTED, TS_RASTERED, TS_COUNT };

typedef struct gpu_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
  void *mapped;
} gpu_buffer;

/* Everything that depends on the scene: replaced as a whole by set_scene. */
typedef struct scene_gpu {
  uint32_t count, sh_degree, sh_words;
  gpu_buffer pos, cov, sh, projected, keyvals, internal, draw;
  VkDeviceSize region; /* bytes per key/value region in keyvals */
  VkPipeline project;  /* specialised for sh_words */
} scene_gpu;

struct splat_renderer {
  VkDevice device;
  VkPhysicalDevice physical_device;
  VkQueue queue;
  uint32_t queue_family;
  VkPhysicalDeviceMemoryProperties memory;
  VkPhysicalDeviceProperties props;
  splatsort_log_fn log;
  void *log_user;
  uint32_t slots;

  splatsort *sorters[2]; /* quaternary, onesweep (NULL where unsupported) */
  PFN_vkCmdPushDescriptorSetKHR push_descriptors;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout compute_layout, raster_layout;
  VkPipeline compact_scan, compact, raster;
  VkCommandPool upload_pool;

  scene_gpu scene;

  VkImage target;
  VkDeviceMemory target_memory;
  VkImageView target_view;
  uint32_t width, height;

  VkQueryPool queries;
  gpu_buffer readback; /* visible count per slot */
  bool recorded[SPLAT_MAX_FRAME_SLOTS];
  uint32_t slot_bits[SPLAT_MAX_FRAME_SLOTS];
  splatsort_algorithm slot_sort[SPLAT_MAX_FRAME_SLOTS];
  splatsort_result last_sorted; /* where the last recorded frame's sorted pairs are */
};

static void rlog(const splat_renderer *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void rlog(const splat_renderer *r, const char *fmt, ...) {
  if (!r->log) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->log(r->log_user, msg);
}

static uint32_t memory_type(const splat_renderer *r, uint32_t bits, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < r->memory.memoryTypeCount; i++)
    if ((bits & (1u << i)) && (r->memory.memoryTypes[i].propertyFlags & want) == want) return i;
  return UINT32_MAX;
}

static void buffer_destroy(splat_renderer *r, gpu_buffer *b) {
  if (b->buffer) vkDestroyBuffer(r->device, b->buffer, NULL);
  if (b->memory) vkFreeMemory(r->device, b->memory, NULL);
  *b = (gpu_buffer){0};
}

static VkResult buffer_create(splat_renderer *r, VkDeviceSize size, VkBufferUsageFlags usage, bool host,
                              gpu_buffer *b) {
  *b = (gpu_buffer){.size = size};
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size ? size : 16,
                            .usage = usage, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkResult res = vkCreateBuffer(r->device, &bci, NULL, &b->buffer);
  if (res != VK_SUCCESS) return res;
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(r->device, b->buffer, &mr);
  VkMemoryPropertyFlags want = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = memory_type(r, mr.memoryTypeBits, want);
  if (type == UINT32_MAX) {
    buffer_destroy(r, b);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = type};
  res = vkAllocateMemory(r->device, &mai, NULL, &b->memory);
  if (res == VK_SUCCESS) res = vkBindBufferMemory(r->device, b->buffer, b->memory, 0);
  if (res == VK_SUCCESS && host) res = vkMapMemory(r->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
  if (res != VK_SUCCESS) buffer_destroy(r, b);
  return res;
}

static VkResult shader_pipeline(splat_renderer *r, const uint32_t *code, size_t size, VkPipelineLayout layout,
                                const VkSpecializationInfo *spec, VkPipeline *out) {
  VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
  VkShaderModule m;
  VkResult res = vkCreateShaderModule(r->device, &mci, NULL, &m);
  if (res != VK_SUCCESS) return res;
  VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                    .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                              .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = m, .pName = "main",
                                              .pSpecializationInfo = spec},
                                    .layout = layout};
  res = vkCreateComputePipelines(r->device, VK_NULL_HANDLE, 1, &ci, NULL, out);
  vkDestroyShaderModule(r->device, m, NULL);
  return res;
}

static VkResult create_raster_pipeline(splat_renderer *r) {
  VkShaderModule vs, fs;
  VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                  .codeSize = splat_spv_splat_vert_size, .pCode = splat_spv_splat_vert};
  VkResult res = vkCreateShaderModule(r->device, &mci, NULL, &vs);
  if (res != VK_SUCCESS) return res;
  mci.codeSize = splat_spv_splat_frag_size;
  mci.pCode = splat_spv_splat_frag;
  res = vkCreateShaderModule(r->device, &mci, NULL, &fs);
  if (res != VK_SUCCESS) {
    vkDestroyShaderModule(r->device, vs, NULL);
    return res;
  }
  VkPipelineShaderStageCreateInfo stages[2] = {
      {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs,
       .pName = "main"},
      {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
       .module = fs, .pName = "main"}};
  VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                               .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP};
  VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                          .viewportCount = 1, .scissorCount = 1};
  VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                               .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
                                               .lineWidth = 1.0f};
  VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                             .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
  VkPipelineColorBlendAttachmentState blend = {
      .blendEnable = VK_TRUE,
      .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
      .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
      .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                        VK_COLOR_COMPONENT_A_BIT};
  VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                            .attachmentCount = 1, .pAttachments = &blend};
  VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                         .dynamicStateCount = 2, .pDynamicStates = dyn};
  VkFormat format = SPLAT_TARGET_FORMAT;
  VkPipelineRenderingCreateInfo rendering = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                             .colorAttachmentCount = 1, .pColorAttachmentFormats = &format};
  VkGraphicsPipelineCreateInfo gci = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .pNext = &rendering,
                                      .stageCount = 2, .pStages = stages, .pVertexInputState = &vi,
                                      .pInputAssemblyState = &ia, .pViewportState = &vp, .pRasterizationState = &rs,
                                      .pMultisampleState = &ms, .pColorBlendState = &cb, .pDynamicState = &ds,
                                      .layout = r->raster_layout};
  res = vkCreateGraphicsPipelines(r->device, VK_NULL_HANDLE, 1, &gci, NULL, &r->raster);
  vkDestroyShaderModule(r->device, vs, NULL);
  vkDestroyShaderModule(r->device, fs, NULL);
  return res;
}

static void scene_destroy(splat_renderer *r, scene_gpu *s) {
  buffer_destroy(r, &s->pos);
  buffer_destroy(r, &s->cov);
  buffer_destroy(r, &s->sh);
  buffer_destroy(r, &s->projected);
  buffer_destroy(r, &s->keyvals);
  buffer_destroy(r, &s->internal);
  buffer_destroy(r, &s->draw);
  if (s->project) vkDestroyPipeline(r->device, s->project, NULL);
  *s = (scene_gpu){0};
}

static void target_destroy(splat_renderer *r) {
  if (r->target_view) vkDestroyImageView(r->device, r->target_view, NULL);
  if (r->target) vkDestroyImage(r->device, r->target, NULL);
  if (r->target_memory) vkFreeMemory(r->device, r->target_memory, NULL);
  r->target_view = VK_NULL_HANDLE;
  r->target = VK_NULL_HANDLE;
  r->target_memory = VK_NULL_HANDLE;
  r->width = r->height = 0;
}

void splat_renderer_destroy(splat_renderer *r) {
  if (!r) return;
  vkDeviceWaitIdle(r->device);
  scene_destroy(r, &r->scene);
  target_destroy(r);
  buffer_destroy(r, &r->readback);
  if (r->queries) vkDestroyQueryPool(r->device, r->queries, NULL);
  if (r->upload_pool) vkDestroyCommandPool(r->device, r->upload_pool, NULL);
  if (r->raster) vkDestroyPipeline(r->device, r->raster, NULL);
  if (r->compact_scan) vkDestroyPipeline(r->device, r->compact_scan, NULL);
  if (r->compact) vkDestroyPipeline(r->device, r->compact, NULL);
  if (r->raster_layout) vkDestroyPipelineLayout(r->device, r->raster_layout, NULL);
  if (r->compute_layout) vkDestroyPipelineLayout(r->device, r->compute_layout, NULL);
  if (r->set_layout) vkDestroyDescriptorSetLayout(r->device, r->set_layout, NULL);
  splatsort_destroy(r->sorters[0]);
  splatsort_destroy(r->sorters[1]);
  free(r);
}

VkResult splat_renderer_create(const splat_renderer_create_info *info, splat_renderer **out) {
  if (out) *out = NULL;
  if (!info || !out || !info->device || !info->physical_device || !info->queue ||
      info->frame_slots > SPLAT_MAX_FRAME_SLOTS)
    return VK_ERROR_VALIDATION_FAILED_EXT;
  splat_renderer *r = calloc(1, sizeof *r);
  if (!r) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r->device = info->device;
  r->physical_device = info->physical_device;
  r->queue = info->queue;
  r->queue_family = info->queue_family;
  r->log = info->log;
  r->log_user = info->log_user;
  r->slots = info->frame_slots ? info->frame_slots : 1;
  vkGetPhysicalDeviceMemoryProperties(r->physical_device, &r->memory);
  vkGetPhysicalDeviceProperties(r->physical_device, &r->props);

  VkResult res;
  splatsort_create_info sci = {.physical_device = r->physical_device, .device = r->device,
                               .algorithm = SPLATSORT_ALGORITHM_QUATERNARY, .enabled_features = info->sort_features,
                               .flags = info->sort_flags, .log = info->log, .log_user = info->log_user};
  res = splatsort_create(&sci, &r->sorters[0]);
  if (res != VK_SUCCESS) goto fail;
  sci.algorithm = SPLATSORT_ALGORITHM_ONESWEEP;
  sci.log = NULL; /* unsupported is fine: the quaternary path remains */
  if (splatsort_create(&sci, &r->sorters[1]) != VK_SUCCESS) r->sorters[1] = NULL;

  r->push_descriptors = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(r->device, "vkCmdPushDescriptorSetKHR");
  if (!r->push_descriptors) /* core in Vulkan 1.4, where a host need not enable the extension */
    r->push_descriptors = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(r->device, "vkCmdPushDescriptorSet");
  if (!r->push_descriptors) {
    rlog(r, "splat renderer: push descriptors are not available (enable VK_KHR_push_descriptor, or Vulkan 1.4)");
    res = VK_ERROR_EXTENSION_NOT_PRESENT;
    goto fail;
  }
  VkDescriptorSetLayoutBinding bindings[SP_BIND_COUNT_OF];
  for (uint32_t i = 0; i < SP_BIND_COUNT_OF; i++)
    bindings[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                 .descriptorCount = 1,
                                                 .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT};
  VkDescriptorSetLayoutCreateInfo dsl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                         .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                         .bindingCount = SP_BIND_COUNT_OF, .pBindings = bindings};
  res = vkCreateDescriptorSetLayout(r->device, &dsl, NULL, &r->set_layout);
  if (res != VK_SUCCESS) goto fail;
  VkPushConstantRange cr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct sp_project_push)};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                   .pSetLayouts = &r->set_layout, .pushConstantRangeCount = 1,
                                   .pPushConstantRanges = &cr};
  res = vkCreatePipelineLayout(r->device, &pl, NULL, &r->compute_layout);
  if (res != VK_SUCCESS) goto fail;
  VkPushConstantRange rr = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(struct sp_raster_push)};
  pl.pPushConstantRanges = &rr;
  res = vkCreatePipelineLayout(r->device, &pl, NULL, &r->raster_layout);
  if (res != VK_SUCCESS) goto fail;
  res = shader_pipeline(r, splat_spv_compact_scan_comp, splat_spv_compact_scan_comp_size, r->compute_layout, NULL,
                        &r->compact_scan);
  if (res != VK_SUCCESS) goto fail;
  res = shader_pipeline(r, splat_spv_compact_comp, splat_spv_compact_comp_size, r->compute_layout, NULL, &r->compact);
  if (res != VK_SUCCESS) goto fail;
  res = create_raster_pipeline(r);
  if (res != VK_SUCCESS) {
    rlog(r, "splat renderer: creating the raster pipeline failed (is dynamicRendering enabled?)");
    goto fail;
  }
  VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                 .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT, .queueFamilyIndex = r->queue_family};
  res = vkCreateCommandPool(r->device, &cpi, NULL, &r->upload_pool);
  if (res != VK_SUCCESS) goto fail;
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                               .queryCount = TS_COUNT * r->slots};
  res = vkCreateQueryPool(r->device, &qpi, NULL, &r->queries);
  if (res != VK_SUCCESS) goto fail;
  res = buffer_create(r, 16 * SPLAT_MAX_FRAME_SLOTS, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, &r->readback);
  if (res != VK_SUCCESS) goto fail;
  *out = r;
  return VK_SUCCESS;
fail:
  if (res == VK_SUCCESS) res = VK_ERROR_INITIALIZATION_FAILED;
  splat_renderer_destroy(r);
  return res;
}

int splat_renderer_has_sort(const splat_renderer *r, splatsort_algorithm a) {
  if (!r) return 0;
  if (a == SPLATSORT_ALGORITHM_ONESWEEP) return r->sorters[1] != NULL;
  return 1;
}

uint32_t splat_renderer_scene_count(const splat_renderer *r) { return r ? r->scene.count : 0; }

/* IEEE half from float, round to nearest even; SH values are small and finite. */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xFFu, m = x & 0x7FFFFFu;
  if (e == 0xFF) return (uint16_t)(sign | 0x7C00u | (m ? 0x200u : 0));
  int exp = (int)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7C00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    m |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - exp);
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (m >> 13), rem = m & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static VkResult upload(splat_renderer *r, gpu_buffer *dst, const void *data, VkDeviceSize size) {
  gpu_buffer staging;
  VkResult res = buffer_create(r, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, &staging);
  if (res != VK_SUCCESS) return res;
  memcpy(staging.mapped, data, size);
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = r->upload_pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkCommandBuffer cmd;
  res = vkAllocateCommandBuffers(r->device, &ai, &cmd);
  if (res == VK_SUCCESS) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cmd, &bi);
    VkBufferCopy region = {0, 0, size};
    vkCmdCopyBuffer(cmd, staging.buffer, dst->buffer, 1, &region);
    res = vkEndCommandBuffer(cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    if (res == VK_SUCCESS) res = vkQueueSubmit(r->queue, 1, &si, VK_NULL_HANDLE);
    if (res == VK_SUCCESS) res = vkQueueWaitIdle(r->queue);
    vkFreeCommandBuffers(r->device, r->upload_pool, 1, &cmd);
  }
  buffer_destroy(r, &staging);
  return res;
}

VkResult splat_renderer_set_scene(splat_renderer *r, const splat_scene *sc) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!sc || sc->count == 0) {
    rlog(r, "splat renderer: set_scene: the scene is %s; the previous scene stays", sc ? "empty" : "NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (sc->sh_degree > 3 || sc->sh_coeffs != (sc->sh_degree + 1) * (sc->sh_degree + 1) || !sc->positions ||
      !sc->scales || !sc->rotations || !sc->opacities || !sc->sh) {
    rlog(r, "splat renderer: set_scene: inconsistent scene (SH degree %u with %u coefficients, or a missing array); "
            "the previous scene stays", sc->sh_degree, sc->sh_coeffs);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  uint32_t n = sc->count;
  if (n > splatsort_max_count(r->sorters[0]) || (r->sorters[1] && n > splatsort_max_count(r->sorters[1]))) {
    rlog(r, "splat renderer: %u splats is above this device's sort maximum %u", n, splatsort_max_count(r->sorters[0]));
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  scene_gpu s = {.count = n, .sh_degree = sc->sh_degree};
  uint32_t halves = sc->sh_coeffs * 3;
  s.sh_words = (halves + 1) / 2;
  VkResult res = VK_SUCCESS;
  float *pos = malloc(sizeof(float) * 4 * n), *cov = malloc(sizeof(float) * 8 * n);
  uint16_t *sh = calloc((size_t)s.sh_words * 2 * n, sizeof(uint16_t));
  if (!pos || !cov || !sh) {
    res = VK_ERROR_OUT_OF_HOST_MEMORY;
    goto done;
  }
  for (uint32_t i = 0; i < n; i++) {
    memcpy(pos + 4 * i, sc->positions + 3 * i, 12);
    pos[4 * i + 3] = sc->opacities[i];
    float c[6];
    splat_cov3d(sc->scales + 3 * i, sc->rotations + 4 * i, c);
    float *o = cov + 8 * i;
    o[0] = c[0], o[1] = c[1], o[2] = c[2], o[3] = c[3], o[4] = c[4], o[5] = c[5], o[6] = 0, o[7] = 0;
    for (uint32_t h = 0; h < halves; h++) sh[(size_t)i * s.sh_words * 2 + h] = to_half(sc->sh[(size_t)i * halves + h]);
  }
  /* sort buffers: sized for every sorter the renderer may use */
  splatsort_memory_requirements mq, mo = {0};
  res = splatsort_get_memory_requirements(r->sorters[0], n, &mq);
  if (res == VK_SUCCESS && r->sorters[1]) res = splatsort_get_memory_requirements(r->sorters[1], n, &mo);
  if (res != VK_SUCCESS) goto done;
  VkDeviceSize align = mq.alignment > mo.alignment ? mq.alignment : mo.alignment;
  VkDeviceSize kv = mq.keyval_size > mo.keyval_size ? mq.keyval_size : mo.keyval_size;
  s.region = (kv + align - 1) / align * align;
  VkDeviceSize internal = mq.internal_size > mo.internal_size ? mq.internal_size : mo.internal_size;
  const VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, dst = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if ((res = buffer_create(r, 16ull * n, st | dst, false, &s.pos)) != VK_SUCCESS ||
      (res = buffer_create(r, 32ull * n, st | dst, false, &s.cov)) != VK_SUCCESS ||
      (res = buffer_create(r, 4ull * s.sh_words * n, st | dst, false, &s.sh)) != VK_SUCCESS ||
      /* TRANSFER_SRC: renderer_debug.h lets tests read these back */
      (res = buffer_create(r, 32ull * n, st | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false, &s.projected)) != VK_SUCCESS ||
      (res = buffer_create(r, 4 * s.region, st | mq.keyval_usage | mo.keyval_usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           false, &s.keyvals)) != VK_SUCCESS ||
      (res = buffer_create(r, internal, mq.internal_usage | mo.internal_usage, false, &s.internal)) != VK_SUCCESS ||
      (res = buffer_create(r, 4 * SP_DRAW_WORDS, st | dst | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | mq.count_usage,
                           false, &s.draw)) != VK_SUCCESS)
    goto done;
  if ((res = upload(r, &s.pos, pos, 16ull * n)) != VK_SUCCESS || (res = upload(r, &s.cov, cov, 32ull * n)) != VK_SUCCESS ||
      (res = upload(r, &s.sh, sh, 4ull * s.sh_words * n)) != VK_SUCCESS)
    goto done;
  VkSpecializationMapEntry entry = {0, 0, 4};
  VkSpecializationInfo spec = {1, &entry, 4, &s.sh_words};
  res = shader_pipeline(r, splat_spv_project_comp, splat_spv_project_comp_size, r->compute_layout, &spec, &s.project);
done:
  free(pos);
  free(cov);
  free(sh);
  if (res != VK_SUCCESS) {
    rlog(r, "splat renderer: uploading a scene of %u splats failed (%d); the previous scene stays", n, res);
    scene_destroy(r, &s);
    return res;
  }
  vkDeviceWaitIdle(r->device); /* the old scene may still be in use by submitted frames */
  scene_destroy(r, &r->scene);
  r->scene = s;
  r->last_sorted = (splatsort_result){0};
  return VK_SUCCESS;
}

static VkResult ensure_target(splat_renderer *r, uint32_t w, uint32_t h) {
  if (r->target && r->width == w && r->height == h) return VK_SUCCESS;
  target_destroy(r);
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = SPLAT_TARGET_FORMAT, .extent = {w, h, 1}, .mipLevels = 1, .arrayLayers = 1,
                           .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                           .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                           .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  VkResult res = vkCreateImage(r->device, &ici, NULL, &r->target);
  if (res != VK_SUCCESS) return res;
  VkMemoryRequirements mr;
  vkGetImageMemoryRequirements(r->device, r->target, &mr);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = memory_type(r, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  res = vkAllocateMemory(r->device, &mai, NULL, &r->target_memory);
  if (res == VK_SUCCESS) res = vkBindImageMemory(r->device, r->target, r->target_memory, 0);
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = r->target,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = SPLAT_TARGET_FORMAT,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  if (res == VK_SUCCESS) res = vkCreateImageView(r->device, &vci, NULL, &r->target_view);
  if (res != VK_SUCCESS) {
    target_destroy(r);
    return res;
  }
  r->width = w;
  r->height = h;
  return VK_SUCCESS;
}

static void push(splat_renderer *r, VkCommandBuffer cmd, VkPipelineBindPoint bp, VkPipelineLayout layout,
                 const VkDescriptorBufferInfo *infos) {
  VkWriteDescriptorSet w[SP_BIND_COUNT_OF];
  uint32_t n = 0;
  for (uint32_t i = 0; i < SP_BIND_COUNT_OF; i++) {
    if (!infos[i].buffer) continue;
    w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                    .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .pBufferInfo = &infos[i]};
  }
  r->push_descriptors(cmd, bp, layout, 0, n, w);
}

static void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                           VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access,
                       .dstAccessMask = dst_access};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

static void dispatch_1d(splat_renderer *r, VkCommandBuffer cmd, uint32_t threads) {
  uint32_t groups = (threads + SP_PROJECT_WORKGROUP - 1) / SP_PROJECT_WORKGROUP;
  uint32_t max_x = r->props.limits.maxComputeWorkGroupCount[0];
  uint32_t x = groups < max_x ? groups : max_x;
  if (x) vkCmdDispatch(cmd, x, (groups + x - 1) / x, 1);
}

VkResult splat_renderer_cmd_render(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  if (!r || !cmd || !f || !f->camera || f->slot >= r->slots) return VK_ERROR_VALIDATION_FAILED_EXT;
  const splat_camera *cam = f->camera;
  uint32_t key_bits = f->key_bits ? f->key_bits : 32;
  if (key_bits != 16 && key_bits != 24 && key_bits != 32) {
    rlog(r, "splat renderer: key_bits must be 16, 24 or 32 (got %u)", key_bits);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (cam->width == 0 || cam->height == 0 || cam->width > 16384 || cam->height > 16384) {
    rlog(r, "splat renderer: image size %ux%u is outside 1..16384", cam->width, cam->height);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  splatsort *sorter = f->sort == SPLATSORT_ALGORITHM_QUATERNARY ? r->sorters[0]
                      : f->sort == SPLATSORT_ALGORITHM_ONESWEEP ? r->sorters[1]
                      : (r->sorters[1] ? r->sorters[1] : r->sorters[0]);
  if (!sorter) {
    rlog(r, "splat renderer: the %s sort is not available on this device", splatsort_algorithm_name(f->sort));
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  if (!r->scene.count) {
    rlog(r, "splat renderer: no scene loaded");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  VkResult res = ensure_target(r, cam->width, cam->height);
  if (res != VK_SUCCESS) return res;
  scene_gpu *s = &r->scene;
  uint32_t q0 = f->slot * TS_COUNT;

  /* Earlier frames on the queue must be done with what this one overwrites: their reads
   * (draw arguments, vertex fetch, sort, count copy) and their writes (write-after-write). */
  memory_barrier(cmd,
                 VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                     VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdResetQueryPool(cmd, r->queries, q0, TS_COUNT);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, q0 + TS_START);
  uint32_t draw_init[SP_DRAW_WORDS] = {4, 0, 0, 0, 0x7F7FFFFFu, 0, 0, 0};
  vkCmdUpdateBuffer(cmd, s->draw.buffer, 0, sizeof draw_init, draw_init);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);

  /* projection, then the ordered compaction of the visible splats into the sort input; the
   * per-splat depth keys and per-workgroup counts live in the sort's tmp regions, which the
   * sort only uses after them */
  struct sp_project_push pc;
  memcpy(pc.view.m, cam->view, sizeof pc.view.m);
  pc.campos = (sp_vec4){{cam->position[0], cam->position[1], cam->position[2], 0}};
  pc.intrinsics = (sp_vec4){{cam->fx, cam->fy, cam->cx, cam->cy}};
  pc.limits = (sp_vec4){{SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovx(cam),
                         SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovy(cam), 0, 0}};
  pc.count = s->count;
  pc.sh_degree = f->sh_degree < 0 || (uint32_t)f->sh_degree > s->sh_degree ? s->sh_degree : (uint32_t)f->sh_degree;
  pc.key_bits = key_bits;
  pc.size = cam->width | cam->height << 16;
  VkDescriptorBufferInfo bi[SP_BIND_COUNT_OF] = {
      [SP_BIND_POS] = {s->pos.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_COV] = {s->cov.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_SH] = {s->sh.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_PROJECTED] = {s->projected.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_KEYS] = {s->keyvals.buffer, 0, s->region},
      [SP_BIND_VALUES] = {s->keyvals.buffer, s->region, s->region},
      [SP_BIND_DRAW] = {s->draw.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_DEPTH_KEYS] = {s->keyvals.buffer, 2 * s->region, s->region},
      [SP_BIND_GROUP_OFFSETS] = {s->keyvals.buffer, 3 * s->region, s->region},
  };
  const VkPipelineStageFlags cs = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  const VkAccessFlags rw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  push(r, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->compute_layout, bi);
  vkCmdPushConstants(cmd, r->compute_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->project);
  dispatch_1d(r, cmd, s->count);
  memory_barrier(cmd, cs, VK_ACCESS_SHADER_WRITE_BIT, cs, rw);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->compact_scan);
  vkCmdDispatch(cmd, 1, 1, 1);
  memory_barrier(cmd, cs, VK_ACCESS_SHADER_WRITE_BIT, cs, rw);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->compact);
  dispatch_1d(r, cmd, s->count);
  memory_barrier(cmd, cs, VK_ACCESS_SHADER_WRITE_BIT, cs, rw);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, q0 + TS_PROJECTED);

  /* sort: count = the visible count the projection appended, read on the GPU */
  splatsort_sort_info si = {
      .max_count = s->count,
      .count_buffer = {s->draw.buffer, 4 * SP_DRAW_INSTANCES},
      .key_bits = key_bits,
      .keys = {s->keyvals.buffer, 0},
      .values = {s->keyvals.buffer, s->region},
      .tmp_keys = {s->keyvals.buffer, 2 * s->region},
      .tmp_values = {s->keyvals.buffer, 3 * s->region},
      .internal = {s->internal.buffer, 0},
  };
  splatsort_result sorted;
  res = splatsort_cmd_sort(sorter, cmd, &si, &sorted);
  if (res != VK_SUCCESS) return res;
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, q0 + TS_SORTED);

  /* visible count for the HUD / timings */
  VkBufferCopy cnt = {4 * SP_DRAW_INSTANCES, 16ull * f->slot, 4};
  vkCmdCopyBuffer(cmd, s->draw.buffer, r->readback.buffer, 1, &cnt);

  /* raster, back to front */
  VkImageMemoryBarrier to_color = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                                   .srcAccessMask = 0,
                                   .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                                   .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                                   .newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                   .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .image = r->target,
                                   .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0, NULL, 0, NULL, 1, &to_color);
  VkRenderingAttachmentInfo color = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
      .imageView = r->target_view,
      .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .clearValue = {.color = {.float32 = {f->background[0], f->background[1], f->background[2], 1.0f}}}};
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {cam->width, cam->height}},
                        .layerCount = 1, .colorAttachmentCount = 1, .pColorAttachments = &color};
  vkCmdBeginRendering(cmd, &ri);
  VkViewport vp = {0, 0, (float)cam->width, (float)cam->height, 0, 1};
  VkRect2D sc = {{0, 0}, {cam->width, cam->height}};
  vkCmdSetViewport(cmd, 0, 1, &vp);
  vkCmdSetScissor(cmd, 0, 1, &sc);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->raster);
  VkDescriptorBufferInfo rb[SP_BIND_COUNT_OF] = {
      [SP_BIND_PROJECTED] = {s->projected.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_VALUES] = {sorted.values.buffer, sorted.values.offset, s->region},
  };
  push(r, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->raster_layout, rb);
  struct sp_raster_push rp = {{{(float)cam->width, (float)cam->height, 1.0f / cam->width, 1.0f / cam->height}}};
  vkCmdPushConstants(cmd, r->raster_layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof rp, &rp);
  vkCmdDrawIndirect(cmd, s->draw.buffer, 0, 1, 16);
  vkCmdEndRendering(cmd);
  VkImageMemoryBarrier to_src = to_color;
  to_src.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  to_src.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  to_src.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  to_src.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
                       0, NULL, 1, &to_src);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, q0 + TS_RASTERED);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
  r->recorded[f->slot] = true;
  r->last_sorted = sorted;
  r->slot_bits[f->slot] = key_bits;
  r->slot_sort[f->slot] = splatsort_get_algorithm(sorter);
  return VK_SUCCESS;
}

void splat_renderer_target(const splat_renderer *r, VkImage *image, uint32_t *width, uint32_t *height) {
  if (image) *image = r ? r->target : VK_NULL_HANDLE;
  if (width) *width = r ? r->width : 0;
  if (height) *height = r ? r->height : 0;
}

VkResult splat_renderer_timings(splat_renderer *r, uint32_t slot, splat_timings *out) {
  if (!r || !out || slot >= r->slots) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!r->recorded[slot]) return VK_NOT_READY;
  uint64_t ts[TS_COUNT];
  VkResult res = vkGetQueryPoolResults(r->device, r->queries, slot * TS_COUNT, TS_COUNT, sizeof ts, ts, 8,
                                       VK_QUERY_RESULT_64_BIT);
  if (res != VK_SUCCESS) return res;
  double period = r->props.limits.timestampPeriod * 1e-6;
  out->projection_ms = (double)(ts[TS_PROJECTED] - ts[TS_START]) * period;
  out->sort_ms = (double)(ts[TS_SORTED] - ts[TS_PROJECTED]) * period;
  out->raster_ms = (double)(ts[TS_RASTERED] - ts[TS_SORTED]) * period;
  out->total_ms = (double)(ts[TS_RASTERED] - ts[TS_START]) * period;
  memcpy(&out->visible, (const char *)r->readback.mapped + 16 * slot, 4);
  out->key_bits = r->slot_bits[slot];
  out->sort = r->slot_sort[slot];
  return VK_SUCCESS;
}

VkResult splat_renderer_debug_get_buffers(const splat_renderer *r, splat_renderer_debug_buffers *out) {
  if (!r || !out) return VK_ERROR_VALIDATION_FAILED_EXT;
  *out = (splat_renderer_debug_buffers){0};
  if (!r->last_sorted.values.buffer) return VK_NOT_READY;
  out->count = r->scene.count;
  out->projected = r->scene.projected.buffer;
  out->draw = r->scene.draw.buffer;
  out->keys = r->last_sorted.keys;
  out->values = r->last_sorted.values;
  return VK_SUCCESS;
}
