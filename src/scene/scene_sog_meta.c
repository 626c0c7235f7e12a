/* scene_sog_meta.c: a SOG meta.json (format: scene_sog.h) parsed with cJSON into a sog_meta,
 * every member the decoder uses checked for presence, type and range before anything is read
 * from the images. */
#include "scene_sog.h"

#include <cJSON.h>
#include <stdio.h>

/* What a JSON value is, for messages. */
static const char *json_kind(const cJSON *v) {
  if (v == NULL) return "missing";
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsObject(v)) return "an object";
  if (cJSON_IsBool(v)) return "true/false";
  if (cJSON_IsNull(v)) return "null";
  return "not a JSON value";
}

/* The member `name` of object `obj`, or NULL. A name given twice is an error (JSON.parse, which
 * PlayCanvas's readers use, takes the last and cJSON the first: refuse rather than guess). */
static int member(const cJSON *obj, const char *name, const char *where, const cJSON **out, const scene_error *e) {
  *out = NULL;
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (c->string == NULL || strcmp(c->string, name) != 0) continue;
    if (*out != NULL) return scene_fail(e, "%s%s%s is given twice", where, *where ? "." : "", name);
    *out = c;
  }
  return 0;
}

/* The object member `name` of obj (where: its path for messages). */
static int object_member(const cJSON *obj, const char *name, bool required, const cJSON **out, const scene_error *e) {
  if (member(obj, name, "", out, e) != 0) return -1;
  if (*out == NULL) return required ? scene_fail(e, "'%s' is missing", name) : 0;
  if (!cJSON_IsObject(*out)) return scene_fail(e, "'%s' is %s, expected an object", name, json_kind(*out));
  return 0;
}

/* A number that fits a double (cJSON turns 1e999 into inf: that is taken, and the non-finite
 * policy of scene.h then applies to what it produces). */
static int number(const cJSON *v, const char *where, size_t index, double *out, const scene_error *e) {
  if (!cJSON_IsNumber(v)) {
    if (index == SIZE_MAX) return scene_fail(e, "%s is %s, expected a number", where, json_kind(v));
    return scene_fail(e, "%s[%zu] is %s, expected a number", where, index, json_kind(v));
  }
  *out = v->valuedouble;
  if (isnan(*out)) return scene_fail(e, "%s is not a number", where);
  return 0;
}

/* parent.name: an array of exactly n numbers. */
static int numbers(const cJSON *parent, const char *pname, const char *name, size_t n, double *out,
                   const scene_error *e) {
  char where[64];
  snprintf(where, sizeof where, "%s.%s", pname, name);
  const cJSON *a;
  if (member(parent, name, pname, &a, e) != 0) return -1;
  if (a == NULL) return scene_fail(e, "%s is missing", where);
  if (!cJSON_IsArray(a)) return scene_fail(e, "%s is %s, expected an array of %zu numbers", where, json_kind(a), n);
  size_t got = (size_t)cJSON_GetArraySize(a);
  if (got != n) return scene_fail(e, "%s has %zu values, expected %zu", where, got, n);
  size_t i = 0;
  for (const cJSON *c = a->child; c != NULL; c = c->next, ++i)
    if (number(c, where, i, &out[i], e) != 0) return -1;
  return 0;
}

/* parent.name: one number. */
static int scalar(const cJSON *parent, const char *pname, const char *name, double *out, const scene_error *e) {
  char where[64];
  snprintf(where, sizeof where, "%s.%s", pname, name);
  const cJSON *v;
  if (member(parent, name, pname, &v, e) != 0) return -1;
  if (v == NULL) return scene_fail(e, "%s is missing", where);
  return number(v, where, SIZE_MAX, out, e);
}

