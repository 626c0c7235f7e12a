/* lod.c: the renderer's level-of-detail objects (docs/lod.md): add_lod_object uploads a scene and
 * its tree (the leaves and the interior nodes as the object's splats, the cut's spheres and
 * children, each node's parent), and each frame's cuts
 * (lod_cut.c) before the projection, which then runs over the cut (project.comp, LOD). */
#include "render_internal.h"

#include "render_spv_spv.h"
#include "splat_shared.h"

_Static_assert(LC_PROJECT_WORKGROUP == SP_PROJECT_WORKGROUP, "the cut writes the projection's dispatch");

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* The tree's buffers: the cut's (lod_cut_gpu) and the parents. */
static VkResult upload_tree(splat_renderer *r, const splat_scene *leaves, const splat_lod *lod, uint32_t max_cut,
                            object_lod *l) {
  char err[256];
  lod_cut_tree t;
  if (lod_cut_tree_pack(leaves, lod, &t, err, sizeof err) != 0) {
    rlog(r, "add_lod_object: %s", err);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  VkResult res = lod_cut_gpu_create(&r->vk, &t, max_cut, r->slots, r->queue, r->upload_pool, &l->cut);
  lod_cut_tree_free(&t);
  if (res != VK_SUCCESS) {
    rlog(r, "add_lod_object: the tree's cut buffers (%u nodes) could not be made (%s)", lod->node_count,
         ssvk_result_name(res));
    return res;
  }
  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  res = ssvk_buffer_create(&r->vk, 4ull * lod->node_count, usage, false, false, "LOD parents", &l->parent);
  if (res == VK_SUCCESS)
    res = ssvk_buffer_upload(&r->vk, r->queue, r->upload_pool, l->parent.buffer, 0, lod->parent,
                             4ull * lod->node_count);
  if (res != VK_SUCCESS) rlog(r, "add_lod_object: the tree's buffers could not be made (%s)", ssvk_result_name(res));
  return res;
}


/* Pages a frame copies in at most (each LC_PAGE_LEAVES leaves: 512 KiB at SH 3 in halves). */
#define LOD_PAGES_PER_FRAME 32u

/* A streamed object's pool: `slots` slots of LC_PAGE_LEAVES leaves, none resident (the page
 * table all LC_PAGE_NONE), the host's tables and a staging buffer per frame slot. */
static VkResult stream_setup(splat_renderer *r, const object_gpu *o, uint32_t slots, object_lod *l) {
  l->pool_slots = slots;
  l->cut.pool_leaves = slots * LC_PAGE_LEAVES;
  l->slot_of_page = malloc(4ull * l->cut.pages);
  l->page_of_slot = malloc(4ull * slots);
  if (!l->slot_of_page || !l->page_of_slot) return VK_ERROR_OUT_OF_HOST_MEMORY;
  memset(l->slot_of_page, 0xFF, 4ull * l->cut.pages);
  memset(l->page_of_slot, 0xFF, 4ull * slots);
  l->page_bytes = LC_PAGE_LEAVES * (32ull + 4ull * o->sh_words);
  VkResult res = ssvk_buffer_upload(&r->vk, r->queue, r->upload_pool, l->cut.page_table.buffer, 0, l->slot_of_page,
                                    4ull * l->cut.pages);
  for (uint32_t i = 0; i < r->slots && res == VK_SUCCESS; i++)
    res = ssvk_buffer_create(&r->vk, LOD_PAGES_PER_FRAME * l->page_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true,
                             false, "LOD page staging", &l->staging[i]);
  return res;
}


/* A pool slot for a new page: a free one, else the one whose page was drawn longest ago (its
 * stamp; a page copied in for the frame being recorded is stamped with it); UINT32_MAX when every
 * resident page was drawn by the last frame cut or copied for this one (nothing to evict). */
static uint32_t pick_slot(const object_lod *l, uint32_t frame) {
  const volatile uint32_t *stamps = l->cut.stamps.mapped; /* the GPU writes them */
  uint32_t best = UINT32_MAX, oldest = UINT32_MAX;
  for (uint32_t s = 0; s < l->pool_slots; s++) {
    uint32_t page = l->page_of_slot[s];
    if (page == LC_PAGE_NONE) return s;
    uint32_t stamp = stamps[page];
    if (stamp + 1u < frame && stamp < oldest) oldest = stamp, best = s;
  }
  return best;
}


/* Records the copy of object indices [at, at + n) from staging offset `from` (positions, shapes
 * and SH, each packed after the other for n splats), split where a chunk ends. */
static void copy_to_object(splat_renderer *r, VkCommandBuffer cmd, const object_gpu *o, VkBuffer staging,
                           VkDeviceSize from, uint32_t at, uint32_t n) {
  VkDeviceSize pos = from, shape = from + 16ull * n, sh = from + 32ull * n;
  for (uint32_t done = 0; done < n;) {
    uint32_t x = at + done, c = 0;
    while (c + 1 < o->chunks && o->chunk[c + 1].first <= x) c++;
    const object_chunk *ch = &o->chunk[c];
    uint32_t m = ch->first + ch->count - x < n - done ? ch->first + ch->count - x : n - done, local = x - ch->first;
    VkBufferCopy c0 = {pos + 16ull * done, 16ull * local, 16ull * m}, c1 = {shape + 16ull * done, 16ull * local, 16ull * m},
                 c2 = {sh + 4ull * o->sh_words * done, 4ull * o->sh_words * local, 4ull * o->sh_words * m};
    r->vk.fn.vkCmdCopyBuffer(cmd, staging, ch->pos.buffer, 1, &c0);
    r->vk.fn.vkCmdCopyBuffer(cmd, staging, ch->cov.buffer, 1, &c1);
    r->vk.fn.vkCmdCopyBuffer(cmd, staging, ch->sh.buffer, 1, &c2);
    done += m;
  }
}


/* A streamed object's pages for this frame: the pages its cut asked for in this frame slot's last
 * frame (complete: the slot is reused only then), in the order asked, up to LOD_PAGES_PER_FRAME,
 * each into a free slot or the least recently drawn page's, packed from the host's leaves into
 * the slot's staging and copied in this command buffer, after the frame's first barrier (so every
 * frame before it has read the pages it replaces) and before the cut, whose reset barrier makes
 * the copies and the page table's update visible. Frames never wait: what is missing is drawn at
 * its parent's level. */
static void stream_pages(splat_renderer *r, VkCommandBuffer cmd, object_gpu *o, uint32_t frame_slot) {
  object_lod *l = o->lod;
  uint32_t *req = (uint32_t *)l->cut.requests.mapped + (size_t)LC_REQUEST_WORDS * frame_slot;
  uint32_t asked = req[0] < LC_REQUEST_WORDS - 1 ? req[0] : LC_REQUEST_WORDS - 1, loaded = 0;
  l->stats.requested = req[0];
  char *stage = l->staging[frame_slot].mapped;
  for (uint32_t i = 0; i < asked && loaded < LOD_PAGES_PER_FRAME; i++) {
    uint32_t page = req[1 + i];
    if (page >= l->cut.pages || l->slot_of_page[page] != LC_PAGE_NONE) continue; /* a repeat */
    uint32_t s = pick_slot(l, l->frame + 1u);
    if (s == UINT32_MAX) break;
    ((volatile uint32_t *)l->cut.stamps.mapped)[page] = l->frame + 1u; /* not evicted again this frame */
    if (l->page_of_slot[s] != LC_PAGE_NONE) {
      l->slot_of_page[l->page_of_slot[s]] = LC_PAGE_NONE;
      l->stats.evicted++;
    } else {
      l->stats.resident++;
    }
    l->page_of_slot[s] = page;
    l->slot_of_page[page] = s;
    uint32_t first = page * LC_PAGE_LEAVES, n = l->leaf_count - first < LC_PAGE_LEAVES ? l->leaf_count - first : LC_PAGE_LEAVES;
    char *m = stage + loaded * l->page_bytes;
    render_pack_splats(l->leaves, o, first, n, (float *)m, (uint32_t *)(m + 16ull * n), (uint32_t *)(m + 32ull * n));
    copy_to_object(r, cmd, o, l->staging[frame_slot].buffer, loaded * l->page_bytes, s * LC_PAGE_LEAVES, n);
    loaded++;
  }
  req[0] = 0;
  l->stats.loaded += loaded;
  if (!loaded) return;
  for (VkDeviceSize at = 0, bytes = 4ull * l->cut.pages; at < bytes; at += 65536) /* vkCmdUpdateBuffer's limit */
    r->vk.fn.vkCmdUpdateBuffer(cmd, l->cut.page_table.buffer, at, bytes - at < 65536 ? bytes - at : 65536,
                               (const char *)l->slot_of_page + at);
}


/* SPLAT_LOD_RESIDENT_FIT: the leaves that fit the memory limit beside everything else the object
 * needs (the leaf count when all do), whole pages; 0 (logged) when not one page does. */
static uint32_t fitting_leaves(splat_renderer *r, const splat_scene *leaves, const splat_lod *lod, uint32_t max_cut) {
  uint32_t format, words, interior = lod->node_count - lod->leaf_count;
  render_sh_layout(r->sh_precision, leaves->sh_coeffs, &format, &words);
  /* a splat's arrays and its frame slot (records, depth, the sort's keys and values: check_memory's) */
  VkDeviceSize per = render_object_bytes(format, words, 1, 0) + 4u + (r->stereo ? 64u : 32u) + 20u;
  uint32_t most = lod_cut_most_entries(lod->leaf_count, lod->node_count);
  VkDeviceSize cut = 4ull * (max_cut && max_cut < most ? max_cut : most);
  VkDeviceSize tree = 16ull * interior + 4ull * lod->node_count + 12ull * interior + cut +
                      8ull * (lod->leaf_count / LC_PAGE_LEAVES + 1);
  /* four tenths spare: the compute raster's pair buffers, made at the first frame, grow with it */
  VkDeviceSize room = render_memory_free(r) / 10 * 6, fixed = per * interior + tree;
  VkDeviceSize fit = room > fixed ? (room - fixed) / per : 0;
  if (fit >= lod->leaf_count) return lod->leaf_count;
  if (fit < LC_PAGE_LEAVES) {
    rlog(r, "add_lod_object: %u leaves and %u interior nodes do not fit %.2f MiB even streamed (the interior nodes and "
            "the tree take %.2f MiB, a page of %u leaves %.2f MiB more)", lod->leaf_count, interior,
         render_mib(render_memory_free(r)), render_mib(fixed), LC_PAGE_LEAVES, render_mib(per * LC_PAGE_LEAVES));
    return 0;
  }
  return (uint32_t)(fit / LC_PAGE_LEAVES * LC_PAGE_LEAVES);
}


VkResult splat_renderer_add_lod_object(splat_renderer *r, const splat_lod_object_desc *desc, uint32_t *id) {
  if (!r || !desc || !id || desc->next || !desc->leaves || !desc->lod) {
    if (r)
      rlog(r, "add_lod_object: %s", !desc || !id ? "NULL desc or id"
                                    : desc->next ? "desc->next must be NULL"
                                                 : "desc->leaves and desc->lod are needed");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  const splat_scene *leaves = desc->leaves;
  const splat_lod *lod = desc->lod;
  if (!lod->parent || !lod->first_child || !lod->child_count) {
    rlog(r, "add_lod_object: the tree's %s array is NULL", !lod->parent ? "parent" : !lod->first_child ? "first_child"
                                                                                                       : "child_count");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (lod->leaf_count != leaves->count || lod->node_count <= lod->leaf_count ||
      lod->interior.count != lod->node_count - lod->leaf_count || lod->interior.sh_degree != leaves->sh_degree) {
    rlog(r, "add_lod_object: the tree (%u leaves, %u interior nodes, SH degree %u) is not the scene's (%u splats, SH "
            "degree %u)", lod->leaf_count, lod->interior.count, lod->interior.sh_degree, leaves->count,
         leaves->sh_degree);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  char why[512]; /* a host's tree as a file's: the same checks (issue 37) */
  if (splat_lod_validate(lod, leaves, why, sizeof why) != 0) {
    rlog(r, "add_lod_object: %s", why);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!r->lod_pipe.pipeline) {
    VkResult res = lod_cut_pipeline_create(&r->vk, &r->lod_pipe);
    if (res != VK_SUCCESS) {
      rlog(r, "add_lod_object: the LOD cut's pipeline could not be made (%s)", ssvk_result_name(res));
      return res;
    }
  }
  /* streaming: a pool of whole pages, fewer than the leaves need (else every leaf is resident) */
  uint32_t interior = lod->node_count - lod->leaf_count, pool_slots = 0, resident = desc->resident_leaves;
  if (resident == SPLAT_LOD_RESIDENT_FIT) {
    resident = fitting_leaves(r, leaves, lod, desc->max_cut);
    if (!resident) return VK_ERROR_OUT_OF_DEVICE_MEMORY; /* logged */
  }
  if (resident && resident < lod->leaf_count) {
    uint32_t want = (resident + LC_PAGE_LEAVES - 1) / LC_PAGE_LEAVES;
    if ((uint64_t)want * LC_PAGE_LEAVES < lod->leaf_count) pool_slots = want;
  }
  if (pool_slots && r->sh_precision == 8) {
    rlog(r, "add_lod_object: streaming (resident_leaves %u of %u) needs SH at 16 or 32 bits (the renderer stores 8)",
         resident, lod->leaf_count);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  uint32_t drawable = pool_slots ? pool_slots * LC_PAGE_LEAVES + interior : lod->node_count;
  uint32_t most = lod_cut_most_entries(lod->leaf_count, lod->node_count);
  uint32_t max_cut = desc->max_cut && desc->max_cut < most ? desc->max_cut : most;
  if (max_cut > drawable) max_cut = drawable;
  splat_object_desc od = {.count = drawable, .sh_degree = leaves->sh_degree,
                          .flags = desc->flags ? desc->flags : leaves->flags};
  uint32_t k;
  VkResult res = splat_renderer_begin_object(r, &od, &k);
  if (res != VK_SUCCESS) return res; /* logged */
  object_gpu *o = &r->objects[k];
  if (!pool_slots) {
    res = splat_renderer_append_object(r, k, leaves);
    if (res == VK_SUCCESS) res = splat_renderer_append_object(r, k, &lod->interior);
  } else {
    /* the interior nodes after the pool, which pages fill as the cut asks (the pool's splats are
     * never drawn before) */
    o->resident = pool_slots * LC_PAGE_LEAVES;
    res = render_upload(r, o, &lod->interior, false);
    o->resident = o->count;
    if (res != VK_SUCCESS) rlog(r, "add_lod_object: the interior nodes' upload failed (%s)", ssvk_result_name(res));
  }
  object_lod *l = res == VK_SUCCESS ? render_host_alloc(r->vk.allocator, sizeof *l) : NULL;
  if (res == VK_SUCCESS && !l) res = VK_ERROR_OUT_OF_HOST_MEMORY;
  if (res == VK_SUCCESS) {
    l->leaf_count = lod->leaf_count;
    l->max_cut = max_cut;
    res = upload_tree(r, leaves, lod, max_cut, l);
    if (res == VK_SUCCESS && pool_slots) {
      l->leaves = leaves;
      res = stream_setup(r, o, pool_slots, l);
      if (res != VK_SUCCESS) rlog(r, "add_lod_object: the page pool could not be made (%s)", ssvk_result_name(res));
    }
  }
  if (res == VK_SUCCESS) {
    /* the projection over the cut: the object's pipeline specialised for LOD */
    const uint32_t data[3] = {o->sh_words, o->sh_format, 1};
    VkSpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    VkSpecializationInfo spec = {3, entries, sizeof data, data};
    ssvk_compute_desc cd = {.code = render_spv_project_comp, .code_size = render_spv_project_comp_size,
                            .layout = r->compute_layout, .spec = &spec, .name = "splat project (LOD)"};
    VkPipeline p;
    res = ssvk_compute_pipeline(&r->vk, &cd, &p);
    if (res == VK_SUCCESS) {
      r->vk.fn.vkDestroyPipeline(r->vk.device, o->project, r->vk.allocator);
      o->project = p;
    }
  }
  if (res != VK_SUCCESS) {
    render_lod_destroy(r, l);
    splat_renderer_remove_object(r, k);
    return res;
  }
  o->lod = l;
  *id = k;
  return VK_SUCCESS;
}


/* The uniform scale of a model (the length of its first column); 1 without one. */
static float model_scale(const float *m) {
  return m ? sqrtf(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) : 1.0f;
}


bool render_lod_record_cuts(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  bool any = false;
  uint32_t n = f->instance_count ? f->instance_count : SPLAT_MAX_OBJECTS;
  /* a budget starts coarse (16 px: a few frames to settle, no cut past max_cut on the way) */
  float tau = f->lod_threshold > 0 && isfinite(f->lod_threshold) ? f->lod_threshold : f->lod_budget ? 16.0f : 1.0f;
  float blend = f->lod_blend < 0.0f ? 0.0f : f->lod_blend > 0.0f && isfinite(f->lod_blend) ? f->lod_blend
                                                                                          : SPLAT_LOD_BLEND_DEFAULT;
  for (uint32_t k = 0; k < n; k++) {
    object_gpu *o = &r->objects[f->instance_count ? f->instances[k].object : k];
    if (!o->count || !o->lod) continue;
    const float *model = f->instance_count ? f->instances[k].model : NULL;
    struct sp_lod_cut_push pc = lod_cut_push_for(f->camera, SPLAT_NEAR_Z, tau);
    float campos[3];
    render_object_view(f->camera, model, pc.view.m, campos);
    pc.params.v[3] = model_scale(model);
    uint32_t budget = f->lod_budget < o->lod->max_cut ? f->lod_budget : o->lod->max_cut;
    if (o->lod->pool_slots) stream_pages(r, cmd, o, f->slot);
    pc.frame = ++o->lod->frame;
    lod_cut_cmd_record(&r->vk, &r->lod_pipe, &o->lod->cut, cmd, pc, budget, blend, f->slot);
    any = true;
  }
  return any;
}


void render_lod_fill_keys(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  const sort_layout *sl = &r->scene.layout;
  uint32_t n = f->instance_count ? f->instance_count : SPLAT_MAX_OBJECTS, base = 0;
  for (uint32_t k = 0; k < n; k++) {
    const object_gpu *o = &r->objects[f->instance_count ? f->instances[k].object : k];
    if (!o->count) continue;
    if (o->lod) /* the slots past the cut's count: culled (the projection runs over the cut only) */
      r->vk.fn.vkCmdFillBuffer(cmd, r->scene.scratch.buffer, sl->tmp_keys + 4ull * base, 4ull * o->lod->max_cut,
                               0xFFFFFFFFu /* DS_CULLED, src/sort/shaders/depth_shared.h */);
    base += render_object_slots(o);
  }
}


void render_lod_readback(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  uint32_t n = f->instance_count ? f->instance_count : SPLAT_MAX_OBJECTS;
  for (uint32_t k = 0; k < n; k++) {
    const object_gpu *o = &r->objects[f->instance_count ? f->instances[k].object : k];
    if (!o->count || !o->lod) continue;
    /* the threshold word was written by the cut's reset (transfer) */
    ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                        VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferCopy c[2] = {{4 * LC_STATE_CUT_COUNT, 16ull * f->slot + 8, 4}, {4 * LC_STATE_TAU, 16ull * f->slot + 12, 4}};
    r->vk.fn.vkCmdCopyBuffer(cmd, o->lod->cut.state.buffer, r->readback.buffer, 2, c);
    return;
  }
}


VkResult splat_renderer_lod_stats(const splat_renderer *r, uint32_t id, splat_lod_stats *out) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!out || id >= SPLAT_MAX_OBJECTS || !r->objects[id].lod) {
    if (!out) rlog(r, "lod_stats: out is NULL");
    else if (id >= SPLAT_MAX_OBJECTS) rlog(r, "lod_stats: object %u is out of range (at most %u objects)", id, SPLAT_MAX_OBJECTS);
    else rlog(r, "lod_stats: object %u has no level-of-detail tree", id);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  const object_lod *l = r->objects[id].lod;
  *out = l->stats;
  out->pages = l->cut.pages;
  out->pool_pages = l->pool_slots ? l->pool_slots : l->cut.pages;
  if (!l->pool_slots) out->resident = l->cut.pages;
  return VK_SUCCESS;
}
