/* scene_ply.c: PLY: the header parser, the standard 3DGS vertex layout (properties by name, any
 * scalar type; binary little-endian, or ASCII through scene_ply_ascii.c) and the
 * PlayCanvas/SuperSplat compressed layout (chunk bounds + packed vertices + optional uchar SH). */
#include "scene_common.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>

/* Real 3DGS headers are a few KiB; the limits only stop hostile input. */
enum { PLY_MAX_ELEMENTS = 64, PLY_MAX_PROPERTIES = 2048, PLY_MAX_TOKENS = 8 };
#define PLY_MAX_HEADER ((size_t)1 << 20)

enum ply_type { T_NONE, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64 };
static const uint8_t type_size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};

typedef struct ply_prop {
  const char *name;
  size_t len;
  uint8_t type;        /* of the value, or of a list's items */
  uint8_t list_count;  /* type of a list's count; T_NONE for a scalar */
  uint32_t offset;     /* in the row, for scalars of a fixed-size element */
} ply_prop;

typedef struct ply_elem {
  const char *name;
  size_t len;
  uint64_t count;
  uint32_t first, nprops;  /* into ply_header.props */
  size_t stride;           /* bytes a row, when it has no list */
  const ply_prop *list;    /* first list property, NULL when fixed-size */
  bool located;            /* its data offset is known (no list before it) */
  size_t offset;           /* of its data in the file, when located */
} ply_elem;

typedef struct ply_header {
  ply_elem elems[PLY_MAX_ELEMENTS];
  ply_prop props[PLY_MAX_PROPERTIES];
  uint32_t nelems, nprops;
  size_t data_start;
  uint64_t data_line; /* the line number of data_start */
  bool ascii;         /* format ascii 1.0 */
  bool antialiased; /* the header's comments say so (antialias_comment) */
} ply_header;

static bool tok_is(const char *s, size_t n, const char *lit) {
  size_t m = strlen(lit);
  return n == m && memcmp(s, lit, m) == 0;
}

