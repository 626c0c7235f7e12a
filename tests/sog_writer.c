/* sog_writer.c: the test-only SOG writer (what it follows and where it differs: sog_writer.h). */
#include "sog_writer.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <webp/encode.h>
#include <zlib.h>

#define SQRT2 1.4142135623730951

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t n, const char *fmt, ...) {
  if (err != NULL && n > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ---- growing text, for meta.json ---------------------------------------------------------- */

typedef struct text {
  char *s;
  size_t len, cap;
  bool oom;
} text;

__attribute__((format(printf, 2, 3))) static void tprintf(text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = t->oom ? -1 : vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->oom = true;
      return;
    }
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    size_t cap = (t->cap + (size_t)n + 1) * 2;
    char *s = realloc(t->s, cap);
    if (s == NULL) {
      t->oom = true;
      return;
    }
    t->s = s;
    t->cap = cap;
  }
}

/* "name":[v0,v1,...] with %.17g doubles (the writers' JSON keeps doubles exact). */
static void put_doubles(text *t, const char *name, const double *v, size_t n) {
  tprintf(t, "\"%s\":[", name);
  for (size_t i = 0; i < n; ++i) tprintf(t, "%s%.17g", i ? "," : "", v[i]);
  tprintf(t, "]");
}

/* A codebook: 9 significant digits give every float back exactly. */
static void put_codebook(text *t, const float cb[256]) {
  tprintf(t, "\"codebook\":[");
  for (int i = 0; i < 256; ++i) tprintf(t, "%s%.9g", i ? "," : "", (double)cb[i]);
  tprintf(t, "]");
}

/* ---- quantisation --------------------------------------------------------------------------- */

static double log_transform(double x) { return x < 0 ? -log1p(-x) : log1p(x); }

/* A 256-entry codebook evenly over the finite values' range, ascending. */
typedef struct cbook {
  float v[256];
  double lo, hi;
} cbook;

static void cbook_fit(cbook *c, const float *v, size_t n, size_t stride, size_t width) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < width; ++k) {
      double x = v[i * stride + k];
      if (isfinite(x)) lo = fmin(lo, x), hi = fmax(hi, x);
    }
  if (!(lo <= hi)) lo = hi = 0;
  c->lo = lo;
  c->hi = hi;
  for (int k = 0; k < 256; ++k) c->v[k] = (float)(lo + (hi - lo) * k / 255.0);
}

/* The nearest entry (the entries are evenly spaced: rounding finds it; the float entries are
 * within rounding of the double grid, so the search checks the neighbours). */
static uint8_t cbook_index(const cbook *c, double x) {
  if (isnan(x) || !(c->hi > c->lo)) return 0;
  double t = (x - c->lo) / (c->hi - c->lo) * 255.0;
  long k = t <= 0 ? 0 : t >= 255 ? 255 : lround(t);
  long best = k;
  for (long j = k - 1; j <= k + 1; ++j)
    if (j >= 0 && j <= 255 && fabs(c->v[j] - x) < fabs(c->v[best] - x)) best = j;
  return (uint8_t)best;
}

/* A byte from v in [lo, hi]: rounded (version 1, numpy's round) */
static uint8_t round_byte(double v, double lo, double hi) {
  if (!(hi > lo)) return 0;
  double t = nearbyint((v - lo) / (hi - lo) * 255.0);
  return (uint8_t)(t < 0 ? 0 : t > 255 ? 255 : t);
}

/* JavaScript's store of a number into a Uint8Array for values in [0, 255]: truncation. */
static uint8_t trunc_byte(double v) { return (uint8_t)(isnan(v) || v < 0 ? 0 : v > 255 ? 255 : (int)v); }

/* ---- images --------------------------------------------------------------------------------- */

/* Lossless WebP with the settings of libwebp's simple lossless call (quality 70, method 4),
 * plus `exact`. */
