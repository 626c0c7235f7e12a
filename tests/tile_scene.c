/* tile_scene: a large scene with real structure for the level-of-detail benchmarks (issue 35):
 * N copies of a real capture on a grid in its ground plane, each turned about its up by a random
 * angle (positions, rotations and spherical harmonics turned together), written as a binary 3DGS
 * .ply row by row (100M splats need no copy in memory). Same arguments, same bytes. */
#include "splat_scene.h"
#include "util.h" /* splitmix64 */
#include "view_control.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
  fprintf(f,
          "usage: tile_scene --scene FILE --copies N --out FILE.ply [--seed S] [--up X,Y,Z]\n"
          "                  [--gap G] [--frame-from FILE] [--views FILE.txt] [--check]\n"
          "  N copies of the scene on a square grid in the plane across its up (found from its\n"
          "  splats as the viewer does, or --up), copy i in row i / ceil(sqrt N), each turned\n"
          "  about up through the core's centre by a random angle from --seed (default 1); cells\n"
          "  are the core's widest horizontal extent times (1 + G) apart (--gap, default 0.25).\n"
          "  Copy 0 is the scene itself, unturned, at cell 0. The scene's splats outside its core\n"
          "  (background, sky) are copied too. --frame-from: up, centre and cells from another\n"
          "  file (a decimation of the scene tiles exactly as the scene). --views: three cameras\n"
          "  of the grid, a line each (name eye target up, comma-separated): aerial (the whole\n"
          "  grid from high above), mid (from outside a corner, 30 degrees down) and street (at\n"
          "  half the capture's height, looking across the grid). --check evaluates every copy's colours along 64\n"
          "  directions against the scene's own along the turned-back directions.\n");
}

static int die(const char *what, const char *v) {
  if (v)
    fprintf(stderr, "tile_scene: %s (got '%s')\n", what, v);
  else
    fprintf(stderr, "tile_scene: %s\n", what);
  return 2;
}

/* The real SH basis of band l (1..3) at unit direction d, in the order and signs of the 3DGS
 * rasterizer's coefficients 1..15 (only the span of each band matters for turning it, but the
 * check below evaluates colours, so the functions are the reference's). */
static void sh_band(int l, const double d[3], double *y) {
  double x = d[0], yy = d[1], z = d[2];
  if (l == 1) {
    y[0] = -0.4886025119029199 * yy;
    y[1] = 0.4886025119029199 * z;
    y[2] = -0.4886025119029199 * x;
  } else if (l == 2) {
    y[0] = 1.0925484305920792 * x * yy;
    y[1] = -1.0925484305920792 * yy * z;
    y[2] = 0.31539156525252005 * (2 * z * z - x * x - yy * yy);
    y[3] = -1.0925484305920792 * x * z;
    y[4] = 0.5462742152960396 * (x * x - yy * yy);
  } else {
    y[0] = -0.5900435899266435 * yy * (3 * x * x - yy * yy);
    y[1] = 2.890611442640554 * x * yy * z;
    y[2] = -0.4570457994644658 * yy * (4 * z * z - x * x - yy * yy);
    y[3] = 0.3731763325901154 * z * (2 * z * z - 3 * x * x - 3 * yy * yy);
    y[4] = -0.4570457994644658 * x * (4 * z * z - x * x - yy * yy);
    y[5] = 1.445305721320277 * z * (x * x - yy * yy);
    y[6] = -0.5900435899266435 * x * (x * x - 3 * yy * yy);
  }
}

static void mat3_vec(const double m[9], const double v[3], double o[3]) {
  for (int r = 0; r < 3; r++) o[r] = m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2];
}

static void mat3_tvec(const double m[9], const double v[3], double o[3]) {
  for (int r = 0; r < 3; r++) o[r] = m[r] * v[0] + m[3 + r] * v[1] + m[6 + r] * v[2];
}

/* A fixed set of well-spread unit directions (a Fibonacci sphere). */
#define DIRS 64
static void sphere_dir(int i, double d[3]) {
  double z = 1.0 - (2.0 * i + 1.0) / DIRS, r = sqrt(1.0 - z * z), a = 2.399963229728653 * i;
  d[0] = r * cos(a);
  d[1] = r * sin(a);
  d[2] = z;
}

