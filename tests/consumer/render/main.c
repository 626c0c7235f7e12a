/* An outside host of the renderer, built as its own project against the installed package
 * (find_package(splatsort 0.2 COMPONENTS scene render), or pkg-config splatsort-render) or the
 * source tree (add_subdirectory). What an engine does: its own instance and device (merging
 * what the renderer asks for), a .ply read through the scene library, one
 * sorter and the renderer on its device, and a frame of its own: a colour and a depth image,
 * its own pipeline drawing opaque geometry (a plane through the middle of the scene, and a
 * rectangle in front of everything over the left quarter), then the splats, depth-tested against
 * the host's depth: drawn into the same pass (splat_renderer_cmd_prepare, cmd_draw: the
 * graphics raster), and in a second frame composited over the pass's colour by the compute
 * raster (cmd_prepare, then cmd_render_into the host's colour and depth images). Each raster's
 * first frame is checked, as a host draws it: at 1920x1080 the bundled scene needs more (tile,
 * splat) pairs than the compute raster's least first capacity, which it must size for up front.
 *
 * The image is checked against the project's CPU reference renderer (tests/refrender.c): the
 * reference draws the scene with the splats behind the plane made transparent, over the plane's
 * colour, and the rectangle's pixels must be exactly its colour; both rasters. With SPLATSORT_VALIDATION=1 the
 * validation layer (and its synchronisation validation, unless SPLATSORT_SYNC_VALIDATION=0)
 * runs, and any message fails the run.
 *   render_consumer SCENE.ply [--size WxH] [--out IMAGE.ppm]
 * Exit status: 0 pass, 1 fail, 77 no Vulkan device. */
#include "host.h"
#include "refrender.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t host_vert[] =
#include "host_vert.inc"
    ;
static const uint32_t host_frag[] =
#include "host_frag.inc"
    ;

typedef struct quad_push {
  float rect[4];
  float color[4];
  float depth;
} quad_push;

/* The host's own pipeline: opaque, depth-tested and depth-writing, into its pass's formats. */
static VkPipeline make_host_pipeline(const host *h, VkPipelineLayout *layout) {
  VkShaderModule mods[2];
  const uint32_t *code[2] = {host_vert, host_frag};
  size_t size[2] = {sizeof host_vert, sizeof host_frag};
  for (int i = 0; i < 2; i++) {
    VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size[i],
                                     .pCode = code[i]};
    CHECK_VK(vkCreateShaderModule(h->device, &smci, NULL, &mods[i]));
  }
  VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(quad_push)};
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
  CHECK_VK(vkCreatePipelineLayout(h->device, &plci, NULL, layout));
  VkPipelineShaderStageCreateInfo stages[2] = {
      {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
       .module = mods[0], .pName = "main"},
      {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
       .module = mods[1], .pName = "main"}};
  VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                               .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP};
  VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                          .viewportCount = 1, .scissorCount = 1};
  VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                               .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
                                               .lineWidth = 1.0f};
  VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                             .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
  VkPipelineDepthStencilStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                              .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
                                              .depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL};
  VkPipelineColorBlendAttachmentState att = {.colorWriteMask = 0xf};
  VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                            .attachmentCount = 1, .pAttachments = &att};
  VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                         .dynamicStateCount = 2, .pDynamicStates = dyn};
  VkFormat color = COLOR_FORMAT;
  VkPipelineRenderingCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                      .colorAttachmentCount = 1, .pColorAttachmentFormats = &color,
                                      .depthAttachmentFormat = DEPTH_FORMAT};
  VkGraphicsPipelineCreateInfo gci = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .pNext = &ri,
                                      .stageCount = 2, .pStages = stages, .pVertexInputState = &vi,
                                      .pInputAssemblyState = &ia, .pViewportState = &vp, .pRasterizationState = &rs,
                                      .pMultisampleState = &ms, .pDepthStencilState = &ds, .pColorBlendState = &cb,
                                      .pDynamicState = &dy, .layout = *layout};
  VkPipeline p;
  CHECK_VK(vkCreateGraphicsPipelines(h->device, VK_NULL_HANDLE, 1, &gci, NULL, &p));
  for (int i = 0; i < 2; i++) vkDestroyShaderModule(h->device, mods[i], NULL);
  return p;
}

