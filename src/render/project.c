/* project.c: the CPU projection of a splat (see splat_project.h), step for step the reference
 * 3DGS preprocess in 32-bit float. The GPU shader mirrors this file; keep them in step. The
 * matrix steps use cglm, column-major like GLSL, so they read as the shader's lines do. */
#include "splat_project.h"
#include "pair_estimate.h"
#include "splat_shared.h"

#include <cglm/cglm.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reference SH basis constants (diff-gaussian-rasterization, auxiliary.h). */
static const float SH_C0 = 0.28209479177387814f;
static const float SH_C1 = 0.4886025119029199f;
static const float SH_C2[5] = {1.0925484305920792f, -1.0925484305920792f, 0.31539156525252005f,
                               -1.0925484305920792f, 0.5462742152960396f};
static const float SH_C3[7] = {-0.5900435899266435f, 2.890611442640554f, -0.4570457994644658f,
                               0.3731763325901154f,  -0.4570457994644658f, 1.445305721320277f,
                               -0.5900435899266435f};

/* The rotation of a stored quaternion (w, x, y, z; cglm's versor is x, y, z, w). */
static void quat_rotation(const float rot[4], mat3 R) {
  versor q = {rot[1], rot[2], rot[3], rot[0]};
  glm_quat_mat3(q, R);
}

/* p_view = view * (pos, 1), written out rather than glm_mat4_mulv, whose SSE path adds the
 * terms in another order: z must be the shader's bit for bit (its `precise` sum in this order,
 * no fused multiply-add), since the depth keys are compared exactly (splat_depth_key). */
static void view_point(const float *v, const float *pos, float t[3]) {
  t[0] = v[0] * pos[0] + v[4] * pos[1] + v[8] * pos[2] + v[12];
  t[1] = v[1] * pos[0] + v[5] * pos[1] + v[9] * pos[2] + v[13];
  t[2] = v[2] * pos[0] + v[6] * pos[1] + v[10] * pos[2] + v[14];
}

void splat_cov3d(const float scale[3], const float rot[4], float cov[6]) {
  /* R: the rotation of the quaternion (stored w, x, y, z; cglm's versor is x, y, z, w). It
   * takes the splat's local axes to world, so a splat long along local x is long along R's
   * first column in world space. The reference writes the same nine values into glm::mat3(...),
   * which fills columns, i.e. R^T, and forms (S R^T)^T (S R^T): the same R S^2 R^T. */
  mat3 R, M, Mt, sigma;
  quat_rotation(rot, R);
  /* M = R S (columns scaled); Sigma = M M^T. scale_modifier is 1. */
  for (int c = 0; c < 3; c++) glm_vec3_scale(R[c], scale[c], M[c]);
  glm_mat3_transpose_to(M, Mt);
  glm_mat3_mul(M, Mt, sigma);
  cov[0] = sigma[0][0];
  cov[1] = sigma[1][0];
  cov[2] = sigma[2][0];
  cov[3] = sigma[1][1];
  cov[4] = sigma[2][1];
  cov[5] = sigma[2][2];
}

