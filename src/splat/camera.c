/* camera.c: pinhole camera construction (look-at, a pose) and the Vulkan projection matrix.
 * Plain C maths. */
#include "camera.h"
#include "vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI_F 3.14159265358979323846f

/* Writes the view matrix whose rotation rows are the camera axes (right, down, forward)
 * and whose translation is -R * eye. Column-major: view[col*4 + row]. */
static void set_view(splat_camera *cam, const float right[3], const float down[3],
                     const float fwd[3], const float eye[3]) {
  const float *rows[3] = {right, down, fwd};
  memset(cam->view, 0, sizeof cam->view);
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) cam->view[c * 4 + r] = rows[r][c];
    cam->view[12 + r] = -dot3(rows[r], eye);
  }
  cam->view[15] = 1.0f;
  memcpy(cam->position, eye, sizeof cam->position);
}

/* A centred pinhole camera from its axes, eye and focal lengths in pixels. */
static void centred(splat_camera *cam, const float right[3], const float down[3], const float fwd[3],
                    const float eye[3], float fx, float fy, uint32_t width, uint32_t height) {
  splat_camera c;
  set_view(&c, right, down, fwd, eye);
  c.width = width;
  c.height = height;
  c.fx = fx;
  c.fy = fy;
  c.cx = 0.5f * (float)width;
  c.cy = 0.5f * (float)height;
  *cam = c;
}

void splat_camera_from_axes(splat_camera *cam, const float right[3], const float down[3], const float fwd[3],
                            const float eye[3], float fovy_deg, uint32_t width, uint32_t height) {
  float f = (float)height / (2.0f * tanf(fovy_deg * (PI_F / 360.0f)));
  centred(cam, right, down, fwd, eye, f, f, width, height);
}

float splat_camera_tan_fovx(const splat_camera *cam) {
  return (float)cam->width / (2.0f * cam->fx);
}

float splat_camera_tan_fovy(const splat_camera *cam) {
  return (float)cam->height / (2.0f * cam->fy);
}

int splat_camera_look_at(splat_camera *cam, const float eye[3], const float target[3],
                         const float up[3], float fovy_deg, uint32_t width, uint32_t height) {
  if (!finite3(eye) || !finite3(target) || !finite3(up) || !isfinite(fovy_deg) ||
      !(fovy_deg > 0.0f && fovy_deg < 180.0f) || width == 0 || height == 0)
    return -1;
  float fwd[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
  float flen = length3(fwd);
  float ulen = length3(up);
  if (!(flen > 0.0f) || !(ulen > 0.0f) || !isfinite(flen)) return -1;
  for (int k = 0; k < 3; k++) fwd[k] /= flen;
  /* x right = forward x up (so that screen-up = -y_cam lies along `up`), y down = z x x. */
  float right[3];
  cross3(fwd, up, right);
  float rlen = length3(right);
  if (!(rlen > 1e-6f * ulen)) return -1;
  for (int k = 0; k < 3; k++) right[k] /= rlen;
  float down[3];
  cross3(fwd, right, down);
  splat_camera_from_axes(cam, right, down, fwd, eye, fovy_deg, width, height);
  return 0;
}

int splat_camera_from_pose(splat_camera *cam, const float position[3], const float *rotation,
                           float fx, float fy, uint32_t width, uint32_t height) {
  if (!finite3(position) || !finite3(rotation) || !finite3(rotation + 3) ||
      !finite3(rotation + 6) || !isfinite(fx) || !isfinite(fy) || !(fx > 0.0f) || !(fy > 0.0f) ||
      width == 0 || height == 0)
    return -1;
  /* rotation is camera-to-world with the camera axes as columns; world-to-camera is its
   * transpose, whose rows are those columns. */
  float axes[3][3];
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++) axes[k][j] = rotation[j * 3 + k];
  centred(cam, axes[0], axes[1], axes[2], position, fx, fy, width, height);
  return 0;
}

void splat_camera_axes(const splat_camera *cam, float right[3], float down[3], float forward[3]) {
  float *out[3] = {right, down, forward};
  for (int r = 0; r < 3; r++) {
    if (!out[r]) continue;
    for (int c = 0; c < 3; c++) out[r][c] = cam->view[c * 4 + r];
  }
}

void splat_camera_projection(const splat_camera *cam, float znear, float zfar, float proj[16],
                             float view_proj[16]) {
  float w = (float)cam->width, h = (float)cam->height;
  float p[16] = {0};
  /* ndc.x = (fx x/z + cx) * 2/w - 1, likewise y: pixel (0,0)'s corner is NDC (-1,-1). */
  p[0 * 4 + 0] = 2.0f * cam->fx / w;
  p[2 * 4 + 0] = 2.0f * cam->cx / w - 1.0f;
  p[1 * 4 + 1] = 2.0f * cam->fy / h;
  p[2 * 4 + 1] = 2.0f * cam->cy / h - 1.0f;
  /* depth = (z - n) f / (z (f - n)): 0 at the near plane, 1 at the far plane. */
  p[2 * 4 + 2] = zfar / (zfar - znear);
  p[3 * 4 + 2] = -zfar * znear / (zfar - znear);
  p[2 * 4 + 3] = 1.0f;
  if (view_proj) {
    float vp[16];
    for (int c = 0; c < 4; c++)
      for (int r = 0; r < 4; r++) {
        float s = 0.0f;
        for (int k = 0; k < 4; k++) s += p[k * 4 + r] * cam->view[c * 4 + k];
        vp[c * 4 + r] = s;
      }
    memcpy(view_proj, vp, sizeof vp);
  }
  memcpy(proj, p, sizeof p);
}

