/* test_scene_lod: the level-of-detail hierarchy of the scene library (splat_lod_*, splat_scene.h):
 * the tree's invariants and its independence of the thread count, the merge rule on hand cases,
 * the .lod file written and read back, and hostile .lod files refused with their message.
 *   test_scene_lod tree|merge|roundtrip|hostile <scratch dir>
 *   test_scene_lod check SCENE FILE.lod       a scene and its .lod (splatview --convert --lod)
 *   test_scene_lod bench COUNT THREADS,...    build times of a generated SH-degree-3 scene */
#include "check.h"
#include "splat_scene.h"
#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *dir;

/* ---- scenes ----------------------------------------------------------------------------------- */

static double unit(uint64_t *seed) { return (double)(splitmix64(seed) >> 11) * 0x1.0p-53; }

/* n random splats at SH degree `degree`; with `grid`, positions on a coarse grid so that many
 * tie (the splits break ties by index). */
static splat_scene make_scene(uint32_t n, uint32_t degree, uint64_t seed, bool grid) {
  splat_scene s = {.count = n, .sh_degree = degree, .sh_coeffs = (degree + 1) * (degree + 1)};
  size_t nsh = (size_t)s.sh_coeffs * 3;
  s.positions = malloc((size_t)n * 12), s.scales = malloc((size_t)n * 12), s.rotations = malloc((size_t)n * 16);
  s.opacities = malloc((size_t)n * 4), s.sh = malloc((size_t)n * nsh * 4);
  if (!s.positions || !s.scales || !s.rotations || !s.opacities || !s.sh) {
    fprintf(stderr, "out of memory for %u splats\n", n);
    exit(1);
  }
  for (uint32_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      double p = unit(&seed) * 20 - 10;
      s.positions[i * 3 + c] = grid ? (float)floor(p / 4) : (float)p;
      s.scales[i * 3 + c] = (float)(0.01 + 0.2 * unit(&seed));
    }
    double q[4], len = 0;
    for (int c = 0; c < 4; ++c) q[c] = unit(&seed) * 2 - 1, len += q[c] * q[c];
    len = sqrt(len) > 1e-3 ? sqrt(len) : (q[0] = 1, 1.0);
    for (int c = 0; c < 4; ++c) s.rotations[i * 4 + c] = (float)(q[c] / len);
    s.opacities[i] = (float)unit(&seed);
    for (size_t k = 0; k < nsh; ++k) s.sh[i * nsh + k] = (float)(unit(&seed) * 2 - 1);
  }
  return s;
}

static splat_scene copy_scene(const splat_scene *a) {
  splat_scene s = *a;
  size_t n = a->count, nsh = (size_t)a->sh_coeffs * 3;
  s.positions = malloc(n * 12), s.scales = malloc(n * 12), s.rotations = malloc(n * 16);
  s.opacities = malloc(n * 4), s.sh = malloc(n * nsh * 4);
  memcpy(s.positions, a->positions, n * 12), memcpy(s.scales, a->scales, n * 12);
  memcpy(s.rotations, a->rotations, n * 16), memcpy(s.opacities, a->opacities, n * 4);
  memcpy(s.sh, a->sh, n * nsh * 4);
  return s;
}

/* One splat's values as bytes, for comparing scenes as multisets. */
static size_t splat_bytes(const splat_scene *s) { return (11 + (size_t)s->sh_coeffs * 3) * 4; }
static void splat_pack(const splat_scene *s, uint32_t i, uint8_t *out) {
  size_t nsh = (size_t)s->sh_coeffs * 3;
  memcpy(out, s->positions + (size_t)i * 3, 12), memcpy(out + 12, s->scales + (size_t)i * 3, 12);
  memcpy(out + 24, s->rotations + (size_t)i * 4, 16), memcpy(out + 40, s->opacities + i, 4);
  memcpy(out + 44, s->sh + i * nsh, nsh * 4);
}

static size_t cmp_size;
static int cmp_bytes(const void *a, const void *b) { return memcmp(a, b, cmp_size); }

static uint8_t *sorted_splats(const splat_scene *s) {
  size_t per = splat_bytes(s);
  uint8_t *v = malloc(per * s->count);
  for (uint32_t i = 0; i < s->count; ++i) splat_pack(s, i, v + per * i);
  cmp_size = per;
  qsort(v, s->count, per, cmp_bytes);
  return v;
}

/* ---- the tree's invariants --------------------------------------------------------------------- */

