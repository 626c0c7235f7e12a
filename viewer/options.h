/* splatview command line: parsed once, shared by the headless and windowed modes. */
#ifndef SPLATVIEW_OPTIONS_H
#define SPLATVIEW_OPTIONS_H

#include "splat_renderer.h"
#include "splatsort.h"
#include "splatsort_depth.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* --raster: the renderer's raster path (splat_raster_path), or AUTO: picked from the device,
 * then checked on a window's first frames (raster_auto.h, app_start_raster). */
typedef enum splatview_raster {
  SPLATVIEW_RASTER_AUTO = 0,
  SPLATVIEW_RASTER_GRAPHICS,
  SPLATVIEW_RASTER_COMPUTE,
} splatview_raster;

/* Level of detail (--lod, --no-lod): AUTO draws a scene with a sidecar SCENE.lod as a cut of
 * its tree and any other whole; ON draws every scene so (the tree read from SCENE.lod, else
 * built at load); OFF draws every splat and ignores sidecars. */
typedef enum splatview_lod {
  SPLATVIEW_LOD_AUTO = 0,
  SPLATVIEW_LOD_ON,
  SPLATVIEW_LOD_OFF,
} splatview_lod;


#define SPLATVIEW_MAX_SCENES 16 /* SPLAT_MAX_OBJECTS: one renderer object each */
#define SPLATVIEW_MAX_SIDE 16384 /* pixels a side of an image (--size, a --cameras camera's size) */

typedef struct splatview_options {
  const char *scene;        /* the first of `scenes` */
  /* Every SCENE of the command line, opened side by side as objects; none given: the bundled
   * scene (scene_count 1). */
  const char *scenes[SPLATVIEW_MAX_SCENES];
  uint32_t scene_count;
  bool headless, bench, help, vsync;
  bool grid;                /* draw an opaque reference grid under the splats (host pass) */
  bool stream;              /* --stream: headless frames while the scene loads */
  bool keep_until_loaded;   /* --keep-until-loaded: the window draws the old scene until the new one is in */
  const char *out;          /* PNG of the last frame (headless) */
  uint32_t width, height;
  bool size_given;
  const char *cameras;      /* cameras.json */
  int camera_index;         /* -1: none chosen */
  bool have_eye;
  bool have_up;             /* --up given: the look-at camera's, or alone the start view's */
  float eye[3], target[3], up[3];
  float fovy;
  splatsort_algorithm sort;
  uint32_t key_bits;
  splatsort_depth_key_mode key_mode;
  splatview_raster raster;
  splat_antialias antialias; /* AUTO: as each scene file says */
  splat_order order;         /* --order: global or per-pixel (the compute raster's) */
  uint32_t order_window;     /* --order-window: 1..16, 0: the renderer's default */
  int sh_degree;            /* splat_frame.sh_degree: SPLAT_SH_DEGREE_SCENE, or SPLAT_SH_DEGREE(--sh-degree) */
  uint32_t sh_precision;    /* --sh-precision: SH stored on the GPU at 32, 16 or 8 bits (0: 16) */
  uint32_t upload_threads;  /* --upload-threads: CPU threads packing a scene for the GPU (0: the cores) */
  float background[3];
  uint32_t frames;
  uint32_t warmup;          /* first frames left out of the statistics */
  uint32_t memory_budget_mib; /* the renderer's device-memory budget (0: the device's memory) */
  uint32_t max_load_memory_mib; /* ceiling of a scene load's CPU memory (0: the loader's default) */
  uint32_t lod_level;       /* --lod-level: a streamed SOG bundle's level to load (0: the finest) */
  splat_lod_method lod_tree; /* --lod-tree: how a tree built here is shaped (0: the library's default) */
  const char *timings;      /* CSV, one row per frame */
  const char *screenshot;   /* windowed: save this PNG after the last frame (tests) */
  const char *convert_in;   /* --convert IN OUT: rewrite a scene file, no rendering */
  const char *convert_out;
  bool convert_lod;         /* --lod: --convert also builds the LOD tree and writes OUT.lod */
  splatview_lod lod;        /* --lod (without --convert), --budget, --no-lod */
  uint32_t lod_budget;      /* --budget: about this many nodes a frame (splat_frame.lod_budget; 0: none) */
  float lod_threshold;      /* --lod-threshold: pixels (splat_frame.lod_threshold; 0: the renderer's 1) */
  float lod_blend;          /* splat_frame.lod_blend: --lod-blend, its 0 as SPLAT_LOD_BLEND_NONE */
} splatview_options;

/* Returns 0, or -1 with a one-line message in err. */
int splatview_parse(int argc, char **argv, splatview_options *o, char *err, size_t err_size);
void splatview_usage(FILE *f);
const char *splatview_default_scene(void);

#endif
