/* scene_lod_file.c: the LOD hierarchy's sidecar file (.lod, docs/formats.md "LOD hierarchy (.lod)"):
 * splat_lod_write, and splat_lod_load / scene_lod_parse, which hold every byte of it to be hostile. */
#include "scene_common.h"

#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define LOD_MAGIC "SPLATLOD"
#define LOD_VERSION 1u
#define LOD_HEADER 64u
#define LOD_FLAG_ERROR 1u    /* an error (f32) per interior node after the child counts */
#define LOD_CORE_FLOATS 11u  /* position 3, scales 3, rotation 4, opacity 1 */
#define LOD_HALF_MAX 65504.0f
#define LOD_ROTATION_TOLERANCE 1e-3

typedef struct lod_header {
  uint32_t leaves, interior, sh_degree, crc, flags;

  size_t record; /* bytes an interior node's values take */
} lod_header;

static uint32_t pad4(uint32_t n) { return (n + 3u) & ~3u; }

/* An interior node's record: the core floats, then its SH halves padded to 4 bytes. */
static size_t record_bytes(uint32_t sh_degree) {
  uint32_t coeffs = (sh_degree + 1) * (sh_degree + 1);
  return LOD_CORE_FLOATS * 4 + pad4(coeffs * 3 * 2);
}

static uint32_t get_u32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* float to IEEE half, rounding to nearest even (F. Giesen's float_to_half_fast3_rtne: the
 * subnormal case rounds through a float addition, so it needs the default rounding mode). */
static uint16_t half_from_float(float value) {
  const uint32_t f16max = (127u + 16) << 23, infinity = 255u << 23;
  const uint32_t denorm_magic_bits = ((127u - 15) + (23 - 10) + 1) << 23;
  uint32_t u;
  memcpy(&u, &value, 4);
  uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint16_t o;
  if (u >= f16max) {
    o = u > infinity ? 0x7e00 : 0x7c00;
  } else if (u < (113u << 23)) { /* a half subnormal or zero */
    float f, magic;
    memcpy(&f, &u, 4);
    memcpy(&magic, &denorm_magic_bits, 4);
    f += magic;
    memcpy(&u, &f, 4);
    o = (uint16_t)(u - denorm_magic_bits);
  } else {
    uint32_t odd = (u >> 13) & 1;
    u += ((uint32_t)(15 - 127) << 23) + 0xfff + odd;
    o = (uint16_t)(u >> 13);
  }
  return (uint16_t)(o | (sign >> 16));
}

static float half_to_float(uint16_t h) {
  uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float f = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), (int)e - 25);
  return (h & 0x8000) ? -f : f;
}

/* ---- writing --------------------------------------------------------------------------------- */

typedef struct lod_sink {
  FILE *f;      /* writing; NULL: summing the CRC */
  uLong crc;
} lod_sink;

static void sink(lod_sink *s, const void *p, size_t n) {
  if (s->f != NULL) {
    fwrite(p, 1, n, s->f); /* errors: ferror, checked by scene_out_close */
    return;
  }
  for (const Bytef *b = p; n > 0;) { /* zlib takes uInt lengths */
    uInt piece = n > (1u << 30) ? (1u << 30) : (uInt)n;
    s->crc = crc32(s->crc, b, piece);
    b += piece, n -= piece;
  }
}

