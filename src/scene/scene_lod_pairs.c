/* scene_lod_pairs.c: the level-of-detail tree built bottom-up (SPLAT_LOD_PAIRS, splat_scene.h).
 * In generations: each node's nearest neighbours (a k-d tree over the generation), a merge cost
 * per neighbour pair, and pairs merged cheapest first until the generation has halved (the nodes
 * whose candidates were all taken paired with their neighbours in the k-d tree's order); the
 * merged pairs and the nodes left over are the next generation. Each merged node keeps its cost
 * (at least its children's) as its error: a cut of the tree at one error is then close to a
 * decimation by the same rule, and the view-dependent cut (docs/lod.md) spends the budget where
 * it shows.
 * The tree is then laid out as splat_lod wants it: interior nodes breadth first with siblings
 * together, leaves in depth-first order, a leaf merged beside interior nodes wrapped in a
 * one-child node (a node's children are all leaves or all interior). */
#include "scene_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAIRS_K 8      /* neighbours looked at per node */
#define PAIRS_C 4      /* of them, the cheapest kept as merge candidates */
#define PAIRS_EPS 0.05 /* the cost's covariance floor: (0.05 x the pair's largest scale)^2 on the diagonal */
#define KD_LEAF 8
#define KD_SERIAL_DEPTH 4 /* the k-d tree's top levels split on one thread, the subtrees below in parallel */
#define PAIRS_TASKS_PER_THREAD 4
#define NONE UINT32_MAX

typedef struct pairs {
  const splat_scene *s;
  uint32_t n, tasks;
  splat_scene made;                 /* the interior nodes' Gaussians, in the order they are made */
  float *err;                       /* per made node: its merge cost, at least its children's */
  uint32_t *ch_first;               /* per made node: its children, ch_ids[ch_first, + ch_count) */
  uint8_t *ch_count;
  uint32_t *ch_ids, ch_len;
  /* the generation */
  uint32_t *active, m;              /* its nodes: leaf ids < n, made node k is n + k */
  lod_item *items;                  /* the k-d tree's points, i the index into active */
  float *split;                     /* per k-d node (heap order): the split value, and its axis */
  uint8_t *axis;
  uint32_t *jobs, job_count;        /* k-d subtrees to split in parallel: node, lo, hi */
  uint32_t *cand;                   /* PAIRS_C per active node: candidate (active index) ... */
  float *cost;                      /* ... and its merge cost, cheapest first (NONE / inf: none) */
  uint64_t *keys, *keys_tmp;        /* the candidates by cost: cost bits << 32 | candidate slot */
  size_t *count;                    /* the radix sort's buckets */
  uint32_t *group, *gsize, *goff, *members, groups, made_base;
} pairs;

/* The scene and index holding node `id`'s Gaussian. */
static const splat_scene *node_of(const pairs *p, uint32_t id, uint32_t *k) {
  if (id < p->n) {
    *k = id;
    return p->s;
  }
  *k = id - p->n;
  return &p->made;
}

static void copy_splat(const splat_scene *src, uint32_t from, splat_scene *dst, uint32_t to) {
  size_t nsh = (size_t)src->sh_coeffs * 3;
  memcpy(dst->positions + (size_t)to * 3, src->positions + (size_t)from * 3, 3 * sizeof(float));
  memcpy(dst->scales + (size_t)to * 3, src->scales + (size_t)from * 3, 3 * sizeof(float));
  memcpy(dst->rotations + (size_t)to * 4, src->rotations + (size_t)from * 4, 4 * sizeof(float));
  dst->opacities[to] = src->opacities[from];
  memcpy(dst->sh + (size_t)to * nsh, src->sh + (size_t)from * nsh, nsh * sizeof(float));
}

static void task_share(uint32_t count, uint32_t tasks, uint32_t index, uint32_t *a, uint32_t *z) {
  *a = (uint32_t)((uint64_t)count * index / tasks);
  *z = (uint32_t)((uint64_t)count * (index + 1) / tasks);
}

static int run(pairs *p, uint32_t count, scene_task_fn task, const scene_error *e) {
  uint32_t tasks = p->tasks < count ? p->tasks : count;
  return tasks == 0 ? 0 : scene_run(e, NULL, 0, tasks, task, p);
}

/* ---- the k-d tree over a generation --------------------------------------------------------- */