/* What splat_scene.h promises of a hierarchy over n leaves; returns the number of interior levels. */
static uint32_t check_tree(const splat_lod *lod, uint32_t n, const char *what) {
  uint32_t count = lod->interior.count, fails = (uint32_t)failures;
  CHECK(lod->leaf_count == n && lod->node_count == n + count && count >= 1, "%s: %u leaves, %u nodes, %u interior",
        what, lod->leaf_count, lod->node_count, count);
  if ((uint32_t)failures != fails) return 0;
  CHECK(lod->parent[n] == UINT32_MAX, "%s: the root has parent %u", what, lod->parent[n]);
  uint32_t *seen = calloc(lod->node_count, 4), *lo = calloc(count, 4), *hi = calloc(count, 4);
  uint32_t *depth = calloc(count, 4), next = n + 1, levels = 1;
  for (uint32_t k = 0; k < count && (uint32_t)failures == fails; ++k) {
    uint32_t j = n + k, f = lod->first_child[k], c = lod->child_count[k];
    CHECK(c >= 1 && c <= SPLAT_LOD_MAX_CHILDREN, "%s: node %u has %u children", what, j, c);
    CHECK(f + c <= n || f >= n, "%s: node %u mixes leaves and interior children", what, j);
    if (f >= n) { /* breadth first: interior children numbered on from the last */
      CHECK(f == next, "%s: node %u's children start at %u, not %u", what, j, f, next);
      next = f + c;
    }
    for (uint32_t ch = f; ch < f + c && ch < lod->node_count; ++ch) {
      seen[ch]++;
      CHECK(lod->parent[ch] == j, "%s: node %u's parent is %u, not %u", what, ch, lod->parent[ch], j);
      if (ch >= n) depth[ch - n] = depth[k] + 1, levels = depth[k] + 2 > levels ? depth[k] + 2 : levels;
    }
  }
  CHECK(next == n + count || (uint32_t)failures != fails, "%s: %u interior children numbered, %u nodes", what, next, n + count);
  for (uint32_t i = 0; i < lod->node_count && (uint32_t)failures == fails; ++i)
    CHECK(seen[i] == (i == n ? 0u : 1u), "%s: node %u is a child %u times", what, i, seen[i]);
  for (uint32_t k = count; k-- > 0 && (uint32_t)failures == fails;) { /* each subtree's leaves a range */
    uint32_t f = lod->first_child[k], c = lod->child_count[k];
    if (f < n) {
      lo[k] = f, hi[k] = f + c;
      continue;
    }
    for (uint32_t i = 1; i < c; ++i)
      CHECK(hi[f - n + i - 1] == lo[f - n + i], "%s: node %u's leaves are not contiguous", what, n + k);
    lo[k] = lo[f - n], hi[k] = hi[f - n + c - 1];
  }
  if ((uint32_t)failures == fails) CHECK(lo[0] == 0 && hi[0] == n, "%s: the root covers [%u, %u)", what, lo[0], hi[0]);
  const splat_scene *in = &lod->interior;
  for (uint32_t k = 0; k < count && (uint32_t)failures == fails; ++k) {
    const float *q = in->rotations + k * 4, *sc = in->scales + k * 3;
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    CHECK(fabs(len - 1) < 1e-5 && sc[0] > 0 && sc[1] > 0 && sc[2] > 0 && isfinite(sc[0]) &&
          in->opacities[k] >= 0 && in->opacities[k] <= 1, "%s: interior node %u's Gaussian is not valid", what, n + k);
  }
  free(seen), free(lo), free(hi), free(depth);
  return levels;
}

static bool same_lod(const splat_lod *a, const splat_lod *b) {
  const splat_scene *x = &a->interior, *y = &b->interior;
  size_t m = x->count, nsh = (size_t)x->sh_coeffs * 3;
  return a->node_count == b->node_count && x->count == y->count &&
         memcmp(a->first_child, b->first_child, m * 4) == 0 && memcmp(a->child_count, b->child_count, m) == 0 &&
         memcmp(a->parent, b->parent, (size_t)a->node_count * 4) == 0 &&
         memcmp(x->positions, y->positions, m * 12) == 0 && memcmp(x->scales, y->scales, m * 12) == 0 &&
         memcmp(x->rotations, y->rotations, m * 16) == 0 && memcmp(x->opacities, y->opacities, m * 4) == 0 &&
         memcmp(x->sh, y->sh, m * nsh * 4) == 0;
}

static bool same_scene(const splat_scene *a, const splat_scene *b) {
  size_t n = a->count, nsh = (size_t)a->sh_coeffs * 3;
  return memcmp(a->positions, b->positions, n * 12) == 0 && memcmp(a->scales, b->scales, n * 12) == 0 &&
         memcmp(a->rotations, b->rotations, n * 16) == 0 && memcmp(a->opacities, b->opacities, n * 4) == 0 &&
         memcmp(a->sh, b->sh, n * nsh * 4) == 0;
}

static int test_tree(void) {
  static const uint32_t sizes[] = {1, 2, 7, 8, 9, 64, 65, 1000, 100000};
  static const uint32_t threads[] = {1, 2, 3, 7};
  static const splat_lod_method methods[] = {SPLAT_LOD_SPLITS, SPLAT_LOD_PAIRS};
  char err[512];
  for (size_t mt = 0; mt < 2; ++mt)
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; ++z)
    for (int grid = 0; grid < 2; ++grid) {
      uint32_t n = sizes[z], degree = (n + (uint32_t)grid) % 4;
      splat_scene original = make_scene(n, degree, 1000 + n, grid), first = {0};
      splat_lod reference = {0};
      for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
        splat_scene s = copy_scene(&original);
        splat_lod lod;
        splat_lod_options o = {.threads = threads[t], .method = methods[mt]};
        char what[80];
        snprintf(what, sizeof what, "%s: %u splats%s, %u threads", mt ? "pairs" : "splits", n, grid ? " on a grid" : "",
                 threads[t]);
        if (splat_lod_build(&s, &o, &lod, err, sizeof err) != 0) {
          CHECK(0, "%s: %s", what, err);
          splat_scene_free(&s);
          continue;
        }
        uint32_t levels = check_tree(&lod, n, what);
        if (t == 0) {
          uint8_t *a = sorted_splats(&original), *b = sorted_splats(&s);
          CHECK(memcmp(a, b, splat_bytes(&s) * n) == 0, "%s: the reordered scene is not the scene", what);
          free(a), free(b);
          printf("%s: %u interior nodes, %u levels\n", what, lod.interior.count, levels);
          first = s, reference = lod;
          continue;
        }
        CHECK(same_scene(&s, &first) && same_lod(&lod, &reference), "%s: not the same as with 1 thread", what);
        splat_scene_free(&s);
        splat_lod_free(&lod);
      }
      splat_scene_free(&first), splat_lod_free(&reference), splat_scene_free(&original);
    }
  /* the host's memory (issue 37): the five arrays as slices of one block the host owns, at odd
   * offsets; the build reorders them where they are and frees none of them (ASan: no invalid or
   * double free when the host frees its block after) */
  for (size_t mt = 0; mt < 2; ++mt) {
    uint32_t n = 5000, degree = 2, nsh = 27;
    splat_scene model = make_scene(n, degree, 99, false);
    size_t floats = (size_t)n * (3 + 3 + 4 + 1 + nsh) + 5;
    float *block = malloc(floats * sizeof *block);
    splat_scene s = model;
    s.positions = block + 1, s.scales = s.positions + 3 * n, s.rotations = s.scales + 3 * n;
    s.opacities = s.rotations + 4 * n, s.sh = s.opacities + n;
    memcpy(s.positions, model.positions, (size_t)n * 12), memcpy(s.scales, model.scales, (size_t)n * 12);
    memcpy(s.rotations, model.rotations, (size_t)n * 16), memcpy(s.opacities, model.opacities, (size_t)n * 4);
    memcpy(s.sh, model.sh, (size_t)n * nsh * 4);
    const splat_scene before = s;
    splat_lod lod;
    splat_lod_options o = {.method = methods[mt]};
    CHECK(splat_lod_build(&s, &o, &lod, err, sizeof err) == 0, "host block: %s", err);
    CHECK(s.positions == before.positions && s.scales == before.scales && s.rotations == before.rotations &&
          s.opacities == before.opacities && s.sh == before.sh, "host block: the build replaced the host's arrays");
    check_tree(&lod, n, "host block");
    uint8_t *a = sorted_splats(&model), *b = sorted_splats(&s);
    CHECK(memcmp(a, b, splat_bytes(&s) * n) == 0, "host block: the reordered scene is not the scene");
    free(a), free(b);
    splat_lod_free(&lod);
    free(block); /* the host's, freed by the host */
    splat_scene_free(&model);
  }
  /* misuse: refused with a message, *out zeroed */
  splat_scene bad = make_scene(3, 0, 5, false);
  bad.positions[4] = NAN;
  splat_lod lod;
  CHECK(splat_lod_build(&bad, NULL, &lod, err, sizeof err) == -1 && strstr(err, "splat 1: position") &&
        lod.interior.count == 0, "NaN position: %s", err);
  bad.positions[4] = 0, bad.opacities[2] = 2;
  CHECK(splat_lod_build(&bad, NULL, &lod, err, sizeof err) == -1 && strstr(err, "splat 2: opacity"), "%s", err);
  splat_scene_free(&bad);
  return check_report("scene_lod_tree");
}