/* Everything after the header, into s; buf holds `batch` records. */
static void body(const splat_lod *lod, lod_sink *s, uint8_t *buf, uint32_t batch) {
  const splat_scene *in = &lod->interior;
  uint32_t count = in->count;
  static const uint8_t zero[4];
  sink(s, lod->first_child, (size_t)count * 4); /* little-endian, as the host (scene_common.h) */
  sink(s, lod->child_count, count);
  sink(s, zero, pad4(count) - count);
  if (lod->error != NULL) sink(s, lod->error, (size_t)count * 4);
  size_t record = record_bytes(in->sh_degree), nsh = (size_t)in->sh_coeffs * 3;
  for (uint32_t first = 0; first < count; first += batch) {
    uint32_t n = count - first < batch ? count - first : batch;
    memset(buf, 0, (size_t)n * record);
    for (uint32_t k = 0; k < n; ++k) {
      size_t i = (size_t)first + k;
      uint8_t *r = buf + (size_t)k * record;
      memcpy(r, in->positions + i * 3, 12);
      memcpy(r + 12, in->scales + i * 3, 12);
      memcpy(r + 24, in->rotations + i * 4, 16);
      memcpy(r + 40, in->opacities + i, 4);
      for (size_t c = 0; c < nsh; ++c) {
        float v = in->sh[i * nsh + c];
        v = v > LOD_HALF_MAX ? LOD_HALF_MAX : v < -LOD_HALF_MAX ? -LOD_HALF_MAX : v;
        uint16_t h = half_from_float(v);
        memcpy(r + 44 + c * 2, &h, 2);
      }
    }
    sink(s, buf, (size_t)n * record);
  }
}

int splat_lod_write(const char *path, const splat_lod *lod, char *err, size_t err_size) {
  scene_error e = {.name = path ? path : "<null>", .buf = err, .size = err_size};
  if (path == NULL || lod == NULL) return scene_fail(&e, "no path or no hierarchy");
  const splat_scene *in = &lod->interior;
  char why[512];
  if (splat_lod_validate(lod, NULL, why, sizeof why) != 0) /* never a file the reader refuses */
    return scene_fail(&e, "%s", why);
  const uint32_t batch = 4096;
  uint8_t *buf = malloc(batch * record_bytes(in->sh_degree));
  if (!buf) return scene_fail(&e, "out of memory");
  lod_sink crc = {NULL, crc32(0, Z_NULL, 0)};
  body(lod, &crc, buf, batch); /* the CRC first, so the header goes out once, in order */
  uint8_t h[LOD_HEADER] = {0};
  uint32_t flags = lod->error != NULL ? LOD_FLAG_ERROR : 0;
  uint32_t fields[7] = {LOD_VERSION, LOD_HEADER, lod->leaf_count, in->count, in->sh_degree, flags, (uint32_t)crc.crc};
  memcpy(h, LOD_MAGIC, 8);
  memcpy(h + 8, fields, sizeof fields);

  scene_out o;
  if (scene_out_open(&o, path, &e) != 0) {
    free(buf);
    return -1;
  }
  lod_sink file = {o.f, 0};
  sink(&file, h, sizeof h);
  body(lod, &file, buf, batch);
  free(buf);
  return scene_out_close(&o, &e);
}

/* ---- reading ----------------------------------------------------------------------------------- */

/* The header at h against the file's `size` bytes and the scene it is for, and the budget (the
 * output arrays and `extra` bytes, the file held in memory), before anything is allocated. */
