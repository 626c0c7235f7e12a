/* scene_sog_meta.c: a SOG meta.json (format: scene_sog.h) parsed with cJSON into a sog_meta,
 * every member the decoder uses checked for presence, type and range before anything is read
 * from the images. */
#include "scene_sog.h"

#include <cJSON.h>
#include <stdio.h>

/* The object member `name` of obj (where: its path for messages). */
static int object_member(const cJSON *obj, const char *name, bool required, const cJSON **out, const scene_error *e) {
  if (sog_json_member(obj, name, "", out, e) != 0) return -1;
  if (*out == NULL) return required ? scene_fail(e, "'%s' is missing", name) : 0;
  if (!cJSON_IsObject(*out)) return scene_fail(e, "'%s' is %s, expected an object", name, sog_json_kind(*out));
  return 0;
}

/* parent.name: an array of exactly n numbers. */
static int numbers(const cJSON *parent, const char *pname, const char *name, size_t n, double *out,
                   const scene_error *e) {
  char where[64];
  snprintf(where, sizeof where, "%s.%s", pname, name);
  const cJSON *a;
  if (sog_json_member(parent, name, pname, &a, e) != 0) return -1;
  if (a == NULL) return scene_fail(e, "%s is missing", where);
  if (!cJSON_IsArray(a)) return scene_fail(e, "%s is %s, expected an array of %zu numbers", where, sog_json_kind(a), n);
  size_t got = (size_t)cJSON_GetArraySize(a);
  if (got != n) return scene_fail(e, "%s has %zu values, expected %zu", where, got, n);
  size_t i = 0;
  for (const cJSON *c = a->child; c != NULL; c = c->next, ++i)
    if (sog_json_number(c, where, i, &out[i], e) != 0) return -1;
  return 0;
}

/* parent.name: one number. */
static int scalar(const cJSON *parent, const char *pname, const char *name, double *out, const scene_error *e) {
  char where[64];
  snprintf(where, sizeof where, "%s.%s", pname, name);
  const cJSON *v;
  if (sog_json_member(parent, name, pname, &v, e) != 0) return -1;
  if (v == NULL) return scene_fail(e, "%s is missing", where);
  return sog_json_number(v, where, SIZE_MAX, out, e);
}

/* parent.codebook: 256 numbers. Tools before splat-transform's fix wrote a null first entry
 * (JSON has no -inf); it is filled in as the engine does (_patchCodebooks): one step below the
 * second entry, the step being the mean spacing of the other 255. */
static int codebook(const cJSON *parent, const char *pname, float out[256], const scene_error *e) {
  char where[64];
  snprintf(where, sizeof where, "%s.codebook", pname);
  const cJSON *a;
  if (sog_json_member(parent, "codebook", pname, &a, e) != 0) return -1;
  if (a == NULL) return scene_fail(e, "%s is missing", where);
  if (!cJSON_IsArray(a)) return scene_fail(e, "%s is %s, expected an array of 256 numbers", where, sog_json_kind(a));
  size_t got = (size_t)cJSON_GetArraySize(a);
  if (got != 256) return scene_fail(e, "%s has %zu entries, expected 256", where, got);
  double v[256];
  bool null_first = cJSON_IsNull(a->child);
  size_t i = 0;
  for (const cJSON *c = a->child; c != NULL; c = c->next, ++i) {
    if (i == 0 && null_first) continue;
    if (sog_json_number(c, where, i, &v[i], e) != 0) return -1;
  }
  if (null_first) v[0] = v[1] + (v[1] - v[255]) / 255.0;
  for (i = 0; i < 256; ++i) out[i] = (float)v[i];
  return 0;
}

/* parent.files: at least n strings, each a plain relative file name (sog_json_name: the images
 * stay beside meta.json or inside the bundle). */
