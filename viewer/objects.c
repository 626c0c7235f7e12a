/* The scenes splatview shows at once as renderer objects: their placement side by side along
 * x, the selected one's moves, and the instances each frame draws. */
#include "objects.h"
#include "app.h"

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

/* The upload itself, the renderer's messages going wherever viewer_objects_add's caller says. */
static VkResult add(viewer_objects *s, splat_renderer *r, const splat_scene *scene, const char *path, bool replace) {
  viewer_object o = {.count = scene->count};
  app_scene_name(o.name, sizeof o.name, path);
  app_scene_bounds(scene, o.lo, o.hi);
  VkResult res;
  if (replace) {
    res = splat_renderer_set_scene(r, scene); /* every object replaced by this one, id 0 */
    if (res != VK_SUCCESS) return res;
    s->count = 0;
  } else {
    res = splat_renderer_add_object(r, scene, &o.id);
    if (res != VK_SUCCESS) return res;
    place(s, &o);
  }
  s->selected = s->count;
  s->at[s->count++] = o;
  return VK_SUCCESS;
}

VkResult viewer_objects_add(viewer_objects *s, splat_renderer *r, const splat_scene *scene, const char *path,
                            bool replace, viewer_log *log, char *why, size_t why_size) {
  why[0] = 0;
  if (!replace && s->count == SPLAT_MAX_OBJECTS) return VK_ERROR_TOO_MANY_OBJECTS;
  viewer_log_hold(log, true);
  VkResult res = add(s, r, scene, path, replace);
  if (res != VK_SUCCESS) viewer_log_take(log, why, why_size);
  viewer_log_hold(log, false); /* a message after a success: its own line, as ever */
  return res;
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
