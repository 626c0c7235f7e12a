/* scene_rows.c: decoding a file's fixed-size splat rows (scene_rows, scene_common.h) into the
 * output arrays: from memory on one thread, or straight from the file in pieces on several. */
#include "scene_common.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

int scene_decode_memory(const uint8_t *data, const scene_rows *r, splat_scene *out, const scene_error *e) {
  if (scene_alloc(out, r->count, r->sh_degree, e) != 0) return -1;
  const uint8_t *base = data + r->offset;
  uint64_t slot = 0;
  uint32_t clamped = 0;
  for (uint64_t i = 0; i < r->count; i += SPLAT_LOAD_DECODE_EVERY) {
    if (scene_decoded(e, i, r->count) != 0) {
      splat_scene_free(out);
      return -1;
    }
    uint64_t n = r->count - i < SPLAT_LOAD_DECODE_EVERY ? r->count - i : SPLAT_LOAD_DECODE_EVERY;
    r->decode(r, base + (size_t)i * r->stride, n, out, &slot, &clamped);
  }
  out->clamped = clamped;
  return scene_finish(out, (uint32_t)slot, r->count, e);
}

/* ---- in pieces, on several threads ------------------------------------------------------------ */

/* Bytes a thread reads at a time: large enough for few system calls, small beside the arrays. */
#define ROWS_BUFFER ((size_t)1 << 20)
#define MAX_THREADS 256u

/* Rows [first, first + n), decoded into slots from `first` on: the pieces are compacted once
 * all are done, so the kept splats keep the file's order whatever thread decoded them. */
typedef struct piece {
  uint64_t first, n, kept;
  uint32_t clamped;
  bool done;       /* decoded (under the job's mutex) */
  bool failed;     /* a read came short: the file shrank, or read_errno */
  int read_errno;
  size_t fail_at;  /* the byte the short read started at */
} piece;

typedef struct job {
  int fd;
  const scene_rows *r;
  splat_scene *s;
  piece *pieces;
  uint64_t npieces;
  size_t buffer_rows;
  atomic_uint_fast64_t next; /* the next piece to take */
  atomic_int stop;           /* cancelled, or a piece failed */
  pthread_mutex_t mu;        /* guards what follows */
  pthread_cond_t changed;
  uint64_t done;             /* rows of the pieces completed */
  uint64_t handed;           /* pieces given to the stream, in file order */
  uint64_t handed_splats;    /* the splats they held */
  unsigned running;
  bool no_memory;
} job;

