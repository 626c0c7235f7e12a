/* test_spz: CPU tests of the .spz reader and writer (src/scene/scene_spz.c). The test has its
 * own encoder and decoder of the format's fields, written from the format's README, and its own
 * gzip and ZSTD containers (zlib and libzstd directly), so the loader is checked against an
 * independent reading of the format, and the writer against the format's quantisation bounds.
 *
 *   test_spz roundtrip TMPDIR           splat_scene_write_spz -> load, SH degrees 0..3: every value
 *                                       within its quantisation step (rotations: as an angle)
 *   test_spz legacy TMPDIR              hand-built version 1, 2, 3 (gzip) and 4 files, each
 *                                       encoding, extension records, flags
 *   test_spz malformed TMPDIR           every error case; every truncation; random corruption
 *   test_spz convert SPLATVIEW TMPDIR   splatview --convert .ply -> .spz -> .ply
 *   test_spz seeds DIR [ASSET.ply]      writes the fuzz seeds (tests/fuzz/corpus/spz)
 */
#include "check.h"
#include "splat_scene.h"
#include "scene_check.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>
#include <zstd.h>

#define SQRT1_2 0.70710678118654752440
#define COLOR_SCALE 0.15 /* f_dc -> byte: f_dc * 0.15 * 255 + 127.5 */

/* ---- small helpers ------------------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void) { return splitmix64(&rng_state); }
static double urand(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) * 0x1.0p-53; }
static long irand(long lo, long hi) { return lo + (long)(rnd() % (uint64_t)(hi - lo + 1)); }

typedef struct buf { uint8_t *data; size_t size, cap; } buf;

static void put(buf *b, const void *p, size_t n) {
  if (b->size + n > b->cap) {
    b->cap = (b->size + n) * 2 + 256;
    b->data = realloc(b->data, b->cap);
    if (!b->data) abort();
  }
  if (n) memcpy(b->data + b->size, p, n);
  b->size += n;
}
static void put_u8(buf *b, uint32_t v) {
  uint8_t x = (uint8_t)v;
  put(b, &x, 1);
}
static void put_u32(buf *b, uint32_t v) {
  for (int i = 0; i < 4; ++i) put_u8(b, v >> (8 * i));
}
static void put_u64(buf *b, uint64_t v) {
  put_u32(b, (uint32_t)v);
  put_u32(b, (uint32_t)(v >> 32));
}
static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static char tmpdir[512];
static const char *tmp_path(const char *name) {
  static char p[4][1024];
  static int which;
  which = (which + 1) % 4;
  snprintf(p[which], sizeof p[which], "%s/%s", tmpdir, name);
  return p[which];
}
static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *d = malloc((size_t)n + 1);
  if (fread(d, 1, (size_t)n, f) != (size_t)n) abort();
  fclose(f);
  *size = (size_t)n;
  return d;
}

/* The rotation between two unit quaternions, in radians (q and -q are the same rotation);
 * atan2 of the chord lengths stays accurate where acos of the dot product does not. */
static double rotation_angle(const double *a, const float *b) {
  double dot = 0, d2 = 0, s2 = 0;
  for (int c = 0; c < 4; ++c) dot += a[c] * b[c];
  double sg = dot < 0 ? -1.0 : 1.0;
  for (int c = 0; c < 4; ++c) {
    d2 += (a[c] - sg * b[c]) * (a[c] - sg * b[c]);
    s2 += (a[c] + sg * b[c]) * (a[c] + sg * b[c]);
  }
  return 4.0 * atan2(sqrt(d2), sqrt(s2));
}

/* Invariants of any loaded scene (scene.h). */
static void check_invariants(const char *what, const splat_scene *s) {
  CHECK(s->count > 0 && s->sh_degree <= 3 && s->sh_coeffs == (s->sh_degree + 1) * (s->sh_degree + 1),
        "%s: count %u degree %u coeffs %u", what, s->count, s->sh_degree, s->sh_coeffs);
  for (uint32_t i = 0; i < s->count; ++i) {
    double n = 0;
    for (int c = 0; c < 4; ++c) n += (double)s->rotations[i * 4 + c] * s->rotations[i * 4 + c];
    CHECK(fabs(n - 1.0) < 1e-5, "%s: splat %u |q|^2 = %g", what, i, n);
    CHECK(s->opacities[i] >= 0.0f && s->opacities[i] <= 1.0f, "%s: splat %u opacity %g", what, i, (double)s->opacities[i]);
    for (int c = 0; c < 3; ++c)
      CHECK(isfinite(s->positions[i * 3 + c]) && isfinite(s->scales[i * 3 + c]) && s->scales[i * 3 + c] >= 0.0f,
            "%s: splat %u position/scale", what, i);
    for (uint32_t k = 0; k < s->sh_coeffs * 3; ++k)
      CHECK(isfinite(s->sh[(size_t)i * s->sh_coeffs * 3 + k]), "%s: splat %u SH %u", what, i, k);
  }
}

/* ---- the format, as the test reads it ----------------------------------------------------------
 * One splat's values in our (.ply) axes: position, log scale, opacity, f_dc, SH beyond DC
 * (coefficient-major, channel fastest), rotation w, x, y, z (unit). */
typedef struct tsplat {
  double p[3], log_s[3], opacity, dc[3], sh[45], q[4];
} tsplat;

/* The sign each SH basis function (1..15) takes when x, y, z flip by fx, fy, fz: the spz README's
 * coordinate table, i.e. the parity of each 3DGS basis polynomial (y, z, x, xy, yz, 3z^2-1, xz,
 * x^2-y^2, y(3x^2-y^2), xyz, y(4z^2-x^2-y^2), z(2z^2-3x^2-3y^2), x(4z^2-x^2-y^2), z(x^2-y^2),
 * x(x^2-3y^2)). */
static double sh_sign(int k, const double f[3]) {
  double x = f[0], y = f[1], z = f[2];
  const double s[15] = {y, z, x, x * y, y * z, 1, x * z, 1, y, x * y * z, y, z, x, z, x};
  return s[k];
}

/* The .spz library's coordinate systems: value -> flips from it to .ply's x right, y down,
 * z forward (RDF = 6): LDB, RDB, LUB, RUB, LDF, RDF, LUF, RUF. */
static void system_flips(int system, double f[3]) {
  static const char *const names[8] = {"LDB", "RDB", "LUB", "RUB", "LDF", "RDF", "LUF", "RUF"};
  const char *n = names[system - 1];
  f[0] = n[0] == 'R' ? 1 : -1;
  f[1] = n[1] == 'D' ? 1 : -1;
  f[2] = n[2] == 'F' ? 1 : -1;
}

static uint16_t to_half(double x) {
  uint16_t sign = x < 0 ? 0x8000 : 0;
  x = fabs(x);
  if (x >= 65520) return sign | 0x7c00; /* rounds past the largest half, 65504: infinite */
  if (x < ldexp(1, -14)) return sign | (uint16_t)lround(ldexp(x, 24));
  int e;
  double m = frexp(x, &e); /* x = m 2^e, m in [0.5, 1) */
  long mant = lround((2 * m - 1) * 1024);
  if (mant == 1024) mant = 0, e++;
  return sign | (uint16_t)((e + 14) << 10) | (uint16_t)mant;
}
static double from_half(uint16_t h) {
  int ex = (h >> 10) & 31, man = h & 1023;
  double s = h & 0x8000 ? -1 : 1;
  if (ex == 0) return s * ldexp(man, -24);
  if (ex == 31) return man ? NAN : s * INFINITY;
  return s * ldexp(1024 + man, ex - 25);
}

