/* scene_sog.c: PlayCanvas SOG scenes (format: scene_sog.h): a meta.json and the WebP images it
 * names, read from a folder or from a bundled .sog zip, decoded with libwebp into a
 * splat_scene. */
#include "scene_sog.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <webp/decode.h>

#define SQRT2 1.4142135623730951

/* One decoded image: RGBA, row-major. */
typedef struct sog_image {
  uint32_t width, height;
  uint8_t *rgba;
} sog_image;

/* The most texels image `id` may have: a palette reaches 1024 rows of 960; a per-splat image at
 * least a texel a splat, and not so many more that a tiny file could make us decode a 16383 x
 * 16383 image for a few splats (writers pad to a multiple of 4 rows and columns, at most a
 * power-of-two square: under 4x). */
static uint64_t max_texels(const sog_meta *m, enum sog_image_id id) {
  return id == SOG_SHN_CENTROIDS ? 960u * 1024u : 4ull * m->count + 65536;
}

/* The SH degree of a centroids image `width` texels wide (64 entries a row, each 3, 8 or 15
 * texels), 0 for any other width. */
static uint32_t degree_of_width(int width) { return width == 192 ? 1 : width == 512 ? 2 : width == 960 ? 3 : 0; }

/* Fetches, checks and decodes image `id` of m into *img. *sized: whether a per-splat image got
 * as far as its size checks (a still lossless WebP, its size in img->width and height even when
 * it then fails), where the serial order checks it against the first image (like_first). */
static int decode_image(const sog_meta *m, enum sog_image_id id, sog_fetch_fn fetch, void *user, sog_image *img,
                        bool *sized, const scene_error *e) {
  *sized = false;
  const char *name = m->files[id];
  char tok[64];
  scene_token(tok, name, strlen(name));
  const uint8_t *data;
  size_t size;
  void *owned = NULL;
  if (fetch(user, name, &data, &size, &owned, e) != 0) return -1;
  int rc = 0;
  WebPBitstreamFeatures f;
  if (WebPGetFeatures(data, size, &f) != VP8_STATUS_OK) {
    rc = scene_fail(e, "%s: not a WebP image (or a truncated one)", tok);
  } else if (f.has_animation) {
    rc = scene_fail(e, "%s: an animated WebP, expected a still image", tok);
  } else if (f.format == 1) {
    /* lossy compression changes the bytes, which are indices and exact bit patterns */
    rc = scene_fail(e, "%s: a lossy WebP; SOG images must be lossless", tok);
  } else if (id == SOG_SHN_CENTROIDS) {
    /* 64 entries a row, each 3, 8 or 15 texels wide: the width says the degree (the engine
     * reads it from the width alone; shN.bands, when given, must agree); 16-bit labels reach
     * 1024 rows. Checked before decoding, as for the per-splat images. */
    uint32_t d = degree_of_width(f.width);
    if (d == 0)
      rc = scene_fail(e, "%s: %d texels wide; an SH palette is 192, 512 or 960 wide (degree 1, 2, 3)", tok,
                      f.width);
    else if (m->shn_bands != 0 && m->shn_bands != d)
      rc = scene_fail(e, "%s: %d texels wide is SH degree %u, but shN.bands is %u", tok, f.width, d, m->shn_bands);
    else if (f.height > 1024)
      rc = scene_fail(e, "%s: %d rows; 16-bit labels reach 1024 rows of 64 entries", tok, f.height);
  } else {
    *sized = true;
    img->width = (uint32_t)f.width;
    img->height = (uint32_t)f.height;
    uint64_t texels = (uint64_t)f.width * (uint64_t)f.height;
    if (texels < m->count)
      rc = scene_fail(e, "%s: %dx%d is %llu texels, fewer than the %u splats", tok, f.width, f.height,
                      (unsigned long long)texels, m->count);
    else if (texels > max_texels(m, id))
      rc = scene_fail(e, "%s: %dx%d is %llu texels, far more than the %u splats need", tok, f.width, f.height,
                      (unsigned long long)texels, m->count);
  }
  if (rc == 0) {
    size_t bytes = (size_t)f.width * (size_t)f.height * 4;
    img->rgba = malloc(bytes);
    img->width = (uint32_t)f.width;
    img->height = (uint32_t)f.height;
    if (img->rgba == NULL)
      rc = scene_fail(e, "%s: out of memory for %dx%d texels", tok, f.width, f.height);
    else if (WebPDecodeRGBAInto(data, size, img->rgba, bytes, f.width * 4) == NULL)
      rc = scene_fail(e, "%s: the WebP data is broken (libwebp could not decode it)", tok);
    if (rc != 0) { /* the size stays, for like_first */
      free(img->rgba);
      img->rgba = NULL;
    }
  }
  free(owned);
  return rc;
}

