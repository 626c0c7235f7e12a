/* scene_sog_zip.c: the entries of a bundled .sog, a zip archive in memory. splat-transform
 * writes stored entries with data descriptors (sizes only in the central directory); the engine
 * also reads deflated ones, so both are read here (zlib). No zip64, no encryption, one disk. */
#include "scene_sog.h"

#include <stdlib.h>
#include <zlib.h>

static uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

enum { EOCD_SIZE = 22, CDH_SIZE = 46, LFH_SIZE = 30 };

_Static_assert(sizeof(uInt) >= 4, "zlib's uInt must hold a zip entry's 32-bit sizes");

int sog_zip_open(const uint8_t *data, size_t size, sog_zip *z, const scene_error *e) {
  memset(z, 0, sizeof *z);
  if (size < EOCD_SIZE) return scene_fail(e, "zip archive of %zu bytes: too short for its end record", size);
  /* The end record is the last 22 bytes unless the archive has a comment (up to 65535 bytes):
   * take the last signature whose comment length reaches exactly the end. */
  size_t pos = size - EOCD_SIZE, stop = pos > 65535 ? pos - 65535 : 0;
  for (;; --pos) {
    const uint8_t *p = data + pos;
    if (u32(p) == 0x06054b50u && u16(p + 20) == size - pos - EOCD_SIZE) break;
    if (pos == stop) return scene_fail(e, "zip archive without an end-of-central-directory record");
  }
  const uint8_t *p = data + pos;
  uint16_t disk = u16(p + 4), cd_disk = u16(p + 6), here = u16(p + 8), total = u16(p + 10);
  uint32_t cd_size = u32(p + 12), cd_offset = u32(p + 16);
  if (here == 0xffff || total == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu)
    return scene_fail(e, "a zip64 archive, which is not read (a SOG bundle is a plain zip)");
  if (disk != 0 || cd_disk != 0 || here != total)
    return scene_fail(e, "a zip archive split over several disks, which is not read");
  if ((size_t)cd_offset > pos || (size_t)cd_size > pos - cd_offset)
    return scene_fail(e, "zip central directory (%u bytes at %u) outside the archive's %zu bytes", cd_size,
                      cd_offset, pos);
  z->data = data;
  z->size = size;
  z->cd_offset = cd_offset;
  z->cd_size = cd_size;
  z->entries = total;
  return 0;
}

/* Inflates a raw deflate stream of csize bytes into exactly usize bytes (both from 32-bit zip
 * fields, so one call of zlib's 32-bit counts takes them). */
static int inflate_entry(const uint8_t *src, uint32_t csize, uint32_t usize, uint8_t **out, const char *tok,
                         const scene_error *e) {
  uint8_t *buf = malloc(usize ? usize : 1);
  if (buf == NULL) return scene_fail(e, "%s: out of memory for %u bytes", tok, usize);
  z_stream s;
  memset(&s, 0, sizeof s);
  if (inflateInit2(&s, -15) != Z_OK) {
    free(buf);
    return scene_fail(e, "%s: zlib could not start inflating", tok);
  }
  s.next_in = (Bytef *)(uintptr_t)src;
  s.avail_in = csize;
  s.next_out = buf;
  s.avail_out = usize;
  /* Z_STREAM_END only when the stream ends within the room given: a longer one fails here */
  int zr = inflate(&s, Z_FINISH);
  bool whole = zr == Z_STREAM_END && s.total_out == usize;
  inflateEnd(&s);
  if (!whole) {
    free(buf);
    return scene_fail(e, "%s: zip entry does not inflate to its stated %u bytes (broken deflate data)", tok, usize);
  }
  *out = buf;
  return 0;
}

