/* test_project.c: the CPU projection (project.h) against hand-computed cases: isotropic
 * and off-axis splats, rotations, a rolled camera, a general pose computed independently in
 * double precision, every culling rule, SH colour per degree and the depth key. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splat_camera.h"
#include "splat_project.h"
#include "splat_scene.h"

#include "check.h"
#include "util.h"

static const double PI = 3.14159265358979323846;
static const double C0 = 0.28209479177387814, C1 = 0.4886025119029199;
static const double C2[5] = {1.0925484305920792, -1.0925484305920792, 0.31539156525252005,
                             -1.0925484305920792, 0.5462742152960396};
static const double C3[7] = {-0.5900435899266435, 2.890611442640554, -0.4570457994644658,
                             0.3731763325901154,  -0.4570457994644658, 1.445305721320277,
                             -0.5900435899266435};

/* A scene of n splats: at the origin, unit scale, identity rotation, opacity 1, SH 0. */
static splat_scene make_scene(uint32_t n, uint32_t degree) {
  splat_scene s;
  memset(&s, 0, sizeof s);
  s.count = n;
  s.sh_degree = degree;
  s.sh_coeffs = (degree + 1) * (degree + 1);
  s.positions = calloc((size_t)n * 3, sizeof(float));
  s.scales = calloc((size_t)n * 3, sizeof(float));
  s.rotations = calloc((size_t)n * 4, sizeof(float));
  s.opacities = calloc(n, sizeof(float));
  s.sh = calloc((size_t)n * s.sh_coeffs * 3, sizeof(float));
  for (uint32_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) s.scales[i * 3 + (uint32_t)k] = 1.0f;
    s.rotations[i * 4] = 1.0f;
    s.opacities[i] = 1.0f;
  }
  return s;
}

static void set_splat(splat_scene *s, uint32_t i, float x, float y, float z, float sx, float sy,
                      float sz) {
  s->positions[i * 3 + 0] = x;
  s->positions[i * 3 + 1] = y;
  s->positions[i * 3 + 2] = z;
  s->scales[i * 3 + 0] = sx;
  s->scales[i * 3 + 1] = sy;
  s->scales[i * 3 + 2] = sz;
}

/* Camera at `pos` looking down world +z with y down (identity rotation). */
static splat_camera ident_camera(float f, uint32_t w, uint32_t h, float px, float py, float pz) {
  const float rot[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const float pos[3] = {px, py, pz};
  splat_camera c;
  if (splat_camera_from_pose(&c, pos, &rot[0][0], f, f, w, h) != 0) {
    fprintf(stderr, "from_pose failed\n");
    exit(1);
  }
  return c;
}

/* Radius from the reference's formula, in double. */
static double ref_radius(double a, double b, double c) {
  double mid = 0.5 * (a + c), det = a * c - b * b;
  return ceil(3.0 * sqrt(mid + sqrt(fmax(0.1, mid * mid - det))));
}

static void test_isotropic_ahead(void) {
  splat_scene s = make_scene(1, 0);
  const double sc = 0.1, f = 100.0, d = 2.0;
  set_splat(&s, 0, 0, 0, (float)d, (float)sc, (float)sc, (float)sc);
  s.opacities[0] = 0.6f;
  splat_camera cam = ident_camera((float)f, 200, 160, 0, 0, 0);
  splat_projected p;
  CHECK(splat_project(&s, 0, &cam, 3, &p) == 1, "straight-ahead splat culled");
  /* cov2D = diag(s^2 f^2 / d^2 + 0.3); b = 0 so mid^2 - det = 0 and the 0.1 floor applies:
   * radius = ceil(3 sqrt(a + sqrt(0.1))) (not ceil(3 sqrt(a))). */
  double a = sc * sc * f * f / (d * d) + 0.3;
  CHECK_REL(p.cov2d[0], a, 1e-5);
  CHECK_NEAR(p.cov2d[1], 0.0, 1e-6);
  CHECK_REL(p.cov2d[2], a, 1e-5);
  CHECK_REL(p.conic[0], 1.0 / a, 1e-5);
  CHECK_NEAR(p.conic[1], 0.0, 1e-7);
  CHECK_REL(p.conic[2], 1.0 / a, 1e-5);
  CHECK_NEAR(p.radius, ceil(3.0 * sqrt(a + sqrt(0.1))), 0.0);
  CHECK_NEAR(p.radius, 16.0, 0.0); /* 3 sqrt(25.616) = 15.18 */
  CHECK_NEAR(p.mean2d[0], 100.0, 1e-5);
  CHECK_NEAR(p.mean2d[1], 80.0, 1e-5);
  CHECK_NEAR(p.depth, 2.0, 0.0);
  CHECK_NEAR(p.opacity, 0.6f, 0.0);
  /* A case where the sqrt(0.1) term changes the radius: a = 3.7 + 0.3 = 4 exactly gives
   * ceil(3 * 2) = 6 without it, ceil(3 sqrt(4.316)) = 7 with it. */
  double sc2 = sqrt(3.7) * d / f;
  set_splat(&s, 0, 0, 0, (float)d, (float)sc2, (float)sc2, (float)sc2);
  CHECK(splat_project(&s, 0, &cam, 3, &p) == 1, "culled");
  CHECK_NEAR(p.radius, 7.0, 0.0);
  splat_scene_free(&s);
}

static void test_off_axis(void) {
  splat_scene s = make_scene(1, 0);
  const double sc = 0.05, f = 150.0, x = 0.3, y = -0.2, z = 2.5;
  set_splat(&s, 0, (float)x, (float)y, (float)z, (float)sc, (float)sc, (float)sc);
  splat_camera cam = ident_camera((float)f, 300, 200, 0, 0, 0);
  splat_projected p;
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "off-axis splat culled");
  /* Sigma = s^2 I, W = I: cov2D = s^2 J J^T + 0.3 I with
   * J = [[f/z, 0, -f x/z^2], [0, f/z, -f y/z^2]]. */
  double a = sc * sc * (f * f / (z * z) + f * f * x * x / pow(z, 4)) + 0.3;
  double b = sc * sc * f * f * x * y / pow(z, 4);
  double c = sc * sc * (f * f / (z * z) + f * f * y * y / pow(z, 4)) + 0.3;
  CHECK_REL(p.cov2d[0], a, 1e-5);
  CHECK_REL(p.cov2d[1], b, 1e-4);
  CHECK_REL(p.cov2d[2], c, 1e-5);
  double det = a * c - b * b;
  CHECK_REL(p.conic[0], c / det, 1e-4);
  CHECK_REL(p.conic[1], -b / det, 1e-3);
  CHECK_REL(p.conic[2], a / det, 1e-4);
  CHECK_NEAR(p.radius, ref_radius(a, b, c), 0.0);
  CHECK_NEAR(p.mean2d[0], f * x / z + 150.0, 1e-4);
  CHECK_NEAR(p.mean2d[1], f * y / z + 100.0, 1e-4);
  /* A principal point off centre moves the mean only. */
  cam.cx = 140.25f;
  cam.cy = 90.5f;
  splat_projected q;
  CHECK(splat_project(&s, 0, &cam, 0, &q) == 1, "culled");
  CHECK_NEAR(q.mean2d[0], f * x / z + 140.25, 1e-4);
  CHECK_NEAR(q.mean2d[1], f * y / z + 90.5, 1e-4);
  CHECK(q.cov2d[0] == p.cov2d[0] && q.radius == p.radius, "principal point changed the shape");
  splat_scene_free(&s);
}