/* An optional whole number in [lo, hi]; *out untouched when absent. */
static int whole(const cJSON *parent, const char *pname, const char *name, bool required, double lo, double hi,
                 uint32_t *out, const scene_error *e) {
  char where[64];
  snprintf(where, sizeof where, "%s%s%s", pname, *pname ? "." : "", name);
  const cJSON *v;
  if (member(parent, name, pname, &v, e) != 0) return -1;
  if (v == NULL) return required ? scene_fail(e, "%s is missing", where) : 0;
  double d = 0;
  if (number(v, where, SIZE_MAX, &d, e) != 0) return -1;
  if (d != floor(d) || d < lo || d > hi)
    return scene_fail(e, "%s is %.17g, expected a whole number from %.0f to %.0f", where, d, lo, hi);
  *out = (uint32_t)d;
  return 0;
}

/* parent.codebook: 256 numbers. Tools before splat-transform's fix wrote a null first entry
 * (JSON has no -inf); it is filled in as the engine does (_patchCodebooks): one step below the
 * second entry, the step being the mean spacing of the other 255. */
static int codebook(const cJSON *parent, const char *pname, float out[256], const scene_error *e) {
  char where[64];
  snprintf(where, sizeof where, "%s.codebook", pname);
  const cJSON *a;
  if (member(parent, "codebook", pname, &a, e) != 0) return -1;
  if (a == NULL) return scene_fail(e, "%s is missing", where);
  if (!cJSON_IsArray(a)) return scene_fail(e, "%s is %s, expected an array of 256 numbers", where, json_kind(a));
  size_t got = (size_t)cJSON_GetArraySize(a);
  if (got != 256) return scene_fail(e, "%s has %zu entries, expected 256", where, got);
  double v[256];
  bool null_first = cJSON_IsNull(a->child);
  size_t i = 0;
  for (const cJSON *c = a->child; c != NULL; c = c->next, ++i) {
    if (i == 0 && null_first) continue;
    if (number(c, where, i, &v[i], e) != 0) return -1;
  }
  if (null_first) v[0] = v[1] + (v[1] - v[255]) / 255.0;
  for (i = 0; i < 256; ++i) out[i] = (float)v[i];
  return 0;
}

/* parent.files: at least n strings, each a plain relative file name (no "..", not absolute, no
 * control characters; the images stay beside meta.json or inside the bundle). */
static int files(const cJSON *parent, const char *pname, size_t n, char (*out)[SOG_NAME_MAX], const scene_error *e) {
  const cJSON *a;
  if (member(parent, "files", pname, &a, e) != 0) return -1;
  if (a == NULL) return scene_fail(e, "%s.files is missing", pname);
  if (!cJSON_IsArray(a))
    return scene_fail(e, "%s.files is %s, expected an array of %zu file names", pname, json_kind(a), n);
  size_t got = (size_t)cJSON_GetArraySize(a);
  if (got < n) return scene_fail(e, "%s.files has %zu names, expected %zu", pname, got, n);
  const cJSON *c = a->child;
  for (size_t i = 0; i < n; ++i, c = c->next) {
    if (!cJSON_IsString(c))
      return scene_fail(e, "%s.files[%zu] is %s, expected a file name", pname, i, json_kind(c));
    const char *s = c->valuestring;
    size_t len = strlen(s);
    char tok[64];
    if (len == 0) return scene_fail(e, "%s.files[%zu] is an empty name", pname, i);
    if (len >= SOG_NAME_MAX)
      return scene_fail(e, "%s.files[%zu] is a %zu-byte name (at most %d)", pname, i, len, SOG_NAME_MAX - 1);
    for (size_t k = 0; k < len; ++k)
      if ((unsigned char)s[k] < 0x20 || s[k] == 0x7f || s[k] == '\\')
        return scene_fail(e, "%s.files[%zu] '%s' has a control character or backslash", pname, i,
                          scene_token(tok, s, len));
    bool dotdot = false;
    for (const char *p = s; *p;) {
      size_t seg = strcspn(p, "/");
      dotdot |= seg == 2 && p[0] == '.' && p[1] == '.';
      p += seg + (p[seg] == '/');
    }
    if (s[0] == '/' || dotdot)
      return scene_fail(e, "%s.files[%zu] '%s' leaves the scene's folder (absolute or '..')", pname, i,
                        scene_token(tok, s, len));
    memcpy(out[i], s, len + 1);
  }
  return 0;
}

