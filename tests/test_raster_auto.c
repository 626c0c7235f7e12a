/* test_raster_auto.c: splatview's --raster auto (viewer/raster_auto.h), CPU only: the pick by
 * device type, and the window's check on its first frames fed made-up timings: the other path
 * dropped at its first frame when it is clearly slower, taken when clearly faster, kept out
 * when about as fast; frames recorded before a switch ignored; a stop ends the check. */
#include "raster_auto.h"

#include "check.h"

#include <stdio.h>
#include <string.h>

static splat_timings frame(splat_raster_path p, double ms) {
  return (splat_timings){.raster = p, .raster_ms = ms, .total_ms = ms + 1.0};
}

/* Feeds frames of the path the check asks for, the pick's at pick_ms and the other's at
 * other_ms, until the check ends (at most 40 frames). Returns the path it settles on; *other
 * gets the other path's frames shown, *line the line it said. */
static splat_raster_path run(splat_raster_path pick, double pick_ms, double other_ms, uint32_t *other, char *line,
                             size_t n) {
  raster_auto a;
  raster_auto_start(&a, pick);
  splat_raster_path p = pick;
  *other = 0;
  line[0] = 0;
  for (int i = 0; i < 40 && a.state != RASTER_AUTO_OFF; i++) {
    *other += p != pick;
    splat_timings t = frame(p, p == pick ? pick_ms : other_ms);
    p = raster_auto_frame(&a, &t, line, n);
  }
  CHECK(a.state == RASTER_AUTO_OFF, "the check did not end in 40 frames");
  return p;
}

int main(void) {
  char why[160], line[256];
  /* the pick */
  CHECK(raster_auto_pick(VK_PHYSICAL_DEVICE_TYPE_CPU, false, why, sizeof why) == SPLAT_RASTER_GRAPHICS &&
            strstr(why, "CPU"), "a CPU device: %s", why);
  CHECK(raster_auto_pick(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, false, why, sizeof why) == SPLAT_RASTER_COMPUTE,
        "a discrete GPU: %s", why);
  CHECK(raster_auto_pick(VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, false, why, sizeof why) == SPLAT_RASTER_COMPUTE,
        "an integrated GPU: %s", why);
  CHECK(raster_auto_pick(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, true, why, sizeof why) == SPLAT_RASTER_GRAPHICS &&
            strstr(why, "--grid"), "--grid: %s", why);
  CHECK(!raster_auto_checks(VK_PHYSICAL_DEVICE_TYPE_CPU, false, false) &&
            raster_auto_checks(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, false, false) &&
            !raster_auto_checks(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, true, false) &&
            !raster_auto_checks(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, false, true),
        "which runs check the pick");

  /* the other path far slower (the H200's graphics raster: 327 ms against 7): one frame of it */
  uint32_t shown;
  splat_raster_path p = run(SPLAT_RASTER_COMPUTE, 7.0, 327.0, &shown, line, sizeof line);
  printf("  far slower:  %u frame(s) of the other path; %s\n", shown, line);
  CHECK(p == SPLAT_RASTER_COMPUTE && shown == 1 && strstr(line, "clearly slower"), "far slower: %s after %u", line,
        shown);
  /* clearly faster: taken after its warm and measured frames */
  p = run(SPLAT_RASTER_COMPUTE, 10.0, 4.0, &shown, line, sizeof line);
  printf("  faster:      %u frame(s) of the other path; %s\n", shown, line);
  CHECK(p == SPLAT_RASTER_GRAPHICS && shown == RASTER_AUTO_WARM + RASTER_AUTO_MEASURED &&
            strstr(line, "raster auto: graphics, measured"), "faster: %s after %u", line, shown);
  /* about as fast (0.9x): the pick kept */
  p = run(SPLAT_RASTER_COMPUTE, 10.0, 9.0, &shown, line, sizeof line);
  printf("  as fast:     %u frame(s) of the other path; %s\n", shown, line);
  CHECK(p == SPLAT_RASTER_COMPUTE && strstr(line, "compute kept"), "as fast: %s", line);
  /* a bit slower (1.5x): measured to the end, kept */
  p = run(SPLAT_RASTER_COMPUTE, 10.0, 15.0, &shown, line, sizeof line);
  CHECK(p == SPLAT_RASTER_COMPUTE && shown == RASTER_AUTO_WARM + RASTER_AUTO_MEASURED, "1.5x: %s after %u", line,
        shown);

  /* medians, not means: one slow frame among the pick's does not decide */
  raster_auto a;
  raster_auto_start(&a, SPLAT_RASTER_COMPUTE);
  const double pick_ms[] = {50, 50, 10, 90, 10}; /* two warm, then 10, 90, 10: median 10 */
  for (int i = 0; i < 5; i++) {
    splat_timings t = frame(SPLAT_RASTER_COMPUTE, pick_ms[i]);
    p = raster_auto_frame(&a, &t, line, sizeof line);
  }
  CHECK(p == SPLAT_RASTER_GRAPHICS && a.pick_ms == 10.0, "the pick's median: %.1f ms", a.pick_ms);
  /* frames recorded before the switch (the pick's, in flight) are not the other path's */
  splat_timings late = frame(SPLAT_RASTER_COMPUTE, 500.0);
  p = raster_auto_frame(&a, &late, line, sizeof line);
  CHECK(p == SPLAT_RASTER_GRAPHICS && a.seen == 0 && !line[0], "an in-flight frame of the pick was counted");
  /* a stop (R pressed) ends it where it is */
  raster_auto_stop(&a);
  splat_timings g = frame(SPLAT_RASTER_GRAPHICS, 1000.0);
  p = raster_auto_frame(&a, &g, line, sizeof line);
  CHECK(p == SPLAT_RASTER_GRAPHICS && a.state == RASTER_AUTO_OFF && !line[0], "after a stop: %d", (int)p);

  /* graphics picked (a GPU with --raster auto never picks it, but the check is symmetric) */
  p = run(SPLAT_RASTER_GRAPHICS, 8.0, 2.0, &shown, line, sizeof line);
  CHECK(p == SPLAT_RASTER_COMPUTE && strstr(line, "raster auto: compute, measured"), "graphics picked: %s", line);

  if (failures) fprintf(stderr, "test_raster_auto: %d checks failed\n", failures);
  else printf("test_raster_auto: all checks passed\n");
  return failures ? 1 : 0;
}
