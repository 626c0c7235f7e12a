/* splatview's window: GLFW, a Vulkan swapchain, the renderer's frames two in flight, the
 * RGBA16F target blitted into the swapchain image, the HUD on top (what it says: window_hud.c),
 * keyboard/mouse (input.c), the scenes as objects (objects.c), scenes loaded in the background
 * (window_load.c), screenshots, timings and --bench. */
#include "app.h"
#include "app_renderer.h"
#include "host_pass.h"
#include "hud.h"
#include "input.h"
#include "lod.h"
#include "message.h"
#include "objects.h"
#include "raster_auto.h"
#include "start_view.h"
#include "swapchain.h"
#include "vkh.h"
#include "window_hud.h"
#include "window_load.h"
#include "window_stream.h"

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRAMES_IN_FLIGHT 2
#define LARGE_SCENE ((off_t)64 << 20) /* bytes: a first scene this large loads under the window */
#define STREAM_BUDGET_S 0.025 /* appending a streamed scene's parts: at most this a frame */
#define LOADING_FPS 60.0      /* frame rate cap while a scene loads: the loading thread needs the CPU */

typedef struct frame_slot {
  VkCommandBuffer render;   /* the renderer's commands: no semaphore to wait for */
  VkCommandBuffer present;  /* blit + HUD into the acquired image */
  VkFence done;
  VkSemaphore acquired;
  bool pending;             /* submitted, timings not collected yet */
  bool fenced;              /* submitted: `done` will be signalled */
  uint32_t frame;
} frame_slot;

/* Everything the window makes. Zeroed at the start, so viewer_destroy can free it however far
 * the set-up got. */
typedef struct viewer {
  const splatview_options *o;
  bool glfw_ready;          /* glfwInit succeeded */
  GLFWwindow *window;
  vkh_context ctx;
  VkSurfaceKHR surface;
  viewer_swapchain sc;
  int built_w, built_h;     /* framebuffer size the swapchain was built for */
  bool rebuild;
  app_renderer ar;          /* the renderer and its sorters */
  viewer_log log;           /* the renderer's */
  viewer_host_pass hp;      /* --grid: the viewer's own pass, grid then splats */
  viewer_hud *hud;
  frame_slot slots[FRAMES_IN_FLIGHT];
  uint32_t frame;           /* frames submitted */
  bool bench;

  viewer_input in;
  splat_orbit start_orbit;  /* --bench turns around it */
  splat_camera start_cam;
  splat_camera_desc *cams;  /* --cameras */
  uint32_t cam_count;
  viewer_start start;       /* the scene shown (the first object): its up if known, the cameras beside it */
  viewer_start ws_start;    /* the same for a streamed drop, until it ends */

  viewer_objects objects;   /* the scenes shown, side by side */
  splat_instance instances[SPLAT_MAX_OBJECTS];
  splat_scene more[SPLATVIEW_MAX_SCENES]; /* the command line's scenes after the first, until uploaded */
  viewer_lod more_lod[SPLATVIEW_MAX_SCENES]; /* their trees, the same */
  viewer_lod first_lod;     /* the first scene's tree, until uploaded */
  viewer_lod_trees trees;   /* the level-of-detail objects' */

  /* timings */
  splat_timings last;
  bool have_last;
  double ring[APP_STAGES][WINDOW_MEDIAN_FRAMES];
  uint32_t ring_count, ring_next;
  splat_raster_path ring_raster; /* the path of the frames in the ring */
  raster_auto raster_check;      /* --raster auto: the first frames try the other path */
  app_stats stats;
  bool keep_stats;
  viewer_out csv;          /* --timings */
  double fps, fps_t0;
  uint32_t fps_frames;

  char message[VIEWER_MESSAGE_MAX];
  double message_until;
  bool message_error;
  bool screenshot_wanted;

  /* loading in the background: one load at a time; a file dropped while one runs cancels it
   * and is loaded next (the newest drop wins) */
  window_loads loads;
  window_stream ws;         /* a replacement drawn as it arrives (window_stream.h) */
  uint32_t loading_frames;  /* frames of the loading screen (before the first scene) */
  bool input_ready;         /* the controllers are set up: input callbacks act */
} viewer;

static void set_message(viewer *v, bool error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_message(viewer *v, bool error, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->message, sizeof v->message, fmt, ap);
  va_end(ap);
  viewer_printable(v->message); /* the HUD shows it too */
  v->message_error = error;
  v->message_until = glfwGetTime() + (error ? 10.0 : 3.0);
  if (error) viewer_error("%s", v->message);
}

/* Ctrl-C / kill end the loop like Esc, so the exit is as clean (and as checked). */
static volatile sig_atomic_t quit_signal;
static void on_signal(int sig) {
  (void)sig;
  quit_signal = 1;
}

static void on_glfw_error(int code, const char *what) { viewer_error("GLFW error %d: %s", code, what); }

static void label(viewer *v, VkCommandBuffer cmd, const char *name) { ssvk_label_begin(&v->ctx.vk, cmd, name); }

static void unlabel(viewer *v, VkCommandBuffer cmd) { ssvk_label_end(&v->ctx.vk, cmd); }

/* ---- timings ------------------------------------------------------------------------ */

static void collect(viewer *v, frame_slot *fs, uint32_t slot) {
  if (!fs->pending) return;
  fs->pending = false;
  splat_timings t;
  if (splat_renderer_timings(v->ar.renderer, slot, &t) != VK_SUCCESS) return;
  v->last = t;
  v->have_last = true;
  if (v->raster_check.state != RASTER_AUTO_OFF) {
    char said[256];
    v->in.raster = raster_auto_frame(&v->raster_check, &t, said, sizeof said);
    if (said[0]) {
      printf("%s\n", said);
      set_message(v, false, "%s", said);
    }
  }
  if (t.raster != v->ring_raster) /* R: the medians start again with the other path's frames */
    v->ring_count = v->ring_next = 0, v->ring_raster = t.raster;
  for (int k = 0; k < APP_STAGES; k++) v->ring[k][v->ring_next] = app_stage_ms(&t, (enum app_stage)k);
  v->ring_next = (v->ring_next + 1) % WINDOW_MEDIAN_FRAMES;
  if (v->ring_count < WINDOW_MEDIAN_FRAMES) v->ring_count++;
  if (v->keep_stats) app_stats_add(&v->stats, &t);
  if (v->csv.f) app_timings_row(v->csv.f, fs->frame, &t);
}

/* Waits for every submitted frame and collects their timings oldest first. */
static void drain(viewer *v) {
  VK_CHECK(vkDeviceWaitIdle(v->ctx.device));
  for (uint32_t k = 0; k < FRAMES_IN_FLIGHT; k++) {
    uint32_t slot = (v->frame + k) % FRAMES_IN_FLIGHT;
    collect(v, &v->slots[slot], slot);
  }
}

