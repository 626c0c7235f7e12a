/* test_scene_decode: splat_scene_load_ex2's parallel decode of .spz (version 4 and gzip), SOG
 * (folder and bundle), compressed .ply and ASCII .ply, on made threads and on host pools, against
 * the single-thread load: the same arrays byte for byte, the same error, progress as documented,
 * and cancellation that leaves nothing allocated (the sanitizer build checks). ASCII files are
 * also compared with the binary .ply of the same values.
 *
 *   test_scene_decode TMPDIR [spz|compressed|sog|ascii|ascii_errors|progress]   (one part, or all)
 */
#include "check.h"
#include "scene_check.h"
#include "sog_writer.h"
#include "splat_scene.h"
#include "util.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static const uint32_t thread_counts[] = {1, 2, 3, 7, 16};
enum { NTHREADS = sizeof thread_counts / sizeof thread_counts[0] };

static uint64_t rng_state;
static double urand(double lo, double hi) { return lo + (hi - lo) * (double)(splitmix64(&rng_state) >> 11) * 0x1.0p-53; }

static char tmpdir[512];
static const char *tmp_path(const char *name) {
  static char p[4][1024];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
  return p[k];
}

typedef struct buf {
  uint8_t *data;
  size_t size, cap;
} buf;

static void put(buf *b, const void *p, size_t n) {
  if (b->size + n > b->cap) {
    b->cap = (b->size + n) * 2;
    b->data = realloc(b->data, b->cap);
    if (!b->data) abort();
  }
  memcpy(b->data + b->size, p, n);
  b->size += n;
}

static void putf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(buf *b, const char *fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  put(b, line, (size_t)n);
}

static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

static buf read_all(const char *path) {
  buf b = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return b;
  uint8_t chunk[65536];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, f)) > 0;) put(&b, chunk, n);
  fclose(f);
  return b;
}

/* A scene of activated values, as a loader makes. */
static splat_scene make_scene(uint32_t n, uint32_t degree) {
  splat_scene s = {.count = n, .sh_degree = degree, .sh_coeffs = (degree + 1) * (degree + 1)};
  s.positions = malloc(n * 3 * sizeof(float));
  s.scales = malloc(n * 3 * sizeof(float));
  s.rotations = malloc(n * 4 * sizeof(float));
  s.opacities = malloc(n * sizeof(float));
  s.sh = malloc((size_t)n * s.sh_coeffs * 3 * sizeof(float));
  for (uint32_t i = 0; i < n; ++i) {
    double q[4], l = 0;
    for (int c = 0; c < 3; ++c) s.positions[i * 3 + c] = (float)urand(-20, 20);
    for (int c = 0; c < 3; ++c) s.scales[i * 3 + c] = (float)exp(urand(-6, 0));
    for (int c = 0; c < 4; ++c) {
      q[c] = urand(-1, 1);
      l += q[c] * q[c];
    }
    for (int c = 0; c < 4; ++c) s.rotations[i * 4 + c] = (float)(q[c] / sqrt(l));
    s.opacities[i] = (float)urand(0.01, 0.99);
    for (uint32_t k = 0; k < s.sh_coeffs * 3; ++k) s.sh[(size_t)i * s.sh_coeffs * 3 + k] = (float)urand(-1, 1);
  }
  return s;
}

static bool same_scene(const splat_scene *a, const splat_scene *b) {
  size_t n = a->count, k = a->sh_coeffs;
  return a->count == b->count && a->sh_degree == b->sh_degree && a->sh_coeffs == b->sh_coeffs &&
         a->dropped == b->dropped && a->clamped == b->clamped && a->flags == b->flags &&
         !memcmp(a->bounds_min, b->bounds_min, sizeof a->bounds_min) &&
         !memcmp(a->bounds_max, b->bounds_max, sizeof a->bounds_max) &&
         !memcmp(a->positions, b->positions, n * 3 * sizeof(float)) &&
         !memcmp(a->scales, b->scales, n * 3 * sizeof(float)) &&
         !memcmp(a->rotations, b->rotations, n * 4 * sizeof(float)) &&
         !memcmp(a->opacities, b->opacities, n * sizeof(float)) && !memcmp(a->sh, b->sh, n * k * 3 * sizeof(float));
}

/* ---- host pools ------------------------------------------------------------------------------ */

/* A host pool of `threads` threads, made for each run (what a host's pool does, as seen by the
 * loader: tasks on other threads, run returning when all are done). */
typedef struct test_pool {
  unsigned threads;
  atomic_uint runs, tasks;
} test_pool;

