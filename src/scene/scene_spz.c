/* scene_spz.c: Niantic's .spz format (github.com/nianticlabs/spz): a reader for every version
 * that library reads and a version-4 writer with its quantisation.
 *
 * The layout, as the format's README and its reference library define it (all little-endian):
 *   versions 1-3: one gzip stream holding a 16-byte header (u32 magic "NGSP", u32 version,
 *     u32 count, u8 SH degree, u8 fractional bits, u8 flags, u8 reserved), then each attribute
 *     for all splats in turn: positions, alphas, colours, scales, rotations, SH; then extension
 *     records when flags has 0x2. (The reference also reads version 4 in this layout.)
 *   version 4: a plain 32-byte header (magic, version, count, u8 SH degree, u8 fractional
 *     bits, u8 flags, u8 stream count, u32 offset of the table of contents, 12 reserved bytes),
 *     extension records up to that offset, the table (per stream: u64 compressed size, u64
 *     uncompressed size), then one ZSTD stream per attribute in the order above, an empty one
 *     (SH at degree 0) left out.
 * Per splat: position 3 x 24-bit signed fixed point with the header's fractional bits (version
 * 1: 3 half floats); alpha one byte, sigmoid(opacity) * 255; colour 3 bytes, f_dc * 0.15 * 255
 * + 127.5 (0.15, not SH_C0, so that colours a little outside [0, 1] survive); scale 3 bytes,
 * (log scale + 10) * 16; rotation (x, y, z, w) as 3 bytes x, y, z at q * 127.5 + 127.5 with
 * w >= 0 derived (versions 1-2), or 4 bytes "smallest three" (3 and 4): the index of the largest
 * component in the top 2 bits, then for the other three in index order a sign bit and 9 bits
 * of |q_i| / sqrt(1/2), the largest taken positive and derived; SH: (count of coefficients
 * beyond DC) x 3 channels, channel fastest, one byte each at x * 128 + 128, rounded by the
 * writer to multiples of 8 (degree 1: 5 bits) or 16 (degrees 2-3: 4 bits).
 *
 * Coordinates. splat_scene holds 3DGS .ply coordinates: x right, y down, z forward (the
 * training cameras' convention; "RDF" in the spz library). The .spz format stores x right, y
 * up, z back ("RUB", OpenGL's and three.js's convention, as its README says), and its library
 * converts on save and load when the caller names the two systems. RDF and RUB differ by a half
 * turn about x, so both reading and writing negate y and z of each position, the y and z parts
 * of each rotation quaternion (w, x, -y, -z: the same half turn applied to the orientation) and
 * the SH coefficients of the basis functions that are odd in y and z together; the conversion is
 * its own inverse, so .ply -> .spz -> load gives the scene back up to quantisation, and files
 * written to the format's convention (the spz library with its coordinate options, PDAL, ...)
 * load upright. A file whose writer skipped the conversion (the spz library's own ply_to_spz
 * tool passes UNSPECIFIED, which stores the .ply axes unchanged) loads upside down, as in any
 * viewer that follows the format (splatview's U key turns the view). The SPZ_ADOBE_coordinate_
 * system extension record names another storage system: the eight that differ from ours by
 * axis flips (LDB..RUF) are converted; the eight rotated ones (LFD..RBU, a quarter turn about x
 * and, for SH, a mix of coefficients within each band) are refused with a message.
 *
 * Reading streams the decompressed bytes through a small buffer straight into the scene's
 * arrays, so memory is the scene plus the file. Sizes come from the header; counts are bounded
 * by the file size before anything is allocated: version 4 as the reference library bounds
 * them (at most 1024 bytes of positions per byte of file), versions 1-3 by deflate's largest
 * ratio (1032:1). Neither bound is tight (a ZSTD run-length block makes 128 KiB of 4 bytes), so
 * the memory a file asks for is held to the load's budget, and a claim of more than
 * SPZ_TRUST_RATIO decompressed bytes a compressed byte, far beyond what real scenes reach (2-4),
 * is checked by decompressing into a small buffer, counting, before anything is allocated for it:
 * a bomb is refused after a pass at decompression speed, without its memory. A ZSTD frame's
 * window is held to zstd's default limit, 2^SPZ_ZSTD_WINDOW_LOG, whatever the library's build
 * says: the window is touched only as far as data comes, so it costs no more than the data. */
#include "scene_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define SPZ_MAGIC 0x5053474eu /* "NGSP" */
#define SPZ_COLOR_SCALE 0.15
#define SPZ_SQRT1_2 0.70710678118654752440
#define SPZ_EXT_COORDINATE_SYSTEM 0xADBE0003u /* SPZ_ADOBE_coordinate_system: u32 system */
#define SPZ_ZSTD_LEVEL 12                     /* the reference library's */
#define SPZ_ZSTD_WINDOW_LOG 27                /* 128 MiB: zstd's default limit (level 22 writes 2^27) */
#define SPZ_TRUST_RATIO 16                    /* decompressed bytes a compressed byte believed unread */

enum {
  SPZ_LEGACY_HEADER = 16,
  SPZ_HEADER = 32,
  SPZ_FLAG_ANTIALIASED = 0x1,
  SPZ_FLAG_EXTENSIONS = 0x2,
  SPZ_CHUNK = 1024,            /* splats decoded per read: a chunk's SH (192 KB) stays in cache */
  SPZ_MAX_EXTENSIONS = 1 << 16 /* legacy trailing extension bytes looked at */
};

enum spz_attr { A_POSITION, A_ALPHA, A_COLOR, A_SCALE, A_ROTATION, A_SH, A_COUNT };
static const char *const attr_name[A_COUNT] = {"positions", "alphas", "colours", "scales", "rotations", "SH"};

/* For SH basis function k = 1..15 (3DGS order), its parity in x, y and z: the sign it takes
 * when those axes flip is the product of the flipped axes' parities. */
static const uint8_t sh_parity[15][3] = {
    {0, 1, 0}, {0, 0, 1}, {1, 0, 0},                                  /* y, z, x */
    {1, 1, 0}, {0, 1, 1}, {0, 0, 0}, {1, 0, 1}, {0, 0, 0},            /* xy, yz, 3z^2-1, xz, x^2-y^2 */
    {0, 1, 0}, {1, 1, 1}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 0, 1}, {1, 0, 0}, /* degree 3 */
};

/* What a file holds and how to turn it into ours. */
typedef struct spz_layout {
  uint32_t version, count, degree, fractional_bits, flags;
  uint32_t sh_dim;        /* SH coefficients per channel beyond DC: 0, 3, 8, 15 */
  size_t bytes[A_COUNT];  /* bytes a splat in each attribute */
  float flip[3];          /* stored axis -> ours: +1 or -1 for x, y, z */
} spz_layout;

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }
static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)v);
  put32(p + 4, (uint32_t)(v >> 32));
}

