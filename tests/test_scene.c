/* test_scene: CPU tests of the scene loader and writer (src/scene/splat_scene.h).
 * The test writes its own PLY/.splat/compressed files and computes every
 * expected value itself (double precision), independent of the code under test.
 *
 *   test_scene synthetic TMPDIR        layouts, types, SH degrees, extra elements, .splat, compressed
 *   test_scene policy TMPDIR           the non-finite value policy
 *   test_scene malformed TMPDIR        every error case; every truncation; random corruption
 *   test_scene roundtrip TMPDIR        splat_scene_write_ply -> load
 *   test_scene progress TMPDIR         splat_scene_load_ex: progress reports and cancellation
 *   test_scene real SCENES_DIR         the real scenes (exit 77 when the folder is absent)
 *   test_scene asset FILE              the bundled scene
 *   test_scene gen GEN_SCENE TMPDIR    the gen_scene tool
 */
#include "check.h"
#include "splat_scene.h"
#include "scene_check.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define C0 0.28209479177387814

/* ---- small helpers ---------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void) { return splitmix64(&rng_state); }
static double urand(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) * 0x1.0p-53; }
static long irand(long lo, long hi) { return lo + (long)(rnd() % (uint64_t)(hi - lo + 1)); }

typedef struct buf { uint8_t *data; size_t size, cap; } buf;

static void put(buf *b, const void *p, size_t n) {
  if (b->size + n > b->cap) {
    b->cap = (b->size + n) * 2 + 256;
    b->data = realloc(b->data, b->cap);
    if (!b->data) abort();
  }
  memcpy(b->data + b->size, p, n);
  b->size += n;
}
__attribute__((format(printf, 2, 3))) static void putf(buf *b, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  put(b, line, (size_t)n);
}

static char tmpdir[512];
static const char *tmp_path(const char *name) {
  static char p[2][1024];
  static int which;
  which ^= 1;
  snprintf(p[which], sizeof p[which], "%s/%s", tmpdir, name);
  return p[which];
}
static void test_write_failures(void);
static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    exit(1);
  }
}
static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *d = malloc((size_t)n + 1);
  if (fread(d, 1, (size_t)n, f) != (size_t)n) abort();
  fclose(f);
  *size = (size_t)n;
  return d;
}

/* ---- PLY types and the test's own writer ------------------------------------ */

enum { TY_CHAR, TY_UCHAR, TY_SHORT, TY_USHORT, TY_INT, TY_UINT, TY_FLOAT, TY_DOUBLE, TY_COUNT };
static const char *const ty_name[TY_COUNT] = {"char", "uchar", "short", "ushort", "int", "uint", "float", "double"};
static const double ty_min[TY_COUNT] = {-128, 0, -32768, 0, -2147483648.0, 0, -1e30, -1e30};
static const double ty_max[TY_COUNT] = {127, 255, 32767, 65535, 2147483647.0, 4294967295.0, 1e30, 1e30};

/* The value as the file stores it, as a double. */
static double quantise(int ty, double v) {
  if (ty == TY_FLOAT) return (double)(float)v;
  if (ty == TY_DOUBLE) return v;
  v = nearbyint(v);
  return v < ty_min[ty] ? ty_min[ty] : v > ty_max[ty] ? ty_max[ty] : v;
}

static void put_value(buf *b, int ty, double v) {
  switch (ty) {
  case TY_CHAR: { int8_t x = (int8_t)v; put(b, &x, 1); break; }
  case TY_UCHAR: { uint8_t x = (uint8_t)v; put(b, &x, 1); break; }
  case TY_SHORT: { int16_t x = (int16_t)v; put(b, &x, 2); break; }
  case TY_USHORT: { uint16_t x = (uint16_t)v; put(b, &x, 2); break; }
  case TY_INT: { int32_t x = (int32_t)v; put(b, &x, 4); break; }
  case TY_UINT: { uint32_t x = (uint32_t)v; put(b, &x, 4); break; }
  case TY_FLOAT: { float x = (float)v; put(b, &x, 4); break; }
  default: put(b, &v, 8); break;
  }
}

/* Raw (pre-activation) values of one splat, as stored in the file. */
typedef struct raw_splat {
  double pos[3], scale[3], rot[4], opacity, dc[3], rest[45];
} raw_splat;

typedef struct tprop { char name[32]; int type; const char *type_alias; } tprop;

static double *raw_field(raw_splat *r, const char *name) {
  static const char *const xyz[3] = {"x", "y", "z"};
  for (int c = 0; c < 3; ++c) if (strcmp(name, xyz[c]) == 0) return &r->pos[c];
  int i;
  char tail;
  if (sscanf(name, "scale_%d%c", &i, &tail) == 1 && i >= 0 && i < 3) return &r->scale[i];
  if (sscanf(name, "rot_%d%c", &i, &tail) == 1 && i >= 0 && i < 4) return &r->rot[i];
  if (sscanf(name, "f_dc_%d%c", &i, &tail) == 1 && i >= 0 && i < 3) return &r->dc[i];
  if (sscanf(name, "f_rest_%d%c", &i, &tail) == 1 && i >= 0 && i < 45) return &r->rest[i];
  if (strcmp(name, "opacity") == 0) return &r->opacity;
  return NULL;
}

/* A random value for a field that fits the property's type. */
static double gen_field(const char *name, int ty) {
  bool fl = ty == TY_FLOAT || ty == TY_DOUBLE, uns = ty_min[ty] == 0;
  double lo, hi;
  if (name[0] == 'x' || name[0] == 'y' || name[0] == 'z') lo = -50, hi = 50;
  else if (strncmp(name, "scale_", 6) == 0) lo = fl ? -7 : -5, hi = 1;
  else if (strncmp(name, "rot_", 4) == 0) lo = fl ? -1 : -100, hi = fl ? 1 : 100;
  else if (strcmp(name, "opacity") == 0) lo = -8, hi = 8;
  else if (strncmp(name, "f_dc_", 5) == 0) lo = -2, hi = 2;
  else lo = -0.6, hi = 0.6; /* f_rest */
  if (!fl) {
    lo = floor(lo), hi = ceil(hi);
    if (uns) lo = 0, hi = hi < 3 ? 3 : hi;
    return quantise(ty, (double)irand((long)lo, (long)hi));
  }
  return quantise(ty, urand(lo, hi));
}

typedef struct ply_spec {
  tprop props[80];
  int nprops;
  int elem_before; /* a fixed-size element before vertex */
  int elem_after;  /* 1: fixed-size element after vertex, 2: one with a list */
  bool crlf;
} ply_spec;

static void spec_add(ply_spec *s, const char *name, int type) {
  snprintf(s->props[s->nprops].name, sizeof s->props[0].name, "%s", name);
  s->props[s->nprops].type = type;
  s->props[s->nprops++].type_alias = NULL;
}

/* Standard 3DGS names for SH degree d, with or without normals. */
static void spec_standard(ply_spec *s, int degree, bool normals, int type) {
  memset(s, 0, sizeof *s);
  int nrest = ((degree + 1) * (degree + 1) - 1) * 3;
  char n[32];
  spec_add(s, "x", type), spec_add(s, "y", type), spec_add(s, "z", type);
  if (normals) spec_add(s, "nx", type), spec_add(s, "ny", type), spec_add(s, "nz", type);
  for (int c = 0; c < 3; ++c) snprintf(n, sizeof n, "f_dc_%d", c), spec_add(s, n, type);
  for (int i = 0; i < nrest; ++i) snprintf(n, sizeof n, "f_rest_%d", i), spec_add(s, n, type);
  spec_add(s, "opacity", type);
  for (int c = 0; c < 3; ++c) snprintf(n, sizeof n, "scale_%d", c), spec_add(s, n, type);
  for (int c = 0; c < 4; ++c) snprintf(n, sizeof n, "rot_%d", c), spec_add(s, n, type);
}

static int cmp_prop(const void *a, const void *b) {
  return strcmp(((const tprop *)a)->name, ((const tprop *)b)->name);
}

static void gen_splats(const ply_spec *s, raw_splat *r, int n) {
  memset(r, 0, sizeof *r * (size_t)n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < s->nprops; ++j) {
      double *f = raw_field(&r[i], s->props[j].name);
      if (f) *f = gen_field(s->props[j].name, s->props[j].type);
    }
    if (r[i].rot[0] == 0 && r[i].rot[1] == 0 && r[i].rot[2] == 0 && r[i].rot[3] == 0) r[i].rot[0] = 1;
  }
}

/* The PLY file for the spec and splats; header lines end in "\n" (or "\r\n"). */
static void build_ply(buf *b, const ply_spec *s, const raw_splat *r, int n) {
  const char *nl = s->crlf ? "\r\n" : "\n";
  putf(b, "ply%sformat binary_little_endian 1.0%scomment made by test_scene%s", nl, nl, nl);
  if (s->elem_before) putf(b, "element camera 2%sproperty float fx%sproperty uchar id%sproperty double k%s", nl, nl, nl, nl);
  putf(b, "element vertex %d%s", n, nl);
  for (int j = 0; j < s->nprops; ++j)
    putf(b, "property %s %s%s", s->props[j].type_alias ? s->props[j].type_alias : ty_name[s->props[j].type],
         s->props[j].name, nl);
  if (s->elem_after == 1) putf(b, "element extra 3%sproperty short a%sproperty float b%s", nl, nl, nl);
  if (s->elem_after == 2) putf(b, "element face 2%sproperty list uchar int vertex_indices%s", nl, nl);
  putf(b, "end_header%s", nl);
  for (int i = 0; i < 2 && s->elem_before; ++i) put_value(b, TY_FLOAT, 1.5 + i), put_value(b, TY_UCHAR, i), put_value(b, TY_DOUBLE, -i);
  for (int i = 0; i < n; ++i) {
    raw_splat tmp = r[i];
    for (int j = 0; j < s->nprops; ++j) {
      double *f = raw_field(&tmp, s->props[j].name);
      put_value(b, s->props[j].type, f ? *f : 0.25 * j);
    }
  }
  for (int i = 0; i < 3 && s->elem_after == 1; ++i) put_value(b, TY_SHORT, i), put_value(b, TY_FLOAT, i);
  for (int i = 0; i < 2 && s->elem_after == 2; ++i)
    put_value(b, TY_UCHAR, 3), put_value(b, TY_INT, 0), put_value(b, TY_INT, 1), put_value(b, TY_INT, 2);
}

/* ---- expected values -------------------------------------------------------- */

/* Positions and SH are float in the file's reading and compared exactly, so they
 * are kept as float here. (Kept as double, `d = (float)x` in a loop is also
 * miscompiled by gcc 12.2 -O3: its SLP vectoriser drops the rounding.) */
typedef struct expect {
  float pos[3], sh[48];
  double scale[3], rot[4], opacity;
} expect;

static void expected(const raw_splat *r, int degree, expect *e) {
  int coeffs = (degree + 1) * (degree + 1);
  for (int c = 0; c < 3; ++c) e->pos[c] = (float)r->pos[c], e->scale[c] = exp(r->scale[c]);
  double n = 0;
  for (int c = 0; c < 4; ++c) n += r->rot[c] * r->rot[c];
  for (int c = 0; c < 4; ++c) e->rot[c] = r->rot[c] / sqrt(n);
  e->opacity = isinf(r->opacity) ? (r->opacity > 0 ? 1.0 : 0.0) : 1.0 / (1.0 + exp(-r->opacity));
  for (int c = 0; c < 3; ++c) e->sh[c] = (float)r->dc[c];
  for (int k = 1; k < coeffs; ++k)
    for (int c = 0; c < 3; ++c) e->sh[k * 3 + c] = (float)r->rest[c * (coeffs - 1) + (k - 1)];
}