typedef struct pool_run {
  void (*task)(void *arg, uint32_t index);
  void *arg;
  uint32_t count;
  atomic_uint next;
  test_pool *pool;
} pool_run;

static void *pool_worker(void *p) {
  pool_run *r = p;
  for (unsigned i; (i = atomic_fetch_add(&r->next, 1)) < r->count;) {
    r->task(r->arg, i);
    atomic_fetch_add(&r->pool->tasks, 1);
  }
  return NULL;
}

static void threads_run(void *user, void (*task)(void *arg, uint32_t index), void *arg, uint32_t count) {
  test_pool *p = user;
  pool_run r = {task, arg, count, 0, p};
  pthread_t tid[16];
  atomic_fetch_add(&p->runs, 1);
  for (unsigned t = 0; t < p->threads; ++t) CHECK(pthread_create(&tid[t], NULL, pool_worker, &r) == 0, "pthread_create");
  for (unsigned t = 0; t < p->threads; ++t) pthread_join(tid[t], NULL);
}

/* One after another on the calling thread, last first: any order must give the same scene. */
static void serial_run(void *user, void (*task)(void *arg, uint32_t index), void *arg, uint32_t count) {
  test_pool *p = user;
  atomic_fetch_add(&p->runs, 1);
  for (uint32_t i = count; i-- > 0;) {
    task(arg, i);
    atomic_fetch_add(&p->tasks, 1);
  }
}

/* ---- every path against the single-thread load ------------------------------------------------ */

enum { NPATHS = NTHREADS + 2 };

/* Load options of path k: the thread counts, then a pool of 3 threads, then the serial pool. */
static splat_load_options path_options(int k, splat_load_pool *pool, test_pool *tp, char *what, size_t n) {
  splat_load_options o = {.threads = k < NTHREADS ? thread_counts[k] : 4};
  if (k >= NTHREADS) {
    *tp = (test_pool){.threads = 3};
    *pool = (splat_load_pool){k == NTHREADS ? threads_run : serial_run, tp};
    o.pool = pool;
  }
  snprintf(what, n, k < NTHREADS ? "%u threads" : k == NTHREADS ? "a 3-thread host pool" : "a serial host pool",
           o.threads);
  return o;
}

/* The file at path with ex2 on every path: the single-thread scene or error. Returns the
 * single-thread load's rc; *ref keeps its scene when `ref` is given. */
static int compare_loads(const char *what, const char *path, splat_scene *ref_out) {
  splat_scene ref, s;
  char ref_err[1200], err[1200];
  splat_load_options one = {.threads = 1};
  int ref_rc = splat_scene_load_ex2(path, &ref, &one, ref_err, sizeof ref_err);
  for (int k = 0; k < NPATHS; ++k) {
    splat_load_pool pool;
    test_pool tp;
    char how[64];
    splat_load_options o = path_options(k, &pool, &tp, how, sizeof how);
    memset(&s, 0xab, sizeof s);
    int rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
    CHECK(rc == ref_rc, "%s, %s: rc %d, single thread %d ('%s' / '%s')", what, how, rc, ref_rc, err, ref_err);
    if (rc == 0 && ref_rc == 0)
      CHECK(same_scene(&s, &ref), "%s, %s: the scene differs from the single-thread load (%u splats, dropped %u; "
            "single thread %u, %u)", what, how, s.count, s.dropped, ref.count, ref.dropped);
    if (rc != 0 && ref_rc != 0) {
      CHECK(!strcmp(err, ref_err), "%s, %s: error '%s', single thread '%s'", what, how, err, ref_err);
      CHECK(is_zero_scene(&s), "%s, %s: scene not zeroed on failure", what, how);
    }
    if (k >= NTHREADS && rc == 0) CHECK(tp.runs > 0 && tp.tasks > 0, "%s, %s: the pool ran nothing", what, how);
    if (rc == 0) splat_scene_free(&s);
  }
  if (ref_rc == 0 && ref_out) *ref_out = ref;
  else if (ref_rc == 0) splat_scene_free(&ref);
  return ref_rc;
}

/* The error of a file that must fail: the same on every path, naming the file, with `words`. */
static void expect_error(const char *what, const char *path, const char *words) {
  splat_scene s;
  char err[1200];
  splat_load_options one = {.threads = 1};
  int rc = splat_scene_load_ex2(path, &s, &one, err, sizeof err);
  CHECK(rc == -1 && strncmp(err, path, strlen(path)) == 0 && strstr(err, words) != NULL,
        "%s: expected an error naming %s and saying '%s', got rc %d '%s'", what, path, words, rc, err);
  if (rc == 0) splat_scene_free(&s);
  compare_loads(what, path, NULL);
}

