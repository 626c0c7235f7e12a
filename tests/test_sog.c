/* test_sog: CPU tests of the PlayCanvas SOG reader (src/scene/scene_sog*.c), with the test writer
 * (tests/sog_writer.h) and with files PlayCanvas's own tools wrote (tests/data/sog).
 *
 *   test_sog roundtrip TMPDIR   scenes of SH degree 0..3, versions 2 and 1, as a folder, a
 *                               meta.json path, a stored and a deflated bundle: every decoded
 *                               value within its quantisation's bound of the source
 *   test_sog malformed TMPDIR   every error the reader reports: its words, one line naming the
 *                               file, a zeroed scene
 *   test_sog corrupt TMPDIR     seeded corruption of meta.json text and of bundles (thousands of
 *                               each) and every truncation of each image: never a crash, every
 *                               result valid, every failure a message
 *   test_sog real DATA_DIR      files splat-transform wrote (and a scene from PlayCanvas's engine
 *                               repository), against splat-transform's own decoding of them
 *   test_sog lod_real DATA_DIR  a streamed (LOD) bundle splat-transform wrote: both levels against
 *                               its own reading of them, by lod-meta.json and folder, 1 and N threads
 *   test_sog lod DATA_DIR TMPDIR  that bundle edited: every refusal (one line naming the file and
 *                               the member), and edits that still load (older form, tree order,
 *                               dropped splats, another level's chunk missing, a cancel)
 *   test_sog compare A B        two files of the same splats in order: the largest differences
 *   test_sog seeds DIR          writes fuzz_sog's seed inputs (tests/fuzz/corpus/sog)
 * Expected values and bounds are computed here from the source scene, independently of the
 * reader. */
#include "check.h"
#include "splat_scene.h"
#include "scene_check.h"
#include "scene_sog.h"
#include "sog_fixture.h"
#include "sog_writer.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[512];
static uint64_t rng_state;
static double urand(double lo, double hi) { return lo + (hi - lo) * (double)(splitmix64(&rng_state) >> 11) * 0x1.0p-53; }

static const char *tmp_path(const char *name) {
  static char p[4][1024];
  static int which;
  which = (which + 1) % 4;
  snprintf(p[which], sizeof p[which], "%s/%s", tmpdir, name);
  return p[which];
}

/* ---- scenes ---------------------------------------------------------------------------------- */

/* n random splats of SH degree d: positions of several magnitudes (log encoding), anisotropic
 * scales, every opacity, SH within the ranges real scenes have. */
static void random_scene(splat_scene *s, uint32_t n, uint32_t d, double extent) {
  const uint32_t coeffs = (d + 1) * (d + 1);
  memset(s, 0, sizeof *s);
  s->count = n, s->sh_degree = d, s->sh_coeffs = coeffs;
  s->positions = malloc((size_t)n * 3 * sizeof(float));
  s->scales = malloc((size_t)n * 3 * sizeof(float));
  s->rotations = malloc((size_t)n * 4 * sizeof(float));
  s->opacities = malloc((size_t)n * sizeof(float));
  s->sh = malloc((size_t)n * coeffs * 3 * sizeof(float));
  if (!s->positions || !s->scales || !s->rotations || !s->opacities || !s->sh) abort();
  for (uint32_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      s->positions[i * 3 + c] = (float)(urand(-1, 1) * extent * pow(10.0, urand(-3, 0)));
      s->scales[i * 3 + c] = (float)exp(urand(-7, 0));
    }
    double q[4], l = 0;
    for (int c = 0; c < 4; ++c) q[c] = urand(-1, 1), l += q[c] * q[c];
    for (int c = 0; c < 4; ++c) s->rotations[i * 4 + c] = (float)(q[c] / sqrt(l));
    s->opacities[i] = (float)urand(0, 1);
    for (uint32_t k = 0; k < coeffs * 3; ++k) s->sh[(size_t)i * coeffs * 3 + k] = (float)(k < 3 ? urand(-2.5, 2.5) : urand(-0.5, 0.5));
  }
}

/* Loads `path`; on failure prints the message and counts a failure. */
static int load(const char *path, splat_scene *s) {
  char err[512];
  if (splat_scene_load(path, s, err, sizeof err) != 0) {
    CHECK(0, "%s did not load: %s", path, err);
    return -1;
  }
  return 0;
}

/* Every documented invariant of a loaded scene. */
static void check_invariants(const char *what, const splat_scene *s) {
  CHECK(s->count > 0 && s->sh_degree <= 3 && s->sh_coeffs == (s->sh_degree + 1) * (s->sh_degree + 1), "%s: shape", what);
  float lo[3], hi[3];
  memcpy(lo, s->positions, sizeof lo);
  memcpy(hi, s->positions, sizeof hi);
  for (uint32_t i = 0; i < s->count; ++i) {
    double n = 0;
    for (int c = 0; c < 4; ++c) n += (double)s->rotations[i * 4 + c] * s->rotations[i * 4 + c];
    CHECK(fabs(n - 1) < 1e-5, "%s: splat %u |q|^2 %g", what, i, n);
    CHECK(s->opacities[i] >= 0 && s->opacities[i] <= 1, "%s: splat %u opacity %g", what, i, (double)s->opacities[i]);
    for (int c = 0; c < 3; ++c) {
      float p = s->positions[i * 3 + c];
      CHECK(isfinite(p) && isfinite(s->scales[i * 3 + c]) && s->scales[i * 3 + c] >= 0, "%s: splat %u", what, i);
      lo[c] = fminf(lo[c], p), hi[c] = fmaxf(hi[c], p);
    }
    for (uint32_t k = 0; k < s->sh_coeffs * 3; ++k)
      CHECK(isfinite(s->sh[(size_t)i * s->sh_coeffs * 3 + k]), "%s: splat %u SH %u", what, i, k);
  }
  CHECK(memcmp(lo, s->bounds_min, sizeof lo) == 0 && memcmp(hi, s->bounds_max, sizeof hi) == 0, "%s: bounds", what);
}

/* ---- round trips ----------------------------------------------------------------------------- */

static double log_transform(double x) { return x < 0 ? -log1p(-x) : log1p(x); }

/* min and max of v[i * stride + k], k < width, over n rows */
static void range(const float *v, size_t n, size_t stride, size_t width, double (*f)(double), double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < width; ++k) {
      double x = f ? f(v[i * stride + k]) : v[i * stride + k];
      *lo = fmin(*lo, x), *hi = fmax(*hi, x);
    }
}

static double ident(double x) { return x; }

/* The decoded scene d of source s, written as version `version`, splat by splat against the
 * bounds its quantisation allows (derivations in the comments). With fewer palette `entries`
 * than splats, splats share entries (sog_palette_groups), so splat i's SH is compared with its
 * entry's first splat. */
static void check_roundtrip(const char *what, const splat_scene *s, const splat_scene *d, uint32_t version,
                            uint32_t entries) {
  CHECK(d->count == s->count && d->sh_degree == s->sh_degree && d->dropped == 0, "%s: %u splats of degree %u, "
        "expected %u of %u", what, d->count, d->sh_degree, s->count, s->sh_degree);
  if (d->count != s->count || d->sh_degree != s->sh_degree) return;
  const uint32_t n = s->count, nsh = s->sh_coeffs * 3;
  const double half = version == 1 ? 0.5 : 1.0; /* version 1 rounds: half a step; 2 truncates or rounds */
  /* positions: 16 bits over each axis's log range; an error e in log space moves the position by
   * at most e * e^|l| */
  double plo[3], phi[3];
  for (int c = 0; c < 3; ++c) range(s->positions + c, n, 3, 1, log_transform, &plo[c], &phi[c]);
  /* scales: version 2 one codebook over every axis's log scale, nearest entry (half a step);
   * version 1 per axis, rounded */
  double slo[3], shi[3], sl, sh;
  range(s->scales, n, 3, 3, log, &sl, &sh);
  for (int c = 0; c < 3; ++c) {
    if (version == 2) slo[c] = sl, shi[c] = sh;
    else range(s->scales + c, n, 3, 1, log, &slo[c], &shi[c]);
  }
  /* DC: version 2 one codebook over the three channels, version 1 per channel */
  double dlo[3], dhi[3], dl, dh;
  range(s->sh, n, nsh, 3, ident, &dl, &dh);
  for (int c = 0; c < 3; ++c) {
    if (version == 2) dlo[c] = dl, dhi[c] = dh;
    else range(s->sh + c, n, nsh, 1, ident, &dlo[c], &dhi[c]);
  }
  /* SH rest: one codebook (version 2) or one scalar range (version 1) over the palette */
  double rlo = 0, rhi = 0;
  if (nsh > 3) {
    rlo = INFINITY, rhi = -INFINITY;
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t k = 3; k < nsh; ++k) rlo = fmin(rlo, s->sh[(size_t)i * nsh + k]), rhi = fmax(rhi, s->sh[(size_t)i * nsh + k]);
  }
  /* opacity: version 2 truncated to bytes (the value falls by less than 1/255); version 1 the
   * logit rounded over its range, and sigmoid' <= 1/4 */
  double olo = INFINITY, ohi = -INFINITY;
  for (uint32_t i = 0; i < n; ++i) {
    double o = fmin(fmax(s->opacities[i], 1e-12), 1 - 1e-12), l = log(o / (1 - o));
    olo = fmin(olo, l), ohi = fmax(ohi, l);
  }
  /* the writer's palette groups (sog_writer.h), when it has fewer entries than splats */
  uint32_t *label = NULL, *first = NULL;
  if (entries < n) {
    label = malloc(n * sizeof *label), first = malloc(entries * sizeof *first);
    sog_palette_groups(n, entries, label, first);
  }
  double worst[6] = {0};
  for (uint32_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      double p = s->positions[i * 3 + c], q = d->positions[i * 3 + c];
      double tol = (phi[c] - plo[c]) / 65535.0 * half * exp(fmax(fabs(plo[c]), fabs(phi[c]))) + 1e-6 * (1 + fabs(p));
      CHECK(fabs(p - q) <= tol, "%s: splat %u position %d: %.9g, source %.9g (bound %.3g)", what, i, c, q, p, tol);
      worst[0] = fmax(worst[0], fabs(p - q) / tol);
      double ls = log(s->scales[i * 3 + c]), ld = log(d->scales[i * 3 + c]);
      double stol = (shi[c] - slo[c]) / 255.0 * 0.5 + 1e-5;
      CHECK(fabs(ls - ld) <= stol, "%s: splat %u log scale %d: %.9g, source %.9g (bound %.3g)", what, i, c, ld, ls, stol);
      worst[1] = fmax(worst[1], fabs(ls - ld) / stol);
      double dc = s->sh[(size_t)i * nsh + c], dd = d->sh[(size_t)i * nsh + c];
      double dtol = (dhi[c] - dlo[c]) / 255.0 * 0.5 + 1e-6;
      CHECK(fabs(dc - dd) <= dtol, "%s: splat %u DC %d: %.9g, source %.9g (bound %.3g)", what, i, c, dd, dc, dtol);
      worst[2] = fmax(worst[2], fabs(dc - dd) / dtol);
    }
    double o = s->opacities[i], od = d->opacities[i];
    double otol = version == 2 ? 1 / 255.0 + 1e-6 : (ohi - olo) / 255.0 * 0.5 * 0.25 + 1e-6;
    CHECK(version == 2 ? (o - od >= -1e-6 && o - od <= otol) : fabs(o - od) <= otol,
          "%s: splat %u opacity %.9g, source %.9g", what, i, od, o);
    worst[3] = fmax(worst[3], fabs(o - od) / otol);
    /* rotation: the three small components quantised to bytes over [-1, 1] / sqrt(2), so each
     * is off by under sqrt(2)/255 (version 1: half that); the largest, rebuilt from them, by at
     * most sum|c| * that / 0.5 <= 1.5 * that / 0.5 (it is at least 1/2; sum|c| <= 1.5). Same
     * quaternion up to sign. */
    double dot = 0;
    for (int c = 0; c < 4; ++c) dot += (double)s->rotations[i * 4 + c] * d->rotations[i * 4 + c];
    double sign = dot < 0 ? -1 : 1, qtol = 3.0 * 1.4142135623730951 / 255.0 * half + 1e-6;
    for (int c = 0; c < 4; ++c) {
      double e = fabs(sign * s->rotations[i * 4 + c] - d->rotations[i * 4 + c]);
      CHECK(e <= qtol, "%s: splat %u rotation %d: %.9g, source %.9g", what, i, c, (double)d->rotations[i * 4 + c],
            (double)s->rotations[i * 4 + c]);
      worst[4] = fmax(worst[4], e / qtol);
    }
    /* SH rest: the palette entry's values to half a codebook step */
    uint32_t from = label ? first[label[i]] : i;
    double rtol = (rhi - rlo) / 255.0 * 0.5 + 1e-6;
    for (uint32_t k = 3; k < nsh; ++k) {
      double a = s->sh[(size_t)from * nsh + k], b = d->sh[(size_t)i * nsh + k];
      CHECK(fabs(a - b) <= rtol, "%s: splat %u SH %u: %.9g, source %.9g (splat %u)", what, i, k, b, a, from);
      worst[5] = fmax(worst[5], fabs(a - b) / rtol);
    }
  }
  free(label);
  free(first);
  printf("  %-40s %6u splats SH %u: worst error / bound: position %.2f, scale %.2f, DC %.2f, opacity %.2f, "
         "rotation %.2f, SH rest %.2f\n", what, n, s->sh_degree, worst[0], worst[1], worst[2], worst[3], worst[4], worst[5]);
}

