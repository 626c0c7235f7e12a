/* view_control.h: for applications built on the splat library (the viewer, tests, tools):
 * framing a scene, and the orbit/fly controllers (cameras.json: splat_cameras_load in
 * splat_scene.h, splat_camera_from_desc in splat_camera.h). Not part of what a host embeds.
 * All functions are pure CPU maths; none prints or aborts. */
#ifndef SPLAT_VIEW_CONTROL_H
#define SPLAT_VIEW_CONTROL_H

#include "splat_camera.h"

#include <stdbool.h>
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

/* ---- the scene's shape and the start view (scene_shape.c) ---------------------------- */

/* How splat_scene_shape_find found up. */
typedef enum splat_shape_kind {
  SPLAT_SHAPE_GIVEN,  /* given (splat_scene_shape_along) */
  SPLAT_SHAPE_FLAT,   /* thin along one axis (a ground-level capture, a table top): up is the
                       * normal of the densest plane (of the thin axis where there is none) */
  SPLAT_SHAPE_TALL,   /* long along one axis within 45 degrees of -Y's line: up along it */
  SPLAT_SHAPE_LONG,   /* long along an axis farther from it (lying): -Y made perpendicular to it */
  SPLAT_SHAPE_ROUND,  /* no axis stands out: -Y */
} splat_shape_kind;

typedef struct splat_scene_shape {
  float up[3];          /* unit: the scene's up, away from its ground */
  float axes[3][3];     /* orthonormal, right-handed: axes[0] and axes[1] horizontal (those of
                         * the smallest box, its longer side first), axes[2] = up */
  float lo[3], hi[3];   /* the core's extent along axes[k]: 1st and 99th percentiles of p . axes[k] */
  float ground;         /* the ground's height p . up: the densest plane or layer (or lo[2]) */
  float spread[3];      /* the core's standard deviations along its principal axes, largest first */
  float plane_fraction; /* FLAT: the core's share within the densest plane's slab */
  float above, below;   /* the core's shares above and below the ground (its slab left out) */
  float ground_clear;   /* FLAT: the share of the ground seen with nothing just above (below) */
  splat_shape_kind kind;
  bool sign_from_ground; /* up's sign from the ground (see below), else from the prior */
} splat_scene_shape;

/* The up direction and extent of a scene from its splats' positions. A sample (every k-th of at
 * most 65,536 finite points) is trimmed to its core: the 90% nearest the coordinate-wise median,
 * then the points within the 2nd..98th percentiles along that core's principal axes (far
 * background, sky and floaters left out). The core's principal spreads s1 >= s2 >= s3 say how up
 * is found (splat_shape_kind): flat (s3 < s2/2): the normal of the densest plane (of 256 random
 * planes through three core points, normals within 30 degrees of the thin axis, the one with most
 * points within 4% of s1, refitted to them; it must hold 10% of the core); long (s2 < s1/2): the
 * long axis when it is within 45 degrees of the y axis, else -Y across it; both: whichever of the
 * normal and the long axis is nearer the y axis; otherwise -Y, the 3DGS/COLMAP convention
 * (COLMAP's world is its first camera's, y down). The sign: things stand up from the ground. The
 * core's shares above and below its ground (the plane, else the densest of 64 layers along up)
 * must differ by more than 20% of their sum (at least 2% of the core); then a flat scene's up
 * points to the larger when its ground is seen around what stands on it (a quarter of the cells
 * of a 16 x 16 raster of the plane with fewer than two points just above: a doughnut's icing,
 * its densest layer, lies on the rest of it), another's when the ground is a base (within the
 * last tenth of the core's 5th..95th percentiles at one end). Else up points to -Y's side (+Z's,
 * then +X's, for an axis across y). The box: the core's 1st..99th percentiles along axes, the
 * horizontal ones those of the smallest such box (every 3 degrees). Deterministic. Returns 0, or
 * -1 (shape zeroed) when no position is finite or memory runs out. */
int splat_scene_shape_find(const float *positions, uint32_t count, splat_scene_shape *shape);
/* The same with up given (a cameras.json's, a command line's): only the axes and extents. Returns
 * -1 also for a zero or non-finite up. */
int splat_scene_shape_along(const float *positions, uint32_t count, const float up[3],
                            splat_scene_shape *shape);

/* The start view's elevation above the ground plane, degrees: a three-quarter view from above. */
#define SPLAT_START_ELEVATION 30.0f

