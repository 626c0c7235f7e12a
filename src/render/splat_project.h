/* splat_project.h: the CPU projection of one splat to the screen, exactly the reference 3DGS
 * preprocess step (diff-gaussian-rasterization, forward.cu: computeCov3D, computeCov2D,
 * computeColorFromSH). This is the specification the GPU projection shader mirrors, step by
 * step, in 32-bit float; its implementation documents each step and each place where we differ
 * from the reference on purpose. Conventions (camera space, pixel coordinates) are in
 * splat_camera.h.
 */
#ifndef SPLAT_PROJECT_H
#define SPLAT_PROJECT_H

#include <stdint.h>

#include "splat_camera.h"
#include "splat_constants.h"
#include "splat_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference's constants (SPLAT_NEAR_Z, SPLAT_MIN_ALPHA, ...) are in splat_constants.h,
 * shared with the shaders. */

/* One visible splat on screen. */
typedef struct splat_projected {
  float mean2d[2];  /* continuous pixel coordinates (pixel (i,j)'s centre is (i+0.5, j+0.5)) */
  float conic[3];   /* inverse 2D covariance (a', b', c'): power = -0.5(a'dx^2 + c'dy^2) - b'dx dy */
  float radius;     /* pixels, an integer value: ceil(3 sqrt(largest eigenvalue)) */
  float color[3];   /* SH colour + 0.5, clamped below at 0 (not above) */
  float opacity;    /* activated opacity (anti-aliased scenes: times the compensation) */
  float depth;      /* camera-space z (> SPLAT_NEAR_Z) */
  float cov2d[3];   /* 2D covariance (a, b, c) after dilation, for checks */
} splat_projected;

/* Projects splat i of scene s for camera cam, with SH up to degree
 * min(s->sh_degree, max(sh_degree_max, 0)). Returns 1 and fills *out when the splat is
 * visible, 0 (out untouched) when it is culled: behind the near plane, outside the
 * frustum with margin, opacity < 1/255, degenerate or non-finite covariance, or a
 * footprint square [mean2d +- radius] that does not overlap the image [0,W] x [0,H].
 * When s->flags has SPLAT_SCENE_ANTIALIASED the opacity is multiplied by
 * sqrt(max(0, det(C) / det(C + 0.3 I))), C the 2D covariance before the dilation: the
 * compensation of gsplat's "antialiased" mode (mip-splatting's 2D filter), which keeps a
 * splat's total weight when the dilation widens it. The culling is the same either way. */
int splat_project(const splat_scene *s, uint32_t i, const splat_camera *cam, int sh_degree_max,
                  splat_projected *out);

/* ---- ray depth (per-pixel ordering, after StopThePop, Radl et al. 2024) ----------------------
 * A pixel's splats can be ordered by where its ray meets each Gaussian's maximum rather than by
 * the centres' depth. The ray through pixel position (px, py) is tau (u, v, 1) in camera space,
 * u = (px - cx) / fx, v = (py - cy) / fy; the density exp(-0.5 (tau d - t)^T A (tau d - t)), A
 * the inverse camera-space covariance and t the centre, peaks at tau = d^T A t / d^T A d, which
 * is the camera-space z of that point. The coefficients below hold A scaled to A22 = 1 and
 * b = A t, so a pixel's depth costs a few multiply-adds; the GPU computes them the same way. */
typedef struct splat_ray_depth {
  float a00, a11, a01, a02, a12; /* A / A22 (A22 = 1 is implied) */
  float b[3];                    /* (A / A22) t, t the camera-space centre */
} splat_ray_depth;

/* Coefficients of splat i of s for camera cam. Always succeeds: A is built from the rotation and
 * the inverse squared scales relative to the largest (each at least 2^-20 of it, so a flat splat
 * stays finite), never by inverting the covariance. Where that cannot work (no positive finite
 * scale, a singular view, a non-finite A) A is the identity and b = t: the depth of the point
 * of the ray nearest to the centre. t is splat_project's camera-space centre, bit for bit. */
void splat_project_ray_depth(const splat_scene *s, uint32_t i, const splat_camera *cam, splat_ray_depth *out);

