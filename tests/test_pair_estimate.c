/* test_pair_estimate.c: the compute raster's estimate of a frame's (tile, splat) pairs
 * (src/render/pair_estimate.h), CPU only, against the CPU reference's count of the same frame
 * (refrender's pairs_needed: the compute raster's bins over splat_project): the count itself for
 * objects the sample holds whole, at 640x480 and 1920x1080, from outside and from inside the
 * scene, with large splats, anti-aliased; a streamed object's resident prefix; a model matrix;
 * within 15% for a subsample of a larger object; an object without a sample (a LOD cut) makes
 * the estimate inexact. Prints what one estimate costs at its budgets (a scene's first frame, a
 * moving view). */
#include "pair_estimate.h"
#include "refrender.h"
#include "splat_camera.h"
#include "splat_project.h"
#include "splat_scene.h"

#include "check.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 20261128;
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)((double)(splitmix64(&rng) >> 11) * 0x1.0p-53); }
static float gauss(void) {
  float u = uniform(1e-7f, 1.0f), v = uniform(0.0f, 1.0f);
  return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

/* n splats in a ball of radius 1, scales log-uniform in [smin, smax] (each axis within 2x of
 * the splat's), random rotations, a fifth faint; stored as the GPU stores them. */
static splat_scene ball(uint32_t n, float smin, float smax) {
  splat_scene s = {.count = n, .sh_degree = 0, .sh_coeffs = 1};
  s.positions = malloc(sizeof(float) * 3 * n);
  s.scales = malloc(sizeof(float) * 3 * n);
  s.rotations = malloc(sizeof(float) * 4 * n);
  s.opacities = malloc(sizeof(float) * n);
  s.sh = calloc(3 * (size_t)n, sizeof(float));
  if (!s.positions || !s.scales || !s.rotations || !s.opacities || !s.sh) {
    fprintf(stderr, "test_pair_estimate: out of memory\n");
    exit(1);
  }
  for (uint32_t i = 0; i < n; i++) {
    float d[3] = {gauss(), gauss(), gauss()}, l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 1e-6f;
    float r = powf(uniform(0, 1), 0.5f), base = expf(uniform(logf(smin), logf(smax)));
    float q[4] = {gauss(), gauss(), gauss(), gauss()}, ql = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 3; k++) {
      s.positions[3 * i + (uint32_t)k] = d[k] / l * r;
      s.scales[3 * i + (uint32_t)k] = base * expf(uniform(-0.7f, 0.7f));
    }
    for (int k = 0; k < 4; k++) s.rotations[4 * i + (uint32_t)k] = q[k] / ql;
    s.opacities[i] = uniform(0, 1) < 0.2f ? uniform(0.003f, 0.2f) : uniform(0.4f, 1.0f);
  }
  splat_scene_as_stored(&s, SPLAT_SH_PRECISION_16);
  return s;
}

static void scene_free(splat_scene *s) {
  free(s->positions), free(s->scales), free(s->rotations), free(s->opacities), free(s->sh);
}

static splat_camera camera(const float eye[3], float fovy, uint32_t w, uint32_t h) {
  splat_camera cam;
  const float target[3] = {0.05f, -0.02f, 0.03f}, up[3] = {0, -1, 0};
  if (splat_camera_look_at(&cam, eye, target, up, fovy, w, h) != 0) {
    fprintf(stderr, "test_pair_estimate: camera\n");
    exit(1);
  }
  return cam;
}

/* The reference's pair count of scene s from cam. */
static uint64_t reference_pairs(const splat_scene *s, const splat_camera *cam) {
  float *rgba = malloc(sizeof(float) * 4 * cam->width * cam->height);
  refrender_stats st;
  refrender_options opt = {.max_pairs = UINT64_MAX, .threads = 2};
  const float bg[3] = {0, 0, 0};
  CHECK(rgba && refrender_render_opts(s, cam, 0, bg, rgba, &st, &opt) == 0, "refrender");
  free(rgba);
  return st.pairs_needed;
}

static pair_sample sample_of(const splat_scene *s) {
  pair_sample p = {0};
  pair_sample_add(&p, NULL, s->count, 0, s);
  CHECK(!p.failed && p.count == p.capacity, "sample of %u splats: %u of %u taken", s->count, p.count, p.capacity);
  return p;
}