/* Rodrigues: rotation by angle t about unit axis k. */
static void rodrigues(const double k[3], double t, double R[3][3]) {
  double c = cos(t), s = sin(t);
  double K[3][3] = {{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[i][j] = (i == j ? c : 0.0) + s * K[i][j] + (1 - c) * k[i] * k[j];
}

static void sigma_world(double R[3][3], const double sc[3], double S[3][3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      S[i][j] = 0;
      for (int k = 0; k < 3; k++) S[i][j] += R[i][k] * sc[k] * sc[k] * R[j][k];
    }
}

static void test_cov3d(void) {
  /* 90 degrees about z: local x goes to world y, so a splat long along local x is long
   * along world y. */
  float q[4] = {(float)cos(PI / 4), 0, 0, (float)sin(PI / 4)};
  float sc[3] = {1.0f, 0.01f, 0.01f};
  float cov[6];
  splat_cov3d(sc, q, cov);
  CHECK_NEAR(cov[3], 1.0, 1e-5);   /* yy */
  CHECK_NEAR(cov[0], 1e-4, 1e-6);  /* xx */
  CHECK_NEAR(cov[5], 1e-4, 1e-6);  /* zz */
  CHECK_NEAR(cov[1], 0.0, 1e-6);
  /* 90 degrees about y: local x goes to world -z. */
  float qy[4] = {(float)cos(PI / 4), 0, (float)sin(PI / 4), 0};
  splat_cov3d(sc, qy, cov);
  CHECK_NEAR(cov[5], 1.0, 1e-5);
  CHECK_NEAR(cov[0], 1e-4, 1e-6);
  /* 45 degrees about z: along (1,1,0)/sqrt(2), xy = 0.5 (1 - 1e-4) > 0. */
  float q45[4] = {(float)cos(PI / 8), 0, 0, (float)sin(PI / 8)};
  splat_cov3d(sc, q45, cov);
  CHECK_NEAR(cov[1], 0.5 * (1.0 - 1e-4), 1e-5);
  CHECK_NEAR(cov[0], 0.5 * (1.0 + 1e-4), 1e-5);
  /* General: quaternion (cos t/2, sin t/2 k) against Rodrigues' R S^2 R^T. */
  const double axes[3][3] = {{0.267261, 0.534522, 0.801784}, {-0.6, 0.0, 0.8}, {0.0, 1.0, 0.0}};
  const double angles[3] = {1.234, -2.5, 0.3};
  const double scs[3][3] = {{0.3, 0.02, 1.5}, {2.0, 0.5, 0.1}, {0.7, 0.7, 0.05}};
  for (int t = 0; t < 3; t++) {
    double k[3], n = sqrt(axes[t][0] * axes[t][0] + axes[t][1] * axes[t][1] + axes[t][2] * axes[t][2]);
    for (int i = 0; i < 3; i++) k[i] = axes[t][i] / n;
    double R[3][3], S[3][3];
    rodrigues(k, angles[t], R);
    sigma_world(R, scs[t], S);
    float qq[4] = {(float)cos(angles[t] / 2), (float)(sin(angles[t] / 2) * k[0]),
                   (float)(sin(angles[t] / 2) * k[1]), (float)(sin(angles[t] / 2) * k[2])};
    float ss[3] = {(float)scs[t][0], (float)scs[t][1], (float)scs[t][2]};
    splat_cov3d(ss, qq, cov);
    double expect[6] = {S[0][0], S[0][1], S[0][2], S[1][1], S[1][2], S[2][2]};
    for (int e = 0; e < 6; e++)
      CHECK(fabs(cov[e] - expect[e]) < 1e-5 * (1.0 + fabs(expect[e])),
            "rotation %d element %d: %.8g, expected %.8g", t, e, cov[e], expect[e]);
  }
}

static void test_rolled_camera(void) {
  /* Camera rolled 30 degrees about its z: its x axis is world (cos, sin, 0), y axis
   * (-sin, cos, 0). A splat long along world x at (0,0,5) appears along camera
   * (cos30, -sin30): cov2D = (f/z)^2 W2 Sigma W2^T + 0.3 I with W2 = [[c, s, 0], [-s, c, 0]]. */
  double c30 = cos(PI / 6), s30 = sin(PI / 6);
  const float rot[3][3] = {{(float)c30, (float)-s30, 0}, {(float)s30, (float)c30, 0}, {0, 0, 1}};
  const float pos[3] = {0, 0, 0};
  splat_camera cam;
  splat_camera_from_pose(&cam, pos, &rot[0][0], 80.0f, 80.0f, 160, 120);
  splat_scene s = make_scene(1, 0);
  set_splat(&s, 0, 0, 0, 5, 0.5f, 0.001f, 0.001f);
  splat_projected p;
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "culled");
  double k = (80.0 / 5.0) * (80.0 / 5.0), big = 0.25, small = 1e-6;
  double a = k * (big * c30 * c30 + small * s30 * s30) + 0.3;
  double b = k * (-big * c30 * s30 + small * s30 * c30);
  double c = k * (big * s30 * s30 + small * c30 * c30) + 0.3;
  CHECK_REL(p.cov2d[0], a, 1e-5);
  CHECK_REL(p.cov2d[1], b, 1e-5);
  CHECK_REL(p.cov2d[2], c, 1e-5);
  CHECK(p.cov2d[1] < 0.0f, "wrong orientation sign (W transposed?)");
  CHECK_NEAR(p.radius, ref_radius(a, b, c), 0.0);
  splat_scene_free(&s);
}

static void test_general_pose(void) {
  /* Any camera, any splat: EWA in double from the definitions. */
  splat_camera cam;
  const float eye[3] = {2.0f, -1.5f, -3.0f}, tgt[3] = {0.2f, 0.1f, 0.5f}, up[3] = {0.1f, -1, 0.2f};
  splat_camera_look_at(&cam, eye, tgt, up, 55.0f, 320, 240);
  float right[3], down[3], fwd[3];
  splat_camera_axes(&cam, right, down, fwd);
  const double pc[3] = {0.4, -0.3, 3.2}; /* camera-space position wanted */
  float pw[3];
  for (int i = 0; i < 3; i++)
    pw[i] = (float)(eye[i] + right[i] * pc[0] + down[i] * pc[1] + fwd[i] * pc[2]);
  double k[3] = {0.48, -0.6, 0.64}, R[3][3], S[3][3];
  const double sc[3] = {0.2, 0.05, 0.4};
  rodrigues(k, 0.9, R);
  sigma_world(R, sc, S);
  splat_scene s = make_scene(1, 0);
  set_splat(&s, 0, pw[0], pw[1], pw[2], (float)sc[0], (float)sc[1], (float)sc[2]);
  s.rotations[0] = (float)cos(0.45);
  for (int i = 0; i < 3; i++) s.rotations[1 + i] = (float)(sin(0.45) * k[i]);
  splat_projected p;
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "culled");
  /* Recompute the camera-space position from the view matrix (float pw rounding). */
  double t[3];
  for (int r = 0; r < 3; r++)
    t[r] = (double)cam.view[r] * pw[0] + (double)cam.view[4 + r] * pw[1] +
           (double)cam.view[8 + r] * pw[2] + cam.view[12 + r];
  double fx = cam.fx, fy = cam.fy;
  double J[2][3] = {{fx / t[2], 0, -fx * t[0] / (t[2] * t[2])},
                    {0, fy / t[2], -fy * t[1] / (t[2] * t[2])}};
  double W[3][3], T[2][3], cov[2][2];
  for (int i = 0; i < 3; i++) {
    W[0][i] = right[i];
    W[1][i] = down[i];
    W[2][i] = fwd[i];
  }
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++) T[r][c] = J[r][0] * W[0][c] + J[r][1] * W[1][c] + J[r][2] * W[2][c];
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++) {
      cov[r][c] = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) cov[r][c] += T[r][i] * S[i][j] * T[c][j];
    }
  cov[0][0] += 0.3;
  cov[1][1] += 0.3;
  CHECK_REL(p.cov2d[0], cov[0][0], 1e-4);
  CHECK_REL(p.cov2d[1], cov[0][1], 1e-3);
  CHECK_REL(p.cov2d[2], cov[1][1], 1e-4);
  CHECK_NEAR(p.radius, ref_radius(cov[0][0], cov[0][1], cov[1][1]), 0.0);
  CHECK_NEAR(p.mean2d[0], fx * t[0] / t[2] + 160.0, 1e-3);
  CHECK_NEAR(p.mean2d[1], fy * t[1] / t[2] + 120.0, 1e-3);
  CHECK_NEAR(p.depth, t[2], 1e-5);
  CHECK_NEAR(t[2], 3.2, 1e-5);
  splat_scene_free(&s);
}

