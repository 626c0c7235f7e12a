/* refrender.c: CPU reference renderer (see refrender.h). Splats are projected, sorted,
 * binned into 16x16-pixel tiles in front-to-back order, then each pixel walks its tile's
 * list; the binning only skips work, it does not change which splats a pixel sees. Each pixel
 * blends in the global order, by ray depth (exact), or through the GPU's sorting window. */
#include "refrender.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TILE 16

typedef struct sort_item {
  uint32_t key, index;
} sort_item;

static int cmp_item(const void *pa, const void *pb) {
  const sort_item *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* Pixels [*i0, *i1] whose centres k + 0.5 lie in [m - r, m + r), clamped to [0, n). */
static int span(float m, float r, uint32_t n, int64_t *i0, int64_t *i1) {
  double lo = ceil((double)(m - r) - 0.5), hi = ceil((double)(m + r) - 0.5) - 1.0;
  if (lo < 0.0) lo = 0.0;
  if (hi > (double)n - 1.0) hi = (double)n - 1.0;
  if (lo > hi) return 0;
  *i0 = (int64_t)lo;
  *i1 = (int64_t)hi;
  return 1;
}

/* craster_common.glsl's bins, float for float (see there for the rule and its margins): the
 * GPU and this reference must bin alike, or their pair counts and capped images differ. */
#define BIN_PAD (1.0f / 32.0f)

/* Pixels whose centres lie in [m - e, m + e] (BIN_PAD wider), within [*lo, *hi]. */
static void ellipse_span(float m, float e, int64_t *lo, int64_t *hi) {
  float l = ceilf(m - e - BIN_PAD - 0.5f), h = floorf(m + e + BIN_PAD - 0.5f);
  *lo = (int64_t)fmaxf(l, (float)*lo);
  *hi = (int64_t)fminf(h, (float)*hi);
}

int refrender_bins_of(const splat_projected *p, uint32_t W, uint32_t H, refrender_bins *b) {
  if (p->radius == 0.0f || !span(p->mean2d[0], p->radius, W, &b->lo[0], &b->hi[0]) ||
      !span(p->mean2d[1], p->radius, H, &b->lo[1], &b->hi[1]))
    return 0;
  memcpy(b->mean, p->mean2d, sizeof b->mean);
  memcpy(b->conic, p->conic, sizeof b->conic);
  float a = p->conic[0], c = p->conic[2], det = a * c - p->conic[1] * p->conic[1];
  float kappa = (a * c + fabsf(p->conic[1]) * sqrtf(a * c)) / det;
  b->whole = !(a > 0.0f && det > 0.0f && kappa <= 65536.0f);
  if (b->whole) return 1;
  b->thr = (fmaxf(2.0f * logf(255.0f * p->opacity), 0.0f) + 1.0f / 1024.0f) *
           (1.0f + 1.0f / 4096.0f + kappa / 65536.0f);
  b->ext_dy = -p->conic[1] * sqrtf(b->thr / (c * det));
  ellipse_span(p->mean2d[0], sqrtf(b->thr * c / det), &b->lo[0], &b->hi[0]);
  ellipse_span(p->mean2d[1], sqrtf(b->thr * a / det), &b->lo[1], &b->hi[1]);
  return b->lo[0] <= b->hi[0] && b->lo[1] <= b->hi[1];
}

/* The x offset of the ellipse's right (side 1) or left (side -1) edge at dy. */
static float edge_dx(const refrender_bins *b, float dy, float side) {
  float a = b->conic[0], det = a * b->conic[2] - b->conic[1] * b->conic[1];
  return (-b->conic[1] * dy + side * sqrtf(fmaxf(a * b->thr - det * dy * dy, 0.0f))) / a;
}

static float clampf(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }

int refrender_bin_row(const refrender_bins *b, int64_t ty, int64_t *tx0, int64_t *tx1) {
  int64_t r0 = b->lo[1] > ty * TILE ? b->lo[1] : ty * TILE;
  int64_t r1 = b->hi[1] < ty * TILE + TILE - 1 ? b->hi[1] : ty * TILE + TILE - 1;
  int64_t x0 = b->lo[0], x1 = b->hi[0];
  if (!b->whole) {
    float d0 = (float)r0 + 0.5f - b->mean[1], d1 = (float)r1 + 0.5f - b->mean[1];
    float xl = edge_dx(b, clampf(-b->ext_dy, d0, d1), -1.0f), xr = edge_dx(b, clampf(b->ext_dy, d0, d1), 1.0f);
    float l = ceilf(b->mean[0] + xl - BIN_PAD - 0.5f), h = floorf(b->mean[0] + xr + BIN_PAD - 0.5f);
    x0 = (int64_t)fmaxf(l, (float)b->lo[0]);
    x1 = (int64_t)fminf(h, (float)b->hi[0]);
  }
  if (x0 > x1) return 0;
  *tx0 = x0 / TILE;
  *tx1 = x1 / TILE;
  return 1;
}

/* The square binning (before the bins): every tile the footprint square overlaps. */
static int square_bins(const splat_projected *p, uint32_t W, uint32_t H, refrender_bins *b) {
  if (!span(p->mean2d[0], p->radius, W, &b->lo[0], &b->hi[0]) || !span(p->mean2d[1], p->radius, H, &b->lo[1], &b->hi[1]))
    return 0;
  b->whole = 1;
  return 1;
}

int refrender_splat_power(const splat_projected *p, float fx, float fy, float *power) {
  /* The quad's footprint, half-open: centres in [mean - r, mean + r). */
  if (!(fx >= p->mean2d[0] - p->radius && fx < p->mean2d[0] + p->radius && fy >= p->mean2d[1] - p->radius &&
        fy < p->mean2d[1] + p->radius))
    return 0;
  float dx = fx - p->mean2d[0], dy = fy - p->mean2d[1];
  *power = -0.5f * (p->conic[0] * dx * dx + p->conic[2] * dy * dy) - p->conic[1] * dx * dy;
  return !(*power > 0.0f); /* renderCUDA's test: a NaN power is not skipped */
}

int refrender_render(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                     const float background[3], float *rgba, refrender_stats *stats) {
  return refrender_render_capped(s, cam, sh_degree_max, background, rgba, stats, UINT64_MAX);
}

int refrender_render_capped(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                            const float background[3], float *rgba, refrender_stats *stats, uint64_t max_pairs) {
  refrender_options o = {.max_pairs = max_pairs};
  return refrender_render_opts(s, cam, sh_degree_max, background, rgba, stats, &o);
}

uint32_t refrender_ordkey(float d) {
  uint32_t bits;
  memcpy(&bits, &d, sizeof bits);
  uint32_t key = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  return key ? key : 1u; /* 0 marks an empty window slot */
}

/* ---- per-pixel compositing, in the three orders --------------------------------------------- */

/* What every pixel of a frame reads. proj and rays are indexed by splat. */
typedef struct frame {
  const splat_camera *cam;
  const refrender_options *opt;
  const float *background;
  const splat_projected *proj;
  const splat_ray_depth *rays;
  uint32_t depth_bits;     /* WINDOW: the tile key's depth bits, and its log2 scale */
  float lmin, scale;
  const uint64_t *offsets;
  const uint32_t *lists;
  uint32_t tw, th;
  float *rgba;
} frame;

/* A splat at a pixel (or, sorting a batch, at a tile): its key, alpha and place in the list. */
typedef struct contrib {
  uint32_t key, pos, splat;
  float alpha;
} contrib;

static int cmp_contrib(const void *pa, const void *pb) {
  const contrib *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

/* One pixel's state while it composites. */
typedef struct pixel {
  float fx, fy, T, C[3];
  int stopped;
  uint32_t max_key, contributors;
  uint64_t blended, late;
} pixel;

/* 1 and *alpha when splat p contributes at the pixel: today's two alpha tests. */
static int contribution(const splat_projected *p, const pixel *px, float *alpha) {
  float power;
  if (!refrender_splat_power(p, px->fx, px->fy, &power)) return 0;
  *alpha = fminf(SPLAT_MAX_ALPHA, p->opacity * expf(power));
  return !(*alpha < SPLAT_MIN_ALPHA);
}

static uint32_t pixel_key(const frame *f, uint32_t splat, const pixel *px) {
  return refrender_ordkey(splat_ray_depth_at(&f->rays[splat], f->cam, px->fx, px->fy));
}

/* The blend with the stop rule: a splat that would bring T below the epsilon stops the pixel,
 * and neither it nor anything after it is blended. */
static void blend(pixel *px, const float color[3], float alpha, uint32_t key) {
  if (px->stopped) return;
  float test_T = px->T * (1.0f - alpha);
  if (test_T < SPLAT_T_EPSILON) {
    px->stopped = 1;
    return;
  }
  for (int c = 0; c < 3; c++) px->C[c] += color[c] * alpha * px->T;
  px->T = test_T;
  px->blended++;
  if (key < px->max_key) px->late++;
  else px->max_key = key;
}

/* GLOBAL: the tile's list (entries [lo, hi)) as it is. Past the stop only counts contributors. */
static void shade_global(const frame *f, uint64_t lo, uint64_t hi, pixel *px) {
  for (uint64_t e = lo; e < hi; e++) {
    uint32_t i = f->lists[e];
    float alpha;
    if (!contribution(&f->proj[i], px, &alpha)) continue;
    px->contributors++;
    if (!px->stopped) blend(px, f->proj[i].color, alpha, pixel_key(f, i, px));
  }
}

/* EXACT: all contributions, stably sorted by their key at this pixel. */
static void shade_exact(const frame *f, size_t t, pixel *px, contrib *scratch) {
  uint32_t n = 0;
  for (uint64_t e = f->offsets[t]; e < f->offsets[t + 1]; e++) {
    uint32_t i = f->lists[e];
    float alpha;
    if (!contribution(&f->proj[i], px, &alpha)) continue;
    scratch[n] = (contrib){pixel_key(f, i, px), (uint32_t)(e - f->offsets[t]), i, alpha};
    n++;
  }
  px->contributors = n;
  qsort(scratch, n, sizeof *scratch, cmp_contrib);
  for (uint32_t k = 0; k < n && !px->stopped; k++) blend(px, f->proj[scratch[k].splat].color, scratch[k].alpha, scratch[k].key);
}

/* The GPU's tile key's depth part (craster_emit.comp): the splat's depth along the ray through
 * the point q, quantised on a log scale over the frame's visible depths, nearest 0. */
static uint32_t tile_depth_key(const frame *f, uint32_t i, float qx, float qy) {
  float z = splat_ray_depth_at(&f->rays[i], f->cam, qx, qy);
  float maxq = (float)((1u << f->depth_bits) - 1u);
  if (!(z > 0.0f)) return (uint32_t)maxq;
  return (uint32_t)fminf(fmaxf((log2f(z) - f->lmin) * f->scale, 0.0f), maxq);
}

/* WINDOW, the tile's part: the tile's list re-ordered by (tile key, place in the list) into
 * order[], as the GPU's pair sort leaves it: the tile key is the splat's depth at its mean
 * clamped to the tile's pixel centres, quantised (tile_depth_key). */
static void window_tile_order(const frame *f, size_t t, uint32_t tx, uint32_t ty, contrib *scratch, uint32_t *order) {
  uint64_t first = f->offsets[t], n = f->offsets[t + 1] - first;
  float x0 = (float)(tx * TILE) + 0.5f, y0 = (float)(ty * TILE) + 0.5f;
  for (uint64_t k = 0; k < n; k++) {
    uint32_t i = f->lists[first + k];
    const splat_projected *p = &f->proj[i];
    float qx = clampf(p->mean2d[0], x0, x0 + (float)(TILE - 1)), qy = clampf(p->mean2d[1], y0, y0 + (float)(TILE - 1));
    scratch[k] = (contrib){tile_depth_key(f, i, qx, qy), (uint32_t)k, i, 0.0f};
  }
  qsort(scratch, n, sizeof *scratch, cmp_contrib);
  for (uint64_t k = 0; k < n; k++) order[k] = scratch[k].splat;
}


/* WINDOW, the pixel's part: the re-ordered list (its entries [lo, hi)) through a window of K
 * slots in descending key order; what falls out of the nearest end is blended, the rest when
 * the list ends. */
static void shade_window(const frame *f, uint64_t lo, uint64_t hi, pixel *px, const uint32_t *order) {
  uint32_t K = f->opt->window;
  contrib w[REFRENDER_MAX_WINDOW] = {{0}};
  for (uint64_t e = lo; e < hi; e++) {
    uint32_t i = order[e];
    float alpha;
    if (!contribution(&f->proj[i], px, &alpha)) continue;
    px->contributors++;
    if (px->stopped) continue;
    contrib carry = {pixel_key(f, i, px), 0, i, alpha};
    for (uint32_t k = 0; k < K; k++)
      if (carry.key >= w[k].key) {
        contrib tmp = w[k];
        w[k] = carry;
        carry = tmp;
      }
    if (carry.key != 0) blend(px, f->proj[carry.splat].color, carry.alpha, carry.key);
  }
  for (uint32_t k = K; k-- > 0;)
    if (w[k].key != 0) blend(px, f->proj[w[k].splat].color, w[k].alpha, w[k].key);
}

/* GLOBAL or WINDOW over entries [lo, hi) of tile t's list (WINDOW: of its re-ordered list). */
static void shade_run(const frame *f, size_t t, uint64_t lo, uint64_t hi, pixel *px, const uint32_t *order) {
  if (f->opt->order == REFRENDER_ORDER_WINDOW) shade_window(f, lo, hi, px, order);
  else shade_global(f, f->offsets[t] + lo, f->offsets[t] + hi, px);
}

/* Tile t's list whole, or in pieces where it has more than opt->piece entries (refrender_options). */
static void shade_pieces(const frame *f, size_t t, pixel *px, const uint32_t *order) {
  uint64_t n = f->offsets[t + 1] - f->offsets[t], piece = f->opt->piece;
  if (!piece || n <= piece) {
    shade_run(f, t, 0, n, px, order);
    return;
  }
  for (uint64_t lo = 0; lo < n; lo += piece) {
    pixel p = {.fx = px->fx, .fy = px->fy, .T = 1.0f};
    shade_run(f, t, lo, lo + piece < n ? lo + piece : n, &p, order);
    px->blended += p.blended;
    px->late += p.late;
    px->contributors += p.contributors;
    if (px->stopped) continue; /* counted, not composited */
    for (int c = 0; c < 3; c++) px->C[c] += px->T * p.C[c];
    px->T *= p.T;
    px->stopped = p.stopped;
  }
}

/* One thread's share: tile rows first, first + step, ...; its own scratch and stats, so that
 * neither the image nor the sums depend on the thread count. */
typedef struct shade_job {
  const frame *f;
  uint32_t first, step;
  contrib *scratch;
  uint32_t *order;
  refrender_stats st;
} shade_job;

static void shade_tile(shade_job *job, uint32_t tx, uint32_t ty) {
  const frame *f = job->f;
  uint32_t W = f->cam->width, H = f->cam->height;
  size_t t = (size_t)ty * f->tw + tx;
  if (f->opt->order == REFRENDER_ORDER_WINDOW) window_tile_order(f, t, tx, ty, job->scratch, job->order);
  for (uint32_t py = ty * TILE; py < ty * TILE + TILE && py < H; py++)
    for (uint32_t x = tx * TILE; x < tx * TILE + TILE && x < W; x++) {
      pixel px = {.fx = (float)x + 0.5f, .fy = (float)py + 0.5f, .T = 1.0f};
      if (f->opt->order == REFRENDER_ORDER_EXACT) shade_exact(f, t, &px, job->scratch);
      else shade_pieces(f, t, &px, job->order);
      float *o = f->rgba + ((size_t)py * W + x) * 4;
      for (int c = 0; c < 3; c++) o[c] = px.C[c] + px.T * f->background[c];
      o[3] = 1.0f - px.T;
      job->st.contributions += px.blended;
      job->st.late += px.late;
      if (px.contributors > job->st.max_contributors) job->st.max_contributors = px.contributors;
    }
}

static void *shade_rows(void *arg) {
  shade_job *job = arg;
  for (uint32_t ty = job->first; ty < job->f->th; ty += job->step)
    for (uint32_t tx = 0; tx < job->f->tw; tx++) shade_tile(job, tx, ty);
  return NULL;
}

/* Every pixel, on opt->threads threads (tile rows dealt out in turn). Returns 0 or -1 (memory). */
static int shade(const frame *f, uint64_t max_tile, refrender_stats *st) {
  enum { MAX_THREADS = 64 };
  uint32_t n = f->opt->threads > 1 ? (uint32_t)f->opt->threads : 1;
  n = n > MAX_THREADS ? MAX_THREADS : n > f->th ? f->th : n;
  shade_job job[MAX_THREADS];
  pthread_t tid[MAX_THREADS];
  int started[MAX_THREADS] = {0}, rc = 0;
  size_t m = (size_t)(max_tile ? max_tile : 1);
  for (uint32_t k = 0; k < n; k++) {
    job[k] = (shade_job){.f = f, .first = k, .step = n};
    job[k].scratch = malloc(m * sizeof *job[k].scratch);
    job[k].order = malloc(m * sizeof *job[k].order);
    if (!job[k].scratch || !job[k].order) rc = -1;
  }
  /* A thread that cannot start has its rows shaded here instead. */
  for (uint32_t k = 1; k < n && rc == 0; k++) started[k] = pthread_create(&tid[k], NULL, shade_rows, &job[k]) == 0;
  for (uint32_t k = 0; k < n && rc == 0; k++)
    if (k == 0 || !started[k]) shade_rows(&job[k]);
  for (uint32_t k = 0; k < n; k++) {
    if (started[k]) (void)pthread_join(tid[k], NULL);
    st->contributions += job[k].st.contributions;
    st->late += job[k].st.late;
    if (job[k].st.max_contributors > st->max_contributors) st->max_contributors = job[k].st.max_contributors;
    free(job[k].scratch);
    free(job[k].order);
  }
  return rc;
}

/* WINDOW's tile keys as the GPU's (craster.c, craster_emit.comp): depth bits 24 less the tile
 * bits, 4..16; the log2 of the depth over the visible splats' [zmin, zmax]. */
static void window_key_scale(frame *f, const sort_item *items, uint32_t nvis, size_t ntiles) {
  uint32_t tile_bits = 1;
  while (tile_bits < 32 && (1ull << tile_bits) < ntiles) tile_bits++;
  f->depth_bits = tile_bits >= 20 ? 4 : 24 - tile_bits > 16 ? 16 : 24 - tile_bits;
  float zmin = INFINITY, zmax = 0.0f;
  for (uint32_t k = 0; k < nvis; k++) {
    float z = f->proj[items[k].index].depth;
    zmin = fminf(zmin, z), zmax = fmaxf(zmax, z);
  }
  float lmin = nvis ? log2f(zmin) : 0.0f, lmax = nvis ? log2f(zmax) : 0.0f;
  f->lmin = lmin;
  f->scale = lmax > lmin ? (float)((1u << f->depth_bits) - 1u) / (lmax - lmin) : 0.0f;
}

/* ---- the frame: project, sort, bin, shade ----------------------------------------------------- */

int refrender_render_opts(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                          const float background[3], float *rgba, refrender_stats *stats,
                          const refrender_options *opt) {
  uint32_t W = cam->width, H = cam->height;
  if (W == 0 || H == 0) return -1;
  if (opt->order < REFRENDER_ORDER_GLOBAL || opt->order > REFRENDER_ORDER_WINDOW) return -1;
  if (opt->order == REFRENDER_ORDER_WINDOW && (opt->window < 1 || opt->window > REFRENDER_MAX_WINDOW)) return -1;
  uint32_t tw = (W + TILE - 1) / TILE, th = (H + TILE - 1) / TILE;
  size_t ntiles = (size_t)tw * th;
  int rc = -1;
  splat_projected *proj = malloc((s->count ? s->count : 1) * sizeof *proj);
  splat_ray_depth *rays = malloc((s->count ? s->count : 1) * sizeof *rays);
  sort_item *items = malloc((s->count ? s->count : 1) * sizeof *items);
  uint64_t *offsets = calloc(ntiles + 1, sizeof *offsets);
  uint32_t *lists = NULL;
  if (!proj || !rays || !items || !offsets) goto done;

  /* Project everything; proj[] and rays[] are indexed by the splat. */
  uint32_t nvis = 0;
  for (uint32_t i = 0; i < s->count; i++) {
    splat_projected p;
    if (!splat_project(s, i, cam, sh_degree_max, &p)) continue;
    items[nvis].key = splat_depth_key(p.depth);
    items[nvis].index = i;
    proj[i] = p;
    splat_project_ray_depth(s, i, cam, &rays[i]);
    nvis++;
  }
  /* (key, index) ascending is back to front; walk it backwards for front to back. */
  qsort(items, nvis, sizeof *items, cmp_item);

  /* Bin into tiles (count, prefix sum, fill) so each tile's list is front to back. */
  uint64_t needed = 0;
  for (uint32_t pass = 0; pass < 2; pass++) {
    uint64_t *cursor = NULL, emitted = 0;
    if (pass == 1) {
      for (size_t t = 0; t < ntiles; t++) offsets[t + 1] += offsets[t];
      if (offsets[ntiles] > SIZE_MAX / sizeof *lists) goto done;
      lists = malloc((size_t)(offsets[ntiles] ? offsets[ntiles] : 1) * sizeof *lists);
      cursor = malloc(ntiles * sizeof *cursor);
      if (!lists || !cursor) {
        free(cursor);
        goto done;
      }
      memcpy(cursor, offsets, ntiles * sizeof *cursor);
    }
    for (uint32_t k = nvis; k-- > 0;) {
      const splat_projected *p = &proj[items[k].index];
      refrender_bins b;
      if (!(opt->square_bins ? square_bins(p, W, H, &b) : refrender_bins_of(p, W, H, &b))) continue;
      for (int64_t ty = b.lo[1] / TILE; ty <= b.hi[1] / TILE; ty++) {
        int64_t tx0, tx1;
        if (!refrender_bin_row(&b, ty, &tx0, &tx1)) continue;
        for (int64_t tx = tx0; tx <= tx1; tx++) {
          if (emitted++ >= opt->max_pairs) continue; /* the GPU's pair capacity: front to back */
          size_t t = (size_t)ty * tw + (size_t)tx;
          if (pass == 0)
            offsets[t + 1]++;
          else
            lists[cursor[t]++] = items[k].index;
        }
      }
    }
    free(cursor);
    needed = emitted;
  }

  uint64_t max_tile = 0;
  for (size_t t = 0; t < ntiles; t++)
    if (offsets[t + 1] - offsets[t] > max_tile) max_tile = offsets[t + 1] - offsets[t];
  refrender_stats st = {.visible = nvis, .tile_entries = offsets[ntiles], .pairs_needed = needed};
  frame f = {.cam = cam, .opt = opt, .background = background, .proj = proj, .rays = rays,
             .offsets = offsets, .lists = lists, .tw = tw, .th = th, .rgba = rgba};
  if (opt->order == REFRENDER_ORDER_WINDOW) window_key_scale(&f, items, nvis, ntiles);
  if (shade(&f, max_tile, &st) != 0) goto done;
  if (stats) *stats = st;
  rc = 0;
done:
  free(proj);
  free(rays);
  free(items);
  free(offsets);
  free(lists);
  return rc;
}

void refrender_to_rgba8(const float *rgba, uint32_t w, uint32_t h, uint8_t *rgba8) {
  size_t n = (size_t)w * h;
  for (size_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) {
      float v = rgba[i * 4 + (size_t)c];
      v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; /* NaN -> 0 */
      rgba8[i * 4 + (size_t)c] = (uint8_t)(v * 255.0f + 0.5f); /* round half up */
    }
    rgba8[i * 4 + 3] = 255;
  }
}

int refrender_render_rgba8(const splat_scene *s, const splat_camera *cam, int sh_degree_max,
                           const float background[3], uint8_t *rgba8, refrender_stats *stats) {
  size_t n = (size_t)cam->width * cam->height;
  float *f = malloc((n ? n : 1) * 4 * sizeof *f);
  if (!f) return -1;
  int rc = refrender_render(s, cam, sh_degree_max, background, f, stats);
  if (rc == 0) refrender_to_rgba8(f, cam->width, cam->height, rgba8);
  free(f);
  return rc;
}