/* sign(v) (e^|v| - 1): the inverse of the writers' sign(x) ln(|x| + 1). */
static float inv_log(double v) { return (float)(v < 0 ? -expm1(-v) : expm1(v)); }

static double lerp(double lo, double hi, double t) { return lo + (hi - lo) * t; }

static float sigmoid(double x) { return (float)(1.0 / (1.0 + exp(-x))); }

/* Per-byte tables of what the scale, colour and opacity bytes decode to. */
typedef struct sog_tables {
  float scale[3][256];   /* activated: exp(log scale) */
  float dc[3][256];
  float opacity[256];
  float rest[256];        /* an SH rest coefficient */
} sog_tables;

static void make_tables(const sog_meta *m, sog_tables *t) {
  for (int b = 0; b < 256; ++b) {
    for (int c = 0; c < 3; ++c) {
      if (m->version == 2) {
        t->scale[c][b] = (float)exp((double)m->scales_cb[b]);
        t->dc[c][b] = m->sh0_cb[b];
      } else {
        t->scale[c][b] = (float)exp(lerp(m->scales_min[c], m->scales_max[c], b / 255.0));
        t->dc[c][b] = (float)lerp(m->sh0_min[c], m->sh0_max[c], b / 255.0);
      }
    }
    t->opacity[b] = m->version == 2 ? (float)(b / 255.0) : sigmoid(lerp(m->sh0_min[3], m->sh0_max[3], b / 255.0));
    t->rest[b] = m->version == 2 ? m->shn_cb[b] : (float)lerp(m->shn_min, m->shn_max, b / 255.0);
  }
}

/* The SH palette: entry e's rest coefficients in splat_scene order ((k - 1) * 3 + channel),
 * from the centroid image (its size checked by decode_image) and whether each is finite. */
static int make_palette(const sog_meta *m, const sog_image *cen, const sog_tables *t, uint32_t *degree,
                        uint32_t *entries, float **palette, bool **finite, const scene_error *e) {
  char tok[64];
  scene_token(tok, m->files[SOG_SHN_CENTROIDS], strlen(m->files[SOG_SHN_CENTROIDS]));
  uint32_t d = degree_of_width((int)cen->width);
  uint32_t n = cen->height * 64;
  if (m->shn_count != 0 && m->shn_count < n) n = m->shn_count;
  uint32_t nrest = (d + 1) * (d + 1) - 1;
  float *p = malloc((size_t)n * nrest * 3 * sizeof(float));
  bool *ok = malloc(n * sizeof(bool));
  if (p == NULL || ok == NULL) {
    free(p);
    free(ok);
    return scene_fail(e, "%s: out of memory for a %u-entry palette", tok, n);
  }
  for (uint32_t k = 0; k < n; ++k) {
    const uint8_t *row = cen->rgba + ((size_t)(k / 64) * cen->width + (size_t)(k % 64) * nrest) * 4;
    for (uint32_t j = 0; j < nrest; ++j)
      for (uint32_t c = 0; c < 3; ++c) p[((size_t)k * nrest + j) * 3 + c] = t->rest[row[j * 4 + c]];
    ok[k] = scene_all_finite(p + (size_t)k * nrest * 3, nrest * 3);
  }
  *degree = d;
  *entries = n;
  *palette = p;
  *finite = ok;
  return 0;
}

/* The unit quaternion (w, x, y, z) of a quats texel: three components and the index of the
 * fourth, the largest, rebuilt as non-negative. False for a tag byte outside 252..255. */
static bool decode_quat(const uint8_t *b, float q[4]) {
  if (b[3] < 252) return false;
  uint32_t largest = b[3] - 252u;
  double v[3], n2 = 0;
  for (int k = 0; k < 3; ++k) {
    v[k] = (b[k] / 255.0 - 0.5) * SQRT2;
    n2 += v[k] * v[k];
  }
  for (uint32_t k = 0, j = 0; k < 4; ++k) q[k] = k == largest ? (float)sqrt(fmax(0.0, 1.0 - n2)) : (float)v[j++];
  return true;
}

