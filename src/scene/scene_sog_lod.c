/* scene_sog_lod.c: PlayCanvas streamed (LOD) SOG bundles: a lod-meta.json naming folders of SOG
 * chunks, one level of it decoded as one scene (sog_load_lod, scene_sog.h).
 *
 * The format, as splat-transform writes it (writers/write-lod.ts, 1.x to 3.7) and reads it
 * (readers/read-lod.ts), and PlayCanvas's engine streams it:
 *   {"version": 1, "asset": {...}, "count": N, "counts": [n0, n1, ...], "lodLevels": L,
 *    "lodErrors": false, "environment": "env/meta.json", "filenames": ["0_0/meta.json", ...],
 *    "tree": NODE}
 *   NODE = {"bound": {"min": [3], "max": [3]}, "children": [NODE, ...]}             interior
 *        | {"bound": {...}, "lods": {"0": {"file": f, "offset": o, "count": c}, ...},
 *           "errors": [L numbers]}                                                    leaf
 * Level 0 is the finest; counts[l] is level l's splats. A leaf's entry for level l is splats
 * [o, o + c) of the SOG scene whose meta.json is filenames[f] (relative to lod-meta.json). The
 * writer fills each chunk with one level's splats of consecutive leaves, so a level is its chunks'
 * splats in the order the tree names them, and every chunk is covered by its ranges exactly
 * (splat-transform's reader refuses a chunk whose splats are not the sum of its ranges). Bundles
 * of splat-transform 1.x (published captures) have no "version", "count" or "counts", and may
 * have "environment": null. The tree is a kd-tree split at medians down to chunks of at least 256
 * splats (depth about log2(splats / 256)): LOD_MAX_DEPTH is far above any real one.
 *
 * What is read: level e->lod_level's ranges, gathered in tree order (pre-order, a node's own
 * "lods" before its children's), each chunk decoded once by the SOG reader (the chunks in
 * parallel, one a task). Not read: "bound", "errors", "asset", "count", and the environment (a
 * separate SOG of far-away splats that splat-transform also leaves out of a level). Every
 * reference of every level is checked, as splat-transform does; only the level read is held to
 * its chunks' sizes. */
#include "scene_sog.h"

#include <cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#define LOD_MAX_DEPTH 64
#define LOD_MAX_LEVELS 64
/* What `size` bytes of lod-meta.json may cost, held to the budget before it is read: the text,
 * cJSON's tree (a node of 64 bytes, 80 with malloc's overhead, for a value that can be two bytes
 * of text, "0,") and the ranges read from it (44 bytes for at least 35 of text, in an array that
 * doubles). */
#define LOD_BYTES_PER_BYTE (1 + 40 + 3)

/* A range of the level read: splats [offset, offset + ranges[ref].n) of chunk file `file`, ref its
 * index in tree order. ranges[ref] is its place in the scene (first, n), kept set once decoded. */
typedef struct lod_ref {
  uint32_t file, offset, ref;
} lod_ref;

/* One chunk of the level: a SOG scene. */
typedef struct lod_chunk {
  uint32_t file;            /* index into filenames */
  uint32_t first, n;        /* its refs: refs[first .. first + n) once sorted, by offset */
  char name[SOG_NAME_MAX];  /* as filenames spells it */
  char *ename;              /* "<e->name>: <name>", for its own errors */
  char *path;               /* the meta.json's path; its folder is path[0 .. dir_len) */
  size_t dir_len;
  dev_t dev;
  ino_t ino;
  sog_meta meta;
  uint32_t clamped;         /* once decoded */
} lod_chunk;

typedef struct lod_read {
  const scene_error *me, *e;
  uint32_t levels, level, nfiles;
  const char **filenames;   /* into the cJSON tree */
  lod_ref *refs;            /* in tree order, then sorted by (file, offset) */
  scene_range *ranges;      /* per ref, in tree order */
  uint32_t nrefs, cap;
  uint64_t total;           /* splats of the level */
  lod_chunk *chunks;
  uint32_t nchunks;
  splat_scene *out;
} lod_read;

/* ---- lod-meta.json --------------------------------------------------------------------------- */

/* A level key of "lods": "0", "1", ... (no sign, no leading zero, as the writer spells them) below
 * the bundle's lodLevels. */