static void test_culling(void) {
  splat_scene s = make_scene(1, 0);
  splat_projected p;
  /* Near plane: z <= 0.2 culled. */
  splat_camera cam = ident_camera(50.0f, 100, 100, 0, 0, 0);
  set_splat(&s, 0, 0, 0, 0.2f, 0.01f, 0.01f, 0.01f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "z = 0.2 not culled");
  set_splat(&s, 0, 0, 0, 0.21f, 0.01f, 0.01f, 0.01f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "z = 0.21 culled");
  set_splat(&s, 0, 0, 0, -3.0f, 0.01f, 0.01f, 0.01f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "behind the camera not culled");
  /* The near plane is in camera space: a camera moved to z = 5 culls z = 5.1 world. */
  splat_camera moved = ident_camera(50.0f, 100, 100, 0, 0, 5.0f);
  set_splat(&s, 0, 0, 0, 5.1f, 0.01f, 0.01f, 0.01f);
  CHECK(splat_project(&s, 0, &moved, 0, &p) == 0, "near plane not camera-relative");
  set_splat(&s, 0, 0, 0, 5.5f, 0.01f, 0.01f, 0.01f);
  CHECK(splat_project(&s, 0, &moved, 0, &p) == 1, "culled");

  /* Frustum margin: tan_fovx = 100 / (2*50) = 1, limit 1.3. A big splat at x/z = 1.29 is
   * drawn; the same at x/z = 1.31 is culled although its square still reaches into the
   * image (the documented difference from the reference). */
  set_splat(&s, 0, 12.9f, 0, 10.0f, 4.0f, 4.0f, 4.0f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "x/z = 1.29 culled");
  CHECK(p.mean2d[0] - p.radius < 100.0f, "test set-up: footprint should reach the image");
  set_splat(&s, 0, 13.1f, 0, 10.0f, 4.0f, 4.0f, 4.0f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "x/z = 1.31 not culled");
  set_splat(&s, 0, 0, -13.1f, 10.0f, 4.0f, 4.0f, 4.0f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "y/z = -1.31 not culled");
  set_splat(&s, 0, 0, -12.9f, 10.0f, 4.0f, 4.0f, 4.0f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "y/z = -1.29 culled");

  /* Opacity below 1/255 can never show. */
  set_splat(&s, 0, 0, 0, 2.0f, 0.1f, 0.1f, 0.1f);
  s.opacities[0] = 0.99f / 255.0f;
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "opacity < 1/255 not culled");
  s.opacities[0] = 1.01f / 255.0f;
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "opacity > 1/255 culled");
  s.opacities[0] = 1.0f;

  /* Off the image: s = 0.001, f = 50, z = 1: a, c ~ 0.3 + 0.005, the eigenvalue floor
   * gives lambda ~ 0.3 + sqrt(0.1), radius = ceil(3 sqrt(0.62)) = 3. Mean at x = -3.5
   * (square ends at -0.5) is culled; at -2.5 (square ends at 0.5) it is kept. */
  set_splat(&s, 0, (-3.5f - 50.0f) / 50.0f, 0, 1.0f, 0.001f, 0.001f, 0.001f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "off-image splat not culled");
  set_splat(&s, 0, (-2.5f - 50.0f) / 50.0f, 0, 1.0f, 0.001f, 0.001f, 0.001f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "partly visible splat culled");
  CHECK_NEAR(p.radius, 3.0, 0.0);
  set_splat(&s, 0, 0, (103.5f - 50.0f) / 50.0f, 1.0f, 0.001f, 0.001f, 0.001f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "below-image splat not culled");
  set_splat(&s, 0, 0, (102.5f - 50.0f) / 50.0f, 1.0f, 0.001f, 0.001f, 0.001f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "partly visible splat culled");

  /* Overflowing scale gives a non-finite covariance: culled, not garbage. */
  set_splat(&s, 0, 0, 0, 2.0f, 1e30f, 1e30f, 1e30f);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 0, "non-finite covariance not culled");
  /* Index out of range. */
  CHECK(splat_project(&s, 1, &cam, 0, &p) == 0, "index out of range");
  splat_scene_free(&s);
}

