/* snippets.c: the host code the documentation prints, compiled and run as printed (issue 34):
 * README.md's renderer block (SNIPPETS_README), or docs/embedding.md's "Drawing into your own
 * pass" and "The compute raster over your own images" blocks (SNIPPETS_EMBEDDING), each taken out
 * of its page by CMakeLists.txt into snippet_<name>.inc and included below where a host's own code
 * would be. This file gives them what the pages assume a host has (the device and what it was made
 * with, a sorter, a scene, a camera, a command buffer being recorded, a colour and a depth image for
 * its pass, a colour and a depth image for the compute raster) and then checks what they drew:
 *   - every image they make (the renderer's target, the host pass's colour, the compute raster's
 *     colour) against the CPU reference renderer (tests/refrender.c) at the scene's own SH degree,
 *     >= 40 dB, on a scene whose degree-0 image is below that against it (so a frame that drops
 *     view-dependent colour fails), and not blank;
 *   - no line from the libraries' log and, with SPLATSORT_VALIDATION=1, no validation message.
 *   render_snippets_readme|render_snippets_embedding SCENE.ply [--size WxH]
 * On a failure the GPU image, the reference and their difference (x8) are written as
 * <program>_<image>.ppm in the working directory. Exit status: 0 pass, 1 fail, 77 no device. */
#include "host.h"
#include "refrender.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PSNR 40.0

/* The log callback the README's block names. */
static void my_log(void *user, const char *message) {
  (void)user;
  on_library_log("the snippet's renderer", message);
}

static double psnr(const uint8_t *a, const uint8_t *b, size_t pixels) {
  double se = 0;
  for (size_t p = 0; p < pixels; p++)
    for (int c = 0; c < 3; c++) {
      double d = (double)a[4 * p + c] - (double)b[4 * p + c];
      se += d * d;
    }
  double mse = se / (3.0 * (double)pixels);
  return mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : 999.0;
}

static void write_ppm(const char *what, const char *kind, const uint8_t *rgba, uint32_t w, uint32_t ht) {
  char path[512];
  snprintf(path, sizeof path, "%s_%s_%s.ppm", host_program, what, kind);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fprintf(f, "P6\n%u %u\n255\n", w, ht);
  for (size_t p = 0; p < (size_t)w * ht; p++) fwrite(rgba + 4 * p, 1, 3, f);
  fclose(f);
  fprintf(stderr, "%s: wrote %s\n", host_program, path);
}

/* One image the snippet drew against the reference. */
static int check_image(const char *what, const uint8_t *gpu, const uint8_t *ref, uint32_t w, uint32_t ht) {
  size_t pixels = (size_t)w * ht, lit = 0;
  for (size_t p = 0; p < pixels; p++) lit += gpu[4 * p] | gpu[4 * p + 1] | gpu[4 * p + 2] ? 1 : 0;
  double q = psnr(gpu, ref, pixels);
  printf("%s: %s: PSNR %.2f dB against the CPU reference at the scene's SH degree; %zu of %zu pixels lit\n",
         host_program, what, q, lit, pixels);
  int ok = q >= MIN_PSNR && lit >= pixels / 20;
  if (!ok) {
    fprintf(stderr, "%s: FAIL: %s: %.2f dB (>= %.0f) with %zu pixels lit (>= %zu)\n", host_program, what, q, MIN_PSNR,
            lit, pixels / 20);
    uint8_t *diff = malloc(pixels * 4);
    if (diff) {
      for (size_t i = 0; i < pixels * 4; i++) diff[i] = (uint8_t)fmin(255.0, 8.0 * abs(gpu[i] - ref[i]));
      write_ppm(what, "diff", diff, w, ht);
      free(diff);
    }
    write_ppm(what, "gpu", gpu, w, ht);
    write_ppm(what, "reference", ref, w, ht);
  }
  return ok;
}

typedef struct readback {
  VkBuffer buffer;
  VkDeviceMemory memory;
  const uint16_t *halves;
} readback;

static readback make_readback(const host *h, VkDeviceSize size) {
  readback rb;
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                            .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
  CHECK_VK(vkCreateBuffer(h->device, &bci, NULL, &rb.buffer));
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(h->device, rb.buffer, &mr);
  rb.memory = allocate(h, mr, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  CHECK_VK(vkBindBufferMemory(h->device, rb.buffer, rb.memory, 0));
  void *p;
  CHECK_VK(vkMapMemory(h->device, rb.memory, 0, VK_WHOLE_SIZE, 0, &p));
  rb.halves = p;
  return rb;
}

static void copy_out(VkCommandBuffer cmd, VkImage im, const readback *rb, uint32_t w, uint32_t ht) {
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, ht, 1}};
  vkCmdCopyImageToBuffer(cmd, im, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb->buffer, 1, &region);
}

