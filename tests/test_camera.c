/* test_camera.c: camera construction, a cameras.json entry as a camera, framing, robust bounds
 * and the orbit/fly controllers. CPU only. Expected values are
 * worked out by hand from the conventions in camera.h, not taken from the code. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_control.h"

#include "check.h"

static const double PI = 3.14159265358979323846;

/* World point -> camera space and continuous pixel coordinates, from the definitions. */
static void to_cam(const splat_camera *c, const float p[3], double out[3]) {
  for (int r = 0; r < 3; r++)
    out[r] = (double)c->view[r] * p[0] + (double)c->view[4 + r] * p[1] +
             (double)c->view[8 + r] * p[2] + (double)c->view[12 + r];
}

static void to_pixel(const splat_camera *c, const float p[3], double px[2], double *z) {
  double q[3];
  to_cam(c, p, q);
  px[0] = c->fx * q[0] / q[2] + c->cx;
  px[1] = c->fy * q[1] / q[2] + c->cy;
  if (z) *z = q[2];
}

static double mat_diff(const float *a, const float *b, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs((double)a[i] - (double)b[i]));
  return m;
}

static void test_look_at(void) {
  splat_camera c;
  float eye[3] = {0, 0, -5}, target[3] = {0, 0, 0}, up[3] = {0, 1, 0};
  CHECK(splat_camera_look_at(&c, eye, target, up, 60.0f, 200, 100) == 0, "look_at failed");
  /* fy = H / (2 tan(30 deg)) */
  CHECK_NEAR(c.fy, 100.0 / (2.0 * tan(PI / 6.0)), 1e-3);
  CHECK_NEAR(c.fx, c.fy, 0.0);
  CHECK_NEAR(c.cx, 100.0, 0.0);
  CHECK_NEAR(c.cy, 50.0, 0.0);
  CHECK_NEAR(splat_camera_tan_fovy(&c), tan(PI / 6.0), 1e-6);
  CHECK_NEAR(splat_camera_tan_fovx(&c), 2.0 * tan(PI / 6.0), 1e-6);
  double px[2], z;
  to_pixel(&c, target, px, &z);
  CHECK_NEAR(px[0], 100.0, 1e-4);
  CHECK_NEAR(px[1], 50.0, 1e-4);
  CHECK_NEAR(z, 5.0, 1e-5);
  float above[3] = {0, 1, 0};
  to_pixel(&c, above, px, &z);
  CHECK(px[1] < 50.0 - 1.0, "a point above the target projects to y=%g, expected < 50", px[1]);
  CHECK_NEAR(px[0], 100.0, 1e-4);
  /* Looking along +z with +y up in a right-handed world, screen right is world -x. */
  float right_pt[3] = {-1, 0, 0};
  to_pixel(&c, right_pt, px, &z);
  CHECK(px[0] > 101.0, "world -x projects to x=%g, expected right of centre", px[0]);
  /* Exact pixel of (0,1,0) at depth 5: y = cy - fy * 1/5. */
  to_pixel(&c, above, px, &z);
  CHECK_NEAR(px[1], 50.0 - c.fy / 5.0, 1e-3);
  CHECK_NEAR(c.position[0], 0.0, 0.0);
  CHECK_NEAR(c.position[2], -5.0, 0.0);

  /* A general pose: eye maps to the origin, target to (0, 0, |target - eye|), axes
   * orthonormal and right-handed. */
  float eye2[3] = {3, -2, 7}, tgt2[3] = {-1, 4, 2}, up2[3] = {0.2f, 0.9f, -0.1f};
  CHECK(splat_camera_look_at(&c, eye2, tgt2, up2, 45.0f, 64, 48) == 0, "look_at failed");
  double q[3];
  to_cam(&c, eye2, q);
  CHECK(fabs(q[0]) + fabs(q[1]) + fabs(q[2]) < 1e-5, "eye maps to (%g %g %g)", q[0], q[1], q[2]);
  to_cam(&c, tgt2, q);
  CHECK_NEAR(q[0], 0.0, 1e-5);
  CHECK_NEAR(q[1], 0.0, 1e-5);
  CHECK_NEAR(q[2], sqrt(16.0 + 36.0 + 25.0), 1e-5);
  float r[3], d[3], f[3];
  splat_camera_axes(&c, r, d, f);
  double det = r[0] * (d[1] * f[2] - d[2] * f[1]) - r[1] * (d[0] * f[2] - d[2] * f[0]) +
               r[2] * (d[0] * f[1] - d[1] * f[0]);
  CHECK_NEAR(det, 1.0, 1e-5);
  CHECK_NEAR(r[0] * d[0] + r[1] * d[1] + r[2] * d[2], 0.0, 1e-6);
  /* Screen-up (-down) leans towards `up`, right is perpendicular to it. */
  CHECK(-(d[0] * up2[0] + d[1] * up2[1] + d[2] * up2[2]) > 0.5, "screen-up not along up");
  CHECK_NEAR(r[0] * up2[0] + r[1] * up2[1] + r[2] * up2[2], 0.0, 1e-6);

  /* Degenerate input is refused and leaves the camera alone. */
  splat_camera keep = c;
  CHECK(splat_camera_look_at(&c, eye2, eye2, up2, 45.0f, 64, 48) != 0, "eye == target accepted");
  float upf[3] = {tgt2[0] - eye2[0], tgt2[1] - eye2[1], tgt2[2] - eye2[2]};
  CHECK(splat_camera_look_at(&c, eye2, tgt2, upf, 45.0f, 64, 48) != 0, "up // forward accepted");
  CHECK(splat_camera_look_at(&c, eye2, tgt2, up2, 0.0f, 64, 48) != 0, "fovy 0 accepted");
  CHECK(splat_camera_look_at(&c, eye2, tgt2, up2, 45.0f, 0, 48) != 0, "width 0 accepted");
  float nan_eye[3] = {NAN, 0, 0};
  CHECK(splat_camera_look_at(&c, nan_eye, tgt2, up2, 45.0f, 64, 48) != 0, "NaN eye accepted");
  CHECK(memcmp(&keep, &c, sizeof c) == 0, "camera modified by a failed call");
}