typedef struct scene_setup {
  splat_camera cam;
  float plane_z;     /* camera depth of the host's plane */
  float plane_ndc;   /* its depth in the frame's projection */
  uint32_t behind;   /* splats the plane hides */
  float *cpu_opacity;
} scene_setup;

static int compare_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* A camera framing the scene (frame_scene), and a plane at the median of the splats' depths;
 * splats within 2% of it are made transparent in both images, so no depth comparison is decided
 * by rounding, and the reference draws the ones behind it transparent. */
static int setup_scene(splat_scene *s, uint32_t w, uint32_t ht, float znear, float zfar, scene_setup *out) {
  if (frame_scene(s, w, ht, &out->cam) != 0) return -1;
  const float *v = out->cam.view;
  float *zs = malloc(sizeof(float) * s->count);
  uint32_t nz = 0;
  if (!zs) return -1;
  for (uint32_t i = 0; i < s->count; i++) {
    const float *p = s->positions + 3 * i;
    float z = v[2] * p[0] + v[6] * p[1] + v[10] * p[2] + v[14];
    if (z > znear) zs[nz++] = z;
  }
  if (nz == 0) return free(zs), -1;
  qsort(zs, nz, sizeof *zs, compare_float);
  out->plane_z = zs[nz / 2];
  free(zs);
  out->plane_ndc = zfar / (zfar - znear) - zfar * znear / ((zfar - znear) * out->plane_z);
  out->cpu_opacity = malloc(sizeof(float) * s->count);
  if (!out->cpu_opacity) return -1;
  out->behind = 0;
  for (uint32_t i = 0; i < s->count; i++) {
    const float *p = s->positions + 3 * i;
    float z = v[2] * p[0] + v[6] * p[1] + v[10] * p[2] + v[14];
    if (fabsf(z - out->plane_z) < 0.02f * out->plane_z) s->opacities[i] = 0.0f;
    out->cpu_opacity[i] = z > out->plane_z ? 0.0f : s->opacities[i];
    out->behind += z > out->plane_z && s->opacities[i] > 0.0f;
  }
  return 0;
}

typedef struct host_frame {
  host *h;
  splat_renderer *renderer;
  VkPipeline pipeline;
  VkPipelineLayout layout;
  image color, depth;
  VkBuffer readback;
  uint32_t w, ht;
  const scene_setup *set;
  float znear, zfar;
} host_frame;

static const float background[3] = {0.1f, 0.1f, 0.1f}, plane[3] = {0.2f, 0.35f, 0.5f}, front[3] = {0.9f, 0.6f, 0.1f};

/* One frame of the host: prepare (compute), its pass with its geometry (a plane, a rectangle in
 * front), then the splats: drawn inside the pass (graphics raster), or composited after it by
 * the compute raster into the same colour image, tested against the pass's depth; a copy of
 * the colour into the read-back buffer. */