static int check_header(const uint8_t *h, uint64_t size, uint32_t leaf_count, uint32_t sh_degree, uint64_t extra,
                        lod_header *out, const scene_error *e) {
  if (memcmp(h, LOD_MAGIC, 8) != 0) return scene_fail(e, "not a LOD hierarchy (no \"SPLATLOD\" magic)");
  uint32_t version = get_u32(h + 8), header = get_u32(h + 12), flags = get_u32(h + 28);
  if (version != LOD_VERSION) return scene_fail(e, "LOD version %u (only %u is read)", version, LOD_VERSION);
  if (header != LOD_HEADER) return scene_fail(e, "header size %u (%u expected)", header, LOD_HEADER);
  if ((flags & ~LOD_FLAG_ERROR) != 0) return scene_fail(e, "flags 0x%x (only 0x%x is defined)", flags, LOD_FLAG_ERROR);
  out->flags = flags;
  for (uint32_t k = 36; k < LOD_HEADER; ++k)
    if (h[k] != 0) return scene_fail(e, "reserved header byte %u is not zero", k);
  out->leaves = get_u32(h + 16), out->interior = get_u32(h + 20), out->sh_degree = get_u32(h + 24);
  out->crc = get_u32(h + 32);
  uint32_t leaves = out->leaves, interior = out->interior;
  if (out->sh_degree > SPLAT_SCENE_MAX_SH_DEGREE) return scene_fail(e, "SH degree %u (0..3)", out->sh_degree);
  if (leaves != leaf_count) return scene_fail(e, "for %u leaves, but the scene has %u splats", leaves, leaf_count);
  if (out->sh_degree != sh_degree)
    return scene_fail(e, "SH degree %u, but the scene's is %u", out->sh_degree, sh_degree);
  if (leaves == 0 || interior == 0) return scene_fail(e, "%u leaves and %u interior nodes: no tree", leaves, interior);
  if ((uint64_t)leaves + interior >= UINT32_MAX)
    return scene_fail(e, "%u leaves and %u interior nodes: more nodes than a 32-bit index holds", leaves, interior);
  if ((uint64_t)interior >= 2ull * leaves) /* a node of one child is over a leaf: at most 2 n - 1 */
    return scene_fail(e, "%u interior nodes over %u leaves: a tree has fewer than twice as many", interior, leaves);
  if ((uint64_t)leaves > (uint64_t)interior * SPLAT_LOD_MAX_CHILDREN)
    return scene_fail(e, "%u leaves cannot hang from %u interior nodes of at most %d children", leaves, interior,
                      SPLAT_LOD_MAX_CHILDREN);
  out->record = record_bytes(out->sh_degree);
  uint64_t expect = LOD_HEADER + (uint64_t)interior * 4 + pad4(interior) + (uint64_t)interior * out->record +
                    (flags & LOD_FLAG_ERROR ? (uint64_t)interior * 4 : 0);
  if (size != expect)
    return scene_fail(e, "%s: %llu bytes, but %u interior nodes at SH degree %u take %llu", size < expect ?
                      "truncated" : "trailing bytes", (unsigned long long)size, interior, out->sh_degree,
                      (unsigned long long)expect);
  uint64_t need = extra + scene_array_bytes(interior, out->sh_degree) + (uint64_t)interior * (4 + 1 + 8 + 4) +
                  ((uint64_t)leaves + interior) * 4;
  return scene_budget_check(e, need, "LOD hierarchy: %u leaves, %u interior nodes at SH degree %u", leaves, interior,
                            out->sh_degree);
}

/* Every interior node 1..8 children, all leaves or all interior (after it), in bounds, one child
 * only over a leaf; every node but the root one parent. Fills parent (node_count words). */
static int topology(const splat_lod *lod, uint32_t *parent, const scene_error *e) {
  uint32_t n = lod->leaf_count, count = lod->interior.count, nodes = lod->node_count;
  memset(parent, 0xff, (size_t)nodes * sizeof *parent);
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t j = n + k, first = lod->first_child[k], c = lod->child_count[k];
    uint64_t end = (uint64_t)first + c;
    if (c < 1 || c > SPLAT_LOD_MAX_CHILDREN)
      return scene_fail(e, "interior node %u has %u children (1..%d)", j, c, SPLAT_LOD_MAX_CHILDREN);
    if (end > nodes)
      return scene_fail(e, "interior node %u: children [%u, %llu) out of bounds (%u nodes)", j, first,
                        (unsigned long long)end, nodes);
    if (first < n && end > n)
      return scene_fail(e, "interior node %u: children [%u, %llu) mix leaves and interior nodes", j, first,
                        (unsigned long long)end);
    if (first >= n && first <= j)
      return scene_fail(e, "interior node %u: interior child %u does not come after it", j, first);
    if (c == 1 && first >= n) return scene_fail(e, "interior node %u has one child, and it is not a leaf", j);
    for (uint32_t ch = first; ch < end; ++ch) {
      if (parent[ch] != UINT32_MAX)
        return scene_fail(e, "node %u has two parents (interior nodes %u and %u)", ch, parent[ch], j);
      parent[ch] = j;
    }
  }
  for (uint32_t i = 0; i < nodes; ++i)
    if (i != n && parent[i] == UINT32_MAX) return scene_fail(e, "node %u has no parent", i);
  return 0;
}