static void test_from_pose(void) {
  /* Camera at (1,2,3) turned +90 degrees about world y: camera-to-world columns are
   * x = (0,0,-1), y = (0,1,0), z = (1,0,0); it looks along world +x. */
  const float rot[3][3] = {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}};
  const float pos[3] = {1, 2, 3};
  splat_camera c;
  CHECK(splat_camera_from_pose(&c, pos, &rot[0][0], 500.0f, 400.0f, 640, 480) == 0, "from_pose failed");
  /* Hand-built world-to-camera, column-major: rows (0,0,-1 | 3), (0,1,0 | -2), (1,0,0 | -1). */
  const float expect[16] = {0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 3, -2, -1, 1};
  CHECK(mat_diff(c.view, expect, 16) < 1e-6, "view differs from the hand-built matrix");
  double q[3];
  float ahead[3] = {11, 2, 3};
  to_cam(&c, ahead, q);
  CHECK(fabs(q[0]) < 1e-6 && fabs(q[1]) < 1e-6 && fabs(q[2] - 10.0) < 1e-6,
        "(11,2,3) -> (%g %g %g), expected (0 0 10)", q[0], q[1], q[2]);
  float side[3] = {1, 2, 2}; /* world -z of the camera = camera +x */
  to_cam(&c, side, q);
  CHECK(fabs(q[0] - 1.0) < 1e-6 && fabs(q[1]) < 1e-6 && fabs(q[2]) < 1e-6,
        "(1,2,2) -> (%g %g %g), expected (1 0 0)", q[0], q[1], q[2]);
  float below[3] = {1, 3, 3}; /* world +y = camera +y (down) */
  to_cam(&c, below, q);
  CHECK_NEAR(q[1], 1.0, 1e-6);
  CHECK_NEAR(c.fx, 500.0, 0.0);
  CHECK_NEAR(c.fy, 400.0, 0.0);
  CHECK_NEAR(c.cx, 320.0, 0.0);
  CHECK_NEAR(c.cy, 240.0, 0.0);
  CHECK(mat_diff(c.position, pos, 3) == 0.0, "position not kept");
  CHECK(splat_camera_from_pose(&c, pos, &rot[0][0], 0.0f, 400.0f, 640, 480) != 0, "fx 0 accepted");
  CHECK(splat_camera_from_pose(&c, pos, &rot[0][0], 500.0f, 400.0f, 640, 0) != 0, "height 0 accepted");
}

static void test_projection_matrix(void) {
  splat_camera c;
  float eye[3] = {0.5f, -1, -4}, tgt[3] = {0, 0, 0}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&c, eye, tgt, up, 50.0f, 320, 200) == 0, "look_at failed");
  c.cx = 150.0f; /* off-centre principal point */
  float proj[16], vp[16];
  splat_camera_projection(&c, 0.1f, 100.0f, proj, vp);
  const float pts[3][3] = {{0.3f, 0.2f, 0.1f}, {-1, 1, 2}, {0.7f, -0.5f, -1}};
  for (int k = 0; k < 3; k++) {
    double px[2], z;
    to_pixel(&c, pts[k], px, &z);
    double clip[4];
    for (int r = 0; r < 4; r++)
      clip[r] = (double)vp[r] * pts[k][0] + (double)vp[4 + r] * pts[k][1] +
                (double)vp[8 + r] * pts[k][2] + vp[12 + r];
    double nx = clip[0] / clip[3], ny = clip[1] / clip[3];
    CHECK_NEAR((nx + 1.0) * 0.5 * 320.0, px[0], 1e-3);
    CHECK_NEAR((ny + 1.0) * 0.5 * 200.0, px[1], 1e-3);
    CHECK_NEAR(clip[3], z, 1e-5);
  }
  /* Depth: 0 at the near plane, 1 at the far plane (camera-space points). */
  double zn = (proj[10] * 0.1 + proj[14]) / 0.1, zf = (proj[10] * 100.0 + proj[14]) / 100.0;
  CHECK_NEAR(zn, 0.0, 1e-6);
  CHECK_NEAR(zf, 1.0, 1e-6);
}