/* ---- SPLAT_LOD_PAIRS merges the cheapest pairs first --------------------------------------------- */

/* Eight clusters far apart, each four splats on a line 0.4 apart coloured red, blue, red, blue:
 * a splat's nearest neighbour has the other colour, the next but one its own. The first generation
 * must pair each splat with the other of its colour (the colour term of the cost), so every node
 * over leaves holds two leaves of one colour and one cluster. */
static int test_pairs(void) {
  splat_scene s = make_scene(32, 1, 7, false);
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t cluster = i / 4, k = i % 4;
    float *p = s.positions + i * 3, *sc = s.scales + i * 3, *q = s.rotations + i * 4, *sh = s.sh + i * 12;
    p[0] = 100.0f * (float)cluster + 0.4f * (float)k, p[1] = (float)(cluster % 3), p[2] = 0;
    sc[0] = sc[1] = sc[2] = 0.3f;
    q[0] = 1, q[1] = q[2] = q[3] = 0;
    s.opacities[i] = 0.8f;
    for (int c = 0; c < 12; ++c) sh[c] = 0;
    sh[k % 2 == 0 ? 0 : 2] = 1.5f; /* DC red or blue */
  }
  splat_lod lod;
  char err[256];
  splat_lod_options o = {.method = SPLAT_LOD_PAIRS};
  CHECK(splat_lod_build(&s, &o, &lod, err, sizeof err) == 0, "%s", err);
  check_tree(&lod, 32, "pairs: 32 splats in clusters");
  uint32_t over_leaves = 0;
  for (uint32_t k = 0; k < lod.interior.count; ++k) {
    uint32_t f = lod.first_child[k], c = lod.child_count[k];
    if (f >= 32) continue;
    over_leaves++;
    CHECK(c == 2, "node %u holds %u leaves, not a pair", 32 + k, c);
    for (uint32_t t = 1; t < c; ++t) {
      const float *a = s.positions + f * 3, *b = s.positions + (f + t) * 3;
      CHECK(s.sh[f * 12] == s.sh[(f + t) * 12] && fabsf(a[0] - b[0]) < 1.0f,
            "node %u pairs splats at x %.1f and %.1f of colours %g and %g", 32 + k, (double)a[0], (double)b[0],
            (double)s.sh[f * 12], (double)s.sh[(f + t) * 12]);
    }
  }
  CHECK(over_leaves == 16, "%u nodes over leaves, not 16 pairs", over_leaves);
  splat_lod_free(&lod);
  splat_scene_free(&s);
  return check_report("scene_lod_pairs");
}

/* ---- the merge rule (Kerbl et al. 2024, Sec. 4.1) on hand cases -------------------------------- */

static void covariance(const float *scale, const float *q, double cov[3][3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      cov[a][b] = 0;
      for (int k = 0; k < 3; ++k) cov[a][b] += r[a][k] * r[b][k] * (double)scale[k] * scale[k];
    }
}

typedef struct hand_splat {
  float p[3], s[3], q[4], alpha, sh;
} hand_splat;

/* Builds the tree over the two (or up to eight) splats and returns its root, the one merge. */
static splat_lod merge_of(const hand_splat *h, uint32_t n) {
  splat_scene s = make_scene(n, 0, 1, false);
  for (uint32_t i = 0; i < n; ++i) {
    memcpy(s.positions + i * 3, h[i].p, 12), memcpy(s.scales + i * 3, h[i].s, 12);
    memcpy(s.rotations + i * 4, h[i].q, 16);
    s.opacities[i] = h[i].alpha;
    for (int c = 0; c < 3; ++c) s.sh[i * 3 + c] = h[i].sh;
  }
  splat_lod lod = {0};
  char err[256];
  if (splat_lod_build(&s, NULL, &lod, err, sizeof err) != 0) CHECK(0, "%s", err);
  CHECK(lod.interior.count == 1, "%u splats made %u interior nodes", n, lod.interior.count);
  splat_scene_free(&s);
  return lod;
}

static void check_cov(const splat_lod *lod, double want[3][3], double tol, const char *what) {
  double got[3][3];
  covariance(lod->interior.scales, lod->interior.rotations, got);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      CHECK(fabs(got[a][b] - want[a][b]) <= tol * (1 + fabs(want[a][b])), "%s: covariance[%d][%d] %.9g, expected %.9g",
            what, a, b, got[a][b], want[a][b]);
}