/* ---- the formats, written from a scene ------------------------------------------------------- */

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

/* The .spz version 4 at v4_path as a version 3 gzip file (the same attribute bytes, one stream). */
static void spz_to_gzip(const char *v4_path, const char *path) {
  buf v4 = read_all(v4_path), raw = {0};
  const uint8_t *d = v4.data;
  uint8_t h[16] = {0};
  memcpy(h, d, 16);
  h[4] = 3;
  h[14] &= 1; /* no extensions */
  h[15] = 0;
  put(&raw, h, 16);
  uint32_t nstreams = d[15], toc = le32(d + 16);
  size_t at = toc + (size_t)nstreams * 16;
  for (uint32_t k = 0; k < nstreams; ++k) {
    size_t cs = (size_t)le64(d + toc + k * 16), us = (size_t)le64(d + toc + k * 16 + 8);
    uint8_t *u = malloc(us + 1);
    CHECK(ZSTD_decompress(u, us, d + at, cs) == us, "zstd stream %u", k);
    put(&raw, u, us);
    free(u);
    at += cs;
  }
  z_stream z = {0};
  CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2");
  size_t cap = deflateBound(&z, raw.size);
  uint8_t *out = malloc(cap);
  z.next_in = raw.data, z.avail_in = (uInt)raw.size, z.next_out = out, z.avail_out = (uInt)cap;
  CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
  write_file(path, out, cap - z.avail_out);
  deflateEnd(&z);
  free(out);
  free(raw.data);
  free(v4.data);
}

/* A compressed .ply of n splats from random packed words, SH degree `degree`; chunk `nan_chunk`
 * has a NaN bound, so its splats are dropped and the ranges have gaps to close. */
static void write_compressed(const char *path, uint32_t n, uint32_t degree, uint32_t nan_chunk) {
  uint32_t nchunks = (n + 255) / 256, nrest = 3 * ((degree + 1) * (degree + 1) - 1);
  static const char *const cn[18] = {"min_x", "min_y", "min_z", "max_x", "max_y", "max_z", "min_scale_x",
                                     "min_scale_y", "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z",
                                     "min_r", "min_g", "min_b", "max_r", "max_g", "max_b"};
  buf b = {0};
  putf(&b, "ply\nformat binary_little_endian 1.0\nelement chunk %u\n", nchunks);
  for (int k = 0; k < 18; ++k) putf(&b, "property float %s\n", cn[k]);
  putf(&b, "element vertex %u\nproperty uint packed_position\nproperty uint packed_rotation\n"
           "property uint packed_scale\nproperty uint packed_color\n", n);
  if (nrest > 0) {
    putf(&b, "element sh %u\n", n);
    for (uint32_t k = 0; k < nrest; ++k) putf(&b, "property uchar f_rest_%u\n", k);
  }
  putf(&b, "end_header\n");
  for (uint32_t c = 0; c < nchunks; ++c) {
    float v[18];
    for (int k = 0; k < 3; ++k) v[k] = (float)urand(-10, 0), v[3 + k] = (float)urand(0, 10);
    for (int k = 6; k < 9; ++k) v[k] = (float)urand(-7, -3), v[k + 3] = (float)urand(-3, 0);
    for (int k = 12; k < 15; ++k) v[k] = (float)urand(-0.2, 0.4), v[k + 3] = (float)urand(0.6, 1.2);
    if (c == nan_chunk) v[0] = NAN;
    put(&b, v, sizeof v);
  }
  for (uint32_t i = 0; i < 4 * n; ++i) {
    uint32_t w = (uint32_t)splitmix64(&rng_state);
    put(&b, &w, 4);
  }
  for (uint32_t i = 0; i < n * nrest; ++i) {
    uint8_t u = (uint8_t)splitmix64(&rng_state);
    put(&b, &u, 1);
  }
  write_file(path, b.data, b.size);
  free(b.data);
}

/* A 3DGS .ply of the raw (trained) values of n random splats, binary and ASCII with the same
 * values (%.9g: floats read back exactly), with normals, a double, an int and uchar properties
 * and, for the ASCII file, an element before the vertices and one after. Returns the rows. */
