/* render_common.h: what test_render's areas share: the device and the renderer under test,
 * random scenes and cameras, rendering a frame and reading it back, and the comparison with the
 * CPU reference renderer (tests/refrender.h). The program's table of tests is in test_render.c;
 * each area's tests are in a test_render_<area>.c. */
#ifndef TESTS_RENDER_COMMON_H
#define TESTS_RENDER_COMMON_H

#include "app_renderer.h"
#include "check.h"
#include "splat_renderer.h"
#include "splat_scene.h"
#include "view_control.h"
#include "vkh.h"

#include <stdint.h>

#ifndef CHECK_SHARED_COUNTER
#error "test_render's files count failures together: build them with CHECK_SHARED_COUNTER (tests/render.cmake)"
#endif

/* ---- the device, the renderer under test, the run's options ---------------------------------- */

extern vkh_context ctx;
extern splat_renderer *renderer; /* made by main with every sorter the device runs, one frame slot */
extern const char *outdir;       /* --out: where images are written */
extern int write_images;         /* --write-images: write them even when the test passes */
extern uint32_t log_messages;    /* messages renderer_log received, and the last one */
extern char last_log[1024];
/* The sh_precision `renderer` stores scenes at (16 unless a test swaps in another renderer). */
extern uint32_t test_sh_precision;

/* The log callback of every renderer and sorter the tests make: counts and prints. */
void renderer_log(void *user, const char *message);

/* ---- random numbers, halves ------------------------------------------------------------------ */

extern uint64_t rng_state; /* --seed */
uint64_t next_u64(void);
float uniform(float lo, float hi);
float gauss(void);
float half_to_float(uint16_t h);

/* ---- scenes and cameras ---------------------------------------------------------------------- */

/* Splats all around `centre` within `spread`, many culled, for the projection checks. */
void gen_projection_scene(splat_scene *s, uint32_t n, uint32_t degree, const float centre[3], float spread);
/* A compact object in a ball of radius 1, as a trained scene looks from outside. */
void gen_object_scene(splat_scene *s, uint32_t n, uint32_t degree);
/* A camera at `eye` looking somewhere random; skew: fx != fy and the principal point off centre. */
void random_camera(splat_camera *cam, const float eye[3], uint32_t w, uint32_t h, int skew);
/* Up to `max` cameras around a scene (framing views, then a close-up); returns how many. */
uint32_t scene_cameras(const splat_scene *s, splat_up_axis up_axis, uint32_t w, uint32_t h, splat_camera *cams,
                       uint32_t max);
/* A generated SH-3 object of n splats and its four test cameras at w x h. */
void generated_with_cameras(splat_scene *a, uint32_t n, uint32_t w, uint32_t h, splat_camera cams[4]);
const char *base_name(const char *path);
/* splat_scene_load, the error printed; 0 on success. */
int load_scene(const char *path, splat_scene *s);

/* ---- rendering and read-back ----------------------------------------------------------------- */

extern const float BACKGROUND[3];

/* What the frames record_frame and render_gpu record use besides their arguments. */
typedef struct render_frame_options {
  splatsort_depth_key_mode key_mode;
  const splat_instance *instances; /* and instance_count; NULL: every object, untransformed */
  uint32_t instance_count;
  splat_raster_path raster;
  splat_antialias antialias; /* AUTO: each scene's flag */
  splat_order order;         /* the compute raster's, and its window */
  uint32_t order_window;
} render_frame_options;
extern render_frame_options frame_opts;

/* sh, here and below: the highest SH degree evaluated, 0..3 (the frame's SPLAT_SH_DEGREE(sh)), or
 * < 0 for each object's own (SPLAT_SH_DEGREE_SCENE), as splat_project's sh_degree_max but for -1. */
VkResult record_frame(VkCommandBuffer cmd, const splat_camera *cam, splatsort_algorithm algo, uint32_t bits, int sh);
/* Records the copy of a render target in TRANSFER_SRC layout into `dst`, ready for the host. */
void copy_target(VkCommandBuffer cmd, VkImage image, uint32_t w, uint32_t h, VkBuffer dst);
/* Renders one frame with `renderer` and reads it back: `half` (w*h*4 halves, optional) and the
 * 8-bit image. */
void render_gpu(const splat_camera *cam, splatsort_algorithm algo, uint32_t bits, int sh, uint16_t *half,
                uint8_t *rgba8);
void read_buffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, void *out);
/* An RGBA16F read-back as 8-bit RGBA (refrender's conversion); frees the buffer. */
void halves_to_rgba8(vkh_buffer *rb, uint32_t w, uint32_t h, uint8_t *rgba8);
void set_scene_or_die(const splat_scene *s);

/* ---- images ---------------------------------------------------------------------------------- */

/* The GPU image, the reference and their amplified difference, as PNGs in the output folder. */
void save_images(const char *tag, const splat_camera *cam, const uint8_t *gpu, const uint8_t *ref,
                 const char *ref_name);
/* The GPU image (AUTO sort, 32-bit keys) against refrender's, checked >= min_psnr and not blank;
 * returns the PSNR. */
double compare_with_reference(const char *tag, const splat_scene *s, const splat_camera *cam, int sh,
                              double min_psnr);

/* ---- the tests (test_render.c's table) -------------------------------------------------------- */

typedef struct render_args {
  const char *const *scenes; /* --scene, and the --optional-scene files present */
  uint32_t nscenes;
  const app_renderer *ar; /* the sorters `renderer` was made with, for the tests' own renderers */
} render_args;

/* test_render_graphics.c */
void render_test_projection(const render_args *a);
void render_test_image(const render_args *a);
void render_test_sortpaths(const render_args *a);
void render_test_fused_keys(const render_args *a);
/* One random projection case (test_render_graphics.c) on `renderer`, whose SH storage is
 * test_sh_precision: records and keys against splat_project of the scene as stored. */
void render_projection_case(uint32_t case_index, uint32_t n, uint32_t degree, int sh_eval, int skew);
/* test_render_compute.c */
void render_test_compute(const render_args *a);
/* test_render_order.c */
void render_test_order(const render_args *a);
/* test_render_lod.c */
void render_test_lod(const render_args *a);
/* test_render_api.c */
void render_test_api(const render_args *a);
void render_test_device(const render_args *a);
void render_test_large(const render_args *a);
/* test_render_objects.c */
void render_test_host_pass(const render_args *a);
void render_test_depth_output(const render_args *a);
void render_test_objects(const render_args *a);
void render_test_stereo(const render_args *a);
/* test_render_storage.c */
void render_test_storage(const render_args *a);
/* test_render_upload.c */
void render_test_upload(const render_args *a);
/* test_render_stream.c */
void render_test_stream(const render_args *a);
/* test_render_scene.c */
void render_test_spz(const render_args *a);
void render_test_sog(const render_args *a);

#endif
