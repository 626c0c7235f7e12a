/* app_renderer.h: the splat renderer as the tools make it (the viewer, tests): the sorters
 * the device runs, the renderer on them, and one call that tears both down. */
#ifndef SPLAT_APP_RENDERER_H
#define SPLAT_APP_RENDERER_H

#include "splat_renderer.h"
#include "vkh.h"

typedef struct app_renderer {
  splat_renderer *renderer;
  splatsort *sorters[VKH_MAX_SORTERS];   /* the renderer only reads them: they live as long as it does */
  uint32_t sorter_count;
  vkh_context *ctx;
} app_renderer;

/* Makes the sorters (vkh_create_sorters) and a renderer on ctx's device with `frame_slots`
 * frames in flight; the renderer's messages go to log(log_user, ...). Debug-utils names and
 * labels when ctx has them. Fails loudly like the rest of the tools: prints and exits when the
 * device lacks dynamic rendering or on a Vulkan error. */
void app_renderer_create(vkh_context *ctx, uint32_t frame_slots, splatsort_log_fn log, void *log_user,
                         app_renderer *out);
/* The same with the renderer's device-memory budget (bytes; 0: the device's memory). */
void app_renderer_create_budget(vkh_context *ctx, uint32_t frame_slots, splatsort_log_fn log, void *log_user,
                                VkDeviceSize memory_budget, app_renderer *out);
/* What the viewer may choose of the renderer's create info (zero: the renderer's defaults). */
typedef struct app_renderer_options {
  VkDeviceSize memory_budget; /* bytes; 0: the device's memory */
  uint32_t sh_precision;      /* splat_renderer_create_info.sh_precision: 32, 16, 8; 0: 16 */
  uint32_t upload_threads;    /* splat_renderer_create_info.upload_threads; 0: the cores */
} app_renderer_options;
void app_renderer_create_opts(vkh_context *ctx, uint32_t frame_slots, splatsort_log_fn log, void *log_user,
                              const app_renderer_options *opts, app_renderer *out);
/* Waits for the device (no submitted frame may still use the renderer), then destroys the
 * renderer and the sorters. Accepts a zeroed app_renderer; leaves *ar zeroed. */
void app_renderer_destroy(app_renderer *ar);

#endif
