/* splat_renderer.h: the splat renderer. Per frame, recorded into the caller's command buffer:
 * projection (compute: culling, EWA covariance, SH colour, depth key + splat index for each
 * visible splat), the GPU sort of the keys (splatsort, indirect count: no read-back), and a
 * raster pass drawing the splats back to front with premultiplied "over" blending into an
 * RGBA16F image the renderer owns. Per-stage GPU timestamps are kept per frame slot.
 *
 * Order: the visible splats enter the sort compacted in splat index order and the sort is
 * stable, so splats with equal keys are drawn in index order (the higher index in front), and
 * a frame's image does not depend on the sort algorithm or on GPU scheduling. 32-bit keys are
 * ~float_bits(view z), computed exactly as splat_depth_key (splat_project.h) does on the CPU.
 *
 * The host makes the sorter(s) (splatsort.h) and hands them in; what the device must have
 * enabled (Vulkan 1.3 dynamicRendering, push descriptors, limits) comes from
 * splat_renderer_get_device_requirements, and create checks it. Library code: errors come back
 * as VkResult with a message through the log callback; nothing aborts or prints. */
#ifndef SPLAT_RENDERER_H
#define SPLAT_RENDERER_H

#include "splat_camera.h"
#include "splat_project.h"
#include "splat_scene.h"
#include "splatsort.h"
#include "splatsort_depth.h"

#include <stdbool.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct splat_renderer splat_renderer;

#define SPLAT_MAX_FRAME_SLOTS 4
#define SPLAT_MAX_OBJECTS 16
#define SPLAT_TARGET_FORMAT VK_FORMAT_R16G16B16A16_SFLOAT

typedef enum splat_renderer_create_flag_bits {
  /* The host enabled VK_EXT_debug_utils: name the renderer's objects and label its regions. */
  SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT = 1u << 0,
  /* The host's depth buffer is reversed (near = 1, far = 0): test GREATER_OR_EQUAL. */
  SPLAT_RENDERER_CREATE_REVERSE_Z_BIT = 1u << 1,
  /* Stereo frames (splat_frame.eyes): one cull and sort from the frame's camera (a point
   * between the eyes), records for each eye, one draw per eye. Doubles the record buffer. */
  SPLAT_RENDERER_CREATE_STEREO_BIT = 1u << 2,
  /* With STEREO_BIT: cmd_draw draws both eyes in one draw through multiview (Vulkan 1.1,
   * VK_KHR_multiview): the host pass is a dynamic-rendering pass with viewMask 0b11 on
   * 2-layer attachments (layer = eye), and the host has enabled the `multiview` feature
   * (VkPhysicalDeviceMultiviewFeatures / Vulkan11Features) on its device. frame.eye is then
   * ignored by cmd_draw. cmd_render (the renderer's own one-layer target) keeps drawing eye
   * `eye`. Needs host_color_format (dynamic rendering; not host_render_pass); without the
   * feature, leave the flag off and call cmd_draw once per eye (one layer each). */
  SPLAT_RENDERER_CREATE_MULTIVIEW_BIT = 1u << 3,
} splat_renderer_create_flag_bits;

#define SPLAT_MAX_SORTERS 4
#define SPLAT_MAX_UPLOAD_THREADS 64
#define SPLAT_DEFAULT_UPLOAD_THREADS 16

/* How a frame's sorted splats become pixels (splat_frame.raster). Both give the reference
 * rasterizer's image (the project's CPU reference renderer, in its tests) within rounding; they differ where a pixel is nearly
 * opaque (the compute raster stops a pixel once its transmittance would fall below 1e-4, as
 * the reference does; quads blended back to front cannot) and in the target's rounding (the
 * graphics raster blends each quad into RGBA16F, the compute raster sums in 32-bit floats).
 *   GRAPHICS: one quad per splat through the graphics pipeline, back to front. Fast where
 *             there are many raster units (desktop GPUs); the path into the host's pass.
 *   COMPUTE:  16x16-pixel tiles in compute: (tile, splat) pairs for every tile where the
 *             splat's quad and its ellipse at the blend's alpha cut (1/255) both reach a pixel
 *             centre (the same image as pairs for the whole quad, with fewer pairs), sorted by tile with the frame's sorter (stable, so each tile's list
 *             stays front to back), then one workgroup per tile blends its list front to back.
 *             For GPUs with few raster units (H100, H200, A100: data-centre parts), where it is
 *             many times faster (docs/performance.md). Into the renderer's target
 *             (splat_renderer_cmd_render) or over the host's colour, depth-tested against
 *             its depth (splat_renderer_cmd_render_into). The pairs' buffers are sized before
 *             each frame is recorded from the pairs it will need, counted on the CPU from a
 *             sample of each object's splats (every splat of an object of up to 16,384; see
 *             docs/performance.md), so a host's first frame is complete; they grow ahead of a
 *             frame that needs more (to 1.25x) and after one that needed more than estimated.
 *             Where they still cannot hold a frame's pairs (the memory budget or the device;
 *             the sorters' largest count) the frame draws the pairs that fit (its farthest
 *             splats' are left out; nothing is written out of bounds) and the log callback
 *             says so when the frame is recorded and again once its count is read back
 *             (splat_timings.pairs). */
typedef enum splat_raster_path {
  SPLAT_RASTER_GRAPHICS = 0,
  SPLAT_RASTER_COMPUTE = 1,
} splat_raster_path;

