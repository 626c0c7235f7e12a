/* splatview --headless: render offscreen (no window, no display), write a PNG, timings. */
#include "app.h"
#include "app_renderer.h"
#include "gpu_clock.h"
#include "host_pass.h"
#include "input.h"
#include "lod.h"
#include "message.h"
#include "objects.h"
#include "start_view.h"
#include "stream.h"
#include "vkh.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

/* Everything one headless run makes. Zeroed at the start, so headless_destroy can free a
 * partly built run whatever step failed. */
typedef struct headless {
  const splatview_options *o;
  splat_scene scenes[SPLATVIEW_MAX_SCENES]; /* each freed once it is on the GPU */
  viewer_lod lods[SPLATVIEW_MAX_SCENES];    /* their trees, until uploaded */
  viewer_lod_trees trees;                   /* the level-of-detail objects' */
  viewer_objects objects;
  splat_camera_desc *cams;  /* --cameras */
  uint32_t cam_count;
  viewer_start start;       /* the start view's up, cameras.json beside the scene */
  uint32_t width, height;
  splat_orbit orbit;       /* --bench turns around it */
  splat_camera cam;        /* the start camera */
  vkh_context ctx;
  app_renderer ar;
  viewer_log log;          /* the renderer's */
  viewer_host_pass hp;     /* --grid: the viewer's own pass */
  float grid[3][3];        /* its origin and half extents */
  viewer_out csv;          /* --timings */
  vkh_buffer readback;     /* the last frame, for --out */
  app_stats stats;
  splat_timings last;
  splat_raster_path raster; /* --raster, auto resolved (app_start_raster) */
  splat_instance instances[SPLAT_MAX_OBJECTS]; /* the objects' places, for the frame */
  uint32_t warmup_frames;  /* --bench: frames before the measured ones */
  bool settled;            /* whether their times settled (else a cap ended the warm-up) */
  gpu_clock *clock;        /* --bench: the SM clock (NULL without NVML) */
  char clock_note[256];
  gpu_clock_stats clock_stats; /* read after each measured frame */
  /* the load's phases (load: lines): seconds since the open started, less not_counted (the
   * device's setup in the blocking path, which opens the file first) */
  double t_open, not_counted;
  bool full_frame_said;
  splat_upload_stats upload; /* the uploads', added up */
  viewer_loader *loader;     /* --stream */
  viewer_stream stream;
  bool loading;              /* --stream: frames while the scene arrives (no grid, no read-back) */
  uint32_t loading_frames;
} headless;

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds of the load so far (its load: lines). */
static double since_open(const headless *h) { return seconds() - h->t_open - h->not_counted; }

/* The most splats a frame on any device can hold: a 32-byte record each in one storage buffer,
 * whose range is a uint32 (splat_renderer_max_frame_splats is this device's, known only once the
 * renderer exists; headless loads first, so a scene over this is refused from its header, one
 * between the device's and this is refused at upload). */
#define HEADLESS_MAX_SPLATS (UINT32_MAX / 32u)

/* Every scene of the command line, read and decoded (uploaded later, setup_gpu). */
static int load_scenes(headless *h) {
  const splatview_options *o = h->o;
  app_set_max_splats(HEADLESS_MAX_SPLATS);
  h->t_open = seconds();
  for (uint32_t i = 0; i < o->scene_count; i++) {
    const char *path = o->scenes[i];
    splat_scene *scene = &h->scenes[i];
    char err[1024];
    double t0 = seconds();
    if (app_load_scene(path, scene, true, err, sizeof err) != 0 ||
        viewer_lod_prepare(path, scene, o->lod, app_max_load_memory(), &h->lods[i], err, sizeof err) != 0) {
      viewer_error("%s", err);
      return -1;
    }
    if (o->bench) printf("scene: %u splats read and decoded in %.2f s\n", scene->count, seconds() - t0);
    char tree[1200];
    viewer_lod_text(&h->lods[i], path, tree, sizeof tree);
    if (tree[0]) printf("load: level of detail for %s: %s\n", viewer_path(path), tree);
    if (scene->dropped || scene->clamped)
      viewer_error("%s: %u splats dropped and %u values clamped (non-finite values)", path,
                   scene->dropped, scene->clamped);
  }
  printf("load: decoded %.3f s\n", since_open(h));
  return 0;
}