int sog_encode_webp(const uint8_t *rgba, uint32_t w, uint32_t h, bool lossless, sog_blob *b) {
  WebPConfig config;
  WebPPicture pic;
  if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, lossless ? 70.0f : 90.0f) || !WebPPictureInit(&pic)) return -1;
  config.lossless = lossless;
  config.exact = 1;
  pic.use_argb = lossless;
  pic.width = (int)w;
  pic.height = (int)h;
  WebPMemoryWriter wr;
  WebPMemoryWriterInit(&wr);
  pic.writer = WebPMemoryWrite;
  pic.custom_ptr = &wr;
  int ok = WebPPictureImportRGBA(&pic, rgba, (int)w * 4) && WebPEncode(&config, &pic);
  WebPPictureFree(&pic);
  if (ok) {
    b->data = malloc(wr.size);
    if (b->data) memcpy(b->data, wr.mem, wr.size);
    b->size = wr.size;
    ok = b->data != NULL;
  }
  WebPMemoryWriterClear(&wr);
  return ok ? 0 : -1;
}

static int add_image(sog_output *out, const char *prefix, const char *name, const uint8_t *rgba, uint32_t w,
                     uint32_t h, char *err, size_t n) {
  sog_blob *b = &out->blob[out->count];
  snprintf(b->name, sizeof b->name, "%s%s", prefix, name);
  if (sog_encode_webp(rgba, w, h, true, b) != 0) return fail(err, n, "sog_writer: could not encode %s (%ux%u)", name, w, h);
  out->count++;
  return 0;
}

/* ---- the encoder ---------------------------------------------------------------------------- */

typedef struct enc {
  const splat_scene *s;
  const sog_write_options *o;
  uint32_t n, w, h, version;
  const char *pre; /* the options' prefix, or "" */
  size_t texels;
  uint8_t *img; /* one RGBA image's scratch, texels * 4 bytes */
  text meta;
} enc;

static void image_clear(enc *e) { memset(e->img, 0, e->texels * 4); }

static int write_means(enc *e, sog_output *out, char *err, size_t n) {
  const splat_scene *s = e->s;
  double lo[3], hi[3];
  for (int c = 0; c < 3; ++c) lo[c] = INFINITY, hi[c] = -INFINITY;
  for (uint32_t i = 0; i < e->n; ++i)
    for (int c = 0; c < 3; ++c) {
      double v = log_transform(s->positions[i * 3 + c]);
      lo[c] = fmin(lo[c], v), hi[c] = fmax(hi[c], v);
    }
  uint8_t *upper = calloc(e->texels, 4);
  if (upper == NULL) return fail(err, n, "sog_writer: out of memory");
  image_clear(e);
  for (uint32_t i = 0; i < e->n; ++i)
    for (int c = 0; c < 3; ++c) {
      double l = log_transform(s->positions[i * 3 + c]), x;
      uint32_t v;
      if (e->version == 2) { /* x & 0xff in JavaScript: truncated, NaN (max == min) is 0 */
        x = 65535.0 * (l - lo[c]) / (hi[c] - lo[c]);
        v = isnan(x) || x < 0 ? 0 : x > 65535 ? 65535 : (uint32_t)x;
      } else {
        x = hi[c] > lo[c] ? nearbyint((l - lo[c]) / (hi[c] - lo[c]) * 65535.0) : 0;
        v = x < 0 ? 0 : x > 65535 ? 65535 : (uint32_t)x;
      }
      e->img[i * 4 + c] = (uint8_t)(v & 0xff);
      upper[i * 4 + c] = (uint8_t)(v >> 8);
      e->img[i * 4 + 3] = upper[i * 4 + 3] = 0xff;
    }
  int rc = add_image(out, e->pre, "means_l.webp", e->img, e->w, e->h, err, n);
  if (rc == 0) rc = add_image(out, e->pre, "means_u.webp", upper, e->w, e->h, err, n);
  free(upper);
  if (e->version == 2) tprintf(&e->meta, "\"means\":{");
  else tprintf(&e->meta, "\"means\":{\"shape\":[%u,3],\"dtype\":\"float32\",", e->n);
  put_doubles(&e->meta, "mins", lo, 3);
  tprintf(&e->meta, ",");
  put_doubles(&e->meta, "maxs", hi, 3);
  tprintf(&e->meta, ",\"files\":[\"%smeans_l.webp\",\"%smeans_u.webp\"]}", e->pre, e->pre);
  return rc;
}