/* Estimate and reference of one object, whole, from cam: equal when the sample is the object. */
static void whole_case(const char *name, const splat_scene *s, const splat_camera *cam, int antialiased) {
  pair_sample p = sample_of(s);
  pair_instance in = {.sample = &p, .resident = s->count, .antialiased = antialiased};
  splat_scene flagged = *s; /* the reference reads the flag from the scene */
  if (antialiased) flagged.flags |= SPLAT_SCENE_ANTIALIASED;
  s = &flagged;
  pair_estimate e = pair_estimate_frame(&in, 1, cam, PAIR_ESTIMATE_BUDGET);
  uint64_t need = reference_pairs(s, cam);
  printf("  %-34s %5u splats %4ux%-4u: estimate %8llu, reference %8llu (%u sampled, %s)\n", name, s->count,
         cam->width, cam->height, (unsigned long long)e.pairs, (unsigned long long)need, e.sampled,
         e.exact ? "exact" : "sampled");
  CHECK(e.exact && e.sampled == s->count, "%s: not exact (%u sampled)", name, e.sampled);
  CHECK(e.pairs == need, "%s: estimate %llu, the reference counts %llu", name, (unsigned long long)e.pairs,
        (unsigned long long)need);
  CHECK(need > 1000, "%s: only %llu pairs: the case tests little", name, (unsigned long long)need);
  pair_sample_free(&p, NULL);
}

static void test_whole(void) {
  splat_scene s = ball(3000, 0.006f, 0.06f);
  const float far[3] = {0.4f, -0.6f, -3.2f}, near[3] = {0.1f, 0.05f, -0.35f};
  splat_camera c640 = camera(far, 50.0f, 640, 480), c1080 = camera(far, 50.0f, 1920, 1080);
  splat_camera inside = camera(near, 70.0f, 640, 480);
  whole_case("object, outside", &s, &c640, 0);
  whole_case("object, outside, 1080p", &s, &c1080, 0);
  whole_case("object, from inside", &s, &inside, 0);
  whole_case("object, anti-aliased", &s, &c640, 1);
  scene_free(&s);
  /* few, large splats: most of a 1080p image each */
  splat_scene big = ball(300, 0.08f, 0.4f);
  splat_camera b1080 = camera(far, 50.0f, 1920, 1080);
  whole_case("large splats, 1080p", &big, &b1080, 0);
  scene_free(&big);
}

/* A streamed object: the sample of its first part alone stands for its resident splats. */
static void test_prefix(void) {
  splat_scene s = ball(3000, 0.006f, 0.06f);
  splat_scene first = s;
  first.count = 1000;
  pair_sample p = {0};
  pair_sample_add(&p, NULL, s.count, 0, &first);
  const float eye[3] = {0.4f, -0.6f, -3.2f};
  splat_camera cam = camera(eye, 50.0f, 640, 480);
  pair_instance in = {.sample = &p, .resident = first.count};
  pair_estimate e = pair_estimate_frame(&in, 1, &cam, PAIR_ESTIMATE_BUDGET);
  uint64_t need = reference_pairs(&first, &cam);
  printf("  streamed, 1000 of 3000 resident:   estimate %llu, reference %llu\n", (unsigned long long)e.pairs,
         (unsigned long long)need);
  CHECK(e.exact && e.pairs == need, "prefix: estimate %llu (exact %d), reference %llu", (unsigned long long)e.pairs,
        e.exact, (unsigned long long)need);
  /* the rest arrives: the whole object */
  splat_scene rest = s;
  rest.count = s.count - first.count;
  rest.positions += 3 * first.count, rest.scales += 3 * first.count, rest.rotations += 4 * first.count;
  rest.opacities += first.count, rest.sh += 3 * first.count;
  pair_sample_add(&p, NULL, s.count, first.count, &rest);
  in.resident = s.count;
  e = pair_estimate_frame(&in, 1, &cam, PAIR_ESTIMATE_BUDGET);
  need = reference_pairs(&s, &cam);
  CHECK(e.exact && e.pairs == need, "whole after the append: estimate %llu, reference %llu",
        (unsigned long long)e.pairs, (unsigned long long)need);
  pair_sample_free(&p, NULL);
  scene_free(&s);
}

/* An instance's model (a turn about y and a shift) against the scene moved by hand. */
static void test_model(void) {
  splat_scene s = ball(2000, 0.01f, 0.08f);
  pair_sample p = sample_of(&s);
  const float model[16] = {0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0.3f, -0.2f, 0.5f, 1}; /* x -> -z, z -> x */
  splat_scene moved = ball(2000, 0.01f, 0.08f);
  const float h = sqrtf(0.5f), turn[4] = {h, 0, h, 0}; /* w, x, y, z: 90 degrees about y */
  for (uint32_t i = 0; i < s.count; i++) {
    const float *a = s.positions + 3 * i;
    float *b = moved.positions + 3 * i;
    for (int r = 0; r < 3; r++) b[r] = model[r] * a[0] + model[4 + r] * a[1] + model[8 + r] * a[2] + model[12 + r];
    const float *q = s.rotations + 4 * i;
    float *o = moved.rotations + 4 * i; /* turn * q */
    o[0] = turn[0] * q[0] - turn[1] * q[1] - turn[2] * q[2] - turn[3] * q[3];
    o[1] = turn[0] * q[1] + turn[1] * q[0] + turn[2] * q[3] - turn[3] * q[2];
    o[2] = turn[0] * q[2] - turn[1] * q[3] + turn[2] * q[0] + turn[3] * q[1];
    o[3] = turn[0] * q[3] + turn[1] * q[2] - turn[2] * q[1] + turn[3] * q[0];
    memcpy(moved.scales + 3 * i, s.scales + 3 * i, 3 * sizeof(float));
    moved.opacities[i] = s.opacities[i];
  }
  const float eye[3] = {1.2f, -0.8f, -2.6f};
  splat_camera cam = camera(eye, 55.0f, 800, 600);
  pair_instance in = {.sample = &p, .model = model, .resident = s.count};
  pair_estimate e = pair_estimate_frame(&in, 1, &cam, PAIR_ESTIMATE_BUDGET);
  uint64_t need = reference_pairs(&moved, &cam);
  double rel = fabs((double)e.pairs - (double)need) / (double)need;
  printf("  model (turned, shifted):           estimate %llu, reference of the moved scene %llu (%.3f%%)\n",
         (unsigned long long)e.pairs, (unsigned long long)need, 100 * rel);
  CHECK(rel < 0.01, "model: estimate %llu, reference %llu", (unsigned long long)e.pairs, (unsigned long long)need);
  pair_sample_free(&p, NULL);
  scene_free(&s);
  scene_free(&moved);
}

