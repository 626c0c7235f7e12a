/* test_render.c: the GPU splat renderer (src/render/splat_renderer.h) against the CPU specification,
 * run on lavapipe with the validation layer on (any validation message fails the test). This file
 * is the table of tests and the main that runs them; the tests are in test_render_<area>.c, what
 * they share in render_common.h.
 *
 * usage: test_render TEST... --out DIR [--scene FILE]... [--optional-scene FILE]... [--seed S]
 *                    [--write-images]
 *        test_render --list
 * The tests named run in order in one process, on one renderer and one random sequence (--seed).
 * --optional-scene: skipped (exit 77 when no scene is left) when the file is absent.
 * Exit 0: pass, 1: fail, 2: bad arguments, 77: skipped. On an image failure the GPU image, the
 * reference and an amplified diff are written to DIR as PNGs and their paths printed. */
#include "render_common.h"

#include "renderer_debug.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct render_test {
  const char *name;
  void (*run)(const render_args *a);
  const char *checks;
  int needs_scene; /* the first --scene is the bundled asset */
} render_test;

static const render_test tests[] = {
    /* test_render_graphics.c */
    {"projection", render_test_projection,
     "random splats (around and behind the camera, anisotropic, opacities down to 0, ties in depth, SH 0..3) and "
     "random cameras: the GPU's visible set, records (mean, conic, radius, colour, opacity) and sorted keys against "
     "splat_project and splat_depth_key; 24/16-bit keys against the quantisation formula"},
    {"image", render_test_image,
     "GPU image against the CPU reference renderer (tests/refrender.h) by PSNR: generated scenes (SH 0 and 3, "
     "anti-aliased) from several cameras, or the scene files given"},
    {"sortpaths", render_test_sortpaths,
     "every sort the device runs and AUTO give bit-identical images at each key width; PSNR of 24- and 16-bit "
     "keys and of radial keys against 32-bit view-depth keys"},
    {"fused-keys", render_test_fused_keys,
     "the projection's cull and keys (view depth and radial, 32/24/16 bits) with many equal keys: the sorted "
     "(key, slot) pairs against the CPU reference (splat_project's visible set, its keys, a stable sort), equal "
     "keys in slot order, two runs of a frame bit-identical"},
    /* test_render_compute.c */
    {"compute", render_test_compute,
     "the compute raster against the CPU reference and the graphics raster: generated scenes, the scenes given, "
     "splats of many tiles, an empty view, a pair capacity far too small (overflow, then growth)"},
    /* test_render_order.c */
    {"order", render_test_order,
     "the per-pixel order against the CPU's emulation of it at windows of 1..16 slots (overflowing ones too) "
     "and, with the global order, against the exact per-pixel order; a slow orbit's popping and PSNR (the "
     "generated popping scene: >= 10x fewer popping pixels, >= 3 dB); unknown orders and windows refused"},
    /* test_render_lod.c */
    {"lod", render_test_lod,
     "level-of-detail objects: the GPU's cut against the CPU's at thresholds from 1e-6 to 16 px, the finest cut's "
     "image the whole scene's, a budget steered on the GPU, the blend band softening a threshold sweep, chunks, a "
     "scaled instance, bad calls refused"},
    /* test_render_api.c */
    {"api", render_test_api,
     "bad create infos, scenes and frames are refused and the previous scene keeps rendering; timings; another "
     "scene, two frames in one command buffer",
     1},
    /* test_render_device.c */
    {"device", render_test_device,
     "splat_renderer_get_device_requirements (two calls, flags, the limits against every shader's SPIR-V) and "
     "create's refusal, one log line and no validation message: a device made without dynamicRendering, a create "
     "info without a feature or an extension, a limit a byte short (and exactly met), a bad queue family"},
    {"large", render_test_large,
     "an object in chunks renders bit-identically to one buffer; a memory budget and the frame limit refused with "
     "messages; an SH-3 scene larger than one storage binding against the CPU reference"},
    /* test_render_objects.c */
    {"host-pass", render_test_host_pass,
     "splats drawn into a host's pass over an opaque plane, depth-tested, against the CPU reference; the same in "
     "a VkRenderPass, bit-identical"},
    {"depth-output", render_test_depth_output, "the weighted-depth output of splats all at one camera depth"},
    {"objects", render_test_objects,
     "two objects render as the scene they make; an instance's model transform as the scene moved on the CPU"},
    {"stereo", render_test_stereo, "one cull and sort from between the eyes, drawn for each eye, against each eye "
                                   "sorted alone"},
    /* test_render_storage.c */
    {"storage", render_test_storage,
     "GPU bytes per splat by buffer at 32-, 16- and 8-bit SH and degrees 0..3 against the layout's formula; "
     "projection records at 32- and 8-bit SH against splat_project of the scene as stored; each precision's "
     "image against the CPU reference and the 16-bit path (generated scenes, then the scenes given)"},
    /* test_render_upload.c */
    {"upload", render_test_upload,
     "the GPU buffers of an upload are byte-identical with 1 packing thread and with 2, 3, 4, 7, 16 and the default: "
     "32/16/8-bit SH, degrees 0 and 3, 1, 3 and 10007 splats, several chunks and a wrapped staging ring"},
    /* test_render_stream.c */
    {"stream", render_test_stream,
     "an object streamed in parts (begin/append/finish_object) has set_scene's GPU bytes; k of n splats resident "
     "draw the k-splat scene's image exactly; 8-bit SH tables from the first part; errors leave resident; stats"},
    /* test_render_scene.c */
    {"spz", render_test_spz,
     "each scene against itself written as .spz and loaded back, both on the GPU (what the quantisation costs)"},
    {"sog", render_test_sog,
     "a generated scene and the scenes given against their SOG encodings (tests/sog_writer.h; \"PLY=SOG\" for a "
     "SOG made elsewhere), GPU image against GPU image"},
};
enum { TEST_COUNT = sizeof tests / sizeof tests[0], MAX_RUN = 16, MAX_SCENES = 32 };

