/* splat_camera.h: pinhole cameras in the 3DGS/COLMAP convention (what the renderer and the
 * projection need), and the camera of a cameras.json entry (read by the scene library,
 * splat_cameras_load in splat_scene.h).
 *
 * Conventions, shared with the projection (splat_project.h) and the GPU shaders:
 *  - Camera space is the 3DGS/COLMAP one: x right, y down, z forward; visible points
 *    have z > 0.
 *  - Continuous pixel coordinates: pixel (i,j) covers [i,i+1) x [j,j+1), its centre is
 *    (i+0.5, j+0.5), and the principal point of a centred camera is (width/2, height/2).
 *    The reference 3DGS rasterizer uses pixel-index coordinates instead (pixel i's centre
 *    is i, principal point (W-1)/2): the same geometry shifted by 0.5.
 *  - A pixel row index grows downwards, as camera y does: a world point "above" the
 *    target projects to a smaller pixel y.
 * All functions are pure CPU maths; none prints or aborts.
 */
#ifndef SPLAT_CAMERA_H
#define SPLAT_CAMERA_H

#include "splat_scene.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct splat_camera {
  float view[16];     /* world -> camera, column-major: view[col*4 + row] */
  float position[3];  /* camera centre in world space */
  uint32_t width, height;
  float fx, fy;       /* focal lengths in pixels; tan_fovx = width/(2 fx), tan_fovy = height/(2 fy) */
  float cx, cy;       /* principal point, continuous pixel coordinates: width/2, height/2 from
                         every constructor below. A camera filled by hand sets it: 0 is a
                         principal point at the image's corner (a tile of a larger image), not a
                         default. */
} splat_camera;

/* tan of half the field of view, as the reference rasterizer's tan_fovx/tan_fovy. */
float splat_camera_tan_fovx(const splat_camera *cam);
float splat_camera_tan_fovy(const splat_camera *cam);

/* Camera at `eye` looking at `target`; `up` is the world direction that appears up on
 * screen (camera -y). fx = fy = height / (2 tan(fovy/2)), principal point centred.
 * Returns 0, or -1 (cam untouched) when eye == target, up is parallel to the view
 * direction or zero, fovy is not in (0,180) degrees, a size is 0, or a value is not finite. */
int splat_camera_look_at(splat_camera *cam, const float eye[3], const float target[3],
                         const float up[3], float fovy_deg, uint32_t width, uint32_t height);

/* A centred pinhole camera with square pixels from its world axes (orthonormal: right, down,
 * forward), eye and vertical field of view in degrees. No checks: callers validate. */
void splat_camera_from_axes(splat_camera *cam, const float right[3], const float down[3], const float forward[3],
                            const float eye[3], float fovy_deg, uint32_t width, uint32_t height);

/* Camera from a cameras.json pose: `rotation` is the camera-to-world 3x3, row-major as the
 * file stores it (rotation[r*3 + c] = R[r][c]; R's columns are the camera's x right, y down,
 * z forward axes in world space; a float[3][3] passes as &rot[0][0]).
 * Principal point centred. Returns 0, or -1 for a zero size, fx/fy <= 0 or non-finite input. */
int splat_camera_from_pose(splat_camera *cam, const float position[3], const float *rotation,
                           float fx, float fy, uint32_t width, uint32_t height);

/* Camera for a cameras.json entry (splat_cameras_load, splat_scene.h) rendered at width x height
 * (0, 0: the entry's own size): splat_camera_from_pose with fx and fy scaled by width / desc->width
 * and height / desc->height (in double, so the entry's own size gives its fx back exactly).
 * Returns 0, or -1 for a zero size or what splat_camera_from_pose refuses. */
int splat_camera_from_desc(splat_camera *cam, const splat_camera_desc *desc, uint32_t width, uint32_t height);

/* Vulkan clip-space projection (column-major 4x4) for this camera: camera-space x/z, y/z map
 * to NDC so that NDC (-1,-1) is pixel (0,0)'s corner and (1,1) is (width,height) (no y flip:
 * camera y and Vulkan framebuffer y both point down). Depth: z = znear -> 0, z = zfar -> 1.
 * `view_proj` (optional) receives proj * view. */
void splat_camera_projection(const splat_camera *cam, float znear, float zfar, float proj[16],
                             float view_proj[16]);

/* World-space axes of the camera: right (+x), down (+y), forward (+z). Any may be NULL. */
void splat_camera_axes(const splat_camera *cam, float right[3], float down[3], float forward[3]);

#ifdef __cplusplus
}
#endif

#endif
