/* test_input.c: splatview's key and mouse bindings (viewer/input.c) driven without a window,
 * and the swapchain format / present-mode choice. CPU only. Expected poses are worked out by
 * hand from camera.h's conventions (-Y up, yaw 0 looks along +z, right is +x); the camera
 * maths themselves are tested in test_camera.c. */
#include "input.h"
#include "swapchain.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define ALL_SORTS                                                                                   \
  (1u << SPLATSORT_ALGORITHM_QUATERNARY | 1u << SPLATSORT_ALGORITHM_ONESWEEP | 1u << SPLATSORT_ALGORITHM_RADIX16 | \
   1u << SPLATSORT_ALGORITHM_MERGE)
#define QUATERNARY_ONLY (1u << SPLATSORT_ALGORITHM_QUATERNARY)

static uint32_t press(viewer_input *s, int key) {
  uint32_t e = viewer_input_key(s, key, GLFW_PRESS, 0);
  viewer_input_key(s, key, GLFW_RELEASE, 0);
  return e;
}

/* Orbit around the origin from 10 units, -Y up, yaw = pitch = 0: the eye is at (0,0,-10)
 * looking along +z, 200x200 with a 90 degree field of view (fy = 100 pixels). */
static void fresh(viewer_input *s) {
  splat_orbit o;
  float zero[3] = {0, 0, 0}, minus_y[3] = {0, -1, 0};
  splat_orbit_init(&o, zero, 10.0f, minus_y);
  viewer_input_init(s, &o, 90.0f, 200, 200, SPLATSORT_ALGORITHM_AUTO, ALL_SORTS, 0, true);
}

static void eye_of(const viewer_input *s, float eye[3]) {
  splat_camera c;
  CHECK(viewer_input_camera(s, &c) == 0, "no camera");
  memcpy(eye, c.position, sizeof(float) * 3);
}

static void test_init(void) {
  viewer_input s;
  fresh(&s);
  CHECK(s.mode == VIEWER_MODE_ORBIT, "starts in orbit mode");
  CHECK(s.sort == SPLATSORT_ALGORITHM_AUTO, "auto stays auto (the renderer resolves it), got %d", s.sort);
  CHECK(s.key_bits == 32, "key bits 0 -> 32, got %u", s.key_bits);
  CHECK(s.hud_visible && s.vsync, "HUD visible, vsync as given");
  float eye[3];
  eye_of(&s, eye);
  CHECK_VEC(eye, 0, 0, -10, 1e-5);
  /* the fly camera starts on the orbit's eye */
  CHECK_VEC(s.fly.position, 0, 0, -10, 1e-5);

  splat_orbit o = s.orbit;
  viewer_input_init(&s, &o, 50.0f, 10, 10, SPLATSORT_ALGORITHM_MERGE, ALL_SORTS, 24, false);
  CHECK(s.sort == SPLATSORT_ALGORITHM_MERGE, "merge asked and available -> merge");
  CHECK(s.key_bits == 24 && !s.vsync, "key bits 24, vsync off");
  viewer_input_init(&s, &o, 50.0f, 10, 10, SPLATSORT_ALGORITHM_ONESWEEP, QUATERNARY_ONLY, 17, false);
  CHECK(s.sort == SPLATSORT_ALGORITHM_AUTO, "OneSweep asked but unavailable -> auto");
  CHECK(s.key_bits == 32, "an invalid key width falls back to 32");
}