/* Node `node` (heap order: children 2 node + 1, 2 node + 2) holds items [lo, hi): split at the
 * middle along the longest axis, so the left half is <= split <= the right half. */
static void kd_split(pairs *p, uint32_t node, uint32_t lo, uint32_t hi, int depth) {
  if (hi - lo <= KD_LEAF) return;
  if (depth == KD_SERIAL_DEPTH) { /* the rest in parallel */
    uint32_t *j = p->jobs + 3 * (size_t)p->job_count++;
    j[0] = node, j[1] = lo, j[2] = hi;
    return;
  }
  int a = scene_lod_longest_axis(p->items + lo, hi - lo);
  uint32_t mid = lo + (hi - lo) / 2;
  scene_lod_select(p->items + lo, hi - lo, mid - lo, a);
  p->axis[node] = (uint8_t)a, p->split[node] = p->items[mid].p[a];
  kd_split(p, 2 * node + 1, lo, mid, depth < 0 ? depth : depth + 1);
  kd_split(p, 2 * node + 2, mid, hi, depth < 0 ? depth : depth + 1);
}

static int kd_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  (void)j, (void)te;
  pairs *p = arg;
  const uint32_t *job = p->jobs + 3 * (size_t)index;
  kd_split(p, job[0], job[1], job[2], -1);
  return 0;
}

/* The k nearest (squared distance, then index) found so far. */
typedef struct nearest {
  float d[PAIRS_K];
  uint32_t i[PAIRS_K], k;
} nearest;

static void nearest_add(nearest *b, float d, uint32_t i) {
  if (b->k == PAIRS_K && !(d < b->d[PAIRS_K - 1] || (d == b->d[PAIRS_K - 1] && i < b->i[PAIRS_K - 1]))) return;
  uint32_t at = b->k < PAIRS_K ? b->k++ : PAIRS_K - 1;
  for (; at > 0 && (b->d[at - 1] > d || (b->d[at - 1] == d && b->i[at - 1] > i)); at--)
    b->d[at] = b->d[at - 1], b->i[at] = b->i[at - 1];
  b->d[at] = d, b->i[at] = i;
}

static void kd_query(const pairs *p, uint32_t node, uint32_t lo, uint32_t hi, const float q[3], uint32_t self,
                     nearest *b) {
  if (hi - lo <= KD_LEAF) {
    for (uint32_t u = lo; u < hi; u++) {
      const lod_item *it = p->items + u;
      if (it->i == self) continue;
      float dx = it->p[0] - q[0], dy = it->p[1] - q[1], dz = it->p[2] - q[2];
      nearest_add(b, dx * dx + dy * dy + dz * dz, it->i);
    }
    return;
  }
  uint32_t mid = lo + (hi - lo) / 2;
  float diff = q[p->axis[node]] - p->split[node];
  if (diff < 0) {
    kd_query(p, 2 * node + 1, lo, mid, q, self, b);
    if (b->k < PAIRS_K || diff * diff <= b->d[PAIRS_K - 1]) kd_query(p, 2 * node + 2, mid, hi, q, self, b);
  } else {
    kd_query(p, 2 * node + 2, mid, hi, q, self, b);
    if (b->k < PAIRS_K || diff * diff <= b->d[PAIRS_K - 1]) kd_query(p, 2 * node + 1, lo, mid, q, self, b);
  }
}

/* ---- the merge cost ------------------------------------------------------------------------- */

typedef struct gauss {
  double mu[3], cov[3][3], w, big, r[3][3], s2[3];
  const float *sh;
} gauss;

static void gauss_load(const pairs *p, uint32_t id, gauss *g) {
  uint32_t k;
  const splat_scene *s = node_of(p, id, &k);
  const float *q = s->rotations + (size_t)k * 4, *sc = s->scales + (size_t)k * 3;
  double w = q[0], x = q[1], y = q[2], z = q[3], len = sqrt(w * w + x * x + y * y + z * z);
  if (len > 0) w /= len, x /= len, y /= len, z /= len;
  else w = 1, x = y = z = 0;
  double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  double s2[3] = {(double)sc[0] * sc[0], (double)sc[1] * sc[1], (double)sc[2] * sc[2]};
  memcpy(g->r, r, sizeof r), memcpy(g->s2, s2, sizeof s2);
  for (int a = 0; a < 3; a++) {
    g->mu[a] = s->positions[(size_t)k * 3 + a];
    for (int b = 0; b < 3; b++) g->cov[a][b] = r[a][0] * r[b][0] * s2[0] + r[a][1] * r[b][1] * s2[1] + r[a][2] * r[b][2] * s2[2];
  }
  /* the merge's weight (scene_lod_merge.c): opacity times the largest cross-section */
  double ab = (double)sc[0] * sc[1], ac = (double)sc[0] * sc[2], bc = (double)sc[1] * sc[2];
  double most = ab > ac ? ab : ac;
  g->w = s->opacities[k] * (most > bc ? most : bc);
  g->big = sc[0] > sc[1] ? sc[0] : sc[1];
  g->big = g->big > sc[2] ? g->big : sc[2];
  g->sh = s->sh + (size_t)k * s->sh_coeffs * 3;
}