static int test_merge(void) {
  const double pi = 3.14159265358979323846;
  const float r45[4] = {0.9238795f, 0.f, 0.f, 0.3826834f}; /* 45 degrees about z */
  { /* two identical splats: the same Gaussian; the coverage of both, so twice the opacity (at most 1) */
    hand_splat h = {{1, 2, 3}, {0.1f, 0.2f, 0.3f}, {0.9238795f, 0.3826834f, 0, 0}, 0.3f, 0.7f};
    hand_splat two[2] = {h, h};
    splat_lod lod = merge_of(two, 2);
    double want[3][3];
    covariance(h.s, h.q, want);
    CHECK_VEC(lod.interior.positions, 1, 2, 3, 1e-6);
    check_cov(&lod, want, 1e-6, "identical");
    CHECK_NEAR(lod.interior.opacities[0], 0.6, 1e-6);
    CHECK_NEAR(lod.interior.sh[0], 0.7, 1e-6);
    CHECK_NEAR(lod.interior.scales[0], 0.3, 1e-6); /* largest first */
    two[0].alpha = two[1].alpha = 0.8f;
    splat_lod_free(&lod);
    lod = merge_of(two, 2);
    CHECK_NEAR(lod.interior.opacities[0], 1.0, 0); /* min(1, 1.6) */
    splat_lod_free(&lod);
  }
  { /* far apart along x: the mean between them, x variance their spread plus their own */
    hand_splat a = {{-5, 1, 0}, {0.5f, 0.5f, 0.5f}, {1, 0, 0, 0}, 0.5f, 0.2f}, b = a;
    b.p[0] = 5;
    hand_splat two[2] = {a, b};
    splat_lod lod = merge_of(two, 2);
    CHECK_VEC(lod.interior.positions, 0, 1, 0, 1e-6);
    double want[3][3] = {{25.25, 0, 0}, {0, 0.25, 0}, {0, 0, 0.25}};
    check_cov(&lod, want, 1e-6, "apart");
    CHECK_NEAR(lod.interior.scales[0], sqrt(25.25), 1e-5);
    /* coverage kept: 2 * 0.5 * pi 0.25 over pi sqrt(25.25) 0.5 */
    CHECK_NEAR(lod.interior.opacities[0], 2 * 0.5 * pi * 0.25 / (pi * sqrt(25.25) * 0.5), 1e-6);
    splat_lod_free(&lod);
  }
  { /* weights: opacity times surface; SH weighted the same */
    hand_splat a = {{0, 0, 0}, {0.2f, 0.2f, 0.2f}, {1, 0, 0, 0}, 0.8f, 1.0f}, b = a;
    b.p[1] = 1, b.alpha = 0.2f, b.sh = -1.0f;
    memcpy(b.q, r45, 16);
    hand_splat two[2] = {a, b};
    splat_lod lod = merge_of(two, 2);
    CHECK_VEC(lod.interior.positions, 0, 0.2, 0, 1e-6);
    CHECK_NEAR(lod.interior.sh[1], 0.8 * 1 + 0.2 * -1, 1e-6);
    double want[3][3] = {{0.04, 0, 0}, {0, 0.04 + 0.8 * 0.04 + 0.2 * 0.64, 0}, {0, 0, 0.04}};
    check_cov(&lod, want, 1e-5, "weighted");
    splat_lod_free(&lod);
  }
  { /* a flat child (two zero scales: no surface) weighs nothing */
    hand_splat a = {{3, 0, 0}, {0.4f, 0, 0}, {1, 0, 0, 0}, 1.0f, 5.0f};
    hand_splat b = {{0, 0, 0}, {0.1f, 0.2f, 0.3f}, {0.9238795f, 0, 0.3826834f, 0}, 0.5f, 1.0f};
    hand_splat two[2] = {a, b};
    splat_lod lod = merge_of(two, 2);
    double want[3][3];
    covariance(b.s, b.q, want);
    CHECK_VEC(lod.interior.positions, 0, 0, 0, 1e-6);
    check_cov(&lod, want, 1e-5, "flat");
    CHECK_NEAR(lod.interior.opacities[0], 0.5, 1e-5);
    CHECK_NEAR(lod.interior.sh[0], 1.0, 1e-6);
    splat_lod_free(&lod);
  }
  { /* all flat: equal weights, the largest opacity; points: the smallest scale, still valid */
    hand_splat a = {{0, 0, 0}, {0.4f, 0, 0}, {1, 0, 0, 0}, 0.5f, 1.0f}, b = a;
    b.p[2] = 2, b.alpha = 0.7f, b.sh = 3.0f;
    hand_splat two[2] = {a, b};
    splat_lod lod = merge_of(two, 2);
    CHECK_VEC(lod.interior.positions, 0, 0, 1, 1e-6);
    CHECK_NEAR(lod.interior.opacities[0], 0.7, 1e-6);
    CHECK_NEAR(lod.interior.sh[0], 2.0, 1e-6);
    double want[3][3] = {{0.16, 0, 0}, {0, 0, 0}, {0, 0, 1}};
    check_cov(&lod, want, 1e-5, "all flat");
    splat_lod_free(&lod);
    a.s[0] = b.s[0] = 0, b.p[2] = 0, a.alpha = 0; /* two points at one place, one transparent */
    two[0] = a, two[1] = b;
    lod = merge_of(two, 2);
    const float *s = lod.interior.scales;
    CHECK(s[0] > 0 && s[0] < 1e-6 && s[2] > 0, "points: scales %g %g %g", s[0], s[1], s[2]);
    CHECK_NEAR(lod.interior.opacities[0], 0.7, 1e-6);
    splat_lod_free(&lod);
  }
  { /* bottom-up: 9 splats make two leaf nodes and a root merged from them, which equals the
     * merge of all nine at once (the rule's sums nest) in mean */
    hand_splat h[9];
    uint64_t seed = 3;
    double wsum = 0, mean[3] = {0, 0, 0};
    for (int i = 0; i < 9; ++i) {
      h[i] = (hand_splat){{(float)i, (float)(unit(&seed)), 0}, {0.3f, 0.2f, 0.1f}, {1, 0, 0, 0}, (float)(0.1 + 0.1 * i), 0};
      double w = h[i].alpha * pi * 0.3 * 0.2;
      wsum += w;
      for (int c = 0; c < 3; ++c) mean[c] += w * h[i].p[c];
    }
    splat_scene s = make_scene(9, 0, 1, false);
    for (uint32_t i = 0; i < 9; ++i) {
      memcpy(s.positions + i * 3, h[i].p, 12), memcpy(s.scales + i * 3, h[i].s, 12);
      memcpy(s.rotations + i * 4, h[i].q, 16);
      s.opacities[i] = h[i].alpha;
    }
    splat_lod lod;
    char err[256];
    splat_lod_options o = {.method = SPLAT_LOD_SPLITS}; /* two nodes of 4 and 5 leaves under the root */
    CHECK(splat_lod_build(&s, &o, &lod, err, sizeof err) == 0, "%s", err);
    CHECK(lod.interior.count == 3, "9 splats: %u interior nodes", lod.interior.count);
    /* the root's weights are its children's coverage, which the merge keeps unless capped at 1 */
    CHECK_VEC(lod.interior.positions, mean[0] / wsum, mean[1] / wsum, mean[2] / wsum, 1e-2);
    splat_lod_free(&lod);
    splat_scene_free(&s);
  }
  return check_report("scene_lod_merge");
}

