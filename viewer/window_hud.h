/* window_hud.h: what the window's HUD says (scene, frame rate, stage times, sort, raster,
 * objects, messages, a load's progress, the key help), laid out with hud.h's text and panels. */
#ifndef SPLATVIEW_WINDOW_HUD_H
#define SPLATVIEW_WINDOW_HUD_H

#include "app.h"
#include "hud.h"
#include "input.h"
#include "loader.h"

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#define WINDOW_MEDIAN_FRAMES 64 /* frames in the HUD's running median */

/* The window's state the HUD shows; window.c fills it in each frame. */
typedef struct window_hud_info {
  VkExtent2D extent;
  VkPresentModeKHR present_mode;
  const char *title;             /* the objects' names (viewer_objects_title) */
  uint32_t splats;
  double fps;
  const splat_timings *last;     /* the newest frame's timings, NULL before the first */
  const double (*ring)[WINDOW_MEDIAN_FRAMES]; /* per app_stage, the last ring_count frames */
  uint32_t ring_count;
  const viewer_input *in;
  const char *object;            /* with several objects: the selected one's name, else NULL */
  bool bench;
  uint32_t frame, frames;        /* --bench: this frame of --frames */
  const char *message;           /* NULL when none is shown */
  bool message_error;
  viewer_loader *loader;         /* its running load's progress */
  bool input_ready;              /* the first scene is there (keys act) */
  bool lod;                      /* a level-of-detail object is drawn */
  uint32_t lod_budget;           /* --budget (0: none) */
} window_hud_info;

/* The HUD of a frame into frame slot `slot`'s geometry. */
void window_hud_build(viewer_hud *h, uint32_t slot, const window_hud_info *info);
/* Before the first scene: what loads and how far it is. */
void window_hud_build_loading(viewer_hud *h, uint32_t slot, VkExtent2D extent, viewer_loader *loader);

#endif
