/* gen_scene: writes a random but valid 3DGS .ply (binary little-endian) of any
 * size, deterministic from the seed, for tests and benchmarks. It has its own PLY
 * writer, independent of the splat library, so it can check the loader. */
#include "util.h" /* splitmix64 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
  fprintf(f,
          "usage: gen_scene --count N --sh-degree D --seed S --out FILE.ply\n"
          "                 [--layout standard|alphabetical|no-normals] [--radius R]\n"
          "                 [--shape ball|shell|ground] [--up X,Y,Z] [--visible K]\n"
          "  Random splats in a ball (or a thin shell) of radius R (default 1), log-normal\n"
          "  anisotropic scales around 0.5*R/cbrt(N), uniform random rotations, opacities\n"
          "  and colours. Same arguments, same bytes.\n"
          "  --shape ground: a flat scene: 70%% on a square ground of side 2R (0.2%% of R thick),\n"
          "  30%% in nine boxes standing on it (0.2R wide, 0.15R..0.55R tall), its up along\n"
          "  --up (default 0,-1,0: 3DGS/COLMAP's), turned there the shortest way from -Y.\n"
          "  --visible K: only the first K splats can be seen (sized as for K splats); the others\n"
          "  have an opacity below the renderer's 1/255 cull: a file large to load, quick to render.\n"
          "  layout standard:     x y z nx ny nz f_dc_* f_rest_* opacity scale_* rot_* (as 3DGS)\n"
          "         no-normals:   the same without nx ny nz\n"
          "         alphabetical: no normals, names sorted by strcmp (as Brush writes them)\n");
}