static void record_frame(const host_frame *hf, int compute, splat_timings *t) {
  host *hh = hf->h;
  uint32_t w = hf->w, ht = hf->ht;
  splat_frame f = {.camera = &hf->set->cam, .sort = SPLATSORT_ALGORITHM_AUTO, .znear = hf->znear,
                   .zfar = hf->zfar};
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = hh->pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  VkCommandBuffer cmd;
  CHECK_VK(vkAllocateCommandBuffers(hh->device, &ai, &cmd));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK_VK(vkBeginCommandBuffer(cmd, &bi));
  CHECK_VK(splat_renderer_cmd_prepare(hf->renderer, cmd, &f));
  barrier(cmd, hf->color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
          VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  barrier(cmd, hf->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
          VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
          VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  VkRenderingAttachmentInfo ca = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = hf->color.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                  .clearValue = {.color = {.float32 = {background[0], background[1], background[2], 1}}}};
  VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = hf->depth.view,
                                  .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                  .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                  .clearValue = {.depthStencil = {1.0f, 0}}};
  VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = {{0, 0}, {w, ht}}, .layerCount = 1,
                        .colorAttachmentCount = 1, .pColorAttachments = &ca, .pDepthAttachment = &da};
  vkCmdBeginRendering(cmd, &ri);
  VkViewport viewport = {0, 0, (float)w, (float)ht, 0, 1};
  VkRect2D scissor = {{0, 0}, {w, ht}};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, hf->pipeline);
  quad_push quads[2] = {{{-1, -1, 1, 1}, {plane[0], plane[1], plane[2], 1}, hf->set->plane_ndc},
                        {{-1, -1, -0.5f, 1}, {front[0], front[1], front[2], 1}, 0.0f}};
  for (int q = 0; q < 2; q++) {
    vkCmdPushConstants(cmd, hf->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof quads[q],
                       &quads[q]);
    vkCmdDraw(cmd, 4, 1, 0, 0);
  }
  if (!compute) CHECK_VK(splat_renderer_cmd_draw(hf->renderer, cmd, &f));
  vkCmdEndRendering(cmd);
  VkPipelineStageFlags color_stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  VkAccessFlags color_access = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  VkImageLayout color_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  if (compute) {
    /* the compute raster reads the pass's depth and blends into its colour, in GENERAL */
    barrier(cmd, hf->color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
            VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
            VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    barrier(cmd, hf->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
            VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL,
            VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT);
    splat_host_target target = {.color_view = hf->color.view, .color_format = COLOR_FORMAT,
                                .depth_view = hf->depth.view, .depth_format = DEPTH_FORMAT,
                                .depth_layout = VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL};
    CHECK_VK(splat_renderer_cmd_render_into(hf->renderer, cmd, &f, &target));
    color_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    color_access = VK_ACCESS_SHADER_WRITE_BIT;
    color_layout = VK_IMAGE_LAYOUT_GENERAL;
  }
  barrier(cmd, hf->color.image, VK_IMAGE_ASPECT_COLOR_BIT, color_layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
          color_stage, color_access, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {w, ht, 1}};
  vkCmdCopyImageToBuffer(cmd, hf->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, hf->readback, 1, &region);
  VkBufferMemoryBarrier hb = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT, .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
                              .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                              .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .buffer = hf->readback,
                              .size = VK_WHOLE_SIZE};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &hb, 0, NULL);
  CHECK_VK(vkEndCommandBuffer(cmd));
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  CHECK_VK(vkQueueSubmit(hh->queue, 1, &submit, VK_NULL_HANDLE));
  CHECK_VK(vkQueueWaitIdle(hh->queue));
  vkFreeCommandBuffers(hh->device, hh->pool, 1, &cmd);
  CHECK_VK(splat_renderer_timings(hf->renderer, 0, t));
}

/* The read-back image against the reference: PSNR, the front rectangle's pixels that are not
 * its colour (within the half-float target's rounding), and the pixels that show splats. */
static int check_image(const char *what, const uint8_t *gpu, const uint8_t *ref, uint32_t w, uint32_t ht,
                       const splat_timings *t) {
  size_t pixels = (size_t)w * ht;
  uint32_t front_wrong = 0, splat_pixels = 0;
  double se = 0;
  for (uint32_t y = 0; y < ht; y++)
    for (uint32_t x = 0; x < w; x++) {
      size_t p = (size_t)y * w + x;
      for (int c = 0; c < 3; c++) {
        double d = (double)gpu[4 * p + c] - (double)ref[4 * p + c];
        se += d * d;
      }
      if (x < w / 4 && (abs(gpu[4 * p] - to8(front[0])) > 1 || abs(gpu[4 * p + 1] - to8(front[1])) > 1 ||
                        abs(gpu[4 * p + 2] - to8(front[2])) > 1))
        front_wrong++;
      if (x >= w / 4 &&
          (gpu[4 * p] != to8(plane[0]) || gpu[4 * p + 1] != to8(plane[1]) || gpu[4 * p + 2] != to8(plane[2])))
        splat_pixels++;
    }
  double mse = se / (3.0 * (double)pixels);
  double psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : 999.0;
  printf("render_consumer: %s raster: %u visible, sort %s; PSNR %.2f dB against the CPU reference; %u pixels of the "
         "front rectangle wrong; %u pixels show splats\n",
         what, t->visible, splatsort_algorithm_name(t->sort), psnr, front_wrong, splat_pixels);
  int ok = 1;
  if (psnr < 40.0) fprintf(stderr, "render_consumer: FAIL: %s: PSNR %.2f dB < 40\n", what, psnr), ok = 0;
  if (front_wrong) fprintf(stderr, "render_consumer: FAIL: %s: splats over the host's front geometry\n", what), ok = 0;
  if (splat_pixels < pixels / 20)
    fprintf(stderr, "render_consumer: FAIL: %s: only %u pixels show splats\n", what, splat_pixels), ok = 0;
  return ok;
}

