/* window_stream.h: a scene dropped on the window in place of the current ones, drawn as it
 * arrives (stream.h appends its parts between frames). The current objects stay on the GPU,
 * hidden, until the new scene is complete, so a load that fails or is cancelled half-way
 * brings them back; with --keep-until-loaded they stay drawn until then and the new one
 * appears whole. When the memory budget cannot hold both, the current ones are freed first
 * (said in the HUD): a failure then leaves an empty view with its message. */
#ifndef SPLATVIEW_WINDOW_STREAM_H
#define SPLATVIEW_WINDOW_STREAM_H

#include "objects.h"
#include "stream.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct window_stream {
  bool active;          /* a streamed load runs */
  bool keep;            /* --keep-until-loaded */
  bool shown;           /* the new object is the window's objects (drawn) */
  bool old_freed;       /* the budget could not hold both */
  bool freed_now;       /* set by make_room, for pump's note */
  viewer_stream s;
  viewer_objects old;   /* the objects before it */
  char path[1024];
} window_stream;

/* What the window gives the calls below: its objects (drawn), the renderer, and a wait for the
 * frames in flight (before the renderer frees or grows buffers). */
typedef struct window_stream_ctx {
  viewer_objects *objects;
  splat_renderer *renderer;
  viewer_lod_trees *trees;  /* the level-of-detail objects' trees: freed with their objects */
  void (*drain)(void *user);
  void *user;
} window_stream_ctx;

/* A streamed load of `path` has started. */
void window_stream_begin(window_stream *w, const window_stream_ctx *c, const char *path, bool keep);
/* Once a frame: the parts that came appended for at most budget_s seconds. Returns 1 when the
 * window's objects changed (the new scene shown: frame it), 0 otherwise, -1 when the renderer
 * refused a part (message in msg; the caller cancels the load, and window_stream_end follows). A
 * message for the HUD that is not an error (the budget's) comes back in note ("" if none). */
int window_stream_pump(window_stream *w, const window_stream_ctx *c, viewer_loader *l, double budget_s, char *msg,
                       size_t n, char *note, size_t note_size);
/* The load has ended: with the whole scene (`full`, for its bounds) the new object replaces the
 * old ones, which are freed; without (failed or cancelled) the new object is freed and the old
 * ones come back (unless they were freed for the budget). Returns 1 when the new scene is shown. */
int window_stream_end(window_stream *w, const window_stream_ctx *c, const splat_scene *full, char *msg, size_t n);

#endif
