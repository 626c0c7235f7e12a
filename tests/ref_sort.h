/* ref_sort.h: the stable CPU reference sort the GPU sorts are checked against, one for the sort
 * tests, sortbench and tests/bench/cub_sort.cu (which compiles it as C++). */
#ifndef SPLAT_TEST_REF_SORT_H
#define SPLAT_TEST_REF_SORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Stable sort of (keys, values) by the low key_bits bits (1..32); outputs keep the original
 * (unmasked) keys. LSD counting sort, 8 bits a pass: stable by construction. */
static inline void cpu_sort_pairs(const uint32_t *keys, const uint32_t *values, uint32_t n, uint32_t key_bits,
                                  uint32_t *out_keys, uint32_t *out_values) {
  uint32_t mask = key_bits >= 32 ? 0xFFFFFFFFu : (1u << key_bits) - 1u;
  uint32_t *k0 = (uint32_t *)malloc(sizeof(uint32_t) * (n ? n : 1));
  uint32_t *v0 = (uint32_t *)malloc(sizeof(uint32_t) * (n ? n : 1));
  uint32_t *k1 = out_keys, *v1 = out_values;
  memcpy(k0, keys, sizeof(uint32_t) * n);
  memcpy(v0, values, sizeof(uint32_t) * n);
  uint32_t passes = (key_bits + 7) / 8;
  for (uint32_t p = 0; p < passes; p++) {
    uint32_t count[257] = {0};
    uint32_t shift = 8 * p;
    for (uint32_t i = 0; i < n; i++) count[(((k0[i] & mask) >> shift) & 255u) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (uint32_t i = 0; i < n; i++) {
      uint32_t pos = count[((k0[i] & mask) >> shift) & 255u]++;
      k1[pos] = k0[i];
      v1[pos] = v0[i];
    }
    uint32_t *t = k0; k0 = k1; k1 = t;
    t = v0; v0 = v1; v1 = t;
  }
  /* after an even number of passes the data is back in the scratch copies */
  if (k0 != out_keys) {
    memcpy(out_keys, k0, sizeof(uint32_t) * n);
    memcpy(out_values, v0, sizeof(uint32_t) * n);
    free(k0);
    free(v0);
  } else {
    free(k1);
    free(v1);
  }
}

#endif
