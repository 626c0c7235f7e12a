/* test_render_objects.c: the renderer inside a host's frame: drawn into the host's pass (dynamic
 * rendering and a VkRenderPass) with its depth test, the weighted-depth output, several objects
 * and instances, stereo (test_render's host-pass, depth-output, objects and stereo tests; the
 * table is in test_render.c). */
#include "render_common.h"

#include "host_image.h"
#include "image.h"
#include "refrender.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- drawing into the host's pass ------------------------------------------------------------ */

/* A host's frame: its own colour and depth (an opaque plane at camera depth zp, cleared), the
 * splats prepared, then drawn inside its pass. Reads the colour back as 8-bit RGBA. */
static void render_into_host_pass(splat_renderer *hr, const splat_camera *cam, float zp, const float plane[3],
                                  uint8_t *rgba8) {
  uint32_t w = cam->width, h = cam->height;
  host_image color = host_image_create(&ctx, SPLAT_TARGET_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h, 1);
  host_image depth = host_image_create(&ctx, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                       VK_IMAGE_ASPECT_DEPTH_BIT, w, h, 1);
  vkh_buffer rb = vkh_buffer_create(&ctx, (VkDeviceSize)w * h * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "host rb");
  splat_frame f = {.camera = cam, .sort = SPLATSORT_ALGORITHM_AUTO, .key_bits = 32,
                   .znear = 0.01f, .zfar = 1000.0f};
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(hr, cmd, &f));
  host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  host_image_barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                 VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  /* the host's "geometry": the plane's colour, and its depth in the same projection */
  float n = f.znear, fa = f.zfar;
  VkRenderingAttachmentInfo ca = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = color.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                  .clearValue = {.color = {.float32 = {plane[0], plane[1], plane[2], 1.0f}}}};
  VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = depth.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                  .clearValue = {.depthStencil = {fa / (fa - n) - fa * n / ((fa - n) * zp), 0}}};
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, h}}, .layerCount = 1,
                        .colorAttachmentCount = 1, .pColorAttachments = &ca, .pDepthAttachment = &da};
  vkCmdBeginRendering(cmd, &ri);
  VK_CHECK(splat_renderer_cmd_draw(hr, cmd, &f));
  vkCmdEndRendering(cmd);
  host_image_barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  copy_target(cmd, color.image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  halves_to_rgba8(&rb, w, h, rgba8);
  host_image_destroy(&ctx, &color);
  host_image_destroy(&ctx, &depth);
}

/* The same host frame on a VkRenderPass (a host not on dynamic rendering): renderer `hr` was
 * made for `pass`, subpass 0. */
static VkRenderPass host_render_pass_create(void) {
  VkAttachmentDescription att[2] = {
      {.format = SPLAT_TARGET_FORMAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
       .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
      {.format = VK_FORMAT_D32_SFLOAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
       .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
       .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL}};
  VkAttachmentReference cref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
                        dref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                              .pColorAttachments = &cref, .pDepthStencilAttachment = &dref};
  /* the colour goes to the copy after the pass */
  VkSubpassDependency dep = {.srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
                             .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                             .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
                             .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
  VkRenderPassCreateInfo rpci = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 2,
                                 .pAttachments = att, .subpassCount = 1, .pSubpasses = &sub, .dependencyCount = 1,
                                 .pDependencies = &dep};
  VkRenderPass pass;
  VK_CHECK(vkCreateRenderPass(ctx.device, &rpci, NULL, &pass));
  return pass;
}

