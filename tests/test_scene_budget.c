/* test_scene_budget: the hostile files of issue 25 (decompression bombs, counts and image sizes
 * that a tiny file claims) are refused quickly, with one line naming the file, and within a
 * bounded peak memory; splat_load_options.max_memory refuses a normal scene below its need and
 * the default loads it. Each load runs in a forked child, so that its peak RSS is its own.
 *   test_scene_budget <scratch dir> [asset .ply] */
#include "check.h"
#include "splat_scene.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <webp/encode.h>
#include <zlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0 /* under ASan the shadow memory and quarantine change RSS and time: messages only */
#endif

static const char *dir;

/* ---- files ------------------------------------------------------------------------------------ */

typedef struct buf {
  uint8_t *p;
  size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->p = realloc(b->p, b->cap);
    if (b->p == NULL) abort();
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void put8(buf *b, uint8_t v) { put(b, &v, 1); }
static void put16(buf *b, uint16_t v) { put8(b, (uint8_t)v), put8(b, (uint8_t)(v >> 8)); }
static void put32(buf *b, uint32_t v) { put16(b, (uint16_t)v), put16(b, (uint16_t)(v >> 16)); }
static void put64(buf *b, uint64_t v) { put32(b, (uint32_t)v), put32(b, (uint32_t)(v >> 32)); }

static char *path_of(const char *name) {
  static char p[4][1024];
  static int k;
  char *s = p[k++ & 3];
  snprintf(s, sizeof p[0], "%s/%s", dir, name);
  return s;
}

static void save(const char *path, const buf *b) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(b->p, 1, b->n, f) != b->n || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    exit(1);
  }
}

/* Raw deflate data that inflates to `mib` MiB of zeros, made without deflating them: one MiB
 * compressed once and ended with a sync flush (byte-aligned, not final, referring back only
 * within itself), repeated, then an empty final block. */
