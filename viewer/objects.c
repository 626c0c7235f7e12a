/* The scenes splatview shows at once as renderer objects: their placement side by side along
 * x, the selected one's moves, and the instances each frame draws. */
#include "objects.h"
#include "app.h"
#include "vkh.h" /* vkh_result_name */

#include <math.h>
#include <stdio.h>
#include <string.h>

static float diagonal(const viewer_object *o) {
  float d2 = 0;
  for (int k = 0; k < 3; k++) d2 += (o->hi[k] - o->lo[k]) * (o->hi[k] - o->lo[k]);
  return sqrtf(d2);
}

/* Right of the rightmost object, a tenth of the wider box apart, on the first one's centre line. */
static void place(const viewer_objects *s, viewer_object *o) {
  if (!s->count) return;
  const viewer_object *first = &s->at[0];
  float right = -INFINITY, widest = o->hi[0] - o->lo[0];
  for (uint32_t i = 0; i < s->count; i++) {
    const viewer_object *p = &s->at[i];
    right = fmaxf(right, p->hi[0] + p->offset[0]);
    widest = fmaxf(widest, p->hi[0] - p->lo[0]);
  }
  o->offset[0] = right + 0.1f * widest - o->lo[0];
  for (int k = 1; k < 3; k++)
    o->offset[k] = 0.5f * (first->lo[k] + first->hi[k]) + first->offset[k] - 0.5f * (o->lo[k] + o->hi[k]);
}

/* The new object listed (selected), placed unless it replaces the others. */
static void list(viewer_objects *s, viewer_object *o, bool replace) {
  if (replace) s->count = 0;
  else place(s, o);
  s->selected = s->count;
  s->at[s->count++] = *o;
}

/* The upload itself, the renderer's messages going wherever viewer_objects_add's caller says. */
static VkResult add(viewer_objects *s, splat_renderer *r, viewer_lod_trees *trees, const viewer_object_source *src,
                    bool replace) {
  const splat_scene *scene = src->scene;
  viewer_object o = {.count = scene->count};
  app_scene_name(o.name, sizeof o.name, src->path);
  app_scene_bounds(scene, o.lo, o.hi);
  viewer_shape_make(scene, src->start, o.lo, o.hi, &o.view);
  VkResult res;
  if (replace) {
    res = splat_renderer_set_scene(r, scene); /* every object replaced by this one, id 0 */
    if (res != VK_SUCCESS) return res;
    viewer_lod_trees_clear(trees);
  } else {
    res = splat_renderer_add_object(r, scene, &o.id);
    if (res != VK_SUCCESS) return res;
  }
  list(s, &o, replace);
  return VK_SUCCESS;
}

/* A level-of-detail object: added beside the others (the renderer has no set_scene of one), which
 * a replacement then removes. */
static VkResult add_lod(viewer_objects *s, splat_renderer *r, viewer_lod_trees *trees, const viewer_object_source *src,
                        bool replace) {
  const splat_scene *scene = src->scene;
  viewer_object o = {.count = scene->count, .lod = true, .max_cut = viewer_lod_max_cut(scene->count, src->budget)};
  app_scene_name(o.name, sizeof o.name, src->path);
  app_scene_bounds(scene, o.lo, o.hi);
  viewer_shape_make(scene, src->start, o.lo, o.hi, &o.view);
  /* every leaf on the GPU when the object fits the memory budget, else streamed in pages from
   * the scene, which then moves here (the caller's is left empty) and lives with the object */
  splat_scene *keep = malloc(sizeof *keep);
  if (!keep) return VK_ERROR_OUT_OF_HOST_MEMORY;
  *keep = *scene;
  splat_lod_object_desc d = {.leaves = keep, .lod = &src->lod->tree, .max_cut = o.max_cut,
                             .resident_leaves = SPLAT_LOD_RESIDENT_FIT};
  VkResult res = splat_renderer_add_lod_object(r, &d, &o.id);
  if (res != VK_SUCCESS) {
    free(keep);
    return res;
  }
  splat_lod_stats st = {0};
  (void)splat_renderer_lod_stats(r, o.id, &st);
  if (viewer_lod_trees_put(trees, o.id, src->lod) != 0) {
    (void)splat_renderer_remove_object(r, o.id);
    free(keep);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  if (st.pool_pages < st.pages) {
    trees->scene[o.id] = keep;
    memset(src->scene, 0, sizeof *src->scene);
    printf("load: %s streams its leaves: a pool of %u of %u pages of 4096 leaves fits the memory budget\n", o.name,
           st.pool_pages, st.pages);
  } else {
    free(keep);
  }
  for (uint32_t i = 0; replace && i < s->count; i++) {
    (void)splat_renderer_remove_object(r, s->at[i].id);
    viewer_lod_trees_drop(trees, s->at[i].id);
  }
  list(s, &o, replace);
  return VK_SUCCESS;
}

VkResult viewer_objects_add(viewer_objects *s, splat_renderer *r, viewer_lod_trees *trees,
                            const viewer_object_source *src, bool replace, viewer_log *log, char *why,
                            size_t why_size) {
  why[0] = 0;
  if (!replace && s->count == SPLAT_MAX_OBJECTS) return VK_ERROR_TOO_MANY_OBJECTS;
  viewer_lod *lod = src->lod && src->lod->source != VIEWER_LOD_NONE ? src->lod : NULL;
  viewer_log_hold(log, true);
  VkResult res = lod ? add_lod(s, r, trees, src, replace) : add(s, r, trees, src, replace);
  if (res != VK_SUCCESS) viewer_log_take(log, why, why_size);
  if (res != VK_SUCCESS && lod && lod->required) { /* --lod or --budget: say what would draw it */
    size_t len = strlen(why);
    snprintf(why + len, why_size - len, "%s(as a level-of-detail cut; --no-lod draws every splat)", len ? " " : "");
  }
  if (res != VK_SUCCESS && lod && !lod->required) { /* a sidecar found, not asked for: drawn whole */
    char said[1024];
    snprintf(said, sizeof said, "%s", why[0] ? why : vkh_result_name(res));
    res = add(s, r, trees, src, replace);
    if (res == VK_SUCCESS)
      snprintf(why, why_size, "not drawn as a level-of-detail cut (%s): every splat drawn instead", said);
    else
      viewer_log_take(log, why, why_size);
  }
  viewer_log_hold(log, false); /* a message after a success: its own line, as ever */
  return res;
}

bool viewer_objects_lod(const viewer_objects *s) {
  for (uint32_t i = 0; i < s->count; i++)
    if (s->at[i].lod) return true;
  return false;
}

uint32_t viewer_objects_splats(const viewer_objects *s) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->count; i++) n += s->at[i].count;
  return n;
}