static void write_ply_pair(const char *bin_path, const char *ascii_path, uint32_t n, uint32_t degree, int digits) {
  uint32_t nrest = 3 * ((degree + 1) * (degree + 1) - 1);
  const char *names[80], *types[80];
  char rest[45][16];
  int np = 0;
#define PROP(nm, ty) (names[np] = (nm), types[np++] = (ty))
  PROP("x", "float"), PROP("y", "double"), PROP("z", "float"), PROP("nx", "int"), PROP("ny", "uchar");
  PROP("nz", "short"), PROP("f_dc_0", "float"), PROP("f_dc_1", "float"), PROP("f_dc_2", "float");
  for (uint32_t k = 0; k < nrest; ++k) {
    snprintf(rest[k], sizeof rest[k], "f_rest_%u", k);
    PROP(rest[k], "float");
  }
  PROP("opacity", "float"), PROP("scale_0", "float"), PROP("scale_1", "float"), PROP("scale_2", "float");
  PROP("rot_0", "float"), PROP("rot_1", "float"), PROP("rot_2", "float"), PROP("rot_3", "float");
#undef PROP
  buf bin = {0}, txt = {0};
  putf(&bin, "ply\nformat binary_little_endian 1.0\nelement vertex %u\n", n);
  putf(&txt, "ply\nformat ascii 1.0\ncomment made by test_scene_decode\nelement camera 2\nproperty float fov\n"
             "element vertex %u\n", n);
  for (int k = 0; k < np; ++k) {
    putf(&bin, "property %s %s\n", types[k], names[k]);
    putf(&txt, "property %s %s\n", types[k], names[k]);
  }
  putf(&bin, "end_header\n");
  putf(&txt, "element face 1\nproperty list uchar int vertex_indices\nend_header\n0.5\n  -1e3 \r\n");
  for (uint32_t i = 0; i < n; ++i) {
    bool drop = splitmix64(&rng_state) % 13 == 0, inf = splitmix64(&rng_state) % 17 == 0;
    for (int k = 0; k < np; ++k) {
      double v = urand(-3, 3);
      if (!strncmp(names[k], "scale", 5)) v = urand(-7, 0);
      if (!strcmp(names[k], "opacity") && inf) v = INFINITY;
      if (!strcmp(names[k], "rot_2") && drop) v = NAN;
      if (!strcmp(types[k], "float")) {
        float f = (float)v;
        put(&bin, &f, 4);
        putf(&txt, "%s%.*g", k ? (k % 5 == 0 ? "\t" : " ") : "", digits, f);
      } else if (!strcmp(types[k], "double")) {
        put(&bin, &v, 8);
        putf(&txt, " %.17g", v);
      } else {
        int32_t iv = (int32_t)(splitmix64(&rng_state) % 200);
        if (!strcmp(types[k], "int")) put(&bin, &iv, 4);
        else if (!strcmp(types[k], "short")) put(&bin, &(int16_t){(int16_t)-iv}, 2), iv = -iv;
        else put(&bin, &(uint8_t){(uint8_t)iv}, 1);
        putf(&txt, " %d", iv);
      }
    }
    putf(&txt, i % 3 == 0 ? "\r\n" : "\n");
  }
  putf(&txt, "3 0 1 2\n");
  write_file(bin_path, bin.data, bin.size);
  write_file(ascii_path, txt.data, txt.size);
  free(bin.data);
  free(txt.data);
}

static void write_sog(const splat_scene *s, const char *dir, const char *bundle) {
  sog_output out;
  char err[512];
  sog_write_options o = {.palette_max = 1024};
  CHECK(sog_write(s, &o, &out, err, sizeof err) == 0, "sog_write: %s", err);
  CHECK(sog_output_save(&out, dir, err, sizeof err) == 0, "sog_output_save: %s", err);
  size_t size;
  uint8_t *z = sog_output_zip(&out, true, &size);
  CHECK(z != NULL, "sog_output_zip");
  if (z) write_file(bundle, z, size);
  free(z);
  sog_output_free(&out);
}

static void truncate_copy(const char *from, const char *to, size_t size) {
  buf b = read_all(from);
  write_file(to, b.data, size < b.size ? size : b.size);
  free(b.data);
}

static size_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* ---- the cases ------------------------------------------------------------------------------- */

static const uint32_t counts[] = {1, 2, 3, 255, 256, 257, 1023, 5000};
enum { NCOUNTS = sizeof counts / sizeof counts[0] };