static uint8_t byte_of(double x) { return (uint8_t)(x <= 0 ? 0 : x >= 255 ? 255 : floor(x + 0.5)); }

/* The six attribute streams of n splats, as a writer in `system` (1..8) would store them. */
typedef struct tpacked {
  buf s[6];
} tpacked;

static void tpacked_free(tpacked *p) {
  for (int a = 0; a < 6; ++a) free(p->s[a].data);
  memset(p, 0, sizeof *p);
}

static void encode(const tsplat *t, int n, int degree, int version, int fb, int system, tpacked *out) {
  memset(out, 0, sizeof *out);
  double f[3];
  system_flips(system, f); /* RDF -> system: the same flips */
  int dim = (degree + 1) * (degree + 1) - 1;
  for (int i = 0; i < n; ++i) {
    const tsplat *s = &t[i];
    for (int c = 0; c < 3; ++c) {
      double p = s->p[c] * f[c];
      if (version == 1) {
        uint16_t h = to_half(p);
        put(&out->s[0], &h, 2);
      } else {
        int32_t v = (int32_t)lround(ldexp(p, fb));
        for (int k = 0; k < 3; ++k) put_u8(&out->s[0], (uint32_t)v >> (8 * k));
      }
    }
    put_u8(&out->s[1], byte_of(s->opacity * 255));
    for (int c = 0; c < 3; ++c) put_u8(&out->s[2], byte_of(s->dc[c] * COLOR_SCALE * 255 + 127.5));
    for (int c = 0; c < 3; ++c) put_u8(&out->s[3], byte_of((s->log_s[c] + 10) * 16));
    /* x, y, z, w in the stored axes */
    double q[4] = {s->q[1] * f[1] * f[2], s->q[2] * f[0] * f[2], s->q[3] * f[0] * f[1], s->q[0]};
    if (version >= 3) {
      int L = 0;
      for (int k = 1; k < 4; ++k)
        if (fabs(q[k]) > fabs(q[L])) L = k;
      double sg = q[L] < 0 ? -1 : 1;
      uint32_t comp = (uint32_t)L;
      for (int k = 0; k < 4; ++k) {
        if (k == L) continue;
        double v = q[k] * sg;
        long mag = lround(fabs(v) / SQRT1_2 * 511);
        comp = comp << 10 | (uint32_t)(v < 0) << 9 | (uint32_t)(mag > 511 ? 511 : mag);
      }
      put_u32(&out->s[4], comp);
    } else {
      double sg = q[3] < 0 ? -1 : 1;
      for (int k = 0; k < 3; ++k) put_u8(&out->s[4], byte_of(q[k] * sg * 127.5 + 127.5));
    }
    for (int k = 0; k < dim; ++k)
      for (int c = 0; c < 3; ++c) {
        int bucket = k < 3 ? 8 : 16;
        int v = (int)lround(s->sh[k * 3 + c] * sh_sign(k, f) * 128) + 128;
        v = (v + bucket / 2) / bucket * bucket;
        put_u8(&out->s[5], (uint32_t)(v < 0 ? 0 : v > 255 ? 255 : v));
      }
  }
}

/* What a reader must make of splat i of p (in `system`'s axes), in our axes: the formulas of
 * the README. Rotation w, x, y, z normalised; positions may be non-finite (version 1). */
static void decode(const tpacked *p, int i, int degree, int version, int fb, int system, tsplat *d) {
  double f[3];
  system_flips(system, f);
  int dim = (degree + 1) * (degree + 1) - 1;
  for (int c = 0; c < 3; ++c) {
    if (version == 1) {
      const uint8_t *b = p->s[0].data + (size_t)i * 6 + c * 2;
      d->p[c] = from_half((uint16_t)(b[0] | b[1] << 8)) * f[c];
    } else {
      const uint8_t *b = p->s[0].data + (size_t)i * 9 + c * 3;
      int32_t v = b[0] | b[1] << 8 | b[2] << 16;
      if (v & 0x800000) v -= 1 << 24;
      d->p[c] = ldexp(v, -fb) * f[c];
    }
    d->dc[c] = (p->s[2].data[i * 3 + c] / 255.0 - 0.5) / COLOR_SCALE;
    d->log_s[c] = p->s[3].data[i * 3 + c] / 16.0 - 10;
  }
  d->opacity = p->s[1].data[i] / 255.0;
  double q[4], sum = 0;
  if (version >= 3) {
    uint32_t comp = get_u32(p->s[4].data + (size_t)i * 4);
    int L = (int)(comp >> 30);
    for (int k = 3; k >= 0; --k) {
      if (k == L) continue;
      double v = SQRT1_2 * (comp & 511) / 511.0;
      q[k] = (comp >> 9 & 1) ? -v : v;
      sum += v * v;
      comp >>= 10;
    }
    q[L] = sqrt(fmax(0, 1 - sum));
  } else {
    for (int k = 0; k < 3; ++k) {
      q[k] = p->s[4].data[i * 3 + k] / 127.5 - 1;
      sum += q[k] * q[k];
    }
    q[3] = sqrt(fmax(0, 1 - sum));
  }
  double w = q[3], x = q[0] * f[1] * f[2], y = q[1] * f[0] * f[2], z = q[2] * f[0] * f[1];
  double nq = sqrt(w * w + x * x + y * y + z * z);
  d->q[0] = w / nq, d->q[1] = x / nq, d->q[2] = y / nq, d->q[3] = z / nq;
  for (int k = 0; k < dim; ++k)
    for (int c = 0; c < 3; ++c)
      d->sh[k * 3 + c] = (p->s[5].data[((size_t)i * dim + k) * 3 + c] - 128) / 128.0 * sh_sign(k, f);
}

/* ---- containers ---------------------------------------------------------------------------- */

static void gzip_into(buf *out, const buf *raw) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
  out->size = 0;
  size_t cap = deflateBound(&z, raw->size) + 64;
  out->data = realloc(out->data, cap);
  out->cap = cap;
  z.next_in = raw->data;
  z.avail_in = (uInt)raw->size;
  z.next_out = out->data;
  z.avail_out = (uInt)cap;
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
  out->size = cap - z.avail_out;
  deflateEnd(&z);
}

/* Versions 1-3 (and 4 in the old layout): header + attributes + trailing bytes, gzipped. */
static void make_legacy(buf *out, uint32_t version, uint32_t n, int degree, int fb, int flags, const tpacked *p,
                        const void *trailing, size_t ntrail) {
  buf raw = {0};
  put_u32(&raw, 0x5053474e);
  put_u32(&raw, version);
  put_u32(&raw, n);
  put_u8(&raw, (uint32_t)degree);
  put_u8(&raw, (uint32_t)fb);
  put_u8(&raw, (uint32_t)flags);
  put_u8(&raw, 0);
  for (int a = 0; a < 6; ++a) put(&raw, p->s[a].data, p->s[a].size);
  put(&raw, trailing, ntrail);
  gzip_into(out, &raw);
  free(raw.data);
}

/* Version 4: header, extension bytes, table, one ZSTD stream per non-empty attribute (split in
 * two frames when `split`). */
