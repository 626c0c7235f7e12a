/* Pieces shared by splatview's headless and windowed modes: scene loading, the start
 * camera, frame-time statistics, PNG output and the timings CSV. */
#ifndef SPLATVIEW_APP_H
#define SPLATVIEW_APP_H

#include "view_control.h"
#include "options.h"
#include "renderer.h"
#include "scene.h"

#include <stdio.h>

/* Loads a scene; on failure prints nothing, returns -1 with the loader's message in err. */
int app_load_scene(const char *path, splat_scene *scene, char *err, size_t err_size);

/* The view to start from: a cameras.json entry, --eye/--target, or one that frames the
 * scene's robust bounds. Sets *orbit (always usable for orbiting/benchmarks) and *cam (the
 * exact start camera at width x height). Returns -1 with a message in err. */
int app_start_view(const splatview_options *o, const splat_scene *scene, const splat_camera_desc *cams,
                   uint32_t cam_count, uint32_t width, uint32_t height, splat_orbit *orbit, splat_camera *cam,
                   char *err, size_t err_size);
/* The box the viewer frames: the scene's robust bounds (its min/max box when those fail),
 * widened to at least 1e-3 per axis. */
void app_scene_bounds(const splat_scene *scene, float lo[3], float hi[3]);
/* Frames the scene's robust bounds from the orbit's current direction. */
int app_frame_scene(splat_orbit *orbit, const splat_scene *scene, float fovy, uint32_t width, uint32_t height);

/* The camera of frame `frame` of a --bench run: with more than one frame, one turn of the
 * start orbit's yaw over o->frames frames (the orbit headless.c renders), else `start`. */
int app_bench_camera(const splatview_options *o, const splat_orbit *orbit, const splat_camera *start,
                     uint32_t frame, uint32_t width, uint32_t height, splat_camera *cam);

/* Per-stage frame times. */
typedef struct app_stats {
  double *projection, *sort, *raster, *total;
  uint32_t count, capacity;
  uint32_t skip, seen;  /* the first `skip` frames are warm-up: kept out of the statistics */
  splat_timings first;  /* frame 0, printed on its own */
} app_stats;
void app_stats_add(app_stats *s, const splat_timings *t);
void app_stats_print(const app_stats *s, FILE *f, const char *title);
double app_percentile(const double *values, uint32_t count, double p);
void app_stats_free(app_stats *s);

/* CSV of per-frame timings: header written on open. */
FILE *app_timings_open(const char *path, char *err, size_t err_size);
void app_timings_row(FILE *f, uint32_t frame, const splat_timings *t);

/* Converts an RGBA16F image (premultiplied over an opaque background) to 8-bit and writes a
 * PNG. Returns -1 with a message in err. */
int app_write_png_rgba16f(const char *path, uint32_t w, uint32_t h, const uint16_t *pixels, char *err, size_t err_size);
void app_rgba16f_to_rgba8(const uint16_t *src, uint32_t w, uint32_t h, uint8_t *dst);

int splatview_run_headless(const splatview_options *o);
int splatview_run_window(const splatview_options *o);

#endif