static int files(const cJSON *parent, const char *pname, size_t n, char (*out)[SOG_NAME_MAX], const scene_error *e) {
  const cJSON *a;
  if (sog_json_member(parent, "files", pname, &a, e) != 0) return -1;
  if (a == NULL) return scene_fail(e, "%s.files is missing", pname);
  if (!cJSON_IsArray(a))
    return scene_fail(e, "%s.files is %s, expected an array of %zu file names", pname, sog_json_kind(a), n);
  size_t got = (size_t)cJSON_GetArraySize(a);
  if (got < n) return scene_fail(e, "%s.files has %zu names, expected %zu", pname, got, n);
  const cJSON *c = a->child;
  for (size_t i = 0; i < n; ++i, c = c->next) {
    char where[64];
    snprintf(where, sizeof where, "%s.files[%zu]", pname, i);
    if (!cJSON_IsString(c)) return scene_fail(e, "%s is %s, expected a file name", where, sog_json_kind(c));
    if (sog_json_name(c->valuestring, where, out[i], e) != 0) return -1;
  }
  return 0;
}

/* "model": how the scene was trained. Only "antialiased" changes how it renders here; "2dgs"
 * (surfels) and names from later tools load as ordinary Gaussians, as splat-transform reads an
 * unknown model as its default. */
static int model(const cJSON *root, sog_meta *m, const scene_error *e) {
  const cJSON *v;
  if (sog_json_member(root, "model", "", &v, e) != 0) return -1;
  if (v == NULL) return 0;
  if (!cJSON_IsString(v)) return scene_fail(e, "'model' is %s, expected a string", sog_json_kind(v));
  if (strcmp(v->valuestring, "antialiased") == 0) m->flags |= SPLAT_SCENE_ANTIALIASED;
  return 0;
}

static int parse_v2(const cJSON *root, sog_meta *m, const scene_error *e) {
  const cJSON *means, *scales, *quats, *sh0, *shn;
  if (sog_json_whole(root, "", "count", true, 1, SOG_MAX_COUNT, &m->count, e) != 0) return -1;
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
  if (sog_json_whole(shn, "shN", "bands", false, 0, 3, &bands, e) != 0 ||
      sog_json_whole(shn, "shN", "count", false, 1, 65536, &m->shn_count, e) != 0)
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
  if (sog_json_member(means, "shape", "means", &shape, e) != 0) return -1;
  if (shape == NULL) return scene_fail(e, "means.shape is missing (a version 1 meta.json counts splats there)");
  if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) < 1)
    return scene_fail(e, "means.shape is %s, expected an array [count, 3]",
                      cJSON_IsArray(shape) ? "an empty array" : sog_json_kind(shape));
  double n = 0;
  if (sog_json_number(shape->child, "means.shape", 0, &n, e) != 0) return -1;
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

int sog_parse_meta(const char *text, size_t size, sog_meta *m, const scene_error *e) {
  memset(m, 0, sizeof *m);
  if (size > SOG_META_MAX)
    return scene_fail(e, "meta.json is %zu bytes; a SOG meta.json is a few KiB (at most %zu are read)", size,
                      SOG_META_MAX);
  cJSON *root = sog_json_parse(text, size, e);
  if (root == NULL) return -1;
  int rc = 0;
  const cJSON *version = NULL, *means = NULL, *opacities = NULL, *lods = NULL;
  if (sog_json_member(root, "version", "", &version, e) != 0 || sog_json_member(root, "means", "", &means, e) != 0 ||
      sog_json_member(root, "opacities", "", &opacities, e) != 0 || sog_json_member(root, "lodLevels", "", &lods, e) != 0) {
    rc = -1;
  } else if (lods != NULL) {
    scene_fail(e, "a streamed (LOD) SOG's lod-meta.json, not one scene's meta.json");
    rc = SOG_LOD_META;
  } else if (opacities != NULL) {
    rc = scene_fail(e, "the first SOGS layout (April 2025, a separate 'opacities' image) is not supported: "
                       "re-export the scene");
  } else if (version != NULL && !cJSON_IsNumber(version)) {
    rc = scene_fail(e, "'version' is %s, expected a number", sog_json_kind(version));
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
