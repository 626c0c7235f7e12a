/* scene_ply_ascii.c: the rows of an ASCII PLY's vertex element (format ascii 1.0; the header is
 * scene_ply.c's), parsed in parallel: the body split into byte pieces at line ends, the lines of
 * each piece counted (a task a piece), a prefix sum giving each piece's first vertex, then each
 * piece parsed into rows of floats that the binary reader's row decoder takes. */
#define _GNU_SOURCE /* strtof_l, strtod_l: numbers read the same whatever the process's locale */
#include "scene_common.h"

#include <float.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#define PIECE_MIN ((size_t)64 << 10) /* bytes: below this a piece is not worth a task */
#define PIECE_MAX ((size_t)8 << 20)  /* bytes: so that progress comes at least this often */
#define TOKEN_MAX 127                /* characters of a number */
#define BATCH_ROWS 256               /* rows parsed before they are decoded */

typedef struct ascii_piece {
  size_t begin, end;   /* bytes; begin is a line start */
  uint64_t lines;      /* lines starting in the piece */
  uint64_t rows;       /* of them, lines with something on them (a vertex row needs that) */
  uint64_t first_line; /* lines before it, from the first vertex row */
} ascii_piece;

typedef struct ascii_job {
  const uint8_t *d;
  size_t size;
  const scene_ascii *a;
  const scene_rows *rows;
  ascii_piece *pieces;
  uint32_t npieces;
  locale_t c_locale;
} ascii_job;

static int count_lines(scene_job *j, void *arg, uint32_t k, const scene_error *te) {
  (void)j, (void)te;
  ascii_job *job = arg;
  ascii_piece *p = &job->pieces[k];
  uint64_t lines = 0, rows = 0;
  for (size_t at = p->begin; at < p->end;) {
    const uint8_t *nl = memchr(job->d + at, '\n', p->end - at);
    size_t end = nl ? (size_t)(nl - job->d) : p->end;
    ++lines;
    for (size_t c = at; c < end; ++c)
      if (job->d[c] != ' ' && job->d[c] != '\t' && job->d[c] != '\r') {
        ++rows;
        break;
      }
    at = nl ? end + 1 : p->end;
  }
  p->lines = lines, p->rows = rows;
  return 0;
}

/* The body from `start` in pieces ending after a newline (the last at the end of the file). */
static ascii_piece *split_body(const uint8_t *d, size_t size, size_t start, unsigned width, uint32_t *count,
                               const scene_error *e) {
  size_t body = size - start, n = 4 * (size_t)width;
  if (n < body / PIECE_MAX + 1) n = body / PIECE_MAX + 1;
  if (n > body / PIECE_MIN) n = body / PIECE_MIN;
  if (n < 1) n = 1;
  ascii_piece *p = calloc(n, sizeof *p);
  if (p == NULL) {
    scene_fail(e, "out of memory for %zu pieces", n);
    return NULL;
  }
  size_t at = start;
  for (size_t k = 0; k < n; ++k) {
    size_t end = k + 1 == n ? size : start + body / n * (k + 1);
    if (end < at) end = at;
    const uint8_t *nl = end < size ? memchr(d + end, '\n', size - end) : NULL;
    if (k + 1 < n) end = nl ? (size_t)(nl - d) + 1 : size;
    p[k].begin = at;
    p[k].end = end;
    at = end;
  }
  *count = (uint32_t)n;
  return p;
}