/* log det of the symmetric 3x3 m (row-major) plus eps2 on its diagonal. */
static double log_det(const double *m, double eps2) {
  double a = m[0] + eps2, b = m[1], c = m[2], d = m[4] + eps2, e = m[5], f = m[8] + eps2;
  double det = a * (d * f - e * e) - b * (b * f - e * c) + c * (b * e - d * c);
  return log(det > 1e-300 ? det : 1e-300);
}

/* What merging a and b loses: the geometric part is Runnalls' bound on the Kullback-Leibler
 * divergence from the two-Gaussian mixture (weights as the merge's) to the moment-matched
 * Gaussian, per unit weight: (log det S - pa log det Sa - pb log det Sb) / 2, every covariance
 * floored (PAIRS_EPS) so that flat splats compare; it depends on shapes and distances relative
 * to the splats' sizes only, so a cut by the projected error decides the scale. The colour part:
 * the squared distance of the SH coefficients (the DC term dominates). */
static double pair_cost(const gauss *a, const gauss *b, size_t nsh) {
  double wa = a->w, wb = b->w, wsum = wa + wb;
  if (!(wsum > 0)) wa = wb = 1, wsum = 2;
  double pa = wa / wsum, pb = wb / wsum, mu[3], da[3], db[3], m[3][3];
  for (int c = 0; c < 3; c++) mu[c] = pa * a->mu[c] + pb * b->mu[c];
  for (int c = 0; c < 3; c++) da[c] = a->mu[c] - mu[c], db[c] = b->mu[c] - mu[c];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) m[r][c] = pa * (a->cov[r][c] + da[r] * da[c]) + pb * (b->cov[r][c] + db[r] * db[c]);
  double big = a->big > b->big ? a->big : b->big, eps2 = PAIRS_EPS * PAIRS_EPS * big * big;
  if (!(eps2 > 1e-30)) eps2 = 1e-30;
  double geo = 0.5 * (log_det(&m[0][0], eps2) - pa * log_det(&a->cov[0][0], eps2) - pb * log_det(&b->cov[0][0], eps2));
  double colour = 0;
  for (size_t k = 0; k < nsh; k++) {
    double d = (double)a->sh[k] - b->sh[k];
    colour += d * d;
  }
  double cost = (geo > 0 ? geo : 0) + colour;
  return cost < 3e38 ? cost : 3e38;
}

/* Each active node's PAIRS_K nearest, and the PAIRS_C cheapest of them as candidates. */
static int candidates_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  (void)j, (void)te;
  pairs *p = arg;
  uint32_t a, z;
  task_share(p->m, p->tasks < p->m ? p->tasks : p->m, index, &a, &z);
  size_t nsh = (size_t)p->s->sh_coeffs * 3;
  for (uint32_t i = a; i < z; i++) {
    uint32_t k;
    const splat_scene *s = node_of(p, p->active[i], &k);
    nearest b = {.k = 0};
    kd_query(p, 0, 0, p->m, s->positions + (size_t)k * 3, i, &b);
    gauss g, h;
    gauss_load(p, p->active[i], &g);
    uint32_t *cand = p->cand + (size_t)i * PAIRS_C;
    float *cost = p->cost + (size_t)i * PAIRS_C;
    for (int c = 0; c < PAIRS_C; c++) cand[c] = NONE, cost[c] = INFINITY;
    for (uint32_t t = 0; t < b.k; t++) {
      gauss_load(p, p->active[b.i[t]], &h);
      float c = (float)pair_cost(&g, &h, nsh);
      int at = PAIRS_C;
      while (at > 0 && cost[at - 1] > c) at--;
      if (at == PAIRS_C) continue;
      memmove(cand + at + 1, cand + at, (PAIRS_C - 1 - at) * sizeof *cand);
      memmove(cost + at + 1, cost + at, (PAIRS_C - 1 - at) * sizeof *cost);
      cand[at] = b.i[t], cost[at] = c;
    }
  }
  return 0;
}