/* Smallest three: the largest |component| left out and made positive, the others times
 * sqrt(2) mapped from [-1, 1] to bytes; alpha 252 + its index (w, x, y, z order). */
static int write_quats(enc *e, sog_output *out, char *err, size_t n) {
  static const int others[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  image_clear(e);
  for (uint32_t i = 0; i < e->n; ++i) {
    double q[4], l = 0;
    for (int k = 0; k < 4; ++k) q[k] = e->s->rotations[i * 4 + k], l += q[k] * q[k];
    l = sqrt(l);
    int m = 0;
    for (int k = 0; k < 4; ++k) q[k] /= l;
    for (int k = 1; k < 4; ++k)
      if (fabs(q[k]) > fabs(q[m])) m = k;
    double sgn = (q[m] < 0 ? -1.0 : 1.0) * SQRT2;
    for (int k = 0; k < 3; ++k) {
      double v = q[others[m][k]] * sgn * 0.5 + 0.5;
      e->img[i * 4 + k] = e->version == 2 ? trunc_byte(255.0 * v) : round_byte(v, 0.0, 1.0);
    }
    e->img[i * 4 + 3] = (uint8_t)(252 + m);
  }
  if (e->version == 2) tprintf(&e->meta, ",\"quats\":{\"files\":[\"%squats.webp\"]}", e->pre);
  else
    tprintf(&e->meta, ",\"quats\":{\"shape\":[%u,4],\"dtype\":\"uint8\",\"encoding\":\"quaternion_packed\","
                      "\"files\":[\"%squats.webp\"]}", e->n, e->pre);
  return add_image(out, e->pre, "quats.webp", e->img, e->w, e->h, err, n);
}

static int write_scales(enc *e, sog_output *out, char *err, size_t n) {
  float *ls = malloc((size_t)e->n * 3 * sizeof(float));
  if (ls == NULL) return fail(err, n, "sog_writer: out of memory");
  for (size_t k = 0; k < (size_t)e->n * 3; ++k) ls[k] = (float)log(e->s->scales[k]);
  image_clear(e);
  if (e->version == 2) {
    cbook cb;
    cbook_fit(&cb, ls, e->n, 3, 3);
    for (uint32_t i = 0; i < e->n; ++i) {
      for (int c = 0; c < 3; ++c) e->img[i * 4 + c] = cbook_index(&cb, ls[i * 3 + c]);
      e->img[i * 4 + 3] = 255;
    }
    tprintf(&e->meta, ",\"scales\":{");
    put_codebook(&e->meta, cb.v);
    tprintf(&e->meta, ",\"files\":[\"%sscales.webp\"]}", e->pre);
  } else {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < e->n; ++i)
      for (int c = 0; c < 3; ++c) lo[c] = fmin(lo[c], ls[i * 3 + c]), hi[c] = fmax(hi[c], ls[i * 3 + c]);
    for (uint32_t i = 0; i < e->n; ++i) {
      for (int c = 0; c < 3; ++c) e->img[i * 4 + c] = round_byte(ls[i * 3 + c], lo[c], hi[c]);
      e->img[i * 4 + 3] = 255;
    }
    tprintf(&e->meta, ",\"scales\":{\"shape\":[%u,3],\"dtype\":\"float32\",", e->n);
    put_doubles(&e->meta, "mins", lo, 3);
    tprintf(&e->meta, ",");
    put_doubles(&e->meta, "maxs", hi, 3);
    tprintf(&e->meta, ",\"files\":[\"%sscales.webp\"]}", e->pre);
  }
  free(ls);
  return add_image(out, e->pre, "scales.webp", e->img, e->w, e->h, err, n);
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* DC colour and opacity. */
static int write_sh0(enc *e, sog_output *out, char *err, size_t n) {
  const splat_scene *s = e->s;
  const uint32_t stride = s->sh_coeffs * 3;
  image_clear(e);
  if (e->version == 2) {
    cbook cb;
    cbook_fit(&cb, s->sh, e->n, stride, 3);
    for (uint32_t i = 0; i < e->n; ++i) {
      for (int c = 0; c < 3; ++c) e->img[i * 4 + c] = cbook_index(&cb, s->sh[(size_t)i * stride + c]);
      e->img[i * 4 + 3] = trunc_byte(fmax(0.0, fmin(255.0, s->opacities[i] * 255.0)));
    }
    tprintf(&e->meta, ",\"sh0\":{");
    put_codebook(&e->meta, cb.v);
    tprintf(&e->meta, ",\"files\":[\"%ssh0.webp\"]}", e->pre);
  } else {
    /* the sogs tool clamps the DC to [-3, 3] and stores the opacity's logit */
    double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    double *v = malloc((size_t)e->n * 4 * sizeof(double));
    if (v == NULL) return fail(err, n, "sog_writer: out of memory");
    for (uint32_t i = 0; i < e->n; ++i) {
      for (int c = 0; c < 3; ++c) v[i * 4 + c] = clampd(s->sh[(size_t)i * stride + c], -3.0, 3.0);
      double o = clampd(s->opacities[i], 1e-12, 1.0 - 1e-12);
      v[i * 4 + 3] = log(o / (1.0 - o));
      for (int c = 0; c < 4; ++c) lo[c] = fmin(lo[c], v[i * 4 + c]), hi[c] = fmax(hi[c], v[i * 4 + c]);
    }
    for (uint32_t i = 0; i < e->n; ++i)
      for (int c = 0; c < 4; ++c) e->img[i * 4 + c] = round_byte(v[i * 4 + c], lo[c], hi[c]);
    free(v);
    tprintf(&e->meta, ",\"sh0\":{\"shape\":[%u,1,4],\"dtype\":\"float32\",", e->n);
    put_doubles(&e->meta, "mins", lo, 4);
    tprintf(&e->meta, ",");
    put_doubles(&e->meta, "maxs", hi, 4);
    tprintf(&e->meta, ",\"files\":[\"%ssh0.webp\"]}", e->pre);
  }
  return add_image(out, e->pre, "sh0.webp", e->img, e->w, e->h, err, n);
}

/* A bijection of [0, 2^bits): odd multiplications and xor-shifts, each invertible. */
static uint32_t scramble(uint32_t x, uint32_t bits) {
  const uint32_t mask = bits >= 32 ? UINT32_MAX : (1u << bits) - 1, shift = bits / 2 + 1;
  for (int r = 0; r < 3; ++r) {
    x = (x * 0x9E3779B1u) & mask;
    x ^= x >> shift;
  }
  return x;
}

void sog_palette_groups(uint32_t n, uint32_t entries, uint32_t *label, uint32_t *first) {
  /* a permutation of [0, n) (the scramble of the next power of two, walked until it lands below
   * n), cut into `entries` equal runs: the groups */
  uint32_t bits = 1;
  while (bits < 32 && (1ull << bits) < n) ++bits;
  for (uint32_t e = 0; e < entries; ++e) first[e] = UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t p = i;
    do p = scramble(p, bits);
    while (p >= n);
    label[i] = (uint32_t)((uint64_t)p * entries / n);
    if (first[label[i]] == UINT32_MAX) first[label[i]] = i;
  }
}

