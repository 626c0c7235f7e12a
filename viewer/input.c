/* splatview's key and mouse bindings: pure state changes, no window, no Vulkan. */
#include "input.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void say(viewer_input *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(viewer_input *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->message, sizeof s->message, fmt, ap);
  va_end(ap);
}

const char *viewer_mode_name(viewer_mode m) { return m == VIEWER_MODE_FLY ? "fly" : "orbit"; }

static bool same_up(const float a[3], const float b[3]) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

const char *viewer_up_name(const float up[3]) {
  static const char *const names[3] = {"-Y", "+Y", "+Z"};
  for (int a = 0; a < 3; a++) {
    float v[3];
    splat_up_axis_vector((splat_up_axis)a, v);
    if (same_up(up, v)) return names[a];
  }
  return "scene";
}

const char *viewer_raster_name(splat_raster_path raster) {
  return raster == SPLAT_RASTER_COMPUTE ? "compute" : "graphics";
}

/* O: auto, onesweep, radix16, merge, quaternary, auto, ... skipping what the device lacks. */
static const splatsort_algorithm sort_cycle[] = {SPLATSORT_ALGORITHM_AUTO, SPLATSORT_ALGORITHM_ONESWEEP,
                                                 SPLATSORT_ALGORITHM_RADIX16, SPLATSORT_ALGORITHM_MERGE,
                                                 SPLATSORT_ALGORITHM_QUATERNARY};

static uint32_t cycle_sort(viewer_input *s) {
  const int n = (int)(sizeof sort_cycle / sizeof *sort_cycle);
  int at = 0;
  while (at < n && sort_cycle[at] != s->sort) at++;
  for (int step = 1; step <= n; step++) {
    splatsort_algorithm next = sort_cycle[(at + step) % n];
    if (!(s->sorts_available & 1u << next) || next == s->sort) continue;
    s->sort = next;
    say(s, "sort: %s", next == SPLATSORT_ALGORITHM_AUTO ? "auto (by device and splat count)" : splatsort_algorithm_name(next));
    return VIEWER_EFFECT_SORT | VIEWER_EFFECT_MESSAGE;
  }
  say(s, "sort: only %s on this device", splatsort_algorithm_name(s->sort));
  return VIEWER_EFFECT_MESSAGE;
}

static float focal_y(const viewer_input *s) {
  return (float)s->height / (2.0f * tanf(s->fovy * 3.14159265f / 360.0f));
}

void viewer_input_init(viewer_input *s, const splat_orbit *orbit, float fovy, uint32_t width, uint32_t height,
                       splatsort_algorithm sort, uint32_t sorts_available, uint32_t key_bits, bool vsync) {
  memset(s, 0, sizeof *s);
  s->mode = VIEWER_MODE_ORBIT;
  s->orbit = *orbit;
  memcpy(s->scene_up, orbit->up, sizeof s->scene_up);
  float zero[3] = {0, 0, 0};
  splat_fly_init(&s->fly, zero, orbit->up);
  splat_fly_from_orbit(&s->fly, &s->orbit);
  s->fovy = fovy;
  s->width = width;
  s->height = height;
  s->camera_index = -1;
  s->hud_visible = true;
  s->vsync = vsync;
  s->sorts_available = sorts_available | 1u << SPLATSORT_ALGORITHM_AUTO;
  s->sort = s->sorts_available & 1u << sort ? sort : SPLATSORT_ALGORITHM_AUTO;
  s->key_bits = key_bits == 16 || key_bits == 24 ? key_bits : 32;
  s->raster = SPLAT_RASTER_GRAPHICS;
  s->compute_available = true;
}

void viewer_input_set_raster(viewer_input *s, splat_raster_path raster, bool compute_available) {
  s->compute_available = compute_available;
  s->raster = raster == SPLAT_RASTER_COMPUTE && compute_available ? SPLAT_RASTER_COMPUTE : SPLAT_RASTER_GRAPHICS;
}

