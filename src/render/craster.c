/* The compute raster: the sorted splats binned into 16x16 tiles and blended front to back, one
 * workgroup per tile, into the renderer's target (renderer.h, SPLAT_RASTER_COMPUTE). On GPUs
 * with few graphics units (data-centre parts) it is far faster than quads; the image is the
 * reference rasterizer's (tests/refrender.c). Passes: count, scan, emit (shaders/render/
 * craster_*.comp), the host's sorter on the tile keys, ranges, pieces, blend, a copy into the target. */
#include "craster.h"

#include "splat_shared.h"
#include "render_spv_spv.h"

#include <string.h>


_Static_assert(sizeof(struct sp_craster_push) == 96, "sp_craster_push must match the GLSL block");

_Static_assert(SP_CR_WINDOW_DEFAULT == SPLAT_ORDER_WINDOW_DEFAULT && SP_CR_WINDOW_MAX == SPLAT_ORDER_WINDOW_MAX,
               "the per-pixel window's limits: one value for the API and the shader");

enum { PAIR_KEYS, PAIR_VALUES, PAIR_TMP_KEYS, PAIR_TMP_VALUES, PAIR_INTERNAL, PAIR_PIECES };

/* Crowded tiles (splat_shared.h, SP_CR_PIECES): a tile of more pairs than a piece is blended
 * in pieces by workgroups of their own. A piece is PIECE_MIN pairs, or more where the capacity
 * would allow more than MAX_EXTRAS extra pieces (the extras' dispatch stays within every
 * device's 65,535 workgroups); the partial slots then take at most 2 x 16 x 256 / piece bytes a
 * pair of capacity (1 at 8,192). Measured on the H200: docs/performance.md. */
#ifndef CRASTER_PIECE_MIN /* benchmark builds may set another */
#define CRASTER_PIECE_MIN 8192u
#endif
#define PIECE_MIN CRASTER_PIECE_MIN
#define MAX_EXTRAS 32768u

static uint32_t piece_for(const craster *c, uint32_t capacity) {
  if (c->piece_override) return c->piece_override;
  uint32_t p = (capacity + MAX_EXTRAS - 1) / MAX_EXTRAS;
  return p > PIECE_MIN ? p : PIECE_MIN;
}

/* The least first capacity: pairs for this many per splat of the frame, and at least
 * MIN_CAPACITY; a frame estimated to need more gets more (size_pairs). */
#define DEFAULT_PAIRS_PER_SPLAT 4u
#define MIN_CAPACITY (1u << 16)

int craster_host_format_index(VkFormat format) {
  switch (format) {
  case VK_FORMAT_R8G8B8A8_UNORM: return 0;
  case VK_FORMAT_R16G16B16A16_SFLOAT: return 1;
  case VK_FORMAT_R32G32B32A32_SFLOAT: return 2;
  default: return -1;
  }
}

/* The host blend's push-descriptor layout: the compute raster's buffers, the depths, the
 * host's colour (storage image) and depth (sampled image). */
static VkResult create_host_layout(craster *c) {
  VkDescriptorSetLayoutBinding b[SP_CR_HOST_BIND_COUNT];
  for (uint32_t i = 0; i < SP_CR_HOST_BIND_COUNT; i++)
    b[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  b[SP_CR_HOST_COLOR].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
  b[SP_CR_HOST_DEPTH].descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
  VkDescriptorSetLayoutCreateInfo dsl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                         .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                         .bindingCount = SP_CR_HOST_BIND_COUNT, .pBindings = b};
  const ssvk_device *vk = c->env.vk;
  VkResult res = vk->fn.vkCreateDescriptorSetLayout(vk->device, &dsl, vk->allocator, &c->host_set_layout);
  if (res != VK_SUCCESS) {
    c->host_set_layout = VK_NULL_HANDLE;
    ssvk_log(vk, "vkCreateDescriptorSetLayout for the compute raster's host pass failed (%s)", ssvk_result_name(res));
    return res;
  }
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct sp_craster_push)};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                   .pSetLayouts = &c->host_set_layout, .pushConstantRangeCount = 1,
                                   .pPushConstantRanges = &range};
  res = c->env.vk->fn.vkCreatePipelineLayout(c->env.vk->device, &pl, c->env.vk->allocator, &c->host_layout);
  if (res != VK_SUCCESS) {
    c->host_layout = VK_NULL_HANDLE;
    ssvk_log(c->env.vk, "vkCreatePipelineLayout for the compute raster's host pass failed (%s)", ssvk_result_name(res));
  }
  return res;
}

