/* frame.c: one frame recorded: the target, projection of every object, the depth sort
 * (depth_sort.c), the graphics raster (own target or the host's pass), and the frame's timings. */
#include "render_internal.h"
#include "ssvk_graphics.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


void render_target_destroy(splat_renderer *r) {
  VkDevice d = r->vk.device;
  if (r->target_view) r->vk.fn.vkDestroyImageView(d, r->target_view, r->vk.allocator);
  if (r->target) r->vk.fn.vkDestroyImage(d, r->target, r->vk.allocator);
  if (r->target_memory) r->vk.fn.vkFreeMemory(d, r->target_memory, r->vk.allocator);
  r->target_view = VK_NULL_HANDLE;
  r->target = VK_NULL_HANDLE;
  r->target_memory = VK_NULL_HANDLE;
  r->width = r->height = 0;
}


/* The index of the sorter (and stage) for an algorithm, or -1. */
int render_find_sorter(const splat_renderer *r, splatsort_algorithm a) {
  if (a == SPLATSORT_ALGORITHM_AUTO) return r->sorter_count ? 0 : -1;
  for (uint32_t i = 0; i < r->sorter_count; i++)
    if (splatsort_get_algorithm(r->sorters[i]) == a) return (int)i;
  return -1;
}


/* A frame's sorter: AUTO takes what splatsort_choose_algorithm picks for the scene's splat
 * count (the visible count's bound) and key width where the host gave that sorter, else the
 * first sorter. */
int render_frame_sorter(const splat_renderer *r, splatsort_algorithm a, uint32_t key_bits) {
  if (a != SPLATSORT_ALGORITHM_AUTO || !r->sorter_count) return render_find_sorter(r, a);
  int k = render_find_sorter(r, splatsort_choose_algorithm(r->sorters[0], render_objects_total(r), key_bits));
  return k >= 0 ? k : 0;
}


int splat_renderer_has_sort(const splat_renderer *r, splatsort_algorithm a) { return r && render_find_sorter(r, a) >= 0; }


static VkResult ensure_target(splat_renderer *r, uint32_t w, uint32_t h) {
  if (r->target && r->width == w && r->height == h) return VK_SUCCESS;
  render_target_destroy(r);
  VkDevice d = r->vk.device;
  VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                           .format = SPLAT_TARGET_FORMAT, .extent = {w, h, 1}, .mipLevels = 1, .arrayLayers = 1,
                           .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                           .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_DST_BIT, /* the compute raster copies in */
                           .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  VkResult res = r->vk.fn.vkCreateImage(d, &ici, r->vk.allocator, &r->target);
  if (res != VK_SUCCESS) {
    r->target = VK_NULL_HANDLE;
    rlog(r, "vkCreateImage for the %ux%u target failed (%s)", w, h, ssvk_result_name(res));
    return res;
  }
  VkMemoryRequirements mr;
  r->vk.fn.vkGetImageMemoryRequirements(d, r->target, &mr);
  VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
      .memoryTypeIndex = ssvk_memory_type(&r->vk, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  const char *call = "vkAllocateMemory";
  res = r->vk.fn.vkAllocateMemory(d, &mai, r->vk.allocator, &r->target_memory);
  if (res != VK_SUCCESS) r->target_memory = VK_NULL_HANDLE;
  if (res == VK_SUCCESS) call = "vkBindImageMemory", res = r->vk.fn.vkBindImageMemory(d, r->target, r->target_memory, 0);
  VkImageViewCreateInfo vci = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = r->target,
                               .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = SPLAT_TARGET_FORMAT,
                               .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
  if (res == VK_SUCCESS)
    call = "vkCreateImageView", res = r->vk.fn.vkCreateImageView(d, &vci, r->vk.allocator, &r->target_view);
  if (res != VK_SUCCESS) {
    r->target_view = VK_NULL_HANDLE;
    rlog(r, "%s for the %ux%u target failed (%s)", call, w, h, ssvk_result_name(res));
    render_target_destroy(r);
    return res;
  }
  ssvk_name(&r->vk, VK_OBJECT_TYPE_IMAGE, (uint64_t)r->target, "splat target");
  r->width = w;
  r->height = h;
  return VK_SUCCESS;
}


/* Each stage's timestamp is written just before the barrier that ends the stage, never after
 * it: lavapipe (Mesa 22.3) bins a timestamp into the pending draw scene whenever a framebuffer
 * is still bound (every frame after a graphics raster) and only stamps it at the next flush,
 * which a barrier does but a dispatch does not (llvmpipe runs dispatches at once). A timestamp
 * followed by compute work was stamped after that work: the graphics path's projection read
 * 0.07 ms instead of 4.3 ms. Real GPUs see the same execution order either way. */
static void timestamp(splat_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t which) {
  r->vk.fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, slot * TS_COUNT + which);
}


