/* The window's loading in the background (loader.c's thread): which dropped file loads next,
 * whether it replaces the scene or adds an object, and what each load ends with on stdout. */
#include "message.h"
#include "window_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int window_loads_begin(window_loads *l, const char *path, splatview_lod lod, char *err, size_t n) {
  l->loader = viewer_loader_create();
  if (!l->loader) {
    snprintf(err, n, "out of memory");
    return -1;
  }
  l->lod = lod;
  return viewer_loader_start(l->loader, path, false, lod, err, n);
}

void window_loads_end(window_loads *l) {
  viewer_loader_destroy(l->loader); /* cancels and joins a load still running */
  free(l->pending);
  memset(l, 0, sizeof *l);
}

bool window_loads_running(window_loads *l) {
  if (!l->loader) return false;
  viewer_load_status st;
  viewer_loader_status(l->loader, &st);
  return st.running;
}

void window_loads_drop(window_loads *l, int count, const char **paths, bool add, char *msg, size_t n) {
  msg[0] = 0;
  if (count < 1) return;
  /* the files of a SOG folder dropped together open its meta.json, not the first image */
  int pick = 0;
  for (int i = 0; i < count && count > 1; i++) {
    size_t len = strlen(paths[i]);
    if (len >= 9 && strcmp(paths[i] + len - 9, "meta.json") == 0 && (len == 9 || paths[i][len - 10] == '/')) {
      pick = i;
      break;
    }
  }
  char *copy = strdup(paths[pick]);
  if (!copy) return;
  free(l->pending);
  l->pending = copy;
  l->pending_add = add;
  if (count > 1 && pick > 0) snprintf(msg, n, "%d files dropped: opening the SOG scene's meta.json", count);
  else if (count > 1) snprintf(msg, n, "%d files dropped: opening the first", count);
}

int window_loads_start_pending(window_loads *l, uint32_t frames, char *err, size_t n) {
  if (!l->pending) return 0;
  if (window_loads_running(l)) {
    viewer_loader_cancel(l->loader);
    return 0;
  }
  bool stream = l->allow_stream && !l->pending_add && !viewer_lod_wanted(l->pending, l->lod);
  int rc = viewer_loader_start(l->loader, l->pending, stream, l->lod, err, n);
  l->frame0 = frames;
  l->running_add = l->pending_add;
  l->running_stream = rc == 0 && stream;
  free(l->pending);
  l->pending = NULL;
  return rc;
}

int window_loads_take(window_loads *l, uint32_t frames, splat_scene *scene, viewer_lod *lod, char *path,
                      size_t path_size, bool *add, char *err, size_t n) {
  err[0] = 0;
  memset(lod, 0, sizeof *lod);
  viewer_load_status st;
  viewer_loader_status(l->loader, &st);
  if (!st.finished) return 0;
  double seconds;
  int rc = viewer_loader_take(l->loader, scene, lod, &seconds, err, n);
  frames -= l->frame0;
  if (rc == 0 && l->pending) { /* it ended as another file was dropped: the newer one wins */
    splat_scene_free(scene);
    viewer_lod_free(lod);
    rc = SPLAT_SCENE_CANCELLED;
  }
  if (rc == SPLAT_SCENE_CANCELLED) {
    err[0] = 0;
    printf("cancelled loading %s after %.2f s (%u frame%s drawn meanwhile)\n", viewer_path(st.path), seconds, frames,
           frames == 1 ? "" : "s");
    fflush(stdout);
    return 0;
  }
  if (rc != 0) return 0;
  double mb = (double)st.bytes / 1e6, t = seconds > 0 ? seconds : 1e-9;
  printf("loaded %s in %.2f s: %.1f MB (%.0f MB/s), %u splats (%.2f M splats/s), %u frame%s drawn meanwhile\n",
         viewer_path(st.path), seconds, mb, mb / t, scene->count, scene->count / t / 1e6, frames, frames == 1 ? "" : "s");
  char tree[1200];
  viewer_lod_text(lod, st.path, tree, sizeof tree);
  if (tree[0]) printf("level of detail for %s: %s\n", viewer_path(st.path), tree);
  fflush(stdout);
  snprintf(path, path_size, "%s", st.path);
  *add = l->running_add;
  return 1;
}

void window_loads_cancel(window_loads *l, const char *why) {
  free(l->pending);
  l->pending = NULL;
  if (!l->loader || !window_loads_running(l)) return;
  viewer_load_status st;
  viewer_loader_status(l->loader, &st);
  viewer_loader_cancel(l->loader);
  splat_scene scene;
  char err[1200];
  double seconds;
  viewer_loader_take(l->loader, &scene, NULL, &seconds, err, sizeof err); /* joins the thread */
  splat_scene_free(&scene); /* when it finished before it saw the cancel */
  printf("cancelled loading %s after %.2f s (%s)\n", viewer_path(st.path), seconds, why);
  fflush(stdout);
}
