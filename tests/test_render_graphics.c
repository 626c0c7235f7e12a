/* test_render_graphics.c: the graphics raster against the CPU specification (test_render's
 * projection, image and sortpaths tests; the table is in test_render.c). */
#include "render_common.h"

#include "image.h"
#include "refrender.h"
#include "renderer_debug.h"
#include "splat_project.h"
#include "splat_shared.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- projection ----------------------------------------------------------------------------- */

typedef struct gpu_record {
  float mean[2], conic[3], opacity, color[3];
  uint32_t radius;
} gpu_record;

static gpu_record decode_record(const uint32_t w[8]) {
  gpu_record g;
  memcpy(g.mean, w, 8);
  memcpy(g.conic, w + 2, 12);
  memcpy(&g.opacity, w + 5, 4);
  g.color[0] = half_to_float((uint16_t)(w[6] & 0xFFFFu));
  g.color[1] = half_to_float((uint16_t)(w[6] >> 16));
  g.color[2] = half_to_float((uint16_t)(w[7] & 0xFFFFu));
  g.radius = w[7] >> 16;
  return g;
}

static int near(double x, double threshold, double tol) { return fabs(x - threshold) <= tol; }

/* 1 when splat i lies within a tiny margin of one of the projection's cull boundaries, so
 * that 32-bit float rounding may put it either side; recomputed in double from the inputs. */
static int on_cull_boundary(const splat_scene *s, uint32_t i, const splat_camera *cam) {
  const float *p = s->positions + 3 * i, *v = cam->view;
  double t[3];
  for (int r = 0; r < 3; r++)
    t[r] = (double)v[r] * p[0] + (double)v[4 + r] * p[1] + (double)v[8 + r] * p[2] + (double)v[12 + r];
  const double rel = 1e-5;
  if (near(t[2], 0.2, rel)) return 1;
  if (t[2] <= 0.2) return 0;
  double limx = 1.3 * cam->width / (2.0 * cam->fx), limy = 1.3 * cam->height / (2.0 * cam->fy);
  double xz = t[0] / t[2], yz = t[1] / t[2];
  if (near(fabs(xz), limx, rel * limx) || near(fabs(yz), limy, rel * limy)) return 1;
  if (fabs(xz) > limx || fabs(yz) > limy) return 0;
  float c3f[6];
  splat_cov3d(s->scales + 3 * i, s->rotations + 4 * i, c3f);
  double S[3][3] = {{c3f[0], c3f[1], c3f[2]}, {c3f[1], c3f[3], c3f[4]}, {c3f[2], c3f[4], c3f[5]}};
  double T[2][3];
  for (int c = 0; c < 3; c++) {
    T[0][c] = cam->fx / t[2] * v[c * 4 + 0] - cam->fx * xz / t[2] * v[c * 4 + 2];
    T[1][c] = cam->fy / t[2] * v[c * 4 + 1] - cam->fy * yz / t[2] * v[c * 4 + 2];
  }
  double cv[2][2];
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      double acc = 0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) acc += T[a][k] * S[k][l] * T[b][l];
      cv[a][b] = acc;
    }
  double a = cv[0][0] + 0.3, b = cv[0][1], c = cv[1][1] + 0.3, det = a * c - b * b;
  if (det <= 1e-4 * a * c) return 1;
  double mid = 0.5 * (a + c), l1 = mid + sqrt(fmax(0.1, mid * mid - det)), r3 = 3.0 * sqrt(l1);
  double mx = cam->fx * xz + cam->cx, my = cam->fy * yz + cam->cy;
  /* the radius is ceil(r3): near an integer it may come out one either side */
  for (double r = ceil(r3 * (1 - rel)); r <= ceil(r3 * (1 + rel)); r += 1.0) {
    double tol = rel * (fabs(mx) + fabs(my) + r + 1.0);
    if (near(mx + r, 0, tol) || near(mx - r, cam->width, tol) || near(my + r, 0, tol) || near(my - r, cam->height, tol))
      return 1;
  }
  return 0;
}

typedef struct proj_stats {
  uint32_t visible_cpu, visible_gpu, boundary_mismatches, key_diffs, radius_off_by_one;
  double max_mean_err, max_conic_rel, max_color_err, max_opacity_err;
} proj_stats;

static int antialiased_cases; /* projection cases whose scenes have SPLAT_SCENE_ANTIALIASED */

/* One projection case: its scene and camera, what the GPU wrote and what splat_project gives. */
typedef struct proj_case {
  uint32_t index, n, degree, w, h;
  int sh_eval, skew;
  splat_camera cam;
  splat_scene s;
  uint8_t *img;
  uint32_t nvis;               /* the GPU's visible count, at most n */
  uint32_t *rec, *keys, *vals; /* projected records (8 words a splat), sorted keys and payloads */
  splat_projected *cpu;
  uint8_t *vis_cpu, *vis_gpu; /* culled by splat_project; drawn by the GPU (sorted, radius > 0) */
  uint8_t *in_sort;           /* handed to the raster by the depth-sort stage (culled by centre) */
  float *zgpu; /* the depth each sorted splat's GPU key encodes */
  proj_stats st;
} proj_case;

