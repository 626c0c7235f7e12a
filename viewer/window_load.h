/* window_load.h: the window's loading in the background: files dropped on it (the newest
 * wins, Shift adds the file as another object), one load at a time on loader.c's thread, and
 * the line each load ends with on stdout. */
#ifndef SPLATVIEW_WINDOW_LOAD_H
#define SPLATVIEW_WINDOW_LOAD_H

#include "loader.h"
#include "splat_scene.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct window_loads {
  viewer_loader *loader;
  char *pending;        /* the newest dropped file not yet started */
  bool pending_add;     /* it was dropped with Shift: another object, not a replacement */
  bool running_add;     /* the same for the load running */
  bool allow_stream;    /* replacements from now on stream (window_stream.h); set by the window */
  splatview_lod lod;    /* --lod / --no-lod: a scene drawn as a cut loads whole, then its tree */
  bool running_stream;  /* the load running streams its parts: the window takes them */
  uint32_t frame0;      /* frames drawn when the running load started */
} window_loads;

/* Makes the loader and starts loading `path` (the command line's first scene) with level of
 * detail as `lod` says (kept for later loads). Returns 0, or -1 with a message in err. */
int window_loads_begin(window_loads *l, const char *path, splatview_lod lod, char *err, size_t n);
/* Cancels and joins a load still running, frees everything. Accepts one never begun. */
void window_loads_end(window_loads *l);
bool window_loads_running(window_loads *l);

/* Files dropped on the window: of several, a SOG scene's meta.json, else the first; `add`:
 * Shift was held. Replaces a drop not yet started. msg: what to tell the user ("" if nothing). */
void window_loads_drop(window_loads *l, int count, const char **paths, bool add, char *msg, size_t n);
/* The dropped file: started when no load runs (`frames`: the frames drawn so far), streamed
 * when allow_stream, it replaces the scene and is not to be drawn as a level-of-detail cut
 * (running_stream), else the running load is
 * cancelled and it starts once that has ended. Returns -1 with a message in err
 * when it cannot start. */
int window_loads_start_pending(window_loads *l, uint32_t frames, char *err, size_t n);
/* A finished load: 1 with its scene in *scene and its tree in *lod (the caller's), its file in
 * path and *add (it was a Shift drop); 0 when none has finished, it was cancelled (said on
 * stdout), or it failed (err non-empty). The line on stdout says where a tree came from. */
int window_loads_take(window_loads *l, uint32_t frames, splat_scene *scene, viewer_lod *lod, char *path,
                      size_t path_size, bool *add, char *err, size_t n);
/* At the end: a drop not started is forgotten, a load running cancelled and waited for. */
void window_loads_cancel(window_loads *l, const char *why);

#endif
