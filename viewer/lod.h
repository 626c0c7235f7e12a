/* lod.h: splatview's level of detail: a scene's tree read from its sidecar (SCENE.lod, as
 * `--convert IN OUT --lod` writes it) or built at load, the cut's size for --budget, the trees
 * kept while their renderer objects live, and the lines that say what a frame's cut was. */
#ifndef SPLATVIEW_LOD_H
#define SPLATVIEW_LOD_H

#include "options.h"
#include "splat_renderer.h"
#include "splat_scene.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a scene's tree came from. */
typedef enum viewer_lod_source {
  VIEWER_LOD_NONE = 0, /* drawn whole */
  VIEWER_LOD_SIDECAR,  /* read from SCENE.lod */
  VIEWER_LOD_BUILT,    /* built in memory at load (splat_lod_build, every core) */
} viewer_lod_source;

typedef struct viewer_lod {
  viewer_lod_source source;
  /* --lod or --budget asked for it: a scene that cannot be drawn as a cut is an error. Else (a
   * sidecar found) the scene is drawn whole instead, with a warning. */
  bool required;
  splat_lod tree;
  double seconds;      /* reading or building the tree */
} viewer_lod;

/* The sidecar's path, "<scene>.lod", into out. -1 when it does not fit. */
int viewer_lod_sidecar_path(const char *scene, char *out, size_t n);
/* Whether `scene` is to be drawn as a cut under `mode`: ON, or AUTO and SCENE.lod is a regular
 * file. A load decides before it starts whether it may stream its parts on this. */
bool viewer_lod_wanted(const char *scene, splatview_lod mode);
/* Once `scene` (read from `path`) has loaded: when wanted, its tree from SCENE.lod (read with
 * splat_lod_load: the scene must be in the tree's order, as --convert --lod writes both), else
 * built (splat_lod_build on every core, which reorders the scene). Decides from the file system
 * again, so a sidecar that appeared or went since viewer_lod_wanted is taken as it is now.
 * max_memory: splat_load_options.max_memory's. Returns 0 with out->source NONE when not wanted,
 * or -1 with one line in err (the library's: "<path>.lod: ...", "<path>: splat_lod_build: ...")
 * and *out zeroed. */
int viewer_lod_prepare(const char *path, splat_scene *scene, splatview_lod mode, uint64_t max_memory,
                       viewer_lod *out, char *err, size_t n);
/* Frees the tree and zeroes *l. Accepts NULL. */
void viewer_lod_free(viewer_lod *l);
/* What viewer_lod_prepare did, for the load's message: "tree read from a.spz.lod (149,797 interior
 * nodes, 0.021 s)" or "no a.spz.lod: tree built in memory (149,797 interior nodes, 0.412 s)";
 * "" for NONE. */
void viewer_lod_text(const viewer_lod *l, const char *path, char *out, size_t n);

/* The object's max_cut for --budget N: 0 (its leaf count) without one, else the smaller of
 * `leaves` and 2N rounded up to a multiple of 256 (the cut's steering overshoots for a frame or
 * two: room for twice the budget). */
uint32_t viewer_lod_max_cut(uint32_t leaves, uint32_t budget);

/* "LOD cut 1,234,567 nodes at 0.82 px (budget 1,000,000)"; the budget part only with one. */
void viewer_lod_cut_line(const splat_timings *t, uint32_t budget, char *out, size_t n);

/* The trees of the renderer's level-of-detail objects, by object id, kept as long as the object. */
typedef struct viewer_lod_trees {
  splat_lod *at[SPLAT_MAX_OBJECTS];
  /* A streamed object's scene (its pages are copied from it while it lives), freed with its tree. */
  splat_scene *scene[SPLAT_MAX_OBJECTS];
} viewer_lod_trees;
/* Takes l->tree (l keeps a zeroed one) as object `id`'s, freeing one an earlier object of that id
 * left. 0, or -1 when out of memory (the tree then stays in l). */
int viewer_lod_trees_put(viewer_lod_trees *t, uint32_t id, viewer_lod *l);
/* Frees object `id`'s tree and kept scene (none: nothing). */
void viewer_lod_trees_drop(viewer_lod_trees *t, uint32_t id);
/* Frees every tree. */
void viewer_lod_trees_clear(viewer_lod_trees *t);

#endif