/* Checks a frame and picks its sorter's index; -1 (with a log message) when it cannot be
 * rendered. */
static int check_frame(splat_renderer *r, const splat_frame *f, uint32_t key_bits) {
  const splat_camera *cam = f->camera;
  if (f->raster != SPLAT_RASTER_GRAPHICS && f->raster != SPLAT_RASTER_COMPUTE) {
    rlog(r, "raster must be SPLAT_RASTER_GRAPHICS or SPLAT_RASTER_COMPUTE (got %d)", (int)f->raster);
    return -1;
  }
  if (key_bits != 16 && key_bits != 24 && key_bits != 32) {
    rlog(r, "key_bits must be 16, 24 or 32 (got %u)", key_bits);
    return -1;
  }
  if (f->antialias != SPLAT_ANTIALIAS_AUTO && f->antialias != SPLAT_ANTIALIAS_OFF && f->antialias != SPLAT_ANTIALIAS_ON) {
    rlog(r, "antialias must be SPLAT_ANTIALIAS_AUTO, _OFF or _ON (got %d)", (int)f->antialias);
    return -1;
  }
  if (f->order != SPLAT_ORDER_GLOBAL && f->order != SPLAT_ORDER_PER_PIXEL) {
    rlog(r, "order must be SPLAT_ORDER_GLOBAL or SPLAT_ORDER_PER_PIXEL (got %d)", (int)f->order);
    return -1;
  }
  if (f->order_window > SP_CR_WINDOW_MAX) {
    rlog(r, "order_window must be 0 (the default, %u) to %u slots (got %u)", SP_CR_WINDOW_DEFAULT, SP_CR_WINDOW_MAX,
         f->order_window);
    return -1;
  }
  if (cam->width == 0 || cam->height == 0 || cam->width > 16384 || cam->height > 16384) {
    rlog(r, "image size %ux%u is outside 1..16384", cam->width, cam->height);
    return -1;
  }
  if (!render_objects_total(r)) {
    rlog(r, "no scene loaded");
    return -1;
  }
  if (f->eyes[0] || f->eyes[1]) {
    const splat_camera *const *e = f->eyes;
    if (!r->stereo || !e[0] || !e[1] || e[0]->width != cam->width || e[1]->width != cam->width ||
        e[0]->height != cam->height || e[1]->height != cam->height) {
      rlog(r, "stereo frame: %s", !r->stereo ? "the renderer was made without SPLAT_RENDERER_CREATE_STEREO_BIT"
                                             : "both eyes are needed, of the camera's size");
      return -1;
    }
  }
  for (uint32_t i = 0; i < f->instance_count; i++) {
    uint32_t o = f->instances ? f->instances[i].object : SPLAT_MAX_OBJECTS;
    bool again = false;
    for (uint32_t j = 0; j < i && !again; j++) again = f->instances[j].object == o;
    if (o >= SPLAT_MAX_OBJECTS || !r->objects[o].count || again) {
      rlog(r, "instances[%u]: object %u is %s", i, o, again ? "drawn twice" : "not loaded");
      return -1;
    }
  }
  int k = render_frame_sorter(r, f->sort, key_bits);
  if (k < 0) rlog(r, "no %s sorter was given to the renderer", splatsort_algorithm_name(f->sort));
  return k;
}


static float uint_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}


/* The resident splats of chunk c (a streamed object's chunks fill in order). */
static uint32_t ch_resident(const object_gpu *o, uint32_t c) {
  const object_chunk *ch = &o->chunk[c];
  return o->resident <= ch->first ? 0 : o->resident - ch->first < ch->count ? o->resident - ch->first : ch->count;
}


/* One projection of every drawn object from `cam` into the frame's slots: `mode` says whether
 * it writes the keys (the visible set, keys, depths, block counts), the records (at record
 * offset `rec`), or both. Returns the number of slots used. */