/* ---- cameras.json entries as cameras (splat_camera_from_desc; the reader's own tests are
 * test_cameras_json.c) ------------------------------------------------------------------------ */

static void test_from_desc(void) {
  /* As 3DGS's json.dump writes it: the first entry is test_from_pose's camera, same view matrix. */
  const char *json = "[{\"id\": 0, \"img_name\": \"DSC_0001\", \"width\": 640, \"height\": 480, "
                     "\"position\": [1.0, 2.0, 3.0], "
                     "\"rotation\": [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]], "
                     "\"fy\": 400.0, \"fx\": 500.0}]";
  splat_camera_desc *cams = NULL;
  uint32_t n = 0;
  char err[512];
  int rc = splat_cameras_parse("mem.json", json, strlen(json), &cams, &n, err, sizeof err);
  CHECK(rc == 0 && n == 1, "good camera rejected: %s", err);
  if (rc != 0) return;
  splat_camera c, ref;
  const float rot[3][3] = {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}};
  const float pos[3] = {1, 2, 3};
  splat_camera_from_pose(&ref, pos, &rot[0][0], 500.0f, 400.0f, 640, 480);
  CHECK(splat_camera_from_desc(&c, &cams[0], 0, 0) == 0, "from_desc failed");
  CHECK(memcmp(&c, &ref, sizeof c) == 0, "from_desc differs from from_pose");
  /* Rendering at half size halves the focal lengths; the geometry stays. */
  CHECK(splat_camera_from_desc(&c, &cams[0], 320, 240) == 0, "from_desc failed");
  CHECK_NEAR(c.fx, 250.0, 1e-5);
  CHECK_NEAR(c.fy, 200.0, 1e-5);
  CHECK_NEAR(c.cx, 160.0, 0.0);
  CHECK(c.width == 320 && c.height == 240, "size");
  CHECK(mat_diff(c.view, ref.view, 16) == 0.0, "view changed with size");
  CHECK(splat_camera_from_desc(&c, &cams[0], 320, 0) == -1, "a zero height accepted");
  splat_cameras_free(cams);

  /* 3DGS's convention end to end: a world-to-camera [Rw | t] turned into the file's
   * position = -Rw^T t and rotation = Rw^T (rows) gives back view = [Rw | t]. Rw is a
   * rotation of 30 degrees about x then 50 about z, t arbitrary. */
  double a = 30.0 * PI / 180.0, b = 50.0 * PI / 180.0;
  double Rx[3][3] = {{1, 0, 0}, {0, cos(a), -sin(a)}, {0, sin(a), cos(a)}};
  double Rz[3][3] = {{cos(b), -sin(b), 0}, {sin(b), cos(b), 0}, {0, 0, 1}};
  double Rw[3][3], t[3] = {0.3, -1.2, 2.5}, p3[3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      Rw[i][j] = 0;
      for (int k = 0; k < 3; k++) Rw[i][j] += Rz[i][k] * Rx[k][j];
    }
  for (int i = 0; i < 3; i++) {
    p3[i] = 0;
    for (int k = 0; k < 3; k++) p3[i] -= Rw[k][i] * t[k];
  }
  char text[2048];
  int len = snprintf(text, sizeof text,
                     "[{\"id\": 3, \"img_name\": \"x\", \"width\": 100, \"height\": 50, "
                     "\"position\": [%.17g, %.17g, %.17g], \"rotation\": [[%.17g, %.17g, %.17g], "
                     "[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]], \"fx\": 80, \"fy\": 80}]",
                     p3[0], p3[1], p3[2], Rw[0][0], Rw[1][0], Rw[2][0], Rw[0][1], Rw[1][1],
                     Rw[2][1], Rw[0][2], Rw[1][2], Rw[2][2]);
  rc = splat_cameras_parse("mem.json", text, (size_t)len, &cams, &n, err, sizeof err);
  CHECK(rc == 0 && n == 1, "3DGS-style camera rejected: %s", err);
  if (rc == 0) {
    splat_camera_from_desc(&c, &cams[0], 0, 0);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) CHECK_NEAR(c.view[j * 4 + i], Rw[i][j], 1e-6);
      CHECK_NEAR(c.view[12 + i], t[i], 1e-5);
    }
    splat_cameras_free(cams);
  }

  /* The extremes the parser accepts still make a camera at the entry's own size, with its own
   * focal lengths: fx * width once overflowed float (found by fuzz_cameras' checks). */
  const char *big = "[{\"id\": 0, \"img_name\": \"a\", \"width\": 65536, \"height\": 3, "
                    "\"position\": [0, 0, 0], \"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                    "\"fx\": 3e38, \"fy\": 1e-45}]";
  rc = splat_cameras_parse("big.json", big, strlen(big), &cams, &n, err, sizeof err);
  CHECK(rc == 0 && n == 1, "extreme camera rejected: %s", err);
  if (rc == 0) {
    CHECK(splat_camera_from_desc(&c, &cams[0], 0, 0) == 0, "extreme camera unusable at its own size");
    CHECK(c.fx == cams[0].fx && c.fy == cams[0].fy, "focal lengths %g %g changed to %g %g", (double)cams[0].fx,
          (double)cams[0].fy, (double)c.fx, (double)c.fy);
    splat_cameras_free(cams);
  }
}

