/* scene_sog.h: the parts of the PlayCanvas SOG reader that its tests and fuzz target call on
 * their own: meta.json parsed into a sog_meta (scene_sog_meta.c), the decoder that turns the
 * images a sog_meta names into a splat_scene, fetching them through a callback
 * (scene_sog.c), the entries of a bundled .sog zip archive (scene_sog_zip.c), a streamed (LOD)
 * bundle's level read from its chunks (scene_sog_lod.c), and the JSON helpers the two JSON
 * readers share (scene_sog_json.c).
 *
 * The format, as PlayCanvas's engine (src/scene/gsplat/gsplat-sog-data.js and its shaders)
 * and splat-transform (readers/read-sog*.ts, writers/write-sog.ts) define it. Every image is a
 * lossless RGBA WebP; splat i is texel i in row-major order of the per-splat images, which all
 * share one size with at least `count` texels:
 *   means_l, means_u  low and high bytes of 16-bit x, y, z (RGB): v in [0, 65535] is
 *                     lerp(min, max, v / 65535) in log space, position = sign(l) (e^|l| - 1)
 *   quats             the three smaller components of the unit quaternion (w, x, y, z), each
 *                     (byte / 255 - 0.5) * sqrt(2), in order with the largest left out; alpha =
 *                     252 + the index of the largest, which is sqrt(1 - a^2 - b^2 - c^2) >= 0
 *   scales            log scales: version 2 a byte per axis into a 256-entry codebook,
 *                     version 1 lerp(min, max, byte / 255) per axis
 *   sh0               SH DC colour (RGB) as the scales; alpha: version 2 opacity * 255
 *                     (activated), version 1 lerp(min, max, byte / 255) of the logit
 *   shN (optional)    labels: a 16-bit palette index per splat (R low, G high); centroids: 64
 *                     palette entries a row, each (degree+1)^2 - 1 texels wide (192/512/960
 *                     wide for degrees 1/2/3), texel j of an entry holding coefficient j of
 *                     R, G, B: version 2 bytes into a 256-entry codebook, version 1
 *                     lerp(min, max, byte / 255) with one scalar range
 * Version 2 meta.json: {"version": 2, "count", "means": {mins, maxs, files[2]}, "scales":
 * {codebook[256], files}, "quats": {files}, "sh0": {codebook[256], files}, "shN": {count,
 * bands, codebook[256], files[2]}, "model"}; shN.count and shN.bands came in September 2025
 * and "model" ("antialiased", "2dgs") in 2026. Version 1 (no "version") has "shape" and
 * mins/maxs instead of codebooks; the splat count is means.shape[0]. */
#ifndef SPLAT_SCENE_SOG_H
#define SPLAT_SCENE_SOG_H

#include "scene_common.h"

enum sog_image_id {
  SOG_MEANS_L,
  SOG_MEANS_U,
  SOG_QUATS,
  SOG_SCALES,
  SOG_SH0,
  SOG_SHN_CENTROIDS,
  SOG_SHN_LABELS,
  SOG_IMAGES
};

#define SOG_NAME_MAX 256                  /* bytes of an image's file name, with its NUL */
#define SOG_META_MAX ((size_t)1 << 20)    /* real meta.json files are 1-40 KiB */
#define SOG_MAX_COUNT (16383u * 16383u)   /* a WebP image is at most 16383 x 16383 */
/* Memory (docs/formats.md, "Memory"): a scene whose arrays would pass SOG_FREE_BYTES may claim at
 * most SOG_SPLATS_PER_BYTE splats a byte of its image files (real scenes: 12-16 bytes a splat);
 * a zip entry stating more than SOG_TRUST_RATIO bytes a compressed byte has its header read
 * before it is inflated, and a WebP image's entry may state at most SOG_WEBP_BYTES_PER_TEXEL
 * bytes a texel (its dimensions held to what the count needs) and 1 MiB more. */
#define SOG_FREE_BYTES ((uint64_t)256 << 20)
#define SOG_SPLATS_PER_BYTE 4
#define SOG_TRUST_RATIO 16
#define SOG_WEBP_BYTES_PER_TEXEL 8

