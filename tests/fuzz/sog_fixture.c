/* sog_fixture.c: fuzz_sog's images and test_sog's seeds for it (sog_fixture.h). */
#include "sog_fixture.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float urand(uint64_t *st, double lo, double hi) {
  return (float)(lo + (hi - lo) * (double)(splitmix64(st) >> 11) * 0x1.0p-53);
}

void sog_fixture_scene(splat_scene *s, uint32_t degree) {
  uint64_t st = 20261123;
  const uint32_t n = SOG_FIXTURE_SPLATS, coeffs = (degree + 1) * (degree + 1);
  memset(s, 0, sizeof *s);
  s->count = n;
  s->sh_degree = degree;
  s->sh_coeffs = coeffs;
  s->positions = malloc(n * 3 * sizeof(float));
  s->scales = malloc(n * 3 * sizeof(float));
  s->rotations = malloc(n * 4 * sizeof(float));
  s->opacities = malloc(n * sizeof(float));
  s->sh = malloc((size_t)n * coeffs * 3 * sizeof(float));
  if (!s->positions || !s->scales || !s->rotations || !s->opacities || !s->sh) {
    splat_scene_free(s);
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    float q[4], len = 0;
    for (int c = 0; c < 3; ++c) {
      s->positions[i * 3 + c] = urand(&st, -2.0, 2.0);
      s->scales[i * 3 + c] = expf(urand(&st, -4.0, -1.0));
    }
    for (int c = 0; c < 4; ++c) q[c] = urand(&st, -1.0, 1.0), len += q[c] * q[c];
    for (int c = 0; c < 4; ++c) s->rotations[i * 4 + c] = q[c] / sqrtf(len);
    s->opacities[i] = urand(&st, 0.05, 0.95);
    /* the SH of degree 3, cut to `degree`: every degree's scene has the same leading values */
    for (uint32_t k = 0; k < 16; ++k)
      for (int c = 0; c < 3; ++c) {
        float v = urand(&st, k ? -0.4 : -1.5, k ? 0.4 : 1.5);
        if (k < coeffs) s->sh[((size_t)i * coeffs + k) * 3 + c] = v;
      }
  }
  for (int c = 0; c < 3; ++c) s->bounds_min[c] = -2.0f, s->bounds_max[c] = 2.0f;
}

static int take(sog_fixture *f, const char *name, uint8_t *data, size_t size) {
  if (data == NULL || f->count == SOG_FIXTURE_MAX) {
    free(data);
    return -1;
  }
  sog_blob *b = &f->blob[f->count++];
  snprintf(b->name, sizeof b->name, "%s", name);
  b->data = data;
  b->size = size;
  return 0;
}

/* One written set: its images kept by name, its meta.json as "<set>.json". */
static int add_set(sog_fixture *f, const char *set, uint32_t version, uint32_t degree, const char *prefix) {
  splat_scene s;
  sog_fixture_scene(&s, degree);
  if (s.count == 0) return -1;
  sog_output out;
  sog_write_options o = {.version = version, .prefix = prefix};
  char err[256];
  int rc = sog_write(&s, &o, &out, err, sizeof err);
  splat_scene_free(&s);
  if (rc != 0) return -1;
  for (uint32_t i = 0; i < out.count && rc == 0; ++i) {
    char name[64];
    snprintf(name, sizeof name, "%s", i == 0 ? set : out.blob[i].name);
    if (i == 0) strcat(name, ".json");
    rc = take(f, name, out.blob[i].data, out.blob[i].size);
    out.blob[i].data = NULL;
  }
  sog_output_free(&out);
  return rc;
}

/* An RGBA image of w x h filled with `fill`, with texel 0 set to `first`, encoded. */
static int add_image(sog_fixture *f, const char *name, uint32_t w, uint32_t h, const uint8_t fill[4],
                     const uint8_t first[4], bool lossless) {
  uint8_t *rgba = malloc((size_t)w * h * 4);
  if (rgba == NULL) return -1;
  for (size_t t = 0; t < (size_t)w * h; ++t) memcpy(rgba + t * 4, t == 0 && first ? first : fill, 4);
  sog_blob b = {{0}, NULL, 0};
  int rc = sog_encode_webp(rgba, w, h, lossless, &b);
  free(rgba);
  return rc == 0 ? take(f, name, b.data, b.size) : -1;
}

int sog_fixture_make(sog_fixture *f) {
  memset(f, 0, sizeof *f);
  static const struct { const char *set; uint32_t version, degree; const char *prefix; } sets[] = {
      {"v2_sh0", 2, 0, "sh0/"}, {"v2_sh1", 2, 1, "sh1/"},     {"v2_sh2", 2, 2, "sh2/"},
      {"v2_sh3", 2, 3, "sh3/"}, {"v1_sh0", 1, 0, "v1sh0/"}, {"v1_sh3", 1, 3, "v1sh3/"},
  };
  int rc = 0;
  for (size_t k = 0; k < sizeof sets / sizeof sets[0] && rc == 0; ++k)
    rc = add_set(f, sets[k].set, sets[k].version, sets[k].degree, sets[k].prefix);
  const uint8_t plain[4] = {128, 128, 128, 255}, tag0[4] = {128, 128, 128, 7}, label_max[4] = {255, 255, 0, 255};
  if (rc == 0) rc = add_image(f, "bad/quats.webp", 8, 8, (const uint8_t[4]){128, 128, 128, 252}, tag0, true);
  if (rc == 0) rc = add_image(f, "bad/labels.webp", 8, 8, (const uint8_t[4]){0, 0, 0, 255}, label_max, true);
  if (rc == 0) rc = add_image(f, "bad/small.webp", 4, 4, plain, NULL, true);
  if (rc == 0) rc = add_image(f, "bad/big.webp", 600, 600, plain, NULL, true);
  if (rc == 0) rc = add_image(f, "bad/lossy.webp", 8, 8, plain, NULL, false);
  if (rc == 0) rc = add_image(f, "bad/centroids.webp", 100, 1, plain, NULL, true);
  if (rc == 0) rc = add_image(f, "bad/tallcentroids.webp", 192, 1025, plain, NULL, true);
  if (rc == 0) { /* not WebP at all */
    uint8_t *g = malloc(64);
    uint64_t st = 7;
    for (int k = 0; g && k < 64; ++k) g[k] = (uint8_t)splitmix64(&st);
    rc = take(f, "bad/garbage.webp", g, 64);
  }
  const sog_blob *m = sog_fixture_find(f, "sh3/means_l.webp");
  if (rc == 0 && m) { /* the first half of a good image */
    uint8_t *t = malloc(m->size / 2);
    if (t) memcpy(t, m->data, m->size / 2);
    rc = take(f, "bad/truncated.webp", t, m->size / 2);
  }
  if (rc != 0) sog_fixture_free(f);
  return rc;
}

const sog_blob *sog_fixture_find(const sog_fixture *f, const char *name) {
  for (uint32_t i = 0; i < f->count; ++i)
    if (strcmp(f->blob[i].name, name) == 0) return &f->blob[i];
  return NULL;
}

void sog_fixture_free(sog_fixture *f) {
  for (uint32_t i = 0; i < f->count; ++i) free(f->blob[i].data);
  memset(f, 0, sizeof *f);
}