/* How the compute raster orders each pixel's splats (splat_frame.order).
 *   GLOBAL:    every pixel blends its splats in the depth-sort stage's order: the camera-space
 *              depth (or radial distance) of their centres, one order for the whole image, as
 *              the reference 3DGS rasterizer. Two overlapping splats whose centres swap depth
 *              while the camera moves swap everywhere at once: "popping".
 *   PER_PIXEL: every pixel blends its splats in the order of their depth along its own ray
 *              (where the ray meets the Gaussian's maximum: splat_project_ray_depth in
 *              splat_project.h), after StopThePop (Radl et al., SIGGRAPH 2024), in two levels:
 *              each 16x16 tile's list is sorted by the splats' depths at the tile (the pair
 *              sort's keys), then each pixel passes its splats through a window of
 *              `order_window` slots (1..16; 0: 8) that blends the nearest whenever a new one
 *              arrives on a full window. Exact while a pixel's splats are out of order by less
 *              than the window; docs/ordering.md measures how often they are not (a splat then
 *              blends after a farther one) and the cost (6M splats at 1080p on an H200: 1.46x
 *              the global order's frame at window 8). The projection also writes 32 bytes of
 *              ray coefficients per visible splat (memory made on the first such frame).
 * Only the compute raster orders per pixel: cmd_render with SPLAT_RASTER_GRAPHICS and cmd_draw
 * blend in the global order whatever the frame says (quads are blended by the fixed-function
 * blender in draw order). cmd_render_into uses the order the frame was prepared with:
 * PER_PIXEL there needs a cmd_prepare with PER_PIXEL. */
typedef enum splat_order {
  SPLAT_ORDER_GLOBAL = 0,
  SPLAT_ORDER_PER_PIXEL = 1,
} splat_order;
#define SPLAT_ORDER_WINDOW_DEFAULT 8
#define SPLAT_ORDER_WINDOW_MAX 16

/* Anti-aliased scenes (splat_frame.antialias): a scene trained with the 2D filter of
 * mip-splatting / gsplat's "antialiased" mode is drawn with each splat's opacity times
 * sqrt(det(C) / det(C + 0.3 I)), C its 2D covariance before the dilation (splat_project in
 * splat_project.h is the specification). Each object keeps its scene's SPLAT_SCENE_ANTIALIASED flag
 * (what its file says, splat_scene.h) from the upload; a frame may override it for all objects. */
typedef enum splat_antialias {
  SPLAT_ANTIALIAS_AUTO = 0, /* each object as its scene says */
  SPLAT_ANTIALIAS_OFF = 1,  /* no object */
  SPLAT_ANTIALIAS_ON = 2,   /* every object */
} splat_antialias;

typedef struct splat_renderer_create_info {
  VkPhysicalDevice physical_device;
  VkDevice device;
  VkQueue queue;                 /* used by splat_renderer_set_scene for uploads */
  uint32_t queue_family;
  /* The host's sorters (splatsort_create on this device), 1..SPLAT_MAX_SORTERS, one per
   * algorithm; a frame picks one by its algorithm. The renderer only reads them; they must
   * outlive it. */
  const splatsort *const *sorters;
  uint32_t sorter_count;
  const VkAllocationCallbacks *allocator; /* optional; also used at destroy */
  VkPipelineCache pipeline_cache;         /* optional */
  uint32_t frame_slots;          /* frames in flight with their own timestamps (1..4; 0 = 1) */
  uint32_t flags;                /* splat_renderer_create_flag_bits */
  /* Drawing into the host's own pass (splat_renderer_cmd_draw): the formats and sample count
   * of its dynamic-rendering attachments. UNDEFINED colour: no such pipeline. With a depth
   * format the splats are depth-tested (LESS_OR_EQUAL; GREATER_OR_EQUAL with
   * SPLAT_RENDERER_CREATE_REVERSE_Z_BIT) against the host's depth, never writing it. */
  VkFormat host_color_format;
  VkFormat host_depth_format;
  VkSampleCountFlagBits host_samples; /* 0: one */
  /* Or, for a host still on render passes: its pass and subpass (one colour attachment, an
   * optional depth one; host_depth_format says whether there is one; the formats are the
   * pass's). splat_renderer_cmd_draw is then recorded inside that subpass. */
  VkRenderPass host_render_pass;
  uint32_t host_subpass;
  /* Optional, dynamic rendering only: a second colour attachment of this format (e.g.
   * VK_FORMAT_R32G32B32A32_SFLOAT) receives (view z * alpha, 0, 0, alpha) blended "over" like
   * the colour: red / alpha is the transmittance-weighted depth of the splats at each pixel
   * (for post effects and later passes; clear it to zero). */
  VkFormat host_depth_output_format;
  /* Optional: the most device memory (bytes) this renderer's scenes and frame buffers may use;
   * a scene that needs more is refused with a message (the previous one stays). 0: the size of
   * the largest device-local heap. */
  VkDeviceSize memory_budget;
  /* Optional: the least first capacity of the compute raster's pairs ((tile, splat) pairs; each
   * costs 16 bytes plus the sort's scratch); a frame estimated to need more gets more. 0: four
   * per splat of the frame, at least 65,536. */
  uint32_t initial_pair_capacity;
  /* Optional: how the SH coefficients of every scene uploaded are stored on the GPU
   * (splat_sh_precision, splat_project.h): 32 (floats, exact), 16 (halves), or 8 (one byte
   * each, with a scale and an offset per SH band and channel over each object: 54-58 dB
   * against 16 on the test scenes; splat_renderer_memory says what each costs). 0: 16. The rest of
   * a splat is stored alike at every precision: position and opacity as floats, the rotation as
   * 4 snorm16, the scales as halves (splat_pack_shape). Anything else: VK_ERROR_VALIDATION_FAILED_EXT. */
  uint32_t sh_precision;
  /* Optional: the CPU threads that pack a scene's splats into the GPU layout during
   * splat_renderer_set_scene / add_object / append_object (the bulk of an upload: SH to halves
   * or bytes, the shapes); each packs a slice of every staging piece (of at least 4,096 splats:
   * fewer threads for smaller pieces), and the bytes stored are the same at any count. 0: the machine's online cores, at most SPLAT_DEFAULT_UPLOAD_THREADS; 1: the
   * calling thread only. At most SPLAT_MAX_UPLOAD_THREADS, else VK_ERROR_VALIDATION_FAILED_EXT.
   * A thread that cannot be started leaves its slice to the calling thread. */
  uint32_t upload_threads;
  splatsort_log_fn log;
  void *log_user;
  /* Optional, as splatsort_create_info's (splatsort.h, splatsort_vulkan_functions): every
   * Vulkan function the renderer calls is looked up through these, the instance-level ones
   * with `instance` (required with them). NULL: the Vulkan loader linked with the program. A
   * host that loads Vulkan itself passes the same to its sorters and here; so do the
   * project's fault-injection tests, to fail chosen calls. */
  VkInstance instance;
  const splatsort_vulkan_functions *vulkan_functions;
  /* Recommended: the VkDeviceCreateInfo the host made `device` with (read during create only:
   * its extension names and the feature structures on its pNext chain; its queue infos are not
   * read). The renderer cannot read back what a VkDevice has enabled, so the host says; create
   * checks it against splat_renderer_get_device_requirements and refuses, in one log line, a
   * device made without what it needs. NULL: only what the physical device offers is checked
   * (a device made without dynamicRendering or push descriptors then fails later, in pipeline
   * creation or recording, with the validation layer's messages). */
  const VkDeviceCreateInfo *device_create_info;
} splat_renderer_create_info;