static void test_spz(void) {
  int files = 0;
  for (uint32_t degree = 0; degree <= 3; ++degree)
    for (int c = 0; c < NCOUNTS; ++c, ++files) {
      rng_state = 100 * degree + (uint64_t)c;
      splat_scene sc = make_scene(counts[c], degree);
      char err[512], what[128];
      CHECK(splat_scene_write_spz(tmp_path("s.spz"), &sc, err, sizeof err) == 0, "write_spz: %s", err);
      snprintf(what, sizeof what, ".spz v4, degree %u, %u splats", degree, counts[c]);
      CHECK(compare_loads(what, tmp_path("s.spz"), NULL) == 0, "%s: does not load", what);
      spz_to_gzip(tmp_path("s.spz"), tmp_path("g.spz"));
      snprintf(what, sizeof what, ".spz v3 (gzip), degree %u, %u splats", degree, counts[c]);
      CHECK(compare_loads(what, tmp_path("g.spz"), NULL) == 0, "%s: does not load", what);
      splat_scene_free(&sc);
    }
  /* truncated, and a stream corrupted in its middle: one error, the same on every path */
  size_t size = file_size(tmp_path("s.spz")), gsize = file_size(tmp_path("g.spz"));
  for (int k = 1; k <= 3; ++k) {
    truncate_copy(tmp_path("s.spz"), tmp_path("t.spz"), size * (size_t)k / 4);
    expect_error(".spz v4 truncated", tmp_path("t.spz"), "truncated");
    truncate_copy(tmp_path("g.spz"), tmp_path("t.spz"), gsize * (size_t)k / 4);
    expect_error(".spz gzip truncated", tmp_path("t.spz"), "truncated");
  }
  buf b = read_all(tmp_path("s.spz"));
  for (size_t i = b.size - b.size / 8; i < b.size - b.size / 8 + 64; ++i) b.data[i] ^= 0x5a;
  write_file(tmp_path("t.spz"), b.data, b.size);
  expect_error(".spz v4 with its SH stream corrupted", tmp_path("t.spz"), "stream 5 (SH)");
  free(b.data);
  printf("spz: %d scenes as version 4 and 3, %d paths: identical; truncated and corrupt files: one error\n", files,
         NPATHS);
}

static void test_compressed(void) {
  for (uint32_t degree = 0; degree <= 3; ++degree)
    for (int c = 0; c < NCOUNTS; ++c) {
      rng_state = 300 + 10 * degree + (uint64_t)c;
      write_compressed(tmp_path("c.ply"), counts[c], degree, (uint32_t)c % 3);
      char what[128];
      snprintf(what, sizeof what, "compressed .ply, degree %u, %u splats", degree, counts[c]);
      int rc = compare_loads(what, tmp_path("c.ply"), NULL);
      CHECK(rc == 0 || counts[c] <= 256, "%s: does not load", what); /* one chunk with a NaN: all dropped */
    }
  size_t size = file_size(tmp_path("c.ply"));
  truncate_copy(tmp_path("c.ply"), tmp_path("t.ply"), size / 2);
  expect_error("compressed .ply truncated", tmp_path("t.ply"), "truncated");
  printf("compressed ply: %d files, %d paths: identical\n", 4 * NCOUNTS, NPATHS);
}

static void test_sog(void) {
  int files = 0;
  for (uint32_t degree = 0; degree <= 3; ++degree)
    for (int c = 0; c < NCOUNTS; c += 2, ++files) {
      rng_state = 500 + 10 * degree + (uint64_t)c;
      splat_scene sc = make_scene(counts[c], degree);
      char dir[64], what[128];
      snprintf(dir, sizeof dir, "sog%u_%d", degree, c);
      write_sog(&sc, tmp_path(dir), tmp_path("b.sog"));
      snprintf(what, sizeof what, "SOG folder, degree %u, %u splats", degree, counts[c]);
      CHECK(compare_loads(what, tmp_path(dir), NULL) == 0, "%s: does not load", what);
      snprintf(what, sizeof what, "SOG bundle, degree %u, %u splats", degree, counts[c]);
      CHECK(compare_loads(what, tmp_path("b.sog"), NULL) == 0, "%s: does not load", what);
      splat_scene_free(&sc);
    }
  /* broken images: the first in the serial order (means_l, means_u, quats, scales, sh0, labels,
   * centroids) is the error, whichever thread finishes first */
  char cmd[4096];
  const char *good = tmp_path("sog3_6"), *bad = tmp_path("sog_bad");
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", bad, good, bad);
  CHECK(system(cmd) == 0, "%s", cmd);
  char quats[1024], sh0[1024], centroids[1024], scales[1024];
  snprintf(quats, sizeof quats, "%s/quats.webp", bad);
  snprintf(sh0, sizeof sh0, "%s/sh0.webp", bad);
  snprintf(centroids, sizeof centroids, "%s/shN_centroids.webp", bad);
  snprintf(scales, sizeof scales, "%s/scales.webp", bad);
  truncate_copy(centroids, centroids, file_size(centroids) / 2);
  expect_error("SOG, centroids truncated", bad, "shN_centroids.webp");
  truncate_copy(sh0, sh0, file_size(sh0) / 2);
  expect_error("SOG, sh0 and centroids truncated", bad, "sh0.webp");
  truncate_copy(quats, quats, 20);
  expect_error("SOG, quats, sh0 and centroids truncated", bad, "quats.webp");
  /* scales from a scene of another size: "share one size", before quats' own error */
  char other[1024];
  snprintf(other, sizeof other, "%s/scales.webp", tmp_path("sog3_0"));
  truncate_copy(other, scales, file_size(other));
  expect_error("SOG, scales of another size", bad, "quats.webp");
  snprintf(cmd, sizeof cmd, "cp '%s/quats.webp' '%s'", good, quats);
  CHECK(system(cmd) == 0, "%s", cmd);
  expect_error("SOG, scales of another size, sh0 truncated", bad, "share one size");
  printf("sog: %d scenes as folders and bundles, %d paths: identical; broken images: the first in order\n", files,
         NPATHS);
}