static void test_sh(void) {
  /* Degree 0: C0 dc + 0.5, clamped below at 0, not above. */
  splat_scene s = make_scene(1, 0);
  set_splat(&s, 0, 0, 0, 3.0f, 0.1f, 0.1f, 0.1f);
  s.sh[0] = 0.7f;
  s.sh[1] = -3.0f;
  s.sh[2] = 5.0f;
  splat_camera cam = ident_camera(50.0f, 200, 200, 0, 0, 0);
  splat_projected p;
  CHECK(splat_project(&s, 0, &cam, 3, &p) == 1, "culled");
  CHECK_NEAR(p.color[0], C0 * 0.7 + 0.5, 1e-6);
  CHECK_NEAR(p.color[1], 0.0, 0.0);
  CHECK_NEAR(p.color[2], C0 * 5.0 + 0.5, 1e-6);
  splat_scene_free(&s);

  /* Degree 1 along three directions (dir = normalised splat - camera centre). */
  s = make_scene(1, 1);
  const float dc[3] = {0.2f, -0.1f, 0.4f};
  const float sh1[3][3] = {{0.9f, -0.4f, 0.3f}, {-0.6f, 0.5f, 0.8f}, {0.35f, 0.7f, -0.25f}};
  for (int c = 0; c < 3; c++) {
    s.sh[c] = dc[c];
    for (int k = 0; k < 3; k++) s.sh[(1 + k) * 3 + c] = sh1[k][c];
  }
  /* Camera at (1,1,1), splat at (1,1,4): dir = +z: C0 dc + C1 sh[2] + 0.5. */
  cam = ident_camera(50.0f, 200, 200, 1, 1, 1);
  set_splat(&s, 0, 1, 1, 4, 0.1f, 0.1f, 0.1f);
  CHECK(splat_project(&s, 0, &cam, 3, &p) == 1, "culled");
  for (int c = 0; c < 3; c++) CHECK_NEAR(p.color[c], C0 * dc[c] + C1 * sh1[1][c] + 0.5, 1e-6);
  /* dir = (1,0,1)/sqrt2: - C1 x sh[3] + C1 z sh[2]. */
  set_splat(&s, 0, 3, 1, 3, 0.1f, 0.1f, 0.1f);
  CHECK(splat_project(&s, 0, &cam, 3, &p) == 1, "culled");
  double r2 = 1.0 / sqrt(2.0);
  for (int c = 0; c < 3; c++)
    CHECK_NEAR(p.color[c], fmax(0.0, C0 * dc[c] + C1 * r2 * sh1[1][c] - C1 * r2 * sh1[2][c] + 0.5),
               1e-6);
  /* dir = (0,1,1)/sqrt2: - C1 y sh[1] + C1 z sh[2]. */
  set_splat(&s, 0, 1, 3, 3, 0.1f, 0.1f, 0.1f);
  CHECK(splat_project(&s, 0, &cam, 3, &p) == 1, "culled");
  for (int c = 0; c < 3; c++)
    CHECK_NEAR(p.color[c], fmax(0.0, C0 * dc[c] - C1 * r2 * sh1[0][c] + C1 * r2 * sh1[1][c] + 0.5),
               1e-6);
  /* sh_degree_max = 0 ignores the degree-1 terms. */
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "culled");
  for (int c = 0; c < 3; c++) CHECK_NEAR(p.color[c], fmax(0.0, C0 * dc[c] + 0.5), 1e-6);
  splat_scene_free(&s);

  /* Degree 3, each coefficient its own value; checked along the axes and the diagonal. */
  float sh[16 * 3];
  for (int k = 0; k < 16; k++)
    for (int c = 0; c < 3; c++)
      sh[k * 3 + c] = (float)(0.05 * (k + 1) * (c + 1) * ((k % 2) ? -1.0 : 1.0));
