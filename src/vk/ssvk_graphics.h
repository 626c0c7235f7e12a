/* ssvk_graphics.h: the graphics half of the private Vulkan layer (ssvk.h), for the renderer and
 * the viewer: graphics pipelines and dynamic-rendering colour passes. Not in the sort library. */
#ifndef SSVK_GRAPHICS_H
#define SSVK_GRAPHICS_H

#include "ssvk.h"

/* A graphics pipeline for dynamic rendering into one colour attachment: no depth, no culling,
 * dynamic viewport and scissor, one blend state. */
typedef struct ssvk_graphics_desc {
  const uint32_t *vert, *frag;
  size_t vert_size, frag_size;
  VkPipelineLayout layout;
  VkFormat color_format;
  VkFormat second_color_format;   /* UNDEFINED: one colour attachment; else a second, blended alike */
  VkPrimitiveTopology topology;
  const VkPipelineVertexInputStateCreateInfo *vertex_input; /* NULL: no vertex buffers */
  VkBlendFactor src_color_factor; /* ONE for premultiplied colour, SRC_ALPHA for straight */
  VkFormat depth_format;          /* UNDEFINED: no depth attachment */
  VkCompareOp depth_compare;      /* with a depth attachment: tested (written with depth_write) */
  bool depth_write;
  bool opaque;                    /* no blending */
  VkSampleCountFlagBits samples;  /* 0: one */
  VkRenderPass render_pass;       /* a host still on render passes: its pass and subpass */
  uint32_t subpass;               /* (the formats are then the pass's, not the fields above) */
  uint32_t view_mask;             /* dynamic rendering: VkPipelineRenderingCreateInfo.viewMask (multiview) */
  const char *name;
} ssvk_graphics_desc;
VkResult ssvk_graphics_pipeline(const ssvk_device *d, const ssvk_graphics_desc *desc, VkPipeline *out);

/* Begins dynamic rendering into one colour view covering `extent` (cleared to `clear` when
 * it is not NULL, else loaded) and sets the viewport and scissor to the whole of it. */
void ssvk_begin_color_pass(const ssvk_device *d, VkCommandBuffer cmd, VkImageView view, VkExtent2D extent, const float *clear);

/* The name of the first SSVK_GRAPHICS_FUNCTIONS entry (ssvk.h) that *f lacks, or NULL when it
 * has them all (a host's vkGetDeviceProcAddr may not offer them). */
const char *ssvk_missing_graphics(const ssvk_fns *f);

#endif /* SSVK_GRAPHICS_H */