/* A random camera and scene, rendered with 32-bit keys; reads back the draw arguments, records,
 * keys and payloads, and projects every splat on the CPU. */
static void projection_setup(proj_case *pc) {
  float eye[3] = {uniform(-3, 3), uniform(-3, 3), uniform(-3, 3)};
  pc->w = 64 + (uint32_t)(next_u64() % 300), pc->h = 48 + (uint32_t)(next_u64() % 250);
  uint32_t n = pc->n;
  random_camera(&pc->cam, eye, pc->w, pc->h, pc->skew);
  gen_projection_scene(&pc->s, n, pc->degree, eye, 4.0f);
  pc->s.flags = antialiased_cases ? SPLAT_SCENE_ANTIALIASED : 0;
  set_scene_or_die(&pc->s);
  /* from here on the scene is what the GPU decodes from its storage: the CPU mirror's input */
  splat_scene_as_stored(&pc->s, (splat_sh_precision)test_sh_precision);
  pc->img = malloc((size_t)pc->w * pc->h * 4);
  render_gpu(&pc->cam, SPLATSORT_ALGORITHM_QUATERNARY, 32, pc->sh_eval, NULL, pc->img);

  splat_renderer_debug_buffers dbg;
  VK_CHECK(splat_renderer_debug_get_buffers(renderer, &dbg));
  uint32_t draw[SP_DRAW_WORDS];
  read_buffer(dbg.draw, 0, sizeof draw, draw);
  pc->nvis = draw[SP_DRAW_INSTANCES];
  CHECK(pc->nvis <= n, "case %u: %u visible of %u splats", pc->index, pc->nvis, n);
  if (pc->nvis > n) pc->nvis = n;
  pc->rec = malloc((size_t)n * 32);
  read_buffer(dbg.projected, 0, (VkDeviceSize)n * 32, pc->rec);
  pc->keys = malloc(sizeof(uint32_t) * (pc->nvis + 1)), pc->vals = malloc(sizeof(uint32_t) * (pc->nvis + 1));
  read_buffer(dbg.keys.buffer, dbg.keys.offset, 4ull * pc->nvis, pc->keys);
  read_buffer(dbg.values.buffer, dbg.values.offset, 4ull * pc->nvis, pc->vals);

  pc->cpu = calloc(n, sizeof *pc->cpu);
  pc->vis_cpu = calloc(n, 1), pc->vis_gpu = calloc(n, 1), pc->in_sort = calloc(n, 1);
  pc->zgpu = calloc(n, sizeof *pc->zgpu);
  /* sh_eval < 0 asks record_frame for the scene's degree; splat_project's < 0 means 0 */
  int cpu_sh = pc->sh_eval < 0 ? (int)pc->degree : pc->sh_eval;
  for (uint32_t i = 0; i < n; i++) pc->vis_cpu[i] = (uint8_t)splat_project(&pc->s, i, &pc->cam, cpu_sh, &pc->cpu[i]);
  CHECK(draw[0] == 4 && draw[2] == 0 && draw[3] == 0, "draw arguments %u %u %u %u", draw[0], draw[1], draw[2], draw[3]);
}

static void projection_free(proj_case *pc) {
  free(pc->zgpu);
  free(pc->keys);
  free(pc->vals);
  free(pc->rec);
  free(pc->cpu);
  free(pc->vis_cpu);
  free(pc->vis_gpu);
  free(pc->in_sort);
  free(pc->img);
  splat_scene_free(&pc->s);
}

/* The sorted payloads name each splat at most once, keys ascending with ties in index order;
 * marks the GPU's visible set. */
static void check_sorted_payloads(proj_case *pc) {
  int order_ok = 1, dup = 0;
  const uint32_t *keys = pc->keys, *vals = pc->vals;
  for (uint32_t k = 0; k < pc->nvis && k < pc->n; k++) {
    if (vals[k] >= pc->n || pc->in_sort[vals[k]]) {
      dup++;
      continue;
    }
    pc->in_sort[vals[k]] = 1;
    /* drawn: the projection kept it (a culled splat's record is zeros: radius 0) */
    pc->vis_gpu[vals[k]] = decode_record(pc->rec + 8 * vals[k]).radius != 0;
    if (k > 0 && (keys[k] < keys[k - 1] || (keys[k] == keys[k - 1] && vals[k] < vals[k - 1]))) order_ok = 0;
  }
  CHECK(pc->nvis <= pc->n && dup == 0, "case %u: %u visible of %u, %d repeated or out-of-range payloads", pc->index,
        pc->nvis, pc->n, dup);
  CHECK(order_ok, "case %u: sorted keys are not ascending with ties in index order", pc->index);
}