/* What a VkDevice must have for a renderer created with `flags` (splat_renderer_create_flag_bits)
 * on this physical device, for the host to merge into its VkDeviceCreateInfo, as
 * splatsort_get_device_requirements (splatsort.h) is for a sorter.
 *
 * Two-call idiom for the extension list: call with extension_names == NULL to get
 * extension_count, then with an array of that many entries. The names are static strings. The
 * list holds the renderer's own extensions and those splatsort_get_device_requirements gives
 * for SPLATSORT_ALGORITHM_AUTO, each once (a host that makes sorters of other algorithms merges
 * theirs too); extensions core in the device's API version are not listed.
 *
 * required (splat_renderer_create refuses a device without them, naming the first missing):
 *   api_version            minimum VkPhysicalDeviceProperties::apiVersion: Vulkan 1.3
 *   extension names        in VkDeviceCreateInfo::ppEnabledExtensionNames (VK_KHR_push_descriptor
 *                          where the device offers it; a device without it needs Vulkan 1.4)
 *   dynamic_rendering      VK_TRUE: enable VkPhysicalDeviceVulkan13Features::dynamicRendering
 *                          (or VkPhysicalDeviceDynamicRenderingFeatures) on the pNext chain
 *   multiview              VK_TRUE with SPLAT_RENDERER_CREATE_MULTIVIEW_BIT: enable
 *                          VkPhysicalDeviceVulkan11Features::multiview (or
 *                          VkPhysicalDeviceMultiviewFeatures)
 *   limits                 each VkPhysicalDeviceLimits member of that name must be at least the
 *                          value given (the largest the renderer's pipelines use)
 *   queue                  create_info.queue_family must have graphics and compute and
 *                          timestamps (VkQueueFamilyProperties::timestampValidBits > 0)
 * optional (the sorters'; never needed for correctness):
 *   subgroup_size_control  as splatsort_device_requirements' (enable it, then pass
 *                          SPLATSORT_FEATURE_SUBGROUP_SIZE_CONTROL_BIT to splatsort_create)
 *
 * Returns VK_SUCCESS; VK_INCOMPLETE when extension_names is too small (the first
 * *extension_count names are written); VK_ERROR_FEATURE_NOT_PRESENT when the physical device
 * cannot meet them (below Vulkan 1.3, no dynamicRendering, no multiview where asked, a limit
 * below the requirement, no push descriptors; *requirements is filled all the same);
 * VK_ERROR_VALIDATION_FAILED_EXT for a NULL argument or an unknown flag. */
typedef struct splat_renderer_device_requirements {
  uint32_t api_version;
  uint32_t extension_count;
  const char **extension_names;
  VkBool32 dynamic_rendering;
  VkBool32 multiview;
  VkBool32 subgroup_size_control;
  uint32_t max_compute_work_group_invocations;
  uint32_t max_compute_work_group_size[3];
  uint32_t max_compute_shared_memory_size;
  uint32_t max_push_constants_size;
  uint32_t max_per_stage_descriptor_storage_buffers;
} splat_renderer_device_requirements;

VkResult splat_renderer_get_device_requirements(VkPhysicalDevice physical_device, uint32_t flags,
                                                splat_renderer_device_requirements *requirements);
/* The same for hosts that load Vulkan themselves (splatsort_vulkan_functions, splatsort.h). */
VkResult splat_renderer_get_device_requirements_with(const splatsort_vulkan_functions *functions, VkInstance instance,
                                                     VkPhysicalDevice physical_device, uint32_t flags,
                                                     splat_renderer_device_requirements *requirements);

