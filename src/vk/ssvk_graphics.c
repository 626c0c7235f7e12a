/* Graphics helpers of the private Vulkan layer (ssvk_graphics.h): compiled into the renderer
 * and the viewer, never into the sort library, which draws nothing. */
#include "ssvk_graphics.h"

#include <string.h>

const char *ssvk_missing_graphics(const ssvk_fns *f) {
#define SSVK_CHECK(name) \
  if (!f->name) return #name;
  SSVK_GRAPHICS_FUNCTIONS(SSVK_CHECK)
#undef SSVK_CHECK
  return NULL;
}

VkResult ssvk_graphics_pipeline(const ssvk_device *d, const ssvk_graphics_desc *desc, VkPipeline *out) {
  *out = VK_NULL_HANDLE;
  VkShaderModule vs, fs;
  VkResult r = ssvk_shader_module(d, desc->vert, desc->vert_size, desc->name, &vs);
  if (r != VK_SUCCESS) return r;
  r = ssvk_shader_module(d, desc->frag, desc->frag_size, desc->name, &fs);
  if (r != VK_SUCCESS) {
    d->fn.vkDestroyShaderModule(d->device, vs, d->allocator);
    return r;
  }
  VkPipelineShaderStageCreateInfo stages[2] = {
      {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs,
       .pName = "main"},
      {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
       .module = fs, .pName = "main"}};
  VkPipelineVertexInputStateCreateInfo no_input = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                               .topology = desc->topology};
  VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                          .viewportCount = 1, .scissorCount = 1};
  VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                               .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
                                               .lineWidth = 1.0f};
  VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                             .rasterizationSamples = desc->samples ? desc->samples
                                                                                   : VK_SAMPLE_COUNT_1_BIT};
  bool depth = desc->depth_format != VK_FORMAT_UNDEFINED;
  VkPipelineDepthStencilStateCreateInfo dss = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                               .depthTestEnable = depth, .depthWriteEnable = desc->depth_write,
                                               .depthCompareOp = desc->depth_compare};
  /* "over": colour src * factor + dst * (1 - src alpha); alpha always premultiplied */
  VkPipelineColorBlendAttachmentState blend = {
      .blendEnable = !desc->opaque,
      .srcColorBlendFactor = desc->src_color_factor,
      .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
      .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                        VK_COLOR_COMPONENT_A_BIT};
  VkPipelineColorBlendAttachmentState blends[2] = {blend, blend};
  VkFormat formats[2] = {desc->color_format, desc->second_color_format};
  uint32_t colors = desc->second_color_format != VK_FORMAT_UNDEFINED ? 2 : 1;
  VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                            .attachmentCount = colors, .pAttachments = blends};
  VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                         .dynamicStateCount = 2, .pDynamicStates = dyn};
  VkPipelineRenderingCreateInfo rendering = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                             .viewMask = desc->view_mask,
                                             .colorAttachmentCount = colors, .pColorAttachmentFormats = formats,
                                             .depthAttachmentFormat = desc->depth_format};
  VkGraphicsPipelineCreateInfo gci = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                      .pNext = desc->render_pass ? NULL : &rendering,
                                      .renderPass = desc->render_pass, .subpass = desc->subpass,
                                      .stageCount = 2, .pStages = stages,
                                      .pVertexInputState = desc->vertex_input ? desc->vertex_input : &no_input,
                                      .pInputAssemblyState = &ia, .pViewportState = &vp, .pRasterizationState = &rs,
                                      .pMultisampleState = &ms, .pDepthStencilState = depth ? &dss : NULL,
                                      .pColorBlendState = &cb, .pDynamicState = &ds,
                                      .layout = desc->layout};
  r = d->fn.vkCreateGraphicsPipelines(d->device, d->pipeline_cache, 1, &gci, d->allocator, out);
  d->fn.vkDestroyShaderModule(d->device, vs, d->allocator);
  d->fn.vkDestroyShaderModule(d->device, fs, d->allocator);
  return ssvk_pipeline_created(d, r, out, "vkCreateGraphicsPipelines", desc->name, "; is dynamicRendering enabled?");
}

void ssvk_begin_color_pass(const ssvk_device *d, VkCommandBuffer cmd, VkImageView view, VkExtent2D extent, const float *clear) {
  VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                     .imageView = view,
                                     .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                     .loadOp = clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD,
                                     .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
  if (clear) memcpy(color.clearValue.color.float32, clear, 4 * sizeof(float));
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, extent}, .layerCount = 1,
                        .colorAttachmentCount = 1, .pColorAttachments = &color};
  d->fn.vkCmdBeginRendering(cmd, &ri);
  VkViewport vp = {0, 0, (float)extent.width, (float)extent.height, 0, 1};
  VkRect2D sc = {{0, 0}, extent};
  d->fn.vkCmdSetViewport(cmd, 0, 1, &vp);
  d->fn.vkCmdSetScissor(cmd, 0, 1, &sc);
}