/* Splat i's GPU record against splat_project's. */
static void check_record(proj_case *pc, uint32_t i) {
  const splat_projected *c = &pc->cpu[i];
  gpu_record g = decode_record(pc->rec + 8 * i);
  proj_stats *st = &pc->st;
  uint32_t ci = pc->index;
  /* mean: a few float roundings of fx x/z + cx, whose terms are up to the image size */
  for (int k = 0; k < 2; k++) {
    double e = fabs((double)g.mean[k] - c->mean2d[k]);
    st->max_mean_err = fmax(st->max_mean_err, e);
    CHECK(e <= 5e-7 * (fabs(c->mean2d[k]) + pc->w + pc->h), "case %u splat %u: mean[%d] GPU %.9g CPU %.9g", ci, i, k,
          (double)g.mean[k], (double)c->mean2d[k]);
  }
  /* conic: relative to its largest entry, scaled by the 2D covariance's condition (the
   * inverse of an ill-conditioned matrix amplifies the product's rounding) */
  double cmax = fmax(fabs(c->conic[0]), fmax(fabs(c->conic[1]), fabs(c->conic[2])));
  double det = (double)c->cov2d[0] * c->cov2d[2] - (double)c->cov2d[1] * c->cov2d[1];
  double cond = ((double)c->cov2d[0] * c->cov2d[2] + (double)c->cov2d[1] * c->cov2d[1]) / det;
  for (int k = 0; k < 3; k++) {
    double e = fabs((double)g.conic[k] - c->conic[k]) / cmax;
    st->max_conic_rel = fmax(st->max_conic_rel, e / cond);
    CHECK(e <= 2e-5 * cond, "case %u splat %u: conic[%d] GPU %.9g CPU %.9g (cond %.3g)", ci, i, k,
          (double)g.conic[k], (double)c->conic[k], cond);
  }
  /* radius: exact, but ceil() of a value within float rounding of an integer may differ */
  uint32_t rc = c->radius > SP_MAX_RADIUS ? SP_MAX_RADIUS : (uint32_t)c->radius;
  if (g.radius != rc) {
    double mid = 0.5 * ((double)c->cov2d[0] + c->cov2d[2]);
    double r3 = 3.0 * sqrt(mid + sqrt(fmax(0.1, mid * mid - det)));
    int ok = abs((int)g.radius - (int)rc) == 1 && fabs(r3 - round(r3)) <= 1e-5 * r3;
    st->radius_off_by_one += (uint32_t)ok;
    CHECK(ok, "case %u splat %u: radius GPU %u CPU %u", ci, i, g.radius, rc);
  }
  /* colour is stored as half: within half a half-ulp plus float noise */
  for (int k = 0; k < 3; k++) {
    double e = fabs((double)g.color[k] - c->color[k]);
    st->max_color_err = fmax(st->max_color_err, e);
    CHECK(e <= fabs(c->color[k]) * 0x1.0p-11 * 1.01 + 1e-5, "case %u splat %u: colour[%d] GPU %.6g CPU %.6g", ci, i,
          k, (double)g.color[k], (double)c->color[k]);
  }
  if (!(pc->s.flags & SPLAT_SCENE_ANTIALIASED)) {
    CHECK(g.opacity == c->opacity, "case %u splat %u: opacity GPU %.9g CPU %.9g", ci, i, (double)g.opacity,
          (double)c->opacity);
    return;
  }
  /* times sqrt(det(C) / det(C + 0.3 I)): det(C) cancels for thin splats, and the square root
   * amplifies what is left of it near 0, so the bound comes from the CPU's own C */
  double a0 = c->cov2d[0] - 0.3, b = c->cov2d[1], c0 = c->cov2d[2] - 0.3;
  double x = fmax(0.0, (a0 * c0 - b * b) / det), dx = 1e-5 * (fabs(a0 * c0) + b * b) / det + 1e-6 * x;
  double ds = x > 4.0 * dx ? dx / sqrt(x) : sqrt(dx), e = fabs((double)g.opacity - c->opacity);
  st->max_opacity_err = fmax(st->max_opacity_err, e);
  CHECK(e <= pc->s.opacities[i] * ds + 1e-7, "case %u splat %u: anti-aliased opacity GPU %.9g CPU %.9g", ci, i,
        (double)g.opacity, (double)c->opacity);
}

/* Visibility splat by splat (a mismatch is allowed only on a cull boundary) and the records of
 * the splats both see. */
static void check_records(proj_case *pc) {
  uint32_t unexplained = 0;
  for (uint32_t i = 0; i < pc->n; i++) {
    pc->st.visible_cpu += pc->vis_cpu[i];
    pc->st.visible_gpu += pc->vis_gpu[i];
    if (pc->vis_cpu[i] != pc->vis_gpu[i]) {
      if (on_cull_boundary(&pc->s, i, &pc->cam)) {
        pc->st.boundary_mismatches++;
      } else {
        unexplained++;
        if (unexplained <= 5) fprintf(stderr, "case %u: splat %u: CPU %s, GPU %s\n", pc->index, i,
                                      pc->vis_cpu[i] ? "visible" : "culled", pc->vis_gpu[i] ? "visible" : "culled");
      }
      continue;
    }
    if (pc->vis_cpu[i]) check_record(pc, i);
  }
  CHECK(unexplained == 0, "case %u: %u visibility mismatches away from any cull boundary", pc->index, unexplained);
}