static int check_topology(splat_lod *lod, const scene_error *e) { return topology(lod, lod->parent, e); }

/* Each subtree's leaves a range: bottom up (children come after their parents), a node's range
 * its first child's start to its last child's end, the children's ranges adjacent. */
static int check_contiguous(const splat_lod *lod, const scene_error *e) {
  uint32_t n = lod->leaf_count, count = lod->interior.count;
  uint32_t *range = malloc((size_t)count * 2 * sizeof *range);
  if (!range) return scene_fail(e, "out of memory for %u nodes", count);
  int rc = 0;
  for (uint32_t k = count; k-- > 0 && rc == 0;) {
    uint32_t first = lod->first_child[k], c = lod->child_count[k];
    if (first < n) {
      range[2 * k] = first, range[2 * k + 1] = first + c;
      continue;
    }
    const uint32_t *child = range + 2 * (size_t)(first - n);
    for (uint32_t i = 1; i < c && rc == 0; ++i)
      if (child[2 * i] != child[2 * i - 1])
        rc = scene_fail(e, "interior node %u: its children's leaves are not contiguous", n + k);
    range[2 * k] = child[0], range[2 * k + 1] = child[2 * c - 1];
  }
  free(range);
  return rc;
}

/* The interior nodes' values from their records, each checked. */
static int read_values(const uint8_t *d, splat_lod *lod, size_t record, const scene_error *e) {
  splat_scene *in = &lod->interior;
  size_t nsh = (size_t)in->sh_coeffs * 3;
  for (uint32_t k = 0; k < in->count; ++k) {
    const uint8_t *r = d + (size_t)k * record;
    uint32_t j = lod->leaf_count + k;
    float *p = in->positions + (size_t)k * 3, *s = in->scales + (size_t)k * 3, *q = in->rotations + (size_t)k * 4;
    memcpy(p, r, 12);
    memcpy(s, r + 12, 12);
    memcpy(q, r + 24, 16);
    memcpy(&in->opacities[k], r + 40, 4);
    if (!scene_all_finite(p, 3)) return scene_fail(e, "interior node %u: position not finite", j);
    if (!scene_all_finite(s, 3) || s[0] < 0 || s[1] < 0 || s[2] < 0)
      return scene_fail(e, "interior node %u: scale not finite and >= 0", j);
    float o = in->opacities[k];
    if (!(o >= 0 && o <= 1)) return scene_fail(e, "interior node %u: opacity %g not in [0, 1]", j, (double)o);
    double len = scene_all_finite(q, 4) ? sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                                               (double)q[3] * q[3]) : NAN;
    if (!(fabs(len - 1) <= LOD_ROTATION_TOLERANCE))
      return scene_fail(e, "interior node %u: rotation of length %g (1 expected)", j, len);
    for (int c = 0; c < 4; ++c) q[c] = (float)(q[c] / len);
    for (size_t c = 0; c < nsh; ++c) {
      uint16_t h;
      memcpy(&h, r + 44 + c * 2, 2);
      if ((h & 0x7c00) == 0x7c00) return scene_fail(e, "interior node %u: SH coefficient %zu not finite", j, c);
      in->sh[(size_t)k * nsh + c] = half_to_float(h);
    }
    for (size_t b = 44 + nsh * 2; b < record; ++b)
      if (r[b] != 0) return scene_fail(e, "interior node %u: padding after its SH not zero", j);
  }
  return 0;
}

