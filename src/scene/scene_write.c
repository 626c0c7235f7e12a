/* scene_write.c: the standard 3DGS .ply writer (splat_scene_write_ply). */
#include "scene_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Opacity 0 or 1 and scale 0 have no finite pre-activation value; sigmoid(40),
 * sigmoid(-120) and exp(-120) round to exactly 1, 0 and 0 in float. Values out of
 * range are clamped the same way; NaN stays NaN. */
static float logit_for_write(float o) {
  if (o <= 0.0f) return -120.0f;
  if (o >= 1.0f) return 40.0f;
  return (float)log((double)o / (1.0 - (double)o));
}

static float log_for_write(float s) {
  if (s <= 0.0f) return -120.0f;
  return (float)log((double)s);
}

int splat_scene_write_ply(const char *path, const splat_scene *scene, char *err, size_t err_size) {
  scene_error e = {path ? path : "<null>", err, err_size};
  if (err != NULL && err_size > 0) err[0] = '\0';
  if (path == NULL) return scene_fail(&e, "no path given");
  if (scene == NULL || scene->count == 0 || !scene->positions || !scene->scales ||
      !scene->rotations || !scene->opacities || !scene->sh)
    return scene_fail(&e, "cannot write an empty or incomplete scene");
  uint32_t d = scene->sh_degree;
  if (d > SPLAT_SCENE_MAX_SH_DEGREE || scene->sh_coeffs != (d + 1) * (d + 1))
    return scene_fail(&e, "invalid scene: SH degree %u with %u coefficients", d, scene->sh_coeffs);
  const uint32_t coeffs = scene->sh_coeffs, nrest = (coeffs - 1) * 3;
  const uint32_t nfields = 3 + 3 + 3 + nrest + 1 + 3 + 4;

  scene_out out;
  if (scene_out_open(&out, path, &e) != 0) return -1;
  FILE *f = out.f;
  int rc = 0;
  fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment written by splatsort\n%s"
             "element vertex %u\n", (scene->flags & SPLAT_SCENE_ANTIALIASED) ? "comment SplatRenderMode: mip\n" : "",
          scene->count);
  static const char *const head[] = {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"};
  for (size_t i = 0; i < sizeof head / sizeof head[0]; ++i) fprintf(f, "property float %s\n", head[i]);
  for (uint32_t i = 0; i < nrest; ++i) fprintf(f, "property float f_rest_%u\n", i);
  fputs("property float opacity\nproperty float scale_0\nproperty float scale_1\n"
        "property float scale_2\nproperty float rot_0\nproperty float rot_1\n"
        "property float rot_2\nproperty float rot_3\nend_header\n", f);

  enum { ROWS = 4096 };
  float *buf = malloc((size_t)ROWS * nfields * sizeof(float));
  if (buf == NULL) {
    scene_out_discard(&out);
    return scene_fail(&e, "out of memory for the write buffer");
  }
  for (uint32_t start = 0; start < scene->count && rc == 0; start += ROWS) {
    uint32_t rows = scene->count - start < ROWS ? scene->count - start : ROWS;
    for (uint32_t r = 0; r < rows; ++r) {
      size_t i = (size_t)start + r;
      float *o = buf + (size_t)r * nfields;
      const float *sh = scene->sh + i * coeffs * 3;
      memcpy(o, scene->positions + i * 3, 3 * sizeof(float));
      o[3] = o[4] = o[5] = 0.0f;
      memcpy(o + 6, sh, 3 * sizeof(float));
      /* interleaved (k, c) -> channel-major f_rest_{c*(coeffs-1) + k-1} */
      for (uint32_t c = 0; c < 3; ++c)
        for (uint32_t k = 1; k < coeffs; ++k) o[9 + c * (coeffs - 1) + (k - 1)] = sh[k * 3 + c];
      float *t = o + 9 + nrest;
      t[0] = logit_for_write(scene->opacities[i]);
      for (int c = 0; c < 3; ++c) t[1 + c] = log_for_write(scene->scales[i * 3 + c]);
      memcpy(t + 4, scene->rotations + i * 4, 4 * sizeof(float));
    }
    if (fwrite(buf, sizeof(float) * nfields, rows, f) != rows)
      rc = scene_fail(&e, "write failed: %s", strerror(errno));
  }
  free(buf);
  if (rc != 0) scene_out_discard(&out);
  else rc = scene_out_close(&out, &e); /* the header's fprintfs too: ferror */
  return rc;
}
