/* scene_common.h: the one header the readers share (scene_ply.c, scene_splat.c, scene_spz.c,
 * scene_sog*.c, the writer scene_write.c) with the dispatch in scene.c: error reporting and
 * output allocation (scene_common.c), the per-splat checks, and each reader's entry point. */
#ifndef SPLAT_SCENE_COMMON_H
#define SPLAT_SCENE_COMMON_H

#include "splat_scene.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the scene loader reads little-endian data with memcpy: port it for big-endian hosts"
#endif

/* A load's progress (splat_scene_load_ex): the caller's callback and cancel flag, and
 * whether a report found the load cancelled. */
typedef struct scene_progress {
  const splat_load_progress *user;
  bool cancelled;
} scene_progress;

typedef struct scene_error scene_error;

/* splat_load_options.on_part and what it has been given: `begun` once the empty first part
 * went out, `cancelled` once it asked the load to stop. */
typedef struct scene_stream {
  int (*on_part)(void *user, const splat_scene *part, uint32_t first, uint32_t total);
  void *user;
  bool begun, cancelled;
} scene_stream;

/* Hands `part` (splats [first, first + part->count) of a scene of `total` declared splats) to
 * the stream, the empty part first; -1 (with "<name>: cancelled") when the callback asks to
 * stop. No stream: 0. */
int scene_stream_part(scene_stream *st, const splat_scene *part, uint32_t first, uint64_t total,
                      const scene_error *e);

/* Where a load's parallel work runs (scene_pool.c): `threads` (>= 1, 0 already resolved to the
 * cores) threads made for each parallel step, or the host's pool when `host` is set. */
typedef struct scene_pool {
  unsigned threads;
  const splat_load_pool *host;
} scene_pool;

/* Where an error goes: "<name>: <message>"; where progress goes (NULL: nowhere); and where
 * parallel work runs (NULL: on the calling thread). One struct because every reader takes it. */
struct scene_error {
  const char *name;
  char *buf;
  size_t size;
  scene_progress *progress;
  const scene_pool *pool;
  scene_stream *stream; /* NULL: no streaming */
  uint64_t budget;      /* bytes the load may allocate (splat_load_options.max_memory); 0: the default */
  uint32_t lod_level;   /* the level a streamed bundle gives (splat_load_options.lod_level) */
  uint64_t max_splats;  /* splat_load_options.max_splats; 0: none */
};

/* A declared splat count against e->max_splats: 0, or -1 with the message. scene_alloc makes it;
 * a reader that learns the count before its bulk calls it there. (scene_common.c) */
int scene_count_check(const scene_error *e, uint64_t count);

#if defined(__GNUC__)
#define SCENE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SCENE_PRINTF(a, b)
#endif

/* Writes "<name>: <formatted message>" (one line) and returns -1. */
int scene_fail(const scene_error *e, const char *fmt, ...) SCENE_PRINTF(2, 3);

/* Reports `phase` at `done` of `total` and checks for cancellation: returns 0, or -1 with
 * "<name>: cancelled" in the error when the load must stop (the caller frees what it made). */
int scene_report(const scene_error *e, const char *phase, uint64_t done, uint64_t total);

/* A decoder calls this for every splat index i of n in its loop (before decoding splat i):
 * every SPLAT_LOAD_DECODE_EVERY splats it reports "decode"; scene_finish reports the end.
 * Nonzero: cancelled, stop (free the output, return -1). One untaken branch a splat. */
static inline int scene_decoded(const scene_error *e, uint64_t i, uint64_t n) {
  if ((i & (SPLAT_LOAD_DECODE_EVERY - 1)) != 0 || e->progress == NULL) return 0;
  return scene_report(e, "decode", i, n);
}

/* A writer's output file (scene_out.c): under a temporary name renamed over `path` on success,
 * so that a failed write leaves no partial file; written in place when `path` is not a regular
 * file (/dev/full, a FIFO, a symbolic link). open and close return 0, or -1 with "<path>: <why>"
 * in the error; close checks every write (ferror), the flush and the close, and on failure
 * removes the temporary file; discard (after an error of the caller's) closes and removes it. */
