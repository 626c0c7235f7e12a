/* hud.h: the heads-up display: stb_easy_font text and translucent panels, drawn over the
 * swapchain image with a small pipeline (dynamic rendering, LOAD_OP_LOAD). Geometry is
 * rebuilt on the CPU every frame into the frame slot's own host-visible vertex buffer. */
#ifndef SPLATVIEW_HUD_H
#define SPLATVIEW_HUD_H

#include "vkh.h"

#include <stdint.h>
#include <vulkan/vulkan.h>

typedef struct viewer_hud viewer_hud;

/* Pipeline for colour attachments of `format`, vertex buffers for `slots` frames in flight.
 * Fails loudly (VK_CHECK) like the rest of the application. */
viewer_hud *viewer_hud_create(vkh_context *ctx, VkFormat format, uint32_t slots);
void viewer_hud_destroy(viewer_hud *h);
/* Re-creates the pipeline when the swapchain format changed (device idle). */
void viewer_hud_set_format(viewer_hud *h, VkFormat format);

/* Starts the geometry of frame slot `slot` (its previous frame must have finished on the
 * GPU). Positions are in text units: `scale` framebuffer pixels each, from (`x0`, `y0`). */
void viewer_hud_begin(viewer_hud *h, uint32_t slot, float scale, float x0, float y0);
/* A filled rectangle, drawn under all text of the frame. */
void viewer_hud_box(viewer_hud *h, float x0, float y0, float x1, float y1, const uint8_t rgba[4]);
/* Text at (x, y) (top-left of the first line); returns its width in text units. Text that
 * does not fit in the vertex buffer is cut off. */
float viewer_hud_text(viewer_hud *h, float x, float y, const char *text, const uint8_t rgba[4]);
float viewer_hud_text_width(const char *text);
#define VIEWER_HUD_LINE 11.0f /* text units from one line to the next */

/* Records the draw into `view` (an image of extent, in COLOR_ATTACHMENT_OPTIMAL). */
void viewer_hud_cmd_draw(viewer_hud *h, VkCommandBuffer cmd, VkImageView view, VkExtent2D extent);

#endif