VkResult craster_create(craster *c) {
  VkResult res = ssvk_push_layout(c->env.vk, SP_CR_BIND_COUNT, VK_SHADER_STAGE_COMPUTE_BIT,
                                  sizeof(struct sp_craster_push),
                                  VK_SHADER_STAGE_COMPUTE_BIT, "splat compute raster", &c->set_layout, &c->layout);
  struct {
    const uint32_t *code;
    size_t size;
    VkPipeline *out;
    const char *name;
  } p[] = {
      {render_spv_craster_count_comp, render_spv_craster_count_comp_size, &c->p_count, "splat compute raster: count"},
      {render_spv_craster_scan_comp, render_spv_craster_scan_comp_size, &c->p_scan, "splat compute raster: scan"},
      {render_spv_craster_emit_comp, render_spv_craster_emit_comp_size, &c->p_emit, "splat compute raster: emit"},
      {render_spv_craster_ranges_comp, render_spv_craster_ranges_comp_size, &c->p_ranges,
       "splat compute raster: ranges"},
      {render_spv_craster_pieces_comp, render_spv_craster_pieces_comp_size, &c->p_pieces,
       "splat compute raster: pieces"},
      {render_spv_craster_blend_comp, render_spv_craster_blend_comp_size, &c->p_blend, "splat compute raster: blend"},
  };
  for (size_t i = 0; i < sizeof p / sizeof *p && res == VK_SUCCESS; i++) {
    ssvk_compute_desc cd = {.code = p[i].code, .code_size = p[i].size, .layout = c->layout, .name = p[i].name};
    res = ssvk_compute_pipeline(c->env.vk, &cd, p[i].out);
  }
  if (res == VK_SUCCESS) res = create_host_layout(c);
  struct {
    const uint32_t *code;
    size_t size;
    const char *name;
  } h[3] = {
      {render_spv_craster_blend_host_rgba8_comp, render_spv_craster_blend_host_rgba8_comp_size,
       "splat compute raster: blend into the host's RGBA8"},
      {render_spv_craster_blend_host_rgba16f_comp, render_spv_craster_blend_host_rgba16f_comp_size,
       "splat compute raster: blend into the host's RGBA16F"},
      {render_spv_craster_blend_host_rgba32f_comp, render_spv_craster_blend_host_rgba32f_comp_size,
       "splat compute raster: blend into the host's RGBA32F"},
  };
  for (size_t i = 0; i < 3 && res == VK_SUCCESS; i++) {
    ssvk_compute_desc cd = {.code = h[i].code, .code_size = h[i].size, .layout = c->host_layout, .name = h[i].name};
    res = ssvk_compute_pipeline(c->env.vk, &cd, &c->p_blend_host[i]);
  }
  return res;
}

static void destroy_set(craster *c, ssvk_buffer *b, size_t n) {
  for (size_t i = 0; i < n; i++) ssvk_buffer_destroy(c->env.vk, &b[i]);
}

void craster_release(craster *c) {
  ssvk_buffer *bufs[] = {&c->offsets, &c->blocks, &c->state, &c->ranges, &c->pieces, &c->image};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) ssvk_buffer_destroy(c->env.vk, bufs[i]);
  destroy_set(c, c->pairs, CRASTER_PAIR_SET);
  for (uint32_t i = 0; i < CRASTER_RETIRED_MAX; i++) {
    destroy_set(c, c->retired[i].pairs, CRASTER_PAIR_SET);
    c->retired[i].waiting_slots = 0;
  }
  c->positions = c->capacity = c->width = c->height = 0;
  c->failed_want = 0;
  c->told_short = false;
}

VkDeviceSize craster_bytes(const craster *c) {
  VkDeviceSize n = c->offsets.size + c->blocks.size + c->state.size + c->ranges.size + c->pieces.size + c->image.size;
  for (int i = 0; i < CRASTER_PAIR_SET; i++) n += c->pairs[i].size;
  return n;
}