static bool close_rel(double got, double want, double rel) {
  return fabs(got - want) <= rel * fabs(want) + 1e-30;
}

/* Compares splat i of s with e; positions and SH exactly, the rest by tolerance. */
static void check_splat(const char *what, const splat_scene *s, uint32_t i, const expect *e,
                        double pos_tol, double scale_rel, double rot_tol, double op_tol, double sh_tol) {
  uint32_t nsh = s->sh_coeffs * 3;
  int before = failures;
  for (int c = 0; c < 3; ++c) {
    CHECK(fabs(s->positions[i * 3 + c] - e->pos[c]) <= pos_tol, "%s splat %u pos[%d] %.9g want %.9g", what, i, c,
          s->positions[i * 3 + c], e->pos[c]);
    CHECK(close_rel(s->scales[i * 3 + c], e->scale[c], scale_rel), "%s splat %u scale[%d] %.9g want %.9g", what, i, c,
          s->scales[i * 3 + c], e->scale[c]);
  }
  for (int c = 0; c < 4; ++c)
    CHECK(fabs(s->rotations[i * 4 + c] - e->rot[c]) <= rot_tol, "%s splat %u rot[%d] %.9g want %.9g", what, i, c,
          s->rotations[i * 4 + c], e->rot[c]);
  CHECK(fabs(s->opacities[i] - e->opacity) <= op_tol, "%s splat %u opacity %.9g want %.9g", what, i,
        s->opacities[i], e->opacity);
  for (uint32_t k = 0; k < nsh; ++k)
    CHECK(fabs(s->sh[i * nsh + k] - e->sh[k]) <= sh_tol, "%s splat %u sh[%u] %.9g want %.9g", what, i, k,
          s->sh[i * nsh + k], e->sh[k]);
  if (failures > before && failures > check_print_limit) exit(1); /* the rest would not be printed */
}

/* Invariants every loaded scene must hold, whatever the file. */
static void check_invariants(const char *what, const splat_scene *s) {
  CHECK(s->count > 0 && s->positions && s->scales && s->rotations && s->opacities && s->sh, "%s: empty scene", what);
  CHECK(s->sh_degree <= 3 && s->sh_coeffs == (s->sh_degree + 1) * (s->sh_degree + 1), "%s: degree %u coeffs %u",
        what, s->sh_degree, s->sh_coeffs);
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  uint32_t bad = 0;
  for (uint32_t i = 0; i < s->count; ++i) {
    bool ok = true;
    double n = 0;
    for (int c = 0; c < 3; ++c) {
      float p = s->positions[i * 3 + c], sc = s->scales[i * 3 + c];
      ok &= isfinite(p) && isfinite(sc) && sc >= 0;
      lo[c] = fminf(lo[c], p), hi[c] = fmaxf(hi[c], p);
    }
    for (int c = 0; c < 4; ++c) ok &= isfinite(s->rotations[i * 4 + c]), n += (double)s->rotations[i * 4 + c] * s->rotations[i * 4 + c];
    ok &= fabs(sqrt(n) - 1.0) < 1e-5;
    ok &= s->opacities[i] >= 0 && s->opacities[i] <= 1;
    for (uint32_t k = 0; k < s->sh_coeffs * 3; ++k) ok &= isfinite(s->sh[(size_t)i * s->sh_coeffs * 3 + k]);
    if (!ok && bad++ < 3) CHECK(ok, "%s: splat %u breaks an invariant (non-finite, |q| != 1 or opacity out of [0,1])", what, i);
  }
  for (int c = 0; c < 3; ++c)
    CHECK(s->bounds_min[c] == lo[c] && s->bounds_max[c] == hi[c], "%s: bounds[%d] [%g, %g] want [%g, %g]", what, c,
          s->bounds_min[c], s->bounds_max[c], lo[c], hi[c]);
}

static void check_against(const char *what, const splat_scene *s, const raw_splat *r, int n, int degree) {
  CHECK(s->count == (uint32_t)n, "%s: count %u want %d", what, s->count, n);
  CHECK(s->sh_degree == (uint32_t)degree, "%s: degree %u want %d", what, s->sh_degree, degree);
  CHECK(s->dropped == 0 && s->clamped == 0, "%s: dropped %u clamped %u", what, s->dropped, s->clamped);
  if (s->count != (uint32_t)n || s->sh_degree != (uint32_t)degree) return;
  check_invariants(what, s);
  for (int i = 0; i < n; ++i) {
    expect e;
    expected(&r[i], degree, &e);
    check_splat(what, s, (uint32_t)i, &e, 0.0, 2e-6, 1e-6, 1e-6, 0.0);
  }
}

/* Loads from memory (and, when `via_file`, from a file too) and checks. */
static void load_and_check(const char *what, const buf *b, const raw_splat *r, int n, int degree, bool via_file) {
  char name[256], err[512];
  snprintf(name, sizeof name, "%s.ply", what);
  splat_scene s;
  int rc = splat_scene_load_memory(b->data, b->size, name, &s, err, sizeof err);
  CHECK(rc == 0, "%s: load failed: %s", what, err);
  if (rc == 0) check_against(what, &s, r, n, degree);
  splat_scene_free(&s);
  CHECK(is_zero_scene(&s), "%s: free does not zero the scene", what);
  if (via_file) {
    const char *path = tmp_path(name);
    write_file(path, b->data, b->size);
    rc = splat_scene_load(path, &s, err, sizeof err);
    CHECK(rc == 0, "%s (file): load failed: %s", what, err);
    if (rc == 0) check_against(what, &s, r, n, degree);
    splat_scene_free(&s);
    remove(path);
  }
}

/* ---- synthetic files ---------------------------------------------------------- */

static void test_layouts(void) {
  enum { N = 257 };
  static raw_splat r[N];
  static const char *const layouts[] = {"standard", "no_normals", "alphabetical", "shuffled"};
  for (int degree = 0; degree <= 3; ++degree) {
    for (int l = 0; l < 4; ++l) {
      rng_state = 1000 + (uint64_t)degree * 10 + (uint64_t)l;
      ply_spec s;
      spec_standard(&s, degree, l == 0, TY_FLOAT);
      if (l == 2) qsort(s.props, (size_t)s.nprops, sizeof s.props[0], cmp_prop);
      if (l == 3)
        for (int j = s.nprops - 1; j > 0; --j) {
          int k = (int)irand(0, j);
          tprop t = s.props[j];
          s.props[j] = s.props[k], s.props[k] = t;
        }
      gen_splats(&s, r, N);
      buf b = {0};
      build_ply(&b, &s, r, N);
      char what[64];
      snprintf(what, sizeof what, "layout_%s_sh%d", layouts[l], degree);
      load_and_check(what, &b, r, N, degree, l == 0);
      free(b.data);
    }
  }
}

static void test_types(void) {
  enum { N = 300 };
  static raw_splat r[N];
  for (int degree = 0; degree <= 3; ++degree) {
    for (int variant = 0; variant < 4; ++variant) {
      rng_state = 2000 + (uint64_t)degree * 10 + (uint64_t)variant;
      ply_spec s;
      spec_standard(&s, degree, variant != 1, TY_DOUBLE);
      const char *what_v = "double";
      if (variant == 1) { /* every type, cycling over the properties */
        for (int j = 0; j < s.nprops; ++j) s.props[j].type = (j * 3 + degree) % TY_COUNT;
        what_v = "mixed";
      } else if (variant == 2) { /* uchar where a real file might use it, float elsewhere */
        for (int j = 0; j < s.nprops; ++j) {
          const char *nm = s.props[j].name;
          s.props[j].type = (strncmp(nm, "f_", 2) == 0 || strncmp(nm, "rot", 3) == 0) ? TY_UCHAR : TY_FLOAT;
        }
        what_v = "uchar";
      } else if (variant == 3) { /* the sized aliases */
        static const char *const alias[TY_COUNT] = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};
        for (int j = 0; j < s.nprops; ++j) s.props[j].type = (j + degree) % TY_COUNT, s.props[j].type_alias = alias[s.props[j].type];
        what_v = "aliases";
      }
      gen_splats(&s, r, N);
      buf b = {0};
      build_ply(&b, &s, r, N);
      char what[64];
      snprintf(what, sizeof what, "types_%s_sh%d", what_v, degree);
      load_and_check(what, &b, r, N, degree, variant == 1);
      free(b.data);
    }
  }
}

static void test_extras(void) {
  enum { N = 64 };
  static raw_splat r[N];
  for (int variant = 0; variant < 6; ++variant) {
    rng_state = 3000 + (uint64_t)variant;
    ply_spec s;
    spec_standard(&s, variant % 4, true, TY_FLOAT);
    /* extra properties at the front, middle and end, as real exporters add them */
    ply_spec t = s;
    t.nprops = 0;
    spec_add(&t, "red", TY_UCHAR);
    for (int j = 0; j < s.nprops; ++j) {
      t.props[t.nprops++] = s.props[j];
      if (j == 5) spec_add(&t, "confidence", TY_DOUBLE), spec_add(&t, "f_rest_x", TY_SHORT), spec_add(&t, "segment", TY_INT);
    }
    spec_add(&t, "transform", TY_FLOAT);
    t.elem_before = variant & 1;
    t.elem_after = variant < 2 ? 0 : variant < 4 ? 1 : 2;
    t.crlf = variant == 5;
    gen_splats(&t, r, N);
    buf b = {0};
    build_ply(&b, &t, r, N);
    char what[64];
    snprintf(what, sizeof what, "extras_%d", variant);
    load_and_check(what, &b, r, N, variant % 4, variant == 2);
    free(b.data);
  }
}

/* antimatter15 .splat: expected values from the format's definition. */
static void test_splat_format(void) {
  enum { N = 200 };
  rng_state = 4000;
  buf b = {0};
  float want_pos[N][3], want_scale[N][3];
  uint8_t bytes[N][8];
  bool keep[N];
  for (int i = 0; i < N; ++i) {
    for (int c = 0; c < 3; ++c) want_pos[i][c] = (float)urand(-20, 20), want_scale[i][c] = (float)urand(0.001, 0.5);
    for (int c = 0; c < 8; ++c) bytes[i][c] = (uint8_t)irand(0, 255);
    keep[i] = true;
    if (i == 3) want_pos[i][1] = NAN, keep[i] = false;
    if (i == 5) memset(bytes[i] + 4, 128, 4), keep[i] = false; /* zero quaternion */
    if (i == 7) want_scale[i][2] = -0.5f, keep[i] = false;
    if (i == 9) want_scale[i][0] = INFINITY, keep[i] = false;
    if (i == 11) want_scale[i][0] = 0.0f; /* a flat splat is valid */
    if (i == 12) memset(bytes[i] + 4, 0, 4); /* (-1,-1,-1,-1) */
    put(&b, want_pos[i], 12), put(&b, want_scale[i], 12), put(&b, bytes[i], 8);
  }
  for (int pass = 0; pass < 3; ++pass) {
    splat_scene s;
    char err[512];
    const char *name = pass == 0 ? "scene.splat" : pass == 1 ? "SCENE.SPLAT" : tmp_path("t.splat");
    int rc;
    if (pass < 2) {
      rc = splat_scene_load_memory(b.data, b.size, name, &s, err, sizeof err);
    } else {
      write_file(name, b.data, b.size);
      rc = splat_scene_load(name, &s, err, sizeof err);
    }
    CHECK(rc == 0, "splat format %s: %s", name, err);
    if (rc != 0) continue;
    CHECK(s.count == N - 4 && s.dropped == 4 && s.clamped == 0 && s.sh_degree == 0, "splat: count %u dropped %u", s.count,
          s.dropped);
    check_invariants("splat", &s);
    uint32_t k = 0;
    for (int i = 0; i < N && s.count == N - 4; ++i) {
      if (!keep[i]) continue;
      expect e;
      double n = 0;
      for (int c = 0; c < 3; ++c) e.pos[c] = want_pos[i][c], e.scale[c] = want_scale[i][c];
      for (int c = 0; c < 4; ++c) e.rot[c] = (bytes[i][4 + c] - 128.0) / 128.0, n += e.rot[c] * e.rot[c];
      for (int c = 0; c < 4; ++c) e.rot[c] /= sqrt(n);
      for (int c = 0; c < 3; ++c) e.sh[c] = (float)((bytes[i][c] / 255.0 - 0.5) / C0);
      e.opacity = bytes[i][3] / 255.0;
      check_splat("splat", &s, k++, &e, 0.0, 1e-7, 1e-6, 1e-7, 1e-6);
    }
    splat_scene_free(&s);
  }
  free(b.data);
}