void splat_sh_color(int degree, const float *sh, const float dir[3], float rgb[3]) {
  float x = dir[0], y = dir[1], z = dir[2];
  float xx = x * x, yy = y * y, zz = z * z, xy = x * y, yz = y * z, xz = x * z;
  for (int c = 0; c < 3; c++) {
    /* The reference's term order and signs (computeColorFromSH). */
    float v = SH_C0 * sh[0 * 3 + c];
    if (degree > 0) {
      v = v - SH_C1 * y * sh[1 * 3 + c] + SH_C1 * z * sh[2 * 3 + c] - SH_C1 * x * sh[3 * 3 + c];
      if (degree > 1) {
        v = v + SH_C2[0] * xy * sh[4 * 3 + c] + SH_C2[1] * yz * sh[5 * 3 + c] +
            SH_C2[2] * (2.0f * zz - xx - yy) * sh[6 * 3 + c] + SH_C2[3] * xz * sh[7 * 3 + c] +
            SH_C2[4] * (xx - yy) * sh[8 * 3 + c];
        if (degree > 2) {
          v = v + SH_C3[0] * y * (3.0f * xx - yy) * sh[9 * 3 + c] +
              SH_C3[1] * xy * z * sh[10 * 3 + c] +
              SH_C3[2] * y * (4.0f * zz - xx - yy) * sh[11 * 3 + c] +
              SH_C3[3] * z * (2.0f * zz - 3.0f * xx - 3.0f * yy) * sh[12 * 3 + c] +
              SH_C3[4] * x * (4.0f * zz - xx - yy) * sh[13 * 3 + c] +
              SH_C3[5] * z * (xx - yy) * sh[14 * 3 + c] +
              SH_C3[6] * x * (xx - 3.0f * yy) * sh[15 * 3 + c];
        }
      }
    }
    /* +0.5, then clamp below only (the reference's max(result, 0)); the blended pixel
     * is clamped to [0,1] when written out. */
    v += 0.5f;
    rgb[c] = v > 0.0f ? v : 0.0f;
  }
}

uint32_t splat_depth_key(float view_z) {
  uint32_t bits;
  memcpy(&bits, &view_z, sizeof bits);
  return ~bits;
}

/* cov2D = J W Sigma W^T J^T, before the dilation, for a mean at camera depth tz whose x, y (for
 * the Jacobian) are jx, jy; cov = (xx, xy, yy). The shader's expression, matrix for matrix. */
static void ewa_cov2d(const splat_camera *cam, float tz, float jx, float jy, const float c3[6], float cov[3]) {
  mat3 J = {{cam->fx / tz, 0.0f, 0.0f},                                      /* column 0 */
            {0.0f, cam->fy / tz, 0.0f},                                      /* column 1 */
            {-(cam->fx * jx) / (tz * tz), -(cam->fy * jy) / (tz * tz), 0.0f}}; /* column 2 */
  mat3 Vrk = {{c3[0], c3[1], c3[2]}, {c3[1], c3[3], c3[4]}, {c3[2], c3[4], c3[5]}};
  mat4 view;
  mat3 W, T, TV, Tt, C;
  memcpy(view, cam->view, sizeof view);
  glm_mat4_pick3(view, W); /* the view's rotation */
  glm_mat3_mul(J, W, T);
  glm_mat3_mul(T, Vrk, TV);
  glm_mat3_transpose_to(T, Tt);
  glm_mat3_mul(TV, Tt, C);
  cov[0] = C[0][0];
  cov[1] = C[0][1];
  cov[2] = C[1][1];
}

/* View-dependent colour from SH, direction from the camera centre. */
static void view_color(const splat_scene *s, uint32_t i, const splat_camera *cam, int sh_degree_max, float rgb[3]) {
  const float *pos = s->positions + (size_t)i * 3;
  vec3 p = {pos[0], pos[1], pos[2]}, c = {cam->position[0], cam->position[1], cam->position[2]}, dir;
  glm_vec3_sub(p, c, dir);
  glm_vec3_normalize(dir);
  int deg = sh_degree_max < 0 ? 0 : sh_degree_max;
  if ((uint32_t)deg > s->sh_degree) deg = (int)s->sh_degree;
  splat_sh_color(deg, s->sh + (size_t)i * s->sh_coeffs * 3, dir, rgb);
}

/* Steps 1-5 and 7 of splat_project (all but the colour) for a splat at `pos` with activated
 * `opacity` and, given, its 3D covariance `cov3d`, else its `scale` and `rot` (the covariance is
 * then made only once the culls have passed). out->color is left to the caller. */
