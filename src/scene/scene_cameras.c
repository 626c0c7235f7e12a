/* scene_cameras.c: the reader of the cameras.json that 3DGS training writes (camera_to_JSON in
 * utils/camera_utils.py; splat_cameras_load in splat_scene.h). cJSON builds the tree; a token
 * walk over the same text first holds the file to strict JSON and names where an error is and
 * what was expected. CPU only: the pose becomes a camera in the renderer (splat_camera_from_desc).
 *
 * The format: a JSON array with one object a camera,
 *   {"id": 0, "img_name": "DSC_0001", "width": 1959, "height": 1090,
 *    "position": [x, y, z], "rotation": [[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]],
 *    "fy": 1164.6, "fx": 1159.6}
 * position the camera centre in world space, rotation camera-to-world (its columns the camera's
 * x right, y down, z forward axes), fx and fy in pixels at width x height. */
#include "splat_scene.h"

#include <cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_FILE ((size_t)256 << 20)
#define JSON_MAX_DEPTH 64
/* cJSON makes a 64-byte node a value: a bound on values bounds the tree (64 MiB) whatever the
 * file holds (40 MB of "0," was 20 million nodes). A camera has 25 values; 3DGS datasets have
 * hundreds to a few thousand. */
#define JSON_MAX_VALUES ((size_t)1 << 20)
#define NO_CAMERA UINT32_MAX

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif


/* Length of the valid UTF-8 sequence at s[0..n), or 0 if it is not valid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (n < len) return 0;
  for (size_t k = 1; k < len; k++) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[k] & 0x3Fu);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

/* A member name (valid UTF-8: the walk checked it) for a one-line message: at most n-1
 * bytes, cut between characters, never inside one; control characters (C0, DEL and C1:
 * newlines, terminal escapes) and the line and paragraph separators U+2028/U+2029 shown as
 * '?'; NULL gives "". */
static void printable(char *out, size_t n, const char *s) {
  size_t k = 0, len = s ? strlen(s) : 0;
  for (size_t i = 0; i < len;) {
    const unsigned char *c = (const unsigned char *)s + i;
    size_t m = utf8_len(c, len - i);
    int shown = m > 0 && c[0] >= 0x20 && c[0] != 0x7F && !(m == 2 && c[0] == 0xC2 && c[1] < 0xA0) &&
                !(m == 3 && c[0] == 0xE2 && c[1] == 0x80 && (c[2] == 0xA8 || c[2] == 0xA9));
    if (m == 0) m = 1;
    size_t w = shown ? m : 1;
    if (k + w + 1 > n) break;
    if (shown)
      memcpy(out + k, c, m);
    else
      out[k] = '?';
    k += w;
    i += m;
  }
  out[k] = 0;
}

/* Every message, made printable as a whole (the file's path too: a name with an escape
 * sequence must not reach the terminal as one). */
