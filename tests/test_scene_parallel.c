/* test_scene_parallel: splat_scene_load_ex2's decode on several threads (binary .ply, .splat)
 * against the single-thread load: the same arrays byte for byte, the same errors, progress on the
 * calling thread, and cancellation that leaves nothing allocated (the sanitizer build checks).
 *
 *   test_scene_parallel TMPDIR
 */
#include "check.h"
#include "scene_check.h"
#include "splat_scene.h"
#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const uint32_t thread_counts[] = {1, 2, 3, 7, 16};
enum { NTHREADS = sizeof thread_counts / sizeof thread_counts[0] };

static uint64_t rng_state;
static double urand(double lo, double hi) {
  return lo + (hi - lo) * (double)(splitmix64(&rng_state) >> 11) * 0x1.0p-53;
}

static char tmpdir[512];
static const char *tmp_path(const char *name) {
  static char p[1024];
  snprintf(p, sizeof p, "%s/%s", tmpdir, name);
  return p;
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

static void puts_buf(buf *b, const char *s) { put(b, s, strlen(s)); }

static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

/* Property types of a layout: all float, all double, or mixed (double positions, uchar f_rest,
 * float for the rest). */
enum { L_FLOAT, L_DOUBLE, L_MIXED };

static const char *prop_type(int types, const char *name) {
  if (types == L_FLOAT) return "float";
  if (types == L_DOUBLE) return "double";
  if (name[0] == 'x' || name[0] == 'y' || name[0] == 'z') return "double";
  if (strncmp(name, "f_rest_", 7) == 0) return "uchar";
  return "float";
}

static void put_value(buf *b, const char *type, double v) {
  if (!strcmp(type, "float")) {
    float f = (float)v;
    put(b, &f, 4);
  } else if (!strcmp(type, "double")) {
    put(b, &v, 8);
  } else {
    uint8_t u = isfinite(v) ? (uint8_t)fmin(255, fmax(0, v * 40 + 128)) : 0;
    put(b, &u, 1);
  }
}

/* A 3DGS .ply of n splats: SH degree, with or without normals, property types; about one splat in
 * seven has a non-finite value somewhere (dropped) and one in eleven an infinite opacity
 * (clamped), so the pieces have gaps to close. `rows` < n writes fewer rows (a truncated file). */
static buf make_ply(uint32_t n, uint32_t rows, int degree, bool normals, int types, bool aa) {
  const char *names[80];
  char rest[45][24];
  int np = 0;
  names[np++] = "x", names[np++] = "y", names[np++] = "z";
  if (normals) names[np++] = "nx", names[np++] = "ny", names[np++] = "nz";
  names[np++] = "f_dc_0", names[np++] = "f_dc_1", names[np++] = "f_dc_2";
  int nrest = 3 * ((degree + 1) * (degree + 1) - 1);
  for (int k = 0; k < nrest; ++k) {
    snprintf(rest[k], sizeof rest[k], "f_rest_%d", k);
    names[np++] = rest[k];
  }
  names[np++] = "opacity";
  names[np++] = "scale_0", names[np++] = "scale_1", names[np++] = "scale_2";
  names[np++] = "rot_0", names[np++] = "rot_1", names[np++] = "rot_2", names[np++] = "rot_3";
  buf b = {0};
  char line[128];
  puts_buf(&b, "ply\nformat binary_little_endian 1.0\n");
  if (aa) puts_buf(&b, "comment SplatRenderMode: mip\n");
  snprintf(line, sizeof line, "element vertex %u\n", n);
  puts_buf(&b, line);
  for (int i = 0; i < np; ++i) {
    snprintf(line, sizeof line, "property %s %s\n", prop_type(types, names[i]), names[i]);
    puts_buf(&b, line);
  }
  puts_buf(&b, "end_header\n");
  for (uint32_t i = 0; i < rows; ++i) {
    int bad = (splitmix64(&rng_state) % 7 == 0) ? (int)(splitmix64(&rng_state) % (uint64_t)np) : -1;
    bool inf_opacity = splitmix64(&rng_state) % 11 == 0;
    for (int k = 0; k < np; ++k) {
      double v = urand(-2, 2);
      if (!strncmp(names[k], "scale", 5)) v = urand(-6, 0);
      if (!strcmp(names[k], "opacity") && inf_opacity) v = urand(0, 1) < 0.5 ? INFINITY : -INFINITY;
      if (k == bad && strncmp(names[k], "n", 1) != 0) v = NAN;
      put_value(&b, prop_type(types, names[k]), v);
    }
  }
  return b;
}

/* A .splat of n splats; about one in seven has a negative scale (dropped). */
static buf make_splat(uint32_t n) {
  buf b = {0};
  for (uint32_t i = 0; i < n; ++i) {
    float f[6];
    for (int k = 0; k < 3; ++k) f[k] = (float)urand(-10, 10);
    for (int k = 3; k < 6; ++k) f[k] = (float)urand(0.001, 0.1);
    if (splitmix64(&rng_state) % 7 == 0) f[4] = -1.0f;
    uint8_t c[8];
    for (int k = 0; k < 8; ++k) c[k] = (uint8_t)splitmix64(&rng_state);
    put(&b, f, sizeof f);
    put(&b, c, sizeof c);
  }
  return b;
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

/* The file at path loaded with splat_scene_load and with ex2 at every thread count: the same
 * scene, or the same error. */
static void compare_loads(const char *what, const char *path) {
  splat_scene ref, s;
  char ref_err[600], err[600];
  int ref_rc = splat_scene_load(path, &ref, ref_err, sizeof ref_err);
  for (int t = 0; t < NTHREADS; ++t) {
    splat_load_options o = {.threads = thread_counts[t]};
    memset(&s, 0xab, sizeof s);
    int rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
    CHECK(rc == ref_rc, "%s, %u threads: rc %d, single thread %d ('%s' / '%s')", what, o.threads, rc, ref_rc, err,
          ref_err);
    if (rc == 0 && ref_rc == 0)
      CHECK(same_scene(&s, &ref), "%s, %u threads: the scene differs from the single-thread load (%u splats, "
            "dropped %u, clamped %u; single thread %u, %u, %u)", what, o.threads, s.count, s.dropped, s.clamped,
            ref.count, ref.dropped, ref.clamped);
    if (rc != 0 && ref_rc != 0) {
      CHECK(!strcmp(err, ref_err), "%s, %u threads: error '%s', single thread '%s'", what, o.threads, err, ref_err);
      CHECK(is_zero_scene(&s), "%s, %u threads: scene not zeroed on failure", what, o.threads);
    }
    if (rc == 0) splat_scene_free(&s);
  }
  if (ref_rc == 0) splat_scene_free(&ref);
}

static void test_ply_layouts(void) {
  static const uint32_t counts[] = {1, 2, 3, 5, 7, 15, 16, 17, 63, 1001, 40009};
  int files = 0;
  for (int degree = 0; degree <= 3; ++degree)
    for (int normals = 0; normals < 2; ++normals)
      for (int types = L_FLOAT; types <= L_MIXED; ++types)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
          uint32_t n = counts[c];
          if (n > 2000 && (normals || types == L_MIXED)) continue; /* the large ones once a degree and type */
          uint64_t seed = 1000u * (uint64_t)degree + 100u * (uint64_t)types + 10u * (uint64_t)normals + c;
          rng_state = seed;
          buf b = make_ply(n, n, degree, normals, types, c % 2 == 1);
          const char *path = tmp_path("layout.ply");
          write_file(path, b.data, b.size);
          free(b.data);
          char what[128];
          snprintf(what, sizeof what, ".ply degree %d%s, %s, %u splats (seed %llu)", degree,
                   normals ? " with normals" : "", types == L_FLOAT ? "float" : types == L_DOUBLE ? "double" : "mixed",
                   n, (unsigned long long)seed);
          compare_loads(what, path);
          ++files;
        }
  /* past SPLAT_LOAD_DECODE_EVERY splats, and a count that divides by nothing */
  rng_state = 77;
  buf b = make_ply(300007, 300007, 0, false, L_FLOAT, false);
  write_file(tmp_path("large.ply"), b.data, b.size);
  free(b.data);
  compare_loads(".ply degree 0, 300007 splats", tmp_path("large.ply"));
  remove(tmp_path("large.ply"));
  printf("ply: %d layouts and counts + 300007 splats, %d thread counts: identical\n", files + 1, NTHREADS);
}

static void test_splat(void) {
  static const uint32_t counts[] = {1, 2, 3, 6, 7, 8, 16, 17, 999, 300007};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    rng_state = 500 + c;
    buf b = make_splat(counts[c]);
    const char *path = tmp_path("s.splat");
    write_file(path, b.data, b.size);
    free(b.data);
    char what[64];
    snprintf(what, sizeof what, ".splat, %u splats", counts[c]);
    compare_loads(what, path);
  }
  printf("splat: %zu counts, %d thread counts: identical\n", sizeof counts / sizeof counts[0], NTHREADS);
}