void viewer_input_set_bounds(viewer_input *s, const float lo[3], const float hi[3]) {
  float d2 = 0.0f;
  for (int k = 0; k < 3; k++) {
    if (!isfinite(lo[k]) || !isfinite(hi[k]) || hi[k] < lo[k]) return;
    d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  }
  memcpy(s->bounds_lo, lo, sizeof s->bounds_lo);
  memcpy(s->bounds_hi, hi, sizeof s->bounds_hi);
  s->have_bounds = true;
  float radius = 0.5f * sqrtf(d2);
  s->fly.speed = radius > 0.0f ? 0.25f * radius : 1.0f;
}

void viewer_input_set_cameras(viewer_input *s, const splat_camera_desc *cameras, uint32_t count) {
  s->cameras = count ? cameras : NULL;
  s->camera_count = cameras ? count : 0;
  s->camera_index = -1;
  s->exact_camera = false;
}

void viewer_input_set_objects(viewer_input *s, uint32_t count, uint32_t selected) {
  s->object_count = count;
  s->selected = selected < count ? selected : 0;
}

/* N: the next object. */
static uint32_t select_next(viewer_input *s) {
  if (s->object_count < 2) {
    say(s, "one object (more: several SCENEs, or Shift+drop a file)");
    return VIEWER_EFFECT_MESSAGE;
  }
  s->selected = (s->selected + 1) % s->object_count;
  say(s, "object %u/%u selected (arrows move it)", s->selected + 1, s->object_count);
  return VIEWER_EFFECT_OBJECT | VIEWER_EFFECT_MESSAGE;
}

/* Arrows: the selected object along the view's axes, right/left and up/down on the screen;
 * with Shift, up/down move it away from / towards the camera. */
static uint32_t move_object(viewer_input *s, int key, int mods) {
  splat_camera cam;
  if (!s->object_count || viewer_input_camera(s, &cam) != 0) return 0;
  float right[3], down[3], fwd[3], *axis = right, sign = 1.0f;
  splat_camera_axes(&cam, right, down, fwd);
  bool shift = (mods & GLFW_MOD_SHIFT) != 0;
  switch (key) {
  case GLFW_KEY_LEFT: sign = -1.0f; break;
  case GLFW_KEY_RIGHT: break;
  case GLFW_KEY_UP: axis = shift ? fwd : down, sign = shift ? 1.0f : -1.0f; break;
  case GLFW_KEY_DOWN: axis = shift ? fwd : down, sign = shift ? -1.0f : 1.0f; break;
  default: return 0;
  }
  for (int k = 0; k < 3; k++) s->object_move[k] = sign * axis[k];
  return VIEWER_EFFECT_MOVE;
}

void viewer_input_resize(viewer_input *s, uint32_t width, uint32_t height) {
  s->width = width;
  s->height = height;
}

/* Any movement leaves the exact training camera for the controllers' own. */
static uint32_t moved(viewer_input *s) {
  s->exact_camera = false;
  return VIEWER_EFFECT_CAMERA;
}

uint32_t viewer_input_jump(viewer_input *s, int index) {
  if (!s->camera_count) {
    say(s, "no cameras: give --cameras FILE.json");
    return VIEWER_EFFECT_MESSAGE;
  }
  if (index < 0 || (uint32_t)index >= s->camera_count) {
    say(s, "camera %d does not exist (%u cameras)", index + 1, s->camera_count);
    return VIEWER_EFFECT_MESSAGE;
  }
  const splat_camera_desc *d = &s->cameras[index];
  /* splat_cameras_load checked sizes, focal lengths and the rotation; a desc made
   * elsewhere may still be unusable */
  splat_camera c;
  if (splat_camera_from_pose(&c, d->position, &d->rotation[0][0], d->fx, d->fy, d->width, d->height) != 0) {
    say(s, "camera %d (%s) cannot be used", index + 1, d->name);
    return VIEWER_EFFECT_MESSAGE;
  }
  float fwd[3];
  splat_camera_axes(&c, NULL, NULL, fwd);
  /* orbit around the point ahead at the depth of the scene centre, when it is ahead */
  float dist = s->orbit.distance;
  if (s->have_bounds) {
    float ahead = 0.0f;
    for (int k = 0; k < 3; k++) ahead += (0.5f * (s->bounds_lo[k] + s->bounds_hi[k]) - d->position[k]) * fwd[k];
    if (ahead > 1e-3f) dist = ahead;
  }
  float target[3] = {d->position[0] + dist * fwd[0], d->position[1] + dist * fwd[1], d->position[2] + dist * fwd[2]};
  splat_orbit_look(&s->orbit, d->position, target);
  splat_fly_from_orbit(&s->fly, &s->orbit);
  s->fovy = 2.0f * atanf((float)d->height / (2.0f * d->fy)) * 180.0f / 3.14159265f;
  s->camera_index = index;
  s->exact_camera = true;
  say(s, "camera %d/%u: %s", index + 1, s->camera_count, d->name);
  return VIEWER_EFFECT_CAMERA | VIEWER_EFFECT_MESSAGE;
}

