/* refrender_pairs: the compute raster's pairs for a scene file, with its bins and with the
 * square binning, by the CPU reference (which bins exactly as the GPU), from the viewer's
 * start view (robust bounds, an orbit framing them, fovy 50: splatview --headless --bench's
 * first frame). Usage: refrender_pairs scene.ply [WIDTHxHEIGHT] (default 1920x1080). */
#include <stdio.h>
#include <stdlib.h>

#include "refrender.h"
#include "splat_scene.h"
#include "util.h"
#include "view_control.h"

static int pairs(const splat_scene *s, const splat_camera *cam, int square, refrender_stats *st) {
  float *img = malloc((size_t)cam->width * cam->height * 16);
  const float black[3] = {0, 0, 0};
  refrender_options o = {.max_pairs = UINT64_MAX, .square_bins = square};
  int rc = img ? refrender_render_opts(s, cam, 0, black, img, st, &o) : -1;
  free(img);
  return rc;
}

int main(int argc, char **argv) {
  uint32_t w = 1920, h = 1080;
  if (argc < 2 || (argc > 2 && sscanf(argv[2], "%ux%u", &w, &h) != 2)) {
    fprintf(stderr, "usage: refrender_pairs scene.ply [WIDTHxHEIGHT]\n");
    return 2;
  }
  splat_scene s;
  char err[512];
  if (splat_scene_load(argv[1], &s, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  float lo[3], hi[3], zero[3] = {0, 0, 0}, minus_y[3] = {0, -1, 0};
  splat_orbit orbit;
  splat_camera cam;
  splat_orbit_init(&orbit, zero, 1.0f, minus_y);
  if (splat_scene_robust_bounds(s.positions, s.count, lo, hi) != 0 ||
      splat_orbit_frame_bounds(&orbit, lo, hi, 50.0f, w, h) != 0 || splat_orbit_camera(&orbit, 50.0f, w, h, &cam) != 0) {
    fprintf(stderr, "%s: cannot frame the scene\n", argv[1]);
    splat_scene_free(&s);
    return 1;
  }
  refrender_stats b, q;
  double t0 = now_seconds();
  int rc = pairs(&s, &cam, 0, &b) || pairs(&s, &cam, 1, &q);
  if (rc == 0)
    printf("%s %ux%u: %u splats, %u visible; pairs: bins %llu (%.3f a visible splat), square %llu (%.3f): "
           "%.1f%% fewer (%.1f s)\n", argv[1], w, h, s.count, b.visible, (unsigned long long)b.pairs_needed,
           (double)b.pairs_needed / b.visible, (unsigned long long)q.pairs_needed,
           (double)q.pairs_needed / q.visible, 100.0 * (1.0 - (double)b.pairs_needed / (double)q.pairs_needed),
           now_seconds() - t0);
  splat_scene_free(&s);
  return rc ? 1 : 0;
}