static void deflate_zeros(buf *out, uint32_t mib) {
  static uint8_t zeros[1 << 20], piece[1 << 16], tail[64];
  z_stream s;
  memset(&s, 0, sizeof s);
  if (deflateInit2(&s, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) abort();
  s.next_in = zeros, s.avail_in = sizeof zeros, s.next_out = piece, s.avail_out = sizeof piece;
  if (deflate(&s, Z_SYNC_FLUSH) != Z_OK || s.avail_in != 0) abort();
  size_t n = sizeof piece - s.avail_out;
  s.next_out = tail, s.avail_out = sizeof tail;
  if (deflate(&s, Z_FINISH) != Z_STREAM_END) abort();
  size_t t = sizeof tail - s.avail_out;
  deflateEnd(&s);
  for (uint32_t k = 0; k < mib; ++k) put(out, piece, n);
  put(out, tail, t);
}

/* A zip archive of entries given as (name, method, data, stated uncompressed size). */
typedef struct zip_entry {
  const char *name;
  uint16_t method;
  const buf *data;
  uint32_t usize, crc;
} zip_entry;

static void zip(buf *z, const zip_entry *e, int n) {
  uint32_t off[8];
  for (int i = 0; i < n; ++i) {
    off[i] = (uint32_t)z->n;
    put32(z, 0x04034b50u), put16(z, 20), put16(z, 0), put16(z, e[i].method), put32(z, 0);
    put32(z, e[i].crc), put32(z, (uint32_t)e[i].data->n), put32(z, e[i].usize);
    put16(z, (uint16_t)strlen(e[i].name)), put16(z, 0), put(z, e[i].name, strlen(e[i].name));
    put(z, e[i].data->p, e[i].data->n);
  }
  uint32_t cd = (uint32_t)z->n;
  for (int i = 0; i < n; ++i) {
    put32(z, 0x02014b50u), put16(z, 20), put16(z, 20), put16(z, 0), put16(z, e[i].method), put32(z, 0);
    put32(z, e[i].crc), put32(z, (uint32_t)e[i].data->n), put32(z, e[i].usize);
    put16(z, (uint16_t)strlen(e[i].name)), put16(z, 0), put16(z, 0), put16(z, 0), put16(z, 0), put32(z, 0);
    put32(z, off[i]), put(z, e[i].name, strlen(e[i].name));
  }
  uint32_t cd_size = (uint32_t)z->n - cd;
  put32(z, 0x06054b50u), put16(z, 0), put16(z, 0), put16(z, (uint16_t)n), put16(z, (uint16_t)n);
  put32(z, cd_size), put32(z, cd), put16(z, 0);
}

/* A version-2 meta.json of `count` splats at SH degree 0, its images named as the writers do. */
static void meta_json(buf *b, uint32_t count) {
  char head[256];
  int n = snprintf(head, sizeof head,
                   "{\"version\":2,\"count\":%u,\"means\":{\"mins\":[-1,-1,-1],\"maxs\":[1,1,1],"
                   "\"files\":[\"means_l.webp\",\"means_u.webp\"]},\"quats\":{\"files\":[\"quats.webp\"]},",
                   count);
  put(b, head, (size_t)n);
  const char *part[2] = {"\"scales\":{\"files\":[\"scales.webp\"],\"codebook\":[", "\"sh0\":{\"files\":[\"sh0.webp\"],\"codebook\":["};
  for (int k = 0; k < 2; ++k) {
    put(b, part[k], strlen(part[k]));
    for (int i = 0; i < 256; ++i) {
      char v[32];
      int m = snprintf(v, sizeof v, "%s%.4f", i ? "," : "", -2.0 + i / 64.0);
      put(b, v, (size_t)m);
    }
    put(b, k == 0 ? "]}," : "]}}", 3);
  }
}

static uint32_t crc_of(const buf *b) { return (uint32_t)crc32(crc32(0L, Z_NULL, 0), b->p, (uInt)b->n); }

/* The 4.2 MB .sog whose image inflates from zeros to 4 GB: refused at its header. */
static size_t make_sog_zero_bomb(const char *path, uint32_t mib) {
  buf meta = {0}, img = {0}, z = {0};
  meta_json(&meta, 1000);
  deflate_zeros(&img, mib);
  zip_entry e[] = {{"meta.json", 0, &meta, (uint32_t)meta.n, crc_of(&meta)},
                   {"means_l.webp", 8, &img, mib << 20, 0}};
  zip(&z, e, 2);
  save(path, &z);
  free(meta.p), free(img.p), free(z.p);
  return z.n;
}

/* A 1 MB .sog whose meta.json inflates to 1 GiB: refused as stated, before inflating. */
static size_t make_sog_meta_bomb(const char *path, uint32_t mib) {
  buf meta = {0}, z = {0};
  deflate_zeros(&meta, mib);
  zip_entry e[] = {{"meta.json", 8, &meta, mib << 20, 0}};
  zip(&z, e, 1);
  save(path, &z);
  free(meta.p), free(z.p);
  return z.n;
}

/* Five 8192 x 8192 lossless WebP images of one colour (a few hundred bytes each) in a bundle
 * whose meta.json claims the 16.7M splats that such images may hold. */
static size_t make_sog_big_images(const char *path) {
  const int side = 8192;
  uint8_t *rgba = calloc((size_t)side * side, 4);
  WebPConfig cfg;
  WebPPicture pic;
  WebPMemoryWriter w;
  if (rgba == NULL || !WebPConfigInit(&cfg) || !WebPPictureInit(&pic)) abort();
  cfg.lossless = 1, cfg.method = 0, cfg.quality = 0;
  pic.use_argb = 1, pic.width = side, pic.height = side;
  WebPMemoryWriterInit(&w);
  pic.writer = WebPMemoryWrite, pic.custom_ptr = &w;
  if (!WebPPictureImportRGBA(&pic, rgba, side * 4) || !WebPEncode(&cfg, &pic)) abort();
  WebPPictureFree(&pic);
  free(rgba);
  buf meta = {0}, img = {w.mem, w.size, w.size}, z = {0};
  meta_json(&meta, (uint32_t)side * side / 4);
  uint32_t crc = crc_of(&img);
  zip_entry e[] = {{"meta.json", 0, &meta, (uint32_t)meta.n, crc_of(&meta)},
                   {"means_l.webp", 0, &img, (uint32_t)img.n, crc},
                   {"means_u.webp", 0, &img, (uint32_t)img.n, crc},
                   {"quats.webp", 0, &img, (uint32_t)img.n, crc},
                   {"scales.webp", 0, &img, (uint32_t)img.n, crc},
                   {"sh0.webp", 0, &img, (uint32_t)img.n, crc}};
  zip(&z, e, 6);
  save(path, &z);
  WebPMemoryWriterClear(&w);
  free(meta.p), free(z.p);
  return z.n;
}

/* A ZSTD frame of `bytes` bytes of `value` in run-length blocks (4 bytes per 128 KiB), without
 * a content size, asking for a window of 2^window_log. */
static void zstd_rle(buf *b, uint64_t bytes, uint8_t value, int window_log) {
  put32(b, 0xFD2FB528u);
  put8(b, 0x00);                               /* no content size, not single-segment, no checksum */
  put8(b, (uint8_t)((window_log - 10) << 3)); /* window descriptor */
  uint64_t left = bytes, block = (uint64_t)1 << (window_log < 17 ? window_log : 17);
  do {
    uint32_t n = (uint32_t)(left < block ? left : block);
    left -= n;
    uint32_t h = (left == 0 ? 1u : 0u) | 1u << 1 | n << 3; /* last, RLE, size */
    put8(b, (uint8_t)h), put8(b, (uint8_t)(h >> 8)), put8(b, (uint8_t)(h >> 16));
    put8(b, value);
  } while (left > 0);
}

/* A .spz version 4 of `count` splats at SH degree 3 whose streams are run-length blocks, the
 * header padded to `size` bytes so that the count passes the reference's bound; the SH stream
 * is one block short when `short_sh`, so the file is refused after all that data. */
static size_t make_spz_rle(const char *path, uint32_t count, size_t size, bool short_sh, int window_log) {
  static const size_t per[6] = {9, 1, 3, 3, 4, 45};
  buf streams[6] = {{0}}, f = {0};
  for (int k = 0; k < 6; ++k) {
    uint64_t n = (uint64_t)count * per[k];
    zstd_rle(&streams[k], k == 5 && short_sh ? n - (1u << 17) : n, k == 4 ? 0x00 : 0x80, window_log);
  }
  size_t data = 0;
  for (int k = 0; k < 6; ++k) data += streams[k].n;
  uint32_t toc = (uint32_t)(size > data + 32 + 96 ? size - data - 96 : 32);
  put32(&f, 0x5053474eu), put32(&f, 4), put32(&f, count);
  put8(&f, 3), put8(&f, 12), put8(&f, 0), put8(&f, 6), put32(&f, toc);
  while (f.n < toc) put8(&f, 0);
  for (int k = 0; k < 6; ++k) put64(&f, streams[k].n), put64(&f, (uint64_t)count * per[k]);
  for (int k = 0; k < 6; ++k) put(&f, streams[k].p, streams[k].n), free(streams[k].p);
  save(path, &f);
  free(f.p);
  return f.n;
}

/* The 1 MiB .spz version 4 that claims the 119M splats the reference's bound allows
 * (1024 bytes of positions a file byte), at SH degree 3 (28 GB of arrays), streams of noise. */
static size_t make_spz_count(const char *path, size_t size) {
  uint32_t count = (uint32_t)(size * 1024 / 9);
  static const size_t per[6] = {9, 1, 3, 3, 4, 45};
  buf f = {0};
  put32(&f, 0x5053474eu), put32(&f, 4), put32(&f, count);
  put8(&f, 3), put8(&f, 12), put8(&f, 0), put8(&f, 6), put32(&f, 32);
  while (f.n < 32) put8(&f, 0);
  size_t each = (size - 32 - 96) / 6;
  for (int k = 0; k < 6; ++k) put64(&f, k < 5 ? each : size - 32 - 96 - 5 * each), put64(&f, (uint64_t)count * per[k]);
  uint32_t x = 12345;
  for (int k = 0; k < 6; ++k) {
    put32(&f, 0xFD2FB528u); /* a frame header (no content size, a 1 MiB window), then noise */
    put8(&f, 0x00), put8(&f, 0x50);
    size_t n = (k < 5 ? each : size - 32 - 96 - 5 * each) - 6;
    for (size_t i = 0; i < n; ++i) put8(&f, (uint8_t)((x = x * 1103515245u + 12345u) >> 24));
  }
  save(path, &f);
  free(f.p);
  return f.n;
}

/* A gzip .spz (version 2, SH degree 0) whose header counts the splats of `mib` MiB of zeros
 * (19 bytes a splat, within deflate's 1032:1) and whose data is one MiB short: the serial
 * reader used to fill the scene's arrays before it ran out. */
static size_t make_spz_gzip_bomb(const char *path, uint32_t mib) {
  uint32_t count = (uint32_t)(((uint64_t)mib << 20) / 19);
  uint8_t head[16] = {'N', 'G', 'S', 'P', 2, 0, 0, 0};
  memcpy(head + 8, &count, 4); /* little-endian hosts only, as the loader */
  buf f = {0}, zeros = {0};
  static const uint8_t gz[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  put(&f, gz, sizeof gz);
  /* the header as a stored block, then the repeated MiB of zeros */
  put8(&f, 0), put16(&f, 16), put16(&f, (uint16_t)~16u), put(&f, head, 16);
  deflate_zeros(&zeros, mib - 1);
  put(&f, zeros.p, zeros.n);
  static uint8_t mib0[1 << 20];
  uLong one = crc32(0L, mib0, sizeof mib0), crc = crc32(0L, head, 16);
  for (uint32_t k = 0; k + 1 < mib; ++k) crc = crc32_combine(crc, one, sizeof mib0);
  put32(&f, (uint32_t)crc), put32(&f, (uint32_t)(16 + ((uint64_t)(mib - 1) << 20)));
  save(path, &f);
  free(f.p), free(zeros.p);
  return f.n;
}

/* A cameras.json of `mb` MB: an array of zeros, which was 20 million cJSON nodes at 40 MB. */
static size_t make_cameras_zeros(const char *path, size_t mb) {
  buf b = {0};
  put8(&b, '[');
  while (b.n < mb * 1000000) put(&b, "0,0,0,0,0,0,0,0,", 16);
  put(&b, "0]", 2);
  save(path, &b);
  free(b.p);
  return b.n;
}

/* ---- loads in a child --------------------------------------------------------------------------- */

enum load_kind { LOAD_SCENE, LOAD_SCENE_SERIAL, LOAD_CAMERAS };

typedef struct outcome {
  int rc;             /* the load's return value (0: loaded) */
  char msg[512];      /* its error line */
  long peak_kb;       /* the child's peak RSS */
  double seconds;     /* wall clock */
  double cpu;         /* the child's user + system time: what a load costs, whatever else runs */
  uint32_t count;     /* splats or cameras loaded */
} outcome;

static uint64_t child_max_splats; /* splat_load_options.max_splats of the next loads */

static outcome load_in_child(const char *path, enum load_kind kind, uint64_t max_memory) {
  outcome o = {0};
  int fd[2];
  if (pipe(fd) != 0) abort();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    outcome r = {0};
    if (kind == LOAD_CAMERAS) {
      splat_camera_desc *cams;
      r.rc = splat_cameras_load(path, &cams, &r.count, r.msg, sizeof r.msg);
      splat_cameras_free(cams);
    } else {
      splat_load_options opt = {.threads = kind == LOAD_SCENE_SERIAL ? 1 : 2, .max_memory = max_memory,
                                .max_splats = child_max_splats};
      splat_scene s;
      r.rc = splat_scene_load_ex2(path, &s, &opt, r.msg, sizeof r.msg);
      r.count = s.count;
      splat_scene_free(&s);
    }
    ssize_t w = write(fd[1], &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 3);
  }
  close(fd[1]);
  ssize_t got = read(fd[0], &o, sizeof o);
  close(fd[0]);
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) abort();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (got != (ssize_t)sizeof o || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    o.rc = -100;
    snprintf(o.msg, sizeof o.msg, "the child died (status %d)", status);
  }
  o.peak_kb = ru.ru_maxrss;
  o.cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  o.seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  return o;
}