/* A view of the box of `shape` from `elevation_deg` above its ground plane, looking at the box's
 * centre along `heading` made horizontal (NULL, or vertical: along the diagonal of axes[0] and
 * axes[1] nearest the yaw-0 direction of splat_up_basis, a three-quarter view), from the nearest
 * distance that puts all eight corners inside the image of `fovy_deg` and width/height (within
 * 90% of each half) and at least 0.25 deep (splats nearer than 0.2 are culled). Sets eye and
 * target (build the camera with up = shape->up). Returns 0, or -1 for a bad box, size, field of
 * view or elevation (not in (-89, 89)). */
int splat_shape_view(const splat_scene_shape *shape, const float heading[3], float elevation_deg, float fovy_deg,
                     uint32_t width, uint32_t height, float eye[3], float target[3]);

/* ---- interactive controllers (viewer) ----------------------------------------------- */

/* The named up axes (the viewer's U key cycles them). 3DGS scenes come from COLMAP, whose
 * world y usually points down, hence -Y first. */
typedef enum splat_up_axis {
  SPLAT_UP_NEG_Y = 0,
  SPLAT_UP_POS_Y = 1,
  SPLAT_UP_POS_Z = 2,
} splat_up_axis;

/* The unit vector of a named up axis. */
void splat_up_axis_vector(splat_up_axis axis, float up[3]);

/* The controllers take any world direction as up (a scene's own, splat_scene_shape_find). Unit
 * world vectors for it: `unit_up` (up normalised), and the horizontal `ahead` (yaw 0) and
 * `right` (yaw +90 degrees) directions: right is world +x made perpendicular to up (+y when
 * up is within 26 degrees of the x axis), ahead = up x right, so right = ahead x up. For the
 * named axes this gives -Y: ahead +z; +Y: ahead -z; +Z: ahead +y, right +x in all three.
 * A zero or non-finite up is taken as -Y. Any output may be NULL. */
void splat_up_basis(const float up[3], float unit_up[3], float ahead[3], float right[3]);

/* Yaw/pitch of a view direction relative to an up vector (radians): forward =
 * cos(pitch) (cos(yaw) ahead + sin(yaw) right) + sin(pitch) up. Pitch is clamped to
 * +-SPLAT_PITCH_LIMIT so the view never reaches a pole (no flip). */
#define SPLAT_PITCH_LIMIT 1.5533430f /* 89 degrees */
void splat_forward_from_angles(const float up[3], float yaw, float pitch, float forward[3]);
void splat_angles_from_forward(const float up[3], const float forward[3], float *yaw, float *pitch);

/* Orbit around `target` at `distance`; the eye is target - distance * forward. */
typedef struct splat_orbit {
  float target[3];
  float distance;
  float yaw, pitch;          /* radians, see splat_forward_from_angles */
  float up[3];               /* unit world up */
  float min_distance, max_distance;
  float rotate_speed;        /* radians per pixel of mouse motion */
  float zoom_step;           /* distance factor per wheel step, in (0,1) */
} splat_orbit;

/* Defaults: yaw = pitch = 0, distance limits [1e-3, 1e6], 0.005 rad/pixel, 0.9 per step; `up`
 * normalised (splat_up_basis). */
void splat_orbit_init(splat_orbit *o, const float target[3], float distance, const float up[3]);
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
/* Changes the up vector keeping target, distance and (as far as the pitch limit allows)
 * the view direction. */
void splat_orbit_set_up(splat_orbit *o, const float up[3]);
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
  float up[3];               /* unit world up */
  float speed;               /* world units per second */
  float fast_multiplier;
  float look_speed;          /* radians per pixel */
} splat_fly;

/* Defaults: yaw = pitch = 0, speed 1, fast x4, 0.003 rad/pixel; `up` normalised. */
void splat_fly_init(splat_fly *f, const float position[3], const float up[3]);
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
 * yaw, pitch and up vector (f's speed settings are kept); the orbit takes the fly camera's
 * yaw, pitch and up vector with its target `distance` ahead (clamped to the orbit's limits;
 * o's speed settings are kept). */
void splat_fly_from_orbit(splat_fly *f, const splat_orbit *o);
void splat_orbit_from_fly(splat_orbit *o, const splat_fly *f, float distance);

/* ---- cameras.json (read by the scene library: splat_cameras_load in splat_scene.h) ---------- */

/* The capture's up from a cameras.json's cameras (scene_shape.c): the mean of their up
 * directions (minus each camera's y axis), normalised. Returns 0, or -1 when there is no camera
 * or they disagree (the mean's length is below half: cameras rolled every which way). */
int splat_cameras_up(const splat_camera_desc *cams, uint32_t count, float up[3]);

#ifdef __cplusplus
}
#endif
#endif
