/* scene_load_bench: times loading one file (any format the loader reads; a SOG scene by its
 * folder or meta.json, whose bytes are meta.json's and the .webp images' beside it), several
 * runs, and prints splats/s and MB/s (file bytes; in the page cache after the first run). Each
 * run loads the file twice, with splat_scene_load and with splat_scene_load_ex and a progress
 * callback, in alternating order, so the cost of the progress reports is measured under the
 * same conditions; the callback's timestamps also split a load into its read and decode phases.
 * With --threads N both loads go through splat_scene_load_ex2 with N threads (0: every core), which
 * decodes every format in parallel (splat_scene.h says how each splits) and reads binary .ply and
 * .splat while decoding them (its "decode" phase holds the reading). The
 * peak RSS printed is the process's (getrusage), over all runs. */
#include "splat_scene.h"
#include "util.h"

#include <dirent.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdbool.h>
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

/* What the callback keeps: as little as a viewer would (the latest values and a clock read). */
typedef struct bench_progress {
  const char *phase;
  uint64_t done, total;
  double decode_start; /* time of the first "decode" report */
  unsigned reports;
} bench_progress;

static void on_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
  bench_progress *p = user;
  if (phase[0] == 'd' && done == 0) p->decode_start = now_seconds();
  p->phase = phase;
  p->done = done;
  p->total = total;
  p->reports++;
}

/* Times of one kind of load, sorted once measured. */
typedef struct series {
  double *wall, *cpu, first;
} series;

static void print_series(const char *title, series *s, long runs, uint32_t count, double mb) {
  qsort(s->wall, (size_t)runs, sizeof s->wall[0], cmp_double);
  qsort(s->cpu, (size_t)runs, sizeof s->cpu[0], cmp_double);
  double best = s->wall[0], median = s->wall[runs / 2];
  printf("  %s\n", title);
  printf("    first run %.3f s; best of %ld %.3f s, median %.3f s\n", s->first, runs, best, median);
  printf("    best:   %.2f M splats/s, %.0f MB/s\n", count / best / 1e6, mb / best);
  printf("    median: %.2f M splats/s, %.0f MB/s\n", count / median / 1e6, mb / median);
  printf("    CPU time (user+sys) a load: best %.3f s, median %.3f s\n", s->cpu[0], s->cpu[runs / 2]);
}

int main(int argc, char **argv) {
  static const struct option long_options[] = {
      {"runs", required_argument, NULL, 'r'}, {"expect-count", required_argument, NULL, 'e'},
      {"threads", required_argument, NULL, 't'}, {NULL, 0, NULL, 0}};
  const char *path = NULL;
  long runs = 5, expect = -1, threads = -1; /* -1: splat_scene_load / _ex */
  opterr = 0; /* one usage line instead of getopt's message */
  for (int c; (c = getopt_long(argc, argv, ":", long_options, NULL)) != -1;) {
    if (c == 'r') runs = strtol(optarg, NULL, 10);
    else if (c == 'e') expect = strtol(optarg, NULL, 10);
    else if (c == 't') threads = strtol(optarg, NULL, 10);
    else {
      fprintf(stderr, "usage: scene_load_bench FILE [--runs N] [--expect-count N] [--threads N]\n");
      return 2;
    }
  }
  if (optind + 1 == argc) path = argv[optind];
  if (path == NULL || runs < 1 || runs > 1000 || threads < -1 || threads > 4096) {
    fprintf(stderr, "usage: scene_load_bench FILE [--runs N (1..1000)] [--expect-count N] [--threads N (0..4096)]\n");
    return 2;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    return 1;
  }
  series plain = {0}, hooked = {0};
  double *read_s = malloc(sizeof(double) * (size_t)runs), *decode_s = malloc(sizeof(double) * (size_t)runs);
  plain.wall = malloc(sizeof(double) * (size_t)runs), plain.cpu = malloc(sizeof(double) * (size_t)runs);
  hooked.wall = malloc(sizeof(double) * (size_t)runs), hooked.cpu = malloc(sizeof(double) * (size_t)runs);
  if (!read_s || !decode_s || !plain.wall || !plain.cpu || !hooked.wall || !hooked.cpu) return 1;
  uint32_t count = 0, degree = 0;
  unsigned reports = 0;
  for (long r = 0; r < runs; ++r) {
    for (int k = 0; k < 2; ++k) {
      bool with_progress = (k == 0) == (r % 2 == 1); /* plain first in even runs */
      series *s = with_progress ? &hooked : &plain;
      bench_progress bp = {0};
      splat_load_progress p = {on_progress, &bp, NULL};
      splat_scene sc;
      char err[512];
      double t0 = now_seconds(), c0 = cpu_time();
      splat_load_options o = {.progress = with_progress ? &p : NULL, .threads = (uint32_t)threads};
      int rc = threads >= 0     ? splat_scene_load_ex2(path, &sc, &o, err, sizeof err)
               : with_progress ? splat_scene_load_ex(path, &sc, &p, err, sizeof err)
                               : splat_scene_load(path, &sc, err, sizeof err);
      if (rc != 0) {
        fprintf(stderr, "scene_load_bench: %s\n", err);
        return 1;
      }
      double t1 = now_seconds();
      s->wall[r] = t1 - t0;
      s->cpu[r] = cpu_time() - c0;
      if (r == 0) s->first = s->wall[r];
      if (with_progress) {
        read_s[r] = bp.decode_start - t0; /* with the header's parsing, which is negligible */
        decode_s[r] = t1 - bp.decode_start;
        reports = bp.reports;
      }
      count = sc.count, degree = sc.sh_degree;
      splat_scene_free(&sc);
    }
  }
  if (expect >= 0 && (long)count != expect) {
    fprintf(stderr, "scene_load_bench: %s loaded %u splats, expected %ld\n", path, count, expect);
    return 1;
  }
  double mb = scene_bytes(path, &st) / 1e6;
  printf("%s: %u splats, SH degree %u, %.1f MB\n", path, count, degree, mb);
  char title[128];
  if (threads >= 0) snprintf(title, sizeof title, "splat_scene_load_ex2, %ld threads (no progress):", threads);
  else snprintf(title, sizeof title, "splat_scene_load (no progress):");
  print_series(title, &plain, runs, count, mb);
  if (threads >= 0)
    snprintf(title, sizeof title, "splat_scene_load_ex2, %ld threads, with a progress callback (%u reports a load):",
             threads, reports);
  else snprintf(title, sizeof title, "splat_scene_load_ex with a progress callback (%u reports a load):", reports);
  print_series(title, &hooked, runs, count, mb);
  printf("  median with progress / without: %.3f\n", hooked.wall[runs / 2] / plain.wall[runs / 2]);
  qsort(read_s, (size_t)runs, sizeof read_s[0], cmp_double);
  qsort(decode_s, (size_t)runs, sizeof decode_s[0], cmp_double);
  double rd = read_s[runs / 2], dc = decode_s[runs / 2];
  printf("  phases (median): read %.3f s (%.0f MB/s), decode %.3f s (%.2f M splats/s); read+decode %.3f s\n", rd,
         mb / rd, dc, count / dc / 1e6, rd + dc);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("  peak RSS %.1f MiB (the process, over all runs)\n", (double)ru.ru_maxrss / 1024.0);
  free(plain.wall), free(plain.cpu), free(hooked.wall), free(hooked.cpu), free(read_s), free(decode_s);
  return 0;
}