/* PlayCanvas compressed PLY written by the test from random packed words; the
 * expected values follow the format's definition (lerp in chunk bounds, 11-10-11,
 * 2-10-10-10 smallest-three with (w,x,y,z) order, 8-8-8-8, SH byte*8/255-4). */
typedef struct cchunk { float v[18]; } cchunk;

static void build_compressed(buf *b, int n, int nchunks, bool colour, int sh_degree, const cchunk *ch,
                             const uint32_t (*pk)[4], const uint8_t *shb, const char *pos_type) {
  static const char *const cn[18] = {"min_x", "min_y", "min_z", "max_x", "max_y", "max_z", "min_scale_x", "min_scale_y",
                                     "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z", "min_r", "min_g",
                                     "min_b", "max_r", "max_g", "max_b"};
  int nch = colour ? 18 : 12, nrest = ((sh_degree + 1) * (sh_degree + 1) - 1) * 3;
  putf(b, "ply\nformat binary_little_endian 1.0\ncomment Generated by test_scene\nelement chunk %d\n", nchunks);
  for (int j = 0; j < nch; ++j) putf(b, "property float %s\n", cn[j]);
  putf(b, "element vertex %d\nproperty %s packed_position\nproperty uint packed_rotation\n"
          "property uint packed_scale\nproperty uint packed_color\n", n, pos_type);
  if (nrest) {
    putf(b, "element sh %d\n", n);
    /* listed backwards: the loader must find them by name */
    for (int j = nrest - 1; j >= 0; --j) putf(b, "property uchar f_rest_%d\n", j);
  }
  putf(b, "end_header\n");
  for (int c = 0; c < nchunks; ++c) put(b, ch[c].v, sizeof(float) * (size_t)nch);
  for (int i = 0; i < n; ++i) put(b, pk[i], 16);
  for (int i = 0; i < n && nrest; ++i)
    for (int j = nrest - 1; j >= 0; --j) put(b, &shb[i * 45 + j], 1);
}

static void test_compressed(void) {
  enum { N = 600 };
  static uint32_t pk[N][4];
  static uint8_t shb[N * 45];
  cchunk ch[3];
  for (int variant = 0; variant < 4; ++variant) {
    rng_state = 5000 + (uint64_t)variant;
    bool colour = variant != 1;
    int degree = variant == 0 ? 3 : variant == 2 ? 1 : 0;
    int n = variant == 3 ? 257 : variant == 1 ? 256 : N, nchunks = (n + 255) / 256;
    for (int c = 0; c < nchunks; ++c) {
      for (int j = 0; j < 3; ++j) {
        ch[c].v[j] = (float)urand(-5, 0), ch[c].v[3 + j] = ch[c].v[j] + (float)urand(0.1, 5);
        ch[c].v[6 + j] = (float)urand(-7, -3), ch[c].v[9 + j] = (float)urand(-3, 0);
        ch[c].v[12 + j] = (float)urand(-0.2, 0.3), ch[c].v[15 + j] = (float)urand(0.6, 1.2);
      }
    }
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < 4; ++j) pk[i][j] = (uint32_t)rnd();
      for (int j = 0; j < 45; ++j) shb[i * 45 + j] = (uint8_t)rnd();
    }
    pk[0][1] = 0x1ff7fdffu; /* index 0, the three others 511, 511, 511: almost (1,0,0,0) */
    buf b = {0};
    build_compressed(&b, n, nchunks, colour, degree, ch, (const uint32_t(*)[4])pk, shb, "uint");
    char what[64], err[512];
    snprintf(what, sizeof what, "compressed_%d.ply", variant);
    splat_scene s;
    int rc = splat_scene_load_memory(b.data, b.size, what, &s, err, sizeof err);
    CHECK(rc == 0, "%s: %s", what, err);
    if (rc == 0) {
      CHECK(s.count == (uint32_t)n && s.sh_degree == (uint32_t)degree && s.dropped == 0, "%s: count %u degree %u", what,
            s.count, s.sh_degree);
      check_invariants(what, &s);
      int coeffs = (degree + 1) * (degree + 1);
      for (int i = 0; i < n && s.count == (uint32_t)n; ++i) {
        const float *cv = ch[i / 256].v;
        expect e;
        double t[3] = {(pk[i][0] >> 21) / 2047.0, ((pk[i][0] >> 11) & 1023) / 1023.0, (pk[i][0] & 2047) / 2047.0};
        for (int c = 0; c < 3; ++c) e.pos[c] = (float)(cv[c] + (cv[3 + c] - cv[c]) * t[c]);
        double u[3] = {(pk[i][2] >> 21) / 2047.0, ((pk[i][2] >> 11) & 1023) / 1023.0, (pk[i][2] & 2047) / 2047.0};
        for (int c = 0; c < 3; ++c) e.scale[c] = exp(cv[6 + c] + (cv[9 + c] - cv[6 + c]) * u[c]);
        double abc[3], sum = 0, q[4];
        for (int j = 0; j < 3; ++j) {
          abc[j] = (((pk[i][1] >> (20 - 10 * j)) & 1023) / 1023.0 - 0.5) * sqrt(2.0);
          sum += abc[j] * abc[j];
        }
        int largest = (int)(pk[i][1] >> 30), k = 0;
        for (int j = 0; j < 4; ++j) q[j] = j == largest ? sqrt(fmax(0.0, 1.0 - sum)) : abc[k++];
        double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int j = 0; j < 4; ++j) e.rot[j] = q[j] / qn;
        for (int c = 0; c < 3; ++c) {
          double v = ((pk[i][3] >> (24 - 8 * c)) & 255) / 255.0;
          if (colour) v = cv[12 + c] + (cv[15 + c] - cv[12 + c]) * v;
          e.sh[c] = (float)((v - 0.5) / C0);
        }
        e.opacity = (pk[i][3] & 255) / 255.0;
        for (int kk = 1; kk < coeffs; ++kk)
          for (int c = 0; c < 3; ++c) e.sh[kk * 3 + c] = (float)(shb[i * 45 + c * (coeffs - 1) + (kk - 1)] * 8.0 / 255.0 - 4.0);
        check_splat(what, &s, (uint32_t)i, &e, 2e-6 * 10, 1e-5, 1e-5, 1e-7, 2e-5);
      }
      if (s.count == (uint32_t)n)
        CHECK(fabsf(s.rotations[0] - 1.0f) < 2e-3f, "%s: splat 0 rotation w %g, want about 1", what, s.rotations[0]);
    }
    splat_scene_free(&s);
    free(b.data);
  }
}

/* ---- the non-finite policy ---------------------------------------------------- */

static void test_policy(void) {
  enum { N = 18 };
  raw_splat r[N];
  ply_spec s;
  spec_standard(&s, 1, true, TY_FLOAT);
  rng_state = 6000;
  gen_splats(&s, r, N);
  bool keep[N];
  for (int i = 0; i < N; ++i) keep[i] = true;
  /* one case a row; the rest of each row is valid */
  r[1].pos[0] = NAN, keep[1] = false;
  r[2].scale[1] = INFINITY, keep[2] = false;
  r[3].scale[0] = -INFINITY, keep[3] = false;
  r[4].scale[2] = 100.0, keep[4] = false; /* exp overflows float */
  memset(r[5].rot, 0, sizeof r[5].rot), keep[5] = false;
  r[6].rot[2] = NAN, keep[6] = false;
  r[7].opacity = INFINITY;   /* kept, 1, clamped */
  r[8].opacity = -INFINITY;  /* kept, 0, clamped */
  r[9].opacity = NAN, keep[9] = false;
  r[10].rest[5] = NAN, keep[10] = false;
  r[11].dc[1] = -INFINITY, keep[11] = false;
  r[12].opacity = 1000.0;    /* finite: 1 by sigmoid, not a clamp */
  r[13].rot[0] = 1e-30, r[13].rot[1] = -2e-30, r[13].rot[2] = r[13].rot[3] = 0; /* tiny, still a direction */
  r[14].opacity = INFINITY, r[14].pos[2] = NAN, keep[14] = false; /* dropped: its clamp is not counted */
  r[15].rot[3] = INFINITY, keep[15] = false;
  r[16].pos[1] = -INFINITY, keep[16] = false;
  r[17].opacity = -INFINITY; /* kept, clamped */
  buf b = {0};
  build_ply(&b, &s, r, N);
  splat_scene sc;
  char err[512];
  int rc = splat_scene_load_memory(b.data, b.size, "policy.ply", &sc, err, sizeof err);
  CHECK(rc == 0, "policy: %s", err);
  int kept = 0;
  for (int i = 0; i < N; ++i) kept += keep[i];
  if (rc == 0) {
    CHECK(sc.count == (uint32_t)kept && sc.dropped == (uint32_t)(N - kept) && sc.clamped == 3,
          "policy: count %u dropped %u clamped %u, want %d %d 3", sc.count, sc.dropped, sc.clamped, kept, N - kept);
    check_invariants("policy", &sc);
    uint32_t k = 0;
    for (int i = 0; i < N && sc.count == (uint32_t)kept; ++i) {
      if (!keep[i]) continue;
      expect e;
      expected(&r[i], 1, &e);
      check_splat("policy", &sc, k++, &e, 0.0, 2e-6, 1e-6, 1e-6, 0.0);
    }
    if (sc.count == (uint32_t)kept) {
      /* kept rows 0, 7, 8, 12, 13, 17 are slots 0..5 */
      CHECK(sc.opacities[1] == 1.0f && sc.opacities[2] == 0.0f && sc.opacities[3] == 1.0f && sc.opacities[5] == 0.0f,
            "policy: clamped opacities %g %g %g %g", sc.opacities[1], sc.opacities[2], sc.opacities[3], sc.opacities[5]);
      CHECK(sc.rotations[4 * 4 + 0] > 0.44f && sc.rotations[4 * 4 + 1] < -0.89f, "policy: tiny quaternion %g %g",
            sc.rotations[16], sc.rotations[17]);
    }
  }
  splat_scene_free(&sc);
  free(b.data);

  /* doubles: values are converted to float first, so beyond float range is +-inf */
  {
    ply_spec sd;
    spec_standard(&sd, 0, false, TY_DOUBLE);
    raw_splat rd[5];
    gen_splats(&sd, rd, 5);
    rd[0].pos[0] = 1e300;                /* +inf as float: dropped */
    rd[1].pos[1] = -3.0e38, rd[1].pos[2] = 3.0e38; /* within float range: kept */
    rd[2].opacity = -1e300;              /* -inf as float: kept, 0, clamped */
    rd[3].rest[0] = 1e-300, rd[3].dc[2] = 1e-300; /* underflows to 0: kept */
    rd[4].scale[0] = -1e300;             /* -inf: dropped (non-finite scale) */
    b = (buf){0};
    build_ply(&b, &sd, rd, 5);
    rc = splat_scene_load_memory(b.data, b.size, "doubles.ply", &sc, err, sizeof err);
    CHECK(rc == 0 && sc.count == 3 && sc.dropped == 2 && sc.clamped == 1, "doubles: rc %d count %u dropped %u clamped %u",
          rc, sc.count, sc.dropped, sc.clamped);
    if (rc == 0 && sc.count == 3) {
      CHECK(sc.positions[1] == -3.0e38f && sc.positions[2] == 3.0e38f && sc.opacities[1] == 0.0f && sc.sh[2 * 3 + 2] == 0.0f,
            "doubles: values %g %g %g", sc.positions[1], sc.opacities[1], sc.sh[8]);
      for (int i = 1; i < 4; ++i) {
        expect e;
        expected(&rd[i], 0, &e);
        check_splat("doubles", &sc, (uint32_t)i - 1, &e, 0.0, 2e-6, 1e-6, 1e-6, 0.0);
      }
    }
    splat_scene_free(&sc);
    free(b.data);
  }

  /* all dropped -> an error */
  for (int i = 0; i < N; ++i) r[i].pos[0] = NAN;
  b = (buf){0};
  build_ply(&b, &s, r, N);
  memset(&sc, 0xa5, sizeof sc);
  rc = splat_scene_load_memory(b.data, b.size, "alldropped.ply", &sc, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "alldropped.ply: ") == err && strstr(err, "no valid splats") && is_zero_scene(&sc),
        "all dropped: rc %d err '%s'", rc, err);
  free(b.data);
}