/* Keys: exactly splat_depth_key(depth): the depth-sort stage computes clip w (= camera z) in
 * project.c's order with `precise` (no fused multiply-add), and Vulkan rounds fmul and fadd
 * correctly. Records the depth each sorted splat's key encodes, for the quantised keys. */
static void check_depth_keys(proj_case *pc) {
  for (uint32_t k = 0; k < pc->nvis && k < pc->n; k++) {
    uint32_t i = pc->vals[k], bits = ~pc->keys[k];
    if (i >= pc->n) continue;
    memcpy(&pc->zgpu[i], &bits, 4);
    if (!pc->vis_cpu[i]) continue;
    uint32_t want = splat_depth_key(pc->cpu[i].depth);
    pc->st.key_diffs += pc->keys[k] != want;
    CHECK(pc->keys[k] == want, "case %u splat %u: key %08x (z %.9g), splat_depth_key(%.9g) = %08x", pc->index, i,
          pc->keys[k], (double)pc->zgpu[i], (double)pc->cpu[i].depth, want);
  }
}

/* Quantised keys: key = min(round((1 - (z - zmin)/(zmax - zmin)) (2^b - 1)), 2^b - 1) over the
 * visible depth range, sorted ascending with ties in index order. */
static void check_quantised_keys(proj_case *pc, uint32_t bits) {
  render_gpu(&pc->cam, SPLATSORT_ALGORITHM_QUATERNARY, bits, pc->sh_eval, NULL, pc->img);
  splat_renderer_debug_buffers dbg;
  VK_CHECK(splat_renderer_debug_get_buffers(renderer, &dbg));
  uint32_t draw[SP_DRAW_WORDS];
  read_buffer(dbg.draw, 0, sizeof draw, draw);
  uint32_t nq = draw[SP_DRAW_INSTANCES], *keys = pc->keys, *vals = pc->vals;
  CHECK(nq == pc->nvis, "case %u: %u-bit keys: %u visible, 32-bit: %u", pc->index, bits, nq, pc->nvis);
  if (nq > pc->nvis) nq = pc->nvis;
  read_buffer(dbg.keys.buffer, dbg.keys.offset, 4ull * nq, keys);
  read_buffer(dbg.values.buffer, dbg.values.offset, 4ull * nq, vals);
  /* the range is that of the sorted splats' depths (the stage culls by centre only) */
  float zmin = INFINITY, zmax = 0, gzmin, gzmax;
  float range[2];
  read_buffer(dbg.depth_range.buffer, dbg.depth_range.offset, sizeof range, range);
  gzmin = range[0], gzmax = range[1];
  for (uint32_t i = 0; i < pc->n; i++)
    if (pc->in_sort[i]) zmin = fminf(zmin, pc->zgpu[i]), zmax = fmaxf(zmax, pc->zgpu[i]);
  CHECK(gzmin == zmin && gzmax == zmax, "case %u: depth range [%.9g, %.9g], the visible depths' [%.9g, %.9g]",
        pc->index, (double)gzmin, (double)gzmax, (double)zmin, (double)zmax);
  uint32_t top = (1u << bits) - 1u, off = 0, bad = 0, order_bad = 0, max_off = 0;
  for (uint32_t k = 0; k < nq; k++) {
    uint32_t i = vals[k];
    if (k > 0 && (keys[k] < keys[k - 1] || (keys[k] == keys[k - 1] && vals[k] <= vals[k - 1]))) order_bad++;
    if (i >= pc->n || !pc->in_sort[i]) continue;
    double u = gzmax > gzmin ? ((double)pc->zgpu[i] - gzmin) / ((double)gzmax - gzmin) : 0.0;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    double want = floor((1.0 - u) * top + 0.5);
    if (want > top) want = top;
    double d = fabs((double)keys[k] - want);
    off += d != 0;
    max_off = d > max_off ? (uint32_t)d : max_off;
    /* In float, u = (z - zmin)/(zmax - zmin) is off by up to 2^-23, 1 - u and the product
     * by half a step each: up to 3 steps of a 24-bit key, 3/256 of a 16-bit one. */
    bad += d > (bits == 24 ? 3.0 : 1.0) || keys[k] > top;
  }
  CHECK(order_bad == 0, "case %u: %u-bit keys: %u places out of order", pc->index, bits, order_bad);
  CHECK(bad == 0, "case %u: %u-bit keys: %u keys differ from the quantisation formula", pc->index, bits, bad);
  printf("    %u-bit keys: %u visible, %u keys off the double-precision formula (at most by %u)\n", bits, nq, off,
         max_off);
}

