/* scene_lod_merge.c: the Gaussian that stands for an interior node of the LOD tree, merged from
 * its children by the rule of Kerbl et al., "A Hierarchical 3D Gaussian Representation for
 * Real-Time Rendering of Very Large Datasets" (SIGGRAPH 2024), Sec. 4.1 (splat_scene.h states it). */
#include "scene_common.h"

#include <float.h>

#define LOD_PI 3.14159265358979323846
/* The smallest merged scale: a merge of points (all scales 0) stays a valid, tiny Gaussian. */
#define LOD_MIN_SCALE 1e-9

/* Rotation matrix of the quaternion q (w, x, y, z), normalised here in double. */
static void quat_to_matrix(const float *qf, double r[3][3]) {
  double w = qf[0], x = qf[1], y = qf[2], z = qf[3];
  double n = sqrt(w * w + x * x + y * y + z * z);
  if (n > 0) w /= n, x /= n, y /= n, z /= n;
  else w = 1, x = y = z = 0;
  r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - w * z), r[0][2] = 2 * (x * z + w * y);
  r[1][0] = 2 * (x * y + w * z), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - w * x);
  r[2][0] = 2 * (x * z - w * y), r[2][1] = 2 * (y * z + w * x), r[2][2] = 1 - 2 * (x * x + y * y);
}

/* The unit quaternion (w >= 0) of a proper rotation matrix (Shepperd's method: the largest of
 * the four candidates divides, so it is accurate for every rotation). */
static void matrix_to_quat(double r[3][3], float q[4]) {
  double w, x, y, z, tr = r[0][0] + r[1][1] + r[2][2];
  if (tr > 0) {
    double s = sqrt(tr + 1) * 2;
    w = s / 4, x = (r[2][1] - r[1][2]) / s, y = (r[0][2] - r[2][0]) / s, z = (r[1][0] - r[0][1]) / s;
  } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
    double s = sqrt(1 + r[0][0] - r[1][1] - r[2][2]) * 2;
    w = (r[2][1] - r[1][2]) / s, x = s / 4, y = (r[0][1] + r[1][0]) / s, z = (r[0][2] + r[2][0]) / s;
  } else if (r[1][1] > r[2][2]) {
    double s = sqrt(1 + r[1][1] - r[0][0] - r[2][2]) * 2;
    w = (r[0][2] - r[2][0]) / s, x = (r[0][1] + r[1][0]) / s, y = s / 4, z = (r[1][2] + r[2][1]) / s;
  } else {
    double s = sqrt(1 + r[2][2] - r[0][0] - r[1][1]) * 2;
    w = (r[1][0] - r[0][1]) / s, x = (r[0][2] + r[2][0]) / s, y = (r[1][2] + r[2][1]) / s, z = s / 4;
  }
  double n = sqrt(w * w + x * x + y * y + z * z), sign = w < 0 ? -1.0 : 1.0;
  q[0] = (float)(sign * w / n), q[1] = (float)(sign * x / n), q[2] = (float)(sign * y / n),
  q[3] = (float)(sign * z / n);
}

/* Eigen-decomposition of the symmetric a (destroyed) by cyclic Jacobi rotations: a = v diag(l) v^T,
 * eigenvalues largest first, v a proper rotation (its columns the eigenvectors). */
static void jacobi3(double a[3][3], double l[3], double v[3][3]) {
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v[i][j] = i == j;
  for (int sweep = 0; sweep < 32; ++sweep) {
    double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
    if (!(off > 1e-30 * diag)) break; /* converged (or zero, or NaN: nothing to gain) */
    for (int k = 0; k < 3; ++k) {
      int p = pairs[k][0], q = pairs[k][1];
      if (a[p][q] == 0) continue;
      double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
      double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
      double c = 1 / sqrt(t * t + 1), s = t * c;
      for (int i = 0; i < 3; ++i) { /* a J */
        double aip = a[i][p], aiq = a[i][q];
        a[i][p] = c * aip - s * aiq, a[i][q] = s * aip + c * aiq;
      }
      for (int i = 0; i < 3; ++i) { /* J^T (a J) */
        double api = a[p][i], aqi = a[q][i];
        a[p][i] = c * api - s * aqi, a[q][i] = s * api + c * aqi;
      }
      for (int i = 0; i < 3; ++i) {
        double vip = v[i][p], viq = v[i][q];
        v[i][p] = c * vip - s * viq, v[i][q] = s * vip + c * viq;
      }
    }
  }
  for (int i = 0; i < 3; ++i) l[i] = a[i][i];
  for (int i = 0; i < 2; ++i) /* three elements: selection sort, columns with them */
    for (int j = i + 1; j < 3; ++j)
      if (l[j] > l[i]) {
        double t = l[i];
        l[i] = l[j], l[j] = t;
        for (int r = 0; r < 3; ++r) t = v[r][i], v[r][i] = v[r][j], v[r][j] = t;
      }
  double det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
               v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
  if (det < 0)
    for (int r = 0; r < 3; ++r) v[r][2] = -v[r][2];
}