#define SH(k, c) ((double)sh[(k) * 3 + (c)])
  float rgb[3];
  const float dz[3] = {0, 0, 1}, dx[3] = {1, 0, 0}, dy[3] = {0, 1, 0};
  float t = (float)(1.0 / sqrt(3.0)), dd[3] = {t, t, t};
  splat_sh_color(3, sh, dz, rgb);
  for (int c = 0; c < 3; c++)
    CHECK_NEAR(rgb[c], fmax(0.0, C0 * SH(0, c) + C1 * SH(2, c) + 2 * C2[2] * SH(6, c) +
                                     2 * C3[3] * SH(12, c) + 0.5), 1e-6);
  splat_sh_color(3, sh, dx, rgb);
  for (int c = 0; c < 3; c++)
    CHECK_NEAR(rgb[c], fmax(0.0, C0 * SH(0, c) - C1 * SH(3, c) - C2[2] * SH(6, c) +
                                     C2[4] * SH(8, c) - C3[4] * SH(13, c) + C3[6] * SH(15, c) + 0.5),
               1e-6);
  /* Along y the sum is negative with these values; a large DC keeps it above the clamp. */
  float shy[16 * 3];
  memcpy(shy, sh, sizeof sh);
  shy[0] = shy[1] = shy[2] = 10.0f;
  splat_sh_color(3, shy, dy, rgb);
  for (int c = 0; c < 3; c++)
    CHECK_NEAR(rgb[c], C0 * 10.0 - C1 * SH(1, c) - C2[2] * SH(6, c) - C2[4] * SH(8, c) -
                           C3[0] * SH(9, c) - C3[2] * SH(11, c) + 0.5,
               1e-6);
  CHECK(rgb[0] > 0.0f && rgb[2] > 0.0f, "test set-up: y-direction colour clamped");
  double u = 1.0 / sqrt(3.0);
  splat_sh_color(3, sh, dd, rgb);
  for (int c = 0; c < 3; c++) {
    double e = C0 * SH(0, c) - C1 * u * SH(1, c) + C1 * u * SH(2, c) - C1 * u * SH(3, c) +
               C2[0] / 3 * SH(4, c) + C2[1] / 3 * SH(5, c) + C2[3] / 3 * SH(7, c) +
               C3[0] * 2 * u / 3 * SH(9, c) + C3[1] * u / 3 * SH(10, c) +
               C3[2] * 2 * u / 3 * SH(11, c) - C3[3] * 4 * u / 3 * SH(12, c) +
               C3[4] * 2 * u / 3 * SH(13, c) - C3[6] * 2 * u / 3 * SH(15, c) + 0.5;
    CHECK_NEAR(rgb[c], fmax(0.0, e), 1e-6);
  }
  /* dir = (2, 3, 6) / 7: every term nonzero and x, y, z distinct, each basis polynomial
   * evaluated by hand: xy = 6/49, yz = 18/49, xz = 12/49, 2zz - xx - yy = 59/49,
   * xx - yy = -5/49, y(3xx - yy) = 9/343, xyz = 36/343, y(4zz - xx - yy) = 393/343,
   * z(2zz - 3xx - 3yy) = 198/343, x(4zz - xx - yy) = 262/343, z(xx - yy) = -30/343,
   * x(xx - 3yy) = -46/343. */
  float dg[3] = {2.0f / 7.0f, 3.0f / 7.0f, 6.0f / 7.0f};
  splat_sh_color(3, sh, dg, rgb);
  for (int c = 0; c < 3; c++) {
    double e = C0 * SH(0, c) - C1 * 3 / 7 * SH(1, c) + C1 * 6 / 7 * SH(2, c) -
               C1 * 2 / 7 * SH(3, c) + C2[0] * 6 / 49 * SH(4, c) + C2[1] * 18 / 49 * SH(5, c) +
               C2[2] * 59 / 49 * SH(6, c) + C2[3] * 12 / 49 * SH(7, c) -
               C2[4] * 5 / 49 * SH(8, c) + C3[0] * 9 / 343 * SH(9, c) +
               C3[1] * 36 / 343 * SH(10, c) + C3[2] * 393 / 343 * SH(11, c) +
               C3[3] * 198 / 343 * SH(12, c) + C3[4] * 262 / 343 * SH(13, c) -
               C3[5] * 30 / 343 * SH(14, c) - C3[6] * 46 / 343 * SH(15, c) + 0.5;
    CHECK_NEAR(rgb[c], fmax(0.0, e), 2e-6);
  }
  /* Degree 2 stops before the cubic terms. */
  splat_sh_color(2, sh, dz, rgb);
  for (int c = 0; c < 3; c++)
    CHECK_NEAR(rgb[c], fmax(0.0, C0 * SH(0, c) + C1 * SH(2, c) + 2 * C2[2] * SH(6, c) + 0.5), 1e-6);
