/* scene_load_bench: times splat_scene_load on one file, several runs, and prints
 * splats/s and MB/s (file bytes; the file is in the page cache after the first run). For a SOG
 * scene given by its folder or meta.json, the bytes are meta.json's and the .webp images' beside
 * it. */
#include "scene.h"
#include "util.h"

#include <dirent.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* user + system CPU seconds of this process: less disturbed than wall time on a
 * shared machine, though still not immune to it. */
static double cpu_time(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec +
         (double)u.ru_stime.tv_usec * 1e-6;
}

/* The bytes a load reads: the file's, or for a SOG folder or meta.json, meta.json's and every
 * .webp beside it. */
static double scene_bytes(const char *path, const struct stat *st) {
  size_t n = strlen(path);
  bool json = n >= 5 && strcmp(path + n - 5, ".json") == 0;
  if (!S_ISDIR(st->st_mode) && !json) return (double)st->st_size;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  if (json) {
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
  }
  double bytes = 0;
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    size_t m = strlen(e->d_name);
    if (strcmp(e->d_name, "meta.json") != 0 && (m < 5 || strcmp(e->d_name + m - 5, ".webp") != 0)) continue;
    char f[8192];
    struct stat fs;
    snprintf(f, sizeof f, "%s/%s", dir, e->d_name);
    if (stat(f, &fs) == 0) bytes += (double)fs.st_size;
  }
  if (d) closedir(d);
  return bytes;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  static const struct option long_options[] = {
      {"runs", required_argument, NULL, 'r'}, {"expect-count", required_argument, NULL, 'e'}, {NULL, 0, NULL, 0}};
  const char *path = NULL;
  long runs = 5, expect = -1;
  opterr = 0; /* one usage line instead of getopt's message */
  for (int c; (c = getopt_long(argc, argv, ":", long_options, NULL)) != -1;) {
    if (c == 'r') runs = strtol(optarg, NULL, 10);
    else if (c == 'e') expect = strtol(optarg, NULL, 10);
    else {
      fprintf(stderr, "usage: scene_load_bench FILE [--runs N] [--expect-count N]\n");
      return 2;
    }
  }
  if (optind + 1 == argc) path = argv[optind];
  if (path == NULL || runs < 1 || runs > 1000) {
    fprintf(stderr, "usage: scene_load_bench FILE [--runs N (1..1000)] [--expect-count N]\n");
    return 2;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    return 1;
  }
  double *t = malloc(sizeof(double) * (size_t)runs), *cpu = malloc(sizeof(double) * (size_t)runs);
  if (t == NULL || cpu == NULL) return 1;
  uint32_t count = 0, degree = 0;
  for (long r = 0; r < runs; ++r) {
    splat_scene s;
    char err[512];
    double t0 = now_seconds(), c0 = cpu_time();
    if (splat_scene_load(path, &s, err, sizeof err) != 0) {
      fprintf(stderr, "scene_load_bench: %s\n", err);
      return 1;
    }
    t[r] = now_seconds() - t0;
    cpu[r] = cpu_time() - c0;
    count = s.count, degree = s.sh_degree;
    splat_scene_free(&s);
  }
  if (expect >= 0 && (long)count != expect) {
    fprintf(stderr, "scene_load_bench: %s loaded %u splats, expected %ld\n", path, count, expect);
    return 1;
  }
  double first = t[0];
  qsort(t, (size_t)runs, sizeof t[0], cmp_double);
  qsort(cpu, (size_t)runs, sizeof cpu[0], cmp_double);
  double best = t[0], median = t[runs / 2], mb = scene_bytes(path, &st) / 1e6;
  printf("%s: %u splats, SH degree %u, %.1f MB\n", path, count, degree, mb);
  printf("  first run %.3f s; best of %ld %.3f s, median %.3f s\n", first, runs, best, median);
  printf("  best:   %.2f M splats/s, %.0f MB/s\n", count / best / 1e6, mb / best);
  printf("  median: %.2f M splats/s, %.0f MB/s\n", count / median / 1e6, mb / median);
  printf("  CPU time (user+sys) a load: best %.3f s, median %.3f s\n", cpu[0], cpu[runs / 2]);
  free(t);
  free(cpu);
  return 0;
}