/* ---- framing and bounds ---------------------------------------------------------------- */

static void check_corners_inside(const splat_camera *c, const float lo[3], const float hi[3],
                                 const char *label) {
  for (int k = 0; k < 8; k++) {
    float p[3] = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]};
    double px[2], z;
    to_pixel(c, p, px, &z);
    CHECK(z > 0.2 && px[0] >= 0.0 && px[0] <= c->width && px[1] >= 0.0 && px[1] <= c->height,
          "%s: corner %d at pixel (%g, %g) z %g outside %ux%u", label, k, px[0], px[1], z,
          c->width, c->height);
  }
}

static void test_framing(void) {
  const float lo[3] = {-3, -1, 2}, hi[3] = {5, 4, 7};
  const float ups[3][3] = {{0, -1, 0}, {0, 1, 0}, {0, 0, 1}};
  const uint32_t sizes[3][2] = {{320, 200}, {200, 320}, {64, 64}};
  for (int u = 0; u < 3; u++)
    for (int s = 0; s < 3; s++) {
      splat_camera c;
      CHECK(splat_camera_frame_bounds(&c, lo, hi, ups[u], sizes[s][0], sizes[s][1], 50.0f) == 0,
            "frame_bounds failed");
      char label[64];
      snprintf(label, sizeof label, "up %d size %d", u, s);
      check_corners_inside(&c, lo, hi, label);
      /* Looking at the centre: it projects to the principal point. */
      float centre[3] = {1, 1.5f, 4.5f};
      double px[2];
      to_pixel(&c, centre, px, NULL);
      CHECK_NEAR(px[0], c.cx, 1e-3);
      CHECK_NEAR(px[1], c.cy, 1e-3);
    }
  /* The fit is tight: the sphere around the box just fits with the 5% margin. */
  float d = splat_camera_fit_distance(1.0f, 60.0f, 100, 100);
  CHECK_NEAR(d, 1.05 / sin(PI / 6.0), 1e-5);
  d = splat_camera_fit_distance(1.0f, 60.0f, 50, 100); /* narrower horizontally */
  CHECK_NEAR(d, 1.05 / sin(atan(0.5 * tan(PI / 6.0))), 1e-4);
  CHECK_NEAR(splat_camera_fit_distance(0.0f, 60.0f, 100, 100), 0.25, 1e-6);
  /* A single point still gives a valid camera. */
  splat_camera c;
  const float pt[3] = {1, 2, 3};
  CHECK(splat_camera_frame_bounds(&c, pt, pt, ups[0], 32, 32, 60.0f) == 0, "point box failed");
  check_corners_inside(&c, pt, pt, "point");
  /* An inverted or non-finite box is refused. */
  CHECK(splat_camera_frame_bounds(&c, hi, lo, ups[0], 32, 32, 60.0f) != 0, "inverted box");
  const float nan3[3] = {NAN, 0, 0};
  CHECK(splat_camera_frame_bounds(&c, nan3, hi, ups[0], 32, 32, 60.0f) != 0, "NaN box");
}