static uint32_t project_objects(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f, const splat_camera *cam,
                                uint32_t mode, uint32_t rec) {
  if (r->scene.rays.buffer == VK_NULL_HANDLE) mode &= ~SP_PROJECT_RAYS;
  scene_gpu *s = &r->scene;
  uint32_t base = 0, n = f->instance_count ? f->instance_count : SPLAT_MAX_OBJECTS;
  for (uint32_t k = 0; k < n; k++) {
    const object_gpu *o = &r->objects[f->instance_count ? f->instances[k].object : k];
    if (!o->count) continue;
    bool aa = f->antialias == SPLAT_ANTIALIAS_ON ||
              (f->antialias == SPLAT_ANTIALIAS_AUTO && (o->scene_flags & SPLAT_SCENE_ANTIALIASED));
    struct sp_project_push pc;
    float campos[3];
    render_object_view(cam, f->instance_count ? f->instances[k].model : NULL, pc.view.m, campos);
    pc.campos = (sp_vec4){{campos[0], campos[1], campos[2], uint_bits(rec)}};
    pc.intrinsics = (sp_vec4){{cam->fx, cam->fy, cam->cx, cam->cy}};
    pc.limits = (sp_vec4){{SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovx(cam),
                           SPLAT_FRUSTUM_MARGIN * splat_camera_tan_fovy(cam),
                           uint_bits(mode | (aa ? SP_PROJECT_ANTIALIAS : 0u) |
                                     (f->key_mode == SPLATSORT_DEPTH_KEY_RADIAL ? SP_PROJECT_RADIAL : 0u)),
                           0}};
    pc.sh_degree = render_sh_degree(f->sh_degree, o->sh_degree);
    pc.size = cam->width | cam->height << 16;
    r->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->project);
    const object_lod *l = o->lod;
    for (uint32_t c = 0; c < o->chunks && ch_resident(o, c); c++) {
      const object_chunk *ch = &o->chunk[c];
      /* a LOD object: each chunk's dispatch runs over the object's slots (the cut's entries),
       * projecting the nodes it holds; the positions' range is exactly its nodes */
      pc.count = l ? l->max_cut : ch_resident(o, c);
      pc.base = l ? base : base + ch->first;
      if (l) pc.limits.v[3] = uint_bits(ch->first);
      /* a binding the shader has must be valid: stand-ins of the same access (the LOD bindings
       * are read: the object's positions, which nothing writes) */
      VkBuffer stand_in = s->projected.buffer, read_stand_in = ch->pos.buffer;
      VkDescriptorBufferInfo bi[SP_BINDINGS] = {
          [SP_BIND_POS] = {ch->pos.buffer, 0, 16ull * ch->count},
          [SP_BIND_COV] = {ch->cov.buffer, 0, VK_WHOLE_SIZE},
          [SP_BIND_SH] = {ch->sh.buffer, 0, VK_WHOLE_SIZE},
          [SP_BIND_PROJECTED] = {s->projected.buffer, 0, VK_WHOLE_SIZE},
          /* written only with SP_PROJECT_RAYS */
          [SP_BIND_RAYS] = {(mode & SP_PROJECT_RAYS) ? s->rays.buffer : stand_in, 0, VK_WHOLE_SIZE},
          [SP_BIND_LOD_CUT] = {l ? l->cut.cut.buffer : read_stand_in, 0, VK_WHOLE_SIZE},
          [SP_BIND_LOD_STATE] = {l ? l->cut.state.buffer : read_stand_in, 0, VK_WHOLE_SIZE},
          [SP_BIND_LOD_PARENT] = {l ? l->parent.buffer : read_stand_in, 0, VK_WHOLE_SIZE},
          [SP_BIND_LOD_PAGES] = {l ? l->cut.page_table.buffer : read_stand_in, 0, VK_WHOLE_SIZE},
          [SP_BIND_LOD_SPHERES] = {l ? l->cut.spheres.buffer : read_stand_in, 0, VK_WHOLE_SIZE},
      };
      render_sort_bindings(r, bi, (splatsort_buffer){0});
      ssvk_push_buffers(&r->vk, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->compute_layout, bi, SP_BINDINGS);
      r->vk.fn.vkCmdPushConstants(cmd, r->compute_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
      if (l) /* over the cut's entries only (the cut wrote the size) */
        r->vk.fn.vkCmdDispatchIndirect(cmd, l->cut.state.buffer, 4ull * LC_STATE_PROJECT);
      else
        render_dispatch_1d(r, cmd, pc.count);
    }
    /* a streamed object's slots as those of a scene of its resident splats; a LOD object's, its cut's */
    base += render_object_slots(o);
  }
  return base;
}


/* Projection of every splat of every drawn object into the frame's slots, fused with the depth
 * sort's key pass (the visible splats' keys, depths and block counts). Stereo: the keys from the
 * frame's camera, the records from each eye. Returns the number of slots used. */
