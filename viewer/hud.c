/* The heads-up display: stb_easy_font quads, indexed as triangles, alpha-blended over the
 * swapchain image. */
#include "hud.h"
#include "message.h"
#include "ssvk_graphics.h"

#include "hud_shared.h"
#include "splatview_spv_spv.h"

#include <stb/stb_easy_font.h>
#include <string.h>

#define HUD_MAX_SLOTS 4
#define HUD_BOX_QUADS 32       /* panels come first in the buffer: drawn under the text */
#define HUD_MAX_QUADS 16384    /* 65,536 vertices: 16-bit indices reach them all */
#define HUD_TEXT_MAX 4096

struct viewer_hud {
  vkh_context *ctx;
  VkFormat format;
  uint32_t slots;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  vkh_buffer vertices[HUD_MAX_SLOTS];
  vkh_buffer indices;
  /* the frame being built */
  uint32_t slot, boxes, quads;   /* quads: text quads after the box region */
  float scale, x0, y0;
};

/* Straight-alpha "over" on the swapchain image; vertices: position, then RGBA8 colour. */
static void create_pipeline(viewer_hud *h) {
  VkVertexInputBindingDescription binding = {0, HUD_VERTEX_STRIDE, VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attrs[2] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                {1, 0, VK_FORMAT_R8G8B8A8_UNORM, HUD_VERTEX_COLOR_OFFSET}};
  VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                             .vertexBindingDescriptionCount = 1,
                                             .pVertexBindingDescriptions = &binding,
                                             .vertexAttributeDescriptionCount = 2,
                                             .pVertexAttributeDescriptions = attrs};
  ssvk_graphics_desc gd = {.vert = splatview_spv_hud_vert, .vert_size = splatview_spv_hud_vert_size,
                           .frag = splatview_spv_hud_frag, .frag_size = splatview_spv_hud_frag_size,
                           .layout = h->layout, .color_format = h->format,
                           .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .vertex_input = &vi,
                           .src_color_factor = VK_BLEND_FACTOR_SRC_ALPHA, .name = "hud"};
  VK_CHECK(ssvk_graphics_pipeline(&h->ctx->vk, &gd, &h->pipeline));
}

viewer_hud *viewer_hud_create(vkh_context *ctx, VkFormat format, uint32_t slots) {
  viewer_hud *h = calloc(1, sizeof *h);
  if (!h || slots == 0 || slots > HUD_MAX_SLOTS) {
    viewer_error("cannot create the HUD (%u frame slots)", slots);
    exit(1);
  }
  h->ctx = ctx;
  h->format = format;
  h->slots = slots;
  VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(struct hud_push)};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                   .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
  VK_CHECK(vkCreatePipelineLayout(ctx->device, &pl, NULL, &h->layout));
  create_pipeline(h);
  for (uint32_t i = 0; i < slots; i++)
    h->vertices[i] = vkh_buffer_create(ctx, (VkDeviceSize)HUD_MAX_QUADS * 4 * HUD_VERTEX_STRIDE,
                                       VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true, "hud vertices");
  /* quad q is vertices 4q..4q+3 in stb_easy_font's winding: triangles (0,1,2), (0,2,3) */
  h->indices = vkh_buffer_create(ctx, (VkDeviceSize)HUD_MAX_QUADS * 6 * sizeof(uint16_t),
                                 VK_BUFFER_USAGE_INDEX_BUFFER_BIT, true, "hud indices");
  uint16_t *idx = h->indices.mapped;
  for (uint32_t q = 0; q < HUD_MAX_QUADS; q++) {
    const uint16_t v = (uint16_t)(4 * q), tri[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; k++) idx[6 * q + k] = (uint16_t)(v + tri[k]);
  }
  return h;
}

void viewer_hud_destroy(viewer_hud *h) {
  if (!h) return;
  vkh_context *ctx = h->ctx;
  for (uint32_t i = 0; i < h->slots; i++) vkh_buffer_destroy(ctx, &h->vertices[i]);
  vkh_buffer_destroy(ctx, &h->indices);
  if (h->pipeline) vkDestroyPipeline(ctx->device, h->pipeline, NULL);
  if (h->layout) vkDestroyPipelineLayout(ctx->device, h->layout, NULL);
  free(h);
}

