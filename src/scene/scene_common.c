/* scene_common.c: what every reader shares (scene_common.h): error and progress reports,
 * the output arrays (allocation, shrinking, bounds), reading a whole file, and freeing. */
#include "scene_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int scene_fail(const scene_error *e, const char *fmt, ...) {
  if (e->buf == NULL || e->size == 0) return -1;
  int n = snprintf(e->buf, e->size, "%s: ", e->name);
  if (n >= 0 && (size_t)n < e->size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->buf + n, e->size - (size_t)n, fmt, ap);
    va_end(ap);
  }
  /* One line with nothing a terminal acts on, whatever a path or strerror contained. */
  splat_scene_printable(e->buf);
  return -1;
}

void splat_scene_printable(char *s) {
  if (s == NULL) return;
  unsigned char *p = (unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = len > 0;
    for (size_t k = 1; k < len && ok; ++k) ok = (p[k] & 0xC0) == 0x80; /* stops at the terminator */
    if (ok && len == 1) ok = c >= 0x20 && c != 0x7F;
    if (ok && len == 2) ok = c >= 0xC2 && !(c == 0xC2 && p[1] < 0xA0); /* overlong; C1 controls */
    if (ok && len == 3) ok = !(c == 0xE0 && p[1] < 0xA0);                /* overlong */
    if (ok && len == 4) ok = c <= 0xF4 && !(c == 0xF0 && p[1] < 0x90);   /* overlong; above U+10FFFF */
    if (!ok) {
      *p++ = '?';
      continue;
    }
    p += len;
  }
}

int scene_report(const scene_error *e, const char *phase, uint64_t done, uint64_t total) {
  scene_progress *p = e->progress;
  if (p == NULL || p->user == NULL) return 0;
  if (p->user->fn != NULL) p->user->fn(p->user->user, phase, done, total);
  if (p->user->cancel == NULL || *p->user->cancel == 0) return 0;
  p->cancelled = true;
  return scene_fail(e, "cancelled");
}

int scene_stream_part(scene_stream *st, const splat_scene *part, uint32_t first, uint64_t total,
                      const scene_error *e) {
  if (st == NULL || st->on_part == NULL) return 0;
  uint32_t declared = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
  if (!st->begun) {
    st->begun = true;
    splat_scene empty = {.sh_degree = part->sh_degree, .sh_coeffs = part->sh_coeffs, .flags = part->flags};
    if (st->on_part(st->user, &empty, 0, declared) != 0) goto cancel;
  }
  if (part->count == 0 || st->on_part(st->user, part, first, declared) == 0) return 0;
cancel:
  st->cancelled = true;
  return scene_fail(e, "cancelled");
}

const char *scene_token(char buf[64], const char *s, size_t n) {
  size_t m = n > 48 ? 48 : n;
  for (size_t i = 0; i < m; ++i) {
    unsigned char c = (unsigned char)s[i];
    buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  if (n > m) {
    memcpy(buf + m, "...", 3);
    m += 3;
  }
  buf[m] = '\0';
  return buf;
}

void splat_scene_free(splat_scene *scene) {
  if (scene == NULL) return;
  free(scene->positions);
  free(scene->scales);
  free(scene->rotations);
  free(scene->opacities);
  free(scene->sh);
  memset(scene, 0, sizeof *scene);
}

/* malloc for the large blocks a load fills in one pass (the file, the scene's arrays), asking
 * for transparent huge pages where the kernel gives them only on request (THP "madvise", the
 * Debian default): each byte is touched once, and 4 KiB page faults and TLB misses can then
 * cost more than the parsing (on the 2-core development VM, over 10 times:
 * docs/performance.md, "Scene loading"). A hint only; the block is an ordinary malloc block. */
void *scene_malloc_large(size_t n) {
  void *p = malloc(n);
#if defined(MADV_HUGEPAGE)
  long page = sysconf(_SC_PAGESIZE);
  if (p != NULL && page > 0 && n >= ((size_t)4 << 20)) {
    uintptr_t a = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE); /* failure changes nothing */
  }
#endif
  return p;
}