/* LSD radix sort of n keys, 16 bits a pass (count: 65536 words). */
static void sort_keys(uint64_t *v, uint64_t *tmp, size_t n, size_t *count) {
  for (int shift = 0; shift < 64; shift += 16) {
    memset(count, 0, sizeof *count << 16);
    for (size_t i = 0; i < n; i++) count[(v[i] >> shift) & 0xffff]++;
    size_t sum = 0;
    for (size_t b = 0; b < (1u << 16); b++) {
      size_t c = count[b];
      count[b] = sum, sum += c;
    }
    for (size_t i = 0; i < n; i++) tmp[count[(v[i] >> shift) & 0xffff]++] = v[i];
    uint64_t *t = v;
    v = tmp, tmp = t;
  } /* four passes: the result is back in the first array */
}

/* The generation's pairs, cheapest first, until half the nodes are paired or the candidates run
 * out (a greedy matching, as splat-transform's decimation makes). Returns the pairs made. */
static uint32_t match(pairs *p) {
  uint32_t m = p->m, needed = m / 2, removed = 0;
  size_t edges = 0;
  for (size_t e = 0; e < (size_t)m * PAIRS_C; e++) {
    if (p->cand[e] == NONE) continue;
    uint32_t bits;
    memcpy(&bits, &p->cost[e], 4); /* costs are >= 0: their bits sort as they do */
    p->keys[edges++] = (uint64_t)bits << 32 | e;
  }
  sort_keys(p->keys, p->keys_tmp, edges, p->count);
  for (uint32_t i = 0; i < m; i++) p->group[i] = NONE;
  p->groups = 0;
  for (size_t t = 0; t < edges && removed < needed; t++) {
    uint32_t e = (uint32_t)p->keys[t], i = e / PAIRS_C, j = p->cand[e];
    if (p->group[i] != NONE || p->group[j] != NONE) continue;
    p->group[i] = p->group[j] = p->groups;
    p->gsize[p->groups++] = 2;
    removed++;
  }
  return removed;
}

/* Where the candidates ran out before half the nodes were gone (nodes whose neighbours are all
 * taken): the nodes left, two by two in the k-d tree's order (near each other), so that every
 * generation halves and the tree is about log2(count) deep. */
static void match_in_order(pairs *p, uint32_t removed) {
  uint32_t needed = p->m / 2, prev = NONE;
  for (uint32_t u = 0; u < p->m && removed < needed; u++) {
    uint32_t i = p->items[u].i;
    if (p->group[i] != NONE) continue;
    if (prev == NONE) {
      prev = i;
      continue;
    }
    p->group[prev] = p->group[i] = p->groups;
    p->gsize[p->groups++] = 2;
    removed++, prev = NONE;
  }
}

static int merge_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  (void)j, (void)te;
  pairs *p = arg;
  uint32_t a, z;
  task_share(p->groups, p->tasks < p->groups ? p->tasks : p->groups, index, &a, &z);
  enum { MAX_SH = (SPLAT_SCENE_MAX_SH_DEGREE + 1) * (SPLAT_SCENE_MAX_SH_DEGREE + 1) * 3 };
  float pos[3 * SPLAT_LOD_MAX_CHILDREN], sc[3 * SPLAT_LOD_MAX_CHILDREN], rot[4 * SPLAT_LOD_MAX_CHILDREN];
  float op[SPLAT_LOD_MAX_CHILDREN], sh[MAX_SH * SPLAT_LOD_MAX_CHILDREN];
  splat_scene tmp = {.sh_degree = p->s->sh_degree, .sh_coeffs = p->s->sh_coeffs, .positions = pos,
                     .scales = sc, .rotations = rot, .opacities = op, .sh = sh};
  gauss ga, gb;
  size_t nsh = (size_t)p->s->sh_coeffs * 3;
  for (uint32_t g = a; g < z; g++) {
    uint32_t first = p->goff[g], k = p->gsize[g];
    for (uint32_t c = 0; c < k; c++) {
      uint32_t at;
      const splat_scene *src = node_of(p, p->members[first + c], &at);
      copy_splat(src, at, &tmp, c);
    }
    tmp.count = k;
    scene_lod_merge(&tmp, 0, k, &p->made, p->made_base + g);
    double worst = 0; /* the group's dearest pair (a pair, or the root's few), and its children's errors */
    for (uint32_t c = 0; c < k; c++) {
      uint32_t id = p->members[first + c];
      if (id >= p->n && p->err[id - p->n] > worst) worst = p->err[id - p->n];
      gauss_load(p, id, &ga);
      for (uint32_t d = c + 1; d < k; d++) {
        gauss_load(p, p->members[first + d], &gb);
        double cost = pair_cost(&ga, &gb, nsh);
        worst = cost > worst ? cost : worst;
      }
    }
    p->err[p->made_base + g] = (float)worst;
  }
  return 0;
}