typedef struct sog_decoding {
  const sog_meta *m;
  sog_image img[SOG_IMAGES];
  sog_tables t;
  uint32_t degree, entries;
  float *palette;
  bool *entry_finite; /* each palette entry's values all finite */
  float *pos;         /* 3 x 65536: each axis's 16-bit values decoded, for large scenes */
} sog_decoding;

/* Position tables: 3 x 65536 inverse transforms instead of 3 a splat, once the scene is larger
 * than the table. */
static int make_position_tables(sog_decoding *dc, const scene_error *e) {
  const sog_meta *m = dc->m;
  if (m->count < 65536) return 0;
  dc->pos = malloc(3 * 65536 * sizeof(float));
  if (dc->pos == NULL) return scene_fail(e, "out of memory for the position tables");
  for (int c = 0; c < 3; ++c)
    for (uint32_t v = 0; v < 65536; ++v) dc->pos[c * 65536 + v] = inv_log(lerp(m->means_min[c], m->means_max[c], v / 65535.0));
  return 0;
}

static int bad_tag(const sog_meta *m, uint32_t i, uint8_t tag, const scene_error *e) {
  char tok[64];
  return scene_fail(e, "%s: splat %u has tag byte %u in alpha (252..255 name the largest component)",
                    scene_token(tok, m->files[SOG_QUATS], strlen(m->files[SOG_QUATS])), i, tag);
}

static int bad_label(const sog_meta *m, uint32_t i, uint32_t label, uint32_t entries, const scene_error *e) {
  char tok[64];
  return scene_fail(e, "%s: splat %u has palette index %u, but the palette has %u entries",
                    scene_token(tok, m->files[SOG_SHN_LABELS], strlen(m->files[SOG_SHN_LABELS])), i, label, entries);
}

/* What a range of splats reads (decode_range). */
typedef struct sog_ranges {
  const sog_decoding *dc;
  uint32_t nrest;
  bool dc_finite[3][256];
  uint8_t *kept; /* sog_decode_marked's, or NULL */
} sog_ranges;

/* Splats [r->first, r->first + r->n) into the slots from r->first on, under scene.h's policy.
 * The SH goes straight to its slot, its finiteness known per table entry and palette entry. */
static int decode_range(void *ctx, uint32_t index, scene_range *r, splat_scene *out, scene_job *j,
                        const scene_error *te) {
  (void)index, (void)j;
  const sog_ranges *g = ctx;
  const sog_decoding *dc = g->dc;
  const sog_meta *m = dc->m;
  const uint32_t nrest = g->nrest, nsh = nrest + 3;
  const uint8_t *lo = dc->img[SOG_MEANS_L].rgba, *hi = dc->img[SOG_MEANS_U].rgba, *qt = dc->img[SOG_QUATS].rgba,
                *sc = dc->img[SOG_SCALES].rgba, *c0 = dc->img[SOG_SH0].rgba, *lb = dc->img[SOG_SHN_LABELS].rgba;
  uint32_t kept = (uint32_t)r->first;
  for (uint32_t i = (uint32_t)r->first; i < r->first + r->n; ++i) {
    const size_t o = (size_t)i * 4;
    float p[3], s[3], q[4], *sh = out->sh + (size_t)kept * nsh;
    bool finite = true;
    for (int c = 0; c < 3; ++c) {
      uint32_t v = lo[o + c] | (uint32_t)hi[o + c] << 8;
      p[c] = dc->pos ? dc->pos[c * 65536 + v] : inv_log(lerp(m->means_min[c], m->means_max[c], v / 65535.0));
      s[c] = dc->t.scale[c][sc[o + c]];
      sh[c] = dc->t.dc[c][c0[o + c]];
      finite &= g->dc_finite[c][c0[o + c]];
    }
    if (!decode_quat(qt + o, q)) return bad_tag(m, i, qt[o + 3], te);
    if (nrest > 0) {
      uint32_t label = lb[o] | (uint32_t)lb[o + 1] << 8;
      if (label >= dc->entries) return bad_label(m, i, label, dc->entries, te);
      memcpy(sh + 3, dc->palette + (size_t)label * nrest, nrest * sizeof(float));
      finite &= dc->entry_finite[label];
    }
    /* a dropped splat's slot, SH included, is taken by the next one */
    bool put = finite && scene_put_core(out, kept, p, s, q, dc->t.opacity[c0[o + 3]]);
    if (g->kept != NULL) g->kept[i] = put;
    kept += put;
  }
  r->kept = kept - r->first;
  return 0;
}

