/* test_faults_scene.c: every heap allocation of a scene load failed in turn (issue 25), for small
 * files of each format (.ply binary and ASCII, compressed .ply, .splat, .spz, SOG as a folder and
 * as a bundle), on one thread and on two. Linked with -Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc,--wrap=free (tests/faults.cmake), so the scene library's own calls (a static
 * library) come through the wrappers below; the codecs' shared libraries (zlib, zstd, libwebp,
 * cJSON) keep their own. Each failing load must return -1 with an "out of memory" message, a
 * zeroed scene and no block of its own left allocated (counted here; LeakSanitizer checks the
 * rest in the sanitizer build); a load whose failed allocation is tolerated must load the same
 * scene as a clean one.
 *   test_faults_scene <tmp folder> */
#include "check.h"
#include "sog_writer.h"
#include "splat_scene.h"
#include "util.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the injector ---------------------------------------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *old, size_t size);
void __wrap_free(void *p);

static atomic_long alloc_calls; /* allocations since the counter was reset */
static atomic_long fail_at = -1; /* the one to fail, -1: none */
static atomic_long live;        /* blocks allocated minus blocks freed, through the wrappers */

static int fail_now(void) { return atomic_fetch_add(&alloc_calls, 1) == atomic_load(&fail_at); }

void *__wrap_malloc(size_t size) {
  void *p = fail_now() ? NULL : __real_malloc(size);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}
void *__wrap_calloc(size_t n, size_t size) {
  void *p = fail_now() ? NULL : __real_calloc(n, size);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}
/* A failed realloc leaves the block as it was, as the real one does. */
void *__wrap_realloc(void *old, size_t size) {
  void *p = fail_now() ? NULL : __real_realloc(old, size);
  if (p && !old) atomic_fetch_add(&live, 1);
  return p;
}
void __wrap_free(void *p) {
  if (p) atomic_fetch_sub(&live, 1);
  __real_free(p);
}

/* ---- the files ------------------------------------------------------------------------------- */

static char dir[1024];
static const char *tmp_path(const char *name) {
  static char p[4][1200];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
  return p[k];
}

static void write_bytes(const char *name, const void *data, size_t size) {
  FILE *f = fopen(tmp_path(name), "wb");
  if (!f || fwrite(data, 1, size, f) != size) {
    fprintf(stderr, "test_faults_scene: cannot write %s\n", tmp_path(name));
    exit(1);
  }
  fclose(f);
}

static float rnd(uint64_t *s) { return (float)(splitmix64(s) >> 40) / (float)(1u << 24); }

/* n splats of SH degree 1 in the unit ball's box. */
static splat_scene make_scene(uint32_t n) {
  splat_scene s = {.count = n, .sh_degree = 1, .sh_coeffs = 4};
  s.positions = malloc(12 * n), s.scales = malloc(12 * n), s.rotations = malloc(16 * n);
  s.opacities = malloc(4 * n), s.sh = malloc(48 * n);
  uint64_t seed = 9;
  for (uint32_t i = 0; i < 3 * n; i++) s.positions[i] = 2 * rnd(&seed) - 1, s.scales[i] = 0.01f + 0.05f * rnd(&seed);
  for (uint32_t i = 0; i < n; i++) {
    float *q = s.rotations + 4 * i;
    q[0] = 1, q[1] = q[2] = q[3] = 0;
    s.opacities[i] = 0.1f + 0.8f * rnd(&seed);
  }
  for (uint32_t i = 0; i < 12 * n; i++) s.sh[i] = rnd(&seed) - 0.5f;
  return s;
}