/* Errors: the same message on every path. */
static void test_errors(void) {
  rng_state = 9;
  buf b = make_ply(1000, 999, 3, true, L_FLOAT, false);
  write_file(tmp_path("short.ply"), b.data, b.size);
  compare_loads(".ply one row short", tmp_path("short.ply"));
  write_file(tmp_path("short2.ply"), b.data, b.size - 1);
  compare_loads(".ply one byte short", tmp_path("short2.ply"));
  free(b.data);
  b = make_ply(0, 0, 0, false, L_FLOAT, false);
  write_file(tmp_path("zero.ply"), b.data, b.size);
  compare_loads(".ply with 0 splats", tmp_path("zero.ply"));
  free(b.data);
  b = make_splat(10);
  write_file(tmp_path("odd.splat"), b.data, b.size - 3);
  compare_loads(".splat 3 bytes short", tmp_path("odd.splat"));
  write_file(tmp_path("empty.splat"), b.data, 0);
  compare_loads("empty .splat", tmp_path("empty.splat"));
  free(b.data);
  /* every splat dropped */
  buf z = {0};
  float bad[8] = {NAN, 0, 0, 1, 1, 1, 0, 0};
  for (int i = 0; i < 5; ++i) put(&z, bad, sizeof bad);
  write_file(tmp_path("dropped.splat"), z.data, z.size);
  compare_loads(".splat all dropped", tmp_path("dropped.splat"));
  free(z.data);
  compare_loads("missing file", tmp_path("missing.ply"));
  /* a compressed PLY header, a bad header: the whole-file path, the same message */
  const char *hdr = "ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nend_header\n";
  write_file(tmp_path("bad.ply"), hdr, strlen(hdr));
  compare_loads(".ply missing properties", tmp_path("bad.ply"));
  splat_scene s;
  char err[256];
  const int dummy = 0;
  splat_load_options o = {.next = &dummy};
  CHECK(splat_scene_load_ex2(tmp_path("short.ply"), &s, &o, err, sizeof err) == -1 && strstr(err, "next") &&
            is_zero_scene(&s), "options->next not NULL: '%s'", err);
  printf("errors: the same at every thread count\n");
}