static int footprint(const splat_camera *cam, const float *pos, float opacity, int antialiased, const float *scale,
                     const float *rot, const float *cov3d, splat_projected *out) {
  const float *v = cam->view; /* column-major: v[col*4 + row] */

  /* Step 1: camera space and culling.
   * p_view = view * (pos, 1). The reference culls z <= 0.2 (in_frustum). It does not cull
   * on x/y; we also cull centres outside the frustum widened by the same 1.3 factor it uses
   * to clamp J below, as most real-time splat renderers do: beyond it the EWA Jacobian is
   * clamped anyway, and such splats would cost a sort slot each. A splat that reaches into
   * the image from beyond 1.3 tan_fov is therefore dropped (the reference would draw it).
   * Opacity below 1/255 can never pass the per-pixel alpha test, so it is culled here. */
  float t[3];
  view_point(v, pos, t);
  float tx = t[0], ty = t[1], tz = t[2];
  if (!(tz > SPLAT_NEAR_Z)) return 0; /* also catches NaN */
  float tan_fovx = (float)cam->width / (2.0f * cam->fx);
  float tan_fovy = (float)cam->height / (2.0f * cam->fy);
  float limx = SPLAT_FRUSTUM_MARGIN * tan_fovx;
  float limy = SPLAT_FRUSTUM_MARGIN * tan_fovy;
  float txtz = tx / tz, tytz = ty / tz;
  if (!(txtz >= -limx && txtz <= limx && tytz >= -limy && tytz <= limy)) return 0;
  if (!(opacity >= SPLAT_MIN_ALPHA)) return 0;

  /* Step 2: 3D covariance Sigma = R S^2 R^T (computeCov3D). */
  float c3[6];
  if (cov3d)
    memcpy(c3, cov3d, sizeof c3);
  else
    splat_cov3d(scale, rot, c3);

  /* Step 3: 2D covariance by the EWA local affine approximation (computeCov2D).
   * The mean is clamped to the widened frustum for the Jacobian only (after the cull
   * above this changes nothing; it is kept so the shader can mirror it verbatim). */
  float jx = fminf(limx, fmaxf(-limx, txtz)) * tz;
  float jy = fminf(limy, fmaxf(-limy, tytz)) * tz;
  float cov[3];
  ewa_cov2d(cam, tz, jx, jy, c3, cov);
  /* The reference's +0.3 on the diagonal: a pixel-sized low-pass filter that also keeps the
   * matrix invertible. */
  float a = cov[0] + SPLAT_COV2D_DILATION, b = cov[1], c = cov[2] + SPLAT_COV2D_DILATION;

  /* Step 4: conic (inverse covariance) and radius. The reference returns on det == 0;
   * we also cull det < 0 and non-finite values (overflowing scales), which it cannot
   * draw sensibly either. lambda1 is the larger eigenvalue with the reference's floor of
   * 0.1 under the square root, radius = ceil(3 sigma) along the major axis. */
  float det = a * c - b * b;
  if (!(det > 0.0f) || !isfinite(det)) return 0;
  float det_inv = 1.0f / det;
  float conic0 = c * det_inv, conic1 = -b * det_inv, conic2 = a * det_inv;
  float mid = 0.5f * (a + c);
  float lambda1 = mid + sqrtf(fmaxf(SPLAT_EIGEN_FLOOR, mid * mid - det));
  float radius = ceilf(SPLAT_RADIUS_SIGMAS * sqrtf(lambda1));
  if (!isfinite(radius) || !isfinite(conic0) || !isfinite(conic1) || !isfinite(conic2)) return 0;

  /* Step 4b: anti-aliased scenes. The dilation widens a splat; a scene trained with it as a
   * filter keeps each splat's weight by scaling its opacity: gsplat's
   * rasterization(rasterize_mode="antialiased") multiplies the opacities by the compensations
   * of add_blur (gsplat/cuda/include/Utils.cuh): sqrt(max(0, det_orig / det_blur)), det_orig
   * taken before eps2d = 0.3 is added to the diagonal. Mip-splatting's rasterizer
   * (computeCov2D) and Brush's "mip" mode (compensate_cov2d) do the same with a 0.1 filter in
   * place of the 0.3 dilation; .spz and the PLY comments (scene.h) do not say which, and we
   * follow gsplat with the reference's 0.3. A flat splat (det 0) gets opacity 0 and is not
   * culled, so visibility does not depend on the flag; it then adds nothing at any pixel. */
  if (antialiased) opacity *= sqrtf(fmaxf(0.0f, (cov[0] * cov[2] - b * b) / det));

  /* Step 5: the mean in continuous pixel coordinates, from the UNclamped p_view. The
   * reference's ndc2Pix gives fx x/z + (W-1)/2 in pixel-index coordinates; adding 0.5
   * gives fx x/z + W/2 = fx x/z + cx for a centred camera. Cull when the footprint
   * square does not overlap the image. */
  float mx = cam->fx * txtz + cam->cx;
  float my = cam->fy * tytz + cam->cy;
  if (!(mx + radius > 0.0f && mx - radius < (float)cam->width && my + radius > 0.0f &&
        my - radius < (float)cam->height))
    return 0;

  /* Step 7: output (step 6, the colour, is the caller's); depth is camera-space z. */
  out->mean2d[0] = mx;
  out->mean2d[1] = my;
  out->conic[0] = conic0;
  out->conic[1] = conic1;
  out->conic[2] = conic2;
  out->radius = radius;
  out->opacity = opacity;
  out->depth = tz;
  out->cov2d[0] = a;
  out->cov2d[1] = b;
  out->cov2d[2] = c;
  return 1;
}