/* Errors, each with one log line naming the argument or what is missing; *out stays NULL and
 * nothing is created:
 *   VK_ERROR_VALIDATION_FAILED_EXT  missing handles, a device_create_info that is not one, no or too many
 *       sorters, two sorters of one algorithm, too many frame slots, an unknown sh_precision,
 *       upload_threads above SPLAT_MAX_UPLOAD_THREADS, or vulkan_functions that do not give a
 *       function the renderer calls (or without an instance);
 *   VK_ERROR_EXTENSION_NOT_PRESENT  an extension splat_renderer_get_device_requirements requires
 *       for the renderer itself is not in device_create_info (or its functions are missing);
 *   VK_ERROR_FEATURE_NOT_PRESENT    the device is below Vulkan 1.3, a required feature is not on
 *       device_create_info's pNext chain, a limit is below the requirement, or the queue
 *       family lacks graphics, compute or timestamps.
 * The device is checked before any pipeline is made, so a device that cannot run the renderer
 * gives this one message and no validation errors. */
VkResult splat_renderer_create(const splat_renderer_create_info *info, splat_renderer **out);
/* Destroys everything. Accepts NULL. The caller must make sure no submitted frame still uses
 * the renderer (e.g. vkDeviceWaitIdle or its own fences). */
void splat_renderer_destroy(splat_renderer *r);

/* Uploads a scene (blocking: packed on the calling thread and up to upload_threads - 1 more,
 * copied on the queue through a staging ring of a few pieces, each waited for by its fence;
 * returns once the last copy is done). On failure the previous scene stays loaded and usable.
 * On success the previous scene's buffers are freed at once, so the caller must make sure no
 * submitted frame still uses them (wait for its frames first). The scene's CPU arrays are
 * only read, and not kept: a loaded file's (splat_scene_load) or the host's own arrays
 * wrapped in a splat_scene (splat_scene.h, "A scene from the host's own arrays", says what
 * each holds).
 * Errors (each logged with what is wrong; the previous scene or objects stay):
 *   VK_ERROR_VALIDATION_FAILED_EXT  NULL renderer or scene, count 0, sh_degree above 3 or
 *       sh_coeffs not (sh_degree + 1)^2, a NULL array, or a value outside the scene's
 *       contract, the first one named by splat: a non-finite position or SH coefficient, a
 *       scale that is negative or not finite, a rotation whose length is not 1 (+-1e-3), an
 *       opacity outside [0, 1] (every value is checked, one pass over the arrays);
 *   VK_ERROR_OUT_OF_DEVICE_MEMORY   more than the memory budget, the device or one frame
 *       holds (checked before the values), or an allocation failed;
 *   others from Vulkan as they come. */
VkResult splat_renderer_set_scene(splat_renderer *r, const splat_scene *scene);
uint32_t splat_renderer_scene_count(const splat_renderer *r);

/* The most splats one frame can hold over all objects (a record each in one storage buffer of the
 * device's largest size): what a host gives splat_load_options.max_splats so that a file it could
 * never draw is refused from its header, before it is decoded. */
uint32_t splat_renderer_max_frame_splats(const splat_renderer *r);

/* Device memory the renderer holds, in bytes. The scene's three buffers over every object
 * (per splat: positions 16 bytes, shapes 16 bytes, SH by the create info's sh_precision: 3 *
 * (sh_degree + 1)^2 values at 4, 2 or 1 bytes each, rounded up to 4 bytes a splat, plus 384
 * bytes of 8-bit scale and offset tables per object chunk), then the frame's shared buffers
 * (records, depths, the fused depth sort's keys and values, the compute raster's pairs and
 * image). */
typedef struct splat_renderer_memory_info {
  uint32_t splats;               /* over every object */
  VkDeviceSize positions;        /* position + opacity */
  VkDeviceSize shapes;           /* rotation + scale (the packed covariance) */
  VkDeviceSize sh;               /* SH coefficients, with the 8-bit tables */
  VkDeviceSize frame;            /* the frame's shared buffers and the compute raster's */
} splat_renderer_memory_info;

/* Fills *out; bytes per splat of a buffer are its field / splats. VK_ERROR_VALIDATION_FAILED_EXT
 * for NULL arguments (out untouched). Reads only host-side sizes: any time, no GPU work. */
VkResult splat_renderer_memory(const splat_renderer *r, splat_renderer_memory_info *out);

/* Several splat sets (objects) in one frame, sorted together: each added object keeps its own
 * GPU arrays, so adding, removing or moving one uploads nothing else. add_object uploads like
 * set_scene (blocking) and returns its id (< SPLAT_MAX_OBJECTS); the frame's shared buffers grow
 * to the total, so, as for set_scene, no submitted frame may still use the renderer then.
 * set_scene replaces every object by one (id 0). remove_object frees one (same rule). */
/* add_object checks the scene as set_scene does (same errors; also VK_ERROR_OUT_OF_HOST_MEMORY
 * when SPLAT_MAX_OBJECTS are loaded, and VK_ERROR_VALIDATION_FAILED_EXT for a NULL id). */
VkResult splat_renderer_add_object(splat_renderer *r, const splat_scene *scene, uint32_t *id);
VkResult splat_renderer_remove_object(splat_renderer *r, uint32_t id);

/* A streamed object: its splats arrive in parts (e.g. as a file decodes: splat_load_options.on_part
 * in splat_scene.h) and frames draw the part that has arrived. begin_object makes the object's
 * GPU arrays for `count` splats at once (nothing copied yet); each append_object copies the next
 * splats after those already resident; frames recorded after an append project, sort and draw
 * splats [0, resident) of the object (slots as for a scene of those splats alone, so the image is
 * that scene's); finish_object ends it early when fewer splats came than announced.
 * add_object is begin_object + one append_object of the whole scene, set_scene the same in place
 * of every object: one upload path, the same bytes on the GPU.
 * 8-bit SH (create_info.sh_precision 8): the object's scale and offset tables
 * (splat_sh8_range) are computed over the first part appended, as an upload computes them over
 * its whole scene; a value of a later part outside that part's range of its band and channel is
 * stored as the nearest end of the range (splat_sh8_encode clamps), so within the range a value
 * is off by at most half a step (scale / 2), outside it by its distance from the range more.
 * Append a first part that represents the scene (a file's first decoded part, its first few
 * thousand splats, is a sample of it, not a guarantee), or use 16. */