/* Two loads of the same splats must be identical. */
static void check_same(const char *what, const splat_scene *a, const splat_scene *b) {
  bool same = a->count == b->count && a->sh_coeffs == b->sh_coeffs && a->flags == b->flags;
  if (same) {
    size_t n = a->count;
    same = !memcmp(a->positions, b->positions, n * 12) && !memcmp(a->scales, b->scales, n * 12) &&
           !memcmp(a->rotations, b->rotations, n * 16) && !memcmp(a->opacities, b->opacities, n * 4) &&
           !memcmp(a->sh, b->sh, n * a->sh_coeffs * 12);
  }
  CHECK(same, "%s: not identical to the folder's load", what);
}

static void roundtrip_case(const char *tag, const splat_scene *s, const sog_write_options *o) {
  sog_output out;
  char err[512], what[128];
  if (sog_write(s, o, &out, err, sizeof err) != 0) {
    CHECK(0, "%s: %s", tag, err);
    return;
  }
  const char *dir = tmp_path(tag);
  if (sog_output_save(&out, dir, err, sizeof err) != 0) {
    CHECK(0, "%s", err);
    sog_output_free(&out);
    return;
  }
  uint32_t version = o->version ? o->version : 2;
  uint32_t entries = o->palette_max && o->palette_max < s->count ? o->palette_max : (s->count < 65536 ? s->count : 65536);
  splat_scene d;
  if (load(dir, &d) == 0) { /* the folder */
    snprintf(what, sizeof what, "%s (folder)", tag);
    check_roundtrip(what, s, &d, version, entries);
    check_invariants(what, &d);
    CHECK(d.flags == (o->model && !strcmp(o->model, "antialiased") ? SPLAT_SCENE_ANTIALIASED : 0u), "%s: flags %u",
          what, d.flags);
    /* the same files by their meta.json, and bundled stored and deflated, decode identically */
    char path[1100];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    splat_scene e;
    if (load(path, &e) == 0) {
      snprintf(what, sizeof what, "%s (meta.json)", tag);
      check_same(what, &d, &e);
      splat_scene_free(&e);
    }
    for (int deflate = 0; deflate <= 1; ++deflate) {
      size_t zsize;
      uint8_t *z = sog_output_zip(&out, deflate, &zsize);
      snprintf(path, sizeof path, "%s%s.sog", dir, deflate ? "_deflated" : "");
      if (z == NULL || sog_save_file(path, z, zsize, err, sizeof err) != 0) {
        CHECK(0, "%s: could not write the bundle", tag);
      } else if (load(path, &e) == 0) {
        snprintf(what, sizeof what, "%s (%s bundle)", tag, deflate ? "deflated" : "stored");
        check_same(what, &d, &e);
        splat_scene_free(&e);
      }
      free(z);
    }
    splat_scene_free(&d);
  }
  sog_output_free(&out);
}

static void test_roundtrip(void) {
  rng_state = 1401;
  for (uint32_t degree = 0; degree <= 3; ++degree) {
    splat_scene s;
    char tag[64];
    random_scene(&s, 1000, degree, 20.0);
    snprintf(tag, sizeof tag, "v2_sh%u", degree);
    roundtrip_case(tag, &s, &(sog_write_options){.version = 2});
    splat_scene_free(&s);
    random_scene(&s, 30 * 30, degree, 5.0); /* version 1: a square count */
    snprintf(tag, sizeof tag, "v1_sh%u", degree);
    roundtrip_case(tag, &s, &(sog_write_options){.version = 1});
    splat_scene_free(&s);
  }
  splat_scene s;
  /* one splat; counts just past the texture's multiples of 4; a palette smaller than the count
   * (labels share entries); more splats than 16-bit labels reach (65,536 entries); images in a
   * sub-folder; the antialiased model */
  random_scene(&s, 1, 3, 1.0);
  roundtrip_case("v2_one", &s, &(sog_write_options){0});
  splat_scene_free(&s);
  random_scene(&s, 17, 2, 1.0);
  roundtrip_case("v2_17", &s, &(sog_write_options){.prefix = "img/"});
  splat_scene_free(&s);
  random_scene(&s, 3000, 3, 100.0);
  roundtrip_case("v2_palette64", &s, &(sog_write_options){.palette_max = 64, .model = "antialiased"});
  splat_scene_free(&s);
  random_scene(&s, 70001, 1, 10.0);
  roundtrip_case("v2_70001", &s, &(sog_write_options){0});
  splat_scene_free(&s);
  /* 2dgs and unknown models load as ordinary splats */
  random_scene(&s, 100, 0, 1.0);
  roundtrip_case("v2_2dgs", &s, &(sog_write_options){.model = "2dgs"});
  splat_scene_free(&s);
}

/* ---- malformed input ------------------------------------------------------------------------- */

/* A file, folder or bundle that must fail to load (scene_check.h says how). */
static void expect_path_error(const char *path, const char *words) {
  splat_scene s;
  char err[1024];
  memset(&s, 0xa5, sizeof s);
  int rc = splat_scene_load(path, &s, err, sizeof err);
  check_load_failure(path, rc, &s, err, sizeof err, words);
}


/* The good files of the malformed tests: a 64-splat SH-3 scene, version 2 (the fixture). */
static sog_output good;

/* text with the first `from` replaced by `to` (malloc'd); the test fails when from is absent. */
static char *replaced(const char *text, size_t size, const char *from, const char *to) {
  const char *at = NULL;
  for (size_t i = 0; i + strlen(from) <= size && !at; ++i)
    if (memcmp(text + i, from, strlen(from)) == 0) at = text + i;
  CHECK(at != NULL, "'%s' not in meta.json", from);
  if (!at) at = text + size;
  size_t head = (size_t)(at - text), fl = at < text + size ? strlen(from) : 0;
  char *r = malloc(size + strlen(to) + 1);
  memcpy(r, text, head);
  memcpy(r + head, to, strlen(to));
  memcpy(r + head + strlen(to), at + fl, size - head - fl);
  r[size - fl + strlen(to)] = '\0';
  return r;
}

/* A case folder: the good files, meta.json with `from` replaced by `to` (NULL: unchanged), one
 * image replaced by another blob's bytes, or removed (with == NULL), or cut to `cut` bytes. */
typedef struct mcase {
  const char *name, *from, *to;
  const char *image;   /* the file to change */
  const char *with;    /* fixture blob to put there; NULL with image set: remove it */
  size_t cut;          /* cut `image` to this many bytes instead */
  const char *words;
} mcase;

static const sog_fixture *fix;

static void run_case(const mcase *c) {
  char err[512];
  const char *dir = tmp_path(c->name);
  if (sog_output_save(&good, dir, err, sizeof err) != 0) {
    CHECK(0, "%s", err);
    return;
  }
  char path[1100];
  const sog_blob *meta = &good.blob[0];
  if (c->from) {
    char *t = replaced((const char *)meta->data, meta->size, c->from, c->to);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    sog_save_file(path, t, strlen(t), err, sizeof err);
    free(t);
  }
  if (c->image) {
    snprintf(path, sizeof path, "%s/%s", dir, c->image);
    if (c->cut) {
      sog_blob *b = sog_output_find(&good, c->image);
      sog_save_file(path, b->data, c->cut, err, sizeof err);
    } else if (c->with) {
      const sog_blob *b = sog_fixture_find(fix, c->with);
      CHECK(b != NULL, "no fixture %s", c->with);
      if (b) sog_save_file(path, b->data, b->size, err, sizeof err);
    } else {
      unlink(path);
    }
  }
  snprintf(path, sizeof path, "%s/meta.json", dir);
  expect_path_error(path, c->words);
}

