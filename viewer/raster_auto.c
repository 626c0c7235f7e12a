/* --raster auto (raster_auto.h): the device's pick, and a window's check of it on its first frames. */
#include "raster_auto.h"

#include <stdio.h>
#include <stdlib.h>

static const char *name(splat_raster_path p) { return p == SPLAT_RASTER_COMPUTE ? "compute" : "graphics"; }

splat_raster_path raster_auto_pick(VkPhysicalDeviceType type, bool grid, char *why, size_t n) {
  if (grid) {
    snprintf(why, n, "the only path with --grid");
    return SPLAT_RASTER_GRAPHICS;
  }
  if (type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    snprintf(why, n, "a CPU device, where the graphics raster is the faster");
    return SPLAT_RASTER_GRAPHICS;
  }
  snprintf(why, n, "a GPU, where the compute raster is the fast path on data-centre parts");
  return SPLAT_RASTER_COMPUTE;
}

bool raster_auto_checks(VkPhysicalDeviceType type, bool grid, bool bench) {
  return !grid && !bench && type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

void raster_auto_start(raster_auto *a, splat_raster_path pick) {
  *a = (raster_auto){.state = RASTER_AUTO_PICK, .pick = pick,
                     .other = pick == SPLAT_RASTER_COMPUTE ? SPLAT_RASTER_GRAPHICS : SPLAT_RASTER_COMPUTE};
}

void raster_auto_stop(raster_auto *a) { a->state = RASTER_AUTO_OFF; }

static int cmp_double(const void *pa, const void *pb) {
  double x = *(const double *)pa, y = *(const double *)pb;
  return (x > y) - (x < y);
}

static double median(double *v, uint32_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

splat_raster_path raster_auto_frame(raster_auto *a, const splat_timings *t, char *said, size_t n) {
  if (n) said[0] = 0;
  if (a->state == RASTER_AUTO_OFF) return t->raster;
  splat_raster_path measured = a->state == RASTER_AUTO_PICK ? a->pick : a->other;
  if (t->raster != measured) return measured; /* recorded before the last switch */
  uint32_t k = a->seen++;
  if (a->state == RASTER_AUTO_OTHER && a->pick_ms > 0 && t->raster_ms > RASTER_AUTO_SLOWER * a->pick_ms) {
    snprintf(said, n, "raster auto: %s kept: %s was clearly slower (%.3f ms in its frame %u, against %.3f ms)",
             name(a->pick), name(a->other), t->raster_ms, k + 1, a->pick_ms);
    a->state = RASTER_AUTO_OFF;
    return a->pick;
  }
  if (k < RASTER_AUTO_WARM) return measured;
  a->ms[k - RASTER_AUTO_WARM] = t->raster_ms;
  if (k + 1 < RASTER_AUTO_WARM + RASTER_AUTO_MEASURED) return measured;
  double m = median(a->ms, RASTER_AUTO_MEASURED);
  a->seen = 0;
  if (a->state == RASTER_AUTO_PICK) {
    a->pick_ms = m;
    a->state = RASTER_AUTO_OTHER;
    return a->other;
  }
  a->state = RASTER_AUTO_OFF;
  bool faster = m < RASTER_AUTO_FASTER * a->pick_ms;
  snprintf(said, n, "raster auto: %s%s, measured on the first frames: %s %.3f ms, %s %.3f ms (medians)",
           name(faster ? a->other : a->pick), faster ? "" : " kept", name(a->pick), a->pick_ms, name(a->other), m);
  return faster ? a->other : a->pick;
}