/* Every splat into out (allocated here), in ranges on e->pool; the first bad splat (in order)
 * is the error. */
static int decode_splats(sog_decoding *dc, splat_scene *out, uint8_t *marks, const scene_error *e) {
  const sog_meta *m = dc->m;
  if (make_position_tables(dc, e) != 0 || scene_alloc(out, m->count, dc->degree, e) != 0) return -1;
  sog_ranges g = {dc, out->sh_coeffs * 3 - 3, {{0}}, marks};
  for (int c = 0; c < 3; ++c)
    for (int b = 0; b < 256; ++b) g.dc_finite[c][b] = scene_finite(dc->t.dc[c][b]);
  uint32_t nranges, kept = 0;
  scene_range *ranges = NULL;
  int rc = scene_report(e, "decode", 0, m->count); /* nonzero: cancelled */
  if (rc == 0) rc = (ranges = scene_split(m->count, e, &nranges)) == NULL ? -1 : 0;
  if (rc == 0) rc = scene_decode_ranges(out, m->count, ranges, nranges, decode_range, &g, e, &kept);
  free(ranges);
  if (rc != 0) {
    splat_scene_free(out);
    return -1;
  }
  out->flags = m->flags;
  return scene_finish(out, kept, m->count, e);
}

/* The images of a decode, one a task (decode_images). */
typedef struct sog_images {
  sog_decoding *dc;
  sog_fetch_fn fetch;
  void *user;
  enum sog_image_id ids[SOG_IMAGES];
  uint32_t n;
  bool sized[SOG_IMAGES], failed[SOG_IMAGES];
} sog_images;

static int image_task(scene_job *j, void *arg, uint32_t k, const scene_error *te) {
  (void)j;
  sog_images *im = arg;
  enum sog_image_id id = im->ids[k];
  im->failed[k] = decode_image(im->dc->m, id, im->fetch, im->user, &im->dc->img[id], &im->sized[k], te) != 0;
  return im->failed[k] ? -1 : 0;
}

/* Per-splat image k against the first one: in the serial order this check comes after the
 * format checks and before the size checks, so it wins over image k's own size failure. */
static bool like_first(const sog_images *im, uint32_t k, const scene_error *e) {
  const sog_image *first = &im->dc->img[im->ids[0]], *img = &im->dc->img[im->ids[k]];
  if (k == 0 || !im->sized[0] || !im->sized[k] || (img->width == first->width && img->height == first->height))
    return true;
  const sog_meta *m = im->dc->m;
  char tok[64], name0[64];
  const char *name = m->files[im->ids[k]];
  scene_fail(e, "%s: %ux%u, but %s is %ux%u (the per-splat images share one size)",
             scene_token(tok, name, strlen(name)), img->width, img->height,
             scene_token(name0, m->files[SOG_MEANS_L], strlen(m->files[SOG_MEANS_L])), first->width, first->height);
  return false;
}

/* Fetches and decodes the images, one a task on e->pool (libwebp decodes are independent), each
 * reporting into its own buffer; the error is the first in the serial order, whatever the timing. */
static int decode_images(sog_decoding *dc, sog_fetch_fn fetch, void *user, const scene_error *e) {
  static const enum sog_image_id order[] = {SOG_MEANS_L, SOG_MEANS_U, SOG_QUATS,         SOG_SCALES,
                                            SOG_SH0,     SOG_SHN_LABELS, SOG_SHN_CENTROIDS};
  sog_images im = {.dc = dc, .fetch = fetch, .user = user};
  for (size_t k = 0; k < sizeof order / sizeof order[0]; ++k)
    if (dc->m->has_shn || (order[k] != SOG_SHN_LABELS && order[k] != SOG_SHN_CENTROIDS)) im.ids[im.n++] = order[k];
  int rc = scene_run(e, NULL, 0, im.n, image_task, &im);
  if (e->progress != NULL && e->progress->cancelled) return -1;
  /* the failed task of lowest index ran, and so did every task before it: their sizes are known */
  for (uint32_t k = 0; k < im.n; ++k)
    if (!like_first(&im, k, e) || im.failed[k]) return -1;
  return rc;
}

