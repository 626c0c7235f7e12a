/* scene.c: the public scene API: format dispatch, reading files (with progress and
 * cancellation), the antimatter15 .splat decoder, freeing, and the standard 3DGS .ply writer. */
#include "scene_internal.h"

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
  /* One line, whatever a path or strerror contained. */
  for (char *c = e->buf; *c; ++c)
    if (*c == '\n' || *c == '\r') *c = ' ';
  return -1;
}

int scene_report(const scene_error *e, const char *phase, uint64_t done, uint64_t total) {
  scene_progress *p = e->progress;
  if (p == NULL || p->user == NULL) return 0;
  if (p->user->fn != NULL) p->user->fn(p->user->user, phase, done, total);
  if (p->user->cancel == NULL || *p->user->cancel == 0) return 0;
  p->cancelled = true;
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
static void *malloc_large(size_t n) {
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

int scene_alloc(splat_scene *s, uint64_t count, uint32_t sh_degree, const scene_error *e) {
  memset(s, 0, sizeof *s);
  if (count > UINT32_MAX)
    return scene_fail(e, "too many splats (%llu; at most %u are supported)",
                      (unsigned long long)count, UINT32_MAX);
  if (sh_degree > SPLAT_SCENE_MAX_SH_DEGREE)
    return scene_fail(e, "SH degree %u is not supported (0..3)", sh_degree);
  size_t n = (size_t)count;
  uint32_t coeffs = (sh_degree + 1) * (sh_degree + 1);
  size_t b3, b4, b1, bsh;
  if (!scene_mul(n, 3 * sizeof(float), &b3) || !scene_mul(n, 4 * sizeof(float), &b4) ||
      !scene_mul(n, sizeof(float), &b1) || !scene_mul(n, (size_t)coeffs * 3 * sizeof(float), &bsh))
    return scene_fail(e, "%llu splats do not fit in memory (size overflow)", (unsigned long long)count);
  s->positions = malloc_large(b3);
  s->scales = malloc_large(b3);
  s->rotations = malloc_large(b4);
  s->opacities = malloc_large(b1);
  s->sh = malloc_large(bsh);
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
  float lo[3], hi[3];
  for (int c = 0; c < 3; ++c) lo[c] = hi[c] = s->positions[c];
  for (size_t i = 1; i < kept; ++i) {
    const float *p = s->positions + i * 3;
    for (int c = 0; c < 3; ++c) {
      lo[c] = p[c] < lo[c] ? p[c] : lo[c];
      hi[c] = p[c] > hi[c] ? p[c] : hi[c];
    }
  }
  memcpy(s->bounds_min, lo, sizeof lo);
  memcpy(s->bounds_max, hi, sizeof hi);
  return 0;
}

/* antimatter15 .splat: per splat 3 float position, 3 float linear scale, RGBA
 * bytes (colour = 0.5 + C0 * f_dc, alpha = opacity), rotation bytes w,x,y,z
 * encoded as q*128+128. */
static int load_splat(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e) {
  if (size % 32 != 0)
    return scene_fail(e, "size %zu is not a multiple of 32 bytes, so not a .splat file "
                         "(%zu bytes left over)", size, size % 32);
  uint64_t n = size / 32;
  if (scene_alloc(out, n, 0, e) != 0) return -1;
  uint32_t kept = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (scene_decoded(e, i, n) != 0) {
      splat_scene_free(out);
      return -1;
    }
    const uint8_t *r = data + i * 32;
    float p[3], s[3], q[4], sh[3];
    memcpy(p, r, sizeof p);
    memcpy(s, r + 12, sizeof s);
    for (int c = 0; c < 3; ++c) sh[c] = (float)(((double)r[24 + c] / 255.0 - 0.5) / SPLAT_SH_C0);
    float opacity = (float)r[27] / 255.0f;
    for (int c = 0; c < 4; ++c) q[c] = ((float)r[28 + c] - 128.0f) / 128.0f;
    kept += scene_put(out, kept, p, s, q, opacity, sh, 3);
  }
  return scene_finish(out, kept, n, e);
}

static bool has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), m = strlen(suffix);
  if (n < m) return false;
  for (size_t i = 0; i < m; ++i) {
    char c = name[n - m + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

static bool has_ply_magic(const uint8_t *d, size_t size) {
  return size >= 4 && memcmp(d, "ply", 3) == 0 && (d[3] == '\n' || (size >= 5 && d[3] == '\r' && d[4] == '\n'));
}

/* The format by content, then by name; *out zeroed on failure. */
static int load_memory(const uint8_t *d, size_t size, splat_scene *out, const scene_error *e) {
  bool zip_magic = size >= 4 && memcmp(d, "PK\x03\x04", 4) == 0;
  int rc;
  /* .splat has no magic, and its first bytes (a float) can look like gzip's 1f 8b or a zip's
   * "PK": the name decides for it before those magics do */
  if (has_ply_magic(d, size))
    rc = scene_load_ply(d, size, out, e);
  else if (has_suffix(e->name, ".splat"))
    rc = load_splat(d, size, out, e);
  else if (scene_is_spz(d, size) || has_suffix(e->name, ".spz"))
    rc = scene_load_spz(d, size, out, e);
  else if (zip_magic)
    rc = scene_load_sog_bundle(d, size, out, e);
  else if (has_suffix(e->name, ".ply"))
    rc = scene_fail(e, "not a PLY file: it does not start with the line \"ply\"");
  else if (has_suffix(e->name, ".sog"))
    rc = scene_fail(e, "not a bundled SOG file: it is not a zip archive (no \"PK\" local header at the start)");
  else if (has_suffix(e->name, ".json"))
    rc = scene_fail(e, "a SOG meta.json names image files beside it: load it by path (splat_scene_load), "
                       "not from memory");
  else
    rc = scene_fail(e, "unknown format: no PLY magic (\"ply\" line), no .spz magic (gzip or \"NGSP\"), no zip "
                       "archive (bundled SOG), and not named *.splat");
  if (rc != 0) memset(out, 0, sizeof *out);
  return rc;
}

int splat_scene_load_memory(const void *data, size_t size, const char *name, splat_scene *out,
                            char *err, size_t err_size) {
  scene_error e = {name ? name : "<memory>", err, err_size, NULL};
  if (err != NULL && err_size > 0) err[0] = '\0';
  if (out == NULL) return scene_fail(&e, "no output scene given");
  memset(out, 0, sizeof *out);
  if (data == NULL && size > 0) return scene_fail(&e, "no data given");
  if (size == 0) return scene_fail(&e, "empty file");
  return load_memory(data, size, out, &e);
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
  uint8_t *data = malloc_large(size);
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

int splat_scene_load_ex(const char *path, splat_scene *out, const splat_load_progress *progress, char *err,
                        size_t err_size) {
  scene_progress prog = {progress, false};
  scene_error e = {path ? path : "<null>", err, err_size, progress ? &prog : NULL};
  if (err != NULL && err_size > 0) err[0] = '\0';
  if (out == NULL) return scene_fail(&e, "no output scene given");
  memset(out, 0, sizeof *out);
  if (path == NULL) return scene_fail(&e, "no path given");
  int rc;
  /* A folder is a SOG scene when it holds a meta.json. */
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    rc = scene_load_sog_dir(path, out, &e);
  } else {
    uint8_t *data;
    size_t size;
    rc = scene_read_file(path, &data, &size, &e);
    if (rc == 0) {
      /* A SOG meta.json names the images beside it, so it is read by path, not from memory. */
      if (!has_ply_magic(data, size) && has_suffix(path, ".json"))
        rc = scene_load_sog_meta(path, data, size, out, &e);
      else
        rc = load_memory(data, size, out, &e);
      free(data);
    }
  }
  if (rc != 0) memset(out, 0, sizeof *out);
  return prog.cancelled ? SPLAT_SCENE_CANCELLED : rc;
}

int splat_scene_load(const char *path, splat_scene *out, char *err, size_t err_size) {
  return splat_scene_load_ex(path, out, NULL, err, err_size);
}

/* ---- writer ---------------------------------------------------------------- */

/* Opacity 0 or 1 and scale 0 have no finite pre-activation value; sigmoid(40),
 * sigmoid(-120) and exp(-120) round to exactly 1, 0 and 0 in float. Values out of
 * range are clamped the same way; NaN stays NaN. */
static float logit_for_write(float o) {
  if (o <= 0.0f) return -120.0f;
  if (o >= 1.0f) return 40.0f;
  return (float)log((double)o / (1.0 - (double)o));
}

static float log_for_write(float s) {
  if (s <= 0.0f) return -120.0f;
  return (float)log((double)s);
}

int splat_scene_write_ply(const char *path, const splat_scene *scene, char *err, size_t err_size) {
  scene_error e = {path ? path : "<null>", err, err_size};
  if (err != NULL && err_size > 0) err[0] = '\0';
  if (path == NULL) return scene_fail(&e, "no path given");
  if (scene == NULL || scene->count == 0 || !scene->positions || !scene->scales ||
      !scene->rotations || !scene->opacities || !scene->sh)
    return scene_fail(&e, "cannot write an empty or incomplete scene");
  uint32_t d = scene->sh_degree;
  if (d > SPLAT_SCENE_MAX_SH_DEGREE || scene->sh_coeffs != (d + 1) * (d + 1))
    return scene_fail(&e, "invalid scene: SH degree %u with %u coefficients", d, scene->sh_coeffs);
  const uint32_t coeffs = scene->sh_coeffs, nrest = (coeffs - 1) * 3;
  const uint32_t nfields = 3 + 3 + 3 + nrest + 1 + 3 + 4;

  FILE *f = fopen(path, "wb");
  if (f == NULL) return scene_fail(&e, "cannot create: %s", strerror(errno));
  int rc = 0;
  fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment written by splatsort\n%s"
             "element vertex %u\n", (scene->flags & SPLAT_SCENE_ANTIALIASED) ? "comment SplatRenderMode: mip\n" : "",
          scene->count);
  static const char *const head[] = {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"};
  for (size_t i = 0; i < sizeof head / sizeof head[0]; ++i) fprintf(f, "property float %s\n", head[i]);
  for (uint32_t i = 0; i < nrest; ++i) fprintf(f, "property float f_rest_%u\n", i);
  fputs("property float opacity\nproperty float scale_0\nproperty float scale_1\n"
        "property float scale_2\nproperty float rot_0\nproperty float rot_1\n"
        "property float rot_2\nproperty float rot_3\nend_header\n", f);

  enum { ROWS = 4096 };
  float *buf = malloc((size_t)ROWS * nfields * sizeof(float));
  if (buf == NULL) {
    fclose(f);
    return scene_fail(&e, "out of memory for the write buffer");
  }
  for (uint32_t start = 0; start < scene->count && rc == 0; start += ROWS) {
    uint32_t rows = scene->count - start < ROWS ? scene->count - start : ROWS;
    for (uint32_t r = 0; r < rows; ++r) {
      size_t i = (size_t)start + r;
      float *o = buf + (size_t)r * nfields;
      const float *sh = scene->sh + i * coeffs * 3;
      memcpy(o, scene->positions + i * 3, 3 * sizeof(float));
      o[3] = o[4] = o[5] = 0.0f;
      memcpy(o + 6, sh, 3 * sizeof(float));
      /* interleaved (k, c) -> channel-major f_rest_{c*(coeffs-1) + k-1} */
      for (uint32_t c = 0; c < 3; ++c)
        for (uint32_t k = 1; k < coeffs; ++k) o[9 + c * (coeffs - 1) + (k - 1)] = sh[k * 3 + c];
      float *t = o + 9 + nrest;
      t[0] = logit_for_write(scene->opacities[i]);
      for (int c = 0; c < 3; ++c) t[1 + c] = log_for_write(scene->scales[i * 3 + c]);
      memcpy(t + 4, scene->rotations + i * 4, 4 * sizeof(float));
    }
    if (fwrite(buf, sizeof(float) * nfields, rows, f) != rows)
      rc = scene_fail(&e, "write failed: %s", strerror(errno));
  }
  free(buf);
  if (ferror(f) && rc == 0) rc = scene_fail(&e, "write failed: %s", strerror(errno));
  if (fclose(f) != 0 && rc == 0) rc = scene_fail(&e, "write failed on close: %s", strerror(errno));
  return rc;
}
