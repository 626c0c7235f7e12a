/* The LOD cut on the GPU (src/render/lod_cut.h, shaders/render/lod_cut.comp) against its CPU
 * reference: generated scenes of 1 to 100,000 splats, their trees from splat_lod_build, cameras
 * outside, inside, looking away and with a node straddling the near plane, and thresholds from 0
 * (every visible leaf) to huge (the root or nothing). The GPU's cut, sorted, must equal the CPU's
 * except where a node's size is within 1e-5 relative of tau (counted and printed); the cut's
 * invariants are checked on the CPU. Validation must be silent. */
#include "check.h"
#include "lod_cut.h"
#include "splat_camera.h"
#include "splat_scene.h"
#include "vkh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static vkh_context ctx;
static lod_cut_pipeline pipe;

static uint64_t rng_state;
static float uniform(void) { /* [0, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)(rng_state >> 40) / 16777216.0f;
}

static splat_scene make_scene(uint32_t n, uint64_t seed) {
  rng_state = seed;
  splat_scene s = {.count = n, .sh_degree = 0, .sh_coeffs = 1};
  s.positions = malloc(12 * (size_t)n);
  s.scales = malloc(12 * (size_t)n);
  s.rotations = malloc(16 * (size_t)n);
  s.opacities = malloc(4 * (size_t)n);
  s.sh = malloc(12 * (size_t)n);
  if (!s.positions || !s.scales || !s.rotations || !s.opacities || !s.sh) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (uint32_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) {
      s.positions[3 * i + c] = 2.0f * uniform() - 1.0f;
      s.scales[3 * i + c] = 0.005f * expf(2.3f * uniform());
      s.sh[3 * i + c] = uniform() - 0.5f;
    }
    float q[4], len = 0;
    for (int c = 0; c < 4; c++) q[c] = uniform() - 0.5f, len += q[c] * q[c];
    len = sqrtf(len);
    for (int c = 0; c < 4; c++) s.rotations[4 * i + c] = len > 1e-3f ? q[c] / len : (c == 0);
    s.opacities[i] = 0.05f + 0.9f * uniform();
  }
  return s;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The size the cut compares with tau, or -1 where it compares nothing (dropped, leaf, straddling). */
static float node_size(const lod_cut_tree *t, const struct sp_lod_cut_push *pc, uint32_t node) {
  const float *s = t->spheres + 4 * (size_t)node, *v = pc->view.m;
  float z = v[2] * s[0] + v[6] * s[1] + v[10] * s[2] + v[14];
  if (node < t->leaf_count || z <= pc->params.v[0]) return -1.0f;
  return pc->params.v[2] * s[3] / z;
}

/* Whether any node of the tree, alone, would be dropped (then coverage is not checked). */
static bool any_dropped(const lod_cut_tree *t, const struct sp_lod_cut_push *pc) {
  const struct sp_lod_cut_push q = *pc;
  for (uint32_t i = 0; i < t->node_count; i++) { /* the shader's tests, node by node */
    const float *s = t->spheres + 4 * (size_t)i, *v = q.view.m;
    float r = t->radii[i];
    float x = v[0] * s[0] + v[4] * s[1] + v[8] * s[2] + v[12];
    float y = v[1] * s[0] + v[5] * s[1] + v[9] * s[2] + v[13];
    float z = v[2] * s[0] + v[6] * s[1] + v[10] * s[2] + v[14];
    if (z + r <= q.params.v[0]) return true;
    float rx = r * q.frustum.v[2], ry = r * q.frustum.v[3], px = q.frustum.v[0] * z, py = q.frustum.v[1] * z;
    if (x - px > rx || -x - px > rx || y - py > ry || -y - py > ry) return true;
  }
  return false;
}

/* Invariants: no node and an ancestor both in the cut; with nothing dropped, every leaf has
 * exactly one ancestor-or-self in the cut. */
static void check_invariants(const splat_lod *lod, const uint32_t *cut, uint32_t count, bool covering,
                             const char *name) {
  uint8_t *in = calloc(lod->node_count, 1);
  for (uint32_t i = 0; i < count; i++) in[cut[i]] = 1;
  uint32_t nested = 0, uncovered = 0, twice = 0;
  for (uint32_t i = 0; i < count; i++)
    for (uint32_t p = lod->parent[cut[i]]; p != UINT32_MAX; p = lod->parent[p]) nested += in[p];
  if (covering)
    for (uint32_t leaf = 0; leaf < lod->leaf_count; leaf++) {
      uint32_t k = 0;
      for (uint32_t p = leaf; p != UINT32_MAX; p = lod->parent[p]) k += in[p];
      uncovered += k == 0, twice += k > 1;
    }
  CHECK(nested == 0, "%s: %u cut nodes with an ancestor in the cut", name, nested);
  CHECK(uncovered == 0 && twice == 0, "%s: %u leaves not covered, %u covered twice", name, uncovered, twice);
  free(in);
}

static uint32_t borderline_total, mismatch_total;

static void run_case(const char *scene_name, const splat_lod *lod, const lod_cut_tree *t, lod_cut_gpu *g,
                     const char *cam_name, const splat_camera *cam, float tau) {
  char name[160];
  snprintf(name, sizeof name, "%s, %s, tau %g", scene_name, cam_name, tau);
  struct sp_lod_cut_push pc = lod_cut_push_for(cam, SPLAT_NEAR_Z, tau);
  pc.leaf_count = t->leaf_count;
  uint32_t *ref = malloc(4 * (size_t)t->leaf_count), *gpu = malloc(4 * (size_t)t->leaf_count);
  uint32_t n_ref = lod_cut_reference(t, &pc, ref);
  qsort(ref, n_ref, 4, cmp_u32);

  VkCommandBuffer cmd = vkh_begin(&ctx);
  lod_cut_cmd_record(&ctx.vk, &pipe, g, cmd, pc, 0, 0.0f, 0);
  ssvk_memory_barrier(&ctx.vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  vkh_submit_wait(&ctx, cmd);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  uint32_t head[2];
  vkh_buffer_read(&ctx, &g->state, 0, head, sizeof head);
  uint32_t n_gpu = head[LC_STATE_CUT_COUNT];
  CHECK(head[LC_STATE_OVERFLOW] == 0, "%s: overflow flags %u", name, head[LC_STATE_OVERFLOW]);
  CHECK(n_gpu <= t->leaf_count, "%s: GPU cut of %u nodes", name, n_gpu);
  if (n_gpu > t->leaf_count) n_gpu = t->leaf_count;
  vkh_buffer_read(&ctx, &g->cut, 0, gpu, 4 * (VkDeviceSize)n_gpu);
  qsort(gpu, n_gpu, 4, cmp_u32);

  /* nodes whose size is within 1e-5 relative of tau may go either way */
  uint8_t *border = calloc(t->node_count, 1);
  uint32_t borderline = 0;
  for (uint32_t i = t->leaf_count; i < t->node_count; i++) {
    float s = node_size(t, &pc, i);
    if (s >= 0 && fabs((double)s - tau) <= 1e-5 * fmax(tau, 1e-30)) border[i] = 1, borderline++;
  }
  /* the symmetric difference, each node explained by a borderline ancestor-or-self (or parent) */
  uint32_t unexplained = 0, differ = 0;
  for (uint32_t a = 0, b = 0; a < n_ref || b < n_gpu;) {
    uint32_t node;
    if (b >= n_gpu || (a < n_ref && ref[a] < gpu[b]))
      node = ref[a++];
    else if (a >= n_ref || gpu[b] < ref[a])
      node = gpu[b++];
    else {
      a++, b++;
      continue;
    }
    differ++;
    bool ok = false;
    for (uint32_t p = node; p != UINT32_MAX && !ok; p = lod->parent[p]) ok = border[p];
    unexplained += !ok;
  }
  CHECK(unexplained == 0, "%s: %u nodes differ between the GPU's cut (%u) and the CPU's (%u) without a size near tau",
        name, unexplained, n_gpu, n_ref);
  borderline_total += borderline;
  mismatch_total += differ;

  bool dropped = any_dropped(t, &pc);
  check_invariants(lod, gpu, n_gpu, !dropped, name);
  check_invariants(lod, ref, n_ref, !dropped, name);
  uint32_t interior_kept = 0;
  for (uint32_t i = 0; i < n_ref; i++) interior_kept += ref[i] >= t->leaf_count;
  if (tau == 0.0f) CHECK(interior_kept == 0, "%s: tau 0 keeps %u interior nodes", name, interior_kept);
  if (tau == 0.0f && !dropped) CHECK(n_ref == t->leaf_count, "%s: tau 0 keeps %u of %u leaves", name, n_ref, t->leaf_count);
  printf("  %-40s cut %7u (GPU %7u, %u interior)%s%s  near tau %u, differ %u  %.2f ms\n", name, n_ref, n_gpu,
         interior_kept, dropped ? "" : ", nothing culled", n_ref == 0 ? ", empty" : "", borderline, differ,
         (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
  free(border);
  free(ref);
  free(gpu);
}

/* Frontiers too small for the tree (never so from lod_cut_tree_pack): the overflow flag is set and
 * nothing is written out of bounds (validation and the count say so). */
static void overflow_case(const char *scene_name, const lod_cut_tree *t, const splat_camera *cam) {
  lod_cut_tree small = *t;
  small.max_width = t->max_width / 2;
  lod_cut_gpu g;
  VK_CHECK(lod_cut_gpu_create(&ctx.vk, &small, 0, 0, ctx.queue, ctx.pool, &g));
  VkCommandBuffer cmd = vkh_begin(&ctx);
  lod_cut_cmd_record(&ctx.vk, &pipe, &g, cmd, lod_cut_push_for(cam, SPLAT_NEAR_Z, 0.0f), 0, 0.0f, 0);
  ssvk_memory_barrier(&ctx.vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  vkh_submit_wait(&ctx, cmd);
  uint32_t head[2];
  vkh_buffer_read(&ctx, &g.state, 0, head, sizeof head);
  CHECK(head[LC_STATE_OVERFLOW] & 1u, "%s: frontiers of %u (of %u) did not overflow", scene_name, small.max_width,
        t->max_width);
  CHECK(head[LC_STATE_CUT_COUNT] < t->leaf_count, "%s: an overflowed cut has %u nodes", scene_name,
        head[LC_STATE_CUT_COUNT]);
  printf("  frontiers of %u ids (of %u): overflow flagged, cut %u\n", small.max_width, t->max_width,
         head[LC_STATE_CUT_COUNT]);
  lod_cut_gpu_destroy(&ctx.vk, &g);
}

static void look(splat_camera *cam, float ex, float ey, float ez, float tx, float ty, float tz) {
  const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz}, up[3] = {0, -1, 0};
  if (splat_camera_look_at(cam, eye, target, up, 60.0f, 640, 480) != 0) {
    fprintf(stderr, "bad camera\n");
    exit(1);
  }
}

static void run_scene(uint32_t n, uint64_t seed) {
  char name[64], err[256];
  snprintf(name, sizeof name, "%u splats (seed %llu)", n, (unsigned long long)seed);
  printf("%s\n", name);
  splat_scene s = make_scene(n, seed);
  splat_lod lod;
  splat_lod_options o = {.threads = 0};
  if (splat_lod_build(&s, &o, &lod, err, sizeof err) != 0) {
    CHECK(0, "%s: %s", name, err);
    splat_scene_free(&s);
    return;
  }
  lod_cut_tree t;
  if (lod_cut_tree_pack(&s, &lod, &t, err, sizeof err) != 0) {
    CHECK(0, "%s: %s", name, err);
    splat_lod_free(&lod);
    splat_scene_free(&s);
    return;
  }
  printf("  tree: %u nodes, %u levels, widest level %u\n", t.node_count, t.levels, t.max_width);
  lod_cut_gpu g;
  VK_CHECK(lod_cut_gpu_create(&ctx.vk, &t, 0, 0, ctx.queue, ctx.pool, &g));

  struct {
    const char *name;
    splat_camera cam;
  } cams[5];
  look(&cams[0].cam, 0.3f, -0.4f, -4.0f, 0, 0, 0), cams[0].name = "outside";
  look(&cams[1].cam, 0.1f, 0.2f, 0.05f, 1.0f, 0.3f, 0.2f), cams[1].name = "inside";
  look(&cams[2].cam, 0, 0, -4.0f, 0, 0, -8.0f), cams[2].name = "looking away";
  look(&cams[3].cam, 2.5f, 0.1f, 0.3f, 0, 0, 0), cams[3].name = "close, side";
  /* the interior node below the root nearest the scene's centre (the root where it is alone),
   * straddling the near plane: its centre at z = near / 2 */
  uint32_t mid = t.leaf_count;
  float best = INFINITY;
  for (uint32_t i = t.leaf_count + 1; i < t.node_count; i++) {
    const float *p = t.spheres + 4 * (size_t)i;
    float d = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    if (d < best) best = d, mid = i;
  }
  const float *c = t.spheres + 4 * (size_t)mid;
  printf("  straddling node %u: centre (%.3f, %.3f, %.3f), radius %.3f\n", mid, (double)c[0], (double)c[1], (double)c[2],
         (double)t.radii[mid]);
  look(&cams[4].cam, c[0], c[1], c[2] - 0.5f * SPLAT_NEAR_Z, c[0], c[1], c[2] + 1.0f), cams[4].name = "straddling";
  const float taus[] = {0.0f, 0.5f, 2.0f, 8.0f, 20.0f, 40.0f, 100.0f, 1e30f};
  for (size_t k = 0; k < sizeof cams / sizeof *cams; k++)
    for (size_t i = 0; i < sizeof taus / sizeof *taus; i++) run_case(name, &lod, &t, &g, cams[k].name, &cams[k].cam, taus[i]);
  /* at most 3 workgroups a level: the shader's loop over a frontier larger than its dispatch */
  uint32_t max_groups = pipe.max_groups;
  pipe.max_groups = 3;
  run_case(name, &lod, &t, &g, "outside, 3 workgroups", &cams[0].cam, 20.0f);
  pipe.max_groups = max_groups;
  /* tau exactly the size of the root's first interior child, from outside: a borderline node */
  uint32_t first = t.children[0] >> LC_CHILD_SHIFT;
  if (first >= t.leaf_count) {
    struct sp_lod_cut_push q = lod_cut_push_for(&cams[0].cam, SPLAT_NEAR_Z, 0.0f);
    run_case(name, &lod, &t, &g, "outside, tau on a node", &cams[0].cam, node_size(&t, &q, first));
  }

  /* the huge threshold from outside: the root alone */
  struct sp_lod_cut_push pc = lod_cut_push_for(&cams[0].cam, SPLAT_NEAR_Z, 1e30f);
  uint32_t root_cut[1] = {UINT32_MAX};
  uint32_t *cut = malloc(4 * (size_t)t.leaf_count);
  uint32_t k = lod_cut_reference(&t, &pc, cut);
  root_cut[0] = k ? cut[0] : UINT32_MAX;
  CHECK(k == 1 && root_cut[0] == t.leaf_count, "%s: a huge tau from outside cuts %u nodes, not the root", name, k);
  /* the straddling node is opened, never kept, at any tau */
  pc = lod_cut_push_for(&cams[4].cam, SPLAT_NEAR_Z, 1e30f);
  k = lod_cut_reference(&t, &pc, cut);
  for (uint32_t i = 0; i < k; i++) CHECK(cut[i] != mid || mid < t.leaf_count, "%s: the straddling node %u kept", name, mid);
  free(cut);

  lod_cut_gpu_destroy(&ctx.vk, &g);
  if (t.max_width > 1) overflow_case(name, &t, &cams[0].cam);
  lod_cut_tree_free(&t);
  splat_lod_free(&lod);
  splat_scene_free(&s);
}

int main(void) {
  check_print_limit = 40;
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  printf("subgroup size %u\n", ctx.subgroup_size);
  VK_CHECK(lod_cut_pipeline_create(&ctx.vk, &pipe));
  const uint32_t sizes[] = {1, 9, 1000, 100000};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) run_scene(sizes[i], 20261126u + i);
  printf("nodes near tau: %u; nodes differing (all near tau): %u\n", borderline_total, mismatch_total);
  lod_cut_pipeline_destroy(&ctx.vk, &pipe);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  return check_report("test_lod_cut");
}
