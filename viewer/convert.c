/* splatview --convert IN OUT [--lod]: loads any scene the library reads and writes it as a 3DGS .ply
 * or a .spz, whichever OUT's extension names (with --lod, in the order of its level-of-detail tree,
 * the tree beside it as OUT.lod), then says what it did. No Vulkan. */
#include "convert.h"
#include "app.h" /* app_load_options */
#include "message.h"

#include "splat_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
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

/* A file's size, or a folder's (a SOG folder: its files, one level), in MB. */
static double file_mb(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return 0.0;
  if (!S_ISDIR(st.st_mode)) return (double)st.st_size / 1e6;
  DIR *dir = opendir(path);
  if (!dir) return 0.0;
  double bytes = 0;
  char name[PATH_MAX];
  for (struct dirent *e; (e = readdir(dir));)
    if (snprintf(name, sizeof name, "%s/%s", path, e->d_name) < (int)sizeof name && stat(name, &st) == 0 &&
        S_ISREG(st.st_mode))
      bytes += (double)st.st_size;
  closedir(dir);
  return bytes / 1e6;
}

/* Interior levels of the tree: the root's is 1, a child's its parent's plus one (breadth-first
 * order puts parents first). */
static uint32_t lod_levels(const splat_lod *lod) {
  uint32_t n = lod->leaf_count, count = lod->interior.count, levels = 0;
  uint32_t *depth = calloc(count, sizeof *depth);
  if (!depth) return 0;
  for (uint32_t k = 0; k < count; ++k) {
    depth[k] = k == 0 ? 1 : depth[lod->parent[n + k] - n] + 1;
    levels = depth[k] > levels ? depth[k] : levels;
  }
  free(depth);
  return levels;
}

/* --lod: the tree over s (reordering it), written to "<out>.lod" once the scene is written. */
typedef struct lod_step {
  splat_lod tree;
  char *path;
  double build_s, write_s;
} lod_step;

static int build_lod(splat_scene *s, const char *in, const char *out, lod_step *l) {
  char err[1024];
  size_t n = strlen(out) + 5;
  if (!(l->path = malloc(n))) {
    viewer_error("out of memory");
    return -1;
  }
  snprintf(l->path, n, "%s.lod", out);
  double t0 = seconds();
  splat_lod_options o = app_lod_options();
  if (splat_lod_build(s, &o, &l->tree, err, sizeof err) != 0) {
    viewer_error("%s: %s", viewer_path(in), err);
    return -1;
  }
  l->build_s = seconds() - t0;
  return 0;
}

static int write_lod(lod_step *l) {
  char err[1024];
  double t0 = seconds();
  if (splat_lod_write(l->path, &l->tree, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return -1;
  }
  l->write_s = seconds() - t0;
  return 0;
}

int splatview_convert(const char *in, const char *out, bool lod) {
  char err[1024];
  splat_scene s;
  lod_step l = {0};
  double t0 = seconds();
  splat_load_options o = app_load_options();
  o.threads = 1;
  if (splat_scene_load_ex2(in, &s, &o, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return 1;
  }
  double t1 = seconds();
  int rc = lod ? build_lod(&s, in, out, &l) : 0;
  double t2 = seconds();
  bool spz = ends_with(out, ".spz");
  if (rc == 0) {
    rc = spz ? splat_scene_write_spz(out, &s, err, sizeof err) : splat_scene_write_ply(out, &s, err, sizeof err);
    if (rc != 0) viewer_error("%s", err);
  }
  double t3 = seconds();
  if (rc == 0 && lod) rc = write_lod(&l);
  if (rc != 0) {
    splat_lod_free(&l.tree);
    free(l.path);
    splat_scene_free(&s);
    return 1;
  }
  double in_mb = file_mb(in), out_mb = file_mb(out);
  bool smaller = out_mb <= in_mb;
  double ratio = smaller ? (out_mb > 0 ? in_mb / out_mb : 0.0) : (in_mb > 0 ? out_mb / in_mb : 0.0);
  printf("converted %s (%.2f MB) to %s (%.2f MB, %.1fx %s): %u splats, SH degree %u%s; load %.3f s, write %.3f s\n",
         viewer_path(in), in_mb, viewer_path(out), out_mb, ratio, smaller ? "smaller" : "larger", s.count, s.sh_degree,
         (s.flags & SPLAT_SCENE_ANTIALIASED) ? ", antialiased" : "", t1 - t0, t3 - t2);
  if (s.dropped) printf("  %u splats with non-finite values were left out on loading\n", s.dropped);
  if (lod)
    printf("  level of detail: %s (%.2f MB): %u leaves, %u interior nodes, %u levels above the leaves; build %.3f s, "
           "write %.3f s\n",
           viewer_path(l.path), file_mb(l.path), l.tree.leaf_count, l.tree.interior.count, lod_levels(&l.tree),
           l.build_s, l.write_s);
  splat_lod_free(&l.tree);
  free(l.path);
  splat_scene_free(&s);
  return 0;
}
