/* A dropped scene that replaces the current ones, drawn as it arrives; the current ones kept on
 * the GPU until it is complete (window_stream.h). */
#include "app.h"
#include "message.h"
#include "window_stream.h"

#include <stdio.h>
#include <string.h>

void window_stream_begin(window_stream *w, const window_stream_ctx *c, const char *path, bool keep) {
  memset(w, 0, sizeof *w);
  w->active = true;
  w->keep = keep;
  w->old = *c->objects;
  snprintf(w->path, sizeof w->path, "%s", path);
  c->objects->others_hidden = true; /* the new object will be in the renderer, not in the list */
}

static void remove_all(const window_stream_ctx *c, const viewer_objects *list) {
  for (uint32_t i = 0; i < list->count; i++) {
    (void)splat_renderer_remove_object(c->renderer, list->at[i].id);
    viewer_lod_trees_drop(c->trees, list->at[i].id);
  }
}

/* The new object as the window's only one, at its file's place, with the bounds known so far. */
static void show(window_stream *w, const window_stream_ctx *c) {
  viewer_objects *o = c->objects;
  memset(o, 0, sizeof *o);
  viewer_object *ob = &o->at[0];
  ob->id = w->s.id;
  ob->count = w->s.total;
  app_scene_name(ob->name, sizeof ob->name, w->path);
  memcpy(ob->lo, w->s.lo, sizeof ob->lo);
  memcpy(ob->hi, w->s.hi, sizeof ob->hi);
  ob->view = w->s.view;
  o->count = 1;
  o->others_hidden = !w->old_freed && w->old.count > 0;
  w->shown = true;
}

/* Around begin_object: the frames in flight waited for; when the budget cannot hold both
 * scenes, the old ones freed (the window then shows the new one, empty until its first part). */
typedef struct hook_ctx {
  window_stream *w;
  const window_stream_ctx *c;
} hook_ctx;

static void hook_idle(void *user) {
  const hook_ctx *h = user;
  h->c->drain(h->c->user);
}

/* Only when the new scene fits alone: else freeing the current one would not help. */
static bool hook_make_room(void *user, const splat_object_desc *desc) {
  const hook_ctx *h = user;
  if (h->w->old_freed || !h->w->old.count) return false;
  if (splat_renderer_object_fits(h->c->renderer, desc, true) != VK_SUCCESS) return false;
  remove_all(h->c, &h->w->old);
  h->w->old_freed = h->w->freed_now = true;
  memset(h->c->objects, 0, sizeof *h->c->objects);
  return true;
}

int window_stream_pump(window_stream *w, const window_stream_ctx *c, viewer_loader *l, double budget_s, char *msg,
                       size_t n, char *note, size_t note_size) {
  note[0] = 0;
  hook_ctx hc = {w, c};
  viewer_stream_hooks hooks = {hook_idle, hook_make_room, &hc};
  int got = viewer_stream_pump(&w->s, l, c->renderer, budget_s, 0, 0, &hooks, msg, n);
  if (w->freed_now) {
    w->freed_now = false;
    snprintf(note, note_size, "%s: the memory budget cannot hold it beside the current scene, which was freed first",
             w->path);
    viewer_error("%s", note);
  }
  if (got < 0) return -1;
  if (!w->shown && w->s.begun && (w->old_freed || (!w->keep && w->s.resident > 0))) {
    show(w, c);
    return 1;
  }
  return 0;
}

int window_stream_end(window_stream *w, const window_stream_ctx *c, const splat_scene *full, char *msg, size_t n) {
  w->active = false;
  msg[0] = 0;
  c->drain(c->user);
  if (full && viewer_stream_finish(&w->s, c->renderer, msg, n) == 0 && w->s.begun) {
    if (!w->old_freed) remove_all(c, &w->old);
    w->old_freed = true;
    show(w, c);
    viewer_object *ob = &c->objects->at[0];
    app_scene_bounds(full, ob->lo, ob->hi);
    viewer_shape_make(full, w->s.start, ob->lo, ob->hi, &ob->view);
    ob->count = w->s.resident;
    return 1;
  }
  if (w->s.begun) (void)splat_renderer_remove_object(c->renderer, w->s.id);
  if (w->old_freed) {
    memset(c->objects, 0, sizeof *c->objects);
  } else {
    *c->objects = w->old;
    c->objects->others_hidden = false;
  }
  return 0;
}
