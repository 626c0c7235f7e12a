/* splatview's swapchain: creation, re-creation and the choices that go into it. */
#include "swapchain.h"

#include "splat_renderer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int viewer_pick_surface_format(const VkSurfaceFormatKHR *formats, uint32_t count, VkSurfaceFormatKHR *out) {
  const VkFormat wanted[2] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM};
  for (int w = 0; w < 2; w++) {
    int found = -1;
    for (uint32_t i = 0; i < count; i++) {
      if (formats[i].format != wanted[w]) continue;
      if (formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
        found = (int)i;
        break;
      }
      if (found < 0) found = (int)i;
    }
    if (found >= 0) {
      *out = formats[found];
      return 0;
    }
  }
  return -1;
}

VkPresentModeKHR viewer_pick_present_mode(const VkPresentModeKHR *modes, uint32_t count, bool vsync) {
  if (vsync) return VK_PRESENT_MODE_FIFO_KHR;
  const VkPresentModeKHR order[2] = {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR};
  for (int k = 0; k < 2; k++)
    for (uint32_t i = 0; i < count; i++)
      if (modes[i] == order[k]) return order[k];
  return VK_PRESENT_MODE_FIFO_KHR;
}

const char *viewer_present_mode_name(VkPresentModeKHR mode) {
  switch (mode) {
  case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
  case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
  case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
  case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
  default: return "other";
  }
}

static void destroy_images(vkh_context *ctx, viewer_swapchain *sc) {
  for (uint32_t i = 0; i < sc->image_count; i++) {
    if (sc->views[i]) vkDestroyImageView(ctx->device, sc->views[i], NULL);
    if (sc->rendered[i]) vkDestroySemaphore(ctx->device, sc->rendered[i], NULL);
    sc->views[i] = VK_NULL_HANDLE;
    sc->rendered[i] = VK_NULL_HANDLE;
    sc->images[i] = VK_NULL_HANDLE;
  }
  sc->image_count = 0;
}

void viewer_swapchain_destroy(vkh_context *ctx, viewer_swapchain *sc) {
  destroy_images(ctx, sc);
  if (sc->swapchain) vkDestroySwapchainKHR(ctx->device, sc->swapchain, NULL);
  memset(sc, 0, sizeof *sc);
}

static VkResult fail(VkResult r, char *err, size_t n, const char *what) {
  snprintf(err, n, "%s (%s)", what, vkh_result_name(r));
  return r;
}

/* The surface's extent, or the framebuffer size clamped to its limits where the surface takes
 * the swapchain's size. */
static VkExtent2D choose_extent(const VkSurfaceCapabilitiesKHR *caps, uint32_t width, uint32_t height) {
  VkExtent2D extent = caps->currentExtent;
  if (extent.width == UINT32_MAX) {
    extent.width = width < caps->minImageExtent.width ? caps->minImageExtent.width
                   : width > caps->maxImageExtent.width ? caps->maxImageExtent.width
                                                       : width;
    extent.height = height < caps->minImageExtent.height ? caps->minImageExtent.height
                    : height > caps->maxImageExtent.height ? caps->maxImageExtent.height
                                                          : height;
  }
  return extent;
}

