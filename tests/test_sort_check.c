/* The O(n) result check sortbench uses (check_sorted_indices) against the CPU reference sort:
 * it must accept exactly the reference output and reject every kind of wrong one. CPU only. */
#include "check.h"
#include "sort_harness.h"

#include <stdlib.h>
#include <string.h>

static void check_case(uint32_t n, key_dist dist, uint32_t key_bits, uint64_t seed) {
  uint32_t *k = malloc(4ull * (n + 1) * 4), *v = k + n + 1, *rk = v + n + 1, *rv = rk + n + 1;
  gen_keys(k, n, dist, seed);
  for (uint32_t i = 0; i < n; i++) v[i] = i;
  cpu_sort_pairs(k, v, n, key_bits, rk, rv);
  const char *d = key_dist_name(dist);
  CHECK(check_sorted_indices(k, n, key_bits, rk, rv) == n, "reference rejected: n=%u %s bits=%u seed=%llu", n, d,
        key_bits, (unsigned long long)seed);
  if (n >= 2) {
    uint64_t st = seed;
    uint32_t i = (uint32_t)(splitmix64(&st) % (n - 1));
    /* two neighbours swapped: out of order by key, or by index among equal keys */
    uint32_t t = rk[i]; rk[i] = rk[i + 1]; rk[i + 1] = t;
    t = rv[i]; rv[i] = rv[i + 1]; rv[i + 1] = t;
    CHECK(check_sorted_indices(k, n, key_bits, rk, rv) <= i + 1, "swap at %u accepted: n=%u %s bits=%u", i, n, d,
          key_bits);
    t = rk[i]; rk[i] = rk[i + 1]; rk[i + 1] = t;
    t = rv[i]; rv[i] = rv[i + 1]; rv[i + 1] = t;
    /* a payload duplicated (its key kept right) */
    uint32_t saved = rv[i + 1], saved_k = rk[i + 1];
    rv[i + 1] = rv[i];
    rk[i + 1] = rk[i];
    CHECK(check_sorted_indices(k, n, key_bits, rk, rv) <= i + 1, "duplicate at %u accepted: n=%u %s", i, n, d);
    rv[i + 1] = saved, rk[i + 1] = saved_k;
  }
  if (n >= 1) {
    uint64_t st = seed ^ 77;
    uint32_t i = (uint32_t)(splitmix64(&st) % n);
    rk[i] ^= 0x80000000u; /* a bit outside key_bits for short keys: still a wrong key */
    CHECK(check_sorted_indices(k, n, key_bits, rk, rv) <= i, "changed key at %u accepted: n=%u %s", i, n, d);
    rk[i] ^= 0x80000000u;
    rv[i] = n; /* out of range */
    CHECK(check_sorted_indices(k, n, key_bits, rk, rv) <= i, "bad payload at %u accepted: n=%u %s", i, n, d);
  }
  free(k);
}

int main(void) {
  const uint32_t sizes[] = {0, 1, 2, 3, 255, 256, 4097, 100000};
  const uint32_t bits[] = {32, 24, 16, 8, 1};
  uint64_t seed = 20261123;
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (int d = 0; d < DIST_COUNT; d++)
      for (size_t b = 0; b < sizeof bits / sizeof *bits; b++) check_case(sizes[s], (key_dist)d, bits[b], seed++);
  return check_report("test_sort_check");
}