typedef struct progress_log {
  struct { const char *phase; uint64_t done, total; } r[512];
  int n, cancel_at;
  volatile int *cancel;
} progress_log;

static void on_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
  progress_log *l = user;
  if (l->n < 512) {
    l->r[l->n].phase = phase;
    l->r[l->n].done = done;
    l->r[l->n].total = total;
  }
  if (l->n == l->cancel_at) *l->cancel = 1;
  l->n++;
}

/* Read 0 and size, then decode from 0 up to count, never back. */
static void check_progress(const char *what, const progress_log *l, uint64_t size, uint64_t count) {
  CHECK(l->n >= 4 && l->n <= 512, "%s: %d reports", what, l->n);
  if (l->n < 4 || l->n > 512) return;
  CHECK(!strcmp(l->r[0].phase, "read") && l->r[0].done == 0 && l->r[0].total == size &&
            !strcmp(l->r[1].phase, "read") && l->r[1].done == size, "%s: read reports", what);
  for (int k = 2; k < l->n; ++k)
    CHECK(!strcmp(l->r[k].phase, "decode") && l->r[k].total == count &&
              (k == 2 ? l->r[k].done == 0 : l->r[k].done > l->r[k - 1].done),
          "%s: report %d: %s %llu of %llu", what, k, l->r[k].phase, (unsigned long long)l->r[k].done,
          (unsigned long long)l->r[k].total);
  CHECK(l->r[l->n - 1].done == count, "%s: decode ends at %llu of %llu", what,
        (unsigned long long)l->r[l->n - 1].done, (unsigned long long)count);
}