/* ---- the file ------------------------------------------------------------------------------------ */

/* x rounded to the nearest IEEE half, ties to even (computed apart from the writer's bit tricks). */
static float half_round(float x) {
  double a = fabs((double)x);
  if (a > 65504) a = 65504; /* the writer clamps */
  int e;
  frexp(a, &e); /* a = f 2^e, f in [0.5, 1) */
  double quantum = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
  double r = nearbyint(a / quantum) * quantum;
  return (float)(x < 0 ? -r : r);
}

static char *path_in(const char *name) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  return buf;
}

static int test_roundtrip(void) {
  for (uint32_t degree = 0; degree <= 3; ++degree) {
    uint32_t n = 1000 + degree * 37;
    splat_scene s = make_scene(n, degree, 77 + degree, false);
    splat_lod lod, back;
    char err[512], *path = path_in("roundtrip.lod");
    CHECK(splat_lod_build(&s, NULL, &lod, err, sizeof err) == 0, "%s", err);
    CHECK(splat_lod_write(path, &lod, err, sizeof err) == 0, "%s", err);
    if (splat_lod_load(path, &s, 0, &back, err, sizeof err) != 0) {
      CHECK(0, "degree %u: %s", degree, err);
      continue;
    }
    check_tree(&back, n, "loaded");
    uint32_t m = lod.interior.count;
    size_t nsh = (size_t)m * lod.interior.sh_coeffs * 3;
    struct stat st;
    stat(path, &st);
    printf("degree %u: %u leaves, %u interior nodes: %lld bytes (%.2f a leaf)\n", degree, n, m, (long long)st.st_size,
           (double)st.st_size / n);
    CHECK(back.interior.count == m && back.interior.sh_degree == degree, "degree %u: %u interior nodes back", degree,
          back.interior.count);
    CHECK(memcmp(back.first_child, lod.first_child, m * 4) == 0 && memcmp(back.child_count, lod.child_count, m) == 0 &&
          memcmp(back.parent, lod.parent, (size_t)lod.node_count * 4) == 0, "degree %u: the tree differs", degree);
    CHECK(memcmp(back.interior.positions, lod.interior.positions, m * 12) == 0 &&
          memcmp(back.interior.scales, lod.interior.scales, m * 12) == 0 &&
          memcmp(back.interior.opacities, lod.interior.opacities, m * 4) == 0, "degree %u: values differ", degree);
    /* the pairs tree's errors (flag bit 0), each at least its interior children's */
    CHECK(lod.error != NULL && back.error != NULL && memcmp(back.error, lod.error, m * 4) == 0,
          "degree %u: the errors did not come back", degree);
    for (uint32_t k = 0; lod.error != NULL && k < m; ++k)
      for (uint32_t c = 0; c < lod.child_count[k] && lod.first_child[k] >= n; ++c)
        CHECK(lod.error[k] >= lod.error[lod.first_child[k] - n + c], "degree %u: node %u's error is below its child's",
              degree, n + k);
    for (size_t k = 0; k < (size_t)m * 4; ++k)
      CHECK(fabsf(back.interior.rotations[k] - lod.interior.rotations[k]) <= 1e-7f, "rotation %zu", k);
    size_t bad = 0;
    for (size_t k = 0; k < nsh; ++k) bad += back.interior.sh[k] != half_round(lod.interior.sh[k]);
    CHECK(bad == 0, "degree %u: %zu SH values are not the half of what was written", degree, bad);
    splat_lod_free(&back);
    if (lod.error != NULL) { /* a negative error is not written */
      float keep = lod.error[0];
      lod.error[0] = -1;
      CHECK(splat_lod_write(path, &lod, err, sizeof err) == -1 && strstr(err, "error -1 not finite"), "%s", err);
      lod.error[0] = keep;
    }
    /* a tree names its scene (issue 37): another scene of the same count, or this one in another
     * order, is refused; this one with its positions moved by a quantisation's error is not */
    splat_scene other = make_scene(n, degree, 1234 + degree, false), moved = copy_scene(&s), turned = copy_scene(&s);
    for (size_t k = 0; k < (size_t)n * 3; ++k) moved.positions[k] += (k % 2 ? 1e-4f : -1e-4f);
    for (uint32_t i = 0; i < n; ++i) /* the order reversed */
      memcpy(turned.positions + 3 * i, s.positions + 3 * (n - 1 - i), 12);
    CHECK(splat_lod_load(path, &other, 0, &back, err, sizeof err) == -1 && strstr(err, "built for another scene"),
          "degree %u, another scene: %s", degree, err);
    CHECK(splat_lod_load(path, &turned, 0, &back, err, sizeof err) == -1 && strstr(err, "built for another scene"),
          "degree %u, the scene reversed: %s", degree, err);
    CHECK(splat_lod_validate(&lod, &other, err, sizeof err) == -1 && strstr(err, "built for another scene"),
          "degree %u, validate another scene: %s", degree, err);
    if (splat_lod_load(path, &moved, 0, &back, err, sizeof err) == 0) splat_lod_free(&back);
    else CHECK(0, "degree %u, positions moved by 1e-4: %s", degree, err);
    splat_scene_free(&other), splat_scene_free(&moved), splat_scene_free(&turned);
    splat_scene wrong = s;
    wrong.count = n - 1;
    CHECK(splat_lod_load(path, &wrong, 0, &back, err, sizeof err) == -1 && strstr(err, "the scene has"), "%s", err);
    wrong.count = n, wrong.sh_degree = (degree + 1) % 4;
    CHECK(splat_lod_load(path, &wrong, 0, &back, err, sizeof err) == -1 && strstr(err, "SH degree"), "%s", err);
    splat_lod_free(&lod);
    splat_scene_free(&s);
  }
  /* the half conversion at its edges: subnormals, ties, the largest */
  splat_scene s = make_scene(1, 3, 9, false);
  const float edge[] = {0.f, -0.f, 1e-8f, 3e-8f, 5.96e-8f, 6.1e-5f, 1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.f,
                        70000.f, -1e9f, 0.33333334f, -2.5e-6f, 1e-3f, 2048.5f, 4097.f};
  memcpy(s.sh, edge, sizeof edge);
  splat_lod lod, back;
  char err[512], *path = path_in("halves.lod");
  CHECK(splat_lod_build(&s, NULL, &lod, err, sizeof err) == 0, "%s", err);
  CHECK(splat_lod_write(path, &lod, err, sizeof err) == 0, "%s", err);
  CHECK(splat_lod_load(path, &s, 0, &back, err, sizeof err) == 0, "%s", err);
  for (size_t k = 0; k < sizeof edge / sizeof edge[0] && back.interior.sh; ++k)
    CHECK(back.interior.sh[k] == half_round(lod.interior.sh[k]) &&
          signbit(back.interior.sh[k]) == signbit(lod.interior.sh[k]) && fabsf(lod.interior.sh[k] - edge[k]) <= 1e-6f * fabsf(edge[k]),
          "half of %.9g: %.9g, expected %.9g", (double)edge[k], (double)back.interior.sh[k],
          (double)half_round(lod.interior.sh[k]));
  splat_lod_free(&lod), splat_lod_free(&back), splat_scene_free(&s);
  return check_report("scene_lod_roundtrip");
}

