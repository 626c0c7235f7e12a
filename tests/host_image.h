/* host_image.h: a host's own images for the renderer tests that draw into a host's frame (its
 * colour and depth attachments, or the storage image the compute raster composites into). */
#ifndef SPLAT_TEST_HOST_IMAGE_H
#define SPLAT_TEST_HOST_IMAGE_H

#include "vkh.h"

typedef struct host_image {
  VkImage image;
  VkDeviceMemory memory;
  VkImageView view;
} host_image;

/* A device-local 2D image of `layers` layers (a 2D-array view when more than one) and its view
 * of `aspect`. Exits on a Vulkan error, as the tools do. */
host_image host_image_create(vkh_context *ctx, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                             uint32_t w, uint32_t h, uint32_t layers);
void host_image_destroy(vkh_context *ctx, host_image *hi);

/* A layout transition of all `layers` layers of one mip level. */
void host_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, uint32_t layers,
                        VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src, VkAccessFlags src_access,
                        VkPipelineStageFlags dst, VkAccessFlags dst_access);

#endif