/* Solves the n x n system a x = b in place (Gaussian elimination with partial pivoting). */
static int solve(int n, double *a, double *b, int nrhs) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(a[r * n + c]) > fabs(a[p * n + c])) p = r;
    if (fabs(a[p * n + c]) < 1e-12) return -1;
    for (int k = 0; k < n; k++) {
      double t = a[c * n + k];
      a[c * n + k] = a[p * n + k];
      a[p * n + k] = t;
    }
    for (int k = 0; k < nrhs; k++) {
      double t = b[c * nrhs + k];
      b[c * nrhs + k] = b[p * nrhs + k];
      b[p * nrhs + k] = t;
    }
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      double f = a[r * n + c] / a[c * n + c];
      for (int k = 0; k < n; k++) a[r * n + k] -= f * a[c * n + k];
      for (int k = 0; k < nrhs; k++) b[r * nrhs + k] -= f * b[c * nrhs + k];
    }
  }
  for (int r = 0; r < n; r++)
    for (int k = 0; k < nrhs; k++) b[r * nrhs + k] /= a[r * n + r];
  return 0;
}

/* Band l's turn: the (2l+1) x (2l+1) matrix m with turned = m * original, for an object turned by
 * rot (its colour seen along d is the original's along rot^T d). Least squares over DIRS
 * directions: sum_k Y_k(d) t_k = sum_j Y_j(rot^T d) c_j. */
static int band_turn(int l, const double rot[9], double *m) {
  int n = 2 * l + 1;
  double ata[49] = {0}, atb[49] = {0};
  for (int i = 0; i < DIRS; i++) {
    double d[3], back[3], a[7], b[7];
    sphere_dir(i, d);
    mat3_tvec(rot, d, back);
    sh_band(l, d, a);
    sh_band(l, back, b);
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        ata[r * n + c] += a[r] * a[c];
        atb[r * n + c] += a[r] * b[c];
      }
  }
  if (solve(n, ata, atb, n)) return -1;
  memcpy(m, atb, sizeof(double) * (size_t)(n * n));
  return 0;
}

/* Turns splat i's coefficients (sh_coeffs of 3 channels) by the bands' matrices into out. */
static void turn_sh(const float *in, uint32_t coeffs, double *const bands[3], float *out) {
  for (int c = 0; c < 3; c++) out[c] = in[c];
  for (int l = 1; (uint32_t)((l + 1) * (l + 1)) <= coeffs; l++) {
    int n = 2 * l + 1, base = l * l;
    for (int r = 0; r < n; r++)
      for (int c = 0; c < 3; c++) {
        double s = 0;
        for (int k = 0; k < n; k++) s += bands[l - 1][r * n + k] * in[(base + k) * 3 + c];
        out[(base + r) * 3 + c] = (float)s;
      }
  }
}

/* The colour (before the 0.5 offset and clamp) of coefficients sh along unit d. */
static double sh_eval(const float *sh, uint32_t coeffs, int channel, const double d[3]) {
  double s = 0.28209479177387814 * sh[channel];
  for (int l = 1; (uint32_t)((l + 1) * (l + 1)) <= coeffs; l++) {
    double y[7];
    sh_band(l, d, y);
    for (int k = 0; k < 2 * l + 1; k++) s += y[k] * sh[(l * l + k) * 3 + channel];
  }
  return s;
}

static uint64_t next_rand(uint64_t *state) { return splitmix64(state); }

typedef struct copy_turn {
  double rot[9];    /* row-major, world from the scene's frame */
  double q[4];      /* the same turn as a quaternion w, x, y, z */
  double offset[3]; /* p' = rot (p - centre) + centre + offset */
  double bands[3][49];
} copy_turn;

