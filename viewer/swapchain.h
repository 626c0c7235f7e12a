/* swapchain.h: splatview's window swapchain: format and present-mode choice, creation and
 * re-creation (resize, vsync toggle), one view and one "rendered" semaphore per image. */
#ifndef SPLATVIEW_SWAPCHAIN_H
#define SPLATVIEW_SWAPCHAIN_H

#include "vkh.h"

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

#define VIEWER_MAX_SWAPCHAIN_IMAGES 8

typedef struct viewer_swapchain {
  VkSwapchainKHR swapchain;
  VkSurfaceFormatKHR format;
  VkPresentModeKHR present_mode;
  VkExtent2D extent;
  uint32_t image_count;
  VkImage images[VIEWER_MAX_SWAPCHAIN_IMAGES];
  VkImageView views[VIEWER_MAX_SWAPCHAIN_IMAGES];
  /* signalled by the frame that drew image i, waited by its present: one per image, as a
   * present may still hold its semaphore when a later frame is submitted */
  VkSemaphore rendered[VIEWER_MAX_SWAPCHAIN_IMAGES];
} viewer_swapchain;

/* B8G8R8A8_UNORM or R8G8B8A8_UNORM (no sRGB: the renderer's colours are written without
 * gamma conversion, as the reference rasterizer does), in the sRGB-nonlinear colour space
 * where offered. Returns 0, or -1 when the surface offers neither. */
int viewer_pick_surface_format(const VkSurfaceFormatKHR *formats, uint32_t count, VkSurfaceFormatKHR *out);
/* vsync: FIFO (always offered). Otherwise MAILBOX, else IMMEDIATE, else FIFO. */
VkPresentModeKHR viewer_pick_present_mode(const VkPresentModeKHR *modes, uint32_t count, bool vsync);
const char *viewer_present_mode_name(VkPresentModeKHR mode);

/* Creates the swapchain, or re-creates it when sc->swapchain is set (the old one is passed
 * as oldSwapchain and destroyed: the caller makes sure the device no longer uses it).
 * width x height is the framebuffer size, used when the surface does not fix the extent.
 * Returns VK_SUCCESS; VK_NOT_READY when the surface has a zero size (minimised: try again
 * later, sc is then empty); another error with a message in err. */
VkResult viewer_swapchain_build(vkh_context *ctx, VkSurfaceKHR surface, uint32_t width, uint32_t height, bool vsync,
                                viewer_swapchain *sc, char *err, size_t err_size);
/* Destroys everything in sc (the device must be done with it). Accepts a zeroed sc. */
void viewer_swapchain_destroy(vkh_context *ctx, viewer_swapchain *sc);

#endif