/* ---- swapchain ---------------------------------------------------------------------- */

/* Returns 1 when there is a swapchain to draw into, 0 when there is none for now
 * (minimised), -1 (with a message) on errors. */
static int rebuild(viewer *v) {
  int w, h;
  glfwGetFramebufferSize(v->window, &w, &h);
  if (w <= 0 || h <= 0) return 0;
  drain(v); /* a resize or vsync change: not per frame */
  char err[512];
  VkResult res = viewer_swapchain_build(&v->ctx, v->surface, (uint32_t)w, (uint32_t)h, v->in.vsync && !v->bench,
                                        &v->sc, err, sizeof err);
  if (res == VK_NOT_READY) return 0;
  if (res != VK_SUCCESS) {
    viewer_error("%s", err);
    return -1;
  }
  v->built_w = w;
  v->built_h = h;
  v->rebuild = false;
  viewer_hud_set_format(v->hud, v->sc.format.format);
  viewer_input_resize(&v->in, v->sc.extent.width, v->sc.extent.height);
  return 1;
}

/* 1 when there is a swapchain to draw into; 0 when minimised (after waiting a little for
 * events instead of spinning); -1 on an error. */
static int swapchain_ready(viewer *v) {
  if (glfwGetWindowAttrib(v->window, GLFW_ICONIFIED)) {
    /* minimised: X11 keeps the size, but nothing would be shown */
    glfwWaitEventsTimeout(0.25);
    return 0;
  }
  int fw, fh;
  glfwGetFramebufferSize(v->window, &fw, &fh);
  if (fw != v->built_w || fh != v->built_h) v->rebuild = true;
  if (!v->rebuild && v->sc.swapchain) return 1;
  int built = rebuild(v);
  if (built == 0) glfwWaitEventsTimeout(0.25); /* minimised: nothing to draw until restored */
  return built;
}

/* ---- scenes and screenshots --------------------------------------------------------- */

/* The window's title: the objects' names. */
static void set_title(viewer *v) {
  char names[300], title[320];
  viewer_objects_title(&v->objects, names, sizeof names);
  snprintf(title, sizeof title, "splatview - %s", names);
  glfwSetWindowTitle(v->window, title);
}

/* The objects changed (added, replaced, moved): F and the grid take their new bounds, and N
 * their number. */
static void objects_changed(viewer *v) {
  float lo[3], hi[3];
  viewer_objects_bounds(&v->objects, lo, hi);
  viewer_input_set_bounds(&v->in, lo, hi);
  viewer_input_set_objects(&v->in, v->objects.count, v->objects.selected);
}

/* The options for a scene dropped on the window: --cameras, --eye/--target and the bundled
 * scene's view were for the command line's. */
static splatview_options drop_options(const splatview_options *o) {
  splatview_options d = *o;
  d.cameras = NULL;
  d.camera_index = -1;
  d.have_eye = false;
  d.scene_count = 0;
  return d;
}

/* What the start view knows of a dropped scene at `path` before its splats (viewer_start_prepare). */
static void prepare_drop(viewer *v, const char *path, viewer_start *s) {
  splatview_options d = drop_options(v->o);
  viewer_start_prepare(s, &d, path, NULL, 0);
}

/* The objects shown changed by a drop: the controllers take their start view, as the command
 * line's scenes would have it (viewer_start_view). */
static void restart_view(viewer *v) {
  splatview_options d = drop_options(v->o);
  splat_orbit orbit;
  splat_camera cam;
  char err[1024];
  VkExtent2D e = v->sc.extent;
  if (viewer_start_view(&d, &v->objects, NULL, 0, e.width, e.height, &orbit, &cam, err, sizeof err) == 0)
    viewer_input_view(&v->in, &orbit);
  else
    viewer_input_frame(&v->in);
}

/* The scene shown replaced: `next` becomes v->start (moved), its cameras beside on the number
 * keys (the --cameras were the command line's scene's). */
static void take_start(viewer *v, viewer_start *next) {
  viewer_input_set_cameras(&v->in, NULL, 0);
  viewer_start_free(&v->start);
  v->start = *next;
  memset(next, 0, sizeof *next);
  if (v->start.beside_count) viewer_input_set_cameras(&v->in, v->start.beside, v->start.beside_count);
}

/* A scene loaded after the first: onto the GPU in place of the current ones, or (`add`, a
 * Shift drop) as another object right of them; then the objects take their start view. A scene
 * that cannot be shown keeps the current ones. Frees `scene` and `lod`. */
static void show_scene(viewer *v, const char *path, splat_scene *scene_in, viewer_lod *lod, bool add) {
  splat_scene scene = *scene_in;
  memset(scene_in, 0, sizeof *scene_in);
  const char *stays = v->objects.count > 1 ? "the current scenes stay" : "the current scene stays";
  if (scene.count == 0) {
    set_message(v, true, "%s: no splats to show (%s)", path, stays);
    splat_scene_free(&scene);
    viewer_lod_free(lod);
    return;
  }
  drain(v); /* the renderer frees or grows buffers: no frame may still use them */
  char why[1200];
  viewer_start next = {0};
  if (!add) prepare_drop(v, path, &next);
  viewer_object_source src = {&scene, path, lod, v->o->lod_budget, add ? NULL : &next};
  VkResult res = viewer_objects_add(&v->objects, v->ar.renderer, &v->trees, &src, !add, &v->log, why, sizeof why);
  viewer_lod_free(lod);
  if (res == VK_SUCCESS && why[0]) set_message(v, true, "%s: %s", path, why); /* drawn whole instead */
  if (res != VK_SUCCESS) {
    if (res == VK_ERROR_TOO_MANY_OBJECTS)
      set_message(v, true, "%s: already %u objects, the most there can be; %s", path, v->objects.count, stays);
    else if (why[0]) /* it says what stays */
      set_message(v, true, "%s: %s", path, why);
    else
      set_message(v, true, "%s: cannot upload %u splats to the GPU (%s); %s", path, scene.count,
                  vkh_result_name(res), stays);
    splat_scene_free(&scene);
    viewer_start_free(&next);
    return;
  }
  objects_changed(v);
  if (!add) take_start(v, &next);
  restart_view(v);
  set_title(v);
  const viewer_object *o = &v->objects.at[v->objects.selected];
  if (!why[0])
    set_message(v, false, "%s %s: %u splats%s%s", add ? "added" : "opened", o->name, scene.count,
                o->lod ? ", level of detail" : "", scene.dropped ? " (some dropped: non-finite values)" : "");
  if (add)
    printf("added %s: %u splats, object %u of %u\n", viewer_path(path), scene.count, v->objects.count,
           v->objects.count);
  else
    printf("opened %s: %u splats\n", viewer_path(path), scene.count);
  fflush(stdout);
  splat_scene_free(&scene);
}

/* ---- loading in the background ------------------------------------------------------ */