void viewer_hud_set_format(viewer_hud *h, VkFormat format) {
  if (format == h->format) return;
  vkDestroyPipeline(h->ctx->device, h->pipeline, NULL);
  h->format = format;
  create_pipeline(h);
}

void viewer_hud_begin(viewer_hud *h, uint32_t slot, float scale, float x0, float y0) {
  h->slot = slot < h->slots ? slot : 0;
  h->boxes = h->quads = 0;
  h->scale = scale;
  h->x0 = x0;
  h->y0 = y0;
}

void viewer_hud_box(viewer_hud *h, float x0, float y0, float x1, float y1, const uint8_t rgba[4]) {
  if (h->boxes == HUD_BOX_QUADS) return;
  unsigned char *v = (unsigned char *)h->vertices[h->slot].mapped + (size_t)h->boxes * 4 * HUD_VERTEX_STRIDE;
  const float xy[4][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  for (int k = 0; k < 4; k++) {
    float p[3] = {xy[k][0], xy[k][1], 0.0f};
    memcpy(v + k * HUD_VERTEX_STRIDE, p, sizeof p);
    memcpy(v + k * HUD_VERTEX_STRIDE + HUD_VERTEX_COLOR_OFFSET, rgba, 4);
  }
  h->boxes++;
}

/* stb_easy_font takes char *: it does not write to the text, but give it a copy anyway. */
static void copy_text(char *dst, const char *src) {
  size_t n = strlen(src);
  if (n >= HUD_TEXT_MAX) n = HUD_TEXT_MAX - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

float viewer_hud_text_width(const char *text) {
  char buf[HUD_TEXT_MAX];
  copy_text(buf, text);
  return (float)stb_easy_font_width(buf);
}

float viewer_hud_text(viewer_hud *h, float x, float y, const char *text, const uint8_t rgba[4]) {
  char buf[HUD_TEXT_MAX];
  copy_text(buf, text);
  size_t first = HUD_BOX_QUADS + (size_t)h->quads;
  int room = (int)((HUD_MAX_QUADS - first) * 4 * HUD_VERTEX_STRIDE);
  unsigned char color[4] = {rgba[0], rgba[1], rgba[2], rgba[3]};
  unsigned char *dst = (unsigned char *)h->vertices[h->slot].mapped + first * 4 * HUD_VERTEX_STRIDE;
  if (room > 0) h->quads += (uint32_t)stb_easy_font_print(x, y, buf, color, dst, room);
  return (float)stb_easy_font_width(buf);
}

void viewer_hud_cmd_draw(viewer_hud *h, VkCommandBuffer cmd, VkImageView view, VkExtent2D extent) {
  if (!h->boxes && !h->quads) return;
  ssvk_begin_color_pass(&h->ctx->vk, cmd, view, extent, NULL);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, h->pipeline);
  VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cmd, 0, 1, &h->vertices[h->slot].buffer, &offset);
  vkCmdBindIndexBuffer(cmd, h->indices.buffer, 0, VK_INDEX_TYPE_UINT16);
  /* pixel = x0 + scale * unit; NDC = 2 pixel / size - 1 */
  float sx = 2.0f / (float)extent.width, sy = 2.0f / (float)extent.height;
  struct hud_push pc = {{{h->scale * sx, h->scale * sy, h->x0 * sx - 1.0f, h->y0 * sy - 1.0f}}};
  vkCmdPushConstants(cmd, h->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof pc, &pc);
  if (h->boxes) vkCmdDrawIndexed(cmd, 6 * h->boxes, 1, 0, 0, 0);
  if (h->quads) vkCmdDrawIndexed(cmd, 6 * h->quads, 1, 0, 4 * HUD_BOX_QUADS, 0);
  vkCmdEndRendering(cmd);
}
