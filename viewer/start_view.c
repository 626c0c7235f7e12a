/* splatview's start view: the explicit options first, else a three-quarter view from above of
 * the scene's shape, its up from --up, a cameras.json (given or beside the scene) or the splats. */
#include "start_view.h"
#include "message.h"
#include "objects.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the cameras.json beside a scene --------------------------------------------------------- */

static bool regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The last component of the folder path `dir` (no trailing '/'), and its length. */
static const char *last_name(const char *dir, size_t len, size_t *name_len) {
  size_t start = len;
  while (start > 0 && dir[start - 1] != '/') --start;
  *name_len = len - start;
  return dir + start;
}

bool viewer_find_cameras(const char *scene, char *out, size_t n) {
  char dir[PATH_MAX];
  struct stat st;
  bool folder = stat(scene, &st) == 0 && S_ISDIR(st.st_mode);
  if (!folder) { /* the file's folder, by name first: realpath needs it to exist */
    const char *slash = strrchr(scene, '/');
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - scene) + 1 : 1, slash ? scene : ".");
    if (!realpath(parent, dir)) return false;
  } else if (!realpath(scene, dir)) {
    return false;
  }
  size_t len = strlen(dir);
  if (snprintf(out, n, "%s%s", dir, len > 1 ? "/cameras.json" : "cameras.json") < (int)n && regular_file(out))
    return true;
  /* <model>/point_cloud/iteration_<N>/<file>: 3DGS writes <model>/cameras.json */
  size_t l1, l2;
  const char *it = last_name(dir, len, &l1);
  if (folder || l1 < 10 || strncmp(it, "iteration_", 10) != 0 || it == dir) return false;
  size_t plen = (size_t)(it - dir) - 1; /* dir[0..plen): the parent, without its '/' */
  const char *pc = last_name(dir, plen, &l2);
  if (l2 != 11 || strncmp(pc, "point_cloud", 11) != 0 || pc == dir) return false;
  size_t mlen = (size_t)(pc - dir) - 1;
  if (snprintf(out, n, "%.*s/cameras.json", (int)mlen, dir) >= (int)n) return false;
  return regular_file(out);
}

/* ---- before the first scene --------------------------------------------------------------------- */

void viewer_start_prepare(viewer_start *s, const splatview_options *o, const char *scene,
                          const splat_camera_desc *cams, uint32_t cam_count) {
  memset(s, 0, sizeof *s);
  if (!o->cameras && scene && viewer_find_cameras(scene, s->beside_path, sizeof s->beside_path)) {
    char err[1024];
    float up[3];
    if (splat_cameras_load(s->beside_path, &s->beside, &s->beside_count, err, sizeof err) != 0) {
      viewer_error("%s (found beside the scene; the start view does without it)", err);
    } else if (s->beside_count && splat_cameras_up(s->beside, s->beside_count, up) != 0) {
      viewer_error("%s: its cameras have no common up (the start view does without them)",
                   viewer_path(s->beside_path));
      splat_cameras_free(s->beside);
      s->beside = NULL;
      s->beside_count = 0;
    }
    if (!s->beside_count) s->beside_path[0] = 0;
  }
  if (o->have_up) {
    memcpy(s->up, o->up, sizeof s->up);
    snprintf(s->up_from, sizeof s->up_from, "--up");
  } else if (o->cameras && splat_cameras_up(cams, cam_count, s->up) == 0) {
    snprintf(s->up_from, sizeof s->up_from, "the cameras of %s", viewer_path(o->cameras));
  } else if (s->beside_count && splat_cameras_up(s->beside, s->beside_count, s->up) == 0) {
    snprintf(s->up_from, sizeof s->up_from, "the cameras of %s", viewer_path(s->beside_path));
  } else {
    return;
  }
  s->have_up = true;
}

void viewer_start_free(viewer_start *s) {
  splat_cameras_free(s->beside);
  memset(s, 0, sizeof *s);
}

void viewer_shape_make(const splat_scene *scene, const viewer_start *start, const float lo[3], const float hi[3],
                       viewer_shape *out) {
  memset(out, 0, sizeof *out);
  splat_scene_shape *sh = &out->shape;
  bool up = start && start->have_up;
  if (up) snprintf(out->up_from, sizeof out->up_from, "%s", start->up_from);
  splat_camera c0;
  if (start && start->beside_count && splat_camera_from_desc(&c0, &start->beside[0], 0, 0) == 0)
    splat_camera_axes(&c0, NULL, NULL, out->heading);
  int rc = up ? splat_scene_shape_along(scene->positions, scene->count, start->up, sh)
              : splat_scene_shape_find(scene->positions, scene->count, sh);
  if (rc == 0) return;
  /* the box along x, z and -y: right-handed (x cross z = -y) */
  memset(sh, 0, sizeof *sh);
  sh->kind = SPLAT_SHAPE_GIVEN;
  sh->up[1] = -1.0f;
  sh->axes[0][0] = 1.0f, sh->lo[0] = lo[0], sh->hi[0] = hi[0];
  sh->axes[1][2] = 1.0f, sh->lo[1] = lo[2], sh->hi[1] = hi[2];
  sh->axes[2][1] = -1.0f, sh->lo[2] = -hi[1], sh->hi[2] = -lo[1];
  sh->ground = sh->lo[2];
  snprintf(out->up_from, sizeof out->up_from, "-Y (no finite position)");
}

/* ---- the start view -------------------------------------------------------------------------------- */