/* A locale whose decimal point is a comma (de_DE), made with localedef in the temporary folder
 * when the system has none; NULL when neither works. */
static const char *comma_locale(void) {
  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") == NULL) {
    char cmd[2200], dir[1024];
    snprintf(dir, sizeof dir, "%s", tmp_path("locale"));
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' > /dev/null 2>&1", dir, dir);
    if (system(cmd) != 0 || setenv("LOCPATH", dir, 1) != 0) return NULL;
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8") == NULL) return NULL;
  }
  return strcmp(localeconv()->decimal_point, ",") == 0 ? "de_DE.UTF-8" : NULL;
}

static void test_ascii(void) {
  for (uint32_t degree = 0; degree <= 3; degree += 3)
    for (int c = 0; c < NCOUNTS; ++c) {
      rng_state = 700 + 10 * degree + (uint64_t)c;
      write_ply_pair(tmp_path("bin.ply"), tmp_path("a.ply"), counts[c], degree, 9);
      char what[128], err[1200];
      snprintf(what, sizeof what, "ASCII .ply, degree %u, %u splats", degree, counts[c]);
      splat_scene ascii, bin;
      int rc = compare_loads(what, tmp_path("a.ply"), &ascii);
      CHECK(splat_scene_load(tmp_path("bin.ply"), &bin, err, sizeof err) == 0 || counts[c] < 4, "binary: %s", err);
      if (rc == 0) {
        CHECK(same_scene(&ascii, &bin), "%s: differs from the binary .ply of the same values", what);
        splat_scene_free(&ascii);
        splat_scene_free(&bin);
      }
    }
  /* a large one, past the 8 MiB pieces, in a locale whose decimal point is a comma when there is one */
  rng_state = 777;
  write_ply_pair(tmp_path("bin.ply"), tmp_path("a.ply"), 150001, 1, 9);
  const char *locale = comma_locale();
  splat_scene ascii, bin;
  char err[1200];
  CHECK(compare_loads("ASCII .ply, 150001 splats", tmp_path("a.ply"), &ascii) == 0, "large ASCII does not load");
  CHECK(splat_scene_load(tmp_path("bin.ply"), &bin, err, sizeof err) == 0, "binary: %s", err);
  CHECK(same_scene(&ascii, &bin), "large ASCII: differs from the binary .ply (locale %s)", locale ? locale : "C");
  splat_scene_free(&ascii);
  splat_scene_free(&bin);
  setlocale(LC_NUMERIC, "C");
  printf("ascii ply: %d files and one of 150001 splats (locale %s), %d paths: identical to binary\n", 2 * NCOUNTS,
         locale ? locale : "C only", NPATHS);
}