/* The SH palette (see sog_writer.h) as centroids + labels. */
static int write_shn(enc *e, sog_output *out, char *err, size_t n) {
  const splat_scene *s = e->s;
  const uint32_t stride = s->sh_coeffs * 3, nrest = s->sh_coeffs - 1;
  const uint32_t cap = e->o->palette_max ? e->o->palette_max : 65536;
  const uint32_t entries = e->n < cap ? e->n : cap;
  /* palette entry k: the SH rest of splat first[k]; splat i takes entry label[i] */
  uint32_t *label = malloc((size_t)e->n * sizeof(uint32_t)), *first = malloc((size_t)entries * sizeof(uint32_t));
  float *pal = malloc((size_t)entries * nrest * 3 * sizeof(float));
  if (pal == NULL || label == NULL || first == NULL) {
    free(label), free(first), free(pal);
    return fail(err, n, "sog_writer: out of memory");
  }
  if (entries < e->n) {
    sog_palette_groups(e->n, entries, label, first);
  } else {
    for (uint32_t i = 0; i < e->n; ++i) label[i] = first[i] = i;
  }
  for (uint32_t k = 0; k < entries; ++k) {
    const float *src = s->sh + (size_t)first[k] * stride + 3;
    for (uint32_t j = 0; j < nrest * 3; ++j)
      pal[(size_t)k * nrest * 3 + j] = e->version == 2 ? src[j] : (float)clampd(src[j], -6.0, 6.0);
  }
  const uint32_t cw = 64 * nrest, ch = (entries + 63) / 64;
  uint8_t *cen = calloc((size_t)cw * ch, 4);
  if (cen == NULL) {
    free(pal), free(label), free(first);
    return fail(err, n, "sog_writer: out of memory");
  }
  cbook cb;
  cbook_fit(&cb, pal, (size_t)entries * nrest * 3, 1, 1);
  for (uint32_t k = 0; k < entries; ++k)
    for (uint32_t j = 0; j < nrest; ++j) {
      uint8_t *t = cen + ((size_t)(k / 64) * cw + (size_t)(k % 64) * nrest + j) * 4;
      for (int c = 0; c < 3; ++c) {
        double v = pal[((size_t)k * nrest + j) * 3 + c];
        t[c] = e->version == 2 ? cbook_index(&cb, v) : round_byte(v, cb.lo, cb.hi);
      }
      t[3] = 255;
    }
  free(pal);
  free(first);
  int rc = add_image(out, e->pre, "shN_centroids.webp", cen, cw, ch, err, n);
  free(cen);
  if (rc != 0) {
    free(label);
    return -1;
  }
  image_clear(e);
  for (uint32_t i = 0; i < e->n; ++i) {
    e->img[i * 4] = (uint8_t)(label[i] & 0xff);
    e->img[i * 4 + 1] = (uint8_t)(label[i] >> 8);
    e->img[i * 4 + 3] = 255;
  }
  free(label);
  if (e->version == 2) {
    tprintf(&e->meta, ",\"shN\":{\"count\":%u,\"bands\":%u,", entries, s->sh_degree);
    put_codebook(&e->meta, cb.v);
  } else {
    tprintf(&e->meta, ",\"shN\":{\"shape\":[%u,%u],\"dtype\":\"float32\",\"mins\":%.17g,\"maxs\":%.17g,"
                      "\"quantization\":8", e->n, nrest * 3, cb.lo, cb.hi);
  }
  tprintf(&e->meta, ",\"files\":[\"%sshN_centroids.webp\",\"%sshN_labels.webp\"]}", e->pre, e->pre);
  return add_image(out, e->pre, "shN_labels.webp", e->img, e->w, e->h, err, n);
}

