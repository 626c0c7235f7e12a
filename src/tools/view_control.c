/* view_control.c: framing a scene (robust bounds, fit distance) and the orbit/fly
 * controllers of the viewer; vector maths with cglm. */
#include "view_control.h"
#include "tools_internal.h"

#include <cglm/cglm.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A copy of a caller's const vector: cglm takes non-const arrays. */
#define VEC3(p) {(p)[0], (p)[1], (p)[2]}

/* ---- robust bounds ------------------------------------------------------------------ */

static void swapf(float *a, float *b) {
  float t = *a;
  *a = *b;
  *b = t;
}

/* tools_internal.h: the k-th smallest, in place. */
float splat_select_kth(float *v, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    float a = v[lo], b = v[mid], c = v[hi];
    float pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    /* [lo, lt) < pivot, [lt, i) == pivot, (gt, hi] > pivot. */
    size_t lt = lo, i = lo, gt = hi;
    while (i <= gt) {
      if (v[i] < pivot) {
        swapf(&v[lt++], &v[i++]);
      } else if (v[i] > pivot) {
        swapf(&v[i], &v[gt]);
        gt--; /* cannot wrap: an element equal to the pivot lies at or below gt */
      } else {
        i++;
      }
    }
    if (k < lt)
      hi = lt - 1;
    else if (k > gt)
      lo = gt + 1;
    else
      return pivot;
  }
  return v[k];
}

int splat_scene_robust_bounds(const float *positions, uint32_t count, float lo[3], float hi[3]) {
  for (int a = 0; a < 3; a++) lo[a] = hi[a] = 0.0f;
  if (count == 0 || !positions) return -1;
  /* every stride-th point: all of them up to SPLAT_ROBUST_BOUNDS_SAMPLE */
  uint32_t stride = (uint32_t)(((uint64_t)count + SPLAT_ROBUST_BOUNDS_SAMPLE - 1) / SPLAT_ROBUST_BOUNDS_SAMPLE);
  size_t cap = (size_t)(count + (uint64_t)stride - 1) / stride;
  float *v = malloc(cap * 3 * sizeof *v);
  if (!v) return -1;
  size_t n = 0;
  for (uint64_t i = 0; i < count; i += stride) {
    const float *p = positions + (size_t)i * 3;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
    for (int a = 0; a < 3; a++) v[a * cap + n] = p[a];
    n++;
  }
  if (n == 0) {
    free(v);
    return -1;
  }
  size_t klo = (size_t)floor(0.02 * (double)(n - 1)), khi = (size_t)ceil(0.98 * (double)(n - 1));
  for (int a = 0; a < 3; a++) {
    lo[a] = splat_select_kth(v + a * cap, n, klo);
    hi[a] = splat_select_kth(v + a * cap, n, khi);
  }
  free(v);
  return 0;
}

/* ---- framing -------------------------------------------------------------------------- */

float splat_camera_fit_distance(float radius, float fovy_deg, uint32_t width, uint32_t height) {
  float tan_y = tanf(glm_rad(0.5f * fovy_deg));
  float tan_x = tan_y * (float)width / (float)height;
  float half = atanf(fminf(tan_x, tan_y));
  /* A sphere of radius r seen from distance d subtends asin(r/d): it fits when
   * d >= r / sin(half-angle). */
  float d = 1.05f * radius / sinf(half);
  return fmaxf(d, radius + 0.25f);
}

static int box_ok(vec3 lo, vec3 hi) {
  return glm_vec3_isvalid(lo) && glm_vec3_isvalid(hi) && lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2];
}

