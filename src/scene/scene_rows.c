/* scene_rows.c: decoding a file's fixed-size splat rows (scene_rows, scene_common.h) into the
 * output arrays: from memory on one thread, or straight from the file in pieces on several. */
#include "scene_common.h"

#include <errno.h>
#include <stdio.h>
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

/* Bytes a piece reads at a time: large enough for few system calls, small beside the arrays. */
#define ROWS_BUFFER ((size_t)1 << 20)

typedef struct file_rows {
  int fd;
  size_t size;
  const scene_rows *r;
} file_rows;

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

/* A piece of rows, read a buffer at a time into slots from p->first on (scene_decode_ranges
 * closes the gaps); stops within a buffer when the step is cancelled or an earlier piece failed. */
static int decode_piece(void *ctx, uint32_t index, scene_range *p, splat_scene *s, scene_job *j,
                        const scene_error *te) {
  const file_rows *f = ctx;
  const scene_rows *r = f->r;
  size_t rows = ROWS_BUFFER / r->stride > 0 ? ROWS_BUFFER / r->stride : 1;
  if (rows > p->n) rows = (size_t)p->n;
  uint8_t *buf = malloc(rows * r->stride);
  if (buf == NULL) return scene_fail(te, "out of memory for the read buffers");
  uint64_t slot = p->first;
  for (uint64_t i = 0; i < p->n && !scene_job_skip(j, index); i += rows) {
    uint64_t n = p->n - i < rows ? p->n - i : rows;
    size_t off = r->offset + (size_t)(p->first + i) * r->stride, bytes = (size_t)n * r->stride;
    int er;
    size_t got = read_at(f->fd, buf, bytes, off, &er);
    if (got != bytes) {
      free(buf);
      return scene_fail(te, "truncated while loading: reading byte %zu of %zu failed%s%s (the file changed "
                            "while loading?)", off + got, f->size, er ? ": " : "", er ? strerror(er) : "");
    }
    r->decode(r, buf, n, s, &slot, &p->clamped);
  }
  free(buf);
  p->kept = slot - p->first;
  return 0;
}

int scene_decode_file(int fd, size_t size, const scene_rows *r, unsigned threads, splat_scene *out,
                      const scene_error *e) {
  /* the caller's threads, on the caller's host pool if it has one */
  scene_pool pool = {threads, e->pool ? e->pool->host : NULL};
  scene_error pe = *e;
  pe.pool = &pool;
  if (scene_report(e, "read", 0, size) != 0 || scene_report(e, "read", size, size) != 0) return -1;
  if (scene_alloc(out, r->count, r->sh_degree, e) != 0) return -1;
  out->flags = r->flags;
  uint32_t count;
  scene_range *pieces = NULL;
  file_rows f = {fd, size, r};
  uint32_t kept = 0;
  int rc = scene_report(e, "decode", 0, r->count);
  if (rc == 0) rc = (pieces = scene_split(r->count, &pe, &count)) == NULL ? -1 : 0;
  if (rc == 0) rc = scene_stream_ranges(out, r->count, pieces, count, decode_piece, &f, &pe, &kept);
  free(pieces);
  if (rc != 0) {
    splat_scene_free(out);
    return -1;
  }
  return scene_finish(out, kept, r->count, e);
}