static int level_key(const lod_read *r, const char *key, const char *where, uint32_t *level) {
  const scene_error *e = r->me;
  char tok[64];
  size_t len = strlen(key);
  bool digits = len > 0 && len <= 9 && (key[0] != '0' || len == 1);
  for (size_t k = 0; k < len && digits; ++k) digits = key[k] >= '0' && key[k] <= '9';
  if (!digits || (*level = (uint32_t)strtoul(key, NULL, 10)) >= r->levels)
    return scene_fail(e, "%s.lods has level '%s', expected a level from 0 to %u (lodLevels is %u)", where,
                      scene_token(tok, key, len), r->levels - 1, r->levels);
  return 0;
}

/* One entry of a node's "lods": {file, offset, count}, checked whatever its level; a range of the
 * level read is kept (an empty one is skipped). */
static int read_ref(lod_read *r, const cJSON *v, const char *where, uint32_t level) {
  const scene_error *e = r->me;
  char at[SOG_WHERE_MAX];
  snprintf(at, sizeof at, "%s.lods.%u", where, level);
  if (!cJSON_IsObject(v))
    return scene_fail(e, "%s is %s, expected an object {file, offset, count}", at, sog_json_kind(v));
  uint32_t file = 0, offset = 0, count = 0;
  if (sog_json_whole(v, at, "file", true, 0, (double)r->nfiles - 1, &file, e) != 0 ||
      sog_json_whole(v, at, "offset", true, 0, SOG_MAX_COUNT, &offset, e) != 0 ||
      sog_json_whole(v, at, "count", true, 0, SOG_MAX_COUNT, &count, e) != 0)
    return -1;
  if ((uint64_t)offset + count > SOG_MAX_COUNT)
    return scene_fail(e, "%s: offset %u + count %u is past the %u splats a SOG chunk can hold", at, offset, count,
                      SOG_MAX_COUNT);
  if (level != r->level || count == 0) return 0;
  if (r->total + count > UINT32_MAX)
    return scene_fail(e, "%s: level %u's ranges add up to more than %u splats", at, level, UINT32_MAX);
  if (r->nrefs == r->cap) {
    uint32_t cap = r->cap ? r->cap * 2 : 64;
    lod_ref *refs = realloc(r->refs, cap * sizeof *refs);
    if (refs != NULL) r->refs = refs;
    scene_range *ranges = realloc(r->ranges, cap * sizeof *ranges);
    if (ranges != NULL) r->ranges = ranges;
    if (refs == NULL || ranges == NULL) return scene_fail(e, "out of memory for %u ranges", cap);
    r->cap = cap;
  }
  r->refs[r->nrefs] = (lod_ref){file, offset, r->nrefs};
  r->ranges[r->nrefs] = (scene_range){.first = r->total, .n = count};
  r->nrefs++;
  r->total += count;
  return 0;
}

/* A node and its subtree, pre-order. `where` names it: "tree", "tree/0/1" for
 * tree.children[0].children[1]. */
static int walk(lod_read *r, const cJSON *node, uint32_t depth, char *where, size_t len, size_t cap) {
  const scene_error *e = r->me;
  if (depth > LOD_MAX_DEPTH)
    return scene_fail(e, "the tree is more than %d levels deep (at %s; splat-transform's are about "
                         "log2(splats / 256))", LOD_MAX_DEPTH, where);
  if (!cJSON_IsObject(node)) return scene_fail(e, "%s is %s, expected an object (a tree node)", where, sog_json_kind(node));
  const cJSON *children, *lods;
  if (sog_json_member(node, "children", where, &children, e) != 0 || sog_json_member(node, "lods", where, &lods, e) != 0)
    return -1;
  if (lods != NULL) {
    if (!cJSON_IsObject(lods)) return scene_fail(e, "%s.lods is %s, expected an object", where, sog_json_kind(lods));
    uint64_t seen = 0;
    for (const cJSON *c = lods->child; c != NULL; c = c->next) {
      uint32_t level = 0;
      if (level_key(r, c->string ? c->string : "", where, &level) != 0) return -1;
      if (seen >> level & 1) return scene_fail(e, "%s.lods.%u is given twice", where, level);
      seen |= (uint64_t)1 << level;
      if (read_ref(r, c, where, level) != 0) return -1;
    }
  }
  if (children == NULL) return 0;
  if (!cJSON_IsArray(children))
    return scene_fail(e, "%s.children is %s, expected an array of nodes", where, sog_json_kind(children));
  uint32_t k = 0;
  for (const cJSON *c = children->child; c != NULL; c = c->next, ++k) {
    snprintf(where + len, cap - len, "/%u", k);
    if (walk(r, c, depth + 1, where, len + strlen(where + len), cap) != 0) return -1;
    where[len] = '\0';
  }
  return 0;
}