static uint8_t parse_type(const char *s, size_t n) {
  static const struct { const char *name; uint8_t type; } names[] = {
      {"char", T_I8},    {"int8", T_I8},     {"uchar", T_U8},   {"uint8", T_U8},
      {"short", T_I16},  {"int16", T_I16},   {"ushort", T_U16}, {"uint16", T_U16},
      {"int", T_I32},    {"int32", T_I32},   {"uint", T_U32},   {"uint32", T_U32},
      {"float", T_F32},  {"float32", T_F32}, {"double", T_F64}, {"float64", T_F64},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (tok_is(s, n, names[i].name)) return names[i].type;
  return T_NONE;
}

static const char *type_name(uint8_t t) {
  static const char *const names[] = {"?", "char", "uchar", "short", "ushort", "int", "uint", "float", "double"};
  return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* Decimal, digits only; false when empty, not a number or above UINT64_MAX. */
static bool parse_u64(const char *s, size_t n, uint64_t *out) {
  if (n == 0) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t digit = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

/* One header line split at spaces and tabs; too_many when it has more than PLY_MAX_TOKENS. */
typedef struct ply_line {
  const char *tok[PLY_MAX_TOKENS];
  size_t tlen[PLY_MAX_TOKENS];
  unsigned ntok, no;
  bool too_many;
} ply_line;

static void split_line(const char *line, size_t len, ply_line *l) {
  l->ntok = 0;
  l->too_many = false;
  for (size_t i = 0; i < len;) {
    while (i < len && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == len) break;
    size_t start = i;
    while (i < len && line[i] != ' ' && line[i] != '\t') ++i;
    if (l->ntok == PLY_MAX_TOKENS) {
      l->too_many = true;
      break;
    }
    l->tok[l->ntok] = line + start;
    l->tlen[l->ntok++] = i - start;
  }
}

static bool tok_is_nocase(const char *s, size_t n, const char *lit) {
  size_t m = strlen(lit);
  if (n != m) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
    if (c != lit[i]) return false;
  }
  return true;
}

/* A header comment that says whether the scene was trained anti-aliased (the 2D filter with
 * opacity compensation, SPLAT_SCENE_ANTIALIASED). There is no PLY standard for it; two
 * producers' forms are read, as PlayCanvas splat-transform 3.2 reads them (read-ply.ts,
 * splatModelFromComments): Brush's "SplatRenderMode: mip | default | 2dgs" (brush-serde
 * export.rs writes it, import.rs reads it) and Postshot's "antialiased 1 | 0"; any case, the
 * last one in the header wins. Other comments leave *aa alone. */
static void antialias_comment(const ply_line *l, bool *aa) {
  if (l->ntok != 3) return;
  const char *v = l->tok[2];
  size_t n = l->tlen[2];
  if (tok_is_nocase(l->tok[1], l->tlen[1], "splatrendermode:")) {
    if (tok_is_nocase(v, n, "mip")) *aa = true;
    if (tok_is_nocase(v, n, "default") || tok_is_nocase(v, n, "2dgs")) *aa = false;
  } else if (tok_is_nocase(l->tok[1], l->tlen[1], "antialiased")) {
    if (tok_is(v, n, "1")) *aa = true;
    if (tok_is(v, n, "0")) *aa = false;
  }
}

static int parse_format(const ply_line *l, bool *have_format, bool *ascii, const scene_error *e) {
  char tb[64];
  if (l->ntok != 3) return scene_fail(e, "header line %u: malformed format line", l->no);
  if (*have_format) return scene_fail(e, "header line %u: second format line", l->no);
  *ascii = tok_is(l->tok[1], l->tlen[1], "ascii");
  if (tok_is(l->tok[1], l->tlen[1], "binary_big_endian"))
    return scene_fail(e, "big-endian PLY is not supported (only binary_little_endian 1.0 and ascii 1.0)");
  if (!*ascii && !tok_is(l->tok[1], l->tlen[1], "binary_little_endian"))
    return scene_fail(e, "unknown PLY format '%s'", scene_token(tb, l->tok[1], l->tlen[1]));
  if (!tok_is(l->tok[2], l->tlen[2], "1.0"))
    return scene_fail(e, "unsupported PLY version '%s' (expected 1.0)", scene_token(tb, l->tok[2], l->tlen[2]));
  *have_format = true;
  return 0;
}

static int parse_element(const ply_line *l, ply_header *h, const scene_error *e) {
  char tb[64], tb2[64];
  if (l->ntok != 3) return scene_fail(e, "header line %u: malformed element line", l->no);
  if (h->nelems == PLY_MAX_ELEMENTS)
    return scene_fail(e, "too many elements in the header (more than %d)", PLY_MAX_ELEMENTS);
  ply_elem *el = &h->elems[h->nelems++];
  memset(el, 0, sizeof *el);
  el->name = l->tok[1];
  el->len = l->tlen[1];
  el->first = h->nprops;
  if (!parse_u64(l->tok[2], l->tlen[2], &el->count))
    return scene_fail(e, "element '%s': count '%s' is not a number or too large",
                      scene_token(tb, l->tok[1], l->tlen[1]), scene_token(tb2, l->tok[2], l->tlen[2]));
  return 0;
}

static int parse_property(const ply_line *l, ply_header *h, const scene_error *e) {
  char tb[64];
  if (h->nelems == 0) return scene_fail(e, "header line %u: property before any element", l->no);
  ply_elem *el = &h->elems[h->nelems - 1];
  if (h->nprops == PLY_MAX_PROPERTIES)
    return scene_fail(e, "too many properties in the header (more than %d)", PLY_MAX_PROPERTIES);
  ply_prop *p = &h->props[h->nprops];
  memset(p, 0, sizeof *p);
  unsigned tname;
  if (l->ntok >= 2 && tok_is(l->tok[1], l->tlen[1], "list")) {
    if (l->ntok != 5) return scene_fail(e, "header line %u: malformed list property line", l->no);
    p->list_count = parse_type(l->tok[2], l->tlen[2]);
    p->type = parse_type(l->tok[3], l->tlen[3]);
    if (p->list_count == T_NONE || p->list_count == T_F32 || p->list_count == T_F64)
      return scene_fail(e, "header line %u: bad list count type '%s'", l->no,
                        scene_token(tb, l->tok[2], l->tlen[2]));
    if (p->type == T_NONE)
      return scene_fail(e, "header line %u: unknown property type '%s'", l->no,
                        scene_token(tb, l->tok[3], l->tlen[3]));
    tname = 4;
    if (el->list == NULL) el->list = p;
  } else {
    if (l->ntok != 3) return scene_fail(e, "header line %u: malformed property line", l->no);
    p->type = parse_type(l->tok[1], l->tlen[1]);
    if (p->type == T_NONE)
      return scene_fail(e, "header line %u: unknown property type '%s'", l->no,
                        scene_token(tb, l->tok[1], l->tlen[1]));
    tname = 2;
    p->offset = (uint32_t)el->stride;
    el->stride += type_size[p->type];
  }
  p->name = l->tok[tname];
  p->len = l->tlen[tname];
  ++h->nprops;
  ++el->nprops;
  return 0;
}

/* Places each element's data; an element after a variable-size one cannot be placed. */
static int place_elements(ply_header *h, const scene_error *e) {
  char tb[64];
  size_t off = h->data_start;
  for (uint32_t i = 0; i < h->nelems; ++i) {
    ply_elem *el = &h->elems[i];
    el->located = true;
    el->offset = off;
    if (el->list != NULL) break;
    size_t bytes;
    if (el->count > SIZE_MAX || !scene_mul((size_t)el->count, el->stride, &bytes) ||
        !scene_add(off, bytes, &off))
      return scene_fail(e, "element '%s': %llu rows of %zu bytes overflow the address space",
                        scene_token(tb, el->name, el->len), (unsigned long long)el->count, el->stride);
  }
  return 0;
}

static int parse_header(const uint8_t *d, size_t size, ply_header *h, const scene_error *e) {
  char tb[64];
  size_t pos = d[3] == '\n' ? 4 : 5;
  size_t limit = size < PLY_MAX_HEADER ? size : PLY_MAX_HEADER;
  bool have_format = false;
  ply_line l = {.no = 1};
  for (;;) {
    ++l.no;
    const uint8_t *nl = pos < limit ? memchr(d + pos, '\n', limit - pos) : NULL;
    if (nl == NULL) {
      if (size > PLY_MAX_HEADER)
        return scene_fail(e, "header too long: no end_header line in the first %zu KiB",
                          PLY_MAX_HEADER >> 10);
      return scene_fail(e, "truncated header: missing end_header line (file ends at line %u)", l.no);
    }
    const char *line = (const char *)d + pos;
    size_t len = (size_t)(nl - (d + pos));
    pos += len + 1;
    if (len > 0 && line[len - 1] == '\r') --len;
    split_line(line, len, &l);
    if (l.ntok == 0) continue;
    if (tok_is(l.tok[0], l.tlen[0], "comment")) {
      antialias_comment(&l, &h->antialiased);
      continue;
    }
    if (tok_is(l.tok[0], l.tlen[0], "obj_info")) continue;
    if (l.too_many)
      return scene_fail(e, "header line %u ('%s ...') has too many words", l.no,
                        scene_token(tb, l.tok[0], l.tlen[0]));
    int rc;
    if (tok_is(l.tok[0], l.tlen[0], "end_header")) {
      if (l.ntok != 1) return scene_fail(e, "header line %u: malformed end_header line", l.no);
      h->data_start = pos;
      h->data_line = l.no + 1;
      break;
    } else if (tok_is(l.tok[0], l.tlen[0], "format")) {
      rc = parse_format(&l, &have_format, &h->ascii, e);
    } else if (tok_is(l.tok[0], l.tlen[0], "element")) {
      rc = parse_element(&l, h, e);
    } else if (tok_is(l.tok[0], l.tlen[0], "property")) {
      rc = parse_property(&l, h, e);
    } else {
      return scene_fail(e, "header line %u: unexpected keyword '%s'", l.no, scene_token(tb, l.tok[0], l.tlen[0]));
    }
    if (rc != 0) return rc;
  }
  if (!have_format) return scene_fail(e, "missing format line in the PLY header");
  if (h->nelems == 0) return scene_fail(e, "no elements in the PLY header");
  return h->ascii ? 0 : place_elements(h, e); /* ASCII rows are lines: no byte offsets */
}

/* Every element placed and of fixed size must fit in the file: a header that
 * promises more rows than the data holds is an error, even after the vertices.
 * Checked after the properties, so a bad header is reported as such first. */
static int check_sizes(const ply_header *h, size_t size, const scene_error *e) {
  char tb[64];
  for (uint32_t i = 0; i < h->nelems; ++i) {
    const ply_elem *el = &h->elems[i];
    if (!el->located || el->list != NULL) break;
    size_t bytes = (size_t)el->count * el->stride; /* checked in parse_header */
    if (el->offset + bytes <= size) continue;
    size_t left = el->offset < size ? size - el->offset : 0;
    if (tok_is(el->name, el->len, "vertex"))
      return scene_fail(e, "truncated: the header says %llu splats of %zu bytes (%zu bytes) but "
                           "only %zu bytes of data follow",
                        (unsigned long long)el->count, el->stride, bytes, left);
    return scene_fail(e, "truncated: element '%s' needs %zu bytes (%llu rows of %zu) but only "
                         "%zu bytes of data are left",
                      scene_token(tb, el->name, el->len), bytes, (unsigned long long)el->count,
                      el->stride, left);
  }
  return 0;
}

static const ply_elem *find_elem(const ply_header *h, const char *name, const scene_error *e,
                                 int *rc) {
  const ply_elem *found = NULL;
  *rc = 0;
  for (uint32_t i = 0; i < h->nelems; ++i) {
    if (!tok_is(h->elems[i].name, h->elems[i].len, name)) continue;
    if (found != NULL) {
      *rc = scene_fail(e, "more than one element '%s'", name);
      return NULL;
    }
    found = &h->elems[i];
  }
  return found;
}

/* The element must have fixed-size rows at a known place to be read. */
static int check_readable(const ply_header *h, const ply_elem *el, const scene_error *e) {
  char tb[64], tb2[64], tb3[64];
  if (el->list != NULL)
    return scene_fail(e, "element '%s' has the variable-size list property '%s', which is not supported",
                      scene_token(tb, el->name, el->len), scene_token(tb2, el->list->name, el->list->len));
  if (!el->located) {
    for (const ply_elem *p = h->elems; p < el; ++p)
      if (p->list != NULL)
        return scene_fail(e, "element '%s' comes after element '%s' with the variable-size list "
                             "property '%s', so its data cannot be found",
                          scene_token(tb, el->name, el->len), scene_token(tb2, p->name, p->len),
                          scene_token(tb3, p->list->name, p->list->len));
    return scene_fail(e, "element data cannot be located");
  }
  return 0;
}

static const ply_prop *find_prop(const ply_header *h, const ply_elem *el, const char *name) {
  for (uint32_t i = 0; i < el->nprops; ++i) {
    const ply_prop *p = &h->props[el->first + i];
    if (tok_is(p->name, p->len, name)) return p;
  }
  return NULL;
}

static inline float read_value(const uint8_t *p, uint8_t type) {
  switch (type) {
  case T_I8: return (float)(int8_t)p[0];
  case T_U8: return (float)p[0];
  case T_I16: { int16_t v; memcpy(&v, p, 2); return (float)v; }
  case T_U16: { uint16_t v; memcpy(&v, p, 2); return (float)v; }
  case T_I32: { int32_t v; memcpy(&v, p, 4); return (float)v; }
  case T_U32: { uint32_t v; memcpy(&v, p, 4); return (float)v; }
  case T_F32: { float v; memcpy(&v, p, 4); return v; }
  case T_F64: {
    double v;
    memcpy(&v, p, 8);
    /* Out of float range becomes +-inf (then the policy applies), NaN stays NaN. */
    if (v > FLT_MAX) return INFINITY;
    if (v < -FLT_MAX) return -INFINITY;
    return (float)v;
  }
  default: return NAN;
  }
}

/* "f_rest_<n>" with n in canonical decimal; -1 otherwise. */
static long rest_index(const char *s, size_t n) {
  if (n < 8 || memcmp(s, "f_rest_", 7) != 0) return -1;
  if (n > 12 || (s[7] == '0' && n > 8)) return -1;
  long v = 0;
  for (size_t i = 7; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* Finds f_rest_0..f_rest_{n-1} in el (n = 0, 9, 24 or 45); props[i] gets f_rest_i. */
static int find_rest(const ply_header *h, const ply_elem *el, const ply_prop *props[45],
                     uint32_t *n_rest, const scene_error *e) {
  uint32_t n = 0;
  for (int i = 0; i < 45; ++i) props[i] = NULL;
  for (uint32_t i = 0; i < el->nprops; ++i) {
    const ply_prop *p = &h->props[el->first + i];
    long k = rest_index(p->name, p->len);
    if (k < 0) continue;
    if (k >= 45)
      return scene_fail(e, "property f_rest_%ld: SH degree above 3 is not supported", k);
    if (props[k] != NULL) return scene_fail(e, "duplicate property 'f_rest_%ld'", k);
    props[k] = p;
    ++n;
  }
  if (n != 0 && n != 9 && n != 24 && n != 45)
    return scene_fail(e, "%u f_rest_* properties: expected 0, 9, 24 or 45 (SH degree 0 to 3)", n);
  for (uint32_t k = 0; k < n; ++k)
    if (props[k] == NULL)
      return scene_fail(e, "property f_rest_%u is missing (found %u f_rest_* properties)", k, n);
  *n_rest = n;
  return 0;
}

static uint32_t degree_of(uint32_t n_rest) {
  return n_rest == 0 ? 0 : n_rest == 9 ? 1 : n_rest == 24 ? 2 : 3;
}

/* Reports every name in `names` whose prop is NULL; -1 when any is. */
static int report_missing(const char *const *names, const ply_prop *const *props, int n,
                          const char *where, const scene_error *e) {
  char list[256] = "";
  int missing = 0;
  for (int i = 0; i < n; ++i) {
    if (props[i] != NULL) continue;
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s'%s'", missing ? ", " : "", names[i]);
    ++missing;
  }
  if (missing == 0) return 0;
  return scene_fail(e, "missing required propert%s %s in element %s", missing > 1 ? "ies" : "y", list, where);
}

/* ---- standard 3DGS --------------------------------------------------------- */

/* Fields of a row in the order they are gathered: x y z, raw scale 0..2, rot 0..3,
 * opacity, then the SH interleaved: f_dc_0..2, then (k, c) for k >= 1. */
enum { F_POS = 0, F_SCALE = 3, F_ROT = 6, F_OPACITY = 10, F_SH = 11, F_MAX = 11 + 16 * 3 };

/* Where a row's fields are: byte offsets and types, in the order above. */
typedef struct ply_layout {
  uint32_t off[F_MAX];
  uint8_t type[F_MAX];
  uint32_t nf;
} ply_layout;

static inline void decode_3dgs(const scene_rows *r, const uint8_t *base, uint64_t n, splat_scene *s,
                               uint64_t *slot, uint32_t *clamped, bool all_float) {
  const ply_layout *L = r->ctx;
  const uint32_t *off = L->off, nf = L->nf;
  const uint8_t *type = L->type;
  const size_t stride = r->stride;
  const uint32_t nsh = s->sh_coeffs * 3;
  uint32_t kept = (uint32_t)*slot, clamps = 0;
  float v[F_SH];
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *row = base + i * stride;
    /* The SH go straight to the kept slot; one running max checks them all. */
    float *sh = s->sh + (size_t)kept * nsh;
    uint32_t sh_max = 0;
    for (uint32_t j = 0; j < F_SH; ++j) {
      if (all_float)
        memcpy(&v[j], row + off[j], sizeof(float));
      else
        v[j] = read_value(row + off[j], type[j]);
    }
    for (uint32_t j = F_SH; j < nf; ++j) {
      float x;
      if (all_float)
        memcpy(&x, row + off[j], sizeof x);
      else
        x = read_value(row + off[j], type[j]);
      sh[j - F_SH] = x;
      uint32_t b = scene_abs_bits(x);
      sh_max = b > sh_max ? b : sh_max;
    }
    if (sh_max >= SCENE_NONFINITE) continue;
    float scale[3];
    for (int c = 0; c < 3; ++c)
      scale[c] = scene_finite(v[F_SCALE + c]) ? expf(v[F_SCALE + c]) : NAN;
    float o = v[F_OPACITY], opacity;
    bool clamp = false;
    if (scene_finite(o)) {
      opacity = 1.0f / (1.0f + expf(-o));
    } else if (isnan(o)) {
      opacity = o;
    } else {
      opacity = o > 0.0f ? 1.0f : 0.0f;
      clamp = true;
    }
    if (scene_put_core(s, kept, v + F_POS, scale, v + F_ROT, opacity)) {
      ++kept;
      clamps += clamp;
    }
  }
  *slot = kept;
  *clamped += clamps;
}

/* The all-float layout (every 3DGS trainer's) gets its own copy of the loop, without the
 * per-value type switch. */
static void decode_3dgs_float(const scene_rows *r, const uint8_t *rows, uint64_t n, splat_scene *s, uint64_t *slot,
                              uint32_t *clamped) {
  decode_3dgs(r, rows, n, s, slot, clamped, true);
}
static void decode_3dgs_any(const scene_rows *r, const uint8_t *rows, uint64_t n, splat_scene *s, uint64_t *slot,
                            uint32_t *clamped) {
  decode_3dgs(r, rows, n, s, slot, clamped, false);
}

/* The vertex element's layout and rows (rows->ctx = L); the header's property errors. */
static int plan_3dgs(const ply_header *h, const ply_elem *el, ply_layout *L, scene_rows *rows,
                     const scene_error *e) {
  static const char *const names[14] = {"x", "y", "z", "scale_0", "scale_1", "scale_2", "rot_0",
                                        "rot_1", "rot_2", "rot_3", "opacity", "f_dc_0", "f_dc_1", "f_dc_2"};
  const ply_prop *req[14];
  for (int i = 0; i < 14; ++i) {
    req[i] = NULL;
    for (uint32_t j = 0; j < el->nprops; ++j) {
      const ply_prop *p = &h->props[el->first + j];
      if (!tok_is(p->name, p->len, names[i])) continue;
      if (req[i] != NULL) return scene_fail(e, "duplicate property '%s' in element vertex", names[i]);
      req[i] = p;
    }
  }
  if (report_missing(names, req, 14, "vertex", e) != 0) return -1;
  const ply_prop *rest[45];
  uint32_t n_rest;
  if (find_rest(h, el, rest, &n_rest, e) != 0) return -1;
  uint32_t degree = degree_of(n_rest), coeffs = (degree + 1) * (degree + 1);

  const ply_prop *field[F_MAX];
  for (int i = 0; i < 11; ++i) field[i] = req[i];
  for (int c = 0; c < 3; ++c) field[F_SH + c] = req[11 + c];
  for (uint32_t k = 1; k < coeffs; ++k)
    for (uint32_t c = 0; c < 3; ++c) field[F_SH + k * 3 + c] = rest[c * (coeffs - 1) + (k - 1)];
  L->nf = F_SH + coeffs * 3;
  bool all_float = true;
  for (uint32_t j = 0; j < L->nf; ++j) {
    L->off[j] = field[j]->offset;
    L->type[j] = field[j]->type;
    all_float &= L->type[j] == T_F32;
  }
  *rows = (scene_rows){.count = el->count, .offset = el->offset, .stride = el->stride, .sh_degree = degree,
                       .decode = all_float ? decode_3dgs_float : decode_3dgs_any, .ctx = L};
  return 0;
}

static int load_3dgs(const uint8_t *d, size_t size, const ply_header *h, const ply_elem *el, splat_scene *out,
                     const scene_error *e) {
  ply_layout L;
  scene_rows rows;
  if (plan_3dgs(h, el, &L, &rows, e) != 0 || check_sizes(h, size, e) != 0) return -1;
  return scene_decode_memory(d, &rows, out, e);
}

/* ---- PlayCanvas / SuperSplat compressed PLY -------------------------------- */

enum { CHUNK_SPLATS = 256 };

/* One splat of a compressed PLY from its four packed words and its chunk's ranges cv: position
 * 11-10-11 and log-scale 11-10-11 between the chunk's min and max, rotation "largest three"
 * 2-10-10-10, colour and opacity 8 bits each (colour in the chunk's range). */
static void decode_packed(const uint32_t pk[4], const float cv[18], float p[3], float s[3], float q[4], float sh[3],
                          float *opacity) {
  const float sqrt2 = 1.41421356237309505f;
  float t[3];
  t[0] = (float)((pk[0] >> 21) & 2047) / 2047.0f;
  t[1] = (float)((pk[0] >> 11) & 1023) / 1023.0f;
  t[2] = (float)(pk[0] & 2047) / 2047.0f;
  for (int c = 0; c < 3; ++c) p[c] = cv[c] * (1.0f - t[c]) + cv[3 + c] * t[c];
  t[0] = (float)((pk[2] >> 21) & 2047) / 2047.0f;
  t[1] = (float)((pk[2] >> 11) & 1023) / 1023.0f;
  t[2] = (float)(pk[2] & 2047) / 2047.0f;
  for (int c = 0; c < 3; ++c) s[c] = expf(cv[6 + c] * (1.0f - t[c]) + cv[9 + c] * t[c]);

  /* Rotation 2-10-10-10: index of the largest of (w,x,y,z), then the other three in
   * order, each in [-1/sqrt2, 1/sqrt2]; the largest is the positive remainder. */
  float abc[3], sum = 0.0f;
  for (int j = 0; j < 3; ++j) {
    abc[j] = ((float)((pk[1] >> (20 - 10 * j)) & 1023) / 1023.0f - 0.5f) * sqrt2;
    sum += abc[j] * abc[j];
  }
  uint32_t largest = pk[1] >> 30;
  float m = sum < 1.0f ? sqrtf(1.0f - sum) : 0.0f;
  for (uint32_t j = 0, k = 0; j < 4; ++j) q[j] = j == largest ? m : abc[k++];

  for (int c = 0; c < 3; ++c) {
    float col = (float)((pk[3] >> (24 - 8 * c)) & 255) / 255.0f;
    col = cv[12 + c] * (1.0f - col) + cv[15 + c] * col;
    sh[c] = (float)((col - 0.5) / SPLAT_SH_C0);
  }
  *opacity = (float)(pk[3] & 255) / 255.0f;
}

/* Where a compressed PLY's elements and properties are, for decode_packed_range. */
typedef struct packed_ctx {
  const uint8_t *cbase, *vbase, *sbase; /* chunk, vertex and sh rows (sbase NULL: no sh) */
  size_t chunk_stride, vertex_stride, sh_stride;
  uint32_t cp_off[18];  /* the chunk's min/max properties (cnames); type T_NONE: absent */
  uint8_t cp_type[18];
  uint32_t vp_off[4];   /* packed_position, _rotation, _scale, _color */
  uint32_t rest_off[45];
  bool colour_range;
  uint32_t coeffs;
} packed_ctx;

/* Splats [r->first, r->first + r->n) into slots from r->first on (scene_decode_ranges); the
 * chunk's ranges read at the range's first splat and at each chunk start. */
static int decode_packed_range(void *ctx, uint32_t index, scene_range *r, splat_scene *out, scene_job *j,
                               const scene_error *te) {
  (void)index, (void)j, (void)te;
  const packed_ctx *c = ctx;
  const uint32_t coeffs = c->coeffs;
  uint64_t kept = r->first;
  float cv[18];
  for (uint64_t i = r->first; i < r->first + r->n; ++i) {
    if (i % CHUNK_SPLATS == 0 || i == r->first) {
      const uint8_t *row = c->cbase + (i / CHUNK_SPLATS) * c->chunk_stride;
      for (int k = 0; k < 18; ++k) cv[k] = c->cp_type[k] != T_NONE ? read_value(row + c->cp_off[k], c->cp_type[k]) : 0.0f;
      if (!c->colour_range) {
        for (int k = 12; k < 15; ++k) cv[k] = 0.0f;
        for (int k = 15; k < 18; ++k) cv[k] = 1.0f;
      }
    }
    const uint8_t *row = c->vbase + i * c->vertex_stride;
    uint32_t pk[4];
    for (int k = 0; k < 4; ++k) memcpy(&pk[k], row + c->vp_off[k], 4);
    float p[3], s[3], q[4], sh[48], opacity;
    decode_packed(pk, cv, p, s, q, sh, &opacity);
    if (c->sbase != NULL) {
      const uint8_t *srow = c->sbase + i * c->sh_stride;
      for (uint32_t k = 0; k < (coeffs - 1) * 3; ++k) sh[3 + k] = (float)srow[c->rest_off[k]] * (8.0f / 255.0f) - 4.0f;
    }
    kept += scene_put(out, (uint32_t)kept, p, s, q, opacity, sh, coeffs * 3);
  }
  r->kept = kept - r->first;
  return 0;
}

static int load_compressed(const uint8_t *d, size_t size, const ply_header *h, const ply_elem *vertex,
                           splat_scene *out, const scene_error *e) {
  char tb[64];
  int rc;
  const ply_elem *chunk = find_elem(h, "chunk", e, &rc);
  if (rc != 0) return rc;
  if (chunk == NULL)
    return scene_fail(e, "compressed PLY (packed_* properties) without a 'chunk' element");
  if (check_readable(h, chunk, e) != 0) return -1;

  static const char *const cnames[18] = {
      "min_x", "min_y", "min_z", "max_x", "max_y", "max_z",
      "min_scale_x", "min_scale_y", "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z",
      "min_r", "min_g", "min_b", "max_r", "max_g", "max_b"};
  const ply_prop *cp[18];
  int ncolour = 0;
  for (int i = 0; i < 18; ++i) {
    cp[i] = find_prop(h, chunk, cnames[i]);
    ncolour += i >= 12 && cp[i] != NULL;
  }
  if (report_missing(cnames, cp, 12, "chunk", e) != 0) return -1;
  bool colour_range = ncolour == 6;
  if (ncolour != 0 && ncolour != 6 && report_missing(cnames + 12, cp + 12, 6, "chunk (colour range)", e) != 0)
    return -1;

  static const char *const vnames[4] = {"packed_position", "packed_rotation", "packed_scale", "packed_color"};
  const ply_prop *vp[4];
  for (int i = 0; i < 4; ++i) vp[i] = find_prop(h, vertex, vnames[i]);
  if (report_missing(vnames, vp, 4, "vertex", e) != 0) return -1;
  for (int i = 0; i < 4; ++i)
    if (vp[i]->type != T_U32 && vp[i]->type != T_I32)
      return scene_fail(e, "compressed PLY: property %s is '%s', expected a 32-bit 'uint'", vnames[i],
                        type_name(vp[i]->type));

  uint64_t n = vertex->count;
  uint64_t chunks_needed = (n + CHUNK_SPLATS - 1) / CHUNK_SPLATS;
  if (chunk->count < chunks_needed)
    return scene_fail(e, "compressed PLY: %llu chunks for %llu splats, which need %llu (256 a chunk)",
                      (unsigned long long)chunk->count, (unsigned long long)n,
                      (unsigned long long)chunks_needed);

  const ply_elem *sh_el = find_elem(h, "sh", e, &rc);
  if (rc != 0) return rc;
  const ply_prop *rest[45];
  uint32_t n_rest = 0;
  if (sh_el != NULL) {
    if (check_readable(h, sh_el, e) != 0) return -1;
    if (sh_el->count != n)
      return scene_fail(e, "compressed PLY: element sh has %llu rows for %llu splats",
                        (unsigned long long)sh_el->count, (unsigned long long)n);
    if (find_rest(h, sh_el, rest, &n_rest, e) != 0) return -1;
    for (uint32_t k = 0; k < n_rest; ++k)
      if (rest[k]->type != T_U8)
        return scene_fail(e, "compressed PLY: property %s is '%s', expected 'uchar'",
                          scene_token(tb, rest[k]->name, rest[k]->len), type_name(rest[k]->type));
  }
  uint32_t degree = degree_of(n_rest), coeffs = (degree + 1) * (degree + 1);
  /* rest_off[(k-1)*3 + c]: byte of coefficient k, channel c in an sh row. */
  uint32_t rest_off[45] = {0};
  for (uint32_t k = 1; k < coeffs; ++k)
    for (uint32_t c = 0; c < 3; ++c) rest_off[(k - 1) * 3 + c] = rest[c * (coeffs - 1) + (k - 1)]->offset;

  if (check_sizes(h, size, e) != 0 || scene_alloc(out, n, degree, e) != 0) return -1;
  packed_ctx c = {.cbase = d + chunk->offset, .vbase = d + vertex->offset, .sbase = sh_el ? d + sh_el->offset : NULL,
                  .chunk_stride = chunk->stride, .vertex_stride = vertex->stride,
                  .sh_stride = sh_el ? sh_el->stride : 0, .colour_range = colour_range, .coeffs = coeffs};
  for (int j = 0; j < 18; ++j) {
    c.cp_off[j] = cp[j] ? cp[j]->offset : 0;
    c.cp_type[j] = cp[j] ? cp[j]->type : T_NONE;
  }
  for (int j = 0; j < 4; ++j) c.vp_off[j] = vp[j]->offset;
  memcpy(c.rest_off, rest_off, sizeof rest_off);
  uint32_t nranges, kept = 0;
  scene_range *ranges = NULL;
  rc = scene_report(e, "decode", 0, n);
  if (rc == 0) rc = (ranges = scene_split(n, e, &nranges)) == NULL ? -1 : 0;
  if (rc == 0) rc = scene_decode_ranges(out, n, ranges, nranges, decode_packed_range, &c, e, &kept);
  free(ranges);
  if (rc != 0) {
    splat_scene_free(out);
    return -1;
  }
  return scene_finish(out, kept, n, e);
}

/* ---- ASCII ------------------------------------------------------------------------------- */

/* How an ASCII value of PLY type t is read: floats as floats, integers in the type's range. */
static scene_ascii_value ascii_value(uint8_t t) {
  static const int64_t lo[] = {0, INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0}, hi[] = {0, INT8_MAX, UINT8_MAX, INT16_MAX,
                                                                                 UINT16_MAX, INT32_MAX, UINT32_MAX};
  if (t == T_F32) return (scene_ascii_value){SCENE_VALUE_F32, 0, 0};
  if (t == T_F64 || t == T_NONE) return (scene_ascii_value){SCENE_VALUE_F64, 0, 0};
  return (scene_ascii_value){SCENE_VALUE_INT, lo[t], hi[t]};
}

/* The standard 3DGS layout in ASCII: a line a row. The rows of elements before vertex are
 * skipped a line each; the vertex properties become floats at 4 * their index, so the binary
 * row decoder (and its policy) reads the parsed rows. */
static int load_ascii(const uint8_t *d, size_t size, ply_header *h, const ply_elem *vertex, splat_scene *out,
                      const scene_error *e) {
  char tb[64], tb2[64];
  if (vertex->list != NULL)
    return scene_fail(e, "element '%s' has the variable-size list property '%s', which is not supported",
                      scene_token(tb, vertex->name, vertex->len), scene_token(tb2, vertex->list->name, vertex->list->len));
  if (find_prop(h, vertex, "packed_position") != NULL)
    return scene_fail(e, "an ASCII PLY with packed_* properties: the compressed layout is read only in binary");
  size_t at = h->data_start;
  uint64_t line = h->data_line;
  for (const ply_elem *el = h->elems; el < vertex; ++el)
    for (uint64_t i = 0; i < el->count; ++i, ++line) {
      const uint8_t *nl = at < size ? memchr(d + at, '\n', size - at) : NULL;
      if (nl == NULL)
        return scene_fail(e, "truncated: the file ends at line %llu, inside the %llu rows of element '%s'",
                          (unsigned long long)line, (unsigned long long)el->count, scene_token(tb, el->name, el->len));
      at = (size_t)(nl - d) + 1;
    }
  scene_ascii_value *values = malloc((vertex->nprops + 1) * sizeof *values);
  if (values == NULL) return scene_fail(e, "out of memory for the vertex properties");
  for (uint32_t j = 0; j < vertex->nprops; ++j) {
    ply_prop *p = &h->props[vertex->first + j];
    values[j] = ascii_value(p->type);
    p->offset = 4 * j;
    p->type = T_F32;
  }
  ply_layout L;
  scene_rows rows;
  int rc = plan_3dgs(h, vertex, &L, &rows, e);
  if (rc == 0) {
    rows.offset = 0;
    rows.stride = 4 * (size_t)vertex->nprops;
    scene_ascii a = {at, line, vertex->count, vertex->nprops, values, vertex == &h->elems[h->nelems - 1]};
    rc = scene_decode_ascii(d, size, &a, &rows, out, e);
  }
  free(values);
  return rc;
}

int scene_load_ply(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e) {
  ply_header *h = malloc(sizeof *h);
  if (h == NULL) return scene_fail(e, "out of memory for the PLY header");
  h->nelems = h->nprops = 0;
  h->antialiased = h->ascii = false;
  int rc = parse_header(data, size, h, e);
  const ply_elem *vertex = NULL;
  if (rc == 0) vertex = find_elem(h, "vertex", e, &rc);
  if (rc == 0 && vertex == NULL) rc = scene_fail(e, "no element 'vertex' in the PLY header");
  if (rc == 0 && !h->ascii) rc = check_readable(h, vertex, e);
  if (rc == 0 && vertex->count == 0) rc = scene_fail(e, "no splats: element vertex has count 0");
  if (rc == 0) {
    bool compressed = find_prop(h, vertex, "packed_position") != NULL ||
                      (find_prop(h, vertex, "x") == NULL && find_elem(h, "chunk", e, &rc) != NULL);
    if (h->ascii)
      rc = load_ascii(data, size, h, vertex, out, e);
    else if (compressed)
      rc = load_compressed(data, size, h, vertex, out, e);
    else
      rc = load_3dgs(data, size, h, vertex, out, e);
  }
  if (rc == 0 && h->antialiased) out->flags |= SPLAT_SCENE_ANTIALIASED;
  free(h);
  return rc;
}

/* Reads the header (at most PLY_MAX_HEADER bytes) and checks it quietly: whether the file is a
 * binary 3DGS .ply the pieces path takes, with its layout and rows. */
static bool plan_file(int fd, size_t size, uint8_t *head, ply_header *h, ply_layout *L, scene_rows *rows,
                      const scene_error *e) {
  size_t head_size = size < PLY_MAX_HEADER ? size : PLY_MAX_HEADER, got = 0;
  while (got < head_size) {
    ssize_t k = pread(fd, head + got, head_size - got, (off_t)got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    got += (size_t)k;
  }
  const scene_error quiet = {e->name, NULL, 0, NULL};
  h->nelems = h->nprops = 0;
  h->antialiased = h->ascii = false;
  if (head_size < 5 || memcmp(head, "ply", 3) != 0 || parse_header(head, head_size, h, &quiet) != 0 || h->ascii)
    return false;
  int rc;
  const ply_elem *vertex = find_elem(h, "vertex", &quiet, &rc);
  if (rc != 0 || vertex == NULL || check_readable(h, vertex, &quiet) != 0 || vertex->count == 0) return false;
  bool compressed = find_prop(h, vertex, "packed_position") != NULL ||
                    (find_prop(h, vertex, "x") == NULL && find_elem(h, "chunk", &quiet, &rc) != NULL);
  return rc == 0 && !compressed && plan_3dgs(h, vertex, L, rows, &quiet) == 0;
}

/* The file in pieces. A header the pieces path does not take (an error, a compressed PLY) goes
 * to the whole-file path, which reports it as it does from memory. */
int scene_load_ply_file(int fd, size_t size, unsigned threads, splat_scene *out, const scene_error *e) {
  uint8_t *head = malloc(size < PLY_MAX_HEADER ? size : PLY_MAX_HEADER);
  ply_header *h = malloc(sizeof *h);
  ply_layout L;
  scene_rows rows;
  bool take = head != NULL && h != NULL && plan_file(fd, size, head, h, &L, &rows, e);
  /* From here on the errors are the whole-file path's, in its order. */
  int rc = !take ? SCENE_FALLBACK : check_sizes(h, size, e);
  bool aa = take && h->antialiased;
  free(head);
  free(h);
  if (rc != 0) return rc;
  rows.flags = aa ? SPLAT_SCENE_ANTIALIASED : 0;
  return scene_decode_file(fd, size, &rows, threads, out, e);
}
