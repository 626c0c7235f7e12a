/* Shared pieces of splatview's headless and windowed modes. */
#include "app.h"
#include "input.h"
#include "message.h"
#include "raster_auto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stb/stb_image_write.h>

void app_fmt_count(char *out, size_t n, uint64_t x) {
  char digits[32];
  int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)x), o = 0;
  for (int i = 0; i < len && o + 2 < (int)n; i++) {
    if (i && (len - i) % 3 == 0) out[o++] = ',';
    out[o++] = digits[i];
  }
  out[o] = 0;
}

void app_progress_line(char *out, size_t n, const char *phase, uint64_t done, uint64_t total, double seconds) {
  double pct = total ? 100.0 * (double)done / (double)total : 0.0, rate = seconds > 0 ? (double)done / seconds : 0;
  if (!strcmp(phase, "read")) {
    int len = snprintf(out, n, "read %3.0f%%  %.0f / %.0f MB", pct, (double)done / 1e6, (double)total / 1e6);
    if (done && len > 0 && (size_t)len < n) snprintf(out + len, n - (size_t)len, "  %.0f MB/s", rate / 1e6);
  } else if (!strcmp(phase, "decode")) {
    char a[32], b[32];
    app_fmt_count(a, sizeof a, done);
    app_fmt_count(b, sizeof b, total);
    int len = snprintf(out, n, "decode %3.0f%%  %s / %s splats", pct, a, b);
    if (done && len > 0 && (size_t)len < n) snprintf(out + len, n - (size_t)len, "  %.2f M splats/s", rate / 1e6);
  } else if (!strcmp(phase, "tree")) {
    snprintf(out, n, "level-of-detail tree");
  } else {
    snprintf(out, n, "%s", phase);
  }
}

/* --headless on a terminal: the progress line on stderr, rewritten in place. */
typedef struct tty_progress {
  const char *name;
  const char *phase;
  double phase_t0;
} tty_progress;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void on_tty_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
  tty_progress *t = user;
  if (t->phase == NULL || strcmp(t->phase, phase) != 0) t->phase = phase, t->phase_t0 = now_s();
  char line[256];
  app_progress_line(line, sizeof line, phase, done, total, now_s() - t->phase_t0);
  fprintf(stderr, "\rloading %s: %s\033[K", viewer_path(t->name), line); /* \033[K: clear the rest of the line */
  fflush(stderr);
}

static splat_load_options load_options;
static splat_lod_method lod_method;

void app_set_load_options(const splatview_options *o) {
  load_options = (splat_load_options){.max_memory = (uint64_t)o->max_load_memory_mib << 20, .lod_level = o->lod_level};
  lod_method = o->lod_tree;
}

void app_set_max_splats(uint64_t n) { load_options.max_splats = n; }

splat_lod_options app_lod_options(void) { return (splat_lod_options){.threads = 0, .method = lod_method}; }

splat_load_options app_load_options(void) { return load_options; }

uint64_t app_max_load_memory(void) { return load_options.max_memory; }

int app_load_scene(const char *path, splat_scene *scene, bool show_progress, char *err, size_t n) {
  /* every core, and no whole-file copy for binary .ply and .splat (splat_scene_load_ex2) */
  splat_load_options quiet = load_options;
  if (!show_progress || !isatty(STDERR_FILENO)) return splat_scene_load_ex2(path, scene, &quiet, err, n);
  const char *slash = strrchr(path, '/');
  tty_progress t = {slash ? slash + 1 : path, NULL, 0};
  splat_load_progress p = {on_tty_progress, &t, NULL};
  splat_load_options o = load_options;
  o.progress = &p;
  int rc = splat_scene_load_ex2(path, scene, &o, err, n);
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
  return rc;
}

void app_scene_bounds(const splat_scene *scene, float lo[3], float hi[3]) {
  if (splat_scene_robust_bounds(scene->positions, scene->count, lo, hi) != 0) {
    memcpy(lo, scene->bounds_min, sizeof(float) * 3);
    memcpy(hi, scene->bounds_max, sizeof(float) * 3);
  }
  /* a degenerate box (one splat, a plane) still needs some size to frame */
  for (int k = 0; k < 3; k++)
    if (hi[k] - lo[k] < 1e-3f) lo[k] -= 0.5f, hi[k] += 0.5f;
}