/* A UNORM format the renderer's RGBA16F target can be blitted into and the HUD blended onto. */
static VkResult choose_format(vkh_context *ctx, VkSurfaceKHR surface, VkSurfaceFormatKHR *format, char *err,
                              size_t n) {
  VkPhysicalDevice pd = ctx->physical_device;
  uint32_t count = 0;
  VkSurfaceFormatKHR formats[64];
  VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(pd, surface, &count, NULL);
  if (r != VK_SUCCESS) return fail(r, err, n, "cannot list the surface formats");
  if (count > 64) count = 64;
  r = vkGetPhysicalDeviceSurfaceFormatsKHR(pd, surface, &count, formats);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return fail(r, err, n, "cannot list the surface formats");
  if (viewer_pick_surface_format(formats, count, format) != 0) {
    snprintf(err, n, "the window surface offers neither B8G8R8A8_UNORM nor R8G8B8A8_UNORM (%u formats)", count);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  VkFormatProperties dst_props, src_props;
  vkGetPhysicalDeviceFormatProperties(pd, format->format, &dst_props);
  vkGetPhysicalDeviceFormatProperties(pd, SPLAT_TARGET_FORMAT, &src_props);
  if (!(dst_props.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT) ||
      !(dst_props.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT) ||
      !(src_props.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_SRC_BIT)) {
    snprintf(err, n, "the device cannot blit RGBA16F into the swapchain format or blend onto it");
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  return VK_SUCCESS;
}

static VkResult choose_present_mode(vkh_context *ctx, VkSurfaceKHR surface, bool vsync, VkPresentModeKHR *mode,
                                    char *err, size_t n) {
  VkPresentModeKHR modes[16];
  uint32_t mode_count = 0;
  VkResult r = vkGetPhysicalDeviceSurfacePresentModesKHR(ctx->physical_device, surface, &mode_count, NULL);
  if (r != VK_SUCCESS) return fail(r, err, n, "cannot list the present modes");
  if (mode_count > 16) mode_count = 16;
  r = vkGetPhysicalDeviceSurfacePresentModesKHR(ctx->physical_device, surface, &mode_count, modes);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return fail(r, err, n, "cannot list the present modes");
  *mode = viewer_pick_present_mode(modes, mode_count, vsync);
  return VK_SUCCESS;
}

/* Opaque where the compositor allows it, else the first mode it offers. */
static VkCompositeAlphaFlagBitsKHR choose_alpha(const VkSurfaceCapabilitiesKHR *caps) {
  VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  if (!(caps->supportedCompositeAlpha & alpha))
    for (uint32_t b = 1; b <= VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR; b <<= 1)
      if (caps->supportedCompositeAlpha & b) {
        alpha = (VkCompositeAlphaFlagBitsKHR)b;
        break;
      }
  return alpha;
}

/* The swapchain's images, a view and a "rendered" semaphore for each. On failure sc is
 * destroyed. */
static VkResult create_image_views(vkh_context *ctx, viewer_swapchain *sc, char *err, size_t n) {
  uint32_t got = 0;
  VkResult r = vkGetSwapchainImagesKHR(ctx->device, sc->swapchain, &got, NULL);
  if (r == VK_SUCCESS && got > VIEWER_MAX_SWAPCHAIN_IMAGES) {
    snprintf(err, n, "the swapchain has %u images, more than the %d expected", got, VIEWER_MAX_SWAPCHAIN_IMAGES);
    viewer_swapchain_destroy(ctx, sc);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  if (r == VK_SUCCESS) r = vkGetSwapchainImagesKHR(ctx->device, sc->swapchain, &got, sc->images);
  if (r != VK_SUCCESS) {
    viewer_swapchain_destroy(ctx, sc);
    return fail(r, err, n, "cannot get the swapchain images");
  }
  sc->image_count = got;
  for (uint32_t i = 0; i < got; i++) {
    VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = sc->images[i],
                                 .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = sc->format.format,
                                 .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    r = vkCreateImageView(ctx->device, &vci, NULL, &sc->views[i]);
    if (r == VK_SUCCESS) r = vkCreateSemaphore(ctx->device, &sci, NULL, &sc->rendered[i]);
    if (r != VK_SUCCESS) {
      viewer_swapchain_destroy(ctx, sc);
      return fail(r, err, n, "cannot create the swapchain image views");
    }
  }
  return VK_SUCCESS;
}

VkResult viewer_swapchain_build(vkh_context *ctx, VkSurfaceKHR surface, uint32_t width, uint32_t height, bool vsync,
                                viewer_swapchain *sc, char *err, size_t n) {
  VkSurfaceCapabilitiesKHR caps;
  VkResult r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx->physical_device, surface, &caps);
  if (r != VK_SUCCESS) return fail(r, err, n, "cannot query the window surface");
  VkExtent2D extent = choose_extent(&caps, width, height);
  if (extent.width == 0 || extent.height == 0) {
    /* minimised: nothing can be presented; keep no swapchain until it is restored */
    viewer_swapchain_destroy(ctx, sc);
    return VK_NOT_READY;
  }
  VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if ((caps.supportedUsageFlags & usage) != usage) {
    snprintf(err, n, "the window surface cannot be a blit destination and colour attachment");
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  VkSurfaceFormatKHR format;
  VkPresentModeKHR mode;
  if ((r = choose_format(ctx, surface, &format, err, n)) != VK_SUCCESS) return r;
  if ((r = choose_present_mode(ctx, surface, vsync, &mode, err, n)) != VK_SUCCESS) return r;
  /* one more than the minimum, so acquiring rarely waits for the presentation engine */
  uint32_t images = caps.minImageCount + 1;
  if (caps.maxImageCount && images > caps.maxImageCount) images = caps.maxImageCount;
  if (images > VIEWER_MAX_SWAPCHAIN_IMAGES) images = VIEWER_MAX_SWAPCHAIN_IMAGES;
  if (images < caps.minImageCount) {
    snprintf(err, n, "the surface needs at least %u swapchain images", caps.minImageCount);
    return VK_ERROR_INITIALIZATION_FAILED;
  }

  VkSwapchainCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = surface,
                                 .minImageCount = images, .imageFormat = format.format,
                                 .imageColorSpace = format.colorSpace, .imageExtent = extent, .imageArrayLayers = 1,
                                 .imageUsage = usage, .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                 .preTransform = caps.currentTransform, .compositeAlpha = choose_alpha(&caps),
                                 .presentMode = mode, .clipped = VK_TRUE, .oldSwapchain = sc->swapchain};
  VkSwapchainKHR created;
  r = vkCreateSwapchainKHR(ctx->device, &ci, NULL, &created);
  viewer_swapchain_destroy(ctx, sc); /* the old one, retired by the create whether it worked or not */
  if (r != VK_SUCCESS) return fail(r, err, n, "cannot create the swapchain");
  sc->swapchain = created;
  sc->format = format;
  sc->present_mode = mode;
  sc->extent = extent;
  vkh_name(ctx, VK_OBJECT_TYPE_SWAPCHAIN_KHR, (uint64_t)created, "window swapchain");
  return create_image_views(ctx, sc, err, n);
}
