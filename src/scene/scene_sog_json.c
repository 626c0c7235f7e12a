/* scene_sog_json.c: what the two JSON files of PlayCanvas's SOG formats (a scene's meta.json,
 * scene_sog_meta.c; a streamed bundle's lod-meta.json, scene_sog_lod.c) are read with: cJSON held
 * to what JSON.parse, which PlayCanvas's readers use, accepts, members looked up and numbers
 * checked with messages that name them, and the file names they hold kept inside the scene's
 * folder. */
#include "scene_sog.h"

#include <cJSON.h>

const char *sog_json_kind(const cJSON *v) {
  if (v == NULL) return "missing";
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsObject(v)) return "an object";
  if (cJSON_IsBool(v)) return "true/false";
  if (cJSON_IsNull(v)) return "null";
  return "not a JSON value";
}

/* A name given twice is an error: JSON.parse takes the last and cJSON the first, so refuse rather
 * than guess. */
int sog_json_member(const cJSON *obj, const char *name, const char *where, const cJSON **out, const scene_error *e) {
  *out = NULL;
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (c->string == NULL || strcmp(c->string, name) != 0) continue;
    if (*out != NULL) return scene_fail(e, "%s%s%s is given twice", where, *where ? "." : "", name);
    *out = c;
  }
  return 0;
}

/* cJSON turns 1e999 into inf: that is taken, and the non-finite policy of scene.h then applies to
 * what it produces. */
int sog_json_number(const cJSON *v, const char *where, size_t index, double *out, const scene_error *e) {
  if (!cJSON_IsNumber(v)) {
    if (index == SIZE_MAX) return scene_fail(e, "%s is %s, expected a number", where, sog_json_kind(v));
    return scene_fail(e, "%s[%zu] is %s, expected a number", where, index, sog_json_kind(v));
  }
  *out = v->valuedouble;
  if (isnan(*out)) return scene_fail(e, "%s is not a number", where);
  return 0;
}

int sog_json_whole(const cJSON *parent, const char *pname, const char *name, bool required, double lo, double hi,
                   uint32_t *out, const scene_error *e) {
  char where[SOG_WHERE_MAX];
  snprintf(where, sizeof where, "%s%s%s", pname, *pname ? "." : "", name);
  const cJSON *v;
  if (sog_json_member(parent, name, pname, &v, e) != 0) return -1;
  if (v == NULL) return required ? scene_fail(e, "%s is missing", where) : 0;
  double d = 0;
  if (sog_json_number(v, where, SIZE_MAX, &d, e) != 0) return -1;
  if (d != floor(d) || d < lo || d > hi)
    return scene_fail(e, "%s is %.17g, expected a whole number from %.0f to %.0f", where, d, lo, hi);
  *out = (uint32_t)d;
  return 0;
}

int sog_json_name(const char *s, const char *where, char out[SOG_NAME_MAX], const scene_error *e) {
  size_t len = strlen(s);
  char tok[64];
  if (len == 0) return scene_fail(e, "%s is an empty name", where);
  if (len >= SOG_NAME_MAX) return scene_fail(e, "%s is a %zu-byte name (at most %d)", where, len, SOG_NAME_MAX - 1);
  for (size_t k = 0; k < len; ++k)
    if ((unsigned char)s[k] < 0x20 || s[k] == 0x7f || s[k] == '\\')
      return scene_fail(e, "%s '%s' has a control character or backslash", where, scene_token(tok, s, len));
  bool dotdot = false;
  for (const char *p = s; *p;) {
    size_t seg = strcspn(p, "/");
    dotdot |= seg == 2 && p[0] == '.' && p[1] == '.';
    p += seg + (p[seg] == '/');
  }
  if (s[0] == '/' || dotdot)
    return scene_fail(e, "%s '%s' leaves the scene's folder (absolute or '..')", where, scene_token(tok, s, len));
  memcpy(out, s, len + 1);
  return 0;
}

/* Line and column (from 1) of byte `pos` of text, for a syntax error. */
static void line_col(const char *text, size_t pos, unsigned *line, unsigned *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++*line;
      *col = 1;
    } else {
      ++*col;
    }
  }
}

cJSON *sog_json_parse(const char *text, size_t size, const scene_error *e) {
  size_t start = 0;
  if (size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) start = 3; /* a BOM, as TextDecoder skips it */
  const char *end = NULL;
  /* (On a syntax error cJSON also records the position in a global of its own, which we do not
   * read; the position comes back through `end`.) */
  cJSON *root = cJSON_ParseWithLengthOpts(text + start, size - start, &end, 0);
  unsigned line, col;
  if (root == NULL) {
    size_t pos = end != NULL && end >= text + start && end <= text + size ? (size_t)(end - text) : size;
    line_col(text, pos, &line, &col);
    scene_fail(e, "not valid JSON (at line %u, column %u)", line, col);
    return NULL;
  }
  /* cJSON stops after the value; JSON.parse refuses anything but white space after it */
  size_t pos = (size_t)(end - text);
  while (pos < size && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) ++pos;
  if (pos < size) {
    line_col(text, pos, &line, &col);
    scene_fail(e, "not valid JSON: text after the value (at line %u, column %u)", line, col);
  } else if (!cJSON_IsObject(root)) {
    scene_fail(e, "is %s, expected a JSON object", sog_json_kind(root));
  } else {
    return root;
  }
  cJSON_Delete(root);
  return NULL;
}
