/* stability.c: temporal-stability measures for the blend orders (see stability.h): the popping
 * scene, the orbit, PSNR and popping pixels, and the hand-written SVG plot. */
#include "stability.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const double PI = 3.14159265358979323846;

static double unit(uint64_t *st) { return (double)(splitmix64(st) >> 11) / 9007199254740992.0; }

/* Shoemake's uniform random unit quaternion (w, x, y, z). */
static void random_quat(uint64_t *st, float q[4]) {
  double u1 = unit(st), u2 = 2.0 * PI * unit(st), u3 = 2.0 * PI * unit(st);
  double a = sqrt(1.0 - u1), b = sqrt(u1);
  q[0] = (float)(b * cos(u3)), q[1] = (float)(a * sin(u2)), q[2] = (float)(a * cos(u2)), q[3] = (float)(b * sin(u3));
}

/* A fully saturated colour of hue h in [0, 1). */
static void hue_rgb(double h, double rgb[3]) {
  for (int c = 0; c < 3; c++) {
    double k = fmod(h * 6.0 + (c == 0 ? 5.0 : c == 1 ? 3.0 : 1.0), 6.0);
    rgb[c] = 1.0 - fmax(0.0, fmin(1.0, fmin(k, 4.0 - k)));
  }
}

splat_scene stability_popping_scene(uint32_t n, uint32_t seed) {
  splat_scene s;
  memset(&s, 0, sizeof s);
  size_t m = n ? n : 1;
  s.sh_coeffs = 1;
  s.positions = malloc(m * 3 * sizeof(float));
  s.scales = malloc(m * 3 * sizeof(float));
  s.rotations = malloc(m * 4 * sizeof(float));
  s.opacities = malloc(m * sizeof(float));
  s.sh = malloc(m * 3 * sizeof(float));
  if (!s.positions || !s.scales || !s.rotations || !s.opacities || !s.sh) {
    splat_scene_free(&s);
    memset(&s, 0, sizeof s);
    return s;
  }
  s.count = n;
  uint64_t st = 0x5EED0000ull ^ seed;
  const float shape[3] = {1.0f, 0.35f, 0.004f};
  for (uint32_t i = 0; i < n; i++) {
    double p[3], r2;
    do { /* rejection: uniform in the ball */
      for (int k = 0; k < 3; k++) p[k] = 2.0 * unit(&st) - 1.0;
      r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    } while (r2 > 1.0);
    double f = 0.6 + 0.8 * unit(&st), rgb[3];
    hue_rgb(fmod(0.6180339887498949 * i, 1.0), rgb); /* golden-ratio hues: neighbours differ */
    for (int k = 0; k < 3; k++) {
      s.positions[i * 3 + (uint32_t)k] = (float)(0.6 * p[k]);
      s.scales[i * 3 + (uint32_t)k] = (float)(shape[k] * f);
      s.sh[i * 3 + (uint32_t)k] = (float)((rgb[k] - 0.5) / SPLAT_SH_C0);
    }
    random_quat(&st, s.rotations + i * 4);
    s.opacities[i] = (float)(0.6 + 0.35 * unit(&st));
  }
  for (int k = 0; k < 3; k++) s.bounds_min[k] = -0.6f, s.bounds_max[k] = 0.6f;
  return s;
}

void stability_orbit_camera(const float centre[3], float distance, float elevation_deg, float start_deg,
                            float span_deg, uint32_t frame, uint32_t frames, float fovy_deg, uint32_t w, uint32_t h,
                            splat_camera *out) {
  double az = start_deg + (frames > 1 ? span_deg * (double)frame / (double)(frames - 1) : 0.0);
  double a = az * PI / 180.0, e = elevation_deg * PI / 180.0;
  const float up[3] = {0.0f, -1.0f, 0.0f};
  float eye[3] = {(float)(centre[0] + distance * cos(e) * sin(a)), (float)(centre[1] - distance * sin(e)),
                  (float)(centre[2] - distance * cos(e) * cos(a))};
  splat_camera_look_at(out, eye, centre, up, fovy_deg, w, h);
}

static float clamp01(float v) { return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; } /* NaN -> 0 */

double stability_psnr(const float *a, const float *b, uint32_t w, uint32_t h) {
  size_t n = (size_t)w * h;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      double d = (double)clamp01(a[i * 4 + (size_t)c]) - clamp01(b[i * 4 + (size_t)c]);
      sum += d * d;
    }
  if (sum == 0.0 || n == 0) return INFINITY;
  return 10.0 * log10(3.0 * (double)n / sum);
}

/* The largest |difference| over R, G, B of pixel i. */
static float change(const float *a, const float *b, size_t i) {
  float m = 0.0f;
  for (int c = 0; c < 3; c++) m = fmaxf(m, fabsf(clamp01(a[i * 4 + (size_t)c]) - clamp01(b[i * 4 + (size_t)c])));
  return m;
}

uint64_t stability_pops(const float *prev, const float *cur, const float *ref_prev, const float *ref_cur, uint32_t w,
                        uint32_t h, float thr) {
  uint64_t pops = 0;
  for (size_t i = 0; i < (size_t)w * h; i++) pops += change(prev, cur, i) - change(ref_prev, ref_cur, i) > thr;
  return pops;
}

/* ---- the SVG ----------------------------------------------------------------------------------- */

/* A file written through svg_out: the first failed write is remembered, not checked per call. */
typedef struct svg {
  FILE *f;
  int bad;
} svg;