void craster_destroy(craster *c) {
  if (!c->env.vk) return; /* never created */
  craster_release(c);
  VkDevice d = c->env.vk->device;
  VkPipeline *p[] = {&c->p_count, &c->p_scan,         &c->p_emit,          &c->p_ranges,         &c->p_pieces,
                     &c->p_blend, &c->p_blend_host[0], &c->p_blend_host[1], &c->p_blend_host[2]};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++)
    if (*p[i]) c->env.vk->fn.vkDestroyPipeline(d, *p[i], c->env.vk->allocator);
  for (size_t v = 0; v < 4; v++)
    for (size_t w = 0; w <= SP_CR_WINDOW_MAX; w++)
      if (c->p_order[v][w]) c->env.vk->fn.vkDestroyPipeline(d, c->p_order[v][w], c->env.vk->allocator);
  if (c->layout) c->env.vk->fn.vkDestroyPipelineLayout(d, c->layout, c->env.vk->allocator);
  if (c->host_layout) c->env.vk->fn.vkDestroyPipelineLayout(d, c->host_layout, c->env.vk->allocator);
  if (c->host_set_layout) c->env.vk->fn.vkDestroyDescriptorSetLayout(d, c->host_set_layout, c->env.vk->allocator);
  if (c->set_layout) c->env.vk->fn.vkDestroyDescriptorSetLayout(d, c->set_layout, c->env.vk->allocator);
}

/* The pair buffers for `capacity` pairs, sized for every sorter the renderer has. */
static VkResult create_pairs(craster *c, uint32_t capacity) {
  splatsort_memory_requirements m = {0};
  for (uint32_t i = 0; i < c->env.sorter_count; i++) {
    splatsort_memory_requirements q;
    VkResult res = splatsort_get_memory_requirements(c->env.sorters[i], capacity, &q);
    if (res != VK_SUCCESS) return res;
    if (q.keyval_size > m.keyval_size) m.keyval_size = q.keyval_size;
    if (q.internal_size > m.internal_size) m.internal_size = q.internal_size;
    m.keyval_usage |= q.keyval_usage | q.count_usage;
    m.internal_usage |= q.internal_usage;
  }
  const VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | c->env.extra_usage;
  /* the extra pieces (a uvec2 each), then the partial slots (SP_TILE^2 vec4 each), bounded as
   * craster_pieces.comp says */
  uint32_t piece = piece_for(c, capacity);
  VkDeviceSize extras = capacity / piece + 1, slots = 2ull * (capacity / piece) + 2;
  VkDeviceSize align = c->env.limits.minStorageBufferOffsetAlignment;
  VkDeviceSize partials_offset = (8 * extras + align - 1) / align * align;
  VkDeviceSize pieces_size = partials_offset + slots * SP_TILE * SP_TILE * 16;
  ssvk_buffer *const bufs[] = {&c->pairs[0], &c->pairs[1], &c->pairs[2], &c->pairs[3], &c->pairs[4], &c->pairs[5]};
  const VkDeviceSize sizes[] = {m.keyval_size,  m.keyval_size,   m.keyval_size,
                                m.keyval_size,  m.internal_size, pieces_size};
  if (!c->env.allows(c->env.owner, 4 * m.keyval_size + m.internal_size + pieces_size, "compute raster's pair buffers"))
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  const VkBufferUsageFlags usages[] = {m.keyval_usage | st, m.keyval_usage | st, m.keyval_usage | st,
                                       m.keyval_usage | st, m.internal_usage,      st};
  const char *const names[] = {"compute-raster pair keys", "compute-raster pair values",
                               "compute-raster pair keys (sort scratch)", "compute-raster pair values (sort scratch)",
                               "compute-raster sort internal", "compute-raster pieces of crowded tiles"};
  VkResult res = c->env.create_buffers(c->env.owner, "compute raster", bufs, sizes, usages, names, CRASTER_PAIR_SET);
  if (res != VK_SUCCESS) {
    destroy_set(c, c->pairs, CRASTER_PAIR_SET);
    return res;
  }
  c->capacity = capacity;
  c->piece = piece;
  c->partials_offset = partials_offset;
  return VK_SUCCESS;
}

/* The largest capacity the sorters and one buffer allow. */
static uint32_t max_capacity(const craster *c) {
  uint64_t m = c->env.max_buffer / 4;
  for (uint32_t i = 0; i < c->env.sorter_count; i++)
    if (splatsort_max_count(c->env.sorters[i]) < m) m = splatsort_max_count(c->env.sorters[i]);
  return (uint32_t)m;
}

/* Replaces the pair buffers by ones of `capacity`; the old ones wait until no frame can read
 * them (or are freed at once when nothing was recorded with them). VK_NOT_READY: not now (no
 * room to retire the old ones); an error: the new ones could not be made (logged). */