static uint32_t record_projection(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f, bool rays) {
  scene_gpu *s = &r->scene;
  render_lod_fill_keys(r, cmd, f);
  render_sort_reset(r, cmd);
  uint32_t used, records = SP_PROJECT_RECORDS | (rays ? SP_PROJECT_RAYS : 0u);
  if (f->eyes[0]) {
    used = project_objects(r, cmd, f, f->camera, SP_PROJECT_KEYS, 0);
    for (uint32_t e = 0; e < 2; e++) project_objects(r, cmd, f, f->eyes[e], records, e * s->count);
  } else {
    used = project_objects(r, cmd, f, f->camera, SP_PROJECT_KEYS | records, 0);
  }
  timestamp(r, cmd, f->slot, TS_PROJECTED); /* before the barrier: see timestamp() */
  ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  return used;
}


/* The depth sort of the projected frame; the visible count lands in the draw's instanceCount. */
static VkResult record_sort(splat_renderer *r, VkCommandBuffer cmd, int k, const splat_frame *f, uint32_t key_bits,
                            uint32_t count, splatsort_result *sorted) {
  VkResult res = render_record_sort(r, cmd, k, key_bits, count, sorted);
  if (res != VK_SUCCESS) return res;
  timestamp(r, cmd, f->slot, TS_SORTED); /* before the barrier: see timestamp() */
  ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                          VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  return VK_SUCCESS;
}


/* The sorted splats, back to front, with `pipeline`, inside a pass that is already begun.
 * multiview: both eyes' records (the pipeline's views pick theirs). */
static void draw_splats(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f, VkPipeline pipeline,
                        bool multiview) {
  bool stereo = f->eyes[0] != NULL;
  const splat_camera *cam = stereo ? f->eyes[f->eye & 1u] : f->camera;
  scene_gpu *s = &r->scene;
  VkViewport vp = {0, 0, (float)cam->width, (float)cam->height, 0, 1};
  VkRect2D sc = {{0, 0}, {cam->width, cam->height}};
  r->vk.fn.vkCmdSetViewport(cmd, 0, 1, &vp);
  r->vk.fn.vkCmdSetScissor(cmd, 0, 1, &sc);
  r->vk.fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  VkDescriptorBufferInfo rb[SP_BINDINGS] = {
      [SP_BIND_DEPTHS] = {s->depths.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_PROJECTED] = {s->projected.buffer, 0, VK_WHOLE_SIZE},
      [SP_BIND_INDICES] = {r->last_sorted.values.buffer, r->last_sorted.values.offset, VK_WHOLE_SIZE},
  };
  ssvk_push_buffers(&r->vk, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->raster_layout, rb, SP_BINDINGS);
  float dp[2];
  render_host_depth_proj(r, f, dp);
  struct sp_raster_push rp = {
      .viewport = {{(float)cam->width, (float)cam->height, 1.0f / cam->width, 1.0f / cam->height}},
      .depth_proj = {{dp[0], dp[1], uint_bits(stereo && !multiview ? (f->eye & 1u) * s->count : 0),
                      uint_bits(multiview ? s->count : 0)}}};
  r->vk.fn.vkCmdPushConstants(cmd, r->raster_layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof rp, &rp);
  r->vk.fn.vkCmdDrawIndirect(cmd, s->draw.buffer, 0, 1, 16);
}


/* The arguments every frame call takes: a command buffer (need_cmd), the frame, its camera and
 * slot. VK_SUCCESS, or VK_ERROR_VALIDATION_FAILED_EXT with one log line naming the argument
 * (none without a renderer to log through). */
static VkResult frame_args(const splat_renderer *r, const char *call, VkCommandBuffer cmd, bool need_cmd,
                           const splat_frame *f) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (need_cmd && !cmd)
    rlog(r, "%s: cmd is VK_NULL_HANDLE", call);
  else if (!f)
    rlog(r, "%s: the frame is NULL", call);
  else if (!f->camera)
    rlog(r, "%s: frame->camera is NULL", call);
  else if (f->slot >= r->slots)
    rlog(r, "%s: frame->slot %u is out of range (the renderer has %u frame slot%s)", call, f->slot, r->slots,
         r->slots == 1 ? "" : "s");
  else
    return VK_SUCCESS;
  return VK_ERROR_VALIDATION_FAILED_EXT;
}

