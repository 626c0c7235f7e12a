/* fuzz_ply: libFuzzer target for the PLY scene loader (3DGS and PlayCanvas compressed
 * layouts, src/scene/scene_ply.c), as a file named fuzz.ply. Checks fuzz_check.h's
 * invariants on every result. Building and running: docs/tests.md ("Fuzzing"). */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_scene(data, size, "fuzz.ply");
  return 0;
}
