/* splatview --convert IN OUT: loads any scene the library reads and writes it as a 3DGS .ply or
 * a .spz, whichever OUT's extension names, then says what it did. No Vulkan. */
#include "convert.h"
#include "app.h" /* app_max_load_memory */
#include "message.h"

#include "splat_scene.h"

#include <stdio.h>
#include <strings.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcasecmp(s + n - m, suffix) == 0;
}


static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double file_mb(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
}

int splatview_convert(const char *in, const char *out) {
  char err[1024];
  splat_scene s;
  double t0 = seconds();
  splat_load_options o = {.threads = 1, .max_memory = app_max_load_memory()};
  if (splat_scene_load_ex2(in, &s, &o, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return 1;
  }
  double t1 = seconds();
  bool spz = ends_with(out, ".spz");
  int rc = spz ? splat_scene_write_spz(out, &s, err, sizeof err) : splat_scene_write_ply(out, &s, err, sizeof err);
  double t2 = seconds();
  if (rc != 0) {
    viewer_error("%s", err);
    splat_scene_free(&s);
    return 1;
  }
  double in_mb = file_mb(in), out_mb = file_mb(out);
  bool smaller = out_mb <= in_mb;
  double ratio = smaller ? (out_mb > 0 ? in_mb / out_mb : 0.0) : (in_mb > 0 ? out_mb / in_mb : 0.0);
  printf("converted %s (%.2f MB) to %s (%.2f MB, %.1fx %s): %u splats, SH degree %u%s; load %.3f s, write %.3f s\n",
         viewer_path(in), in_mb, viewer_path(out), out_mb, ratio, smaller ? "smaller" : "larger", s.count, s.sh_degree,
         (s.flags & SPLAT_SCENE_ANTIALIASED) ? ", antialiased" : "", t1 - t0, t2 - t1);
  if (s.dropped) printf("  %u splats with non-finite values were left out on loading\n", s.dropped);
  splat_scene_free(&s);
  return 0;
}