/* --cameras and what the start view knows before the splats are looked at (viewer_start_prepare),
 * before the first scene is uploaded. */
static int prepare_view(headless *h) {
  const splatview_options *o = h->o;
  char err[1024];
  if (o->cameras && splat_cameras_load(o->cameras, &h->cams, &h->cam_count, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return -1;
  }
  viewer_start_prepare(&h->start, o, o->scenes[0], h->cams, h->cam_count);
  return 0;
}

/* The start view, which frames every object as placed; the image takes the chosen camera's size
 * unless --size was given. */
static int load_view(headless *h) {
  const splatview_options *o = h->o;
  char err[1024];
  h->width = o->width;
  h->height = o->height;
  if (o->cameras && !o->size_given && h->cam_count) {
    uint32_t i = o->camera_index < 0 ? 0 : (uint32_t)o->camera_index;
    if (i < h->cam_count) h->width = h->cams[i].width, h->height = h->cams[i].height;
    if (h->width > SPLATVIEW_MAX_SIDE || h->height > SPLATVIEW_MAX_SIDE) {
      snprintf(err, sizeof err, "%s: camera %u is %ux%u, above the %u pixels a side an image may have "
               "(give --size WxH)", o->cameras, i, h->width, h->height, SPLATVIEW_MAX_SIDE);
      goto fail;
    }
  }
  if (viewer_start_view(o, &h->objects, h->cams, h->cam_count, h->width, h->height, &h->orbit, &h->cam, err,
                        sizeof err) != 0)
    goto fail;
  return 0;
fail:
  viewer_error("%s", err);
  return -1;
}

/* The scene's device memory a splat, by buffer (splat_renderer_memory). */
static void print_scene_memory(const splat_renderer *r, uint32_t sh_bits) {
  splat_renderer_memory_info m;
  if (splat_renderer_memory(r, &m) != VK_SUCCESS || m.splats == 0) return;
  double n = m.splats;
  printf("scene: %.1f bytes a splat on the GPU: positions %.1f, shapes %.1f, SH %.1f (%u-bit); %.1f MiB\n",
         (double)(m.positions + m.shapes + m.sh) / n, (double)m.positions / n, (double)m.shapes / n,
         (double)m.sh / n, sh_bits, (double)(m.positions + m.shapes + m.sh) / (1024.0 * 1024.0));
}


/* The device and the renderer (its time is not the load's). */
static void create_gpu(headless *h) {
  const splatview_options *o = h->o;
  double t0 = seconds();
  vkh_options vo = vkh_default_options(false);
  vkh_init(&h->ctx, &vo);
  if (o->bench) h->clock = gpu_clock_open_vk(h->ctx.physical_device, h->clock_note, sizeof h->clock_note);
  app_renderer_options ro = {.memory_budget = (VkDeviceSize)h->o->memory_budget_mib << 20,
                             .sh_precision = h->o->sh_precision, .upload_threads = h->o->upload_threads};
  app_renderer_create_opts(&h->ctx, 1, viewer_log_fn, &h->log, &ro, &h->ar);
  if (h->t_open) h->not_counted += seconds() - t0;
}

static int check_sort(headless *h) {
  if (splat_renderer_has_sort(h->ar.renderer, h->o->sort)) return 0;
  viewer_error("--sort %s is not available on %s", splatsort_algorithm_name(h->o->sort),
               h->ctx.props.deviceName);
  return -1;
}

/* The device, and the renderer with every scene on it as an object, side by side. */
static int setup_gpu(headless *h) {
  const splatview_options *o = h->o;
  create_gpu(h);
  double t0 = seconds();
  for (uint32_t i = 0; i < o->scene_count; i++) {
    char why[1200];
    viewer_object_source src = {&h->scenes[i], o->scenes[i], &h->lods[i], o->lod_budget,
                                i == 0 ? &h->start : NULL};
    VkResult res = viewer_objects_add(&h->objects, h->ar.renderer, &h->trees, &src, i == 0, &h->log, why, sizeof why);
    if (res == VK_SUCCESS && why[0]) viewer_error("%s: %s", o->scenes[i], why); /* drawn whole instead */
    viewer_lod_free(&h->lods[i]);
    if (res != VK_SUCCESS) { /* one line: the renderer's reason, else ours */
      if (why[0]) viewer_error("%s: %s", o->scenes[i], why);
      else viewer_error("%s: cannot upload %u splats to the GPU (%s)", o->scenes[i], h->scenes[i].count,
                        vkh_result_name(res));
      return -1;
    }
    splat_upload_stats st;
    splat_renderer_upload_stats(h->ar.renderer, &st);
    viewer_upload_stats_add(&h->upload, &st);
    splat_scene_free(&h->scenes[i]);
  }
  printf("load: uploaded %.3f s\n", since_open(h));
  if (o->bench) printf("scene: uploaded to the GPU in %.2f s\n", seconds() - t0);
  if (o->bench) print_scene_memory(h->ar.renderer, o->sh_precision ? o->sh_precision : 16);
  return check_sort(h);
}

/* The timings file, the read-back buffer and the grid (once the image size is known). */
static int setup_output(headless *h) {
  const splatview_options *o = h->o;
  char err[1024];
  if (o->timings && app_timings_open(&h->csv, o->timings, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return -1;
  }
  if (o->out)
    h->readback = vkh_buffer_create(&h->ctx, (VkDeviceSize)h->width * h->height * 8, 0, true, "readback");
  if (o->grid) {
    viewer_host_pass_init(&h->hp, &h->ctx);
    float lo[3], hi[3], up[3], ahead[3], right[3];
    viewer_objects_bounds(&h->objects, lo, hi);
    splat_up_basis(h->orbit.up, up, ahead, right);
    viewer_grid_place(lo, hi, up, ahead, right, h->grid[0], h->grid[1], h->grid[2]);
  }
  return 0;
}

/* Copies the target into the read-back buffer, visible to the host once the queue is idle. */
static void record_readback(headless *h, VkCommandBuffer cmd) {
  VkImage image = h->hp.color;
  if (!h->o->grid) splat_renderer_target(h->ar.renderer, &image, NULL, NULL);
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                              .imageExtent = {h->width, h->height, 1}};
  vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, h->readback.buffer, 1, &region);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* A frame from `cam` with the command line's settings, the raster path and the objects. */
static splat_frame make_frame(headless *h, const splat_camera *cam) {
  const splatview_options *o = h->o;
  splat_frame f = {.camera = cam, .sort = o->sort, .key_bits = o->key_bits, .key_mode = o->key_mode,
                   .sh_degree = o->sh_degree, .raster = h->raster, .antialias = o->antialias,
                   .order = o->order, .order_window = o->order_window, .instances = h->instances,
                   .instance_count = viewer_objects_instances(&h->objects, h->instances),
                   .lod_budget = o->lod_budget, .lod_threshold = o->lod_threshold, .lod_blend = o->lod_blend};
  memcpy(f.background, o->background, sizeof f.background);
  return f;
}


/* One frame, submitted and waited for; its timings in h->last. Returns -1 (with a message)
 * when the compute raster cannot run. */
static int render_frame(headless *h, uint32_t frame, bool readback) {
  const splatview_options *o = h->o;
  splat_camera cam;
  app_bench_camera(o, &h->orbit, &h->cam, frame, h->width, h->height, &cam);
  splat_frame f = make_frame(h, &cam);
  VkCommandBuffer cmd = vkh_begin(&h->ctx);
  VkResult res = VK_SUCCESS;
  if (o->grid && !h->loading)
    viewer_host_pass_record(&h->hp, cmd, h->ar.renderer, &f, h->grid[0], h->grid[1], h->grid[2]);
  else
    res = splat_renderer_cmd_render(h->ar.renderer, cmd, &f);
  if (res == VK_SUCCESS && readback) record_readback(h, cmd);
  vkh_submit_wait(&h->ctx, cmd);
  if (res != VK_SUCCESS && f.raster == SPLAT_RASTER_COMPUTE && o->raster == SPLATVIEW_RASTER_AUTO) {
    printf("raster auto: graphics, as the compute raster cannot run here (%s)\n", vkh_result_name(res));
    h->raster = SPLAT_RASTER_GRAPHICS;
    return render_frame(h, frame, readback);
  }
  if (res != VK_SUCCESS && f.raster == SPLAT_RASTER_COMPUTE) {
    viewer_error("the compute raster cannot run (%s); --raster graphics can", vkh_result_name(res));
    return -1;
  }
  VK_CHECK(res);
  VK_CHECK(splat_renderer_timings(h->ar.renderer, 0, &h->last));
  return 0;
}

/* --bench: the first frame's view again and again until the GPU frame times settle (the median
 * of the last 10 within 2% of the 10 before, gpu_clock_settled), after at least --warmup frames,
 * at most BENCH_WARMUP_MAX frames or 10 s. An idle GPU, as during a scene load, drops its clock
 * and ramps it back in steps (docs/performance.md); frames before that are not the renderer's
 * speed. The warm-up frames are in --timings and out of the statistics. */
enum { BENCH_WARMUP_MAX = 1000 };

static int warm_up(headless *h) {
  const splatview_options *o = h->o;
  double *times = malloc(sizeof(double) * BENCH_WARMUP_MAX), t0 = seconds();
  if (!times) return -1;
  h->stats.skip = UINT32_MAX; /* every frame until the count is known */
  uint32_t n = 0;
  while (n < BENCH_WARMUP_MAX && !h->settled && seconds() - t0 < 10.0) {
    if (render_frame(h, 0, false) != 0) {
      free(times);
      return -1;
    }
    app_stats_add(&h->stats, &h->last);
    if (h->csv.f) app_timings_row(h->csv.f, n, &h->last);
    times[n++] = h->last.total_ms;
    h->settled = n >= o->warmup && gpu_clock_settled(times, n, GPU_CLOCK_SETTLE_WINDOW, GPU_CLOCK_SETTLE_TOLERANCE);
  }
  free(times);
  h->stats.skip = h->warmup_frames = n;
  if (h->settled)
    printf("warm-up: %u frames until the GPU frame times settled (median of the last %d within %.0f%% of the %d "
           "before)\n", n, GPU_CLOCK_SETTLE_WINDOW, 100 * GPU_CLOCK_SETTLE_TOLERANCE, GPU_CLOCK_SETTLE_WINDOW);
  else
    printf("warning: warm-up: the GPU frame times had not settled after %u frames (%.1f s); measuring anyway\n", n,
           seconds() - t0);
  return 0;
}

/* o->frames frames, one submission each, waited for: the timings are read after each (with
 * --bench after the warm-up, and the SM clock too). The frame written to --out is rendered again
 * when it overflowed the compute raster's pairs (its buffers have grown since), so the image is
 * complete. Returns -1 when a frame fails. */
static int render_frames(headless *h) {
  const splatview_options *o = h->o;
  h->stats.skip = o->warmup;
  if (o->bench && warm_up(h) != 0) return -1;
  for (uint32_t frame = 0; frame < o->frames; frame++) {
    bool out = o->out && frame + 1 == o->frames;
    if (render_frame(h, frame, out) != 0) return -1;
    if (!h->full_frame_said) {
      char text[256];
      viewer_upload_stats_text(&h->upload, text, sizeof text);
      printf("load: first full frame %.3f s\nload: upload: %s\n", since_open(h), text);
      h->full_frame_said = true;
    }
    if (o->bench) gpu_clock_stats_add(h->clock, &h->clock_stats);
    app_stats_add(&h->stats, &h->last);
    if (h->csv.f) app_timings_row(h->csv.f, h->warmup_frames + frame, &h->last);
    if (out && app_overflowed(&h->last)) {
      printf("frame %u needed %u pairs, more than the %u it had: rendered again for %s\n", frame, h->last.pairs,
             h->last.pair_capacity, viewer_path(o->out));
      if (render_frame(h, frame, true) != 0) return -1;
    }
  }
  return 0;
}

/* --bench: the SM clock over the measured frames, and a warning when it was below its maximum. */
static void report_clock(headless *h) {
  char text[160];
  if (!h->clock) {
    printf("  clock: %s\n", h->clock_note);
    return;
  }
  printf("  clock: %s (read after each frame; NVML%s%s)\n", gpu_clock_stats_text(&h->clock_stats, text, sizeof text),
         h->clock_note[0] ? ", " : "", h->clock_note);
  if (h->clock_stats.below)
    printf("warning: the SM clock was below its maximum after %u of %u frames: these times are not at full clock\n",
           h->clock_stats.below, h->clock_stats.samples);
}

/* The timings file closed, the summary line, the statistics and the PNG. Returns 0, or 1 when
 * the timings or the PNG could not be written. */
static int report(headless *h) {
  const splatview_options *o = h->o;
  const splat_timings *t = &h->last;
  char name[1024], err[1024];
  int status = 0;
  if (viewer_out_close(&h->csv, err, sizeof err) != 0) {
    viewer_error("%s", err);
    status = 1;
  }
  if (o->scene_count > 1)
    snprintf(name, sizeof name, "%s + %u more (%u objects)", viewer_path(o->scene), o->scene_count - 1,
             o->scene_count);
  else
    snprintf(name, sizeof name, "%s", viewer_path(o->scene));
  char note[64];
  printf("%s: %u splats, %u visible, %ux%u, sort %s, %u-bit keys, raster %s%s on %s\n", name,
         viewer_objects_splats(&h->objects),
         t->visible, h->width, h->height, splatsort_algorithm_name(t->sort), t->key_bits,
         viewer_raster_name(t->raster), app_order_note(t, note, sizeof note), h->ctx.props.deviceName);
  app_print_overflow(stdout, t);
  if (viewer_objects_lod(&h->objects) && app_lod_drawn(t)) {
    char line[128];
    viewer_lod_cut_line(t, o->lod_budget, line, sizeof line);
    printf("%s (the last frame)\n", line);
    for (uint32_t i = 0; i < h->objects.count; i++) { /* streamed objects: their pages */
      splat_lod_stats st;
      if (!h->objects.at[i].lod || splat_renderer_lod_stats(h->ar.renderer, h->objects.at[i].id, &st) != VK_SUCCESS ||
          st.pool_pages >= st.pages)
        continue;
      printf("LOD pages of %s: %u of %u resident (a pool of %u), %llu copied in, %llu evicted, %u asked for by the "
             "last cut\n", h->objects.at[i].name, st.resident, st.pages, st.pool_pages, (unsigned long long)st.loaded,
             (unsigned long long)st.evicted, st.requested);
    }
  }
  if (o->frames > 1 || o->bench) app_stats_print(&h->stats, stdout, o->bench ? "benchmark" : "frame times");
  if (o->bench) report_clock(h);
  if (!o->out) return status;
  if (app_write_png_rgba16f(o->out, h->width, h->height, h->readback.mapped, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return 1;
  }
  printf("wrote %s\n", viewer_path(o->out));
  return status;
}

/* Frees whatever h holds, however far the run got. Returns `status`, or 1 when the validation
 * layer spoke. */
static int headless_destroy(headless *h, int status) {
  viewer_out_discard(&h->csv); /* a run that failed leaves no partial timings file */
  viewer_loader_destroy(h->loader); /* cancels and joins a load still running */
  vkh_buffer_destroy(&h->ctx, &h->readback);
  app_stats_free(&h->stats);
  viewer_host_pass_destroy(&h->hp);
  app_renderer_destroy(&h->ar);
  gpu_clock_close(h->clock);
  vkh_destroy(&h->ctx);
  splat_cameras_free(h->cams);
  viewer_start_free(&h->start);
  for (uint32_t i = 0; i < SPLATVIEW_MAX_SCENES; i++) {
    splat_scene_free(&h->scenes[i]);
    viewer_lod_free(&h->lods[i]);
  }
  viewer_lod_trees_clear(&h->trees);
  if (h->ctx.validation_messages) {
    viewer_error("%u validation messages", h->ctx.validation_messages);
    status = 1;
  }
  return status;
}

/* --stream: the first part placed as the object and framed; later the whole scene. */
static int place_first_part(headless *h) {
  viewer_stream *s = &h->stream;
  viewer_object *ob = &h->objects.at[0];
  *ob = (viewer_object){.id = s->id, .count = s->total};
  app_scene_name(ob->name, sizeof ob->name, h->o->scene);
  memcpy(ob->lo, s->lo, sizeof ob->lo);
  memcpy(ob->hi, s->hi, sizeof ob->hi);
  ob->view = s->view;
  h->objects.count = 1;
  printf("load: first part %.3f s (%u of %u splats)\n", s->t_first_part, s->first_part, s->total);
  return load_view(h);
}

/* --stream: parts appended as they come, 50 ms at most between two frames, a frame drawn
 * (and waited for) after each round once a splat is resident, until the load has ended. */
static int stream_parts(headless *h) {
  viewer_stream *s = &h->stream;
  char err[1200];
  for (;;) {
    viewer_load_status st;
    viewer_loader_status(h->loader, &st);
    if (st.finished) return 0; /* the worker waits on each part: none is left */
    uint32_t parts = s->parts;
    double budget = h->loading_frames ? 0.05 : 0; /* the first frame as soon as a part is in */
    if (viewer_stream_pump(s, h->loader, h->ar.renderer, budget, 0.01, h->t_open, NULL, err, sizeof err) < 0) {
      viewer_error("%s: %s", h->o->scene, err);
      return -1;
    }
    if (parts == 0 && s->parts > 0 && place_first_part(h) != 0) return -1;
    if (!s->resident) continue;
    if (render_frame(h, 0, false) != 0) return -1;
    if (h->loading_frames++ == 0)
      printf("load: first frame %.3f s (%u of %u splats resident)\n", since_open(h), s->resident, s->total);
  }
}

/* --stream: the device first, then the scene drawn while it loads; ends with every splat
 * resident and the view framing the whole scene, as the blocking path's. */
static int stream_scene(headless *h) {
  const splatview_options *o = h->o;
  char err[1200];
  if (o->scene_count != 1) {
    viewer_error("--stream opens one scene (%u given)", o->scene_count);
    return -1;
  }
  if (prepare_view(h) != 0) return -1;
  h->stream.start = &h->start;
  create_gpu(h);
  app_set_max_splats(splat_renderer_max_frame_splats(h->ar.renderer)); /* the renderer exists first here */
  if (check_sort(h) != 0) return -1;
  h->raster = app_start_raster(o, &h->ctx, false); /* the frames while loading take it too */
  if (viewer_lod_wanted(o->scene, o->lod)) /* a sidecar (--lod with --stream is refused) */
    viewer_error("%s: --stream draws the scene as it arrives, without its level-of-detail tree (its .lod is not "
                 "read)", o->scene);
  h->loader = viewer_loader_create();
  h->t_open = seconds();
  if (!h->loader || viewer_loader_start(h->loader, o->scene, true, o->lod, err, sizeof err) != 0) {
    viewer_error("%s", h->loader ? err : "out of memory");
    return -1;
  }
  h->loading = true;
  if (stream_parts(h) != 0) return -1;
  h->loading = false;
  splat_scene scene;
  double secs;
  int rc = viewer_loader_take(h->loader, &scene, NULL, &secs, err, sizeof err);
  if (rc == 0 && viewer_stream_finish(&h->stream, h->ar.renderer, err, sizeof err) != 0) rc = -1;
  if (rc != 0) {
    splat_scene_free(&scene);
    viewer_error("%s", rc == SPLAT_SCENE_CANCELLED ? "loading was cancelled" : err);
    return -1;
  }
  printf("load: full scene %.3f s (%u splats in %u parts, %u frames drawn while loading)\n", since_open(h),
         h->stream.resident, h->stream.parts, h->loading_frames);
  h->upload = h->stream.stats;
  viewer_object *ob = &h->objects.at[0];
  ob->count = h->stream.resident;
  app_scene_bounds(&scene, ob->lo, ob->hi);
  viewer_shape_make(&scene, &h->start, ob->lo, ob->hi, &ob->view);
  if (scene.dropped || scene.clamped)
    viewer_error("%s: %u splats dropped and %u values clamped (non-finite values)", o->scene,
                 scene.dropped, scene.clamped);
  splat_scene_free(&scene);
  return load_view(h);
}

int splatview_run_headless(const splatview_options *o) {
  headless h = {.o = o};
  viewer_log_init(&h.log);
  if (o->stream ? stream_scene(&h) != 0 || setup_output(&h) != 0
                : load_scenes(&h) != 0 || prepare_view(&h) != 0 || setup_gpu(&h) != 0 || load_view(&h) != 0 ||
                      setup_output(&h) != 0)
    return headless_destroy(&h, 1);
  if (!o->stream) h.raster = app_start_raster(o, &h.ctx, false);
  if (render_frames(&h) != 0) return headless_destroy(&h, 1);
  return headless_destroy(&h, report(&h));
}