/* Makes the groups of the generation made nodes, and the next generation's list. */
static int make_groups(pairs *p, const scene_error *e) {
  uint32_t m = p->m, G = p->groups, base = p->made.count;
  uint32_t sum = 0;
  for (uint32_t g = 0; g < G; g++) p->goff[g] = sum, sum += p->gsize[g];
  for (uint32_t g = 0; g < G; g++) p->gsize[g] = 0;
  for (uint32_t i = 0; i < m; i++) { /* members in the generation's order */
    uint32_t g = p->group[i];
    if (g != NONE) p->members[p->goff[g] + p->gsize[g]++] = p->active[i];
  }
  p->made_base = base;
  for (uint32_t g = 0; g < G; g++) {
    p->ch_first[base + g] = p->ch_len + p->goff[g];
    p->ch_count[base + g] = (uint8_t)p->gsize[g];
  }
  memcpy(p->ch_ids + p->ch_len, p->members, (size_t)sum * sizeof *p->ch_ids);
  p->ch_len += sum;
  if (run(p, G, merge_task, e) != 0) return -1;
  p->made.count = base + G;
  uint32_t next = 0; /* the groups, then the nodes left over, in order */
  for (uint32_t g = 0; g < G; g++) p->members[next++] = p->n + base + g;
  for (uint32_t i = 0; i < m; i++)
    if (p->group[i] == NONE) p->members[next++] = p->active[i];
  memcpy(p->active, p->members, (size_t)next * sizeof *p->active);
  p->m = next;
  return 0;
}

static int generation(pairs *p, const scene_error *e) {
  uint32_t m = p->m;
  for (uint32_t i = 0; i < m; i++) {
    uint32_t k;
    const splat_scene *s = node_of(p, p->active[i], &k);
    memcpy(p->items[i].p, s->positions + (size_t)k * 3, sizeof p->items[i].p);
    p->items[i].i = i;
  }
  p->job_count = 0;
  kd_split(p, 0, 0, m, 0);
  if (p->job_count > 0 && scene_run(e, NULL, 0, p->job_count, kd_task, p) != 0) return -1;
  if (run(p, m, candidates_task, e) != 0) return -1;
  match_in_order(p, match(p));
  return make_groups(p, e);
}

/* ---- the layout splat_lod wants ------------------------------------------------------------- */