/* The lowest SH degree meta.json allows. */
static uint32_t least_degree(const sog_meta *m) { return !m->has_shn ? 0 : m->shn_bands ? m->shn_bands : 1; }

uint64_t sog_min_bytes(const sog_meta *m) {
  uint32_t images = m->has_shn ? 6 : 5;
  return scene_array_bytes(m->count, least_degree(m)) + (uint64_t)m->count * 4 * images;
}

/* The least the scene needs, held to the budget before any image is decoded. */
static int check_budget(const sog_meta *m, const scene_error *e) {
  return scene_budget_check(e, sog_min_bytes(m), "meta.json: %u splats at SH degree %u (arrays and images)",
                            m->count, least_degree(m));
}

int sog_sh_degree(const sog_meta *m, sog_fetch_fn fetch, void *user, uint32_t *degree, const scene_error *e) {
  *degree = least_degree(m);
  if (!m->has_shn || m->shn_bands != 0) return 0;
  const char *name = m->files[SOG_SHN_CENTROIDS];
  const uint8_t *data;
  size_t size;
  void *owned = NULL;
  if (fetch(user, name, &data, &size, &owned, e) != 0) return -1;
  WebPBitstreamFeatures f;
  char tok[64];
  int rc = 0;
  scene_token(tok, name, strlen(name));
  if (WebPGetFeatures(data, size, &f) != VP8_STATUS_OK)
    rc = scene_fail(e, "%s: not a WebP image (or a truncated one)", tok);
  else if ((*degree = degree_of_width(f.width)) == 0)
    rc = scene_fail(e, "%s: %d texels wide; an SH palette is 192, 512 or 960 wide (degree 1, 2, 3)", tok, f.width);
  free(owned);
  return rc;
}

int sog_decode(const sog_meta *m, sog_fetch_fn fetch, void *user, splat_scene *out, const scene_error *e) {
  return sog_decode_marked(m, fetch, user, out, NULL, e);
}

int sog_decode_marked(const sog_meta *m, sog_fetch_fn fetch, void *user, splat_scene *out, uint8_t *kept,
                      const scene_error *e) {
  memset(out, 0, sizeof *out);
  if (check_budget(m, e) != 0) return -1;
  sog_decoding dc = {.m = m};
  int rc = decode_images(&dc, fetch, user, e);
  if (rc == 0) {
    make_tables(m, &dc.t);
    if (m->has_shn)
      rc = make_palette(m, &dc.img[SOG_SHN_CENTROIDS], &dc.t, &dc.degree, &dc.entries, &dc.palette,
                        &dc.entry_finite, e);
  }
  if (rc == 0) rc = decode_splats(&dc, out, kept, e);
  for (int k = 0; k < SOG_IMAGES; ++k) free(dc.img[k].rgba);
  free(dc.palette);
  free(dc.entry_finite);
  free(dc.pos);
  if (rc != 0) memset(out, 0, sizeof *out);
  return rc;
}

/* A count held to the bytes of the images that must hold it (SOG_SPLATS_PER_BYTE), once the
 * scene would be large: lossless WebP has no useful bound of its own (an image of one colour
 * takes a few bytes at any size). */
static int check_count(const sog_meta *m, uint64_t bytes, const scene_error *e) {
  if (scene_array_bytes(m->count, 0) <= SOG_FREE_BYTES || m->count / SOG_SPLATS_PER_BYTE <= bytes) return 0;
  return scene_fail(e, "meta.json: count %u splats is more than %llu bytes of images hold (limit %d splats a byte "
                       "once the arrays pass %llu MiB)",
                    m->count, (unsigned long long)bytes, SOG_SPLATS_PER_BYTE,
                    (unsigned long long)(SOG_FREE_BYTES >> 20));
}

/* ---- meta.json beside its images ---------------------------------------------------------- */

