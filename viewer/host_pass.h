/* host_pass.h: the viewer as a host that draws its own geometry (an opaque reference grid)
 * and the splats into the same pass, through splat_renderer_cmd_prepare/cmd_draw, as an
 * embedding renderer would (--grid). */
#ifndef VIEWER_HOST_PASS_H
#define VIEWER_HOST_PASS_H

#include "splat_renderer.h"
#include "vkh.h"

typedef struct viewer_host_pass {
  vkh_context *ctx;
  VkImage color, depth;
  VkDeviceMemory color_memory, depth_memory;
  VkImageView color_view, depth_view;
  uint32_t width, height;
  VkPipelineLayout layout;
  VkPipeline grid;
} viewer_host_pass;

/* The grid pipeline (exits on a Vulkan error, as the viewer does). */
void viewer_host_pass_init(viewer_host_pass *hp, vkh_context *ctx);
void viewer_host_pass_destroy(viewer_host_pass *hp);

/* One frame: the splats prepared, then one pass (cleared to the frame's background, depth 1)
 * with the grid — the plane through `origin` spanned by the half extents u and v — and the
 * splats over it. The colour image is left in TRANSFER_SRC_OPTIMAL for a blit or read-back. */
void viewer_host_pass_record(viewer_host_pass *hp, VkCommandBuffer cmd, splat_renderer *r, const splat_frame *f,
                             const float origin[3], const float u[3], const float v[3]);

/* The grid for a scene's bounds and an up direction: under the scene along `up`, 1.5 times its
 * horizontal size. */
void viewer_grid_place(const float lo[3], const float hi[3], const float up[3], const float ahead[3],
                       const float right[3], float origin[3], float u[3], float v[3]);

#endif