static void test_orbit_mouse(void) {
  viewer_input s;
  fresh(&s);
  /* motion without a button, and the first motion, do nothing */
  CHECK(viewer_input_cursor(&s, 100, 100) == 0, "first cursor event");
  CHECK(viewer_input_cursor(&s, 150, 120) == 0, "motion without a button");
  float eye[3];
  eye_of(&s, eye);
  CHECK_VEC(eye, 0, 0, -10, 1e-5);

  /* left drag 100 px right: yaw +0.5 rad (0.005 rad/px), the eye swings to -x */
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
  CHECK(viewer_input_cursor(&s, 250, 120) & VIEWER_EFFECT_CAMERA, "left drag moves the camera");
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
  eye_of(&s, eye);
  CHECK_VEC(eye, -10 * sin(0.5), 0, -10 * cos(0.5), 1e-4);
  CHECK(viewer_input_cursor(&s, 300, 300) == 0, "released: no more rotation");

  /* left drag 40 px down: pitch -0.2, forward gains +y (down): the eye rises (world -y) */
  fresh(&s);
  viewer_input_cursor(&s, 0, 0);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
  viewer_input_cursor(&s, 0, 40);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
  eye_of(&s, eye);
  CHECK_VEC(eye, 0, -10 * sin(0.2), -10 * cos(0.2), 1e-4);

  /* right drag (10, 20) px: at 10 units with fy = 100 a pixel is 0.1 units; the target moves
   * against the drag along right (+x) and down (+y) */
  fresh(&s);
  viewer_input_cursor(&s, 50, 50);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_RIGHT, GLFW_PRESS, 0);
  CHECK(viewer_input_cursor(&s, 60, 70) & VIEWER_EFFECT_CAMERA, "right drag pans");
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_RIGHT, GLFW_RELEASE, 0);
  CHECK_VEC(s.orbit.target, -1, -2, 0, 1e-5);
  CHECK_NEAR(s.orbit.distance, 10, 1e-5);
  /* middle drag pans too */
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_MIDDLE, GLFW_PRESS, 0);
  viewer_input_cursor(&s, 50, 70);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_MIDDLE, GLFW_RELEASE, 0);
  CHECK_VEC(s.orbit.target, 0, -2, 0, 1e-5);

  /* wheel: one step in = distance * 0.9, two out = / 0.81 */
  fresh(&s);
  CHECK(viewer_input_scroll(&s, 0, 1) & VIEWER_EFFECT_CAMERA, "wheel zooms");
  CHECK_NEAR(s.orbit.distance, 9.0, 1e-5);
  viewer_input_scroll(&s, 0, -2);
  CHECK_NEAR(s.orbit.distance, 9.0 / 0.81, 1e-4);
  CHECK(viewer_input_scroll(&s, 3, 0) == 0, "horizontal scrolling does nothing");
}