static long base_kb; /* a child's peak before it loads anything */

/* A hostile file: refused with one line that names it and says `expect`, in under 2 s of CPU, within
 * max(256 MB, 4 x its size) above a child's base. */
static void hostile_at(const char *name, size_t size, enum load_kind kind, const char *expect, uint64_t max_memory) {
  const char *path = path_of(name);
  outcome o = load_in_child(path, kind, max_memory);
  long extra_kb = o.peak_kb - base_kb, limit_kb = (long)((size * 4 > (256u << 20) ? size * 4 : 256u << 20) >> 10);
  printf("%-28s %9zu bytes: rc %d, %.2f s (CPU %.2f s), peak %ld MB above base: %s\n", name, size, o.rc,
         o.seconds, o.cpu, extra_kb >> 10, o.msg);
  CHECK(o.rc == -1, "%s: rc %d, expected a refusal (-1)", name, o.rc);
  CHECK(strstr(o.msg, path) == o.msg, "%s: the message does not start with the path: %s", name, o.msg);
  CHECK(strstr(o.msg, expect) != NULL, "%s: the message does not say \"%s\": %s", name, expect, o.msg);
  CHECK(strchr(o.msg, '\n') == NULL, "%s: the message is not one line", name);
  if (!SANITIZED) {
    /* CPU time, not wall time: other jobs share the 2-core development machine */
    CHECK(o.cpu < 2.0, "%s: %.2f s of CPU to refuse (at most 2)", name, o.cpu);
    CHECK(extra_kb < limit_kb, "%s: peak %ld KB above base, limit %ld KB", name, extra_kb, limit_kb);
  }
}