typedef struct scene_out {
  FILE *f;
  const char *path;
  char *tmp; /* NULL: written in place */
} scene_out;
int scene_out_open(scene_out *o, const char *path, const scene_error *e);
int scene_out_close(scene_out *o, const scene_error *e);
void scene_out_discard(scene_out *o);


/* Copies at most 48 bytes of a header token into buf (64 bytes) for a message,
 * with anything unprintable replaced by '?', so hostile names stay one short line. */
const char *scene_token(char buf[64], const char *s, size_t n);

/* a*b and a+b on size_t, false on overflow. */
static inline bool scene_mul(size_t a, size_t b, size_t *r) {
  if (b != 0 && a > SIZE_MAX / b) return false;
  *r = a * b;
  return true;
}
static inline bool scene_add(size_t a, size_t b, size_t *r) {
  if (a > SIZE_MAX - b) return false;
  *r = a + b;
  return true;
}

/* malloc for a large block filled in one pass, asking for transparent huge pages (scene_common.c
 * says why); an ordinary malloc block. */
void *scene_malloc_large(size_t n);

/* ---- the memory budget (splat_load_options.max_memory; docs/formats.md, "Memory") ---------- */

/* The ceiling of a load: e->budget, or when 0 the default, the machine's physical memory (at
 * least SCENE_BUDGET_FLOOR). */
#define SCENE_BUDGET_FLOOR ((uint64_t)1 << 30)
uint64_t scene_budget(const scene_error *e);

/* Bytes of the output arrays of `count` splats at SH degree `sh_degree` (what scene_alloc
 * allocates): (14 + 3 (degree + 1)^2) floats a splat. */
uint64_t scene_array_bytes(uint64_t count, uint32_t sh_degree);

/* 0 when `need` bytes fit the budget; otherwise -1 with "<file>: <what> needs <n> MiB (limit
 * <n> MiB, max_memory)", `what` a printf format naming the member and the thing counted. */
int scene_budget_check(const scene_error *e, uint64_t need, const char *what, ...) SCENE_PRINTF(3, 4);

/* Allocates the output arrays for up to `count` splats of SH degree `sh_degree`, within the
 * budget (scene_budget_check); on failure frees what it made, zeroes *s and reports. */
int scene_alloc(splat_scene *s, uint64_t count, uint32_t sh_degree, const scene_error *e);

/* Reports the end of the "decode" phase (total of total), sets s->count to `kept`
 * (shrinking the arrays when splats were dropped) and computes the bounds. Fails (freeing
 * *s) when nothing was kept or the load was cancelled. */
int scene_finish(splat_scene *s, uint32_t kept, uint64_t total, const scene_error *e);

/* The bounds of s's positions (count >= 1) into bounds_min / bounds_max. */
void scene_bounds(splat_scene *s);

/* The readers, one a file (scene_<format>.c), called by scene.c's dispatch. */
int scene_load_ply(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e);
int scene_load_splat(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e);

/* Fixed-size rows, one a splat, at a known place in a file (binary 3DGS .ply, .splat): what the
 * row decoders of scene_rows.c need to decode them from memory or, in pieces on several
 * threads, straight from the file. */
typedef struct scene_rows scene_rows;
struct scene_rows {
  uint64_t count;        /* rows, dropped ones included */
  size_t offset, stride; /* byte of the first row in the file; bytes a row (> 0) */
  uint32_t sh_degree;
  uint32_t flags;        /* splat_scene_flag_bits of the scene, known from the header */
  /* Decodes n rows at `rows` into the slots from *slot on (kept splats only, in order),
   * advancing *slot and adding clamped values to *clamped. Called on several threads at once,
   * each on its own slots. */
  void (*decode)(const scene_rows *r, const uint8_t *rows, uint64_t n, splat_scene *s, uint64_t *slot,
                 uint32_t *clamped);
  const void *ctx; /* the reader's layout, for decode */
};

/* Allocates *out, decodes the rows of the file held in memory at `data` on this thread
 * (reporting "decode" every SPLAT_LOAD_DECODE_EVERY rows) and finishes it (scene_finish). */
