/* render_internal.h: the splat renderer's object and the calls its files share (renderer.c,
 * frame.c, upload.c, gpu_memory.c, craster.c), and the test-only access in
 * tests/renderer_debug.c. Not installed, not for hosts. */
#ifndef SPLAT_RENDERER_INTERNAL_H
#define SPLAT_RENDERER_INTERNAL_H

#include "craster.h"
#include "lod_cut.h"
#include "pair_estimate.h"
#include "splat_renderer.h"
#include "splat_shared.h"
#include "ssvk.h"

#include <stdbool.h>
#include <string.h>

/* Timestamps of a frame slot. The graphics raster writes TS_RASTERED after TS_SORTED; the
 * compute raster also TS_PAIRS (count, scan, emit) and TS_TILESORTED in between. */
/* A timestamp inside a multiview pass takes one query per view: TS_RASTERED_VIEW1 is the second
 * eye's, written only then and never read. */
/* TS_CUT: after the level-of-detail cuts (written in every frame, right after TS_START without
 * a LOD object). */
enum { TS_START, TS_CUT, TS_PROJECTED, TS_SORTED, TS_PAIRS, TS_TILESORTED, TS_RASTERED, TS_RASTERED_VIEW1, TS_COUNT };

/* A run of an object's splats in buffers of their own: no buffer is larger than one
 * allocation or one storage-buffer binding may be (splat_renderer.max_buffer). */
typedef struct object_chunk {
  uint32_t first, count;
  ssvk_buffer pos, cov, sh;
} object_chunk;

/* A level-of-detail object's tree on the GPU (lod.c): the cut's buffers and each node's parent
 * (SP_BIND_LOD_PARENT; the blend band reads it and the cut's spheres). */
typedef struct object_lod {
  lod_cut_gpu cut;
  ssvk_buffer parent;
  uint32_t leaf_count, max_cut; /* max_cut: the object's frame slots */
  uint32_t frame;               /* cuts recorded (the pages' stamps) */
  /* Streaming (pool_slots > 0): pages of the host's leaves in pool slots (lod.c) */
  const splat_scene *leaves;
  uint32_t pool_slots;
  uint32_t *slot_of_page, *page_of_slot; /* LC_PAGE_NONE: none */
  VkDeviceSize page_bytes;
  ssvk_buffer staging[SPLAT_MAX_FRAME_SLOTS];
  splat_lod_stats stats;
} object_lod;

/* One loaded splat set (an object): its own arrays, in object space, in one or more chunks. */
typedef struct object_gpu {
  uint32_t count, sh_degree; /* count 0: the slot is free */
  uint32_t resident;         /* splats [0, resident) copied (append_object); frames draw these */
  uint32_t sh_format, sh_words; /* SP_SH_FORMAT_*, uint32 words of SH a splat (splat_shared.h) */
  float sh8_scale[48], sh8_offset[48]; /* SP_SH_FORMAT_U8: each chunk's header (splat_sh8_range of the
                                          first part appended: the whole scene for set_scene) */
  uint32_t scene_flags;                /* its scene's splat_scene_flag_bits at upload */
  uint32_t chunks;
  object_chunk *chunk;
  VkPipeline project;  /* specialised for sh_words and sh_format (and LOD) */
  object_lod *lod;     /* a level-of-detail object's tree; NULL for others */
  pair_sample pairs;   /* the compute raster's sample of its splats (pair_estimate.h) */
} object_gpu;

/* The depth sort's scratch buffer (depth_sort.c): byte offsets of the header (at 0) and the
 * block counts, the sort's keys, tmp keys (the projection's per-slot keys until the sort), the
 * values region that is not the indices buffer, and the sort's internal. */
typedef struct sort_layout {
  VkDeviceSize blocks, keys, tmp_keys, values, internal, internal_size, end, region;
  VkBufferUsageFlags scratch_usage, indices_usage;
} sort_layout;

/* What a frame shares over its objects, sized for all of them: visible splats' camera-space
 * depths and projected records by frame slot, the depth sort's scratch and sorted indices,
 * the draw. */
typedef struct scene_gpu {
  uint32_t count;      /* capacity: the splats of every object */
  ssvk_buffer depths, projected, scratch, indices, draw;
  ssvk_buffer rays;    /* per-pixel order: ray-depth coefficients per record; made on demand */
  sort_layout layout;  /* of scratch */
} scene_gpu;

/* What the last frame recorded in a frame slot was: its timings read it back once it finished. */
typedef struct render_slot {
  bool recorded;
  uint32_t key_bits;
  splatsort_algorithm sort;
  splat_raster_path raster;
  uint32_t pair_capacity; /* the compute raster's pair capacity then */
  bool rays;              /* prepared with ray coefficients (per-pixel order) */
  uint32_t window;        /* the raster's per-pixel window; 0: global order */
  bool lod;               /* a LOD object was drawn (its cut read back) */
  uint64_t camera_hash[2]; /* of the camera prepared for eye 0 and 1 (a mono frame's in both) */
} render_slot;