static VkResult grow_pairs(craster *c, uint32_t slot, uint32_t capacity) {
  craster_retired *spot = NULL;
  for (uint32_t i = 0; i < CRASTER_RETIRED_MAX && !spot; i++)
    if (!c->retired[i].pairs[0].buffer) spot = &c->retired[i];
  if (!spot) return VK_NOT_READY; /* several growths within a few frames: wait for one to be freed */
  ssvk_buffer old[CRASTER_PAIR_SET];
  memcpy(old, c->pairs, sizeof old);
  uint32_t old_capacity = c->capacity, old_piece = c->piece;
  VkDeviceSize old_offset = c->partials_offset;
  memset(c->pairs, 0, sizeof c->pairs);
  VkResult res = create_pairs(c, capacity);
  if (res != VK_SUCCESS) {
    ssvk_log(c->env.vk, "compute raster: growing the pair buffers to %u pairs failed; frames keep %u pairs and miss their "
            "farthest splats' pairs", capacity, old_capacity);
    memcpy(c->pairs, old, sizeof old);
    c->capacity = old_capacity;
    c->piece = old_piece;
    c->partials_offset = old_offset;
    return res;
  }
  memcpy(spot->pairs, old, sizeof old);
  spot->waiting_slots = ((1u << c->env.slots) - 1u) & ~(1u << slot);
  if (!spot->waiting_slots) destroy_set(c, spot->pairs, CRASTER_PAIR_SET);
  return VK_SUCCESS;
}

void craster_tell_overflow(craster *c, uint32_t slot, craster_slot_report last) {
  if (!last.compute || c->overflow_told[slot] || last.needed <= last.capacity) return;
  c->overflow_told[slot] = true;
  ssvk_log(c->env.vk, "compute raster: the frame recorded in slot %u needed %u (tile, splat) pairs but had room for %u: "
           "its farthest splats' pairs were left out (the buffers grow for the slot's next frame where they can)", slot,
           last.needed, last.capacity);
}

void craster_frame_begin(craster *c, uint32_t slot, craster_slot_report last) {
  for (uint32_t i = 0; i < CRASTER_RETIRED_MAX; i++) {
    craster_retired *t = &c->retired[i];
    if (!t->pairs[0].buffer) continue;
    t->waiting_slots &= ~(1u << slot);
    if (!t->waiting_slots) destroy_set(c, t->pairs, CRASTER_PAIR_SET);
  }
  /* The slot's previous frame has finished (renderer.h): what it needed is in the report. */
  if (!last.compute || !c->capacity) return;
  craster_tell_overflow(c, slot, last);
  if (last.needed <= c->capacity) return;
  uint32_t limit = max_capacity(c);
  if (c->capacity >= limit) return; /* timings keep reporting the overflow */
  uint64_t want = (uint64_t)last.needed + last.needed / 4; /* room for the view to move */
  (void)grow_pairs(c, slot, want < limit ? (uint32_t)want : limit); /* logged; later frames try again */
}

/* Per-frame buffers not tied to the pair capacity: made when missing or too small. */
static VkResult ensure_buffers(craster *c, uint32_t positions, uint32_t width, uint32_t height) {
  const VkBufferUsageFlags st = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | c->env.extra_usage;
  VkResult res = VK_SUCCESS;
  if (c->positions < positions) {
    ssvk_buffer_destroy(c->env.vk, &c->offsets);
    ssvk_buffer_destroy(c->env.vk, &c->blocks);
    ssvk_buffer_destroy(c->env.vk, &c->state);
    c->positions = 0;
    uint32_t blocks = ssvk_div_up(positions, SP_CR_BLOCK);
    ssvk_buffer *const bufs[] = {&c->offsets, &c->blocks, &c->state};
    const VkDeviceSize sizes[] = {4ull * positions, 4ull * blocks, 4 * SP_CR_STATE_WORDS};
    const VkBufferUsageFlags usages[] = {st, st,
                                         st | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT};
    const char *const names[] = {"compute-raster offsets", "compute-raster blocks", "compute-raster state"};
    if (!c->env.allows(c->env.owner, sizes[0] + sizes[1] + sizes[2], "compute raster"))
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    res = c->env.create_buffers(c->env.owner, "compute raster", bufs, sizes, usages, names, 3);
    if (res != VK_SUCCESS) return res;
    c->positions = positions;
  }
  if (c->width != width || c->height != height) {
    ssvk_buffer_destroy(c->env.vk, &c->ranges);
    ssvk_buffer_destroy(c->env.vk, &c->pieces);
    ssvk_buffer_destroy(c->env.vk, &c->image);
    c->width = c->height = 0;
    uint32_t tiles = ssvk_div_up(width, SP_TILE) * ssvk_div_up(height, SP_TILE);
    ssvk_buffer *const bufs[] = {&c->ranges, &c->pieces, &c->image};
    const VkDeviceSize sizes[] = {8ull * tiles, 16ull * tiles, 8ull * width * height};
    const VkBufferUsageFlags usages[] = {st | VK_BUFFER_USAGE_TRANSFER_DST_BIT, st,
                                         st | VK_BUFFER_USAGE_TRANSFER_SRC_BIT};
    const char *const names[] = {"compute-raster tile ranges", "compute-raster tile pieces", "compute-raster image"};
    if (!c->env.allows(c->env.owner, sizes[0] + sizes[1] + sizes[2], "compute raster"))
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    res = c->env.create_buffers(c->env.owner, "compute raster", bufs, sizes, usages, names, 3);
    if (res != VK_SUCCESS) return res;
    c->width = width;
    c->height = height;
  }
  return res;
}

