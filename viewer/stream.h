/* stream.h: a scene drawn while it loads: the parts the loader's worker hands over (loader.h,
 * streamed loads) become a renderer object (begin_object at the first, append_object for each),
 * a bounded amount between two frames, on the main thread like all Vulkan work. */
#ifndef SPLATVIEW_STREAM_H
#define SPLATVIEW_STREAM_H

#include "loader.h"
#include "splat_renderer.h"
#include "start_view.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct viewer_stream {
  bool begun;              /* the object exists (id) */
  uint32_t id;
  uint32_t total;          /* splats the file declared */
  uint32_t resident;       /* appended so far */
  uint32_t parts;          /* parts with splats appended */
  uint32_t first_part;     /* the splats of the first */
  float lo[3], hi[3];      /* the bounds of the first part with splats (app_scene_bounds) */
  viewer_shape view;       /* its shape etc. (viewer_shape_make) */
  const viewer_start *start; /* set by the caller: what is known of the scene beforehand (or NULL) */
  double t_first_part;     /* seconds after t0 when the first part with splats was appended; 0: none */
  splat_upload_stats stats; /* the appends' added up; gb_per_s over their total */
} viewer_stream;

/* What the caller does around begin_object: `idle` waits for its frames in flight (begin_object
 * grows the frame's buffers); `make_room`, when the budget refused the object, may free
 * something and return true to try once more. Either may be NULL. */
typedef struct viewer_stream_hooks {
  void (*idle)(void *user);
  bool (*make_room)(void *user, const splat_object_desc *desc);
  void *user;
} viewer_stream_hooks;

/* Appends the parts the loader hands over: the first that comes within wait_s, then every one
 * that comes until `budget_s` seconds have passed (waiting for them; the load's end ends it),
 * the first making the object. t0: the load's start
 * (viewer_stream.t_first_part). Returns the parts taken, or -1 with a message in err when the
 * renderer refused one (the caller cancels the load and removes the object). */
int viewer_stream_pump(viewer_stream *s, viewer_loader *l, splat_renderer *r, double budget_s, double wait_s,
                       double t0, const viewer_stream_hooks *hooks, char *err, size_t n);
/* Once the load has succeeded: a file that had fewer splats than it declared (dropped ones)
 * ends the object at those resident (finish_object). 0, or -1 with a message. */
int viewer_stream_finish(viewer_stream *s, splat_renderer *r, char *err, size_t n);
/* Adds an upload's statistics to *sum (gb_per_s over the sum). */
void viewer_upload_stats_add(splat_upload_stats *sum, const splat_upload_stats *st);
/* "validate 0.10 s, pack 0.31 s, copy wait 0.20 s, total 0.70 s, 1.23 GB, 1.75 GB/s" */
void viewer_upload_stats_text(const splat_upload_stats *st, char *out, size_t n);

#endif
