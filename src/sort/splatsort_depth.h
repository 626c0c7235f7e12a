/* splatsort_depth.h: the depth-sort stage of a Gaussian-splat renderer, recorded into the
 * host's command buffer. From the host's own buffer of splat centres and its view-projection
 * matrix it culls the splats (behind the camera, outside the frustum with a margin, and
 * optionally nearly transparent ones), builds back-to-front depth keys (32-bit exact or
 * 16..24-bit quantised over the visible depth range), sorts them with the host's sorter
 * (splatsort.h) and leaves the visible splats' indices, back to front, in the host's buffer,
 * with the visible count written on the GPU where the host's indirect draw reads it. Nothing
 * comes back to the CPU.
 *
 *   splatsort_depth_create()                 -> one stage per sorter
 *   splatsort_depth_get_memory_requirements() -> the host allocates a scratch buffer
 *   splatsort_depth_cmd_sort()               -> every frame, between its own passes
 *
 * Same conventions as splatsort.h: VkResult errors with a log line naming the argument, the
 * host owns every buffer, const stage during recording (several threads may record with one
 * stage into different command buffers), debug utils only with SPLATSORT_CREATE_DEBUG_UTILS_BIT. */
#ifndef SPLATSORT_DEPTH_H
#define SPLATSORT_DEPTH_H

#include "splatsort.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct splatsort_depth splatsort_depth;

/* splatsort_depth_create_info::flags, beside SPLATSORT_CREATE_DEBUG_UTILS_BIT and (testing)
 * SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT: the one-pass key pass treats every
 * predecessor tile as stalled and counts its splats itself (correct, slow). */
typedef enum splatsort_depth_create_flag_bits {
  /* The key pass as three dispatches (keys, a scan of per-workgroup counts, an ordered
   * compaction) instead of one with a decoupled lookback: the same results, more memory
   * traffic; for A/B measurements. Also the form a device gets without subgroup basic,
   * ballot and arithmetic operations in compute shaders. */
  SPLATSORT_DEPTH_CREATE_THREE_PASS_KEYS_BIT = 1u << 8,
} splatsort_depth_create_flag_bits;

typedef struct splatsort_depth_create_info {
  const void *next;              /* reserved: must be NULL */
  const splatsort *sorter;       /* required; the stage records with it and it must outlive the stage */
  VkPipelineCache pipeline_cache; /* optional */
  /* optional; also used at destroy; all three allocation functions set (as at splatsort_create) */
  const VkAllocationCallbacks *allocator;
  uint32_t flags;                /* SPLATSORT_CREATE_DEBUG_UTILS_BIT, splatsort_depth_create_flag_bits */
  splatsort_log_fn log;          /* optional */
  void *log_user;
} splatsort_depth_create_info;

/* The stage's pipelines, on the sorter's device (through the sorter's Vulkan functions).
 * VK_ERROR_VALIDATION_FAILED_EXT (with a log line): NULL info/out/sorter, next != NULL, unknown
 * flags, an allocator with a NULL pfnAllocation, pfnReallocation or pfnFree (or only one of
 * the internal pair). */
SPLATSORT_API VkResult splatsort_depth_create(const splatsort_depth_create_info *info, splatsort_depth **out);
/* Accepts NULL. No command buffer recorded with the stage may still be pending. */
SPLATSORT_API void splatsort_depth_destroy(splatsort_depth *stage);

/* The scratch buffer for up to max_count splats (1..splatsort_max_count of the sorter), and
 * what the indices and count buffers need. scratch: scratch_size bytes, usage scratch_usage;
 * indices: indices_size bytes, usage indices_usage; both offsets multiples of `alignment`.
 * count_buffer (indirect counts only): count_usage. The centres and draw_count buffers need
 * VK_BUFFER_USAGE_STORAGE_BUFFER_BIT (and whatever the host's own use of them needs).
 * VK_ERROR_VALIDATION_FAILED_EXT for a NULL stage or requirements, and (with a log line) when
 * max_count is 0 or above splatsort_max_count(). */
typedef struct splatsort_depth_memory_requirements {
  VkDeviceSize scratch_size;       /* one range: keys, scratch, the sort's internal buffer */
  VkBufferUsageFlags scratch_usage;
  VkDeviceSize indices_size;       /* 4 * max_count */
  VkBufferUsageFlags indices_usage;
  VkDeviceSize alignment;          /* of scratch.offset and indices.offset */
  VkBufferUsageFlags count_usage;  /* count_buffer, read on the GPU (indirect variant) */
} splatsort_depth_memory_requirements;
SPLATSORT_API VkResult splatsort_depth_get_memory_requirements(const splatsort_depth *stage, uint32_t max_count,
                                                             splatsort_depth_memory_requirements *requirements);

/* What the keys measure, back to front in both cases. */
typedef enum splatsort_depth_key_mode {
  SPLATSORT_DEPTH_KEY_VIEW_DEPTH = 0, /* clip w: the view-space depth of a perspective projection */
  SPLATSORT_DEPTH_KEY_RADIAL = 1,     /* distance to camera_position: steady while the camera turns
                                         (the draft glTF Gaussian-splatting extension's order) */
} splatsort_depth_key_mode;