int splat_camera_frame_bounds(splat_camera *cam, const float bmin[3], const float bmax[3],
                              const float up[3], uint32_t width, uint32_t height, float fovy_deg) {
  vec3 lo = VEC3(bmin), hi = VEC3(bmax), u = VEC3(up);
  if (!box_ok(lo, hi) || !glm_vec3_isvalid(u) || width == 0 || height == 0 ||
      !(fovy_deg > 0.0f && fovy_deg < 180.0f))
    return -1;
  float ulen = glm_vec3_norm(u);
  if (!(ulen > 0.0f)) return -1;
  glm_vec3_divs(u, ulen, u);
  /* View direction: the world +z (or +y) with its component along `up` removed. */
  vec3 fwd = {-u[2] * u[0], -u[2] * u[1], 1.0f - u[2] * u[2]};
  if (glm_vec3_norm(fwd) < 0.1f) {
    fwd[0] = -u[1] * u[0];
    fwd[1] = 1.0f - u[1] * u[1];
    fwd[2] = -u[1] * u[2];
  }
  glm_vec3_normalize(fwd);
  vec3 centre, eye;
  glm_vec3_center(lo, hi, centre);
  float d = splat_camera_fit_distance(0.5f * glm_vec3_distance(lo, hi), fovy_deg, width, height);
  glm_vec3_scale(fwd, -d, eye);
  glm_vec3_add(centre, eye, eye);
  return splat_camera_look_at(cam, eye, centre, u, fovy_deg, width, height);
}

/* ---- controllers ------------------------------------------------------------------------ */

void splat_up_axis_vector(splat_up_axis axis, float up[3]) {
  up[0] = up[2] = 0.0f;
  up[1] = -1.0f;
  if (axis == SPLAT_UP_POS_Y) up[1] = 1.0f;
  if (axis == SPLAT_UP_POS_Z) up[1] = 0.0f, up[2] = 1.0f;
}

void splat_up_basis(const float up[3], float unit_up[3], float ahead[3], float right[3]) {
  /* right = ahead x up, so yaw 0 / pitch 0 gives a right-handed (right, down, forward)
   * frame; -Y up, looking +z is the identity camera (COLMAP). The named axes come out
   * exactly (their components are 0 and +-1). */
  vec3 u = VEC3(up), r = {1.0f, 0.0f, 0.0f}, a;
  float len = glm_vec3_norm(u);
  if (!(len > 0.0f) || !isfinite(len)) {
    glm_vec3_zero(u);
    u[1] = -1.0f;
  } else {
    glm_vec3_divs(u, len, u);
  }
  if (fabsf(u[0]) > 0.9f) r[0] = 0.0f, r[1] = 1.0f;
  glm_vec3_muladds(u, -glm_vec3_dot(r, u), r); /* r -= (r.u) u */
  glm_vec3_normalize(r);
  glm_vec3_cross(u, r, a);
  if (unit_up) memcpy(unit_up, u, 3 * sizeof(float));
  if (ahead) memcpy(ahead, a, 3 * sizeof(float));
  if (right) memcpy(right, r, 3 * sizeof(float));
}

static float clamp_pitch(float p) {
  if (!(p > -SPLAT_PITCH_LIMIT)) return -SPLAT_PITCH_LIMIT;
  if (!(p < SPLAT_PITCH_LIMIT)) return SPLAT_PITCH_LIMIT;
  return p;
}

/* Keeps yaw in (-pi, pi] so it never loses precision after long spinning. */
static float wrap_angle(float a) {
  if (!isfinite(a)) return 0.0f;
  a = fmodf(a, 2.0f * GLM_PIf);
  if (a > GLM_PIf) a -= 2.0f * GLM_PIf;
  if (a <= -GLM_PIf) a += 2.0f * GLM_PIf;
  return a;
}

void splat_forward_from_angles(const float up[3], float yaw, float pitch, float forward[3]) {
  float u[3], a[3], r[3];
  splat_up_basis(up, u, a, r);
  float cp = cosf(pitch), sp = sinf(pitch), cy = cosf(yaw), sy = sinf(yaw);
  for (int k = 0; k < 3; k++) forward[k] = cp * (cy * a[k] + sy * r[k]) + sp * u[k];
}

void splat_angles_from_forward(const float up[3], const float forward[3], float *yaw, float *pitch) {
  vec3 u, a, r, f = VEC3(forward);
  splat_up_basis(up, u, a, r);
  float len = glm_vec3_norm(f);
  if (!(len > 0.0f) || !isfinite(len)) {
    *yaw = 0.0f;
    *pitch = 0.0f;
    return;
  }
  float s = glm_vec3_dot(f, u) / len;
  s = fmaxf(-1.0f, fminf(1.0f, s));
  float y = glm_vec3_dot(f, r), x = glm_vec3_dot(f, a);
  *yaw = (x == 0.0f && y == 0.0f) ? 0.0f : atan2f(y, x);
  *pitch = clamp_pitch(asinf(s));
}

