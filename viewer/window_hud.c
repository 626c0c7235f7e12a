/* What the window's HUD says: the scene and frame rate, each stage's GPU time (this frame and
 * a running median), sort, raster, objects, messages, a load's progress and the key help. */
#include "window_hud.h"
#include "lod.h"
#include "swapchain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const uint8_t WHITE[4] = {255, 255, 255, 255}, GREY[4] = {165, 170, 180, 255}, RED[4] = {255, 110, 100, 255},
                     YELLOW[4] = {255, 215, 110, 255}, PANEL[4] = {8, 10, 14, 170};

/* right-aligned at x */
static void text_right(viewer_hud *h, float x, float y, const char *s, const uint8_t c[4]) {
  viewer_hud_text(h, x - viewer_hud_text_width(s), y, s, c);
}

/* The HUD's lines, top down: y is the next line's top, wmax the widest line so far. */
typedef struct hud_lines {
  viewer_hud *h;
  float y, wmax;
} hud_lines;

static void hud_line(hud_lines *l, const char *s, const uint8_t c[4]) {
  l->wmax = fmaxf(l->wmax, viewer_hud_text(l->h, 0, l->y, s, c));
  l->y += VIEWER_HUD_LINE;
}

/* Scene, frame rate, size and present mode. */
static void hud_header(const window_hud_info *v, hud_lines *l) {
  VkExtent2D e = v->extent;
  char a[512], b[64];
  app_fmt_count(b, sizeof b, v->splats);
  snprintf(a, sizeof a, "%s  %s splats", v->title, b);
  hud_line(l, a, WHITE);
  const char *mode = viewer_present_mode_name(v->present_mode);
  snprintf(a, sizeof a, "%.1f fps  %ux%u  vsync %s (%s)", v->fps, e.width, e.height,
           v->present_mode == VK_PRESENT_MODE_FIFO_KHR ? "on" : "off", mode);
  hud_line(l, a, WHITE);
  l->y += 3;
}

#define HUD_FRAME_COLUMN 112.0f  /* right edges of the stage table's columns */
#define HUD_MEDIAN_COLUMN 162.0f

/* One row of the stage table: this frame's time and the running median. */
static void hud_stage_row(const window_hud_info *v, hud_lines *l, enum app_stage k, const char *name, const uint8_t colour[4]) {
  const float c1 = HUD_FRAME_COLUMN, c2 = HUD_MEDIAN_COLUMN;
  char b[64] = "-", c[64] = "-";
  viewer_hud_text(l->h, 0, l->y, name, colour);
  if (v->last) {
    snprintf(b, sizeof b, "%.3f", app_stage_ms(v->last, k));
    snprintf(c, sizeof c, "%.3f", app_percentile(v->ring[k], v->ring_count, 0.5));
  }
  text_right(l->h, c1, l->y, b, WHITE);
  text_right(l->h, c2, l->y, c, WHITE);
  l->wmax = fmaxf(l->wmax, c2);
  l->y += VIEWER_HUD_LINE;
}

/* This frame's GPU time per stage and the running median; the compute raster's parts under
 * raster when the frame took it. */
static void hud_stage_table(const window_hud_info *v, hud_lines *l) {
  viewer_hud_text(l->h, 0, l->y, "GPU ms", GREY);
  text_right(l->h, HUD_FRAME_COLUMN, l->y, "frame", GREY);
  text_right(l->h, HUD_MEDIAN_COLUMN, l->y, "median", GREY);
  l->y += VIEWER_HUD_LINE;
  for (int k = APP_PROJECTION; k <= APP_RASTER; k++) hud_stage_row(v, l, k, app_stage_names[k], GREY);
  if (v->last && v->last->raster == SPLAT_RASTER_COMPUTE)
    for (int k = APP_PAIRS; k < APP_STAGES; k++) {
      char name[32];
      snprintf(name, sizeof name, "  %s", app_stage_names[k]);
      hud_stage_row(v, l, k, name, GREY);
    }
  hud_stage_row(v, l, APP_TOTAL, app_stage_names[APP_TOTAL], WHITE);
  l->y += 3;
}

/* The raster path; for the compute raster the pairs the last frame needed and had room for. */
static void hud_raster(const window_hud_info *v, hud_lines *l) {
  char a[256], b[64], c[64];
  const splat_timings *t = v->last;
  if (v->in->raster != SPLAT_RASTER_COMPUTE || !t || t->raster != SPLAT_RASTER_COMPUTE) {
    snprintf(a, sizeof a, "raster %s", viewer_raster_name(v->in->raster));
    hud_line(l, a, WHITE);
    return;
  }
  app_fmt_count(b, sizeof b, t->pairs);
  app_fmt_count(c, sizeof c, t->pair_capacity);
  bool over = app_overflowed(t);
  snprintf(a, sizeof a, "raster compute, pairs %s / %s%s", b, c, over ? "  OVERFLOW" : "");
  hud_line(l, a, over ? RED : WHITE);
}