/* ---- malformed input ------------------------------------------------------------ */


static void expect_error_text(const char *name, const char *text, const char *words) {
  expect_load_error(name, text, strlen(text), words);
}

#define HDR "ply\nformat binary_little_endian 1.0\n"
#define PROPS14 "property float x\nproperty float y\nproperty float z\nproperty float f_dc_0\nproperty float f_dc_1\n" \
  "property float f_dc_2\nproperty float opacity\nproperty float scale_0\nproperty float scale_1\n"              \
  "property float scale_2\nproperty float rot_0\nproperty float rot_1\nproperty float rot_2\nproperty float rot_3\n"

/* Header lines that are wrong: magic, format, keywords, types, counts, lists. */
static void malformed_header(const buf *good, size_t hdr_len) {
  expect_error_text("ascii.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n", "missing required");
  expect_error_text("be.ply", "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n1234",
                    "big-endian");
  expect_error_text("weird.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n", "unknown PLY format");
  expect_error_text("v2.ply", "ply\nformat binary_little_endian 2.0\nend_header\n", "version");
  expect_error_text("nofmt.ply", "ply\nelement vertex 1\nproperty float x\nend_header\nabcd", "missing format");
  expect_load_error("noend.ply", good->data, hdr_len - 11, "end_header");
  expect_error_text("noend2.ply", HDR "element vertex 1\n" PROPS14 "end_head", "end_header");
  expect_error_text("endjunk.ply", HDR "element vertex 1\n" PROPS14 "end_header now\n", "end_header");
  expect_error_text("kw.ply", HDR "elements vertex 1\nend_header\n", "unexpected keyword 'elements'");
  expect_error_text("propfirst.ply", HDR "property float x\nelement vertex 1\nend_header\n", "property before any element");
  expect_error_text("badtype.ply", HDR "element vertex 1\nproperty float16 x\nend_header\n", "unknown property type 'float16'");
  expect_error_text("badprop.ply", HDR "element vertex 1\nproperty float\nend_header\n", "malformed property");
  expect_error_text("badelem.ply", HDR "element vertex\nend_header\n", "malformed element");
  expect_error_text("words.ply", HDR "element vertex 1 2 3 4 5 6 7 8 9\nend_header\n", "too many words");
  expect_error_text("nelem.ply", HDR "comment nothing\nend_header\n", "no elements");
  expect_error_text("novertex.ply", HDR "element face 0\nproperty float q\nend_header\n", "no element 'vertex'");
  expect_error_text("twovertex.ply", HDR "element vertex 0\nelement vertex 0\nend_header\n", "more than one element 'vertex'");
  expect_error_text("zero.ply", HDR "element vertex 0\n" PROPS14 "end_header\n", "no splats|count 0");
  expect_error_text("bigcount.ply", HDR "element vertex 123456789012345678901234\n" PROPS14 "end_header\n",
                    "count '123456789012345678901234' is not a number or too large");
  expect_error_text("negcount.ply", HDR "element vertex -5\n" PROPS14 "end_header\n", "not a number");
  expect_error_text("overflow.ply", HDR "element vertex 18446744073709551615\n" PROPS14 "end_header\n", "overflow");
  expect_error_text("overflow2.ply",
                    HDR "element pre 4611686018427387904\nproperty double a\nproperty double b\nelement vertex 1\n" PROPS14
                        "end_header\n",
                    "element 'pre'|overflow");
  expect_error_text("lies.ply", HDR "element vertex 1000000\n" PROPS14 "end_header\n0123456789",
                    "truncated|header says 1000000 splats of 56 bytes|only 10 bytes");
  expect_error_text("listvertex.ply", HDR "element vertex 1\nproperty list uchar float x\nend_header\n\1abcd",
                    "element 'vertex'|list property 'x'");
  expect_error_text("listbefore.ply",
                    HDR "element face 1\nproperty list uchar int idx\nelement vertex 1\n" PROPS14 "end_header\n",
                    "after element 'face'|variable-size list|cannot be found");
  expect_error_text("badlist.ply", HDR "element face 1\nproperty list float int idx\nend_header\n", "list count type");
}

/* Required properties missing or repeated; f_rest counts that are no SH degree. */
static void malformed_properties(void) {
  buf b = {0};
  putf(&b, HDR "element vertex 1\n");
  const char *p = strstr(PROPS14, "property float opacity\n");
  put(&b, PROPS14, (size_t)(p - PROPS14));
  putf(&b, "%s", p + strlen("property float opacity\n"));
  putf(&b, "end_header\n");
  for (int i = 0; i < 13; ++i) put_value(&b, TY_FLOAT, 0.5);
  expect_load_error("noopacity.ply", b.data, b.size, "missing required property 'opacity'");
  b.size = 0;
  putf(&b, HDR "element vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0123456789ab");
  expect_load_error("onlyxyz.ply", b.data, b.size,
               "missing required properties|'scale_0'|'rot_3'|'opacity'|'f_dc_2'");
  expect_error_text("dupx.ply", HDR "element vertex 1\nproperty float x\n" PROPS14 "end_header\n", "duplicate property 'x'");
  /* f_rest counts */
  char text[4096];
  int n = snprintf(text, sizeof text, HDR "element vertex 1\n" PROPS14);
  for (int i = 0; i < 10; ++i) n += snprintf(text + n, sizeof text - (size_t)n, "property float f_rest_%d\n", i);
  snprintf(text + n, sizeof text - (size_t)n, "end_header\n");
  expect_error_text("rest10.ply", text, "10 f_rest_* properties|0, 9, 24 or 45");
  n = snprintf(text, sizeof text, HDR "element vertex 1\n" PROPS14);
  for (int i = 0; i < 9; ++i) n += snprintf(text + n, sizeof text - (size_t)n, "property float f_rest_%d\n", i == 3 ? 9 : i);
  snprintf(text + n, sizeof text - (size_t)n, "end_header\n");
  expect_error_text("restgap.ply", text, "f_rest_3 is missing");
  n = snprintf(text, sizeof text, HDR "element vertex 1\n" PROPS14 "property float f_rest_45\nend_header\n");
  expect_error_text("rest45.ply", text, "f_rest_45|SH degree above 3");
  n = snprintf(text, sizeof text, HDR "element vertex 1\n" PROPS14 "property float f_rest_2\nproperty float f_rest_2\nend_header\n");
  expect_error_text("restdup.ply", text, "duplicate property 'f_rest_2'");
  free(b.data);
}

/* Headers beyond the loader's limits: length, properties, elements; a hostile name. */
static void malformed_limits(void) {
  buf b = {0};
  putf(&b, HDR "comment ");
  for (int i = 0; i < (1 << 20) / 64 + 10; ++i)
    putf(&b, "0123456789012345678901234567890123456789012345678901234567890123");
  putf(&b, "\nelement vertex 1\n" PROPS14 "end_header\n");
  expect_load_error("hugeheader.ply", b.data, b.size, "header too long");
  b.size = 0;
  putf(&b, HDR "element vertex 1\n");
  for (int i = 0; i < 2100; ++i) putf(&b, "property float p%d\n", i);
  putf(&b, "end_header\n");
  expect_load_error("manyprops.ply", b.data, b.size, "too many properties");
  b.size = 0;
  putf(&b, HDR);
  for (int i = 0; i < 70; ++i) putf(&b, "element e%d 0\n", i);
  putf(&b, "end_header\n");
  expect_load_error("manyelems.ply", b.data, b.size, "too many elements");
  /* a hostile name stays one short printable line */
  b.size = 0;
  putf(&b, HDR "element vertex 1\nproperty \x01\x02\x7f");
  for (int i = 0; i < 200; ++i) putf(&b, "n");
  putf(&b, " x\nend_header\n");
  expect_load_error("hostile.ply", b.data, b.size, "unknown property type '???nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...'");
  free(b.data);
}