/* One value of type kind from the token [s, s + n): false when it is not one. */
static bool parse_value(const char *s, size_t n, const scene_ascii_value *kind, locale_t loc, float *out) {
  if (n == 0 || n > TOKEN_MAX) return false;
  char buf[TOKEN_MAX + 1];
  memcpy(buf, s, n);
  buf[n] = '\0';
  if (kind->type == SCENE_VALUE_INT) {
    size_t i = buf[0] == '-' || buf[0] == '+';
    if (i == n) return false;
    int64_t v = 0;
    for (; i < n; ++i) {
      if (buf[i] < '0' || buf[i] > '9' || v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (buf[i] - '0');
    }
    v = buf[0] == '-' ? -v : v;
    if (v < kind->lo || v > kind->hi) return false;
    *out = (float)v;
    return true;
  }
  char *end;
  if (kind->type == SCENE_VALUE_F32) {
    *out = strtof_l(buf, &end, loc);
  } else {
    double v = strtod_l(buf, &end, loc);
    /* as the binary reader converts a double: out of float range is +-inf */
    *out = v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
  }
  return end == buf + n;
}

static bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Line `no` ([s, s + n), its newline excluded) into the row `row` of a->nprops floats. */
static int parse_line(const ascii_job *job, const char *s, size_t n, uint64_t no, float *row, const scene_error *te) {
  const scene_ascii *a = job->a;
  size_t i = 0;
  for (uint32_t k = 0; k < a->nprops; ++k) {
    while (i < n && is_space((uint8_t)s[i])) ++i;
    if (i == n)
      return scene_fail(te, "line %llu: %u values, but the vertex element has %u properties", (unsigned long long)no,
                        k, a->nprops);
    size_t t = i;
    while (i < n && !is_space((uint8_t)s[i])) ++i;
    if (!parse_value(s + t, i - t, &a->values[k], job->c_locale, &row[k])) {
      char tok[64];
      return scene_fail(te, "line %llu: value %u ('%s') is not %s", (unsigned long long)no, k + 1,
                        scene_token(tok, s + t, i - t),
                        a->values[k].type == SCENE_VALUE_INT ? "an integer in its property's range" : "a number");
    }
  }
  while (i < n && is_space((uint8_t)s[i])) ++i;
  if (i < n)
    return scene_fail(te, "line %llu: more values than the %u properties of the vertex element", (unsigned long long)no,
                      a->nprops);
  return 0;
}

/* The vertex rows starting in piece `index` into the slots from r->first on, BATCH_ROWS at a
 * time through the row decoder; lines after the last vertex must be blank when nothing follows. */
static int parse_piece(void *ctx, uint32_t index, scene_range *r, splat_scene *s, scene_job *j,
                       const scene_error *te) {
  const ascii_job *job = ctx;
  const ascii_piece *p = &job->pieces[index];
  const scene_ascii *a = job->a;
  float *batch = malloc((size_t)BATCH_ROWS * a->nprops * sizeof(float));
  if (batch == NULL) return scene_fail(te, "out of memory for a batch of rows");
  uint64_t slot = r->first, line = p->first_line;
  uint32_t rows = 0;
  int rc = 0;
  for (size_t at = p->begin; at < p->end && rc == 0 && !scene_job_skip(j, index); ++line) {
    const uint8_t *nl = memchr(job->d + at, '\n', p->end - at);
    size_t end = nl ? (size_t)(nl - job->d) : p->end;
    const char *text = (const char *)job->d + at;
    uint64_t no = a->line + line;
    if (line < a->count) {
      rc = parse_line(job, text, end - at, no, batch + (size_t)rows * a->nprops, te);
      if (rc == 0 && ++rows == BATCH_ROWS) {
        job->rows->decode(job->rows, (const uint8_t *)batch, rows, s, &slot, &r->clamped);
        rows = 0;
      }
    } else if (a->last) {
      for (const char *c = text; c < text + (end - at) && rc == 0; ++c)
        if (!is_space((uint8_t)*c))
          rc = scene_fail(te, "line %llu: more rows than the %llu vertices the header declares",
                          (unsigned long long)no, (unsigned long long)a->count);
    }
    at = end + 1;
  }
  if (rc == 0 && rows > 0) job->rows->decode(job->rows, (const uint8_t *)batch, rows, s, &slot, &r->clamped);
  free(batch);
  r->kept = slot - r->first;
  return rc;
}

/* After the lines are counted: each piece's first line and vertex range; false when the file has
 * fewer lines than vertices. */
static bool place_pieces(ascii_job *job, scene_range *ranges, uint64_t *lines) {
  uint64_t count = job->a->count, line = 0;
  for (uint32_t k = 0; k < job->npieces; ++k) {
    ascii_piece *p = &job->pieces[k];
    p->first_line = line;
    uint64_t first = line < count ? line : count, end = line + p->lines < count ? line + p->lines : count;
    ranges[k] = (scene_range){.first = first, .n = end - first};
    line += p->lines;
  }
  *lines = line;
  return line >= count;
}

int scene_decode_ascii(const uint8_t *d, size_t size, const scene_ascii *a, const scene_rows *rows, splat_scene *out,
                       const scene_error *e) {
  ascii_job job = {.d = d, .size = size, .a = a, .rows = rows};
  job.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (job.c_locale == (locale_t)0) return scene_fail(e, "cannot make the C locale to read numbers with");
  scene_range *ranges = NULL;
  uint64_t lines = 0;
  uint32_t kept = 0;
  int rc = 0;
  job.pieces = split_body(d, size, a->start, scene_pool_width(e->pool), &job.npieces, e);
  if (job.pieces == NULL || (ranges = calloc(job.npieces, sizeof *ranges)) == NULL)
    rc = job.pieces == NULL ? -1 : scene_fail(e, "out of memory for %u pieces", job.npieces);
  if (rc == 0) rc = scene_run(e, NULL, 0, job.npieces, count_lines, &job);
  if (rc == 0 && !place_pieces(&job, ranges, &lines))
    rc = scene_fail(e, "truncated: the header says %llu vertices, but only %llu lines of data follow (the file ends "
                       "at line %llu)", (unsigned long long)a->count, (unsigned long long)lines,
                    (unsigned long long)(a->line + lines - 1));
  uint64_t filled = 0; /* blank lines are not vertices: the arrays are held to the lines with values */
  for (uint32_t k = 0; rc == 0 && k < job.npieces; ++k) filled += job.pieces[k].rows;
  if (rc == 0 && filled < a->count)
    rc = scene_fail(e, "truncated: the header says %llu vertices, but only %llu lines with values follow",
                    (unsigned long long)a->count, (unsigned long long)filled);
  if (rc == 0) rc = scene_alloc(out, a->count, rows->sh_degree, e);
  if (rc == 0) rc = scene_report(e, "decode", 0, a->count);
  if (rc == 0) rc = scene_decode_ranges(out, a->count, ranges, job.npieces, parse_piece, &job, e, &kept);
  if (rc != 0) splat_scene_free(out);
  free(ranges);
  free(job.pieces);
  freelocale(job.c_locale);
  return rc == 0 ? scene_finish(out, kept, a->count, e) : -1;
}