/* Reads exactly `bytes` at `off`; the bytes read (fewer on end of file or an error, in *er). */
static size_t read_at(int fd, uint8_t *buf, size_t bytes, size_t off, int *er) {
  size_t got = 0;
  *er = 0;
  while (got < bytes) {
    ssize_t k = pread(fd, buf + got, bytes - got, (off_t)(off + got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      *er = k < 0 ? errno : 0;
      break;
    }
    got += (size_t)k;
  }
  return got;
}

static void decode_piece(job *j, piece *p, uint8_t *buf) {
  const scene_rows *r = j->r;
  uint64_t slot = p->first;
  for (uint64_t i = 0; i < p->n && !atomic_load(&j->stop); i += j->buffer_rows) {
    uint64_t n = p->n - i < j->buffer_rows ? p->n - i : j->buffer_rows;
    size_t off = r->offset + (size_t)(p->first + i) * r->stride, bytes = (size_t)n * r->stride;
    size_t got = read_at(j->fd, buf, bytes, off, &p->read_errno);
    if (got != bytes) {
      p->failed = true;
      p->fail_at = off + got;
      return;
    }
    r->decode(r, buf, n, j->s, &slot, &p->clamped);
  }
  p->kept = slot - p->first;
}

static void *worker(void *arg) {
  job *j = arg;
  uint64_t first_n = j->pieces[0].n;
  size_t rows = j->buffer_rows < first_n ? j->buffer_rows : (size_t)first_n;
  uint8_t *buf = malloc(rows * j->r->stride);
  for (uint64_t k; buf != NULL && !atomic_load(&j->stop) && (k = atomic_fetch_add(&j->next, 1)) < j->npieces;) {
    piece *p = &j->pieces[k];
    decode_piece(j, p, buf);
    pthread_mutex_lock(&j->mu);
    if (p->failed) atomic_store(&j->stop, 1);
    else j->done += p->n;
    p->done = !p->failed && !atomic_load(&j->stop);
    pthread_cond_signal(&j->changed);
    pthread_mutex_unlock(&j->mu);
  }
  pthread_mutex_lock(&j->mu);
  if (buf == NULL) {
    j->no_memory = true;
    atomic_store(&j->stop, 1);
  }
  --j->running;
  pthread_cond_signal(&j->changed);
  pthread_mutex_unlock(&j->mu);
  free(buf);
  return NULL;
}

/* The next piece in file order to the stream (called with the mutex held, which it drops
 * meanwhile): its kept splats, where they sit until compact() moves them. */
static void hand_piece(job *j, const scene_error *e) {
  const piece *p = &j->pieces[j->handed++];
  const splat_scene *s = j->s;
  size_t a = (size_t)p->first, nsh = (size_t)s->sh_coeffs * 3;
  splat_scene part = {.count = (uint32_t)p->kept, .sh_degree = s->sh_degree, .sh_coeffs = s->sh_coeffs,
                      .flags = s->flags, .positions = s->positions + a * 3, .scales = s->scales + a * 3,
                      .rotations = s->rotations + a * 4, .opacities = s->opacities + a, .sh = s->sh + a * nsh};
  uint32_t first = (uint32_t)j->handed_splats;
  j->handed_splats += p->kept;
  pthread_mutex_unlock(&j->mu);
  int rc = scene_stream_part(e->stream, &part, first, j->r->count, e);
  pthread_mutex_lock(&j->mu);
  if (rc != 0) atomic_store(&j->stop, 1);
}

/* Waits for the workers, reporting "decode" as pieces complete (never the end: scene_finish
 * does) and handing them to the stream in file order; a cancel stops them. */
static void watch(job *j, const scene_error *e) {
  uint64_t reported = 0;
  bool streaming = e->stream != NULL && e->stream->on_part != NULL;
  pthread_mutex_lock(&j->mu);
  for (;;) {
    if (streaming && !atomic_load(&j->stop) && j->handed < j->npieces && j->pieces[j->handed].done) {
      hand_piece(j, e);
      continue;
    }
    if (j->running == 0) break;
    if (e->progress != NULL && j->done != reported && j->done < j->r->count && !atomic_load(&j->stop)) {
      reported = j->done;
      pthread_mutex_unlock(&j->mu);
      if (scene_report(e, "decode", reported, j->r->count) != 0) atomic_store(&j->stop, 1);
      pthread_mutex_lock(&j->mu);
      continue;
    }
    pthread_cond_wait(&j->changed, &j->mu);
  }
  pthread_mutex_unlock(&j->mu);
}

/* Closes the gaps dropped splats left at the end of each piece; returns the splats kept. */
static uint64_t compact(const job *j) {
  splat_scene *s = j->s;
  size_t nsh = (size_t)s->sh_coeffs * 3;
  uint64_t to = 0;
  for (uint64_t k = 0; k < j->npieces; ++k) {
    const piece *p = &j->pieces[k];
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

/* Why the load stopped, if it did: the first failed piece (in file order), or no memory. */
static int stopped(const job *j, size_t size, const scene_error *e) {
  if (e->progress != NULL && e->progress->cancelled) return -1; /* scene_report wrote "cancelled" */
  if (e->stream != NULL && e->stream->cancelled) return -1;     /* so did scene_stream_part */
  for (uint64_t k = 0; k < j->npieces; ++k) {
    const piece *p = &j->pieces[k];
    if (p->failed)
      return scene_fail(e, "truncated while loading: reading byte %zu of %zu failed%s%s (the file changed "
                           "while loading?)", p->fail_at, size, p->read_errno ? ": " : "",
                        p->read_errno ? strerror(p->read_errno) : "");
  }
  if (j->no_memory) return scene_fail(e, "out of memory for the read buffers");
  return 0;
}

static unsigned thread_count(unsigned threads, uint64_t rows) {
  if (threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (unsigned)n : 1;
  }
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  return rows < threads ? (rows > 0 ? (unsigned)rows : 1) : threads;
}

int scene_decode_file(int fd, size_t size, const scene_rows *r, unsigned threads, splat_scene *out,
                      const scene_error *e) {
  if (scene_report(e, "read", 0, size) != 0 || scene_report(e, "read", size, size) != 0) return -1;
  if (scene_alloc(out, r->count, r->sh_degree, e) != 0) return -1;
  out->flags = r->flags;
  if (scene_report(e, "decode", 0, r->count) != 0 || scene_stream_part(e->stream, out, 0, r->count, e) != 0) {
    splat_scene_free(out);
    return -1;
  }
  unsigned workers = thread_count(threads, r->count);
  /* About four pieces a thread, for balance; at most a progress step each. */
  uint64_t per = (r->count + 4 * (uint64_t)workers - 1) / (4 * (uint64_t)workers);
  per = per > SPLAT_LOAD_DECODE_EVERY ? SPLAT_LOAD_DECODE_EVERY : per < 1 ? 1 : per;
  job j = {.fd = fd, .r = r, .s = out, .npieces = (r->count + per - 1) / per, .running = workers};
  j.buffer_rows = ROWS_BUFFER / r->stride > 0 ? ROWS_BUFFER / r->stride : 1;
  j.pieces = calloc((size_t)j.npieces, sizeof *j.pieces);
  pthread_t *tid = malloc(workers * sizeof *tid);
  if (j.pieces == NULL || tid == NULL) {
    free(j.pieces), free(tid);
    splat_scene_free(out);
    return scene_fail(e, "out of memory for %llu pieces", (unsigned long long)j.npieces);
  }
  for (uint64_t k = 0; k < j.npieces; ++k) {
    j.pieces[k].first = k * per;
    j.pieces[k].n = r->count - k * per < per ? r->count - k * per : per;
  }
  atomic_init(&j.next, 0);
  atomic_init(&j.stop, 0);
  pthread_mutex_init(&j.mu, NULL);
  pthread_cond_init(&j.changed, NULL);
  unsigned started = 0;
  for (; started < workers; ++started)
    if (pthread_create(&tid[started], NULL, worker, &j) != 0) break;
  if (started < workers) { /* run with those that started; with none, on this thread */
    pthread_mutex_lock(&j.mu);
    j.running -= workers - started;
    pthread_mutex_unlock(&j.mu);
    if (started == 0) {
      j.running = 1;
      worker(&j);
    }
  }
  watch(&j, e);
  for (unsigned t = 0; t < started; ++t) pthread_join(tid[t], NULL);
  pthread_cond_destroy(&j.changed);
  pthread_mutex_destroy(&j.mu);
  free(tid);
  int rc = stopped(&j, size, e);
  uint64_t kept = rc == 0 ? compact(&j) : 0;
  uint32_t clamped = 0;
  for (uint64_t k = 0; k < j.npieces; ++k) clamped += j.pieces[k].clamped;
  free(j.pieces);
  if (rc != 0) {
    splat_scene_free(out);
    return -1;
  }
  out->clamped = clamped;
  return scene_finish(out, (uint32_t)kept, r->count, e);
}
