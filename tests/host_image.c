/* host_image.c: the host's images of the renderer tests (host_image.h). */
#include "host_image.h"

host_image host_image_create(vkh_context *ctx, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                             uint32_t w, uint32_t h, uint32_t layers) {
  host_image hi;
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = format, .extent = {w, h, 1}, .mipLevels = 1, .arrayLayers = layers,
                           .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage};
  VK_CHECK(vkCreateImage(ctx->device, &ici, NULL, &hi.image));
  VkMemoryRequirements mr;
  vkGetImageMemoryRequirements(ctx->device, hi.image, &mr);
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                              .memoryTypeIndex = vkh_memory_type(ctx, mr.memoryTypeBits,
                                                                 VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  VK_CHECK(vkAllocateMemory(ctx->device, &mai, NULL, &hi.memory));
  VK_CHECK(vkBindImageMemory(ctx->device, hi.image, hi.memory, 0));
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = hi.image,
                               .viewType = layers > 1 ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D,
                               .format = format, .subresourceRange = {aspect, 0, 1, 0, layers}};
  VK_CHECK(vkCreateImageView(ctx->device, &vci, NULL, &hi.view));
  return hi;
}

void host_image_destroy(vkh_context *ctx, host_image *hi) {
  vkDestroyImageView(ctx->device, hi->view, NULL);
  vkDestroyImage(ctx->device, hi->image, NULL);
  vkFreeMemory(ctx->device, hi->memory, NULL);
}

void host_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, uint32_t layers,
                        VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src, VkAccessFlags src_access,
                        VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
                            .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
                            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                            .image = image, .subresourceRange = {aspect, 0, 1, 0, layers}};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 0, NULL, 1, &b);
}