static void make_turn(const float up[3], double angle, copy_turn *t) {
  double u[3] = {up[0], up[1], up[2]}, c = cos(angle), s = sin(angle), h = 0.5 * angle;
  double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int k = 0; k < 3; k++) u[k] /= n;
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) {
      double v = (1 - c) * u[r] * u[k] + (r == k ? c : 0);
      if (r != k) {
        int o = 3 - r - k; /* the third axis */
        double sign = ((r + 1) % 3 == k) ? -1 : 1;
        v += sign * s * u[o];
      }
      t->rot[3 * r + k] = v;
    }
  t->q[0] = cos(h);
  for (int k = 0; k < 3; k++) t->q[k + 1] = sin(h) * u[k];
}

static int write_header(FILE *f, uint64_t count, uint32_t coeffs, const char *scene, uint32_t copies,
                        uint64_t seed) {
  fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment tile_scene --scene %s --copies %u --seed %llu\n", scene,
          copies, (unsigned long long)seed);
  fprintf(f, "element vertex %llu\n", (unsigned long long)count);
  const char *names[] = {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"};
  for (int i = 0; i < 9; i++) fprintf(f, "property float %s\n", names[i]);
  for (uint32_t i = 0; i < 3 * (coeffs - 1); i++) fprintf(f, "property float f_rest_%u\n", i);
  fprintf(f, "property float opacity\n");
  for (int i = 0; i < 3; i++) fprintf(f, "property float scale_%d\n", i);
  for (int i = 0; i < 4; i++) fprintf(f, "property float rot_%d\n", i);
  fprintf(f, "end_header\n");
  return ferror(f) ? -1 : 0;
}

