/* The viewer as a host drawing its own opaque geometry under the splats (host_pass.h). */
#include "ssvk_graphics.h"
#include "host_pass.h"

#include "grid_shared.h"
#include "splatview_spv_spv.h"

#include <math.h>
#include <string.h>

#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT
#define ZNEAR 0.01f
#define ZFAR 1000.0f

void viewer_host_pass_init(viewer_host_pass *hp, vkh_context *ctx) {
  memset(hp, 0, sizeof *hp);
  hp->ctx = ctx;
  VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(struct grid_push)};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                   .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
  VK_CHECK(vkCreatePipelineLayout(ctx->device, &pl, NULL, &hp->layout));
  ssvk_graphics_desc gd = {.vert = splatview_spv_grid_vert, .vert_size = splatview_spv_grid_vert_size,
                           .frag = splatview_spv_grid_frag, .frag_size = splatview_spv_grid_frag_size,
                           .layout = hp->layout, .color_format = SPLAT_TARGET_FORMAT,
                           .topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST, .opaque = true,
                           .depth_format = DEPTH_FORMAT, .depth_compare = VK_COMPARE_OP_LESS, .depth_write = true,
                           .name = "grid"};
  VK_CHECK(ssvk_graphics_pipeline(&ctx->vk, &gd, &hp->grid));
}

static void images_destroy(viewer_host_pass *hp) {
  VkDevice d = hp->ctx->device;
  if (hp->color_view) vkDestroyImageView(d, hp->color_view, NULL);
  if (hp->depth_view) vkDestroyImageView(d, hp->depth_view, NULL);
  if (hp->color) vkDestroyImage(d, hp->color, NULL);
  if (hp->depth) vkDestroyImage(d, hp->depth, NULL);
  if (hp->color_memory) vkFreeMemory(d, hp->color_memory, NULL);
  if (hp->depth_memory) vkFreeMemory(d, hp->depth_memory, NULL);
  hp->color_view = hp->depth_view = VK_NULL_HANDLE;
  hp->color = hp->depth = VK_NULL_HANDLE;
  hp->color_memory = hp->depth_memory = VK_NULL_HANDLE;
  hp->width = hp->height = 0;
}

void viewer_host_pass_destroy(viewer_host_pass *hp) {
  if (!hp->ctx) return;
  vkDeviceWaitIdle(hp->ctx->device);
  images_destroy(hp);
  if (hp->grid) vkDestroyPipeline(hp->ctx->device, hp->grid, NULL);
  if (hp->layout) vkDestroyPipelineLayout(hp->ctx->device, hp->layout, NULL);
  memset(hp, 0, sizeof *hp);
}

static void image_create(viewer_host_pass *hp, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                         VkImage *image, VkDeviceMemory *memory, VkImageView *view) {
  vkh_context *ctx = hp->ctx;
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = format, .extent = {hp->width, hp->height, 1}, .mipLevels = 1, .arrayLayers = 1,
                           .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage};
  VK_CHECK(vkCreateImage(ctx->device, &ici, NULL, image));
  VkMemoryRequirements mr;
  vkGetImageMemoryRequirements(ctx->device, *image, &mr);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = vkh_memory_type(ctx, mr.memoryTypeBits,
                                                                 VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  VK_CHECK(vkAllocateMemory(ctx->device, &mai, NULL, memory));
  VK_CHECK(vkBindImageMemory(ctx->device, *image, *memory, 0));
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = *image,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                               .subresourceRange = {aspect, 0, 1, 0, 1}};
  VK_CHECK(vkCreateImageView(ctx->device, &vci, NULL, view));
}

/* Images of the frame's size; the caller has made sure no submitted frame still uses them. */
static void ensure_images(viewer_host_pass *hp, uint32_t w, uint32_t h) {
  if (hp->color && hp->width == w && hp->height == h) return;
  vkDeviceWaitIdle(hp->ctx->device);
  images_destroy(hp);
  hp->width = w, hp->height = h;
  image_create(hp, SPLAT_TARGET_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
               VK_IMAGE_ASPECT_COLOR_BIT, &hp->color, &hp->color_memory, &hp->color_view);
  image_create(hp, DEPTH_FORMAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, &hp->depth,
               &hp->depth_memory, &hp->depth_view);
}