static void render_into_host_render_pass(splat_renderer *hr, VkRenderPass pass, const splat_camera *cam, float zp,
                                         const float plane[3], uint8_t *rgba8) {
  uint32_t w = cam->width, h = cam->height;
  host_image color = host_image_create(&ctx, SPLAT_TARGET_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h, 1);
  host_image depth = host_image_create(&ctx, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                       VK_IMAGE_ASPECT_DEPTH_BIT, w, h, 1);
  VkImageView views[2] = {color.view, depth.view};
  VkFramebufferCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = pass,
                                 .attachmentCount = 2, .pAttachments = views, .width = w, .height = h, .layers = 1};
  VkFramebuffer fb;
  VK_CHECK(vkCreateFramebuffer(ctx.device, &fci, NULL, &fb));
  vkh_buffer rb = vkh_buffer_create(&ctx, (VkDeviceSize)w * h * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "host rb");
  splat_frame f = {.camera = cam, .sort = SPLATSORT_ALGORITHM_AUTO, .key_bits = 32,
                   .znear = 0.01f, .zfar = 1000.0f};
  float n = f.znear, fa = f.zfar;
  VkClearValue clears[2] = {{.color = {.float32 = {plane[0], plane[1], plane[2], 1.0f}}},
                            {.depthStencil = {fa / (fa - n) - fa * n / ((fa - n) * zp), 0}}};
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(hr, cmd, &f));
  VkRenderPassBeginInfo rbi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = pass,
                               .framebuffer = fb, .renderArea = {{0, 0}, {w, h}}, .clearValueCount = 2,
                               .pClearValues = clears};
  vkCmdBeginRenderPass(cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
  VK_CHECK(splat_renderer_cmd_draw(hr, cmd, &f));
  vkCmdEndRenderPass(cmd);
  copy_target(cmd, color.image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  halves_to_rgba8(&rb, w, h, rgba8);
  vkDestroyFramebuffer(ctx.device, fb, NULL);
  host_image_destroy(&ctx, &color);
  host_image_destroy(&ctx, &depth);
}

/* Splats drawn into a host's pass over an opaque plane at a known depth: the ones behind it
 * are hidden by the depth test, the rest blend over the plane's colour. The CPU reference is
 * refrender of the scene with the hidden splats made transparent, over the plane's colour.
 * (With the test inverted, reverse-Z on a forward depth buffer, this measured 17 dB.) */
void render_test_host_pass(const render_args *args) {
  const app_renderer *ar = args->ar;
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 2000, 192, 144, cams);
  const splat_camera *cam = &cams[0];
  /* the plane through the middle of the splats' depths; splats within 2% of it are made
   * transparent (on both sides), so the depth test decides nothing by rounding */
  float *z = malloc(sizeof(float) * a.count), zlo = INFINITY, zhi = 0;
  for (uint32_t i = 0; i < a.count; i++) {
    const float *p = a.positions + 3 * i;
    z[i] = cam->view[2] * p[0] + cam->view[6] * p[1] + cam->view[10] * p[2] + cam->view[14];
    if (z[i] > 0.2f) zlo = fminf(zlo, z[i]), zhi = fmaxf(zhi, z[i]);
  }
  float zp = 0.5f * (zlo + zhi);
  uint32_t hidden = 0;
  float *cpu_opacity = malloc(sizeof(float) * a.count);
  for (uint32_t i = 0; i < a.count; i++) {
    if (fabsf(z[i] - zp) < 0.02f * zp) a.opacities[i] = 0.0f;
    cpu_opacity[i] = z[i] > zp ? 0.0f : a.opacities[i];
    hidden += z[i] > zp && a.opacities[i] > 0.0f;
  }
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)ar->sorters,
                                   .sorter_count = ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .host_color_format = SPLAT_TARGET_FORMAT, .host_depth_format = VK_FORMAT_D32_SFLOAT};
  splat_renderer *hr;
  VK_CHECK(splat_renderer_create(&ci, &hr));
  VK_CHECK(splat_renderer_set_scene(hr, &a));
  const float plane[3] = {0.2f, 0.35f, 0.5f};
  size_t bytes = (size_t)cam->width * cam->height * 4;
  uint8_t *gpu = malloc(bytes), *ref = malloc(bytes);
  render_into_host_pass(hr, cam, zp, plane, gpu);
  float *kept = a.opacities;
  a.opacities = cpu_opacity;
  CHECK(refrender_render_rgba8(&a, cam, (int)a.sh_degree, plane, ref, NULL) == 0, "refrender");
  a.opacities = kept;
  double psnr = image_psnr(gpu, ref, cam->width, cam->height);
  printf("  host pass over a plane at z %.3f (%u splats behind it): PSNR %.2f dB against refrender\n", (double)zp,
         hidden, psnr);
  CHECK(hidden > 100, "only %u splats behind the plane: the depth test is not exercised", hidden);
  CHECK(psnr >= 40.0 && !image_is_blank(gpu, cam->width, cam->height), "host pass: PSNR %.2f dB < 40", psnr);
  if (psnr < 40.0 || write_images) save_images("host_pass", cam, gpu, ref, "reference");
  /* the same frame in a VkRenderPass: identical to the dynamic-rendering one */
  VkRenderPass pass = host_render_pass_create();
  ci.host_color_format = VK_FORMAT_UNDEFINED;
  ci.host_render_pass = pass;
  splat_renderer *pr;
  VK_CHECK(splat_renderer_create(&ci, &pr));
  VK_CHECK(splat_renderer_set_scene(pr, &a));
  uint8_t *by_pass = malloc(bytes);
  render_into_host_render_pass(pr, pass, cam, zp, plane, by_pass);
  CHECK(memcmp(by_pass, gpu, bytes) == 0, "host render pass: the image differs from the dynamic-rendering one");
  printf("  the same in a VkRenderPass: %s\n", memcmp(by_pass, gpu, bytes) == 0 ? "identical" : "DIFFERS");
  free(by_pass);
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(pr);
  vkDestroyRenderPass(ctx.device, pass, NULL);
  /* misuse: a renderer made without host formats refuses to draw into a host pass */
  splat_frame f = {.camera = cam};
  CHECK(splat_renderer_cmd_draw(renderer, VK_NULL_HANDLE, &f) == VK_ERROR_VALIDATION_FAILED_EXT, "draw, no cmd");
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(hr);
  free(gpu);
  free(ref);
  free(z);
  free(cpu_opacity);
  splat_scene_free(&a);
}