/* Not PLY at all, .splat files of the wrong size, compressed PLY mistakes. */
static void malformed_formats(void) {
  buf b = {0};
  expect_load_error("unknown.bin", "GIF89a......", 12, "unknown format");
  expect_load_error("notply.ply", "PLY\nformat", 10, "not a PLY file");
  expect_load_error("plyspace.ply", "ply format binary_little_endian 1.0\n", 36, "not a PLY file");
  expect_load_error("empty.ply", "", 0, "empty");
  uint8_t zeros[64] = {0};
  expect_load_error("odd.splat", zeros, 33, "not a multiple of 32");
  expect_load_error("odd2.splat", zeros, 31, "not a multiple of 32");
  memset(zeros + 28, 128, 4), memset(zeros + 60, 128, 4); /* zero-length quaternions */
  expect_load_error("zeroquat.splat", zeros, 64, "no valid splats");
  /* compressed PLY mistakes */
  cchunk ch[2] = {{{0}}};
  uint32_t pk[300][4] = {{0}};
  for (int i = 0; i < 300; ++i) pk[i][1] = 0x1ff7fdffu;
  uint8_t shb[300 * 45] = {0};
  build_compressed(&b, 300, 1, true, 0, ch, (const uint32_t(*)[4])pk, shb, "uint");
  expect_load_error("fewchunks.compressed.ply", b.data, b.size, "1 chunks for 300 splats|need 2");
  b.size = 0;
  build_compressed(&b, 300, 2, true, 0, ch, (const uint32_t(*)[4])pk, shb, "float");
  expect_load_error("floatpacked.compressed.ply", b.data, b.size, "packed_position|expected a 32-bit");
  b.size = 0;
  build_compressed(&b, 300, 2, true, 1, ch, (const uint32_t(*)[4])pk, shb, "uint");
  expect_load_error("shcut.compressed.ply", b.data, b.size - 1, "truncated|element 'sh' needs 2700 bytes|2699 bytes");
  char *el = strstr((char *)b.data, "element sh 300");
  el[13] = '1'; /* 301 rows of SH */
  expect_load_error("shcount.compressed.ply", b.data, b.size, "element sh has 301 rows for 300 splats");
  el[11] = '2', el[12] = '9', el[13] = '0'; /* 290 rows: fits, but does not match the splats */
  expect_load_error("shcount2.compressed.ply", b.data, b.size, "element sh has 290 rows for 300 splats");
  b.size = 0;
  putf(&b, HDR "element vertex 1\nproperty uint packed_position\nend_header\nabcd");
  expect_load_error("nochunk.compressed.ply", b.data, b.size, "without a 'chunk' element");
  b.size = 0;
  putf(&b, HDR "element chunk 1\nproperty float min_x\nelement vertex 1\nproperty uint packed_position\nend_header\n"
               "abcdabcd");
  expect_load_error("chunkprops.compressed.ply", b.data, b.size, "missing required properties|'max_scale_z'|element chunk");
  free(b.data);
}

/* Files: missing, a directory, empty, a device; error buffers NULL or tiny; no output; no name. */
static void malformed_files(const buf *good) {
  splat_scene sc;
  char err[512];
  memset(&sc, 0xa5, sizeof sc);
  int rc = splat_scene_load(tmp_path("does-not-exist.ply"), &sc, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "does-not-exist.ply: cannot open") && is_zero_scene(&sc), "missing file: '%s'", err);
  rc = splat_scene_load(tmpdir, &sc, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "directory") && is_zero_scene(&sc), "directory: '%s'", err);
  write_file(tmp_path("empty.ply"), "", 0);
  rc = splat_scene_load(tmp_path("empty.ply"), &sc, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "empty.ply: empty file"), "empty file: '%s'", err);
  rc = splat_scene_load("/dev/null", &sc, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "/dev/null: not a regular file"), "/dev/null: '%s'", err);
  /* A FIFO with no writer: refused at once (it used to block in open() forever). */
  const char *fifo = tmp_path("fifo.ply");
  unlink(fifo);
  if (mkfifo(fifo, 0600) == 0) {
    rc = splat_scene_load(fifo, &sc, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "not a regular file") && is_zero_scene(&sc), "FIFO: '%s'", err);
    unlink(fifo);
  } else {
    CHECK(0, "mkfifo %s: %s", fifo, strerror(errno));
  }
  /* no err buffer, a tiny one, no output */
  CHECK(splat_scene_load(tmp_path("does-not-exist.ply"), &sc, NULL, 0) == -1, "NULL err");
  char tiny[8];
  memset(tiny, 'X', sizeof tiny);
  rc = splat_scene_load_memory("x", 1, "abcdefghijkl", &sc, tiny, sizeof tiny);
  CHECK(rc == -1 && memcmp(tiny, "abcdefg", 8) == 0, "tiny err buffer '%.8s'", tiny);
  rc = splat_scene_load_memory(good->data, good->size, "x.ply", NULL, err, sizeof err);
  CHECK(rc == -1 && strstr(err, "x.ply: "), "NULL out: '%s'", err);
  rc = splat_scene_load_memory(good->data, good->size, NULL, &sc, err, sizeof err);
  CHECK(rc == 0, "NULL name: %s", err);
  splat_scene_free(&sc);
  splat_scene_free(NULL);
  rc = splat_scene_load_memory("ply\n", 4, NULL, &sc, err, sizeof err);
  CHECK(rc == -1 && strncmp(err, "<memory>: ", 10) == 0, "NULL name: '%s'", err);
}

/* Every truncation of a valid file with elements before and after the vertices, then random
 * corruption of it. */
static void malformed_truncations(void) {
  buf b = {0};
  raw_splat rr[5];
  ply_spec sp;
  spec_standard(&sp, 1, true, TY_FLOAT);
  sp.elem_before = 1, sp.elem_after = 1;
  rng_state = 7100;
  gen_splats(&sp, rr, 5);
  build_ply(&b, &sp, rr, 5);
  splat_scene sc;
  char err[512];
  CHECK(splat_scene_load_memory(b.data, b.size, "full.ply", &sc, err, sizeof err) == 0, "full: %s", err);
  splat_scene_free(&sc);
  size_t hdr = (size_t)(strstr((char *)b.data, "end_header\n") - (char *)b.data) + 11;
  for (size_t len = 0; len < b.size; ++len) {
    const char *want = len == 0 ? "empty" : len < 4 ? "format" : len < hdr ? "end_header" : "truncated";
    if (len < 4) want = len == 0 ? "empty" : "unknown format";
    char name[64];
    snprintf(name, sizeof name, "cut%zu.ply", len);
    if (len == 3) continue; /* "ply" without a newline: no magic, but named .ply */
    if (len > 0 && len < 4) snprintf(name, sizeof name, "cut%zu.bin", len);
    expect_load_error(name, b.data, len, want);
  }
  expect_load_error("cut3.ply", b.data, 3, "not a PLY file");
  /* random corruption: never a crash; whatever loads keeps the invariants */
  rng_state = 7200;
  int loaded = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    buf c = {0};
    put(&c, b.data, b.size);
    int flips = (int)irand(1, 4);
    for (int f = 0; f < flips; ++f) {
      size_t at = iter % 2 ? (size_t)irand(0, (long)hdr - 1) : (size_t)irand(0, (long)b.size - 1);
      c.data[at] = iter % 3 ? (uint8_t)rnd() : (uint8_t)"0123456789 \n"[irand(0, 11)];
    }
    size_t len = iter % 5 == 0 ? (size_t)irand(0, (long)c.size) : c.size;
    memset(&sc, 0xa5, sizeof sc);
    int rc = splat_scene_load_memory(c.data, len, iter % 7 ? "fuzz.ply" : "fuzz.splat", &sc, err, sizeof err);
    if (rc == 0) {
      ++loaded;
      check_invariants("corrupted", &sc);
      splat_scene_free(&sc);
    } else {
      CHECK(is_zero_scene(&sc) && strchr(err, '\n') == NULL && strncmp(err, "fuzz.", 5) == 0, "corrupted: '%s'", err);
    }
    free(c.data);
  }
  CHECK(loaded > 100, "random corruption: only %d of 3000 loaded: the corruption test tests little", loaded);
  free(b.data);
}

/* A file truncated while it loads (a dropped file still being written, or replaced): the load
 * either finishes or fails with a message; it must never crash (with the file mapped, the
 * shrinking mapping raised SIGBUS). A thread truncates the file after a delay that sweeps
 * across the load's duration. */
typedef struct {
  const char *path;
  long delay_us;
} truncator_args;

static void *truncator(void *arg) {
  const truncator_args *t = arg;
  struct timespec ts = {t->delay_us / 1000000, (t->delay_us % 1000000) * 1000};
  nanosleep(&ts, NULL);
  if (truncate(t->path, 4096) != 0) perror("truncate");
  return NULL;
}

static void malformed_truncated_while_loading(void) {
  enum { N = 200000 };
  raw_splat *r = malloc(sizeof *r * N);
  CHECK(r != NULL, "out of memory");
  if (!r) return;
  ply_spec s;
  spec_standard(&s, 3, false, TY_FLOAT);
  rng_state = 7100;
  gen_splats(&s, r, N);
  buf b = {0};
  build_ply(&b, &s, r, N);
  free(r);
  const char *path = tmp_path("shrinking.ply");
  int failed = 0, loaded = 0;
  for (long delay = 0; delay <= 40000; delay += 5000) {
    write_file(path, b.data, b.size);
    truncator_args t = {path, delay};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, truncator, &t) == 0, "pthread_create");
    splat_scene sc;
    char err[512] = "";
    int rc = splat_scene_load(path, &sc, err, sizeof err);
    pthread_join(th, NULL);
    if (rc == 0) {
      CHECK(sc.count + sc.dropped == N, "loaded %u (+%u dropped) of %u splats without an error", sc.count,
            sc.dropped, (unsigned)N);
      loaded++;
      splat_scene_free(&sc);
    } else {
      CHECK(strstr(err, "shrinking.ply") != NULL && is_zero_scene(&sc), "truncated: '%s'", err);
      failed++;
    }
  }
  printf("truncated while loading: %d loads finished, %d failed with a message\n", loaded, failed);
  free(b.data);
}

static void test_malformed(void) {
  /* a valid SH-degree-0 file of 3 splats, the base of several cases */
  raw_splat r[3];
  ply_spec s;
  spec_standard(&s, 0, false, TY_FLOAT);
  rng_state = 7000;
  gen_splats(&s, r, 3);
  buf good = {0};
  build_ply(&good, &s, r, 3);
  char *hdr_end = strstr((char *)good.data, "end_header\n");
  size_t hdr_len = (size_t)(hdr_end - (char *)good.data) + 11;
  malformed_header(&good, hdr_len);
  malformed_properties();
  malformed_limits();
  malformed_formats();
  malformed_files(&good);
  malformed_truncations();
  malformed_truncated_while_loading();
  free(good.data);
}

/* ---- writer round trip -------------------------------------------------------- */

static void compare_scenes(const char *what, const splat_scene *a, const splat_scene *b) {
  CHECK(a->count == b->count && a->sh_degree == b->sh_degree && a->sh_coeffs == b->sh_coeffs,
        "%s: count %u/%u degree %u/%u", what, a->count, b->count, a->sh_degree, b->sh_degree);
  if (a->count != b->count || a->sh_coeffs != b->sh_coeffs) return;
  uint32_t nsh = a->sh_coeffs * 3;
  for (uint32_t i = 0; i < a->count; ++i) {
    expect e;
    for (int c = 0; c < 3; ++c) e.pos[c] = a->positions[i * 3 + c], e.scale[c] = a->scales[i * 3 + c];
    for (int c = 0; c < 4; ++c) e.rot[c] = a->rotations[i * 4 + c];
    e.opacity = a->opacities[i];
    for (uint32_t k = 0; k < nsh; ++k) e.sh[k] = a->sh[i * nsh + k];
    check_splat(what, b, i, &e, 0.0, 2e-6, 2e-7, 1e-6, 0.0);
  }
  for (int c = 0; c < 3; ++c)
    CHECK(a->bounds_min[c] == b->bounds_min[c] && a->bounds_max[c] == b->bounds_max[c], "%s: bounds differ", what);
}