void splat_orbit_init(splat_orbit *o, const float target[3], float distance, const float up[3]) {
  memset(o, 0, sizeof *o);
  memcpy(o->target, target, sizeof o->target);
  splat_up_basis(up, o->up, NULL, NULL);
  o->min_distance = 1e-3f;
  o->max_distance = 1e6f;
  o->distance = fmaxf(o->min_distance, fminf(o->max_distance, distance));
  if (!isfinite(o->distance)) o->distance = 1.0f;
  o->rotate_speed = 0.005f;
  o->zoom_step = 0.9f;
}

int splat_orbit_look(splat_orbit *o, const float eye[3], const float target[3]) {
  vec3 e = VEC3(eye), t = VEC3(target), f;
  glm_vec3_sub(t, e, f);
  float d = glm_vec3_norm(f);
  if (!(d > 0.0f) || !isfinite(d) || !glm_vec3_isvalid(t)) return -1;
  splat_angles_from_forward(o->up, f, &o->yaw, &o->pitch);
  memcpy(o->target, target, sizeof o->target);
  o->distance = d;
  if (d < o->min_distance) o->min_distance = d;
  if (d > o->max_distance) o->max_distance = d;
  return 0;
}

void splat_orbit_rotate(splat_orbit *o, float dx, float dy) {
  /* Yaw towards the right moves the eye left: the scene's near side follows the mouse. */
  o->yaw = wrap_angle(o->yaw + dx * o->rotate_speed);
  o->pitch = clamp_pitch(o->pitch - dy * o->rotate_speed);
}

void splat_orbit_eye(const splat_orbit *o, float eye[3]) {
  vec3 f, t = VEC3(o->target);
  splat_forward_from_angles(o->up, o->yaw, o->pitch, f);
  glm_vec3_scale(f, -o->distance, f);
  glm_vec3_add(t, f, eye);
}

/* Camera axes (right, down) for yaw/pitch: the same as splat_camera_look_at builds. */
static void view_axes(const float up[3], float yaw, float pitch, vec3 right, vec3 down, vec3 fwd) {
  vec3 u;
  splat_up_basis(up, u, NULL, NULL);
  splat_forward_from_angles(up, yaw, pitch, fwd);
  glm_vec3_cross(fwd, u, right);
  glm_vec3_divs(right, glm_vec3_norm(right), right);
  glm_vec3_cross(fwd, right, down);
}

void splat_orbit_pan(splat_orbit *o, float dx, float dy, float fy) {
  if (!(fy > 0.0f)) return;
  vec3 right, down, fwd;
  view_axes(o->up, o->yaw, o->pitch, right, down, fwd);
  /* At depth `distance` one pixel spans distance/fy world units. Dragging right moves the
   * scene right, i.e. the camera (and target) left; likewise for y. */
  float k = o->distance / fy;
  for (int c = 0; c < 3; c++) o->target[c] -= k * (dx * right[c] + dy * down[c]);
}

void splat_orbit_zoom(splat_orbit *o, float steps) {
  float d = o->distance * powf(o->zoom_step, steps);
  if (isnan(d)) d = o->distance; /* +-inf clamp to the limits below */
  o->distance = fmaxf(o->min_distance, fminf(o->max_distance, d));
}

void splat_orbit_set_up(splat_orbit *o, const float up[3]) {
  float f[3];
  splat_forward_from_angles(o->up, o->yaw, o->pitch, f);
  splat_up_basis(up, o->up, NULL, NULL);
  splat_angles_from_forward(o->up, f, &o->yaw, &o->pitch);
}

/* Camera at `eye` looking along yaw/pitch: both controllers build their camera here, so
 * switching between them gives exactly the same matrix. */
static int camera_from_angles(splat_camera *cam, const float eye[3], const float up[3],
                              float yaw, float pitch, float fovy_deg, uint32_t width,
                              uint32_t height) {
  vec3 e = VEC3(eye), right, down, fwd;
  if (!glm_vec3_isvalid(e) || !isfinite(yaw) || !isfinite(pitch) || width == 0 || height == 0 ||
      !(fovy_deg > 0.0f && fovy_deg < 180.0f))
    return -1;
  view_axes(up, yaw, clamp_pitch(pitch), right, down, fwd);
  splat_camera_from_axes(cam, right, down, fwd, eye, fovy_deg, width, height);
  return 0;
}

