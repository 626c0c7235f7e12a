/* The cut of a level-of-detail tree on the GPU (lod_cut.h, shaders/render/lod_cut.comp): one
 * dispatch per tree level over a frontier that the previous level filled, with the CPU reference
 * the tests compare it with. Compiled with -ffp-contract=off: the reference's arithmetic must be
 * the shader's `precise` arithmetic, operation for operation. */
#include "lod_cut.h"

#include "render_spv_spv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct sp_lod_cut_push) == 128, "sp_lod_cut_push must match the GLSL block");
_Static_assert(sizeof(struct sp_lod_cut_push) <= 128, "push constants beyond the guaranteed 128 bytes");
_Static_assert(SPLAT_LOD_MAX_CHILDREN <= LC_CHILD_MASK, "a child count must fit LC_CHILD_MASK");
_Static_assert(LC_STATE_PREV_COUNT < LC_STATE_PROJECT && LC_STATE_PROJECT + 3 <= LC_STATE_POOL_LEAVES &&
                   LC_STATE_POOL_LEAVES < LC_STATE_LEAF_COUNT && LC_STATE_LEAF_COUNT < LC_STATE_LEVEL,
               "the state words overlap");

void lod_cut_tree_free(lod_cut_tree *t) {
  if (!t) return;
  free(t->spheres);
  free(t->radii);
  free(t->children);
  memset(t, 0, sizeof *t);
}

static float largest(const float *s) {
  float m = s[0] > s[1] ? s[0] : s[1];
  return m > s[2] ? m : s[2];
}

/* Each node's depth (the root's 0), the widths of the levels below the root and the height. */
static int measure(const splat_lod *lod, lod_cut_tree *t, char *err, size_t err_size) {
  uint32_t interior = lod->node_count - lod->leaf_count;
  uint8_t *depth = calloc(interior, 1);
  uint32_t width[LC_MAX_LEVELS] = {0};
  if (!depth) {
    snprintf(err, err_size, "lod_cut_tree_pack: out of memory");
    return -1;
  }
  uint32_t deepest = 0;
  int rc = 0;
  for (uint32_t j = 0; j < interior && rc == 0; j++) { /* breadth-first: a parent before its children */
    uint32_t first = lod->first_child[j], k = lod->child_count[j], d = depth[j] + 1u;
    if (k < 1 || k > SPLAT_LOD_MAX_CHILDREN || first > lod->node_count - k || d >= LC_MAX_LEVELS ||
        (first >= lod->leaf_count && first - lod->leaf_count <= j)) {
      snprintf(err, err_size, "lod_cut_tree_pack: interior node %u: bad children or deeper than %u levels", j,
               LC_MAX_LEVELS);
      rc = -1;
      break;
    }
    if (first >= lod->leaf_count) width[d] += k; /* leaves never enter a frontier */
    if (d > deepest) deepest = d;
    if (first >= lod->leaf_count)
      for (uint32_t c = 0; c < k; c++) depth[first - lod->leaf_count + c] = (uint8_t)d;
  }
  t->levels = deepest + 1u;
  t->max_width = 1;
  for (uint32_t d = 1; d <= deepest; d++)
    if (width[d] > t->max_width) t->max_width = width[d];
  free(depth);
  return rc;
}

/* The least error a node has (none passes for its children at every distance: tau 0 keeps only
 * leaves). A tree without errors (SPLAT_LOD_SPLITS, a host's) has 1 everywhere: cut by its projected
 * size alone, sqrt(f r / z), as before issue 35 (measuring one at upload took 87 s for 14.4M
 * interior nodes on one core: not kept). */
#define LOD_ERROR_FLOOR 1e-3