int splat_project(const splat_scene *s, uint32_t i, const splat_camera *cam, int sh_degree_max,
                  splat_projected *out) {
  if (i >= s->count) return 0;
  splat_projected p;
  if (!footprint(cam, s->positions + (size_t)i * 3, s->opacities[i], (s->flags & SPLAT_SCENE_ANTIALIASED) != 0,
                 s->scales + (size_t)i * 3, s->rotations + (size_t)i * 4, NULL, &p))
    return 0;
  /* Step 6: view-dependent colour. */
  view_color(s, i, cam, sh_degree_max, p.color);
  *out = p;
  return 1;
}

int render_project_footprint(const splat_camera *cam, const float pos[3], const float cov3d[6], float opacity,
                             int antialiased, splat_projected *out) {
  out->color[0] = out->color[1] = out->color[2] = 0.0f;
  return footprint(cam, pos, opacity, antialiased, NULL, NULL, cov3d, out);
}

/* ---- ray depth: where a pixel's ray meets the Gaussian's maximum (per-pixel ordering) ---- */

/* G = transpose(inverse(V)) = cofactor(V) / det(V). Returns 0 when V is singular or not finite. */
static int inverse_transpose(mat3 V, mat3 G) {
  /* cglm: V[c][r] is row r of column c; cofactor(r, c) from the other rows and columns. */
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) {
      int c1 = (c + 1) % 3, c2 = (c + 2) % 3, r1 = (r + 1) % 3, r2 = (r + 2) % 3;
      G[c][r] = V[c1][r1] * V[c2][r2] - V[c2][r1] * V[c1][r2];
    }
  float det = V[0][0] * G[0][0] + V[1][0] * G[1][0] + V[2][0] * G[2][0];
  if (!(det != 0.0f) || !isfinite(det)) return 0;
  float inv = 1.0f / det;
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) G[c][r] *= inv;
  return 1;
}

/* A = sum_k w_k M_k M_k^T, M = G R: the camera-space inverse covariance times smax^2, built
 * from the rotation and inverse squared scales so that a flat splat needs no matrix inverse.
 * Returns 0 (fallback) when a scale, V or A is unusable. */