static uint32_t rng_state = 12345u;
static uint32_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static void test_robust_bounds(void) {
  /* x = 0..99 shuffled: the 2nd/98th percentile samples are sorted[1] = 1 and
   * sorted[ceil(0.98*99) = 98] = 98. y = x * 2 - 50 (same ranks), z constant 7. */
  enum { N = 100 };
  float pos[N * 3];
  uint32_t perm[N];
  for (uint32_t i = 0; i < N; i++) perm[i] = i;
  for (uint32_t i = N - 1; i > 0; i--) {
    uint32_t j = rng() % (i + 1), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (uint32_t i = 0; i < N; i++) {
    pos[i * 3 + 0] = (float)perm[i];
    pos[i * 3 + 1] = (float)perm[i] * 2.0f - 50.0f;
    pos[i * 3 + 2] = 7.0f;
  }
  float lo[3], hi[3];
  CHECK(splat_scene_robust_bounds(pos, N, lo, hi) == 0, "robust bounds failed");
  CHECK_NEAR(lo[0], 1.0, 0.0);
  CHECK_NEAR(hi[0], 98.0, 0.0);
  CHECK_NEAR(lo[1], -48.0, 0.0);
  CHECK_NEAR(hi[1], 146.0, 0.0);
  CHECK_NEAR(lo[2], 7.0, 0.0);
  CHECK_NEAR(hi[2], 7.0, 0.0);

  /* 10,000 points in the unit cube plus 1% far outliers: the robust box ignores them. */
  enum { M = 10000 };
  float *p = malloc(sizeof(float) * 3 * M);
  for (uint32_t i = 0; i < M; i++)
    for (int a = 0; a < 3; a++)
      p[i * 3 + (uint32_t)a] = (i % 100 == 0) ? (a == 0 ? 1e6f : -1e6f)
                                              : (float)(rng() % 100000) / 100000.0f;
  p[5] = NAN; /* a non-finite point is ignored */
  CHECK(splat_scene_robust_bounds(p, M, lo, hi) == 0, "robust bounds failed");
  for (int a = 0; a < 3; a++) {
    CHECK(lo[a] >= 0.0f && lo[a] < 0.05f, "axis %d lo %g", a, lo[a]);
    CHECK(hi[a] > 0.95f && hi[a] <= 1.0f, "axis %d hi %g", a, hi[a]);
  }
  /* Many equal values (the three-way partition's case). */
  for (uint32_t i = 0; i < M; i++)
    for (int a = 0; a < 3; a++) p[i * 3 + (uint32_t)a] = (float)(i % 3);
  CHECK(splat_scene_robust_bounds(p, M, lo, hi) == 0, "robust bounds failed");
  CHECK_NEAR(lo[0], 0.0, 0.0);
  CHECK_NEAR(hi[0], 2.0, 0.0);
  free(p);
  /* Past SPLAT_ROBUST_BOUNDS_SAMPLE points the percentiles come from an even sample: within
   * 0.2% of the axis's range of the exact ones (3M points, uniform / squared / with 1% far
   * outliers), and the sample spans the whole set (the last third shifted: a sample of the
   * first million alone would miss it). */
  enum { L = 3000017 };
  float *big = malloc(sizeof(float) * 3 * L), *axis = malloc(sizeof(float) * L);
  for (uint32_t i = 0; i < L; i++) {
    float u = (float)(rng() % 1000000) / 1000000.0f, w = (float)(rng() % 1000000) / 1000000.0f;
    big[i * 3 + 0] = u + (i >= 2 * (L / 3) ? 5.0f : 0.0f);
    big[i * 3 + 1] = w * w;
    big[i * 3 + 2] = i % 100 == 7 ? 1e6f : u;
  }
  CHECK(splat_scene_robust_bounds(big, L, lo, hi) == 0, "robust bounds of 3M points failed");
  for (int a = 0; a < 3; a++) {
    for (uint32_t i = 0; i < L; i++) axis[i] = big[i * 3 + (uint32_t)a];
    qsort(axis, L, sizeof(float), cmp_float);
    float elo = axis[(size_t)floor(0.02 * (L - 1))], ehi = axis[(size_t)ceil(0.98 * (L - 1))];
    float tol = 0.002f * (ehi - elo);
    CHECK(fabsf(lo[a] - elo) <= tol && fabsf(hi[a] - ehi) <= tol,
          "3M points, axis %d: sampled %g..%g, exact %g..%g", a, lo[a], hi[a], elo, ehi);
  }
  free(big), free(axis);
  CHECK(splat_scene_robust_bounds(pos, 0, lo, hi) != 0, "empty set accepted");
  float one[3] = {4, 5, 6};
  CHECK(splat_scene_robust_bounds(one, 1, lo, hi) == 0 && lo[1] == 5.0f && hi[2] == 6.0f,
        "single point");
}

/* ---- controllers ------------------------------------------------------------------------- */

static const float up_neg_y[3] = {0, -1, 0}, up_pos_y[3] = {0, 1, 0}, up_pos_z[3] = {0, 0, 1};

static void test_up_axes(void) {
  /* Default -Y up at yaw 0, pitch 0 is the identity camera (COLMAP's orientation). */
  splat_orbit o;
  const float tgt[3] = {0, 0, 0};
  splat_orbit_init(&o, tgt, 4.0f, up_neg_y);
  splat_camera c;
  CHECK(splat_orbit_camera(&o, 60.0f, 64, 64, &c) == 0, "orbit camera failed");
  const float ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 4, 1};
  CHECK(mat_diff(c.view, ident, 16) < 1e-6, "-Y up default is not the identity camera");
  /* The named axes, then any up (a scene's, not normalised): a unit basis, right = ahead x up,
   * the named axes' yaw-0 directions as before (-Y: +z, +Y: -z, +Z: +y; right +x), and a point
   * one unit along up from the target projects above centre. */
  const float upv[7][3] = {{0, -1, 0}, {0, 1, 0}, {0, 0, 1}, {0.3f, -2.0f, 0.5f}, {5, 0.1f, -0.2f},
                           {-0.7f, 0.7f, 0.1f}, {-1, 0, 0}};
  const float aheadv[3][3] = {{0, 0, 1}, {0, 0, -1}, {0, 1, 0}};
  const splat_up_axis axes[3] = {SPLAT_UP_NEG_Y, SPLAT_UP_POS_Y, SPLAT_UP_POS_Z};
  for (int a = 0; a < 7; a++) {
    float u[3], ah[3], r[3], x[3], named[3];
    double len = sqrt(upv[a][0] * upv[a][0] + upv[a][1] * upv[a][1] + upv[a][2] * upv[a][2]);
    splat_up_basis(upv[a], u, ah, r);
    for (int k = 0; k < 3; k++) CHECK_NEAR(u[k], upv[a][k] / len, 1e-6);
    CHECK_NEAR(ah[0] * ah[0] + ah[1] * ah[1] + ah[2] * ah[2], 1.0, 1e-6);
    CHECK_NEAR(r[0] * r[0] + r[1] * r[1] + r[2] * r[2], 1.0, 1e-6);
    CHECK_NEAR(ah[0] * u[0] + ah[1] * u[1] + ah[2] * u[2], 0.0, 1e-6);
    CHECK_NEAR(r[0] * u[0] + r[1] * u[1] + r[2] * u[2], 0.0, 1e-6);
    if (a < 3) {
      splat_up_axis_vector(axes[a], named);
      CHECK(mat_diff(named, upv[a], 3) == 0.0, "axis %d: up vector", a);
      CHECK(mat_diff(ah, aheadv[a], 3) == 0.0, "axis %d: ahead (%g %g %g)", a, ah[0], ah[1], ah[2]);
      CHECK(r[0] == 1.0f && r[1] == 0.0f && r[2] == 0.0f, "axis %d: right (%g %g %g)", a, r[0], r[1], r[2]);
    }
    /* right = ahead x up */
    x[0] = ah[1] * u[2] - ah[2] * u[1];
    x[1] = ah[2] * u[0] - ah[0] * u[2];
    x[2] = ah[0] * u[1] - ah[1] * u[0];
    CHECK(mat_diff(x, r, 3) < 1e-6, "up %d: right != ahead x up", a);
    splat_orbit_init(&o, tgt, 4.0f, upv[a]);
    o.yaw = 0.7f;
    o.pitch = -0.3f;
    splat_orbit_camera(&o, 60.0f, 64, 64, &c);
    double px[2], z;
    to_pixel(&c, u, px, &z);
    CHECK(px[1] < 32.0 - 1.0 && fabs(px[0] - 32.0) < 1e-3, "up %d: up point at (%g, %g)", a, px[0], px[1]);
  }
}