/* What the last frame recorded in `slot` left for the compute raster (read once it finished). */
static craster_slot_report slot_report(const splat_renderer *r, uint32_t slot) {
  craster_slot_report rep = {.compute = r->slot[slot].recorded && r->slot[slot].raster == SPLAT_RASTER_COMPUTE,
                             .capacity = r->slot[slot].pair_capacity};
  memcpy(&rep.needed, (const char *)r->readback.mapped + 16 * slot + 4, 4);
  return rep;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t camera_hash(const splat_camera *cam) {
  return cam ? hash_bytes(0xcbf29ce484222325ull, cam, sizeof *cam) : 0;
}

/* The pairs frame `f` from `cam` needs, estimated from the objects' samples (pair_estimate.h),
 * with a margin: 1/16 and 1,024 pairs for the CPU's rounding where every splat was projected,
 * 1/4 where a subsample stands for them (r->pair_want). The last estimate is reused while its
 * inputs are the same (a still view costs nothing). */
static void wanted_pairs(splat_renderer *r, const splat_frame *f, const splat_camera *cam) {
  pair_want *w = &r->pair_want;
  pair_instance in[SPLAT_MAX_OBJECTS];
  uint32_t n = 0, count = f->instance_count ? f->instance_count : SPLAT_MAX_OBJECTS;
  uint64_t key = hash_bytes(0xcbf29ce484222325ull, cam, sizeof *cam);
  key = hash_bytes(key, &w->generation, sizeof w->generation);
  for (uint32_t k = 0; k < count && n < SPLAT_MAX_OBJECTS; k++) {
    uint32_t id = f->instance_count ? f->instances[k].object : k;
    const object_gpu *o = &r->objects[id];
    if (!o->count) continue;
    bool aa = f->antialias == SPLAT_ANTIALIAS_ON ||
              (f->antialias == SPLAT_ANTIALIAS_AUTO && (o->scene_flags & SPLAT_SCENE_ANTIALIASED));
    /* a level-of-detail object's cut is not sampled: it counts as unknown */
    in[n] = (pair_instance){.sample = o->lod ? NULL : &o->pairs, .model = f->instance_count ? f->instances[k].model : NULL,
                            .resident = render_object_slots(o), .antialiased = aa};
    key = hash_bytes(key, &id, sizeof id);
    key = hash_bytes(key, &in[n].resident, sizeof in[n].resident);
    key = hash_bytes(key, &aa, sizeof aa);
    if (in[n].model) key = hash_bytes(key, in[n].model, 16 * sizeof(float));
    n++;
  }
  if (key == w->key && w->key) return;
  /* the whole budget for a scene's or a size's first frame; a moving view, a cheaper look */
  bool moved = w->key && w->key_generation == w->generation && w->width == cam->width && w->height == cam->height;
  pair_estimate e = pair_estimate_frame(in, n, cam, moved ? PAIR_ESTIMATE_MOVING_BUDGET : PAIR_ESTIMATE_BUDGET);
  uint64_t margin = e.exact ? e.pairs / 16 + 1024 : e.pairs / 4 + 1024;
  w->key = key;
  w->key_generation = w->generation;
  w->width = cam->width;
  w->height = cam->height;
  w->pairs = e.pairs;
  w->want = e.pairs + margin;
  w->exact = e.exact;
}

/* The compute raster of the prepared frame f (sorter k) into the renderer's target (t NULL) or
 * the host's images; the slot's record says so. */
static VkResult record_compute(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f, int k,
                               const splat_host_target *t) {
  bool stereo = f->eyes[0] != NULL;
  const splat_camera *cam = stereo ? f->eyes[f->eye & 1u] : f->camera;
  if (!r->craster.fixed_capacity) wanted_pairs(r, f, cam);
  craster_frame cf = {.slot = f->slot, .camera = cam, .background = {f->background[0], f->background[1], f->background[2]},
                      .order = f->order, .order_window = f->order_window, .projected = r->scene.projected.buffer,
                      .draw = r->scene.draw.buffer, .depths = r->scene.depths.buffer, .rays = r->scene.rays.buffer,
                      .header = r->scene.scratch.buffer, .sorted = r->last_sorted.values, .positions = r->frame_count,
                      .rec_offset = stereo ? (f->eye & 1u) * r->scene.count : 0, .sorter = r->sorters[k],
                      .queries = r->queries, .first_query = f->slot * TS_COUNT + TS_PAIRS,
                      .readback = r->readback.buffer, .needed_offset = 16ull * f->slot + 4,
                      .want = r->craster.fixed_capacity ? 0 : r->pair_want.want, .estimate = r->pair_want.pairs,
                      .estimate_exact = r->pair_want.exact, .target = t ? VK_NULL_HANDLE : r->target, .host = t,
                      .reverse_z = r->reverse_z};
  _Static_assert(TS_TILESORTED == TS_PAIRS + 1 && TS_RASTERED == TS_PAIRS + 2,
                 "craster_record's three timestamps are consecutive");
  if (t) render_host_depth_proj(r, f, cf.depth_proj);
  uint32_t window = 0;
  VkResult res = craster_record(&r->craster, cmd, &cf, &window);
  if (res != VK_SUCCESS) {
    r->slot[f->slot].recorded = false; /* nothing after the sort was recorded: no timings */
    return res;
  }
  r->slot[f->slot].raster = SPLAT_RASTER_COMPUTE;
  r->slot[f->slot].pair_capacity = r->craster.capacity;
  r->slot[f->slot].window = window;
  return VK_SUCCESS;
}

/* Checks the frame and records everything before the draw; *k: the sorter used. rays: the
 * projection also writes the per-pixel order's ray coefficients. */
static VkResult prepare(splat_renderer *r, const char *call, VkCommandBuffer cmd, const splat_frame *f, int *k,
                        bool rays) {
  VkResult bad = frame_args(r, call, cmd, true, f);
  if (bad != VK_SUCCESS) return bad;
  uint32_t key_bits = f->key_bits ? f->key_bits : 32;
  *k = check_frame(r, f, key_bits);
  if (*k < 0) return f->sort != SPLATSORT_ALGORITHM_AUTO && render_objects_total(r) && render_find_sorter(r, f->sort) < 0
                         ? VK_ERROR_FEATURE_NOT_PRESENT
                         : VK_ERROR_VALIDATION_FAILED_EXT;
  if (rays) {
    VkResult res = render_ensure_rays(r);
    if (res != VK_SUCCESS) return res; /* logged */
  }
  craster_frame_begin(&r->craster, f->slot, slot_report(r, f->slot));
  ssvk_label_begin(&r->vk, cmd, "splat prepare");
  /* the start before the barrier below, so lavapipe stamps it there (timestamp()) */
  r->vk.fn.vkCmdResetQueryPool(cmd, r->queries, f->slot * TS_COUNT, TS_COUNT);
  timestamp(r, cmd, f->slot, TS_START);
  /* Earlier frames on the queue must be done with what this one overwrites: their reads
   * (draw arguments, vertex fetch, sort, count copy) and their writes (write-after-write); and
   * uploads' copies (append_object while frames run) visible to the projection's reads. */
  ssvk_memory_barrier(&r->vk, cmd,
                      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                          VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  bool lod = render_lod_record_cuts(r, cmd, f);
  timestamp(r, cmd, f->slot, TS_CUT); /* before the barrier: see timestamp() */
  if (lod)
    ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                            VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
  uint32_t count = record_projection(r, cmd, f, rays);
  splatsort_result sorted;
  VkResult res = record_sort(r, cmd, *k, f, key_bits, count, &sorted);
  if (res == VK_SUCCESS) {
    /* visible count for the HUD / timings */
    VkBufferCopy cnt = {4 * SP_DRAW_INSTANCES, 16ull * f->slot, 4};
    r->vk.fn.vkCmdCopyBuffer(cmd, r->scene.draw.buffer, r->readback.buffer, 1, &cnt);
    if (lod) render_lod_readback(r, cmd, f);
    ssvk_memory_barrier(&r->vk, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    r->slot[f->slot].recorded = true;
    r->slot[f->slot].lod = lod;
    r->last_sorted = sorted;
    r->frame_count = count;
    r->slot[f->slot].key_bits = key_bits;
    r->slot[f->slot].sort = splatsort_get_algorithm(r->sorters[*k]);
    r->slot[f->slot].raster = SPLAT_RASTER_GRAPHICS;
    r->slot[f->slot].rays = rays;
    r->slot[f->slot].window = 0;
    for (uint32_t e = 0; e < 2; e++)
      r->slot[f->slot].camera_hash[e] = camera_hash(f->eyes[0] ? f->eyes[e] : f->camera);
  }
  ssvk_label_end(&r->vk, cmd);
  return res;
}


VkResult splat_renderer_cmd_prepare(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  int k;
  return prepare(r, "cmd_prepare", cmd, f, &k, f && f->order == SPLAT_ORDER_PER_PIXEL);
}


VkResult splat_renderer_cmd_draw(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  VkResult bad = frame_args(r, "cmd_draw", cmd, true, f);
  if (bad != VK_SUCCESS) return bad;
  if (!r->host_raster || !r->last_sorted.values.buffer) {
    rlog(r, "cmd_draw: %s", !r->host_raster ? "no host_color_format or host_render_pass was given at create"
                                           : "no frame was prepared since the scene was set");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (r->multiview && !f->eyes[0]) {
    rlog(r, "cmd_draw: a renderer made with SPLAT_RENDERER_CREATE_MULTIVIEW_BIT draws stereo frames (eyes) only");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  ssvk_label_begin(&r->vk, cmd, "splat draw");
  draw_splats(r, cmd, f, r->host_raster, r->multiview);
  /* two draws per prepared stereo frame: one timestamp (a query is written once per reset),
   * after eye 1's; in a multiview pass it takes TS_RASTERED and TS_RASTERED_VIEW1 */
  if (!f->eyes[0] || r->multiview || (f->eye & 1u)) timestamp(r, cmd, f->slot, TS_RASTERED);
  ssvk_label_end(&r->vk, cmd);
  return VK_SUCCESS;
}


/* The graphics raster into the renderer's target: cleared to the background, the quads. */
static void raster_graphics(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  ssvk_label_begin(&r->vk, cmd, "splat raster");
  ssvk_image_barrier(&r->vk, cmd, r->target, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     0, VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
  const float clear[4] = {f->background[0], f->background[1], f->background[2], 1.0f};
  ssvk_begin_color_pass(&r->vk, cmd, r->target_view, (VkExtent2D){f->camera->width, f->camera->height}, clear);
  draw_splats(r, cmd, f, r->raster, false);
  timestamp(r, cmd, f->slot, TS_RASTERED);
  r->vk.fn.vkCmdEndRendering(cmd);
  ssvk_image_barrier(&r->vk, cmd, r->target, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  ssvk_label_end(&r->vk, cmd);
}


VkResult splat_renderer_cmd_render(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f) {
  VkResult res = frame_args(r, "cmd_render", cmd, true, f);
  if (res != VK_SUCCESS) return res;
  res = f->camera->width && f->camera->height && f->camera->width <= 16384 && f->camera->height <= 16384
                     ? ensure_target(r, f->camera->width, f->camera->height)
                     : VK_SUCCESS; /* prepare names a bad size */
  int k;
  if (res == VK_SUCCESS)
    res = prepare(r, "cmd_render", cmd, f, &k, f->order == SPLAT_ORDER_PER_PIXEL && f->raster == SPLAT_RASTER_COMPUTE);
  if (res != VK_SUCCESS) return res;
  if (f->raster == SPLAT_RASTER_COMPUTE) return record_compute(r, cmd, f, k, NULL);
  raster_graphics(r, cmd, f);
  return VK_SUCCESS;
}


/* The host's images for cmd_render_into; false (logged) when they cannot be used. */
static VkResult check_host_target(splat_renderer *r, const splat_host_target *t) {
  if (!t->color_view || !t->depth_view) {
    rlog(r, "cmd_render_into: the host target needs color_view and depth_view");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (craster_host_format_index(t->color_format) < 0) {
    rlog(r, "cmd_render_into: colour format %d is not supported (R8G8B8A8_UNORM, R16G16B16A16_SFLOAT or "
            "R32G32B32A32_SFLOAT, as a storage image)", (int)t->color_format);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  if (t->depth_format != VK_FORMAT_D32_SFLOAT && t->depth_format != VK_FORMAT_D32_SFLOAT_S8_UINT) {
    rlog(r, "cmd_render_into: depth format %d is not supported (D32_SFLOAT or D32_SFLOAT_S8_UINT, sampled)",
         (int)t->depth_format);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  VkImageLayout l = t->depth_layout;
  if (l != VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL && l != VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL &&
      l != VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL && l != VK_IMAGE_LAYOUT_GENERAL) {
    rlog(r, "cmd_render_into: depth_layout %d is not a read-only depth layout, SHADER_READ_ONLY_OPTIMAL or "
            "GENERAL", (int)l);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  return VK_SUCCESS;
}


VkResult splat_renderer_cmd_render_into(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f,
                                        const splat_host_target *t) {
  VkResult res = frame_args(r, "cmd_render_into", cmd, true, f);
  if (res != VK_SUCCESS) return res;
  if (!t) {
    rlog(r, "cmd_render_into: the host target is NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  res = check_host_target(r, t);
  if (res != VK_SUCCESS) return res;
  if (!r->last_sorted.values.buffer || !r->slot[f->slot].recorded) {
    rlog(r, "cmd_render_into: no frame was prepared in slot %u since the scene was set", f->slot);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  int k = render_frame_sorter(r, f->sort, f->key_bits ? f->key_bits : 32);
  if (k < 0) return VK_ERROR_VALIDATION_FAILED_EXT; /* prepare has refused this frame already */
  const splat_camera *cam = f->eyes[0] ? f->eyes[f->eye & 1u] : f->camera;
  if (!cam || camera_hash(cam) != r->slot[f->slot].camera_hash[f->eyes[0] ? f->eye & 1u : 0]) {
    rlog(r, "cmd_render_into: the frame's camera%s is not the one slot %u was prepared with (cmd_prepare this frame "
            "first)", f->eyes[0] ? (f->eye & 1u ? " (eye 1)" : " (eye 0)") : "", f->slot);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if ((t->width || t->height) && (t->width < cam->width || t->height < cam->height)) {
    rlog(r, "cmd_render_into: the host's images (%ux%u) are smaller than the camera (%ux%u)", t->width, t->height,
         cam->width, cam->height);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (f->order == SPLAT_ORDER_PER_PIXEL && !r->slot[f->slot].rays) {
    rlog(r, "cmd_render_into: a SPLAT_ORDER_PER_PIXEL frame needs cmd_prepare with SPLAT_ORDER_PER_PIXEL (slot %u "
            "was prepared with the global order)", f->slot);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  return record_compute(r, cmd, f, k, t);
}


void splat_renderer_target(const splat_renderer *r, VkImage *image, uint32_t *width, uint32_t *height) {
  if (image) *image = r ? r->target : VK_NULL_HANDLE;
  if (width) *width = r ? r->width : 0;
  if (height) *height = r ? r->height : 0;
}


VkResult splat_renderer_timings(splat_renderer *r, uint32_t slot, splat_timings *out) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!out || slot >= r->slots) {
    if (!out) rlog(r, "timings: out is NULL");
    else rlog(r, "timings: slot %u is out of range (the renderer has %u frame slot%s)", slot, r->slots, r->slots == 1 ? "" : "s");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!r->slot[slot].recorded) return VK_NOT_READY;
  uint64_t ts[TS_COUNT];
  VkQueryPool q = r->queries;
  uint32_t first = slot * TS_COUNT;
  bool compute = r->slot[slot].raster == SPLAT_RASTER_COMPUTE;
  /* the graphics raster writes no TS_PAIRS / TS_TILESORTED */
  VkResult res = compute ? r->vk.fn.vkGetQueryPoolResults(r->vk.device, q, first, TS_RASTERED + 1, sizeof ts, ts, 8,
                                                          VK_QUERY_RESULT_64_BIT)
                         : r->vk.fn.vkGetQueryPoolResults(r->vk.device, q, first, TS_SORTED + 1, sizeof ts, ts, 8,
                                                 VK_QUERY_RESULT_64_BIT);
  if (res == VK_SUCCESS && !compute)
    res = r->vk.fn.vkGetQueryPoolResults(r->vk.device, q, first + TS_RASTERED, 1, 8, &ts[TS_RASTERED], 8,
                                         VK_QUERY_RESULT_64_BIT);
  if (res != VK_SUCCESS) return res;
  double period = r->props.limits.timestampPeriod * 1e-6;
  *out = (splat_timings){0};
  out->projection_ms = (double)(ts[TS_PROJECTED] - ts[TS_START]) * period;
  out->sort_ms = (double)(ts[TS_SORTED] - ts[TS_PROJECTED]) * period;
  out->raster_ms = (double)(ts[TS_RASTERED] - ts[TS_SORTED]) * period;
  out->total_ms = (double)(ts[TS_RASTERED] - ts[TS_START]) * period;
  memcpy(&out->visible, (const char *)r->readback.mapped + 16 * slot, 4);
  out->key_bits = r->slot[slot].key_bits;
  out->sort = r->slot[slot].sort;
  out->raster = r->slot[slot].raster;
  out->order = r->slot[slot].window ? SPLAT_ORDER_PER_PIXEL : SPLAT_ORDER_GLOBAL;
  out->order_window = r->slot[slot].window;
  if (r->slot[slot].lod) {
    out->lod_cut_ms = (double)(ts[TS_CUT] - ts[TS_START]) * period;
    memcpy(&out->lod_cut, (const char *)r->readback.mapped + 16 * slot + 8, 4);
    memcpy(&out->lod_threshold, (const char *)r->readback.mapped + 16 * slot + 12, 4);
  }
  if (compute) {
    out->pairs_ms = (double)(ts[TS_PAIRS] - ts[TS_SORTED]) * period;
    out->tile_sort_ms = (double)(ts[TS_TILESORTED] - ts[TS_PAIRS]) * period;
    out->blend_ms = (double)(ts[TS_RASTERED] - ts[TS_TILESORTED]) * period;
    memcpy(&out->pairs, (const char *)r->readback.mapped + 16 * slot + 4, 4);
    out->pair_capacity = r->slot[slot].pair_capacity;
    craster_tell_overflow(&r->craster, slot, slot_report(r, slot)); /* the frame has finished: its count is in */
  }
  return VK_SUCCESS;
}