/* The pairs a compute frame wants (frame.c, render_wanted_pairs): estimated before it is
 * recorded (pair_estimate.h), with their margin; kept while the frame's camera, instances and
 * objects stay the same (key, a hash of them; generation counts the objects' changes). */
typedef struct pair_want {
  uint64_t key, pairs, want;
  bool exact;
  uint32_t generation, key_generation, width, height;
} pair_want;

struct splat_renderer {
  ssvk_device vk;
  VkQueue queue;
  uint32_t queue_family;
  VkPhysicalDeviceProperties props;
  uint32_t slots;
  bool stereo; /* records for two eyes */
  bool multiview; /* cmd_draw: both eyes in one draw (viewMask 0b11) */
  bool reverse_z; /* the host's depth is reversed (SPLAT_RENDERER_CREATE_REVERSE_Z_BIT) */

  const splatsort *sorters[SPLAT_MAX_SORTERS]; /* the host's */
  uint32_t sorter_count;
  VkDescriptorSetLayout set_layout, raster_set_layout;
  VkPipelineLayout compute_layout, raster_layout;
  VkPipeline raster, host_raster; /* into the own target; into the host's pass */
  VkPipeline key_scan, key_compact; /* the depth sort's, after the projection (depth_sort.c) */
  VkCommandPool upload_pool;
  VkBufferUsageFlags extra_usage; /* tests/renderer_debug.c adds TRANSFER_SRC to read back */
  /* Device limits on one buffer (the smallest of maxStorageBufferRange, maxMemoryAllocationSize
   * and maxBufferSize), and on all of the renderer's device memory (the budget given at create,
   * else the largest device-local heap). */
  VkDeviceSize max_buffer, memory_limit;
  bool memory_limit_is_budget;
  uint32_t chunk_splats; /* tests/renderer_debug.c: splats per chunk (0: from max_buffer) */
  uint32_t sh_precision; /* splat_sh_precision of the scenes uploaded (never DEFAULT: 16 then) */
  uint32_t upload_threads; /* packing threads of an upload (never 0) */
  uint32_t upload_piece_splats; /* tests/renderer_debug.c: splats per staging piece (0: from its size) */
  uint32_t pack_min_splats; /* the fewest splats a packing thread gets (tests/renderer_debug.c: 1) */
  struct uploader *stream_ring; /* append_object's staging ring, kept while an object streams (upload.c) */

  object_gpu objects[SPLAT_MAX_OBJECTS];
  splat_upload_stats upload_stats; /* of the last upload (splat_renderer_upload_stats) */
  scene_gpu scene;
  uint32_t frame_count; /* frame slots projected in the last prepared frame */

  VkImage target;
  VkDeviceMemory target_memory;
  VkImageView target_view;
  uint32_t width, height;

  VkQueryPool queries;
  ssvk_buffer readback; /* visible count per slot */
  render_slot slot[SPLAT_MAX_FRAME_SLOTS];
  lod_cut_pipeline lod_pipe;                     /* made with the first LOD object */
  craster craster;
  pair_want pair_want;
  splatsort_result last_sorted; /* where the last recorded frame's sorted keys and indices are */
};

/* ---- gpu_memory.c: buffers, limits and the budget ---- */
void *render_host_alloc(const VkAllocationCallbacks *a, size_t size); /* zeroed */
void render_host_free(const VkAllocationCallbacks *a, void *p);
double render_mib(VkDeviceSize bytes);
/* Splats over every object. */
uint32_t render_objects_total(const splat_renderer *r);
/* True when `bytes` more device memory stay within the renderer's memory limit (budget or
 * heap); otherwise logs what `what` needs and what there is. */
bool render_memory_allows(splat_renderer *r, VkDeviceSize bytes, const char *what);
/* The memory limit less what the renderer's buffers hold now (0 when over). */
VkDeviceSize render_memory_free(const splat_renderer *r);
/* craster_env's allows and create_buffers: render_memory_allows and render_create_buffers of
 * the renderer `owner`. */
bool render_craster_allows(void *owner, VkDeviceSize bytes, const char *what);
VkResult render_craster_create_buffers(void *owner, const char *what, ssvk_buffer *const *b, const VkDeviceSize *size,
                                const VkBufferUsageFlags *usage, const char *const *name, size_t n);
/* The compute raster's buffers (craster_release) and the pairs estimate kept for them. */
void render_craster_release(splat_renderer *r);
/* Creates buffers b[0..n-1] (device-local, sizes and usages given) for `what`, checking each
 * against max_buffer; failures are logged with the memory in use. */