int lod_cut_tree_pack(const splat_scene *leaves, const splat_lod *lod, lod_cut_tree *out, char *err,
                      size_t err_size) {
  memset(out, 0, sizeof *out);
  if (lod->leaf_count != leaves->count || lod->node_count <= lod->leaf_count || lod->node_count > LC_MAX_NODES) {
    snprintf(err, err_size, "lod_cut_tree_pack: %u nodes over %u leaves (scene %u; at most %u nodes)",
             lod->node_count, lod->leaf_count, leaves->count, LC_MAX_NODES);
    return -1;
  }
  uint32_t n = lod->node_count, l = lod->leaf_count, interior = n - l;
  out->leaf_count = l;
  out->node_count = n;
  out->spheres = malloc(sizeof(float) * 4 * (size_t)n);
  out->radii = malloc(sizeof(float) * (size_t)n);
  out->children = malloc(sizeof(uint32_t) * (size_t)interior);
  if (!out->spheres || !out->radii || !out->children) {
    lod_cut_tree_free(out);
    snprintf(err, err_size, "lod_cut_tree_pack: out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < n; i++) {
    const splat_scene *s = i < l ? leaves : &lod->interior;
    uint32_t k = i < l ? i : i - l;
    float *o = out->spheres + 4 * (size_t)i;
    memcpy(o, s->positions + 3 * (size_t)k, 3 * sizeof(float));
    o[3] = out->radii[i] = 3.0f * largest(s->scales + 3 * (size_t)k);
  }
  for (uint32_t j = 0; j < interior; j++)
    out->children[j] = lod->first_child[j] << LC_CHILD_SHIFT | lod->child_count[j];
  if (measure(lod, out, err, err_size) != 0) {
    lod_cut_tree_free(out);
    return -1;
  }
  /* children after parents (breadth-first order): the errors bottom-up */
  for (uint32_t j = interior; j-- > 0;) {
    double e = lod->error != NULL ? lod->error[j] : 1.0;
    e = e > LOD_ERROR_FLOOR ? e : LOD_ERROR_FLOOR;
    for (uint32_t c = 0; c < lod->child_count[j]; c++) {
      uint32_t child = lod->first_child[j] + c;
      if (child >= l && out->spheres[4 * (size_t)child + 3] > e) e = out->spheres[4 * (size_t)child + 3];
    }
    out->spheres[4 * (size_t)(l + j) + 3] = (float)e;
  }
  /* what the shaders read: e sqrt(r), so the projected error is w sqrt(f scale / z) */
  for (uint32_t j = 0; j < interior; j++) out->spheres[4 * (size_t)(l + j) + 3] *= sqrtf(out->radii[l + j]);
  return 0;
}

struct sp_lod_cut_push lod_cut_push_for(const splat_camera *cam, float near_z, float tau) {
  struct sp_lod_cut_push pc;
  memset(&pc, 0, sizeof pc);
  memcpy(pc.view.m, cam->view, sizeof pc.view.m);
  float lx = SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovx(cam), ly = SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovy(cam);
  pc.frustum = (sp_vec4){{lx, ly, sqrtf(1.0f + lx * lx), sqrtf(1.0f + ly * ly)}};
  pc.params = (sp_vec4){{near_z, tau, cam->fx > cam->fy ? cam->fx : cam->fy, 1.0f}};
  return pc;
}

enum { DROP, KEEP, OPEN };

/* The shader's classify(), operation for operation. */
static int classify(const lod_cut_tree *t, const struct sp_lod_cut_push *pc, uint32_t node) {
  const float *s = t->spheres + 4 * (size_t)node, *v = pc->view.m;
  float r = t->radii[node] * pc->params.v[3], e = s[3];
  float x = v[0] * s[0] + v[4] * s[1] + v[8] * s[2] + v[12];
  float y = v[1] * s[0] + v[5] * s[1] + v[9] * s[2] + v[13];
  float z = v[2] * s[0] + v[6] * s[1] + v[10] * s[2] + v[14];
  float near_z = pc->params.v[0];
  float back = z + r;
  if (back <= near_z) return DROP;
  float rx = r * pc->frustum.v[2], ry = r * pc->frustum.v[3];
  float px = pc->frustum.v[0] * z, py = pc->frustum.v[1] * z;
  float right = x - px, left = -x - px, down = y - py, up = -y - py;
  if (right > rx || left > rx || down > ry || up > ry) return DROP;
  if (node < t->leaf_count) return KEEP;
  if (z <= near_z) return OPEN;
  float size = e * sqrtf(pc->params.v[2] * pc->params.v[3] / z);
  return size <= pc->params.v[1] ? KEEP : OPEN;
}

uint32_t lod_cut_reference(const lod_cut_tree *t, const struct sp_lod_cut_push *pc, uint32_t *cut) {
  /* depth first with an explicit stack: the result is a set, whatever the order */
  uint32_t stack[LC_MAX_LEVELS * SPLAT_LOD_MAX_CHILDREN + 1], top = 0, count = 0;
  stack[top++] = t->leaf_count;
  while (top) {
    uint32_t node = stack[--top];
    int c = classify(t, pc, node);
    if (c == KEEP) {
      cut[count++] = node;
    } else if (c == OPEN) {
      uint32_t packed = t->children[node - t->leaf_count];
      uint32_t first = packed >> LC_CHILD_SHIFT, k = packed & LC_CHILD_MASK;
      if (first < t->leaf_count) /* leaves: kept without a test (the projection culls them) */
        for (uint32_t j = 0; j < k; j++) cut[count++] = first + j;
      else
        for (uint32_t j = k; j-- > 0;) stack[top++] = first + j;
    }
  }
  return count;
}

VkResult lod_cut_pipeline_create(const ssvk_device *d, lod_cut_pipeline *out) {
  memset(out, 0, sizeof *out);
  VkPhysicalDeviceProperties props;
  d->fn.vkGetPhysicalDeviceProperties(d->physical_device, &props);
  out->max_groups = props.limits.maxComputeWorkGroupCount[0];
  VkResult res = ssvk_push_layout(d, LC_BIND_COUNT, VK_SHADER_STAGE_COMPUTE_BIT, sizeof(struct sp_lod_cut_push),
                                  VK_SHADER_STAGE_COMPUTE_BIT, "splat LOD cut", &out->set_layout, &out->layout);
  if (res == VK_SUCCESS) {
    ssvk_compute_desc cd = {.code = render_spv_lod_cut_comp, .code_size = render_spv_lod_cut_comp_size,
                            .layout = out->layout, .name = "splat LOD cut: level"};
    res = ssvk_compute_pipeline(d, &cd, &out->pipeline);
  }
  if (res != VK_SUCCESS) lod_cut_pipeline_destroy(d, out);
  return res;
}

void lod_cut_pipeline_destroy(const ssvk_device *d, lod_cut_pipeline *p) {
  if (p->pipeline) d->fn.vkDestroyPipeline(d->device, p->pipeline, d->allocator);
  if (p->layout) d->fn.vkDestroyPipelineLayout(d->device, p->layout, d->allocator);
  if (p->set_layout) d->fn.vkDestroyDescriptorSetLayout(d->device, p->set_layout, d->allocator);
  memset(p, 0, sizeof *p);
}

static VkDeviceSize state_words(uint32_t levels) { return LC_STATE_LEVEL + 4u * ((VkDeviceSize)levels + 1u); }

VkResult lod_cut_gpu_create(const ssvk_device *d, const lod_cut_tree *t, uint32_t cut_capacity, uint32_t request_regions,
                            VkQueue queue, VkCommandPool pool, lod_cut_gpu *out) {
  memset(out, 0, sizeof *out);
  out->pages = (t->leaf_count + LC_PAGE_LEAVES - 1) / LC_PAGE_LEAVES;
  out->pool_leaves = t->leaf_count;
  out->request_regions = request_regions ? request_regions : 1;
  uint32_t most = lod_cut_most_entries(t->leaf_count, t->node_count);
  out->cut_capacity = cut_capacity && cut_capacity < most ? cut_capacity : most;
  out->leaf_count = t->leaf_count;
  out->node_count = t->node_count;
  out->levels = t->levels;
  out->capacity = t->max_width;
  const VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                           xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkDeviceSize interior = t->node_count - t->leaf_count;
  /* the interior nodes' spheres only: leaves never enter a frontier */
  VkResult res = ssvk_buffer_create(d, 16u * interior, st | xfer, false, false, "LOD cut spheres", &out->spheres);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_create(d, 8u * interior, st | xfer, false, false, "LOD cut children", &out->children);
  for (int i = 0; i < 2 && res == VK_SUCCESS; i++)
    res = ssvk_buffer_create(d, 4u * (VkDeviceSize)t->max_width, st | xfer, false, false,
                             i ? "LOD cut frontier 1" : "LOD cut frontier 0", &out->frontier[i]);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_create(d, 4u * state_words(t->levels), st | xfer | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false,
                             false, "LOD cut state", &out->state);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_create(d, 4u * (VkDeviceSize)out->cut_capacity, st | xfer, false, false, "LOD cut list",
                             &out->cut);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_create(d, 4u * (VkDeviceSize)out->pages, st | xfer, false, false, "LOD page table",
                             &out->page_table);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_create(d, 4u * (VkDeviceSize)out->pages, st, true, false, "LOD page stamps", &out->stamps);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_create(d, 4u * LC_REQUEST_WORDS * out->request_regions, st, true, false, "LOD page requests",
                             &out->requests);
  if (res == VK_SUCCESS) {
    memset(out->stamps.mapped, 0, 4u * (size_t)out->pages);
    memset(out->requests.mapped, 0, 4u * LC_REQUEST_WORDS * (size_t)out->request_regions);
    uint32_t *identity = malloc(4u * (size_t)out->pages); /* every page resident, in place */
    if (!identity) res = VK_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t p = 0; identity && p < out->pages; p++) identity[p] = p;
    if (identity) res = ssvk_buffer_upload(d, queue, pool, out->page_table.buffer, 0, identity, 4u * (VkDeviceSize)out->pages);
    free(identity);
  }
  if (res == VK_SUCCESS)
    res = ssvk_buffer_upload(d, queue, pool, out->spheres.buffer, 0, t->spheres + 4 * (size_t)t->leaf_count,
                             16u * interior);
  if (res == VK_SUCCESS) { /* per interior node: its children, its culling radius */
    uint32_t *words = malloc(8u * (size_t)interior);
    if (!words) res = VK_ERROR_OUT_OF_HOST_MEMORY;
    for (size_t j = 0; words && j < interior; j++) {
      words[2 * j] = t->children[j];
      memcpy(&words[2 * j + 1], &t->radii[t->leaf_count + j], 4);
    }
    if (words) res = ssvk_buffer_upload(d, queue, pool, out->children.buffer, 0, words, 8u * interior);
    free(words);
  }
  if (res != VK_SUCCESS) lod_cut_gpu_destroy(d, out);
  return res;
}