/* ASCII mistakes: each names the file and the line, the same on every path. */
static void test_ascii_errors(void) {
  static const struct {
    const char *name, *body, *words;
  } cases[] = {
      {"few.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n1 2 3 4 5 6 7 8 9 10 11 12 13\n", "line 20: 13 values"},
      {"many.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n", "line 20: more values"},
      {"nan.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n1 2 3 4 5 6 7 8 9 10 11 1.5x 13 14\n", "line 20: value 12 ('1.5x')"},
      {"comma.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n1 2 3 4 5 6 7 8 9 10 11 1,5 13 14\n", "line 20: value 12 ('1,5')"},
      {"int.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n1 2 3 4 5 6 7 8 9 10 11 12 256 14\n", "line 20: value 13 ('256')"},
      {"short.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n", "only 1 lines of data follow (the file ends at line 19)"},
      /* blank lines are not vertices: refused before the arrays, not reserved for (issue 37) */
      {"blank.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n\n \n\t\n", "says 2 vertices, but only 1 lines with values follow"},
      {"extra.ply", "1 2 3 4 5 6 7 8 9 10 11 12 13 14\n1 2 3 4 5 6 7 8 9 10 11 12 13 14\n\n 7\n",
       "line 22: more rows than the 2 vertices"},
  };
  const char *head = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n"
                     "property float f_dc_0\nproperty float f_dc_1\nproperty float f_dc_2\nproperty float opacity\n"
                     "property float scale_0\nproperty float scale_1\nproperty float scale_2\nproperty float rot_0\n"
                     "property float rot_1\nproperty uchar rot_2\nproperty float rot_3\nend_header\n";
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    buf b = {0};
    putf(&b, "%s%s", head, cases[k].body);
    write_file(tmp_path(cases[k].name), b.data, b.size);
    free(b.data);
    expect_error(cases[k].name, tmp_path(cases[k].name), cases[k].words);
  }
  /* the same mistakes deep in a large file, where the pieces are many: the first line wins */
  rng_state = 778;
  write_ply_pair(tmp_path("bin.ply"), tmp_path("a.ply"), 60000, 0, 9);
  buf b = read_all(tmp_path("a.ply"));
  size_t lines = 0, at20k = 0, at50k = 0;
  for (size_t i = 0; i < b.size; ++i)
    if (b.data[i] == '\n' && ++lines) {
      if (lines == 20000) at20k = i + 1;
      if (lines == 50000) at50k = i + 1;
    }
  b.data[at50k] = 'q';
  write_file(tmp_path("late.ply"), b.data, b.size);
  expect_error("ASCII, a bad value on line 50001", tmp_path("late.ply"), "line 50001: value 1 ('q");
  b.data[at20k] = 'q';
  write_file(tmp_path("late.ply"), b.data, b.size);
  expect_error("ASCII, bad values on lines 20001 and 50001", tmp_path("late.ply"), "line 20001: value 1 ('q");
  truncate_copy(tmp_path("a.ply"), tmp_path("late.ply"), b.size / 2);
  expect_error("ASCII truncated mid-file", tmp_path("late.ply"), "truncated: the header says 60000 vertices");
  free(b.data);
  printf("ascii errors: %zu mistakes and 3 in a large file, named by line, the same on every path\n",
         sizeof cases / sizeof cases[0]);
}

/* ---- progress and cancellation ---------------------------------------------------------------- */

typedef struct progress_log {
  struct {
    const char *phase;
    uint64_t done, total;
  } r[1024];
  int n, cancel_at;
  volatile int *cancel;
} progress_log;

static void on_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
  progress_log *l = user;
  if (l->n < 1024) {
    l->r[l->n].phase = phase;
    l->r[l->n].done = done;
    l->r[l->n].total = total;
  }
  if (l->n == l->cancel_at) *l->cancel = 1;
  l->n++;
}

/* Phases "read" (optional) then "decode", each from 0 up to its total, never back. */
static void check_progress(const char *what, const progress_log *l, uint64_t count) {
  CHECK(l->n >= 2 && l->n <= 1024, "%s: %d reports", what, l->n);
  if (l->n < 2 || l->n > 1024) return;
  int decode = 0;
  while (decode < l->n && strcmp(l->r[decode].phase, "decode") != 0) ++decode;
  CHECK(decode < l->n && (decode == 0 || !strcmp(l->r[0].phase, "read")), "%s: no decode phase", what);
  for (int k = 0; k < l->n; ++k) {
    bool first = k == 0 || k == decode;
    CHECK(first ? l->r[k].done == 0 : l->r[k].done > l->r[k - 1].done && !strcmp(l->r[k].phase, l->r[k - 1].phase),
          "%s: report %d: %s %llu of %llu", what, k, l->r[k].phase, (unsigned long long)l->r[k].done,
          (unsigned long long)l->r[k].total);
    if (k + 1 == decode || k + 1 == l->n) CHECK(l->r[k].done == l->r[k].total, "%s: phase %s ends short", what, l->r[k].phase);
  }
  CHECK(l->r[l->n - 1].total == count, "%s: decode of %llu, not %llu", what, (unsigned long long)l->r[l->n - 1].total,
        (unsigned long long)count);
}

