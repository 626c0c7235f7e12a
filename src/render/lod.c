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


void render_lod_destroy(splat_renderer *r, object_lod *l) {
  if (!l) return;
  lod_cut_gpu_destroy(&r->vk, &l->cut);
  ssvk_buffer_destroy(&r->vk, &l->parent);
  render_host_free(r->vk.allocator, l);
}


/* The tree's buffers: the cut's (lod_cut_gpu) and the parents. */
static VkResult upload_tree(splat_renderer *r, const splat_scene *leaves, const splat_lod *lod, uint32_t max_cut,
                            object_lod *l) {
  char err[256];
  lod_cut_tree t;
  if (lod_cut_tree_pack(leaves, lod, &t, err, sizeof err) != 0) {
    rlog(r, "add_lod_object: %s", err);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  VkResult res = lod_cut_gpu_create(&r->vk, &t, max_cut, r->queue, r->upload_pool, &l->cut);
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
  if (lod->leaf_count != leaves->count || lod->node_count <= lod->leaf_count ||
      lod->interior.count != lod->node_count - lod->leaf_count || lod->interior.sh_degree != leaves->sh_degree ||
      !lod->parent || !lod->first_child || !lod->child_count) {
    rlog(r, "add_lod_object: the tree (%u leaves, %u interior nodes, SH degree %u) is not the scene's (%u splats, SH "
            "degree %u)", lod->leaf_count, lod->interior.count, lod->interior.sh_degree, leaves->count,
         leaves->sh_degree);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!r->lod_pipe.pipeline) {
    VkResult res = lod_cut_pipeline_create(&r->vk, &r->lod_pipe);
    if (res != VK_SUCCESS) {
      rlog(r, "add_lod_object: the LOD cut's pipeline could not be made (%s)", ssvk_result_name(res));
      return res;
    }
  }
  uint32_t max_cut = desc->max_cut && desc->max_cut < lod->leaf_count ? desc->max_cut : lod->leaf_count;
  splat_object_desc od = {.count = lod->node_count, .sh_degree = leaves->sh_degree,
                          .flags = desc->flags ? desc->flags : leaves->flags};
  uint32_t k;
  VkResult res = splat_renderer_begin_object(r, &od, &k);
  if (res != VK_SUCCESS) return res; /* logged */
  res = splat_renderer_append_object(r, k, leaves);
  if (res == VK_SUCCESS) res = splat_renderer_append_object(r, k, &lod->interior);
  object_gpu *o = &r->objects[k];
  object_lod *l = res == VK_SUCCESS ? render_host_alloc(r->vk.allocator, sizeof *l) : NULL;
  if (res == VK_SUCCESS && !l) res = VK_ERROR_OUT_OF_HOST_MEMORY;
  if (res == VK_SUCCESS) {
    l->leaf_count = lod->leaf_count;
    l->max_cut = max_cut;
    res = upload_tree(r, leaves, lod, max_cut, l);
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
  float blend = f->lod_blend > 0 && isfinite(f->lod_blend) ? f->lod_blend : 0.0f;
  for (uint32_t k = 0; k < n; k++) {
    object_gpu *o = &r->objects[f->instance_count ? f->instances[k].object : k];
    if (!o->count || !o->lod) continue;
    const float *model = f->instance_count ? f->instances[k].model : NULL;
    struct sp_lod_cut_push pc = lod_cut_push_for(f->camera, SPLAT_NEAR_Z, tau);
    float campos[3];
    render_object_view(f->camera, model, pc.view.m, campos);
    pc.params.v[3] = model_scale(model);
    uint32_t budget = f->lod_budget < o->lod->max_cut ? f->lod_budget : o->lod->max_cut;
    lod_cut_cmd_record(&r->vk, &r->lod_pipe, &o->lod->cut, cmd, pc, budget, blend);
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