/* pi s_a s_b, s_a and s_b the two largest of three scales (>= 0): the largest pairwise product. */
static double surface(double s0, double s1, double s2) {
  double a = s0 * s1, b = s0 * s2, c = s1 * s2;
  double m = a > b ? a : b;
  return LOD_PI * (m > c ? m : c);
}

void scene_lod_merge(const splat_scene *src, uint32_t first, uint32_t count, splat_scene *dst, uint32_t at) {
  double w[SPLAT_LOD_MAX_CHILDREN], wsum = 0, max_alpha = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const float *s = src->scales + (size_t)(first + i) * 3;
    double alpha = src->opacities[first + i];
    w[i] = alpha * surface(s[0], s[1], s[2]);
    wsum += w[i];
    max_alpha = alpha > max_alpha ? alpha : max_alpha;
  }
  bool equal = !(wsum > 0); /* all transparent or flat: the children weigh the same */
  if (equal) {
    for (uint32_t i = 0; i < count; ++i) w[i] = 1;
    wsum = count;
  }
  double mu[3] = {0, 0, 0};
  for (uint32_t i = 0; i < count; ++i)
    for (int c = 0; c < 3; ++c) mu[c] += w[i] * src->positions[(size_t)(first + i) * 3 + c];
  for (int c = 0; c < 3; ++c) mu[c] /= wsum;
  double cov[3][3] = {{0}};
  for (uint32_t i = 0; i < count; ++i) {
    const float *p = src->positions + (size_t)(first + i) * 3, *s = src->scales + (size_t)(first + i) * 3;
    double r[3][3], d[3] = {p[0] - mu[0], p[1] - mu[1], p[2] - mu[2]};
    double s2[3] = {(double)s[0] * s[0], (double)s[1] * s[1], (double)s[2] * s[2]};
    quat_to_matrix(src->rotations + (size_t)(first + i) * 4, r);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        cov[a][b] += w[i] * (r[a][0] * r[b][0] * s2[0] + r[a][1] * r[b][1] * s2[1] + r[a][2] * r[b][2] * s2[2] +
                             d[a] * d[b]);
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) cov[a][b] /= wsum;
  double l[3], v[3][3], scale[3];
  jacobi3(cov, l, v);
  for (int c = 0; c < 3; ++c) {
    double sc = sqrt(l[c] > LOD_MIN_SCALE * LOD_MIN_SCALE ? l[c] : LOD_MIN_SCALE * LOD_MIN_SCALE);
    scale[c] = sc < FLT_MAX ? sc : FLT_MAX; /* NaN (an overflowed sum) too */
    dst->scales[(size_t)at * 3 + c] = (float)scale[c];
    dst->positions[(size_t)at * 3 + c] = (float)mu[c];
  }
  matrix_to_quat(v, dst->rotations + (size_t)at * 4);
  double area = surface(scale[0], scale[1], scale[2]);
  double opacity = equal ? max_alpha : area > 0 && wsum < area ? wsum / area : 1.0;
  dst->opacities[at] = (float)opacity;
  size_t nsh = (size_t)src->sh_coeffs * 3;
  float *out = dst->sh + (size_t)at * nsh;
  for (size_t k = 0; k < nsh; ++k) {
    double sum = 0;
    for (uint32_t i = 0; i < count; ++i) sum += w[i] * src->sh[(size_t)(first + i) * nsh + k];
    out[k] = (float)(sum / wsum);
  }
}