/* The weighted-depth output: every splat moved to one camera depth zc, so red / alpha must be
 * zc wherever the splats cover the pixel. */
void render_test_depth_output(const render_args *args) {
  const app_renderer *ar = args->ar;
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 2000, 160, 120, cams);
  const splat_camera *cam = &cams[0];
  float fwd[3], zc = 0;
  splat_camera_axes(cam, NULL, NULL, fwd);
  for (uint32_t i = 0; i < a.count; i++) {
    const float *p = a.positions + 3 * i;
    zc += (cam->view[2] * p[0] + cam->view[6] * p[1] + cam->view[10] * p[2] + cam->view[14]) / (float)a.count;
  }
  for (uint32_t i = 0; i < a.count; i++) {
    float *p = a.positions + 3 * i;
    float z = cam->view[2] * p[0] + cam->view[6] * p[1] + cam->view[10] * p[2] + cam->view[14];
    for (int k = 0; k < 3; k++) p[k] += (zc - z) * fwd[k];
  }
  uint32_t w = cam->width, h = cam->height;
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)ar->sorters,
                                   .sorter_count = ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .host_color_format = SPLAT_TARGET_FORMAT,
                                   .host_depth_output_format = VK_FORMAT_R32G32B32A32_SFLOAT};
  splat_renderer *dr;
  VK_CHECK(splat_renderer_create(&ci, &dr));
  VK_CHECK(splat_renderer_set_scene(dr, &a));
  host_image color = host_image_create(&ctx, SPLAT_TARGET_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h, 1);
  host_image depth = host_image_create(&ctx, VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                                         VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                       VK_IMAGE_ASPECT_COLOR_BIT, w, h, 1);
  vkh_buffer rb = vkh_buffer_create(&ctx, (VkDeviceSize)w * h * 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "wd");
  splat_frame f = {.camera = cam, .key_bits = 32};
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_prepare(dr, cmd, &f));
  host_image *imgs[2] = {&color, &depth};
  VkRenderingAttachmentInfo att[2];
  for (int i = 0; i < 2; i++) {
    host_image_barrier(cmd, imgs[i]->image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                   VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
    att[i] = (VkRenderingAttachmentInfo){.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                         .imageView = imgs[i]->view,
                                         .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                         .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
  }
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, h}}, .layerCount = 1,
                        .colorAttachmentCount = 2, .pColorAttachments = att};
  vkCmdBeginRendering(cmd, &ri);
  VK_CHECK(splat_renderer_cmd_draw(dr, cmd, &f));
  vkCmdEndRendering(cmd);
  host_image_barrier(cmd, depth.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  copy_target(cmd, depth.image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  const float *d = rb.mapped;
  uint32_t covered = 0, off = 0;
  double worst = 0;
  for (size_t i = 0; i < (size_t)w * h; i++) {
    if (d[4 * i + 3] < 0.05f) continue;
    covered++;
    double e = fabs(d[4 * i] / d[4 * i + 3] - zc) / zc;
    worst = fmax(worst, e);
    off += e > 1e-3;
  }
  printf("  weighted depth output: %u covered pixels, all at depth %.4f: worst relative error %.2e\n", covered,
         (double)zc, worst);
  CHECK(covered > w * h / 20 && off == 0, "weighted depth: %u of %u covered pixels off by more than 0.1%%", off,
        covered);
  vkDeviceWaitIdle(ctx.device);
  vkh_buffer_destroy(&ctx, &rb);
  host_image_destroy(&ctx, &color);
  host_image_destroy(&ctx, &depth);
  splat_renderer_destroy(dr);
  splat_scene_free(&a);
}

/* ---- objects ---------------------------------------------------------------------------------- */

/* a ++ b as one scene (same SH degree). */
static void merge_scenes(const splat_scene *a, const splat_scene *b, splat_scene *m) {
  *m = *a;
  m->count = a->count + b->count;
  size_t n = m->count, c = a->sh_coeffs * 3;
  m->positions = malloc(sizeof(float) * 3 * n), m->scales = malloc(sizeof(float) * 3 * n);
  m->rotations = malloc(sizeof(float) * 4 * n), m->opacities = malloc(sizeof(float) * n);
  m->sh = malloc(sizeof(float) * c * n);
  const splat_scene *parts[2] = {a, b};
  for (size_t p = 0, at = 0; p < 2; at += parts[p]->count, p++) {
    size_t k = parts[p]->count;
    if (k == 0) continue; /* an empty scene's arrays are NULL (memcpy from NULL is undefined) */
    memcpy(m->positions + 3 * at, parts[p]->positions, sizeof(float) * 3 * k);
    memcpy(m->scales + 3 * at, parts[p]->scales, sizeof(float) * 3 * k);
    memcpy(m->rotations + 4 * at, parts[p]->rotations, sizeof(float) * 4 * k);
    memcpy(m->opacities + at, parts[p]->opacities, sizeof(float) * k);
    memcpy(m->sh + c * at, parts[p]->sh, sizeof(float) * c * k);
  }
}

/* The scene moved by a rotation of `angle` about y, a uniform `scale` and translation t, on the
 * CPU (positions, rotations as quaternions w,x,y,z, scales); *model: the same as a matrix. */
static void transform_scene(splat_scene *s, float angle, float scale, const float t[3], float model[16]) {
  float c = cosf(angle), sn = sinf(angle), qw = cosf(0.5f * angle), qy = sinf(0.5f * angle);
  const float m[16] = {scale * c, 0, -scale * sn, 0, 0, scale, 0, 0, scale * sn, 0, scale * c, 0, t[0], t[1], t[2], 1};
  memcpy(model, m, sizeof m);
  for (uint32_t i = 0; i < s->count; i++) {
    float *p = s->positions + 3 * i, x = p[0], y = p[1], z = p[2];
    p[0] = m[0] * x + m[4] * y + m[8] * z + m[12];
    p[1] = m[1] * x + m[5] * y + m[9] * z + m[13];
    p[2] = m[2] * x + m[6] * y + m[10] * z + m[14];
    for (int k = 0; k < 3; k++) s->scales[3 * i + k] *= scale;
    float *q = s->rotations + 4 * i, w = q[0], qx = q[1], qyy = q[2], qz = q[3];
    /* (qw, 0, qy, 0) * q, Hamilton product */
    q[0] = qw * w - qy * qyy;
    q[1] = qw * qx + qy * qz;
    q[2] = qw * qyy + qy * w;
    q[3] = qw * qz - qy * qx;
  }
}

/* Two objects sorted together render exactly as the one scene they make; an object with a
 * model transform renders as the scene transformed on the CPU (SH degree 0: view-independent
 * colour, since the CPU copy keeps the SH coefficients in the object's frame). */
void render_test_objects(const render_args *args) {
  (void)args;
  splat_scene a, b, m;
  splat_camera cams[4];
  generated_with_cameras(&a, 1500, 160, 120, cams);
  gen_object_scene(&b, 1500, 3);
  merge_scenes(&a, &b, &m);
  const splat_camera *cam = &cams[0];
  size_t npx = (size_t)cam->width * cam->height;
  uint16_t *merged = malloc(npx * 8), *two = malloc(npx * 8);
  uint8_t *img = malloc(npx * 4), *ref = malloc(npx * 4);
  set_scene_or_die(&m);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, merged, img);
  set_scene_or_die(&a);
  uint32_t id;
  CHECK(splat_renderer_add_object(renderer, &b, &id) == VK_SUCCESS && id == 1, "add_object: id %u", id);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, two, img);
  int same = memcmp(merged, two, npx * 8) == 0;
  printf("  two objects against the merged scene: %s\n", same ? "bit-identical" : "DIFFER");
  CHECK(same, "two objects render differently from the scene they make");
  CHECK(splat_renderer_remove_object(renderer, 1) == VK_SUCCESS, "remove_object");
  CHECK(splat_renderer_remove_object(renderer, 1) == VK_ERROR_VALIDATION_FAILED_EXT, "removing twice accepted");

  /* a transformed object against the transformed scene */
  splat_scene moved;
  merge_scenes(&a, &(splat_scene){.sh_coeffs = a.sh_coeffs}, &moved);
  splat_instance inst = {.object = 0};
  const float t[3] = {0.3f, -0.1f, 0.2f};
  transform_scene(&moved, 0.5f, 1.2f, t, inst.model);
  frame_opts.instances = &inst, frame_opts.instance_count = 1;
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, 0, NULL, img);
  frame_opts.instances = NULL, frame_opts.instance_count = 0;
  set_scene_or_die(&moved);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, 0, NULL, ref);
  double p = image_psnr(img, ref, cam->width, cam->height);
  printf("  object with a model transform against the scene moved on the CPU: PSNR %.2f dB\n", p);
  CHECK(p >= 40.0 && !image_is_blank(img, cam->width, cam->height), "transformed object: PSNR %.2f dB < 40", p);
  free(merged);
  free(two);
  free(img);
  free(ref);
  splat_scene_free(&moved);
  splat_scene_free(&m);
  splat_scene_free(&a);
  splat_scene_free(&b);
}