static void make_v4(buf *out, uint32_t n, int degree, int fb, int flags, const tpacked *p, const void *ext,
                    size_t next, bool split) {
  buf z[6] = {{0}};
  int ns = 0;
  for (int a = 0; a < 6; ++a) {
    if (p->s[a].size == 0) continue;
    size_t parts = split && p->s[a].size > 1 ? 2 : 1, at = 0;
    for (size_t k = 0; k < parts; ++k) {
      size_t len = parts == 1 ? p->s[a].size : k == 0 ? p->s[a].size / 2 : p->s[a].size - at;
      size_t bound = ZSTD_compressBound(len);
      uint8_t *tmp = malloc(bound);
      size_t zs = ZSTD_compress(tmp, bound, p->s[a].data + at, len, 3);
      if (ZSTD_isError(zs)) abort();
      put(&z[ns], tmp, zs);
      free(tmp);
      at += len;
    }
    ns++;
  }
  out->size = 0;
  put_u32(out, 0x5053474e);
  put_u32(out, 4);
  put_u32(out, n);
  put_u8(out, (uint32_t)degree);
  put_u8(out, (uint32_t)fb);
  put_u8(out, (uint32_t)flags);
  put_u8(out, (uint32_t)ns);
  put_u32(out, (uint32_t)(32 + next));
  for (int k = 0; k < 12; ++k) put_u8(out, 0);
  put(out, ext, next);
  for (int a = 0, k = 0; a < 6; ++a) {
    if (p->s[a].size == 0) continue;
    put_u64(out, z[k].size);
    put_u64(out, p->s[a].size);
    k++;
  }
  for (int k = 0; k < ns; ++k) {
    put(out, z[k].data, z[k].size);
    free(z[k].data);
  }
}

/* ---- values -------------------------------------------------------------------------------- */

static void random_unit_quat(double q[4]) {
  double n;
  do {
    n = 0;
    for (int c = 0; c < 4; ++c) {
      q[c] = urand(-1, 1);
      n += q[c] * q[c];
    }
  } while (n < 1e-4 || n > 1);
  for (int c = 0; c < 4; ++c) q[c] /= sqrt(n);
}

/* Splats in range of every field, edges included: positions within +-extent, log scales across
 * [-11, 7] (beyond the format's [-10, 5.94]), opacities in [0, 1] with 0 and 1, colours across
 * [-4, 4] (beyond +-3.33), SH across [-1.2, 1.2] (beyond [-1, 1]), rotations uniform plus
 * axis-aligned ones and ties between the largest components. */
static void random_splats(tsplat *t, int n, double extent) {
  static const double special_q[][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, -1}, {0.5, 0.5, 0.5, 0.5},
                                        {SQRT1_2, -SQRT1_2, 0, 0}, {-0.5, 0.5, -0.5, 0.5}};
  for (int i = 0; i < n; ++i) {
    tsplat *s = &t[i];
    memset(s, 0, sizeof *s);
    for (int c = 0; c < 3; ++c) {
      s->p[c] = urand(-extent, extent);
      s->log_s[c] = urand(-11, 7);
      s->dc[c] = urand(-4, 4);
    }
    if (i < 3) s->p[i] = i == 0 ? extent : -extent;
    s->opacity = i % 17 == 0 ? 0.0 : i % 17 == 1 ? 1.0 : urand(0, 1);
    for (int k = 0; k < 45; ++k) s->sh[k] = i % 5 == 0 ? urand(-1.2, 1.2) : urand(-1, 1);
    if (i < (int)(sizeof special_q / sizeof special_q[0])) memcpy(s->q, special_q[i], sizeof s->q);
    else random_unit_quat(s->q);
  }
}

/* A scene of n splats from t (values activated as splat_scene stores them). */
static void scene_from(const tsplat *t, int n, int degree, splat_scene *s) {
  memset(s, 0, sizeof *s);
  s->count = (uint32_t)n;
  s->sh_degree = (uint32_t)degree;
  s->sh_coeffs = (uint32_t)((degree + 1) * (degree + 1));
  s->positions = malloc(sizeof(float) * 3 * (size_t)n);
  s->scales = malloc(sizeof(float) * 3 * (size_t)n);
  s->rotations = malloc(sizeof(float) * 4 * (size_t)n);
  s->opacities = malloc(sizeof(float) * (size_t)n);
  s->sh = malloc(sizeof(float) * 3 * s->sh_coeffs * (size_t)n);
  if (!s->positions || !s->scales || !s->rotations || !s->opacities || !s->sh) abort();
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      s->positions[i * 3 + c] = (float)t[i].p[c];
      s->scales[i * 3 + c] = (float)exp(t[i].log_s[c]);
      s->sh[(size_t)i * s->sh_coeffs * 3 + c] = (float)t[i].dc[c];
    }
    for (int c = 0; c < 4; ++c) s->rotations[i * 4 + c] = (float)t[i].q[c];
    s->opacities[i] = (float)t[i].opacity;
    for (uint32_t k = 1; k < s->sh_coeffs; ++k)
      for (int c = 0; c < 3; ++c) s->sh[((size_t)i * s->sh_coeffs + k) * 3 + c] = (float)t[i].sh[(k - 1) * 3 + c];
  }
}