int sog_write(const splat_scene *s, const sog_write_options *o, sog_output *out, char *err, size_t err_size) {
  static const sog_write_options defaults = {0};
  memset(out, 0, sizeof *out);
  if (o == NULL) o = &defaults;
  enc e = {.s = s, .o = o, .n = s ? s->count : 0, .version = o->version ? o->version : 2,
           .pre = o->prefix ? o->prefix : ""};
  if (s == NULL || s->count == 0) return fail(err, err_size, "sog_writer: no splats");
  if (e.version != 1 && e.version != 2) return fail(err, err_size, "sog_writer: version %u", e.version);
  if (e.version == 2) {
    e.w = (uint32_t)(ceil(sqrt((double)e.n) / 4.0) * 4.0);
    e.h = (uint32_t)(ceil((double)e.n / e.w / 4.0) * 4.0);
  } else {
    e.w = e.h = (uint32_t)sqrt((double)e.n);
    while ((uint64_t)e.w * e.w > e.n) --e.w, --e.h;
    while ((uint64_t)(e.w + 1) * (e.w + 1) <= e.n) ++e.w, ++e.h;
    if ((uint64_t)e.w * e.h != e.n)
      return fail(err, err_size, "sog_writer: version 1 needs a square count (the sogs tool crops), not %u", e.n);
  }
  if (e.w > 16383 || e.h > 16383) return fail(err, err_size, "sog_writer: %u splats exceed WebP's 16383 texels", e.n);
  e.texels = (size_t)e.w * e.h;
  e.img = malloc(e.texels * 4);
  if (e.img == NULL) return fail(err, err_size, "sog_writer: out of memory");
  out->count = 1; /* meta.json's place */
  if (e.version == 2) {
    tprintf(&e.meta, "{\"version\":2,\"asset\":{\"generator\":\"splatsort tests/sog_writer\"},\"count\":%u,", e.n);
    if (o->model) tprintf(&e.meta, "\"model\":\"%s\",", o->model);
  } else {
    tprintf(&e.meta, "{");
  }
  int rc = write_means(&e, out, err, err_size);
  if (rc == 0) rc = write_scales(&e, out, err, err_size);
  if (rc == 0) rc = write_quats(&e, out, err, err_size);
  if (rc == 0) rc = write_sh0(&e, out, err, err_size);
  if (rc == 0 && s->sh_degree > 0) rc = write_shn(&e, out, err, err_size);
  tprintf(&e.meta, "}");
  free(e.img);
  if (rc == 0 && e.meta.oom) rc = fail(err, err_size, "sog_writer: out of memory");
  snprintf(out->blob[0].name, sizeof out->blob[0].name, "meta.json");
  out->blob[0].data = (uint8_t *)e.meta.s;
  out->blob[0].size = e.meta.len;
  if (rc != 0) sog_output_free(out);
  return rc;
}