void viewer_objects_bounds(const viewer_objects *s, float lo[3], float hi[3]) {
  for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (uint32_t i = 0; i < s->count; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fminf(lo[k], s->at[i].lo[k] + s->at[i].offset[k]);
      hi[k] = fmaxf(hi[k], s->at[i].hi[k] + s->at[i].offset[k]);
    }
}

void viewer_objects_shape(const viewer_objects *s, splat_scene_shape *shape) {
  memset(shape, 0, sizeof *shape);
  if (!s->count) return;
  const viewer_object *first = &s->at[0];
  *shape = first->view.shape;
  for (int k = 0; k < 3; k++) { /* moved by its offset */
    float d = 0.0f;
    for (int a = 0; a < 3; a++) d += shape->axes[k][a] * first->offset[a];
    shape->lo[k] += d, shape->hi[k] += d;
  }
  shape->ground += shape->lo[2] - first->view.shape.lo[2];
  for (uint32_t i = 1; i < s->count; i++) {
    const viewer_object *o = &s->at[i];
    for (int c = 0; c < 8; c++) {
      float p[3] = {(c & 1) ? o->hi[0] : o->lo[0], (c & 2) ? o->hi[1] : o->lo[1], (c & 4) ? o->hi[2] : o->lo[2]};
      for (int k = 0; k < 3; k++) {
        float h = 0.0f;
        for (int a = 0; a < 3; a++) h += shape->axes[k][a] * (p[a] + o->offset[a]);
        shape->lo[k] = fminf(shape->lo[k], h), shape->hi[k] = fmaxf(shape->hi[k], h);
      }
    }
  }
}

uint32_t viewer_objects_instances(const viewer_objects *s, splat_instance out[SPLAT_MAX_OBJECTS]) {
  const float *d = s->at[0].offset;
  if (s->count == 1 && d[0] == 0 && d[1] == 0 && d[2] == 0 && !s->others_hidden) return 0;
  for (uint32_t i = 0; i < s->count; i++) {
    splat_instance *in = &out[i];
    memset(in, 0, sizeof *in);
    in->object = s->at[i].id;
    in->model[0] = in->model[5] = in->model[10] = in->model[15] = 1.0f; /* column-major: translation last */
    memcpy(&in->model[12], s->at[i].offset, sizeof s->at[i].offset);
  }
  return s->count;
}

void viewer_objects_move(viewer_objects *s, const float dir[3]) {
  if (!s->count) return;
  viewer_object *o = &s->at[s->selected];
  float step = 0.05f * diagonal(o);
  for (int k = 0; k < 3; k++) o->offset[k] += step * dir[k];
}

void viewer_objects_title(const viewer_objects *s, char *out, size_t n) {
  if (s->count > 1) snprintf(out, n, "%s + %u more", s->at[0].name, s->count - 1);
  else snprintf(out, n, "%s", s->count ? s->at[0].name : "");
}
