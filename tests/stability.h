/* stability.h: how much a renderer's image pops while the camera moves slowly, for comparing
 * blend orders (refrender.h's GLOBAL, WINDOW, EXACT): a scene that pops, an orbit, PSNR and
 * popping-pixel counts against a reference order, and an SVG plot of both per frame.
 * Images are refrender's float RGBA (w * h * 4, rows top-down); values are clamped to [0, 1]. */
#ifndef SPLAT_TEST_STABILITY_H
#define SPLAT_TEST_STABILITY_H

#include <stdint.h>

#include "splat_camera.h"
#include "splat_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The popping threshold callers use unless they say otherwise (a change of a tenth of the
 * range in some channel, beyond the reference's own change). */
#define STABILITY_POP_THRESHOLD 0.1f

/* n large, flat, strongly anisotropic splats (scales (1, 0.35, 0.004) times a factor in
 * [0.6, 1.4]) with uniformly random orientations, centres in a ball of radius 0.6 around the
 * origin, saturated colours of distinct hues (SH degree 0), opacities 0.6..0.95. They cut
 * through each other, so along many rays the centres' order is wrong. The same for a seed on
 * every machine; free with splat_scene_free. count is 0 when memory runs out. */
splat_scene stability_popping_scene(uint32_t n, uint32_t seed);

/* Frame `frame` of `frames` of a slow orbit around `centre`: azimuth start_deg + span_deg *
 * frame / (frames - 1) (start_deg alone when frames < 2), `elevation_deg` above the horizontal
 * (world -y is up, the 3DGS convention), at `distance`, looking at the centre. Azimuth 0 looks
 * along world +z. */
void stability_orbit_camera(const float centre[3], float distance, float elevation_deg, float start_deg,
                            float span_deg, uint32_t frame, uint32_t frames, float fovy_deg, uint32_t w, uint32_t h,
                            splat_camera *out);

/* PSNR of the RGB channels, clamped to [0, 1], peak 1; INFINITY when they are equal. */
double stability_psnr(const float *rgba_a, const float *rgba_b, uint32_t w, uint32_t h);

/* Pixels that pop: change(prev -> cur) - change(ref_prev -> ref_cur) > thr, change being the
 * largest |difference| over R, G, B (clamped to [0, 1]). What the reference order also does
 * between the two frames (the view really changed) is not counted. */
uint64_t stability_pops(const float *prev, const float *cur, const float *ref_prev, const float *ref_cur, uint32_t w,
                        uint32_t h, float thr);

/* One line of a plot: psnr[frames] (non-finite values are left out), pops[frames - 1] (the
 * transition k -> k + 1 is drawn at frame k + 1), an SVG colour ("#1f77b4"). */
typedef struct stability_series {
  const char *label;
  const double *psnr;
  const double *pops;
  const char *color;
} stability_series;

/* Writes an SVG: PSNR against the reference (top) and popping pixels (bottom) per frame, one
 * line and legend entry per series. Returns 0, or -1 when the file cannot be written. */
int stability_write_svg(const char *path, const char *title, uint32_t frames, const stability_series *series,
                        uint32_t count);

#ifdef __cplusplus
}
#endif

#endif
