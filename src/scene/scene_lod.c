/* scene_lod.c: building the level-of-detail tree over a scene (splat_lod_build, splat_scene.h):
 * its shape from the splat count alone, the in-place median splits that put each subtree's leaves
 * together, the scene reordered to match, and the interior Gaussians merged bottom-up, each level
 * of the tree a parallel step (scene_run). The merge itself: scene_lod_merge.c. */
#include "scene_common.h"

#include <stdlib.h>
#include <unistd.h>

#define LOD_MAX_LEVELS 64 /* the tree is about log8(count) deep: at most 12 levels for 2^32 splats */
#define LOD_TASKS_PER_THREAD 4

typedef struct lod_build {
  splat_scene *s;
  splat_lod *lod;
  lod_item *items;
  uint32_t *lo, *hi;         /* per interior node: its leaves [lo, hi) in the final order */
  uint32_t count, capacity;  /* interior nodes so far, and room for them */
  uint32_t level[LOD_MAX_LEVELS + 1], levels; /* interior nodes of level l: [level[l], level[l + 1]) */
  uint32_t step_first, step_count, step_tasks; /* the parallel step under way: nodes or splats */
  float *tmp;                /* reordering: one array's new block */
  size_t stride;             /* its floats a splat */
  const float *src;
} lod_build;

/* The parts of a range of m > 8 leaves: as many as subtrees of the next height down (8, 64, 512
 * ... leaves each) it takes, at most 8, so the nodes above the leaves come out nearly full
 * (about 7 leaves each, whatever the count) rather than with 2 to 8 (a fifth to a half more
 * interior nodes, in memory and in the file). */
static uint32_t part_count(uint32_t m) {
  uint64_t below = SPLAT_LOD_MAX_CHILDREN; /* the most leaves a child's subtree holds */
  while (below * SPLAT_LOD_MAX_CHILDREN < m) below *= SPLAT_LOD_MAX_CHILDREN;
  return (uint32_t)((m + below - 1) / below);
}

/* Where the range [lo, hi), to become k parts, is cut in two: its first k / 2 parts' share. */
static uint32_t cut(uint32_t lo, uint32_t hi, uint32_t k) {
  return lo + (uint32_t)((uint64_t)(hi - lo) * (k / 2) / k);
}

static int push_node(lod_build *b, uint32_t lo, uint32_t hi, const scene_error *e) {
  if (b->count == b->capacity) {
    uint32_t cap = b->capacity < 1024 ? 1024 : b->capacity > UINT32_MAX / 2 ? UINT32_MAX : b->capacity * 2;
    if (cap == b->capacity) return scene_fail(e, "too many interior nodes");
    uint32_t *l = realloc(b->lo, (size_t)cap * sizeof *l);
    if (l) b->lo = l;
    uint32_t *h = l ? realloc(b->hi, (size_t)cap * sizeof *h) : NULL;
    if (h) b->hi = h;
    if (!l || !h) return scene_fail(e, "out of memory for %u interior nodes", cap);
    b->capacity = cap;
  }
  b->lo[b->count] = lo, b->hi[b->count] = hi;
  b->count++;
  return 0;
}

/* Appends the k parts of [lo, hi) as nodes, in order. */
static int push_parts(lod_build *b, uint32_t lo, uint32_t hi, uint32_t k, const scene_error *e) {
  if (k == 1) return push_node(b, lo, hi, e);
  uint32_t mid = cut(lo, hi, k);
  return push_parts(b, lo, mid, k / 2, e) != 0 ? -1 : push_parts(b, mid, hi, k - k / 2, e);
}

/* The tree's shape, breadth first, from the leaf count alone: which leaves each interior node
 * covers. The splits then make the leaves fit it. */