/* ---- hostile files ---------------------------------------------------------------------------- */

static uint8_t *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *d = malloc(*size);
  if (fread(d, 1, *size, f) != *size) *size = 0;
  fclose(f);
  return d;
}

static void write_all(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

/* Loading `path` fails with one line that names it and contains `want` (NULL: any reason). */
static void refused(const char *path, const splat_scene *leaves, uint64_t max_memory, const char *want,
                    const char *what) {
  splat_lod lod;
  char err[512] = "";
  int rc = splat_lod_load(path, leaves, max_memory, &lod, err, sizeof err);
  bool named = strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':' && !strchr(err, '\n');
  CHECK(rc == -1 && named && (want == NULL || strstr(err, want)) && lod.interior.count == 0 && lod.parent == NULL,
        "%s: rc %d, \"%s\" (expected \"%s\")", what, rc, err, want ? want : "a refusal");
  if (rc == 0) splat_lod_free(&lod);
}

/* IEEE half bits of v (rounding toward zero; enough for files made to be refused). */
static uint16_t half_bits(float v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  if (isnan(v)) return 0x7e00;
  float a = fabsf(v);
  if (isinf(a) || a >= 65520.0f) return sign | 0x7c00;
  if (a < 6.103515625e-05f) return sign; /* subnormals flushed */
  int e;
  float m = frexpf(a, &e); /* a = m 2^e, m in [0.5, 1) */
  return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)((uint32_t)(m * 2048.0f) & 0x3ff));
}

/* A .lod of `l` as docs/formats.md lays it out, written here without splat_lod_write (which
 * refuses what the reader refuses), with a correct CRC: the files the reader must refuse. */
static void write_raw(const char *path, const splat_lod *l) {
  uint32_t m = l->interior.count, nsh = l->interior.sh_coeffs * 3, pad = (4 - m % 4) % 4;
  size_t record = 44 + ((size_t)nsh * 2 + 3) / 4 * 4, size = 64 + (size_t)m * 5 + pad + (size_t)m * record;
  uint8_t *d = calloc(1, size), *p = d + 64;
  memcpy(p, l->first_child, (size_t)m * 4), p += (size_t)m * 4;
  memcpy(p, l->child_count, m), p += m + pad;
  for (uint32_t k = 0; k < m; ++k, p += record) {
    memcpy(p, l->interior.positions + k * 3, 12), memcpy(p + 12, l->interior.scales + k * 3, 12);
    memcpy(p + 24, l->interior.rotations + k * 4, 16), memcpy(p + 40, l->interior.opacities + k, 4);
    for (uint32_t c = 0; c < nsh; ++c) {
      uint16_t h = half_bits(l->interior.sh[(size_t)k * nsh + c]);
      memcpy(p + 44 + 2 * c, &h, 2);
    }
  }
  uint32_t fields[7] = {1, 64, l->leaf_count, m, l->interior.sh_degree, 0,
                        (uint32_t)crc32(crc32(0, Z_NULL, 0), d + 64, (uInt)(size - 64))};
  memcpy(d, "SPLATLOD", 8), memcpy(d + 8, fields, sizeof fields);
  write_all(path, d, size);
  free(d);
}

/* The valid tree over `s` changed by `edit`: refused by splat_lod_validate and splat_lod_write
 * (one check for both, issue 37), and, written raw with a correct CRC, by the reader. */