static int parse(const uint8_t *d, size_t size, const lod_header *h, splat_lod *out, const scene_error *e) {
  uLong crc = crc32(0, Z_NULL, 0);
  for (size_t at = LOD_HEADER; at < size;) {
    uInt piece = size - at > (1u << 30) ? (1u << 30) : (uInt)(size - at);
    crc = crc32(crc, d + at, piece);
    at += piece;
  }
  if ((uint32_t)crc != h->crc)
    return scene_fail(e, "CRC 0x%08x, but the file's is 0x%08x: the file is damaged", (uint32_t)crc, h->crc);
  uint32_t count = h->interior;
  out->leaf_count = h->leaves, out->node_count = h->leaves + count;

  out->first_child = malloc((size_t)count * 4);
  out->child_count = malloc(count);
  out->parent = scene_malloc_large((size_t)out->node_count * 4);
  if (!out->first_child || !out->child_count || !out->parent)
    return scene_fail(e, "out of memory for %u nodes", out->node_count);
  if (scene_alloc(&out->interior, count, h->sh_degree, e) != 0) return -1;
  out->interior.count = count;
  const uint8_t *p = d + LOD_HEADER;
  memcpy(out->first_child, p, (size_t)count * 4);
  p += (size_t)count * 4;
  memcpy(out->child_count, p, count);
  for (uint32_t k = count; k < pad4(count); ++k)
    if (p[k] != 0) return scene_fail(e, "padding after the child counts not zero");
  p += pad4(count);
  if (h->flags & LOD_FLAG_ERROR) {
    if (!(out->error = malloc((size_t)count * 4))) return scene_fail(e, "out of memory for %u nodes", count);
    memcpy(out->error, p, (size_t)count * 4);
    for (uint32_t k = 0; k < count; ++k)
      if (!(out->error[k] >= 0 && out->error[k] <= FLT_MAX))
        return scene_fail(e, "interior node %u: error %g not finite and >= 0", h->leaves + k, (double)out->error[k]);
    p += (size_t)count * 4;
  }
  if (check_topology(out, e) != 0 || check_contiguous(out, e) != 0 || read_values(p, out, h->record, e) != 0)
    return -1;
  scene_bounds(&out->interior);
  return 0;
}

int scene_lod_parse(const uint8_t *d, size_t size, uint32_t leaf_count, uint32_t sh_degree, splat_lod *out,
                    const scene_error *e) {
  memset(out, 0, sizeof *out);
  lod_header h;
  if (size < LOD_HEADER) return scene_fail(e, "truncated: %zu bytes (the header alone takes %u)", size, LOD_HEADER);
  if (check_header(d, size, leaf_count, sh_degree, 0, &h, e) != 0) return -1;
  if (parse(d, size, &h, out, e) == 0) return 0;
  splat_lod_free(out);
  return -1;
}

static int belongs(const splat_lod *lod, const splat_scene *leaves, const scene_error *e);

/* Reads the header of the file at path, and its size, before anything is allocated. */
static int peek(const char *path, uint8_t h[LOD_HEADER], uint64_t *size, const scene_error *e) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return scene_fail(e, "cannot open: %s", strerror(errno));
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0) rc = scene_fail(e, "cannot stat: %s", strerror(errno));
  else if (!S_ISREG(st.st_mode)) rc = scene_fail(e, "not a regular file");
  else if (st.st_size < (off_t)LOD_HEADER)
    rc = scene_fail(e, "truncated: %jd bytes (the header alone takes %u)", (intmax_t)st.st_size, LOD_HEADER);
  else if (pread(fd, h, LOD_HEADER, 0) != (ssize_t)LOD_HEADER) rc = scene_fail(e, "cannot read the header");
  *size = (uint64_t)st.st_size;
  close(fd);
  return rc;
}