/* The members that say what the bundle holds, then the tree's ranges of the level read. */
static int read_lod_meta(lod_read *r, const cJSON *root, uint32_t *declared, bool *has_declared) {
  const scene_error *e = r->me;
  const cJSON *version, *counts, *names, *tree;
  if (sog_json_member(root, "version", "", &version, e) != 0 || sog_json_member(root, "counts", "", &counts, e) != 0 ||
      sog_json_member(root, "filenames", "", &names, e) != 0 || sog_json_member(root, "tree", "", &tree, e) != 0)
    return -1;
  if (version != NULL && !(cJSON_IsNumber(version) && version->valuedouble == 1.0)) {
    if (!cJSON_IsNumber(version)) return scene_fail(e, "'version' is %s, expected a number", sog_json_kind(version));
    return scene_fail(e, "version %.17g is not supported (1 is, and bundles without one)", version->valuedouble);
  }
  if (sog_json_whole(root, "", "lodLevels", true, 1, LOD_MAX_LEVELS, &r->levels, e) != 0) return -1;
  if (r->level >= r->levels)
    return scene_fail(e, "level %u asked for (splat_load_options.lod_level), but the bundle has %u (0 to %u)", r->level,
                      r->levels, r->levels - 1);
  *has_declared = counts != NULL;
  if (counts != NULL) {
    if (!cJSON_IsArray(counts) || cJSON_GetArraySize(counts) != (int)r->levels)
      return scene_fail(e, "'counts' is %s, expected an array of %u splat counts (one a level)",
                        cJSON_IsArray(counts) ? "an array of another length" : sog_json_kind(counts), r->levels);
    uint32_t l = 0;
    for (const cJSON *c = counts->child; c != NULL; c = c->next, ++l) {
      double d;
      if (sog_json_number(c, "counts", l, &d, e) != 0) return -1;
      if (d != floor(d) || d < 0 || d > UINT32_MAX)
        return scene_fail(e, "counts[%u] is %.17g, expected a whole number from 0 to %u", l, d, UINT32_MAX);
      if (l == r->level) *declared = (uint32_t)d;
    }
  }
  if (names == NULL) return scene_fail(e, "'filenames' is missing");
  if (!cJSON_IsArray(names) || names->child == NULL)
    return scene_fail(e, "'filenames' is %s, expected an array of chunk file names",
                      cJSON_IsArray(names) ? "an empty array" : sog_json_kind(names));
  r->nfiles = (uint32_t)cJSON_GetArraySize(names);
  r->filenames = malloc(r->nfiles * sizeof *r->filenames);
  if (r->filenames == NULL) return scene_fail(e, "out of memory for %u file names", r->nfiles);
  uint32_t i = 0;
  for (const cJSON *c = names->child; c != NULL; c = c->next, ++i) {
    if (!cJSON_IsString(c)) return scene_fail(e, "filenames[%u] is %s, expected a file name", i, sog_json_kind(c));
    r->filenames[i] = c->valuestring;
  }
  if (tree == NULL) return scene_fail(e, "'tree' is missing");
  char where[SOG_WHERE_MAX] = "tree";
  return walk(r, tree, 0, where, strlen(where), sizeof where);
}

/* ---- the chunks ------------------------------------------------------------------------------ */

static int by_file_offset(const void *a, const void *b) {
  const lod_ref *x = a, *y = b;
  if (x->file != y->file) return x->file < y->file ? -1 : 1;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return x->ref < y->ref ? -1 : 1;
}

/* The refs grouped into chunks, in file order, each chunk's by offset. */
static int group_chunks(lod_read *r) {
  const scene_error *e = r->me;
  qsort(r->refs, r->nrefs, sizeof *r->refs, by_file_offset);
  uint32_t n = 0;
  for (uint32_t k = 0; k < r->nrefs; ++k) n += k == 0 || r->refs[k].file != r->refs[k - 1].file;
  /* a chunk's description holds its meta.json (5 KiB): what a file of many tiny chunks costs */
  if (scene_budget_check(e, (uint64_t)n * sizeof *r->chunks, "level %u: %u chunks (their descriptions)", r->level, n) != 0)
    return -1;
  r->chunks = calloc(n, sizeof *r->chunks);
  if (r->chunks == NULL) return scene_fail(e, "out of memory for %u chunks", n);
  for (uint32_t k = 0; k < r->nrefs; ++k) {
    uint32_t file = r->refs[k].file;
    if (k == 0 || file != r->refs[k - 1].file) r->chunks[r->nchunks++] = (lod_chunk){.file = file, .first = k};
    r->chunks[r->nchunks - 1].n++;
  }
  return 0;
}

