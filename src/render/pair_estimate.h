/* pair_estimate.h: how many (tile, splat) pairs a compute-raster frame will need, counted on the
 * CPU from a sample of each object's splats before the frame is recorded, so that its pair
 * buffers hold them (craster.c). Internal to the renderer. */
#ifndef SPLAT_PAIR_ESTIMATE_H
#define SPLAT_PAIR_ESTIMATE_H

#include "splat_camera.h"
#include "splat_project.h"
#include "splat_scene.h"

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* Splats an object's sample keeps at most: every splat of an object up to this many (the
 * estimate is then the count the GPU makes, within rounding), else every stride-th. 40 bytes
 * each: 640 KiB an object at most. */
#define PAIR_SAMPLE_MAX 16384u
/* Sampled splats one estimate projects at most, over all of a frame's objects (each object's
 * sample thinned alike beyond it): for the first frame of a scene or an image size (about 1.5 ms
 * of one core at the most), and for a frame whose view changed since the last estimate (about
 * 0.2 ms). */
#define PAIR_ESTIMATE_BUDGET 16384u
#define PAIR_ESTIMATE_MOVING_BUDGET 2048u

/* An object's sample: splats first, first + stride, ... of the object as the GPU stores them
 * (position, 3D covariance of the stored scale and rotation, opacity). */
typedef struct pair_sample {
  uint32_t total;    /* the object's splats */
  uint32_t stride;   /* 1: every splat */
  uint32_t count;    /* samples taken so far (of the resident splats, in order) */
  uint32_t capacity; /* samples allocated: ceil(total / stride) */
  float *v;          /* 10 floats a sample: position (3), covariance (6), opacity */
  bool failed;       /* out of host memory: the sample stops growing (the estimate is then low) */
} pair_sample;

/* Adds the splats of `part` (splats [first, first + part->count) of an object of `total`) that
 * the sample keeps, allocating it at the first call. Out of host memory: s->failed, nothing else. */
void pair_sample_add(pair_sample *s, const VkAllocationCallbacks *a, uint32_t total, uint32_t first,
                     const splat_scene *part);
void pair_sample_free(pair_sample *s, const VkAllocationCallbacks *a);

/* One drawn object of a frame: its sample (NULL: none, e.g. a level-of-detail object, whose cut
 * is not sampled), model matrix (NULL: identity), resident splats and anti-aliasing. */
typedef struct pair_instance {
  const pair_sample *sample;
  const float *model;
  uint32_t resident;
  bool antialiased;
} pair_instance;

typedef struct pair_estimate {
  uint64_t pairs;   /* estimated pairs of the frame */
  uint32_t sampled; /* samples projected */
  bool exact;       /* every drawn splat was projected: pairs is the GPU's count within rounding */
} pair_estimate;

/* The pairs of a frame from `cam` (its size is the image's) over `n` instances: each sampled
 * splat projected as the GPU projects it (render_project_footprint) and binned as the compute
 * raster bins it (craster_common.glsl's bins, float for float), its pairs weighted by the
 * splats it stands for. At most `budget` samples are projected. */
pair_estimate pair_estimate_frame(const pair_instance *in, uint32_t n, const splat_camera *cam, uint32_t budget);

/* The (tile, splat) pairs of one projected splat in a width x height image: the compute
 * raster's bins (tiles whose pixel centres the footprint square and the alpha-cut ellipse both
 * reach). */
uint32_t pair_estimate_bins(const splat_projected *p, uint32_t width, uint32_t height);

/* project.c: splat_project's steps but the colour, for a splat given by its position, 3D
 * covariance and activated opacity (antialiased: gsplat's compensation, as SPLAT_SCENE_ANTIALIASED).
 * Returns 1 and fills *out (colour 0) when visible, else 0. */
int render_project_footprint(const splat_camera *cam, const float pos[3], const float cov3d[6], float opacity,
                             int antialiased, splat_projected *out);

#endif