static void hostile(const char *name, size_t size, enum load_kind kind, const char *expect) {
  hostile_at(name, size, kind, expect, 0);
}

/* The ceiling: a normal scene refused just below its arrays' size, loaded at the default and at
 * a ceiling it fits. */
static void ceiling(const char *asset) {
  splat_scene s = {0};
  char err[512];
  if (splat_scene_load(asset, &s, err, sizeof err) != 0) {
    CHECK(0, "%s", err);
    return;
  }
  uint64_t need = (uint64_t)s.count * (11 + 3 * s.sh_coeffs) * 4; /* 3+3+4+1 floats and the SH */
  printf("asset: %u splats, SH degree %u: %llu bytes of arrays\n", s.count, s.sh_degree, (unsigned long long)need);
  const char *spz = path_of("asset.spz");
  CHECK(splat_scene_write_spz(spz, &s, err, sizeof err) == 0, "%s", err);
  const char *paths[2] = {asset, spz};
  for (int k = 0; k < 2; ++k) {
    for (int serial = 0; serial < 2; ++serial) {
      enum load_kind kind = serial ? LOAD_SCENE_SERIAL : LOAD_SCENE;
      outcome d = load_in_child(paths[k], kind, 0);
      CHECK(d.rc == 0 && d.count == s.count, "%s (default ceiling): rc %d, %u splats: %s", paths[k], d.rc, d.count,
            d.msg);
      outcome big = load_in_child(paths[k], kind, need * 3);
      CHECK(big.rc == 0 && big.count == s.count, "%s (ceiling 3x its arrays): rc %d: %s", paths[k], big.rc, big.msg);
      outcome low = load_in_child(paths[k], kind, need - 1);
      printf("%s, ceiling %llu: %s\n", paths[k], (unsigned long long)(need - 1), low.msg);
      CHECK(low.rc == -1 && strstr(low.msg, paths[k]) == low.msg && strstr(low.msg, "(limit ") != NULL,
            "%s (ceiling one byte below its arrays): rc %d: %s", paths[k], low.rc, low.msg);
    }
  }
  splat_scene_free(&s);
}

