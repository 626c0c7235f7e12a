/* fuzz_check.h: what every fuzz target checks about a parser's result: the documented
 * invariants of a loaded scene, and that an error message is one printable line naming the
 * file. A broken invariant aborts, which libFuzzer (and the replay driver) report as a crash. */
#ifndef SPLATSORT_FUZZ_CHECK_H
#define SPLATSORT_FUZZ_CHECK_H

#include "splat_scene.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Abort with the reason on stderr: libFuzzer keeps the input as crash-<sha1>. */
#define FUZZ_REQUIRE(cond, ...)                                   \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "fuzz check failed: %s: ", #cond);          \
      fprintf(stderr, __VA_ARGS__);                               \
      fputc('\n', stderr);                                        \
      abort();                                                    \
    }                                                             \
  } while (0)

/* Length of the UTF-8 sequence at s that encodes a printable character (no C0/C1 control,
 * no DEL, no surrogate, shortest form), or 0. */
static inline size_t fuzz_printable_utf8(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  if (c >= 0x20 && c < 0x7f) return 1;
  size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (len == 0 || n < len) return 0;
  uint32_t cp = c & (0x7fu >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((s[k] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[k] & 0x3fu);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp < 0xa0 || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0x2028 || cp == 0x2029) return 0;
  return len;
}

/* err (a buffer of err_size bytes) holds one printable line "<name>:..." that was not cut
 * short by the buffer. */
static inline void fuzz_check_message(const char *err, size_t err_size, const char *name) {
  const char *end = memchr(err, '\0', err_size);
  FUZZ_REQUIRE(end != NULL, "error message not terminated");
  size_t len = (size_t)(end - err), nlen = strlen(name);
  FUZZ_REQUIRE(len + 1 < err_size, "error message filled the %zu-byte buffer: %s", err_size, err);
  FUZZ_REQUIRE(len > nlen + 1 && memcmp(err, name, nlen) == 0 && err[nlen] == ':',
               "error message does not start with \"%s:\": %s", name, err);
  for (size_t i = 0; i < len;) {
    size_t n = fuzz_printable_utf8((const unsigned char *)err + i, len - i);
    FUZZ_REQUIRE(n > 0, "error message has an unprintable byte 0x%02x at %zu: %s", (unsigned char)err[i], i, err);
    i += n;
  }
}

/* A loader's result against scene.h: rc and *s as it returned them (a failure must leave *s
 * zeroed and one printable line naming `name` in err), freed here. */
static inline void fuzz_check_scene(int rc, splat_scene *s, const char *err, size_t err_size, const char *name) {
  if (rc != 0) {
    static const splat_scene zero;
    FUZZ_REQUIRE(rc == -1, "return value %d", rc);
    FUZZ_REQUIRE(memcmp(s, &zero, sizeof *s) == 0, "scene not zeroed after an error");
    fuzz_check_message(err, err_size, name);
    return;
  }
  FUZZ_REQUIRE(s->count > 0, "a loaded scene has no splats");
  FUZZ_REQUIRE(s->sh_degree <= SPLAT_SCENE_MAX_SH_DEGREE, "SH degree %u", s->sh_degree);
  FUZZ_REQUIRE(s->sh_coeffs == (s->sh_degree + 1) * (s->sh_degree + 1), "%u coefficients at degree %u",
               s->sh_coeffs, s->sh_degree);
  FUZZ_REQUIRE(s->positions && s->scales && s->rotations && s->opacities && s->sh, "missing array");
  FUZZ_REQUIRE(s->clamped <= s->count, "%u clamped of %u kept", s->clamped, s->count);
  float lo[3], hi[3];
  memcpy(lo, s->positions, sizeof lo);
  memcpy(hi, s->positions, sizeof hi);
  for (uint32_t i = 0; i < s->count; ++i) {
    double n = 0;
    for (int c = 0; c < 4; ++c) {
      float q = s->rotations[i * 4 + c];
      FUZZ_REQUIRE(isfinite(q), "splat %u: rotation not finite", i);
      n += (double)q * q;
    }
    FUZZ_REQUIRE(fabs(n - 1.0) <= 1e-4, "splat %u: |q|^2 = %g", i, n);
    FUZZ_REQUIRE(s->opacities[i] >= 0.0f && s->opacities[i] <= 1.0f, "splat %u: opacity %g", i,
                 (double)s->opacities[i]);
    for (int c = 0; c < 3; ++c) {
      float p = s->positions[i * 3 + c], sc = s->scales[i * 3 + c];
      FUZZ_REQUIRE(isfinite(p) && isfinite(sc) && sc >= 0.0f, "splat %u: position %g scale %g", i, (double)p,
                   (double)sc);
      lo[c] = p < lo[c] ? p : lo[c];
      hi[c] = p > hi[c] ? p : hi[c];
    }
    for (uint32_t k = 0; k < s->sh_coeffs * 3; ++k)
      FUZZ_REQUIRE(isfinite(s->sh[(size_t)i * s->sh_coeffs * 3 + k]), "splat %u: SH %u not finite", i, k);
  }
  FUZZ_REQUIRE(memcmp(lo, s->bounds_min, sizeof lo) == 0 && memcmp(hi, s->bounds_max, sizeof hi) == 0,
               "bounds are not those of the positions");
  splat_scene_free(s);
}

/* Loads `size` bytes as the file `name` and checks the result against scene.h. */
static inline void fuzz_scene(const uint8_t *data, size_t size, const char *name) {
  /* A copy of exactly `size` bytes, so a read past the end is caught. */
  uint8_t *copy = malloc(size ? size : 1);
  if (copy == NULL) return;
  if (size) memcpy(copy, data, size);
  splat_scene s;
  char err[1024];
  memset(&s, 0xa5, sizeof s); /* the loader must overwrite all of it */
  int rc = splat_scene_load_memory(copy, size, name, &s, err, sizeof err);
  free(copy);
  fuzz_check_scene(rc, &s, err, sizeof err, name);
}

#endif /* SPLATSORT_FUZZ_CHECK_H */