int main(int argc, char **argv) {
  const char *path = NULL, *out_path = NULL;
  uint32_t w = 320, ht = 240;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%ux%u", &w, &ht) == 2 && w && ht)
      i++;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out_path = argv[++i];
    else if (argv[i][0] != '-' && !path)
      path = argv[i];
    else {
      fprintf(stderr, "usage: render_consumer SCENE.ply [--size WxH] [--out IMAGE.ppm]\n");
      return 1;
    }
  }
  if (!path) {
    fprintf(stderr, "usage: render_consumer SCENE.ply [--size WxH] [--out IMAGE.ppm]\n");
    return 1;
  }
  /* the scene, through the scene library */
  splat_scene scene;
  char err[256];
  if (splat_scene_load(path, &scene, err, sizeof err) != 0) {
    fprintf(stderr, "render_consumer: %s\n", err);
    return 1;
  }
  const float znear = 0.01f, zfar = 1000.0f;
  scene_setup set;
  if (setup_scene(&scene, w, ht, znear, zfar, &set) != 0) {
    fprintf(stderr, "render_consumer: cannot frame the scene\n");
    return 1;
  }

  host h = {0};
  create_instance(&h);
  create_device(&h);

  /* one sorter (AUTO), and the renderer drawing into this host's pass formats */
  splatsort *sorter;
  splatsort_create_info sci = {.physical_device = h.pd, .device = h.device, .enabled_features = h.sort_features,
                               .log = on_library_log, .log_user = "splatsort"};
  CHECK_VK(splatsort_create(&sci, &sorter));
  const splatsort *sorters[] = {sorter};
  splat_renderer_create_info rci = {.physical_device = h.pd, .device = h.device, .device_create_info = &h.dci,
                                    .queue = h.queue,
                                    .queue_family = h.family, .sorters = sorters, .sorter_count = 1,
                                    .frame_slots = 1, .host_color_format = COLOR_FORMAT,
                                    .host_depth_format = DEPTH_FORMAT, .log = on_library_log,
                                    .log_user = "splat renderer"};
  splat_renderer *renderer;
  CHECK_VK(splat_renderer_create(&rci, &renderer));
  uint32_t object;
  CHECK_VK(splat_renderer_add_object(renderer, &scene, &object));

  VkPipelineLayout layout;
  VkPipeline pipeline = make_host_pipeline(&h, &layout);
  image color = make_image(&h, COLOR_FORMAT,
                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                           VK_IMAGE_ASPECT_COLOR_BIT, w, ht);
  image depth = make_image(&h, DEPTH_FORMAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                           VK_IMAGE_ASPECT_DEPTH_BIT, w, ht);
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = (VkDeviceSize)w * ht * 8,
                            .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
  VkBuffer readback;
  CHECK_VK(vkCreateBuffer(h.device, &bci, NULL, &readback));
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(h.device, readback, &mr);
  VkDeviceMemory readback_memory =
      allocate(&h, mr, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  CHECK_VK(vkBindBufferMemory(h.device, readback, readback_memory, 0));

  /* two frames: the splats drawn in the host's pass (graphics raster), then composited over
   * the same pass's images by the compute raster */
  host_frame hf = {.h = &h, .renderer = renderer, .pipeline = pipeline, .layout = layout, .color = color,
                   .depth = depth, .readback = readback, .w = w, .ht = ht, .set = &set, .znear = znear, .zfar = zfar};
  size_t pixels = (size_t)w * ht;
  uint8_t *gpu[2] = {malloc(pixels * 4), malloc(pixels * 4)}, *ref = malloc(pixels * 4);
  float *ref_f = malloc(pixels * 4 * sizeof(float));
  if (!gpu[0] || !gpu[1] || !ref || !ref_f) return 1;
  void *mapped;
  CHECK_VK(vkMapMemory(h.device, readback_memory, 0, VK_WHOLE_SIZE, 0, &mapped));
  const uint16_t *halves = mapped;
  splat_timings t[2];
  for (int compute = 0; compute < 2; compute++) {
    /* each raster's first frame is the one checked: a host draws the frame it records once */
    record_frame(&hf, compute, &t[compute]);
    for (size_t i = 0; i < pixels * 4; i++) gpu[compute][i] = (i & 3) == 3 ? 255 : to8(half_to_float(halves[i]));
  }
  printf("render_consumer: the compute raster's first frame needed %u (tile, splat) pairs and had room for %u\n",
         t[1].pairs, t[1].pair_capacity);

  /* the CPU reference: the splats behind the plane transparent, over the plane's colour; the
   * rectangle in front of everything exactly its colour */
  float *kept = scene.opacities;
  scene.opacities = set.cpu_opacity;
  int rr = refrender_render(&scene, &set.cam, (int)scene.sh_degree, plane, ref_f, NULL);
  scene.opacities = kept;
  if (rr != 0) {
    fprintf(stderr, "render_consumer: the reference renderer failed\n");
    return 1;
  }
  for (uint32_t y = 0; y < ht; y++)
    for (uint32_t x = 0; x < w; x++) {
      size_t p = (size_t)y * w + x;
      for (int c = 0; c < 3; c++) ref[4 * p + c] = x < w / 4 ? to8(front[c]) : to8(ref_f[4 * p + c]);
      ref[4 * p + 3] = 255;
    }
  printf("render_consumer: %s: %u splats, %u of them behind the host's plane at depth %.3f\n", path, scene.count,
         set.behind, (double)set.plane_z);
  int ok = check_image("graphics", gpu[0], ref, w, ht, &t[0]) & check_image("compute", gpu[1], ref, w, ht, &t[1]);
  if (t[1].pairs > t[1].pair_capacity)
    fprintf(stderr, "render_consumer: FAIL: the compute raster's first frame left out pairs (%u needed, room for %u)\n",
            t[1].pairs, t[1].pair_capacity), ok = 0;
  if (library_messages)
    fprintf(stderr, "render_consumer: FAIL: the libraries logged %d messages\n", library_messages), ok = 0;
  if (set.behind < 100) fprintf(stderr, "render_consumer: FAIL: only %u splats behind the plane\n", set.behind), ok = 0;
  if (out_path) {
    FILE *fp = fopen(out_path, "wb");
    if (fp) {
      fprintf(fp, "P6\n%u %u\n255\n", w, 3 * ht);
      for (int img = 0; img < 3; img++)
        for (size_t p = 0; p < pixels; p++) fwrite((img < 2 ? gpu[img] : ref) + 4 * p, 1, 3, fp);
      fclose(fp);
    }
  }

  vkUnmapMemory(h.device, readback_memory);
  CHECK_VK(vkDeviceWaitIdle(h.device));
  splat_renderer_destroy(renderer);
  splatsort_destroy(sorter);
  vkDestroyBuffer(h.device, readback, NULL);
  vkFreeMemory(h.device, readback_memory, NULL);
  free_image(&h, &color);
  free_image(&h, &depth);
  vkDestroyPipeline(h.device, pipeline, NULL);
  vkDestroyPipelineLayout(h.device, layout, NULL);
  vkDestroyCommandPool(h.device, h.pool, NULL);
  vkDestroyDevice(h.device, NULL);
  if (h.messenger) {
    PFN_vkDestroyDebugUtilsMessengerEXT destroy =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(h.instance, "vkDestroyDebugUtilsMessengerEXT");
    destroy(h.instance, h.messenger, NULL);
  }
  vkDestroyInstance(h.instance, NULL);
  free(set.cpu_opacity);
  splat_scene_free(&scene);
  free(gpu[0]);
  free(gpu[1]);
  free(ref);
  free(ref_f);
  if (validation_messages) fprintf(stderr, "render_consumer: FAIL: %d validation messages\n", validation_messages), ok = 0;
  printf("render_consumer: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