int splat_lod_load(const char *path, const splat_scene *leaves, uint64_t max_memory, splat_lod *out, char *err,
                   size_t err_size) {
  scene_error e = {.name = path ? path : "<null>", .buf = err, .size = err_size, .budget = max_memory};
  if (out == NULL) return scene_fail(&e, "no output");
  memset(out, 0, sizeof *out);
  if (path == NULL || leaves == NULL) return scene_fail(&e, "no path or no scene");
  uint8_t head[LOD_HEADER];
  uint64_t size = 0;
  lod_header h;
  if (peek(path, head, &size, &e) != 0 ||
      check_header(head, size, leaves->count, leaves->sh_degree, size, &h, &e) != 0)
    return -1;
  uint8_t *d;
  size_t got;
  if (scene_read_file(path, &d, &got, &e) != 0) return -1;
  /* parsed whole again: the file may have changed since the peek */
  int rc = scene_lod_parse(d, got, leaves->count, leaves->sh_degree, out, &e);
  free(d);
  if (rc == 0 && leaves->positions != NULL && leaves->scales != NULL && leaves->opacities != NULL &&
      belongs(out, leaves, &e) != 0) {
    splat_lod_free(out);
    rc = -1;
  }
  return rc;
}

/* ---- checking a tree in memory ------------------------------------------------------------- */

/* Whether the nodes over leaves sit at their leaves' merged means (splat_lod_validate states it). */
static int belongs(const splat_lod *lod, const splat_scene *leaves, const scene_error *e) {
  uint32_t n = lod->leaf_count, count = lod->interior.count, sampled = 0, off = 0, first_off = UINT32_MAX;
  float lo[3], hi[3];
  memcpy(lo, leaves->positions, sizeof lo), memcpy(hi, leaves->positions, sizeof hi);
  for (uint32_t i = 1; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      float v = leaves->positions[(size_t)i * 3 + c];
      lo[c] = v < lo[c] ? v : lo[c], hi[c] = v > hi[c] ? v : hi[c];
    }
  double extent = 0;
  for (int c = 0; c < 3; ++c) extent = (double)hi[c] - lo[c] > extent ? (double)hi[c] - lo[c] : extent;
  uint32_t step = count / 256 > 0 ? count / 256 : 1;
  for (uint32_t k = 0; k < count; k += step) {
    uint32_t k2 = k; /* the next node over leaves from k on */
    while (k2 < count && lod->first_child[k2] >= n) k2++;
    if (k2 == count) break;
    uint32_t f = lod->first_child[k2], c = lod->child_count[k2];
    double w_sum = 0, mu[3] = {0, 0, 0};
    for (uint32_t t = 0; t < c; ++t) {
      const float *s = leaves->scales + (size_t)(f + t) * 3;
      double ab = (double)s[0] * s[1], ac = (double)s[0] * s[2], bc = (double)s[1] * s[2];
      double w = leaves->opacities[f + t] * (ab > ac ? (ab > bc ? ab : bc) : (ac > bc ? ac : bc));
      w = w > 0 && isfinite(w) ? w : 0;
      w_sum += w;
      for (int d = 0; d < 3; ++d) mu[d] += w * leaves->positions[(size_t)(f + t) * 3 + d];
    }
    if (!(w_sum > 0)) continue; /* transparent or flat children: the merge weighs them alike; skip */
    const float *p = lod->interior.positions + (size_t)k2 * 3, *s = lod->interior.scales + (size_t)k2 * 3;
    double big = s[0] > s[1] ? (s[0] > s[2] ? s[0] : s[2]) : (s[1] > s[2] ? s[1] : s[2]), d2 = 0;
    for (int d = 0; d < 3; ++d) d2 += (mu[d] / w_sum - p[d]) * (mu[d] / w_sum - p[d]);
    double tol = 3 * big + 1e-4 * extent;
    sampled++;
    if (!(d2 <= tol * tol)) off++, first_off = first_off == UINT32_MAX ? n + k2 : first_off;
    k = k2;
  }
  if (sampled > 0 && off * 4 > sampled)
    return scene_fail(e, "built for another scene (or this one in another order): %u of %u nodes sampled do not sit "
                         "over their leaves (the first: node %u); rebuild it (splatview --convert IN OUT --lod)",
                      off, sampled, first_off);
  return 0;
}