typedef struct splat_object_desc {
  const void *next;   /* reserved for later; must be NULL */
  uint32_t count;     /* the splats to come, >= 1 */
  uint32_t sh_degree; /* 0..SPLAT_SCENE_MAX_SH_DEGREE: every part's */
  uint32_t flags;     /* splat_scene_flag_bits (SPLAT_SCENE_ANTIALIASED): as a scene's */
} splat_object_desc;

/* Makes an object of desc->count splats, none resident, and returns its id. The frame's shared
 * buffers grow to the new total, so, as for add_object, no submitted frame may still use the
 * renderer. Frames may draw it (at 0 splats it draws nothing) as soon as it exists.
 * Errors (logged; the objects stay as they were): VK_ERROR_VALIDATION_FAILED_EXT for NULL
 * arguments, a count of 0, a degree above 3 or desc->next not NULL; VK_ERROR_OUT_OF_HOST_MEMORY
 * when SPLAT_MAX_OBJECTS are loaded; VK_ERROR_OUT_OF_DEVICE_MEMORY above the memory budget, the
 * device or one frame (as add_object), or when an allocation fails. */
VkResult splat_renderer_begin_object(splat_renderer *r, const splat_object_desc *desc, uint32_t *id);
/* Whether begin_object(desc) would fit the memory budget, the device and one frame: beside the
 * objects loaded, or (`alone`) in place of them all (a host that would free its current scene
 * for a new one asks first). VK_SUCCESS; VK_ERROR_OUT_OF_DEVICE_MEMORY with the message
 * begin_object would log; VK_ERROR_VALIDATION_FAILED_EXT for a desc begin_object refuses.
 * Reads only host-side sizes: any time, no GPU work. */
VkResult splat_renderer_object_fits(splat_renderer *r, const splat_object_desc *desc, bool alone);
/* Copies part->count splats after the object's resident ones (blocking, as set_scene: packed on
 * the upload threads, through the staging ring; the part's arrays are only read during the
 * call), then counts them resident. part->sh_degree and sh_coeffs must be the object's;
 * part->flags are ignored (the desc's hold). The values are checked as set_scene checks a
 * scene, and a message names the splat by its index in the object.
 * Synchronisation: the copies write only the object's splats beyond the resident ones, which no
 * frame reads, so frames recorded earlier may still be in flight. The call returns once the part
 * is packed and its copies are submitted to the create info's queue, through a staging ring the
 * renderer keeps while an object is incomplete (4 pieces of 16 MiB; a piece is waited for by
 * its fence when it is packed again), so parts of a few thousand splats cost little; the
 * append that completes the last incomplete object, finish_object, remove_object, set_scene and
 * destroy wait for every copy and free the ring. Frames recorded afterwards and submitted to
 * that queue draw the new splats (their first barrier orders the copies before the projection);
 * a host that draws on another queue waits for the create info's queue first. Not
 * thread-safe: one call on the renderer at a time, as every call.
 * Errors (logged; the resident count stays): VK_ERROR_VALIDATION_FAILED_EXT for a bad id, a
 * part that is NULL, empty, of another SH degree, with a NULL array or a bad value, or more
 * splats than the object has left; others from Vulkan, also from an earlier append's copies
 * waited for now (the object's splats beyond the resident ones are then undefined until
 * appended again; every copy this call submitted is done when it returns). */
VkResult splat_renderer_append_object(splat_renderer *r, uint32_t id, const splat_scene *part);
/* Ends a streamed object at its resident splats (a file whose parts came to fewer than it
 * announced, e.g. with splats dropped for non-finite values): from then on it holds `resident`
 * splats, as if begun with that count (its chunks past them are freed, the rest of its memory
 * kept until it is removed). At least one splat must be resident. It waits for the appends'
 * copies still in flight. VK_ERROR_VALIDATION_FAILED_EXT (logged) for a bad id or none
 * resident; a copy's error as append_object's. */
VkResult splat_renderer_finish_object(splat_renderer *r, uint32_t id);
/* The object's resident splats (0 for no such object); its count once complete. Any time. */
uint32_t splat_renderer_object_resident(const splat_renderer *r, uint32_t id);

/* A level-of-detail object (docs/lod.md): a scene with its tree (splat_lod_build or
 * splat_lod_load, splat_scene.h), drawn as a cut of the tree chosen on the GPU in each
 * frame: coarse merged Gaussians far away, the splats themselves close by. add_lod_object uploads
 * the leaves and the interior nodes as the object's splats (blocking, as add_object: the same
 * checks, memory and messages), and the tree's bounding spheres and topology. In each frame the
 * cut (one dispatch per tree level) keeps a node whose projected error
 * e * sqrt(max(fx, fy) * 3 * its largest scale / view z) is at most the frame's threshold (or a
 * leaf; e: the tree's splat_lod.error, or 1 when it has none; docs/lod.md) and
 * drops subtrees outside the frustum; the projection then runs over the cut's nodes only, into
 * max_cut frame slots. With frame.lod_budget the threshold is steered on the GPU from the
 * previous frame's cut count, with no read-back. */
