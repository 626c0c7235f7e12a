/* view_control.h: for applications built on the splat library (the viewer, tests, tools):
 * framing a scene, and the orbit/fly controllers (cameras.json: splat_cameras_load in
 * splat_scene.h, splat_camera_from_desc in splat_camera.h). Not part of what a host embeds.
 * All functions are pure CPU maths; none prints or aborts. */
#ifndef SPLAT_VIEW_CONTROL_H
#define SPLAT_VIEW_CONTROL_H

#include "splat_camera.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Robust extent of a point set: per axis the 2nd and 98th percentiles (sorted values at
 * floor(0.02 (n-1)) and ceil(0.98 (n-1))), ignoring non-finite values. Real scenes have
 * far-away outliers that would make a min/max box useless for framing. Above
 * SPLAT_ROBUST_BOUNDS_SAMPLE points, the percentiles of every ceil(count / that)-th point (so
 * a 100M-splat scene costs what a 1M one does: exact selection over all of them took 7 s;
 * the sample's percentiles are within a few hundredths of a percent of the whole set's rank).
 * Returns 0, or -1 (lo = hi = 0) when there is no finite point or memory runs out. */
#define SPLAT_ROBUST_BOUNDS_SAMPLE (1u << 20)
int splat_scene_robust_bounds(const float *positions, uint32_t count, float lo[3], float hi[3]);

/* Distance from which a sphere of `radius` fits in a view of `fovy_deg` and aspect
 * width/height, with a 5% margin and at least radius + 0.25 (beyond the 0.2 near plane). */
float splat_camera_fit_distance(float radius, float fovy_deg, uint32_t width, uint32_t height);

/* Camera that frames the box [bmin, bmax] whole: it looks at the box centre along the world
 * direction perpendicular to `up` closest to +z (or +y when up is along z), from
 * splat_camera_fit_distance(half diagonal). Returns 0, or -1 for an empty or non-finite
 * box, a zero `up`, or the reasons of splat_camera_look_at. */
int splat_camera_frame_bounds(splat_camera *cam, const float bmin[3], const float bmax[3],
                              const float up[3], uint32_t width, uint32_t height, float fovy_deg);

/* ---- interactive controllers (viewer) ----------------------------------------------- */

/* World direction that appears up on screen. 3DGS scenes come from COLMAP, whose world
 * y usually points down, hence the default -Y. */
typedef enum splat_up_axis {
  SPLAT_UP_NEG_Y = 0,
  SPLAT_UP_POS_Y = 1,
  SPLAT_UP_POS_Z = 2,
} splat_up_axis;

/* Unit world vectors for an up axis: `up`, and the horizontal `ahead` (yaw 0) and
 * `right` (yaw +90 degrees) directions; right = ahead x up. Any may be NULL. */
void splat_up_basis(splat_up_axis axis, float up[3], float ahead[3], float right[3]);

/* Yaw/pitch of a view direction relative to an up axis (radians): forward =
 * cos(pitch) (cos(yaw) ahead + sin(yaw) right) + sin(pitch) up. Pitch is clamped to
 * +-SPLAT_PITCH_LIMIT so the view never reaches a pole (no flip). */
#define SPLAT_PITCH_LIMIT 1.5533430f /* 89 degrees */
void splat_forward_from_angles(splat_up_axis axis, float yaw, float pitch, float forward[3]);
void splat_angles_from_forward(splat_up_axis axis, const float forward[3], float *yaw,
                               float *pitch);

/* Orbit around `target` at `distance`; the eye is target - distance * forward. */
typedef struct splat_orbit {
  float target[3];
  float distance;
  float yaw, pitch;          /* radians, see splat_forward_from_angles */
  splat_up_axis up;
  float min_distance, max_distance;
  float rotate_speed;        /* radians per pixel of mouse motion */
  float zoom_step;           /* distance factor per wheel step, in (0,1) */
} splat_orbit;

/* Defaults: yaw = pitch = 0, distance limits [1e-3, 1e6], 0.005 rad/pixel, 0.9 per step. */
void splat_orbit_init(splat_orbit *o, const float target[3], float distance, splat_up_axis up);
/* Sets target, distance, yaw and pitch so the eye is at `eye` looking at `target` (roll
 * comes from the up axis; the pitch is clamped, so a view straight along the up axis
 * tilts slightly), widening the distance limits if needed. Returns -1 (o untouched) when
 * eye == target or a value is not finite. */
