/* input.h: splatview's keyboard and mouse handling as pure functions over a state struct,
 * so every binding can be unit-tested without a window (tests/test_input.c). Key, button,
 * action and modifier codes are GLFW's (GLFW_KEY_*, GLFW_PRESS, ...); this file only uses
 * their values, not the library. window.c forwards GLFW callbacks here and acts on the
 * returned effect bits. */
#ifndef SPLATVIEW_INPUT_H
#define SPLATVIEW_INPUT_H

#include "splat_renderer.h"
#include "view_control.h"
#include "splatsort.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum viewer_mode {
  VIEWER_MODE_ORBIT = 0,
  VIEWER_MODE_FLY = 1,
} viewer_mode;

/* What an event asks the application to do besides the state change itself. */
enum viewer_effect_bits {
  VIEWER_EFFECT_CAMERA = 1u << 0,     /* the view changed */
  VIEWER_EFFECT_QUIT = 1u << 1,       /* Esc */
  VIEWER_EFFECT_VSYNC = 1u << 2,      /* `vsync` toggled: re-create the swapchain */
  VIEWER_EFFECT_SCREENSHOT = 1u << 3, /* P */
  VIEWER_EFFECT_SORT = 1u << 4,       /* `sort` or `key_bits` changed */
  VIEWER_EFFECT_HUD = 1u << 5,        /* `hud_visible` toggled */
  VIEWER_EFFECT_MESSAGE = 1u << 6,    /* `message` has new text for the HUD */
  VIEWER_EFFECT_RASTER = 1u << 7,     /* `raster` or `order` changed */
  VIEWER_EFFECT_OBJECT = 1u << 8,     /* `selected` changed (N) */
  VIEWER_EFFECT_MOVE = 1u << 9,       /* move the selected object along `object_move` (arrows) */
};

#define VIEWER_MESSAGE_MAX 256

typedef struct viewer_input {
  viewer_mode mode;
  splat_orbit orbit;
  splat_fly fly;
  float scene_up[3];             /* the start view's up: first in U's cycle */
  float fovy;                    /* degrees */
  uint32_t width, height;        /* framebuffer size: framing and panning need it */

  /* scene extent for F (robust bounds), and the fly speed derived from it */
  float bounds_lo[3], bounds_hi[3];
  bool have_bounds;

  /* cameras.json: number keys and PageUp/PageDown jump between them */
  const splat_camera_desc *cameras;
  uint32_t camera_count;
  int camera_index;              /* last camera jumped to, -1 none */
  bool exact_camera;             /* the view is still exactly cameras[camera_index] */

  /* held input */
  uint32_t fly_keys;             /* SPLAT_FLY_* of the keys held */
  bool button[3];                /* left, right, middle */
  bool have_cursor;
  double cursor_x, cursor_y;

  /* toggles */
  bool hud_visible, vsync;
  uint32_t sorts_available;      /* bit (1 << algorithm) per sort the renderer has; AUTO always */
  splatsort_algorithm sort;      /* QUATERNARY or ONESWEEP (never AUTO) */
  uint32_t key_bits;             /* 32, 24 or 16 */
  splat_raster_path raster;
  bool compute_available;        /* false with --grid: its pass takes only the graphics raster */
  splat_order order;             /* L: global or per-pixel (the compute raster's) */
  uint32_t order_window;         /* --order-window; 0: the renderer's default */

  /* objects: N selects the next, the arrow keys move the selected one */
  uint32_t object_count, selected;
  float object_move[3];          /* world direction of the last move key (a camera axis) */

  char message[VIEWER_MESSAGE_MAX];
} viewer_input;

/* Sets up the state: orbit mode around `orbit` (copied), the fly camera on the orbit's eye,
 * HUD visible. `sort` AUTO resolves to OneSweep when available, else quaternary; `key_bits`
 * 0 means 32. */
void viewer_input_init(viewer_input *s, const splat_orbit *orbit, float fovy, uint32_t width, uint32_t height,
                       splatsort_algorithm sort, uint32_t sorts_available, uint32_t key_bits, bool vsync);

/* The raster path in use and whether R may switch to the compute raster (init: graphics,
 * available). Compute asked for where it is not available gives graphics. */
void viewer_input_set_raster(viewer_input *s, splat_raster_path raster, bool compute_available);

/* Scene extent for F (and the fly speed: a quarter of the box's half diagonal per second).
 * A box that is empty or not finite is ignored (F then does nothing). */
void viewer_input_set_bounds(viewer_input *s, const float lo[3], const float hi[3]);
/* How many objects N cycles through and the one selected (the selection is kept in range). */
void viewer_input_set_objects(viewer_input *s, uint32_t count, uint32_t selected);
/* Cameras for the number keys and PageUp/PageDown (not copied: must outlive the state). */
void viewer_input_set_cameras(viewer_input *s, const splat_camera_desc *cameras, uint32_t count);
void viewer_input_resize(viewer_input *s, uint32_t width, uint32_t height);

/* Jumps to cameras[index]: the view becomes exactly that camera (its pose and vertical
 * field of view, which the viewer keeps afterwards) until it is moved; the orbit and fly
 * controllers continue from its eye and direction. Out of range: message, no change. */
uint32_t viewer_input_jump(viewer_input *s, int index);
/* Frames the scene bounds from the current direction (orbit), keeping the mode. */
uint32_t viewer_input_frame(viewer_input *s);
/* Moves to `orbit` (a new start view, viewer_start_view), keeping the mode: the fly camera
 * stands at its eye; its up becomes the scene's (first in U's cycle). */
uint32_t viewer_input_view(viewer_input *s, const splat_orbit *orbit);

/* GLFW callbacks' arguments: key (GLFW_KEY_*), action (GLFW_PRESS/RELEASE/REPEAT), mods
 * (GLFW_MOD_*); button (GLFW_MOUSE_BUTTON_*); cursor in window pixels (y down); scroll
 * offsets (positive y: away from the user, zooms in). Each returns viewer_effect_bits. */
uint32_t viewer_input_key(viewer_input *s, int key, int action, int mods);
uint32_t viewer_input_button(viewer_input *s, int button, int action, int mods);
uint32_t viewer_input_cursor(viewer_input *s, double x, double y);
uint32_t viewer_input_scroll(viewer_input *s, double dx, double dy);
/* Once per frame: moves the fly camera for the keys held over dt seconds (at most 0.1 s
 * is applied, so a stall does not throw the camera away). */
uint32_t viewer_input_update(viewer_input *s, double dt);
/* Forgets held keys and buttons (the window lost focus: their releases will not come). */
void viewer_input_release_all(viewer_input *s);

/* The camera to render at the state's width x height. Returns 0, or -1 when the state
 * does not make a camera (zero size). */
int viewer_input_camera(const viewer_input *s, splat_camera *cam);

const char *viewer_mode_name(viewer_mode m);
/* "-Y", "+Y" or "+Z" for those axes, "scene" for another up (the start view's). */
const char *viewer_up_name(const float up[3]);
const char *viewer_raster_name(splat_raster_path raster);

#endif