static uint32_t frames_drawn(const viewer *v) { return v->frame + v->loading_frames; }

/* The newest dropped file started, or the load it replaces cancelled. */
static void start_pending(viewer *v) {
  char err[1200];
  if (window_loads_start_pending(&v->loads, frames_drawn(v), err, sizeof err) != 0) set_message(v, true, "%s", err);
}

/* A finished load: 1 with its scene in *scene and its tree in *lod (the caller's), its file in
 * path and *add; 0 when none has finished, or it failed (the message shown) or was cancelled. */
static int take_load(viewer *v, splat_scene *scene, viewer_lod *lod, char *path, size_t path_size, bool *add) {
  char err[1200];
  if (window_loads_take(&v->loads, frames_drawn(v), scene, lod, path, path_size, add, err, sizeof err)) return 1;
  if (err[0]) set_message(v, true, v->input_ready ? "%s (the current scene stays)" : "%s", err);
  return 0;
}

static void drain_cb(void *user) { drain(user); }

/* A streamed replacement: the parts that came appended (STREAM_BUDGET_S at most a frame); the new
 * scene framed once it is shown. A part the renderer refuses ends the load. */
static void stream_round(viewer *v, const window_stream_ctx *c) {
  char err[1200], note[1200];
  int rc = window_stream_pump(&v->ws, c, v->loads.loader, STREAM_BUDGET_S, err, sizeof err, note, sizeof note);
  if (note[0]) set_message(v, false, "%s", note);
  if (rc < 0) {
    set_message(v, true, "%s: %s", v->ws.path, err);
    viewer_loader_cancel(v->loads.loader);
  }
  if (rc > 0) {
    printf("streaming %s: %u of %u splats shown\n", viewer_path(v->ws.path), v->ws.s.resident, v->ws.s.total);
    fflush(stdout);
    objects_changed(v);
    viewer_input_set_cameras(&v->in, NULL, 0); /* they belong to the scene it replaces */
    restart_view(v);
    set_title(v);
  }
}

/* A streamed load has ended: complete (`scene`: the whole, for its bounds; freed here), or
 * failed or cancelled, which brings the current scene back (window_stream_end). */
static void stream_done(viewer *v, const window_stream_ctx *c, splat_scene *scene) {
  char err[1200];
  int shown = window_stream_end(&v->ws, c, scene, err, sizeof err);
  v->loads.running_stream = false;
  if (err[0]) set_message(v, true, "%s: %s", v->ws.path, err);
  objects_changed(v);
  restart_view(v); /* the whole scene's shape (it was framed by its first part) or the old one's */
  if (shown) take_start(v, &v->ws_start);
  else if (v->start.beside_count) /* the old scene back: its cameras on the number keys again */
    viewer_input_set_cameras(&v->in, v->start.beside, v->start.beside_count);
  viewer_start_free(&v->ws_start);
  set_title(v);
  if (shown) {
    const viewer_object *o = &v->objects.at[0];
    set_message(v, false, "opened %s: %u splats%s", o->name, o->count,
                scene->dropped ? " (some dropped: non-finite values)" : "");
    printf("opened %s: %u splats\n", viewer_path(v->ws.path), o->count);
    fflush(stdout);
  } else if (v->ws.old_freed) {
    set_message(v, true, "%s did not load, and the scene before it was freed for the memory budget", v->ws.path);
  }
  if (scene) splat_scene_free(scene);
}

/* Once a frame: a streamed load's parts appended; a finished load shown, then the newest drop
 * started (or the load it replaces cancelled). */
static void background_load(viewer *v) {
  window_stream_ctx c = {&v->objects, v->ar.renderer, &v->trees, drain_cb, v};
  if (v->ws.active) stream_round(v, &c);
  splat_scene scene;
  viewer_lod lod;
  char path[1024];
  bool add;
  int took = take_load(v, &scene, &lod, path, sizeof path, &add);
  if (v->ws.active && (took || !window_loads_running(&v->loads))) {
    viewer_lod_free(&lod); /* a streamed scene has none */
    stream_done(v, &c, took ? &scene : NULL);
  } else if (took) {
    show_scene(v, path, &scene, &lod, add);
  }
  start_pending(v);
  if (v->loads.running_stream && !v->ws.active) {
    viewer_load_status st;
    viewer_loader_status(v->loads.loader, &st);
    window_stream_begin(&v->ws, &c, st.path, v->o->keep_until_loaded);
    viewer_start_free(&v->ws_start);
    prepare_drop(v, st.path, &v->ws_start);
    v->ws.s.start = &v->ws_start;
  }
}

/* Events; while a scene loads, waiting so frames come at most LOADING_FPS a second (unless
 * --bench): a frame loop without vsync would take the CPU the loading thread needs. */
static void poll_events(viewer *v, double last_frame) {
  if (v->bench || !window_loads_running(&v->loads)) {
    glfwPollEvents();
    return;
  }
  double wait;
  while ((wait = last_frame + 1.0 / LOADING_FPS - glfwGetTime()) > 0 && !glfwWindowShouldClose(v->window))
    glfwWaitEventsTimeout(wait);
  glfwPollEvents();
}

/* Copies the renderer's target (the last submitted frame, without the HUD) to a PNG. Waits
 * for the queue: a screenshot is a one-off, not part of the frame loop. */
static int save_target(viewer *v, const char *path) {
  VkImage image;
  uint32_t w, h;
  splat_renderer_target(v->ar.renderer, &image, &w, &h);
  if (v->o->grid) image = v->hp.color, w = v->hp.width, h = v->hp.height;
  if (!image) {
    viewer_error("%s: no frame rendered yet", path);
    return -1;
  }
  vkh_buffer rb = vkh_buffer_create(&v->ctx, (VkDeviceSize)w * h * 8, 0, true, "screenshot readback");
  VkCommandBuffer cmd = vkh_begin(&v->ctx);
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, h, 1}};
  vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1, &region);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
  vkh_submit_wait(&v->ctx, cmd);
  char err[512];
  int status = app_write_png_rgba16f(path, w, h, rb.mapped, err, sizeof err);
  vkh_buffer_destroy(&v->ctx, &rb);
  if (status != 0) {
    set_message(v, true, "%s", err);
    return -1;
  }
  printf("wrote %s (%ux%u)\n", viewer_path(path), w, h);
  set_message(v, false, "wrote %s", path);
  return 0;
}

static void screenshot_key(viewer *v) {
  char path[64];
  for (int i = 1; i < 10000; i++) {
    snprintf(path, sizeof path, "splatview-%04d.png", i);
    if (access(path, F_OK) != 0) {
      save_target(v, path);
      return;
    }
  }
  set_message(v, true, "screenshot: splatview-0001..9999.png all exist");
}

/* ---- GLFW callbacks ----------------------------------------------------------------- */

