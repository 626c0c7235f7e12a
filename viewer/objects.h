/* objects.h: the scenes splatview shows at once, each a renderer object (one depth sort over
 * all), placed side by side along x by their bounds; one is selected for the move keys. */
#ifndef SPLATVIEW_OBJECTS_H
#define SPLATVIEW_OBJECTS_H

#include "lod.h"
#include "message.h"
#include "splat_renderer.h"
#include "splat_scene.h"
#include "start_view.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct viewer_object {
  uint32_t id;           /* the renderer's */
  char name[256];        /* the file's name (app_scene_name) */
  uint32_t count;        /* splats (of a level-of-detail object: its leaves) */
  bool lod;              /* drawn as a cut of its level-of-detail tree (add_lod_object) */
  uint32_t max_cut;      /* lod: the most nodes of its cut (0: its leaf count) */
  float lo[3], hi[3];    /* its bounds (app_scene_bounds), in its own coordinates */
  viewer_shape view;     /* its up, oriented box etc. for the start view, likewise (viewer_shape_make) */
  float offset[3];       /* its place: world = own + offset */
} viewer_object;

typedef struct viewer_objects {
  viewer_object at[SPLAT_MAX_OBJECTS];
  uint32_t count;
  uint32_t selected;     /* index into at[] */
  /* The renderer holds objects not listed here (a scene kept while another streams in,
   * window_stream.c), so the frame lists its instances even for one object in place. */
  bool others_hidden;
} viewer_objects;

/* A scene to upload as an object. */
typedef struct viewer_object_source {
  splat_scene *scene;    /* a streamed level-of-detail object's moves into the objects' trees */
  const char *path;      /* its file */
  /* NULL or source NONE: every splat drawn. Else a level-of-detail object (add_lod_object) of
   * the scene and this tree, which moves into the object's trees on success (lod->tree zeroed;
   * the caller still frees *lod). */
  viewer_lod *lod;
  uint32_t budget;       /* --budget: the cut's room (viewer_lod_max_cut); 0: none */
  const viewer_start *start; /* what is known of it before its splats (its up, cameras beside it); NULL: nothing */
} viewer_object_source;

/* Uploads src->scene as an object. `replace`: in place of every object (the renderer's
 * set_scene; a level-of-detail object is added, then the others removed); else added right of
 * the others along x, a tenth of the wider box apart, centred on the first one's y and z. No
 * submitted frame may still use the renderer. `trees`: the level-of-detail objects' trees, by
 * object id (those of objects replaced are freed).
 * On failure (the renderer's VkResult, or VK_ERROR_TOO_MANY_OBJECTS when all
 * SPLAT_MAX_OBJECTS are taken) the objects stay as they were, and what the renderer said about
 * it (`log`: the renderer's, viewer_log) is in `why` ("" when it said nothing) instead of a line
 * of its own, for the caller's one line. A level-of-detail object that the renderer refuses
 * when it was not required (src->lod->required: a sidecar found, not --lod) is uploaded whole
 * instead: VK_SUCCESS with a warning in `why` for the caller to show. Otherwise `why` is "" on
 * success. The new one is selected. */
VkResult viewer_objects_add(viewer_objects *s, splat_renderer *r, viewer_lod_trees *trees,
                            const viewer_object_source *src, bool replace, viewer_log *log, char *why,
                            size_t why_size);
/* Whether one of the objects is drawn as a level-of-detail cut. */
bool viewer_objects_lod(const viewer_objects *s);
/* Splats over all objects. */
uint32_t viewer_objects_splats(const viewer_objects *s);
/* The box around every object as placed (what the views frame). */
void viewer_objects_bounds(const viewer_objects *s, float lo[3], float hi[3]);
/* The shape the start view frames: the first object's (its up and axes) as placed, its box
 * widened to hold every other object's box as placed. */
void viewer_objects_shape(const viewer_objects *s, splat_scene_shape *shape);
/* The frame's instances: 0 when one object sits where its file put it and no other is hidden
 * (the frame then draws every object untransformed, as a single scene always was), else one per
 * object. */
uint32_t viewer_objects_instances(const viewer_objects *s, splat_instance out[SPLAT_MAX_OBJECTS]);
/* Moves the selected object by `dir` (world units of a twentieth of its box's diagonal). */
void viewer_objects_move(viewer_objects *s, const float dir[3]);
/* "a.ply" for one object, "a.ply + 2 more" for three. */
void viewer_objects_title(const viewer_objects *s, char *out, size_t n);

#endif