static void set_err(char *err, size_t err_size, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void set_err(char *err, size_t err_size, const char *fmt, ...) {
  if (!err || err_size == 0) return;
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  printable(err, err_size, line);
}

/* The text being read: `start` is 3 after a UTF-8 byte order mark (not JSON, but editors add
 * one; columns on the first line count from after it). */
typedef struct json_doc {
  const char *name, *text;
  size_t size, start;
  const cJSON *root;
} json_doc;

/* Line and column (1-based, in bytes) of offset `pos`. */
static void line_col(const json_doc *d, size_t pos, size_t *line, size_t *col) {
  size_t l = 1, line_start = d->start;
  for (size_t i = d->start; i < pos; i++)
    if (d->text[i] == '\n') {
      l++;
      line_start = i + 1;
    }
  *line = l;
  *col = pos - line_start + 1;
}

/* ---- strict JSON ---------------------------------------------------------------------------
 * cJSON accepts more than RFC 8259 (leading zeros, "1.", "-.5", control characters and
 * invalid UTF-8 inside strings, any byte <= 0x20 as white space, 1000 levels; "\u0000" ends
 * its C string early) and reports only the byte where it stopped, one past the error for a
 * missing member name or an unterminated string. This walk goes over the text token by token
 * first: it rejects all of that, and at the first error knows what it expected there, in
 * which camera (element of the top-level array) and which of its fields. It builds nothing;
 * with `find` set it stops at the start of value number `find` in document order (cJSON's
 * tree in pre-order), which gives the positions of the fields that fail the checks below. */

typedef enum json_want {
  WANT_VALUE,          /* after ':' or ',' in an array, and at the start */
  WANT_VALUE_OR_CLOSE, /* after '[' */
  WANT_KEY,            /* after ',' in an object */
  WANT_KEY_OR_CLOSE,   /* after '{' */
  WANT_COLON,
  WANT_NEXT,           /* after a value inside a container: ',' or its close */
  WANT_END,            /* after the top-level value */
} json_want;

typedef struct json_walk {
  const json_doc *d;
  size_t pos;
  char open[JSON_MAX_DEPTH]; /* '[' or '{' of each container around pos */
  int depth;
  json_want want;
  uint32_t camera;     /* the element of the top-level array being read, or NO_CAMERA */
  size_t field, field_len; /* the member name (raw, with its quotes) whose value is being read
                              in that camera object; field_len 0: none */
  size_t values, find; /* values started so far; where to stop (SIZE_MAX: never) */
  const char *what;    /* the error, NULL while there is none */
} json_walk;

static int walk_fail(json_walk *w, size_t pos, const char *what) {
  w->pos = pos;
  w->what = what;
  return -1;
}

static int is_digit(char ch) {
  return ch >= '0' && ch <= '9';
}

static int hex4(json_walk *w, size_t at, uint32_t *out) {
  if (w->d->size - at < 4) return walk_fail(w, at, "truncated \\u escape");
  uint32_t v = 0;
  for (size_t k = at; k < at + 4; k++) {
    char ch = w->d->text[k];
    int h = is_digit(ch) ? ch - '0' : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10 : (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10 : -1;
    if (h < 0) return walk_fail(w, k, "bad hex digit in \\u escape");
    v = v << 4 | (uint32_t)h;
  }
  *out = v;
  return 0;
}

/* The escape at p (its backslash): its length in *len, or -1 (w->what says why). */
static int lex_escape(json_walk *w, size_t p, size_t *len) {
  const char *t = w->d->text;
  if (w->d->size - p < 2) return walk_fail(w, w->d->size, "unexpected end of file inside a string");
  char e = t[p + 1];
  *len = 2;
  if (e != 'u') return e != '\0' && strchr("\"\\/bfnrt", e) ? 0 : walk_fail(w, p + 1, "bad escape in a string");
  uint32_t cp, lo;
  if (hex4(w, p + 2, &cp)) return -1;
  *len = 6;
  if (cp == 0) return walk_fail(w, p, "\\u0000 in a string (a NUL character is not supported)");
  if (cp >= 0xDC00 && cp <= 0xDFFF) return walk_fail(w, p, "unpaired low surrogate in \\u escape");
  if (cp < 0xD800 || cp > 0xDBFF) return 0;
  if (w->d->size - p < 8 || t[p + 6] != '\\' || t[p + 7] != 'u')
    return walk_fail(w, p, "unpaired high surrogate in \\u escape");
  if (hex4(w, p + 8, &lo)) return -1;
  if (lo < 0xDC00 || lo > 0xDFFF) return walk_fail(w, p + 6, "bad low surrogate in \\u escape");
  *len = 12;
  return 0;
}

static int lex_string(json_walk *w) {
  const unsigned char *t = (const unsigned char *)w->d->text;
  size_t p = w->pos + 1, size = w->d->size, n;
  for (;;) {
    if (p >= size) return walk_fail(w, p, "unexpected end of file inside a string");
    if (t[p] == '"') break;
    if (t[p] < 0x20) return walk_fail(w, p, "control character inside a string");
    if (t[p] == '\\') {
      if (lex_escape(w, p, &n)) return -1;
    } else if ((n = utf8_len(t + p, size - p)) == 0) {
      return walk_fail(w, p, "invalid UTF-8 inside a string");
    }
    p += n;
  }
  w->pos = p + 1;
  return 0;
}

static int lex_number(json_walk *w) {
  const char *t = w->d->text;
  size_t q = w->pos, size = w->d->size;
  if (t[q] == '-') q++;
  if (q >= size || !is_digit(t[q])) return walk_fail(w, w->pos, "bad number");
  if (t[q] == '0') {
    if (++q < size && is_digit(t[q])) return walk_fail(w, q, "leading zero in a number");
  } else {
    while (q < size && is_digit(t[q])) q++;
  }
  if (q < size && t[q] == '.') {
    if (++q >= size || !is_digit(t[q])) return walk_fail(w, q, "expected a digit after the decimal point");
    while (q < size && is_digit(t[q])) q++;
  }
  if (q < size && (t[q] == 'e' || t[q] == 'E')) {
    q++;
    if (q < size && (t[q] == '+' || t[q] == '-')) q++;
    if (q >= size || !is_digit(t[q])) return walk_fail(w, q, "expected a digit in the exponent");
    while (q < size && is_digit(t[q])) q++;
  }
  w->pos = q;
  return 0;
}

static int lex_literal(json_walk *w) {
  static const char *const words[] = {"true", "false", "null"};
  for (int k = 0; k < 3; k++) {
    size_t n = strlen(words[k]);
    if (w->d->size - w->pos >= n && memcmp(w->d->text + w->pos, words[k], n) == 0) {
      w->pos += n;
      return 0;
    }
  }
  return walk_fail(w, w->pos, "unexpected character, expected a JSON value");
}

/* What the walk wanted where the text ended (at_end) or held something else. */
static const char *expected(const json_walk *w, int at_end) {
  int in_object = w->depth > 0 && w->open[w->depth - 1] == '{';
  switch (w->want) {
  case WANT_VALUE:
  case WANT_VALUE_OR_CLOSE:
    return at_end ? "unexpected end of file, expected a JSON value" : "unexpected character, expected a JSON value";
  case WANT_KEY:
  case WANT_KEY_OR_CLOSE:
    return at_end ? "unexpected end of file, expected a member name" : "expected a member name (a string)";
  case WANT_COLON:
    return at_end ? "unexpected end of file, expected ':'" : "expected ':' after a member name";
  case WANT_NEXT:
    if (in_object) return at_end ? "unexpected end of file, expected ',' or '}'" : "expected ',' or '}' after an object member";
    return at_end ? "unexpected end of file, expected ',' or ']'" : "expected ',' or ']' after an array element";
  case WANT_END:
    break;
  }
  return "unexpected data after the top-level value";
}

/* A value (or a container's close) has ended at depth w->depth. */
static void value_done(json_walk *w) {
  w->want = w->depth ? WANT_NEXT : WANT_END;
  if (w->depth == 2) w->field_len = 0; /* a camera's member read whole */
  if (w->depth == 0) w->camera = NO_CAMERA;
}

/* A value starts at w->pos. */
static int walk_value(json_walk *w) {
  char c = w->d->text[w->pos];
  if (c == '[' || c == '{') {
    if (w->depth == JSON_MAX_DEPTH) return walk_fail(w, w->pos, "JSON nested too deeply");
    if (w->depth == 0 && c == '[') w->camera = 0;
    w->open[w->depth++] = c;
    w->pos++;
    w->want = c == '[' ? WANT_VALUE_OR_CLOSE : WANT_KEY_OR_CLOSE;
    return 0;
  }
  int rc = c == '"' ? lex_string(w) : c == '-' || is_digit(c) ? lex_number(w) : lex_literal(w);
  if (rc == 0) value_done(w);
  return rc;
}

/* Returns 0 at the end of a valid text (or at value number `find`), else -1 with w->what. */
static int walk_json(json_walk *w) {
  const char *t = w->d->text;
  for (;;) {
    while (w->pos < w->d->size && (t[w->pos] == ' ' || t[w->pos] == '\t' || t[w->pos] == '\n' || t[w->pos] == '\r'))
      w->pos++;
    if (w->pos >= w->d->size) return w->want == WANT_END ? 0 : walk_fail(w, w->pos, expected(w, 1));
    char c = t[w->pos];
    char close = w->depth && w->open[w->depth - 1] == '{' ? '}' : ']';
    if ((w->want == WANT_VALUE_OR_CLOSE || w->want == WANT_KEY_OR_CLOSE || w->want == WANT_NEXT) && c == close) {
      w->pos++; /* an empty container, or the end of one */
      w->depth--;
      value_done(w);
      continue;
    }
    int rc = 0;
    switch (w->want) {
    case WANT_VALUE:
    case WANT_VALUE_OR_CLOSE:
      if (w->values++ == w->find) return 0;
      if (w->values > JSON_MAX_VALUES)
        return walk_fail(w, w->pos, "more JSON values than a cameras.json holds (limit 1048576: 25 a camera)");
      rc = walk_value(w);
      break;
    case WANT_KEY:
    case WANT_KEY_OR_CLOSE: {
      size_t key = w->pos;
      if (c != '"') return walk_fail(w, w->pos, expected(w, 0));
      rc = lex_string(w);
      if (rc == 0 && w->depth == 2 && w->camera != NO_CAMERA) {
        w->field = key;
        w->field_len = w->pos - key;
      }
      w->want = WANT_COLON;
      break;
    }
    case WANT_COLON:
      if (c != ':') return walk_fail(w, w->pos, expected(w, 0));
      w->pos++;
      w->want = WANT_VALUE;
      break;
    case WANT_NEXT:
      if (c != ',') return walk_fail(w, w->pos, expected(w, 0));
      w->pos++;
      w->want = close == '}' ? WANT_KEY : WANT_VALUE;
      if (w->depth == 1 && w->camera != NO_CAMERA) w->camera++;
      break;
    case WANT_END:
      return walk_fail(w, w->pos, expected(w, 0));
    }
    if (rc) return rc;
  }
}

static json_walk walk_start(const json_doc *d, size_t find) {
  json_walk w = {.d = d, .pos = d->start, .want = WANT_VALUE, .camera = NO_CAMERA, .find = find};
  return w;
}

/* "<name>:<line>:<col>: [camera <i>: [field "<member>": ]]<what>" for the walk's error. */
static void walk_error(const json_walk *w, char *err, size_t err_size) {
  const json_doc *d = w->d;
  size_t line, col;
  line_col(d, w->pos, &line, &col);
  if (w->camera == NO_CAMERA) {
    set_err(err, err_size, "%s:%zu:%zu: %s", d->name, line, col, w->what);
  } else if (w->field_len == 0) {
    set_err(err, err_size, "%s:%zu:%zu: camera %u: %s", d->name, line, col, w->camera, w->what);
  } else {
    /* the member name as JSON text; cJSON decodes its escapes (the walk checked them) */
    cJSON *key = cJSON_ParseWithLength(d->text + w->field, w->field_len);
    char name[65];
    printable(name, sizeof name, cJSON_GetStringValue(key));
    cJSON_Delete(key);
    set_err(err, err_size, "%s:%zu:%zu: camera %u: field \"%s\": %s", d->name, line, col, w->camera, name,
            w->what);
  }
}

/* ---- cameras.json semantics ----------------------------------------------------------- */

/* Pre-order index of `target` in the tree under `n`, counted from *index for `n`; 1 when
 * found. */
static int preorder_index(const cJSON *n, const cJSON *target, size_t *index) {
  if (n == target) return 1;
  ++*index;
  for (const cJSON *c = n->child; c; c = c->next)
    if (preorder_index(c, target, index)) return 1;
  return 0;
}

/* Offset in the text where the value `node` starts. */
static size_t value_offset(const json_doc *d, const cJSON *node) {
  size_t index = 0;
  preorder_index(d->root, node, &index);
  json_walk w = walk_start(d, index);
  walk_json(&w);
  return w.pos;
}

static const char *type_name(const cJSON *n) {
  if (cJSON_IsNull(n)) return "null";
  if (cJSON_IsFalse(n)) return "false";
  if (cJSON_IsTrue(n)) return "true";
  if (cJSON_IsNumber(n)) return "a number";
  if (cJSON_IsString(n)) return "a string";
  if (cJSON_IsArray(n)) return "an array";
  return "an object";
}

static size_t count_items(const cJSON *n) {
  size_t k = 0;
  for (const cJSON *c = n->child; c; c = c->next) k++;
  return k;
}

typedef struct cam_ctx {
  const json_doc *d;
  uint32_t index;
  const cJSON *obj;
  char *err;
  size_t err_size;
} cam_ctx;

static void field_err(const cam_ctx *c, const char *field, const cJSON *at, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void field_err(const cam_ctx *c, const char *field, const cJSON *at, const char *fmt, ...) {
  if (!c->err || c->err_size == 0) return;
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  size_t line, col;
  line_col(c->d, value_offset(c->d, at ? at : c->obj), &line, &col);
  set_err(c->err, c->err_size, "%s:%zu:%zu: camera %u: field \"%s\": %s", c->d->name, line, col, c->index, field,
          what);
}

/* The member `name` of the camera object, or NULL (with an error) when it is missing or
 * given twice (cJSON keeps both; its own look-up would take the first). */
static const cJSON *member(const cam_ctx *c, const char *name) {
  const cJSON *found = NULL;
  for (const cJSON *n = c->obj->child; n; n = n->next) {
    if (strcmp(n->string, name) != 0) continue;
    if (found) {
      field_err(c, name, n, "given more than once");
      return NULL;
    }
    found = n;
  }
  if (!found) field_err(c, name, NULL, "missing");
  return found;
}

static int get_number(const cam_ctx *c, const char *field, const cJSON *n, double *out) {
  if (!cJSON_IsNumber(n)) {
    field_err(c, field, n, "expected a number, got %s", type_name(n));
    return -1;
  }
  double v = n->valuedouble;
  if (!isfinite(v) || !isfinite((float)v)) {
    field_err(c, field, n, "number out of range (not finite as a float)");
    return -1;
  }
  *out = v;
  return 0;
}

static int get_floats(const cam_ctx *c, const char *field, const cJSON *n, float *out, size_t count) {
  if (!cJSON_IsArray(n)) {
    field_err(c, field, n, "expected an array of %zu numbers, got %s", count, type_name(n));
    return -1;
  }
  size_t have = count_items(n);
  if (have != count) {
    field_err(c, field, n, "expected %zu numbers, got %zu", count, have);
    return -1;
  }
  size_t k = 0;
  for (const cJSON *e = n->child; e; e = e->next, k++) {
    double v;
    if (get_number(c, field, e, &v)) return -1;
    out[k] = (float)v;
  }
  return 0;
}

static int get_size(const cam_ctx *c, const char *field, const cJSON *n, uint32_t *out) {
  double v;
  if (get_number(c, field, n, &v)) return -1;
  if (v != floor(v) || v < 1.0 || v > 65536.0) {
    field_err(c, field, n, "expected a whole number of pixels in 1..65536, got %g", v);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}

static int get_focal(const cam_ctx *c, const char *field, float *out) {
  const cJSON *n;
  double v;
  if (!(n = member(c, field)) || get_number(c, field, n, &v)) return -1;
  if (!(v > 0.0)) {
    field_err(c, field, n, "expected a positive focal length, got %g", v);
    return -1;
  }
  *out = (float)v;
  return 0;
}

static int get_rotation(const cam_ctx *c, float R[3][3]) {
  const cJSON *n = member(c, "rotation");
  if (!n) return -1;
  size_t rows = cJSON_IsArray(n) ? count_items(n) : 0;
  if (!cJSON_IsArray(n) || rows != 3) {
    if (cJSON_IsArray(n))
      field_err(c, "rotation", n, "expected 3 rows of 3 numbers, got %zu rows", rows);
    else
      field_err(c, "rotation", n, "expected an array of 3 rows of 3 numbers, got %s", type_name(n));
    return -1;
  }
  int r = 0;
  for (const cJSON *e = n->child; e; e = e->next, r++)
    if (get_floats(c, "rotation", e, R[r], 3)) return -1;
  /* A camera-to-world rotation: orthonormal with determinant +1 (3DGS writes them to
   * float precision; allow for a few decimal digits in hand-written files). */
  double worst = 0.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += (double)R[k][i] * R[k][j];
      worst = fmax(worst, fabs(s - (i == j ? 1.0 : 0.0)));
    }
  double det = (double)R[0][0] * ((double)R[1][1] * R[2][2] - (double)R[1][2] * R[2][1]) -
               (double)R[0][1] * ((double)R[1][0] * R[2][2] - (double)R[1][2] * R[2][0]) +
               (double)R[0][2] * ((double)R[1][0] * R[2][1] - (double)R[1][1] * R[2][0]);
  if (worst > 1e-2 || det < 0.0) {
    field_err(c, "rotation", n, "not a rotation matrix (|R^T R - I| = %.3g, det = %.3g)", worst, det);
    return -1;
  }
  return 0;
}

static int parse_camera(const cam_ctx *c, splat_camera_desc *d) {
  if (!cJSON_IsObject(c->obj)) {
    size_t line, col;
    line_col(c->d, value_offset(c->d, c->obj), &line, &col);
    set_err(c->err, c->err_size, "%s:%zu:%zu: camera %u: expected an object, got %s", c->d->name, line, col,
            c->index, type_name(c->obj));
    return -1;
  }
  memset(d, 0, sizeof *d);
  const cJSON *n;
  double v;

  if (!(n = member(c, "id")) || get_number(c, "id", n, &v)) return -1;
  if (v != floor(v) || fabs(v) > 9007199254740992.0) {
    field_err(c, "id", n, "expected an integer, got %g", v);
    return -1;
  }
  d->id = (int64_t)v;

  /* no NUL inside: the walk refused "\u0000" */
  if (!(n = member(c, "img_name"))) return -1;
  if (!cJSON_IsString(n)) {
    field_err(c, "img_name", n, "expected a string, got %s", type_name(n));
    return -1;
  }
  size_t len = strlen(n->valuestring);
  if (len >= SPLAT_CAMERA_NAME_MAX) {
    field_err(c, "img_name", n, "longer than %d bytes", SPLAT_CAMERA_NAME_MAX - 1);
    return -1;
  }
  memcpy(d->name, n->valuestring, len + 1);

  if (!(n = member(c, "width")) || get_size(c, "width", n, &d->width)) return -1;
  if (!(n = member(c, "height")) || get_size(c, "height", n, &d->height)) return -1;
  if (!(n = member(c, "position")) || get_floats(c, "position", n, d->position, 3)) return -1;
  if (get_rotation(c, d->rotation)) return -1;
  if (get_focal(c, "fx", &d->fx) || get_focal(c, "fy", &d->fy)) return -1;
  if (!(d->fx > 0.0f) || !(d->fy > 0.0f)) {
    field_err(c, "fx", NULL, "focal length too small for a float");
    return -1;
  }
  return 0;
}

/* The cameras of a tree that holds strict JSON. */
static int read_cameras(const json_doc *d, splat_camera_desc **out, uint32_t *count, char *err, size_t err_size) {
  if (!cJSON_IsArray(d->root)) {
    set_err(err, err_size, "%s: expected a JSON array of cameras at the top level, got %s", d->name,
            type_name(d->root));
    return -1;
  }
  size_t n = count_items(d->root);
  if (n > UINT32_MAX) {
    set_err(err, err_size, "%s: %zu cameras, more than %u", d->name, n, UINT32_MAX);
    return -1;
  }
  splat_camera_desc *cams = NULL;
  if (n > 0 && !(cams = calloc(n, sizeof *cams))) {
    set_err(err, err_size, "%s: out of memory for %zu cameras", d->name, n);
    return -1;
  }
  uint32_t k = 0;
  for (const cJSON *e = d->root->child; e; e = e->next, k++) {
    cam_ctx c = {d, k, e, err, err_size};
    if (parse_camera(&c, &cams[k])) {
      free(cams);
      return -1;
    }
  }
  *out = cams;
  *count = (uint32_t)n;
  return 0;
}

int splat_cameras_parse(const char *name, const char *text, size_t size, splat_camera_desc **out,
                        uint32_t *count, char *err, size_t err_size) {
  *out = NULL;
  *count = 0;
  if (!name) name = "<memory>";
  if (err && err_size) err[0] = '\0';
  if (!text && size) {
    set_err(err, err_size, "%s: no data", name);
    return -1;
  }
  json_doc d = {name, text, size, 0, NULL};
  if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) d.start = 3;
  json_walk w = walk_start(&d, SIZE_MAX);
  if (walk_json(&w)) {
    walk_error(&w, err, err_size);
    return -1;
  }
  /* Strict JSON from here; cJSON can still run out of memory. */
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text + d.start, size - d.start, &end, 0);
  if (!root) {
    size_t line, col;
    line_col(&d, end ? (size_t)(end - text) : size, &line, &col);
    set_err(err, err_size, "%s:%zu:%zu: cJSON could not read the file here (out of memory?)", name, line, col);
    return -1;
  }
  d.root = root;
  int rc = read_cameras(&d, out, count, err, err_size);
  cJSON_Delete(root);
  return rc;
}

int splat_cameras_load(const char *path, splat_camera_desc **out, uint32_t *count, char *err,
                       size_t err_size) {
  *out = NULL;
  *count = 0;
  /* O_NONBLOCK and a regular-file check: a FIFO given as --cameras must not hang */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd < 0)
      set_err(err, err_size, "%s: cannot open: %s", path, strerror(errno));
    else
      set_err(err, err_size, "%s: not a regular file", path);
    if (fd >= 0) close(fd);
    return -1;
  }
  /* a regular file says its size: one larger than any cameras.json is refused unread */
  if ((uint64_t)st.st_size > JSON_MAX_FILE) {
    set_err(err, err_size, "%s: %llu bytes, larger than %zu MiB: not a cameras.json", path,
            (unsigned long long)st.st_size, JSON_MAX_FILE >> 20);
    close(fd);
    return -1;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    set_err(err, err_size, "%s: cannot open: %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  char *buf = NULL;
  size_t size = 0, cap = 0;
  int rc = -1;
  for (;;) {
    if (size == cap) {
      if (cap >= JSON_MAX_FILE) {
        set_err(err, err_size, "%s: larger than %zu MiB, not a cameras.json", path,
                JSON_MAX_FILE >> 20);
        goto done;
      }
      cap = cap ? cap * 2 : 65536;
      char *b = realloc(buf, cap);
      if (!b) {
        set_err(err, err_size, "%s: out of memory", path);
        goto done;
      }
      buf = b;
    }
    size_t n = fread(buf + size, 1, cap - size, f);
    size += n;
    if (n == 0) {
      if (ferror(f)) {
        set_err(err, err_size, "%s: read error", path);
        goto done;
      }
      break;
    }
  }
  if (size == 0) {
    set_err(err, err_size, "%s: empty file", path);
    goto done;
  }
  rc = splat_cameras_parse(path, buf, size, out, count, err, err_size);
done:
  free(buf);
  fclose(f);
  return rc;
}

void splat_cameras_free(splat_camera_desc *cams) {
  free(cams);
}