static void effects(viewer *v, uint32_t e) {
  if (e & VIEWER_EFFECT_QUIT) glfwSetWindowShouldClose(v->window, GLFW_TRUE);
  if (e & VIEWER_EFFECT_VSYNC) v->rebuild = true;
  if (e & VIEWER_EFFECT_SCREENSHOT) v->screenshot_wanted = true;
  if (e & VIEWER_EFFECT_MESSAGE) set_message(v, false, "%s", v->in.message);
  if (e & VIEWER_EFFECT_OBJECT) v->objects.selected = v->in.selected;
  if (e & VIEWER_EFFECT_RASTER) raster_auto_stop(&v->raster_check); /* R or L: the user's choice */
  if (e & VIEWER_EFFECT_MOVE) {
    viewer_objects_move(&v->objects, v->in.object_move);
    objects_changed(v); /* F frames them where they are now */
  }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
  (void)scancode;
  viewer *v = glfwGetWindowUserPointer(w);
  if (v->bench || !v->input_ready) { /* --bench, or the first scene still loading: Esc only */
    if (key == GLFW_KEY_ESCAPE && action == GLFW_PRESS) glfwSetWindowShouldClose(w, GLFW_TRUE);
    return;
  }
  effects(v, viewer_input_key(&v->in, key, action, mods));
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
  viewer *v = glfwGetWindowUserPointer(w);
  if (!v->bench && v->input_ready) effects(v, viewer_input_button(&v->in, button, action, mods));
}

static void on_cursor(GLFWwindow *w, double x, double y) {
  viewer *v = glfwGetWindowUserPointer(w);
  /* window coordinates -> framebuffer pixels (they differ on high-DPI screens) */
  int ww, wh, fw, fh;
  glfwGetWindowSize(w, &ww, &wh);
  glfwGetFramebufferSize(w, &fw, &fh);
  if (ww > 0 && wh > 0) x *= (double)fw / ww, y *= (double)fh / wh;
  if (!v->bench && v->input_ready) effects(v, viewer_input_cursor(&v->in, x, y));
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
  viewer *v = glfwGetWindowUserPointer(w);
  if (!v->bench && v->input_ready) effects(v, viewer_input_scroll(&v->in, dx, dy));
}

static void on_drop(GLFWwindow *w, int count, const char **paths) {
  viewer *v = glfwGetWindowUserPointer(w);
  if (v->bench || count < 1) return;
  /* loaded from the main loop (start_pending); of several drops in one glfwPollEvents, or one
   * during a load, the newest wins. Shift held (as GLFW last saw the keys): add, not replace */
  bool add = v->input_ready && (glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
                                glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS);
  char msg[256];
  window_loads_drop(&v->loads, count, paths, add, msg, sizeof msg);
  if (msg[0]) set_message(v, false, "%s", msg);
}

static void on_focus(GLFWwindow *w, int focused) {
  viewer *v = glfwGetWindowUserPointer(w);
  if (!focused && v->input_ready) viewer_input_release_all(&v->in); /* their releases go to another window */
}

static void on_resize(GLFWwindow *w, int width, int height) {
  (void)width;
  (void)height;
  viewer *v = glfwGetWindowUserPointer(w);
  v->rebuild = true;
}

/* ---- one frame ---------------------------------------------------------------------- */

/* The swapchain's transitions, written from-layout first. */
static void image_barrier(const ssvk_device *d, VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                          VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                          VkAccessFlags dst_access) {
  ssvk_image_barrier(d, cmd, image, src, src_access, from, dst, dst_access, to);
}

static const VkCommandBufferBeginInfo one_time = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                                  .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};

/* Waits for the frame that used this slot FRAMES_IN_FLIGHT frames ago: its command buffers,
 * HUD vertices, semaphore and timestamps become free. */
static void wait_slot(viewer *v, frame_slot *fs, uint32_t slot) {
  if (!fs->fenced) return;
  VK_CHECK(vkWaitForFences(v->ctx.device, 1, &fs->done, VK_TRUE, UINT64_MAX));
  fs->fenced = false;
  collect(v, fs, slot);
}

/* The benchmark's orbit or the controllers' camera, at the swapchain's size. */
static int frame_camera(viewer *v, splat_camera *cam) {
  VkExtent2D e = v->sc.extent;
  int ok = v->bench ? app_bench_camera(v->o, &v->start_orbit, &v->start_cam, v->frame, e.width, e.height, cam)
                    : viewer_input_camera(&v->in, cam);
  if (ok != 0) /* not reachable from the controllers' clamped state */
    viewer_error("the camera is not usable (frame %u)", v->frame);
  return ok;
}

/* The frame's settings: the controllers' sort, key width and raster path, --key-mode etc., and
 * the objects' places. */
static splat_frame make_frame(viewer *v, const splat_camera *cam, uint32_t slot) {
  /* the instances are read as the frame is recorded: one array serves every slot */
  splat_frame f = {.camera = cam, .sort = v->in.sort, .key_bits = v->in.key_bits, .key_mode = v->o->key_mode,
                   .sh_degree = v->o->sh_degree, .slot = slot, .raster = v->in.raster,
                   .antialias = v->o->antialias, .order = v->in.order, .order_window = v->in.order_window,
                   .instances = v->instances,
                   .instance_count = viewer_objects_instances(&v->objects, v->instances),
                   .lod_budget = v->o->lod_budget, .lod_threshold = v->o->lod_threshold,
                   .lod_blend = v->o->lod_blend};
  memcpy(f.background, v->o->background, sizeof f.background);
  return f;
}

/* The splats (and with --grid the grid) into cmd, begun and ended here. */
static VkResult record_splats(viewer *v, VkCommandBuffer cmd, const splat_frame *f) {
  VkResult res = VK_SUCCESS;
  VK_CHECK(vkResetCommandBuffer(cmd, 0));
  VK_CHECK(vkBeginCommandBuffer(cmd, &one_time));
  label(v, cmd, "splat renderer");
  if (v->o->grid) {
    float up[3], ahead[3], right[3], grid[3][3];
    splat_up_basis(v->in.orbit.up, up, ahead, right);
    viewer_grid_place(v->in.bounds_lo, v->in.bounds_hi, up, ahead, right, grid[0], grid[1], grid[2]);
    viewer_host_pass_record(&v->hp, cmd, v->ar.renderer, f, grid[0], grid[1], grid[2]);
  } else {
    res = splat_renderer_cmd_render(v->ar.renderer, cmd, f);
  }
  unlabel(v, cmd);
  VK_CHECK(vkEndCommandBuffer(cmd));
  return res;
}

/* The renderer's commands: their batch waits for no semaphore. A compute raster that cannot
 * run (its buffers cannot be made) gives way to the graphics raster, re-recorded. */
