/* scene_pool.c: the one way a load runs work in parallel (scene_run, scene_common.h): on the
 * host's pool, on threads made for the step, or inline; progress and cancellation on the way, and
 * the failed task of lowest index as the step's error. Also ranges of splats decoded that way and
 * closed up afterwards (scene_decode_ranges), which every parallel reader uses. */
#include "scene_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define POOL_MAX_THREADS 256u
#define TASK_MESSAGE 4096 /* a task's error message, with the scene's name */

enum job_mode { JOB_INLINE, JOB_HOST, JOB_THREADS };

struct scene_job {
  scene_task_fn task;
  void *arg;
  uint32_t count;
  const scene_error *e;
  const char *phase; /* NULL: no reports */
  uint64_t total;
  enum job_mode mode;
  atomic_uint_fast32_t next;         /* JOB_THREADS: the next task to take */
  atomic_uint_fast32_t first_failed; /* count while none has */
  atomic_int cancelled;
  pthread_mutex_t mu; /* guards what follows, and every report */
  pthread_cond_t changed;
  uint64_t done, reported;
  unsigned running;
  /* Optional: called with mu held after each report (it may drop mu meanwhile), one caller at a
   * time, and once more when every task is done: scene_stream_ranges hands parts out there. */
  void (*drain)(scene_job *j, void *arg);
  void *drain_arg;
  bool draining;
  char message[TASK_MESSAGE]; /* the failed task of lowest index's */
};

unsigned scene_pool_width(const scene_pool *p) {
  if (p == NULL || p->threads < 1) return 1;
  return p->threads > POOL_MAX_THREADS ? POOL_MAX_THREADS : p->threads;
}

bool scene_job_skip(scene_job *j, uint32_t index) {
  return atomic_load(&j->cancelled) || index > atomic_load(&j->first_failed);
}

/* With mu held: reports progress not yet reported, unless the step is over or has failed. */
static void drain_locked(scene_job *j) {
  if (j->drain == NULL || j->draining) return;
  j->draining = true;
  j->drain(j, j->drain_arg);
  j->draining = false;
}

static void report_locked(scene_job *j) {
  drain_locked(j);
  if (j->phase == NULL || j->done == j->reported || j->done >= j->total || atomic_load(&j->cancelled) ||
      atomic_load(&j->first_failed) < j->count)
    return;
  j->reported = j->done;
  if (scene_report(j->e, j->phase, j->reported, j->total) != 0) atomic_store(&j->cancelled, 1);
}

void scene_job_done(scene_job *j, uint64_t units) {
  pthread_mutex_lock(&j->mu);
  j->done += units;
  /* made threads: the calling thread reports (watch); inline or a host's pool: the thread that
   * finished the work, one at a time under the lock */
  if (j->mode == JOB_THREADS)
    pthread_cond_signal(&j->changed);
  else
    report_locked(j);
  pthread_mutex_unlock(&j->mu);
}

static void run_one(scene_job *j, uint32_t index) {
  if (scene_job_skip(j, index)) return;
  char message[TASK_MESSAGE] = "";
  scene_error te = {j->e->name, message, sizeof message, NULL, NULL, NULL, j->e->budget};
  if (j->task(j, j->arg, index, &te) == 0) return;
  pthread_mutex_lock(&j->mu);
  if (index < atomic_load(&j->first_failed)) {
    atomic_store(&j->first_failed, index);
    memcpy(j->message, message, sizeof message);
  }
  pthread_mutex_unlock(&j->mu);
}

static void host_task(void *arg, uint32_t index) {
  scene_job *j = arg;
  if (index < j->count) run_one(j, index);
}

static void *worker(void *arg) {
  scene_job *j = arg;
  for (uint_fast32_t i; (i = atomic_fetch_add(&j->next, 1)) < j->count;) run_one(j, (uint32_t)i);
  pthread_mutex_lock(&j->mu);
  --j->running;
  pthread_cond_signal(&j->changed);
  pthread_mutex_unlock(&j->mu);
  return NULL;
}

/* The calling thread while the made threads work: it reports progress as tasks finish. */
static void watch(scene_job *j) {
  pthread_mutex_lock(&j->mu);
  while (j->running > 0) {
    report_locked(j);
    if (j->running > 0) pthread_cond_wait(&j->changed, &j->mu);
  }
  pthread_mutex_unlock(&j->mu);
}