/* One random camera and scene: GPU records and sorted keys against splat_project. */
void render_projection_case(uint32_t case_index, uint32_t n, uint32_t degree, int sh_eval, int skew) {
  proj_case pc = {.index = case_index, .n = n, .degree = degree, .sh_eval = sh_eval, .skew = skew};
  projection_setup(&pc);
  check_sorted_payloads(&pc);
  check_records(&pc);
  check_depth_keys(&pc);
  const proj_stats *st = &pc.st;
  CHECK(st->boundary_mismatches <= 2 + n / 2000, "case %u: %u boundary mismatches (allowance %u)", case_index,
        st->boundary_mismatches, 2 + n / 2000);
  CHECK(st->visible_cpu > n / 50, "case %u: only %u of %u visible: the case tests too little", case_index,
        st->visible_cpu, n);
  printf("  case %u: SH storage %u, %ux%u%s%s, %u splats SH %u (eval %d): visible CPU %u GPU %u, boundary mismatches %u, "
         "keys != splat_depth_key %u, radius +-1 %u; max |mean| err %.2e px, "
         "conic err/cond %.2e, colour err %.2e",
         case_index, test_sh_precision, pc.w, pc.h, skew ? " skewed" : "", antialiased_cases ? " anti-aliased" : "", n, degree, sh_eval,
         st->visible_cpu, st->visible_gpu, st->boundary_mismatches, st->key_diffs, st->radius_off_by_one,
         st->max_mean_err, st->max_conic_rel, st->max_color_err);
  if (antialiased_cases) printf(", opacity err %.2e", st->max_opacity_err);
  printf("\n");
  for (uint32_t bits = 24; bits >= 16; bits -= 8) check_quantised_keys(&pc, bits);
  projection_free(&pc);
}

void render_test_projection(const render_args *args) {
  (void)args;
  /* SH degree d evaluated at d, below it, and through "the scene's" (-1) */
  static const struct { uint32_t degree; int eval; int skew; } cases[] = {
      {0, -1, 0}, {1, 1, 1}, {2, 1, 0}, {3, -1, 0}, {3, 3, 1}, {3, 0, 0}, {2, 2, 1}, {1, 0, 0},
  };
  for (uint32_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    render_projection_case(c, 3000 + (uint32_t)(next_u64() % 2000), cases[c].degree, cases[c].eval, cases[c].skew);
  /* anti-aliased scenes: the opacities scaled by the compensation (project.h) */
  antialiased_cases = 1;
  render_projection_case(8, 3000 + (uint32_t)(next_u64() % 2000), 1, -1, 0);
  render_projection_case(9, 3000 + (uint32_t)(next_u64() % 2000), 3, 3, 1);
  antialiased_cases = 0;
}

/* ---- images --------------------------------------------------------------------------------- */

static double scene_psnr_min = 1e9;

static void image_scene(const char *name, const splat_scene *s, splat_up_axis up, uint32_t w, uint32_t h) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, up, w, h, cams, 4);
  CHECK(nc == 4, "%s: could not make cameras", name);
  set_scene_or_die(s);
  for (uint32_t k = 0; k < nc; k++) {
    char tag[256];
    snprintf(tag, sizeof tag, "%s_cam%u_sh%u", name, k, s->sh_degree);
    double p = compare_with_reference(tag, s, &cams[k], -1, 40.0);
    scene_psnr_min = fmin(scene_psnr_min, p);
    if (s->sh_degree > 0 && k == 0) { /* the same view with SH degree 0 only */
      snprintf(tag, sizeof tag, "%s_cam%u_sh0of%u", name, k, s->sh_degree);
      compare_with_reference(tag, s, &cams[k], 0, 40.0);
    }
  }
}

static void test_image_generated(void) {
  for (uint32_t degree = 0; degree <= 3; degree += 3) {
    splat_scene s;
    gen_object_scene(&s, degree ? 3000 : 800, degree);
    char name[64];
    snprintf(name, sizeof name, "generated%u", degree);
    image_scene(name, &s, SPLAT_UP_NEG_Y, 256, 192);
    splat_scene_free(&s);
  }
}

/* An anti-aliased scene (SPLAT_SCENE_ANTIALIASED, each object's flag from its upload) against
 * the reference, then the frame's override both ways, each against the reference of the scene
 * with or without the flag; and the flag must change the image. */
