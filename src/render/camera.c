/* camera.c: pinhole camera construction (look-at, a pose) and the Vulkan projection matrix,
 * with cglm (column-major like GLSL and splat_camera.view). */
#include "splat_camera.h"

#include <cglm/cglm.h>

#include <math.h>
#include <string.h>

/* A copy of a caller's const vector: cglm takes non-const arrays. */
#define VEC3(p) {(p)[0], (p)[1], (p)[2]}

/* view = [W | -W eye] for the world-to-camera rotation W, whose rows are the camera's right,
 * down and forward axes in world space. */
static void set_view(splat_camera *cam, mat3 W, vec3 eye) {
  mat4 v = GLM_MAT4_IDENTITY_INIT;
  vec3 t;
  glm_mat4_ins3(W, v);
  glm_mat3_mulv(W, eye, t);
  glm_vec3_negate_to(t, v[3]);
  memcpy(cam->view, v, sizeof cam->view);
  glm_vec3_copy(eye, cam->position);
}

/* A centred pinhole camera for W and eye (as set_view) and focal lengths in pixels. */
static void centred(splat_camera *cam, mat3 W, vec3 eye, float fx, float fy, uint32_t width, uint32_t height) {
  splat_camera c;
  set_view(&c, W, eye);
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
  mat3 W;
  for (int c = 0; c < 3; c++) {
    W[c][0] = right[c];
    W[c][1] = down[c];
    W[c][2] = fwd[c];
  }
  vec3 e = VEC3(eye);
  float f = (float)height / (2.0f * tanf(glm_rad(0.5f * fovy_deg)));
  centred(cam, W, e, f, f, width, height);
}

float splat_camera_tan_fovx(const splat_camera *cam) {
  return (float)cam->width / (2.0f * cam->fx);
}

float splat_camera_tan_fovy(const splat_camera *cam) {
  return (float)cam->height / (2.0f * cam->fy);
}

int splat_camera_look_at(splat_camera *cam, const float eye[3], const float target[3],
                         const float up[3], float fovy_deg, uint32_t width, uint32_t height) {
  vec3 e = VEC3(eye), t = VEC3(target), u = VEC3(up), fwd, right, down;
  if (!glm_vec3_isvalid(e) || !glm_vec3_isvalid(t) || !glm_vec3_isvalid(u) || !isfinite(fovy_deg) ||
      !(fovy_deg > 0.0f && fovy_deg < 180.0f) || width == 0 || height == 0)
    return -1;
  glm_vec3_sub(t, e, fwd);
  float flen = glm_vec3_norm(fwd), ulen = glm_vec3_norm(u);
  if (!(flen > 0.0f) || !(ulen > 0.0f) || !isfinite(flen)) return -1;
  glm_vec3_divs(fwd, flen, fwd);
  /* x right = forward x up (so that screen-up = -y_cam lies along `up`), y down = z x x. */
  glm_vec3_cross(fwd, u, right);
  float rlen = glm_vec3_norm(right);
  if (!(rlen > 1e-6f * ulen)) return -1;
  glm_vec3_divs(right, rlen, right);
  glm_vec3_cross(fwd, right, down);
  splat_camera_from_axes(cam, right, down, fwd, e, fovy_deg, width, height);
  return 0;
}

int splat_camera_from_pose(splat_camera *cam, const float position[3], const float *rotation,
                           float fx, float fy, uint32_t width, uint32_t height) {
  /* rotation is the camera-to-world R, row-major; read as column-major it is R^T, the
   * world-to-camera rotation, whose rows are R's columns: the camera axes. */
  mat3 W;
  memcpy(W, rotation, sizeof W);
  vec3 p = VEC3(position);
  if (!glm_vec3_isvalid(p) || !glm_vec3_isvalid(W[0]) || !glm_vec3_isvalid(W[1]) || !glm_vec3_isvalid(W[2]) ||
      !isfinite(fx) || !isfinite(fy) || !(fx > 0.0f) || !(fy > 0.0f) || width == 0 || height == 0)
    return -1;
  centred(cam, W, p, fx, fy, width, height);
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
  mat4 p = GLM_MAT4_ZERO_INIT; /* p[column][row] */
  /* ndc.x = (fx x/z + cx) * 2/w - 1, likewise y: pixel (0,0)'s corner is NDC (-1,-1). */
  p[0][0] = 2.0f * cam->fx / w;
  p[2][0] = 2.0f * cam->cx / w - 1.0f;
  p[1][1] = 2.0f * cam->fy / h;
  p[2][1] = 2.0f * cam->cy / h - 1.0f;
  /* depth = (z - n) f / (z (f - n)): 0 at the near plane, 1 at the far plane. */
  p[2][2] = zfar / (zfar - znear);
  p[3][2] = -zfar * znear / (zfar - znear);
  p[2][3] = 1.0f;
  if (view_proj) {
    mat4 v, vp;
    memcpy(v, cam->view, sizeof v);
    glm_mat4_mul(p, v, vp);
    memcpy(view_proj, vp, sizeof vp);
  }
  memcpy(proj, p, sizeof p);
}

int splat_camera_from_desc(splat_camera *cam, const splat_camera_desc *desc, uint32_t width, uint32_t height) {
  if (width == 0 && height == 0) {
    width = desc->width;
    height = desc->height;
  }
  if (width == 0 || height == 0 || desc->width == 0 || desc->height == 0) return -1;
  /* In double: fx * width overflowed float for a focal length the parser accepts (above
   * FLT_MAX / 65536), and at the entry's own size this gives fx back exactly. */
  float fx = (float)((double)desc->fx * width / desc->width);
  float fy = (float)((double)desc->fy * height / desc->height);
  return splat_camera_from_pose(cam, desc->position, &desc->rotation[0][0], fx, fy, width, height);
}