/* Threads for the step, the calling thread watching; false when none could be made. */
static bool run_threads(scene_job *j, unsigned n) {
  pthread_t tid[POOL_MAX_THREADS];
  unsigned started = 0;
  j->mode = JOB_THREADS;
  j->running = n;
  for (; started < n; ++started)
    if (pthread_create(&tid[started], NULL, worker, j) != 0) break;
  pthread_mutex_lock(&j->mu);
  j->running -= n - started; /* run with those that started */
  pthread_mutex_unlock(&j->mu);
  if (started == 0) return false;
  watch(j);
  for (unsigned t = 0; t < started; ++t) pthread_join(tid[t], NULL);
  return true;
}

static int run_step(const scene_error *e, const char *phase, uint64_t total, uint32_t count, scene_task_fn task,
                    void *arg, void (*drain)(scene_job *j, void *arg)) {
  scene_job *j = malloc(sizeof *j); /* the message buffer: not on the caller's stack */
  if (j == NULL) return scene_fail(e, "out of memory");
  memset(j, 0, offsetof(scene_job, message));
  j->message[0] = '\0';
  j->task = task, j->arg = arg, j->count = count, j->e = e, j->phase = phase, j->total = total;
  j->drain = drain, j->drain_arg = arg;
  atomic_init(&j->next, 0);
  atomic_init(&j->first_failed, count);
  atomic_init(&j->cancelled, 0);
  pthread_mutex_init(&j->mu, NULL);
  pthread_cond_init(&j->changed, NULL);
  const scene_pool *p = e->pool;
  unsigned width = scene_pool_width(p);
  if (p != NULL && p->host != NULL && p->host->run != NULL && count > 0) {
    j->mode = JOB_HOST;
    p->host->run(p->host->user, host_task, j, count);
  } else if (width < 2 || count < 2 || !run_threads(j, width < count ? width : count)) {
    j->mode = JOB_INLINE;
    for (uint32_t i = 0; i < count; ++i) run_one(j, i);
  }
  pthread_mutex_lock(&j->mu); /* what the last reports left */
  drain_locked(j);
  pthread_mutex_unlock(&j->mu);
  pthread_cond_destroy(&j->changed);
  pthread_mutex_destroy(&j->mu);
  int rc = 0;
  if (atomic_load(&j->cancelled) || (e->progress != NULL && e->progress->cancelled)) {
    rc = -1; /* scene_report wrote "cancelled" */
  } else if (atomic_load(&j->first_failed) < count) {
    if (e->buf != NULL && e->size > 0) snprintf(e->buf, e->size, "%s", j->message);
    rc = -1;
  }
  free(j);
  return rc;
}

int scene_run(const scene_error *e, const char *phase, uint64_t total, uint32_t count, scene_task_fn task,
              void *arg) {
  return run_step(e, phase, total, count, task, arg, NULL);
}

/* ---- ranges of splats -------------------------------------------------------------------------- */

scene_range *scene_split(uint64_t total, const scene_error *e, uint32_t *count) {
  uint64_t width = scene_pool_width(e->pool);
  /* one thread: SPLAT_LOAD_DECODE_EVERY a range, so that progress comes as it does serially */
  uint64_t per = width == 1 ? SPLAT_LOAD_DECODE_EVERY : (total + 4 * width - 1) / (4 * width);
  per = per > SPLAT_LOAD_DECODE_EVERY ? SPLAT_LOAD_DECODE_EVERY : per < 1 ? 1 : per;
  uint64_t n = total == 0 ? 1 : (total + per - 1) / per; /* at most UINT32_MAX / 1 */
  scene_range *r = calloc((size_t)n, sizeof *r);
  if (r == NULL) {
    scene_fail(e, "out of memory for %llu ranges", (unsigned long long)n);
    return NULL;
  }
  for (uint64_t k = 0; k < n; ++k) {
    r[k].first = k * per;
    r[k].n = total - r[k].first < per ? total - r[k].first : per;
  }
  *count = (uint32_t)n;
  return r;
}

typedef struct ranges_step {
  scene_range *ranges;
  scene_range_fn fn;
  void *ctx;
  splat_scene *s;
  uint32_t count;
  uint64_t total;
  const scene_error *e;
  uint32_t handed;        /* ranges given to the stream, in order */
  uint64_t handed_splats; /* the splats they held */
} ranges_step;