/* The three benchmark cameras of a side x side grid (see usage). */
static int write_views(const char *path, const splat_scene_shape *sh, const double centre[3], double cell,
                       uint64_t side) {
  double span = (double)(side - 1) * cell, extent = (double)side * cell;
  double height = sh->hi[2] - sh->lo[2], g[3], eye[3][3], target[3][3];
  for (int a = 0; a < 3; a++) g[a] = centre[a] + 0.5 * span * (sh->axes[0][a] + sh->axes[1][a]);
  for (int a = 0; a < 3; a++) {
    const double u = sh->up[a], x = sh->axes[0][a], y = sh->axes[1][a];
    /* aerial: above the grid's middle, a little to one side so it is not straight down */
    eye[0][a] = g[a] + 1.1 * extent * u - 0.25 * extent * y;
    target[0][a] = g[a];
    /* mid: outside the corner of cell 0, 30 degrees down at the grid's middle */
    double back = 0.35 * extent + cell, d = sqrt(2.0) * (0.5 * span + back) ;
    eye[1][a] = g[a] - (0.5 * span + back) * (x + y) + d * tan(30.0 * 3.14159265358979 / 180.0) * u;
    target[1][a] = g[a];
    /* street: half a cell in front of row 0's edge, at half the capture's height, looking
     * along the rows across the grid */
    double ground = sh->ground - (centre[0] * sh->up[0] + centre[1] * sh->up[1] + centre[2] * sh->up[2]);
    eye[2][a] = centre[a] + (ground + 0.5 * height) * u - 0.75 * cell * y + 0.35 * span * x;
    target[2][a] = eye[2][a] + extent * y;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "tile_scene: %s: %s\n", path, strerror(errno));
    return -1;
  }
  const char *names[3] = {"aerial", "mid", "street"};
  for (int v = 0; v < 3; v++)
    fprintf(f, "%s %.6g,%.6g,%.6g %.6g,%.6g,%.6g %.6g,%.6g,%.6g\n", names[v], eye[v][0], eye[v][1], eye[v][2],
            target[v][0], target[v][1], target[v][2], sh->up[0], sh->up[1], sh->up[2]);
  if (fclose(f)) {
    fprintf(stderr, "tile_scene: %s: cannot write\n", path);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *scene_path = NULL, *out_path = NULL, *up_arg = NULL, *frame_path = NULL, *views_path = NULL;
  uint64_t copies = 0, seed = 1;
  double gap = 0.25;
  int check = 0;
  static const struct option opts[] = {{"scene", 1, 0, 's'}, {"copies", 1, 0, 'n'}, {"out", 1, 0, 'o'},
                                       {"seed", 1, 0, 'r'},  {"up", 1, 0, 'u'},     {"gap", 1, 0, 'g'},
                                       {"check", 0, 0, 'c'}, {"help", 0, 0, 'h'},   {"frame-from", 1, 0, 'f'},
                                       {"views", 1, 0, 'v'}, {0, 0, 0, 0}};
  for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    char *end = NULL;
    errno = 0;
    switch (c) {
    case 's': scene_path = optarg; break;
    case 'o': out_path = optarg; break;
    case 'u': up_arg = optarg; break;
    case 'c': check = 1; break;
    case 'f': frame_path = optarg; break;
    case 'v': views_path = optarg; break;
    case 'n':
      if (optarg[0] < '0' || optarg[0] > '9') return die("--copies must be 1..1000000", optarg);
      copies = strtoull(optarg, &end, 10);
      if (errno || *end || copies == 0 || copies > 1000000) return die("--copies must be 1..1000000", optarg);
      break;
    case 'r':
      if (optarg[0] < '0' || optarg[0] > '9') return die("--seed must be a number", optarg);
      seed = strtoull(optarg, &end, 10);
      if (errno || *end) return die("--seed must be a number", optarg);
      break;
    case 'g':
      gap = strtod(optarg, &end);
      if (errno || *end || !(gap >= 0 && gap <= 100)) return die("--gap must be 0..100", optarg);
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc || !scene_path || !out_path || !copies) {
    usage(stderr);
    return die("--scene, --copies and --out are required", NULL);
  }

  splat_scene s;
  char err[512];
  if (splat_scene_load_ex2(scene_path, &s, NULL, err, sizeof err)) return die(err, NULL), 1;
  if ((uint64_t)s.count * copies > UINT32_MAX) {
    splat_scene_free(&s);
    return die("the tiled scene would have more than 4294967295 splats", NULL);
  }

  splat_scene_shape shape;
  int shaped;
  splat_scene frame = s;
  if (frame_path && splat_scene_load_ex2(frame_path, &frame, NULL, err, sizeof err)) {
    splat_scene_free(&s);
    return die(err, NULL), 1;
  }
  if (up_arg) {
    float up[3];
    if (sscanf(up_arg, "%f,%f,%f", &up[0], &up[1], &up[2]) != 3) return die("--up must be X,Y,Z", up_arg);
    shaped = splat_scene_shape_along(frame.positions, frame.count, up, &shape);
  } else {
    shaped = splat_scene_shape_find(frame.positions, frame.count, &shape);
  }
  if (frame_path) splat_scene_free(&frame);
  if (shaped) {
    splat_scene_free(&s);
    return die("cannot find the scene's shape (no finite position, or a bad --up)", NULL);
  }
  double centre[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++)
    for (int a = 0; a < 3; a++) centre[a] += 0.5 * (shape.lo[k] + shape.hi[k]) * shape.axes[k][a];
  /* the widest horizontal extent of the core, whatever the turn */
  double w0 = shape.hi[0] - shape.lo[0], w1 = shape.hi[1] - shape.lo[1];
  double cell = sqrt(w0 * w0 + w1 * w1) * (1.0 + gap);
  uint64_t side = (uint64_t)ceil(sqrt((double)copies));
  while (side * side < copies) side++;

  if (views_path && write_views(views_path, &shape, centre, cell, side)) {
    splat_scene_free(&s);
    return 1;
  }
  FILE *f = fopen(out_path, "wb");
  if (!f) {
    fprintf(stderr, "tile_scene: %s: %s\n", out_path, strerror(errno));
    splat_scene_free(&s);
    return 1;
  }
  uint32_t coeffs = s.sh_coeffs, floats = 3 + 3 + 3 * coeffs + 1 + 3 + 4;
  int rc = write_header(f, (uint64_t)s.count * copies, coeffs, scene_path, (uint32_t)copies, seed);
  uint64_t count = s.count;
  float *row = malloc(sizeof(float) * floats * 4096), *turned = malloc(sizeof(float) * 3 * coeffs);
  copy_turn *t = malloc(sizeof *t);
  double worst = 0;
  uint64_t rs = seed;
  for (uint64_t i = 0; i < copies && !rc && row && turned && t; i++) {
    double angle = i == 0 ? 0.0 : (double)(next_rand(&rs) >> 11) * 0x1.0p-53 * 6.283185307179586;
    make_turn(shape.up, angle, t);
    double gx = (double)(i % side) * cell, gy = (double)(i / side) * cell;
    for (int a = 0; a < 3; a++) t->offset[a] = gx * shape.axes[0][a] + gy * shape.axes[1][a];
    for (int l = 1; l <= 3; l++)
      if (band_turn(l, t->rot, t->bands[l - 1])) rc = -1;
    double *bands[3] = {t->bands[0], t->bands[1], t->bands[2]};
    for (uint32_t b = 0; b < s.count && !rc; b += 4096) {
      uint32_t n = s.count - b < 4096 ? s.count - b : 4096;
      for (uint32_t j = 0; j < n; j++) {
        uint32_t k = b + j;
        float *o = row + (size_t)j * floats;
        double p[3], tp[3];
        for (int a = 0; a < 3; a++) p[a] = s.positions[3 * k + a] - centre[a];
        mat3_vec(t->rot, p, tp);
        for (int a = 0; a < 3; a++) o[a] = (float)(tp[a] + centre[a] + t->offset[a]);
        o[3] = o[4] = o[5] = 0;
        const float *sh = s.sh + (size_t)k * coeffs * 3;
        turn_sh(sh, coeffs, bands, turned);
        if (check && j == 0) { /* one splat a block: colours along turned directions */
          for (int di = 0; di < DIRS; di++) {
            double d[3], back[3];
            sphere_dir(di, d);
            mat3_tvec(t->rot, d, back);
            for (int c = 0; c < 3; c++) {
              double e = fabs(sh_eval(turned, coeffs, c, d) - sh_eval(sh, coeffs, c, back));
              double mag = 1e-3 + fabs(sh_eval(sh, coeffs, c, back));
              if (e / mag > worst) worst = e / mag;
            }
          }
        }
        for (int c = 0; c < 3; c++) o[6 + c] = turned[c];
        for (uint32_t m = 1; m < coeffs; m++)
          for (int c = 0; c < 3; c++) o[9 + (size_t)c * (coeffs - 1) + (m - 1)] = turned[m * 3 + c];
        float *tail = o + 6 + 3 * coeffs;
        float op = s.opacities[k];
        op = op < 1e-7f ? 1e-7f : op > 1 - 1e-7f ? 1 - 1e-7f : op;
        tail[0] = logf(op / (1 - op));
        for (int a = 0; a < 3; a++) tail[1 + a] = s.scales[3 * k + a] > 0 ? logf(s.scales[3 * k + a]) : -30.0f;
        const float *q = s.rotations + 4 * (size_t)k;
        const double *r = t->q;
        tail[4] = (float)(r[0] * q[0] - r[1] * q[1] - r[2] * q[2] - r[3] * q[3]);
        tail[5] = (float)(r[0] * q[1] + r[1] * q[0] + r[2] * q[3] - r[3] * q[2]);
        tail[6] = (float)(r[0] * q[2] - r[1] * q[3] + r[2] * q[0] + r[3] * q[1]);
        tail[7] = (float)(r[0] * q[3] + r[1] * q[2] - r[2] * q[1] + r[3] * q[0]);
      }
      if (fwrite(row, sizeof(float) * floats, n, f) != n) rc = -1;
    }
  }
  if (!row || !turned || !t) rc = -1;
  if (fclose(f)) rc = -1;
  free(row);
  free(turned);
  free(t);
  splat_scene_free(&s);
  if (rc) {
    fprintf(stderr, "tile_scene: %s: writing failed (disk full, out of memory or a singular turn)\n", out_path);
    return 1;
  }
  printf("tile_scene: %s: %llu copies of %s (%llu splats), cells %.4g apart along the core's axes, up %.3f,%.3f,%.3f\n",
         out_path, (unsigned long long)copies, scene_path, (unsigned long long)copies * count, cell, shape.up[0],
         shape.up[1], shape.up[2]);
  if (check) {
    printf("tile_scene: check: worst relative colour error of a turned copy %.3g\n", worst);
    if (!(worst < 1e-4)) return die("check failed: turned SH do not give the turned colours", NULL), 1;
  }
  return 0;
}