static int plan(lod_build *b, const scene_error *e) {
  uint32_t n = b->s->count, level_end = 1; /* the end of the level being walked */
  if (push_node(b, 0, n, e) != 0) return -1;
  b->level[0] = 0, b->levels = 1;
  for (uint32_t k = 0; k < b->count; ++k) {
    if (k == level_end) { /* the nodes the level before pushed are the next level */
      if (b->levels == LOD_MAX_LEVELS) return scene_fail(e, "tree deeper than %d levels", LOD_MAX_LEVELS);
      b->level[b->levels++] = k;
      level_end = b->count;
    }
    uint32_t m = b->hi[k] - b->lo[k];
    if (m > SPLAT_LOD_MAX_CHILDREN && push_parts(b, b->lo[k], b->hi[k], part_count(m), e) != 0) return -1;
  }
  b->level[b->levels] = b->count;
  if ((uint64_t)n + b->count >= UINT32_MAX)
    return scene_fail(e, "%u splats make %u interior nodes: more nodes than a 32-bit index holds", n, b->count);
  return 0;
}

/* ---- the splits ---------------------------------------------------------------------------- */

static inline bool item_less(const lod_item *a, const lod_item *b, int axis) {
  return a->p[axis] < b->p[axis] || (a->p[axis] == b->p[axis] && a->i < b->i); /* ties: the index */
}

static inline void item_swap(lod_item *a, lod_item *b) {
  lod_item t = *a;
  *a = *b, *b = t;
}

static void sift_down(lod_item *v, size_t root, size_t n, int axis) {
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && item_less(&v[child], &v[child + 1], axis)) child++;
    if (!item_less(&v[root], &v[child], axis)) return;
    item_swap(&v[root], &v[child]);
  }
}

/* The fallback of scene_lod_select: O(n log n) whatever the input. */
static void heap_sort(lod_item *v, size_t n, int axis) {
  for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n, axis);
  for (size_t end = n; end-- > 1;) {
    item_swap(&v[0], &v[end]);
    sift_down(v, 0, end, axis);
  }
}

/* Rearranges v[0, n) so that v[nth] is what a sort would put there, the smaller before it and the
 * larger after (nth_element): quickselect with a median-of-three pivot, heap sort where a hostile
 * order makes it go too deep. Keys are unique (ties broken by index), so the result depends on the
 * input order only. */
void scene_lod_select(lod_item *v, size_t n, size_t nth, int axis) {
  size_t lo = 0, hi = n;
  int depth = 8;
  for (size_t m = n; m > 1; m >>= 1) depth += 2;
  while (hi - lo > 16) {
    if (depth-- == 0) {
      heap_sort(v + lo, hi - lo, axis);
      return;
    }
    size_t mid = lo + (hi - lo) / 2;
    if (item_less(&v[mid], &v[lo], axis)) item_swap(&v[mid], &v[lo]);
    if (item_less(&v[hi - 1], &v[mid], axis)) item_swap(&v[hi - 1], &v[mid]);
    if (item_less(&v[mid], &v[lo], axis)) item_swap(&v[mid], &v[lo]);
    lod_item pivot = v[mid];
    size_t i = lo, j = hi - 1; /* Hoare: v[lo] <= pivot <= v[hi - 1] stop both scans */
    for (;;) {
      while (item_less(&v[i], &pivot, axis)) i++;
      while (item_less(&pivot, &v[j], axis)) j--;
      if (i >= j) break;
      item_swap(&v[i], &v[j]);
      i++, j--;
    }
    /* [lo, j] <= pivot <= [j + 1, hi) */
    if (nth <= j) hi = j + 1;
    else lo = j + 1;
  }
  for (size_t i = lo + 1; i < hi; ++i) /* insertion sort of the last few */
    for (size_t k = i; k > lo && item_less(&v[k], &v[k - 1], axis); --k) item_swap(&v[k], &v[k - 1]);
}

/* The axis along which the positions of v[0, n) spread most (the first of equals). */
int scene_lod_longest_axis(const lod_item *v, size_t n) {
  float lo[3] = {v[0].p[0], v[0].p[1], v[0].p[2]}, hi[3] = {lo[0], lo[1], lo[2]};
  for (size_t i = 1; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      lo[c] = v[i].p[c] < lo[c] ? v[i].p[c] : lo[c];
      hi[c] = v[i].p[c] > hi[c] ? v[i].p[c] : hi[c];
    }
  int axis = 0;
  for (int c = 1; c < 3; ++c)
    if ((double)hi[c] - lo[c] > (double)hi[axis] - lo[axis]) axis = c;
  return axis;
}

