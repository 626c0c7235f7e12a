/* fuzz_spz: libFuzzer target for the .spz loader (src/scene/scene_spz.c: versions 1-3 in gzip,
 * version 4 with its table of contents and ZSTD streams), as a file named fuzz.spz. Checks
 * fuzz_check.h's invariants on every result. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_scene(data, size, "fuzz.spz");
  return 0;
}