typedef struct splat_lod_object_desc {
  const void *next;          /* reserved for later; must be NULL */
  const splat_scene *leaves; /* the scene in its tree's order (what splat_lod_build left) */
  const splat_lod *lod;      /* its tree: lod->leaf_count == leaves->count */
  uint32_t max_cut;          /* the most nodes a frame's cut holds (its frame slots); 0 (and at
                                most): 1.5 x leaf_count (the leaves, and the parents fading out
                                over them), or node_count if fewer. A cut that finds more keeps
                                max_cut of them (timings say so) */
  uint32_t flags;            /* splat_scene_flag_bits, as a scene's (0: leaves->flags) */
  /* Streaming: 0 (or at least the leaf count) keeps every leaf on the GPU. Fewer: the leaves live
   * in pages of 4,096 consecutive leaves (the tree's order keeps a subtree's leaves together) in a
   * pool of that many leaves rounded up to whole pages; the interior nodes stay resident. Each
   * frame's cut asks for the pages of the leaves it would open; later frames copy up to 32 pages
   * a frame in (from `leaves`, which must then stay valid and unchanged until the object is
   * removed), into free slots or over the page drawn longest ago. No frame waits: a node whose
   * leaves are not resident is drawn at its own level. SH at 16 or 32 bits only.
   * SPLAT_LOD_RESIDENT_FIT: every leaf if the object fits the renderer's memory limit (its budget
   * or the device), else the pages that fit beside the interior nodes, the tree and the frame's
   * buffers (with four tenths spare for the raster's); too little room for one page is
   * VK_ERROR_OUT_OF_DEVICE_MEMORY. */
  uint32_t resident_leaves;
} splat_lod_object_desc;
#define SPLAT_LOD_RESIDENT_FIT UINT32_MAX

/* A LOD object's pages (splat_renderer_lod_stats): the leaves' pages, the pool's, those resident,
 * copied in and evicted so far, and the pages the last cut read back asked for. Without streaming
 * every page is resident and none move. */
typedef struct splat_lod_stats {
  uint32_t pages, pool_pages, resident;
  uint64_t loaded, evicted;
  uint32_t requested;
} splat_lod_stats;
VkResult splat_renderer_lod_stats(const splat_renderer *r, uint32_t id, splat_lod_stats *out);

/* Errors (logged; the objects stay as they were): VK_ERROR_VALIDATION_FAILED_EXT for NULL
 * arguments, next not NULL, a tree that is not the scene's (leaf count, SH degree) or too large
 * for the cut (more than 2^28 nodes or 64 levels), and every error of add_object. */
VkResult splat_renderer_add_lod_object(splat_renderer *r, const splat_lod_object_desc *desc, uint32_t *id);

/* Where the time of the last upload went (set_scene, add_object or append_object; zeroed by
 * begin_object). Wall-clock seconds on the calling thread. */
typedef struct splat_upload_stats {
  uint32_t splats;        /* uploaded */
  double validate_s;      /* checking the values (one pass over the arrays) */
  double pack_s;          /* packing into the staging pieces on the upload threads (wall time) */
  double wait_s;          /* waiting for the pieces' copies (their fences; an append waits only
                             for pieces it packs again, and the last for all) */
  double total_s;         /* the whole call, with the buffers' creation for set_scene / add_object */
  uint64_t bytes;         /* copied to the GPU */
  double gb_per_s;        /* bytes / total_s / 1e9: the upload's rate, validation and packing included */
} splat_upload_stats;

/* Fills *out. VK_ERROR_VALIDATION_FAILED_EXT for NULL arguments. Any time, no GPU work. */
VkResult splat_renderer_upload_stats(const splat_renderer *r, splat_upload_stats *out);

/* An object drawn in a frame with its model transform (column-major object -> world: a
 * rotation, a uniform scale and a translation; positions, covariances and the SH view
 * direction follow it). */
typedef struct splat_instance {
  uint32_t object;
  float model[16];
} splat_instance;

/* True when the renderer was given a sorter of this algorithm (AUTO: any). */
int splat_renderer_has_sort(const splat_renderer *r, splatsort_algorithm algorithm);

/* splat_frame.sh_degree, the highest SH degree evaluated (degrees 1..3 are the view-dependent
 * colour; degree 0 alone is each splat's base colour, the same from every side). The encoding,
 * so that a zero frame draws every object with all of its SH:
 *   0 (SPLAT_SH_DEGREE_SCENE)      each object's own degree (the default);
 *   SPLAT_SH_DEGREE(d), d in 0..3  at most degree d: SPLAT_SH_DEGREE_EXPLICIT | d. The only way to
 *                                  ask for degree 0 alone is SPLAT_SH_DEGREE(0);
 *   1, 2, 3                        at most that degree (the same as SPLAT_SH_DEGREE(1..3));
 *   negative                       each object's own degree (as before: "< 0: the scene's").
 * An object whose degree is lower than asked is drawn at its own. Before issue 34, 0 meant
 * degree 0 alone, which a zero-initialised frame asked for by accident. */
#define SPLAT_SH_DEGREE_SCENE 0
#define SPLAT_SH_DEGREE_EXPLICIT 0x100
#define SPLAT_SH_DEGREE(d) (SPLAT_SH_DEGREE_EXPLICIT | (d))

/* splat_frame.lod_blend: 0 is SPLAT_LOD_BLEND_DEFAULT; a negative value (SPLAT_LOD_BLEND_NONE)
 * switches levels at once, with no blend. Before issue 34, 0 meant none. */
#define SPLAT_LOD_BLEND_DEFAULT 0.5f
#define SPLAT_LOD_BLEND_NONE (-1.0f)