static void test_fly(void) {
  viewer_input s;
  fresh(&s);
  /* box half diagonal 0.5 sqrt(6^2 + 8^2 + 24^2) = 13: fly speed 13/4 units per second */
  float lo[3] = {-3, -4, -12}, hi[3] = {3, 4, 12};
  viewer_input_set_bounds(&s, lo, hi);
  CHECK_NEAR(s.fly.speed, 3.25, 1e-5);

  /* W in orbit mode is remembered but does not move */
  viewer_input_key(&s, GLFW_KEY_W, GLFW_PRESS, 0);
  CHECK(viewer_input_update(&s, 0.5) == 0, "W does not move the orbit camera");
  viewer_input_key(&s, GLFW_KEY_W, GLFW_RELEASE, 0);

  uint32_t e = press(&s, GLFW_KEY_TAB);
  CHECK(s.mode == VIEWER_MODE_FLY && (e & VIEWER_EFFECT_MESSAGE), "Tab switches to fly");
  float eye[3];
  eye_of(&s, eye);
  CHECK_VEC(eye, 0, 0, -10, 1e-5);

  viewer_input_key(&s, GLFW_KEY_W, GLFW_PRESS, 0);
  CHECK(viewer_input_update(&s, 0.08) & VIEWER_EFFECT_CAMERA, "W moves in fly mode");
  CHECK_VEC(s.fly.position, 0, 0, -10 + 0.26, 1e-5);
  viewer_input_key(&s, GLFW_KEY_LEFT_SHIFT, GLFW_PRESS, GLFW_MOD_SHIFT);
  viewer_input_update(&s, 0.08); /* four times faster */
  CHECK_VEC(s.fly.position, 0, 0, -10 + 0.26 + 1.04, 1e-5);
  viewer_input_key(&s, GLFW_KEY_LEFT_SHIFT, GLFW_RELEASE, 0);
  viewer_input_update(&s, 5.0); /* a stall: at most 0.1 s is applied */
  CHECK_VEC(s.fly.position, 0, 0, -10 + 0.26 + 1.04 + 0.325, 1e-5);
  viewer_input_key(&s, GLFW_KEY_W, GLFW_RELEASE, 0);
  CHECK(viewer_input_update(&s, 0.5) == 0, "released: no motion");

  float p[3];
  memcpy(p, s.fly.position, sizeof p);
  viewer_input_key(&s, GLFW_KEY_A, GLFW_PRESS, 0);
  viewer_input_key(&s, GLFW_KEY_D, GLFW_PRESS, 0);
  CHECK(viewer_input_update(&s, 0.5) == 0, "A and D cancel");
  viewer_input_key(&s, GLFW_KEY_A, GLFW_RELEASE, 0);
  viewer_input_update(&s, 0.1); /* D: right is +x */
  CHECK_VEC(s.fly.position, p[0] + 0.325, p[1], p[2], 1e-5);
  viewer_input_key(&s, GLFW_KEY_D, GLFW_RELEASE, 0);
  viewer_input_key(&s, GLFW_KEY_E, GLFW_PRESS, 0);
  viewer_input_update(&s, 0.1); /* E: screen up, world -y */
  CHECK_VEC(s.fly.position, p[0] + 0.325, p[1] - 0.325, p[2], 1e-5);
  viewer_input_key(&s, GLFW_KEY_E, GLFW_RELEASE, 0);
  viewer_input_key(&s, GLFW_KEY_Q, GLFW_PRESS, 0);
  viewer_input_key(&s, GLFW_KEY_S, GLFW_PRESS, 0);
  viewer_input_update(&s, 0.1); /* Q + S: down and back, along the normalised sum */
  double d = 0.325 / sqrt(2.0);
  CHECK_VEC(s.fly.position, p[0] + 0.325, p[1] - 0.325 + d, p[2] - d, 1e-5);
  viewer_input_release_all(&s);
  CHECK(s.fly_keys == 0 && viewer_input_update(&s, 0.2) == 0, "release_all forgets held keys");

  /* mouse look: left drag 100 px right turns right by 0.3 rad */
  float yaw = s.fly.yaw;
  viewer_input_cursor(&s, 10, 10);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
  viewer_input_cursor(&s, 110, 10);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
  CHECK_NEAR(s.fly.yaw, yaw + 0.3, 1e-5);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_RIGHT, GLFW_PRESS, 0);
  CHECK(viewer_input_cursor(&s, 150, 60) == 0, "right drag does nothing in fly mode");
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_RIGHT, GLFW_RELEASE, 0);

  /* the wheel sets the speed in fly mode */
  viewer_input_scroll(&s, 0, 2);
  CHECK_NEAR(s.fly.speed, 3.25 * 1.5625, 1e-4);

  /* back to orbit keeps the view */
  splat_camera before, after;
  viewer_input_camera(&s, &before);
  press(&s, GLFW_KEY_TAB);
  CHECK(s.mode == VIEWER_MODE_ORBIT, "Tab back to orbit");
  viewer_input_camera(&s, &after);
  for (int k = 0; k < 16; k++) CHECK_NEAR(after.view[k], before.view[k], 1e-4);
}