static void test_orbit(void) {
  splat_orbit o;
  const float tgt[3] = {1, 2, 3};
  splat_orbit_init(&o, tgt, 5.0f, up_neg_y);
  o.yaw = 0.4f;
  o.pitch = 0.25f;
  splat_camera c0, c;
  splat_orbit_camera(&o, 60.0f, 128, 96, &c0);
  float eye0[3];
  splat_orbit_eye(&o, eye0);
  double dist = sqrt((eye0[0] - 1.0) * (eye0[0] - 1.0) + (eye0[1] - 2.0) * (eye0[1] - 2.0) +
                     (eye0[2] - 3.0) * (eye0[2] - 3.0));
  CHECK_NEAR(dist, 5.0, 1e-5);
  double px[2];
  to_pixel(&c0, tgt, px, NULL);
  CHECK_NEAR(px[0], 64.0, 1e-3);
  CHECK_NEAR(px[1], 48.0, 1e-3);

  /* Yaw by 360 degrees in 100 drags returns to the start. */
  float step = (float)(2.0 * PI / 100.0) / o.rotate_speed;
  for (int k = 0; k < 100; k++) splat_orbit_rotate(&o, step, 0.0f);
  splat_orbit_camera(&o, 60.0f, 128, 96, &c);
  CHECK(mat_diff(c.view, c0.view, 16) < 1e-4, "yaw 360 does not return (%g)",
        mat_diff(c.view, c0.view, 16));
  /* A horizontal drag turns about the up axis only: the eye stays at the same height. */
  splat_orbit_rotate(&o, 37.0f, 0.0f);
  float eye[3];
  splat_orbit_eye(&o, eye);
  CHECK_NEAR(eye[1], eye0[1], 1e-5);
  /* Dragging right moves the eye to the camera's left. */
  float r0[3];
  splat_camera_axes(&c0, r0, NULL, NULL);
  CHECK((eye[0] - eye0[0]) * r0[0] + (eye[1] - eye0[1]) * r0[1] + (eye[2] - eye0[2]) * r0[2] <
            0.0f,
        "drag right did not move the eye left");

  /* No flip at the poles: dragging far in either direction clamps the pitch, and the
   * camera's screen-up keeps pointing to the world's up side. */
  for (int dir = -1; dir <= 1; dir += 2) {
    splat_orbit_rotate(&o, 0.0f, (float)dir * 1e5f);
    CHECK(fabsf(o.pitch) <= SPLAT_PITCH_LIMIT + 1e-6f, "pitch %g", o.pitch);
    CHECK(splat_orbit_camera(&o, 60.0f, 128, 96, &c) == 0, "camera at the pole failed");
    float d[3];
    splat_camera_axes(&c, NULL, d, NULL);
    CHECK(d[1] > 0.0f, "camera flipped at the pole (down.y = %g with -Y up)", d[1]);
    for (int k = 0; k < 16; k++) CHECK(isfinite(c.view[k]), "non-finite view at the pole");
  }
  /* Dragging down looks down more: pitch decreases (eye rises above the target). */
  o.pitch = 0.0f;
  splat_orbit_rotate(&o, 0.0f, 10.0f);
  CHECK(o.pitch < 0.0f, "drag down: pitch %g", o.pitch);
  splat_orbit_eye(&o, eye);
  CHECK(eye[1] < tgt[1], "drag down: eye not above the target (y %g)", eye[1]);

  /* Pan: the target moves in the screen plane, and the old target (a point at the target's
   * depth) follows the cursor: a drag of (10, -6) pixels puts it at centre + (10, -6). */
  splat_orbit_init(&o, tgt, 5.0f, up_neg_y);
  o.yaw = -0.8f;
  o.pitch = 0.3f;
  splat_orbit_camera(&o, 60.0f, 128, 96, &c0);
  float fwd0[3];
  splat_camera_axes(&c0, NULL, NULL, fwd0);
  splat_orbit_pan(&o, 10.0f, -6.0f, c0.fy);
  float moved[3] = {o.target[0] - tgt[0], o.target[1] - tgt[1], o.target[2] - tgt[2]};
  CHECK_NEAR(moved[0] * fwd0[0] + moved[1] * fwd0[1] + moved[2] * fwd0[2], 0.0, 1e-6);
  CHECK_NEAR(sqrt(moved[0] * moved[0] + moved[1] * moved[1] + moved[2] * moved[2]),
             sqrt(136.0) * 5.0 / c0.fy, 1e-5);
  CHECK_NEAR(o.distance, 5.0, 0.0);
  splat_orbit_camera(&o, 60.0f, 128, 96, &c);
  CHECK(mat_diff(c.view, c0.view, 12) < 1e-6, "pan rotated the camera");
  to_pixel(&c, tgt, px, NULL);
  CHECK_NEAR(px[0], 64.0 + 10.0, 1e-3);
  CHECK_NEAR(px[1], 48.0 - 6.0, 1e-3);

  /* Zoom: multiplicative, target kept, clamped. */
  float t1[3] = {o.target[0], o.target[1], o.target[2]};
  splat_orbit_zoom(&o, 1.0f);
  CHECK_NEAR(o.distance, 4.5, 1e-5);
  splat_orbit_zoom(&o, -2.0f);
  CHECK_NEAR(o.distance, 4.5 / 0.81, 1e-4);
  CHECK(mat_diff(o.target, t1, 3) == 0.0, "zoom moved the target");
  o.min_distance = 0.5f;
  o.max_distance = 20.0f;
  splat_orbit_zoom(&o, 1000.0f);
  CHECK_NEAR(o.distance, 0.5, 0.0);
  splat_orbit_zoom(&o, -1000.0f);
  CHECK_NEAR(o.distance, 20.0, 0.0);

  /* look: eye and target given directly. */
  const float e2[3] = {4, -1, 7};
  CHECK(splat_orbit_look(&o, e2, tgt) == 0, "look failed");
  splat_orbit_eye(&o, eye);
  CHECK(mat_diff(eye, e2, 3) < 1e-5, "look: eye (%g %g %g)", eye[0], eye[1], eye[2]);
  CHECK(splat_orbit_look(&o, tgt, tgt) != 0, "look at self accepted");

  /* Changing the up axis keeps the view direction (away from the poles). */
  float f_before[3], f_after[3];
  splat_forward_from_angles(o.up, o.yaw, o.pitch, f_before);
  splat_orbit_set_up(&o, up_pos_z);
  splat_forward_from_angles(o.up, o.yaw, o.pitch, f_after);
  CHECK(mat_diff(f_before, f_after, 3) < 1e-5, "set_up changed the direction");
  splat_orbit_eye(&o, eye);
  CHECK(mat_diff(eye, e2, 3) < 1e-4, "set_up moved the eye");

  /* Framing with the orbit: all corners of a box inside, yaw/pitch kept. */
  const float lo[3] = {-2, -2, -1}, hi[3] = {3, 1, 4};
  float yaw = o.yaw, pitch = o.pitch;
  CHECK(splat_orbit_frame_bounds(&o, lo, hi, 45.0f, 160, 90) == 0, "orbit framing failed");
  CHECK(o.yaw == yaw && o.pitch == pitch, "framing changed the direction");
  splat_orbit_camera(&o, 45.0f, 160, 90, &c);
  check_corners_inside(&c, lo, hi, "orbit frame");
}