/* On several paths: progress as documented, then a cancel at each report (on the first path; on
 * the others at the first two, the middle and the last, which keeps CI's time): SPLAT_SCENE_CANCELLED,
 * "<path>: cancelled", nothing after it, nothing left allocated. */
static void progress_cancel(const char *what0, const char *path, uint32_t count) {
  static const int paths[] = {1, 3, NTHREADS, NTHREADS + 1}; /* 2 and 7 threads, both pools */
  char want[1100];
  snprintf(want, sizeof want, "%s: cancelled", path);
  for (size_t p = 0; p < sizeof paths / sizeof paths[0]; ++p) {
    splat_load_pool pool;
    test_pool tp;
    char how[64], what[256];
    splat_load_options o = path_options(paths[p], &pool, &tp, how, sizeof how);
    snprintf(what, sizeof what, "%s, %s", what0, how);
    volatile int cancel = 0;
    static progress_log log;
    log = (progress_log){.cancel_at = -1, .cancel = &cancel};
    splat_load_progress pr = {on_progress, &log, &cancel};
    o.progress = &pr;
    splat_scene s;
    char err[1200];
    int rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
    CHECK(rc == 0, "%s: with progress: rc %d '%s'", what, rc, err);
    if (rc == 0) splat_scene_free(&s);
    check_progress(what, &log, count);
    int reports = log.n, cancelled = 0;
    for (int at = 0; at < reports; ++at) {
      if (p > 0 && at > 1 && at != reports / 2 && at != reports - 1) continue;
      cancel = 0;
      log = (progress_log){.cancel_at = at, .cancel = &cancel};
      memset(&s, 0xab, sizeof s);
      rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
      if (rc == 0) { /* ranges completed together this time: fewer reports */
        CHECK(at > 0 && (log.n <= at || at == reports - 1), "%s: not cancelled at report %d of %d", what, at, log.n);
        splat_scene_free(&s);
        continue;
      }
      ++cancelled;
      CHECK(rc == SPLAT_SCENE_CANCELLED && !strcmp(err, want) && is_zero_scene(&s),
            "%s: cancelled at report %d: rc %d '%s'", what, at, rc, err);
      CHECK(log.n == at + 1, "%s: cancelled at report %d, then %d more", what, at, log.n - at - 1);
    }
    /* the first report comes from the calling thread before any task, so it always cancels; later
     * ones may come together as ranges finish at once */
    CHECK(cancelled >= 2, "%s: cancelled only %d times of %d reports", what, cancelled, reports);
    printf("  %s: %d reports; cancelled at %s\n", what, reports, p ? "the first two, the middle, the last" : "each");
  }
}

static void test_progress_cancel(void) {
  const uint32_t n = (uint32_t)SPLAT_LOAD_DECODE_EVERY + 30001;
  rng_state = 900;
  splat_scene sc = make_scene(n, 1);
  char err[512];
  CHECK(splat_scene_write_spz(tmp_path("p.spz"), &sc, err, sizeof err) == 0, "write_spz: %s", err);
  progress_cancel(".spz v4", tmp_path("p.spz"), n);
  spz_to_gzip(tmp_path("p.spz"), tmp_path("pg.spz"));
  progress_cancel(".spz gzip", tmp_path("pg.spz"), n);
  write_sog(&sc, tmp_path("p_sog"), tmp_path("p.sog"));
  progress_cancel("SOG bundle", tmp_path("p.sog"), n);
  splat_scene_free(&sc);
  write_compressed(tmp_path("pc.ply"), n, 1, 5);
  progress_cancel("compressed .ply", tmp_path("pc.ply"), n);
  write_ply_pair(tmp_path("bin.ply"), tmp_path("pa.ply"), n, 0, 3);
  progress_cancel("ASCII .ply", tmp_path("pa.ply"), n);
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: test_scene_decode TMPDIR [part]\n");
    return 2;
  }
  snprintf(tmpdir, sizeof tmpdir, "%s", argv[1]);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmpdir);
  if (system(cmd) != 0) return 1;
  static const struct {
    const char *name;
    void (*run)(void);
  } parts[] = {{"spz", test_spz},     {"compressed", test_compressed},     {"sog", test_sog},
               {"ascii", test_ascii}, {"ascii_errors", test_ascii_errors}, {"progress", test_progress_cancel}};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; ++k)
    if (argc == 2 || !strcmp(argv[2], parts[k].name)) parts[k].run();
  if (failures) fprintf(stderr, "test_scene_decode: %d failures\n", failures);
  return failures ? 1 : 0;
}