static void test_image_antialiased(void) {
  splat_scene s;
  gen_object_scene(&s, 800, 0);
  s.flags = SPLAT_SCENE_ANTIALIASED;
  image_scene("antialiased0", &s, SPLAT_UP_NEG_Y, 256, 192);
  splat_camera cam; /* smaller splats on screen, where the compensation matters more */
  CHECK(scene_cameras(&s, SPLAT_UP_NEG_Y, 128, 96, &cam, 1) == 1, "antialiased: no camera");
  frame_opts.antialias = SPLAT_ANTIALIAS_OFF; /* uploaded with the flag, drawn without */
  s.flags = 0;
  double off = compare_with_reference("antialiased0_cam0_frame_off", &s, &cam, -1, 40.0);
  set_scene_or_die(&s); /* uploaded without the flag, drawn with */
  frame_opts.antialias = SPLAT_ANTIALIAS_ON;
  s.flags = SPLAT_SCENE_ANTIALIASED;
  double on = compare_with_reference("plain0_cam0_frame_on", &s, &cam, -1, 40.0);
  size_t bytes = (size_t)cam.width * cam.height * 4;
  uint8_t *with = malloc(bytes), *without = malloc(bytes);
  render_gpu(&cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, with);
  frame_opts.antialias = SPLAT_ANTIALIAS_AUTO; /* the scene uploaded without the flag */
  render_gpu(&cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, without);
  double apart = image_psnr(with, without, cam.width, cam.height);
  printf("  anti-aliased vs not, same view: PSNR %.2f dB (each against its reference: %.2f, %.2f dB)\n", apart, on,
         off);
  /* below the image tests' 40 dB: they would catch a renderer that ignored the flag */
  CHECK(apart < 40.0, "the anti-aliasing flag hardly changes the image (%.2f dB)", apart);
  free(with);
  free(without);
  splat_scene_free(&s);
}

static void test_image_file(const char *path) {
  splat_scene s;
  if (load_scene(path, &s) != 0) {
    failures++;
    return;
  }
  char name[256];
  snprintf(name, sizeof name, "%s", base_name(path));
  char *dot = strrchr(name, '.');
  if (dot) *dot = 0;
  image_scene(name, &s, SPLAT_UP_NEG_Y, 256, 192);
  splat_scene_free(&s);
}

/* ---- sort paths and key widths ---------------------------------------------------------------- */

static void sortpaths_scene(const char *name, const splat_scene *s) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 256, 192, cams, 4);
  CHECK(nc >= 2, "%s: no cameras", name);
  set_scene_or_die(s);
  /* every algorithm the renderer was given (tools give all the device runs), and AUTO */
  enum { NA = 5 };
  const splatsort_algorithm algos[NA] = {SPLATSORT_ALGORITHM_QUATERNARY, SPLATSORT_ALGORITHM_ONESWEEP,
                                         SPLATSORT_ALGORITHM_RADIX16, SPLATSORT_ALGORITHM_MERGE,
                                         SPLATSORT_ALGORITHM_AUTO};
  char names[128] = "";
  for (uint32_t a = 0; a + 1 < NA; a++)
    if (splat_renderer_has_sort(renderer, algos[a]))
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ", splatsort_algorithm_name(algos[a]));
  const uint32_t widths[3] = {32, 24, 16};
  for (uint32_t k = 0; k < nc; k += 3) { /* cameras 0 and 3 (the close-up) */
    const splat_camera *cam = &cams[k];
    size_t npx = (size_t)cam->width * cam->height;
    uint16_t *half[3][NA] = {{0}};
    uint8_t *img[3][NA] = {{0}};
    for (uint32_t wi = 0; wi < 3; wi++)
      for (uint32_t a = 0; a < NA; a++) {
        if (!splat_renderer_has_sort(renderer, algos[a])) continue;
        half[wi][a] = malloc(npx * 8);
        img[wi][a] = malloc(npx * 4);
        render_gpu(cam, algos[a], widths[wi], -1, half[wi][a], img[wi][a]);
      }
    int identical = 1;
    for (uint32_t wi = 0; wi < 3; wi++) {
      /* every path sorts stably from the same ordered input: identical bits at each width */
      for (uint32_t a = 1; a < NA; a++) {
        if (!half[wi][a]) continue;
        int same = memcmp(half[wi][a], half[wi][0], npx * 8) == 0;
        identical &= same;
        CHECK(same, "%s cam %u: %u-bit keys: the %s image differs from quaternary's", name, k, widths[wi],
              splatsort_algorithm_name(algos[a]));
      }
      if (wi > 0) {
        double p = image_psnr(img[wi][0], img[0][0], cam->width, cam->height);
        printf("  %-24s cam %u: %u-bit keys vs 32-bit: PSNR %6.2f dB (%s)\n", name, k, widths[wi], p,
               p == IMAGE_PSNR_IDENTICAL ? "identical" : "differs");
        CHECK(p >= 30.0, "%s cam %u: %u-bit keys: PSNR %.2f dB against 32-bit keys < 30", name, k, widths[wi], p);
        if (p < 30.0 || write_images) {
          char tag[256];
          snprintf(tag, sizeof tag, "%s_cam%u_%ubit", name, k, widths[wi]);
          save_images(tag, cam, img[wi][0], img[0][0], "32bit");
        }
      }
    }
    /* radial keys: another back-to-front order of the same splats, close to the depth order's image */
    uint8_t *radial = malloc(npx * 4);
    frame_opts.key_mode = SPLATSORT_DEPTH_KEY_RADIAL;
    render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, radial);
    frame_opts.key_mode = SPLATSORT_DEPTH_KEY_VIEW_DEPTH;
    double pr = image_psnr(radial, img[0][0], cam->width, cam->height);
    printf("  %-24s cam %u: radial keys vs view depth: PSNR %6.2f dB\n", name, k, pr);
    CHECK(pr >= 30.0 && !image_is_blank(radial, cam->width, cam->height),
          "%s cam %u: radial keys: PSNR %.2f dB against view-depth keys < 30 (or blank)", name, k, pr);
    free(radial);
    printf("  %-24s cam %u: %sand auto bit-identical at 32, 24 and 16 bits: %s\n", name, k, names,
           identical ? "yes" : "NO");
    for (uint32_t wi = 0; wi < 3; wi++)
      for (uint32_t a = 0; a < NA; a++) {
        free(half[wi][a]);
        free(img[wi][a]);
      }
  }
}