sog_blob *sog_output_find(sog_output *out, const char *name) {
  for (uint32_t i = 0; i < out->count; ++i)
    if (strcmp(out->blob[i].name, name) == 0) return &out->blob[i];
  return NULL;
}

void sog_output_free(sog_output *out) {
  for (uint32_t i = 0; i < out->count; ++i) free(out->blob[i].data);
  memset(out, 0, sizeof *out);
}

int sog_save_file(const char *path, const void *data, size_t size, char *err, size_t err_size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return fail(err, err_size, "%s: cannot create: %s", path, strerror(errno));
  bool ok = fwrite(data, 1, size, f) == size;
  ok &= fclose(f) == 0;
  return ok ? 0 : fail(err, err_size, "%s: write failed: %s", path, strerror(errno));
}

int sog_load_file(const char *path, uint8_t **data, size_t *size) {
  *data = NULL;
  *size = 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  size_t cap = 1 << 16, n = 0;
  uint8_t *b = malloc(cap + 1);
  for (size_t got; b != NULL && (got = fread(b + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *c = realloc(b, 2 * cap + 1);
      if (c == NULL) free(b);
      b = c, cap *= 2;
    }
  }
  bool ok = b != NULL && !ferror(f);
  fclose(f);
  if (!ok) {
    free(b);
    return -1;
  }
  b[n] = 0;
  *data = b;
  *size = n;
  return 0;
}

int sog_output_save(const sog_output *out, const char *dir, char *err, size_t err_size) {
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) return fail(err, err_size, "%s: cannot create: %s", dir, strerror(errno));
  for (uint32_t i = 0; i < out->count; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, out->blob[i].name);
    /* a prefix with folders: make them */
    for (char *sl = strchr(path + strlen(dir) + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
      *sl = '\0';
      if (mkdir(path, 0755) != 0 && errno != EEXIST) return fail(err, err_size, "%s: cannot create: %s", path, strerror(errno));
      *sl = '/';
    }
    if (sog_save_file(path, out->blob[i].data, out->blob[i].size, err, err_size) != 0) return -1;
  }
  return 0;
}

/* ---- the bundle ----------------------------------------------------------------------------- */