static int ray_depth_matrix(const splat_scene *s, uint32_t i, const splat_camera *cam, mat3 A) {
  const float *sc = s->scales + (size_t)i * 3;
  float smax = fmaxf(sc[0], fmaxf(sc[1], sc[2]));
  if (!(smax > 0.0f) || !isfinite(smax)) return 0;
  float w[3];
  for (int k = 0; k < 3; k++) {
    float m = fmaxf(sc[k] / smax, 0x1p-20f); /* keeps a flat splat's A finite */
    w[k] = 1.0f / (m * m);
  }
  mat4 view;
  mat3 V, G, R, M;
  memcpy(view, cam->view, sizeof view);
  glm_mat4_pick3(view, V);
  if (!inverse_transpose(V, G)) return 0;
  quat_rotation(s->rotations + (size_t)i * 4, R);
  /* Sums written out in the shader's order (G * R in GLSL), not cglm's SSE order. */
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) M[c][r] = G[0][r] * R[c][0] + G[1][r] * R[c][1] + G[2][r] * R[c][2];
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) {
      A[c][r] = w[0] * M[0][r] * M[0][c] + w[1] * M[1][r] * M[1][c] + w[2] * M[2][r] * M[2][c];
      if (!isfinite(A[c][r])) return 0;
    }
  return A[2][2] > 0.0f;
}

void splat_project_ray_depth(const splat_scene *s, uint32_t i, const splat_camera *cam, splat_ray_depth *out) {
  float t[3];
  view_point(cam->view, s->positions + (size_t)i * 3, t);
  mat3 A;
  if (!ray_depth_matrix(s, i, cam, A)) {
    *out = (splat_ray_depth){.a00 = 1.0f, .a11 = 1.0f, .b = {t[0], t[1], t[2]}};
    return;
  }
  /* A22 = 1 changes nothing in the ratio N / D and keeps D's constant term exact. */
  float inv = 1.0f / A[2][2];
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) A[c][r] *= inv;
  for (int r = 0; r < 3; r++) out->b[r] = A[0][r] * t[0] + A[1][r] * t[1] + A[2][r] * t[2];
  out->a00 = A[0][0];
  out->a11 = A[1][1];
  out->a01 = A[1][0];
  out->a02 = A[2][0];
  out->a12 = A[2][1];
}

float splat_ray_depth_at(const splat_ray_depth *r, const splat_camera *cam, float px, float py) {
  /* The ray is tau (u, v, 1); its camera z is tau. N = d^T A t, D = d^T A d. */
  float u = (px - cam->cx) / cam->fx, v = (py - cam->cy) / cam->fy;
  float N = r->b[0] * u + r->b[1] * v + r->b[2];
  float D = r->a00 * u * u + r->a11 * v * v + 1.0f + 2.0f * (r->a01 * u * v + r->a02 * u + r->a12 * v);
  return N / D;
}

/* ---- the GPU storage (splat_shared.h, "Scene buffers"), encoded by upload.c ---------------- */

uint16_t splat_float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xFFu, m = x & 0x7FFFFFu;
  if (e == 0xFF) return (uint16_t)(sign | 0x7C00u | (m ? 0x200u : 0));
  int exp = (int)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7C00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    m |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - exp);
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (m >> 13), rem = m & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

float splat_half_to_float(uint16_t h) {
  uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400u), (int)e - 25);
  return (h & 0x8000u) ? -v : v;
}

/* The largest finite half: larger scales are clamped rather than stored as infinity. */
#define HALF_MAX 65504.0f

void splat_pack_shape(const float scale[3], const float rot[4], uint32_t out[4]) {
  uint16_t q[4], h[4] = {0};
  for (int k = 0; k < 4; k++) {
    float v = rot[k] < -1.0f ? -1.0f : rot[k] > 1.0f ? 1.0f : rot[k];
    q[k] = (uint16_t)(int16_t)lrintf(v * 32767.0f);
  }
  for (int k = 0; k < 3; k++) h[k] = splat_float_to_half(scale[k] < HALF_MAX ? scale[k] : HALF_MAX);
  out[0] = q[0] | (uint32_t)q[1] << 16, out[1] = q[2] | (uint32_t)q[3] << 16;
  out[2] = h[0] | (uint32_t)h[1] << 16, out[3] = h[2] | (uint32_t)h[3] << 16;
}