/* Generated scenes (SH 0 and 3, anti-aliased) when no scene is given, else the scenes given. */
void render_test_image(const render_args *a) {
  if (a->nscenes == 0) test_image_generated(), test_image_antialiased();
  for (uint32_t i = 0; i < a->nscenes; i++) test_image_file(a->scenes[i]);
  printf("  lowest PSNR %.2f dB (threshold 40)\n", scene_psnr_min);
}

/* A generated SH-3 scene, then the scenes given. */
void render_test_sortpaths(const render_args *a) {
  splat_scene s;
  gen_object_scene(&s, 2000, 3);
  sortpaths_scene("generated3", &s);
  splat_scene_free(&s);
  for (uint32_t i = 0; i < a->nscenes; i++) {
    if (load_scene(a->scenes[i], &s) != 0) {
      failures++;
      continue;
    }
    sortpaths_scene(base_name(a->scenes[i]), &s);
    splat_scene_free(&s);
  }
}

/* ---- the fused cull and keys ----------------------------------------------------------------- */

/* Splat k a copy of splat j: the same position gives equal keys in every mode (ties), and the
 * same shape and opacity the same visibility. */
static void copy_splat(splat_scene *s, uint32_t k, uint32_t j) {
  memcpy(s->positions + 3 * k, s->positions + 3 * j, 3 * sizeof(float));
  memcpy(s->scales + 3 * k, s->scales + 3 * j, 3 * sizeof(float));
  memcpy(s->rotations + 4 * k, s->rotations + 4 * j, 4 * sizeof(float));
  s->opacities[k] = s->opacities[j];
}

/* The CPU reference of the projection's key: view depth, or the distance to the camera
 * (camera space: its length), as a float; quantised as the stage's quantise_key. */
static float ref_key_value(const splat_scene *s, uint32_t i, const splat_camera *cam, int radial, float depth) {
  if (!radial) return depth;
  const float *p = s->positions + 3 * i, *v = cam->view;
  float t[3];
  for (int r = 0; r < 3; r++) t[r] = v[r] * p[0] + v[4 + r] * p[1] + v[8 + r] * p[2] + v[12 + r];
  return sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
}

static uint32_t ref_quantise(float w, float zmin, float zmax, uint32_t bits) {
  float u = zmax > zmin ? fminf(fmaxf((w - zmin) / (zmax - zmin), 0.0f), 1.0f) : 0.0f;
  uint32_t top = (1u << bits) - 1u, q = (uint32_t)((1.0f - u) * (float)top + 0.5f);
  return q < top ? q : top;
}

typedef struct fused_pair { uint32_t key, index; } fused_pair;

static int pair_order(const void *a, const void *b) {
  const fused_pair *x = a, *y = b;
  return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->index < y->index ? -1 : x->index > y->index);
}

/* One frame's sorted keys and slots, twice: the two must agree bit for bit (the compaction's
 * order does not depend on which workgroup ran first). Returns the visible count. */
static uint32_t fused_frame(const splat_camera *cam, uint32_t bits, uint32_t n, uint32_t *keys, uint32_t *vals,
                            float range[2]) {
  uint32_t *k2 = malloc(4ull * n), *v2 = malloc(4ull * n), nv[2];
  for (int run = 0; run < 2; run++) {
    uint8_t *img = malloc((size_t)cam->width * cam->height * 4);
    render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, bits, -1, NULL, img);
    free(img);
    splat_renderer_debug_buffers dbg;
    VK_CHECK(splat_renderer_debug_get_buffers(renderer, &dbg));
    uint32_t draw[SP_DRAW_WORDS];
    read_buffer(dbg.draw, 0, sizeof draw, draw);
    nv[run] = draw[SP_DRAW_INSTANCES] < n ? draw[SP_DRAW_INSTANCES] : n;
    if (nv[run]) {
      read_buffer(dbg.keys.buffer, dbg.keys.offset, 4ull * nv[run], run ? k2 : keys);
      read_buffer(dbg.values.buffer, dbg.values.offset, 4ull * nv[run], run ? v2 : vals);
    }
    read_buffer(dbg.depth_range.buffer, dbg.depth_range.offset, 8, range);
  }
  CHECK(nv[0] == nv[1] && !memcmp(keys, k2, 4ull * nv[0]) && !memcmp(vals, v2, 4ull * nv[0]),
        "%u-bit keys: two runs of one frame sort differently (%u, %u visible)", bits, nv[0], nv[1]);
  free(k2);
  free(v2);
  return nv[0];
}