/* The default ceiling: the machine's physical memory, which no load can exceed without
 * swapping anyway, so a scene that fits the machine is never refused by it. */
uint64_t scene_budget(const scene_error *e) {
  if (e->budget != 0) return e->budget;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  return phys > SCENE_BUDGET_FLOOR ? phys : SCENE_BUDGET_FLOOR;
}

uint64_t scene_array_bytes(uint64_t count, uint32_t sh_degree) {
  uint64_t coeffs = (uint64_t)(sh_degree + 1) * (sh_degree + 1);
  uint64_t per = (3 + 3 + 4 + 1 + coeffs * 3) * sizeof(float);
  return count > UINT64_MAX / per ? UINT64_MAX : count * per;
}

int scene_budget_check(const scene_error *e, uint64_t need, const char *what, ...) {
  uint64_t limit = scene_budget(e);
  if (need <= limit) return 0;
  char buf[192];
  va_list ap;
  va_start(ap, what);
  vsnprintf(buf, sizeof buf, what, ap);
  va_end(ap);
  if (limit < ((uint64_t)64 << 20)) /* small ceilings (tests, embedded hosts): exact bytes */
    return scene_fail(e, "%s: needs %llu bytes (limit %llu bytes: splat_load_options.max_memory)", buf,
                      (unsigned long long)need, (unsigned long long)limit);
  return scene_fail(e, "%s: needs %.1f MiB (limit %.1f MiB: splat_load_options.max_memory)", buf,
                    (double)need / (1 << 20), (double)limit / (1 << 20));
}

int scene_count_check(const scene_error *e, uint64_t count) {
  if (e->max_splats == 0 || count <= e->max_splats) return 0;
  return scene_fail(e, "%llu splats, more than the caller can use (splat_load_options.max_splats %llu)",
                    (unsigned long long)count, (unsigned long long)e->max_splats);
}

int scene_alloc(splat_scene *s, uint64_t count, uint32_t sh_degree, const scene_error *e) {
  memset(s, 0, sizeof *s);
  if (scene_count_check(e, count) != 0) return -1;
  if (count > UINT32_MAX)
    return scene_fail(e, "too many splats (%llu; at most %u are supported)",
                      (unsigned long long)count, UINT32_MAX);
  if (sh_degree > SPLAT_SCENE_MAX_SH_DEGREE)
    return scene_fail(e, "SH degree %u is not supported (0..3)", sh_degree);
  if (scene_budget_check(e, scene_array_bytes(count, sh_degree), "scene arrays: %llu splats at SH degree %u",
                         (unsigned long long)count, sh_degree) != 0)
    return -1;
  size_t n = (size_t)count;
  uint32_t coeffs = (sh_degree + 1) * (sh_degree + 1);
  size_t b3, b4, b1, bsh;
  if (!scene_mul(n, 3 * sizeof(float), &b3) || !scene_mul(n, 4 * sizeof(float), &b4) ||
      !scene_mul(n, sizeof(float), &b1) || !scene_mul(n, (size_t)coeffs * 3 * sizeof(float), &bsh))
    return scene_fail(e, "%llu splats do not fit in memory (size overflow)", (unsigned long long)count);
  s->positions = scene_malloc_large(b3);
  s->scales = scene_malloc_large(b3);
  s->rotations = scene_malloc_large(b4);
  s->opacities = scene_malloc_large(b1);
  s->sh = scene_malloc_large(bsh);
  if (!s->positions || !s->scales || !s->rotations || !s->opacities || !s->sh) {
    splat_scene_free(s);
    return scene_fail(e, "out of memory for %llu splats (%zu bytes)", (unsigned long long)count,
                      2 * b3 + b4 + b1 + bsh);
  }
  s->sh_degree = sh_degree;
  s->sh_coeffs = coeffs;
  return 0;
}

static void shrink(float **p, size_t bytes) {
  void *q = realloc(*p, bytes > 0 ? bytes : 1);
  if (q != NULL) *p = q; /* keeping the larger block is fine */
}