int sog_zip_locate(const sog_zip *z, const char *name, sog_zip_entry *en, const scene_error *e) {
  memset(en, 0, sizeof *en);
  size_t nlen = strlen(name);
  char tok[64];
  scene_token(tok, name, nlen);
  const uint8_t *cd = z->data + z->cd_offset;
  size_t at = 0;
  for (uint32_t i = 0; i < z->entries; ++i) {
    if (z->cd_size - at < CDH_SIZE || u32(cd + at) != 0x02014b50u)
      return scene_fail(e, "zip central directory broken at entry %u", i);
    const uint8_t *h = cd + at;
    size_t n = u16(h + 28), extra = u16(h + 30), comment = u16(h + 32), len = CDH_SIZE + n + extra + comment;
    if (z->cd_size - at < len) return scene_fail(e, "zip central directory entry %u runs past its end", i);
    at += len;
    if (n != nlen || memcmp(h + CDH_SIZE, name, n) != 0) continue;

    uint16_t flags = u16(h + 8), method = u16(h + 10);
    uint32_t crc = u32(h + 16), csize = u32(h + 20), usize = u32(h + 24), lho = u32(h + 42);
    if (flags & 1) return scene_fail(e, "%s: an encrypted zip entry", tok);
    if (method != 0 && method != 8)
      return scene_fail(e, "%s: zip compression method %u (stored and deflate are read)", tok, method);
    if (csize == 0xffffffffu || usize == 0xffffffffu || lho == 0xffffffffu)
      return scene_fail(e, "%s: a zip64 entry, which is not read", tok);
    /* local header, then the data, all before the central directory */
    if (lho > z->cd_offset || z->cd_offset - lho < LFH_SIZE || u32(z->data + lho) != 0x04034b50u)
      return scene_fail(e, "%s: zip local header missing at offset %u", tok, lho);
    const uint8_t *lh = z->data + lho;
    size_t start = (size_t)lho + LFH_SIZE + u16(lh + 26) + u16(lh + 28);
    if (start > z->cd_offset || z->cd_offset - start < csize)
      return scene_fail(e, "%s: zip entry data (%u bytes at %zu) overlaps the central directory", tok, csize, start);
    if (method == 0 && csize != usize)
      return scene_fail(e, "%s: stored zip entry of %u bytes says %u uncompressed", tok, csize, usize);
    /* deflate cannot expand more than 1032:1: a larger stated size is a lie, not worth allocating */
    if (method == 8 && usize / 1032 > csize + 1)
      return scene_fail(e, "%s: zip entry claims %u bytes from %u compressed", tok, usize, csize);
    *en = (sog_zip_entry){z->data + start, csize, usize, crc, method, ""};
    memcpy(en->tok, tok, sizeof en->tok);
    return 1;
  }
  return 0;
}

int sog_zip_head(const sog_zip_entry *en, uint8_t *buf, size_t n, size_t *got, const scene_error *e) {
  *got = 0;
  if (n > en->usize) n = en->usize;
  if (en->method == 0) {
    memcpy(buf, en->src, n);
    *got = n;
    return 0;
  }
  z_stream s;
  memset(&s, 0, sizeof s);
  if (inflateInit2(&s, -15) != Z_OK) return scene_fail(e, "%s: zlib could not start inflating", en->tok);
  s.next_in = (Bytef *)(uintptr_t)en->src;
  s.avail_in = en->csize;
  s.next_out = buf;
  s.avail_out = (uInt)n;
  int zr = inflate(&s, Z_SYNC_FLUSH);
  *got = n - s.avail_out;
  inflateEnd(&s);
  if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
    return scene_fail(e, "%s: zip entry does not inflate to its stated %u bytes (broken deflate data)", en->tok,
                      en->usize);
  return 0;
}

int sog_zip_read(const sog_zip_entry *en, const uint8_t **data, size_t *size, void **owned, const scene_error *e) {
  *data = NULL;
  *size = 0;
  *owned = NULL;
  if (en->method == 0) {
    *data = en->src;
  } else {
    uint8_t *buf = NULL;
    if (inflate_entry(en->src, en->csize, en->usize, &buf, en->tok, e) != 0) return -1;
    *data = buf;
    *owned = buf;
  }
  *size = en->usize;
  /* a bundle is one download: a damaged byte anywhere should say so, not decode to garbage */
  uLong got = crc32(crc32(0L, Z_NULL, 0), *data, en->usize);
  if ((uint32_t)got != en->crc) {
    free(*owned);
    *owned = NULL;
    *data = NULL;
    *size = 0;
    return scene_fail(e, "%s: zip entry's CRC-32 is %08x, expected %08x (damaged archive)", en->tok, (unsigned)got,
                      en->crc);
  }
  return 0;
}

int sog_zip_find(const sog_zip *z, const char *name, const uint8_t **data, size_t *size, void **owned,
                 const scene_error *e) {
  *data = NULL;
  *size = 0;
  *owned = NULL;
  sog_zip_entry en;
  int found = sog_zip_locate(z, name, &en, e);
  if (found != 1) return found;
  return sog_zip_read(&en, data, size, owned, e) == 0 ? 1 : -1;
}