int scene_decode_memory(const uint8_t *data, const scene_rows *r, splat_scene *out, const scene_error *e);

/* As scene_decode_memory, reading the rows from the open file fd (of `size` bytes, which the
 * rows must fit: checked by the caller) in pieces on `threads` threads, each with a bounded
 * buffer of its own, straight into *out: no copy of the file is kept. Progress is reported on
 * the calling thread as pieces complete ("read" 0 and size first: the data is read while it is
 * decoded); a cancel stops the threads within a buffer's read. The result is the same, byte
 * for byte, as scene_decode_memory's. */
int scene_decode_file(int fd, size_t size, const scene_rows *r, unsigned threads, splat_scene *out,
                      const scene_error *e);

/* ---- parallel steps (scene_pool.c) ---------------------------------------------------------- */

/* One parallel step of a load: tasks 0..count-1, each run once on e->pool (inline when it has
 * one thread or there is no pool). A task returns 0, or -1 with its message written to te (its
 * own buffer, named as e): the step then fails with the message of the failed task of lowest
 * index, whatever the timing, so errors are the same at every thread count. */
typedef struct scene_job scene_job;
typedef int (*scene_task_fn)(scene_job *j, void *arg, uint32_t index, const scene_error *te);

/* Runs the step and returns when every task has returned: 0, or -1 with the first failure's
 * message in e (or "cancelled": e's progress says so). With `phase` not NULL, `phase` is
 * reported (done < total, increasing) as tasks call scene_job_done; the cancel flag is read at
 * each report. */
int scene_run(const scene_error *e, const char *phase, uint64_t total, uint32_t count, scene_task_fn task,
              void *arg);

/* For a task: whether it need not run on (cancelled, or a task of lower index than `index`
 * failed), and adding finished units of the step's progress. */
bool scene_job_skip(scene_job *j, uint32_t index);
void scene_job_done(scene_job *j, uint64_t units);

/* The threads a step may use (1 with no pool): what the splits are sized by. */
unsigned scene_pool_width(const scene_pool *p);

/* Whether a load runs its steps in parallel (more than one thread, or a host pool): a reader
 * whose serial path is leaner (.spz) keeps it otherwise. */
static inline bool scene_parallel(const scene_error *e) {
  return e->pool != NULL && (e->pool->threads > 1 || e->pool->host != NULL);
}

/* Splats [first, first + n) of a scene, decoded into the slots from `first` on: `kept` of them
 * (kept splats only, in order) and `clamped` values. */
typedef struct scene_range {
  uint64_t first, n, kept;
  uint32_t clamped;
  bool done; /* decoded (set under the step's lock) */
} scene_range;

/* Decodes range `index` (r->first, r->n set) into s, setting r->kept and r->clamped: 0, or -1
 * with a message in te. */
typedef int (*scene_range_fn)(void *ctx, uint32_t index, scene_range *r, splat_scene *s, scene_job *j,
                              const scene_error *te);

/* Splits `total` splats into ranges for e->pool's width (about four a thread, at most
 * SPLAT_LOAD_DECODE_EVERY each; exactly that with one thread, so "decode" is reported at its
 * multiples as by a serial loop): a calloc'd array (freed by the caller) of *count ranges; NULL
 * when out of memory (reported). */
scene_range *scene_split(uint64_t total, const scene_error *e, uint32_t *count);

/* Decodes the ranges into s (allocated for `total` splats) in parallel, reporting "decode" as
 * they complete, then closes the gaps dropped splats left: *kept splats, s->clamped the sum.
 * Returns 0, or -1 (the first failed range's message, or cancelled) leaving s to the caller. */
int scene_decode_ranges(splat_scene *s, uint64_t total, scene_range *ranges, uint32_t count, scene_range_fn fn,
                        void *ctx, const scene_error *e, uint32_t *kept);
/* Moves each range's kept splats (r->kept of them at r->first) down to follow the previous
 * range's, in the order of the array: the splats kept in all. */
