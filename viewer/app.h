/* Pieces shared by splatview's headless and windowed modes: scene loading, the start
 * camera, frame-time statistics, PNG output and the timings CSV. */
#ifndef SPLATVIEW_APP_H
#define SPLATVIEW_APP_H

#include "view_control.h"
#include "options.h"
#include "out_file.h"
#include "splat_renderer.h"
#include "splat_scene.h"
#include "vkh.h"

#include <stdio.h>

/* Loads a scene; on failure prints nothing, returns -1 with the loader's message in err.
 * With `tty_progress` and stderr a terminal, shows the load's progress there on one line
 * (rewritten with \r, cleared at the end); otherwise prints nothing. */
int app_load_scene(const char *path, splat_scene *scene, bool tty_progress, char *err, size_t err_size);

/* What every scene load of the process shares, from the command line, set once after it is read:
 * app_load_options is a splat_load_options with max_memory (--max-load-memory; 0: the loader's
 * default) and lod_level (--lod-level) set and the rest zero, for a load to add its progress,
 * threads and parts to; app_max_load_memory its max_memory (for splat_lod_load). */
void app_set_load_options(const splatview_options *o);
splat_load_options app_load_options(void);
uint64_t app_max_load_memory(void);
/* Loads after this refuse a file that declares more splats than `n` from its header
 * (splat_load_options.max_splats: the renderer's splat_renderer_max_frame_splats). */
void app_set_max_splats(uint64_t n);
/* The options a level-of-detail tree is built with (--lod-tree; every core). */
splat_lod_options app_lod_options(void);

/* A frame drew a level-of-detail object (its timings hold the first one's cut). */
static inline bool app_lod_drawn(const splat_timings *t) { return t->lod_cut > 0 || t->lod_threshold > 0.0f; }

/* One line on a load's progress (splat_load_progress): the phase, its percentage, how much of
 * it is done and how fast ("read 37%  93 / 248 MB  160 MB/s", "decode 45%  450,000 / 1,000,000
 * splats  0.40 M splats/s"); `seconds` is the time since the phase's first report. */
void app_progress_line(char *out, size_t n, const char *phase, uint64_t done, uint64_t total, double seconds);
/* x with thousands separators: 1,234,567. */
void app_fmt_count(char *out, size_t n, uint64_t x);

/* The box the viewer frames: the scene's robust bounds (its min/max box when those fail),
 * widened to at least 1e-3 per axis. */
void app_scene_bounds(const splat_scene *scene, float lo[3], float hi[3]);
/* The scene's file name for titles and the HUD, cut to fit in `n` bytes; a SOG scene's
 * meta.json (a streamed bundle's lod-meta.json) or folder is named by its folder
 * ("garden/meta.json", "garden/"), as every SOG scene's file is meta.json. */
void app_scene_name(char *dst, size_t n, const char *path);

/* The camera of frame `frame` of a --bench run: with more than one frame, one turn of the
 * start orbit's yaw over o->frames frames (the orbit headless.c renders), else `start`. */
int app_bench_camera(const splatview_options *o, const splat_orbit *orbit, const splat_camera *start,
                     uint32_t frame, uint32_t width, uint32_t height, splat_camera *cam);

/* --raster: the path to start with. Given: that one. AUTO: the device's pick
 * (raster_auto_pick: graphics with --grid or on a CPU device, else compute), nothing rendered to
 * choose it, and one line saying which and why; `checks`: the line says that the first frames
 * try the other path (a window, raster_auto_checks). */
splat_raster_path app_start_raster(const splatview_options *o, const vkh_context *ctx, bool checks);

/* A compute-raster frame that needed more (tile, splat) pairs than it had room for: its
 * farthest splats' pairs were left out (the buffers grow for the slot's next frame). */
static inline bool app_overflowed(const splat_timings *t) {
  return t->raster == SPLAT_RASTER_COMPUTE && t->pairs > t->pair_capacity;
}

/* Says so when the frame overflowed (after the summary line). */
/* " (per-pixel order, window K)" for a frame blended so, else "": after "raster compute". */
const char *app_order_note(const splat_timings *t, char *buf, size_t n);
void app_print_overflow(FILE *f, const splat_timings *t);

/* The stages of a frame: every frame has the first four; the compute raster's three parts of
 * `raster` only frames that took it. APP_SORT is the whole depth-sort stage (cull, keys and
 * sort: splat_timings.sort_ms), named "depth sort" / depth_sort_ms in every table. */
enum app_stage {
  APP_PROJECTION, APP_SORT, APP_RASTER, APP_TOTAL, APP_PAIRS, APP_TILE_SORT, APP_BLEND, APP_STAGES,
};
extern const char *const app_stage_names[APP_STAGES];
/* A frame's time in `stage`. */
double app_stage_ms(const splat_timings *t, enum app_stage stage);

typedef struct app_series {
  double *v;
  uint32_t count, capacity;
} app_series;

/* Per-stage frame times. */
typedef struct app_stats {
  app_series stage[APP_STAGES]; /* the compute stages: compute-raster frames only */
  uint32_t count;               /* frames kept */
  uint32_t raster_frames[2];    /* of them, per splat_raster_path */
  uint32_t overflows, max_pairs, pair_capacity; /* compute frames: see app_overflowed */
  /* frames that drew a level-of-detail object: its cut's time (lod_cut_ms, part of projection),
   * nodes and threshold */
  app_series lod_cut_ms, lod_cut, lod_threshold;
  uint32_t skip, seen;  /* the first `skip` frames are warm-up: kept out of the statistics */
  splat_timings first;  /* frame 0, printed on its own */
} app_stats;
void app_stats_add(app_stats *s, const splat_timings *t);
void app_stats_print(const app_stats *s, FILE *f, const char *title);
double app_percentile(const double *values, uint32_t count, double p);
void app_stats_free(app_stats *s);

/* --timings: a CSV of per-frame timings in `out` (out_file.h: complete under `path` once
 * viewer_out_close said so, or not there), its header written on open. Returns -1 with a
 * message in err. */
int app_timings_open(viewer_out *out, const char *path, char *err, size_t err_size);
void app_timings_row(FILE *f, uint32_t frame, const splat_timings *t);

/* Converts an RGBA16F image (premultiplied over an opaque background) to 8-bit and writes a
 * PNG, complete or not at all (out_file.h). Returns -1 with "<path>: <why>" in err (a full
 * disk: "<path>: write failed: No space left on device"). */
int app_write_png_rgba16f(const char *path, uint32_t w, uint32_t h, const uint16_t *pixels, char *err, size_t err_size);
void app_rgba16f_to_rgba8(const uint16_t *src, uint32_t w, uint32_t h, uint8_t *dst);

int splatview_run_headless(const splatview_options *o);
int splatview_run_window(const splatview_options *o);

#endif