/* Chunk c's name, paths and meta.json: read, parsed, its count held to its images. */
static int open_chunk(lod_read *r, const char *path, lod_chunk *c) {
  const scene_error *e = r->e;
  char where[32];
  snprintf(where, sizeof where, "filenames[%u]", c->file);
  if (sog_json_name(r->filenames[c->file], where, c->name, r->me) != 0) return -1;
  const char *slash = strrchr(path, '/');
  size_t base = slash ? (size_t)(slash - path) + 1 : 0, nl = strlen(c->name), en = strlen(e->name) + nl + 3;
  c->path = malloc(base + nl + 1);
  c->ename = malloc(en);
  if (c->path == NULL || c->ename == NULL) return scene_fail(e, "out of memory");
  memcpy(c->path, path, base);
  memcpy(c->path + base, c->name, nl + 1);
  snprintf(c->ename, en, "%s: %s", e->name, c->name);
  slash = strrchr(c->path, '/');
  c->dir_len = slash ? (size_t)(slash - c->path) + 1 : 0;
  /* the chunk's own problems: "<bundle>: 0_1/meta.json: ..." */
  scene_error ce = {c->ename, e->buf, e->size, .budget = e->budget};
  struct stat st;
  if (stat(c->path, &st) != 0) return scene_fail(&ce, "cannot open: %s (a chunk of level %u)", strerror(errno), r->level);
  if (S_ISREG(st.st_mode) && st.st_size > (off_t)SOG_META_MAX)
    return scene_fail(&ce, "%jd bytes; a SOG meta.json is a few KiB (limit %zu bytes)", (intmax_t)st.st_size,
                      SOG_META_MAX);
  c->dev = st.st_dev;
  c->ino = st.st_ino;
  uint8_t *text;
  size_t size;
  if (scene_read_file(c->path, &text, &size, &ce) != 0) return -1;
  int rc = sog_parse_meta((const char *)text, size, &c->meta, &ce);
  free(text);
  sog_dir d = {c->path, c->dir_len};
  return rc != 0 ? -1 : sog_check_count_dir(&c->meta, &d, &ce);
}

/* Chunk c's ranges, by offset, cover its splats exactly: no overlap, no gap, none past its end. */
static int check_cover(const lod_read *r, const lod_chunk *c) {
  const scene_error *e = r->me;
  char tok[64];
  scene_token(tok, c->name, strlen(c->name));
  uint64_t next = 0;
  for (uint32_t k = c->first; k < c->first + c->n; ++k) {
    const lod_ref *f = &r->refs[k];
    uint64_t end = (uint64_t)f->offset + r->ranges[f->ref].n;
    if (end > c->meta.count)
      return scene_fail(e, "level %u's range [%u, %llu) of %s is past its %u splats", r->level, f->offset,
                        (unsigned long long)end, tok, c->meta.count);
    if (f->offset < next)
      return scene_fail(e, "level %u's ranges of %s overlap at splat %u (a range given twice?)", r->level, tok, f->offset);
    if (f->offset > next)
      return scene_fail(e, "level %u's ranges of %s leave its splats [%llu, %u) out", r->level, tok,
                        (unsigned long long)next, f->offset);
    next = end;
  }
  if (next < c->meta.count)
    return scene_fail(e, "level %u's ranges of %s cover %llu of its %u splats", r->level, tok,
                      (unsigned long long)next, c->meta.count);
  return 0;
}

static int by_file_id(const void *a, const void *b) {
  const lod_chunk *x = *(const lod_chunk *const *)a, *y = *(const lod_chunk *const *)b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
  return x->file < y->file ? -1 : 1;
}

/* Two file indices naming one file (the same name, or another path to it) would read its splats
 * twice. */