static void test_frame_and_up(void) {
  viewer_input s;
  fresh(&s);
  CHECK(press(&s, GLFW_KEY_F) == 0, "F without bounds does nothing");
  float lo[3] = {1, 2, 3}, hi[3] = {3, 6, 7}; /* centre (2,4,5), half diagonal 3 */
  viewer_input_set_bounds(&s, lo, hi);
  viewer_input_cursor(&s, 0, 0);
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
  viewer_input_cursor(&s, 60, 0); /* yaw 0.3 */
  viewer_input_button(&s, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
  CHECK(press(&s, GLFW_KEY_F) & VIEWER_EFFECT_CAMERA, "F frames");
  CHECK_VEC(s.orbit.target, 2, 4, 5, 1e-5);
  CHECK_NEAR(s.orbit.distance, splat_camera_fit_distance(3.0f, 90.0f, 200, 200), 1e-4);
  CHECK_NEAR(s.orbit.yaw, 0.3, 1e-5);

  /* in fly mode F frames too and stays in fly mode, the camera on the framed eye */
  press(&s, GLFW_KEY_TAB);
  viewer_input_key(&s, GLFW_KEY_W, GLFW_PRESS, 0);
  viewer_input_update(&s, 0.1);
  viewer_input_key(&s, GLFW_KEY_W, GLFW_RELEASE, 0);
  press(&s, GLFW_KEY_F);
  CHECK(s.mode == VIEWER_MODE_FLY, "F keeps fly mode");
  float eye[3], want[3];
  splat_orbit_eye(&s.orbit, want);
  eye_of(&s, eye);
  CHECK_VEC(eye, want[0], want[1], want[2], 1e-4);
  CHECK_VEC(s.orbit.target, 2, 4, 5, 1e-4);

  /* U cycles -Y, +Y, +Z and keeps the eye where it is */
  fresh(&s);
  viewer_input_set_bounds(&s, lo, hi);
  press(&s, GLFW_KEY_U);
  CHECK(!strcmp(viewer_up_name(s.orbit.up), "+Y"), "U: -Y -> +Y");
  eye_of(&s, eye);
  CHECK_VEC(eye, 0, 0, -10, 1e-4);
  press(&s, GLFW_KEY_U);
  CHECK(!strcmp(viewer_up_name(s.orbit.up), "+Z"), "U: +Y -> +Z");
  /* looking along +z with +Z up is a pole: the pitch limit tilts the view by 1 degree, so
   * only the distance to the target is kept exactly */
  press(&s, GLFW_KEY_U);
  CHECK(!strcmp(viewer_up_name(s.orbit.up), "-Y"), "U: +Z -> -Y");
  eye_of(&s, eye);
  CHECK_NEAR(sqrt(eye[0] * eye[0] + eye[1] * eye[1] + eye[2] * eye[2]), 10, 1e-4);
  CHECK_NEAR(eye[2], -10 * cos(3.14159265358979 / 180), 1e-4);
  press(&s, GLFW_KEY_TAB);
  viewer_input_key(&s, GLFW_KEY_D, GLFW_PRESS, 0);
  viewer_input_update(&s, 0.1);
  viewer_input_key(&s, GLFW_KEY_D, GLFW_RELEASE, 0);
  float p[3];
  memcpy(p, s.fly.position, sizeof p);
  press(&s, GLFW_KEY_U);
  CHECK(!strcmp(viewer_up_name(s.fly.up), "+Y") && s.mode == VIEWER_MODE_FLY, "U in fly mode");
  CHECK_VEC(s.fly.position, p[0], p[1], p[2], 1e-4);

  /* a scene's own up (the start view's) comes first in the cycle: scene, -Y, +Y, +Z, scene */
  splat_orbit o;
  float zero[3] = {0, 0, 0}, tilted[3] = {0.3f, -0.9f, 0.1f};
  splat_orbit_init(&o, zero, 10.0f, tilted);
  viewer_input_init(&s, &o, 90.0f, 200, 200, SPLATSORT_ALGORITHM_AUTO, ALL_SORTS, 0, true);
  CHECK(!strcmp(viewer_up_name(s.orbit.up), "scene"), "scene up named %s", viewer_up_name(s.orbit.up));
  const char *cycle[4] = {"-Y", "+Y", "+Z", "scene"};
  for (int i = 0; i < 4; i++) {
    press(&s, GLFW_KEY_U);
    CHECK(!strcmp(viewer_up_name(s.orbit.up), cycle[i]), "U %d: %s, expected %s", i, viewer_up_name(s.orbit.up),
          cycle[i]);
  }
  double len = sqrt(0.3 * 0.3 + 0.9 * 0.9 + 0.1 * 0.1);
  CHECK_VEC(s.orbit.up, 0.3 / len, -0.9 / len, 0.1 / len, 1e-6);
}

static void test_cameras(void) {
  viewer_input s;
  fresh(&s);
  CHECK(press(&s, GLFW_KEY_1) == VIEWER_EFFECT_MESSAGE, "1 without cameras: a message only");
  CHECK(strstr(s.message, "--cameras") != NULL, "message names --cameras: '%s'", s.message);
  CHECK(press(&s, GLFW_KEY_PAGE_DOWN) == VIEWER_EFFECT_MESSAGE, "PageDown without cameras");
  CHECK(s.camera_index == -1, "no camera chosen");

  /* three training cameras at 640x480, fx = fy = 400: 0 and 2 look along +z, 1 along +x */
  splat_camera_desc d[3];
  memset(d, 0, sizeof d);
  for (int i = 0; i < 3; i++) {
    snprintf(d[i].name, sizeof d[i].name, "cam%d", i);
    d[i].width = 640;
    d[i].height = 480;
    d[i].fx = d[i].fy = 400.0f;
    d[i].position[0] = (float)i;
    d[i].position[2] = -5.0f;
    for (int k = 0; k < 3; k++) d[i].rotation[k][k] = 1.0f;
  }
  /* columns right (0,0,-1), down (0,1,0), forward (1,0,0) */
  const float r1[3][3] = {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}};
  memcpy(d[1].rotation, r1, sizeof r1);
  viewer_input_set_cameras(&s, d, 3);
  viewer_input_resize(&s, 320, 240);
  float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
  viewer_input_set_bounds(&s, lo, hi);

  uint32_t e = press(&s, GLFW_KEY_2);
  CHECK(e & VIEWER_EFFECT_CAMERA, "2 jumps");
  CHECK(s.camera_index == 1 && s.exact_camera, "camera index 1, exact");
  splat_camera c;
  CHECK(viewer_input_camera(&s, &c) == 0, "camera");
  CHECK_VEC(c.position, 1, 0, -5, 1e-5);
  float right[3], down[3], fwd[3];
  splat_camera_axes(&c, right, down, fwd);
  CHECK_VEC(fwd, 1, 0, 0, 1e-5);
  CHECK_VEC(right, 0, 0, -1, 1e-5);
  /* the training camera's field of view at the window's height: fy = 400 * 240/480 */
  CHECK_NEAR(c.fy, 200, 1e-3);
  CHECK_NEAR(c.fx, 200, 1e-3);
  CHECK_NEAR(s.fovy, 2.0 * atan(480.0 / 800.0) * 180.0 / 3.14159265358979, 1e-3);
  /* the orbit continues from the same eye and direction; the scene centre (0,0,0) lies at
   * depth (0 - 1) = -1 along +x, behind the camera, so the previous distance (10) is kept */
  float eye[3];
  splat_orbit_eye(&s.orbit, eye);
  CHECK_VEC(eye, 1, 0, -5, 1e-4);
  CHECK_VEC(s.orbit.target, 11, 0, -5, 1e-4);

  CHECK(press(&s, GLFW_KEY_4) == VIEWER_EFFECT_MESSAGE, "4 of 3 cameras: message only");
  CHECK(s.camera_index == 1, "out of range keeps the camera");
  CHECK(press(&s, GLFW_KEY_9) == VIEWER_EFFECT_MESSAGE && s.camera_index == 1, "9 of 3");
  press(&s, GLFW_KEY_PAGE_DOWN);
  CHECK(s.camera_index == 2, "PageDown: 1 -> 2, got %d", s.camera_index);
  /* camera 2 at (2,0,-5) looking +z: the scene centre is 5 ahead, the orbit turns around it */
  CHECK_VEC(s.orbit.target, 2, 0, 0, 1e-4);
  press(&s, GLFW_KEY_PAGE_DOWN);
  CHECK(s.camera_index == 0, "PageDown wraps: 2 -> 0, got %d", s.camera_index);
  press(&s, GLFW_KEY_PAGE_UP);
  CHECK(s.camera_index == 2, "PageUp wraps: 0 -> 2, got %d", s.camera_index);
  press(&s, GLFW_KEY_PAGE_UP);
  CHECK(s.camera_index == 1, "PageUp: 2 -> 1, got %d", s.camera_index);
  CHECK(viewer_input_key(&s, GLFW_KEY_PAGE_UP, GLFW_REPEAT, 0) == 0 && s.camera_index == 1, "repeat ignored");

  /* moving leaves the exact camera for the orbit's, from the same place */
  press(&s, GLFW_KEY_1);
  CHECK(s.exact_camera && s.camera_index == 0, "1 -> camera 0");
  viewer_input_scroll(&s, 0, 1);
  CHECK(!s.exact_camera, "zooming leaves the training camera");
  viewer_input_camera(&s, &c);
  splat_camera_axes(&c, NULL, NULL, fwd);
  CHECK_VEC(fwd, 0, 0, 1, 1e-4);

  /* from no camera yet: PageUp goes to the last one, PageDown to the first */
  viewer_input_set_cameras(&s, d, 3);
  press(&s, GLFW_KEY_PAGE_UP);
  CHECK(s.camera_index == 2, "PageUp first: last camera, got %d", s.camera_index);
  viewer_input_set_cameras(&s, d, 3);
  press(&s, GLFW_KEY_PAGE_DOWN);
  CHECK(s.camera_index == 0, "PageDown first: first camera, got %d", s.camera_index);

  /* a camera that cannot be used (fx 0) is refused */
  d[2].fx = 0.0f;
  CHECK(press(&s, GLFW_KEY_3) == VIEWER_EFFECT_MESSAGE && s.camera_index == 0, "unusable camera refused");
}