#undef SH
  /* Through splat_project on a degree-3 scene, sh_degree_max limits the degree. */
  s = make_scene(1, 3);
  memcpy(s.sh, sh, sizeof sh);
  cam = ident_camera(50.0f, 200, 200, 0, 0, 0);
  set_splat(&s, 0, 0, 0, 2, 0.1f, 0.1f, 0.1f);
  float want[4][3];
  for (int d = 0; d < 4; d++) splat_sh_color(d, sh, dz, want[d]);
  for (int d = 0; d <= 5; d++) {
    CHECK(splat_project(&s, 0, &cam, d, &p) == 1, "culled");
    int used = d > 3 ? 3 : d;
    CHECK(memcmp(p.color, want[used], sizeof p.color) == 0, "sh_degree_max %d", d);
  }
  CHECK(splat_project(&s, 0, &cam, -1, &p) == 1 && memcmp(p.color, want[0], sizeof p.color) == 0,
        "negative sh_degree_max");
  splat_scene_free(&s);
}

/* Anti-aliased scenes: opacity * sqrt(max(0, det(C) / det(C + 0.3 I))), C the 2D covariance
 * before the dilation; everything else as without the flag. */
static void test_antialiased(void) {
  splat_scene s = make_scene(1, 0);
  const double sc = 0.1, f = 100.0, d = 2.0;
  set_splat(&s, 0, 0, 0, (float)d, (float)sc, (float)sc, (float)sc);
  s.opacities[0] = 0.6f;
  splat_camera cam = ident_camera((float)f, 200, 160, 0, 0, 0);
  splat_projected plain, p;
  CHECK(splat_project(&s, 0, &cam, 0, &plain) == 1, "culled");
  s.flags = SPLAT_SCENE_ANTIALIASED;
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "culled with the flag");
  /* C = diag(k, k), k = s^2 f^2 / d^2 = 25: the factor is k / (k + 0.3) = 25 / 25.3. */
  CHECK_REL(p.opacity, 0.6 * 25.0 / 25.3, 1e-6);
  CHECK(memcmp(p.conic, plain.conic, sizeof p.conic) == 0 && p.radius == plain.radius &&
            memcmp(p.mean2d, plain.mean2d, sizeof p.mean2d) == 0 && p.depth == plain.depth &&
            memcmp(p.cov2d, plain.cov2d, sizeof p.cov2d) == 0,
        "the flag changed more than the opacity");

  /* Off axis (b != 0), test_off_axis's splat: C = s^2 J J^T. */
  const double so = 0.05, fo = 150.0, x = 0.3, y = -0.2, z = 2.5;
  set_splat(&s, 0, (float)x, (float)y, (float)z, (float)so, (float)so, (float)so);
  s.opacities[0] = 0.9f;
  cam = ident_camera((float)fo, 300, 200, 0, 0, 0);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "off-axis splat culled");
  double a0 = so * so * (fo * fo / (z * z) + fo * fo * x * x / pow(z, 4));
  double b = so * so * fo * fo * x * y / pow(z, 4);
  double c0 = so * so * (fo * fo / (z * z) + fo * fo * y * y / pow(z, 4));
  double want = 0.9 * sqrt((a0 * c0 - b * b) / ((a0 + 0.3) * (c0 + 0.3) - b * b));
  CHECK_REL(p.opacity, want, 1e-5);

  /* A splat flat along the view's y (scale_y 0): det(C) = 0, so opacity 0, and not culled. */
  set_splat(&s, 0, 0, 0, (float)d, (float)sc, 0.0f, (float)sc);
  s.opacities[0] = 0.6f;
  cam = ident_camera((float)f, 200, 160, 0, 0, 0);
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "flat splat culled");
  CHECK_NEAR(p.opacity, 0.0, 0.0);
  splat_scene_free(&s);
}

static void test_depth_key(void) {
  CHECK(splat_depth_key(1.0f) == ~0x3f800000u, "key(1) = %08x", splat_depth_key(1.0f));
  const float z[] = {0.2000001f, 0.25f, 0.5f, 1.0f, 1.0000001f, 1.5f, 100.0f, 1e30f};
  for (size_t i = 1; i < sizeof z / sizeof z[0]; i++)
    CHECK(splat_depth_key(z[i]) < splat_depth_key(z[i - 1]),
          "farther z %g does not sort before %g", z[i], z[i - 1]);
  CHECK(splat_depth_key(3.0f) == splat_depth_key(3.0f), "equal depths");
}

/* The GPU storage's encoding (splat_pack_shape, halves, 8-bit SH): round trips within each
 * format's step, scales from 1e-5 to 1e2 (trained scenes' range) and beyond the half's. */
