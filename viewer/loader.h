/* loader.h: splatview's background loading: a worker thread reads and decodes one scene
 * file at a time (splat_scene_load_ex2, on every core) while the window keeps drawing the current scene. The
 * main thread starts a load, polls its progress for the HUD, cancels it, and takes the
 * finished scene to upload itself (the renderer, like all Vulkan work, stays on the main
 * thread). */
#ifndef SPLATVIEW_LOADER_H
#define SPLATVIEW_LOADER_H

#include "lod.h"
#include "splat_scene.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct viewer_loader viewer_loader;

/* What a load has done so far. */
typedef struct viewer_load_status {
  bool running;          /* started and not yet taken */
  bool finished;         /* the worker is done: viewer_loader_take will not wait */
  const char *phase;     /* "read", "decode" (splat_load_progress), "open" before the first report,
                            "tree" while the level-of-detail tree is read or built */
  uint64_t done, total;  /* of the phase */
  uint64_t bytes;        /* the file's size, once the read phase has reported */
  double phase_seconds;  /* since the phase's first report */
  double seconds;        /* since the start */
  char path[1024];
} viewer_load_status;

/* NULL when out of memory. */
viewer_loader *viewer_loader_create(void);
/* Cancels a running load, waits for its thread and frees everything. Accepts NULL. */
void viewer_loader_destroy(viewer_loader *l);

/* Starts loading `path` on a new thread. Returns 0, or -1 with a message in err when a load
 * is still running or not taken, or the thread cannot be started. `stream`: the worker hands
 * each decoded part over (viewer_loader_part) and waits until it is taken. `lod`: once the scene
 * is whole, the worker reads or builds its level-of-detail tree as viewer_lod_prepare says
 * (not with `stream`: a streamed scene is drawn whole). */
int viewer_loader_start(viewer_loader *l, const char *path, bool stream, splatview_lod lod, char *err,
                        size_t err_size);

/* A part of a streamed load (splat_load_options.on_part): splats [first, first + count) of the
 * scene, `total` the splats the file declares; the first part has count 0 (the scene's degree
 * and flags, to make room). */
typedef struct viewer_load_part {
  const splat_scene *scene;
  uint32_t first, total;
} viewer_load_part;
/* The part the worker waits on: 1 with it in *p (its arrays valid until viewer_loader_part_done),
 * 0 when none came within `wait_s` seconds. The main thread's. */
int viewer_loader_part(viewer_loader *l, viewer_load_part *p, double wait_s);
/* Lets the worker go on after the part viewer_loader_part returned. */
void viewer_loader_part_done(viewer_loader *l);
/* Asks the running load to stop (it ends SPLAT_SCENE_CANCELLED within one read piece or
 * decode block unless it finishes first; a part not yet taken is dropped). No effect when none
 * runs. */
void viewer_loader_cancel(viewer_loader *l);
void viewer_loader_status(viewer_loader *l, viewer_load_status *s);

/* Waits for the load to end, joins its thread and hands over the result: 0 with the scene in
 * *out and its tree in *lod (source NONE when it has none; the caller frees both), -1 with the
 * loader's message in err (a tree that could not be read or built included), or
 * SPLAT_SCENE_CANCELLED (*out and *lod zeroed either way). lod may be NULL: the tree is freed.
 * *seconds: how long the load took, the tree's time included. The loader is then idle. */
int viewer_loader_take(viewer_loader *l, splat_scene *out, viewer_lod *lod, double *seconds, char *err,
                       size_t err_size);

#endif