/* Splits the items [lo, hi) in place into the k parts push_parts planned. */
static void split(lod_item *items, uint32_t lo, uint32_t hi, uint32_t k) {
  if (k == 1) return;
  uint32_t mid = cut(lo, hi, k);
  scene_lod_select(items + lo, hi - lo, mid - lo, scene_lod_longest_axis(items + lo, hi - lo));
  split(items, lo, mid, k / 2);
  split(items, mid, hi, k - k / 2);
}

/* The step's share of task `index`: [*a, *b) of step_count. */
static void task_share(const lod_build *b, uint32_t index, uint32_t *a, uint32_t *z) {
  *a = (uint32_t)((uint64_t)b->step_count * index / b->step_tasks);
  *z = (uint32_t)((uint64_t)b->step_count * (index + 1) / b->step_tasks);
}

static int split_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  (void)j, (void)te;
  lod_build *b = arg;
  uint32_t a, z;
  task_share(b, index, &a, &z);
  for (uint32_t k = b->step_first + a; k < b->step_first + z; ++k) {
    uint32_t m = b->hi[k] - b->lo[k];
    if (m > SPLAT_LOD_MAX_CHILDREN) split(b->items, b->lo[k], b->hi[k], part_count(m));
  }
  return 0;
}

/* Runs `task` over `count` units (nodes or splats) from `first`, about LOD_TASKS_PER_THREAD tasks
 * a thread. */
static int run_over(lod_build *b, uint32_t first, uint32_t count, scene_task_fn task, const scene_error *e) {
  uint32_t tasks = scene_pool_width(e->pool) * LOD_TASKS_PER_THREAD;
  b->step_first = first, b->step_count = count, b->step_tasks = tasks < count ? tasks : count;
  return b->step_tasks == 0 ? 0 : scene_run(e, NULL, 0, b->step_tasks, task, b);
}

/* ---- the scene reordered, the interior merged ------------------------------------------------ */

static int gather_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  (void)j, (void)te;
  lod_build *b = arg;
  uint32_t a, z;
  task_share(b, index, &a, &z);
  size_t st = b->stride;
  for (uint32_t i = a; i < z; ++i) memcpy(b->tmp + i * st, b->src + (size_t)b->items[i].i * st, st * sizeof(float));
  return 0;
}

/* Puts one array of the scene in the split order: new[i] = old[items[i].i], in the caller's own
 * array (its address kept: it may be a slice of the host's block, issue 37). Through a block of our
 * own, gathered in parallel and copied back; where that cannot be allocated, in place by following
 * the permutation's cycles (`seen`, a bit a splat, cleared here). Cannot fail, so the scene is
 * never half reordered. */
static void reorder(lod_build *b, float **array, size_t stride, uint8_t *seen, const scene_error *e) {
  uint32_t n = b->s->count;
  b->tmp = scene_malloc_large((size_t)n * stride * sizeof(float));
  b->src = *array, b->stride = stride;
  if (b->tmp != NULL && run_over(b, 0, n, gather_task, e) == 0) {
    memcpy(*array, b->tmp, (size_t)n * stride * sizeof(float));
    free(b->tmp);
    return;
  }
  free(b->tmp);
  memset(seen, 0, (n + 7) / 8);
  float hold[SPLAT_SCENE_MAX_SH_DEGREE * 12 + 12]; /* the largest stride: 48 SH floats */
  float *v = *array;
  for (uint32_t start = 0; start < n; ++start) {
    if (seen[start / 8] & (1u << (start % 8))) continue;
    memcpy(hold, v + (size_t)start * stride, stride * sizeof(float));
    uint32_t to = start;
    for (;;) { /* slot `to` takes the splat that belongs there */
      seen[to / 8] |= (uint8_t)(1u << (to % 8));
      uint32_t from = b->items[to].i;
      if (from == start) break;
      memcpy(v + (size_t)to * stride, v + (size_t)from * stride, stride * sizeof(float));
      to = from;
    }
    memcpy(v + (size_t)to * stride, hold, stride * sizeof(float));
  }
}

/* All five arrays of the scene in the tree's order (b->items). */
static void reorder_scene(lod_build *b, uint8_t *seen, const scene_error *e) {
  splat_scene *s = b->s;
  reorder(b, &s->positions, 3, seen, e);
  reorder(b, &s->scales, 3, seen, e);
  reorder(b, &s->rotations, 4, seen, e);
  reorder(b, &s->opacities, 1, seen, e);
  reorder(b, &s->sh, (size_t)s->sh_coeffs * 3, seen, e);
}