static void record_render(viewer *v, frame_slot *fs, uint32_t slot, const splat_camera *cam) {
  splat_frame f = make_frame(v, cam, slot);
  VkResult res = record_splats(v, fs->render, &f);
  if (res != VK_SUCCESS && f.raster == SPLAT_RASTER_COMPUTE) {
    set_message(v, true, "the compute raster cannot run (%s): back to graphics", vkh_result_name(res));
    raster_auto_stop(&v->raster_check);
    v->in.raster = f.raster = SPLAT_RASTER_GRAPHICS;
    res = record_splats(v, fs->render, &f);
  }
  VK_CHECK(res);
}

/* The renderer's target into swapchain image dst, left in TRANSFER_DST_OPTIMAL. */
static void record_blit(viewer *v, VkCommandBuffer cmd, VkImage dst) {
  VkExtent2D e = v->sc.extent;
  VkImage target;
  splat_renderer_target(v->ar.renderer, &target, NULL, NULL);
  if (v->o->grid) target = v->hp.color;
  label(v, cmd, "blit to swapchain");
  /* the acquire semaphore is waited at TRANSFER: the layout change chains after it */
  image_barrier(&v->ctx.vk, cmd, dst, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  VkImageBlit blit = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                      .srcOffsets = {{0, 0, 0}, {(int32_t)e.width, (int32_t)e.height, 1}},
                      .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                      .dstOffsets = {{0, 0, 0}, {(int32_t)e.width, (int32_t)e.height, 1}}};
  vkCmdBlitImage(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                 &blit, VK_FILTER_NEAREST);
  unlabel(v, cmd);
}

/* The HUD built for this frame drawn onto swapchain image `image` (in TRANSFER_DST_OPTIMAL),
 * left ready to present. */