int sog_fetch_file(void *user, const char *name, const uint8_t **data, size_t *size, void **owned,
                      const scene_error *e) {
  const sog_dir *d = user;
  char tok[64];
  scene_token(tok, name, strlen(name));
  size_t n = d->dir_len + strlen(name) + 1, en = strlen(e->name) + sizeof tok + 2;
  char *path = malloc(n), *ename = malloc(en);
  if (path == NULL || ename == NULL) {
    free(path);
    free(ename);
    return scene_fail(e, "%s: out of memory", tok);
  }
  memcpy(path, d->dir, d->dir_len);
  memcpy(path + d->dir_len, name, n - d->dir_len);
  /* the file's own problem, said after the scene's name and the image's */
  snprintf(ename, en, "%s: %s", e->name, tok);
  uint8_t *bytes;
  int rc = scene_read_file(path, &bytes, size, &(scene_error){ename, e->buf, e->size, .budget = e->budget});
  free(ename);
  free(path);
  if (rc != 0) return -1;
  *data = bytes;
  *owned = bytes;
  return 0;
}

/* The bytes of the image files m names that exist (a missing one is reported when fetched). */
static uint64_t image_bytes(const sog_dir *d, const sog_meta *m) {
  uint64_t total = 0;
  for (int k = 0; k < SOG_IMAGES; ++k) {
    size_t n = strlen(m->files[k]);
    char *path = n ? malloc(d->dir_len + n + 1) : NULL;
    if (path == NULL) continue;
    memcpy(path, d->dir, d->dir_len);
    memcpy(path + d->dir_len, m->files[k], n + 1);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) total += (uint64_t)st.st_size;
    free(path);
  }
  return total;
}

int sog_check_count_dir(const sog_meta *m, const sog_dir *d, const scene_error *e) {
  return check_count(m, image_bytes(d, m), e);
}

/* meta.json's text, read from `path`, its images in the folder dir (dir_len bytes with a trailing
 * '/', or ""): meta.json's errors go to me, the images' to e. A streamed bundle's lod-meta.json
 * (under another name) is read as one. */
static int load_beside(const char *path, const char *dir, size_t dir_len, const uint8_t *text, size_t size,
                       splat_scene *out, const scene_error *me, const scene_error *e) {
  memset(out, 0, sizeof *out);
  sog_meta m;
  int rc = sog_parse_meta((const char *)text, size, &m, me);
  if (rc == SOG_LOD_META) return sog_load_lod(path, text, size, out, me, e);
  if (rc != 0) return -1;
  sog_dir d = {dir, dir_len};
  if (sog_check_count_dir(&m, &d, e) != 0) return -1;
  return sog_decode(&m, sog_fetch_file, &d, out, e);
}

int scene_load_sog_meta(const char *path, const uint8_t *text, size_t size, splat_scene *out,
                        const scene_error *e) {
  const char *slash = strrchr(path, '/');
  return load_beside(path, path, slash ? (size_t)(slash - path) + 1 : 0, text, size, out, e, e);
}

/* A folder holds a scene's meta.json or, failing that, a streamed bundle's lod-meta.json. */
int scene_load_sog_dir(const char *dir, splat_scene *out, const scene_error *e) {
  memset(out, 0, sizeof *out);
  size_t n = strlen(dir), mn = strlen(e->name) + sizeof ": lod-meta.json";
  bool slash = n > 0 && dir[n - 1] == '/';
  char *path = malloc(n + sizeof "/lod-meta.json"), *mname = malloc(mn);
  if (path == NULL || mname == NULL) {
    free(path);
    free(mname);
    return scene_fail(e, "out of memory");
  }
  memcpy(path, dir, n);
  memcpy(path + n, slash ? "meta.json" : "/meta.json", sizeof "/meta.json" - slash);
  /* errors say "<folder>: meta.json: ..." and "<folder>: means_l.webp: ...", as for a bundle */
  snprintf(mname, mn, "%s: meta.json", e->name);
  scene_error me = {mname, e->buf, e->size, .budget = e->budget};
  struct stat st;
  uint8_t *text = NULL;
  size_t size = 0;
  int rc;
  if (stat(path, &st) != 0) {
    memcpy(path + n, slash ? "lod-meta.json" : "/lod-meta.json", sizeof "/lod-meta.json" - slash);
    snprintf(mname, mn, "%s: lod-meta.json", e->name);
    if (stat(path, &st) == 0) {
      rc = sog_load_lod_file(path, out, &me, e);
    } else {
      rc = scene_fail(e, "is a directory without a meta.json (or a streamed bundle's lod-meta.json), so neither a "
                         "scene file nor a SOG scene");
    }
  } else if (st.st_size > (off_t)SOG_META_MAX) {
    rc = scene_fail(&me, "%jd bytes; a SOG meta.json is a few KiB (limit %zu bytes)", (intmax_t)st.st_size,
                    SOG_META_MAX);
  } else {
    rc = scene_read_file(path, &text, &size, &me);
    if (rc == 0) rc = load_beside(path, path, n + !slash, text, size, out, &me, e);
  }
  free(text);
  free(mname);
  free(path);
  return rc;
}