int splat_orbit_camera(const splat_orbit *o, float fovy_deg, uint32_t width, uint32_t height,
                       splat_camera *cam) {
  float eye[3];
  splat_orbit_eye(o, eye);
  return camera_from_angles(cam, eye, o->up, o->yaw, o->pitch, fovy_deg, width, height);
}

int splat_orbit_frame_bounds(splat_orbit *o, const float bmin[3], const float bmax[3],
                             float fovy_deg, uint32_t width, uint32_t height) {
  vec3 lo = VEC3(bmin), hi = VEC3(bmax);
  if (!box_ok(lo, hi) || width == 0 || height == 0 || !(fovy_deg > 0.0f && fovy_deg < 180.0f)) return -1;
  float d = splat_camera_fit_distance(0.5f * glm_vec3_distance(lo, hi), fovy_deg, width, height);
  if (!isfinite(d)) return -1;
  glm_vec3_center(lo, hi, o->target);
  o->distance = d;
  if (d < o->min_distance) o->min_distance = d;
  if (d > o->max_distance) o->max_distance = d;
  return 0;
}

void splat_fly_init(splat_fly *f, const float position[3], const float up[3]) {
  memset(f, 0, sizeof *f);
  memcpy(f->position, position, sizeof f->position);
  splat_up_basis(up, f->up, NULL, NULL);
  f->speed = 1.0f;
  f->fast_multiplier = 4.0f;
  f->look_speed = 0.003f;
}

void splat_fly_forward(const splat_fly *f, float forward[3]) {
  splat_forward_from_angles(f->up, f->yaw, f->pitch, forward);
}

void splat_fly_step(splat_fly *f, uint32_t keys, float dt) {
  vec3 right, down, fwd, m = GLM_VEC3_ZERO_INIT;
  view_axes(f->up, f->yaw, f->pitch, right, down, fwd);
  float sf = (float)(!!(keys & SPLAT_FLY_FORWARD) - !!(keys & SPLAT_FLY_BACK));
  float sr = (float)(!!(keys & SPLAT_FLY_RIGHT) - !!(keys & SPLAT_FLY_LEFT));
  float sd = (float)(!!(keys & SPLAT_FLY_DOWN) - !!(keys & SPLAT_FLY_UP));
  glm_vec3_muladds(fwd, sf, m);
  glm_vec3_muladds(right, sr, m);
  glm_vec3_muladds(down, sd, m);
  float len = glm_vec3_norm(m);
  if (!(len > 0.0f)) return;
  float step = f->speed * dt * ((keys & SPLAT_FLY_FAST) ? f->fast_multiplier : 1.0f);
  if (!isfinite(step)) return;
  glm_vec3_muladds(m, step / len, f->position);
}

void splat_fly_look(splat_fly *f, float dx, float dy) {
  f->yaw = wrap_angle(f->yaw + dx * f->look_speed);
  f->pitch = clamp_pitch(f->pitch - dy * f->look_speed);
}

int splat_fly_camera(const splat_fly *f, float fovy_deg, uint32_t width, uint32_t height,
                     splat_camera *cam) {
  return camera_from_angles(cam, f->position, f->up, f->yaw, f->pitch, fovy_deg, width, height);
}

void splat_fly_from_orbit(splat_fly *f, const splat_orbit *o) {
  splat_orbit_eye(o, f->position);
  f->yaw = o->yaw;
  f->pitch = o->pitch;
  memcpy(f->up, o->up, sizeof f->up);
}

void splat_orbit_from_fly(splat_orbit *o, const splat_fly *f, float distance) {
  vec3 fwd, p = VEC3(f->position);
  splat_fly_forward(f, fwd);
  float d = fmaxf(o->min_distance, fminf(o->max_distance, distance));
  if (!isfinite(d)) d = 1.0f;
  glm_vec3_scale(fwd, d, fwd);
  glm_vec3_add(p, fwd, o->target);
  o->distance = d;
  o->yaw = f->yaw;
  o->pitch = f->pitch;
  memcpy(o->up, f->up, sizeof o->up);
}
