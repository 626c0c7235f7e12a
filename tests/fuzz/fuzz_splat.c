/* fuzz_splat: libFuzzer target for the antimatter15 .splat loader (src/scene/scene.c), as a
 * file named fuzz.splat (content with the PLY magic still goes to the PLY parser, as it
 * would for a real file). Checks fuzz_check.h's invariants on every result. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_scene(data, size, "fuzz.splat");
  return 0;
}