static const render_test *find_test(const char *name) {
  for (uint32_t i = 0; i < TEST_COUNT; i++)
    if (!strcmp(tests[i].name, name)) return &tests[i];
  return NULL;
}

static void list_tests(FILE *f) {
  for (uint32_t i = 0; i < TEST_COUNT; i++) fprintf(f, "  %-13s %s\n", tests[i].name, tests[i].checks);
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* mkdir -p */
static void make_dirs(const char *path) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(buf, 0777);
      *p = '/';
    }
  mkdir(buf, 0777);
}

int main(int argc, char **argv) {
  check_print_limit = 40; /* a broken stage fails thousands of checks */
  const render_test *run[MAX_RUN];
  const char *scenes[MAX_SCENES];
  uint32_t nrun = 0, nscenes = 0, optional_missing = 0;
  uint64_t seed = 20261121;
  char names[256] = "";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--list")) {
      list_tests(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      outdir = argv[++i];
    } else if ((!strcmp(argv[i], "--scene") || !strcmp(argv[i], "--optional-scene")) && i + 1 < argc &&
               nscenes < MAX_SCENES) {
      int optional = !strcmp(argv[i], "--optional-scene");
      const char *p = argv[++i];
      if (optional && !file_exists(p)) {
        printf("skipping %s: not present\n", p);
        optional_missing++;
      } else {
        scenes[nscenes++] = p;
      }
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = strtoull(argv[++i], NULL, 0);
    } else if (!strcmp(argv[i], "--write-images")) {
      write_images = 1;
    } else if (argv[i][0] != '-' && find_test(argv[i]) && nrun < MAX_RUN) {
      run[nrun++] = find_test(argv[i]);
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", nrun > 1 ? " " : "", argv[i]);
    } else {
      fprintf(stderr, "test_render: unknown argument '%s'; the tests:\n", argv[i]);
      list_tests(stderr);
      return 2;
    }
  }
  if (nrun == 0) {
    fprintf(stderr, "usage: test_render TEST... --out DIR [--scene FILE]... [--optional-scene FILE]... [--seed S] "
                    "[--write-images]\nthe tests:\n");
    list_tests(stderr);
    return 2;
  }
  if (optional_missing && nscenes == 0) return 77;
  for (uint32_t t = 0; t < nrun; t++)
    if (run[t]->needs_scene && nscenes == 0) {
      fprintf(stderr, "test_render %s: needs --scene (the bundled asset)\n", run[t]->name);
      return 2;
    }
  rng_state = seed;
  make_dirs(outdir);

  double t0 = now_seconds();
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  app_renderer ar;
  app_renderer_create(&ctx, 1, renderer_log, NULL, &ar);
  renderer = ar.renderer;
  splat_renderer_debug_enable(renderer);
  printf("test_render %s: %s, subgroup size %u, onesweep %s, validation %s, seed %llu\n", names, ctx.props.deviceName,
         ctx.subgroup_size, splat_renderer_has_sort(renderer, SPLATSORT_ALGORITHM_ONESWEEP) ? "yes" : "no",
         ctx.validation ? "on" : "off", (unsigned long long)seed);
  double t1 = now_seconds();

  render_args args = {.scenes = scenes, .nscenes = nscenes, .ar = &ar};
  for (uint32_t t = 0; t < nrun; t++) {
    if (nrun > 1) printf("%s: %s\n", run[t]->name, run[t]->checks);
    run[t]->run(&args);
  }

  app_renderer_destroy(&ar);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  printf("setup %.1f s, tests %.1f s\n", t1 - t0, now_seconds() - t1);
  char name[300];
  snprintf(name, sizeof name, "test_render %s", names);
  return check_report(name);
}
