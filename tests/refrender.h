/* refrender.h: the CPU reference renderer the GPU image tests compare against. It uses
 * splat_project (src/render/splat_project.h) for every splat and composites each pixel exactly as
 * the reference 3DGS rasterizer's per-pixel loop (renderCUDA), with one deliberate change:
 * a splat touches only the pixels whose centres lie in its square [mean2d +- radius]
 * (what the GPU's one quad per splat covers), instead of every pixel of the 16x16 tiles
 * that square overlaps. Beyond the square power <= -4.5 along the axes, so only faint
 * corners of very elongated splats differ from the reference. */
#ifndef SPLAT_TEST_REFRENDER_H
#define SPLAT_TEST_REFRENDER_H

#include <stdint.h>

#include "splat_camera.h"
#include "splat_project.h"
#include "splat_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct refrender_stats {
  uint32_t visible;       /* splats splat_project kept */
  uint64_t tile_entries;  /* (splat, 16x16 tile) pairs binned */
  uint64_t pairs_needed;  /* ... before any cap (refrender_render_capped) */
  uint64_t contributions; /* (splat, pixel) blends, over the image */
  uint64_t late;          /* blends after a splat of larger ray-depth key at that pixel (any order;
                             EXACT: 0; GLOBAL: where the centres' order is wrong along the ray) */
  uint32_t max_contributors; /* most splats passing the alpha tests at one pixel, whether or not
                                the pixel stopped before them (WINDOW with K >= it is EXACT) */
} refrender_stats;

/* Renders scene s through cam into `rgba`: cam->width * cam->height * 4 floats, rows
 * top-down, RGB = C + T * background (not clamped), A = 1 - T (final transmittance T).
 * Order: visible splats sorted by (splat_depth_key, index) ascending, which is the GPU's
 * stable back-to-front order, and composited front to back, i.e. in exactly the reverse
 * of it (splats of equal depth: the higher index is in front). Pixel (i,j) is sampled at
 * its centre (i+0.5, j+0.5); a footprint square covers the centres in
 * [mean2d - radius, mean2d + radius) (half-open, as a top-left fill rule).
 * Per pixel, front to back: power = -0.5 (conic.x dx^2 + conic.z dy^2) - conic.y dx dy,
 * skip power > 0; alpha = min(0.99, opacity exp(power)), skip alpha < 1/255;
 * stop before a splat that would bring T below 1e-4; C += color alpha T; T *= 1 - alpha.
 * `stats` may be NULL. Returns 0, or -1 when memory runs out or the camera has no pixels. */
int refrender_render(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                     const float background[3], float *rgba, refrender_stats *stats);

/* refrender_render with the compute raster's pair capacity (renderer.h, SPLAT_RASTER_COMPUTE):
 * the (tile, splat) pairs are numbered front to back (splat by splat, each splat's bins row
 * by row) and only the first max_pairs are kept, as the GPU keeps them when its pair buffer
 * overflows. */
int refrender_render_capped(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                            const float background[3], float *rgba, refrender_stats *stats, uint64_t max_pairs);

/* Blend orders (refrender_options.order), after StopThePop (Radl et al. 2024). GLOBAL is
 * refrender_render's. The others order a pixel's splats (those passing the alpha tests) by the
 * key (refrender_ordkey) of their depth along the pixel's ray (splat_ray_depth_at at the pixel
 * centre: where the ray meets the Gaussian's maximum); ties: the place in the tile's
 * front-to-back list.
 *  EXACT: all of the pixel's splats sorted, blended with the stop rule: what popping-free means.
 *  WINDOW: the GPU's algorithm (SPLAT_ORDER_PER_PIXEL), emulated exactly. The tile's list is
 *    re-ordered by (tile key, place in the list) as the GPU's pair sort orders it: the tile key
 *    is the depth along the ray through the splat's mean clamped to the tile's pixel centres
 *    [16 tx + 0.5, 16 tx + 15.5] per axis, log2-quantised over the visible splats' depths to 24
 *    bits less the tile bits (4..16), nearest 0. Each pixel then walks the list, its splats
 *    entering a window of K slots in descending key order (slot 0 largest, empty = key 0):
 *    carry = the new one; for i in 0..K-1, if carry.key >= w[i].key swap them; a non-empty
 *    carry is then blended. After the list a pixel that has not stopped blends the remaining
 *    slots from K-1 down to 0. With K >= the pixel's splat count WINDOW is EXACT, bit for bit,
 *    unless the tile keys order two splats of equal pixel keys the other way. */