/* The pair buffers for frame `f` of `positions` splats: made (first) for the larger of the
 * least first capacity and the frame's estimated need (f->want), or grown ahead of a frame estimated to
 * need more than they hold (to 1.25x that, room for the view to move). A frame that still
 * cannot have what it needs (the sorters' or one buffer's limit, or the memory) is recorded
 * with the pairs that fit, and the log says so. */
static VkResult size_pairs(craster *c, const craster_frame *f, uint32_t positions) {
  const splat_camera *cam = f->camera;
  uint32_t limit = max_capacity(c);
  uint64_t want = c->fixed_capacity ? 0 : f->want;
  if (!c->capacity) {
    uint64_t least = c->initial_capacity ? c->initial_capacity : (uint64_t)positions * DEFAULT_PAIRS_PER_SPLAT;
    if (!c->initial_capacity && least < MIN_CAPACITY) least = MIN_CAPACITY;
    uint64_t first = want > least ? want : least;
    VkResult res = create_pairs(c, first < limit ? (uint32_t)first : limit);
    if (res == VK_ERROR_OUT_OF_DEVICE_MEMORY && first > least) /* the estimate's did not fit: the least then */
      res = create_pairs(c, least < limit ? (uint32_t)least : limit);
    if (res != VK_SUCCESS) return res;
  } else if (want > c->capacity && c->capacity < limit && want > c->failed_want) {
    uint64_t grow = want + want / 4;
    /* a growth the memory refused is not tried again for as many pairs (it would log each frame) */
    if (grow_pairs(c, f->slot, grow < limit ? (uint32_t)grow : limit) < 0) c->failed_want = want;
  }
  bool short_of_pairs = want > c->capacity;
  if (short_of_pairs && !c->told_short)
    ssvk_log(c->env.vk, "compute raster: a %ux%u frame needs about %llu (tile, splat) pairs (estimated from %s), more than "
            "the %u the pair buffers hold (%s): its farthest splats' pairs are left out until the view needs fewer",
         cam->width, cam->height, (unsigned long long)f->estimate,
         f->estimate_exact ? "every splat" : "a sample of the splats", c->capacity,
         c->capacity >= limit ? "the most one buffer and the sorters allow" : "they could not grow: see above");
  c->told_short = short_of_pairs;
  return VK_SUCCESS;
}

static void dispatch_groups(const craster *c, VkCommandBuffer cmd, uint32_t groups) {
  uint32_t max_x = c->env.limits.maxComputeWorkGroupCount[0];
  uint32_t x = groups < max_x ? groups : max_x;
  if (x) c->env.vk->fn.vkCmdDispatch(cmd, x, ssvk_div_up(groups, x), 1);
}

static void compute_barrier(const craster *c, VkCommandBuffer cmd) {
  ssvk_memory_barrier(c->env.vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                          VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT);
}

static void push(const craster *c, VkCommandBuffer cmd, const VkDescriptorBufferInfo *bi, VkPipeline pipeline) {
  c->env.vk->fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  ssvk_push_buffers(c->env.vk, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout, bi, SP_CR_BIND_COUNT);
}

static uint32_t key_bits_for(uint32_t tiles) {
  uint32_t bits = 1;
  while (bits < 32 && (1ull << bits) < tiles) bits++;
  return bits;
}

/* Per-pixel order: the pair keys' depth bits below the tile bits, so that keys take 24 bits
 * (3 of OneSweep's 8-bit passes; 13 tile bits at 1080p leave 11 depth bits, 2048 steps on a log
 * scale over the frame's depths), 4..16 (refrender.c's window_key_scale). */
static uint32_t depth_bits_for(uint32_t tile_bits) {
  return tile_bits >= 20 ? 4 : 24 - tile_bits > 16 ? 16 : 24 - tile_bits;
}

/* The per-pixel order's blend for variant v (0: into the image buffer; 1 + a host format's
 * index) and a window of `window` slots, made on first use (each window length is its own
 * pipeline: the window lives in registers, its length a specialization constant). */