static int check_distinct(const lod_read *r) {
  lod_chunk **p = malloc(r->nchunks * sizeof *p);
  if (p == NULL) return scene_fail(r->me, "out of memory");
  for (uint32_t k = 0; k < r->nchunks; ++k) p[k] = &r->chunks[k];
  qsort(p, r->nchunks, sizeof *p, by_file_id);
  int rc = 0;
  for (uint32_t k = 1; k < r->nchunks && rc == 0; ++k)
    if (p[k]->dev == p[k - 1]->dev && p[k]->ino == p[k - 1]->ino) {
      char a[64], b[64];
      rc = scene_fail(r->me, "filenames[%u] '%s' and filenames[%u] '%s' are one file (its splats would be read twice)",
                      p[k - 1]->file, scene_token(a, p[k - 1]->name, strlen(p[k - 1]->name)), p[k]->file,
                      scene_token(b, p[k]->name, strlen(p[k]->name)));
    }
  free(p);
  return rc;
}

/* ---- decoding --------------------------------------------------------------------------------- */

static void copy_splats(const splat_scene *src, size_t from, splat_scene *dst, size_t to, size_t n) {
  size_t nsh = (size_t)dst->sh_coeffs * 3;
  memcpy(dst->positions + to * 3, src->positions + from * 3, n * 3 * sizeof(float));
  memcpy(dst->scales + to * 3, src->scales + from * 3, n * 3 * sizeof(float));
  memcpy(dst->rotations + to * 4, src->rotations + from * 4, n * 4 * sizeof(float));
  memcpy(dst->opacities + to, src->opacities + from, n * sizeof(float));
  memcpy(dst->sh + to * nsh, src->sh + from * nsh, n * nsh * sizeof(float));
}

/* Decodes chunk `index` (on this thread) and puts its ranges' kept splats where they go in the
 * scene; each task writes only its own ranges' places. */
static int chunk_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  lod_read *r = arg;
  lod_chunk *c = &r->chunks[index];
  scene_error ce = {c->ename, te->buf, te->size, .budget = te->budget};
  uint8_t *mark = malloc(c->meta.count);
  if (mark == NULL) return scene_fail(&ce, "out of memory");
  splat_scene s;
  sog_dir d = {c->path, c->dir_len};
  int rc = sog_decode_marked(&c->meta, sog_fetch_file, &d, &s, mark, &ce); /* s zeroed on failure */
  if (rc == 0 && s.sh_degree != r->out->sh_degree)
    rc = scene_fail(&ce, "SH degree %u, but %s's is %u (a level's chunks share one)", s.sh_degree, r->chunks[0].name,
                    r->out->sh_degree);
  if (rc == 0) {
    /* a range of the file's splats is the kept ones among them, in order, in the decoded scene */
    size_t from = 0;
    for (uint32_t k = c->first; k < c->first + c->n; ++k) {
      scene_range *g = &r->ranges[r->refs[k].ref];
      uint32_t offset = r->refs[k].offset, kept = (uint32_t)g->n;
      if (s.dropped > 0)
        for (uint32_t i = offset, end = offset + (uint32_t)g->n; i < end; ++i) kept -= !mark[i];
      copy_splats(&s, from, r->out, (size_t)g->first, kept);
      g->kept = kept;
      from += kept;
    }
    c->clamped = s.clamped;
    scene_job_done(j, c->meta.count);
  }
  splat_scene_free(&s);
  free(mark);
  return rc;
}

/* The scene's arrays, and what the chunks decoded at once take (the largest, on every thread that
 * decodes one), within the budget before anything large is allocated. */
static int check_budget(const lod_read *r, uint32_t degree, size_t text_bytes) {
  uint64_t chunk = 0;
  for (uint32_t k = 0; k < r->nchunks; ++k) {
    uint64_t b = sog_min_bytes(&r->chunks[k].meta) + r->chunks[k].meta.count;
    chunk = b > chunk ? b : chunk;
  }
  uint32_t width = scene_pool_width(r->e->pool), at_once = r->nchunks < width ? r->nchunks : width;
  uint64_t need = scene_array_bytes(r->total, degree) + chunk * at_once + text_bytes +
                  (uint64_t)r->nchunks * sizeof(lod_chunk) + (uint64_t)r->nrefs * (sizeof(lod_ref) + sizeof(scene_range));
  return scene_budget_check(r->me, need, "level %u: %llu splats at SH degree %u in %u chunks (arrays, and %u chunks "
                            "decoding at once)", r->level, (unsigned long long)r->total, degree, r->nchunks, at_once);
}