int splat_orbit_look(splat_orbit *o, const float eye[3], const float target[3]);
/* Mouse drag by (dx, dy) pixels (y down): the camera circles the target, the scene
 * appears to turn with the mouse. Pitch is clamped at the poles. */
void splat_orbit_rotate(splat_orbit *o, float dx, float dy);
/* Mouse drag by (dx, dy) pixels: moves the target in the screen plane so that a point at
 * the target's depth follows the cursor; `fy` is the camera's focal length in pixels. */
void splat_orbit_pan(splat_orbit *o, float dx, float dy, float fy);
/* Wheel: distance *= zoom_step^steps (positive steps zoom in), clamped to the limits. */
void splat_orbit_zoom(splat_orbit *o, float steps);
/* Changes the up axis keeping target, distance and (as far as the pitch limit allows)
 * the view direction. */
void splat_orbit_set_up(splat_orbit *o, splat_up_axis up);
void splat_orbit_eye(const splat_orbit *o, float eye[3]);
/* The orbit's camera (as splat_camera_look_at from the eye to the target with the up
 * axis). Returns 0, or -1 for a zero size, fovy outside (0,180) or non-finite state. */
int splat_orbit_camera(const splat_orbit *o, float fovy_deg, uint32_t width, uint32_t height,
                       splat_camera *cam);
/* Keeps yaw and pitch; sets the target to the centre of [bmin, bmax] and the distance to
 * splat_camera_fit_distance of its half diagonal, widening the distance limits when needed.
 * Returns -1 (o untouched) for an empty or non-finite box or bad view parameters. */
int splat_orbit_frame_bounds(splat_orbit *o, const float bmin[3], const float bmax[3],
                             float fovy_deg, uint32_t width, uint32_t height);

/* Keys held for splat_fly_step. */
enum {
  SPLAT_FLY_FORWARD = 1u << 0,  /* W */
  SPLAT_FLY_BACK = 1u << 1,     /* S */
  SPLAT_FLY_LEFT = 1u << 2,     /* A */
  SPLAT_FLY_RIGHT = 1u << 3,    /* D */
  SPLAT_FLY_UP = 1u << 4,       /* E: along screen-up (camera -y) */
  SPLAT_FLY_DOWN = 1u << 5,     /* Q */
  SPLAT_FLY_FAST = 1u << 6,     /* shift: speed * fast_multiplier */
};

/* First-person camera. */
typedef struct splat_fly {
  float position[3];
  float yaw, pitch;          /* radians, see splat_forward_from_angles */
  splat_up_axis up;
  float speed;               /* world units per second */
  float fast_multiplier;
  float look_speed;          /* radians per pixel */
} splat_fly;

/* Defaults: yaw = pitch = 0, speed 1, fast x4, 0.003 rad/pixel. */
void splat_fly_init(splat_fly *f, const float position[3], splat_up_axis up);
/* Moves along the camera axes (forward, right, screen-up) for the keys held, by
 * speed * dt (times fast_multiplier with SPLAT_FLY_FAST); several keys move along the
 * normalised sum, opposite keys cancel. */
void splat_fly_step(splat_fly *f, uint32_t keys, float dt);
/* Mouse look by (dx, dy) pixels: right turns right, down looks down; pitch clamped. */
void splat_fly_look(splat_fly *f, float dx, float dy);
void splat_fly_forward(const splat_fly *f, float forward[3]);
int splat_fly_camera(const splat_fly *f, float fovy_deg, uint32_t width, uint32_t height,
                     splat_camera *cam);

/* Switching controllers keeps the view matrix: the fly camera takes the orbit's eye,
 * yaw, pitch and up axis (f's speed settings are kept); the orbit takes the fly camera's
 * yaw, pitch and up axis with its target `distance` ahead (clamped to the orbit's limits;
 * o's speed settings are kept). */
void splat_fly_from_orbit(splat_fly *f, const splat_orbit *o);
void splat_orbit_from_fly(splat_orbit *o, const splat_fly *f, float distance);

#ifdef __cplusplus
}
#endif
#endif