static int layout(pairs *p, uint32_t root, splat_lod *lod, uint32_t **perm_out, const scene_error *e) {
  uint32_t n = p->n, made = p->made.count;
  /* a leaf merged beside interior nodes becomes a one-child node: wrap ids n + made + w */
  uint32_t wraps = 0;
  for (uint32_t k = 0; k < made; k++) {
    uint32_t leaves = 0, f = p->ch_first[k], c = p->ch_count[k];
    for (uint32_t t = 0; t < c; t++) leaves += p->ch_ids[f + t] < n;
    if (leaves > 0 && leaves < c) wraps += leaves;
  }
  uint64_t interior = (uint64_t)made + wraps;
  if ((uint64_t)n + interior >= UINT32_MAX)
    return scene_fail(e, "%u splats make %llu interior nodes: more nodes than a 32-bit index holds", n,
                      (unsigned long long)interior);
  uint32_t total = made + wraps;
  uint32_t *wrap_leaf = malloc(((size_t)wraps + 1) * sizeof *wrap_leaf);
  uint32_t *order = malloc((size_t)total * sizeof *order);        /* breadth-first: extended ids - n */
  uint32_t *newidx = malloc((size_t)total * sizeof *newidx);      /* extended id - n -> interior index */
  uint32_t *perm = scene_malloc_large((size_t)n * sizeof *perm);  /* leaf slot -> leaf id */
  uint32_t *slot = scene_malloc_large((size_t)n * sizeof *slot);  /* leaf id -> leaf slot */
  uint32_t *stack = malloc(((size_t)total + 1) * sizeof *stack);
  int rc = 0;
  if (!wrap_leaf || !order || !newidx || !perm || !slot || !stack) {
    rc = scene_fail(e, "out of memory for %u nodes", total);
    goto done;
  }
  uint32_t w = 0;
  for (uint32_t k = 0; k < made; k++) {
    uint32_t leaves = 0, f = p->ch_first[k], c = p->ch_count[k];
    for (uint32_t t = 0; t < c; t++) leaves += p->ch_ids[f + t] < n;
    if (leaves == 0 || leaves == c) continue;
    for (uint32_t t = 0; t < c; t++)
      if (p->ch_ids[f + t] < n) wrap_leaf[w] = p->ch_ids[f + t], p->ch_ids[f + t] = n + made + w++;
  }
  /* depth first from the root: the leaves' slots, so every subtree's leaves are contiguous */
  uint32_t top = 0, slots = 0;
  stack[top++] = root;
  while (top > 0) {
    uint32_t x = stack[--top] - n;
    if (x >= made) { /* a wrap: its one leaf */
      uint32_t leaf = wrap_leaf[x - made];
      slot[leaf] = slots, perm[slots++] = leaf;
      continue;
    }
    uint32_t f = p->ch_first[x], c = p->ch_count[x];
    if (p->ch_ids[f] < n) {
      for (uint32_t t = 0; t < c; t++) slot[p->ch_ids[f + t]] = slots, perm[slots++] = p->ch_ids[f + t];
    } else {
      for (uint32_t t = c; t-- > 0;) stack[top++] = p->ch_ids[f + t];
    }
  }
  if (slots != n) {
    rc = scene_fail(e, "internal error: %u of %u leaves reached", slots, n);
    goto done;
  }
  lod->leaf_count = n, lod->node_count = n + total;
  lod->first_child = malloc((size_t)total * sizeof *lod->first_child);
  lod->child_count = malloc(total);
  lod->parent = scene_malloc_large((size_t)lod->node_count * sizeof *lod->parent);
  lod->error = malloc((size_t)total * sizeof *lod->error);
  if (!lod->first_child || !lod->child_count || !lod->parent || !lod->error) {
    rc = scene_fail(e, "out of memory for %u nodes", lod->node_count);
    goto done;
  }
  if ((rc = scene_alloc(&lod->interior, total, p->s->sh_degree, e)) != 0) goto done;
  lod->interior.count = total;
  lod->interior.flags = p->s->flags;
  /* breadth first: interior children numbered together, after their parent */
  uint32_t head = 0, tail = 0;
  order[tail] = root - n, newidx[root - n] = tail++;
  lod->parent[n] = UINT32_MAX;
  while (head < tail) {
    uint32_t x = order[head++], me = newidx[x];
    if (x >= made) { /* a wrap */
      uint32_t leaf = wrap_leaf[x - made];
      copy_splat(p->s, leaf, &lod->interior, me);
      lod->error[me] = 0; /* the leaf itself */
      lod->first_child[me] = slot[leaf], lod->child_count[me] = 1;
      lod->parent[slot[leaf]] = n + me;
      continue;
    }
    copy_splat(&p->made, x, &lod->interior, me);
    lod->error[me] = p->err[x];
    uint32_t f = p->ch_first[x], c = p->ch_count[x];
    lod->child_count[me] = (uint8_t)c;
    if (p->ch_ids[f] < n) {
      lod->first_child[me] = slot[p->ch_ids[f]];
      for (uint32_t t = 0; t < c; t++) lod->parent[slot[p->ch_ids[f + t]]] = n + me;
    } else {
      lod->first_child[me] = n + tail;
      for (uint32_t t = 0; t < c; t++) {
        uint32_t child = p->ch_ids[f + t] - n;
        order[tail] = child, newidx[child] = tail;
        lod->parent[n + tail++] = n + me;
      }
    }
  }
  if (tail != total) rc = scene_fail(e, "internal error: %u of %u interior nodes reached", tail, total);
done:
  free(wrap_leaf);
  free(order);
  free(newidx);
  free(slot);
  free(stack);
  if (rc == 0) *perm_out = perm;
  else free(perm);
  return rc;
}