/* The order the pixels blend in (L): per-pixel only with the compute raster. */
static void hud_order(const window_hud_info *v, hud_lines *l) {
  char a[128];
  if (v->in->order != SPLAT_ORDER_PER_PIXEL)
    snprintf(a, sizeof a, "order global");
  else if (v->in->raster != SPLAT_RASTER_COMPUTE)
    snprintf(a, sizeof a, "order global (per-pixel needs the compute raster: R)");
  else
    snprintf(a, sizeof a, "order per-pixel, window %u", v->in->order_window ? v->in->order_window : SPLAT_ORDER_WINDOW_DEFAULT);
  hud_line(l, a, WHITE);
}

/* A load in the background: its file, a bar, and the phase's progress and speed. */
static void hud_loading(viewer_loader *loader, bool input_ready, hud_lines *l) {
  viewer_load_status st;
  viewer_loader_status(loader, &st);
  if (!st.running) return;
  char name[256], a[512], bar[32];
  app_scene_name(name, sizeof name, st.path);
  l->y += 3;
  snprintf(a, sizeof a, "loading %s  (%.1f s; %s)", name, st.seconds,
           input_ready ? "drop another file to replace it" : "Esc quits");
  hud_line(l, a, YELLOW);
  /* the whole load: reading the first 40%, decoding the rest (about their shares of the time) */
  double f = st.total ? (double)st.done / (double)st.total : 0.0;
  f = !strcmp(st.phase, "read") ? 0.4 * f : !strcmp(st.phase, "decode") ? 0.4 + 0.6 * f
    : !strcmp(st.phase, "tree") ? 1.0 : 0.0;
  int filled = (int)(f * 24.0 + 0.5);
  for (int i = 0; i < 24; i++) bar[i] = i < filled ? '#' : '.';
  bar[24] = 0;
  char line[256];
  app_progress_line(line, sizeof line, st.phase, st.done, st.total, st.phase_seconds);
  snprintf(a, sizeof a, "[%s] %s", bar, line);
  hud_line(l, a, WHITE);
}

/* Visible splats, sort path, the benchmark's progress or the controller, the message. */
static void hud_status(const window_hud_info *v, hud_lines *l) {
  char a[512], b[64], c[64];
  app_fmt_count(b, sizeof b, v->last ? v->last->visible : 0);
  app_fmt_count(c, sizeof c, v->splats);
  snprintf(a, sizeof a, "visible %s / %s", b, c);
  hud_line(l, a, WHITE);
  if (v->lod && v->last && app_lod_drawn(v->last)) { /* the first level-of-detail object's cut */
    viewer_lod_cut_line(v->last, v->lod_budget, a, sizeof a);
    hud_line(l, a, WHITE);
  }
  const viewer_input *in = v->in;
  if (in->sort == SPLATSORT_ALGORITHM_AUTO && v->last)
    snprintf(a, sizeof a, "sort auto: %s, %u-bit keys", splatsort_algorithm_name(v->last->sort), in->key_bits);
  else
    snprintf(a, sizeof a, "sort %s, %u-bit keys", splatsort_algorithm_name(in->sort), in->key_bits);
  hud_line(l, a, WHITE);
  hud_raster(v, l);
  hud_order(v, l);
  if (v->object) {
    snprintf(a, sizeof a, "object %u/%u %s", in->selected + 1, in->object_count, v->object);
    hud_line(l, a, WHITE);
  }
  if (v->bench) {
    snprintf(a, sizeof a, "benchmark: frame %u of %u", v->frame + 1, v->frames);
  } else {
    int n = snprintf(a, sizeof a, "%s  up %s", viewer_mode_name(in->mode), viewer_up_name(in->orbit.up));
    if (in->exact_camera && in->camera_index >= 0)
      snprintf(a + n, sizeof a - (size_t)n, "  camera %d/%u %s", in->camera_index + 1, in->camera_count,
               in->cameras[in->camera_index].name);
  }
  hud_line(l, a, WHITE);
  if (v->message) {
    l->y += 3;
    hud_line(l, v->message, v->message_error ? RED : YELLOW);
  }
  hud_loading(v->loader, v->input_ready, l);
}

void window_hud_build(viewer_hud *h, uint32_t slot, const window_hud_info *v) {
  VkExtent2D e = v->extent;
  float scale = e.height >= 700 && e.width >= 900 ? 2.0f : 1.0f;
  viewer_hud_begin(h, slot, scale, 10.0f, 8.0f);
  hud_lines l = {.h = h};
  hud_header(v, &l);
  hud_stage_table(v, &l);
  hud_status(v, &l);
  l.y += 3;
  hud_line(&l, "H hide  Tab orbit/fly  F frame  P shot", GREY);
  hud_line(&l, "O sort  K keys  R raster  V vsync", GREY);
  hud_line(&l, "N next object  arrows move it (Shift: depth)", GREY);
  viewer_hud_box(h, -6, -5, l.wmax + 6, l.y + 1, PANEL);
}

/* Before the first scene: what loads and how far it is. */
void window_hud_build_loading(viewer_hud *h, uint32_t slot, VkExtent2D e, viewer_loader *loader) {
  float scale = e.height >= 700 && e.width >= 900 ? 2.0f : 1.0f;
  viewer_hud_begin(h, slot, scale, 10.0f, 8.0f);
  hud_lines l = {.h = h};
  hud_line(&l, "splatview", WHITE);
  hud_loading(loader, false, &l);
  viewer_hud_box(h, -6, -5, l.wmax + 6, l.y + 1, PANEL);
}