static void test_toggles(void) {
  viewer_input s;
  fresh(&s);
  CHECK(s.sort == SPLATSORT_ALGORITHM_AUTO, "start auto");
  const splatsort_algorithm cycle[] = {SPLATSORT_ALGORITHM_ONESWEEP, SPLATSORT_ALGORITHM_RADIX16,
                                       SPLATSORT_ALGORITHM_MERGE, SPLATSORT_ALGORITHM_QUATERNARY,
                                       SPLATSORT_ALGORITHM_AUTO};
  for (int i = 0; i < 5; i++) {
    CHECK(press(&s, GLFW_KEY_O) & VIEWER_EFFECT_SORT, "O changes the sort");
    CHECK(s.sort == cycle[i], "O %d: %s, got %s", i + 1, splatsort_algorithm_name(cycle[i]),
          splatsort_algorithm_name(s.sort));
  }
  /* a device without subgroup ballots: auto <-> quaternary, merge */
  s.sorts_available = QUATERNARY_ONLY | 1u << SPLATSORT_ALGORITHM_MERGE | 1u << SPLATSORT_ALGORITHM_AUTO;
  press(&s, GLFW_KEY_O);
  CHECK(s.sort == SPLATSORT_ALGORITHM_MERGE, "O skips onesweep and radix16: merge, got %s",
        splatsort_algorithm_name(s.sort));
  press(&s, GLFW_KEY_O);
  press(&s, GLFW_KEY_O);
  CHECK(s.sort == SPLATSORT_ALGORITHM_AUTO, "then quaternary, then auto");
  s.sorts_available = 1u << SPLATSORT_ALGORITHM_AUTO;
  CHECK(press(&s, GLFW_KEY_O) == VIEWER_EFFECT_MESSAGE && s.sort == SPLATSORT_ALGORITHM_AUTO,
        "nothing else to cycle to: message only");

  CHECK(press(&s, GLFW_KEY_K) & VIEWER_EFFECT_SORT, "K changes the keys");
  CHECK(s.key_bits == 24, "K: 32 -> 24");
  press(&s, GLFW_KEY_K);
  CHECK(s.key_bits == 16, "K: 24 -> 16");
  press(&s, GLFW_KEY_K);
  CHECK(s.key_bits == 32, "K: 16 -> 32");
  CHECK(viewer_input_key(&s, GLFW_KEY_K, GLFW_REPEAT, 0) == 0 && s.key_bits == 32, "auto-repeat ignored");
  CHECK(viewer_input_key(&s, GLFW_KEY_K, GLFW_RELEASE, 0) == 0 && s.key_bits == 32, "release ignored");

  CHECK(press(&s, GLFW_KEY_V) & VIEWER_EFFECT_VSYNC, "V");
  CHECK(!s.vsync, "V turns vsync off");
  press(&s, GLFW_KEY_V);
  CHECK(s.vsync, "V turns it back on");
  CHECK(press(&s, GLFW_KEY_H) == VIEWER_EFFECT_HUD && !s.hud_visible, "H hides the HUD");
  press(&s, GLFW_KEY_H);
  CHECK(s.hud_visible, "H shows it");
  CHECK(press(&s, GLFW_KEY_P) == VIEWER_EFFECT_SCREENSHOT, "P: screenshot");
  CHECK(press(&s, GLFW_KEY_ESCAPE) == VIEWER_EFFECT_QUIT, "Esc: quit");
  CHECK(press(&s, GLFW_KEY_Z) == 0, "an unbound key does nothing");
  CHECK(viewer_input_button(&s, GLFW_MOUSE_BUTTON_5, GLFW_PRESS, 0) == 0, "an unbound button does nothing");
}

