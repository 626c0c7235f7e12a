/* cameras_json.c: a strict little JSON parser (RFC 8259) and the reader of the
 * cameras.json that 3DGS training writes (camera_to_JSON in utils/camera_utils.py). */
#include "view_control.h"

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
#define JSON_NONE UINT32_MAX

typedef enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

/* One value. Arrays and objects chain their children through `next`; an object's
 * children carry their member name in key/key_len. Strings live in a shared buffer. */
typedef struct jnode {
  jtype type;
  uint32_t line, col;
  uint32_t first, next, count;
  size_t str, str_len;  /* J_STRING: offset/length in the string buffer */
  size_t key, key_len;  /* member name, when the parent is an object */
  double num;
} jnode;

typedef struct jparser {
  const char *name;
  const char *text;
  size_t size, pos;
  uint32_t line;
  size_t line_start;
  jnode *nodes;
  uint32_t n_nodes, cap_nodes;
  char *strs;
  size_t n_strs, cap_strs;
  char *err;
  size_t err_size;
  int failed;
  /* Where we are, for syntax messages: element of the top-level array, member name. */
  uint32_t camera;
  int in_field;
  size_t field, field_len; /* offset/length in the string buffer (it may move) */
} jparser;

static const char *type_name(jtype t) {
  static const char *names[] = {"null", "false", "true", "a number", "a string", "an array",
                                "an object"};
  return names[t];
}

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

