/* start_view.h: splatview's first view of its scenes, the same in the window and with --headless:
 * a --cameras camera, --eye/--target, the bundled scene's own view, or a three-quarter view from
 * above that frames the scene, its up from --up, the cameras.json beside the scene (3DGS training
 * output) or the splats themselves (splat_scene_shape_find). */
#ifndef SPLATVIEW_START_VIEW_H
#define SPLATVIEW_START_VIEW_H

#include "options.h"
#include "splat_scene.h"
#include "view_control.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct viewer_objects viewer_objects;

/* What the start view knows of a scene before its splats are looked at. */
typedef struct viewer_start {
  bool have_up;                 /* up is known: the scene's shape is measured along it */
  float up[3];
  char up_from[256];            /* where up came from, for the start line ("--up", "the cameras of ...") */
  splat_camera_desc *beside;    /* the cameras.json beside the scene (NULL: none found or used) */
  uint32_t beside_count;
  char beside_path[PATH_MAX];
} viewer_start;

/* What an object keeps for the start view (viewer_shape_make). */
typedef struct viewer_shape {
  splat_scene_shape shape; /* its up and oriented box */
  float heading[3];        /* the first camera beside it (viewer_start.beside); zero: none */
  char up_from[256];       /* where up came from ("--up", "the cameras of ..."); "": its splats */
} viewer_shape;

/* The cameras.json that 3DGS training writes beside its output, for `scene`: in the scene's
 * folder (in the scene itself when it is a folder: SOG), or the model folder two up when the scene
 * is <model>/point_cloud/iteration_<N>/<file>. Returns true with its path in `out`. */
bool viewer_find_cameras(const char *scene, char *out, size_t out_size);

/* Before a scene (`scene`, its file) is uploaded: without --cameras, reads the cameras.json
 * beside it (viewer_find_cameras; one that cannot be read or has no common up is
 * named on stderr and left out), and decides the up that is known beforehand: --up, else the
 * cameras' (--cameras' `cams`, else those beside; splat_cameras_up), else none (the splats will
 * say). */
void viewer_start_prepare(viewer_start *s, const splatview_options *o, const char *scene,
                          const splat_camera_desc *cams, uint32_t cam_count);
void viewer_start_free(viewer_start *s);

/* A scene's viewer_shape, with its box [lo, hi] (app_scene_bounds): splat_scene_shape_find, or
 * _along start's up when it has one; the heading of the first camera beside it. Where no shape
 * can be made (no finite position), the box with -Y up. `start` may be NULL (nothing known). */
void viewer_shape_make(const splat_scene *scene, const viewer_start *start, const float lo[3], const float hi[3],
                       viewer_shape *out);

/* The start view of `objs` (every scene as placed), from (first match):
 *   --cameras: camera --camera (0) of `cams`, the orbit's up theirs (splat_cameras_up);
 *   --eye/--target: the look-at camera with --up (default -Y);
 *   the bundled scene alone, without --up: the view of the README screenshot;
 *   else the objects' shape (viewer_objects_shape: the first one's up): from
 *     SPLAT_START_ELEVATION degrees above its ground, heading as the first camera beside the
 *     first object, else along the diagonal of its horizontal axes nearest the up's yaw-0
 *     direction (splat_shape_view), all of its robust box in the image. Prints one "start view:"
 *     line saying where up came from.
 * A scene dropped on the window opens in the last, as the command line's would (its options
 * without --cameras, --eye/--target and the bundled scene's view).
 * Sets *orbit (up: the view's; always usable for orbiting and --bench) and *cam (the exact start
 * camera at width x height). Returns -1 with a message in err. */
int viewer_start_view(const splatview_options *o, const viewer_objects *objs, const splat_camera_desc *cams,
                      uint32_t cam_count, uint32_t width, uint32_t height, splat_orbit *orbit, splat_camera *cam,
                      char *err, size_t err_size);

#endif