/* An object above PAIR_SAMPLE_MAX splats: every stride-th sampled; within 15%, not exact. With a
 * second object without a sample (a LOD cut), still not exact. And the time at the budget. */
static void test_subsample(void) {
  splat_scene s = ball(5 * PAIR_SAMPLE_MAX + 123, 0.004f, 0.03f);
  pair_sample p = sample_of(&s);
  const float eye[3] = {0.4f, -0.6f, -3.2f};
  splat_camera cam = camera(eye, 50.0f, 1280, 720);
  pair_instance in[2] = {{.sample = &p, .resident = s.count}, {.sample = NULL, .resident = 1000}};
  pair_estimate e = pair_estimate_frame(in, 1, &cam, PAIR_ESTIMATE_BUDGET);
  uint64_t need = reference_pairs(&s, &cam);
  double rel = ((double)e.pairs - (double)need) / (double)need;
  printf("  subsample (stride %u of %u):       estimate %llu, reference %llu (%+.2f%%), %u sampled\n", p.stride,
         s.count, (unsigned long long)e.pairs, (unsigned long long)need, 100 * rel, e.sampled);
  CHECK(!e.exact && p.stride == 6 && fabs(rel) < 0.15, "subsample: estimate %llu, reference %llu, exact %d",
        (unsigned long long)e.pairs, (unsigned long long)need, e.exact);
  pair_estimate e2 = pair_estimate_frame(in, 2, &cam, PAIR_ESTIMATE_BUDGET);
  CHECK(!e2.exact && e2.pairs == e.pairs, "an instance without a sample: %llu pairs, exact %d",
        (unsigned long long)e2.pairs, e2.exact);
  /* a moving view's cheaper look */
  pair_estimate em = pair_estimate_frame(in, 1, &cam, PAIR_ESTIMATE_MOVING_BUDGET);
  double t1 = now_seconds();
  for (int i = 0; i < 10; i++) em = pair_estimate_frame(in, 1, &cam, PAIR_ESTIMATE_MOVING_BUDGET);
  double ms_moving = 1e3 * (now_seconds() - t1) / 10;
  rel = ((double)em.pairs - (double)need) / (double)need;
  printf("  moving budget: %u samples in %.2f ms (%+.2f%% of the reference)\n", em.sampled, ms_moving, 100 * rel);
  CHECK(!em.exact && em.sampled <= PAIR_ESTIMATE_MOVING_BUDGET && fabs(rel) < 0.15, "moving budget: %u sampled, %+.2f%%",
        em.sampled, 100 * rel);
  /* the budget: two such objects' samples thinned to it */
  pair_instance two[2] = {{.sample = &p, .resident = s.count}, {.sample = &p, .resident = s.count}};
  pair_estimate e3 = pair_estimate_frame(two, 2, &cam, PAIR_ESTIMATE_BUDGET);
  double t0 = now_seconds();
  for (int i = 0; i < 10; i++) e3 = pair_estimate_frame(two, 2, &cam, PAIR_ESTIMATE_BUDGET);
  double ms = 1e3 * (now_seconds() - t0) / 10;
  rel = ((double)e3.pairs - 2.0 * (double)need) / (2.0 * (double)need);
  printf("  budget: %u of %u samples projected in %.2f ms (%+.2f%% of the reference)\n", e3.sampled, 2 * p.count, ms,
         100 * rel);
  CHECK(e3.sampled <= PAIR_ESTIMATE_BUDGET && fabs(rel) < 0.15, "budget: %u sampled, %+.2f%%", e3.sampled, 100 * rel);
  pair_sample_free(&p, NULL);
  scene_free(&s);
}

int main(void) {
  test_whole();
  test_prefix();
  test_model();
  test_subsample();
  if (failures) fprintf(stderr, "test_pair_estimate: %d checks failed\n", failures);
  else printf("test_pair_estimate: all checks passed\n");
  return failures ? 1 : 0;
}