/* Flips between our axes and the stored ones (the same both ways): rotation xyz parts, SH. */
static void flip_q(const float f[3], float fq[3]) {
  fq[0] = f[1] * f[2];
  fq[1] = f[0] * f[2];
  fq[2] = f[0] * f[1];
}
static void flip_sh(const float f[3], float fsh[15]) {
  for (int k = 0; k < 15; ++k) {
    float s = 1.0f;
    for (int c = 0; c < 3; ++c)
      if (sh_parity[k][c]) s *= f[c];
    fsh[k] = s;
  }
}

/* The flips from a coordinate system of the spz library's enumeration to ours (RDF): values 1..8
 * are LDB, RDB, LUB, RUB, LDF, RDF, LUF, RUF, whose bits 0..2 (of value - 1) say right, up and
 * front. Returns false for the rotated systems. */
static bool coordinate_flips(uint32_t system, float f[3]) {
  if (system == 0) system = 4; /* UNSPECIFIED: the library falls back to RUB */
  if (system < 1 || system > 8) return false;
  uint32_t b = system - 1;
  f[0] = (b & 1) ? 1.0f : -1.0f;  /* right */
  f[1] = (b & 2) ? -1.0f : 1.0f;  /* up, ours is down */
  f[2] = (b & 4) ? 1.0f : -1.0f;  /* front */
  return true;
}

/* Walks extension records ([u32 type][u32 length][payload], back to back) for the coordinate
 * system. As the reference library does, a record cut short ends the walk, and unknown types
 * and system values it does not know (above 16) are skipped. */
static int read_extensions(const uint8_t *p, size_t n, spz_layout *L, const scene_error *e) {
  while (n >= 8) {
    uint32_t type = le32(p), len = le32(p + 4);
    if (len > n - 8) break;
    if (type == SPZ_EXT_COORDINATE_SYSTEM && len >= 4) {
      uint32_t system = le32(p + 8);
      if (system >= 9 && system <= 16)
        return scene_fail(e, "its coordinate-system extension names a rotated system (%u of the spz "
                             "library's list, LFD..RBU), which this loader does not convert", system);
      if (system <= 8) coordinate_flips(system, L->flip);
    }
    p += 8 + (size_t)len;
    n -= 8 + (size_t)len;
  }
  return 0;
}

/* The checks both layouts share, and the per-splat sizes. */
static int layout_init(spz_layout *L, uint32_t version, uint32_t count, uint32_t degree, uint32_t fb,
                       uint32_t flags, const scene_error *e) {
  memset(L, 0, sizeof *L);
  if (version < 1 || version > 4)
    return scene_fail(e, "unsupported .spz version %u (versions 1 to 4 are read)", version);
  if (count == 0) return scene_fail(e, "no splats (the header's count is 0)");
  if (degree > SPLAT_SCENE_MAX_SH_DEGREE)
    return scene_fail(e, "SH degree %u is not supported (0 to %d are read)", degree, SPLAT_SCENE_MAX_SH_DEGREE);
  *L = (spz_layout){.version = version, .count = count, .degree = degree, .fractional_bits = fb, .flags = flags,
                    .sh_dim = (degree + 1) * (degree + 1) - 1};
  L->bytes[A_POSITION] = version == 1 ? 6 : 9;
  L->bytes[A_ALPHA] = 1;
  L->bytes[A_COLOR] = 3;
  L->bytes[A_SCALE] = 3;
  L->bytes[A_ROTATION] = version >= 3 ? 4 : 3;
  L->bytes[A_SH] = (size_t)L->sh_dim * 3;
  coordinate_flips(4, L->flip); /* RUB unless an extension says otherwise */
  return 0;
}

static size_t layout_splat_bytes(const spz_layout *L) {
  size_t n = 0;
  for (int a = 0; a < A_COUNT; ++a) n += L->bytes[a];
  return n;
}

/* ---- decompressed bytes, from one gzip stream or one ZSTD stream ---------------------- */

typedef struct spz_src {
  const char *what;           /* for messages: "the gzip data", "stream 2 (colours)" */
  bool zstd;
  z_stream z;                 /* gzip */
  const uint8_t *z_next;      /* gzip input not yet handed to zlib (avail_in is 32-bit) */
  size_t z_left;
  bool z_end;
  ZSTD_DStream *zs;           /* zstd */
  ZSTD_inBuffer in;
  size_t z_last;              /* what ZSTD_decompressStream last returned: 0 at a frame's end */
  uint64_t produced;          /* bytes decompressed so far */
  uint64_t expect;            /* bytes the header says the stream holds */
} spz_src;

static int src_gzip(spz_src *s, const uint8_t *data, size_t size, const scene_error *e) {
  memset(s, 0, sizeof *s);
  s->what = "the gzip data";
  s->z_next = data;
  s->z_left = size;
  /* 16 + MAX_WBITS: gzip only, as the reference reads it */
  if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) return scene_fail(e, "out of memory for zlib");
  return 0;
}

static int src_zstd(spz_src *s, const char *what, const uint8_t *data, size_t size, const scene_error *e) {
  memset(s, 0, sizeof *s);
  s->what = what;
  s->zstd = true;
  s->in = (ZSTD_inBuffer){data, size, 0};
  s->z_last = 1;
  s->zs = ZSTD_createDStream();
  if (s->zs == NULL) return scene_fail(e, "out of memory for zstd");
  ZSTD_initDStream(s->zs);
  ZSTD_DCtx_setParameter(s->zs, ZSTD_d_windowLogMax, SPZ_ZSTD_WINDOW_LOG);
  return 0;
}

static void src_free(spz_src *s) {
  if (s->zstd)
    ZSTD_freeDStream(s->zs);
  else
    inflateEnd(&s->z);
  memset(s, 0, sizeof *s);
}

/* One step of decompression into [out, out + cap): how many bytes came, or -1 with the message.
 * *stuck: nothing came and no input was used, i.e. the input is used up. */