/* Every key width and mode: the GPU's sorted (key, slot) pairs against the CPU reference of
 * the fused cull (splat_project) and keys, stably sorted: equal keys in slot order. */
static void fused_case(const splat_scene *s, const splat_camera *cam, const uint8_t *vis, const float *depth,
                       int radial, uint32_t bits) {
  uint32_t n = s->count, *keys = malloc(4ull * n), *vals = malloc(4ull * n);
  float range[2], zmin = INFINITY, zmax = 0;
  frame_opts.key_mode = radial ? SPLATSORT_DEPTH_KEY_RADIAL : SPLATSORT_DEPTH_KEY_VIEW_DEPTH;
  uint32_t nv = fused_frame(cam, bits, n, keys, vals, range);
  frame_opts.key_mode = SPLATSORT_DEPTH_KEY_VIEW_DEPTH;
  fused_pair *ref = malloc(sizeof *ref * n);
  uint32_t nr = 0, ties = 0, exact = 0, off = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!vis[i]) continue;
    float w = ref_key_value(s, i, cam, radial, depth[i]);
    zmin = fminf(zmin, w), zmax = fmaxf(zmax, w);
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!vis[i]) continue;
    float w = ref_key_value(s, i, cam, radial, depth[i]);
    ref[nr++] = (fused_pair){bits < 32 ? ref_quantise(w, zmin, zmax, bits) : splat_depth_key(w), i};
  }
  qsort(ref, nr, sizeof *ref, pair_order);
  CHECK(nv == nr, "%s %u-bit keys: %u visible, the CPU reference %u", radial ? "radial" : "view", bits, nv, nr);
  for (uint32_t k = 0; k < nv && k < nr; k++) {
    exact += keys[k] == ref[k].key && vals[k] == ref[k].index;
    ties += k > 0 && keys[k] == keys[k - 1];
    uint32_t d = keys[k] > ref[k].key ? keys[k] - ref[k].key : ref[k].key - keys[k];
    off += d != 0;
    /* radial lengths and the quantisation in float may round an ulp or a step apart */
    CHECK(vals[k] == ref[k].index || d != 0 || (k > 0 && keys[k] != keys[k - 1]) || radial || bits < 32,
          "%s %u-bit keys: place %u holds slot %u, the reference %u (equal keys out of slot order)",
          radial ? "radial" : "view", bits, k, vals[k], ref[k].index);
    if (k > 0) CHECK(keys[k] > keys[k - 1] || (keys[k] == keys[k - 1] && vals[k] > vals[k - 1]),
                     "%s %u-bit keys: place %u out of order", radial ? "radial" : "view", bits, k);
  }
  /* exact where the key is the float's bits: 32-bit view depth; elsewhere keys within
   * rounding (and the slot order then follows the keys) */
  if (!radial && bits == 32) CHECK(exact == nr && nv == nr, "view 32-bit keys: %u of %u pairs exact", exact, nr);
  CHECK(off <= (bits < 32 || radial ? nr : 0), "keys off");
  CHECK(ties > 0, "%s %u-bit keys: no equal keys: the case tests no ties", radial ? "radial" : "view", bits);
  printf("  %s %2u-bit keys: %u visible (CPU %u), %u pairs as the reference, %u keys off by rounding, %u ties, "
         "range [%.6g, %.6g]\n", radial ? "radial" : "view  ", bits, nv, nr, exact, off, ties, (double)range[0],
         (double)range[1]);
  free(ref);
  free(keys);
  free(vals);
}

void render_test_fused_keys(const render_args *args) {
  (void)args;
  float eye[3] = {0.5f, -0.25f, 1.0f};
  uint32_t n = 5000;
  splat_camera cam;
  random_camera(&cam, eye, 160, 120, 1);
  splat_scene s;
  gen_projection_scene(&s, n, 0, eye, 4.0f);
  /* every third splat of the second half a copy of one in the first: ties across workgroups */
  for (uint32_t k = n / 2; k < n; k += 3) copy_splat(&s, k, k - n / 2 + (uint32_t)(next_u64() % 7));
  set_scene_or_die(&s);
  uint8_t *vis = calloc(n, 1);
  float *depth = calloc(n, sizeof *depth);
  uint32_t boundary = 0;
  for (uint32_t i = 0; i < n; i++) {
    splat_projected p;
    vis[i] = (uint8_t)splat_project(&s, i, &cam, 0, &p);
    if (vis[i]) depth[i] = p.depth;
    boundary += (uint32_t)on_cull_boundary(&s, i, &cam);
  }
  CHECK(boundary == 0, "fused keys: %u splats on a cull boundary: pick another seed", boundary);
  for (int radial = 0; radial <= 1; radial++)
    for (uint32_t bits = 32; bits >= 16; bits -= 8) fused_case(&s, &cam, vis, depth, radial, bits);
  free(vis);
  free(depth);
  splat_scene_free(&s);
}