void splat_unpack_shape(const uint32_t in[4], float scale[3], float rot[4]) {
  for (int k = 0; k < 4; k++) {
    int16_t v = (int16_t)(uint16_t)(in[k >> 1] >> (16 * (k & 1)));
    rot[k] = (float)v * SP_SNORM16_STEP; /* the shader's product, not a division (inexact there) */
  }
  for (int k = 0; k < 3; k++) scale[k] = splat_half_to_float((uint16_t)(in[2 + (k >> 1)] >> (16 * (k & 1))));
}

/* The SH band (degree) of coefficient k: 0, 1-3, 4-8, 9-15. */
static uint32_t sh_band(uint32_t k) { return k == 0 ? 0 : k < 4 ? 1 : k < 9 ? 2 : 3; }

void splat_sh8_range(const splat_scene *s, float *scale, float *offset) {
  uint32_t n = s->sh_coeffs * 3;
  float lo[12], hi[12]; /* band * 3 + channel */
  for (uint32_t g = 0; g < 12; g++) lo[g] = INFINITY, hi[g] = -INFINITY;
  for (uint32_t i = 0; i < s->count; i++)
    for (uint32_t h = 0; h < n; h++) {
      float v = s->sh[(size_t)i * n + h];
      uint32_t g = sh_band(h / 3) * 3 + h % 3;
      lo[g] = v < lo[g] ? v : lo[g], hi[g] = v > hi[g] ? v : hi[g];
    }
  for (uint32_t h = 0; h < n; h++) {
    uint32_t g = sh_band(h / 3) * 3 + h % 3;
    offset[h] = lo[g];
    scale[h] = (hi[g] - lo[g]) / 255.0f;
  }
}

uint8_t splat_sh8_encode(float v, float scale, float offset) {
  if (!(scale > 0.0f)) return 0;
  /* the nearest code by the decoder's own arithmetic, so the round trip is as close as it gets */
  long q = lrintf((v - offset) / scale);
  q = q < 0 ? 0 : q > 255 ? 255 : q;
  float d = splat_sh8_decode((uint8_t)q, scale, offset);
  if (q < 255 && fabsf(splat_sh8_decode((uint8_t)(q + 1), scale, offset) - v) < fabsf(d - v)) q++;
  else if (q > 0 && fabsf(splat_sh8_decode((uint8_t)(q - 1), scale, offset) - v) < fabsf(d - v)) q--;
  return (uint8_t)q;
}

float splat_sh8_decode(uint8_t q, float scale, float offset) {
  return offset + scale * (float)q; /* no fused multiply-add (as z in splat_project): the shader's is precise */
}

void splat_scene_as_stored(splat_scene *s, splat_sh_precision p) {
  for (uint32_t i = 0; i < s->count; i++) {
    uint32_t w[4];
    splat_pack_shape(s->scales + 3ull * i, s->rotations + 4ull * i, w);
    splat_unpack_shape(w, s->scales + 3ull * i, s->rotations + 4ull * i);
  }
  size_t n = (size_t)s->count * s->sh_coeffs * 3;
  if (p == SPLAT_SH_PRECISION_32) return;
  if (p != SPLAT_SH_PRECISION_8) {
    for (size_t h = 0; h < n; h++) s->sh[h] = splat_half_to_float(splat_float_to_half(s->sh[h]));
    return;
  }
  uint32_t per = s->sh_coeffs * 3;
  float scale[3 * 16], offset[3 * 16];
  splat_sh8_range(s, scale, offset);
  for (size_t h = 0; h < n; h++)
    s->sh[h] = splat_sh8_decode(splat_sh8_encode(s->sh[h], scale[h % per], offset[h % per]), scale[h % per],
                                offset[h % per]);
}