/* The quantisation bounds. A value outside a field's range decodes to the range's end. */
#define H_SMALLEST3 (SQRT1_2 / 511 / 2) /* half a step of the smallest-three components */
#define H_FIRST3 (1 / 255.0)            /* ... of the 8-bit x, y, z of versions 1-2 */
static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* The rotation error bound of an encoding whose three stored components are within h each,
 * the fourth derived: with s the stored three and g = sqrt(1 - |s|^2) the derived one,
 * |dq| <= |ds| sqrt(1 + |s|^2 / g^2) <= sqrt(3) h * 2 when g >= 1/2 (the largest of four unit
 * components, or, in versions 1-2, w >= 1/2 by the test's choice); the rotation angle is
 * 4 asin(|dq| / 2). 1% for the decoded component's own rounding. */
static double angle_bound(double h) { return 4 * asin(1.01 * sqrt(3.0) * h); }

/* Splat i of the loaded scene against the true values t (bounds) and, when d is given, against
 * the test's own decoding of the same bytes (exact up to float rounding). */
static void check_splat(const char *what, const splat_scene *s, uint32_t i, const tsplat *t, const tsplat *d,
                        int fb, int version, int system) {
  double f[3];
  system_flips(system, f);
  double pos_tol = version == 1 ? 0 : 0.5 * ldexp(1, -fb);
  double rot_tol = version >= 3 ? angle_bound(H_SMALLEST3) : angle_bound(H_FIRST3);
  const float *sh = s->sh + (size_t)i * s->sh_coeffs * 3;
  for (int c = 0; c < 3; ++c) {
    double p = s->positions[i * 3 + c];
    double tol = version == 1 ? fabs(t->p[c]) * 0x1p-11 + 0x1p-25 : pos_tol + fabs(t->p[c]) * 0x1p-23;
    CHECK(fabs(p - t->p[c]) <= tol, "%s splat %u: position[%d] %.9g, true %.9g (tolerance %.3g)", what, i, c, p,
          t->p[c], tol);
    double ls = log(s->scales[i * 3 + c]), want = clampd(t->log_s[c], -10, 5.9375);
    CHECK(fabs(ls - want) <= 1 / 32.0 + 1e-5, "%s splat %u: log scale[%d] %.6g, true %.6g", what, i, c, ls, t->log_s[c]);
    double dcmax = 127.5 / (COLOR_SCALE * 255);
    double dc = sh[c], dcw = clampd(t->dc[c], -dcmax, dcmax);
    CHECK(fabs(dc - dcw) <= 0.5 / (COLOR_SCALE * 255) + 1e-6, "%s splat %u: f_dc[%d] %.6g, true %.6g", what, i, c, dc,
          t->dc[c]);
  }
  CHECK(fabs(s->opacities[i] - t->opacity) <= 0.5 / 255 + 1e-7, "%s splat %u: opacity %.6g, true %.6g", what, i,
        (double)s->opacities[i], t->opacity);
  double ang = rotation_angle(t->q, s->rotations + (size_t)i * 4);
  CHECK(ang <= rot_tol, "%s splat %u: rotation %.3g rad from the true one (bound %.3g)", what, i, ang, rot_tol);
  for (uint32_t k = 1; k < s->sh_coeffs; ++k)
    for (int c = 0; c < 3; ++c) {
      double x = t->sh[(k - 1) * 3 + c], got = sh[k * 3 + c], sg = sh_sign((int)k - 1, f);
      /* 8-bit rounding, then to the bucket centre: half of each. Beyond [-1, 1] (in the stored
       * axes, where the sign may differ) the end bytes: -1 and 127/128. */
      double tol = (k <= 3 ? 4.5 : 8.5) / 128 + 1e-6, want = sg * clampd(sg * x, -1, 127 / 128.0);
      CHECK(fabs(got - want) <= (fabs(x) > 1 ? 1e-6 : tol), "%s splat %u: SH %u.%d %.6g, true %.6g", what, i, k, c, got,
            x);
    }
  if (d == NULL) return;
  for (int c = 0; c < 3; ++c) {
    CHECK(d->p[c] == s->positions[i * 3 + c] || (isnan(d->p[c]) && isnan(s->positions[i * 3 + c])),
          "%s splat %u: position[%d] %.9g, decoded by the test %.9g", what, i, c, (double)s->positions[i * 3 + c],
          d->p[c]);
    CHECK_REL(s->scales[i * 3 + c], exp(d->log_s[c]), 1e-6);
    CHECK_NEAR(sh[c], d->dc[c], 1e-6);
  }
  CHECK_NEAR(s->opacities[i], d->opacity, 1e-7);
  for (int c = 0; c < 4; ++c) CHECK_NEAR(s->rotations[i * 4 + c], d->q[c], 2e-6);
  for (uint32_t k = 1; k < s->sh_coeffs; ++k)
    for (int c = 0; c < 3; ++c) CHECK_NEAR(sh[k * 3 + c], d->sh[(k - 1) * 3 + c], 1e-7);
}

static int load_mem(const char *name, const buf *b, splat_scene *s) {
  char err[512];
  if (splat_scene_load_memory(b->data, b->size, name, s, err, sizeof err) != 0) {
    CHECK(0, "%s did not load: %s", name, err);
    return -1;
  }
  check_invariants(name, s);
  return 0;
}

/* ---- roundtrip: our writer, our reader ------------------------------------------------------- */

static void roundtrip_case(const char *tag, int n, int degree, double extent, int want_fb, bool aa) {
  tsplat *t = malloc(sizeof *t * (size_t)n);
  random_splats(t, n, extent);
  splat_scene s;
  scene_from(t, n, degree, &s);
  s.flags = aa ? SPLAT_SCENE_ANTIALIASED : 0;
  char err[512], name[128];
  snprintf(name, sizeof name, "%s.spz", tag);
  const char *path = tmp_path(name);
  CHECK(splat_scene_write_spz(path, &s, err, sizeof err) == 0, "%s: %s", tag, err);
  splat_scene_free(&s);
  size_t size;
  uint8_t *file = read_file(path, &size);
  if (!file || size < 32) {
    CHECK(0, "%s: no file", tag);
    free(t);
    free(file);
    return;
  }
  /* the header the format defines */
  CHECK(get_u32(file) == 0x5053474e && get_u32(file + 4) == 4 && get_u32(file + 8) == (uint32_t)n, "%s: header", tag);
  CHECK(file[12] == degree && file[13] == want_fb && file[14] == (aa ? 1 : 0) && file[15] == (degree ? 6 : 5) &&
            get_u32(file + 16) == 32,
        "%s: header degree %u bits %u flags %u streams %u toc %u", tag, file[12], file[13], file[14], file[15],
        get_u32(file + 16));
  free(file);
  splat_scene r;
  if (splat_scene_load(path, &r, err, sizeof err) != 0) {
    CHECK(0, "%s: %s", tag, err);
    free(t);
    return;
  }
  check_invariants(tag, &r);
  CHECK(r.count == (uint32_t)n && r.sh_degree == (uint32_t)degree && r.dropped == 0, "%s: %u splats degree %u", tag,
        r.count, r.sh_degree);
  CHECK(r.flags == (aa ? SPLAT_SCENE_ANTIALIASED : 0u), "%s: flags %u", tag, r.flags);
  double worst_angle = 0;
  for (uint32_t i = 0; i < r.count && i < (uint32_t)n; ++i) {
    check_splat(tag, &r, i, &t[i], NULL, want_fb, 4, 4);
    worst_angle = fmax(worst_angle, rotation_angle(t[i].q, r.rotations + (size_t)i * 4));
  }
  printf("  %-22s %6d splats, SH %d, %2d fractional bits: within bounds (largest rotation error %.2e rad, bound %.2e)\n",
         tag, n, degree, want_fb, worst_angle, angle_bound(H_SMALLEST3));
  splat_scene_free(&r);
  free(t);
}

static void test_roundtrip(void) {
  rng_state = 1401;
  for (int degree = 0; degree <= 3; ++degree) {
    char tag[64];
    snprintf(tag, sizeof tag, "roundtrip_sh%d", degree);
    roundtrip_case(tag, 3000 + degree, degree, 50.0, 12, degree == 2);
  }
  /* positions past +-2048 take fewer fractional bits, so that they fit the 24 bits */
  roundtrip_case("far_2500", 200, 1, 2500.0, 11, false);
  roundtrip_case("far_1e6", 200, 0, 1.0e6, 3, true);
  roundtrip_case("one_splat", 1, 3, 0.5, 12, false);
  roundtrip_case("chunk_plus_one", 4097, 0, 1.0, 12, false);

  /* what cannot be written */
  tsplat t[2];
  random_splats(t, 2, 1.0);
  splat_scene s;
  char err[512];
  scene_from(t, 2, 1, &s);
  s.positions[4] = 9.0e6f;
  CHECK(splat_scene_write_spz(tmp_path("far.spz"), &s, err, sizeof err) == -1 && strstr(err, "too far") &&
            strstr(err, "/far.spz: ") != NULL,
        "9e6: '%s'", err);
  s.positions[4] = NAN;
  CHECK(splat_scene_write_spz(tmp_path("nan.spz"), &s, err, sizeof err) == -1 && strstr(err, "not finite"), "NaN: '%s'",
        err);
  s.positions[4] = 0;
  s.sh_coeffs = 5;
  CHECK(splat_scene_write_spz(tmp_path("bad.spz"), &s, err, sizeof err) == -1 && strstr(err, "coefficients"), "coeffs: '%s'",
        err);
  s.sh_coeffs = 4;
  CHECK(splat_scene_write_spz("/nonexistent-dir/x.spz", &s, err, sizeof err) == -1 && strstr(err, "cannot create"),
        "missing folder: '%s'", err);
  splat_scene_free(&s);
  splat_scene empty = {0};
  CHECK(splat_scene_write_spz(tmp_path("empty.spz"), &empty, err, sizeof err) == -1 && strstr(err, "empty"), "empty: '%s'",
        err);
}

/* ---- hand-built files of every version --------------------------------------------------------- */

/* Encodes t with the test's encoder, wraps it, loads it and checks every splat against the true
 * values and the test's decoding. */
static void legacy_case(const char *tag, int version, int degree, int n, bool v4_layout, int system,
                        const buf *ext_records, int flags) {
  tsplat *t = malloc(sizeof *t * (size_t)n), *d = malloc(sizeof *d * (size_t)n);
  random_splats(t, n, version == 1 ? 60.0 : 100.0);
  if (version <= 2) /* keep w >= 1/2, where the derived w has a bounded error (angle_bound) */
    for (int i = 0; i < n; ++i)
      while (fabs(t[i].q[0]) < 0.5) random_unit_quat(t[i].q);
  int fb = version == 1 ? 0 : 12 - (int)irand(0, 4);
  tpacked p;
  encode(t, n, degree, version, fb, system, &p);
  for (int i = 0; i < n; ++i) decode(&p, i, degree, version, fb, system, &d[i]);
  buf file = {0};
  const void *ext = ext_records ? ext_records->data : NULL;
  size_t next = ext_records ? ext_records->size : 0;
  if (v4_layout)
    make_v4(&file, (uint32_t)n, degree, fb, flags, &p, ext, next, n % 2 == 1);
  else
    make_legacy(&file, (uint32_t)version, (uint32_t)n, degree, fb, flags, &p, ext, next);
  char name[128];
  snprintf(name, sizeof name, "%s.spz", tag);
  splat_scene s;
  if (load_mem(name, &file, &s) == 0) {
    CHECK(s.count == (uint32_t)n && s.sh_degree == (uint32_t)degree, "%s: %u splats SH %u", tag, s.count, s.sh_degree);
    CHECK(s.flags == ((flags & 1) ? SPLAT_SCENE_ANTIALIASED : 0u), "%s: flags %u", tag, s.flags);
    for (uint32_t i = 0; i < s.count && i < (uint32_t)n; ++i) check_splat(tag, &s, i, &t[i], &d[i], fb, version, system);
    splat_scene_free(&s);
    printf("  %-34s version %d, SH %d, %4d splats, %6zu bytes: as decoded by the test, within bounds\n", tag, version,
           degree, n, file.size);
  }
  free(file.data);
  tpacked_free(&p);
  free(t);
  free(d);
}

static void ext_record(buf *b, uint32_t type, const void *payload, uint32_t len) {
  put_u32(b, type);
  put_u32(b, len);
  put(b, payload, len);
}

/* Arbitrary bytes in every field decode as the formulas say: half floats of every kind
 * (infinite and NaN positions drop their splat), smallest-three words whose three exceed 1,
 * first-three bytes whose x, y, z exceed 1. */
static void any_bytes_case(int version) {
  enum { N = 700 };
  int degree = 3, dim = 15, fb = version == 1 ? 0 : (int)irand(0, 23);
  tpacked p;
  memset(&p, 0, sizeof p);
  size_t per[6] = {version == 1 ? 6u : 9u, 1, 3, 3, version >= 3 ? 4u : 3u, (size_t)dim * 3};
  int nonfinite = 0;
  for (int a = 0; a < 6; ++a)
    for (size_t k = 0; k < per[a] * N; ++k) put_u8(&p.s[a], (uint32_t)rnd());
  if (version == 1) { /* a few infinities and NaNs */
    for (int i = 0; i < N; i += 50) {
      uint16_t h = i % 100 ? 0x7c00 : 0xfe01;
      memcpy(p.s[0].data + (size_t)i * 6 + 2, &h, 2);
    }
  }
  tsplat d[N];
  for (int i = 0; i < N; ++i) {
    decode(&p, i, degree, version, fb, 4, &d[i]);
    nonfinite += !(isfinite(d[i].p[0]) && isfinite(d[i].p[1]) && isfinite(d[i].p[2]));
  }
  buf file = {0};
  if (version == 4)
    make_v4(&file, N, degree, fb, 0, &p, NULL, 0, false);
  else
    make_legacy(&file, (uint32_t)version, N, degree, fb, 0, &p, NULL, 0);
  char name[64];
  snprintf(name, sizeof name, "any_bytes_v%d.spz", version);
  splat_scene s;
  if (load_mem(name, &file, &s) == 0) {
    CHECK(s.count == (uint32_t)(N - nonfinite) && s.dropped == (uint32_t)nonfinite, "%s: %u kept, %u dropped, want %d",
          name, s.count, s.dropped, nonfinite);
    uint32_t j = 0;
    for (int i = 0; i < N && j < s.count; ++i) {
      if (!(isfinite(d[i].p[0]) && isfinite(d[i].p[1]) && isfinite(d[i].p[2]))) continue;
      /* exact decoding: compare with the test's decoder only (no true values) */
      const float *sh = s.sh + (size_t)j * s.sh_coeffs * 3;
      for (int c = 0; c < 3; ++c) {
        CHECK(s.positions[j * 3 + c] == (float)d[i].p[c], "%s splat %d: position %.9g, want %.9g", name, i,
              (double)s.positions[j * 3 + c], d[i].p[c]);
        CHECK_REL(s.scales[j * 3 + c], exp(d[i].log_s[c]), 1e-6);
        CHECK_NEAR(sh[c], d[i].dc[c], 1e-6);
      }
      CHECK_NEAR(s.opacities[j], d[i].opacity, 1e-7);
      for (int c = 0; c < 4; ++c) CHECK_NEAR(s.rotations[j * 4 + c], d[i].q[c], 2e-6);
      for (int k = 0; k < dim * 3; ++k) CHECK_NEAR(sh[3 + k], d[i].sh[k], 1e-7);
      j++;
    }
    printf("  any_bytes_v%d: %d splats of random bytes decode as the formulas say (%d dropped: non-finite)\n", version,
           N, nonfinite);
    splat_scene_free(&s);
  }
  free(file.data);
  tpacked_free(&p);
}

static void test_legacy(void) {
  rng_state = 1402;
  char tag[64];
  for (int version = 1; version <= 3; ++version)
    for (int degree = 0; degree <= 3; ++degree) {
      snprintf(tag, sizeof tag, "gzip_v%d_sh%d", version, degree);
      legacy_case(tag, version, degree, 300 + 37 * degree, false, 4, NULL, degree == 1 ? 1 : 0);
    }
  legacy_case("gzip_v4_layout_sh2", 4, 2, 321, false, 4, NULL, 0); /* the reference reads this too */
  for (int degree = 0; degree <= 3; ++degree) {
    snprintf(tag, sizeof tag, "zstd_v4_sh%d", degree);
    legacy_case(tag, 4, degree, 4096 + degree, true, 4, NULL, degree == 3 ? 1 : 0);
  }
  /* extension records: the coordinate system named there, unknown records skipped */
  static const char *const names[8] = {"LDB", "RDB", "LUB", "RUB", "LDF", "RDF", "LUF", "RUF"};
  for (int system = 1; system <= 8; ++system) {
    buf ext = {0};
    uint32_t junk[3] = {1, 2, 3}, sys = (uint32_t)system;
    ext_record(&ext, 0x4e410001u, junk, sizeof junk);
    ext_record(&ext, 0xadbe0003u, &sys, 4);
    snprintf(tag, sizeof tag, "zstd_v4_ext_%s", names[system - 1]);
    legacy_case(tag, 4, 3, 200, true, system, &ext, 2);
    snprintf(tag, sizeof tag, "gzip_v3_ext_%s", names[system - 1]);
    legacy_case(tag, 3, 2, 100, false, system, &ext, 3);
    free(ext.data);
  }
  {
    /* records without the flag are not read (RUB); a record cut short ends the walk */
    buf ext = {0};
    uint32_t sys = 6;
    ext_record(&ext, 0xadbe0003u, &sys, 4);
    legacy_case("zstd_v4_ext_without_flag", 4, 1, 50, true, 4, &ext, 0);
    buf cut = {0};
    put_u32(&cut, 0xadbe0003u);
    put_u32(&cut, 400);
    put_u32(&cut, 6);
    legacy_case("zstd_v4_ext_cut_short", 4, 1, 50, true, 4, &cut, 2);
    free(ext.data);
    free(cut.data);
  }
  for (int version = 1; version <= 4; ++version) any_bytes_case(version);
}

/* ---- malformed input ---------------------------------------------------------------------- */


/* A small valid file of each kind, and its packed streams. */
typedef struct sample {
  tpacked p;
  buf v4, gz;
  int n, degree;
} sample;

static void sample_make(sample *s, int n, int degree) {
  tsplat *t = malloc(sizeof *t * (size_t)n);
  random_splats(t, n, 3.0);
  s->n = n;
  s->degree = degree;
  encode(t, n, degree, 3, 12, 4, &s->p);
  memset(&s->v4, 0, sizeof s->v4);
  memset(&s->gz, 0, sizeof s->gz);
  make_v4(&s->v4, (uint32_t)n, degree, 12, 1, &s->p, NULL, 0, false);
  make_legacy(&s->gz, 3, (uint32_t)n, degree, 12, 1, &s->p, NULL, 0);
  free(t);
}

static void sample_free(sample *s) {
  tpacked_free(&s->p);
  free(s->v4.data);
  free(s->gz.data);
}

/* A copy of b with the u32 at `at` set to v. */
static buf patched32(const buf *b, size_t at, uint32_t v) {
  buf c = {0};
  put(&c, b->data, b->size);
  for (int i = 0; i < 4; ++i) c.data[at + i] = (uint8_t)(v >> (8 * i));
  return c;
}
static buf patched8(const buf *b, size_t at, uint8_t v) {
  buf c = {0};
  put(&c, b->data, b->size);
  c.data[at] = v;
  return c;
}

static void expect_error_buf(const char *name, buf b, const char *words) {
  expect_load_error(name, b.data, b.size, words);
  free(b.data);
}

/* The legacy layout with a header of our choosing and `body` bytes of payload, gzipped. */
static buf legacy_raw(uint32_t magic, uint32_t version, uint32_t n, uint32_t degree, uint32_t flags,
                      const void *body, size_t nbody) {
  buf raw = {0}, out = {0};
  put_u32(&raw, magic);
  put_u32(&raw, version);
  put_u32(&raw, n);
  put_u8(&raw, degree);
  put_u8(&raw, 12);
  put_u8(&raw, flags);
  put_u8(&raw, 0);
  put(&raw, body, nbody);
  gzip_into(&out, &raw);
  free(raw.data);
  return out;
}

static void malformed_v4(const sample *a) {
  const buf *v = &a->v4;
  expect_load_error("short.spz", v->data, 31, "truncated|31 bytes|32-byte header");
  expect_error_buf("v5.spz", patched32(v, 4, 5), "unsupported .spz version 5");
  expect_error_buf("v0.spz", patched32(v, 4, 0), "unsupported .spz version 0");
  expect_error_buf("v2plain.spz", patched32(v, 4, 2), "version 2|gzip");
  expect_error_buf("count0.spz", patched32(v, 8, 0), "no splats");
  expect_error_buf("huge.spz", patched32(v, 8, 0xffffffffu), "4294967295 splats|more than");
  expect_error_buf("count_mismatch.spz", patched32(v, 8, (uint32_t)a->n + 1), "stream 0 (positions)|holds|need");
  expect_error_buf("sh4.spz", patched8(v, 12, 4), "SH degree 4 is not supported");
  expect_error_buf("sh200.spz", patched8(v, 12, 200), "SH degree 200");
  expect_error_buf("streams5.spz", patched8(v, 15, 5), "5 streams|needs 6");
  expect_error_buf("streams0.spz", patched8(v, 15, 0), "0 streams");
  expect_error_buf("streams255.spz", patched8(v, 15, 255), "255 streams");
  expect_error_buf("toc0.spz", patched32(v, 16, 0), "table of contents at byte 0");
  expect_error_buf("toc_far.spz", patched32(v, 16, 0xfffffff0u), "truncated|table of contents|runs past the end");
  /* table entries: the uncompressed size, the compressed size, the bytes left over */
  expect_error_buf("toc_us.spz", patched32(v, 32 + 16 * 2 + 8, 7), "stream 2 (colours) holds 7 bytes|need");
  expect_error_buf("toc_us_hi.spz", patched32(v, 32 + 16 * 5 + 12, 1), "stream 5 (SH) holds|need");
  expect_error_buf("toc_cs_big.spz", patched32(v, 32 + 16 * 5 + 4, 1),
                   "truncated|stream 5 (SH, 4294967928 bytes|runs past the end");
  {
    buf c = {0};
    put(&c, v->data, v->size);
    put_u8(&c, 0);
    expect_error_buf("trailing.spz", c, "1 bytes after the last stream");
  }
  /* compressed sizes that move the boundary between two streams */
  {
    buf c = {0};
    put(&c, v->data, v->size);
    uint32_t cs0 = get_u32(c.data + 32), cs1 = get_u32(c.data + 48);
    for (int i = 0; i < 4; ++i) c.data[32 + i] = (uint8_t)((cs0 - 1) >> (8 * i));
    for (int i = 0; i < 4; ++i) c.data[48 + i] = (uint8_t)((cs1 + 1) >> (8 * i));
    expect_error_buf("boundary.spz", c, "stream 1 (alphas) is not zstd data");
  }
  /* a stream whose zstd data is damaged: a byte in the middle of the largest stream */
  {
    buf c = {0};
    put(&c, v->data, v->size);
    size_t body = 32 + 16 * 6, at = body;
    for (int k = 0; k < 5; ++k) at += get_u32(c.data + 32 + 16 * k);
    size_t cs5 = get_u32(c.data + 32 + 16 * 5);
    int failed = 0;
    for (size_t k = 4; k < cs5; k += 7) { /* some bytes are only literal data; most break it */
      buf d = patched8(&c, at + k, (uint8_t)(c.data[at + k] ^ 0x5a));
      splat_scene s;
      char err[512];
      if (splat_scene_load_memory(d.data, d.size, "zcorrupt.spz", &s, err, sizeof err) == 0) {
        check_invariants("zcorrupt", &s);
        splat_scene_free(&s);
      } else {
        failed++;
        CHECK(strstr(err, "zcorrupt.spz: ") == err && strchr(err, '\n') == NULL, "'%s'", err);
      }
      free(d.data);
    }
    CHECK(failed > 0, "no flipped byte in the SH stream was noticed");
    memset(c.data + at, 0, 4); /* the frame's magic number */
    expect_error_buf("zmagic.spz", c, "stream 5 (SH)|not zstd data");
  }
  /* a stream holding less, or more, than its table entry says (the table patched to the count) */
  {
    tpacked q;
    memset(&q, 0, sizeof q);
    for (int k = 0; k < 6; ++k) put(&q.s[k], a->p.s[k].data, a->p.s[k].size);
    const size_t alpha_us = 32 + 16 * 1 + 8, n = (size_t)a->n;
    buf f = {0};
    q.s[1].size = n - 1;
    make_v4(&f, (uint32_t)n, a->degree, 12, 0, &q, NULL, 0, false);
    expect_error_buf("alpha_short.spz", patched32(&f, alpha_us, (uint32_t)n), "stream 1 (alphas) ends after|needs");
    q.s[1].size = n;
    put_u8(&q.s[1], 7);
    make_v4(&f, (uint32_t)n, a->degree, 12, 0, &q, NULL, 0, false);
    expect_error_buf("alpha_long.spz", patched32(&f, alpha_us, (uint32_t)n), "stream 1 (alphas)|zstd frame holds");
    make_v4(&f, (uint32_t)n, a->degree, 12, 0, &q, NULL, 0, true); /* two frames, each smaller than n */
    expect_error_buf("alpha_long2.spz", patched32(&f, alpha_us, (uint32_t)n), "stream 1 (alphas) holds more than");
    free(f.data);
    tpacked_free(&q);
  }
  /* a rotated coordinate system is refused */
  {
    buf ext = {0}, file = {0};
    uint32_t sys = 12; /* RFU */
    ext_record(&ext, 0xadbe0003u, &sys, 4);
    make_v4(&file, (uint32_t)a->n, a->degree, 12, 2, &a->p, ext.data, ext.size, false);
    expect_load_error("rotated.spz", file.data, file.size, "rotated system|12");
    free(ext.data);
    free(file.data);
  }
}

static void malformed_legacy(const sample *a) {
  size_t body = 0;
  for (int k = 0; k < 6; ++k) body += a->p.s[k].size;
  uint8_t *raw = malloc(body + 64);
  for (size_t k = 0, at = 0; k < 6; at += a->p.s[k].size, ++k) memcpy(raw + at, a->p.s[k].data, a->p.s[k].size);
  const uint32_t M = 0x5053474e, n = (uint32_t)a->n, d = (uint32_t)a->degree;
  expect_error_buf("notspz.spz", legacy_raw(0x12345678, 3, n, d, 0, raw, body), "gzip data|not a .spz file");
  expect_error_buf("gv7.spz", legacy_raw(M, 7, n, d, 0, raw, body), "unsupported .spz version 7");
  expect_error_buf("gv0.spz", legacy_raw(M, 0, n, d, 0, raw, body), "unsupported .spz version 0");
  expect_error_buf("gcount0.spz", legacy_raw(M, 3, 0, d, 0, raw, body), "no splats");
  expect_error_buf("gsh4.spz", legacy_raw(M, 3, n, 4, 0, raw, body), "SH degree 4 is not supported");
  expect_error_buf("ghuge.spz", legacy_raw(M, 3, 0xfffffff0u, d, 0, raw, body), "more than|bytes of gzip data");
  expect_error_buf("gshort.spz", legacy_raw(M, 3, n + 1, d, 0, raw, body), "ends after|count needs");
  expect_error_buf("glong.spz", legacy_raw(M, 3, n - 1, d, 0, raw, body), "more data after the|does not match");
  expect_error_buf("ghead.spz", legacy_raw(M, 3, n, d, 0, raw, 0), "ends after 16 bytes");
  {
    buf b = legacy_raw(M, 3, n, d, 0, raw, 5);
    expect_load_error("gheadcut.spz", b.data, 12, "truncated");
    free(b.data);
  }
  /* extension records past 64 KiB are refused; a rotated system too */
  {
    uint8_t *big = calloc(1, body + 70000);
    memcpy(big, raw, body);
    expect_error_buf("gext_big.spz", legacy_raw(M, 3, n, d, 2, big, body + 70000), "more than 65536 bytes of extension");
    uint8_t *rot = big + body;
    uint32_t rec[3] = {0xadbe0003u, 4, 9};
    memcpy(rot, rec, sizeof rec);
    expect_error_buf("gext_rot.spz", legacy_raw(M, 3, n, d, 2, big, body + 12), "rotated system|9");
    free(big);
  }
  /* damaged deflate data, and the gzip trailer's CRC */
  {
    buf g = {0};
    put(&g, a->gz.data, a->gz.size);
    g.data[g.size - 6] ^= 0x40;
    expect_error_buf("gcrc.spz", g, "corrupt gzip data|incorrect data check");
    buf h = {0};
    put(&h, a->gz.data, a->gz.size);
    h.data[3] = 0xe0; /* reserved flag bits */
    expect_error_buf("gflags.spz", h, "corrupt gzip data");
  }
  expect_load_error("gz1.spz", "\x1f\x8b", 2, "truncated");
  expect_load_error("junk.spz", "hello world", 11, "not a .spz file");
  expect_load_error("junk.bin", "hello world", 11, "unknown format|.spz magic");
  free(raw);
}

/* Every truncation of a small valid file of each kind, then random corruption of it: never a
 * crash; a file that loads keeps the invariants. */
static void malformed_cuts(const sample *a) {
  const buf *files[2] = {&a->v4, &a->gz};
  const char *kinds[2] = {"v4", "gz"};
  for (int f = 0; f < 2; ++f) {
    const buf *b = files[f];
    for (size_t len = 1; len < b->size; ++len) {
      char name[64];
      snprintf(name, sizeof name, "cut%zu_%s.spz", len, kinds[f]);
      /* up to the magic: not a .spz; after it, the header, the table or a stream is cut */
      const char *want = len < (f == 0 ? 4u : 2u) ? "not a .spz" : "truncated";
      expect_load_error(name, b->data, len, want);
    }
    rng_state = 7300 + (uint64_t)f;
    int loaded = 0;
    for (int iter = 0; iter < 4000; ++iter) {
      buf c = {0};
      put(&c, b->data, b->size);
      int flips = (int)irand(1, 4);
      for (int k = 0; k < flips; ++k) {
        /* half of them in the headers and the table, where the sizes are */
        size_t at = iter % 2 ? (size_t)irand(0, f == 0 ? 32 + 96 - 1 : 24) : (size_t)irand(0, (long)c.size - 1);
        c.data[at] = iter % 3 ? (uint8_t)rnd() : (uint8_t)(c.data[at] ^ (1u << irand(0, 7)));
      }
      size_t len = iter % 5 == 0 ? (size_t)irand(0, (long)c.size) : c.size;
      splat_scene s;
      char err[512];
      memset(&s, 0xa5, sizeof s);
      if (splat_scene_load_memory(c.data, len, "fuzz.spz", &s, err, sizeof err) == 0) {
        ++loaded;
        check_invariants("corrupted", &s);
        splat_scene_free(&s);
      } else {
        CHECK(is_zero_scene(&s) && strchr(err, '\n') == NULL && strncmp(err, "fuzz.spz: ", 10) == 0, "corrupted: '%s'",
              err);
      }
      free(c.data);
    }
    printf("  %s: every truncation (%zu) fails with a message; 4000 corruptions: %d loaded, the rest failed cleanly\n",
           kinds[f], b->size - 1, loaded);
    CHECK(loaded > 50, "random corruption of %s: only %d of 4000 loaded: the test tests little", kinds[f], loaded);
  }
}

/* Dispatch: the .spz magic decides whatever the name, except for .splat, whose first bytes (a
 * float) may look like gzip's. */
static void malformed_dispatch(const sample *a) {
  splat_scene s;
  char err[512];
  CHECK(splat_scene_load_memory(a->v4.data, a->v4.size, "scene.ply", &s, err, sizeof err) == 0, "v4 as .ply: %s", err);
  splat_scene_free(&s);
  CHECK(splat_scene_load_memory(a->gz.data, a->gz.size, NULL, &s, err, sizeof err) == 0, "gzip unnamed: %s", err);
  splat_scene_free(&s);
  /* a .splat whose first float starts 1f 8b: a .splat, not a .spz */
  uint8_t splat[32] = {0x1f, 0x8b, 0x10, 0x3f};
  splat[28] = 255;
  CHECK(splat_scene_load_memory(splat, sizeof splat, "x.splat", &s, err, sizeof err) == 0 && s.count == 1,
        ".splat starting 1f 8b: %s", err);
  splat_scene_free(&s);
}

static void test_malformed(void) {
  rng_state = 1403;
  sample a;
  sample_make(&a, 40, 2);
  malformed_v4(&a);
  malformed_legacy(&a);
  malformed_dispatch(&a);
  sample_free(&a);
  rng_state = 1404;
  sample_make(&a, 6, 1);
  malformed_cuts(&a);
  sample_free(&a);
}

/* ---- splatview --convert ------------------------------------------------------------------------ */

__attribute__((format(printf, 1, 2))) static int run(const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool file_has(const char *path, const char *text) {
  size_t n;
  uint8_t *d = read_file(path, &n);
  if (!d) return false;
  d[n] = 0;
  bool ok = strstr((char *)d, text) != NULL;
  free(d);
  return ok;
}

static void test_convert(const char *splatview) {
  rng_state = 1405;
  enum { N = 2500 };
  tsplat *t = malloc(sizeof *t * N);
  random_splats(t, N, 20.0);
  splat_scene s;
  scene_from(t, N, 3, &s);
  char err[512];
  const char *ply = tmp_path("in.ply"), *spz = tmp_path("out.spz"), *back = tmp_path("back.PLY");
  const char *log = tmp_path("convert.log");
  CHECK(splat_scene_write_ply(ply, &s, err, sizeof err) == 0, "%s", err);
  splat_scene_free(&s);
  CHECK(run("'%s' --convert '%s' '%s' > '%s' 2>&1", splatview, ply, spz, log) == 0, "convert .ply -> .spz failed");
  CHECK(file_has(log, "converted ") && file_has(log, "2500 splats, SH degree 3") && file_has(log, " MB"),
        "convert printed no summary");
  CHECK(run("'%s' --convert '%s' '%s' > '%s' 2>&1", splatview, spz, back, log) == 0, "convert .spz -> .PLY failed");
  splat_scene r;
  if (splat_scene_load(back, &r, err, sizeof err) == 0) {
    CHECK(r.count == N && r.sh_degree == 3, "back: %u splats SH %u", r.count, r.sh_degree);
    /* the .ply keeps float values: as close to the truth as the .spz was (scales and opacity
     * went through log/logit and back: float rounding on top) */
    for (uint32_t i = 0; i < r.count && i < N; ++i) check_splat("convert", &r, i, &t[i], NULL, 12, 4, 4);
    splat_scene_free(&r);
  } else {
    CHECK(0, "%s", err);
  }
  /* refused: an output that is not .ply or .spz, a missing input, nothing after --convert */
  CHECK(run("'%s' --convert '%s' '%s' > '%s' 2>&1", splatview, ply, tmp_path("out.png"), log) == 2 &&
            file_has(log, "OUT must end in .ply or .spz"),
        "--convert to .png not refused with the message");
  CHECK(run("'%s' --convert '%s' '%s' > '%s' 2>&1", splatview, tmp_path("missing.ply"), spz, log) == 1 &&
            file_has(log, "missing.ply: cannot open"),
        "--convert of a missing file: no message naming it");
  CHECK(run("'%s' --convert '%s' > '%s' 2>&1", splatview, ply, log) == 2 && file_has(log, "needs IN and OUT"),
        "--convert without OUT accepted");
  CHECK(run("'%s' --convert '%s' '%s' --headless > '%s' 2>&1", splatview, ply, spz, log) == 2 &&
            file_has(log, "takes no other options"),
        "--convert with --headless accepted");
  free(t);
  printf("  splatview --convert: .ply -> .spz -> .ply within the quantisation bounds; bad uses refused\n");
}

/* ---- fuzz seeds -------------------------------------------------------------------------------- */

static void seed_write(const char *dir, const char *name, const buf *b) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b->data, 1, b->size, f) != b->size || fclose(f) != 0) {
    CHECK(0, "cannot write %s", path);
    return;
  }
  printf("  %s: %zu bytes\n", name, b->size);
}