/* ---- stereo ----------------------------------------------------------------------------------- */

/* cam moved by d along its right axis. */
static splat_camera shifted(const splat_camera *cam, float d) {
  splat_camera c = *cam;
  float right[3];
  splat_camera_axes(cam, right, NULL, NULL);
  for (int k = 0; k < 3; k++) c.position[k] += d * right[k];
  for (int r = 0; r < 3; r++)
    c.view[12 + r] = -(c.view[r] * c.position[0] + c.view[4 + r] * c.position[1] + c.view[8 + r] * c.position[2]);
  return c;
}

/* One cull and sort from between the eyes, drawn for each eye, against each eye rendered and
 * sorted on its own: the images must be close (the order differs only for splats whose depth
 * order changes between the eyes), and the two eyes must differ. */
void render_test_stereo(const render_args *args) {
  const app_renderer *ar = args->ar;
  splat_scene a;
  splat_camera cams[4];
  generated_with_cameras(&a, 2000, 160, 120, cams);
  const splat_camera *mid = &cams[0];
  float ipd = 0.02f * (a.bounds_max[0] - a.bounds_min[0] + a.bounds_max[2] - a.bounds_min[2]);
  splat_camera eye[2] = {shifted(mid, -0.5f * ipd), shifted(mid, 0.5f * ipd)};
  splat_renderer_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device,
                                   .device_create_info = &ctx.device_create_info, .queue = ctx.queue,
                                   .queue_family = ctx.queue_family, .sorters = (const splatsort *const *)ar->sorters,
                                   .sorter_count = ar->sorter_count, .frame_slots = 1, .log = renderer_log,
                                   .flags = SPLAT_RENDERER_CREATE_STEREO_BIT};
  splat_renderer *sr;
  VK_CHECK(splat_renderer_create(&ci, &sr));
  VK_CHECK(splat_renderer_set_scene(sr, &a));
  set_scene_or_die(&a);
  size_t bytes = (size_t)mid->width * mid->height * 4;
  uint8_t *st[2] = {malloc(bytes), malloc(bytes)}, *single = malloc(bytes);
  for (uint32_t e = 0; e < 2; e++) {
    splat_frame f = {.camera = mid, .eyes = {&eye[0], &eye[1]}, .eye = e, .key_bits = 32,
                     .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]}};
    vkh_buffer rb = vkh_buffer_create(&ctx, bytes * 2, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "stereo rb");
    VkCommandBuffer cmd = vkh_begin(&ctx);
    VK_CHECK(splat_renderer_cmd_render(sr, cmd, &f));
    VkImage image;
    splat_renderer_target(sr, &image, NULL, NULL);
    copy_target(cmd, image, mid->width, mid->height, rb.buffer);
    vkh_submit_wait(&ctx, cmd);
    halves_to_rgba8(&rb, mid->width, mid->height, st[e]);
    render_gpu(&eye[e], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, single);
    double p = image_psnr(st[e], single, mid->width, mid->height);
    printf("  stereo, eye %u (one sort from between the eyes) against that eye sorted alone: PSNR %.2f dB\n", e, p);
    CHECK(p >= 35.0 && !image_is_blank(st[e], mid->width, mid->height), "stereo eye %u: PSNR %.2f dB < 35", e, p);
  }
  CHECK(memcmp(st[0], st[1], bytes) != 0, "stereo: both eyes drew the same image");
  /* an exaggerated baseline (a quarter of the scene): the shared order shows */
  splat_camera wide[2] = {shifted(mid, -6.0f * ipd), shifted(mid, 6.0f * ipd)};
  splat_frame f = {.camera = mid, .eyes = {&wide[0], &wide[1]}, .eye = 1, .key_bits = 32,
                   .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]}};
  vkh_buffer rb = vkh_buffer_create(&ctx, bytes * 2, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "stereo rb");
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splat_renderer_cmd_render(sr, cmd, &f));
  VkImage image;
  splat_renderer_target(sr, &image, NULL, NULL);
  copy_target(cmd, image, mid->width, mid->height, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  halves_to_rgba8(&rb, mid->width, mid->height, st[1]);
  render_gpu(&wide[1], SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, single);
  printf("  stereo with a 12x wider baseline, eye 1 against it sorted alone: PSNR %.2f dB\n",
         image_psnr(st[1], single, mid->width, mid->height));
  vkDeviceWaitIdle(ctx.device);
  splat_renderer_destroy(sr);
  free(st[0]);
  free(st[1]);
  free(single);
  splat_scene_free(&a);
}