typedef void (*lod_edit)(splat_lod *lod);
static void refused_edit(const splat_lod *valid, const splat_scene *s, lod_edit edit, const char *want) {
  splat_lod l = *valid;
  uint32_t m = valid->interior.count;
  size_t nsh = (size_t)m * valid->interior.sh_coeffs * 3;
  l.first_child = malloc(m * 4), l.child_count = malloc(m);
  l.interior.positions = malloc(m * 12), l.interior.scales = malloc(m * 12), l.interior.rotations = malloc(m * 16);
  l.interior.opacities = malloc(m * 4), l.interior.sh = malloc(nsh * 4);
  l.parent = NULL;
  memcpy(l.first_child, valid->first_child, m * 4), memcpy(l.child_count, valid->child_count, m);
  memcpy(l.interior.positions, valid->interior.positions, m * 12);
  memcpy(l.interior.scales, valid->interior.scales, m * 12);
  memcpy(l.interior.rotations, valid->interior.rotations, m * 16);
  memcpy(l.interior.opacities, valid->interior.opacities, m * 4);
  memcpy(l.interior.sh, valid->interior.sh, nsh * 4);
  edit(&l);
  char err[512], *path = path_in("edited.lod");
  CHECK(splat_lod_validate(&l, s, err, sizeof err) == -1 && strstr(err, want), "validate, %s: \"%s\"", want, err);
  CHECK(splat_lod_write(path_in("unwritten.lod"), &l, err, sizeof err) == -1 && strstr(err, want), "write, %s: \"%s\"",
        want, err);
  write_raw(path, &l);
  refused(path, s, 0, want, want);
  splat_lod_free(&l);
}

/* 100 leaves: the root (interior 0) has 2 interior children (1, 2) of 50 leaves, each with seven
 * leaf nodes (3..9, 10..16) of 7 or 8. */
static void edit_cycle(splat_lod *l) { l->first_child[1] = l->leaf_count, l->child_count[1] = 1; }
static void edit_two_parents(splat_lod *l) { l->first_child[2] = l->first_child[1]; }
static void edit_out_of_bounds(splat_lod *l) { l->first_child[16] = l->node_count - 1, l->child_count[16] = 2; }
static void edit_mixed(splat_lod *l) { l->first_child[16] = l->leaf_count - 1, l->child_count[16] = 2; }
static void edit_no_children(splat_lod *l) { l->child_count[5] = 0; }
static void edit_nine_children(splat_lod *l) { l->child_count[9] = 9; }
static void edit_no_parent(splat_lod *l) { l->child_count[16] -= 1; }
static void edit_not_contiguous(splat_lod *l) {
  uint32_t f = l->first_child[3], c = l->child_count[3];
  l->first_child[3] = l->first_child[4], l->child_count[3] = l->child_count[4];
  l->first_child[4] = f, l->child_count[4] = (uint8_t)c;
}
static void edit_position(splat_lod *l) { l->interior.positions[7 * 3 + 1] = NAN; }
static void edit_scale(splat_lod *l) { l->interior.scales[3 * 3] = -1; }
static void edit_scale_inf(splat_lod *l) { l->interior.scales[3 * 3] = INFINITY; }
static void edit_opacity(splat_lod *l) { l->interior.opacities[2] = 1.5f; }
static void edit_rotation(splat_lod *l) {
  for (int c = 0; c < 4; ++c) l->interior.rotations[4 * 4 + c] *= 2;
}
static void edit_sh(splat_lod *l) { l->interior.sh[5] = NAN; }

static int test_hostile(void) {
  splat_scene s = make_scene(100, 1, 42, false);
  splat_lod lod;
  char err[512], *p = path_in("valid.lod"), path[4096];
  snprintf(path, sizeof path, "%s", p);
  splat_lod_options o = {.method = SPLAT_LOD_SPLITS}; /* the edits below are made for its shape */
  CHECK(splat_lod_build(&s, &o, &lod, err, sizeof err) == 0, "%s", err);
  CHECK(lod.interior.count == 17 && lod.first_child[1] >= 100 && lod.first_child[3] < 100, "100 leaves: %u nodes",
        lod.interior.count);
  CHECK(splat_lod_write(path, &lod, err, sizeof err) == 0, "%s", err);
  size_t size = 0;
  uint8_t *valid = read_all(path, &size);
  printf("a valid file of 100 leaves: %zu bytes\n", size);
  char *cut = path_in("cut.lod"), cut_path[4096];
  snprintf(cut_path, sizeof cut_path, "%s", cut);
  check_print_limit = 40;
  for (size_t n = 0; n < size; ++n) { /* every truncation */
    write_all(cut_path, valid, n);
    refused(cut_path, &s, 0, n == 0 ? NULL : n < 64 ? "truncated" : "truncated", "truncated");
  }
  uint8_t *flip = malloc(size);
  for (size_t i = 0; i < size; ++i) { /* every byte flipped: a check or the CRC refuses it */
    memcpy(flip, valid, size);
    flip[i] ^= 0xff;
    write_all(cut_path, flip, size);
    refused(cut_path, &s, 0, NULL, "flipped");
  }
  memcpy(flip, valid, size);
  flip[size - 1] ^= 1;
  write_all(cut_path, flip, size);
  refused(cut_path, &s, 0, "CRC", "crc");
  uint8_t *longer = calloc(size + 4, 1);
  memcpy(longer, valid, size);
  write_all(cut_path, longer, size + 4);
  refused(cut_path, &s, 0, "trailing bytes", "trailing");
  free(longer);
  /* headers: magic, version, header size, flags, reserved, counts */
  static const struct { size_t at; uint32_t value; const char *want; } fields[] = {
      {0, 0x54414c50, "magic"}, {8, 2, "version 2"}, {12, 128, "header size 128"}, {28, 2, "flags"},
      {40, 7, "reserved"}, {16, 99, "for 99 leaves"}, {24, 2, "SH degree 2"}, {20, 0, "no tree"},
      {20, 0xfffffff0u, "32-bit"}, {20, 0x10000000u, "fewer than twice"}, {20, 150, "truncated"}, {20, 3, "cannot hang"}, {16, 0xffffffffu, "for 4294967295 leaves"}};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; ++f) {
    memcpy(flip, valid, size);
    memcpy(flip + fields[f].at, &fields[f].value, 4);
    write_all(cut_path, flip, size);
    refused(cut_path, &s, 0, fields[f].want, fields[f].want);
  }
  refused(path, &s, 1000, "needs", "a low max_memory"); /* the valid file, over a tiny budget */
  /* a huge sparse file whose header matches its size: refused by the budget, nothing read */
  {
    uint32_t interior = (1u << 30) - 1; /* under twice the leaves: the structure passes, the budget refuses */
    uint64_t huge = 64 + (uint64_t)interior * 4 + ((interior + 3u) & ~3u) + (uint64_t)interior * (44 + 8);
    uint8_t h[64] = "SPLATLOD";
    uint32_t fieldsv[6] = {1, 64, 1u << 30, interior, 0, 0};
    memcpy(h + 8, fieldsv, sizeof fieldsv);
    char *sparse = path_in("sparse.lod");
    write_all(sparse, h, sizeof h);
    splat_scene eight = {.count = 1u << 30, .sh_degree = 0, .sh_coeffs = 1}; /* only its count is read */
    if (truncate(sparse, (off_t)huge) == 0) {
      double t0 = now_seconds();
      refused(sparse, &eight, 1 << 20, "needs", "sparse, 1 MiB budget");
      refused(sparse, &eight, (uint64_t)8 << 30, "needs", "sparse, 8 GiB budget");
      CHECK(now_seconds() - t0 < 1, "the sparse file took %.2f s to refuse", now_seconds() - t0);
    } else {
      printf("no sparse file here: skipped that case\n");
    }
    unlink(sparse);
  }
  /* a correct CRC around a broken tree or broken values */
  refused_edit(&lod, &s, edit_cycle, "does not come after it");
  refused_edit(&lod, &s, edit_two_parents, "has two parents");
  refused_edit(&lod, &s, edit_out_of_bounds, "out of bounds");
  refused_edit(&lod, &s, edit_mixed, "mix leaves and interior nodes");
  refused_edit(&lod, &s, edit_no_children, "interior node 105 has 0 children");
  refused_edit(&lod, &s, edit_nine_children, "interior node 109 has 9 children");
  refused_edit(&lod, &s, edit_no_parent, "has no parent");
  refused_edit(&lod, &s, edit_not_contiguous, "not contiguous");
  refused_edit(&lod, &s, edit_position, "interior node 107: position not finite");
  refused_edit(&lod, &s, edit_scale, "interior node 103: scale");
  refused_edit(&lod, &s, edit_scale_inf, "interior node 103: scale");
  refused_edit(&lod, &s, edit_opacity, "interior node 102: opacity 1.5");
  refused_edit(&lod, &s, edit_rotation, "interior node 104: rotation of length 2");
  refused_edit(&lod, &s, edit_sh, "interior node 100: SH coefficient 5 not finite");
  refused(path_in("missing.lod"), &s, 0, "cannot open", "missing");
  refused(dir, &s, 0, "not a regular file", "a folder");
  free(flip), free(valid);
  splat_lod_free(&lod), splat_scene_free(&s);
  return check_report("scene_lod_hostile");
}

