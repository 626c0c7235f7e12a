/* host.h: what the outside hosts of the renderer (main.c, the whole host; snippets.c, the
 * README's and docs/embedding.md's code) share: an instance with the validation layer counted, a
 * device built from splat_renderer_get_device_requirements, images, barriers, the read-back's
 * conversion and a camera framing a scene. Only the installed headers. */
#ifndef RENDER_CONSUMER_HOST_H
#define RENDER_CONSUMER_HOST_H

#include <splat_renderer.h>
#include <splat_scene.h>
#include <splatsort.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern const char *host_program;  /* the program's name, for messages */
extern int validation_messages;   /* from the validation layer (SPLATSORT_VALIDATION=1) */
extern int library_messages;      /* lines the libraries logged through on_library_log */

#define CHECK_VK(expr)                                                                       \
  do {                                                                                       \
    VkResult r_ = (expr);                                                                    \
    if (r_ != VK_SUCCESS) {                                                                  \
      fprintf(stderr, "%s: %s:%d: %s failed (%d)\n", host_program, __FILE__, __LINE__, #expr, r_); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define COLOR_FORMAT VK_FORMAT_R16G16B16A16_SFLOAT
#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT

typedef struct host {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice pd;
  VkPhysicalDeviceMemoryProperties mem;
  VkDevice device;
  uint32_t family;
  VkQueue queue;
  VkCommandPool pool;
  /* what the device was made with, for the renderer's check (create_info.device_create_info) */
  VkDeviceCreateInfo dci;
  const char *extensions[8];
  VkPhysicalDeviceVulkan13Features enable13;
  VkPhysicalDeviceFeatures2 enable;
  uint32_t sort_features;
} host;

/* The instance (validation with SPLATSORT_VALIDATION=1, synchronisation validation unless
 * SPLATSORT_SYNC_VALIDATION=0) and the device; exit 77 where there is no device to run on. */
void create_instance(host *h);
void create_device(host *h);
/* The libraries' log callback (user: a name for the library): counted and printed. */
void on_library_log(void *user, const char *message);

uint32_t memory_type(const host *h, uint32_t bits, VkMemoryPropertyFlags props);
VkDeviceMemory allocate(const host *h, VkMemoryRequirements mr, VkMemoryPropertyFlags props);

typedef struct image {
  VkImage image;
  VkImageView view;
  VkDeviceMemory memory;
} image;
image make_image(const host *h, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, uint32_t w,
                 uint32_t ht);
void free_image(const host *h, image *im);
void barrier(VkCommandBuffer cmd, VkImage im, VkImageAspectFlags aspect, VkImageLayout from, VkImageLayout to,
             VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst, VkAccessFlags dst_access);

float half_to_float(uint16_t v);
uint8_t to8(float v);

/* A camera on the middle 80% of the splats along each axis (trained scenes have far outliers):
 * from 2 radii behind the centre along -z, y down, 50 degrees. Returns 0, or -1. */
int frame_scene(const splat_scene *s, uint32_t w, uint32_t ht, splat_camera *cam);

#endif
