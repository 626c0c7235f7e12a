/* A scene drawn while it loads: the loader's parts appended to a renderer object between frames. */
#define _POSIX_C_SOURCE 200809L
#include "stream.h"
#include "app.h"
#include "vkh.h"

#include <stdio.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void viewer_upload_stats_add(splat_upload_stats *sum, const splat_upload_stats *st) {
  sum->splats += st->splats;
  sum->validate_s += st->validate_s;
  sum->pack_s += st->pack_s;
  sum->wait_s += st->wait_s;
  sum->total_s += st->total_s;
  sum->bytes += st->bytes;
  sum->gb_per_s = sum->total_s > 0 ? (double)sum->bytes / sum->total_s / 1e9 : 0;
}

/* One part: the object made at the first (count 0, the total), the splats appended after. */
static int take_part(viewer_stream *s, const viewer_load_part *p, splat_renderer *r, double t0,
                     const viewer_stream_hooks *h, char *err, size_t n) {
  const splat_scene *sc = p->scene;
  if (!s->begun) {
    splat_object_desc d = {.count = p->total ? p->total : sc->count, .sh_degree = sc->sh_degree, .flags = sc->flags};
    if (h && h->idle) h->idle(h->user);
    VkResult res = splat_renderer_begin_object(r, &d, &s->id);
    if (res == VK_ERROR_OUT_OF_DEVICE_MEMORY && h && h->make_room && h->make_room(h->user, &d))
      res = splat_renderer_begin_object(r, &d, &s->id);
    if (res != VK_SUCCESS) {
      snprintf(err, n, "cannot make room for %u splats on the GPU (%s)", d.count, vkh_result_name(res));
      return -1;
    }
    s->begun = true;
    s->total = d.count;
  }
  if (sc->count == 0) return 0;
  VkResult res = splat_renderer_append_object(r, s->id, sc);
  if (res != VK_SUCCESS) {
    snprintf(err, n, "cannot upload splats %u..%u to the GPU (%s)", p->first, p->first + sc->count - 1,
             vkh_result_name(res));
    return -1;
  }
  splat_upload_stats st;
  splat_renderer_upload_stats(r, &st);
  viewer_upload_stats_add(&s->stats, &st);
  if (s->parts++ == 0) {
    app_scene_bounds(sc, s->lo, s->hi);
    viewer_shape_make(sc, s->start, s->lo, s->hi, &s->view);
    s->first_part = sc->count;
    s->t_first_part = now_s() - t0;
  }
  s->resident = splat_renderer_object_resident(r, s->id);
  return 0;
}

int viewer_stream_pump(viewer_stream *s, viewer_loader *l, splat_renderer *r, double budget_s, double wait_s,
                       double t0, const viewer_stream_hooks *hooks, char *err, size_t n) {
  double start = now_s();
  int taken = 0;
  viewer_load_part p;
  for (;;) {
    /* the first part within wait_s; then every part that comes until the budget is spent (parts
     * are a few thousand splats: a frame between two would cost more than the appends) */
    double left = budget_s - (now_s() - start);
    if (taken && left <= 0) break;
    if (!viewer_loader_part(l, &p, taken ? left : wait_s)) break;
    int rc = take_part(s, &p, r, t0, hooks, err, n);
    viewer_loader_part_done(l);
    if (rc != 0) return -1;
    taken++;
  }
  return taken;
}

int viewer_stream_finish(viewer_stream *s, splat_renderer *r, char *err, size_t n) {
  if (!s->begun || s->resident == s->total) return 0;
  if (s->resident && splat_renderer_finish_object(r, s->id) == VK_SUCCESS) {
    s->total = s->resident;
    return 0;
  }
  snprintf(err, n, "the scene ended with %u of the %u splats it declared", s->resident, s->total);
  return -1;
}

void viewer_upload_stats_text(const splat_upload_stats *st, char *out, size_t n) {
  snprintf(out, n, "validate %.3f s, pack %.3f s, copy wait %.3f s, total %.3f s, %.3f GB, %.2f GB/s", st->validate_s,
           st->pack_s, st->wait_s, st->total_s, (double)st->bytes / 1e9, st->gb_per_s);
}