/* Small forms of the same files for the fuzz targets' corpora (tests/fuzz/corpus/<target>), so
 * that mutations start from a bomb and, under -rss_limit_mb, one that gets through is a finding. */
static int seeds(const char *corpus) {
  char sub[1024];
  snprintf(sub, sizeof sub, "%s/sog", corpus);
  dir = sub;
  make_sog_zero_bomb(path_of("budget_zero_bomb.sog"), 64);
  make_sog_meta_bomb(path_of("budget_meta_bomb.sog"), 16);
  make_sog_big_images(path_of("budget_big_images.sog"));
  snprintf(sub, sizeof sub, "%s/spz", corpus);
  make_spz_rle(path_of("budget_rle_bomb.spz"), (uint32_t)(4096ull * 1024 / 9), 4096, true, 20);
  make_spz_count(path_of("budget_count_claim.spz"), 4096);
  make_spz_rle(path_of("budget_window.spz"), 100, 0, false, 28);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_scene_budget <scratch dir> [asset.ply] | seeds <fuzz corpus dir>\n");
    return 2;
  }
  if (strcmp(argv[1], "seeds") == 0 && argc == 3) return seeds(argv[2]);
  dir = argv[1];
  mkdir(dir, 0755);
  size_t sizes[8];
  sizes[0] = make_sog_zero_bomb(path_of("zero_bomb.sog"), 4000);
  sizes[1] = make_sog_meta_bomb(path_of("meta_bomb.sog"), 1024);
  sizes[2] = make_sog_big_images(path_of("big_images.sog"));
  sizes[3] = make_spz_rle(path_of("rle_bomb.spz"), (uint32_t)(120000ull * 1024 / 9), 120000, true, 20);
  sizes[4] = make_spz_count(path_of("count_bomb.spz"), 1 << 20);
  sizes[5] = make_cameras_zeros(path_of("cameras_zeros.json"), 40);
  sizes[6] = make_spz_rle(path_of("window.spz"), 1000, 0, false, 28);
  sizes[7] = make_spz_gzip_bomb(path_of("gzip_bomb.spz"), 256);

  base_kb = load_in_child("/nonexistent", LOAD_SCENE, 0).peak_kb;
  printf("a child's base: %ld KB\n", base_kb);
  hostile("zero_bomb.sog", sizes[0], LOAD_SCENE, "means_l.webp: not a WebP image");
  hostile("meta_bomb.sog", sizes[1], LOAD_SCENE, "meta.json: zip entry states 1073741824 bytes");
  hostile("big_images.sog", sizes[2], LOAD_SCENE, "meta.json: count 16777216 splats is more than");
  for (int serial = 0; serial < 2; ++serial) {
    enum load_kind kind = serial ? LOAD_SCENE_SERIAL : LOAD_SCENE;
    hostile("rle_bomb.spz", sizes[3], kind, "stream 5 (SH) ends after");
    /* a machine with more memory than its 28 GB reads the streams, and finds them broken */
    hostile("count_bomb.spz", sizes[4], kind, "");
    /* with a ceiling above its 34 GB of arrays, the streams are counted before they are believed */
    hostile_at("count_bomb.spz", sizes[4], kind, "stream 0 (positions): corrupt zstd data", (uint64_t)64 << 30);
    hostile("gzip_bomb.spz", sizes[7], kind, "the gzip data ends after");
    hostile("window.spz", sizes[6], kind, "asks for a window of more than 128 MiB (limit 128 MiB)");
  }
  hostile("cameras_zeros.json", sizes[5], LOAD_CAMERAS, "more JSON values than a cameras.json holds");
  /* issue 37: structure before bulk. A zip padded to 1 GiB (sparse): its end read first, no
   * end-of-central-directory record there, the rest never read; a sparse 8 GiB .spz under a 512 MiB
   * ceiling: the file is not read whole past the budget; the rle .spz of 13.6M splats for a caller
   * that can use 1M: refused from the header, before a stream is inflated. */
  {
    char *padded = path_of("padded.sog"), *sparse = path_of("sparse.spz");
    FILE *f = fopen(padded, "wb");
    size_t n = 0;
    if (f) n = fwrite("PK\3\4", 1, 4, f), fclose(f);
    bool made = n == 4 && truncate(padded, (off_t)1 << 30) == 0;
    f = fopen(sparse, "wb");
    n = f ? fwrite("NGSP", 1, 4, f) : 0;
    if (f) fclose(f);
    made = made && n == 4 && truncate(sparse, (off_t)8 << 30) == 0;
    if (made) {
      hostile_at("padded.sog", 64, LOAD_SCENE, "without an end-of-central-directory record", 0);
      hostile_at("sparse.spz", 64, LOAD_SCENE, "the whole file read into memory", (uint64_t)512 << 20);
    } else {
      printf("no sparse files here: the padded-file cases skipped\n");
    }
    unlink(padded), unlink(sparse);
    child_max_splats = 1000000;
    for (int serial = 0; serial < 2; ++serial)
      hostile("rle_bomb.spz", sizes[3], serial ? LOAD_SCENE_SERIAL : LOAD_SCENE,
              "more than the caller can use (splat_load_options.max_splats 1000000)");
    child_max_splats = 0;
  }
  if (argc > 2) ceiling(argv[2]);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