int scene_finish(splat_scene *s, uint32_t kept, uint64_t total, const scene_error *e) {
  if (scene_report(e, "decode", total, total) != 0) {
    splat_scene_free(s);
    return -1;
  }
  s->dropped = (uint32_t)(total - kept);
  if (kept == 0) {
    splat_scene_free(s);
    return scene_fail(e, "no valid splats: all %llu were dropped for non-finite values",
                      (unsigned long long)total);
  }
  if (kept < total) {
    shrink(&s->positions, (size_t)kept * 3 * sizeof(float));
    shrink(&s->scales, (size_t)kept * 3 * sizeof(float));
    shrink(&s->rotations, (size_t)kept * 4 * sizeof(float));
    shrink(&s->opacities, (size_t)kept * sizeof(float));
    shrink(&s->sh, (size_t)kept * s->sh_coeffs * 3 * sizeof(float));
  }
  s->count = kept;
  scene_bounds(s);
  return 0;
}

void scene_bounds(splat_scene *s) {
  float lo[3], hi[3];
  for (int c = 0; c < 3; ++c) lo[c] = hi[c] = s->positions[c];
  for (size_t i = 1; i < s->count; ++i) {
    const float *p = s->positions + i * 3;
    for (int c = 0; c < 3; ++c) {
      lo[c] = p[c] < lo[c] ? p[c] : lo[c];
      hi[c] = p[c] > hi[c] ? p[c] : hi[c];
    }
  }
  memcpy(s->bounds_min, lo, sizeof lo);
  memcpy(s->bounds_max, hi, sizeof hi);
}

/* Reads `size` bytes of fd into data in pieces, reporting "read" before each and at the end.
 * Returns the bytes read (fewer: the file shrank, or an error in *er); stops early when cancelled. */
static size_t read_pieces(int fd, uint8_t *data, size_t size, const scene_error *e, int *er) {
  size_t got = 0;
  *er = 0;
  while (got < size) {
    if (scene_report(e, "read", got, size) != 0) return got;
    size_t end = size - got > SPLAT_LOAD_READ_PIECE ? got + (size_t)SPLAT_LOAD_READ_PIECE : size;
    while (got < end) {
      ssize_t r = read(fd, data + got, end - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        *er = r < 0 ? errno : 0;
        return got;
      }
      got += (size_t)r;
    }
  }
  scene_report(e, "read", size, size); /* a cancel here is seen at the next report */
  return got;
}

int scene_read_file(const char *path, uint8_t **data_out, size_t *size_out, const scene_error *e) {
  *data_out = NULL;
  *size_out = 0;
  /* O_NONBLOCK: a FIFO or device must not block the open; it is refused just below */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return scene_fail(e, "cannot open: %s", strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int er = errno;
    close(fd);
    return scene_fail(e, "cannot stat: %s", strerror(er));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return scene_fail(e, "is a directory, not a scene file");
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return scene_fail(e, "not a regular file");
  }
  if (st.st_size == 0) {
    close(fd);
    return scene_fail(e, "empty file");
  }
  if ((uintmax_t)st.st_size > SIZE_MAX) {
    close(fd);
    return scene_fail(e, "file too large (%jd bytes)", (intmax_t)st.st_size);
  }
  /* Read, not mapped: a file truncated while it loads (still being written, or replaced) must
   * give an error, not SIGBUS. */
  size_t size = (size_t)st.st_size;
  /* the file's bytes count against the load's memory like everything it allocates (issue 37) */
  if (scene_budget_check(e, size, "the whole file read into memory (%zu bytes)", size) != 0) {
    close(fd);
    return -1;
  }
  uint8_t *data = scene_malloc_large(size);
  if (!data) {
    close(fd);
    return scene_fail(e, "out of memory reading %zu bytes", size);
  }
  int er;
  size_t got = read_pieces(fd, data, size, e, &er);
  close(fd);
  if (e->progress && e->progress->cancelled) {
    free(data);
    return -1; /* scene_report wrote "cancelled" */
  }
  if (got != size) {
    free(data);
    return scene_fail(e, "read %zu of %zu bytes%s%s (the file changed while loading?)", got, size,
                      er ? ": " : "", er ? strerror(er) : "");
  }
  *data_out = data;
  *size_out = size;
  return 0;
}