static void begin_pass(viewer_host_pass *hp, VkCommandBuffer cmd, const float background[3]) {
  VkImageAspectFlags aspects[2] = {VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_ASPECT_DEPTH_BIT};
  VkImage images[2] = {hp->color, hp->depth};
  VkImageLayout layouts[2] = {VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL};
  VkAccessFlags access[2] = {VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                                                                     VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT};
  VkImageMemoryBarrier b[2];
  for (int i = 0; i < 2; i++)
    b[i] = (VkImageMemoryBarrier){.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .dstAccessMask = access[i],
                                  .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED, .newLayout = layouts[i],
                                  .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                  .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = images[i],
                                  .subresourceRange = {aspects[i], 0, 1, 0, 1}};
  /* the previous frame's blit read the colour image: wait for it before clearing */
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                       VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT, 0, 0,
                       NULL, 0, NULL, 2, b);
  VkRenderingAttachmentInfo ca = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = hp->color_view, .imageLayout = layouts[0],
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .clearValue = {.color = {.float32 = {background[0], background[1], background[2], 1.0f}}}};
  VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = hp->depth_view,
                                  .imageLayout = layouts[1], .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                  .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                  .clearValue = {.depthStencil = {1.0f, 0}}};
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {hp->width, hp->height}},
                        .layerCount = 1, .colorAttachmentCount = 1, .pColorAttachments = &ca, .pDepthAttachment = &da};
  vkCmdBeginRendering(cmd, &ri);
}

static void draw_grid(viewer_host_pass *hp, VkCommandBuffer cmd, const splat_camera *cam, const float origin[3],
                      const float u[3], const float v[3]) {
  struct grid_push pc = {.origin = {{origin[0], origin[1], origin[2], 0}}, .u = {{u[0], u[1], u[2], 0}},
                         .v = {{v[0], v[1], v[2], 0}}};
  float proj[16];
  splat_camera_projection(cam, ZNEAR, ZFAR, proj, pc.view_proj.m);
  VkViewport vp = {0, 0, (float)hp->width, (float)hp->height, 0, 1};
  VkRect2D sc = {{0, 0}, {hp->width, hp->height}};
  vkCmdSetViewport(cmd, 0, 1, &vp);
  vkCmdSetScissor(cmd, 0, 1, &sc);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, hp->grid);
  vkCmdPushConstants(cmd, hp->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof pc, &pc);
  vkCmdDraw(cmd, 4 * GRID_LINES, 1, 0, 0);
}

void viewer_host_pass_record(viewer_host_pass *hp, VkCommandBuffer cmd, splat_renderer *r, const splat_frame *f,
                             const float origin[3], const float u[3], const float v[3]) {
  ensure_images(hp, f->camera->width, f->camera->height);
  splat_frame frame = *f;
  frame.znear = ZNEAR, frame.zfar = ZFAR; /* the grid's projection: one depth for both */
  VK_CHECK(splat_renderer_cmd_prepare(r, cmd, &frame));
  begin_pass(hp, cmd, f->background);
  draw_grid(hp, cmd, f->camera, origin, u, v);
  VK_CHECK(splat_renderer_cmd_draw(r, cmd, &frame));
  vkCmdEndRendering(cmd);
  ssvk_image_barrier(&hp->ctx->vk, cmd, hp->color, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
}

void viewer_grid_place(const float lo[3], const float hi[3], const float up[3], const float ahead[3],
                       const float right[3], float origin[3], float u[3], float v[3]) {
  float centre[3], half[3], down = 0, size = 0;
  for (int k = 0; k < 3; k++) centre[k] = 0.5f * (lo[k] + hi[k]), half[k] = 0.5f * (hi[k] - lo[k]);
  for (int k = 0; k < 3; k++) {
    down += fabsf(up[k]) * half[k];
    size = fmaxf(size, half[k]);
  }
  for (int k = 0; k < 3; k++) {
    origin[k] = centre[k] - up[k] * down;
    u[k] = 1.5f * size * ahead[k];
    v[k] = 1.5f * size * right[k];
  }
}