static int decode_level(lod_read *r, size_t text_bytes) {
  const scene_error *e = r->e;
  lod_chunk *first = &r->chunks[0];
  uint32_t degree;
  sog_dir d = {first->path, first->dir_len};
  scene_error fe = {first->ename, e->buf, e->size, .budget = e->budget};
  if (sog_sh_degree(&first->meta, sog_fetch_file, &d, &degree, &fe) != 0 || check_budget(r, degree, text_bytes) != 0 ||
      scene_alloc(r->out, r->total, degree, e) != 0)
    return -1;
  r->out->flags = first->meta.flags;
  if (scene_report(e, "decode", 0, r->total) != 0 || scene_run(e, "decode", r->total, r->nchunks, chunk_task, r) != 0) {
    splat_scene_free(r->out);
    return -1;
  }
  uint32_t clamped = 0;
  for (uint32_t k = 0; k < r->nchunks; ++k) clamped += r->chunks[k].clamped;
  r->out->clamped = clamped;
  uint64_t kept = scene_close_gaps(r->out, r->ranges, r->nrefs);
  return scene_finish(r->out, (uint32_t)kept, r->total, e);
}

static void lod_free(lod_read *r) {
  for (uint32_t k = 0; k < r->nchunks; ++k) {
    free(r->chunks[k].ename);
    free(r->chunks[k].path);
  }
  free(r->chunks);
  free(r->refs);
  free(r->ranges);
  free(r->filenames);
}

/* A lod-meta.json of `size` bytes: not too large to be one, and what reading it costs within the
 * budget. */
static int check_size(uint64_t size, const scene_error *me) {
  if (size > SOG_LOD_META_MAX)
    return scene_fail(me, "%llu bytes; a lod-meta.json is at most %zu (a 13.6M-splat capture's is 330 KiB)",
                      (unsigned long long)size, SOG_LOD_META_MAX);
  return scene_budget_check(me, size * LOD_BYTES_PER_BYTE, "lod-meta.json: %llu bytes of JSON (text, parsed tree "
                            "and ranges)", (unsigned long long)size);
}

int sog_load_lod(const char *path, const uint8_t *text, size_t size, splat_scene *out, const scene_error *me,
                 const scene_error *e) {
  memset(out, 0, sizeof *out);
  if (check_size(size, me) != 0) return -1;
  cJSON *root = sog_json_parse((const char *)text, size, me);
  if (root == NULL) return -1;
  lod_read r = {.me = me, .e = e, .level = e->lod_level, .out = out};
  uint32_t declared = 0;
  bool has_declared = false;
  int rc = read_lod_meta(&r, root, &declared, &has_declared);
  if (rc == 0 && r.nrefs == 0)
    rc = scene_fail(me, "level %u has no splats (no node of the tree names a range of it)", r.level);
  if (rc == 0 && has_declared && declared != r.total)
    rc = scene_fail(me, "counts[%u] is %u, but the tree's ranges of level %u add up to %llu splats", r.level, declared,
                    r.level, (unsigned long long)r.total);
  if (rc == 0) rc = group_chunks(&r);
  for (uint32_t k = 0; k < r.nchunks && rc == 0; ++k) rc = open_chunk(&r, path, &r.chunks[k]);
  cJSON_Delete(root); /* the names are in the chunks now */
  free(r.filenames);
  r.filenames = NULL;
  if (rc == 0) rc = check_distinct(&r);
  for (uint32_t k = 0; k < r.nchunks && rc == 0; ++k) {
    rc = check_cover(&r, &r.chunks[k]);
    if (rc == 0 && r.chunks[k].meta.flags != r.chunks[0].meta.flags)
      rc = scene_fail(e, "%s: 'model' differs from %s's (a level's chunks share one)", r.chunks[k].name,
                      r.chunks[0].name);
  }
  if (rc == 0) rc = decode_level(&r, size);
  lod_free(&r);
  if (rc != 0) memset(out, 0, sizeof *out);
  return rc;
}

int sog_load_lod_file(const char *path, splat_scene *out, const scene_error *me, const scene_error *e) {
  memset(out, 0, sizeof *out);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && check_size((uint64_t)st.st_size, me) != 0) return -1;
  uint8_t *text;
  size_t size;
  if (scene_read_file(path, &text, &size, me) != 0) return -1;
  int rc = sog_load_lod(path, text, size, out, me, e);
  free(text);
  return rc;
}

int scene_load_sog_lod(const char *path, splat_scene *out, const scene_error *e) {
  return sog_load_lod_file(path, out, e, e);
}