/* A compressed .ply (PlayCanvas) of n random packed splats, SH degree 1. */
static void write_compressed(const char *name, uint32_t n) {
  uint32_t chunks = (n + 255) / 256;
  char head[1400];
  int len = snprintf(head, sizeof head, "ply\nformat binary_little_endian 1.0\nelement chunk %u\n", chunks);
  static const char *const bounds[18] = {"min_x", "min_y", "min_z", "max_x", "max_y", "max_z",
                                         "min_scale_x", "min_scale_y", "min_scale_z", "max_scale_x",
                                         "max_scale_y", "max_scale_z", "min_r", "min_g", "min_b", "max_r",
                                         "max_g", "max_b"};
  for (int k = 0; k < 18; k++) len += snprintf(head + len, sizeof head - (size_t)len, "property float %s\n", bounds[k]);
  len += snprintf(head + len, sizeof head - (size_t)len,
                  "element vertex %u\nproperty uint packed_position\nproperty uint packed_rotation\n"
                  "property uint packed_scale\nproperty uint packed_color\nelement sh %u\n", n, n);
  for (int k = 0; k < 9; k++) len += snprintf(head + len, sizeof head - (size_t)len, "property uchar f_rest_%d\n", k);
  len += snprintf(head + len, sizeof head - (size_t)len, "end_header\n");
  size_t size = (size_t)len + 72u * chunks + 16u * n + 9u * n;
  uint8_t *b = malloc(size), *at = b + len;
  memcpy(b, head, (size_t)len);
  uint64_t seed = 3;
  for (uint32_t c = 0; c < chunks; c++) {
    const float v[18] = {-1, -1, -1, 1, 1, 1, -6, -6, -6, -2, -2, -2, 0, 0, 0, 1, 1, 1};
    memcpy(at, v, sizeof v), at += sizeof v;
  }
  for (size_t i = 0; i < 25u * n; i++) *at++ = (uint8_t)splitmix64(&seed);
  write_bytes(name, b, size);
  free(b);
}

/* The same splats as a .splat (antimatter15: position, scale, RGBA, rotation bytes). */
static void write_dot_splat(const char *name, const splat_scene *s) {
  uint8_t *b = malloc(32u * s->count);
  for (uint32_t i = 0; i < s->count; i++) {
    uint8_t *r = b + 32u * i;
    memcpy(r, s->positions + 3 * i, 12), memcpy(r + 12, s->scales + 3 * i, 12);
    r[24] = r[25] = r[26] = 128, r[27] = 200, r[28] = 255, r[29] = r[30] = r[31] = 128;
  }
  write_bytes(name, b, 32u * s->count);
  free(b);
}

/* A small ASCII .ply, SH degree 0. */
static void write_ascii(const char *name, uint32_t n) {
  char *t = malloc(200u * n + 512);
  int len = sprintf(t, "ply\nformat ascii 1.0\nelement vertex %u\n", n);
  static const char *const props[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0",
                                      "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"};
  for (int k = 0; k < 14; k++) len += sprintf(t + len, "property float %s\n", props[k]);
  len += sprintf(t + len, "end_header\n");
  for (uint32_t i = 0; i < n; i++)
    len += sprintf(t + len, "%u 0.5 -%u 0.1 0.2 0.3 1.5 -4 -4.5 -5 1 0 0 0\n", i % 7, i % 5);
  write_bytes(name, t, (size_t)len);
  free(t);
}

static void write_files(void) {
  char err[512];
  mkdir(dir, 0755);
  splat_scene s = make_scene(600);
  if (splat_scene_write_ply(tmp_path("s.ply"), &s, err, sizeof err) ||
      splat_scene_write_spz(tmp_path("s.spz"), &s, err, sizeof err)) {
    fprintf(stderr, "test_faults_scene: %s\n", err);
    exit(1);
  }
  write_ascii("a.ply", 300);
  write_compressed("c.ply", 600);
  write_dot_splat("s.splat", &s);
  sog_output out;
  sog_write_options o = {.palette_max = 64};
  if (sog_write(&s, &o, &out, err, sizeof err) || sog_output_save(&out, tmp_path("sog"), err, sizeof err)) {
    fprintf(stderr, "test_faults_scene: SOG: %s\n", err);
    exit(1);
  }
  size_t size;
  uint8_t *zip = sog_output_zip(&out, true, &size);
  write_bytes("s.sog", zip, size);
  free(zip);
  sog_output_free(&out);
  splat_scene_free(&s);
}