uint32_t viewer_input_frame(viewer_input *s) {
  if (!s->have_bounds) return 0;
  if (s->mode == VIEWER_MODE_FLY) splat_orbit_from_fly(&s->orbit, &s->fly, s->orbit.distance);
  if (splat_orbit_frame_bounds(&s->orbit, s->bounds_lo, s->bounds_hi, s->fovy, s->width, s->height) != 0) return 0;
  if (s->mode == VIEWER_MODE_FLY) splat_fly_from_orbit(&s->fly, &s->orbit);
  return moved(s);
}

uint32_t viewer_input_view(viewer_input *s, const splat_orbit *orbit) {
  s->orbit = *orbit;
  memcpy(s->scene_up, orbit->up, sizeof s->scene_up);
  splat_fly_from_orbit(&s->fly, &s->orbit);
  return moved(s);
}

static uint32_t switch_mode(viewer_input *s) {
  if (s->mode == VIEWER_MODE_ORBIT) {
    splat_fly_from_orbit(&s->fly, &s->orbit);
    s->mode = VIEWER_MODE_FLY;
  } else {
    splat_orbit_from_fly(&s->orbit, &s->fly, s->orbit.distance);
    s->mode = VIEWER_MODE_ORBIT;
  }
  say(s, "%s mode", viewer_mode_name(s->mode));
  return VIEWER_EFFECT_CAMERA | VIEWER_EFFECT_MESSAGE; /* same view, but redraw the HUD */
}

/* U: the scene's up (the start view's), -Y, +Y, +Z, each once. */
static uint32_t cycle_up(viewer_input *s) {
  float ups[4][3];
  int n = 1, at = -1;
  memcpy(ups[0], s->scene_up, sizeof ups[0]);
  for (int a = 0; a < 3; a++) {
    splat_up_axis_vector((splat_up_axis)a, ups[n]);
    if (!same_up(ups[n], ups[0])) n++;
  }
  for (int i = 0; i < n; i++)
    if (same_up(s->orbit.up, ups[i])) at = i;
  const float *next = ups[(at + 1) % n];
  if (s->mode == VIEWER_MODE_FLY) splat_orbit_from_fly(&s->orbit, &s->fly, s->orbit.distance);
  splat_orbit_set_up(&s->orbit, next);
  /* the fly camera keeps its position: the orbit's eye is where it stands */
  splat_fly_from_orbit(&s->fly, &s->orbit);
  say(s, "up axis %s", viewer_up_name(next));
  return moved(s) | VIEWER_EFFECT_MESSAGE;
}

static uint32_t switch_raster(viewer_input *s) {
  if (!s->compute_available) {
    say(s, "raster: compute is not available with --grid (its pass takes only the graphics raster)");
    return VIEWER_EFFECT_MESSAGE;
  }
  s->raster = s->raster == SPLAT_RASTER_COMPUTE ? SPLAT_RASTER_GRAPHICS : SPLAT_RASTER_COMPUTE;
  say(s, "raster: %s", viewer_raster_name(s->raster));
  return VIEWER_EFFECT_RASTER | VIEWER_EFFECT_MESSAGE;
}