void lod_cut_gpu_destroy(const ssvk_device *d, lod_cut_gpu *g) {
  ssvk_buffer *b[] = {&g->spheres, &g->children, &g->frontier[0], &g->frontier[1], &g->state, &g->cut,
                      &g->page_table, &g->stamps, &g->requests};
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) ssvk_buffer_destroy(d, b[i]);
  memset(g, 0, sizeof *g);
}

void lod_cut_cmd_record(const ssvk_device *d, const lod_cut_pipeline *p, lod_cut_gpu *g, VkCommandBuffer cmd,
                        struct sp_lod_cut_push pc, uint32_t budget, float blend, uint32_t region) {
  ssvk_label_begin(d, cmd, "splat LOD cut");
  /* the header; every level's (groups, 1, 1, count) zero but for y, z; level 0: the root, one group */
  uint32_t words[LC_STATE_LEVEL + 4 * (LC_MAX_LEVELS + 1)] = {0};
  VkDeviceSize n = state_words(g->levels);
  float tau = pc.params.v[1], radius_scale = pc.params.v[3];
  memcpy(&words[LC_STATE_TAU], &tau, 4);
  memcpy(&words[LC_STATE_TAU_NEXT], &tau, 4);
  memcpy(&words[LC_STATE_BLEND], &blend, 4);
  memcpy(&words[LC_STATE_RADIUS_SCALE], &radius_scale, 4);
  words[LC_STATE_POOL_LEAVES] = g->pool_leaves;
  words[LC_STATE_LEAF_COUNT] = g->leaf_count;
  for (uint32_t l = 0; l <= g->levels; l++) words[LC_STATE_LEVEL + 4 * l + 1] = words[LC_STATE_LEVEL + 4 * l + 2] = 1;
  words[LC_STATE_LEVEL] = words[LC_STATE_LEVEL + 3] = 1;
  if (budget && g->steered) {
    /* the threshold the previous frame's budget step left, on the GPU: no read-back */
    d->fn.vkCmdUpdateBuffer(cmd, g->state.buffer, 0, 4 * LC_STATE_TAU, words);
    VkBufferCopy next = {4 * LC_STATE_TAU_NEXT, 4 * LC_STATE_TAU, 4};
    d->fn.vkCmdCopyBuffer(cmd, g->state.buffer, g->state.buffer, 1, &next);
    /* the budget's last step (LC_STATE_PREV_*) stays */
    d->fn.vkCmdUpdateBuffer(cmd, g->state.buffer, 4 * LC_STATE_INTERIOR, 4 * (LC_STATE_PREV_TAU - LC_STATE_INTERIOR),
                            words + LC_STATE_INTERIOR);
    d->fn.vkCmdUpdateBuffer(cmd, g->state.buffer, 4 * LC_STATE_POOL_LEAVES, 4 * (n - LC_STATE_POOL_LEAVES),
                            words + LC_STATE_POOL_LEAVES);
  } else {
    d->fn.vkCmdUpdateBuffer(cmd, g->state.buffer, 0, 4 * n, words); /* a budget starts from pc's tau */
  }
  g->steered = budget != 0;
  d->fn.vkCmdFillBuffer(cmd, g->frontier[0].buffer, 0, 4, g->leaf_count);
  const VkPipelineStageFlags next = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
  const VkAccessFlags next_access =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  ssvk_memory_barrier(d, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, next, next_access);
  d->fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
  pc.leaf_count = g->leaf_count;
  pc.max_groups = p->max_groups;
  pc.capacity = g->capacity;
  pc.cut_capacity = g->cut_capacity;
  pc.request_capacity = LC_REQUEST_WORDS - 1;
  region = region < g->request_regions ? region : 0;
  pc.budget = budget;
  /* the frontiers hold interior nodes only (leaves go to the cut from their parent): depths
   * 0 .. levels - 2 */
  uint32_t walk = g->levels > 1 ? g->levels - 1 : 1, dispatches = walk + 1u; /* + the control */
  for (uint32_t l = 0; l < dispatches; l++) {
    VkDescriptorBufferInfo b[LC_BIND_COUNT] = {
        [LC_BIND_SPHERES] = {g->spheres.buffer, 0, VK_WHOLE_SIZE},
        [LC_BIND_CHILDREN] = {g->children.buffer, 0, VK_WHOLE_SIZE},
        [LC_BIND_FRONTIER_IN] = {g->frontier[l & 1].buffer, 0, VK_WHOLE_SIZE},
        [LC_BIND_FRONTIER_OUT] = {g->frontier[(l + 1) & 1].buffer, 0, VK_WHOLE_SIZE},
        [LC_BIND_STATE] = {g->state.buffer, 0, VK_WHOLE_SIZE},
        [LC_BIND_CUT] = {g->cut.buffer, 0, VK_WHOLE_SIZE},
        [LC_BIND_PAGES] = {g->page_table.buffer, 0, VK_WHOLE_SIZE},
        [LC_BIND_REQUESTS] = {g->requests.buffer, 4ull * LC_REQUEST_WORDS * region, 4ull * LC_REQUEST_WORDS},
        [LC_BIND_STAMPS] = {g->stamps.buffer, 0, VK_WHOLE_SIZE},
    };
    ssvk_push_buffers(d, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, b, LC_BIND_COUNT);
    pc.level = l < walk ? l : LC_LEVEL_CONTROL;
    d->fn.vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    if (l < walk)
      d->fn.vkCmdDispatchIndirect(cmd, g->state.buffer, 4u * (LC_STATE_LEVEL + 4u * (VkDeviceSize)l));
    else
      d->fn.vkCmdDispatch(cmd, 1, 1, 1); /* the budget's step, after the last level */
    if (l + 1 < dispatches)
      ssvk_memory_barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, next, next_access);
  }
  ssvk_label_end(d, cmd);
}