void app_scene_name(char *dst, size_t n, const char *path) {
  size_t end = strlen(path), start;
  while (end > 1 && path[end - 1] == '/') --end; /* a folder given as "garden/" */
  start = end;
  while (start > 0 && path[start - 1] != '/') --start;
  bool sog = (end - start == 9 && memcmp(path + start, "meta.json", 9) == 0) ||
             (end - start == 13 && memcmp(path + start, "lod-meta.json", 13) == 0);
  if (sog && start > 1)
    for (--start; start > 0 && path[start - 1] != '/'; --start) {
    }
  size_t len = end - start;
  if (len >= n) len = n - 1;
  memcpy(dst, path + start, len);
  dst[len] = 0;
  viewer_printable(dst); /* shown in titles, the HUD and summary lines */
}

int app_bench_camera(const splatview_options *o, const splat_orbit *orbit, const splat_camera *start,
                     uint32_t frame, uint32_t width, uint32_t height, splat_camera *cam) {
  if (!(o->bench && o->frames > 1)) {
    *cam = *start;
    return 0;
  }
  /* a fixed orbit around the start target: one turn over the run (as headless.c) */
  splat_orbit turn = *orbit;
  turn.yaw += 6.2831853f * (float)frame / (float)o->frames;
  return splat_orbit_camera(&turn, o->fovy, width, height, cam);
}

const char *const app_stage_names[APP_STAGES] = {"projection", "depth sort", "raster", "total",
                                                 "pairs", "tile sort", "blend"};

double app_stage_ms(const splat_timings *t, enum app_stage stage) {
  switch (stage) {
  case APP_PROJECTION: return t->projection_ms;
  case APP_SORT: return t->sort_ms;
  case APP_RASTER: return t->raster_ms;
  case APP_TOTAL: return t->total_ms;
  case APP_PAIRS: return t->pairs_ms;
  case APP_TILE_SORT: return t->tile_sort_ms;
  case APP_BLEND: return t->blend_ms;
  default: return 0;
  }
}

static void series_add(app_series *s, double x) {
  if (s->count == s->capacity) {
    uint32_t cap = s->capacity ? s->capacity * 2 : 256;
    double *p = realloc(s->v, sizeof(double) * cap);
    if (!p) return;
    s->v = p;
    s->capacity = cap;
  }
  s->v[s->count++] = x;
}