/* ---- bundled .sog: a zip archive holding meta.json and the images --------------------------- */

typedef struct sog_bundle {
  const sog_zip *z;
  const sog_meta *m;
} sog_bundle;

/* An image entry that states many more bytes than it holds: its WebP header first, read by
 * inflating a few bytes, so that neither a bomb that is no WebP image nor one whose stated size
 * no image its dimensions allow could have is inflated (decode_image checks the rest). */
static int check_image_entry(const sog_meta *m, const char *name, const sog_zip_entry *en, const scene_error *e) {
  uint8_t head[4096];
  size_t got;
  if (sog_zip_head(en, head, sizeof head, &got, e) != 0) return -1;
  WebPBitstreamFeatures f;
  if (WebPGetFeatures(head, got, &f) != VP8_STATUS_OK)
    return scene_fail(e, "%s: not a WebP image (or a truncated one)", en->tok);
  enum sog_image_id id = SOG_MEANS_L;
  for (int k = SOG_IMAGES - 1; k >= 0; --k)
    if (strcmp(m->files[k], name) == 0) id = (enum sog_image_id)k;
  uint64_t texels = (uint64_t)f.width * (uint64_t)f.height, most = max_texels(m, id);
  uint64_t limit = (texels < most ? texels : most) * SOG_WEBP_BYTES_PER_TEXEL + ((uint64_t)1 << 20);
  if (en->usize > limit)
    return scene_fail(e, "%s: zip entry states %u bytes for a %dx%d image (limit %llu bytes)", en->tok, en->usize,
                      f.width, f.height, (unsigned long long)limit);
  return 0;
}

static int fetch_zip(void *user, const char *name, const uint8_t **data, size_t *size, void **owned,
                     const scene_error *e) {
  const sog_bundle *b = user;
  sog_zip_entry en;
  int found = sog_zip_locate(b->z, name, &en, e);
  if (found == 0) {
    char tok[64];
    return scene_fail(e, "%s: not in the archive", scene_token(tok, name, strlen(name)));
  }
  if (found < 0) return -1;
  if (en.usize / SOG_TRUST_RATIO > en.csize && check_image_entry(b->m, name, &en, e) != 0) return -1;
  return sog_zip_read(&en, data, size, owned, e);
}

int scene_load_sog_bundle(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e) {
  memset(out, 0, sizeof *out);
  sog_zip z;
  if (sog_zip_open(data, size, &z, e) != 0) return -1;
  const uint8_t *text;
  size_t tsize;
  void *owned = NULL;
  sog_zip_entry en;
  int found = sog_zip_locate(&z, "meta.json", &en, e);
  if (found == 0) return scene_fail(e, "a zip archive without a meta.json, so not a bundled SOG scene");
  if (found < 0) return -1;
  /* refused as stated, before inflating: a meta.json bomb costs nothing */
  if (en.usize > SOG_META_MAX)
    return scene_fail(e, "meta.json: zip entry states %u bytes; a SOG meta.json is a few KiB (limit %zu bytes)",
                      en.usize, SOG_META_MAX);
  if (sog_zip_read(&en, &text, &tsize, &owned, e) != 0) return -1;
  sog_meta m;
  /* meta.json's own errors are said as "<bundle>: meta.json: ..." */
  size_t n = strlen(e->name) + sizeof ": meta.json";
  char *mname = malloc(n);
  int rc;
  if (mname == NULL) {
    rc = scene_fail(e, "out of memory");
  } else {
    snprintf(mname, n, "%s: meta.json", e->name);
    rc = sog_parse_meta((const char *)text, tsize, &m, &(scene_error){mname, e->buf, e->size, .budget = e->budget});
    free(mname);
  }
  free(owned);
  if (rc != 0 || check_count(&m, size, e) != 0) return -1;
  sog_bundle b = {&z, &m};
  return sog_decode(&m, fetch_zip, &b, out, e);
}