typedef struct splatsort_depth_info {
  const void *next;              /* reserved: must be NULL */
  uint32_t max_count;            /* what scratch and indices were sized for */
  /* Splat count: `count` (at most max_count), or a uint32 at count_buffer.offset (a multiple
   * of 4) read on the GPU when count_buffer.buffer is set, clamped to max_count there. */
  uint32_t count;
  splatsort_buffer count_buffer;
  /* Centres: splat i's x, y, z are the floats at centers.offset + i * center_stride
   * (center_stride a multiple of 4, at least 12; 0: tightly packed, 12, or 16 with opacity_cull;
   * usage STORAGE_BUFFER). With opacity_cull, a fourth float after them is the splat's opacity
   * (0..1) and splats below 1/255 are culled, as the reference rasterizer skips them. */
  splatsort_buffer centers;
  uint32_t center_stride;
  uint32_t opacity_cull;
  /* world -> clip, column-major (proj * view). Any convention whose clip w is the view depth
   * (perspective projections, OpenGL or Vulkan style): the keys order by clip w. All 16 finite. */
  float view_proj[16];
  float frustum_margin;          /* visible: |x|, |y| <= margin * w; 0 means 1.3 (3DGS's); finite */
  float near_w;                  /* visible: w > near_w (e.g. the near plane distance); may be 0; finite */
  uint32_t key_bits;             /* 32 (exact), or 16..31 (quantised: fewer sort passes); 0 = 32 */
  splatsort_depth_key_mode key_mode; /* culling is by clip space either way */
  float camera_position[3];      /* world space; used (and then must be finite) by SPLATSORT_DEPTH_KEY_RADIAL */
  splatsort_buffer scratch;      /* scratch_size bytes, scratch_usage */
  /* out: visible splat indices, back to front (farthest first); splats of equal key in input
   * order (lower index first): the compaction keeps index order and every sort is stable. */
  splatsort_buffer indices;
  /* Optional: a uint32 at draw_count.offset (a multiple of 4; usage STORAGE_BUFFER) receives
   * the visible count, e.g. the instanceCount of a VkDrawIndirectCommand (offset + 4). */
  splatsort_buffer draw_count;
  /* Optional timestamps: splatsort_depth_timestamp_count() queries from first_query on (see
   * splatsort_depth_timestamp_count for what each holds and who resets them). */
  VkQueryPool query_pool;
  uint32_t first_query;
  uint32_t query_count;          /* optional: the pool's size, checked against; 0: not given (see splatsort_sort_info) */
} splatsort_depth_info;

/* Records the stage into `cmd` (compute-capable, outside a render pass). It binds its own
 * pipelines, descriptors and push constants (re-bind yours afterwards).
 *
 * Synchronisation contract:
 *   before: writes to centers and count_buffer visible to COMPUTE_SHADER / SHADER_READ; no
 *           earlier use of scratch, indices, draw_count or the queries still running.
 *   after:  indices and draw_count are written by COMPUTE_SHADER / SHADER_WRITE: barrier to
 *           your consumer (e.g. VERTEX_SHADER / SHADER_READ and DRAW_INDIRECT /
 *           INDIRECT_COMMAND_READ).
 * Indices beyond the visible count are left undefined. Order: by key, farthest first; splats
 * whose keys are equal (the same depth, or the same quantised step) come out in input order,
 * lower index first. *result (optional): where the sorted keys (in scratch) and indices
 * (= info->indices) are, as splatsort_cmd_sort reports them.
 *
 * Errors (nothing recorded; with a log line naming the argument and its value, except for NULL
 * stage, cmd or info): VK_ERROR_VALIDATION_FAILED_EXT for NULL arguments, next != NULL,
 * max_count 0 or above the sorter's maximum, a direct count above max_count, key_bits outside
 * 16..32 (0 means 32), a bad center_stride, a NaN or infinite element of view_proj (or of
 * camera_position for radial keys), a negative or non-finite frustum_margin or near_w, an
 * unknown key_mode, missing buffers, ranges smaller than needed, misaligned or whose offset +
 * size passes 2^64 - 1, a written range (scratch, indices, draw_count) sharing a byte of its
 * VkBuffer with another range, timestamps past 2^32 or past query_count where given. */
SPLATSORT_API VkResult splatsort_depth_cmd_sort(const splatsort_depth *stage, VkCommandBuffer cmd,
                                                const splatsort_depth_info *info, splatsort_result *result);

/* Number of timestamp queries splatsort_depth_cmd_sort writes for key_bits (0 = 32) when
 * info->query_pool is set, from first_query on: 1 + splatsort_timestamp_count() of the sorter.
 * 0 for a NULL stage or key_bits outside 16..32.
 *   first_query + 0       the stage's start, before any of its work
 *   first_query + 1       the end of the key pass (keys, culling and compaction): the sort's
 *                         first timestamp, written when the sort starts
 *   first_query + 1 + k   the sort's timestamp k (k >= 1): the end of the sort's stage k
 * splatsort_depth_timestamp_label names each. All are written with
 * VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT. The stage resets the whole range itself, in `cmd`
 * before it writes them (vkCmdResetQueryPool), so the host does not reset it; the pool must
 * have at least first_query + count queries, and the host reads them after the command
 * buffer has completed (vkGetQueryPoolResults), the ticks scaled by timestampPeriod. */
SPLATSORT_API uint32_t splatsort_depth_timestamp_count(const splatsort_depth *stage, uint32_t key_bits);

/* Name of the part of the stage that ends at timestamp `index` (1 .. count-1), as
 * splatsort_timestamp_label names the sort's: "key pass" for 1, then the sort's labels
 * ("pass 0", "histogram", ...) for 2 and on. "" for index 0 (the start), an index out of
 * range, a NULL stage or key_bits outside 16..32. Static strings. */
SPLATSORT_API const char *splatsort_depth_timestamp_label(const splatsort_depth *stage, uint32_t key_bits,
                                                          uint32_t index);

#ifdef __cplusplus
}
#endif
#endif