static int merge_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  (void)j, (void)te;
  lod_build *b = arg;
  splat_lod *lod = b->lod;
  uint32_t a, z, n = lod->leaf_count;
  task_share(b, index, &a, &z);
  for (uint32_t k = b->step_first + a; k < b->step_first + z; ++k) {
    uint32_t first = lod->first_child[k];
    if (first < n) scene_lod_merge(b->s, first, lod->child_count[k], &lod->interior, k);
    else scene_lod_merge(&lod->interior, first - n, lod->child_count[k], &lod->interior, k);
  }
  return 0;
}

/* A scene the tree can be built over: what splat_lod_build documents, the first bad splat named. */
static int check_task(scene_job *j, void *arg, uint32_t index, const scene_error *te) {
  (void)j;
  lod_build *b = arg;
  const splat_scene *s = b->s;
  uint32_t a, z;
  task_share(b, index, &a, &z);
  size_t nsh = (size_t)s->sh_coeffs * 3;
  for (uint32_t i = a; i < z; ++i) {
    const float *sc = s->scales + (size_t)i * 3, *q = s->rotations + (size_t)i * 4;
    float o = s->opacities[i];
    if (!scene_all_finite(s->positions + (size_t)i * 3, 3)) return scene_fail(te, "splat %u: position not finite", i);
    if (!scene_all_finite(sc, 3) || sc[0] < 0 || sc[1] < 0 || sc[2] < 0)
      return scene_fail(te, "splat %u: scale not finite and >= 0", i);
    if (!scene_all_finite(q, 4) || q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] == 0)
      return scene_fail(te, "splat %u: rotation not finite and non-zero", i);
    if (!(o >= 0 && o <= 1)) return scene_fail(te, "splat %u: opacity %g not in [0, 1]", i, (double)o);
    if (!scene_all_finite(s->sh + i * nsh, (uint32_t)nsh)) return scene_fail(te, "splat %u: SH not finite", i);
  }
  return 0;
}

static int check_scene(lod_build *b, const scene_error *e) {
  const splat_scene *s = b->s;
  if (s->count == 0) return scene_fail(e, "the scene has no splats");
  if (s->sh_degree > SPLAT_SCENE_MAX_SH_DEGREE || s->sh_coeffs != (s->sh_degree + 1) * (s->sh_degree + 1))
    return scene_fail(e, "SH degree %u with %u coefficients", s->sh_degree, s->sh_coeffs);
  if (!s->positions || !s->scales || !s->rotations || !s->opacities || !s->sh)
    return scene_fail(e, "the scene lacks an array");
  return run_over(b, 0, s->count, check_task, e);
}

/* The tree's arrays from the plan (all allocated before the scene is touched). */
static int fill_tree(lod_build *b, const scene_error *e) {
  splat_lod *lod = b->lod;
  uint32_t n = b->s->count, count = b->count;
  lod->leaf_count = n, lod->node_count = n + count;
  lod->first_child = malloc((size_t)count * sizeof *lod->first_child);
  lod->child_count = malloc(count);
  lod->parent = scene_malloc_large((size_t)lod->node_count * sizeof *lod->parent);
  if (!lod->first_child || !lod->child_count || !lod->parent)
    return scene_fail(e, "out of memory for %u nodes", lod->node_count);
  if (scene_alloc(&lod->interior, count, b->s->sh_degree, e) != 0) return -1;
  lod->interior.count = count;
  lod->interior.flags = b->s->flags;
  uint32_t next = 1; /* interior children are pushed breadth first, in the order nodes were */
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t m = b->hi[k] - b->lo[k];
    if (m <= SPLAT_LOD_MAX_CHILDREN) {
      lod->first_child[k] = b->lo[k], lod->child_count[k] = (uint8_t)m;
    } else {
      lod->first_child[k] = n + next, lod->child_count[k] = (uint8_t)part_count(m);
      next += part_count(m);
    }
    for (uint32_t c = 0; c < lod->child_count[k]; ++c) lod->parent[lod->first_child[k] + c] = n + k;
  }
  lod->parent[n] = UINT32_MAX;
  return 0;
}