static void le16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void le32(uint8_t *p, uint32_t v) { le16(p, v & 0xffff), le16(p + 2, v >> 16); }

/* Raw deflate of a blob (malloc'd), or NULL. */
static uint8_t *deflate_raw(const uint8_t *src, size_t n, size_t *out_size) {
  z_stream s;
  memset(&s, 0, sizeof s);
  if (deflateInit2(&s, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
  size_t cap = deflateBound(&s, (uLong)n);
  uint8_t *buf = malloc(cap);
  s.next_in = (Bytef *)(uintptr_t)src;
  s.avail_in = (uInt)n;
  s.next_out = buf;
  s.avail_out = (uInt)cap;
  int zr = buf ? deflate(&s, Z_FINISH) : Z_MEM_ERROR;
  *out_size = s.total_out;
  deflateEnd(&s);
  if (zr != Z_STREAM_END) {
    free(buf);
    return NULL;
  }
  return buf;
}

uint8_t *sog_output_zip(const sog_output *out, bool deflate, size_t *size) {
  /* images first, meta.json last, as splat-transform writes them */
  uint32_t order[8], n = 0;
  for (uint32_t i = 1; i < out->count; ++i) order[n++] = i;
  order[n++] = 0;
  uint8_t *packed[8] = {0};
  size_t csize[8], total = 22;
  uint32_t crc[8];
  for (uint32_t k = 0; k < n; ++k) {
    const sog_blob *b = &out->blob[order[k]];
    crc[k] = (uint32_t)crc32(crc32(0L, Z_NULL, 0), b->data, (uInt)b->size);
    csize[k] = b->size;
    if (deflate && (packed[k] = deflate_raw(b->data, b->size, &csize[k])) == NULL) {
      for (uint32_t j = 0; j < k; ++j) free(packed[j]);
      return NULL;
    }
    total += 30 + 16 + 46 + 2 * strlen(b->name) + csize[k];
  }
  uint8_t *z = calloc(1, total), *p = z;
  uint32_t offset[8];
  const uint32_t flags = 0x8 | 0x800, method = deflate ? 8 : 0, dos_date = (1 << 5) | 1; /* 1980-01-01 */
  for (uint32_t k = 0; z && k < n; ++k) {
    const sog_blob *b = &out->blob[order[k]];
    size_t nl = strlen(b->name);
    offset[k] = (uint32_t)(p - z);
    le32(p, 0x04034b50u), le16(p + 4, 20), le16(p + 6, flags), le16(p + 8, method), le16(p + 12, dos_date);
    le16(p + 26, (uint32_t)nl); /* crc and sizes follow the data, in the descriptor */
    memcpy(p + 30, b->name, nl);
    p += 30 + nl;
    memcpy(p, packed[k] ? packed[k] : b->data, csize[k]);
    p += csize[k];
    le32(p, 0x08074b50u), le32(p + 4, crc[k]), le32(p + 8, (uint32_t)csize[k]), le32(p + 12, (uint32_t)b->size);
    p += 16;
  }
  uint8_t *cd = p;
  for (uint32_t k = 0; z && k < n; ++k) {
    const sog_blob *b = &out->blob[order[k]];
    size_t nl = strlen(b->name);
    le32(p, 0x02014b50u), le16(p + 4, 20), le16(p + 6, 20), le16(p + 8, flags), le16(p + 10, method);
    le16(p + 14, dos_date), le32(p + 16, crc[k]), le32(p + 20, (uint32_t)csize[k]), le32(p + 24, (uint32_t)b->size);
    le16(p + 28, (uint32_t)nl), le32(p + 42, offset[k]);
    memcpy(p + 46, b->name, nl);
    p += 46 + nl;
  }
  if (z) {
    le32(p, 0x06054b50u), le16(p + 8, n), le16(p + 10, n);
    le32(p + 12, (uint32_t)(p - cd)), le32(p + 16, (uint32_t)(cd - z));
    p += 22;
    *size = (size_t)(p - z);
  }
  for (uint32_t k = 0; k < n; ++k) free(packed[k]);
  return z;
}