/* Small files that take every path through the reader, for tests/fuzz/corpus/spz: our writer's
 * version 4 at each SH degree, the test's own version 1-3 (gzip) and version-4 containers with
 * extension records and split frames, and the bundled scene's first splats when given. */
static void make_seeds(const char *dir, const char *asset) {
  rng_state = 1406;
  char name[64];
  for (int degree = 0; degree <= 3; ++degree) {
    int n = 4 - degree / 2;
    tsplat t[4];
    random_splats(t, n, 2.0);
    splat_scene s;
    scene_from(t, n, degree, &s);
    s.flags = degree == 1 ? SPLAT_SCENE_ANTIALIASED : 0;
    snprintf(name, sizeof name, "writer_sh%d.spz", degree);
    char err[512], path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK(splat_scene_write_spz(path, &s, err, sizeof err) == 0, "%s", err);
    splat_scene_free(&s);
  }
  for (int version = 1; version <= 4; ++version) {
    int degree = version - 1, n = 3;
    tsplat t[3];
    random_splats(t, n, 2.0);
    if (version == 1) t[1].p[0] = 1e6; /* beyond half range: infinite, dropped */
    tpacked p;
    encode(t, n, degree, version, 12, 4, &p);
    buf b = {0};
    make_legacy(&b, (uint32_t)version, (uint32_t)n, degree, 12, version == 3 ? 1 : 0, &p, NULL, 0);
    snprintf(name, sizeof name, "gzip_v%d_sh%d.spz", version, degree);
    seed_write(dir, name, &b);
    if (version == 3) {
      buf ext = {0};
      uint32_t sys = 7; /* LUF */
      ext_record(&ext, 0xadbe0003u, &sys, 4);
      make_legacy(&b, 3, (uint32_t)n, degree, 12, 2, &p, ext.data, ext.size);
      seed_write(dir, "gzip_v3_ext_luf.spz", &b);
      make_v4(&b, (uint32_t)n, degree, 12, 3, &p, ext.data, ext.size, true);
      seed_write(dir, "zstd_v4_ext_luf_split.spz", &b);
      free(ext.data);
    }
    free(b.data);
    tpacked_free(&p);
  }
  if (asset) {
    splat_scene a;
    char err[512], path[1024];
    if (splat_scene_load(asset, &a, err, sizeof err) != 0) {
      CHECK(0, "%s", err);
      return;
    }
    a.count = a.count < 40 ? a.count : 40; /* its first splats */
    snprintf(path, sizeof path, "%s/asset_leica_first40.spz", dir);
    CHECK(splat_scene_write_spz(path, &a, err, sizeof err) == 0, "%s", err);
    splat_scene_free(&a);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_spz roundtrip|legacy|malformed TMPDIR | convert SPLATVIEW TMPDIR | seeds DIR [ASSET]\n");
    return 2;
  }
  check_print_limit = 60;
  const char *mode = argv[1];
  const char *dir = strcmp(mode, "convert") == 0 ? (argc > 3 ? argv[3] : NULL) : argv[2];
  /* seeds: DIR [ASSET.ply] */
  if (dir == NULL) return 2;
  snprintf(tmpdir, sizeof tmpdir, "%s", dir);
  if (mkdir(tmpdir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "cannot create %s: %s\n", tmpdir, strerror(errno));
    return 1;
  }
  if (strcmp(mode, "seeds") == 0) {
    make_seeds(argv[2], argc > 3 ? argv[3] : NULL);
  } else if (strcmp(mode, "roundtrip") == 0) {
    test_roundtrip();
  } else if (strcmp(mode, "legacy") == 0) {
    test_legacy();
  } else if (strcmp(mode, "malformed") == 0) {
    test_malformed();
  } else if (strcmp(mode, "convert") == 0) {
    test_convert(argv[2]);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  char name[64];
  snprintf(name, sizeof name, "test_spz %s", mode);
  return check_report(name);
}