static uint32_t switch_order(viewer_input *s) {
  s->order = s->order == SPLAT_ORDER_PER_PIXEL ? SPLAT_ORDER_GLOBAL : SPLAT_ORDER_PER_PIXEL;
  say(s, "order: %s%s", s->order == SPLAT_ORDER_PER_PIXEL ? "per-pixel" : "global",
      s->order == SPLAT_ORDER_PER_PIXEL && s->raster != SPLAT_RASTER_COMPUTE ? " (with the compute raster: R)" : "");
  return VIEWER_EFFECT_RASTER | VIEWER_EFFECT_MESSAGE;
}

static uint32_t fly_bit(int key) {
  switch (key) {
  case GLFW_KEY_W: return SPLAT_FLY_FORWARD;
  case GLFW_KEY_S: return SPLAT_FLY_BACK;
  case GLFW_KEY_A: return SPLAT_FLY_LEFT;
  case GLFW_KEY_D: return SPLAT_FLY_RIGHT;
  case GLFW_KEY_E: return SPLAT_FLY_UP;
  case GLFW_KEY_Q: return SPLAT_FLY_DOWN;
  case GLFW_KEY_LEFT_SHIFT:
  case GLFW_KEY_RIGHT_SHIFT: return SPLAT_FLY_FAST;
  default: return 0;
  }
}

uint32_t viewer_input_key(viewer_input *s, int key, int action, int mods) {
  uint32_t bit = fly_bit(key);
  if (bit) {
    /* held keys are tracked in both modes, so Tab in the middle of a move works */
    if (action == GLFW_PRESS) s->fly_keys |= bit;
    else if (action == GLFW_RELEASE) s->fly_keys &= ~bit;
    return 0; /* the movement itself happens in viewer_input_update */
  }
  if (key == GLFW_KEY_LEFT || key == GLFW_KEY_RIGHT || key == GLFW_KEY_UP || key == GLFW_KEY_DOWN)
    return action == GLFW_RELEASE ? 0 : move_object(s, key, mods); /* held: auto-repeat moves on */
  if (action != GLFW_PRESS) return 0; /* toggles act once, not on auto-repeat */
  if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) return viewer_input_jump(s, key - GLFW_KEY_1);
  switch (key) {
  case GLFW_KEY_ESCAPE: return VIEWER_EFFECT_QUIT;
  case GLFW_KEY_TAB: return switch_mode(s);
  case GLFW_KEY_F: return viewer_input_frame(s);
  case GLFW_KEY_U: return cycle_up(s);
  case GLFW_KEY_PAGE_DOWN:
  case GLFW_KEY_PAGE_UP: {
    if (!s->camera_count) return viewer_input_jump(s, 0); /* says there are none */
    int n = (int)s->camera_count, step = key == GLFW_KEY_PAGE_DOWN ? 1 : -1;
    /* from no camera yet: PageDown goes to the first, PageUp to the last */
    int i = s->camera_index < 0 ? (step > 0 ? 0 : n - 1) : ((s->camera_index + step) % n + n) % n;
    return viewer_input_jump(s, i);
  }
  case GLFW_KEY_O: return cycle_sort(s);
  case GLFW_KEY_K:
    s->key_bits = s->key_bits == 32 ? 24 : s->key_bits == 24 ? 16 : 32;
    say(s, "depth keys: %u bits", s->key_bits);
    return VIEWER_EFFECT_SORT | VIEWER_EFFECT_MESSAGE;
  case GLFW_KEY_R: return switch_raster(s);
  case GLFW_KEY_L: return switch_order(s);
  case GLFW_KEY_V:
    s->vsync = !s->vsync;
    say(s, "vsync %s", s->vsync ? "on" : "off");
    return VIEWER_EFFECT_VSYNC | VIEWER_EFFECT_MESSAGE;
  case GLFW_KEY_H:
    s->hud_visible = !s->hud_visible;
    return VIEWER_EFFECT_HUD;
  case GLFW_KEY_P: return VIEWER_EFFECT_SCREENSHOT;
  case GLFW_KEY_N: return select_next(s);
  default: return 0;
  }
}