int scene_lod_pairs(const splat_scene *s, splat_lod *lod, uint32_t **perm, const scene_error *e) {
  uint32_t n = s->count;
  pairs p = {.s = s, .n = n, .tasks = scene_pool_width(e->pool) * PAIRS_TASKS_PER_THREAD};
  uint32_t cap = n > 1 ? n - 1 : 1; /* each merge removes at least one node */
  uint32_t kd_levels = 0;
  for (uint64_t r = n; r > KD_LEAF; r = (r + 1) / 2) kd_levels++;
  size_t kd_nodes = (size_t)1 << kd_levels;
  if (n > UINT32_MAX / PAIRS_C) return scene_fail(e, "%u splats: at most %u for this build", n, UINT32_MAX / PAIRS_C);
  int rc = scene_alloc(&p.made, cap, s->sh_degree, e);
  if (rc == 0) {
    p.err = malloc((size_t)cap * sizeof *p.err);
    p.ch_first = malloc((size_t)cap * sizeof *p.ch_first);
    p.ch_count = malloc(cap);
    p.ch_ids = scene_malloc_large(((size_t)n + cap) * sizeof *p.ch_ids);
    p.active = scene_malloc_large((size_t)n * sizeof *p.active);
    p.items = scene_malloc_large((size_t)n * sizeof *p.items);
    p.split = malloc(kd_nodes * sizeof *p.split);
    p.axis = malloc(kd_nodes);
    p.jobs = malloc(3 * sizeof *p.jobs << KD_SERIAL_DEPTH);
    p.cand = scene_malloc_large((size_t)n * PAIRS_C * sizeof *p.cand);
    p.cost = scene_malloc_large((size_t)n * PAIRS_C * sizeof *p.cost);
    p.keys = scene_malloc_large((size_t)n * PAIRS_C * sizeof *p.keys);
    p.keys_tmp = scene_malloc_large((size_t)n * PAIRS_C * sizeof *p.keys_tmp);
    p.group = scene_malloc_large((size_t)n * sizeof *p.group);
    p.gsize = scene_malloc_large((size_t)n * sizeof *p.gsize);
    p.goff = scene_malloc_large((size_t)n * sizeof *p.goff);
    p.members = scene_malloc_large((size_t)n * sizeof *p.members);
    p.count = malloc(sizeof *p.count << 16);
    if (!p.count || !p.err || !p.ch_first || !p.ch_count || !p.ch_ids || !p.active || !p.items || !p.split || !p.axis || !p.jobs ||
        !p.cand || !p.cost || !p.keys || !p.keys_tmp || !p.group || !p.gsize || !p.goff || !p.members)
      rc = scene_fail(e, "out of memory for the tree of %u splats", n);
  }
  if (rc == 0) {
    p.made.count = 0;
    for (uint32_t i = 0; i < n; i++) p.active[i] = i;
    p.m = n;
    while (rc == 0 && p.m > SPLAT_LOD_MAX_CHILDREN) {
      rc = generation(&p, e);
      if (rc == 0 && scene_report(e, "build", (uint64_t)n - p.m, n) != 0) rc = -1;
    }
  }
  uint32_t root = 0;
  if (rc == 0) {
    if (p.m == 1 && p.active[0] >= n) {
      root = p.active[0];
    } else { /* the root over what is left (or over the one leaf) */
      for (uint32_t i = 0; i < p.m; i++) p.group[i] = 0;
      p.groups = 1, p.gsize[0] = p.m;
      rc = make_groups(&p, e);
      root = p.active[0];
    }
  }
  if (rc == 0) rc = layout(&p, root, lod, perm, e);
  splat_scene_free(&p.made);
  free(p.err);
  free(p.ch_first);
  free(p.ch_count);
  free(p.ch_ids);
  free(p.active);
  free(p.items);
  free(p.split);
  free(p.axis);
  free(p.jobs);
  free(p.cand);
  free(p.cost);
  free(p.keys);
  free(p.keys_tmp);
  free(p.group);
  free(p.gsize);
  free(p.goff);
  free(p.members);
  free(p.count);
  if (rc != 0) splat_lod_free(lod);
  return rc;
}