static void test_fly(void) {
  splat_fly f;
  const float p0[3] = {1, -2, 0.5f};
  splat_fly_init(&f, p0, up_neg_y);
  f.yaw = 0.3f;
  f.pitch = 0.2f;
  f.speed = 2.0f;
  splat_camera c;
  splat_fly_camera(&f, 60.0f, 64, 64, &c);
  float r[3], d[3], fw[3];
  splat_camera_axes(&c, r, d, fw);
  /* Hand formula for the forward direction with -Y up (ahead +z, right +x, up -y). */
  double ef[3] = {cos(0.2) * sin(0.3), -sin(0.2), cos(0.2) * cos(0.3)};
  for (int k = 0; k < 3; k++) CHECK_NEAR(fw[k], ef[k], 1e-6);

  struct {
    uint32_t keys;
    const float *axis;
    float sign, scale;
  } moves[] = {
      {SPLAT_FLY_FORWARD, fw, 1, 1},
      {SPLAT_FLY_BACK, fw, -1, 1},
      {SPLAT_FLY_RIGHT, r, 1, 1},
      {SPLAT_FLY_LEFT, r, -1, 1},
      {SPLAT_FLY_UP, d, -1, 1},
      {SPLAT_FLY_DOWN, d, 1, 1},
      {SPLAT_FLY_FORWARD | SPLAT_FLY_FAST, fw, 1, 4},
  };
  for (size_t k = 0; k < sizeof moves / sizeof moves[0]; k++) {
    splat_fly g = f;
    splat_fly_step(&g, moves[k].keys, 0.5f);
    for (int a = 0; a < 3; a++)
      CHECK_NEAR(g.position[a] - p0[a], moves[k].sign * moves[k].scale * 1.0f * moves[k].axis[a],
                 1e-5);
  }
  /* Opposite keys cancel; two keys move speed*dt along the diagonal. */
  splat_fly g = f;
  splat_fly_step(&g, SPLAT_FLY_FORWARD | SPLAT_FLY_BACK, 0.5f);
  CHECK(mat_diff(g.position, p0, 3) == 0.0, "W+S moved");
  g = f;
  splat_fly_step(&g, SPLAT_FLY_FORWARD | SPLAT_FLY_RIGHT, 0.5f);
  for (int a = 0; a < 3; a++)
    CHECK_NEAR(g.position[a] - p0[a], (fw[a] + r[a]) / sqrt(2.0), 1e-5);
  /* Mouse look: right turns right, down looks down, pitch clamped. */
  g = f;
  splat_fly_look(&g, 20.0f, 0.0f);
  float nf[3];
  splat_fly_forward(&g, nf);
  CHECK(nf[0] * r[0] + nf[1] * r[1] + nf[2] * r[2] > 0.0f, "look right turned left");
  g = f;
  splat_fly_look(&g, 0.0f, 20.0f);
  splat_fly_forward(&g, nf);
  CHECK(nf[0] * d[0] + nf[1] * d[1] + nf[2] * d[2] > 0.0f, "look down looked up");
  splat_fly_look(&g, 0.0f, 1e6f);
  CHECK_NEAR(g.pitch, -SPLAT_PITCH_LIMIT, 1e-6);
}