/* The camera-space z of the Gaussian's maximum along the ray through the continuous pixel
 * position (px, py) (a pixel's centre is (i + 0.5, j + 0.5)): N / D with N = b0 u + b1 v + b2,
 * D = a00 u^2 + a11 v^2 + 1 + 2 (a01 u v + a02 u + a12 v), evaluated in that order. */
float splat_ray_depth_at(const splat_ray_depth *r, const splat_camera *cam, float px, float py);


/* Step 2 on its own: the 3D covariance R S^2 R^T of a splat with activated `scale` and
 * normalised quaternion `rot` (w,x,y,z), as the upper triangle (xx, xy, xz, yy, yz, zz). */
void splat_cov3d(const float scale[3], const float rot[4], float cov[6]);

/* Step 6 on its own: colour of SH coefficients `sh` (coefficient k, channel c at
 * sh[k*3 + c]) up to `degree` (0..3) in unit direction `dir` (camera centre -> splat),
 * +0.5 and clamped below at 0. */
void splat_sh_color(int degree, const float *sh, const float dir[3], float rgb[3]);

/* ---- how the renderer stores a splat on the GPU ---------------------------------------------------
 * The projection decodes exactly these values; project it on a scene passed through
 * splat_scene_as_stored and splat_project gives what the GPU computes, within rounding. */

/* Precision of the SH coefficients on the GPU (splat_renderer_create_info.sh_precision).
 * 8: one byte each, value = offset + scale * byte with a scale and offset per band and channel
 * over the whole object (splat_sh8_range; a streamed object's over its first part, splat_renderer.h). */
typedef enum splat_sh_precision {
  SPLAT_SH_PRECISION_DEFAULT = 0, /* 16 */
  SPLAT_SH_PRECISION_8 = 8,
  SPLAT_SH_PRECISION_16 = 16,
  SPLAT_SH_PRECISION_32 = 32,
} splat_sh_precision;

/* The packed shape (16 bytes): the quaternion (w, x, y, z) as 4 snorm16 (q * 32767 rounded;
 * the decoded quaternion is not renormalised: splat_cov3d divides by its length), the three
 * scales as IEEE halves (rounded to nearest even, clamped to 65504; below 6.1e-5 subnormal),
 * a zero half. */
void splat_pack_shape(const float scale[3], const float rot[4], uint32_t out[4]);
void splat_unpack_shape(const uint32_t in[4], float scale[3], float rot[4]);

/* IEEE half of f (round to nearest even, overflow to infinity) and back (exact). */
uint16_t splat_float_to_half(float f);
float splat_half_to_float(uint16_t h);

/* 8-bit SH: for each value (coefficient k, channel c: index k*3 + c, 3 * sh_coeffs of them)
 * the range of its band (degree) and channel over the scene, as scale = (max - min) / 255 and
 * offset = min; a code q decodes to offset + scale * q (in that order, in float; the shader's
 * `precise` expression). Per band and channel: on the bundled and the held-in scenes as good
 * as a range per coefficient or better (up to +0.9 dB), up to 2 dB above per band over the
 * three channels (equal on generated scenes), 5-10 dB above one range for all (CPU reference
 * images of the bundled scene, five held-in ones and two generated, four views each). */
void splat_sh8_range(const splat_scene *s, float *scale, float *offset);
uint8_t splat_sh8_encode(float v, float scale, float offset);
float splat_sh8_decode(uint8_t q, float scale, float offset);

/* In place: rotations, scales and SH replaced by what the GPU decodes from the renderer's
 * storage at SH precision p (positions and opacities are stored as they are). */
void splat_scene_as_stored(splat_scene *s, splat_sh_precision p);

/* Sort key of a visible splat's camera-space depth z (> 0): ASCENDING key order is
 * BACK-TO-FRONT (farthest first). The bits of a positive IEEE float grow with its value,
 * so key = ~float_bits(z) reverses the order; the GPU computes ~floatBitsToUint(z).
 * Keys of equal depths are equal; a stable sort then keeps splat index order. */
uint32_t splat_depth_key(float view_z);

#ifdef __cplusplus
}
#endif

#endif
