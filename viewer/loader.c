/* splatview's background scene loading: one worker thread a load, its progress behind a mutex. */
#include "loader.h"

#include "app.h" /* app_load_options */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct viewer_loader {
  pthread_mutex_t lock;
  pthread_t thread;
  bool started;                 /* a thread to join */
  volatile int cancel;          /* splat_load_progress.cancel: written here, read by the library */
  bool stream;                  /* parts handed over (on_part) */
  splatview_lod lod_mode;       /* the tree after the scene (viewer_lod_prepare) */
  pthread_cond_t part_cond;     /* a part waits, or it was taken, or a cancel */

  /* under lock */
  bool finished;
  const char *phase;
  uint64_t done, total, bytes;
  double t0, phase_t0, t_end;
  bool part_waiting;
  viewer_load_part part;

  /* the worker's own until it has finished, then the main thread's */
  char path[1024];
  splat_scene scene;
  viewer_lod lod;
  int rc;
  char err[1024];
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

viewer_loader *viewer_loader_create(void) {
  viewer_loader *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  pthread_mutex_init(&l->lock, NULL);
  pthread_cond_init(&l->part_cond, NULL);
  return l;
}

/* On the worker thread, every SPLAT_LOAD_READ_PIECE bytes read or SPLAT_LOAD_DECODE_EVERY splats decoded. */
static void on_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
  viewer_loader *l = user;
  pthread_mutex_lock(&l->lock);
  if (strcmp(l->phase, phase) != 0) l->phase_t0 = now_s();
  l->phase = phase;
  l->done = done;
  l->total = total;
  if (!strcmp(phase, "read")) l->bytes = total;
  pthread_mutex_unlock(&l->lock);
}

/* On the worker thread (splat_load_options.on_part): hands the part to the main thread and
 * waits until it is taken or the load cancelled. */
static int on_part(void *user, const splat_scene *part, uint32_t first, uint32_t total) {
  viewer_loader *l = user;
  pthread_mutex_lock(&l->lock);
  l->part = (viewer_load_part){part, first, total};
  l->part_waiting = true;
  pthread_cond_broadcast(&l->part_cond);
  while (l->part_waiting && !l->cancel) pthread_cond_wait(&l->part_cond, &l->lock);
  l->part_waiting = false;
  int stop = l->cancel;
  pthread_mutex_unlock(&l->lock);
  return stop;
}

static void *worker(void *arg) {
  viewer_loader *l = arg;
  splat_load_progress p = {on_progress, l, &l->cancel};
  splat_load_options o = app_load_options(); /* threads 0: every core */
  o.progress = &p;
  o.on_part = l->stream ? on_part : NULL;
  o.part_user = l;
  l->rc = splat_scene_load_ex2(l->path, &l->scene, &o, l->err, sizeof l->err);
  if (l->rc == 0 && !l->stream && viewer_lod_wanted(l->path, l->lod_mode)) {
    on_progress(l, "tree", 0, 0);
    l->rc = viewer_lod_prepare(l->path, &l->scene, l->lod_mode, o.max_memory, &l->lod, l->err, sizeof l->err);
    if (l->rc != 0) splat_scene_free(&l->scene);
    else if (l->cancel) { /* asked to stop while the tree was made: as a cancelled load */
      viewer_lod_free(&l->lod);
      splat_scene_free(&l->scene);
      l->rc = SPLAT_SCENE_CANCELLED;
    }
  }
  pthread_mutex_lock(&l->lock);
  l->finished = true;
  l->t_end = now_s();
  pthread_cond_broadcast(&l->part_cond); /* a main thread waiting for a part */
  pthread_mutex_unlock(&l->lock);
  return NULL;
}