static void test_roundtrip(void) {
  char err[512];
  for (int degree = 0; degree <= 3; ++degree) {
    enum { N = 500 };
    static raw_splat r[N];
    ply_spec s;
    spec_standard(&s, degree, false, TY_FLOAT);
    qsort(s.props, (size_t)s.nprops, sizeof s.props[0], cmp_prop);
    rng_state = 8000 + (uint64_t)degree;
    gen_splats(&s, r, N);
    r[7].opacity = INFINITY, r[8].opacity = -INFINITY, r[9].scale[1] = -200; /* exactly 1, 0 and a 0 scale */
    buf b = {0};
    build_ply(&b, &s, r, N);
    splat_scene a, c;
    int rc = splat_scene_load_memory(b.data, b.size, "rt.ply", &a, err, sizeof err);
    CHECK(rc == 0, "roundtrip load: %s", err);
    if (rc != 0) continue;
    CHECK(a.clamped == 2 && a.opacities[7] == 1.0f && a.opacities[8] == 0.0f && a.scales[9 * 3 + 1] == 0.0f,
          "roundtrip source: clamped %u", a.clamped);
    const char *path = tmp_path("roundtrip.ply");
    rc = splat_scene_write_ply(path, &a, err, sizeof err);
    CHECK(rc == 0, "write: %s", err);
    rc = splat_scene_load(path, &c, err, sizeof err);
    CHECK(rc == 0, "reload: %s", err);
    if (rc == 0) {
      char what[32];
      snprintf(what, sizeof what, "roundtrip_sh%d", degree);
      compare_scenes(what, &a, &c);
      CHECK(c.clamped == 0 && c.dropped == 0, "%s: the written values are finite, clamped %u", what, c.clamped);
    }
    /* The header is the standard 3DGS one, in the standard order. */
    size_t size;
    uint8_t *data = read_file(path, &size);
    buf want = {0};
    putf(&want, "element vertex %d\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\n"
                "property float ny\nproperty float nz\nproperty float f_dc_0\nproperty float f_dc_1\nproperty float f_dc_2\n", N);
    int nrest = ((degree + 1) * (degree + 1) - 1) * 3;
    for (int i = 0; i < nrest; ++i) putf(&want, "property float f_rest_%d\n", i);
    putf(&want, "property float opacity\nproperty float scale_0\nproperty float scale_1\nproperty float scale_2\n"
                "property float rot_0\nproperty float rot_1\nproperty float rot_2\nproperty float rot_3\nend_header\n");
    put(&want, "", 1);
    CHECK(data && strncmp((char *)data, "ply\nformat binary_little_endian 1.0\n", 36) == 0 &&
              strstr((char *)data, (char *)want.data) != NULL,
          "roundtrip sh%d: the written header is not the standard one", degree);
    /* and the data right after it: splat 0's raw values */
    if (data) {
      char *end = strstr((char *)data, "end_header\n");
      size_t row = (size_t)(9 + nrest + 8) * 4, off = (size_t)(end - (char *)data) + 11;
      CHECK(size == off + row * N, "roundtrip: file size %zu want %zu", size, off + row * N);
      float v[62];
      memcpy(v, data + off, row);
      expect e;
      expected(&r[0], degree, &e);
      /* logit(sigmoid(o)) loses what float sigmoid loses: 6e-8 / (s (1 - s)) */
      double sg = 1.0 / (1.0 + exp(-r[0].opacity)), op_tol = 1e-7 / (sg * (1 - sg)) + 1e-6;
      CHECK(v[0] == (float)r[0].pos[0] && v[3] == 0 && v[6] == (float)r[0].dc[0] &&
                fabs(v[9 + nrest] - r[0].opacity) < op_tol && fabs(v[10 + nrest] - r[0].scale[0]) < 1e-5,
            "roundtrip: splat 0 raw values %g %g want %g %g", v[9 + nrest], v[10 + nrest], r[0].opacity, r[0].scale[0]);
      if (nrest) CHECK(v[9] == (float)r[0].rest[0] && v[8 + nrest] == (float)r[0].rest[nrest - 1], "roundtrip: f_rest order");
    }
    free(data);
    free(want.data);
    splat_scene_free(&a);
    splat_scene_free(&c);
    free(b.data);
    remove(path);
  }
  /* errors */
  splat_scene empty = {0};
  CHECK(splat_scene_write_ply(tmp_path("x.ply"), &empty, err, sizeof err) == -1 && strstr(err, "empty"), "write empty: %s", err);
  CHECK(splat_scene_write_ply(tmp_path("x.ply"), NULL, err, sizeof err) == -1, "write NULL");
  float one[4] = {1, 0, 0, 0}, sh[3] = {0};
  splat_scene bad = {1, 2, 4, one, one, one, one, sh, {0}, {0}, 0, 0};
  CHECK(splat_scene_write_ply(tmp_path("x.ply"), &bad, err, sizeof err) == -1 && strstr(err, "SH degree 2"), "write bad degree: %s", err);
  splat_scene ok = {1, 0, 1, one, one, one, one, sh, {0}, {0}, 0, 0};
  CHECK(splat_scene_write_ply("/nonexistent-dir/x.ply", &ok, err, sizeof err) == -1 &&
            strstr(err, "/nonexistent-dir/x.ply: cannot create"), "write to a missing folder: %s", err);
  struct stat st;
  if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode))
    CHECK(splat_scene_write_ply("/dev/full", &ok, err, sizeof err) == -1 && strstr(err, "/dev/full: write failed"),
          "write to a full device: %s", err);
  test_write_failures();
}

/* A scene of n splats with values that do not compress away (the .spz writer too). */
static splat_scene noisy_scene(uint32_t n) {
  splat_scene s = {.count = n, .sh_coeffs = 1};
  s.positions = malloc(sizeof(float) * 3 * n), s.scales = malloc(sizeof(float) * 3 * n);
  s.rotations = malloc(sizeof(float) * 4 * n), s.opacities = malloc(sizeof(float) * n);
  s.sh = malloc(sizeof(float) * 3 * n);
  if (!s.positions || !s.scales || !s.rotations || !s.opacities || !s.sh) {
    splat_scene_free(&s);
    return s;
  }
  for (size_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) {
      s.positions[i * 3 + c] = (float)urand(-10, 10);
      s.scales[i * 3 + c] = (float)urand(0.01, 1);
      s.sh[i * 3 + c] = (float)urand(-1, 1);
    }
    for (int c = 0; c < 4; c++) s.rotations[i * 4 + c] = (float)urand(0.1, 1);
    s.opacities[i] = (float)urand(0.05, 0.95);
  }
  return s;
}

/* Whether a temporary file of `path` (the writers' "<path>.tmp-*") is left in its folder. */
static bool temporary_left(const char *path) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls '%s'.tmp-* > /dev/null 2>&1", path);
  return system(cmd) == 0;
}

static bool file_is(const char *path, const char *text) {
  size_t size;
  uint8_t *d = read_file(path, &size);
  bool same = d && size == strlen(text) && memcmp(d, text, size) == 0;
  free(d);
  return same;
}

/* A write that fails part-way (a file-size limit: EFBIG after 4 KiB, as a full disk fails with
 * ENOSPC) returns -1 with "<path>: write failed: <strerror>", leaves no file (nor a temporary
 * one) and keeps the file that was there; a path with an escape sequence is named with '?'. */
static void test_write_failures(void) {
  rng_state = 77;
  splat_scene s = noisy_scene(4000); /* 272 KB as .ply, ~50 KB as .spz */
  if (!s.positions) {
    CHECK(0, "out of memory");
    return;
  }
  typedef int (*writer)(const char *, const splat_scene *, char *, size_t);
  const writer writers[2] = {splat_scene_write_ply, splat_scene_write_spz};
  const char *names[2] = {"limited.ply", "limited.spz"}, *kept[2] = {"kept.ply", "kept.spz"};
  struct rlimit old;
  CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit: %s", strerror(errno));
  void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
  for (int k = 0; k < 2; k++) {
    char err[1024], path[1024], kept_path[1024]; /* tmp_path's buffers are reused */
    snprintf(path, sizeof path, "%s", tmp_path(names[k]));
    snprintf(kept_path, sizeof kept_path, "%s", tmp_path(kept[k]));
    remove(path);
    write_file(kept_path, "old", 3);
    struct rlimit small = {4096, old.rlim_max};
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit: %s", strerror(errno));
    int rc = writers[k](path, &s, err, sizeof err);
    int rc_kept = writers[k](kept_path, &s, err + 512, sizeof err - 512);
    setrlimit(RLIMIT_FSIZE, &old);
    char want[1100];
    snprintf(want, sizeof want, "%s: write failed: %s", path, strerror(EFBIG));
    CHECK(rc == -1 && strcmp(err, want) == 0, "%s past a 4 KiB limit: %d, '%s'", names[k], rc, err);
    CHECK(access(path, F_OK) != 0 && !temporary_left(path), "%s: a partial file was left behind", names[k]);
    CHECK(rc_kept == -1 && file_is(kept_path, "old") && !temporary_left(kept_path),
          "%s: the file there was not kept as it was: %s", kept[k], err + 512);
    /* without the limit: complete, and nothing else left */
    CHECK(writers[k](path, &s, err, sizeof err) == 0 && !temporary_left(path), "%s: %s", names[k], err);
    splat_scene back;
    CHECK(splat_scene_load(path, &back, err, sizeof err) == 0 && back.count == s.count, "%s read back: %s", names[k], err);
    splat_scene_free(&back);
    remove(path);
    remove(kept_path);
  }
  signal(SIGXFSZ, was);
  char err[1024];
  struct stat st;
  if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode))
    CHECK(splat_scene_write_spz("/dev/full", &s, err, sizeof err) == -1 &&
              strstr(err, "/dev/full: write failed: No space left on device") && stat("/dev/full", &st) == 0 &&
              S_ISCHR(st.st_mode), /* written in place, not renamed over */
          "spz to a full device: %s", err);
  CHECK(splat_scene_write_ply("/nonexistent-dir/\x1b[31mx.ply", &s, err, sizeof err) == -1 && !strchr(err, '\x1b') &&
            strstr(err, "/nonexistent-dir/?[31mx.ply: cannot create"), "a name with an escape sequence: %s", err);
  splat_scene_free(&s);
}

/* ---- the real scenes ---------------------------------------------------------- */

/* Reads every float property of a standard (all-float) real PLY by itself and
 * compares every loaded splat with what the 3DGS activations give. */
static void check_real_raw(const char *path, const splat_scene *s, int want_clamped) {
  size_t size;
  uint8_t *d = read_file(path, &size);
  if (!d) { CHECK(0, "cannot read %s", path); return; }
  char *end = strstr((char *)d, "end_header\n");
  char names[80][32];
  int np = 0, count = 0;
  for (char *line = (char *)d; line < end; line = strchr(line, '\n') + 1) {
    if (sscanf(line, "element vertex %d", &count) == 1) continue;
    if (np < 80 && sscanf(line, "property float %31s", names[np]) == 1) ++np;
  }
  const uint8_t *data = (const uint8_t *)end + 11;
  CHECK(data + (size_t)count * (size_t)np * 4 <= d + size, "%s: short file", path);
  int coeffs = (int)s->sh_coeffs, inf_opacity = 0;
  for (int i = 0; i < count && (uint32_t)count == s->count; ++i) {
    raw_splat r = {0};
    for (int j = 0; j < np; ++j) {
      double *f = raw_field(&r, names[j]);
      float v;
      memcpy(&v, data + ((size_t)i * (size_t)np + (size_t)j) * 4, 4);
      if (f) *f = v;
    }
    inf_opacity += isinf(r.opacity);
    expect e;
    expected(&r, (int)s->sh_degree, &e);
    check_splat(path, s, (uint32_t)i, &e, 0.0, 2e-6, 1e-6, 1e-6, 0.0);
  }
  (void)coeffs;
  CHECK(inf_opacity == want_clamped && s->clamped == (uint32_t)want_clamped, "%s: %d infinite opacities, clamped %u, want %d",
        path, inf_opacity, s->clamped, want_clamped);
  free(d);
}