__attribute__((format(printf, 2, 3))) static void svg_out(svg *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(s->f, fmt, ap) < 0) s->bad = 1;
  va_end(ap);
}

/* Text with XML's special characters escaped. */
static void svg_text(svg *s, const char *t) {
  for (; *t; t++) {
    if (*t == '<') svg_out(s, "&lt;");
    else if (*t == '>') svg_out(s, "&gt;");
    else if (*t == '&') svg_out(s, "&amp;");
    else svg_out(s, "%c", *t);
  }
}

/* A tick step of 1, 2 or 5 times a power of ten giving about five ticks over `range`. */
static double nice_step(double range) {
  double raw = range / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
  return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

enum { SVG_W = 860, SVG_H = 660, PLOT_X0 = 80, PLOT_X1 = 650, LEGEND_X = 670 };

/* One panel between y0 (top) and y1 (bottom): axes, ticks, grid, a polyline per series.
 * which: 0 PSNR (frames values), 1 pops (frames - 1 values, at frames 1..). */
static void svg_panel(svg *s, double y0, double y1, uint32_t frames, const stability_series *series, uint32_t count,
                      int which, const char *ylabel) {
  double lo = INFINITY, hi = -INFINITY;
  uint32_t nv = which ? (frames > 0 ? frames - 1 : 0) : frames;
  for (uint32_t k = 0; k < count; k++)
    for (uint32_t i = 0; i < nv; i++) {
      double v = which ? series[k].pops[i] : series[k].psnr[i];
      if (isfinite(v)) lo = fmin(lo, v), hi = fmax(hi, v);
    }
  if (!(lo <= hi)) lo = 0.0, hi = 1.0;
  if (which) lo = 0.0;
  if (hi - lo < 1e-9) hi = lo + 1.0;
  double step = nice_step(hi - lo);
  lo = floor(lo / step) * step, hi = ceil(hi / step) * step;
  double xmax = frames > 1 ? frames - 1 : 1;
#define X(f) (PLOT_X0 + (PLOT_X1 - PLOT_X0) * (f) / xmax)
#define Y(v) (y1 - (y1 - y0) * ((v) - lo) / (hi - lo))
  svg_out(s, "<rect x='%d' y='%.1f' width='%d' height='%.1f' fill='none' stroke='#444'/>\n", PLOT_X0, y0,
          PLOT_X1 - PLOT_X0, y1 - y0);
  for (double v = lo; v <= hi + step * 1e-6; v += step) {
    svg_out(s, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>", PLOT_X0, Y(v), PLOT_X1, Y(v));
    svg_out(s, "<text x='%d' y='%.1f' text-anchor='end' font-size='12'>%g</text>\n", PLOT_X0 - 6, Y(v) + 4, v);
  }
  double xstep = nice_step(xmax);
  for (double f = 0; f <= xmax + 1e-9; f += xstep) {
    svg_out(s, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#444'/>", X(f), y1, X(f), y1 + 5);
    svg_out(s, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12'>%g</text>\n", X(f), y1 + 18, f);
  }
  svg_out(s, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='13'>frame</text>\n",
          (PLOT_X0 + PLOT_X1) / 2.0, y1 + 34);
  svg_out(s, "<text transform='translate(%d %.1f) rotate(-90)' text-anchor='middle' font-size='13'>", 24,
          (y0 + y1) / 2.0);
  svg_text(s, ylabel);
  svg_out(s, "</text>\n");
  for (uint32_t k = 0; k < count; k++) {
    int open = 0; /* a non-finite value breaks the line */
    for (uint32_t i = 0; i < nv; i++) {
      double v = which ? series[k].pops[i] : series[k].psnr[i], f = which ? i + 1.0 : (double)i;
      if (!isfinite(v)) {
        if (open) svg_out(s, "'/>\n");
        open = 0;
        continue;
      }
      if (!open) svg_out(s, "<polyline fill='none' stroke-width='1.6' stroke='%s' points='", series[k].color);
      svg_out(s, "%.1f,%.1f ", X(f), Y(v));
      open = 1;
    }
    if (open) svg_out(s, "'/>\n");
  }
#undef X
#undef Y
}

int stability_write_svg(const char *path, const char *title, uint32_t frames, const stability_series *series,
                        uint32_t count) {
  svg s = {fopen(path, "w"), 0};
  if (!s.f) return -1;
  svg_out(&s, "<?xml version='1.0' encoding='UTF-8'?>\n");
  svg_out(&s, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif'>\n", SVG_W,
          SVG_H);
  svg_out(&s, "<rect width='100%%' height='100%%' fill='white'/>\n");
  svg_out(&s, "<text x='%d' y='26' text-anchor='middle' font-size='16'>", SVG_W / 2);
  svg_text(&s, title);
  svg_out(&s, "</text>\n");
  svg_panel(&s, 50, 300, frames, series, count, 0, "PSNR vs exact order (dB)");
  svg_panel(&s, 370, 610, frames, series, count, 1, "popping pixels per frame");
  for (uint32_t k = 0; k < count; k++) {
    double y = 60 + 22 * k;
    svg_out(&s, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='%s' stroke-width='3'/>", LEGEND_X, y,
            LEGEND_X + 24, y, series[k].color);
    svg_out(&s, "<text x='%d' y='%.1f' font-size='13'>", LEGEND_X + 30, y + 4);
    svg_text(&s, series[k].label);
    svg_out(&s, "</text>\n");
  }
  svg_out(&s, "</svg>\n");
  int closed = fclose(s.f) == 0;
  return s.bad || !closed ? -1 : 0;
}