/* "model": how the scene was trained. Only "antialiased" changes how it renders here; "2dgs"
 * (surfels) and names from later tools load as ordinary Gaussians, as splat-transform reads an
 * unknown model as its default. */
static int model(const cJSON *root, sog_meta *m, const scene_error *e) {
  const cJSON *v;
  if (member(root, "model", "", &v, e) != 0) return -1;
  if (v == NULL) return 0;
  if (!cJSON_IsString(v)) return scene_fail(e, "'model' is %s, expected a string", json_kind(v));
  if (strcmp(v->valuestring, "antialiased") == 0) m->flags |= SPLAT_SCENE_ANTIALIASED;
  return 0;
}

static int parse_v2(const cJSON *root, sog_meta *m, const scene_error *e) {
  const cJSON *means, *scales, *quats, *sh0, *shn;
  if (whole(root, "", "count", true, 1, SOG_MAX_COUNT, &m->count, e) != 0) return -1;
  if (object_member(root, "means", true, &means, e) != 0 || object_member(root, "scales", true, &scales, e) != 0 ||
      object_member(root, "quats", true, &quats, e) != 0 || object_member(root, "sh0", true, &sh0, e) != 0 ||
      object_member(root, "shN", false, &shn, e) != 0)
    return -1;
  if (numbers(means, "means", "mins", 3, m->means_min, e) != 0 ||
      numbers(means, "means", "maxs", 3, m->means_max, e) != 0 ||
      files(means, "means", 2, &m->files[SOG_MEANS_L], e) != 0 || codebook(scales, "scales", m->scales_cb, e) != 0 ||
      files(scales, "scales", 1, &m->files[SOG_SCALES], e) != 0 || files(quats, "quats", 1, &m->files[SOG_QUATS], e) != 0 ||
      codebook(sh0, "sh0", m->sh0_cb, e) != 0 || files(sh0, "sh0", 1, &m->files[SOG_SH0], e) != 0)
    return -1;
  if (shn == NULL) return 0;
  uint32_t bands = UINT32_MAX;
  if (whole(shn, "shN", "bands", false, 0, 3, &bands, e) != 0 ||
      whole(shn, "shN", "count", false, 1, 65536, &m->shn_count, e) != 0)
    return -1;
  if (bands == 0) return 0; /* declared without SH: splat-transform reads no shN then either */
  m->shn_bands = bands == UINT32_MAX ? 0 : bands;
  m->has_shn = true;
  return codebook(shn, "shN", m->shn_cb, e) != 0 || files(shn, "shN", 2, &m->files[SOG_SHN_CENTROIDS], e) != 0
             ? -1
             : 0;
}

/* Version 1 (the sogs Python tool, May-July 2025): the count is means.shape[0]. */
static int parse_v1(const cJSON *root, sog_meta *m, const scene_error *e) {
  const cJSON *means, *scales, *quats, *sh0, *shn, *shape;
  if (object_member(root, "means", true, &means, e) != 0 || object_member(root, "scales", true, &scales, e) != 0 ||
      object_member(root, "quats", true, &quats, e) != 0 || object_member(root, "sh0", true, &sh0, e) != 0 ||
      object_member(root, "shN", false, &shn, e) != 0)
    return -1;
  if (member(means, "shape", "means", &shape, e) != 0) return -1;
  if (shape == NULL) return scene_fail(e, "means.shape is missing (a version 1 meta.json counts splats there)");
  if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) < 1)
    return scene_fail(e, "means.shape is %s, expected an array [count, 3]",
                      cJSON_IsArray(shape) ? "an empty array" : json_kind(shape));
  double n = 0;
  if (number(shape->child, "means.shape", 0, &n, e) != 0) return -1;
  if (n != floor(n) || n < 1 || n > SOG_MAX_COUNT)
    return scene_fail(e, "means.shape[0] is %.17g, expected a splat count from 1 to %u", n, SOG_MAX_COUNT);
  m->count = (uint32_t)n;
  if (numbers(means, "means", "mins", 3, m->means_min, e) != 0 ||
      numbers(means, "means", "maxs", 3, m->means_max, e) != 0 ||
      files(means, "means", 2, &m->files[SOG_MEANS_L], e) != 0 ||
      numbers(scales, "scales", "mins", 3, m->scales_min, e) != 0 ||
      numbers(scales, "scales", "maxs", 3, m->scales_max, e) != 0 ||
      files(scales, "scales", 1, &m->files[SOG_SCALES], e) != 0 || files(quats, "quats", 1, &m->files[SOG_QUATS], e) != 0 ||
      numbers(sh0, "sh0", "mins", 4, m->sh0_min, e) != 0 || numbers(sh0, "sh0", "maxs", 4, m->sh0_max, e) != 0 ||
      files(sh0, "sh0", 1, &m->files[SOG_SH0], e) != 0)
    return -1;
  if (shn == NULL) return 0;
  m->has_shn = true;
  return scalar(shn, "shN", "mins", &m->shn_min, e) != 0 || scalar(shn, "shN", "maxs", &m->shn_max, e) != 0 ||
                 files(shn, "shN", 2, &m->files[SOG_SHN_CENTROIDS], e) != 0
             ? -1
             : 0;
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