typedef struct sog_meta {
  uint32_t version;   /* 1 or 2 */
  uint32_t count;     /* splats */
  uint32_t flags;     /* splat_scene_flag_bits, from "model" */
  bool has_shn;       /* SH bands above 0 */
  uint32_t shn_bands; /* shN.bands, 1..3; 0 when not given (then from the centroids' width) */
  uint32_t shn_count; /* shN.count, palette entries; 0 when not given (then the image's rows) */
  double means_min[3], means_max[3]; /* log-transformed position range */
  /* version 2: codebooks (a null first entry, written by older tools, is filled in as the
   * engine does) */
  float scales_cb[256], sh0_cb[256], shn_cb[256];
  /* version 1: linear ranges */
  double scales_min[3], scales_max[3], sh0_min[4], sh0_max[4], shn_min, shn_max;
  char files[SOG_IMAGES][SOG_NAME_MAX]; /* as meta.json spells them; "" when not used */
} sog_meta;

/* sog_parse_meta's answer for a streamed bundle's lod-meta.json (it has "lodLevels"), with a
 * message too for callers that take any nonzero answer as a failure. */
#define SOG_LOD_META 1

/* Parses meta.json (`size` bytes of UTF-8, not NUL-terminated; at most SOG_META_MAX) into *m,
 * checking every member the decoder uses for presence, type and range. Errors name the member
 * ("scales.codebook[3] is a string, expected a number"). Returns 0, -1, or SOG_LOD_META. */
int sog_parse_meta(const char *text, size_t size, sog_meta *m, const scene_error *e);

/* The bytes of the image file `name` (a file name from sog_meta.files): *data and *size, and in
 * *owned a malloc'd block to free once decoded (or NULL when *data belongs to someone else).
 * Reports (naming the image) and returns -1 when it cannot. */
typedef int (*sog_fetch_fn)(void *user, const char *name, const uint8_t **data, size_t *size, void **owned,
                            const scene_error *e);

/* Decodes the images that *m names into *out (zeroed on failure), checking each image's size
 * against the count, every tag byte and palette index, and following scene.h's non-finite
 * policy. */
int sog_decode(const sog_meta *m, sog_fetch_fn fetch, void *user, splat_scene *out, const scene_error *e);
/* As sog_decode, also setting kept[i] (m->count bytes, the caller's) to whether splat i of the
 * file was kept (1) or dropped for non-finite values (0), so that a caller can find the splats a
 * range of the file's indices became. */
int sog_decode_marked(const sog_meta *m, sog_fetch_fn fetch, void *user, splat_scene *out, uint8_t *kept,
                      const scene_error *e);

/* The SH degree sog_decode will give *m's scene: 0 without shN, shN.bands when given, else read
 * from the width of the centroids image's WebP header (fetched). 0 or -1 (reported). */
int sog_sh_degree(const sog_meta *m, sog_fetch_fn fetch, void *user, uint32_t *degree, const scene_error *e);

/* The least memory decoding *m takes, which sog_decode holds to the budget before it decodes: the
 * scene's arrays at the lowest SH degree meta.json allows, and its per-splat images at a texel a
 * splat. */
uint64_t sog_min_bytes(const sog_meta *m);

/* A meta.json's images read from the folder `dir` (dir_len bytes with its trailing '/', or ""):
 * sog_fetch_file is the sog_fetch_fn, a sog_dir its user. Errors are "<e->name>: <image>: ...". */
typedef struct sog_dir {
  const char *dir;
  size_t dir_len;
} sog_dir;
int sog_fetch_file(void *user, const char *name, const uint8_t **data, size_t *size, void **owned,
                   const scene_error *e);

/* *m's count held to the bytes of its image files in d (SOG_SPLATS_PER_BYTE, once the scene would
 * pass SOG_FREE_BYTES; a missing image counts 0 and is reported when fetched): 0 or -1. */
int sog_check_count_dir(const sog_meta *m, const sog_dir *d, const scene_error *e);

/* A streamed (LOD) bundle (scene_sog_lod.c; the format at the top of that file): the lod-meta.json
 * at `path` (`size` bytes of it at `text`; or read here, at most SOG_LOD_META_MAX bytes), its
 * level e->lod_level decoded as one scene. lod-meta.json's own errors go to me, its chunks' to e
 * ("<e->name>: 0_1/meta.json: ..."); e's progress, pool and budget are the load's. */
