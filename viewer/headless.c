/* splatview --headless: render offscreen (no window, no display), write a PNG, timings. */
#include "app.h"
#include "vkh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int splatview_run_headless(const splatview_options *o) {
  char err[1024];
  splat_scene scene;
  if (app_load_scene(o->scene, &scene, err, sizeof err) != 0) {
    fprintf(stderr, "splatview: %s\n", err);
    return 1;
  }
  if (scene.dropped || scene.clamped)
    fprintf(stderr, "splatview: %s: %u splats dropped and %u values clamped (non-finite values)\n", o->scene,
            scene.dropped, scene.clamped);
  splat_camera_desc *cams = NULL;
  uint32_t cam_count = 0;
  if (o->cameras && splat_cameras_load(o->cameras, &cams, &cam_count, err, sizeof err) != 0) {
    fprintf(stderr, "splatview: %s\n", err);
    splat_scene_free(&scene);
    return 1;
  }
  uint32_t width = o->width, height = o->height;
  if (o->cameras && !o->size_given && cam_count) {
    uint32_t i = o->camera_index < 0 ? 0 : (uint32_t)o->camera_index;
    if (i < cam_count) width = cams[i].width, height = cams[i].height;
  }
  splat_orbit orbit;
  splat_camera cam;
  if (app_start_view(o, &scene, cams, cam_count, width, height, &orbit, &cam, err, sizeof err) != 0) {
    fprintf(stderr, "splatview: %s\n", err);
    splat_cameras_free(cams);
    splat_scene_free(&scene);
    return 1;
  }

  vkh_context ctx;
  vkh_options vo = vkh_default_options(false);
  vkh_init(&ctx, &vo);
  if (!ctx.dynamic_rendering) {
    fprintf(stderr, "splatview: the Vulkan device (%s) lacks dynamic rendering (Vulkan 1.3)\n", ctx.props.deviceName);
    return 1;
  }
  splatsort *sorters[2];
  uint32_t sorter_count = vkh_create_sorters(&ctx, sorters);
  splat_renderer_create_info ri = {.physical_device = ctx.physical_device, .device = ctx.device, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)sorters,
                                   .sorter_count = sorter_count, .frame_slots = 1,
                                   .flags = ctx.debug_utils ? SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT : 0,
                                   .log = vkh_sort_log};
  splat_renderer *r;
  VK_CHECK(splat_renderer_create(&ri, &r));
  VkResult res = splat_renderer_set_scene(r, &scene);
  if (res != VK_SUCCESS) {
    fprintf(stderr, "splatview: %s: cannot upload %u splats to the GPU (%s)\n", o->scene, scene.count,
            vkh_result_name(res));
    return 1;
  }
  if (o->sort == SPLATSORT_ALGORITHM_ONESWEEP && !splat_renderer_has_sort(r, o->sort)) {
    fprintf(stderr, "splatview: --sort onesweep is not available on %s\n", ctx.props.deviceName);
    return 1;
  }
  FILE *csv = NULL;
  if (o->timings && !(csv = app_timings_open(o->timings, err, sizeof err))) {
    fprintf(stderr, "splatview: %s\n", err);
    return 1;
  }
  vkh_buffer readback = {0};
  if (o->out) readback = vkh_buffer_create(&ctx, (VkDeviceSize)width * height * 8, 0, true, "readback");

  app_stats stats = {.skip = o->warmup};
  splat_timings t = {0};
  for (uint32_t frame = 0; frame < o->frames; frame++) {
    splat_camera frame_cam;
    app_bench_camera(o, &orbit, &cam, frame, width, height, &frame_cam);
    splat_frame f = {.camera = &frame_cam, .sort = o->sort, .key_bits = o->key_bits, .sh_degree = o->sh_degree};
    memcpy(f.background, o->background, sizeof f.background);
    VkCommandBuffer cmd = vkh_begin(&ctx);
    VK_CHECK(splat_renderer_cmd_render(r, cmd, &f));
    if (o->out && frame + 1 == o->frames) {
      VkImage image;
      splat_renderer_target(r, &image, NULL, NULL);
      VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                  .imageExtent = {width, height, 1}};
      vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
      VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                           NULL);
    }
    vkh_submit_wait(&ctx, cmd);
    VK_CHECK(splat_renderer_timings(r, 0, &t));
    app_stats_add(&stats, &t);
    if (csv) app_timings_row(csv, frame, &t);
  }
  int status = 0;
  if (csv) fclose(csv);
  printf("%s: %u splats, %u visible, %ux%u, sort %s, %u-bit keys on %s\n", o->scene, scene.count, t.visible, width,
         height, splatsort_algorithm_name(t.sort), t.key_bits, ctx.props.deviceName);
  if (o->frames > 1 || o->bench) app_stats_print(&stats, stdout, o->bench ? "benchmark" : "frame times");
  if (o->out) {
    if (app_write_png_rgba16f(o->out, width, height, readback.mapped, err, sizeof err) != 0) {
      fprintf(stderr, "splatview: %s\n", err);
      status = 1;
    } else {
      printf("wrote %s\n", o->out);
    }
    vkh_buffer_destroy(&ctx, &readback);
  }
  app_stats_free(&stats);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(r);
  for (uint32_t i = 0; i < sorter_count; i++) splatsort_destroy(sorters[i]);
  vkh_destroy(&ctx);
  splat_cameras_free(cams);
  splat_scene_free(&scene);
  if (ctx.validation_messages) {
    fprintf(stderr, "splatview: %u validation messages\n", ctx.validation_messages);
    status = 1;
  }
  return status;
}