VkResult render_create_buffers(splat_renderer *r, const char *what, ssvk_buffer *const *b, const VkDeviceSize *size,
                               const VkBufferUsageFlags *usage, const char *const *name, size_t n);
/* The most splats one frame can hold: a record each in one storage buffer. */
uint32_t render_max_frame_splats(const splat_renderer *r);
/* The frame's shared buffers for n splats over all objects, and their release. */
VkResult render_create_frame_buffers(splat_renderer *r, scene_gpu *s, uint32_t n);
VkResult render_ensure_rays(splat_renderer *r);
void render_frame_buffers_destroy(splat_renderer *r, scene_gpu *s);
/* The SH storage of `coeffs` coefficients at a precision (8, 16, 32): its SP_SH_FORMAT_* and
 * uint32 words per splat; and an object's scene-buffer bytes (binding 0, 1, 2 of one chunk of
 * `count` splats, or of all its chunks with `chunks`). */
void render_sh_layout(uint32_t precision, uint32_t coeffs, uint32_t *format, uint32_t *words);
VkDeviceSize render_object_bytes(uint32_t format, uint32_t words, uint32_t count, uint32_t chunks);
/* Splats per chunk for an object's SH storage (each buffer within max_buffer). */
uint32_t render_chunk_splats(const splat_renderer *r, uint32_t sh_format, uint32_t sh_words);
void render_object_destroy(splat_renderer *r, object_gpu *o);
/* A LOD object's tree, pool tables and staging (NULL: nothing); render_object_destroy calls it. */
void render_lod_destroy(splat_renderer *r, object_lod *l);

/* ---- upload.c ---- */
/* Splats [first, first + count) of sc in the object's GPU layout (splat_shared.h): positions +
 * opacity, packed shapes, SH (sh_words words a splat), one thread. */
void render_pack_splats(const splat_scene *sc, const object_gpu *o, uint32_t first, uint32_t count, float *pos,
                        uint32_t *shape, uint32_t *sh);
/* Packs and copies `part` into an object's chunks after its resident splats (the caller has
 * checked it and counts it resident), adding to r->upload_stats' pack, wait and bytes. Blocking
 * through a ring of its own; or, `streaming`, through r->stream_ring (made at the first), returning
 * once the copies are submitted (a piece is waited for when it is packed again). On failure
 * every copy it submitted is done. */
VkResult render_upload(splat_renderer *r, object_gpu *o, const splat_scene *part, bool streaming);
/* Waits for the stream ring's copies and frees it (none: VK_SUCCESS). */
VkResult render_stream_ring_end(splat_renderer *r);
/* Packing and checking threads take at least this many splats each (a thread costs more than it
 * does below), and the threads for `count` splats so. */
#define RENDER_PACK_MIN_SPLATS 4096u
static inline uint32_t render_threads_for(const splat_renderer *r, uint32_t count) {
  uint32_t most = count / (r->pack_min_splats ? r->pack_min_splats : 1);
  return r->upload_threads < most ? r->upload_threads : most ? most : 1;
}
/* Monotonic seconds. */
double render_seconds(void);
/* fn(ctx, lo, hi) over [0, count) split in up to `threads` contiguous ranges, one a thread (the
 * calling thread takes the first, and any whose thread could not start); returns when all are
 * done (parallel.c). */
void render_parallel(uint32_t threads, uint32_t count, void (*fn)(void *ctx, uint32_t lo, uint32_t hi), void *ctx);

/* n floats as halves (splat_float_to_half's bits for finite values), two a word, low half first,
 * OR'ed into out (zeroed by the caller); F16C where the CPU has it unless the test switch
 * render_force_portable_halves is set. */
void render_pack_halves(const float *v, uint32_t n, uint32_t *out);
extern bool render_force_portable_halves;

/* upload_threads 0: the online cores, 1..SPLAT_DEFAULT_UPLOAD_THREADS. */
uint32_t render_default_upload_threads(void);

/* ---- lod.c ---- */
/* A LOD object's frame slots (its max_cut), other objects' resident splats. */
static inline uint32_t render_object_slots(const object_gpu *o) { return o->lod ? o->lod->max_cut : o->resident; }
/* The cuts of the frame's LOD objects (from f->camera and each instance's model); the caller's
 * barrier (compute writes to compute and transfer reads) makes them visible to the projection.
 * render_lod_readback copies the first drawn LOD object's cut count and threshold to the
 * readback (words 2 and 3 of the slot's). False: no LOD object drawn (nothing recorded). */
bool render_lod_record_cuts(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f);
void render_lod_readback(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f);
/* Transfer fills of the LOD objects' frame slots' keys with DS_CULLED (the projection writes only
 * the cut's), before render_sort_reset, whose barrier makes them visible. */