static void malformed_meta(void) {
  static const mcase cases[] = {
      {"json_cut", "\"means\"", "\"means", NULL, NULL, 0, "not valid JSON|line 1, column"},
      {"json_after", "\"version\":2,", "\"version\":2,,", NULL, NULL, 0, "not valid JSON"},
      {"json_array", "{\"version\"", "[{\"version\"", NULL, NULL, 0, "not valid JSON"},
      {"version3", "\"version\":2", "\"version\":3", NULL, NULL, 0, "version 3 is not supported"},
      {"version_str", "\"version\":2", "\"version\":\"2\"", NULL, NULL, 0, "'version' is a string"},
      {"no_count", "\"count\":64,", "", NULL, NULL, 0, "count is missing"},
      {"count_neg", "\"count\":64", "\"count\":-1", NULL, NULL, 0, "count is -1"},
      {"count_frac", "\"count\":64", "\"count\":6.5", NULL, NULL, 0, "count is 6.5"},
      {"count_huge", "\"count\":64", "\"count\":1e12", NULL, NULL, 0, "count is 1000000000000"},
      {"count_twice", "\"count\":64", "\"count\":64,\"count\":32", NULL, NULL, 0, "count is given twice"},
      {"no_means", "\"means\"", "\"meanz\"", NULL, NULL, 0, "'means' is missing"},
      {"means_array", "\"means\":{", "\"means\":[],\"x\":{", NULL, NULL, 0, "'means' is an array, expected an object"},
      {"mins_two", "\"mins\":[", "\"mins\":[1e-9,", NULL, NULL, 0, "means.mins has 4 values, expected 3"},
      {"mins_str", "\"mins\":[", "\"mins\":[\"a\",1,2],\"x\":[", NULL, NULL, 0, "means.mins[0] is a string, expected a number"},
      {"maxs_null", "\"maxs\":[", "\"maxs\":[1,null,2],\"x\":[", NULL, NULL, 0, "means.maxs[1] is null, expected a number"},
      {"files_str", "\"files\":[\"sh3/means_l.webp\",\"sh3/means_u.webp\"]", "\"files\":\"x.webp\"", NULL, NULL, 0,
       "means.files is a string, expected an array of 2 file names"},
      {"files_one", "\"sh3/means_l.webp\",\"sh3/means_u.webp\"", "\"sh3/means_l.webp\"", NULL, NULL, 0,
       "means.files has 1 names, expected 2"},
      {"files_num", "\"sh3/quats.webp\"", "7", NULL, NULL, 0, "quats.files[0] is a number, expected a file name"},
      {"files_up", "\"sh3/quats.webp\"", "\"../quats.webp\"", NULL, NULL, 0, "quats.files[0] '../quats.webp' leaves"},
      {"files_abs", "\"sh3/quats.webp\"", "\"/etc/quats.webp\"", NULL, NULL, 0, "leaves the scene's folder"},
      {"files_empty", "\"sh3/quats.webp\"", "\"\"", NULL, NULL, 0, "quats.files[0] is an empty name"},
      {"files_ctrl", "\"sh3/quats.webp\"", "\"a\\tb.webp\"", NULL, NULL, 0, "control character"},
      {"no_codebook", "\"codebook\"", "\"codebooks\"", NULL, NULL, 0, "scales.codebook is missing"},
      {"codebook_257", "\"codebook\":[", "\"codebook\":[0,", NULL, NULL, 0, "scales.codebook has 257 entries, expected 256"},
      {"codebook_obj", "\"scales\":{\"codebook\":[", "\"scales\":{\"codebook\":{},\"x\":[", NULL, NULL, 0,
       "scales.codebook is an object, expected an array of 256 numbers"},
      {"sh0_missing", "\"sh0\"", "\"sh00\"", NULL, NULL, 0, "'sh0' is missing"},
      {"shn_bands", "\"bands\":3", "\"bands\":4", NULL, NULL, 0, "shN.bands is 4, expected a whole number from 0 to 3"},
      {"shn_count", "\"count\":64,\"bands\"", "\"count\":0,\"bands\"", NULL, NULL, 0, "shN.count is 0"},
      {"shn_bands_wrong", "\"bands\":3", "\"bands\":2", NULL, NULL, 0, "960 texels wide is SH degree 3, but shN.bands is 2"},
      {"model_num", "\"count\":64,", "\"count\":64,\"model\":5,", NULL, NULL, 0, "'model' is a number, expected a string"},
      /* a streamed bundle's lod-meta.json under another name is read as one (test_sog_lod) */
      {"lod_meta", "\"version\":2", "\"lodLevels\":2,\"tree\":{},\"x\":2", NULL, NULL, 0, "'filenames' is missing"},
      {"sogs_first", "\"count\":64,", "\"count\":64,\"opacities\":{},", NULL, NULL, 0, "first SOGS layout"},
      /* version 1 members on a meta.json without "version" */
      {"v1_no_shape", "\"version\":2,", "", NULL, NULL, 0, "means.shape is missing"},
      /* every position out of float range: all splats dropped */
      {"all_dropped", "\"maxs\":[", "\"maxs\":[1e300,1e300,1e300],\"x\":[", NULL, NULL, 0, "no valid splats|all 64"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) run_case(&cases[i]);
}

static void malformed_images(void) {
  static const mcase cases[] = {
      {"no_quats", NULL, NULL, "sh3/quats.webp", NULL, 0, "sh3/quats.webp: cannot open|No such file"},
      {"no_labels", NULL, NULL, "sh3/shN_labels.webp", NULL, 0, "sh3/shN_labels.webp: cannot open"},
      {"small_first", NULL, NULL, "sh3/means_l.webp", "bad/small.webp", 0,
       "sh3/means_l.webp: 4x4 is 16 texels, fewer than the 64 splats"},
      {"small_scales", NULL, NULL, "sh3/scales.webp", "bad/small.webp", 0,
       "sh3/scales.webp: 4x4, but sh3/means_l.webp is 8x8"},
      {"big_first", NULL, NULL, "sh3/means_l.webp", "bad/big.webp", 0, "600x600 is 360000 texels, far more"},
      {"count_over", "\"count\":64", "\"count\":65", NULL, NULL, 0, "64 texels, fewer than the 65 splats"},
      {"bad_tag", NULL, NULL, "sh3/quats.webp", "bad/quats.webp", 0, "sh3/quats.webp: splat 0 has tag byte 7"},
      {"bad_label", NULL, NULL, "sh3/shN_labels.webp", "bad/labels.webp", 0,
       "sh3/shN_labels.webp: splat 0 has palette index 65535, but the palette has 64 entries"},
      {"lossy", NULL, NULL, "sh3/sh0.webp", "bad/lossy.webp", 0, "sh3/sh0.webp: a lossy WebP"},
      {"garbage", NULL, NULL, "sh3/sh0.webp", "bad/garbage.webp", 0, "sh3/sh0.webp: not a WebP image"},
      {"truncated", NULL, NULL, "sh3/means_u.webp", NULL, 40, "sh3/means_u.webp: "},
      {"centroid_width", NULL, NULL, "sh3/shN_centroids.webp", "bad/centroids.webp", 0,
       "100 texels wide; an SH palette is 192, 512 or 960 wide"},
      {"centroid_rows", "\"bands\":3", "\"bands\":1", "sh3/shN_centroids.webp", "bad/tallcentroids.webp", 0,
       "1025 rows; 16-bit labels reach 1024 rows"},
      /* shN.count below a label in use: the palette is cut there */
      {"label_past_count", "\"count\":64,\"bands\"", "\"count\":10,\"bands\"", NULL, NULL, 0,
       "has palette index 10, but the palette has 10 entries"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) run_case(&cases[i]);
  /* an empty image, and a folder, named as images */
  mcase one = {"one_byte_image", NULL, NULL, "sh3/sh0.webp", NULL, 1, "sh3/sh0.webp: not a WebP image"};
  run_case(&one);
  /* an animated WebP: a RIFF header with an extended (VP8X) chunk whose animation flag is set,
   * 8x8 canvas; the reader refuses it from its header */
  static const uint8_t anim[] = {'R', 'I', 'F', 'F', 22, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'X', 10, 0, 0, 0,
                                 0x02, 0, 0, 0, 7, 0, 0, 7, 0, 0};
  char err[256], path[1100];
  const char *adir = tmp_path("animated");
  sog_output_save(&good, adir, err, sizeof err);
  snprintf(path, sizeof path, "%s/sh3/quats.webp", adir);
  sog_save_file(path, anim, sizeof anim, err, sizeof err);
  snprintf(path, sizeof path, "%s/meta.json", adir);
  expect_path_error(path, "sh3/quats.webp: an animated WebP");
  /* a codebook entry of the wrong type, in place */
  const char *text = (const char *)good.blob[0].data, *cb = strstr(text, "\"sh0\":{\"codebook\":[");
  if (cb) {
    char from[64], to[64];
    size_t head = strlen("\"sh0\":{\"codebook\":["), first = strcspn(cb + head, ",");
    snprintf(from, sizeof from, "%.*s,", (int)(head + first), cb);
    snprintf(to, sizeof to, "%.*s\"x\",", (int)head, cb);
    mcase c = {"codebook_str", from, to, NULL, NULL, 0, "sh0.codebook[0] is a string, expected a number"};
    run_case(&c);
  }
}

/* Edits of a bundle's bytes at known places. */
static void malformed_bundles(void) {
  size_t size;
  uint8_t *z = sog_output_zip(&good, false, &size);
  if (z == NULL) {
    CHECK(0, "could not zip");
    return;
  }
  uint8_t *b = malloc(size);
  /* the central directory and its end record: offsets from the end */
  size_t eocd = size - 22, cd = z[eocd + 16] | z[eocd + 17] << 8 | z[eocd + 18] << 16 | (size_t)z[eocd + 19] << 24;
  expect_load_error("garbage.sog", "not a zip", 9, "not a bundled SOG file");
  expect_load_error("short.sog", "PK\x03\x04", 4, "too short");
  expect_load_error("cut.sog", z, size - 5, "without an end-of-central-directory record");
  memcpy(b, z, size), b[eocd + 10] = b[eocd + 8] = 0xff, b[eocd + 9] = b[eocd + 11] = 0xff;
  expect_load_error("zip64.sog", b, size, "zip64");
  memcpy(b, z, size), b[eocd + 4] = 1;
  expect_load_error("disks.sog", b, size, "several disks");
  memcpy(b, z, size), b[eocd + 16] = 0xf0, b[eocd + 19] = 0x7f;
  expect_load_error("cdoff.sog", b, size, "central directory|outside the archive");
  /* meta.json is the last entry: rename it in the central directory */
  size_t at = cd, last = cd;
  while (at < eocd) {
    last = at;
    at += 46 + (size_t)(b[at + 28] | b[at + 29] << 8);
  }
  memcpy(b, z, size), b[last + 46] = 'M';
  expect_load_error("nometa.sog", b, size, "a zip archive without a meta.json");
  memcpy(b, z, size), b[cd + 8] |= 1; /* the first image encrypted */
  expect_load_error("encrypted.sog", b, size, "sh3/means_l.webp: an encrypted zip entry");
  memcpy(b, z, size), b[cd + 10] = 12;
  expect_load_error("bzip2.sog", b, size, "sh3/means_l.webp: zip compression method 12");
  memcpy(b, z, size), b[cd + 46] = 'X'; /* the first image renamed: missing */
  expect_load_error("noimage.sog", b, size, "sh3/means_l.webp: not in the archive");
  memcpy(b, z, size), b[60] ^= 0x40; /* a byte inside the first image's data */
  expect_load_error("crc.sog", b, size, "sh3/means_l.webp: zip entry's CRC-32");
  memcpy(b, z, size), b[cd + 24] ^= 1; /* stored sizes that disagree */
  expect_load_error("sizes.sog", b, size, "stored zip entry");
  memcpy(b, z, size), b[cd + 42] = 0x20; /* local header offset off */
  expect_load_error("lho.sog", b, size, "zip local header missing");
  memcpy(b, z, size), b[cd + 20] = 0xf0, b[cd + 21] = 0xff, b[cd + 24] = 0xf0, b[cd + 25] = 0xff;
  expect_load_error("overlap.sog", b, size, "overlaps the central directory");
  free(z);
  /* deflated: a broken stream */
  z = sog_output_zip(&good, true, &size);
  memcpy(b = realloc(b, size), z, size);
  eocd = size - 22, cd = z[eocd + 16] | z[eocd + 17] << 8 | z[eocd + 18] << 16 | (size_t)z[eocd + 19] << 24;
  b[cd + 24] ^= 0x10; /* the stated size no longer matches what inflates */
  expect_load_error("inflate.sog", b, size, "does not inflate to its stated");
  b[cd + 24] ^= 0x10, b[cd + 27] = 0x7f; /* a size no deflate stream reaches from its bytes */
  expect_load_error("bomb.sog", b, size, "zip entry claims");
  /* a meta.json in the bundle that is broken: named "<bundle>: meta.json" */
  sog_output bad = good;
  sog_blob mb = good.blob[0];
  char *t = replaced((const char *)mb.data, mb.size, "\"count\":64", "\"count\":\"64\"");
  bad.blob[0].data = (uint8_t *)t, bad.blob[0].size = strlen(t);
  free(z);
  z = sog_output_zip(&bad, false, &size);
  expect_load_error("badmeta.sog", z, size, "badmeta.sog: meta.json: count is a string, expected a number");
  free(t);
  free(z);
  free(b);
}

static void malformed_paths(void) {
  char err[256];
  /* a folder without meta.json; meta.json from memory; a .sog that is a folder */
  const char *empty = tmp_path("empty_folder");
  mkdir(empty, 0755);
  expect_path_error(empty, "is a directory without a meta.json");
  expect_load_error("x/meta.json", "{}", 2, "load it by path");
  const char *lod = tmp_path("lod-meta.json");
  const char *lod_text = "{\"lodLevels\":1,\"filenames\":[\"0_0/meta.json\"],\"tree\":{}}";
  sog_save_file(lod, lod_text, strlen(lod_text), err, sizeof err);
  expect_path_error(lod, "lod-meta.json: level 0 has no splats");
  /* a folder whose meta.json is broken: named "<folder>: meta.json: ..." */
  const char *dir = tmp_path("folder_badmeta");
  mkdir(dir, 0755);
  char path[1100];
  snprintf(path, sizeof path, "%s/meta.json", dir);
  sog_save_file(path, "{\"version\":2}", 13, err, sizeof err);
  expect_path_error(dir, "meta.json: count is missing");
  /* a meta.json too large to be one */
  size_t big = SOG_META_MAX + 1;
  char *text = malloc(big);
  memset(text, ' ', big);
  text[0] = '{', text[big - 1] = '}';
  snprintf(path, sizeof path, "%s/huge.json", tmpdir);
  sog_save_file(path, text, big, err, sizeof err);
  free(text);
  expect_path_error(path, "a few KiB");
}

/* A version 1 meta.json's own members. */
static void malformed_v1(void) {
  splat_scene s;
  sog_fixture_scene(&s, 3);
  sog_output v1;
  char err[256];
  if (sog_write(&s, &(sog_write_options){.version = 1, .prefix = "sh3/"}, &v1, err, sizeof err) != 0) {
    CHECK(0, "%s", err);
    splat_scene_free(&s);
    return;
  }
  splat_scene_free(&s);
  sog_output keep = good;
  good = v1;
  static const mcase cases[] = {
      {"v1_shape_str", "\"shape\":[64,3]", "\"shape\":\"64\"", NULL, NULL, 0, "means.shape is a string"},
      {"v1_shape_empty", "\"shape\":[64,3]", "\"shape\":[]", NULL, NULL, 0, "means.shape is an empty array"},
      {"v1_shape_zero", "\"shape\":[64,3]", "\"shape\":[0,3]", NULL, NULL, 0, "means.shape[0] is 0"},
      {"v1_scales_mins", "\"scales\":{\"shape\":[64,3],\"dtype\":\"float32\",\"mins\"",
       "\"scales\":{\"shape\":[64,3],\"dtype\":\"float32\",\"minz\"", NULL, NULL, 0, "scales.mins is missing"},
      {"v1_sh0_four", "\"sh0\":{\"shape\":[64,1,4],\"dtype\":\"float32\",\"mins\":[",
       "\"sh0\":{\"shape\":[64,1,4],\"dtype\":\"float32\",\"mins\":[0,", NULL, NULL, 0, "sh0.mins has 5 values, expected 4"},
      {"v1_shn_mins", "\"mins\":-", "\"mins\":[-1],\"x\":-", NULL, NULL, 0, "shN.mins is an array, expected a number"},
      {"v1_version1", "{\"means\"", "{\"version\":1,\"means\"", "sh3/quats.webp", NULL, 0, "sh3/quats.webp: cannot open"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) run_case(&cases[i]);
  good = keep;
  sog_output_free(&v1);
}

/* Things that load: a null first codebook entry (older tools) is filled in as the engine does. */
static void tolerated(void) {
  const sog_blob *meta = &good.blob[0];
  const char *text = (const char *)meta->data;
  const char *cb = strstr(text, "\"scales\":{\"codebook\":[");
  CHECK(cb != NULL, "no scales codebook");
  if (!cb) return;
  cb += strlen("\"scales\":{\"codebook\":[");
  double v[256];
  char *p = (char *)(uintptr_t)cb; /* strtod's end pointer is not const */
  for (int k = 0; k < 256; ++k) {
    v[k] = strtod(p, &p);
    p++;
  }
  char *nulled = malloc(meta->size + 8);
  size_t head = (size_t)(cb - text), first = strcspn(cb, ",");
  memcpy(nulled, text, head);
  memcpy(nulled + head, "null", 4);
  memcpy(nulled + head + 4, cb + first, meta->size - head - first);
  size_t nsize = meta->size - first + 4;
  const char *dir = tmp_path("null_codebook");
  char err[256], path[1100];
  sog_output_save(&good, dir, err, sizeof err);
  snprintf(path, sizeof path, "%s/meta.json", dir);
  sog_save_file(path, nulled, nsize, err, sizeof err);
  free(nulled);
  const char *clean = tmp_path("null_codebook_ref");
  sog_output_save(&good, clean, err, sizeof err);
  splat_scene s, ref;
  if (load(path, &s) == 0 && load(clean, &ref) == 0) {
    /* the splat whose log scale was the smallest took entry 0 */
    float want = (float)exp((double)(float)(v[1] + (v[1] - v[255]) / 255.0));
    uint32_t hits = 0;
    for (size_t k = 0; k < (size_t)s.count * 3; ++k)
      if (s.scales[k] != ref.scales[k]) {
        hits++;
        CHECK(s.scales[k] == want, "patched scale %.9g, expected %.9g", (double)s.scales[k], (double)want);
      }
    CHECK(hits > 0, "no splat used codebook entry 0");
    printf("  null first codebook entry: %u scale values took the engine's filled-in value\n", hits);
    splat_scene_free(&s);
    splat_scene_free(&ref);
  }
  /* an SH codebook entry beyond float range: the splats whose palette entry uses it are dropped
   * (scene.h's policy), the others kept in order */
  const char *shn = strstr(text, "\"shN\":{");
  const char *shn_cb = shn ? strstr(shn, "\"codebook\":[") : NULL;
  if (shn_cb) {
    shn_cb += strlen("\"codebook\":[");
    size_t at = (size_t)(shn_cb - text), len = strcspn(shn_cb, ",");
    char *t = malloc(meta->size + 16);
    memcpy(t, text, at);
    memcpy(t + at, "1e39", 4);
    memcpy(t + at + 4, shn_cb + len, meta->size - at - len);
    const char *dir3 = tmp_path("inf_codebook");
    sog_output_save(&good, dir3, err, sizeof err);
    snprintf(path, sizeof path, "%s/meta.json", dir3);
    sog_save_file(path, t, meta->size - len + 4, err, sizeof err);
    free(t);
    if (load(path, &s) == 0 && load(clean, &ref) == 0) {
      CHECK(s.dropped > 0 && s.count + s.dropped == ref.count, "%u kept, %u dropped of %u", s.count, s.dropped,
            ref.count);
      check_invariants("inf_codebook", &s);
      uint32_t j = 0;
      for (uint32_t i = 0; i < s.count; ++i) {
        while (j < ref.count && memcmp(ref.positions + j * 3, s.positions + i * 3, 12) != 0) ++j;
        CHECK(j < ref.count, "kept splat %u is not a splat of the scene, in order", i);
      }
      printf("  an SH codebook entry of 1e39: %u of %u splats dropped\n", s.dropped, ref.count);
      splat_scene_free(&s);
      splat_scene_free(&ref);
    }
  }
  /* version 2 as written before shN.count and shN.bands (September 2025): the degree from the
   * centroids' width, the palette from its rows; the same scene */
  char *early = replaced(text, meta->size, "\"count\":64,\"bands\":3,", "");
  const char *dir4 = tmp_path("v2_early");
  sog_output_save(&good, dir4, err, sizeof err);
  snprintf(path, sizeof path, "%s/meta.json", dir4);
  sog_save_file(path, early, strlen(early), err, sizeof err);
  free(early);
  if (load(path, &s) == 0 && load(clean, &ref) == 0) {
    CHECK(s.count == ref.count && s.sh_degree == 3 && !memcmp(s.sh, ref.sh, (size_t)s.count * 48 * sizeof(float)),
          "without shN.count and shN.bands: %u splats of degree %u, or other SH", s.count, s.sh_degree);
    splat_scene_free(&s);
    splat_scene_free(&ref);
  }
  /* a BOM and white space around the object */
  const char *dir2 = tmp_path("bom");
  sog_output_save(&good, dir2, err, sizeof err);
  snprintf(path, sizeof path, "%s/meta.json", dir2);
  char *bom = malloc(meta->size + 8);
  memcpy(bom, "\xef\xbb\xbf\n ", 5);
  memcpy(bom + 5, meta->data, meta->size);
  memcpy(bom + 5 + meta->size, " \r\n", 3);
  sog_save_file(path, bom, meta->size + 8, err, sizeof err);
  free(bom);
  if (load(path, &s) == 0) splat_scene_free(&s);
}

static void test_malformed(void) {
  static sog_fixture f;
  CHECK(sog_fixture_make(&f) == 0, "fixture");
  fix = &f;
  splat_scene s;
  sog_fixture_scene(&s, 3);
  char err[256];
  CHECK(sog_write(&s, &(sog_write_options){.prefix = "sh3/"}, &good, err, sizeof err) == 0, "%s", err);
  splat_scene_free(&s);
  malformed_meta();
  malformed_images();
  malformed_bundles();
  malformed_paths();
  malformed_v1();
  tolerated();
  sog_output_free(&good);
  sog_fixture_free(&f);
}

/* ---- corruption ------------------------------------------------------------------------------ */

/* One load of corrupted input: a valid scene, or a clean failure naming `name`. */
static void check_outcome(const char *name, int rc, splat_scene *s, const char *err, uint32_t *loaded) {
  if (rc == 0) {
    check_invariants(name, s);
    splat_scene_free(s);
    ++*loaded;
    return;
  }
  CHECK(rc == -1 && is_zero_scene(s), "%s: failure left rc %d or a scene", name, rc);
  size_t n = strlen(name);
  CHECK(strncmp(err, name, n) == 0 && err[n] == ':' && strchr(err, '\n') == NULL, "%s: message '%s'", name, err);
}

/* Images from memory, as fuzz_sog fetches them: a copy of exactly the bytes. `cut` shortens
 * the image called `cut_name`. */
typedef struct mem_images {
  sog_output *out;
  const char *cut_name;
  size_t cut;
} mem_images;

static int fetch_mem(void *user, const char *name, const uint8_t **data, size_t *size, void **owned,
                     const scene_error *e) {
  mem_images *m = user;
  sog_blob *b = sog_output_find(m->out, name);
  char tok[64];
  if (b == NULL) return scene_fail(e, "%s: cannot open: No such file or directory", scene_token(tok, name, strlen(name)));
  size_t n = m->cut_name && !strcmp(name, m->cut_name) ? m->cut : b->size;
  uint8_t *copy = malloc(n ? n : 1);
  if (copy == NULL) return scene_fail(e, "out of memory");
  memcpy(copy, b->data, n);
  *data = copy, *size = n, *owned = copy;
  return 0;
}

static int decode_text(const char *text, size_t size, mem_images *imgs, splat_scene *s, char *err, size_t err_size) {
  scene_error e = {"meta.json", err, err_size};
  sog_meta m;
  memset(s, 0xa5, sizeof *s);
  char *copy = malloc(size ? size : 1); /* exactly size bytes */
  memcpy(copy, text, size);
  int rc = sog_parse_meta(copy, size, &m, &e);
  free(copy);
  if (rc == 0) return sog_decode(&m, fetch_mem, imgs, s, &e);
  memset(s, 0, sizeof *s);
  return rc;
}

/* Random edits of JSON text: bytes, digits, spans, and tokens that stress types and ranges. */
static size_t mutate(char *t, size_t n, size_t cap) {
  static const char *const tokens[] = {"null", "-", "1e999", "-1e999", "[]", "{}", "\"", ",", "-0", "65536",
                                       "4294967296", "0.5", "true", "\"x\"", "1e-320", "9007199254740993", ":"};
  int edits = 1 + (int)(splitmix64(&rng_state) % 3);
  for (int k = 0; k < edits && n > 0; ++k) {
    size_t at = splitmix64(&rng_state) % n;
    switch (splitmix64(&rng_state) % 5) {
    case 0: t[at] = (char)splitmix64(&rng_state); break;
    case 1: /* a digit for a digit: still JSON, other numbers */
      for (size_t j = at; j < n; ++j)
        if (t[j] >= '0' && t[j] <= '9') {
          t[j] = (char)('0' + splitmix64(&rng_state) % 10);
          break;
        }
      break;
    case 2: { /* delete a span */
      size_t len = 1 + splitmix64(&rng_state) % 16;
      if (at + len > n) len = n - at;
      memmove(t + at, t + at + len, n - at - len);
      n -= len;
      break;
    }
    default: { /* insert a token */
      const char *tok = tokens[splitmix64(&rng_state) % (sizeof tokens / sizeof tokens[0])];
      size_t len = strlen(tok);
      if (n + len > cap) break;
      memmove(t + at + len, t + at, n - at);
      memcpy(t + at, tok, len);
      n += len;
    }
    }
  }
  return n;
}

static void test_corrupt(void) {
  splat_scene src;
  sog_fixture_scene(&src, 3);
  char err[1024];
  sog_output out;
  if (sog_write(&src, &(sog_write_options){0}, &out, err, sizeof err) != 0) {
    CHECK(0, "%s", err);
    splat_scene_free(&src);
    return;
  }
  splat_scene_free(&src);
  mem_images imgs = {&out, NULL, 0};
  const sog_blob *meta = &out.blob[0];
  const size_t cap = meta->size + 4096;
  char *t = malloc(cap);
  uint32_t loaded = 0, runs = 0;
  splat_scene s;
  double t0 = now_seconds();
  /* meta.json text, in memory: 20,000 seeded corruptions */
  rng_state = 20261123;
  for (int it = 0; it < 20000; ++it, ++runs) {
    memcpy(t, meta->data, meta->size);
    size_t n = mutate(t, meta->size, cap);
    int rc = decode_text(t, n, &imgs, &s, err, sizeof err);
    check_outcome("meta.json", rc, &s, err, &loaded);
  }
  printf("  meta.json: %u corruptions, %u still loaded (%.1f s)\n", runs, loaded, now_seconds() - t0);
  /* through the file loader too: a few hundred */
  const char *dir = tmp_path("corrupt_folder");
  sog_output_save(&out, dir, err, sizeof err);
  char path[1100];
  snprintf(path, sizeof path, "%s/meta.json", dir);
  loaded = runs = 0;
  for (int it = 0; it < 300; ++it, ++runs) {
    memcpy(t, meta->data, meta->size);
    size_t n = mutate(t, meta->size, cap);
    sog_save_file(path, t, n, err, sizeof err);
    memset(&s, 0xa5, sizeof s);
    int rc = splat_scene_load(path, &s, err, sizeof err);
    check_outcome(path, rc, &s, err, &loaded);
  }
  printf("  meta.json on disk: %u corruptions, %u still loaded\n", runs, loaded);
  /* every truncation of meta.json and of each image */
  loaded = runs = 0;
  for (size_t n = 0; n < meta->size; ++n, ++runs) {
    int rc = decode_text((const char *)meta->data, n, &imgs, &s, err, sizeof err);
    check_outcome("meta.json", rc, &s, err, &loaded);
  }
  for (uint32_t b = 1; b < out.count; ++b)
    for (size_t n = 0; n < out.blob[b].size; n += 1 + n / 64, ++runs) {
      mem_images cut = {&out, out.blob[b].name, n};
      int rc = decode_text((const char *)meta->data, meta->size, &cut, &s, err, sizeof err);
      check_outcome("meta.json", rc, &s, err, &loaded);
      CHECK(rc != 0, "%s cut to %zu bytes loaded", out.blob[b].name, n);
    }
  printf("  truncations of meta.json and the images: %u, %u loaded (none may)\n", runs, loaded);
  /* bundles: random bytes (stored and deflated), every truncation, and mutated meta.json texts
   * zipped with right CRCs (so they reach the parser) */
  for (int deflate = 0; deflate <= 1; ++deflate) {
    size_t zsize;
    uint8_t *z = sog_output_zip(&out, deflate, &zsize), *b = malloc(zsize);
    loaded = runs = 0;
    for (int it = 0; it < 5000; ++it, ++runs) {
      memcpy(b, z, zsize);
      int edits = 1 + (int)(splitmix64(&rng_state) % 4);
      for (int k = 0; k < edits; ++k) b[splitmix64(&rng_state) % zsize] = (uint8_t)splitmix64(&rng_state);
      memset(&s, 0xa5, sizeof s);
      int rc = splat_scene_load_memory(b, zsize, "c.sog", &s, err, sizeof err);
      check_outcome("c.sog", rc, &s, err, &loaded);
    }
    for (size_t n = 0; n < zsize; n += 1 + (deflate ? n / 16 : 0), ++runs) {
      memset(&s, 0xa5, sizeof s);
      int rc = splat_scene_load_memory(z, n, "c.sog", &s, err, sizeof err);
      check_outcome("c.sog", rc, &s, err, &loaded);
    }
    printf("  %s bundle: %u corruptions and truncations, %u still loaded\n", deflate ? "deflated" : "stored", runs,
           loaded);
    free(b);
    free(z);
  }
  loaded = runs = 0;
  sog_output edited = out;
  for (int it = 0; it < 2000; ++it, ++runs) {
    memcpy(t, meta->data, meta->size);
    edited.blob[0].data = (uint8_t *)t;
    edited.blob[0].size = mutate(t, meta->size, cap);
    size_t zsize;
    uint8_t *z = sog_output_zip(&edited, it % 2, &zsize);
    memset(&s, 0xa5, sizeof s);
    int rc = splat_scene_load_memory(z, zsize, "m.sog", &s, err, sizeof err);
    check_outcome("m.sog", rc, &s, err, &loaded);
    free(z);
  }
  printf("  bundles of corrupted meta.json: %u, %u still loaded\n", runs, loaded);
  free(t);
  sog_output_free(&out);
}

/* ---- comparisons ----------------------------------------------------------------------------- */

typedef struct diffs {
  double position, log_scale, opacity, rotation, sh; /* largest |a - b| (position: relative) */
} diffs;

/* The first n splats of a and b, field by field. */
static diffs compare_scenes(const splat_scene *a, const splat_scene *b, uint32_t n) {
  diffs d = {0};
  for (uint32_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      double pa = a->positions[i * 3 + c], pb = b->positions[i * 3 + c];
      d.position = fmax(d.position, fabs(pa - pb) / fmax(1e-3, fabs(pb)));
      d.log_scale = fmax(d.log_scale, fabs(log(a->scales[i * 3 + c]) - log(b->scales[i * 3 + c])));
    }
    d.opacity = fmax(d.opacity, fabs((double)a->opacities[i] - b->opacities[i]));
    double dot = 0;
    for (int c = 0; c < 4; ++c) dot += (double)a->rotations[i * 4 + c] * b->rotations[i * 4 + c];
    for (int c = 0; c < 4; ++c)
      d.rotation = fmax(d.rotation, fabs((dot < 0 ? -1 : 1) * a->rotations[i * 4 + c] - b->rotations[i * 4 + c]));
    for (uint32_t k = 0; k < a->sh_coeffs * 3 && a->sh_coeffs == b->sh_coeffs; ++k)
      d.sh = fmax(d.sh, fabs((double)a->sh[(size_t)i * a->sh_coeffs * 3 + k] - b->sh[(size_t)i * b->sh_coeffs * 3 + k]));
  }
  return d;
}

static void print_diffs(const char *what, uint32_t n, diffs d) {
  printf("  %-44s %6u splats: largest difference position %.2g (relative), log scale %.2g, opacity %.2g, "
         "rotation %.2g, SH %.2g\n", what, n, d.position, d.log_scale, d.opacity, d.rotation, d.sh);
}

/* Our decoding of `sog` against splat-transform's decoding of it, written as a .ply
 * (`limit`: that file holds the first `limit` splats only). */
static void real_case(const char *data, const char *sog, const char *expected, uint32_t count, uint32_t degree,
                      uint32_t limit) {
  char a[1100], b[1100];
  snprintf(a, sizeof a, "%s/%s", data, sog);
  snprintf(b, sizeof b, "%s/%s", data, expected);
  splat_scene s, e;
  if (load(a, &s) != 0) return;
  if (load(b, &e) == 0) {
    CHECK(s.count == count && s.sh_degree == degree && s.dropped == 0, "%s: %u splats of degree %u (%u dropped), "
          "expected %u of %u", a, s.count, s.sh_degree, s.dropped, count, degree);
    uint32_t n = limit ? limit : count;
    CHECK(e.count == n && e.sh_degree == degree, "%s: %u splats of degree %u", b, e.count, e.sh_degree);
    check_invariants(a, &s);
    if (s.count >= n && e.count == n && s.sh_coeffs == e.sh_coeffs) {
      diffs d = compare_scenes(&s, &e, n);
      print_diffs(sog, n, d);
      /* both decode in double from the same bytes and codebooks; splat-transform writes the
       * opacity as a logit clamped to [1e-6, 1 - 1e-6], and float rounding does the rest */
      CHECK(d.position <= 1e-6 && d.log_scale <= 1e-6 && d.opacity <= 2e-6 && d.rotation <= 1e-6 && d.sh <= 1e-7,
            "%s differs from splat-transform's decoding", a);
    }
    splat_scene_free(&e);
  }
  splat_scene_free(&s);
}

static int test_real(const char *data) {
  struct stat st;
  if (stat(data, &st) != 0) {
    printf("skipping: %s is absent\n", data);
    return 77;
  }
  /* splat-transform 3.7.0 (-g cpu) writing a gen_scene scene, as a folder and as a bundle */
  real_case(data, "st-gen256/meta.json", "st-gen256.expected.ply", 256, 3, 0);
  real_case(data, "st-gen256.sog", "st-gen256.expected.ply", 256, 3, 0);
  /* a level of detail of a scene in PlayCanvas's engine repository (splat-transform 0.16.0) */
  real_case(data, "playbot-6_0", "playbot-6_0.expected.ply", 1873, 2, 512);
  return 0;
}

/* ---- streamed (LOD) bundles ------------------------------------------------------------------- */

/* tests/data/sog/st-lod3k (its README says how it was made): splat-transform 3.7.0's bundle of a
 * 3,000-splat SH-0 scene and its 50% decimation, in chunks of 1,024 splats: level 0 is chunks
 * 0_0, 0_1, 0_2 (1,127, 1,126, 747 splats; file indices 1, 2, 3), level 1 is 1_0, 1_1 (1,122,
 * 378; indices 0, 4), a tree of 8 leaves 4 deep. st-lod3k.L<n>.expected.ply is splat-transform's
 * reading of level n (-L n). */
#define LOD_BUNDLE "st-lod3k"
static const uint32_t lod_counts[2] = {3000, 1500};

typedef struct lod_progress {
  uint64_t last, total, reports;
  bool ok, cancel_at_first;
  int cancel;
} lod_progress;

/* "decode" from 0 up to its total, never down; the other phases ("read" of lod-meta.json) as they
 * come. */
static void lod_on_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
  lod_progress *p = user;
  if (strcmp(phase, "decode") != 0) return;
  if (p->reports == 0) p->ok &= done == 0;
  p->ok &= done >= p->last && done <= total && (p->total == 0 || p->total == total);
  p->last = done, p->total = total, p->reports++;
  if (p->cancel_at_first) p->cancel = 1;
}

/* Level `level` of the bundle at `path` on `threads` threads (0: the cores) within max_memory,
 * its progress checked: the loader's answer, *s and err as it left them. */
static int load_level(const char *path, uint32_t level, uint32_t threads, uint64_t max_memory, splat_scene *s,
                      char *err, size_t n) {
  lod_progress p = {.ok = true};
  splat_load_progress pr = {lod_on_progress, &p, &p.cancel};
  splat_load_options o = {.progress = &pr, .threads = threads, .max_memory = max_memory, .lod_level = level};
  int rc = splat_scene_load_ex2(path, s, &o, err, n);
  if (rc == 0) CHECK(p.ok && p.reports >= 2 && p.last == p.total && p.total == s->count + s->dropped,
                     "%s level %u: decode progress %llu reports, last %llu of %llu", path, level,
                     (unsigned long long)p.reports, (unsigned long long)p.last, (unsigned long long)p.total);
  return rc;
}

/* Level `level` of `path` against splat-transform's reading of it (`order`: the expected splat
 * each of ours is, NULL: the same order), as the single-scene comparisons are judged. */
static void lod_expect(const char *what, const char *path, uint32_t level, uint32_t threads, const splat_scene *want,
                       const uint32_t *order) {
  splat_scene s;
  char err[1024];
  if (load_level(path, level, threads, 0, &s, err, sizeof err) != 0) {
    CHECK(0, "%s: %s did not load: %s", what, path, err);
    return;
  }
  CHECK(s.count == want->count && s.sh_degree == want->sh_degree && s.dropped == 0,
        "%s: %u splats of degree %u (%u dropped), expected %u of %u", what, s.count, s.sh_degree, s.dropped,
        want->count, want->sh_degree);
  check_invariants(what, &s);
  if (s.count == want->count && s.sh_coeffs == want->sh_coeffs) {
    splat_scene w = *want;
    float *pos = NULL, *scl = NULL, *rot = NULL, *op = NULL, *sh = NULL;
    if (order != NULL) { /* want permuted into our order */
      size_t nsh = (size_t)want->sh_coeffs * 3;
      w.positions = pos = malloc(want->count * 3 * sizeof(float));
      w.scales = scl = malloc(want->count * 3 * sizeof(float));
      w.rotations = rot = malloc(want->count * 4 * sizeof(float));
      w.opacities = op = malloc(want->count * sizeof(float));
      w.sh = sh = malloc(want->count * nsh * sizeof(float));
      for (uint32_t i = 0; i < want->count; ++i) {
        uint32_t j = order[i];
        memcpy(pos + i * 3, want->positions + j * 3, 3 * sizeof(float));
        memcpy(scl + i * 3, want->scales + j * 3, 3 * sizeof(float));
        memcpy(rot + i * 4, want->rotations + j * 4, 4 * sizeof(float));
        op[i] = want->opacities[j];
        memcpy(sh + i * nsh, want->sh + j * nsh, nsh * sizeof(float));
      }
    }
    diffs d = compare_scenes(&s, &w, s.count);
    print_diffs(what, s.count, d);
    CHECK(d.position <= 1e-6 && d.log_scale <= 1e-6 && d.opacity <= 2e-6 && d.rotation <= 1e-6 && d.sh <= 1e-7,
          "%s: level %u differs from splat-transform's reading of it", what, level);
    free(pos), free(scl), free(rot), free(op), free(sh);
  }
  splat_scene_free(&s);
}

/* Both levels of the committed bundle against splat-transform's reading of them: by its
 * lod-meta.json and by its folder, on one thread and on several (the same scene, byte for byte). */
static int test_lod_real(const char *data) {
  char bundle[1100], meta[1200], expected[1200];
  snprintf(bundle, sizeof bundle, "%s/" LOD_BUNDLE, data);
  snprintf(meta, sizeof meta, "%s/lod-meta.json", bundle);
  struct stat st;
  if (stat(meta, &st) != 0) {
    printf("skipping: %s is absent\n", meta);
    return 77;
  }
  for (uint32_t level = 0; level < 2; ++level) {
    snprintf(expected, sizeof expected, "%s/" LOD_BUNDLE ".L%u.expected.ply", data, level);
    splat_scene want;
    if (load(expected, &want) != 0) continue;
    CHECK(want.count == lod_counts[level], "%s: %u splats", expected, want.count);
    char what[64];
    snprintf(what, sizeof what, "level %u, lod-meta.json, 1 thread", level);
    lod_expect(what, meta, level, 1, &want, NULL);
    snprintf(what, sizeof what, "level %u, lod-meta.json, 4 threads", level);
    lod_expect(what, meta, level, 4, &want, NULL);
    snprintf(what, sizeof what, "level %u, its folder, 3 threads", level);
    lod_expect(what, bundle, level, 3, &want, NULL);
    splat_scene a, b;
    char err[512];
    if (load_level(meta, level, 1, 0, &a, err, sizeof err) == 0) {
      if (load_level(meta, level, 0, 0, &b, err, sizeof err) == 0) {
        size_t nsh = (size_t)a.count * a.sh_coeffs * 3;
        CHECK(a.count == b.count && !memcmp(a.positions, b.positions, a.count * 12) &&
              !memcmp(a.scales, b.scales, a.count * 12) && !memcmp(a.rotations, b.rotations, a.count * 16) &&
              !memcmp(a.opacities, b.opacities, a.count * 4) && !memcmp(a.sh, b.sh, nsh * 4),
              "level %u: one thread and every core load different scenes", level);
        splat_scene_free(&b);
      }
      splat_scene_free(&a);
    }
    splat_scene_free(&want);
  }
  return 0;
}

/* A copy of the folder `from` (files and folders one level down, as a bundle is) at `to`. */
static void copy_tree(const char *from, const char *to) {
  char err[512], a[1100], b[1100];
  mkdir(to, 0755);
  DIR *d = opendir(from);
  CHECK(d != NULL, "cannot open %s", from);
  if (d == NULL) return;
  for (struct dirent *en; (en = readdir(d)) != NULL;) {
    if (en->d_name[0] == '.') continue;
    snprintf(a, sizeof a, "%s/%s", from, en->d_name);
    snprintf(b, sizeof b, "%s/%s", to, en->d_name);
    struct stat st;
    if (stat(a, &st) == 0 && S_ISDIR(st.st_mode)) {
      copy_tree(a, b);
      continue;
    }
    uint8_t *data;
    size_t size;
    CHECK(sog_load_file(a, &data, &size) == 0, "cannot read %s", a);
    CHECK(sog_save_file(b, data, size, err, sizeof err) == 0, "%s", err);
    free(data);
  }
  closedir(d);
}

/* A bundle made from the committed one: its files copied to TMPDIR/<name>, then edited. */
typedef struct lod_case {
  const char *name;
  const char *file;        /* the file edited: NULL lod-meta.json, else a chunk's meta.json */
  const char *edit[3][2];  /* its text: each `from` (which must be there) replaced by `to`, in order */
  const char *remove;      /* a file removed */
  uint32_t level;
  uint64_t max_memory;
  const char *words;       /* what the one-line message says ('|' between words) */
} lod_case;

static const char *lod_case_path(const char *data, const lod_case *c) {
  char from[1100], path[1100], err[512];
  snprintf(from, sizeof from, "%s/" LOD_BUNDLE, data);
  const char *dir = tmp_path(c->name);
  copy_tree(from, dir);
  snprintf(path, sizeof path, "%s/%s", dir, c->file ? c->file : "lod-meta.json");
  if (c->edit[0][0] != NULL) {
    uint8_t *text;
    size_t size;
    CHECK(sog_load_file(path, &text, &size) == 0, "cannot read %s", path);
    char *t = (char *)text;
    for (int k = 0; k < 3 && c->edit[k][0] != NULL; ++k) {
      char *u = replaced(t, strlen(t), c->edit[k][0], c->edit[k][1]);
      free(t);
      t = u;
    }
    sog_save_file(path, t, strlen(t), err, sizeof err);
    free(t);
  }
  if (c->remove) {
    snprintf(path, sizeof path, "%s/%s", dir, c->remove);
    CHECK(unlink(path) == 0, "cannot remove %s", path);
  }
  static char meta[1100];
  snprintf(meta, sizeof meta, "%s/lod-meta.json", dir);
  return meta;
}

static void lod_refused(const char *path, uint32_t level, uint64_t max_memory, const char *words) {
  splat_scene s;
  char err[1024];
  memset(&s, 0xa5, sizeof s);
  int rc = load_level(path, level, 2, max_memory, &s, err, sizeof err);
  check_load_failure(path, rc, &s, err, sizeof err, words);
  if (rc == -1) printf("  %s\n", err);
}

static void lod_hostile(const char *data) {
  static const lod_case cases[] = {
      /* files: missing, unreadable, not a chunk */
      {"chunk_missing", .remove = "0_1/meta.json", .words = "0_1/meta.json: cannot open: No such file|level 0"},
      {"image_missing", .remove = "0_2/means_l.webp", .words = "0_2/meta.json: means_l.webp: cannot open"},
      {"chunk_is_folder", .edit = {{"\"0_2/meta.json\"", "\"0_2\""}}, .words = "0_2: is a directory"},
      {"chunk_nested", .edit = {{"\"0_2/meta.json\"", "\"lod-meta.json\""}},
       .words = "lod-meta.json: lod-meta.json: a streamed (LOD) SOG's lod-meta.json, not one scene's meta.json"},
      {"name_outside", .edit = {{"\"0_0/meta.json\"", "\"../0_0/meta.json\""}},
       .words = "filenames[1] '../0_0/meta.json' leaves the scene's folder"},
      {"name_twice", .edit = {{"\"0_2/meta.json\"", "\"0_1/meta.json\""}},
       .words = "filenames[2] '0_1/meta.json' and filenames[3] '0_1/meta.json' are one file"},
      {"name_alias", .edit = {{"\"0_2/meta.json\"", "\"0_1//meta.json\""}}, .words = "are one file"},
      /* lying counts */
      {"counts_sum", .edit = {{"\"counts\":[3000,1500]", "\"counts\":[2999,1500]"}},
       .words = "counts[0] is 2999, but the tree's ranges of level 0 add up to 3000 splats"},
      {"range_past", .edit = {{"\"counts\":[3000,1500]", "\"counts\":[3001,1500]"},
                              {"\"file\":2,\"offset\":754,\"count\":372", "\"file\":2,\"offset\":754,\"count\":373"}},
       .words = "level 0's range [754, 1127) of 0_1/meta.json is past its 1126 splats"},
      {"range_overlap", .edit = {{"\"file\":1,\"offset\":373,\"count\":380", "\"file\":1,\"offset\":300,\"count\":380"}},
       .words = "level 0's ranges of 0_0/meta.json overlap at splat 300"},
      {"range_twice", .edit = {{"\"counts\":[3000,1500]", "\"counts\":[2993,1500]"},
                               {"\"file\":1,\"offset\":373,\"count\":380", "\"file\":1,\"offset\":0,\"count\":373"}},
       .words = "overlap at splat 0 (a range given twice?)"},
      {"range_gap", .edit = {{"\"counts\":[3000,1500]", "\"counts\":[2973,1500]"},
                             {"\"file\":1,\"offset\":373,\"count\":380", "\"file\":1,\"offset\":400,\"count\":353"}},
       .words = "level 0's ranges of 0_0/meta.json leave its splats [373, 400) out"},
      {"range_short", .edit = {{"\"counts\":[3000,1500]", "\"counts\":[2999,1500]"},
                               {"\"file\":2,\"offset\":754,\"count\":372", "\"file\":2,\"offset\":754,\"count\":371"}},
       .words = "level 0's ranges of 0_1/meta.json cover 1125 of its 1126 splats"},
      {"count_negative", .edit = {{"\"offset\":373,\"count\":380", "\"offset\":373,\"count\":-380"}},
       .words = "tree/0/0/1.lods.0.count is -380, expected a whole number from 0 to"},
      {"count_fraction", .edit = {{"\"offset\":373,\"count\":380", "\"offset\":373,\"count\":380.5"}},
       .words = "tree/0/0/1.lods.0.count is 380.5"},
      {"offset_string", .edit = {{"\"offset\":373,\"count\":380", "\"offset\":\"373\",\"count\":380"}},
       .words = "tree/0/0/1.lods.0.offset is a string, expected a number"},
      {"count_huge", .edit = {{"\"offset\":373,\"count\":380", "\"offset\":373,\"count\":4294967296"}},
       .words = "lods.0.count is 4294967296, expected a whole number from 0 to 268402689"},
      {"chunk_count_huge", .file = "0_1/meta.json", .edit = {{"\"count\":1126,\"means\"", "\"count\":200000000,\"means\""}},
       .words = "0_1/meta.json: meta.json: count 200000000 splats is more than"},
      {"counts_short", .edit = {{"\"counts\":[3000,1500]", "\"counts\":[3000]"}},
       .words = "'counts' is an array of another length, expected an array of 2 splat counts"},
      /* levels and file indices */
      {"level_absent", .level = 2, .words = "level 2 asked for (splat_load_options.lod_level), but the bundle has 2 (0 to 1)"},
      {"level_key", .edit = {{"\"1\":{\"file\":0,\"offset\":0,", "\"01\":{\"file\":0,\"offset\":0,"}},
       .words = "tree/0/0/0.lods has level '01', expected a level from 0 to 1"},
      {"level_key_past", .edit = {{"\"1\":{\"file\":0,\"offset\":0,", "\"2\":{\"file\":0,\"offset\":0,"}},
       .words = "has level '2', expected a level from 0 to 1 (lodLevels is 2)"},
      {"level_twice", .edit = {{"\"lods\":{\"0\":{\"file\":1,\"offset\":0,\"count\":373},",
                                "\"lods\":{\"0\":{\"file\":1,\"offset\":0,\"count\":373},\"0\":{\"file\":1,\"offset\":0,\"count\":373},"}},
       .words = "tree/0/0/0.lods.0 is given twice"},
      {"file_index", .edit = {{"\"file\":4,\"offset\":0", "\"file\":5,\"offset\":0"}},
       .words = "tree/1/1/0.lods.1.file is 5, expected a whole number from 0 to 4"},
      {"level_empty", .edit = {{"\"lodLevels\":2", "\"lodLevels\":3"}, {"\"counts\":[3000,1500]", "\"counts\":[3000,1500,0]"}},
       .level = 2, .words = "level 2 has no splats"},
      {"lod_levels_zero", .edit = {{"\"lodLevels\":2", "\"lodLevels\":0"}},
       .words = "lodLevels is 0, expected a whole number from 1 to 64"},
      /* the document */
      {"version", .edit = {{"\"version\":1,", "\"version\":2,"}}, .words = "version 2 is not supported"},
      {"tree_missing", .edit = {{"\"tree\":", "\"tree_\":"}}, .words = "'tree' is missing"},
      {"tree_array", .edit = {{"\"tree\":{", "\"tree\":[{"}, {"}}]}]}]}}", "}}]}]}]}]}"}},
       .words = "tree is an array, expected an object (a tree node)"},
      {"children_object", .edit = {{"\"children\":[", "\"children\":{\"x\":["}, {"}}]}]}]}}", "}}]}]}]}}}"}},
       .words = "tree.children is an object, expected an array of nodes"},
      {"filenames_missing", .edit = {{"\"filenames\":", "\"filenames_\":"}}, .words = "'filenames' is missing"},
      {"filenames_number", .edit = {{"\"0_2/meta.json\"", "7"}}, .words = "filenames[3] is a number, expected a file name"},
      {"not_json", .edit = {{"\"tree\":", "\"tree\""}}, .words = "not valid JSON (at line 1, column"},
      /* memory: the JSON's tree, then the level's arrays, before they are allocated */
      {"budget_json", .max_memory = 20000, .words = "lod-meta.json: 2400 bytes of JSON (text, parsed tree and ranges): needs 105600 bytes"},
      {"budget_level", .max_memory = 150000,
       .words = "level 0: 3000 splats at SH degree 0 in 3 chunks (arrays, and 2 chunks decoding at once): needs"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const lod_case *c = &cases[k];
    lod_refused(lod_case_path(data, c), c->level, c->max_memory, c->words);
  }

  /* a tree deeper than the bound (each node one child), and one within it that loads */
  char err[512], path[1100];
  for (int depth = 10; depth <= 70; depth += 60) {
    char name[32];
    snprintf(name, sizeof name, "deep%d", depth);
    const char *meta = lod_case_path(data, &(lod_case){.name = name});
    uint8_t *text;
    size_t size;
    if (sog_load_file(meta, &text, &size) != 0) continue;
    const char *tree = strstr((const char *)text, "\"tree\":");
    size_t head = (size_t)(tree - (const char *)text) + 7, body = size - head - 1; /* the tree, less the last '}' */
    char *t = malloc(size + 20 * (size_t)depth);
    size_t n = 0;
    memcpy(t, text, head), n = head;
    for (int d = 0; d < depth; ++d) n += (size_t)sprintf(t + n, "{\"children\":[");
    memcpy(t + n, text + head, body), n += body;
    for (int d = 0; d < depth; ++d) n += (size_t)sprintf(t + n, "]}");
    t[n++] = '}';
    CHECK(sog_save_file(meta, t, n, err, sizeof err) == 0, "%s", err);
    free(t);
    free(text);
    if (depth > 64) {
      lod_refused(meta, 0, 0, "the tree is more than 64 levels deep (at tree/0/0/0");
    } else {
      snprintf(path, sizeof path, "%s/" LOD_BUNDLE ".L0.expected.ply", data);
      splat_scene want;
      if (load(path, &want) == 0) {
        lod_expect("a tree 10 levels deeper", meta, 0, 2, &want, NULL);
        splat_scene_free(&want);
      }
    }
  }

  /* too large to be a lod-meta.json: refused by its size, before it is read (a sparse file) */
  const char *huge = tmp_path("huge-lod-meta.json");
  FILE *f = fopen(huge, "wb");
  CHECK(f != NULL && ftruncate(fileno(f), (off_t)SOG_LOD_META_MAX + 1) == 0, "cannot make %s", huge);
  if (f) fclose(f);
  lod_refused(huge, 0, 0, "67108865 bytes; a lod-meta.json is at most 67108864");

  /* a chunk of another SH degree than the level's first: written by our SOG writer */
  const char *mixed = lod_case_path(data, &(lod_case){.name = "sh_mixed"});
  splat_scene s;
  random_scene(&s, 1126, 1, 10);
  sog_output out;
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/0_1", tmp_path("sh_mixed"));
  if (sog_write(&s, NULL, &out, err, sizeof err) == 0) {
    CHECK(sog_output_save(&out, dir, err, sizeof err) == 0, "%s", err);
    sog_output_free(&out);
  }
  splat_scene_free(&s);
  lod_refused(mixed, 0, 0, "0_1/meta.json: SH degree 1, but 0_0/meta.json's is 0 (a level's chunks share one)");
}

/* Bundles that load: splat-transform 1.x's form, another name, the tree's order rather than the
 * files', a missing chunk of another level, splats dropped for non-finite values, a cancel. */
static void lod_variants(const char *data) {
  char path[1100], err[1024];
  splat_scene want[2];
  for (uint32_t level = 0; level < 2; ++level) {
    snprintf(path, sizeof path, "%s/" LOD_BUNDLE ".L%u.expected.ply", data, level);
    if (load(path, &want[level]) != 0) return;
  }
  /* no version, count or counts; "environment": null */
  const char *old = lod_case_path(data, &(lod_case){.name = "old_form", .edit = {{"\"version\":1,", ""},
      {"\"counts\":[3000,1500],", ""}, {"\"lodLevels\":2", "\"lodLevels\":2,\"environment\":null"}}});
  lod_expect("splat-transform 1.x's form", old, 1, 2, &want[1], NULL);
  /* a lod-meta.json under another name is read as one */
  const char *named = lod_case_path(data, &(lod_case){.name = "renamed"});
  snprintf(path, sizeof path, "%s/bundle.json", tmp_path("renamed"));
  CHECK(rename(named, path) == 0, "cannot rename %s", named);
  lod_expect("a lod-meta.json named bundle.json", path, 0, 2, &want[0], NULL);
  /* the first two leaves name their ranges of 0_0 the other way round: the scene follows the tree */
  const char *swapped = lod_case_path(data, &(lod_case){.name = "tree_order", .edit = {
      {"\"file\":1,\"offset\":0,\"count\":373", "\"file\":1,\"offset\":380,\"count\":373"},
      {"\"file\":1,\"offset\":373,\"count\":380", "\"file\":1,\"offset\":0,\"count\":380"}}});
  uint32_t *order = malloc(3000 * sizeof *order);
  for (uint32_t i = 0; i < 3000; ++i) order[i] = i < 373 ? 380 + i : i < 753 ? i - 373 : i;
  lod_expect("ranges in tree order, not the file's", swapped, 0, 2, &want[0], order);
  free(order);
  /* level 1 reads none of level 0's chunks */
  const char *part = lod_case_path(data, &(lod_case){.name = "other_level_missing", .remove = "0_1/meta.json"});
  lod_expect("level 1 with a chunk of level 0 missing", part, 1, 2, &want[1], NULL);

  /* three codes of 0_0 made infinite (its smallest scale, two smallest colours): the splats using
   * them are dropped, the rest stay in order (0_0 is the level's first 1,127 splats, in three
   * ranges: the ranges after a dropped splat close up) */
  const char *inf = lod_case_path(data, &(lod_case){.name = "dropped", .file = "0_0/meta.json", .edit = {
      {"\"codebook\":[-5.066422939300537,", "\"codebook\":[1e999,"},
      {"\"codebook\":[-1.5937613248825073,-1.5791667699813843,", "\"codebook\":[1e999,1e999,"}}});
  splat_scene s;
  if (load_level(inf, 0, 3, 0, &s, err, sizeof err) != 0) {
    CHECK(0, "%s did not load: %s", inf, err);
  } else {
    const splat_scene *w = &want[0];
    CHECK(s.dropped > 1 && s.count + s.dropped == 3000, "%u kept, %u dropped", s.count, s.dropped);
    check_invariants("dropped splats", &s);
    uint32_t j = 0, skipped = 0, outside = 0, first = UINT32_MAX, last = 0;
    for (uint32_t i = 0; i < w->count; ++i) {
      bool same = j < s.count;
      for (int c = 0; c < 3 && same; ++c)
        same = s.positions[j * 3 + c] == w->positions[i * 3 + c]; /* positions decode exactly alike */
      if (same) {
        ++j;
        continue;
      }
      outside += i >= 1127;
      first = i < first ? i : first, last = i;
      ++skipped;
    }
    CHECK(j == s.count && skipped == s.dropped && outside == 0,
          "dropped splats: %u of ours matched in order, %u skipped (%u outside 0_0)", j, skipped, outside);
    printf("  %u of 0_0's splats dropped (infinite values), splats %u to %u of the level; the other %u in order\n",
           s.dropped, first, last, s.count);
    splat_scene_free(&s);
  }

  /* a cancel at the first report: SPLAT_SCENE_CANCELLED, nothing left */
  snprintf(path, sizeof path, "%s/" LOD_BUNDLE "/lod-meta.json", data);
  lod_progress p = {.ok = true, .cancel_at_first = true};
  splat_load_progress pr = {lod_on_progress, &p, &p.cancel};
  splat_load_options o = {.progress = &pr, .threads = 2};
  memset(&s, 0xa5, sizeof s);
  int rc = splat_scene_load_ex2(path, &s, &o, err, sizeof err);
  CHECK(rc == SPLAT_SCENE_CANCELLED && is_zero_scene(&s) && strstr(err, "cancelled") != NULL,
        "a cancelled bundle load: %d, '%s'", rc, err);
  splat_scene_free(&want[0]);
  splat_scene_free(&want[1]);
}

static int test_lod(const char *data) {
  char meta[1100];
  snprintf(meta, sizeof meta, "%s/" LOD_BUNDLE "/lod-meta.json", data);
  struct stat st;
  if (stat(meta, &st) != 0) {
    printf("skipping: %s is absent\n", meta);
    return 77;
  }
  lod_hostile(data);
  lod_variants(data);
  return 0;
}

static int compare_files(const char *pa, const char *pb) {
  splat_scene a, b;
  if (load(pa, &a) != 0) return 1;
  if (load(pb, &b) != 0) {
    splat_scene_free(&a);
    return 1;
  }
  printf("%s: %u splats, SH %u; %s: %u splats, SH %u\n", pa, a.count, a.sh_degree, pb, b.count, b.sh_degree);
  uint32_t n = a.count < b.count ? a.count : b.count;
  if (a.sh_coeffs == b.sh_coeffs) print_diffs("first file against the second", n, compare_scenes(&a, &b, n));
  int rc = a.count == b.count && a.sh_coeffs == b.sh_coeffs ? 0 : 1;
  splat_scene_free(&a);
  splat_scene_free(&b);
  return rc;
}

/* ---- fuzz seeds ------------------------------------------------------------------------------ */

static int fetch_fixture(void *user, const char *name, const uint8_t **data, size_t *size, void **owned,
                         const scene_error *e) {
  const sog_blob *b = sog_fixture_find(user, name);
  char tok[64];
  if (b == NULL) return scene_fail(e, "%s: not in the fixture", scene_token(tok, name, strlen(name)));
  *data = b->data, *size = b->size, *owned = NULL;
  return 0;
}

/* Each meta.json seed, and each bundle, must load: a seed that fails early teaches the fuzzer
 * nothing about the decoder. */
static int write_seeds(const char *dir) {
  sog_fixture f;
  if (sog_fixture_make(&f) != 0) return 1;
  char err[256], path[1100];
  mkdir(dir, 0755);
  int rc = 0;
  for (uint32_t i = 0; i < f.count && rc == 0; ++i) {
    size_t n = strlen(f.blob[i].name);
    if (n < 5 || strcmp(f.blob[i].name + n - 5, ".json") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, f.blob[i].name);
    rc = sog_save_file(path, f.blob[i].data, f.blob[i].size, err, sizeof err);
    scene_error e = {f.blob[i].name, err, sizeof err};
    sog_meta m;
    splat_scene s;
    if (rc == 0 && (sog_parse_meta((const char *)f.blob[i].data, f.blob[i].size, &m, &e) != 0 ||
                    sog_decode(&m, fetch_fixture, &f, &s, &e) != 0))
      rc = -1;
    else if (rc == 0)
      splat_scene_free(&s);
  }
  /* the version 2 SH-3 meta.json with one image swapped for a broken one, so that the fuzzer
   * starts next to each of the decoder's image checks (these seeds fail, as they should) */
  static const struct { const char *seed, *from, *to; } swaps[] = {
      {"bad_tag", "sh3/quats.webp", "bad/quats.webp"},
      {"bad_label", "sh3/shN_labels.webp", "bad/labels.webp"},
      {"bad_small", "sh3/means_l.webp", "bad/small.webp"},
      {"bad_big", "sh3/means_l.webp", "bad/big.webp"},
      {"bad_lossy", "sh3/sh0.webp", "bad/lossy.webp"},
      {"bad_garbage", "sh3/scales.webp", "bad/garbage.webp"},
      {"bad_truncated", "sh3/means_u.webp", "bad/truncated.webp"},
      {"bad_centroids", "sh3/shN_centroids.webp", "bad/centroids.webp"},
      {"bad_rows", "sh3/shN_centroids.webp\",", "bad/tallcentroids.webp\","},
  };
  const sog_blob *v2 = sog_fixture_find(&f, "v2_sh3.json");
  for (size_t k = 0; k < sizeof swaps / sizeof swaps[0] && rc == 0 && v2; ++k) {
    char *t = replaced((const char *)v2->data, v2->size, swaps[k].from, swaps[k].to);
    if (!strcmp(swaps[k].seed, "bad_rows")) { /* a 192-wide palette is degree 1 */
      char *u = replaced(t, strlen(t), "\"bands\":3", "\"bands\":1");
      free(t);
      t = u;
    }
    snprintf(path, sizeof path, "%s/%s.json", dir, swaps[k].seed);
    rc = sog_save_file(path, t, strlen(t), err, sizeof err);
    scene_error e = {swaps[k].seed, err, sizeof err};
    sog_meta m;
    splat_scene s;
    if (rc == 0 && sog_parse_meta(t, strlen(t), &m, &e) == 0 && sog_decode(&m, fetch_fixture, &f, &s, &e) == 0) {
      splat_scene_free(&s);
      snprintf(err, sizeof err, "%s loaded", swaps[k].seed);
      rc = -1;
    }
    free(t);
  }
  /* bundles: a set's meta.json and images in one archive, stored and deflated */
  static const struct { const char *set, *prefix; } bundles[] = {{"v2_sh1", "sh1/"}, {"v1_sh0", "v1sh0/"}};
  for (size_t k = 0; k < sizeof bundles / sizeof bundles[0] && rc == 0; ++k) {
    sog_output o = {0};
    char meta[64];
    snprintf(meta, sizeof meta, "%s.json", bundles[k].set);
    o.blob[o.count++] = *sog_fixture_find(&f, meta);
    snprintf(o.blob[0].name, sizeof o.blob[0].name, "meta.json");
    for (uint32_t i = 0; i < f.count; ++i)
      if (strncmp(f.blob[i].name, bundles[k].prefix, strlen(bundles[k].prefix)) == 0 && o.count < 8)
        o.blob[o.count++] = f.blob[i];
    for (int deflate = 0; deflate <= 1 && rc == 0; ++deflate) {
      size_t size;
      uint8_t *z = sog_output_zip(&o, deflate, &size);
      snprintf(path, sizeof path, "%s/bundle_%s%s.sog", dir, bundles[k].set, deflate ? "_deflated" : "");
      rc = z ? sog_save_file(path, z, size, err, sizeof err) : -1;
      splat_scene s;
      if (rc == 0 && (rc = splat_scene_load_memory(z, size, path, &s, err, sizeof err)) == 0) splat_scene_free(&s);
      free(z);
    }
  }
  sog_fixture_free(&f);
  if (rc != 0) fprintf(stderr, "test_sog seeds: %s\n", err);
  return rc ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_sog roundtrip|malformed|corrupt TMPDIR | real|lod_real DATA_DIR | lod DATA_DIR TMPDIR | "
                    "compare A B | seeds DIR\n");
    return 2;
  }
  check_print_limit = 60;
  const char *mode = argv[1];
  if (!strcmp(mode, "compare")) return argc == 4 ? compare_files(argv[2], argv[3]) : 2;
  if (!strcmp(mode, "seeds")) return write_seeds(argv[2]);
  if (!strcmp(mode, "real")) {
    if (test_real(argv[2]) == 77) return 77;
  } else if (!strcmp(mode, "lod_real")) {
    if (test_lod_real(argv[2]) == 77) return 77;
  } else if (!strcmp(mode, "lod")) {
    if (argc != 4) return 2;
    snprintf(tmpdir, sizeof tmpdir, "%s", argv[3]);
    if (mkdir(tmpdir, 0755) != 0 && errno != EEXIST) {
      fprintf(stderr, "cannot create %s: %s\n", tmpdir, strerror(errno));
      return 1;
    }
    if (test_lod(argv[2]) == 77) return 77;
  } else {
    snprintf(tmpdir, sizeof tmpdir, "%s", argv[2]);
    if (mkdir(tmpdir, 0755) != 0 && errno != EEXIST) {
      fprintf(stderr, "cannot create %s: %s\n", tmpdir, strerror(errno));
      return 1;
    }
    if (!strcmp(mode, "roundtrip")) test_roundtrip();
    else if (!strcmp(mode, "malformed")) test_malformed();
    else if (!strcmp(mode, "corrupt")) test_corrupt();
    else {
      fprintf(stderr, "unknown mode %s\n", mode);
      return 2;
    }
  }
  char name[64];
  snprintf(name, sizeof name, "test_sog %s", mode);
  return check_report(name);
}