static int range_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  ranges_step *st = arg;
  scene_range *r = &st->ranges[index];
  r->kept = 0;
  r->clamped = 0;
  if (st->fn(st->ctx, index, r, st->s, j, te) != 0) return -1;
  pthread_mutex_lock(&j->mu);
  r->done = true;
  pthread_mutex_unlock(&j->mu);
  scene_job_done(j, r->n);
  return 0;
}

uint64_t scene_close_gaps(splat_scene *s, const scene_range *ranges, uint32_t count) {
  size_t nsh = (size_t)s->sh_coeffs * 3;
  uint64_t to = 0;
  for (uint32_t k = 0; k < count; ++k) {
    const scene_range *p = &ranges[k];
    if (to != p->first && p->kept > 0) {
      size_t a = (size_t)to, b = (size_t)p->first, n = (size_t)p->kept;
      memmove(s->positions + a * 3, s->positions + b * 3, n * 3 * sizeof(float));
      memmove(s->scales + a * 3, s->scales + b * 3, n * 3 * sizeof(float));
      memmove(s->rotations + a * 4, s->rotations + b * 4, n * 4 * sizeof(float));
      memmove(s->opacities + a, s->opacities + b, n * sizeof(float));
      memmove(s->sh + a * nsh, s->sh + b * nsh, n * nsh * sizeof(float));
    }
    to += p->kept;
  }
  return to;
}

/* The drain of a streamed step (mu held): the finished ranges at the front, in order, to the
 * stream, each where its splats sit until close_gaps moves them. */
static void hand_ranges(scene_job *j, void *arg) {
  ranges_step *st = arg;
  const splat_scene *s = st->s;
  size_t nsh = (size_t)s->sh_coeffs * 3;
  while (st->handed < st->count && st->ranges[st->handed].done && !atomic_load(&j->cancelled) &&
         atomic_load(&j->first_failed) == j->count) {
    const scene_range *r = &st->ranges[st->handed++];
    size_t a = (size_t)r->first;
    splat_scene part = {.count = (uint32_t)r->kept, .sh_degree = s->sh_degree, .sh_coeffs = s->sh_coeffs,
                        .flags = s->flags, .positions = s->positions + a * 3, .scales = s->scales + a * 3,
                        .rotations = s->rotations + a * 4, .opacities = s->opacities + a, .sh = s->sh + a * nsh};
    uint32_t first = (uint32_t)st->handed_splats;
    st->handed_splats += r->kept;
    pthread_mutex_unlock(&j->mu);
    int rc = scene_stream_part(st->e->stream, &part, first, st->total, st->e);
    pthread_mutex_lock(&j->mu);
    if (rc != 0) atomic_store(&j->cancelled, 1);
  }
}

static int decode_ranges(splat_scene *s, uint64_t total, scene_range *ranges, uint32_t count, scene_range_fn fn,
                         void *ctx, const scene_error *e, uint32_t *kept, bool stream) {
  ranges_step st = {ranges, fn, ctx, s, count, total, e, 0, 0};
  if (stream && scene_stream_part(e->stream, s, 0, total, e) != 0) return -1; /* the empty first part */
  if (run_step(e, "decode", total, count, range_task, &st, stream ? hand_ranges : NULL) != 0) return -1;
  uint32_t clamped = 0;
  for (uint32_t k = 0; k < count; ++k) clamped += ranges[k].clamped;
  s->clamped = clamped;
  *kept = (uint32_t)scene_close_gaps(s, ranges, count);
  return 0;
}

int scene_decode_ranges(splat_scene *s, uint64_t total, scene_range *ranges, uint32_t count, scene_range_fn fn,
                        void *ctx, const scene_error *e, uint32_t *kept) {
  return decode_ranges(s, total, ranges, count, fn, ctx, e, kept, false);
}

int scene_stream_ranges(splat_scene *s, uint64_t total, scene_range *ranges, uint32_t count, scene_range_fn fn,
                        void *ctx, const scene_error *e, uint32_t *kept) {
  return decode_ranges(s, total, ranges, count, fn, ctx, e, kept, e->stream != NULL && e->stream->on_part != NULL);
}