int sog_parse_meta(const char *text, size_t size, sog_meta *m, const scene_error *e) {
  memset(m, 0, sizeof *m);
  if (size > SOG_META_MAX)
    return scene_fail(e, "meta.json is %zu bytes; a SOG meta.json is a few KiB (at most %zu are read)", size,
                      SOG_META_MAX);
  size_t start = 0;
  if (size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) start = 3; /* a BOM, as TextDecoder skips it */
  const char *end = NULL;
  /* (On a syntax error cJSON also records the position in a global of its own, which we do not
   * read; the position comes back through `end`.) */
  cJSON *root = cJSON_ParseWithLengthOpts(text + start, size - start, &end, 0);
  if (root == NULL) {
    size_t pos = end != NULL && end >= text + start && end <= text + size ? (size_t)(end - text) : size;
    unsigned line, col;
    line_col(text, pos, &line, &col);
    return scene_fail(e, "not valid JSON (at line %u, column %u)", line, col);
  }
  int rc = 0;
  /* cJSON stops after the value; JSON.parse refuses anything but white space after it */
  size_t pos = (size_t)(end - text);
  while (pos < size && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) ++pos;
  const cJSON *version = NULL, *means = NULL, *opacities = NULL, *lods = NULL;
  if (pos < size) {
    unsigned line, col;
    line_col(text, pos, &line, &col);
    rc = scene_fail(e, "not valid JSON: text after the value (at line %u, column %u)", line, col);
  } else if (!cJSON_IsObject(root)) {
    rc = scene_fail(e, "is %s, expected a JSON object", json_kind(root));
  } else if (member(root, "version", "", &version, e) != 0 || member(root, "means", "", &means, e) != 0 ||
             member(root, "opacities", "", &opacities, e) != 0 || member(root, "lodLevels", "", &lods, e) != 0) {
    rc = -1;
  } else if (lods != NULL) {
    rc = scene_fail(e, "a streamed (LOD) SOG's lod-meta.json; open one level's meta.json instead (e.g. 0_0/meta.json)");
  } else if (opacities != NULL) {
    rc = scene_fail(e, "the first SOGS layout (April 2025, a separate 'opacities' image) is not supported: "
                       "re-export the scene");
  } else if (version != NULL && !cJSON_IsNumber(version)) {
    rc = scene_fail(e, "'version' is %s, expected a number", json_kind(version));
  } else if (version != NULL && version->valuedouble != 1.0 && version->valuedouble != 2.0) {
    rc = scene_fail(e, "version %.17g is not supported (1 and 2 are)", version->valuedouble);
  } else {
    /* The engine reads anything but version 2 as version 1 (which has no "version"). */
    m->version = version != NULL && version->valuedouble == 2.0 ? 2 : 1;
    rc = m->version == 2 ? parse_v2(root, m, e) : parse_v1(root, m, e);
    if (rc == 0) rc = model(root, m, e);
  }
  cJSON_Delete(root);
  if (rc != 0) memset(m, 0, sizeof *m);
  return rc;
}
