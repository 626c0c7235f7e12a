/* splatview's level of detail: the tree beside a scene (its sidecar, or built at load), the cut's
 * room for a budget, the trees kept by object, and the cut's line for the HUD and summaries. */
#include "lod.h"
#include "app.h" /* app_fmt_count */
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int viewer_lod_sidecar_path(const char *scene, char *out, size_t n) {
  int len = snprintf(out, n, "%s.lod", scene);
  return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* A sidecar is there: a regular file (a FIFO or folder of that name is not one). */
static bool sidecar_present(const char *scene) {
  char path[4096];
  struct stat st;
  return viewer_lod_sidecar_path(scene, path, sizeof path) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool viewer_lod_wanted(const char *scene, splatview_lod mode) {
  return mode == SPLATVIEW_LOD_ON || (mode == SPLATVIEW_LOD_AUTO && sidecar_present(scene));
}

int viewer_lod_prepare(const char *path, splat_scene *scene, splatview_lod mode, uint64_t max_memory,
                       viewer_lod *out, char *err, size_t n) {
  memset(out, 0, sizeof *out);
  if (!viewer_lod_wanted(path, mode)) return 0;
  char sidecar[4096];
  if (viewer_lod_sidecar_path(path, sidecar, sizeof sidecar) != 0) {
    snprintf(err, n, "%s: path too long for its .lod", viewer_path(path));
    return -1;
  }
  double t0 = now_s();
  int rc;
  if (sidecar_present(path)) {
    rc = splat_lod_load(sidecar, scene, max_memory, &out->tree, err, n);
    out->source = VIEWER_LOD_SIDECAR;
  } else {
    char why[1024];
    splat_lod_options o = app_lod_options();
    rc = splat_lod_build(scene, &o, &out->tree, why, sizeof why);
    if (rc != 0) snprintf(err, n, "%s: %s", viewer_path(path), why);
    out->source = VIEWER_LOD_BUILT;
  }
  if (rc != 0) {
    memset(out, 0, sizeof *out);
    return -1;
  }
  out->required = mode == SPLATVIEW_LOD_ON;
  out->seconds = now_s() - t0;
  return 0;
}

void viewer_lod_free(viewer_lod *l) {
  if (!l) return;
  splat_lod_free(&l->tree);
  memset(l, 0, sizeof *l);
}

/* The file name of `path`, printable. */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return viewer_path(slash && slash[1] ? slash + 1 : path);
}

void viewer_lod_text(const viewer_lod *l, const char *path, char *out, size_t n) {
  char nodes[32], sidecar[4096];
  out[0] = 0;
  if (l->source == VIEWER_LOD_NONE || viewer_lod_sidecar_path(path, sidecar, sizeof sidecar) != 0) return;
  app_fmt_count(nodes, sizeof nodes, l->tree.interior.count);
  if (l->source == VIEWER_LOD_SIDECAR)
    snprintf(out, n, "tree read from %s (%s interior nodes, %.3f s)", base_name(sidecar), nodes, l->seconds);
  else
    snprintf(out, n, "no %s: tree built in memory (%s interior nodes, %.3f s)", base_name(sidecar), nodes,
             l->seconds);
}

uint32_t viewer_lod_max_cut(uint32_t leaves, uint32_t budget) {
  if (!budget) return 0;
  uint64_t room = ((2 * (uint64_t)budget + 255) / 256) * 256;
  return room < leaves ? (uint32_t)room : leaves;
}

void viewer_lod_cut_line(const splat_timings *t, uint32_t budget, char *out, size_t n) {
  char cut[32], b[32];
  app_fmt_count(cut, sizeof cut, t->lod_cut);
  int len = snprintf(out, n, "LOD cut %s nodes at threshold %.3g", cut, t->lod_threshold);
  if (budget && len > 0 && (size_t)len < n) {
    app_fmt_count(b, sizeof b, budget);
    snprintf(out + len, n - (size_t)len, " (budget %s)", b);
  }
}

int viewer_lod_trees_put(viewer_lod_trees *t, uint32_t id, viewer_lod *l) {
  if (id >= SPLAT_MAX_OBJECTS) return -1;
  splat_lod *tree = malloc(sizeof *tree);
  if (!tree) return -1;
  *tree = l->tree;
  memset(&l->tree, 0, sizeof l->tree);
  viewer_lod_trees_drop(t, id);
  t->at[id] = tree;
  return 0;
}

void viewer_lod_trees_drop(viewer_lod_trees *t, uint32_t id) {
  if (id >= SPLAT_MAX_OBJECTS) return;
  if (t->scene[id]) {
    splat_scene_free(t->scene[id]);
    free(t->scene[id]);
    t->scene[id] = NULL;
  }
  if (!t->at[id]) return;
  splat_lod_free(t->at[id]);
  free(t->at[id]);
  t->at[id] = NULL;
}

void viewer_lod_trees_clear(viewer_lod_trees *t) {
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) viewer_lod_trees_drop(t, i);
}