/* ---- a converted scene, and timings ---------------------------------------------------------- */

static int test_check(const char *scene_path, const char *lod_path) {
  splat_scene s;
  splat_lod lod;
  char err[1024];
  if (splat_scene_load(scene_path, &s, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (splat_lod_load(lod_path, &s, 0, &lod, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    splat_scene_free(&s);
    return 1;
  }
  uint32_t levels = check_tree(&lod, s.count, lod_path);
  printf("%s: %u leaves, %u interior nodes, %u interior levels\n", lod_path, s.count, lod.interior.count, levels);
  splat_lod_free(&lod);
  splat_scene_free(&s);
  return check_report("scene_lod_check");
}

static int bench(uint32_t n, const char *thread_list) {
  uint32_t threads[16];
  uint32_t count = parse_size_list(thread_list, threads, 16);
  if (count == 0 || n == 0) {
    fprintf(stderr, "bench COUNT THREADS,...\n");
    return 2;
  }
  double t0 = now_seconds();
  splat_scene original = make_scene(n, 3, 123, false);
  printf("%u splats at SH degree 3 generated in %.2f s\n", n, now_seconds() - t0);
  for (uint32_t t = 0; t < count; ++t) {
    splat_scene s = copy_scene(&original);
    splat_lod lod;
    char err[512];
    splat_lod_options o = {.threads = threads[t]};
    t0 = now_seconds();
    if (splat_lod_build(&s, &o, &lod, err, sizeof err) != 0) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    double built = now_seconds() - t0;
    char *path = path_in("bench.lod");
    t0 = now_seconds();
    if (splat_lod_write(path, &lod, err, sizeof err) != 0) fprintf(stderr, "%s\n", err);
    double written = now_seconds() - t0;
    splat_lod back;
    t0 = now_seconds();
    if (splat_lod_load(path, &s, 0, &back, err, sizeof err) != 0) fprintf(stderr, "%s\n", err);
    double loaded = now_seconds() - t0;
    struct stat st;
    stat(path, &st);
    printf("%u threads: build %.2f s, write %.2f s, load %.2f s; %u interior nodes, %.1f MB (%.2f bytes a splat)\n",
           threads[t], built, written, loaded, lod.interior.count, (double)st.st_size / 1e6, (double)st.st_size / n);
    unlink(path);
    splat_lod_free(&back), splat_lod_free(&lod), splat_scene_free(&s);
  }
  splat_scene_free(&original);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "check") == 0) return test_check(argv[2], argv[3]);
  if (argc < 3) {
    fprintf(stderr, "usage: test_scene_lod tree|merge|pairs|roundtrip|hostile DIR | check SCENE LOD | "
                    "bench COUNT THREADS,... [DIR]\n");
    return 2;
  }
  if (strcmp(argv[1], "bench") == 0) {
    dir = argc > 4 ? argv[4] : "/tmp";
    return bench((uint32_t)strtoul(argv[2], NULL, 10), argv[3]);
  }
  dir = argv[2];
  mkdir(dir, 0777);
  if (strcmp(argv[1], "tree") == 0) return test_tree();
  if (strcmp(argv[1], "merge") == 0) return test_merge();
  if (strcmp(argv[1], "pairs") == 0) return test_pairs();
  if (strcmp(argv[1], "roundtrip") == 0) return test_roundtrip();
  if (strcmp(argv[1], "hostile") == 0) return test_hostile();
  fprintf(stderr, "test_scene_lod: unknown mode %s\n", argv[1]);
  return 2;
}