uint64_t scene_close_gaps(splat_scene *s, const scene_range *ranges, uint32_t count);
/* As scene_decode_ranges, also handing the ranges to e->stream in order as they finish
 * (splat_load_options.on_part), after the empty first part (s->flags, sh_degree set). */
int scene_stream_ranges(splat_scene *s, uint64_t total, scene_range *ranges, uint32_t count, scene_range_fn fn,
                        void *ctx, const scene_error *e, uint32_t *kept);

/* A reader's answer when it leaves a file to the whole-file path (scene_read_file and the
 * in-memory reader): not the layout it streams, or a header that path reports on. */
#define SCENE_FALLBACK 1

/* Binary 3DGS .ply and .splat read in pieces from the open file fd of `size` bytes with
 * `threads` threads (scene_decode_file): 0, -1, or SCENE_FALLBACK before anything is reported
 * or allocated (compressed PLY, a header error: the whole-file path reads and reports it). */
int scene_load_ply_file(int fd, size_t size, unsigned threads, splat_scene *out, const scene_error *e);
int scene_load_splat_file(int fd, size_t size, unsigned threads, splat_scene *out, const scene_error *e);

/* An ASCII PLY's vertex rows (scene_ply_ascii.c): where they start, and how each value is read. */
enum scene_value_type { SCENE_VALUE_F32, SCENE_VALUE_F64, SCENE_VALUE_INT };
typedef struct scene_ascii_value {
  uint8_t type;   /* scene_value_type */
  int64_t lo, hi; /* SCENE_VALUE_INT: the property type's range */
} scene_ascii_value;
typedef struct scene_ascii {
  size_t start;    /* byte of the first vertex row (a line start) */
  uint64_t line;   /* its line number in the file, from 1 */
  uint64_t count;  /* vertex rows */
  uint32_t nprops; /* values a row */
  const scene_ascii_value *values;
  bool last;       /* the vertex element is the last: only blank lines may follow its rows */
} scene_ascii;

/* Parses the vertex rows in pieces on e->pool into rows of nprops floats, decoded by `rows`
 * (stride nprops floats; its offsets index those floats), and finishes *out. Errors name the
 * line: too few or too many values, a value that is not a number (or not an integer in range),
 * fewer lines than vertices, non-blank lines after the last vertex when a->last. */
int scene_decode_ascii(const uint8_t *d, size_t size, const scene_ascii *a, const scene_rows *rows,
                       splat_scene *out, const scene_error *e);

/* .spz (scene_spz.c): whether the bytes start as one (gzip or the version-4 header), and the loader. */
bool scene_is_spz(const uint8_t *data, size_t size);
int scene_load_spz(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e);

/* Reads the whole regular file at `path` into a malloc'd block (*data, freed by the caller) of
 * *size > 0 bytes. Refuses folders, FIFOs, devices and empty files; a file that changes size
 * while it is read is an error. */
int scene_read_file(const char *path, uint8_t **data, size_t *size, const scene_error *e);

/* PlayCanvas SOG (scene_sog.c): a meta.json already read from `path` (its images are read from
 * beside it), a folder holding a meta.json, and a bundled .sog (zip) in memory. */
int scene_load_sog_meta(const char *path, const uint8_t *text, size_t size, splat_scene *out,
                        const scene_error *e);
int scene_load_sog_dir(const char *dir, splat_scene *out, const scene_error *e);
int scene_load_sog_bundle(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e);
/* A streamed (LOD) SOG bundle's lod-meta.json at `path` (scene_sog_lod.c): level e->lod_level. */
int scene_load_sog_lod(const char *path, splat_scene *out, const scene_error *e);

/* ---- level of detail (scene_lod*.c) ------------------------------------------------------------ */

/* Merges splats [first, first + count) of src (1..SPLAT_LOD_MAX_CHILDREN) into one Gaussian, written
 * into slot `at` of dst (of src's SH degree), by the rule splat_lod_build states (Kerbl et al. 2024,
 * Sec. 4.1). src's values must be finite, scales >= 0, opacities in [0, 1]. (scene_lod_merge.c) */
void scene_lod_merge(const splat_scene *src, uint32_t first, uint32_t count, splat_scene *dst, uint32_t at);