/* SPLAT_LOD_PAIRS: the tree from scene_lod_pairs.c, the scene put in its leaves' order. */
static int build_pairs(lod_build *b, const scene_error *e) {
  splat_scene *s = b->s;
  uint32_t n = s->count, *perm = NULL;
  if (check_scene(b, e) != 0 || scene_lod_pairs(s, b->lod, &perm, e) != 0) return -1;
  b->items = scene_malloc_large((size_t)n * sizeof *b->items);
  uint8_t *seen = malloc((size_t)n / 8 + 1);
  if (!b->items || !seen) {
    free(seen);
    free(perm);
    return scene_fail(e, "out of memory for %u splats", n);
  }
  for (uint32_t i = 0; i < n; ++i) b->items[i].i = perm[i];
  free(perm);
  reorder_scene(b, seen, e);
  free(seen);
  scene_bounds(&b->lod->interior);
  return 0;
}

static int build(lod_build *b, const scene_error *e) {
  splat_scene *s = b->s;
  uint32_t n = s->count;
  if (check_scene(b, e) != 0 || plan(b, e) != 0 || fill_tree(b, e) != 0) return -1;
  b->items = scene_malloc_large((size_t)n * sizeof *b->items);
  uint8_t *seen = malloc((size_t)n / 8 + 1);
  if (!b->items || !seen) {
    free(seen);
    return scene_fail(e, "out of memory for %u splats", n);
  }
  for (uint32_t i = 0; i < n; ++i) {
    memcpy(b->items[i].p, s->positions + (size_t)i * 3, sizeof b->items[i].p);
    b->items[i].i = i;
  }
  /* Top down, a level at a time: a node's range is whole once its parent's split is done. */
  int rc = 0;
  for (uint32_t l = 0; l < b->levels && rc == 0; ++l)
    rc = run_over(b, b->level[l], b->level[l + 1] - b->level[l], split_task, e);
  if (rc != 0) { /* only a step that could not start: the scene is as it was */
    free(seen);
    return -1;
  }
  reorder_scene(b, seen, e);
  free(seen);
  /* Bottom up: a level's children (leaves or the level below) are merged already. */
  for (uint32_t l = b->levels; l-- > 0 && rc == 0;)
    rc = run_over(b, b->level[l], b->level[l + 1] - b->level[l], merge_task, e);
  if (rc == 0) scene_bounds(&b->lod->interior);
  return rc;
}

int splat_lod_build(splat_scene *s, const splat_lod_options *o, splat_lod *out, char *err, size_t err_size) {
  scene_error e = {.name = "splat_lod_build", .buf = err, .size = err_size};
  if (out == NULL) return scene_fail(&e, "no output");
  memset(out, 0, sizeof *out);
  if (s == NULL) return scene_fail(&e, "no scene");
  if (o != NULL && o->next != NULL) return scene_fail(&e, "options.next must be NULL");
  unsigned threads = o != NULL ? o->threads : 0;
  if (threads == 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores > 0 ? (unsigned)cores : 1;
  }
  scene_pool pool = {.threads = threads};
  e.pool = &pool;
  splat_lod_method method = o != NULL ? o->method : SPLAT_LOD_DEFAULT;
  if (method == SPLAT_LOD_DEFAULT) method = s->count <= SPLAT_LOD_PAIRS_DEFAULT_MAX ? SPLAT_LOD_PAIRS : SPLAT_LOD_SPLITS;
  if (method != SPLAT_LOD_SPLITS && method != SPLAT_LOD_PAIRS)
    return scene_fail(&e, "options.method %d is not a splat_lod_method", (int)method);
  lod_build b = {.s = s, .lod = out};
  int rc = method == SPLAT_LOD_PAIRS ? build_pairs(&b, &e) : build(&b, &e);
  free(b.items);
  free(b.lo);
  free(b.hi);
  if (rc != 0) splat_lod_free(out);
  return rc;
}

void splat_lod_free(splat_lod *lod) {
  if (lod == NULL) return;
  free(lod->first_child);
  free(lod->child_count);
  free(lod->parent);
  free(lod->error);
  splat_scene_free(&lod->interior);
  memset(lod, 0, sizeof *lod);
}