static int test_real(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("SKIP: no scenes folder at %s\n", dir);
    return 77;
  }
  static const struct { const char *file; uint32_t count, degree; int clamped; bool standard; } files[] = {
      {"animu_leica-sofort-top8192.ply", 8192, 3, 0, true},
      {"animu_yashica-t4-top8192.ply", 8192, 3, 0, true},
      {"gshairlod_donut_fused.ply", 45624, 0, 0, true},
      {"supersplat_fruit_drops_minimal.ply", 4721, 3, 0, true},
      {"godot4321ba_toyota_tire.ply", 3733, 0, 1814, true},
      {"metalsplatter_3-points-from-train.ply", 3, 3, 0, true},
      {"metalsplatter_3-points-from-train.splat", 3, 0, 0, false},
      {"playcanvas_guitar.compressed.ply", 90854, 0, 0, false},
      {"playcanvas_biker.compressed.ply", 152746, 0, 0, false},
  };
  char path[1024], err[512];
  int found = 0;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
    snprintf(path, sizeof path, "%s/%s", dir, files[f].file);
    if (stat(path, &st) != 0) {
      printf("note: %s is missing, not checked\n", path);
      continue;
    }
    ++found;
    splat_scene s;
    int rc = splat_scene_load(path, &s, err, sizeof err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) continue;
    CHECK(s.count == files[f].count && s.sh_degree == files[f].degree && s.dropped == 0,
          "%s: count %u degree %u dropped %u, want %u %u 0", files[f].file, s.count, s.sh_degree, s.dropped,
          files[f].count, files[f].degree);
    check_invariants(files[f].file, &s);
    if (files[f].standard) check_real_raw(path, &s, files[f].clamped);
    if (strstr(files[f].file, "compressed")) {
      /* Independently: every position lies in its chunk's box, and the component
       * the packed rotation names as largest is the largest. */
      size_t size;
      uint8_t *d = read_file(path, &size);
      int nchunks = 0;
      sscanf(strstr((char *)d, "element chunk "), "element chunk %d", &nchunks);
      const uint8_t *data = (const uint8_t *)strstr((char *)d, "end_header\n") + 11;
      const uint8_t *verts = data + (size_t)nchunks * 18 * 4;
      uint32_t outside = 0, not_largest = 0;
      for (uint32_t i = 0; i < s.count; ++i) {
        float cb[6];
        memcpy(cb, data + (size_t)(i / 256) * 72, sizeof cb);
        for (int c = 0; c < 3; ++c) {
          float p = s.positions[i * 3 + c], tol = 1e-5f * (fabsf(cb[c]) + fabsf(cb[3 + c]));
          outside += p < cb[c] - tol || p > cb[3 + c] + tol;
        }
        uint32_t pr;
        memcpy(&pr, verts + (size_t)i * 16 + 4, 4);
        float big = fabsf(s.rotations[i * 4 + (pr >> 30)]);
        for (int c = 0; c < 4; ++c) not_largest += fabsf(s.rotations[i * 4 + c]) > big + 2e-3f;
      }
      CHECK(outside == 0 && not_largest == 0, "%s: %u positions outside their chunk, %u rotations whose named largest is not",
            files[f].file, outside, not_largest);
      free(d);
    }
    splat_scene_free(&s);
  }
  /* The same three splats in both formats (the .splat is quantised). */
  splat_scene p, q;
  snprintf(path, sizeof path, "%s/metalsplatter_3-points-from-train.ply", dir);
  int rp = splat_scene_load(path, &p, err, sizeof err);
  snprintf(path, sizeof path, "%s/metalsplatter_3-points-from-train.splat", dir);
  int rq = splat_scene_load(path, &q, err, sizeof err);
  if (rp == 0 && rq == 0 && p.count == 3 && q.count == 3) {
    for (uint32_t i = 0; i < 3; ++i) {
      double dot = 0;
      for (int c = 0; c < 4; ++c) dot += (double)p.rotations[i * 4 + c] * q.rotations[i * 4 + c];
      CHECK(fabs(dot) > 0.999, "metalsplatter %u: rotations differ (|dot| %g)", i, fabs(dot));
      CHECK(fabsf(p.opacities[i] - q.opacities[i]) <= 1.0f / 255.0f + 1e-6f, "metalsplatter %u: opacity %g vs %g", i,
            p.opacities[i], q.opacities[i]);
      for (int c = 0; c < 3; ++c) {
        CHECK(fabsf(p.positions[i * 3 + c] - q.positions[i * 3 + c]) <= 1e-6f * (1 + fabsf(p.positions[i * 3 + c])),
              "metalsplatter %u: position %g vs %g", i, p.positions[i * 3 + c], q.positions[i * 3 + c]);
        CHECK(fabsf(p.scales[i * 3 + c] - q.scales[i * 3 + c]) <= 1e-5f * p.scales[i * 3 + c],
              "metalsplatter %u: scale %g vs %g", i, p.scales[i * 3 + c], q.scales[i * 3 + c]);
        /* colour byte = clamp(0.5 + C0 * f_dc) quantised to 1/255 */
        double colour = 0.5 + C0 * p.sh[i * p.sh_coeffs * 3 + c];
        double qcol = 0.5 + C0 * q.sh[i * 3 + c];
        CHECK(fabs(fmin(fmax(colour, 0), 1) - qcol) <= 1.0 / 255.0 + 1e-6, "metalsplatter %u: colour %g vs %g", i, colour, qcol);
      }
    }
  } else {
    CHECK(found < 9, "metalsplatter pair did not load");
  }
  splat_scene_free(&p);
  splat_scene_free(&q);
  printf("checked %d real scenes\n", found);
  return 0;
}

static void test_asset(const char *path) {
  splat_scene s;
  char err[512];
  int rc = splat_scene_load(path, &s, err, sizeof err);
  CHECK(rc == 0, "%s", err);
  if (rc == 0) {
    CHECK(s.count == 8192 && s.sh_degree == 3 && s.dropped == 0 && s.clamped == 0, "asset: count %u degree %u", s.count,
          s.sh_degree);
    check_invariants("asset", &s);
    check_real_raw(path, &s, 0);
  }
  splat_scene_free(&s);
}

/* ---- gen_scene ---------------------------------------------------------------- */

__attribute__((format(printf, 1, 2))) static int run(const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_gen(const char *gen) {
  char err[512];
  static const char *const layouts[] = {"standard", "alphabetical", "no-normals"};
  for (int degree = 0; degree <= 3; ++degree) {
    splat_scene first = {0};
    for (int l = 0; l < 3; ++l) {
      const char *path = tmp_path("gen.ply");
      int rc = run("'%s' --count 2000 --sh-degree %d --seed 42 --out '%s' --layout %s --radius 3", gen, degree, path,
                   layouts[l]);
      CHECK(rc == 0, "gen_scene exit %d", rc);
      splat_scene s;
      rc = splat_scene_load(path, &s, err, sizeof err);
      CHECK(rc == 0, "gen load: %s", err);
      if (rc != 0) continue;
      CHECK(s.count == 2000 && s.sh_degree == (uint32_t)degree && s.dropped == 0 && s.clamped == 0, "gen: count %u degree %u",
            s.count, s.sh_degree);
      check_invariants("gen", &s);
      /* in the ball; sizes around 0.5 * R / cbrt(N) */
      uint32_t outside = 0;
      double log_sum = 0;
      for (uint32_t i = 0; i < s.count; ++i) {
        const float *p = s.positions + i * 3;
        outside += sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) > 3.0f * (1 + 1e-6f);
        for (int c = 0; c < 3; ++c) log_sum += log(s.scales[i * 3 + c]);
      }
      double mean_size = exp(log_sum / (s.count * 3.0)), want = 0.5 * 3.0 / cbrt(2000.0);
      CHECK(outside == 0, "gen: %u splats outside the ball", outside);
      CHECK(mean_size > want / 1.5 && mean_size < want * 1.5, "gen: mean size %g want about %g", mean_size, want);
      /* every layout holds the same splats */
      if (l == 0) {
        first = s;
      } else {
        compare_scenes("gen layouts", &first, &s);
        splat_scene_free(&s);
      }
    }
    splat_scene_free(&first);
  }
  /* same seed, same bytes; another seed, other bytes; the shell */
  const char *a = tmp_path("gen_a.ply"), *b = tmp_path("gen_b.ply");
  CHECK(run("'%s' --count 777 --sh-degree 2 --seed 5 --out '%s'", gen, a) == 0, "gen a");
  CHECK(run("'%s' --count 777 --sh-degree 2 --seed 5 --out '%s'", gen, b) == 0, "gen b");
  size_t na, nb;
  uint8_t *da = read_file(a, &na), *db = read_file(b, &nb);
  CHECK(da && db && na == nb && memcmp(da, db, na) == 0, "gen_scene is not deterministic");
  free(db);
  CHECK(run("'%s' --count 777 --sh-degree 2 --seed 6 --out '%s'", gen, b) == 0, "gen b");
  db = read_file(b, &nb);
  CHECK(da && db && na == nb && memcmp(da, db, na) != 0, "gen_scene ignores the seed");
  free(da), free(db);
  CHECK(run("'%s' --count 5000 --sh-degree 0 --seed 1 --out '%s' --shape shell --radius 2", gen, a) == 0, "gen shell");
  splat_scene s;
  if (splat_scene_load(a, &s, err, sizeof err) == 0) {
    uint32_t bad = 0;
    for (uint32_t i = 0; i < s.count; ++i) {
      const float *p = s.positions + i * 3;
      float r = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      bad += r < 1.9f * (1 - 1e-6f) || r > 2.0f * (1 + 1e-6f);
    }
    CHECK(s.count == 5000 && bad == 0, "gen shell: %u of %u splats off the shell", bad, s.count);
    splat_scene_free(&s);
  } else {
    CHECK(0, "gen shell load: %s", err);
  }
  /* bad arguments fail loudly */
  CHECK(run("'%s' --count 0 --sh-degree 0 --seed 1 --out '%s' 2>/dev/null", gen, a) != 0, "gen --count 0 accepted");
  CHECK(run("'%s' --count 10 --sh-degree 4 --seed 1 --out '%s' 2>/dev/null", gen, a) != 0, "gen --sh-degree 4 accepted");
  CHECK(run("'%s' --count 10 --sh-degree 1 --out '%s' 2>/dev/null", gen, a) != 0, "gen without --seed accepted");
  CHECK(run("'%s' --count 10 --sh-degree 1 --seed 1 --out /nonexistent-dir/x.ply 2>/dev/null", gen) != 0,
        "gen to a missing folder accepted");
  CHECK(run("'%s' --count 10 --sh-degree 1 --seed 1 --out '%s' --layout weird 2>/dev/null", gen, a) != 0,
        "gen --layout weird accepted");
  remove(a), remove(b), remove(tmp_path("gen.ply"));
}

/* Anti-aliased scenes: the .ply header comments that say so (scene.h), the last one winning,
 * and splat_scene_write_ply's comment read back. */