static int64_t src_step(spz_src *s, uint8_t *out, size_t cap, bool *stuck, const scene_error *e) {
  *stuck = false;
  if (s->zstd) {
    ZSTD_outBuffer o = {out, cap, 0};
    size_t in_before = s->in.pos;
    size_t r = ZSTD_decompressStream(s->zs, &o, &s->in);
    if (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
      return scene_fail(e, "%s: its zstd frame asks for a window of more than %d MiB (limit %d MiB)", s->what,
                        1 << (SPZ_ZSTD_WINDOW_LOG - 20), 1 << (SPZ_ZSTD_WINDOW_LOG - 20));
    if (ZSTD_isError(r)) return scene_fail(e, "%s: corrupt zstd data (%s)", s->what, ZSTD_getErrorName(r));
    *stuck = o.pos == 0 && s->in.pos == in_before;
    if (!*stuck) s->z_last = r; /* with no input left after a frame it hints at the next header */
    s->produced += o.pos;
    return (int64_t)o.pos;
  }
  if (s->z_end) {
    *stuck = true;
    return 0;
  }
  if (s->z.avail_in == 0 && s->z_left > 0) {
    uInt n = s->z_left > UINT_MAX ? UINT_MAX : (uInt)s->z_left;
    s->z.next_in = (Bytef *)(uintptr_t)s->z_next; /* zlib does not write through it */
    s->z.avail_in = n;
    s->z_next += n;
    s->z_left -= n;
  }
  uInt c = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
  s->z.next_out = out;
  s->z.avail_out = c;
  uInt in_before = s->z.avail_in;
  int r = inflate(&s->z, Z_NO_FLUSH);
  size_t got = c - s->z.avail_out;
  s->produced += got;
  if (r == Z_STREAM_END) {
    s->z_end = true;
  } else if (r == Z_MEM_ERROR) {
    return scene_fail(e, "out of memory in zlib");
  } else if (r != Z_OK && r != Z_BUF_ERROR) {
    return scene_fail(e, "%s: corrupt gzip data (zlib: %s)", s->what, s->z.msg ? s->z.msg : zError(r));
  }
  *stuck = got == 0 && s->z.avail_in == in_before && s->z_left == 0;
  return (int64_t)got;
}

/* Exactly n bytes into dst; running short is an error that says whether the stream was cut
 * (truncated file) or ended cleanly too soon (a count that does not match). */
static int src_read(spz_src *s, uint8_t *dst, size_t n, const scene_error *e) {
  size_t got = 0;
  while (got < n) {
    bool stuck;
    int64_t r = src_step(s, dst + got, n - got, &stuck, e);
    if (r < 0) return -1;
    got += (size_t)r;
    if (stuck && got < n) {
      bool ended = s->zstd ? s->z_last == 0 : s->z_end;
      if (ended)
        return scene_fail(e, "%s ends after %llu bytes, but the header's count needs %llu", s->what,
                          (unsigned long long)s->produced, (unsigned long long)s->expect);
      return scene_fail(e, "%s: truncated (the compressed data ends after %llu of %llu bytes)", s->what,
                        (unsigned long long)s->produced, (unsigned long long)s->expect);
    }
  }
  return 0;
}

/* As src_read, n bytes through a small buffer and dropped: a pass that only counts. */
static int src_skip(spz_src *s, uint64_t n, const scene_error *e) {
  uint8_t scratch[1 << 14]; /* small: a host pool's threads may have small stacks */
  for (uint64_t done = 0; done < n;) {
    size_t piece = n - done < sizeof scratch ? (size_t)(n - done) : sizeof scratch;
    if (src_read(s, scratch, piece, e) != 0) return -1;
    done += piece;
  }
  return 0;
}

/* Reads the stream to its end, which must be whole (a gzip or zstd frame cut short is an
 * error), into keep (keep_cap bytes, may be 0). *extra: the bytes that came after what was
 * read; above keep_cap it stops early (the caller refuses the file), so a hostile stream cannot
 * make it decompress for long. */
static int src_drain(spz_src *s, uint8_t *keep, size_t keep_cap, uint64_t *extra, const scene_error *e) {
  uint64_t start = s->produced;
  uint8_t scratch[256];
  for (;;) {
    if (s->zstd ? (s->z_last == 0 && s->in.pos == s->in.size) : s->z_end) break;
    size_t kept = (size_t)(s->produced - start);
    if (kept > keep_cap) break;
    bool into_keep = kept < keep_cap;
    uint8_t *out = into_keep ? keep + kept : scratch;
    size_t cap = into_keep ? keep_cap - kept : sizeof scratch;
    bool stuck;
    if (src_step(s, out, cap, &stuck, e) < 0) return -1;
    if (stuck) return scene_fail(e, "%s: truncated (its compressed data ends inside a frame)", s->what);
  }
  *extra = s->produced - start;
  return 0;
}

/* ---- attributes to the scene ----------------------------------------------------------------- */

/* Per-byte values, made once a load. */
typedef struct spz_luts {
  float scale[256], alpha[256], color[256], sh[256];
  float flip_q[3], flip_sh[15];
  float step; /* 2^-fractional_bits */
} spz_luts;

static void luts_init(spz_luts *t, const spz_layout *L) {
  for (int b = 0; b < 256; ++b) {
    t->scale[b] = (float)exp(b / 16.0 - 10.0);
    t->alpha[b] = (float)(b / 255.0);
    t->color[b] = (float)((b / 255.0 - 0.5) / SPZ_COLOR_SCALE);
    t->sh[b] = (float)((b - 128) / 128.0);
  }
  flip_q(L->flip, t->flip_q);
  flip_sh(L->flip, t->flip_sh);
  t->step = ldexpf(1.0f, -(int)(L->fractional_bits > 200 ? 200 : L->fractional_bits));
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (ex == 0) {
    float v = ldexpf((float)man, -24);
    return sign ? -v : v;
  }
  bits = sign | (ex == 31 ? 0x7f800000u | man << 13 : (ex + 112) << 23 | man << 13);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Writes x, y, z, w (stored axes) as our w, x, y, z, flipped and normalised. */
static void put_rotation(float *dst, const double q[4], const float fq[3]) {
  double x = q[0] * fq[0], y = q[1] * fq[1], z = q[2] * fq[2], w = q[3];
  double inv = 1.0 / sqrt(w * w + x * x + y * y + z * z); /* > 0: see the decoders */
  dst[0] = (float)(w * inv), dst[1] = (float)(x * inv), dst[2] = (float)(y * inv), dst[3] = (float)(z * inv);
}

/* Decodes splats [i0, i0 + n) of one attribute from b. */
static void decode(enum spz_attr a, const spz_layout *L, const spz_luts *t, const uint8_t *b, uint32_t i0, uint32_t n,
                   splat_scene *s) {
  const uint32_t coeffs = s->sh_coeffs;
  switch (a) {
  case A_POSITION: {
    float *p = s->positions + (size_t)i0 * 3;
    for (uint32_t j = 0; j < n * 3; ++j) {
      if (L->version == 1) {
        p[j] = half_to_float((uint16_t)(b[2 * j] | b[2 * j + 1] << 8)) * L->flip[j % 3];
      } else {
        uint32_t u = (uint32_t)b[3 * j] | (uint32_t)b[3 * j + 1] << 8 | (uint32_t)b[3 * j + 2] << 16;
        int32_t v = (int32_t)(u ^ 0x800000u) - 0x800000; /* sign-extend 24 bits */
        p[j] = (float)v * t->step * L->flip[j % 3];
      }
    }
    break;
  }
  case A_ALPHA:
    for (uint32_t j = 0; j < n; ++j) s->opacities[i0 + j] = t->alpha[b[j]];
    break;
  case A_COLOR:
    for (uint32_t j = 0; j < n; ++j)
      for (int c = 0; c < 3; ++c) s->sh[((size_t)(i0 + j) * coeffs) * 3 + c] = t->color[b[3 * j + c]];
    break;
  case A_SCALE:
    for (uint32_t j = 0; j < n * 3; ++j) s->scales[(size_t)i0 * 3 + j] = t->scale[b[j]];
    break;
  case A_ROTATION:
    for (uint32_t j = 0; j < n; ++j) {
      /* in double: the derived component is sqrt(1 - |others|^2), which float rounding of a
       * sum near 1 would move by much more than its own precision */
      double q[4];
      if (L->version >= 3) {
        const uint8_t *r = b + 4 * j;
        uint32_t comp = le32(r), largest = comp >> 30;
        double sum = 0.0;
        for (int k = 3; k >= 0; --k) {
          if ((uint32_t)k == largest) continue;
          double v = SPZ_SQRT1_2 * (double)(comp & 511u) / 511.0;
          q[k] = (comp >> 9) & 1u ? -v : v;
          sum += v * v;
          comp >>= 10;
        }
        /* a hostile file's three can exceed 1; the largest is then 0 and the others nonzero */
        q[largest] = sqrt(fmax(0.0, 1.0 - sum));
      } else {
        const uint8_t *r = b + 3 * j;
        double sum = 0.0;
        for (int k = 0; k < 3; ++k) {
          q[k] = r[k] / 127.5 - 1.0;
          sum += q[k] * q[k];
        }
        q[3] = sqrt(fmax(0.0, 1.0 - sum)); /* 0 only when |xyz| >= 1 */
      }
      put_rotation(s->rotations + (size_t)(i0 + j) * 4, q, t->flip_q);
    }
    break;
  case A_SH:
    for (uint32_t j = 0; j < n; ++j) {
      float *dst = s->sh + ((size_t)(i0 + j) * coeffs + 1) * 3;
      const uint8_t *src = b + (size_t)j * L->sh_dim * 3;
      for (uint32_t k = 0; k < L->sh_dim; ++k)
        for (int c = 0; c < 3; ++c) dst[k * 3 + c] = t->sh[src[k * 3 + c]] * t->flip_sh[k];
    }
    break;
  case A_COUNT:
    break;
  }
}

/* All splats of attribute a from the stream, SPZ_CHUNK at a time through buf. */
static int read_attr(spz_src *src, enum spz_attr a, const spz_layout *L, const spz_luts *t, uint8_t *buf,
                     splat_scene *s, const scene_error *e) {
  for (uint32_t i0 = 0; i0 < L->count; i0 += SPZ_CHUNK) {
    uint32_t n = L->count - i0 < SPZ_CHUNK ? L->count - i0 : SPZ_CHUNK;
    if (src_read(src, buf, (size_t)n * L->bytes[a], e) != 0) return -1;
    decode(a, L, t, buf, i0, n, s);
  }
  return 0;
}

/* Version 1's half-float positions can be infinite or NaN: such splats are dropped (scene.h's
 * policy), the rest keep their order. Every other value .spz can hold is finite. Compacts
 * splats [first, first + n) into the slots from `first` on; returns how many are kept. */
static uint32_t drop_nonfinite(splat_scene *s, uint32_t first, uint32_t n) {
  const size_t nsh = (size_t)s->sh_coeffs * 3;
  uint32_t kept = first;
  for (uint32_t i = first; i < first + n; ++i) {
    if (!scene_all_finite(s->positions + (size_t)i * 3, 3)) continue;
    if (kept != i) {
      memcpy(s->positions + (size_t)kept * 3, s->positions + (size_t)i * 3, 3 * sizeof(float));
      memcpy(s->scales + (size_t)kept * 3, s->scales + (size_t)i * 3, 3 * sizeof(float));
      memcpy(s->rotations + (size_t)kept * 4, s->rotations + (size_t)i * 4, 4 * sizeof(float));
      s->opacities[kept] = s->opacities[i];
      memcpy(s->sh + (size_t)kept * nsh, s->sh + (size_t)i * nsh, nsh * sizeof(float));
    }
    ++kept;
  }
  return kept - first;
}

/* The scene for L, its flags, and a chunk buffer; on failure nothing stays allocated. */
static int begin_scene(const spz_layout *L, splat_scene *out, uint8_t **buf, const scene_error *e) {
  *buf = malloc(layout_splat_bytes(L) * SPZ_CHUNK); /* room for a chunk of every attribute */
  if (*buf == NULL) return scene_fail(e, "out of memory for the read buffer");
  if (scene_alloc(out, L->count, L->degree, e) != 0) {
    free(*buf);
    *buf = NULL;
    return -1;
  }
  out->flags = (L->flags & SPZ_FLAG_ANTIALIASED) ? SPLAT_SCENE_ANTIALIASED : 0;
  /* progress: the decode phase starts at 0 (scene_finish reports its end); nonzero: cancelled */
  if (scene_report(e, "decode", 0, L->count) != 0) {
    free(*buf);
    *buf = NULL;
    splat_scene_free(out);
    return -1;
  }
  return 0;
}

static int end_scene(const spz_layout *L, splat_scene *out, uint8_t *buf, int rc, const scene_error *e) {
  free(buf);
  if (rc != 0) {
    splat_scene_free(out);
    return -1;
  }
  uint32_t kept = L->version == 1 ? drop_nonfinite(out, 0, L->count) : L->count;
  return scene_finish(out, kept, L->count, e);
}

/* ---- in parallel: every attribute decompressed whole, then ranges of splats dequantised ------- */

/* The quantised attributes of every splat, an array each (raw[a]: count * L->bytes[a] bytes). */
typedef struct spz_raw {
  const spz_layout *L;
  const spz_luts *t;
  uint8_t *raw[A_COUNT];
} spz_raw;

static void raw_free(spz_raw *q) {
  for (int a = 0; a < A_COUNT; ++a) free(q->raw[a]);
  memset(q->raw, 0, sizeof q->raw);
}

static int raw_alloc(spz_raw *q, const spz_layout *L, const scene_error *e) {
  memset(q, 0, sizeof *q);
  q->L = L;
  for (int a = 0; a < A_COUNT; ++a) {
    size_t bytes = (size_t)L->count * L->bytes[a];
    if (bytes > 0 && (q->raw[a] = scene_malloc_large(bytes)) == NULL) {
      raw_free(q);
      return scene_fail(e, "out of memory for the decompressed %s (%zu bytes)", attr_name[a], bytes);
    }
  }
  return 0;
}

/* Splats [r->first, r->first + r->n), SPZ_CHUNK at a time through every attribute, so that each
 * chunk's SH lines are written while in cache; into slots from r->first on. */
static int dequantise_range(void *ctx, uint32_t index, scene_range *r, splat_scene *s, scene_job *j,
                            const scene_error *te) {
  (void)index, (void)j, (void)te;
  const spz_raw *q = ctx;
  const spz_layout *L = q->L;
  uint32_t first = (uint32_t)r->first, end = (uint32_t)(r->first + r->n);
  for (uint32_t i0 = first; i0 < end; i0 += SPZ_CHUNK) {
    uint32_t n = end - i0 < SPZ_CHUNK ? end - i0 : SPZ_CHUNK;
    for (int a = 0; a < A_COUNT; ++a)
      if (L->bytes[a] > 0) decode((enum spz_attr)a, L, q->t, q->raw[a] + (size_t)i0 * L->bytes[a], i0, n, s);
  }
  r->kept = L->version == 1 ? drop_nonfinite(s, first, (uint32_t)r->n) : r->n;
  return 0;
}

/* Dequantises q into out (begun by begin_scene) in ranges and finishes it; frees out on failure. */
static int dequantise(spz_raw *q, splat_scene *out, const scene_error *e) {
  uint32_t count = q->L->count, nranges, kept = 0;
  scene_range *ranges = scene_split(count, e, &nranges);
  int rc = ranges == NULL ? -1
                          : scene_decode_ranges(out, count, ranges, nranges, dequantise_range, q, e, &kept);
  free(ranges);
  if (rc != 0) {
    splat_scene_free(out);
    return -1;
  }
  return scene_finish(out, kept, count, e);
}

/* ---- versions 1-3: one gzip stream ---------------------------------------------------------- */

/* What follows the splats in the gzip stream: extension records when the flags say so (their
 * coordinate system goes into L->flip), nothing otherwise. */
static int read_trailer(spz_src *src, spz_layout *L, const scene_error *e) {
  uint8_t *ext = NULL;
  uint64_t extra = 0;
  int rc = 0;
  if ((L->flags & SPZ_FLAG_EXTENSIONS) && !(ext = malloc(SPZ_MAX_EXTENSIONS)))
    rc = scene_fail(e, "out of memory for the extensions");
  if (rc == 0) rc = src_drain(src, ext, ext ? SPZ_MAX_EXTENSIONS : 0, &extra, e);
  if (rc == 0 && extra > 0 && ext == NULL)
    rc = scene_fail(e, "more data after the %u splats the header counts (the count does not match the data)",
                    L->count);
  if (rc == 0 && extra > SPZ_MAX_EXTENSIONS)
    rc = scene_fail(e, "more than %d bytes of extension records after the splat data", SPZ_MAX_EXTENSIONS);
  if (rc == 0 && ext != NULL) rc = read_extensions(ext, (size_t)extra, L, e);
  free(ext);
  return rc;
}

/* Versions 1-3 in parallel. Inflate is sequential (a deflate stream does not say where its
 * blocks start, and each may refer back 32 KiB), so the attributes are inflated whole on this
 * thread, then the extensions read (their flips go straight into the tables: a sign flip is
 * exact, so the result is the serial path's bit for bit), then ranges of splats dequantised in
 * parallel. Consumes src and buf; frees out on failure. */
static int legacy_parallel(spz_src *src, spz_layout *L, splat_scene *out, uint8_t *buf, const scene_error *e) {
  free(buf);
  spz_raw q;
  int rc = raw_alloc(&q, L, e);
  for (int a = 0; a < A_COUNT && rc == 0; ++a)
    if (L->bytes[a] > 0) rc = src_read(src, q.raw[a], (size_t)L->count * L->bytes[a], e);
  if (rc == 0) rc = read_trailer(src, L, e);
  src_free(src);
  if (rc != 0) {
    raw_free(&q);
    splat_scene_free(out);
    return -1;
  }
  spz_luts t;
  luts_init(&t, L);
  q.t = &t;
  rc = dequantise(&q, out, e);
  raw_free(&q);
  return rc;
}

/* The load's memory, held to its budget before anything is allocated: the arrays, and the
 * decompressed attributes that the parallel path keeps (counted on every path, so that the
 * message does not depend on the thread count). */
static int check_budget(const spz_layout *L, const scene_error *e) {
  if (scene_count_check(e, L->count) != 0) return -1; /* before any stream is inflated */
  uint64_t need = scene_array_bytes(L->count, L->degree) + (uint64_t)L->count * layout_splat_bytes(L);
  return scene_budget_check(e, need, "header: %u splats at SH degree %u (arrays and decompressed attributes)",
                            L->count, L->degree);
}

/* A gzip file that claims more than SPZ_TRUST_RATIO bytes a compressed byte: inflated once,
 * counting, with the errors of a real read, before its memory is allocated. */
static int check_gzip(const uint8_t *data, size_t size, const spz_layout *L, uint64_t need, const scene_error *e) {
  spz_src src;
  if (src_gzip(&src, data, size, e) != 0) return -1;
  src.expect = SPZ_LEGACY_HEADER + need;
  spz_layout copy = *L;
  int rc = src_skip(&src, SPZ_LEGACY_HEADER + need, e);
  if (rc == 0) rc = read_trailer(&src, &copy, e);
  src_free(&src);
  return rc;
}

static int load_legacy(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e) {
  spz_src src;
  if (src_gzip(&src, data, size, e) != 0) return -1;
  uint8_t h[SPZ_LEGACY_HEADER];
  spz_layout L;
  src.expect = sizeof h;
  int rc = src_read(&src, h, sizeof h, e);
  if (rc == 0 && le32(h) != SPZ_MAGIC)
    rc = scene_fail(e, "gzip data, but not a .spz file: it does not start with the NGSP header");
  if (rc == 0) rc = layout_init(&L, le32(h + 4), le32(h + 8), h[12], h[13], h[14], e);
  /* deflate cannot expand one byte into more than 1032: bounds the count before allocating */
  uint64_t need = rc == 0 ? (uint64_t)L.count * layout_splat_bytes(&L) : 0;
  if (rc == 0 && need > (uint64_t)size * 1032u)
    rc = scene_fail(e, "the header says %u splats (%llu bytes), more than %zu bytes of gzip data can hold", L.count,
                    (unsigned long long)need, size);
  src.expect = sizeof h + need;
  if (rc == 0) rc = check_budget(&L, e);
  if (rc == 0 && need / SPZ_TRUST_RATIO > size) rc = check_gzip(data, size, &L, need, e);
  uint8_t *buf = NULL;
  if (rc == 0) rc = begin_scene(&L, out, &buf, e);
  if (rc != 0) {
    src_free(&src);
    return -1;
  }
  if (scene_parallel(e)) return legacy_parallel(&src, &L, out, buf, e);
  spz_luts t;
  luts_init(&t, &L);
  /* extensions come after the data, but may change how the data is read: the positions, rotations
   * and SH are flipped afterwards if they do (the flips are their own inverse) */
  for (int a = 0; a < A_COUNT && rc == 0; ++a)
    if (L.bytes[a] > 0) rc = read_attr(&src, (enum spz_attr)a, &L, &t, buf, out, e);
  spz_layout stored = L;
  if (rc == 0) rc = read_trailer(&src, &L, e);
  if (rc == 0 && memcmp(stored.flip, L.flip, sizeof L.flip) != 0) {
    /* undo the default conversion and apply the named one: the product of the two flips */
    float f[3];
    for (int c = 0; c < 3; ++c) f[c] = stored.flip[c] * L.flip[c];
    float fq[3], fsh[15];
    flip_q(f, fq);
    flip_sh(f, fsh);
    for (uint32_t i = 0; i < L.count; ++i) {
      for (int c = 0; c < 3; ++c) out->positions[(size_t)i * 3 + c] *= f[c];
      for (int c = 0; c < 3; ++c) out->rotations[(size_t)i * 4 + 1 + c] *= fq[c];
      float *sh = out->sh + ((size_t)i * out->sh_coeffs + 1) * 3;
      for (uint32_t k = 0; k < L.sh_dim; ++k)
        for (int c = 0; c < 3; ++c) sh[k * 3 + c] *= fsh[k];
    }
  }
  src_free(&src);
  return end_scene(&L, out, buf, rc, e);
}

/* ---- version 4: a plain header, a table of contents, one ZSTD stream per attribute ---------- */

/* Version 4's streams in the file, for v4_parallel. */
typedef struct spz_streams {
  const spz_layout *L;
  const uint8_t *d;
  const size_t *at, *csize; /* each stream's byte in the file and compressed size */
  spz_raw q;
} spz_streams;

/* Stream k decompressed whole into dst, or with dst NULL only counted; it must hold exactly what
 * its table entry says. */
static int read_stream(const spz_streams *st, uint32_t k, uint8_t *dst, const scene_error *te) {
  char what[32];
  snprintf(what, sizeof what, "stream %u (%s)", k, attr_name[k]);
  spz_src src;
  if (src_zstd(&src, what, st->d + st->at[k], st->csize[k], te) != 0) return -1;
  src.expect = (uint64_t)st->L->count * st->L->bytes[k];
  uint64_t extra = 0;
  int rc = dst ? src_read(&src, dst, (size_t)src.expect, te) : src_skip(&src, src.expect, te);
  if (rc == 0) rc = src_drain(&src, NULL, 0, &extra, te);
  if (rc == 0 && extra > 0)
    rc = scene_fail(te, "%s holds more than the %llu bytes its table entry says", what, (unsigned long long)src.expect);
  src_free(&src);
  return rc;
}

static int inflate_stream(scene_job *j, void *arg, uint32_t k, const scene_error *te) {
  (void)j;
  spz_streams *st = arg;
  return read_stream(st, k, st->q.raw[k], te);
}

/* A stream that claims more than SPZ_TRUST_RATIO bytes a compressed byte, counted before it is
 * believed: the same errors as reading it, without its memory. */
static int check_stream(scene_job *j, void *arg, uint32_t k, const scene_error *te) {
  (void)j;
  const spz_streams *st = arg;
  uint64_t expect = (uint64_t)st->L->count * st->L->bytes[k];
  return expect / SPZ_TRUST_RATIO > st->csize[k] ? read_stream(st, k, NULL, te) : 0;
}

/* Version 4 in parallel: the streams decompressed one a task (the first failing one in stream
 * order is the error), then ranges of splats dequantised. Frees out on failure. */
static int v4_parallel(spz_streams *st, const spz_luts *t, splat_scene *out, const scene_error *e) {
  const spz_layout *L = st->L;
  uint32_t nstreams = L->sh_dim > 0 ? A_COUNT : A_COUNT - 1;
  int rc = raw_alloc(&st->q, L, e);
  if (rc == 0) rc = scene_run(e, NULL, 0, nstreams, inflate_stream, st);
  if (rc != 0) {
    raw_free(&st->q);
    splat_scene_free(out);
    return -1;
  }
  st->q.t = t;
  rc = dequantise(&st->q, out, e);
  raw_free(&st->q);
  return rc;
}

static int load_v4(const uint8_t *d, size_t size, splat_scene *out, const scene_error *e) {
  if (size < SPZ_HEADER)
    return scene_fail(e, "truncated: %zu bytes, less than the %d-byte header", size, SPZ_HEADER);
  uint32_t version = le32(d + 4), toc = le32(d + 16);
  uint32_t nstreams = d[15];
  if (version >= 1 && version <= 3)
    return scene_fail(e, "a plain NGSP header with version %u: versions 1 to 3 are gzip files", version);
  spz_layout L;
  if (layout_init(&L, version, le32(d + 8), d[12], d[13], d[14], e) != 0) return -1;
  /* the reference library's bound: no more splats than 1024 bytes of positions a file byte */
  if ((uint64_t)L.count > (uint64_t)size * 1024u / 9u)
    return scene_fail(e, "the header says %u splats, more than a %zu-byte file can hold", L.count, size);
  if (toc < SPZ_HEADER)
    return scene_fail(e, "table of contents at byte %u, inside the %d-byte header", toc, SPZ_HEADER);
  uint32_t want = L.sh_dim > 0 ? A_COUNT : A_COUNT - 1;
  if (nstreams != want)
    return scene_fail(e, "%u streams, but SH degree %u needs %u (positions, alphas, colours, scales, rotations%s)",
                      nstreams, L.degree, want, L.sh_dim > 0 ? ", SH" : "");
  uint64_t body = (uint64_t)toc + (uint64_t)nstreams * 16u;
  if (body > size)
    return scene_fail(e, "truncated: the table of contents (bytes %u to %llu) runs past the end (%zu bytes)", toc,
                      (unsigned long long)body, size);
  if ((L.flags & SPZ_FLAG_EXTENSIONS) && read_extensions(d + SPZ_HEADER, toc - SPZ_HEADER, &L, e) != 0) return -1;

  size_t at[A_COUNT] = {0}, csize[A_COUNT] = {0};
  size_t offset = (size_t)body;
  for (uint32_t k = 0; k < nstreams; ++k) {
    const uint8_t *entry = d + toc + (size_t)k * 16;
    uint64_t cs = le64(entry), us = le64(entry + 8), need = (uint64_t)L.count * L.bytes[k];
    if (us != need)
      return scene_fail(e, "stream %u (%s) holds %llu bytes, but %u splats need %llu", k, attr_name[k],
                        (unsigned long long)us, L.count, (unsigned long long)need);
    if (cs > size - offset)
      return scene_fail(e, "truncated: stream %u (%s, %llu bytes at byte %zu) runs past the end (%zu bytes)", k,
                        attr_name[k], (unsigned long long)cs, offset, size);
    unsigned long long fcs = ZSTD_getFrameContentSize(d + offset, (size_t)cs);
    if (fcs == ZSTD_CONTENTSIZE_ERROR)
      return scene_fail(e, "stream %u (%s) is not zstd data", k, attr_name[k]);
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs > need) /* a further frame may follow a smaller one */
      return scene_fail(e, "stream %u (%s): its zstd frame holds %llu bytes, but %u splats need %llu", k,
                        attr_name[k], fcs, L.count, (unsigned long long)need);
    at[k] = offset;
    csize[k] = (size_t)cs;
    offset += (size_t)cs;
  }
  if (offset != size)
    return scene_fail(e, "%zu bytes after the last stream (the table of contents does not match the file)",
                      size - offset);

  spz_streams st = {&L, d, at, csize};
  if (check_budget(&L, e) != 0 || scene_run(e, NULL, 0, nstreams, check_stream, &st) != 0) return -1;
  uint8_t *buf;
  if (begin_scene(&L, out, &buf, e) != 0) return -1;
  spz_luts t;
  luts_init(&t, &L);
  if (scene_parallel(e)) {
    free(buf);
    return v4_parallel(&st, &t, out, e);
  }
  int rc = 0;
  spz_src src[A_COUNT];
  char what[A_COUNT][32];
  size_t off[A_COUNT];
  uint32_t made = 0;
  for (uint32_t k = 0; k < nstreams && rc == 0; ++k, ++made) {
    snprintf(what[k], sizeof what[k], "stream %u (%s)", k, attr_name[k]);
    rc = src_zstd(&src[k], what[k], d + at[k], csize[k], e);
    src[k].expect = (uint64_t)L.count * L.bytes[k];
    off[k] = k == 0 ? 0 : off[k - 1] + L.bytes[k - 1] * SPZ_CHUNK;
  }
  /* The streams in step, a chunk of splats at a time, so that each array is written once while
   * its lines are in cache: stream by stream, the colour pass and the SH pass would each walk
   * the whole SH array (most of the scene's memory). */
  for (uint32_t i0 = 0; i0 < L.count && rc == 0; i0 += SPZ_CHUNK) {
    uint32_t n = L.count - i0 < SPZ_CHUNK ? L.count - i0 : SPZ_CHUNK;
    for (uint32_t k = 0; k < nstreams && rc == 0; ++k) {
      rc = src_read(&src[k], buf + off[k], (size_t)n * L.bytes[k], e);
      if (rc == 0) decode((enum spz_attr)k, &L, &t, buf + off[k], i0, n, out);
    }
  }
  for (uint32_t k = 0; k < nstreams && rc == 0; ++k) {
    uint64_t extra = 0;
    rc = src_drain(&src[k], NULL, 0, &extra, e);
    if (rc == 0 && extra > 0)
      rc = scene_fail(e, "%s holds more than the %llu bytes its table entry says", what[k],
                      (unsigned long long)src[k].expect);
  }
  for (uint32_t k = 0; k < made; ++k) src_free(&src[k]);
  return end_scene(&L, out, buf, rc, e);
}

bool scene_is_spz(const uint8_t *d, size_t size) {
  return (size >= 2 && d[0] == 0x1f && d[1] == 0x8b) || (size >= 4 && le32(d) == SPZ_MAGIC);
}

int scene_load_spz(const uint8_t *d, size_t size, splat_scene *out, const scene_error *e) {
  if (size >= 4 && le32(d) == SPZ_MAGIC) return load_v4(d, size, out, e);
  if (size >= 2 && d[0] == 0x1f && d[1] == 0x8b) return load_legacy(d, size, out, e);
  return scene_fail(e, "not a .spz file: it starts with neither the NGSP header (version 4) nor gzip (1 to 3)");
}

/* ---- writer ------------------------------------------------------------------------------ */

/* round(x) clamped to a byte; NaN gives 0 */
static uint8_t q8(double x) {
  if (!(x > 0.0)) return 0;
  if (x >= 255.0) return 255;
  return (uint8_t)(x + 0.5);
}

/* The reference's SH quantisation: to 8 bits, then to the centre of a bucket of 2^(8-bits)
 * (zero stays exactly representable). */
static uint8_t quantise_sh(float x, int bucket) {
  double v = isnan(x) ? 0.0 : fmin(2.0, fmax(-2.0, (double)x));
  int q = (int)round(v * 128.0) + 128;
  q = (q + bucket / 2) / bucket * bucket;
  return (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
}

/* Our w, x, y, z as the smallest-three word, in the stored axes. */
static uint32_t pack_rotation(const float *r, const float fq[3]) {
  double q[4] = {r[1] * fq[0], r[2] * fq[1], r[3] * fq[2], r[0]}; /* x, y, z, w */
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] /= n;
  uint32_t largest = 0;
  for (uint32_t i = 1; i < 4; ++i)
    if (fabs(q[i]) > fabs(q[largest])) largest = i;
  /* q and -q are the same rotation: the largest is stored positive, so no sign is needed */
  bool negate = q[largest] < 0.0;
  uint32_t comp = largest;
  for (uint32_t i = 0; i < 4; ++i) {
    if (i == largest) continue;
    uint32_t sign = (q[i] < 0.0) != negate;
    double m = 511.0 * fabs(q[i]) / SPZ_SQRT1_2 + 0.5;
    uint32_t mag = m >= 511.0 ? 511u : (uint32_t)m;
    comp = comp << 10 | sign << 9 | mag;
  }
  return comp;
}

/* The six attribute streams of a scene, stored axes, reference quantisation. */
typedef struct spz_packed {
  uint8_t *stream[A_COUNT];
  size_t size[A_COUNT];
  uint32_t fractional_bits;
} spz_packed;

static void packed_free(spz_packed *p) {
  for (int a = 0; a < A_COUNT; ++a) free(p->stream[a]);
  memset(p, 0, sizeof *p);
}

/* 12 fractional bits as the reference (1/4096 m), fewer when the scene is too large for 24 bits. */
static int choose_fractional_bits(const splat_scene *s, uint32_t *fb, const scene_error *e) {
  double most = 0.0;
  for (size_t i = 0; i < (size_t)s->count * 3; ++i) {
    double v = fabs((double)s->positions[i]);
    if (!isfinite(v)) return scene_fail(e, "splat %zu: position is not finite", i / 3);
    most = v > most ? v : most;
  }
  for (int b = 12; b >= 0; --b)
    if (round(ldexp(most, b)) <= 8388607.0) {
      *fb = (uint32_t)b;
      return 0;
    }
  return scene_fail(e, "a position of %g is too far from the origin for .spz's 24-bit fixed point (at most 8388607)",
                    most);
}

static int pack(const splat_scene *s, spz_packed *p, const scene_error *e) {
  memset(p, 0, sizeof *p);
  const uint32_t n = s->count, coeffs = s->sh_coeffs, sh_dim = coeffs - 1;
  const size_t per[A_COUNT] = {9, 1, 3, 3, 4, (size_t)sh_dim * 3};
  if (choose_fractional_bits(s, &p->fractional_bits, e) != 0) return -1;
  for (int a = 0; a < A_COUNT; ++a) {
    p->size[a] = (size_t)n * per[a];
    if (p->size[a] > 0 && !(p->stream[a] = malloc(p->size[a]))) {
      packed_free(p);
      return scene_fail(e, "out of memory packing %u splats", n);
    }
  }
  float f[3], fq[3], fsh[15];
  coordinate_flips(4, f); /* ours -> RUB: the same flips as RUB -> ours */
  flip_q(f, fq);
  flip_sh(f, fsh);
  const double unit = ldexp(1.0, (int)p->fractional_bits);
  for (uint32_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      /* two's complement, kept to 24 bits: within +-8388607 by choose_fractional_bits */
      uint32_t v = (uint32_t)(int32_t)round((double)s->positions[(size_t)i * 3 + c] * f[c] * unit);
      uint8_t *dst = p->stream[A_POSITION] + ((size_t)i * 3 + c) * 3;
      dst[0] = (uint8_t)v, dst[1] = (uint8_t)(v >> 8), dst[2] = (uint8_t)(v >> 16);
    }
    p->stream[A_ALPHA][i] = q8((double)s->opacities[i] * 255.0);
    const float *sh = s->sh + (size_t)i * coeffs * 3;
    for (int c = 0; c < 3; ++c) {
      p->stream[A_COLOR][(size_t)i * 3 + c] = q8(sh[c] * (SPZ_COLOR_SCALE * 255.0) + 127.5);
      double sc = s->scales[(size_t)i * 3 + c];
      p->stream[A_SCALE][(size_t)i * 3 + c] = sc > 0.0 ? q8((log(sc) + 10.0) * 16.0) : 0;
    }
    const float *r = s->rotations + (size_t)i * 4;
    if (!scene_all_finite(r, 4) || r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3] < 1e-30f) {
      packed_free(p);
      return scene_fail(e, "splat %u: the rotation is not a finite nonzero quaternion", i);
    }
    put32(p->stream[A_ROTATION] + (size_t)i * 4, pack_rotation(r, fq));
    for (uint32_t k = 0; k < sh_dim; ++k)
      for (int c = 0; c < 3; ++c)
        p->stream[A_SH][((size_t)i * sh_dim + k) * 3 + c] = quantise_sh(sh[(k + 1) * 3 + c] * fsh[k], k < 3 ? 8 : 16);
  }
  return 0;
}