static void test_storage(void) {
  const float scales[] = {0.0f, 1e-7f, 1e-5f, 6.2e-5f, 1e-3f, 0.37f, 1.0f, 99.0f, 1e5f};
  for (size_t i = 0; i < sizeof scales / sizeof *scales; i++) {
    float sc[3] = {scales[i], 0.5f, 2.0f}, q[4] = {0.5f, -0.5f, 0.5f, 0.5f}, sd[3], qd[4];
    uint32_t w[4];
    splat_pack_shape(sc, q, w);
    splat_unpack_shape(w, sd, qd);
    /* halves: relative 2^-11 when normal (>= 6.1e-5), absolute 2^-25 below; 65504 at most */
    double want = fmin(sc[0], 65504.0), tol = want >= 6.1e-5 ? want * 0x1.0p-11 : 0x1.0p-25;
    CHECK(fabs(sd[0] - want) <= tol, "scale %g stored as %g", (double)sc[0], (double)sd[0]);
    for (int k = 0; k < 4; k++)
      CHECK(fabs(qd[k] - q[k]) <= 0.5 / 32767 + 1e-7, "rotation %d: %g stored as %g", k, (double)q[k], (double)qd[k]);
    CHECK((w[3] >> 16) == 0, "the shape's spare half is not zero");
  }
  /* every half decodes and encodes back to itself (NaNs aside) */
  for (uint32_t h = 0; h < 0x10000u; h++) {
    float f = splat_half_to_float((uint16_t)h);
    if (isnan(f)) continue;
    CHECK(splat_float_to_half(f) == h, "half %04x -> %g -> %04x", h, (double)f, splat_float_to_half(f));
  }
  /* 8-bit: each value within half a step of its range, the ends exact */
  splat_scene s = make_scene(300, 1);
  for (uint32_t i = 0; i < 300 * 12; i++) s.sh[i] = (float)sin(i * 0.37) * (i % 12 < 3 ? 2.0f : 0.3f);
  float scale[12], offset[12];
  splat_sh8_range(&s, scale, offset);
  double worst = 0;
  for (uint32_t i = 0; i < 300 * 12; i++) {
    uint32_t h = i % 12;
    float d = splat_sh8_decode(splat_sh8_encode(s.sh[i], scale[h], offset[h]), scale[h], offset[h]);
    worst = fmax(worst, fabs(d - s.sh[i]) / scale[h]);
  }
  CHECK(worst <= 0.5 + 1e-3, "8-bit SH: an error of %.3f steps", worst);
  CHECK(splat_sh8_decode(0, scale[0], offset[0]) == offset[0], "8-bit: code 0 is not the minimum");
  splat_scene_free(&s);
  printf("  storage: shapes, halves and 8-bit SH within their steps (8-bit worst %.3f steps)\n", worst);
}

/* ---- ray depth (splat_project_ray_depth, splat_ray_depth_at) --------------------------------- */

/* The splat's camera-space inverse covariance and centre, in double from the definitions
 * (quaternion to matrix, R S^2 R^T, W Sigma W^T, a general inverse). */
static void ray_density(const splat_scene *s, uint32_t i, const splat_camera *cam, double Ainv[3][3], double t[3]) {
  const float *q = s->rotations + i * 4, *sc = s->scales + i * 3, *pw = s->positions + i * 3;
  double l = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
  double w = q[0] / l, x = q[1] / l, y = q[2] / l, z = q[3] / l;
  double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  double scd[3] = {sc[0], sc[1], sc[2]}, S[3][3], C[3][3];
  sigma_world(R, scd, S);
  for (int r = 0; r < 3; r++) {
    t[r] = (double)cam->view[r] * pw[0] + (double)cam->view[4 + r] * pw[1] + (double)cam->view[8 + r] * pw[2] +
           cam->view[12 + r];
    for (int c = 0; c < 3; c++) {
      C[r][c] = 0;
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) C[r][c] += (double)cam->view[a * 4 + r] * S[a][b] * cam->view[b * 4 + c];
    }
  }
  double det = C[0][0] * (C[1][1] * C[2][2] - C[1][2] * C[2][1]) - C[0][1] * (C[1][0] * C[2][2] - C[1][2] * C[2][0]) +
               C[0][2] * (C[1][0] * C[2][1] - C[1][1] * C[2][0]);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
      Ainv[r][c] = (C[r1][c1] * C[r2][c2] - C[r1][c2] * C[r2][c1]) / det;
    }
}

/* Brute force: golden-section search of tau in [-100, 100] for the minimum of
 * (tau d - t)^T A (tau d - t), the density's maximum along the ray (convex: one minimum). */
static double ray_depth_search(double A[3][3], const double t[3], double u, double v) {
  const double d[3] = {u, v, 1.0}, g = (sqrt(5.0) - 1.0) / 2.0;
  double lo = -100.0, hi = 100.0;
  for (int it = 0; it < 200; it++) {
    double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo), q[2];
    for (int k = 0; k < 2; k++) {
      double tau = k ? m2 : m1, e[3], sum = 0;
      for (int r = 0; r < 3; r++) e[r] = tau * d[r] - t[r];
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) sum += e[r] * A[r][c] * e[c];
      q[k] = sum;
    }
    if (q[0] < q[1]) hi = m2;
    else lo = m1;
  }
  return 0.5 * (lo + hi);
}

static float urand(uint64_t *st) { return (float)(splitmix64(st) >> 40) / 16777216.0f; }