static void test_progress_cancel(void) {
  const uint32_t n = (uint32_t)SPLAT_LOAD_DECODE_EVERY + 40001;
  rng_state = 31;
  buf b = make_ply(n, n, 0, false, L_FLOAT, false);
  const char *path = tmp_path("cancel.ply");
  write_file(path, b.data, b.size);
  splat_scene ref, s;
  char err[600];
  CHECK(splat_scene_load(path, &ref, err, sizeof err) == 0, "reference load: %s", err);
  for (int t = 1; t < NTHREADS; ++t) {
    uint32_t threads = thread_counts[t];
    volatile int cancel = 0;
    progress_log log = {.cancel_at = -1, .cancel = &cancel};
    splat_load_progress p = {on_progress, &log, &cancel};
    splat_load_options o = {.progress = &p, .threads = threads};
    char what[64];
    snprintf(what, sizeof what, ".ply, %u threads", threads);
    int rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
    CHECK(rc == 0 && same_scene(&s, &ref), "%s: with progress: rc %d '%s'", what, rc, err);
    if (rc == 0) splat_scene_free(&s);
    check_progress(what, &log, b.size, n);
    int reports = log.n;
    for (int at = 0; at < reports; ++at) {
      cancel = 0;
      log = (progress_log){.cancel_at = at, .cancel = &cancel};
      memset(&s, 0xab, sizeof s);
      rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
      if (rc == 0 && log.n <= at) { /* pieces completed together this time: fewer reports */
        splat_scene_free(&s);
        continue;
      }
      char want[1100];
      snprintf(want, sizeof want, "%s: cancelled", path);
      CHECK(rc == SPLAT_SCENE_CANCELLED && !strcmp(err, want) && is_zero_scene(&s),
            "%s: cancelled at report %d: rc %d '%s'", what, at, rc, err);
      CHECK(log.n == at + 1, "%s: cancelled at report %d, then %d more", what, at, log.n - at - 1);
      if (rc == 0) splat_scene_free(&s);
    }
    cancel = 1;
    splat_load_progress flag_only = {NULL, NULL, &cancel};
    o.progress = &flag_only;
    rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
    CHECK(rc == SPLAT_SCENE_CANCELLED && is_zero_scene(&s), "%s: cancel flag alone: rc %d '%s'", what, rc, err);
    printf("%s: %d reports; cancelled at each of them\n", what, reports);
  }
  free(b.data);
  splat_scene_free(&ref);
  remove(path);
}

/* A file that shrinks while the threads read it: the callback halves it at the "read" report of
 * its full size, which comes before any piece is read. */
static void shrink_at_read_end(void *user, const char *phase, uint64_t done, uint64_t total) {
  if (!strcmp(phase, "read") && done == total && total > 0) CHECK(truncate((const char *)user, (off_t)(total / 2)) == 0, "truncate");
}

static void test_shrinking(void) {
  rng_state = 41;
  buf b = make_ply(100000, 100000, 2, true, L_FLOAT, false);
  char path[1024];
  snprintf(path, sizeof path, "%s", tmp_path("shrinking.ply"));
  for (int t = 1; t < NTHREADS; ++t) {
    write_file(path, b.data, b.size);
    splat_load_progress p = {shrink_at_read_end, path, NULL};
    splat_load_options o = {.progress = &p, .threads = thread_counts[t]};
    splat_scene s;
    char err[1200];
    int rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
    check_load_failure(path, rc, &s, err, sizeof err, "truncated while loading|the file changed while loading");
  }
  free(b.data);
  remove(path);
  printf("a file that shrinks while loading: an error at every thread count\n");
}

/* on_part's parts put together: they must come in order, after one empty first part. */
typedef struct assembly {
  splat_scene s;       /* arrays sized for `total` */
  uint32_t total, parts, next, stop_at;
  bool begun, ok;
} assembly;

static int on_part(void *user, const splat_scene *part, uint32_t first, uint32_t total) {
  assembly *a = user;
  if (!a->begun) {
    a->begun = true;
    a->ok = part->count == 0 && part->positions == NULL && first == 0;
    a->total = total;
    a->s = (splat_scene){.sh_degree = part->sh_degree, .sh_coeffs = part->sh_coeffs, .flags = part->flags};
    size_t k = (size_t)part->sh_coeffs * 3;
    a->s.positions = malloc(total * 12ull), a->s.scales = malloc(total * 12ull);
    a->s.rotations = malloc(total * 16ull), a->s.opacities = malloc(total * 4ull);
    a->s.sh = malloc(total * k * 4);
    return 0;
  }
  size_t n = part->count, k = (size_t)a->s.sh_coeffs * 3;
  if (first != a->next || n == 0 || (uint64_t)first + n > a->total || part->sh_coeffs != a->s.sh_coeffs ||
      part->flags != a->s.flags || total != a->total) {
    a->ok = false;
    return 1;
  }
  memcpy(a->s.positions + 3ull * first, part->positions, n * 12);
  memcpy(a->s.scales + 3ull * first, part->scales, n * 12);
  memcpy(a->s.rotations + 4ull * first, part->rotations, n * 16);
  memcpy(a->s.opacities + first, part->opacities, n * 4);
  memcpy(a->s.sh + k * first, part->sh, n * k * 4);
  a->next += (uint32_t)n;
  return ++a->parts == a->stop_at;
}