/* ---- the sweep ------------------------------------------------------------------------------- */

/* Loads `path` on `threads` threads with allocation `n` failing (-1: none); returns its result
 * and the allocations it made in *calls. */
static int load(const char *path, uint32_t threads, long n, splat_scene *s, char *err, size_t err_size, long *calls) {
  splat_load_options o = {.threads = threads};
  atomic_store(&alloc_calls, 0);
  atomic_store(&fail_at, n);
  int rc = splat_scene_load_ex2(path, s, &o, err, err_size);
  atomic_store(&fail_at, -1);
  *calls = atomic_load(&alloc_calls);
  return rc;
}

static int scene_equal(const splat_scene *a, const splat_scene *b) {
  size_t n = a->count;
  return a->count == b->count && a->sh_coeffs == b->sh_coeffs && !memcmp(a->positions, b->positions, 12 * n) &&
         !memcmp(a->scales, b->scales, 12 * n) && !memcmp(a->rotations, b->rotations, 16 * n) &&
         !memcmp(a->opacities, b->opacities, 4 * n) && !memcmp(a->sh, b->sh, 12 * n * a->sh_coeffs);
}

/* Every allocation of one file's load failed in turn; returns the loads made. */
static long sweep_file(const char *name, uint32_t threads, long *tolerated) {
  char err[512];
  splat_scene clean, s;
  long calls, loads = 0;
  long live0 = atomic_load(&live);
  if (load(tmp_path(name), threads, -1, &clean, err, sizeof err, &calls) != 0) {
    CHECK(0, "%s: the clean load fails: %s", name, err);
    return 0;
  }
  for (long n = 0; n < calls; n++, loads++) {
    long made, before = atomic_load(&live);
    err[0] = 0;
    int rc = load(tmp_path(name), threads, n, &s, err, sizeof err, &made);
    if (rc == 0) { /* the failed allocation was one the loader can do without */
      CHECK(scene_equal(&s, &clean), "%s, %u thread(s): allocation %ld failed and the scene loaded differs", name,
            threads, n);
      splat_scene_free(&s);
      printf("  %s, %u thread(s): allocation %ld failed, the load went on without it\n", name, threads, n);
      (*tolerated)++;
    } else {
      CHECK(rc == -1, "%s, %u thread(s), allocation %ld failed: returned %d", name, threads, n, rc);
      CHECK(strstr(err, "memory") != NULL, "%s, %u thread(s), allocation %ld failed: message \"%s\"", name, threads,
            n, err);
      CHECK(s.count == 0 && !s.positions && !s.sh, "%s: the scene is not zeroed after a failed load", name);
    }
    CHECK(atomic_load(&live) == before, "%s, %u thread(s), allocation %ld failed: %ld block(s) left allocated", name,
          threads, n, atomic_load(&live) - before);
  }
  splat_scene_free(&clean);
  CHECK(atomic_load(&live) == live0, "%s: %ld block(s) left by the clean load", name, atomic_load(&live) - live0);
  printf("  %-14s %u thread(s): %ld allocations, each failed in turn\n", name, threads, calls);
  return loads;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_faults_scene <tmp folder>\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "%s", argv[1]);
  check_print_limit = 50;
  double t0 = now_seconds();
  write_files();
  static const char *const files[] = {"s.ply", "a.ply", "c.ply", "s.splat", "s.spz", "sog/meta.json", "s.sog"};
  long loads = 0, tolerated = 0;
  for (uint32_t threads = 1; threads <= 2; threads++)
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) loads += sweep_file(files[f], threads, &tolerated);
  printf("test_faults_scene: %ld loads, each failing one allocation: %ld failed as they should, %ld tolerated "
         "(%.1f s)\n", loads, loads - tolerated, tolerated, now_seconds() - t0);
  return check_report("test_faults_scene");
}