/* L toggles the order; the message says when the raster is not the compute one. */
static void test_order(void) {
  viewer_input s;
  fresh(&s);
  CHECK(s.order == SPLAT_ORDER_GLOBAL, "starts with the global order");
  CHECK(press(&s, GLFW_KEY_L) == (VIEWER_EFFECT_RASTER | VIEWER_EFFECT_MESSAGE), "L changes the order");
  CHECK(s.order == SPLAT_ORDER_PER_PIXEL && strstr(s.message, "per-pixel") && strstr(s.message, "compute raster"),
        "L: global -> per-pixel, naming the compute raster under the graphics one ('%s')", s.message);
  CHECK(viewer_input_key(&s, GLFW_KEY_L, GLFW_REPEAT, 0) == 0 && s.order == SPLAT_ORDER_PER_PIXEL, "repeat ignored");
  press(&s, GLFW_KEY_R);
  press(&s, GLFW_KEY_L);
  press(&s, GLFW_KEY_L);
  CHECK(s.order == SPLAT_ORDER_PER_PIXEL && !strstr(s.message, "compute raster"),
        "L under the compute raster: no hint ('%s')", s.message);
  press(&s, GLFW_KEY_L);
  CHECK(s.order == SPLAT_ORDER_GLOBAL && strstr(s.message, "global"), "L: per-pixel -> global ('%s')", s.message);
}