static void test_switch(void) {
  splat_orbit o;
  const float tgt[3] = {0.5f, -1, 2};
  splat_orbit_init(&o, tgt, 3.0f, up_pos_y);
  o.yaw = 1.1f;
  o.pitch = -0.4f;
  splat_camera co, cf, co2;
  splat_orbit_camera(&o, 50.0f, 100, 80, &co);
  splat_fly f;
  splat_fly_init(&f, tgt, up_neg_y);
  f.speed = 7.0f;
  splat_fly_from_orbit(&f, &o);
  splat_fly_camera(&f, 50.0f, 100, 80, &cf);
  CHECK(mat_diff(co.view, cf.view, 16) < 1e-6, "orbit -> fly changed the view (%g)",
        mat_diff(co.view, cf.view, 16));
  CHECK(f.speed == 7.0f && mat_diff(f.up, up_pos_y, 3) == 0.0, "fly settings");
  /* Fly somewhere, then back to orbit with the target 3 ahead. */
  splat_fly_step(&f, SPLAT_FLY_FORWARD | SPLAT_FLY_LEFT, 0.1f);
  splat_fly_look(&f, 13.0f, -5.0f);
  splat_fly_camera(&f, 50.0f, 100, 80, &cf);
  splat_orbit_from_fly(&o, &f, 3.0f);
  splat_orbit_camera(&o, 50.0f, 100, 80, &co2);
  CHECK(mat_diff(co2.view, cf.view, 16) < 1e-5, "fly -> orbit changed the view (%g)",
        mat_diff(co2.view, cf.view, 16));
  CHECK_NEAR(o.distance, 3.0, 0.0);
}

int main(int argc, char **argv) {
  (void)argc, (void)argv;
  test_look_at();
  test_from_pose();
  test_projection_matrix();
  test_from_desc();
  test_framing();
  test_robust_bounds();
  test_up_axes();
  test_orbit();
  test_fly();
  test_switch();
  return check_report("test_camera");
}
