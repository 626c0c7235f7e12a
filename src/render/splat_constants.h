/* splat_constants.h: the reference 3DGS rasterizer's constants, written once for C and GLSL
 * (only #defines of float literals that both languages read alike). The CPU projection
 * (splat_project.h), the renderer's shaders and the CPU reference renderer of the project's
 * tests all use these, so they cannot disagree. */
#ifndef SPLAT_CONSTANTS_H
#define SPLAT_CONSTANTS_H

#define SPLAT_NEAR_Z 0.2f              /* cull when camera-space z <= this */
#define SPLAT_FRUSTUM_MARGIN 1.3f      /* cull when |x/z| > 1.3 tan_fovx (or y); clamp for J */
#define SPLAT_COV2D_DILATION 0.3f      /* added to the 2D covariance diagonal (low-pass) */
#define SPLAT_EIGEN_FLOOR 0.1f         /* the radius's eigenvalue: mid + sqrt(max(this, mid^2 - det)) */
#define SPLAT_RADIUS_SIGMAS 3.0f       /* radius = ceil(this * sqrt(largest eigenvalue)) */
#define SPLAT_MIN_ALPHA (1.0f / 255.0f) /* cull below this opacity; skip a fragment below this alpha */
#define SPLAT_MAX_ALPHA 0.99f          /* a fragment's alpha is at most this */
#define SPLAT_T_EPSILON 0.0001f        /* stop compositing when transmittance would drop below */

#endif