/* R switches the raster path; with --grid (compute not available) it only says so. */
static void test_raster(void) {
  viewer_input s;
  fresh(&s);
  CHECK(s.raster == SPLAT_RASTER_GRAPHICS && s.compute_available, "starts graphics, compute available");
  CHECK(press(&s, GLFW_KEY_R) == (VIEWER_EFFECT_RASTER | VIEWER_EFFECT_MESSAGE), "R changes the raster");
  CHECK(s.raster == SPLAT_RASTER_COMPUTE && strstr(s.message, "compute"), "R: graphics -> compute ('%s')",
        s.message);
  CHECK(viewer_input_key(&s, GLFW_KEY_R, GLFW_REPEAT, 0) == 0 && s.raster == SPLAT_RASTER_COMPUTE, "repeat ignored");
  press(&s, GLFW_KEY_R);
  CHECK(s.raster == SPLAT_RASTER_GRAPHICS, "R: compute -> graphics");

  viewer_input_set_raster(&s, SPLAT_RASTER_COMPUTE, true);
  CHECK(s.raster == SPLAT_RASTER_COMPUTE, "set_raster compute");
  viewer_input_set_raster(&s, SPLAT_RASTER_COMPUTE, false);
  CHECK(s.raster == SPLAT_RASTER_GRAPHICS, "compute where it is not available -> graphics");
  CHECK(press(&s, GLFW_KEY_R) == VIEWER_EFFECT_MESSAGE, "R with --grid: a message only");
  CHECK(s.raster == SPLAT_RASTER_GRAPHICS && strstr(s.message, "--grid"), "stays graphics, names --grid ('%s')",
        s.message);
  CHECK(!strcmp(viewer_raster_name(SPLAT_RASTER_COMPUTE), "compute") &&
            !strcmp(viewer_raster_name(SPLAT_RASTER_GRAPHICS), "graphics"),
        "raster names");
}

