/* fuzz_scene: libFuzzer target for the scene loader (build with -DSPLATSORT_FUZZ=ON
 * and clang). The first byte picks the name (.ply or .splat) so both decoders and
 * the content sniffing are reached; every scene that loads must hold the
 * invariants in scene.h, and a failure must leave the scene zeroed.
 *
 *   CC=clang cmake -S . -B build-fuzz -DSPLATSORT_FUZZ=ON
 *   cmake --build build-fuzz -j2 --target fuzz_scene
 *   ctest --test-dir build-fuzz -R scene_fuzz_smoke        # 25 s from the seeds
 *   build-fuzz/tests/fuzz_scene -max_total_time=600 NEW_DIR tests/fuzz/corpus   # longer
 * New inputs go to NEW_DIR (the first folder); tests/fuzz/corpus holds the seeds
 * (tests/fuzz/make_corpus.py writes them).
 */
#include "scene.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *name = size > 0 && (data[0] & 1) ? "fuzz.splat" : "fuzz.ply";
  /* A copy of exactly `size` bytes, so reads past the end are caught. */
  uint8_t *copy = malloc(size ? size : 1);
  if (copy == NULL) return 0;
  if (size) memcpy(copy, data, size);
  splat_scene s;
  char err[256];
  int rc = splat_scene_load_memory(copy, size, name, &s, err, sizeof err);
  if (rc == 0) {
    if (s.count == 0 || s.sh_coeffs != (s.sh_degree + 1) * (s.sh_degree + 1)) abort();
    for (uint32_t i = 0; i < s.count; ++i) {
      double n = 0;
      for (int c = 0; c < 4; ++c) n += (double)s.rotations[i * 4 + c] * s.rotations[i * 4 + c];
      if (fabs(n - 1.0) > 1e-4) abort();
      if (!(s.opacities[i] >= 0.0f && s.opacities[i] <= 1.0f)) abort();
      for (int c = 0; c < 3; ++c) {
        float p = s.positions[i * 3 + c], sc = s.scales[i * 3 + c];
        if (!isfinite(p) || !isfinite(sc) || sc < 0.0f) abort();
        if (p < s.bounds_min[c] || p > s.bounds_max[c]) abort();
      }
      for (uint32_t k = 0; k < s.sh_coeffs * 3; ++k)
        if (!isfinite(s.sh[(size_t)i * s.sh_coeffs * 3 + k])) abort();
    }
    splat_scene_free(&s);
  } else {
    static const splat_scene zero;
    if (memcmp(&s, &zero, sizeof s) != 0 || strncmp(err, name, strlen(name)) != 0) abort();
  }
  free(copy);
  return 0;
}