static void test_antialias_comments(void) {
  static const struct {
    const char *comments;
    bool aa;
  } cases[] = {
      {"", false},
      {"comment SplatRenderMode: mip\n", true},                 /* Brush */
      {"comment splatrendermode: MIP\n", true},                 /* any case */
      {"comment antialiased 1\n", true},                        /* Postshot */
      {"comment SplatRenderMode: default\n", false},
      {"comment SplatRenderMode: 2dgs\n", false},
      {"comment antialiased 0\n", false},
      {"comment antialiased 1\ncomment SplatRenderMode: default\n", false}, /* the last wins */
      {"comment SplatRenderMode: default\ncomment antialiased 1\n", true},
      {"comment antialiased 1\ncomment Vertical axis: y\n", true}, /* others leave it */
      {"comment antialiased yes\n", false},                     /* not a value of either form */
      {"comment SplatRenderMode: mip extra\n", false},
      {"obj_info antialiased 1\n", false},                      /* only comments */
  };
  static const char *const props[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0",
                                      "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"};
  const float row[14] = {1, 2, 3, 0.1f, 0.2f, 0.3f, 0, -1, -1, -1, 1, 0, 0, 0};
  char err[512];
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    buf b = {0};
    putf(&b, "ply\nformat binary_little_endian 1.0\n%selement vertex 1\n", cases[k].comments);
    for (size_t i = 0; i < sizeof props / sizeof props[0]; ++i) putf(&b, "property float %s\n", props[i]);
    putf(&b, "end_header\n");
    put(&b, row, sizeof row);
    splat_scene sc;
    int rc = splat_scene_load_memory(b.data, b.size, "aa.ply", &sc, err, sizeof err);
    CHECK(rc == 0, "antialias case %zu: %s", k, err);
    if (rc == 0) {
      CHECK(((sc.flags & SPLAT_SCENE_ANTIALIASED) != 0) == cases[k].aa, "antialias case %zu (%s): flags %u", k,
            cases[k].comments, sc.flags);
      if (cases[k].aa) { /* written with Brush's comment, read back anti-aliased */
        const char *path = tmp_path("antialiased.ply");
        splat_scene back;
        CHECK(splat_scene_write_ply(path, &sc, err, sizeof err) == 0, "write: %s", err);
        CHECK(splat_scene_load(path, &back, err, sizeof err) == 0, "reload: %s", err);
        CHECK(back.flags == SPLAT_SCENE_ANTIALIASED, "written and read back: flags %u", back.flags);
        splat_scene_free(&back);
      }
      splat_scene_free(&sc);
    }
    free(b.data);
  }
}

/* ---- progress and cancellation (splat_scene_load_ex) ---------------------------- */

/* The reports of one load: phase, done, total, in order. */
typedef struct progress_log {
  struct { const char *phase; uint64_t done, total; } r[256];
  int n;
  int cancel_at;        /* set *cancel at this report (0-based); -1 never */
  volatile int *cancel;
} progress_log;

static void on_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
  progress_log *l = user;
  if (l->n < 256) {
    l->r[l->n].phase = phase;
    l->r[l->n].done = done;
    l->r[l->n].total = total;
  }
  if (l->n == l->cancel_at) *l->cancel = 1;
  l->n++;
}

/* A valid degree-0 PLY of n splats (x y z f_dc scale rot opacity, all float) or a .splat. */
static buf progress_file(uint32_t n, bool splat_format) {
  buf b = {0};
  if (!splat_format)
    putf(&b, "ply\nformat binary_little_endian 1.0\nelement vertex %u\nproperty float x\nproperty float y\n"
             "property float z\nproperty float f_dc_0\nproperty float f_dc_1\nproperty float f_dc_2\n"
             "property float opacity\nproperty float scale_0\nproperty float scale_1\nproperty float scale_2\n"
             "property float rot_0\nproperty float rot_1\nproperty float rot_2\nproperty float rot_3\n"
             "end_header\n", n);
  size_t row = splat_format ? 32 : 14 * 4;
  b.cap = b.size + (size_t)n * row;
  b.data = realloc(b.data, b.cap);
  if (!b.data) abort();
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t *o = b.data + b.size + (size_t)i * row;
    float p[3] = {(float)(i % 1000), (float)(i / 1000 % 1000), (float)(i / 1000000)};
    memcpy(o, p, 12);
    if (splat_format) {
      float sc[3] = {0.01f, 0.02f, 0.03f};
      uint8_t rest[8] = {(uint8_t)i, 100, 200, 128, 255, 128, 128, 128};
      memcpy(o + 12, sc, 12), memcpy(o + 24, rest, 8);
    } else {
      float v[11] = {0.1f, 0.2f, (float)(i & 7), 0.5f, -3, -4, -5, 1, 0, 0, 0};
      memcpy(o + 12, v, sizeof v);
    }
  }
  b.size = b.cap;
  return b;
}

/* Each phase once, read then decode, each from 0 up to its total without going back. */
static void check_progress(const char *what, const progress_log *l, uint64_t bytes, uint64_t splats) {
  CHECK(l->n <= 256, "%s: %d reports", what, l->n);
  int k = 0;
  for (int ph = 0; ph < 2 && l->n <= 256; ++ph) {
    const char *phase = ph == 0 ? "read" : "decode";
    uint64_t total = ph == 0 ? bytes : splats;
    uint64_t every = ph == 0 ? SPLAT_LOAD_READ_PIECE : SPLAT_LOAD_DECODE_EVERY;
    int first = k;
    for (; k < l->n && strcmp(l->r[k].phase, phase) == 0; ++k) {
      CHECK(l->r[k].total == total, "%s: %s report %d total %llu, want %llu", what, phase, k - first,
            (unsigned long long)l->r[k].total, (unsigned long long)total);
      CHECK(k == first ? l->r[k].done == 0 : l->r[k].done >= l->r[k - 1].done && l->r[k].done <= total,
            "%s: %s report %d: done %llu after %llu", what, phase, k - first, (unsigned long long)l->r[k].done,
            k > first ? (unsigned long long)l->r[k - 1].done : 0ull);
    }
    /* a report at 0, one per piece or block after that, and the end */
    int want = (int)((total + every - 1) / every) + 1;
    CHECK(k - first == want, "%s: %d %s reports, want %d", what, k - first, phase, want);
    CHECK(k > first && l->r[k - 1].done == total, "%s: %s ends at %llu of %llu", what, phase,
          k > first ? (unsigned long long)l->r[k - 1].done : 0ull, (unsigned long long)total);
  }
  CHECK(k == l->n, "%s: %d reports after the decode phase ('%s')", what, l->n - k, k < l->n ? l->r[k].phase : "");
}

static void test_progress(void) {
  /* above one read piece and one decode block, so both report in between */
  const uint32_t n = (uint32_t)SPLAT_LOAD_DECODE_EVERY + 300000;
  for (int format = 0; format < 2; ++format) {
    bool splat_format = format == 1;
    const char *what = splat_format ? ".splat" : ".ply";
    const char *path = tmp_path(splat_format ? "progress.splat" : "progress.ply");
    buf b = progress_file(n, splat_format);
    write_file(path, b.data, b.size);
    free(b.data);
    splat_scene plain, s;
    char err[512];
    int rc = splat_scene_load(path, &plain, err, sizeof err);
    CHECK(rc == 0 && plain.count == n, "%s: plain load: %s (%u splats)", what, err, plain.count);

    /* the whole load: the reports, and the same scene as without them */
    volatile int cancel = 0;
    progress_log log = {.cancel_at = -1, .cancel = &cancel};
    splat_load_progress p = {on_progress, &log, &cancel};
    rc = splat_scene_load_ex(path, &s, &p, err, sizeof err);
    CHECK(rc == 0, "%s: load_ex: %s", what, err);
    check_progress(what, &log, b.size, n);
    CHECK(rc == 0 && s.count == plain.count && s.sh_degree == plain.sh_degree &&
              !memcmp(s.positions, plain.positions, sizeof(float) * 3 * n) &&
              !memcmp(s.sh, plain.sh, sizeof(float) * 3 * n) &&
              !memcmp(s.rotations, plain.rotations, sizeof(float) * 4 * n),
          "%s: the scene loaded with progress differs", what);
    splat_scene_free(&s);
    int reports = log.n;

    /* cancelled at every report, first to last: the cancelled result, a zeroed scene, no
     * report after the one that cancelled (leaks: the sanitizer build) */
    for (int at = 0; at < reports; ++at) {
      cancel = 0;
      log = (progress_log){.cancel_at = at, .cancel = &cancel};
      memset(&s, 0xab, sizeof s);
      rc = splat_scene_load_ex(path, &s, &p, err, sizeof err);
      char want[600];
      snprintf(want, sizeof want, "%s: cancelled", path);
      CHECK(rc == SPLAT_SCENE_CANCELLED && !strcmp(err, want) && is_zero_scene(&s),
            "%s: cancelled at report %d (%s %llu): rc %d, '%s'", what, at, log.r[at].phase,
            (unsigned long long)log.r[at].done, rc, err);
      CHECK(log.n == at + 1, "%s: cancelled at report %d, then %d more", what, at, log.n - at - 1);
      if (rc == 0) splat_scene_free(&s);
    }
    /* the flag alone (no callback), set before the call */
    cancel = 1;
    splat_load_progress flag_only = {NULL, NULL, &cancel};
    rc = splat_scene_load_ex(path, &s, &flag_only, err, sizeof err);
    CHECK(rc == SPLAT_SCENE_CANCELLED && is_zero_scene(&s), "%s: cancel flag alone: rc %d '%s'", what, rc, err);
    /* a failure is not a cancellation, and a NULL progress is splat_scene_load */
    rc = splat_scene_load_ex(tmp_path("missing.ply"), &s, &p, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "cannot open") != NULL, "missing file: rc %d '%s'", rc, err);
    rc = splat_scene_load_ex(path, &s, NULL, err, sizeof err);
    CHECK(rc == 0 && s.count == n, "%s: NULL progress: %s", what, err);
    splat_scene_free(&s);
    splat_scene_free(&plain);
    remove(path);
    printf("%s: %d reports for %u splats; cancelled at each of them\n", what, reports, n);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_scene synthetic|policy|malformed|roundtrip|progress TMPDIR | real SCENES_DIR | asset FILE | gen GEN_SCENE TMPDIR\n");
    return 2;
  }
  check_print_limit = 60;
  const char *mode = argv[1];
  if (strcmp(mode, "real") == 0) {
    int rc = test_real(argv[2]);
    if (rc == 77) return 77;
  } else if (strcmp(mode, "asset") == 0) {
    test_asset(argv[2]);
  } else {
    const char *dir = strcmp(mode, "gen") == 0 ? (argc > 3 ? argv[3] : NULL) : argv[2];
    if (dir == NULL) return 2;
    snprintf(tmpdir, sizeof tmpdir, "%s", dir);
    if (mkdir(tmpdir, 0755) != 0 && errno != EEXIST) {
      fprintf(stderr, "cannot create %s: %s\n", tmpdir, strerror(errno));
      return 1;
    }
    if (strcmp(mode, "synthetic") == 0) {
      test_layouts();
      test_types();
      test_extras();
      test_splat_format();
      test_compressed();
    } else if (strcmp(mode, "policy") == 0) {
      test_policy();
    } else if (strcmp(mode, "malformed") == 0) {
      test_malformed();
    } else if (strcmp(mode, "roundtrip") == 0) {
      test_roundtrip();
      test_antialias_comments();
    } else if (strcmp(mode, "progress") == 0) {
      test_progress();
    } else if (strcmp(mode, "gen") == 0) {
      test_gen(argv[2]);
    } else {
      fprintf(stderr, "unknown mode %s\n", mode);
      return 2;
    }
  }
  char name[64];
  snprintf(name, sizeof name, "test_scene %s", mode);
  return check_report(name);
}