static void test_swapchain_choice(void) {
  VkSurfaceFormatKHR f[3], out;
  f[0] = (VkSurfaceFormatKHR){VK_FORMAT_B8G8R8A8_SRGB, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
  f[1] = (VkSurfaceFormatKHR){VK_FORMAT_B8G8R8A8_UNORM, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
  CHECK(viewer_pick_surface_format(f, 2, &out) == 0 && out.format == VK_FORMAT_B8G8R8A8_UNORM, "UNORM, not sRGB");
  f[0] = (VkSurfaceFormatKHR){VK_FORMAT_R8G8B8A8_UNORM, VK_COLOR_SPACE_DISPLAY_P3_NONLINEAR_EXT};
  f[1] = (VkSurfaceFormatKHR){VK_FORMAT_R8G8B8A8_SRGB, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
  f[2] = (VkSurfaceFormatKHR){VK_FORMAT_R8G8B8A8_UNORM, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
  CHECK(viewer_pick_surface_format(f, 3, &out) == 0 && out.format == VK_FORMAT_R8G8B8A8_UNORM &&
            out.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
        "R8G8B8A8_UNORM in sRGB-nonlinear space preferred");
  CHECK(viewer_pick_surface_format(f, 1, &out) == 0 && out.format == VK_FORMAT_R8G8B8A8_UNORM, "other space");
  CHECK(viewer_pick_surface_format(&f[1], 1, &out) == -1, "only sRGB formats: refused");
  CHECK(viewer_pick_surface_format(f, 0, &out) == -1, "no formats");

  const VkPresentModeKHR all[3] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR,
                                   VK_PRESENT_MODE_MAILBOX_KHR};
  CHECK(viewer_pick_present_mode(all, 3, true) == VK_PRESENT_MODE_FIFO_KHR, "vsync: FIFO");
  CHECK(viewer_pick_present_mode(all, 3, false) == VK_PRESENT_MODE_MAILBOX_KHR, "no vsync: MAILBOX first");
  CHECK(viewer_pick_present_mode(all, 2, false) == VK_PRESENT_MODE_IMMEDIATE_KHR, "then IMMEDIATE");
  CHECK(viewer_pick_present_mode(all, 1, false) == VK_PRESENT_MODE_FIFO_KHR, "else FIFO");
}

/* N selects the next object, the arrows move the selected one along the view's axes (here
 * right = +x, down = +y, forward = +z), Shift+Up/Down along the view (away / towards). */
static void test_objects(void) {
  viewer_input s;
  fresh(&s);
  CHECK(press(&s, GLFW_KEY_N) == VIEWER_EFFECT_MESSAGE && s.selected == 0, "N with no objects: a message only");
  CHECK(press(&s, GLFW_KEY_RIGHT) == 0, "an arrow with no objects does nothing");
  viewer_input_set_objects(&s, 1, 0);
  CHECK(press(&s, GLFW_KEY_N) == VIEWER_EFFECT_MESSAGE && s.selected == 0, "N with one object: a message only");
  viewer_input_set_objects(&s, 3, 0);
  CHECK(press(&s, GLFW_KEY_N) == (VIEWER_EFFECT_OBJECT | VIEWER_EFFECT_MESSAGE) && s.selected == 1, "N: 0 -> 1");
  press(&s, GLFW_KEY_N);
  CHECK(s.selected == 2, "N: 1 -> 2");
  press(&s, GLFW_KEY_N);
  CHECK(s.selected == 0, "N: 2 -> 0 (wraps)");
  viewer_input_set_objects(&s, 2, 5);
  CHECK(s.selected == 0, "a selection out of range is reset");
  const struct {
    int key, mods;
    float dir[3];
  } moves[] = {{GLFW_KEY_RIGHT, 0, {1, 0, 0}},  {GLFW_KEY_LEFT, 0, {-1, 0, 0}},
               {GLFW_KEY_UP, 0, {0, -1, 0}},    {GLFW_KEY_DOWN, 0, {0, 1, 0}},
               {GLFW_KEY_UP, GLFW_MOD_SHIFT, {0, 0, 1}}, {GLFW_KEY_DOWN, GLFW_MOD_SHIFT, {0, 0, -1}}};
  for (int i = 0; i < 6; i++) {
    CHECK(viewer_input_key(&s, moves[i].key, GLFW_PRESS, moves[i].mods) == VIEWER_EFFECT_MOVE, "move %d: effect", i);
    const float *d = s.object_move, *w = moves[i].dir;
    CHECK(fabsf(d[0] - w[0]) < 1e-5f && fabsf(d[1] - w[1]) < 1e-5f && fabsf(d[2] - w[2]) < 1e-5f,
          "move %d: (%g, %g, %g), expected (%g, %g, %g)", i, d[0], d[1], d[2], w[0], w[1], w[2]);
  }
  CHECK(viewer_input_key(&s, GLFW_KEY_RIGHT, GLFW_REPEAT, 0) == VIEWER_EFFECT_MOVE, "a held arrow moves on");
  CHECK(viewer_input_key(&s, GLFW_KEY_RIGHT, GLFW_RELEASE, 0) == 0, "release does nothing");
  CHECK(s.mode == VIEWER_MODE_ORBIT && !s.exact_camera, "the view is not changed by the arrows");
}

int main(void) {
  test_init();
  test_orbit_mouse();
  test_fly();
  test_frame_and_up();
  test_cameras();
  test_toggles();
  test_raster();
  test_order();
  test_objects();
  test_swapchain_choice();
  return check_report("test_input");
}