int splat_lod_validate(const splat_lod *lod, const splat_scene *leaves, char *err, size_t err_size) {
  scene_error e = {.name = "splat_lod", .buf = err, .size = err_size};
  if (lod == NULL) return scene_fail(&e, "no tree");
  const splat_scene *in = &lod->interior;
  if (in->count == 0 || lod->leaf_count == 0 || lod->node_count != (uint64_t)lod->leaf_count + in->count)
    return scene_fail(&e, "%u leaves and %u nodes, but %u interior Gaussians", lod->leaf_count, lod->node_count,
                      in->count);
  if (!lod->first_child || !lod->child_count || !in->positions || !in->scales || !in->rotations || !in->opacities ||
      !in->sh)
    return scene_fail(&e, "an array is NULL (first_child, child_count or the interior Gaussians')");
  if (in->sh_degree > SPLAT_SCENE_MAX_SH_DEGREE || in->sh_coeffs != (in->sh_degree + 1) * (in->sh_degree + 1))
    return scene_fail(&e, "SH degree %u with %u coefficients", in->sh_degree, in->sh_coeffs);
  if ((uint64_t)in->count >= 2ull * lod->leaf_count)
    return scene_fail(&e, "%u interior nodes over %u leaves: a tree has fewer than twice as many", in->count,
                      lod->leaf_count);
  if (leaves != NULL) {
    if (leaves->count != lod->leaf_count || leaves->sh_degree != in->sh_degree)
      return scene_fail(&e, "for %u leaves at SH degree %u, but the scene has %u splats at SH degree %u",
                        lod->leaf_count, in->sh_degree, leaves->count, leaves->sh_degree);
  }
  uint32_t *parent = scene_malloc_large((size_t)lod->node_count * sizeof *parent);
  if (parent == NULL) return scene_fail(&e, "out of memory for %u nodes", lod->node_count);
  int rc = topology(lod, parent, &e);
  if (rc == 0 && lod->parent != NULL)
    for (uint32_t i = 0; i < lod->node_count && rc == 0; ++i)
      if (lod->parent[i] != parent[i])
        rc = scene_fail(&e, "node %u: parent %u, but its parent is %u", i, lod->parent[i], parent[i]);
  free(parent);
  if (rc == 0) rc = check_contiguous(lod, &e);
  if (rc == 0 && leaves != NULL && leaves->positions && leaves->scales && leaves->opacities)
    rc = belongs(lod, leaves, &e);
  size_t nsh = (size_t)in->sh_coeffs * 3;
  for (uint32_t k = 0; k < in->count && rc == 0; ++k) {
    uint32_t j = lod->leaf_count + k;
    const float *p = in->positions + (size_t)k * 3, *s = in->scales + (size_t)k * 3, *q = in->rotations + (size_t)k * 4;
    float o = in->opacities[k];
    double len = scene_all_finite(q, 4) ? sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                                               (double)q[3] * q[3]) : NAN;
    if (!scene_all_finite(p, 3)) rc = scene_fail(&e, "interior node %u: position not finite", j);
    else if (!scene_all_finite(s, 3) || s[0] < 0 || s[1] < 0 || s[2] < 0)
      rc = scene_fail(&e, "interior node %u: scale not finite and >= 0", j);
    else if (!(o >= 0 && o <= 1)) rc = scene_fail(&e, "interior node %u: opacity %g not in [0, 1]", j, (double)o);
    else if (!(fabs(len - 1) <= LOD_ROTATION_TOLERANCE))
      rc = scene_fail(&e, "interior node %u: rotation of length %g (1 expected)", j, len);
    for (size_t c = 0; c < nsh && rc == 0; ++c)
      if (!isfinite(in->sh[(size_t)k * nsh + c])) rc = scene_fail(&e, "interior node %u: SH coefficient %zu not finite", j, c);
    if (rc == 0 && lod->error != NULL && !(lod->error[k] >= 0 && lod->error[k] <= FLT_MAX))
      rc = scene_fail(&e, "interior node %u: error %g not finite and >= 0", j, (double)lod->error[k]);
  }
  return rc;
}