uint32_t viewer_input_button(viewer_input *s, int button, int action, int mods) {
  (void)mods;
  int i = button == GLFW_MOUSE_BUTTON_LEFT ? 0 : button == GLFW_MOUSE_BUTTON_RIGHT ? 1
          : button == GLFW_MOUSE_BUTTON_MIDDLE                                       ? 2
                                                                                     : -1;
  if (i < 0) return 0;
  if (action == GLFW_PRESS) s->button[i] = true;
  else if (action == GLFW_RELEASE) s->button[i] = false;
  return 0;
}

uint32_t viewer_input_cursor(viewer_input *s, double x, double y) {
  double dx = x - s->cursor_x, dy = y - s->cursor_y;
  bool had = s->have_cursor;
  s->cursor_x = x;
  s->cursor_y = y;
  s->have_cursor = true;
  if (!had || (dx == 0.0 && dy == 0.0) || !isfinite(dx) || !isfinite(dy)) return 0;
  if (s->mode == VIEWER_MODE_FLY) {
    if (!s->button[0]) return 0;
    splat_fly_look(&s->fly, (float)dx, (float)dy);
    return moved(s);
  }
  if (s->button[0]) {
    splat_orbit_rotate(&s->orbit, (float)dx, (float)dy);
    return moved(s);
  }
  if (s->button[1] || s->button[2]) {
    splat_orbit_pan(&s->orbit, (float)dx, (float)dy, focal_y(s));
    return moved(s);
  }
  return 0;
}

uint32_t viewer_input_scroll(viewer_input *s, double dx, double dy) {
  (void)dx;
  if (dy == 0.0 || !isfinite(dy)) return 0;
  if (s->mode == VIEWER_MODE_FLY) {
    /* the wheel sets the flying speed: 25% per step */
    float v = s->fly.speed * powf(1.25f, (float)dy);
    if (v > 1e-6f && v < 1e9f) s->fly.speed = v;
    say(s, "fly speed %.3g units/s", (double)s->fly.speed);
    return VIEWER_EFFECT_MESSAGE;
  }
  splat_orbit_zoom(&s->orbit, (float)dy);
  return moved(s);
}

uint32_t viewer_input_update(viewer_input *s, double dt) {
  if (s->mode != VIEWER_MODE_FLY || !(s->fly_keys & ~(uint32_t)SPLAT_FLY_FAST) || !(dt > 0.0)) return 0;
  if (dt > 0.1) dt = 0.1;
  float before[3];
  memcpy(before, s->fly.position, sizeof before);
  splat_fly_step(&s->fly, s->fly_keys, (float)dt);
  if (!memcmp(before, s->fly.position, sizeof before)) return 0; /* opposite keys cancelled */
  return moved(s);
}

void viewer_input_release_all(viewer_input *s) {
  s->fly_keys = 0;
  s->button[0] = s->button[1] = s->button[2] = false;
}

int viewer_input_camera(const viewer_input *s, splat_camera *cam) {
  if (!s->width || !s->height) return -1;
  if (s->exact_camera && s->camera_index >= 0 && (uint32_t)s->camera_index < s->camera_count) {
    const splat_camera_desc *d = &s->cameras[s->camera_index];
    /* the training camera's vertical field of view and pixel aspect, at the window's size */
    float fy = d->fy * (float)s->height / (float)d->height, fx = fy * d->fx / d->fy;
    return splat_camera_from_pose(cam, d->position, &d->rotation[0][0], fx, fy, s->width, s->height);
  }
  if (s->mode == VIEWER_MODE_FLY) return splat_fly_camera(&s->fly, s->fovy, s->width, s->height, cam);
  return splat_orbit_camera(&s->orbit, s->fovy, s->width, s->height, cam);
}