/* A host pool that runs the tasks last-first on the calling thread. */
static void backwards_pool(void *user, void (*task)(void *arg, uint32_t index), void *arg, uint32_t count) {
  (void)user;
  for (uint32_t i = count; i-- > 0;) task(arg, i);
}

/* The parts, put together in order, are the scene the load returns; a nonzero answer cancels. */
static void stream_file(const char *what, const char *path, uint32_t min_parts_at_2) {
  splat_scene ref;
  char err[600];
  CHECK(splat_scene_load(path, &ref, err, sizeof err) == 0, "%s: reference load: %s", what, err);
  static const splat_load_pool pool = {backwards_pool, NULL};
  for (int t = 0; t <= NTHREADS; ++t) {
    assembly a = {0};
    /* the last round: 7 threads' split on a host pool */
    splat_load_options o = {.threads = thread_counts[t < NTHREADS ? t : 3], .on_part = on_part, .part_user = &a,
                            .pool = t < NTHREADS ? NULL : &pool};
    splat_scene s;
    int rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
    a.s.count = a.next;
    memcpy(a.s.bounds_min, s.bounds_min, sizeof s.bounds_min), memcpy(a.s.bounds_max, s.bounds_max, sizeof s.bounds_max);
    a.s.dropped = s.dropped, a.s.clamped = s.clamped;
    CHECK(rc == 0 && a.ok && same_scene(&a.s, &s) && same_scene(&s, &ref) && a.total >= s.count,
          "%s, %u threads: rc %d '%s', %u parts of %u splats (declared %u), the load's %u: %s", what, o.threads, rc,
          err, a.parts, a.next, a.total, s.count, a.ok ? "different bytes" : "parts out of order");
    CHECK(o.threads < 2 || a.parts >= min_parts_at_2, "%s, %u threads: %u parts", what, o.threads, a.parts);
    if (rc == 0) splat_scene_free(&s);
    splat_scene_free(&a.s);
    /* the first or the second part asks to stop */
    for (uint32_t stop = 1; stop <= 2; ++stop) {
      a = (assembly){.stop_at = stop};
      memset(&s, 0xab, sizeof s);
      rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
      bool whole = a.parts == 1 && a.next == ref.count;
      CHECK((rc == SPLAT_SCENE_CANCELLED && strstr(err, ": cancelled") && is_zero_scene(&s) && a.parts == stop) ||
                (stop == 2 && whole && rc == 0),
            "%s, %u threads, stop at part %u: rc %d '%s', %u parts", what, o.threads, stop, rc, err, a.parts);
      if (rc == 0) splat_scene_free(&s);
      splat_scene_free(&a.s);
    }
  }
  splat_scene_free(&ref);
}

static void test_stream(void) {
  rng_state = 123;
  buf b = make_ply(300007, 300007, 1, true, L_MIXED, true);
  write_file(tmp_path("stream.ply"), b.data, b.size);
  free(b.data);
  stream_file(".ply with dropped splats, streamed", tmp_path("stream.ply"), 2);
  remove(tmp_path("stream.ply"));
  rng_state = 124;
  b = make_splat(70001);
  write_file(tmp_path("stream.splat"), b.data, b.size);
  free(b.data);
  stream_file(".splat, streamed", tmp_path("stream.splat"), 2);
  remove(tmp_path("stream.splat"));
  printf("on_part: the parts in order make the scene loaded, at every thread count; a stop cancels\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_scene_parallel TMPDIR\n");
    return 2;
  }
  snprintf(tmpdir, sizeof tmpdir, "%s", argv[1]);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmpdir);
  if (system(cmd) != 0) return 1;
  test_ply_layouts();
  test_splat();
  test_errors();
  test_progress_cancel();
  test_shrinking();
  test_stream();
  if (failures) fprintf(stderr, "test_scene_parallel: %d failures\n", failures);
  return failures ? 1 : 0;
}
