/* raster_auto.h: --raster auto. The raster path is picked from the device before the first
 * frame, with nothing rendered to choose it; in a window the first frames the user sees then
 * check the pick: a few frames of the other path, dropped after one when it is clearly slower,
 * taken when it is clearly faster. */
#ifndef SPLATVIEW_RASTER_AUTO_H
#define SPLATVIEW_RASTER_AUTO_H

#include "splat_renderer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* The path for a device, and in `why` (n bytes) the reason in a few words:
 *   --grid:     graphics, the only path into the viewer's own pass;
 *   a CPU device (lavapipe): graphics, measured there at 0.55-0.72x the compute raster's time
 *               from 320x240 to 1920x1080 (docs/viewer.md);
 *   a GPU:      compute, 29x the graphics raster's speed on the H100 at 6M splats and 1080p and
 *               the only fast path on GPUs with few graphics units (docs/performance.md); a
 *               window checks it on its first frames. */
splat_raster_path raster_auto_pick(VkPhysicalDeviceType type, bool grid, char *why, size_t n);

/* Whether a window checks the device's pick on its first frames: on a GPU, not with --grid
 * (one path) nor --bench (its statistics are of one path). */
bool raster_auto_checks(VkPhysicalDeviceType type, bool grid, bool bench);

#define RASTER_AUTO_WARM 2     /* frames of a path left out of its median (buffers made, caches warm) */
#define RASTER_AUTO_MEASURED 3 /* frames of a path whose median raster time is compared */
#define RASTER_AUTO_SLOWER 2.0 /* the other path dropped at once by a frame this many times the pick's median */
#define RASTER_AUTO_FASTER 0.8 /* the other path taken when its median is below this fraction of the pick's */

typedef enum raster_auto_state {
  RASTER_AUTO_OFF = 0,   /* no check (the path is the pick, or the user's) */
  RASTER_AUTO_PICK,      /* measuring the pick's frames */
  RASTER_AUTO_OTHER,     /* measuring the other path's frames */
} raster_auto_state;

typedef struct raster_auto {
  raster_auto_state state;
  splat_raster_path pick, other;
  uint32_t seen;                   /* finished frames of the path being measured */
  double ms[RASTER_AUTO_MEASURED]; /* their raster times after the warm ones */
  double pick_ms;                  /* the pick's median */
} raster_auto;

/* Starts the check of `pick` (its frames come first). */
void raster_auto_start(raster_auto *a, splat_raster_path pick);

/* One finished frame's timings, in the order the frames finished; frames of a path other than
 * the one being measured (recorded before a switch) are ignored. Returns the path for the
 * frames recorded from now on. When the check ends, `said` (n bytes) gets the line saying what
 * it found, else "". */
splat_raster_path raster_auto_frame(raster_auto *a, const splat_timings *t, char *said, size_t n);

/* The check ends where it is (the user chose a path, or a path could not run). */
void raster_auto_stop(raster_auto *a);

#endif
