/* The tools' renderer set-up: sorters, renderer, and their teardown in one place. */
#define _GNU_SOURCE /* program_invocation_short_name: the message names the program that failed */
#include "app_renderer.h"

#include <errno.h>
#include <string.h>

void app_renderer_create(vkh_context *ctx, uint32_t frame_slots, splatsort_log_fn log, void *log_user,
                         app_renderer *out) {
  app_renderer_create_budget(ctx, frame_slots, log, log_user, 0, out);
}

void app_renderer_create_budget(vkh_context *ctx, uint32_t frame_slots, splatsort_log_fn log, void *log_user,
                                VkDeviceSize memory_budget, app_renderer *out) {
  app_renderer_options opts = {.memory_budget = memory_budget};
  app_renderer_create_opts(ctx, frame_slots, log, log_user, &opts, out);
}

void app_renderer_create_opts(vkh_context *ctx, uint32_t frame_slots, splatsort_log_fn log, void *log_user,
                              const app_renderer_options *opts, app_renderer *out) {
  memset(out, 0, sizeof *out);
  if (!ctx->dynamic_rendering) {
    fprintf(stderr, "%s: the Vulkan device (%s) lacks dynamic rendering (Vulkan 1.3)\n",
            program_invocation_short_name, ctx->props.deviceName);
    exit(1);
  }
  out->ctx = ctx;
  out->sorter_count = vkh_create_sorters(ctx, out->sorters);
  splat_renderer_create_info ri = {.physical_device = ctx->physical_device, .device = ctx->device,
                                   .device_create_info = &ctx->device_create_info,
                                   .queue = ctx->queue, .queue_family = ctx->queue_family,
                                   .sorters = (const splatsort *const *)out->sorters,
                                   .sorter_count = out->sorter_count, .frame_slots = frame_slots,
                                   .flags = ctx->debug_labels ? SPLAT_RENDERER_CREATE_DEBUG_UTILS_BIT : 0,
                                   .log = log, .log_user = log_user, .memory_budget = opts->memory_budget,
                                   .sh_precision = opts->sh_precision, .upload_threads = opts->upload_threads,
                                   /* the viewer's own pass (--grid): its colour and depth */
                                   .host_color_format = SPLAT_TARGET_FORMAT,
                                   .host_depth_format = VK_FORMAT_D32_SFLOAT};
  VK_CHECK(splat_renderer_create(&ri, &out->renderer));
}

void app_renderer_destroy(app_renderer *ar) {
  if (ar->ctx && ar->ctx->device) vkDeviceWaitIdle(ar->ctx->device);
  splat_renderer_destroy(ar->renderer);
  for (uint32_t i = 0; i < ar->sorter_count; i++) splatsort_destroy(ar->sorters[i]);
  memset(ar, 0, sizeof *ar);
}