/* A point of a set being split (a leaf of the tree, a node of a generation): its position and an
 * index. scene_lod_select is nth_element by p[axis], ties broken by i (the result depends on the
 * input order only); scene_lod_longest_axis the axis the points spread most along. (scene_lod.c) */
typedef struct lod_item {
  float p[3];
  uint32_t i;
} lod_item;
void scene_lod_select(lod_item *v, size_t n, size_t nth, int axis);
int scene_lod_longest_axis(const lod_item *v, size_t n);

/* The tree built bottom-up by merging nearest neighbours cheapest first (SPLAT_LOD_PAIRS,
 * scene_lod_pairs.c): fills lod's arrays (first_child, child_count, parent, interior) for the leaves
 * in the order *perm gives (perm[new] = old, n entries, allocated here, the caller frees it). The
 * scene is read, not changed. 0, or -1 with the message in e and lod's arrays freed. */
int scene_lod_pairs(const splat_scene *s, splat_lod *lod, uint32_t **perm, const scene_error *e);

/* Reads a .lod file held in memory for leaves of `leaf_count` splats at SH degree `sh_degree`:
 * every check of splat_lod_load, the memory budget (e->budget) counting the arrays of *out only.
 * 0, or -1 with the message in e and *out zeroed. (scene_lod_file.c) */
int scene_lod_parse(const uint8_t *d, size_t size, uint32_t leaf_count, uint32_t sh_degree, splat_lod *out,
                    const scene_error *e);

static inline bool scene_finite(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return (bits & 0x7f800000u) != 0x7f800000u;
}

/* |v| as bits: >= 0x7f800000 exactly when v is +-inf or NaN. A running max of it
 * checks many values for finiteness with one compare at the end. */
static inline uint32_t scene_abs_bits(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return bits & 0x7fffffffu;
}
#define SCENE_NONFINITE 0x7f800000u

static inline bool scene_all_finite(const float *v, uint32_t n) {
  uint32_t m = 0;
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t b = scene_abs_bits(v[k]);
    m = b > m ? b : m;
  }
  return m < SCENE_NONFINITE;
}

/* Writes one splat into slot `i` of s, its SH already in place and checked by the
 * caller: p and q raw (q is normalised here), scale and opacity activated.
 * Returns whether the splat is kept under the policy in scene.h; a dropped
 * splat's slot is reused. */
static inline bool scene_put_core(splat_scene *s, uint32_t i, const float p[3], const float scale[3],
                                  const float q[4], float opacity) {
  if (!scene_all_finite(p, 3) || !scene_all_finite(scale, 3) || !scene_all_finite(q, 4) || isnan(opacity))
    return false;
  if (scale[0] < 0.0f || scale[1] < 0.0f || scale[2] < 0.0f) return false;
  float *dq = s->rotations + (size_t)i * 4;
  float n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (n2 > 1e-30f && n2 < 1e30f) {
    float inv = 1.0f / sqrtf(n2);
    for (int k = 0; k < 4; ++k) dq[k] = q[k] * inv;
  } else {
    /* Tiny or huge components: in double they neither underflow nor overflow. */
    double d2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    if (!(d2 > 0.0)) return false;
    double inv = 1.0 / sqrt(d2);
    for (int k = 0; k < 4; ++k) dq[k] = (float)(q[k] * inv);
  }
  memcpy(s->positions + (size_t)i * 3, p, 3 * sizeof(float));
  memcpy(s->scales + (size_t)i * 3, scale, 3 * sizeof(float));
  s->opacities[i] = opacity;
  return true;
}

/* As scene_put_core, copying and checking nsh SH floats (interleaved) too. */
static inline bool scene_put(splat_scene *s, uint32_t i, const float p[3], const float scale[3],
                             const float q[4], float opacity, const float *sh, uint32_t nsh) {
  if (!scene_all_finite(sh, nsh)) return false;
  memcpy(s->sh + (size_t)i * nsh, sh, nsh * sizeof(float));
  return scene_put_core(s, i, p, scale, q, opacity);
}

#endif /* SPLAT_SCENE_COMMON_H */