int viewer_loader_start(viewer_loader *l, const char *path, bool stream, splatview_lod lod, char *err, size_t n) {
  if (l->started) {
    snprintf(err, n, "%s: a scene is still loading", path);
    return -1;
  }
  if (strlen(path) >= sizeof l->path) {
    snprintf(err, n, "%.200s...: path too long", path);
    return -1;
  }
  strcpy(l->path, path);
  memset(&l->scene, 0, sizeof l->scene);
  memset(&l->lod, 0, sizeof l->lod);
  l->lod_mode = lod;
  l->err[0] = 0;
  l->rc = -1;
  l->cancel = 0;
  l->stream = stream;
  l->part_waiting = false;
  l->finished = false;
  l->phase = "open";
  l->done = l->total = l->bytes = 0;
  l->t0 = l->phase_t0 = now_s();
  int e = pthread_create(&l->thread, NULL, worker, l);
  if (e != 0) {
    snprintf(err, n, "%s: cannot start the loading thread: %s", path, strerror(e));
    return -1;
  }
  l->started = true;
  return 0;
}

void viewer_loader_cancel(viewer_loader *l) {
  if (!l || !l->started) return;
  pthread_mutex_lock(&l->lock);
  l->cancel = 1;
  pthread_cond_broadcast(&l->part_cond); /* a worker waiting on its part gives up */
  pthread_mutex_unlock(&l->lock);
}

int viewer_loader_part(viewer_loader *l, viewer_load_part *p, double wait_s) {
  if (!l->started) return 0;
  pthread_mutex_lock(&l->lock);
  if (!l->part_waiting && !l->finished && wait_s > 0) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double t = (double)until.tv_nsec * 1e-9 + wait_s;
    until.tv_sec += (time_t)t;
    until.tv_nsec = (long)((t - (double)(time_t)t) * 1e9);
    while (!l->part_waiting && !l->finished && pthread_cond_timedwait(&l->part_cond, &l->lock, &until) == 0) {
    }
  }
  int got = l->part_waiting;
  if (got) *p = l->part;
  pthread_mutex_unlock(&l->lock);
  return got;
}

void viewer_loader_part_done(viewer_loader *l) {
  pthread_mutex_lock(&l->lock);
  l->part_waiting = false;
  pthread_cond_broadcast(&l->part_cond);
  pthread_mutex_unlock(&l->lock);
}

void viewer_loader_status(viewer_loader *l, viewer_load_status *s) {
  memset(s, 0, sizeof *s);
  s->phase = "";
  if (!l->started) return;
  s->running = true;
  pthread_mutex_lock(&l->lock);
  double now = l->finished ? l->t_end : now_s();
  s->finished = l->finished;
  s->phase = l->phase;
  s->done = l->done;
  s->total = l->total;
  s->bytes = l->bytes;
  s->phase_seconds = now - l->phase_t0;
  s->seconds = now - l->t0;
  pthread_mutex_unlock(&l->lock);
  memcpy(s->path, l->path, sizeof s->path);
}

int viewer_loader_take(viewer_loader *l, splat_scene *out, viewer_lod *lod, double *seconds, char *err, size_t n) {
  memset(out, 0, sizeof *out);
  if (lod) memset(lod, 0, sizeof *lod);
  if (!l->started) {
    snprintf(err, n, "no scene is loading");
    return -1;
  }
  pthread_join(l->thread, NULL); /* after it, everything the worker wrote is visible here */
  l->started = false;
  *seconds = l->t_end - l->t0;
  *out = l->scene;
  memset(&l->scene, 0, sizeof l->scene);
  if (lod) *lod = l->lod;
  else viewer_lod_free(&l->lod);
  memset(&l->lod, 0, sizeof l->lod);
  snprintf(err, n, "%s", l->err);
  return l->rc;
}

void viewer_loader_destroy(viewer_loader *l) {
  if (!l) return;
  if (l->started) {
    viewer_loader_cancel(l);
    pthread_join(l->thread, NULL);
  }
  splat_scene_free(&l->scene);
  viewer_lod_free(&l->lod);
  pthread_cond_destroy(&l->part_cond);
  pthread_mutex_destroy(&l->lock);
  free(l);
}