static VkResult order_pipeline(craster *c, uint32_t v, uint32_t window, VkPipeline *out) {
  if (!c->p_order[v][window]) {
    static const char *const names[4] = {
        "splat compute raster: blend, per-pixel order", "splat compute raster: blend into the host's RGBA8, per-pixel order",
        "splat compute raster: blend into the host's RGBA16F, per-pixel order",
        "splat compute raster: blend into the host's RGBA32F, per-pixel order"};
    const uint32_t *code[4] = {render_spv_craster_blend_pp_comp, render_spv_craster_blend_pp_host_rgba8_comp,
                               render_spv_craster_blend_pp_host_rgba16f_comp,
                               render_spv_craster_blend_pp_host_rgba32f_comp};
    const size_t size[4] = {render_spv_craster_blend_pp_comp_size, render_spv_craster_blend_pp_host_rgba8_comp_size,
                            render_spv_craster_blend_pp_host_rgba16f_comp_size,
                            render_spv_craster_blend_pp_host_rgba32f_comp_size};
    VkSpecializationMapEntry entry = {0, 0, 4};
    VkSpecializationInfo spec = {1, &entry, 4, &window};
    ssvk_compute_desc cd = {.code = code[v], .code_size = size[v], .layout = v ? c->host_layout : c->layout,
                            .spec = &spec, .name = names[v]};
    VkResult res = ssvk_compute_pipeline(c->env.vk, &cd, &c->p_order[v][window]);
    if (res != VK_SUCCESS) {
      c->p_order[v][window] = VK_NULL_HANDLE;
      return res; /* logged */
    }
  }
  *out = c->p_order[v][window];
  return VK_SUCCESS;
}

/* The blend's two dispatches, with nothing between them so that they may run together: every
 * tile's first piece, then the crowded tiles' extra pieces (indirect: craster_pieces.comp counts
 * them). In this order an extra piece of a tile whose pixels all stop early usually starts
 * after its first piece has said so, and quits at once (craster_blend.glsl). */
static void blend_dispatches(const craster *c, VkCommandBuffer cmd, VkPipelineLayout layout,
                             const struct sp_craster_push *pc) {
  struct sp_craster_push extra = *pc;
  extra.flags |= SP_CR_FLAG_EXTRA;
  c->env.vk->fn.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *pc, pc);
  c->env.vk->fn.vkCmdDispatch(cmd, pc->tiles_x, pc->tiles_y, 1);
  c->env.vk->fn.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof extra, &extra);
  c->env.vk->fn.vkCmdDispatchIndirect(cmd, c->state.buffer, 4 * SP_CR_STATE_EXTRA);
}

/* The blend over the host's images: its buffers, the depths and the two images in one push. */
static void blend_into_host(const craster *c, VkCommandBuffer cmd, const VkDescriptorBufferInfo *bi,
                            VkBuffer depths_buffer,
                            const splat_host_target *host, const struct sp_craster_push *pc, VkPipeline order) {
  VkDescriptorBufferInfo depths = {depths_buffer, 0, VK_WHOLE_SIZE};
  VkDescriptorImageInfo color = {VK_NULL_HANDLE, host->color_view, VK_IMAGE_LAYOUT_GENERAL};
  VkDescriptorImageInfo depth = {VK_NULL_HANDLE, host->depth_view, host->depth_layout};
  VkWriteDescriptorSet w[SP_CR_HOST_BIND_COUNT];
  uint32_t n = 0;
  for (uint32_t i = 0; i < SP_CR_BIND_COUNT; i++)
    if (bi[i].buffer)
      w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                      .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[i]};
  w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = SP_CR_DEPTHS,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &depths};
  w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = SP_CR_HOST_COLOR,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                  .pImageInfo = &color};
  w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = SP_CR_HOST_DEPTH,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
                                  .pImageInfo = &depth};
  c->env.vk->fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                             order ? order : c->p_blend_host[craster_host_format_index(host->color_format)]);
  c->env.vk->push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->host_layout, 0, n, w);
  blend_dispatches(c, cmd, c->host_layout, pc);
}