enum { REFRENDER_ORDER_GLOBAL = 0, REFRENDER_ORDER_EXACT = 1, REFRENDER_ORDER_WINDOW = 2 };
#define REFRENDER_MAX_WINDOW 16u

/* Key of a depth whose ascending order is the floats' (0 is kept for an empty window slot):
 * bits b of d; b & 0x80000000 ? ~b : b | 0x80000000; at least 1. */
uint32_t refrender_ordkey(float d);

/* refrender_render with options: max_pairs as refrender_render_capped's (UINT64_MAX: no cap);
 * square_bins: bin every tile the footprint square overlaps (the binning before
 * refrender_bins_of, to check that the bins change no pixel); order: REFRENDER_ORDER_*; window:
 * WINDOW's K, 1..REFRENDER_MAX_WINDOW (else -1 is returned); threads: 0 or 1 render on the
 * calling thread, more split the pixels by tile rows over that many threads (the image and
 * stats do not depend on it). Zeroed fields give refrender_render's image. */
/* piece: 0, or the compute raster's pieces of crowded tiles (splat_shared.h, SP_CR_PIECES): a
 * tile's list of more than `piece` entries (GLOBAL and WINDOW orders) is shaded in runs of
 * `piece` entries, each from T = 1 with the stop rule (WINDOW: its own window, emptied at the
 * run's end), and the runs composited front to back (C += T C_k, T *= T_k; nothing after a
 * run where the pixel stopped). */
typedef struct refrender_options {
  uint64_t max_pairs;
  int square_bins;
  int order;
  uint32_t window;
  int threads;
  uint32_t piece;
} refrender_options;
int refrender_render_opts(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                          const float background[3], float *rgba, refrender_stats *stats,
                          const refrender_options *opt);

/* A splat's bins, the compute raster's rule (shaders/render/craster_common.glsl, float for
 * float): the 16x16 tiles holding a pixel centre in the footprint square where the blend can
 * give alpha >= 1/255, widened slightly against rounding, found row by row. */
typedef struct refrender_bins {
  float mean[2], conic[3], thr, ext_dy;
  int64_t lo[2], hi[2]; /* pixels: the square's, clipped by the ellipse's box and the image */
  int whole;            /* rows are the square's whole rows (an ill-conditioned splat) */
} refrender_bins;

/* 1 and *b when p has bins in a W x H image; 0 when none. */
int refrender_bins_of(const splat_projected *p, uint32_t W, uint32_t H, refrender_bins *b);

/* Tile row ty's bins (lo[1] / 16 <= ty <= hi[1] / 16): tile columns [*tx0, *tx1]; 0 when none. */
int refrender_bin_row(const refrender_bins *b, int64_t ty, int64_t *tx0, int64_t *tx1);

/* The Gaussian of p at the pixel centre (fx, fy), as refrender_render evaluates it: 1 with
 * *power = -0.5 (conic.x dx^2 + conic.z dy^2) - conic.y dx dy when the centre lies in p's
 * footprint square [mean2d - radius, mean2d + radius) and not power > 0; else 0 (no contribution). */
int refrender_splat_power(const splat_projected *p, float fx, float fy, float *power);

/* 8-bit conversion: round(clamp(v, 0, 1) * 255) for RGB; alpha is written as 255. */
void refrender_to_rgba8(const float *rgba, uint32_t w, uint32_t h, uint8_t *rgba8);

/* refrender_render then refrender_to_rgba8 into `rgba8` (w * h * 4 bytes). */
int refrender_render_rgba8(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                           const float background[3], uint8_t *rgba8, refrender_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
