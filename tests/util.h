/* util.h: small helpers shared by the tests, the tools and the benchmarks (tests/bench/cub_sort.cu
 * compiles it as C++ too): the splitmix64 generator, K/M size lists and a monotonic clock. */
#ifndef SPLAT_TEST_UTIL_H
#define SPLAT_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* splitmix64 (Steele, Lea and Flood): the next value of the sequence that *state walks; the
 * same on every machine, so a seed names a case. */
static inline uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Parses "1M,4M,16M,1000" style lists (K = 1024, M = 1024^2) into out, at most max values;
 * returns how many, or 0 when the list is malformed, longer than max, or a value is above
 * 2^32 - 1 (a list cut short without a word once lost a benchmark's largest sizes). */
static inline uint32_t parse_size_list(const char *s, uint32_t *out, uint32_t max) {
  uint32_t n = 0;
  while (*s && n < max) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return 0;
    if (*end == 'K' || *end == 'k') v *= 1024, end++;
    else if (*end == 'M' || *end == 'm') v *= 1024 * 1024, end++;
    if (v > 4294967295.0) return 0;
    out[n++] = (uint32_t)v;
    if (*end == ',') end++;
    else if (*end) return 0;
    s = end;
  }
  return *s ? 0 : n;
}

/* Seconds on the monotonic clock. */
static inline double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An optional input file (a real scene under ../shared): 1 when it can be opened, else 0 after
 * saying so (the caller then exits 77, ctest's skip). */
static inline int optional_file_present(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    printf("%s: not found, skipping\n", path);
    return 0;
  }
  fclose(f);
  return 1;
}

#endif
