/* fuzz_lod: libFuzzer target for the LOD hierarchy reader (src/scene/scene_lod_file.c), the
 * input a .lod file named fuzz.lod read for leaves of the count and SH degree its header claims
 * (when small; otherwise 100 leaves at degree 0, which the reader then refuses), so inputs get
 * past the count checks. The leaves' arrays are never read. Checks that a refusal is one
 * printable line naming the file with *out zeroed, and that an accepted tree is one. */
#include "fuzz_check.h"
#include "scene_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_lod(const splat_lod *lod) {
  uint32_t n = lod->leaf_count, count = lod->interior.count;
  FUZZ_REQUIRE(count >= 1 && lod->node_count == n + count, "%u leaves, %u interior, %u nodes", n, count,
               lod->node_count);
  FUZZ_REQUIRE(lod->parent[n] == UINT32_MAX, "the root has a parent");
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t f = lod->first_child[k], c = lod->child_count[k];
    FUZZ_REQUIRE(c >= 1 && c <= SPLAT_LOD_MAX_CHILDREN && (uint64_t)f + c <= lod->node_count, "node %u", n + k);
    FUZZ_REQUIRE(f + c <= n || f > n + k, "node %u: mixed or earlier children", n + k);
    for (uint32_t ch = f; ch < f + c; ++ch) FUZZ_REQUIRE(lod->parent[ch] == n + k, "node %u's parent", ch);
    const float *q = lod->interior.rotations + (size_t)k * 4, *s = lod->interior.scales + (size_t)k * 3;
    double len = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    FUZZ_REQUIRE(fabs(len - 1) <= 1e-4, "node %u: |q|^2 = %g", n + k, len);
    FUZZ_REQUIRE(s[0] >= 0 && s[1] >= 0 && s[2] >= 0 && isfinite(s[0] + s[1] + s[2]), "node %u: scales", n + k);
    float o = lod->interior.opacities[k];
    FUZZ_REQUIRE(o >= 0 && o <= 1, "node %u: opacity %g", n + k, (double)o);
    for (uint32_t c2 = 0; c2 < lod->interior.sh_coeffs * 3; ++c2)
      FUZZ_REQUIRE(isfinite(lod->interior.sh[(size_t)k * lod->interior.sh_coeffs * 3 + c2]), "node %u: SH", n + k);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *copy = malloc(size ? size : 1); /* exactly `size` bytes, so a read past the end is caught */
  if (copy == NULL) return 0;
  if (size) memcpy(copy, data, size);
  uint32_t leaves = 100, degree = 0;
  if (size >= 28) {
    uint32_t l, d;
    memcpy(&l, data + 16, 4);
    memcpy(&d, data + 24, 4);
    if (l <= (1u << 16) && d <= SPLAT_SCENE_MAX_SH_DEGREE) leaves = l, degree = d;
  }
  char err[1024];
  splat_lod lod;
  memset(&lod, 0xa5, sizeof lod); /* the reader must overwrite all of it */
  scene_error e = {.name = "fuzz.lod", .buf = err, .size = sizeof err, .budget = (uint64_t)64 << 20};
  int rc = scene_lod_parse(copy, size, leaves, degree, &lod, &e);
  free(copy);
  if (rc != 0) {
    static const splat_lod zero;
    FUZZ_REQUIRE(rc == -1, "return value %d", rc);
    FUZZ_REQUIRE(memcmp(&lod, &zero, sizeof lod) == 0, "hierarchy not zeroed after an error");
    fuzz_check_message(err, sizeof err, "fuzz.lod");
    return 0;
  }
  check_lod(&lod);
  splat_lod_free(&lod);
  return 0;
}