#define SOG_LOD_META_MAX ((size_t)64 << 20) /* 330 KiB for a 13.6M-splat capture of 3 levels */
int sog_load_lod(const char *path, const uint8_t *text, size_t size, splat_scene *out, const scene_error *me,
                 const scene_error *e);
int sog_load_lod_file(const char *path, splat_scene *out, const scene_error *me, const scene_error *e);

/* ---- JSON (scene_sog_json.c): what the meta.json and lod-meta.json readers share -------------- */

struct cJSON;
#define SOG_WHERE_MAX 160 /* bytes of a member's path in a message */

/* `size` bytes of text (a leading UTF-8 BOM skipped) as JSON.parse takes them, into a cJSON tree
 * whose root is an object (freed by the caller with cJSON_Delete); NULL with "not valid JSON (at
 * line L, column C)", "... text after the value ..." or "is <kind>, expected a JSON object". */
struct cJSON *sog_json_parse(const char *text, size_t size, const scene_error *e);
/* What a value is, for messages ("a string", "missing"). */
const char *sog_json_kind(const struct cJSON *v);
/* The member `name` of obj into *out (NULL when absent); a name given twice is an error, said as
 * "<where>.<name> is given twice". */
int sog_json_member(const struct cJSON *obj, const char *name, const char *where, const struct cJSON **out,
                    const scene_error *e);
/* v as a number (not NaN): "<where>[<index>] is a string, expected a number" (index SIZE_MAX:
 * none). */
int sog_json_number(const struct cJSON *v, const char *where, size_t index, double *out, const scene_error *e);
/* parent's member `name`, a whole number in [lo, hi] (at most UINT32_MAX), into *out (untouched
 * when absent and not required); messages name it "<pname>.<name>". */
int sog_json_whole(const struct cJSON *parent, const char *pname, const char *name, bool required, double lo,
                   double hi, uint32_t *out, const scene_error *e);
/* s as a file name inside the scene's folder, copied to out: not empty, shorter than
 * SOG_NAME_MAX, no control character or backslash, not absolute, no ".." segment; messages name
 * it by `where`. */
int sog_json_name(const char *s, const char *where, char out[SOG_NAME_MAX], const scene_error *e);

/* A zip archive in memory (not copied): the central directory found and checked. */
typedef struct sog_zip {
  const uint8_t *data;
  size_t size;
  size_t cd_offset, cd_size; /* central directory */
  uint32_t entries;
} sog_zip;

int sog_zip_open(const uint8_t *data, size_t size, sog_zip *z, const scene_error *e);

/* An entry of the archive, found but not yet read: its data in the archive and its sizes (as
 * the central directory states them), and its name as a message token. */
typedef struct sog_zip_entry {
  const uint8_t *src;
  uint32_t csize, usize, crc;
  uint16_t method; /* 0 stored, 8 deflate */
  char tok[64];
} sog_zip_entry;

/* The entry named exactly `name` (the first when several are), checked to lie within the
 * archive, with nothing inflated: 1 when found, 0 when not, -1 on a broken entry (reported). */
int sog_zip_locate(const sog_zip *z, const char *name, sog_zip_entry *en, const scene_error *e);
/* Its first min(n, usize) bytes into buf (*got of them: fewer when its data ends sooner), so a
 * caller can look at a header before it allocates what the entry states. */
int sog_zip_head(const sog_zip_entry *en, uint8_t *buf, size_t n, size_t *got, const scene_error *e);
/* The whole entry, as sog_zip_find gives it: 0 or -1 (reported). */
int sog_zip_read(const sog_zip_entry *en, const uint8_t **data, size_t *size, void **owned, const scene_error *e);

/* The entry named exactly `name` (the first when several are): stored entries point into the
 * archive, deflated ones are inflated into *owned. Its CRC-32 is checked. Returns 1 when found,
 * 0 when the archive has no such entry, -1 on a broken entry (reported). */
int sog_zip_find(const sog_zip *z, const char *name, const uint8_t **data, size_t *size, void **owned,
                 const scene_error *e);

#endif /* SPLAT_SCENE_SOG_H */