static void record_hud(viewer *v, VkCommandBuffer cmd, uint32_t image) {
  VkImage dst = v->sc.images[image];
  label(v, cmd, "hud");
  image_barrier(&v->ctx.vk, cmd, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  viewer_hud_cmd_draw(v->hud, cmd, v->sc.views[image], v->sc.extent);
  image_barrier(&v->ctx.vk, cmd, dst, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
  unlabel(v, cmd);
}

/* The HUD of this frame (window_hud.c says what it shows). */
static void build_hud(viewer *v, uint32_t slot) {
  char title[300];
  viewer_objects_title(&v->objects, title, sizeof title);
  window_hud_info info = {
      .extent = v->sc.extent, .present_mode = v->sc.present_mode, .title = title,
      .splats = viewer_objects_splats(&v->objects), .fps = v->fps, .last = v->have_last ? &v->last : NULL,
      .ring = (const double(*)[WINDOW_MEDIAN_FRAMES])v->ring, .ring_count = v->ring_count, .in = &v->in,
      .object = v->objects.count > 1 ? v->objects.at[v->objects.selected].name : NULL, .bench = v->bench,
      .frame = v->frame, .frames = v->o->frames,
      .message = glfwGetTime() < v->message_until ? v->message : NULL, .message_error = v->message_error,
      .loader = v->loads.loader, .input_ready = v->input_ready, .lod = viewer_objects_lod(&v->objects),
      .lod_budget = v->o->lod_budget};
  window_hud_build(v->hud, slot, &info);
}

/* The commands that wait for the acquired image: the blit, then the HUD when shown. */
static void record_present(viewer *v, frame_slot *fs, uint32_t slot, uint32_t image) {
  VkCommandBuffer cmd = fs->present;
  VkImage dst = v->sc.images[image];
  VK_CHECK(vkResetCommandBuffer(cmd, 0));
  VK_CHECK(vkBeginCommandBuffer(cmd, &one_time));
  record_blit(v, cmd, dst);
  if (v->in.hud_visible) {
    build_hud(v, slot);
    record_hud(v, cmd, image);
  } else
    image_barrier(&v->ctx.vk, cmd, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
  VK_CHECK(vkEndCommandBuffer(cmd));
}

static void present(viewer *v, uint32_t image) {
  VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .waitSemaphoreCount = 1,
                         .pWaitSemaphores = &v->sc.rendered[image], .swapchainCount = 1,
                         .pSwapchains = &v->sc.swapchain, .pImageIndices = &image};
  VkResult res = vkQueuePresentKHR(v->ctx.queue, &pi);
  if (res == VK_ERROR_OUT_OF_DATE_KHR || res == VK_SUBOPTIMAL_KHR) v->rebuild = true;
  else VK_CHECK(res);
}

static void submit_and_present(viewer *v, frame_slot *fs, uint32_t image) {
  /* two batches: the renderer's work does not wait for the swapchain image, only the blit does */
  VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo submits[2] = {
      {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &fs->render},
      {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = 1, .pWaitSemaphores = &fs->acquired,
       .pWaitDstStageMask = &wait_stage, .commandBufferCount = 1, .pCommandBuffers = &fs->present,
       .signalSemaphoreCount = 1, .pSignalSemaphores = &v->sc.rendered[image]}};
  VK_CHECK(vkResetFences(v->ctx.device, 1, &fs->done));
  VK_CHECK(vkQueueSubmit(v->ctx.queue, 2, submits, fs->done));
  fs->pending = fs->fenced = true;
  fs->frame = v->frame++;
  present(v, image);
}


/* Returns -1 when the frame cannot be drawn (the run ends). */
static int draw_frame(viewer *v) {
  uint32_t slot = v->frame % FRAMES_IN_FLIGHT;
  frame_slot *fs = &v->slots[slot];
  wait_slot(v, fs, slot);
  splat_camera cam; /* before the acquire: failing after it would leave its semaphore pending */
  if (frame_camera(v, &cam) != 0) return -1;
  uint32_t image;
  VkResult res =
      vkAcquireNextImageKHR(v->ctx.device, v->sc.swapchain, UINT64_MAX, fs->acquired, VK_NULL_HANDLE, &image);
  if (res == VK_ERROR_OUT_OF_DATE_KHR) {
    v->rebuild = true;
    return 0;
  }
  if (res == VK_SUBOPTIMAL_KHR) v->rebuild = true; /* still usable: draw this one, re-create after */
  else VK_CHECK(res);
  record_render(v, fs, slot, &cam);
  record_present(v, fs, slot, image);
  submit_and_present(v, fs, image);
  return 0;
}

/* A frame of the loading screen (no scene yet): the background colour and the HUD with the
 * load's progress; one batch, no renderer. */
static void draw_loading_frame(viewer *v) {
  uint32_t slot = v->loading_frames % FRAMES_IN_FLIGHT;
  frame_slot *fs = &v->slots[slot];
  wait_slot(v, fs, slot);
  uint32_t image;
  VkResult res =
      vkAcquireNextImageKHR(v->ctx.device, v->sc.swapchain, UINT64_MAX, fs->acquired, VK_NULL_HANDLE, &image);
  if (res == VK_ERROR_OUT_OF_DATE_KHR) {
    v->rebuild = true;
    return;
  }
  if (res == VK_SUBOPTIMAL_KHR) v->rebuild = true;
  else VK_CHECK(res);
  VkCommandBuffer cmd = fs->present;
  VkImage dst = v->sc.images[image];
  VK_CHECK(vkResetCommandBuffer(cmd, 0));
  VK_CHECK(vkBeginCommandBuffer(cmd, &one_time));
  label(v, cmd, "loading screen");
  image_barrier(&v->ctx.vk, cmd, dst, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  const float *bg = v->o->background;
  VkClearColorValue clear = {.float32 = {bg[0], bg[1], bg[2], 1.0f}};
  VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdClearColorImage(cmd, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1, &range);
  unlabel(v, cmd);
  window_hud_build_loading(v->hud, slot, v->sc.extent, v->loads.loader);
  record_hud(v, cmd, image);
  VK_CHECK(vkEndCommandBuffer(cmd));
  VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = 1,
                         .pWaitSemaphores = &fs->acquired, .pWaitDstStageMask = &wait_stage,
                         .commandBufferCount = 1, .pCommandBuffers = &cmd, .signalSemaphoreCount = 1,
                         .pSignalSemaphores = &v->sc.rendered[image]};
  VK_CHECK(vkResetFences(v->ctx.device, 1, &fs->done));
  VK_CHECK(vkQueueSubmit(v->ctx.queue, 1, &submit, fs->done));
  fs->fenced = true;
  v->loading_frames++;
  present(v, image);
}

/* ---- set-up --------------------------------------------------------------------------- */

/* Where a scene's tree came from, on stdout (a load under the window says it in its "loaded" line). */
static void say_lod(const viewer_lod *lod, const char *path) {
  char tree[1200];
  viewer_lod_text(lod, path, tree, sizeof tree);
  if (tree[0]) printf("level of detail for %s: %s\n", viewer_path(path), tree);
}

/* The first scene starts loading in the background, and the cameras are read meanwhile. A file
 * below LARGE_SCENE (a fraction of a second), or one that is not a file, is waited for before
 * any window opens, so a bad one fails at once; a larger one goes on loading while the window
 * and the device are made, then under the loading screen. */
static int start_first(viewer *v, const char *path, splat_scene *scene) {
  char err[1200];
  if (window_loads_begin(&v->loads, path, v->o->lod, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return -1;
  }
  if (v->o->cameras && splat_cameras_load(v->o->cameras, &v->cams, &v->cam_count, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return -1; /* viewer_destroy cancels the load */
  }
  viewer_start_prepare(&v->start, v->o, path, v->cams, v->cam_count);
  /* the command line's other scenes meanwhile, on this thread: a bad one fails before the window */
  for (uint32_t i = 1; i < v->o->scene_count; i++) {
    const char *p = v->o->scenes[i];
    if (app_load_scene(p, &v->more[i], false, err, sizeof err) != 0 ||
        viewer_lod_prepare(p, &v->more[i], v->o->lod, app_max_load_memory(), &v->more_lod[i], err, sizeof err) != 0) {
      viewer_error("%s", err);
      return -1;
    }
    say_lod(&v->more_lod[i], p);
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= LARGE_SCENE) return 0;
  double seconds;
  if (viewer_loader_take(v->loads.loader, scene, &v->first_lod, &seconds, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return -1;
  }
  say_lod(&v->first_lod, path);
  return 0;
}

/* The first scene is still loading: the window shows its progress until it is there (or a file
 * dropped meanwhile, which replaces it). Returns 0 with the scene in *scene and its file in
 * path, 1 when the window was closed first (the load cancelled), -1 when it did not load. */
static int load_screen(viewer *v, splat_scene *scene, char *path, size_t path_size) {
  for (;;) {
    if (glfwWindowShouldClose(v->window) || quit_signal) {
      window_loads_cancel(&v->loads, quit_signal ? "interrupted" : "the window closed");
      return 1;
    }
    bool add;
    viewer_lod_free(&v->first_lod); /* a drop that replaced the first */
    if (take_load(v, scene, &v->first_lod, path, path_size, &add)) return 0;
    start_pending(v);
    if (!window_loads_running(&v->loads) && !v->loads.pending) return -1; /* take_load said why */
    int ready = swapchain_ready(v);
    if (ready < 0) return -1;
    if (ready > 0) draw_loading_frame(v);
    glfwWaitEventsTimeout(1.0 / 30.0); /* a progress display: no need to take the loader's CPU */
  }
}

static int open_window(viewer *v, const char *path) {
  const splatview_options *o = v->o;
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    viewer_error("cannot open a window (no display? --headless renders without one)");
    return -1;
  }
  v->glfw_ready = true;
  if (!glfwVulkanSupported()) {
    viewer_error("GLFW finds no Vulkan loader or no window-system support for it");
    return -1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  char name[256], title[300];
  app_scene_name(name, sizeof name, path);
  snprintf(title, sizeof title, "splatview - %s", name);
  v->window = glfwCreateWindow((int)o->width, (int)o->height, title, NULL, NULL);
  if (!v->window) {
    viewer_error("cannot create a %ux%u window", o->width, o->height);
    return -1;
  }
  glfwSetWindowUserPointer(v->window, v);
  return 0;
}

/* The device (with the window system's instance extensions), the renderer, and the window's
 * surface, which the graphics queue must be able to present to. */
static int setup_device(viewer *v) {
  uint32_t ext_count = 0;
  const char **exts = glfwGetRequiredInstanceExtensions(&ext_count);
  vkh_options vo = vkh_default_options(false);
  vo.headless = false;
  vo.swapchain = true;
  vo.instance_extensions = exts;
  vo.instance_extension_count = ext_count;
  vkh_init(&v->ctx, &vo);
  app_renderer_options ro = {.memory_budget = (VkDeviceSize)v->o->memory_budget_mib << 20,
                             .sh_precision = v->o->sh_precision, .upload_threads = v->o->upload_threads};
  app_renderer_create_opts(&v->ctx, FRAMES_IN_FLIGHT, viewer_log_fn, &v->log, &ro, &v->ar);
  app_set_max_splats(splat_renderer_max_frame_splats(v->ar.renderer)); /* a scene it cannot draw: refused unread */
  if (v->o->grid) viewer_host_pass_init(&v->hp, &v->ctx);
  VK_CHECK(glfwCreateWindowSurface(v->ctx.instance, v->window, NULL, &v->surface));
  VkBool32 can_present = VK_FALSE;
  VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(v->ctx.physical_device, v->ctx.queue_family, v->surface,
                                                &can_present));
  if (!can_present) {
    viewer_error("%s cannot present to this window from its graphics queue",
                 v->ctx.props.deviceName);
    return -1;
  }
  return 0;
}

/* One scene of the start onto the GPU as an object (the first replaces what is there); its tree
 * (if any) is freed or kept with the object. */
static int upload(viewer *v, const char *path, splat_scene *scene, viewer_lod *lod) {
  if (scene->count == 0) {
    viewer_error("%s: no splats to show", path);
    return -1;
  }
  if (scene->dropped || scene->clamped)
    viewer_error("%s: %u splats dropped and %u values clamped (non-finite values)", path,
                 scene->dropped, scene->clamped);
  char why[1200];
  viewer_object_source src = {scene, path, lod, v->o->lod_budget, v->objects.count == 0 ? &v->start : NULL};
  VkResult res = viewer_objects_add(&v->objects, v->ar.renderer, &v->trees, &src, v->objects.count == 0, &v->log,
                                    why, sizeof why);
  viewer_lod_free(lod);
  if (res == VK_SUCCESS && why[0]) viewer_error("%s: %s", path, why); /* drawn whole instead */
  if (res != VK_SUCCESS) { /* one line: the renderer's reason, else ours */
    if (why[0]) viewer_error("%s: %s", path, why);
    else viewer_error("%s: cannot upload %u splats to the GPU (%s)", path, scene->count, vkh_result_name(res));
    return -1;
  }
  return 0;
}

/* The first scene onto the GPU, then the command line's others beside it (not when a drop
 * replaced the first while it loaded), and --sort checked against what the device runs. */
static int setup_scene(viewer *v, const char *path, splat_scene *scene, bool dropped) {
  if (upload(v, path, scene, &v->first_lod) != 0) return -1;
  for (uint32_t i = 1; i < v->o->scene_count && !dropped; i++) {
    if (upload(v, v->o->scenes[i], &v->more[i], &v->more_lod[i]) != 0) return -1;
    splat_scene_free(&v->more[i]);
  }
  v->objects.selected = 0;
  set_title(v);
  if (!splat_renderer_has_sort(v->ar.renderer, v->o->sort)) {
    viewer_error("--sort %s is not available on %s", splatsort_algorithm_name(v->o->sort),
                 v->ctx.props.deviceName);
    return -1;
  }
  return 0;
}

static void create_frame_slots(viewer *v) {
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = v->ctx.pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  for (uint32_t i = 0; i < FRAMES_IN_FLIGHT; i++) {
    frame_slot *fs = &v->slots[i];
    VK_CHECK(vkAllocateCommandBuffers(v->ctx.device, &ai, &fs->render));
    VK_CHECK(vkAllocateCommandBuffers(v->ctx.device, &ai, &fs->present));
    VK_CHECK(vkCreateFence(v->ctx.device, &fci, NULL, &fs->done));
    VK_CHECK(vkCreateSemaphore(v->ctx.device, &sci, NULL, &fs->acquired));
  }
}

/* Accepts slots never created (null handles). */
static void destroy_frame_slots(viewer *v) {
  for (uint32_t i = 0; i < FRAMES_IN_FLIGHT; i++) {
    frame_slot *fs = &v->slots[i];
    VkCommandBuffer cbs[2] = {fs->render, fs->present};
    vkFreeCommandBuffers(v->ctx.device, v->ctx.pool, 2, cbs);
    vkDestroyFence(v->ctx.device, fs->done, NULL);
    vkDestroySemaphore(v->ctx.device, fs->acquired, NULL);
  }
}

/* The HUD and the swapchain, before the first scene: the loading screen draws into them. */
static int setup_swapchain(viewer *v) {
  v->in.vsync = v->o->vsync && !v->o->bench;
  v->hud = viewer_hud_create(&v->ctx, VK_FORMAT_B8G8R8A8_UNORM, FRAMES_IN_FLIGHT);
  int built;
  while ((built = rebuild(v)) == 0) { /* started minimised */
    glfwWaitEvents();
    if (glfwWindowShouldClose(v->window)) break;
  }
  return built < 0 ? -1 : 0;
}

/* The start view (it frames the scene for the framebuffer's aspect), the controllers and the
 * statistics. A first scene dropped in place of the command line's takes a dropped scene's view
 * (drop_options): --cameras, --eye and --target were for the other. */
static int setup_view(viewer *v, bool dropped) {
  splatview_options view_opts = dropped ? drop_options(v->o) : *v->o;
  const splatview_options *o = &view_opts;
  if (dropped) {
    splat_cameras_free(v->cams);
    v->cams = NULL;
    v->cam_count = 0;
  }
  uint32_t w = v->sc.extent.width ? v->sc.extent.width : o->width;
  uint32_t h = v->sc.extent.height ? v->sc.extent.height : o->height;
  if (o->bench && o->size_given && (w != o->width || h != o->height))
    viewer_error("the window's framebuffer is %ux%u, not the --size %ux%u asked for", w, h,
                 o->width, o->height);
  char err[1024];
  if (viewer_start_view(o, &v->objects, v->cams, v->cam_count, w, h, &v->start_orbit, &v->start_cam, err,
                        sizeof err) != 0) {
    viewer_error("%s", err);
    return -1;
  }
  uint32_t sorts = 0;
  for (int a = 1; a < SPLATSORT_ALGORITHM_COUNT; a++)
    if (splat_renderer_has_sort(v->ar.renderer, (splatsort_algorithm)a)) sorts |= 1u << a;
  viewer_input_init(&v->in, &v->start_orbit, o->fovy, w, h, o->sort, sorts, o->key_bits, o->vsync && !o->bench);
  v->in.order = o->order;
  v->in.order_window = o->order_window;
  objects_changed(v);
  if (v->cam_count) {
    viewer_input_set_cameras(&v->in, v->cams, v->cam_count);
    viewer_input_jump(&v->in, o->camera_index < 0 ? 0 : o->camera_index);
  } else if (v->start.beside_count) { /* the cameras beside the scene on the number keys */
    viewer_input_set_cameras(&v->in, v->start.beside, v->start.beside_count);
  }
  v->keep_stats = o->bench || o->frames > 0;
  v->stats.skip = o->warmup;
  if (o->timings && app_timings_open(&v->csv, o->timings, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return -1;
  }
  return 0;
}

/* --raster: auto picks from the device, and on a GPU the first frames try the other path. */
static int setup_raster(viewer *v) {
  const splatview_options *o = v->o;
  bool checks = o->raster == SPLATVIEW_RASTER_AUTO && raster_auto_checks(v->ctx.props.deviceType, o->grid, o->bench);
  splat_raster_path p = app_start_raster(o, &v->ctx, checks);
  viewer_input_set_raster(&v->in, p, !o->grid);
  if (checks) raster_auto_start(&v->raster_check, p);
  return 0;
}

static void install_callbacks(viewer *v) {
  glfwSetKeyCallback(v->window, on_key);
  glfwSetMouseButtonCallback(v->window, on_button);
  glfwSetCursorPosCallback(v->window, on_cursor);
  glfwSetScrollCallback(v->window, on_scroll);
  glfwSetDropCallback(v->window, on_drop);
  glfwSetWindowFocusCallback(v->window, on_focus);
  glfwSetFramebufferSizeCallback(v->window, on_resize);
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* Everything before the first frame. Returns -1 (with a message) when a step fails, 1 when the
 * window was closed while the first scene loaded. */
static int setup(viewer *v, const char *path, splat_scene *scene) {
  if (start_first(v, path, scene) != 0 || open_window(v, path) != 0 || setup_device(v) != 0) return -1;
  create_frame_slots(v);
  if (setup_swapchain(v) != 0) return -1;
  install_callbacks(v);
  char first[1024];
  snprintf(first, sizeof first, "%s", path);
  if (scene->count == 0) { /* still loading */
    int r = load_screen(v, scene, first, sizeof first);
    if (r != 0) return r;
  }
  bool dropped = strcmp(first, path) != 0;
  if (dropped) { /* what was known of the command line's scene is not this one's */
    viewer_start_free(&v->start);
    prepare_drop(v, first, &v->start);
  }
  if (setup_scene(v, first, scene, dropped) != 0 || setup_view(v, dropped) != 0 ||
      setup_raster(v) != 0)
    return -1;
  v->input_ready = true;
  return 0;
}

/* ---- the loop ----------------------------------------------------------------------- */

static void count_fps(viewer *v, double now) {
  v->fps_frames++;
  if (now - v->fps_t0 >= 0.5) {
    v->fps = v->fps_frames / (now - v->fps_t0);
    v->fps_frames = 0;
    v->fps_t0 = now;
  }
}

/* Until the window is closed, a signal, or --frames. Returns -1 when a frame cannot be drawn. */
static int run_loop(viewer *v) {
  const splatview_options *o = v->o;
  double last = glfwGetTime();
  v->fps_t0 = last;
  v->loads.allow_stream = o->sh_precision != 8; /* 8-bit SH: the tables of the whole scene (splat_renderer.h) */
  while (!glfwWindowShouldClose(v->window) && !quit_signal && !(o->frames && v->frame >= o->frames)) {
    poll_events(v, last);
    background_load(v);
    int ready = swapchain_ready(v);
    if (ready < 0) return -1;
    if (ready == 0) {
      last = glfwGetTime();
      continue;
    }
    if (!splat_renderer_scene_count(v->ar.renderer)) { /* the scene was freed for one that did not load */
      draw_loading_frame(v);
      last = glfwGetTime();
      glfwWaitEventsTimeout(1.0 / 30.0);
      continue;
    }
    double now = glfwGetTime();
    effects(v, viewer_input_update(&v->in, now - last));
    last = now;
    if (draw_frame(v) != 0) return -1;
    if (v->screenshot_wanted) {
      v->screenshot_wanted = false;
      screenshot_key(v);
    }
    count_fps(v, now);
  }
  return 0;
}

/* ---- the end ------------------------------------------------------------------------ */

/* After the last frame: its timings, --screenshot, the summary line and the statistics.
 * Returns 1 when the screenshot failed. */
static int report(viewer *v) {
  const splatview_options *o = v->o;
  int status = 0;
  window_loads_cancel(&v->loads, quit_signal ? "interrupted" : "the window closed");
  drain(v);
  if (o->screenshot && v->frame > 0 && save_target(v, o->screenshot) != 0) status = 1;
  char err[1024];
  if (viewer_out_close(&v->csv, err, sizeof err) != 0) {
    viewer_error("%s", err);
    status = 1;
  }
  char title[300];
  viewer_objects_title(&v->objects, title, sizeof title);
  char note[64];
  if (v->frame > 0)
    printf("%s: %u splats, %u visible, %ux%u, sort %s, %u-bit keys, raster %s%s on %s, %u frames\n", title,
           viewer_objects_splats(&v->objects), v->last.visible, v->sc.extent.width, v->sc.extent.height,
           splatsort_algorithm_name(v->last.sort), v->last.key_bits, viewer_raster_name(v->last.raster),
           app_order_note(&v->last, note, sizeof note), v->ctx.props.deviceName, v->frame);
  if (v->frame > 0) app_print_overflow(stdout, &v->last);
  if (v->frame > 0 && viewer_objects_lod(&v->objects) && app_lod_drawn(&v->last)) {
    char line[128];
    viewer_lod_cut_line(&v->last, o->lod_budget, line, sizeof line);
    printf("%s (the last frame)\n", line);
  }
  if (v->keep_stats && v->stats.count)
    app_stats_print(&v->stats, stdout, o->bench ? "benchmark (window)" : "frame times");
  return status;
}

/* Frees whatever v holds, however far the set-up or the loop got. Returns `status`, or 1 when
 * the validation layer spoke. */
static int viewer_destroy(viewer *v, int status) {
  viewer_out_discard(&v->csv); /* a run that failed leaves no partial timings file */
  app_stats_free(&v->stats);
  if (v->ctx.device) {
    vkDeviceWaitIdle(v->ctx.device); /* a run that failed may leave frames in flight */
    viewer_hud_destroy(v->hud);
    viewer_swapchain_destroy(&v->ctx, &v->sc);
    destroy_frame_slots(v);
    viewer_host_pass_destroy(&v->hp);
    app_renderer_destroy(&v->ar);
  }
  if (v->surface) vkDestroySurfaceKHR(v->ctx.instance, v->surface, NULL);
  vkh_destroy(&v->ctx);
  if (v->window) glfwDestroyWindow(v->window);
  if (v->glfw_ready) glfwTerminate();
  splat_cameras_free(v->cams);
  viewer_start_free(&v->start);
  viewer_start_free(&v->ws_start);
  window_loads_end(&v->loads); /* cancels and joins a load still running */
  for (uint32_t i = 0; i < SPLATVIEW_MAX_SCENES; i++) {
    splat_scene_free(&v->more[i]);
    viewer_lod_free(&v->more_lod[i]);
  }
  viewer_lod_free(&v->first_lod);
  viewer_lod_trees_clear(&v->trees);
  if (v->ctx.validation_messages) {
    viewer_error("%u validation messages", v->ctx.validation_messages);
    status = 1;
  }
  free(v);
  return status;
}

int splatview_run_window(const splatview_options *o) {
  viewer *v = calloc(1, sizeof *v);
  if (!v) {
    viewer_error("out of memory");
    return 1;
  }
  v->o = o;
  v->bench = o->bench;
  viewer_log_init(&v->log);
  const char *path = o->scene ? o->scene : splatview_default_scene();
  splat_scene scene = {0};
  int set_up = setup(v, path, &scene);
  splat_scene_free(&scene); /* on the GPU now: the loop needs no CPU copy */
  int status = set_up < 0;
  if (set_up == 0) status = run_loop(v) != 0 ? 1 : report(v);
  return viewer_destroy(v, status);
}