static void test_ray_depth(void) {
  splat_camera cam;
  const float eye[3] = {1.5f, -1.0f, -3.0f}, tgt[3] = {0.1f, 0.2f, 0.3f}, up[3] = {0.2f, -1, 0.1f};
  CHECK(splat_camera_look_at(&cam, eye, tgt, up, 60.0f, 320, 240) == 0, "look_at");
  splat_scene s = make_scene(1, 0);
  uint64_t st = 12345;
  double worst = 0, worst_flat = 0;
  for (int i = 0; i < 200; i++) {
    /* A random splat near the target; every third one flat (1e-4 or exactly 0 thick). */
    for (int k = 0; k < 3; k++) {
      s.positions[k] = tgt[k] + (urand(&st) - 0.5f) * 1.5f;
      s.scales[k] = 0.05f + 0.45f * urand(&st);
    }
    int flat = i % 3 == 2;
    if (flat) s.scales[i % 2 ? 2 : 0] = i % 6 == 5 ? 0.0f : 1e-4f;
    float q[4], l = 0;
    for (int k = 0; k < 4; k++) q[k] = urand(&st) - 0.5f, l += q[k] * q[k];
    for (int k = 0; k < 4; k++) s.rotations[k] = q[k] / sqrtf(l);
    splat_ray_depth r;
    splat_project_ray_depth(&s, 0, &cam, &r);
    double A[3][3], t[3];
    if (!flat) ray_density(&s, 0, &cam, A, t);
    for (int j = 0; j < 5; j++) {
      float px = 320.0f * urand(&st), py = 240.0f * urand(&st);
      double u = ((double)px - cam.cx) / cam.fx, v = ((double)py - cam.cy) / cam.fy, want;
      if (flat) {
        /* A flat splat is a plane through its centre: the ray meets it at n.t / n.d, n the
         * thin axis (a column of R) in camera space. */
        int thin = i % 2 ? 2 : 0;
        double sw = s.rotations[0], sx = s.rotations[1], sy = s.rotations[2], sz = s.rotations[3];
        double Rc[3][3] = {{1 - 2 * (sy * sy + sz * sz), 2 * (sx * sy + sw * sz), 2 * (sx * sz - sw * sy)},
                           {2 * (sx * sy - sw * sz), 1 - 2 * (sx * sx + sz * sz), 2 * (sy * sz + sw * sx)},
                           {2 * (sx * sz + sw * sy), 2 * (sy * sz - sw * sx), 1 - 2 * (sx * sx + sy * sy)}};
        double n[3], tc[3], nt = 0, nd = 0, d[3] = {u, v, 1};
        for (int row = 0; row < 3; row++) {
          n[row] = tc[row] = 0;
          for (int c = 0; c < 3; c++) n[row] += (double)cam.view[c * 4 + row] * Rc[thin][c];
          tc[row] = (double)cam.view[row] * s.positions[0] + (double)cam.view[4 + row] * s.positions[1] +
                    (double)cam.view[8 + row] * s.positions[2] + cam.view[12 + row];
          nt += n[row] * tc[row], nd += n[row] * d[row];
        }
        want = nt / nd;
        /* Far along the plane (or grazing) the in-plane axes pull the maximum off the plane. */
        if (!(fabs(want - tc[2]) < 1.0)) continue;
      } else {
        want = ray_depth_search(A, t, u, v);
      }
      double got = splat_ray_depth_at(&r, &cam, px, py), err = fabs(got - want) / fabs(want);
      if (flat) worst_flat = fmax(worst_flat, err);
      else worst = fmax(worst, err);
      CHECK(err < (flat ? 2e-4 : 1e-4), "splat %d pixel (%g, %g): ray depth %.9g, expected %.9g (%s)", i, px, py,
            got, want, flat ? "plane" : "search");
    }
  }
  /* No usable scale: A = I and b = t, the depth of the ray's point nearest the centre. b is
   * splat_project's centre bit for bit. */
  s.scales[0] = s.scales[1] = s.scales[2] = 0.0f;
  s.positions[0] = 0.3f, s.positions[1] = -0.2f, s.positions[2] = 0.4f;
  splat_ray_depth r;
  splat_project_ray_depth(&s, 0, &cam, &r);
  splat_projected p;
  CHECK(splat_project(&s, 0, &cam, 0, &p) == 1, "zero-scale splat culled");
  CHECK(r.a00 == 1.0f && r.a11 == 1.0f && r.a01 == 0.0f && r.a02 == 0.0f && r.a12 == 0.0f, "fallback A not I");
  CHECK(r.b[2] == p.depth, "fallback b.z %.9g, splat_project's depth %.9g", r.b[2], p.depth);
  CHECK(splat_ray_depth_at(&r, &cam, cam.cx, cam.cy) == p.depth, "fallback depth at the principal point");
  float u = (10.5f - cam.cx) / cam.fx, v = (200.5f - cam.cy) / cam.fy;
  float want = (r.b[0] * u + r.b[1] * v + r.b[2]) / (u * u + v * v + 1.0f);
  CHECK(splat_ray_depth_at(&r, &cam, 10.5f, 200.5f) == want, "fallback depth off axis");
  s.scales[1] = NAN;
  splat_project_ray_depth(&s, 0, &cam, &r);
  CHECK(r.a00 == 1.0f && r.a01 == 0.0f && r.b[2] == p.depth, "NaN scale: no fallback");
  splat_scene_free(&s);
  printf("  ray depth: worst relative error %.2g against the search, %.2g against the plane (flat)\n", worst,
         worst_flat);
}

int main(void) {
  test_storage();
  test_isotropic_ahead();
  test_off_axis();
  test_cov3d();
  test_rolled_camera();
  test_general_pose();
  test_culling();
  test_sh();
  test_depth_key();
  test_antialiased();
  test_ray_depth();
  return check_report("test_project");
}