typedef struct splat_frame {
  const splat_camera *camera;    /* its width/height are the image size */
  float background[3];
  /* A sorter's algorithm, or AUTO: what splatsort_choose_algorithm picks for the scene's
   * splat count and key_bits where that sorter was given, else the first sorter given. */
  splatsort_algorithm sort;
  uint32_t key_bits;             /* 32 (float depth key), 24 or 16 (quantised); 0 = 32 */
  splatsort_depth_key_mode key_mode; /* view depth (the reference's order) or radial distance */
  int sh_degree;                 /* highest SH degree evaluated: 0 (SPLAT_SH_DEGREE_SCENE), each
                                    object's own; SPLAT_SH_DEGREE(d) at most d (above) */
  uint32_t slot;                 /* frame slot for the timestamps, < frame_slots */
  /* Stereo (SPLAT_RENDERER_CREATE_STEREO_BIT): both eyes' cameras, of the camera's size, set
   * for cmd_prepare; `camera` is then where the splats are culled and sorted from (between the
   * eyes), and cmd_draw draws eye `eye` (its camera, its records) with that one order. */
  const splat_camera *eyes[2];
  uint32_t eye;
  /* The objects drawn, each at most once; NULL / 0: every object, untransformed. */
  const splat_instance *instances;
  uint32_t instance_count;
  /* The host's projection depth range (splat_camera_projection's znear/zfar): each splat's quad
   * is drawn at its centre's depth in it (znear -> 0, zfar -> 1; with
   * SPLAT_RENDERER_CREATE_REVERSE_Z_BIT reversed, znear -> 1, zfar -> 0), for the host's depth
   * test (cmd_draw, cmd_render_into). znear 0: 0.01; zfar 0 (or not above znear): 1000. */
  float znear, zfar;
  /* cmd_render only: the graphics or the compute raster (splat_raster_path). */
  splat_raster_path raster;
  /* Anti-aliasing compensation (splat_antialias); AUTO (0): per object, from its scene. */
  splat_antialias antialias;
  /* The compute raster's per-pixel order (splat_order) and its window (1..16 slots; 0: 8). */
  splat_order order;
  uint32_t order_window;
  /* Level-of-detail objects (add_lod_object) only, each on its own: lod_budget > 0 steers the
   * threshold so that the cut holds about that many nodes (at most the object's max_cut): from
   * lod_threshold (0: 16) at the object's first frame, each frame's threshold from the
   * previous frame's cut count, on the GPU. lod_budget 0: the threshold is lod_threshold (0: 1),
   * in the cut's units (error x sqrt(pixels), docs/lod.md).
   * lod_blend: the band of projected sizes over which a node that has just replaced its parent
   * fades from its parent's look to its own (0.5: from threshold to 1.5 x threshold); 0 (or not
   * finite): SPLAT_LOD_BLEND_DEFAULT, 0.5; negative (SPLAT_LOD_BLEND_NONE): none, levels switch
   * at once. */
  uint32_t lod_budget;
  float lod_threshold;
  float lod_blend;
} splat_frame;

/* Records one frame. Must be outside a render pass. When the camera's size differs from the
 * current target the target is re-created: the caller must make sure no submitted frame still
 * uses it (e.g. wait for the device on resize). Afterwards the target image is in
 * VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, written by VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT
 * (graphics raster) or VK_PIPELINE_STAGE_TRANSFER_BIT (compute raster); a barrier from there
 * to TRANSFER/TRANSFER_READ is already recorded, so the caller may copy or blit from it right
 * away. Frames submitted to one queue may overlap freely: the renderer orders its own buffer
 * reuse. With the compute raster, a frame slot must not be recorded again before the slot's
 * previous frame has finished (as splat_renderer_timings needs anyway): that frame's pair
 * count is read then, and pair buffers replaced by growth are freed once every other slot
 * has been recorded again. Errors: as cmd_prepare, and VK_ERROR_OUT_OF_DEVICE_MEMORY (logged)
 * when the compute raster's buffers cannot be made. */
VkResult splat_renderer_cmd_render(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *frame);

/* Drawing into the host's pass, in two calls per frame:
 * splat_renderer_cmd_prepare records the compute work (projection with the keys, depth sort), outside
 * any render pass; then, inside the host's dynamic-rendering pass (begun on attachments of the
 * formats given at create, or inside the render pass and subpass given there, covering the
 * camera's width x height), splat_renderer_cmd_draw
 * records the splats' draw over what the host drew: premultiplied "over" blending, depth-tested
 * against the host's depth when it has one, with the viewport and scissor set to the camera's
 * size. The draw reads only what prepare wrote; prepare's barrier to the vertex shader and
 * indirect draw is recorded. Both need the same frame (camera, slot). cmd_render is prepare
 * plus a draw into the renderer's own target. */
VkResult splat_renderer_cmd_prepare(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *frame);
VkResult splat_renderer_cmd_draw(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *frame);

/* The host's own images for splat_renderer_cmd_render_into: the compute raster composites
 * the splats over `color`, depth-tested against `depth`. Both cover at least the camera's
 * width x height (pixels beyond it are untouched), one mip level and layer each.
 *   color_view:   a 2D view of the host's colour image, created with VK_IMAGE_USAGE_STORAGE_BIT,
 *                 in VK_IMAGE_LAYOUT_GENERAL. color_format: its format, one of
 *                 VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R16G16B16A16_SFLOAT or
 *                 VK_FORMAT_R32G32B32A32_SFLOAT (storage-image formats every Vulkan device
 *                 supports); anything else is refused with VK_ERROR_FORMAT_NOT_SUPPORTED.
 *                 (A swapchain image is usually BGRA8 without storage usage: render into one
 *                 of these formats and blit.)
 *   depth_view:   a 2D view of the DEPTH aspect only of the host's depth image, created with
 *                 VK_IMAGE_USAGE_SAMPLED_BIT; depth_format: VK_FORMAT_D32_SFLOAT or
 *                 VK_FORMAT_D32_SFLOAT_S8_UINT, else VK_ERROR_FORMAT_NOT_SUPPORTED.
 *                 depth_layout: the layout it is in during the call, one of
 *                 DEPTH_STENCIL_READ_ONLY_OPTIMAL, DEPTH_READ_ONLY_OPTIMAL,
 *                 SHADER_READ_ONLY_OPTIMAL or GENERAL. Required: a host without depth clears a
 *                 D32_SFLOAT image to its far value (1.0; 0.0 with reverse-Z). */