int splat_scene_write_spz(const char *path, const splat_scene *scene, char *err, size_t err_size) {
  scene_error e = {path ? path : "<null>", err, err_size};
  if (err != NULL && err_size > 0) err[0] = '\0';
  if (path == NULL) return scene_fail(&e, "no path given");
  if (scene == NULL || scene->count == 0 || !scene->positions || !scene->scales || !scene->rotations ||
      !scene->opacities || !scene->sh)
    return scene_fail(&e, "cannot write an empty or incomplete scene");
  uint32_t d = scene->sh_degree;
  if (d > SPLAT_SCENE_MAX_SH_DEGREE || scene->sh_coeffs != (d + 1) * (d + 1))
    return scene_fail(&e, "invalid scene: SH degree %u with %u coefficients", d, scene->sh_coeffs);

  spz_packed p;
  if (pack(scene, &p, &e) != 0) return -1;
  uint8_t head[SPZ_HEADER + A_COUNT * 16] = {0};
  uint32_t nstreams = p.size[A_SH] > 0 ? A_COUNT : A_COUNT - 1;
  put32(head, SPZ_MAGIC);
  put32(head + 4, 4);
  put32(head + 8, scene->count);
  head[12] = (uint8_t)d;
  head[13] = (uint8_t)p.fractional_bits;
  head[14] = (scene->flags & SPLAT_SCENE_ANTIALIASED) ? SPZ_FLAG_ANTIALIASED : 0;
  head[15] = (uint8_t)nstreams;
  put32(head + 16, SPZ_HEADER); /* table of contents right after the header; 12 reserved bytes stay 0 */

  uint8_t *z[A_COUNT] = {0};
  size_t zsize[A_COUNT] = {0};
  int rc = 0;
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  if (cctx == NULL) rc = scene_fail(&e, "out of memory for zstd");
  for (uint32_t k = 0; k < nstreams && rc == 0; ++k) {
    size_t bound = ZSTD_compressBound(p.size[k]);
    if (!(z[k] = malloc(bound))) {
      rc = scene_fail(&e, "out of memory compressing %s (%zu bytes)", attr_name[k], bound);
      break;
    }
    zsize[k] = ZSTD_compressCCtx(cctx, z[k], bound, p.stream[k], p.size[k], SPZ_ZSTD_LEVEL);
    if (ZSTD_isError(zsize[k])) rc = scene_fail(&e, "zstd failed on %s: %s", attr_name[k], ZSTD_getErrorName(zsize[k]));
    put64(head + SPZ_HEADER + k * 16, zsize[k]);
    put64(head + SPZ_HEADER + k * 16 + 8, p.size[k]);
  }
  ZSTD_freeCCtx(cctx);
  packed_free(&p);

  scene_out out;
  if (rc == 0 && scene_out_open(&out, path, &e) == 0) {
    FILE *f = out.f;
    bool ok = fwrite(head, 1, SPZ_HEADER + nstreams * 16, f) == SPZ_HEADER + nstreams * 16;
    for (uint32_t k = 0; k < nstreams && ok; ++k) ok = fwrite(z[k], 1, zsize[k], f) == zsize[k];
    if (ok) {
      rc = scene_out_close(&out, &e);
    } else {
      rc = scene_fail(&e, "write failed: %s", strerror(errno));
      scene_out_discard(&out);
    }
  } else {
    rc = -1;
  }
  for (int k = 0; k < A_COUNT; ++k) free(z[k]);
  return rc;
}