static void to_rgba8(const readback *rb, size_t pixels, uint8_t *out) {
  for (size_t i = 0; i < pixels * 4; i++) out[i] = (i & 3) == 3 ? 255 : to8(half_to_float(rb->halves[i]));
}

int main(int argc, char **argv) {
  const char *path = NULL;
  uint32_t w = 320, ht = 240;
  host_program = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%ux%u", &w, &ht) == 2 && w && ht)
      i++;
    else if (argv[i][0] != '-' && !path)
      path = argv[i];
    else
      path = NULL, i = argc;
  }
  if (!path) {
    fprintf(stderr, "usage: %s SCENE.ply [--size WxH]\n", host_program);
    return 1;
  }

  /* ---- what the pages assume a host has ---------------------------------------------------- */
  host h = {0};
  create_instance(&h);
  create_device(&h);
  VkPhysicalDevice phys = h.pd;
  VkDevice device = h.device;
  VkQueue queue = h.queue;
  uint32_t family = h.family;
  VkDeviceCreateInfo device_info = h.dci; /* what the device was made with */
  splatsort *sorter;
  CHECK_VK(splatsort_create(&(splatsort_create_info){.physical_device = phys, .device = device,
                                                     .enabled_features = h.sort_features, .log = on_library_log,
                                                     .log_user = "splatsort"},
                            &sorter));
  splat_scene scene;
  char err[256];
  if (splat_scene_load(path, &scene, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", host_program, err);
    return 1;
  }
  splat_camera cam;
  if (frame_scene(&scene, w, ht, &cam) != 0) {
    fprintf(stderr, "%s: cannot frame the scene\n", host_program);
    return 1;
  }
  const float near = 0.01f, far = 1000.0f;

  /* the host's pass (colour and depth, cleared by the pass) and the compute raster's images
   * (cleared here, in the layouts the pages name) */
  const VkImageUsageFlags color_usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
                                        VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  image pass_color = make_image(&h, COLOR_FORMAT, color_usage, VK_IMAGE_ASPECT_COLOR_BIT, w, ht);
  image pass_depth = make_image(&h, DEPTH_FORMAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                VK_IMAGE_ASPECT_DEPTH_BIT, w, ht);
  image into_color = make_image(&h, COLOR_FORMAT, color_usage, VK_IMAGE_ASPECT_COLOR_BIT, w, ht);
  image into_depth = make_image(&h, DEPTH_FORMAT,
                                VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                VK_IMAGE_ASPECT_DEPTH_BIT, w, ht);
  VkImageView color_view = into_color.view, depth_view = into_depth.view;
  VkFormat color_format = COLOR_FORMAT, depth_format = DEPTH_FORMAT;
  VkImageLayout depth_layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL;
  VkRenderingAttachmentInfo ca = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = pass_color.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                  .clearValue = {.color = {.float32 = {0, 0, 0, 1}}}};
  VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = pass_depth.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                  .clearValue = {.depthStencil = {1.0f, 0}}};
  VkRenderingInfo your_color_and_depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, ht}},
                                          .layerCount = 1, .colorAttachmentCount = 1, .pColorAttachments = &ca,
                                          .pDepthAttachment = &da};

  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = h.pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  VkCommandBuffer cmd;
  CHECK_VK(vkAllocateCommandBuffers(device, &ai, &cmd));
  CHECK_VK(vkBeginCommandBuffer(cmd, &(VkCommandBufferBeginInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}));
  barrier(cmd, pass_color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
          VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  barrier(cmd, pass_depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
          VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
          VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  barrier(cmd, into_color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
          VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT);
  barrier(cmd, into_depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
          VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT);
  VkClearColorValue black = {.float32 = {0, 0, 0, 1}};
  VkClearDepthStencilValue far_depth = {1.0f, 0};
  vkCmdClearColorImage(cmd, into_color.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1,
                       &(VkImageSubresourceRange){VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1});
  vkCmdClearDepthStencilImage(cmd, into_depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &far_depth, 1,
                              &(VkImageSubresourceRange){VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1});
  barrier(cmd, into_color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
          VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  barrier(cmd, into_depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, depth_layout,
          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT);

  /* ---- the page's code, as printed ---------------------------------------------------------- */
#if defined(SNIPPETS_README)
#include "snippet_readme-renderer.inc"
  (void)req;
#elif defined(SNIPPETS_EMBEDDING)
  /* the page's create info names its fields in a comment: this host's, with the page's formats */
  const splatsort *host_sorters[] = {sorter};
  splat_renderer *r = NULL;
  CHECK_VK(splat_renderer_create(
      &(splat_renderer_create_info){.physical_device = phys, .device = device, .device_create_info = &device_info,
                                    .queue = queue, .queue_family = family, .sorters = host_sorters, .sorter_count = 1,
                                    .host_color_format = VK_FORMAT_R16G16B16A16_SFLOAT,
                                    .host_depth_format = VK_FORMAT_D32_SFLOAT, .log = my_log},
      &r));
  CHECK_VK(splat_renderer_set_scene(r, &scene));
#include "snippet_embedding-host-pass.inc"
#include "snippet_embedding-render-into.inc"
  (void)ri, (void)color_format, (void)depth_format, (void)depth_layout;
#else
#error "build with SNIPPETS_README or SNIPPETS_EMBEDDING"
#endif

  /* ---- what it drew ------------------------------------------------------------------------ */
  int ok = r != NULL;
  if (!ok) fprintf(stderr, "%s: FAIL: the snippet made no renderer\n", host_program);
  size_t pixels = (size_t)w * ht;
  readback rb[3];
  for (int i = 0; i < 3; i++) rb[i] = make_readback(&h, pixels * 8);
  VkImage target = VK_NULL_HANDLE;
  uint32_t tw = 0, th = 0;
#if defined(SNIPPETS_README)
  if (r) splat_renderer_target(r, &target, &tw, &th); /* in TRANSFER_SRC, its barrier recorded */
  if (target && (tw != w || th != ht)) fprintf(stderr, "%s: FAIL: the target is %ux%u\n", host_program, tw, th), ok = 0;
  if (target && ok) copy_out(cmd, target, &rb[0], w, ht);
#endif
  barrier(cmd, pass_color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  barrier(cmd, into_color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_GENERAL,
          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  copy_out(cmd, pass_color.image, &rb[1], w, ht);
  copy_out(cmd, into_color.image, &rb[2], w, ht);
  VkMemoryBarrier hb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0, NULL, 0, NULL);
  CHECK_VK(vkEndCommandBuffer(cmd));
  CHECK_VK(vkQueueSubmit(queue, 1, &(VkSubmitInfo){.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                                                   .pCommandBuffers = &cmd},
                         VK_NULL_HANDLE));
  CHECK_VK(vkQueueWaitIdle(queue));

  /* the reference at the scene's degree, and at degree 0 alone: the scene must tell them apart */
  uint8_t *ref = malloc(pixels * 4), *ref0 = malloc(pixels * 4), *gpu = malloc(pixels * 4);
  float *ref_f = malloc(pixels * 4 * sizeof(float));
  const float background[3] = {0, 0, 0}; /* a zero frame's */
  if (!ref || !ref0 || !gpu || !ref_f) return 1;
  for (int degree = 0; degree < 2; degree++) {
    if (refrender_render(&scene, &cam, degree ? (int)scene.sh_degree : 0, background, ref_f, NULL) != 0) {
      fprintf(stderr, "%s: the reference renderer failed\n", host_program);
      return 1;
    }
    uint8_t *out = degree ? ref : ref0;
    for (size_t i = 0; i < pixels * 4; i++) out[i] = (i & 3) == 3 ? 255 : to8(ref_f[i]);
  }
  double apart = psnr(ref0, ref, pixels);
  printf("%s: %s: %u splats of SH degree %u; its degree-0 reference is %.2f dB from the full one\n", host_program, path,
         scene.count, scene.sh_degree, apart);
  if (apart >= MIN_PSNR)
    fprintf(stderr, "%s: FAIL: the scene cannot tell degree 0 from its full SH (%.2f dB >= %.0f)\n", host_program,
            apart, MIN_PSNR), ok = 0;
  const char *names[3] = {"cmd_render target", "cmd_draw into the host pass", "cmd_render_into"};
  for (int i = 0; i < 3 && ok; i++) {
    if (i == 0 && !target) continue;
    to_rgba8(&rb[i], pixels, gpu);
    ok &= check_image(names[i], gpu, ref, w, ht);
  }

  CHECK_VK(vkDeviceWaitIdle(device));
  splat_renderer_destroy(r);
  splatsort_destroy(sorter);
  for (int i = 0; i < 3; i++) {
    vkDestroyBuffer(device, rb[i].buffer, NULL);
    vkFreeMemory(device, rb[i].memory, NULL);
  }
  free_image(&h, &pass_color);
  free_image(&h, &pass_depth);
  free_image(&h, &into_color);
  free_image(&h, &into_depth);
  vkDestroyCommandPool(device, h.pool, NULL);
  vkDestroyDevice(device, NULL);
  if (h.messenger) {
    PFN_vkDestroyDebugUtilsMessengerEXT destroy =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(h.instance, "vkDestroyDebugUtilsMessengerEXT");
    destroy(h.instance, h.messenger, NULL);
  }
  vkDestroyInstance(h.instance, NULL);
  splat_scene_free(&scene);
  free(ref), free(ref0), free(gpu), free(ref_f);
  if (library_messages) fprintf(stderr, "%s: FAIL: %d lines from the libraries' log\n", host_program, library_messages), ok = 0;
  if (validation_messages) fprintf(stderr, "%s: FAIL: %d validation messages\n", host_program, validation_messages), ok = 0;
  printf("%s: %s\n", host_program, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