static void set_err(char *err, size_t err_size, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void set_err(char *err, size_t err_size, const char *fmt, ...) {
  if (!err || err_size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
}

static size_t utf8_len(const unsigned char *s, size_t n);

/* A member name (valid UTF-8: parse_string checked it) for a one-line message: at most n-1
 * bytes, cut between characters, never inside one; control characters (C0, DEL and C1:
 * newlines, terminal escapes) and the line and paragraph separators U+2028/U+2029 shown as
 * '?'; NULL or empty gives "". */
static void printable(char *out, size_t n, const char *s, size_t len) {
  size_t k = 0;
  for (size_t i = 0; s && i < len;) {
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

/* Syntax error at the current position: "<name>:<line>:<col>: <what>". */

static void syntax(jparser *p, const char *what) {
  if (p->failed) return;
  p->failed = 1;
  size_t col = p->pos - p->line_start + 1;
  if (p->camera == JSON_NONE)
    set_err(p->err, p->err_size, "%s:%u:%zu: %s", p->name, p->line, col, what);
  else if (!p->in_field)
    set_err(p->err, p->err_size, "%s:%u:%zu: camera %u: %s", p->name, p->line, col, p->camera,
            what);
  else {
    char name[65];
    printable(name, sizeof name, p->strs ? p->strs + p->field : NULL, p->field_len);
    set_err(p->err, p->err_size, "%s:%u:%zu: camera %u: field \"%s\": %s", p->name, p->line, col, p->camera,
            name, what);
  }
}

static uint32_t new_node(jparser *p, jtype type) {
  if (p->n_nodes == p->cap_nodes) {
    uint32_t cap = p->cap_nodes ? p->cap_nodes * 2 : 256;
    if (cap <= p->cap_nodes || cap > UINT32_MAX / 2) {
      syntax(p, "too many JSON values");
      return JSON_NONE;
    }
    jnode *n = realloc(p->nodes, (size_t)cap * sizeof *n);
    if (!n) {
      syntax(p, "out of memory");
      return JSON_NONE;
    }
    p->nodes = n;
    p->cap_nodes = cap;
  }
  jnode *n = &p->nodes[p->n_nodes];
  memset(n, 0, sizeof *n);
  n->type = type;
  n->line = p->line;
  n->col = (uint32_t)(p->pos - p->line_start + 1);
  n->first = n->next = JSON_NONE;
  return p->n_nodes++;
}

static int put_bytes(jparser *p, const char *b, size_t n) {
  if (p->n_strs + n + 1 > p->cap_strs) {
    size_t cap = p->cap_strs ? p->cap_strs : 1024;
    while (cap < p->n_strs + n + 1) cap *= 2;
    char *s = realloc(p->strs, cap);
    if (!s) {
      syntax(p, "out of memory");
      return -1;
    }
    p->strs = s;
    p->cap_strs = cap;
  }
  memcpy(p->strs + p->n_strs, b, n);
  p->n_strs += n;
  return 0;
}

static void skip_ws(jparser *p) {
  while (p->pos < p->size) {
    char ch = p->text[p->pos];
    if (ch == '\n') {
      p->pos++;
      p->line++;
      p->line_start = p->pos;
    } else if (ch == ' ' || ch == '\t' || ch == '\r') {
      p->pos++;
    } else {
      break;
    }
  }
}

static int hex4(jparser *p, uint32_t *out) {
  if (p->size - p->pos < 4) {
    syntax(p, "truncated \\u escape");
    return -1;
  }
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) {
    char ch = p->text[p->pos + (size_t)k];
    v <<= 4;
    if (ch >= '0' && ch <= '9')
      v |= (uint32_t)(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      v |= (uint32_t)(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F')
      v |= (uint32_t)(ch - 'A' + 10);
    else {
      syntax(p, "bad hex digit in \\u escape");
      return -1;
    }
  }
  p->pos += 4;
  *out = v;
  return 0;
}

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

/* Parses a string at p->pos (the opening quote) into the string buffer. */
static int parse_string(jparser *p, size_t *off, size_t *len) {
  p->pos++; /* '"' */
  *off = p->n_strs;
  for (;;) {
    if (p->pos >= p->size) {
      syntax(p, "unexpected end of file inside a string");
      return -1;
    }
    unsigned char ch = (unsigned char)p->text[p->pos];
    if (ch == '"') {
      p->pos++;
      break;
    }
    if (ch < 0x20) {
      syntax(p, "control character inside a string");
      return -1;
    }
    if (ch == '\\') {
      p->pos++;
      if (p->pos >= p->size) {
        syntax(p, "unexpected end of file inside a string");
        return -1;
      }
      char e = p->text[p->pos++];
      char out;
      switch (e) {
      case '"': out = '"'; break;
      case '\\': out = '\\'; break;
      case '/': out = '/'; break;
      case 'b': out = '\b'; break;
      case 'f': out = '\f'; break;
      case 'n': out = '\n'; break;
      case 'r': out = '\r'; break;
      case 't': out = '\t'; break;
      case 'u': {
        uint32_t cp;
        if (hex4(p, &cp)) return -1;
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
          syntax(p, "unpaired low surrogate in \\u escape");
          return -1;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (p->size - p->pos < 2 || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u') {
            syntax(p, "unpaired high surrogate in \\u escape");
            return -1;
          }
          p->pos += 2;
          if (hex4(p, &lo)) return -1;
          if (lo < 0xDC00 || lo > 0xDFFF) {
            syntax(p, "bad low surrogate in \\u escape");
            return -1;
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        char u[4];
        size_t n;
        if (cp < 0x80) {
          u[0] = (char)cp;
          n = 1;
        } else if (cp < 0x800) {
          u[0] = (char)(0xC0 | (cp >> 6));
          u[1] = (char)(0x80 | (cp & 0x3F));
          n = 2;
        } else if (cp < 0x10000) {
          u[0] = (char)(0xE0 | (cp >> 12));
          u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
          u[2] = (char)(0x80 | (cp & 0x3F));
          n = 3;
        } else {
          u[0] = (char)(0xF0 | (cp >> 18));
          u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
          u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
          u[3] = (char)(0x80 | (cp & 0x3F));
          n = 4;
        }
        if (put_bytes(p, u, n)) return -1;
        continue;
      }
      default:
        p->pos--;
        syntax(p, "bad escape in a string");
        return -1;
      }
      if (put_bytes(p, &out, 1)) return -1;
      continue;
    }
    size_t n = utf8_len((const unsigned char *)p->text + p->pos, p->size - p->pos);
    if (n == 0) {
      syntax(p, "invalid UTF-8 inside a string");
      return -1;
    }
    if (put_bytes(p, p->text + p->pos, n)) return -1;
    p->pos += n;
  }
  *len = p->n_strs - *off;
  return 0;
}

static int is_digit(char ch) {
  return ch >= '0' && ch <= '9';
}

static int parse_number(jparser *p, double *out) {
  size_t start = p->pos, q = p->pos;
  const char *t = p->text;
  if (q < p->size && t[q] == '-') q++;
  if (q >= p->size || !is_digit(t[q])) {
    syntax(p, "bad number");
    return -1;
  }
  if (t[q] == '0') {
    q++;
    if (q < p->size && is_digit(t[q])) {
      p->pos = q;
      syntax(p, "leading zero in a number");
      return -1;
    }
  } else {
    while (q < p->size && is_digit(t[q])) q++;
  }
  if (q < p->size && t[q] == '.') {
    q++;
    if (q >= p->size || !is_digit(t[q])) {
      p->pos = q;
      syntax(p, "expected a digit after the decimal point");
      return -1;
    }
    while (q < p->size && is_digit(t[q])) q++;
  }
  if (q < p->size && (t[q] == 'e' || t[q] == 'E')) {
    q++;
    if (q < p->size && (t[q] == '+' || t[q] == '-')) q++;
    if (q >= p->size || !is_digit(t[q])) {
      p->pos = q;
      syntax(p, "expected a digit in the exponent");
      return -1;
    }
    while (q < p->size && is_digit(t[q])) q++;
  }
  char buf[512];
  if (q - start >= sizeof buf) {
    syntax(p, "number too long");
    return -1;
  }
  /* The grammar was checked above, so strtod sees only a valid JSON number (it is
   * locale-dependent only in the decimal point, which is '.' in the "C" locale). */
  memcpy(buf, t + start, q - start);
  buf[q - start] = '\0';
  *out = strtod(buf, NULL);
  p->pos = q;
  return 0;
}

static uint32_t parse_value(jparser *p, int depth);

static uint32_t parse_container(jparser *p, int depth, int is_object) {
  uint32_t self = new_node(p, is_object ? J_OBJECT : J_ARRAY);
  if (self == JSON_NONE) return JSON_NONE;
  if (depth >= JSON_MAX_DEPTH) {
    syntax(p, "JSON nested too deeply");
    return JSON_NONE;
  }
  char close = is_object ? '}' : ']';
  p->pos++;
  skip_ws(p);
  if (p->pos < p->size && p->text[p->pos] == close) {
    p->pos++;
    return self;
  }
  uint32_t last = JSON_NONE;
  /* The top-level array's elements are cameras and their members fields. */
  int track_camera = depth == 0 && !is_object;
  int track_field = depth == 1 && is_object && p->camera != JSON_NONE;
  for (;;) {
    size_t key = 0, key_len = 0;
    if (track_camera) p->camera = p->nodes[self].count;
    skip_ws(p);
    if (is_object) {
      if (p->pos >= p->size) {
        syntax(p, "unexpected end of file, expected a member name");
        return JSON_NONE;
      }
      if (p->text[p->pos] != '"') {
        syntax(p, "expected a member name (a string)");
        return JSON_NONE;
      }
      if (parse_string(p, &key, &key_len)) return JSON_NONE;
      if (track_field) {
        p->in_field = 1;
        p->field = key;
        p->field_len = key_len;
      }
      skip_ws(p);
      if (p->pos >= p->size) {
        syntax(p, "unexpected end of file, expected ':'");
        return JSON_NONE;
      }
      if (p->text[p->pos] != ':') {
        syntax(p, "expected ':' after a member name");
        return JSON_NONE;
      }
      p->pos++;
    }
    uint32_t child = parse_value(p, depth + 1);
    if (child == JSON_NONE) return JSON_NONE;
    if (track_field) p->in_field = 0;
    p->nodes[child].key = key;
    p->nodes[child].key_len = key_len;
    if (last == JSON_NONE)
      p->nodes[self].first = child;
    else
      p->nodes[last].next = child;
    last = child;
    p->nodes[self].count++;
    skip_ws(p);
    if (p->pos >= p->size) {
      syntax(p, is_object ? "unexpected end of file, expected ',' or '}'"
                          : "unexpected end of file, expected ',' or ']'");
      return JSON_NONE;
    }
    char ch = p->text[p->pos];
    if (ch == ',') {
      p->pos++;
      continue;
    }
    if (ch == close) {
      p->pos++;
      if (track_camera) p->camera = JSON_NONE;
      return self;
    }
    syntax(p, is_object ? "expected ',' or '}' after an object member"
                        : "expected ',' or ']' after an array element");
    return JSON_NONE;
  }
}

static uint32_t parse_literal(jparser *p, const char *word, jtype type) {
  size_t n = strlen(word);
  if (p->size - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) {
    syntax(p, "unexpected character, expected a JSON value");
    return JSON_NONE;
  }
  uint32_t self = new_node(p, type);
  p->pos += n;
  return self;
}

static uint32_t parse_value(jparser *p, int depth) {
  skip_ws(p);
  if (p->pos >= p->size) {
    syntax(p, "unexpected end of file, expected a JSON value");
    return JSON_NONE;
  }
  char ch = p->text[p->pos];
  if (ch == '{' || ch == '[') return parse_container(p, depth, ch == '{');
  if (ch == '"') {
    uint32_t self = new_node(p, J_STRING);
    if (self == JSON_NONE) return JSON_NONE;
    size_t off, len;
    if (parse_string(p, &off, &len)) return JSON_NONE;
    p->nodes[self].str = off;
    p->nodes[self].str_len = len;
    return self;
  }
  if (ch == '-' || is_digit(ch)) {
    uint32_t self = new_node(p, J_NUMBER);
    if (self == JSON_NONE) return JSON_NONE;
    double v;
    if (parse_number(p, &v)) return JSON_NONE;
    p->nodes[self].num = v;
    return self;
  }
  if (ch == 't') return parse_literal(p, "true", J_TRUE);
  if (ch == 'f') return parse_literal(p, "false", J_FALSE);
  if (ch == 'n') return parse_literal(p, "null", J_NULL);
  syntax(p, "unexpected character, expected a JSON value");
  return JSON_NONE;
}

/* ---- cameras.json semantics ----------------------------------------------------------- */

typedef struct cam_ctx {
  jparser *p;
  uint32_t index;
  uint32_t node;
} cam_ctx;

static void field_err(const cam_ctx *c, const char *field, const jnode *at, const char *fmt,
                      ...) PRINTF_LIKE(4, 5);
static void field_err(const cam_ctx *c, const char *field, const jnode *at, const char *fmt,
                      ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const jnode *n = at ? at : &c->p->nodes[c->node];
  set_err(c->p->err, c->p->err_size, "%s:%u:%u: camera %u: field \"%s\": %s", c->p->name, n->line,
          n->col, c->index, field, what);
}

/* The member `name` of the camera object, or NULL (with an error) when it is missing or
 * given twice. */
static const jnode *member(const cam_ctx *c, const char *name) {
  const jparser *p = c->p;
  const jnode *found = NULL;
  size_t len = strlen(name);
  for (uint32_t k = p->nodes[c->node].first; k != JSON_NONE; k = p->nodes[k].next) {
    const jnode *n = &p->nodes[k];
    if (n->key_len == len && memcmp(p->strs + n->key, name, len) == 0) {
      if (found) {
        field_err(c, name, n, "given more than once");
        return NULL;
      }
      found = n;
    }
  }
  if (!found) field_err(c, name, NULL, "missing");
  return found;
}

static int get_number(const cam_ctx *c, const char *field, const jnode *n, double *out) {
  if (n->type != J_NUMBER) {
    field_err(c, field, n, "expected a number, got %s", type_name(n->type));
    return -1;
  }
  if (!isfinite(n->num) || !isfinite((float)n->num)) {
    field_err(c, field, n, "number out of range (not finite as a float)");
    return -1;
  }
  *out = n->num;
  return 0;
}

static int get_floats(const cam_ctx *c, const char *field, const jnode *n, float *out,
                      uint32_t count) {
  if (n->type != J_ARRAY) {
    field_err(c, field, n, "expected an array of %u numbers, got %s", count, type_name(n->type));
    return -1;
  }
  if (n->count != count) {
    field_err(c, field, n, "expected %u numbers, got %u", count, n->count);
    return -1;
  }
  uint32_t k = 0;
  for (uint32_t e = n->first; e != JSON_NONE; e = c->p->nodes[e].next, k++) {
    double v;
    if (get_number(c, field, &c->p->nodes[e], &v)) return -1;
    out[k] = (float)v;
  }
  return 0;
}

static int get_size(const cam_ctx *c, const char *field, const jnode *n, uint32_t *out) {
  double v;
  if (get_number(c, field, n, &v)) return -1;
  if (v != floor(v) || v < 1.0 || v > 65536.0) {
    field_err(c, field, n, "expected a whole number of pixels in 1..65536, got %g", v);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}

static int parse_camera(const cam_ctx *c, splat_camera_desc *d) {
  const jparser *p = c->p;
  const jnode *obj = &p->nodes[c->node];
  if (obj->type != J_OBJECT) {
    set_err(p->err, p->err_size, "%s:%u:%u: camera %u: expected an object, got %s", p->name,
            obj->line, obj->col, c->index, type_name(obj->type));
    return -1;
  }
  memset(d, 0, sizeof *d);
  const jnode *n;
  double v;

  if (!(n = member(c, "id")) || get_number(c, "id", n, &v)) return -1;
  if (v != floor(v) || fabs(v) > 9007199254740992.0) {
    field_err(c, "id", n, "expected an integer, got %g", v);
    return -1;
  }
  d->id = (int64_t)v;

  if (!(n = member(c, "img_name"))) return -1;
  if (n->type != J_STRING) {
    field_err(c, "img_name", n, "expected a string, got %s", type_name(n->type));
    return -1;
  }
  if (n->str_len >= SPLAT_CAMERA_NAME_MAX) {
    field_err(c, "img_name", n, "longer than %d bytes", SPLAT_CAMERA_NAME_MAX - 1);
    return -1;
  }
  if (memchr(p->strs + n->str, '\0', n->str_len)) {
    field_err(c, "img_name", n, "contains a NUL character");
    return -1;
  }
  memcpy(d->name, p->strs + n->str, n->str_len);
  d->name[n->str_len] = '\0';

  if (!(n = member(c, "width")) || get_size(c, "width", n, &d->width)) return -1;
  if (!(n = member(c, "height")) || get_size(c, "height", n, &d->height)) return -1;
  if (!(n = member(c, "position")) || get_floats(c, "position", n, d->position, 3)) return -1;

  if (!(n = member(c, "rotation"))) return -1;
  if (n->type != J_ARRAY || n->count != 3) {
    if (n->type == J_ARRAY)
      field_err(c, "rotation", n, "expected 3 rows of 3 numbers, got %u rows", n->count);
    else
      field_err(c, "rotation", n, "expected an array of 3 rows of 3 numbers, got %s",
                type_name(n->type));
    return -1;
  }
  uint32_t r = 0;
  for (uint32_t e = n->first; e != JSON_NONE; e = p->nodes[e].next, r++)
    if (get_floats(c, "rotation", &p->nodes[e], d->rotation[r], 3)) return -1;
  /* A camera-to-world rotation: orthonormal with determinant +1 (3DGS writes them to
   * float precision; allow for a few decimal digits in hand-written files). */
  double worst = 0.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += (double)d->rotation[k][i] * d->rotation[k][j];
      worst = fmax(worst, fabs(s - (i == j ? 1.0 : 0.0)));
    }
  const float(*R)[3] = (const float(*)[3])d->rotation;
  double det = (double)R[0][0] * ((double)R[1][1] * R[2][2] - (double)R[1][2] * R[2][1]) -
               (double)R[0][1] * ((double)R[1][0] * R[2][2] - (double)R[1][2] * R[2][0]) +
               (double)R[0][2] * ((double)R[1][0] * R[2][1] - (double)R[1][1] * R[2][0]);
  if (worst > 1e-2 || det < 0.0) {
    field_err(c, "rotation", n, "not a rotation matrix (|R^T R - I| = %.3g, det = %.3g)", worst,
              det);
    return -1;
  }

  if (!(n = member(c, "fx")) || get_number(c, "fx", n, &v)) return -1;
  if (!(v > 0.0)) {
    field_err(c, "fx", n, "expected a positive focal length, got %g", v);
    return -1;
  }
  d->fx = (float)v;
  if (!(n = member(c, "fy")) || get_number(c, "fy", n, &v)) return -1;
  if (!(v > 0.0)) {
    field_err(c, "fy", n, "expected a positive focal length, got %g", v);
    return -1;
  }
  d->fy = (float)v;
  if (!(d->fx > 0.0f) || !(d->fy > 0.0f)) {
    field_err(c, "fx", NULL, "focal length too small for a float");
    return -1;
  }
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
  jparser p = {0};
  p.name = name;
  p.text = text;
  p.size = size;
  p.line = 1;
  p.err = err;
  p.err_size = err_size;
  p.camera = JSON_NONE;
  int rc = -1;
  splat_camera_desc *cams = NULL;

  /* A UTF-8 byte order mark is not JSON, but editors add one; skip it. */
  if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) p.pos = p.line_start = 3;
  uint32_t root = parse_value(&p, 0);
  if (root == JSON_NONE) goto done;
  skip_ws(&p);
  if (p.pos != p.size) {
    syntax(&p, "unexpected data after the top-level value");
    goto done;
  }
  const jnode *r = &p.nodes[root];
  if (r->type != J_ARRAY) {
    set_err(err, err_size, "%s: expected a JSON array of cameras at the top level, got %s", name,
            type_name(r->type));
    goto done;
  }
  if (r->count > 0) {
    cams = calloc(r->count, sizeof *cams);
    if (!cams) {
      set_err(err, err_size, "%s: out of memory for %u cameras", name, r->count);
      goto done;
    }
  }
  uint32_t k = 0;
  for (uint32_t e = r->first; e != JSON_NONE; e = p.nodes[e].next, k++) {
    cam_ctx c = {&p, k, e};
    if (parse_camera(&c, &cams[k])) goto done;
  }
  *out = cams;
  *count = r->count;
  cams = NULL;
  rc = 0;
done:
  free(cams);
  free(p.nodes);
  free(p.strs);
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
      char *b = realloc(buf, cap + 1);
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

int splat_camera_from_desc(splat_camera *cam, const splat_camera_desc *desc, uint32_t width,
                           uint32_t height) {
  if (width == 0 && height == 0) {
    width = desc->width;
    height = desc->height;
  }
  if (width == 0 || height == 0 || desc->width == 0 || desc->height == 0) return -1;
  /* In double: fx * width overflowed float for a focal length the parser accepts (above
   * FLT_MAX / 65536), and at the entry's own size this gives fx back exactly. */
  float fx = (float)((double)desc->fx * width / desc->width);
  float fy = (float)((double)desc->fy * height / desc->height);
  return splat_camera_from_pose(cam, desc->position, &desc->rotation[0][0], fx, fy, width,
                                height);
}