VkResult craster_record(craster *c, VkCommandBuffer cmd, const craster_frame *f, uint32_t *window_out) {
  const splat_camera *cam = f->camera;
  const splat_host_target *host = f->host;
  uint32_t W = cam->width, H = cam->height, positions = f->positions;
  uint32_t window = f->order != SPLAT_ORDER_PER_PIXEL ? 0 : f->order_window ? f->order_window : SP_CR_WINDOW_DEFAULT;
  if (window > SP_CR_WINDOW_MAX) {
    ssvk_log(c->env.vk, "order_window must be 0 (the default, %u) to %u slots (got %u)", SP_CR_WINDOW_DEFAULT,
             SP_CR_WINDOW_MAX, window);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  VkPipeline order = VK_NULL_HANDLE;
  VkResult res = window ? order_pipeline(c, host ? 1u + (uint32_t)craster_host_format_index(host->color_format) : 0u,
                                         window, &order)
                        : VK_SUCCESS;
  if (res == VK_SUCCESS) res = ensure_buffers(c, positions ? positions : 1, W, H);
  if (res == VK_SUCCESS) res = size_pairs(c, f, positions ? positions : 1);
  if (res != VK_SUCCESS) return res;
  *window_out = window;
  c->overflow_told[f->slot] = false;
  uint32_t tiles_x = ssvk_div_up(W, SP_TILE), tiles_y = ssvk_div_up(H, SP_TILE);
  uint32_t blocks = ssvk_div_up(positions, SP_CR_BLOCK);
  struct sp_craster_push pc = {
      .background = {{f->background[0], f->background[1], f->background[2], 0}},
      .width = W, .height = H, .tiles_x = tiles_x, .tiles_y = tiles_y, .max_count = positions,
      .capacity = c->capacity, .rec_offset = f->rec_offset, .blocks = blocks,
      .max_groups_x = c->env.limits.maxComputeWorkGroupCount[0], .piece = c->piece,
      .intrinsics = {{cam->fx, cam->fy, cam->cx, cam->cy}}};
  if (host) {
    pc.depth_proj.v[0] = f->depth_proj[0];
    pc.depth_proj.v[1] = f->depth_proj[1];
    pc.flags = f->reverse_z ? SP_CR_FLAG_REVERSE_Z : 0u;
  }
  uint32_t key_bits = key_bits_for(tiles_x * tiles_y);
  if (window) {
    pc.flags |= SP_CR_FLAG_PER_PIXEL;
    pc.depth_bits = depth_bits_for(key_bits);
    key_bits += pc.depth_bits;
  }
  VkDescriptorBufferInfo bi[SP_CR_BIND_COUNT] = {
      [SP_CR_PROJECTED] = {f->projected, 0, VK_WHOLE_SIZE},
      [SP_CR_SORTED] = {f->sorted.buffer, f->sorted.offset, VK_WHOLE_SIZE},
      [SP_CR_DRAW] = {f->draw, 0, VK_WHOLE_SIZE},
      [SP_CR_OFFSETS] = {c->offsets.buffer, 0, VK_WHOLE_SIZE},
      [SP_CR_BLOCKS] = {c->blocks.buffer, 0, VK_WHOLE_SIZE},
      [SP_CR_STATE] = {c->state.buffer, 0, VK_WHOLE_SIZE},
      [SP_CR_KEYS] = {c->pairs[PAIR_KEYS].buffer, 0, VK_WHOLE_SIZE},
      [SP_CR_VALUES] = {c->pairs[PAIR_VALUES].buffer, 0, VK_WHOLE_SIZE},
      [SP_CR_RANGES] = {c->ranges.buffer, 0, VK_WHOLE_SIZE},
      [SP_CR_IMAGE] = {c->image.buffer, 0, VK_WHOLE_SIZE},
      /* read by emit only with SP_CR_FLAG_PER_PIXEL; a binding its shader has must be valid */
      [SP_CR_RAYS] = {window ? f->rays : f->projected, 0, VK_WHOLE_SIZE},
      [SP_CR_HEADER] = {f->header, 0, 4 * SP_H_WORDS},
      [SP_CR_PIECES] = {c->pieces.buffer, 0, VK_WHOLE_SIZE},
      [SP_CR_EXTRAS] = {c->pairs[PAIR_PIECES].buffer, 0, c->partials_offset},
      [SP_CR_PARTIALS] = {c->pairs[PAIR_PIECES].buffer, c->partials_offset, VK_WHOLE_SIZE},
  };
  ssvk_label_begin(c->env.vk, cmd, "splat compute raster");
  /* The raster's timestamps from reset again: one prepared frame may be drawn by cmd_draw and
   * then composited by cmd_render_into as well (README.md's block does both). */
  c->env.vk->fn.vkCmdResetQueryPool(cmd, f->queries, f->first_query, 3);
  /* Earlier frames' reads of what this one writes (ranges, image, pairs) are done. */
  ssvk_memory_barrier(c->env.vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  c->env.vk->fn.vkCmdFillBuffer(cmd, c->ranges.buffer, 0, 8ull * tiles_x * tiles_y, 0);
  if (positions) {
    push(c, cmd, bi, c->p_count);
    c->env.vk->fn.vkCmdPushConstants(cmd, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    dispatch_groups(c, cmd, blocks);
    compute_barrier(c, cmd);
  }
  push(c, cmd, bi, c->p_scan);
  c->env.vk->fn.vkCmdPushConstants(cmd, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  c->env.vk->fn.vkCmdDispatch(cmd, 1, 1, 1);
  compute_barrier(c, cmd);
  if (positions) {
    push(c, cmd, bi, c->p_emit);
    c->env.vk->fn.vkCmdPushConstants(cmd, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    dispatch_groups(c, cmd, blocks);
  }
  compute_barrier(c, cmd);
  /* what the frame needed, for timings and growth (read when the slot is recorded again) */
  VkBufferCopy needed = {4 * SP_CR_STATE_NEEDED, f->needed_offset, 4};
  c->env.vk->fn.vkCmdCopyBuffer(cmd, c->state.buffer, f->readback, 1, &needed);
  /* each timestamp before a barrier, as frame.c's timestamp() says why (lavapipe) */
  c->env.vk->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, f->queries, f->first_query);
  ssvk_memory_barrier(c->env.vk, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);

  /* Stable sort by tile (per-pixel order: and depth at the tile): each tile's pairs stay front
   * to back. */
  splatsort_sort_info si = {
      .max_count = c->capacity, .count_buffer = {c->state.buffer, 4 * SP_CR_STATE_PAIRS, 4},
      .key_bits = key_bits,
      .keys = {c->pairs[PAIR_KEYS].buffer, 0, c->pairs[PAIR_KEYS].size},
      .values = {c->pairs[PAIR_VALUES].buffer, 0, c->pairs[PAIR_VALUES].size},
      .tmp_keys = {c->pairs[PAIR_TMP_KEYS].buffer, 0, c->pairs[PAIR_TMP_KEYS].size},
      .tmp_values = {c->pairs[PAIR_TMP_VALUES].buffer, 0, c->pairs[PAIR_TMP_VALUES].size},
      .internal = {c->pairs[PAIR_INTERNAL].buffer, 0, c->pairs[PAIR_INTERNAL].size}};
  splatsort_result sorted;
  res = splatsort_cmd_sort(f->sorter, cmd, &si, &sorted);
  if (res != VK_SUCCESS) {
    ssvk_label_end(c->env.vk, cmd);
    return res;
  }
  c->env.vk->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, f->queries, f->first_query + 1);
  compute_barrier(c, cmd);

  bi[SP_CR_KEYS] = (VkDescriptorBufferInfo){sorted.keys.buffer, sorted.keys.offset, VK_WHOLE_SIZE};
  bi[SP_CR_VALUES] = (VkDescriptorBufferInfo){sorted.values.buffer, sorted.values.offset, VK_WHOLE_SIZE};
  push(c, cmd, bi, c->p_ranges);
  c->env.vk->fn.vkCmdPushConstants(cmd, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  c->env.vk->fn.vkCmdDispatchIndirect(cmd, c->state.buffer, 4 * SP_CR_STATE_DISPATCH);
  compute_barrier(c, cmd);
  push(c, cmd, bi, c->p_pieces);
  c->env.vk->fn.vkCmdPushConstants(cmd, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  c->env.vk->fn.vkCmdDispatch(cmd, ssvk_div_up(tiles_x * tiles_y, SP_PROJECT_WORKGROUP), 1, 1);
  compute_barrier(c, cmd);
  if (host) {
    blend_into_host(c, cmd, bi, f->depths, host, &pc, order);
    c->env.vk->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, f->queries, f->first_query + 2);
    ssvk_label_end(c->env.vk, cmd);
    return VK_SUCCESS;
  }
  push(c, cmd, bi, order ? order : c->p_blend);
  blend_dispatches(c, cmd, c->layout, &pc);

  /* into the target (RGBA16F rows of W pixels) */
  ssvk_memory_barrier(c->env.vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  ssvk_image_barrier(c->env.vk, cmd, f->target, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  VkBufferImageCopy copy = {.bufferRowLength = W, .bufferImageHeight = H,
                            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {W, H, 1}};
  c->env.vk->fn.vkCmdCopyBufferToImage(cmd, c->image.buffer, f->target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
  ssvk_image_barrier(c->env.vk, cmd, f->target, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  c->env.vk->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, f->queries, f->first_query + 2);
  ssvk_label_end(c->env.vk, cmd);
  return VK_SUCCESS;
}