typedef struct splat_host_target {
  VkImageView color_view;
  VkFormat color_format;
  VkImageView depth_view;
  VkFormat depth_format;
  VkImageLayout depth_layout;
  /* The images' size, both at least the drawn camera's (a view does not say; 0, 0: not checked,
   * as hosts written before these fields) */
  uint32_t width, height;
} splat_host_target;

/* The compute raster (SPLAT_RASTER_COMPUTE's tiles) into the host's own images, recorded after
 * splat_renderer_cmd_prepare of the same frame (camera, eyes/eye, slot, znear/zfar; a frame the
 * host has drawn with cmd_draw too may follow that draw) and outside any render pass; frame.raster and frame.background are not used. Per pixel, the splats are
 * blended front to back as cmd_render's compute raster does, except that a splat is skipped
 * at a pixel where its centre's depth in the host's projection (frame.znear/zfar, the quad
 * depth cmd_draw gives it) is not LESS_OR_EQUAL the host's depth there (GREATER_OR_EQUAL with
 * SPLAT_RENDERER_CREATE_REVERSE_Z_BIT); then
 *   color = (splats_premultiplied_rgb, splat_alpha) + (1 - splat_alpha) * color
 * on all four channels, as cmd_draw's premultiplied "over" blend into the host's pass. No
 * host_color_format is needed at create.
 * Synchronisation: before the call, the host's writes of `color` (any stage) and `depth`
 * (e.g. LATE_FRAGMENT_TESTS / DEPTH_STENCIL_ATTACHMENT_WRITE) must be made visible to
 * VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT
 * (colour) and VK_ACCESS_SHADER_READ_BIT (depth), both images already in the layouts above
 * (the host records these barriers). Afterwards `color` is still in GENERAL, last written by
 * VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT, and `depth` was last read
 * by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT: the host's barrier
 * from there comes before its next use of either (presenting, sampling, writing depth). The
 * renderer's own buffers follow cmd_render's rules (frame slots, pair-buffer growth,
 * splat_renderer_timings reports the compute raster).
 * Errors: VK_ERROR_VALIDATION_FAILED_EXT (logged) for NULL arguments, missing views, a bad
 * depth layout, images smaller than the camera (width, height given), no prepared frame or a
 * camera other than the one the slot was prepared with (for that eye); VK_ERROR_FORMAT_NOT_SUPPORTED (logged) for other
 * formats (nothing is recorded then); VK_ERROR_OUT_OF_DEVICE_MEMORY (logged) when the compute
 * raster's buffers cannot be made. */
VkResult splat_renderer_cmd_render_into(splat_renderer *r, VkCommandBuffer cmd, const splat_frame *frame,
                                        const splat_host_target *target);

/* The target written by the last recorded frame (RGBA16F, premultiplied over the opaque
 * background, so alpha is 1). */
void splat_renderer_target(const splat_renderer *r, VkImage *image, uint32_t *width, uint32_t *height);

typedef struct splat_timings {
  double projection_ms;   /* projection, with the depth keys and the culling */
  double sort_ms;         /* the keys' compaction (and quantisation), then the sort */
  double raster_ms;       /* graphics: the draw; compute: pairs + tile sort + blend */
  double total_ms;
  uint32_t visible;       /* splats that passed culling */
  uint32_t key_bits;
  splatsort_algorithm sort;
  splat_raster_path raster;
  /* Compute raster only (0 otherwise): its stages, which add up to raster_ms. pairs_ms: count,
   * scan and emit of the (tile, splat) pairs; tile_sort_ms: their sort by tile; blend_ms:
   * tile ranges, the per-tile blend and the copy into the target. */
  double pairs_ms, tile_sort_ms, blend_ms;
  /* Compute raster only: the pairs the frame needed (saturating at 2^32 - 1) and the capacity
   * it had; pairs > pair_capacity: the frame left its farthest splats' pairs out (the log
   * callback has said so too). */
  uint32_t pairs, pair_capacity;
  /* The order the raster blended in (GLOBAL for the graphics raster) and its window (0: none). */
  splat_order order;
  uint32_t order_window;
  /* Level of detail: the first LOD object drawn's cut (nodes kept, before the projection's
   * culling; above the object's max_cut the rest were left out), the threshold it was cut at
   * (pixels) and the cuts' time (all LOD objects; part of projection_ms). 0 without one. */
  uint32_t lod_cut;
  float lod_threshold;
  double lod_cut_ms;
} splat_timings;

/* Timings of the last frame recorded in `slot`, once it has finished on the GPU (a stereo frame
 * drawn by two cmd_draw calls: raster_ms ends with eye 1's draw, so draw eye 1 last). Returns
 * VK_SUCCESS, VK_NOT_READY when it has not finished (or nothing was recorded there yet). */
VkResult splat_renderer_timings(splat_renderer *r, uint32_t slot, splat_timings *out);

#ifdef __cplusplus
}
#endif
#endif