/* The bundled scene's start view: the one of the README screenshot
 * (assets/screenshots/splatview-orbit.png, 1280x720, fovy 50), found by searching eye and
 * target for the smallest difference outside the screenshot's HUD (PSNR 35 dB there). */
static const float bundled_eye[3] = {-1.0042f, 1.2964f, -1.6158f};
static const float bundled_target[3] = {-1.2536f, 1.8099f, 8.0417f};

/* The bundled scene alone, by whatever path it was named. */
static bool bundled_alone(const splatview_options *o) {
  if (o->scene_count != 1) return false;
  char a[PATH_MAX], b[PATH_MAX];
  return realpath(o->scenes[0], a) && realpath(splatview_default_scene(), b) && !strcmp(a, b);
}

/* What the splats said about up, for the start line. */
static const char *shape_reason(const splat_scene_shape *sh) {
  switch (sh->kind) {
  case SPLAT_SHAPE_FLAT:
    return sh->plane_fraction > 0.0f ? "flat: the normal of their densest plane" : "flat: their thin axis";
  case SPLAT_SHAPE_TALL: return "tall: their long axis";
  case SPLAT_SHAPE_LONG: return "long and lying: -Y made across their long axis";
  case SPLAT_SHAPE_ROUND: return "no axis stands out: -Y, the COLMAP convention";
  default: return "";
  }
}

/* Why a scene cannot be framed, naming it (issue 37): bounds not finite, or so far apart that
 * their extent passes a float (finite positions of +-3e38). */
static void frame_error(const splatview_options *o, const float lo[3], const float hi[3], char *err, size_t n) {
  snprintf(err, n, "%s: cannot frame the scene: its bounds (%g, %g, %g)..(%g, %g, %g) are not finite or span more "
                   "than a float holds", o->scene_count > 1 ? "the scenes" : viewer_path(o->scene), (double)lo[0],
           (double)lo[1], (double)lo[2], (double)hi[0], (double)hi[1], (double)hi[2]);
}

int viewer_start_view(const splatview_options *o, const viewer_objects *objs, const splat_camera_desc *cams,
                      uint32_t cam_count, uint32_t width, uint32_t height, splat_orbit *orbit, splat_camera *cam,
                      char *err, size_t n) {
  float lo[3], hi[3], minus_y[3], zero[3] = {0, 0, 0}, up[3];
  splat_up_axis_vector(SPLAT_UP_NEG_Y, minus_y);
  viewer_objects_bounds(objs, lo, hi);
  splat_orbit_init(orbit, zero, 1.0f, minus_y);
  if (!objs->count || splat_orbit_frame_bounds(orbit, lo, hi, o->fovy, width, height) != 0) {
    frame_error(o, lo, hi, err, n);
    return -1;
  }
  if (o->cameras) {
    uint32_t i = o->camera_index < 0 ? 0 : (uint32_t)o->camera_index;
    if (i >= cam_count) {
      snprintf(err, n, "%s: --camera %u but the file has %u cameras", o->cameras, i, cam_count);
      return -1;
    }
    if (splat_camera_from_desc(cam, &cams[i], width, height) != 0) {
      snprintf(err, n, "%s: camera %u cannot be used", o->cameras, i);
      return -1;
    }
    if (splat_cameras_up(cams, cam_count, up) == 0) splat_orbit_set_up(orbit, up);
    float fwd[3];
    splat_camera_axes(cam, NULL, NULL, fwd);
    float target[3] = {cam->position[0] + fwd[0], cam->position[1] + fwd[1], cam->position[2] + fwd[2]};
    splat_orbit_look(orbit, cam->position, target);
    return 0;
  }
  if (o->have_eye) {
    if (splat_camera_look_at(cam, o->eye, o->target, o->up, o->fovy, width, height) != 0) {
      snprintf(err, n, "--eye/--target/--up do not make a camera (eye equal to target, or up along the view)");
      return -1;
    }
    splat_orbit_set_up(orbit, o->up);
    splat_orbit_look(orbit, o->eye, o->target);
    return 0;
  }
  /* the camera through the orbit, as the window's controllers make it: the same pixels */
  if (!o->have_up && bundled_alone(o) && splat_orbit_look(orbit, bundled_eye, bundled_target) == 0 &&
      splat_orbit_camera(orbit, o->fovy, width, height, cam) == 0)
    return 0;
  const viewer_shape *first = &objs->at[0].view;
  splat_scene_shape sh;
  viewer_objects_shape(objs, &sh);
  float eye[3], target[3];
  bool heading = first->heading[0] != 0.0f || first->heading[1] != 0.0f || first->heading[2] != 0.0f;
  if (splat_shape_view(&sh, heading ? first->heading : NULL, SPLAT_START_ELEVATION, o->fovy, width, height, eye,
                       target) != 0) {
    frame_error(o, lo, hi, err, n);
    return -1;
  }
  splat_orbit_set_up(orbit, sh.up);
  if (splat_orbit_look(orbit, eye, target) != 0 || splat_orbit_camera(orbit, o->fovy, width, height, cam) != 0) {
    snprintf(err, n, "cannot build the start camera");
    return -1;
  }
  char from[300];
  if (first->up_from[0]) snprintf(from, sizeof from, "%s", first->up_from);
  else snprintf(from, sizeof from, "the splats (%s)", shape_reason(&sh));
  printf("start view: up %.3f,%.3f,%.3f from %s; %.0f degrees above the ground%s\n", sh.up[0], sh.up[1], sh.up[2],
         from, SPLAT_START_ELEVATION, heading ? ", heading as the first camera beside the scene" : "");
  fflush(stdout);
  return 0;
}