/* xoshiro256** seeded through splitmix64: fast, and the same sequence everywhere. */
typedef struct rng { uint64_t s[4]; int have_spare; double spare; } rng;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_u64(rng *r) {
  uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

/* [0, 1) */
static double uniform(rng *r) { return (double)(next_u64(r) >> 11) * 0x1.0p-53; }
static double uniform_in(rng *r, double lo, double hi) { return lo + (hi - lo) * uniform(r); }

static double normal(rng *r) {
  if (r->have_spare) {
    r->have_spare = 0;
    return r->spare;
  }
  double u = 1.0 - uniform(r), v = uniform(r);
  double m = sqrt(-2.0 * log(u)), a = 6.283185307179586 * v;
  r->spare = m * sin(a);
  r->have_spare = 1;
  return m * cos(a);
}

/* n normal deviates, drawn again while their squared length is below 1e-12: a direction. */
static double normal_vector(rng *r, double *v, int n) {
  double len2;
  do {
    len2 = 0.0;
    for (int c = 0; c < n; ++c) {
      v[c] = normal(r);
      len2 += v[c] * v[c];
    }
  } while (len2 < 1e-12);
  return len2;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int die(const char *msg, const char *arg) {
  fprintf(stderr, "gen_scene: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  return 1;
}

static int parse_u64_arg(const char *s, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  if (*s == '-' || *s == '\0') return 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || v > max) return 0;
  *out = v;
  return 1;
}

typedef struct gen_options {
  uint64_t count, degree, seed, visible; /* visible: UINT64_MAX when not given */
  const char *out, *layout, *shape;
  double radius;
  double up[3]; /* --shape ground: its up, unit */
} gen_options;

enum { OPT_COUNT = 256, OPT_SH_DEGREE, OPT_SEED, OPT_OUT, OPT_LAYOUT, OPT_RADIUS, OPT_SHAPE, OPT_VISIBLE, OPT_UP };

/* Returns -1 when the options are good, else the exit status. */
static int parse_args(int argc, char **argv, gen_options *o) {
  static const struct option long_options[] = {
      {"count", required_argument, NULL, OPT_COUNT},   {"sh-degree", required_argument, NULL, OPT_SH_DEGREE},
      {"seed", required_argument, NULL, OPT_SEED},     {"out", required_argument, NULL, OPT_OUT},
      {"layout", required_argument, NULL, OPT_LAYOUT}, {"radius", required_argument, NULL, OPT_RADIUS},
      {"shape", required_argument, NULL, OPT_SHAPE},   {"visible", required_argument, NULL, OPT_VISIBLE},
      {"up", required_argument, NULL, OPT_UP},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  *o = (gen_options){.degree = 99, .layout = "standard", .shape = "ball", .radius = 1.0, .visible = UINT64_MAX,
                     .up = {0.0, -1.0, 0.0}};
  int have_count = 0, have_seed = 0;
  opterr = 0; /* our own messages, which name the argument: argv[first], the one getopt_long was at */
  for (int first = optind, c; (c = getopt_long(argc, argv, "+:h", long_options, NULL)) != -1; first = optind) {
    const char *v = optarg;
    char *end;
    switch (c) {
    case 'h':
      usage(stdout);
      return 0;
    case OPT_COUNT:
      if (!parse_u64_arg(v, UINT32_MAX, &o->count) || o->count == 0) return die("--count must be 1..4294967295", v);
      have_count = 1;
      break;
    case OPT_SH_DEGREE:
      if (!parse_u64_arg(v, 3, &o->degree)) return die("--sh-degree must be 0..3", v);
      break;
    case OPT_SEED:
      if (!parse_u64_arg(v, UINT64_MAX, &o->seed)) return die("--seed must be a non-negative integer", v);
      have_seed = 1;
      break;
    case OPT_OUT: o->out = v; break;
    case OPT_LAYOUT:
      if (strcmp(v, "standard") && strcmp(v, "alphabetical") && strcmp(v, "no-normals"))
        return die("--layout must be standard, alphabetical or no-normals", v);
      o->layout = v;
      break;
    case OPT_RADIUS:
      o->radius = strtod(v, &end);
      if (*end != '\0' || !(o->radius > 0.0) || !isfinite(o->radius))
        return die("--radius must be a positive number", v);
      break;
    case OPT_SHAPE:
      if (strcmp(v, "ball") && strcmp(v, "shell") && strcmp(v, "ground")) return die("--shape must be ball, shell or ground", v);
      o->shape = v;
      break;
    case OPT_UP: {
      double *u = o->up, len;
      if (sscanf(v, "%lf,%lf,%lf", &u[0], &u[1], &u[2]) != 3 || !((len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])) > 0) ||
          !isfinite(len))
        return die("--up must be three numbers X,Y,Z, not all zero", v);
      for (int k = 0; k < 3; k++) u[k] /= len;
      break;
    }
    case OPT_VISIBLE:
      if (!parse_u64_arg(v, UINT32_MAX, &o->visible) || o->visible == 0) return die("--visible must be 1..4294967295", v);
      break;
    case ':':
      usage(stderr);
      return die("missing value after", argv[first]);
    default: /* '?' */
      usage(stderr);
      return die("unknown argument", argv[first]);
    }
  }
  if (optind < argc) {
    usage(stderr);
    return die("unknown argument", argv[optind]);
  }
  if (!have_count || o->degree > 3 || !have_seed || o->out == NULL) {
    usage(stderr);
    return die("--count, --sh-degree, --seed and --out are required", NULL);
  }
  if (o->visible != UINT64_MAX && o->visible > o->count) return die("--visible must not be above --count", NULL);
  return -1;
}

/* The file's fields: `names` in canonical order (x y z nx ny nz f_dc_* f_rest_* opacity scale_*
 * rot_*), `order` the canonical indices in file order for the layout. Returns how many. */
static unsigned field_order(const gen_options *o, unsigned nrest, char names[62][16], unsigned order[62]) {
  unsigned nn = 0;
  static const char *const head[] = {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"};
  static const char *const tail[] = {"opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"};
  for (unsigned i = 0; i < 9; ++i) snprintf(names[nn++], sizeof names[0], "%s", head[i]);
  for (unsigned i = 0; i < nrest; ++i) snprintf(names[nn++], sizeof names[0], "f_rest_%u", i);
  for (unsigned i = 0; i < 8; ++i) snprintf(names[nn++], sizeof names[0], "%s", tail[i]);
  const char *sorted[62];
  unsigned nfields = 0;
  int with_normals = strcmp(o->layout, "standard") == 0;
  for (unsigned i = 0; i < nn; ++i)
    if (with_normals || i < 3 || i > 5) sorted[nfields++] = names[i];
  if (strcmp(o->layout, "alphabetical") == 0) qsort(sorted, nfields, sizeof sorted[0], cmp_names);
  for (unsigned j = 0; j < nfields; ++j) order[j] = (unsigned)(sorted[j] - names[0]) / sizeof names[0];
  return nfields;
}

/* The rotation taking -Y to the unit `up` the shortest way (Rodrigues; a half turn about z when
 * up is +Y). */
static void rotation_from_minus_y(const double up[3], double m[3][3]) {
  double a[3] = {-up[2], 0.0, up[0]}, s = sqrt(up[0] * up[0] + up[2] * up[2]), c = -up[1]; /* -Y x up */
  if (s < 1e-12) {
    double f = c > 0 ? 1.0 : -1.0, id[3][3] = {{f, 0, 0}, {0, f, 0}, {0, 0, 1}};
    memcpy(m, id, sizeof id);
    return;
  }
  for (int k = 0; k < 3; ++k) a[k] /= s;
  double K[3][3] = {{0, -a[2], a[1]}, {a[2], 0, -a[0]}, {-a[1], a[0], 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double kk = K[i][0] * K[0][j] + K[i][1] * K[1][j] + K[i][2] * K[2][j];
      m[i][j] = (i == j) + s * K[i][j] + (1 - c) * kk;
    }
}

/* --shape ground: a point of the ground (y = 0) or of one of nine boxes standing on it towards
 * -y, turned by m. */
static void ground_point(rng *r, double radius, const double m[3][3], float out[3]) {
  double p[3];
  if (uniform(r) < 0.7) {
    p[0] = uniform_in(r, -radius, radius);
    p[1] = 0.002 * radius * normal(r);
    p[2] = uniform_in(r, -radius, radius);
  } else {
    int k = (int)(9 * uniform(r));
    double h = (0.15 + 0.1 * (k * 7 % 5)) * radius;
    p[0] = (-0.6 + 0.6 * (k % 3)) * radius + uniform_in(r, -0.1, 0.1) * radius;
    p[1] = -h * uniform(r);
    p[2] = (-0.6 + 0.6 * (k / 3)) * radius + uniform_in(r, -0.1, 0.1) * radius;
  }
  for (int c = 0; c < 3; ++c) out[c] = (float)(m[c][0] * p[0] + m[c][1] * p[1] + m[c][2] * p[2]);
}

/* One splat's raw values in canonical order into v; `ground`: m turns the flat scene. */
static void gen_splat(rng *r, double radius, int shell, const double (*ground)[3], unsigned coeffs, double log_size,
                      float v[62]) {
  const unsigned nrest = (coeffs - 1) * 3;
  if (ground) {
    ground_point(r, radius, ground, v);
  } else {
    double d[3];
    double len2 = normal_vector(r, d, 3);
    double rad = shell ? radius * (0.95 + 0.05 * uniform(r)) : radius * cbrt(uniform(r));
    double k = rad / sqrt(len2);
    for (int c = 0; c < 3; ++c) v[c] = (float)(d[c] * k);
  }
  v[3] = v[4] = v[5] = 0.0f;
  for (int c = 0; c < 3; ++c) v[6 + c] = (float)uniform_in(r, -1.6, 1.6);
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned i = 1; i < coeffs; ++i) {
      unsigned band = i < 4 ? 1 : i < 9 ? 2 : 3;
      v[9 + c * (coeffs - 1) + (i - 1)] = (float)(uniform_in(r, -0.15, 0.15) / band);
    }
  float *t = v + 9 + nrest;
  t[0] = (float)uniform_in(r, -1.5, 4.0);
  double common = 0.3 * normal(r);
  for (int c = 0; c < 3; ++c) t[1 + c] = (float)(log_size + common + 0.4 * normal(r));
  double q[4];
  double qn = 1.0 / sqrt(normal_vector(r, q, 4));
  for (int c = 0; c < 4; ++c) t[4 + c] = (float)(q[c] * qn);
}

int main(int argc, char **argv) {
  gen_options o;
  int status = parse_args(argc, argv, &o);
  if (status >= 0) return status;

  const unsigned coeffs = (unsigned)((o.degree + 1) * (o.degree + 1)), nrest = (coeffs - 1) * 3;
  char names[62][16];
  unsigned order[62], nfields = field_order(&o, nrest, names, order);

  FILE *f = fopen(o.out, "wb");
  if (f == NULL) return die(strerror(errno), o.out);
  fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment gen_scene --count %llu --sh-degree %llu "
             "--seed %llu --layout %s --radius %.9g --shape %s\nelement vertex %llu\n",
          (unsigned long long)o.count, (unsigned long long)o.degree, (unsigned long long)o.seed, o.layout,
          o.radius, o.shape, (unsigned long long)o.count);
  if (o.visible != UINT64_MAX) fprintf(f, "comment --visible %llu\n", (unsigned long long)o.visible);
  if (strcmp(o.shape, "ground") == 0) fprintf(f, "comment --up %.9g,%.9g,%.9g\n", o.up[0], o.up[1], o.up[2]);
  for (unsigned j = 0; j < nfields; ++j) fprintf(f, "property float %s\n", names[order[j]]);
  fputs("end_header\n", f);

  rng r = {{0}, 0, 0.0};
  uint64_t sm = o.seed;
  for (int i = 0; i < 4; ++i) r.s[i] = splitmix64(&sm);
  const uint64_t visible = o.visible < o.count ? o.visible : o.count;
  const double log_size = log(0.5 * o.radius / cbrt((double)visible));
  const int shell = strcmp(o.shape, "shell") == 0, ground = strcmp(o.shape, "ground") == 0;
  double turn[3][3];
  rotation_from_minus_y(o.up, turn);
  enum { ROWS = 8192 };
  float *buf = malloc((size_t)ROWS * nfields * sizeof(float));
  if (buf == NULL) return die("out of memory", NULL);
  float v[62];
  for (uint64_t start = 0; start < o.count; start += ROWS) {
    unsigned rows = o.count - start < ROWS ? (unsigned)(o.count - start) : ROWS;
    for (unsigned row = 0; row < rows; ++row) {
      gen_splat(&r, o.radius, shell, ground ? (const double(*)[3])turn : NULL, coeffs, log_size, v);
      if (start + row >= visible) v[9 + nrest] = -12.0f; /* sigmoid: 6e-6, below 1/255 */
      float *out = buf + (size_t)row * nfields;
      for (unsigned j = 0; j < nfields; ++j) out[j] = v[order[j]];
    }
    if (fwrite(buf, sizeof(float) * nfields, rows, f) != rows) return die(strerror(errno), o.out);
  }
  free(buf);
  if (fclose(f) != 0) return die(strerror(errno), o.out);
  return 0;
}