void render_lod_fill_keys(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *f);
/* camera-from-object (view * model) and the camera position in object space; identity
 * models are passed through untouched, so one object renders bit-identically to a scene. */
/* The SH degree an object of degree `object` is drawn at for splat_frame.sh_degree `frame`
 * (its encoding: splat_renderer.h, SPLAT_SH_DEGREE). */
static inline uint32_t render_sh_degree(int frame, uint32_t object) {
  if (frame <= SPLAT_SH_DEGREE_SCENE) return object;
  uint32_t cap = (uint32_t)frame & SPLAT_SH_DEGREE_EXPLICIT ? (uint32_t)frame & ~(uint32_t)SPLAT_SH_DEGREE_EXPLICIT
                                                            : (uint32_t)frame;
  return cap < object ? cap : object;
}

static inline void render_object_view(const splat_camera *cam, const float *model, float view[16], float campos[3]) {
  memcpy(campos, cam->position, 3 * sizeof(float));
  memcpy(view, cam->view, 16 * sizeof(float));
  if (!model) return;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      float v = 0;
      for (int k = 0; k < 4; k++) v += cam->view[k * 4 + r] * model[c * 4 + k];
      view[c * 4 + r] = v;
    }
  /* object = A^-1 (world - t) for the affine model A|t: A^-1 by its adjugate */
  const float *m = model;
  float a[9] = {m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]}; /* row-major 3x3 */
  float inv[9] = {a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                  a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                  a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
  float det = a[0] * inv[0] + a[1] * inv[3] + a[2] * inv[6];
  float d[3] = {cam->position[0] - m[12], cam->position[1] - m[13], cam->position[2] - m[14]};
  for (int r = 0; r < 3; r++) campos[r] = (inv[r * 3] * d[0] + inv[r * 3 + 1] * d[1] + inv[r * 3 + 2] * d[2]) / det;
}

/* ---- depth_sort.c ---- */
/* The scratch layout for n frame slots on every sorter of the renderer (logged errors). */
VkResult render_sort_layout(const splat_renderer *r, uint32_t n, sort_layout *l);
/* Before the projection: the draw, the header and the block counts reset. */
void render_sort_reset(splat_renderer *r, VkCommandBuffer cmd);
/* The depth sort's bindings of the compute layout; values: the sort's input payloads (or none). */
void render_sort_bindings(const splat_renderer *r, VkDescriptorBufferInfo *bi, splatsort_buffer values);
/* After the projection: scan, compaction and sorter k's sort of key_bits keys; the visible count
 * in the draw's instanceCount, the sorted frame slots in the indices buffer (*sorted). */
VkResult render_record_sort(splat_renderer *r, VkCommandBuffer cmd, int k, uint32_t key_bits, uint32_t count,
                            splatsort_result *sorted);

/* Workgroups of SP_PROJECT_WORKGROUP for `threads`, split over y beyond the device's x limit. */
static inline void render_dispatch_1d(splat_renderer *r, VkCommandBuffer cmd, uint32_t threads) {
  ssvk_dispatch_1d(&r->vk, cmd, (threads + SP_PROJECT_WORKGROUP - 1) / SP_PROJECT_WORKGROUP,
                   r->props.limits.maxComputeWorkGroupCount[0]);
}

/* ---- frame.c ---- */
void render_target_destroy(splat_renderer *r);
/* The index of the sorter of algorithm a (AUTO: the first), or -1; and the frame's pick (AUTO:
 * splatsort_choose_algorithm for the splat count and key_bits where that sorter was given). */
int render_find_sorter(const splat_renderer *r, splatsort_algorithm a);
int render_frame_sorter(const splat_renderer *r, splatsort_algorithm a, uint32_t key_bits);
/* A splat's depth in the host's projection is dp[0] + dp[1] / view z (clamped to [0, 1]):
 * frame.znear -> 0, frame.zfar -> 1, or reversed (1 -> 0) with reverse-Z. */
static inline void render_host_depth_proj(const splat_renderer *r, const splat_frame *f, float dp[2]) {
  float n = f->znear > 0 ? f->znear : 0.01f, fa = f->zfar > n ? f->zfar : 1000.0f;
  if (r->reverse_z) {
    dp[0] = -n / (fa - n);
    dp[1] = fa * n / (fa - n);
  } else {
    dp[0] = fa / (fa - n);
    dp[1] = -fa * n / (fa - n);
  }
}

#define rlog(r, ...) ssvk_log(&(r)->vk, __VA_ARGS__)

/* requirements.c: the device against splat_renderer_get_device_requirements and what the host
 * says it enabled (info->device_create_info), before anything is made: VK_SUCCESS, or the error
 * create returns, with one log line. */
VkResult render_check_device(splat_renderer *r, const splat_renderer_create_info *info);

#endif