void app_stats_add(app_stats *s, const splat_timings *t) {
  if (s->seen++ == 0) s->first = *t;
  if (s->seen <= s->skip) return;
  bool compute = t->raster == SPLAT_RASTER_COMPUTE;
  for (int k = 0; k < APP_STAGES; k++)
    if (k < APP_PAIRS || compute) series_add(&s->stage[k], app_stage_ms(t, (enum app_stage)k));
  if (app_lod_drawn(t)) {
    series_add(&s->lod_cut_ms, t->lod_cut_ms);
    series_add(&s->lod_cut, t->lod_cut);
    series_add(&s->lod_threshold, t->lod_threshold);
  }
  s->count++;
  s->raster_frames[compute]++;
  if (!compute) return;
  s->overflows += app_overflowed(t);
  if (t->pairs > s->max_pairs) s->max_pairs = t->pairs;
  s->pair_capacity = t->pair_capacity;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double app_percentile(const double *values, uint32_t count, double p) {
  if (!count) return 0;
  double *v = malloc(sizeof(double) * count);
  if (!v) return 0;
  memcpy(v, values, sizeof(double) * count);
  qsort(v, count, sizeof *v, cmp_double);
  double pos = p * (count - 1);
  uint32_t i = (uint32_t)pos;
  double frac = pos - i, r = i + 1 < count ? v[i] * (1 - frac) + v[i + 1] * frac : v[i];
  free(v);
  return r;
}

static void print_stage(FILE *f, const app_series *s, const char *name) {
  fprintf(f, "  %-11s %9.3f %9.3f %9.3f %9.3f\n", name, app_percentile(s->v, s->count, 0.5),
          app_percentile(s->v, s->count, 0.95), app_percentile(s->v, s->count, 0.99),
          app_percentile(s->v, s->count, 1.0));
}

/* The raster path(s) the frames took and, for the compute raster, the pairs they needed. */
static void print_raster(const app_stats *s, FILE *f) {
  const uint32_t *n = s->raster_frames;
  if (n[0] && n[1])
    fprintf(f, "  raster graphics (%u frames) and compute (%u frames; its stages over those)\n", n[0], n[1]);
  else
    fprintf(f, "  raster %s\n", viewer_raster_name(n[1] ? SPLAT_RASTER_COMPUTE : SPLAT_RASTER_GRAPHICS));
}

static void print_pairs(const app_stats *s, FILE *f) {
  if (!s->raster_frames[1]) return;
  fprintf(f, "  compute raster: up to %u (tile, splat) pairs a frame, capacity %u at the end", s->max_pairs,
          s->pair_capacity);
  if (s->overflows)
    fprintf(f, "; overflowed in %u of %u frames (their farthest splats' pairs left out)\n", s->overflows,
            s->raster_frames[1]);
  else
    fprintf(f, "\n");
}

/* The level-of-detail cut over the frames that drew one: nodes and threshold. */
static void print_lod(const app_stats *s, FILE *f) {
  const app_series *cut = &s->lod_cut, *tau = &s->lod_threshold;
  if (!cut->count) return;
  char med[32], lo[32], hi[32];
  app_fmt_count(med, sizeof med, (uint64_t)llround(app_percentile(cut->v, cut->count, 0.5)));
  app_fmt_count(lo, sizeof lo, (uint64_t)llround(app_percentile(cut->v, cut->count, 0.0)));
  app_fmt_count(hi, sizeof hi, (uint64_t)llround(app_percentile(cut->v, cut->count, 1.0)));
  fprintf(f, "  level of detail (%u frames): cut median %s nodes (%s..%s), threshold median %.3f (%.3f..%.3f), "
             "cut %.3f ms median\n", cut->count, med, lo, hi, app_percentile(tau->v, tau->count, 0.5),
          app_percentile(tau->v, tau->count, 0.0), app_percentile(tau->v, tau->count, 1.0),
          app_percentile(s->lod_cut_ms.v, s->lod_cut_ms.count, 0.5));
}

void app_stats_print(const app_stats *s, FILE *f, const char *title) {
  if (s->skip)
    fprintf(f, "%s (%u frames after %u warm-up frames, GPU timestamps, ms)\n", title, s->count, s->skip);
  else
    fprintf(f, "%s (%u frames, GPU timestamps, ms)\n", title, s->count);
  print_raster(s, f);
  fprintf(f, "  %-11s %9s %9s %9s %9s\n", "stage", "median", "p95", "p99", "max");
  print_stage(f, &s->stage[APP_PROJECTION], "projection");
  if (s->lod_cut_ms.count) print_stage(f, &s->lod_cut_ms, " lod cut"); /* indented: part of projection */
  print_stage(f, &s->stage[APP_SORT], "depth sort");
  print_stage(f, &s->stage[APP_RASTER], "raster");
  if (s->raster_frames[1])
    for (int k = APP_PAIRS; k < APP_STAGES; k++) {
      char name[32];
      snprintf(name, sizeof name, " %s", app_stage_names[k]); /* indented: parts of raster */
      print_stage(f, &s->stage[k], name);
    }
  print_stage(f, &s->stage[APP_TOTAL], "total");
  print_pairs(s, f);
  print_lod(s, f);
  if (s->skip)
    fprintf(f, "  first frame: projection %.3f, depth sort %.3f, raster %.3f, total %.3f\n", s->first.projection_ms,
            s->first.sort_ms, s->first.raster_ms, s->first.total_ms);
  const app_series *total = &s->stage[APP_TOTAL];
  double med = app_percentile(total->v, total->count, 0.5);
  if (med > 0) fprintf(f, "  GPU frame rate at the median: %.1f frames/s\n", 1000.0 / med);
}

void app_stats_free(app_stats *s) {
  for (int k = 0; k < APP_STAGES; k++) free(s->stage[k].v);
  free(s->lod_cut_ms.v);
  free(s->lod_cut.v);
  free(s->lod_threshold.v);
  memset(s, 0, sizeof *s);
}

int app_timings_open(viewer_out *out, const char *path, char *err, size_t n) {
  if (viewer_out_open(out, path, err, n) != 0) return -1;
  fprintf(out->f, "frame,projection_ms,depth_sort_ms,raster_ms,total_ms,visible,sort,key_bits,"
                  "raster,pairs_ms,tile_sort_ms,blend_ms,pairs,pair_capacity,order_window,lod_cut,lod_threshold,"
                  "lod_cut_ms\n");
  return 0;
}

void app_timings_row(FILE *f, uint32_t frame, const splat_timings *t) {
  fprintf(f, "%u,%.4f,%.4f,%.4f,%.4f,%u,%s,%u,%s,%.4f,%.4f,%.4f,%u,%u,%u,%u,%.4f,%.4f\n", frame, t->projection_ms,
          t->sort_ms, t->raster_ms, t->total_ms, t->visible, splatsort_algorithm_name(t->sort), t->key_bits,
          viewer_raster_name(t->raster), t->pairs_ms, t->tile_sort_ms, t->blend_ms, t->pairs, t->pair_capacity,
          t->order_window, t->lod_cut, t->lod_threshold, t->lod_cut_ms);
}

const char *app_order_note(const splat_timings *t, char *buf, size_t n) {
  if (t->order != SPLAT_ORDER_PER_PIXEL) return "";
  snprintf(buf, n, " (per-pixel order, window %u)", t->order_window);
  return buf;
}

void app_print_overflow(FILE *f, const splat_timings *t) {
  if (app_overflowed(t))
    fprintf(f, "the last frame needed %u (tile, splat) pairs but had room for %u: its farthest splats' pairs were "
               "left out\n", t->pairs, t->pair_capacity);
}

/* ---- --raster auto ------------------------------------------------------------------ */

splat_raster_path app_start_raster(const splatview_options *o, const vkh_context *ctx, bool checks) {
  if (o->raster != SPLATVIEW_RASTER_AUTO)
    return o->raster == SPLATVIEW_RASTER_COMPUTE ? SPLAT_RASTER_COMPUTE : SPLAT_RASTER_GRAPHICS;
  char why[160];
  splat_raster_path p = raster_auto_pick(ctx->props.deviceType, o->grid, why, sizeof why);
  printf("raster auto: %s, chosen from the device (%s); %s\n", viewer_raster_name(p), why,
         checks ? "the first frames try the other path" : "no frame measured");
  return p;
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, x;
  if (e == 0) {
    if (m == 0) {
      x = sign;
    } else {
      int shift = 0;
      while (!(m & 0x400u)) m <<= 1, shift++;
      m &= 0x3FFu;
      x = sign | ((uint32_t)(127 - 15 - shift + 1) << 23) | (m << 13);
    }
  } else if (e == 31) {
    x = sign | 0x7F800000u | (m << 13);
  } else {
    x = sign | ((e - 15 + 127) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}

void app_rgba16f_to_rgba8(const uint16_t *src, uint32_t w, uint32_t h, uint8_t *dst) {
  for (size_t i = 0; i < (size_t)w * h * 4; i++) {
    float v = half_to_float(src[i]);
    v = v != v ? 0.0f : v < 0 ? 0.0f : v > 1 ? 1.0f : v;
    dst[i] = (uint8_t)lrintf(v * 255.0f);
  }
  for (size_t i = 0; i < (size_t)w * h; i++) dst[4 * i + 3] = 255; /* composited over an opaque background */
}

/* stbi_write_png_to_func's sink: the PNG's bytes into the output file, checked at the close. */
static void png_sink(void *user, void *data, int size) { fwrite(data, 1, (size_t)size, user); }

int app_write_png_rgba16f(const char *path, uint32_t w, uint32_t h, const uint16_t *pixels, char *err, size_t n) {
  uint8_t *rgba = malloc((size_t)w * h * 4);
  if (!rgba) {
    snprintf(err, n, "%s: out of memory for a %ux%u image", viewer_path(path), w, h);
    return -1;
  }
  app_rgba16f_to_rgba8(pixels, w, h, rgba);
  viewer_out out;
  int rc = viewer_out_open(&out, path, err, n);
  if (rc == 0) {
    /* stb reports only its own failures (memory); the writes' are the stream's (ferror at the close) */
    if (stbi_write_png_to_func(png_sink, out.f, (int)w, (int)h, 4, rgba, (int)w * 4)) {
      rc = viewer_out_close(&out, err, n);
    } else {
      snprintf(err, n, "%s: cannot encode the PNG", viewer_path(path));
      viewer_out_discard(&out);
      rc = -1;
    }
  }
  free(rgba);
  return rc;
}
