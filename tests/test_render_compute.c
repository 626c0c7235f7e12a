/* test_render_compute.c: the compute raster (SPLAT_RASTER_COMPUTE) against the CPU reference and
 * the graphics raster (test_render's compute test; the table is in test_render.c). */
#include "render_common.h"

#include "image.h"
#include "refrender.h"
#include "renderer_debug.h"
#include "splat_shared.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double scene_psnr_min = 1e9; /* against the reference */

static splat_timings last_timings(void) {
  splat_timings t;
  VK_CHECK(splat_renderer_timings(renderer, 0, &t));
  return t;
}

/* The pairs the CPU reference's bins (refrender_bins_of) give the last frame's own records:
 * the GPU's projection differs from splat_project in the last bits, and a bin's edge moves
 * with them, so only the GPU's records make the two counts comparable exactly. With per_tile,
 * also each tile's pairs there (tiles_x x tiles_y, zeroed by the caller). */
static uint64_t tile_pairs_of_gpu_records(const splat_camera *cam, uint32_t count, uint64_t *per_tile) {
  splat_renderer_debug_buffers dbg;
  VK_CHECK(splat_renderer_debug_get_buffers(renderer, &dbg));
  uint32_t draw[SP_DRAW_WORDS];
  read_buffer(dbg.draw, 0, sizeof draw, draw);
  uint32_t nvis = draw[SP_DRAW_INSTANCES] < count ? draw[SP_DRAW_INSTANCES] : count;
  uint32_t *rec = malloc((size_t)count * 32 + 32), *vals = malloc(4ull * nvis + 4);
  read_buffer(dbg.projected, 0, (VkDeviceSize)count * 32, rec);
  read_buffer(dbg.values.buffer, dbg.values.offset, 4ull * nvis, vals);
  uint64_t pairs = 0;
  for (uint32_t k = 0; k < nvis; k++) {
    const uint32_t *w = rec + (size_t)vals[k] * 8;
    splat_projected p = {.radius = (float)(w[7] >> 16)};
    memcpy(p.mean2d, w, 8);
    memcpy(p.conic, w + 2, 12);
    memcpy(&p.opacity, w + 5, 4);
    refrender_bins b;
    if (!refrender_bins_of(&p, cam->width, cam->height, &b)) continue;
    for (int64_t ty = b.lo[1] / 16, tx0, tx1; ty <= b.hi[1] / 16; ty++)
      if (refrender_bin_row(&b, ty, &tx0, &tx1)) {
        pairs += (uint64_t)(tx1 - tx0 + 1);
        for (int64_t tx = tx0; per_tile && tx <= tx1; tx++) per_tile[(uint64_t)ty * ((cam->width + 15) / 16) + (uint64_t)tx]++;
      }
  }
  free(rec);
  free(vals);
  return pairs;
}

static uint64_t pairs_of_gpu_records(const splat_camera *cam, uint32_t count) {
  return tile_pairs_of_gpu_records(cam, count, NULL);
}

/* The last frame's pairs: exactly the CPU reference's bins of its records, and within 0.1% of
 * the reference's own count (its own projection). The reference's image with the square
 * binning (every tile the footprint square overlaps) must be the same, bit for bit; prints
 * the pairs that binning needed. */
static void check_pair_count(const char *tag, const splat_scene *s, const splat_camera *cam, uint32_t gpu_pairs) {
  uint64_t from_records = pairs_of_gpu_records(cam, s->count);
  size_t bytes = (size_t)cam->width * cam->height * 16;
  float *a = malloc(bytes), *b = malloc(bytes);
  refrender_stats bins, square;
  refrender_options o = {.max_pairs = UINT64_MAX};
  CHECK(refrender_render_opts(s, cam, (int)s->sh_degree, BACKGROUND, a, &bins, &o) == 0, "%s: reference", tag);
  o.square_bins = 1;
  CHECK(refrender_render_opts(s, cam, (int)s->sh_degree, BACKGROUND, b, &square, &o) == 0, "%s: reference", tag);
  CHECK(memcmp(a, b, bytes) == 0, "%s: the reference's image with the bins differs from the square binning's", tag);
  printf("  %-44s pairs: GPU %u, CPU bins of its records %llu, CPU reference %llu (square binning %llu: %.1f%% "
         "fewer)\n", tag, gpu_pairs, (unsigned long long)from_records, (unsigned long long)bins.pairs_needed,
         (unsigned long long)square.pairs_needed,
         square.pairs_needed ? 100.0 * (1.0 - (double)bins.pairs_needed / (double)square.pairs_needed) : 0.0);
  CHECK(gpu_pairs == from_records, "%s: the GPU needed %u pairs, the CPU's bins of its records %llu", tag, gpu_pairs,
        (unsigned long long)from_records);
  CHECK(fabs((double)gpu_pairs - (double)bins.pairs_needed) <= 1e-3 * (double)bins.pairs_needed,
        "%s: the GPU needed %u pairs, the CPU reference %llu", tag, gpu_pairs, (unsigned long long)bins.pairs_needed);
  free(a);
  free(b);
}

/* One camera: the compute raster against the CPU reference (>= 40 dB) and against the
 * graphics raster (>= 45 dB); its timings must report a complete frame. */
static void compute_case(const char *tag, const splat_scene *s, const splat_camera *cam) {
  size_t bytes = (size_t)cam->width * cam->height * 4;
  uint8_t *graphics = malloc(bytes), *compute = malloc(bytes);
  frame_opts.raster = SPLAT_RASTER_COMPUTE;
  double p = compare_with_reference(tag, s, cam, -1, 40.0);
  scene_psnr_min = fmin(scene_psnr_min, p);
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, compute);
  splat_timings t = last_timings();
  check_pair_count(tag, s, cam, t.pairs); /* before the next frame */
  frame_opts.raster = SPLAT_RASTER_GRAPHICS;
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, graphics);
  double pg = image_psnr(compute, graphics, cam->width, cam->height);
  printf("  %-44s compute vs graphics: PSNR %6.2f dB; %u pairs (capacity %u), %.1f per visible splat\n", tag, pg,
         t.pairs, t.pair_capacity, t.visible ? (double)t.pairs / t.visible : 0.0);
  CHECK(t.raster == SPLAT_RASTER_COMPUTE && t.pairs <= t.pair_capacity, "%s: timings say raster %d, %u pairs of %u",
        tag, (int)t.raster, t.pairs, t.pair_capacity);
  CHECK(pg >= 45.0, "%s: compute vs graphics PSNR %.2f dB < 45", tag, pg);
  if (pg < 45.0 || write_images) {
    char name[300];
    snprintf(name, sizeof name, "%s_vs_graphics", tag);
    save_images(name, cam, compute, graphics, "graphics");
  }
  free(graphics);
  free(compute);
}

static void compute_scene(const char *name, const splat_scene *s) {
  splat_camera cams[4];
  uint32_t nc = scene_cameras(s, SPLAT_UP_NEG_Y, 256, 192, cams, 4);
  CHECK(nc == 4, "%s: could not make cameras", name);
  set_scene_or_die(s);
  for (uint32_t k = 0; k < nc; k++) {
    char tag[256];
    snprintf(tag, sizeof tag, "compute_%s_cam%u", name, k);
    compute_case(tag, s, &cams[k]);
  }
}

/* Splats of many tiles: the generated object with its splats 12x larger, seen close up (a
 * splat then spans up to the whole image), and at an odd size (partial edge tiles). */
static void compute_big_splats(void) {
  splat_scene s;
  gen_object_scene(&s, 600, 3);
  for (uint32_t i = 0; i < 3 * s.count; i++) s.scales[i] *= 12.0f;
  splat_camera cams[4];
  uint32_t nc = scene_cameras(&s, SPLAT_UP_NEG_Y, 203, 141, cams, 4);
  CHECK(nc == 4, "big splats: could not make cameras");
  set_scene_or_die(&s);
  compute_case("compute_big_splats_cam0", &s, &cams[0]);
  compute_case("compute_big_splats_closeup", &s, &cams[3]);
  splat_scene_free(&s);
}

/* Nothing in view: the background, exactly, and no pairs. */
static void compute_empty_view(void) {
  splat_scene s;
  gen_object_scene(&s, 500, 0);
  set_scene_or_die(&s);
  splat_camera cam;
  const float eye[3] = {0, 0, -4}, away[3] = {0, 0, -8}, up[3] = {0, -1, 0};
  CHECK(splat_camera_look_at(&cam, eye, away, up, 50, 96, 64) == 0, "empty view: camera");
  size_t npx = (size_t)cam.width * cam.height;
  uint8_t *img = malloc(npx * 4), *ref = malloc(npx * 4);
  frame_opts.raster = SPLAT_RASTER_COMPUTE;
  render_gpu(&cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img);
  splat_timings t = last_timings();
  frame_opts.raster = SPLAT_RASTER_GRAPHICS;
  refrender_stats rs;
  CHECK(refrender_render_rgba8(&s, &cam, 0, BACKGROUND, ref, &rs) == 0 && rs.visible == 0, "empty view: %u visible",
        rs.visible);
  CHECK(memcmp(img, ref, npx * 4) == 0, "empty view: the compute raster's image is not the background");
  CHECK(t.pairs == 0, "empty view: %u pairs", t.pairs);
  printf("  compute_empty_view: background only, %u visible, %u pairs\n", t.visible, t.pairs);
  free(img);
  free(ref);
  splat_scene_free(&s);
}

/* A pair capacity far too small: the first frame draws the front-most pairs that fit (the
 * CPU reference capped alike), reports the overflow, and the next frame in that slot has
 * grown buffers and is complete. */
static void compute_overflow(void) {
  splat_scene s;
  gen_object_scene(&s, 3000, 3);
  splat_camera cams[4];
  CHECK(scene_cameras(&s, SPLAT_UP_NEG_Y, 256, 192, cams, 4) == 4, "overflow: cameras");
  set_scene_or_die(&s);
  const uint32_t cap = 1500;
  splat_renderer_debug_set_pair_capacity(renderer, cap);
  const splat_camera *cam = &cams[3];
  size_t npx = (size_t)cam->width * cam->height;
  uint8_t *img = malloc(npx * 4), *ref = malloc(npx * 4);
  float *reff = malloc(npx * 16);
  frame_opts.raster = SPLAT_RASTER_COMPUTE;
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img);
  splat_timings t1 = last_timings();
  refrender_stats rs;
  CHECK(refrender_render_capped(&s, cam, (int)s.sh_degree, BACKGROUND, reff, &rs, cap) == 0, "capped reference");
  refrender_to_rgba8(reff, cam->width, cam->height, ref);
  double pc = image_psnr(img, ref, cam->width, cam->height);
  printf("  compute_overflow: capacity %u, needed %u (CPU %llu): capped image vs capped reference PSNR %.2f dB\n",
         t1.pair_capacity, t1.pairs, (unsigned long long)rs.pairs_needed, pc);
  CHECK(t1.pair_capacity == cap && t1.pairs > cap, "overflow not reported: %u pairs, capacity %u", t1.pairs,
        t1.pair_capacity);
  CHECK(pc >= 40.0 && !image_is_blank(img, cam->width, cam->height), "overflowed frame: PSNR %.2f dB vs capped reference",
        pc);
  if (pc < 40.0 || write_images) save_images("compute_overflow_capped", cam, img, ref, "ref_capped");
  /* the next frame in slot 0 grows the buffers first */
  render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, img);
  splat_timings t2 = last_timings();
  CHECK(refrender_render_rgba8(&s, cam, (int)s.sh_degree, BACKGROUND, ref, NULL) == 0, "reference");
  double pf = image_psnr(img, ref, cam->width, cam->height);
  printf("  compute_overflow: next frame: capacity %u, %u pairs: PSNR %.2f dB vs the full reference\n",
         t2.pair_capacity, t2.pairs, pf);
  CHECK(t2.pair_capacity >= t2.pairs && t2.pairs == t1.pairs, "after growth: %u pairs, capacity %u", t2.pairs,
        t2.pair_capacity);
  CHECK(pf >= 40.0, "after growth: PSNR %.2f dB < 40", pf);
  frame_opts.raster = SPLAT_RASTER_GRAPHICS;
  splat_renderer_debug_set_pair_capacity(renderer, 0);
  free(img);
  free(ref);
  free(reff);
  splat_scene_free(&s);
}

/* Crowded tiles blended in pieces (splat_shared.h, SP_CR_PIECES), with pieces small enough here
 * (48 pairs) that most tiles of a generated scene split: the partial slots and extra pieces the
 * GPU took are exactly those the CPU's bins of its records give, and both orders match the CPU
 * reference's pieces (refrender_options.piece) within 50 dB (64-70 measured; a piece lost or
 * composited out of order costs far more). The pieces' image against the unsplit one is printed:
 * in the global order they differ only where a pixel's transmittance falls below the stop
 * rule's; in the per-pixel order each piece also has its own window. */
static void compute_pieces(void) {
  splat_scene s;
  gen_object_scene(&s, 3000, 3);
  splat_scene_as_stored(&s, SPLAT_SH_PRECISION_16);
  set_scene_or_die(&s);
  splat_camera cams[4];
  CHECK(scene_cameras(&s, SPLAT_UP_NEG_Y, 256, 192, cams, 4) == 4, "pieces: cameras");
  const uint32_t piece = 48;
  size_t npx = (size_t)cams[0].width * cams[0].height;
  uint8_t *gpu = malloc(npx * 4), *whole = malloc(npx * 4), *ref = malloc(npx * 4);
  float *reff = malloc(npx * 16);
  uint32_t tiles = ((cams[0].width + 15) / 16) * ((cams[0].height + 15) / 16);
  uint64_t *per_tile = malloc(tiles * sizeof *per_tile);
  for (uint32_t k = 0; k < 4; k += 3) {
    const splat_camera *cam = &cams[k];
    for (int pp = 0; pp < 2; pp++) {
      int order = pp ? REFRENDER_ORDER_WINDOW : REFRENDER_ORDER_GLOBAL;
      frame_opts.raster = SPLAT_RASTER_COMPUTE;
      frame_opts.order = pp ? SPLAT_ORDER_PER_PIXEL : SPLAT_ORDER_GLOBAL;
      render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, whole);
      splat_renderer_debug_set_piece_pairs(renderer, piece);
      render_gpu(cam, SPLATSORT_ALGORITHM_AUTO, 32, -1, NULL, gpu);
      uint32_t used = splat_renderer_debug_piece_pairs(renderer);
      splat_renderer_debug_buffers dbg;
      VK_CHECK(splat_renderer_debug_get_buffers(renderer, &dbg));
      uint32_t state[SP_CR_STATE_WORDS];
      read_buffer(dbg.craster_state, 0, sizeof state, state);
      memset(per_tile, 0, tiles * sizeof *per_tile);
      (void)tile_pairs_of_gpu_records(cam, s.count, per_tile);
      uint64_t slots = 0, extras = 0;
      for (uint32_t t = 0; t < tiles; t++)
        if (per_tile[t] > piece) slots += (per_tile[t] + piece - 1) / piece, extras += (per_tile[t] + piece - 1) / piece - 1;
      splat_renderer_debug_set_piece_pairs(renderer, 0);
      frame_opts.order = SPLAT_ORDER_GLOBAL;
      frame_opts.raster = SPLAT_RASTER_GRAPHICS;
      refrender_options o = {.max_pairs = UINT64_MAX, .order = order, .window = pp ? SPLAT_ORDER_WINDOW_DEFAULT : 0,
                             .piece = piece};
      CHECK(refrender_render_opts(&s, cam, (int)s.sh_degree, BACKGROUND, reff, NULL, &o) == 0, "pieces: reference");
      refrender_to_rgba8(reff, cam->width, cam->height, ref);
      double p = image_psnr(gpu, ref, cam->width, cam->height), pw = image_psnr(gpu, whole, cam->width, cam->height);
      printf("  compute_pieces cam%u %-9s piece %u: %llu partial slots, %llu extra pieces (CPU %llu, %llu); vs the "
             "CPU's pieces %6.2f dB, vs unsplit %6.2f dB\n", k, pp ? "per-pixel" : "global", used,
             (unsigned long long)state[SP_CR_STATE_SLOTS], (unsigned long long)state[SP_CR_STATE_EXTRA],
             (unsigned long long)slots, (unsigned long long)extras, p, pw);
      CHECK(used == piece, "pieces: the renderer used pieces of %u pairs, not %u", used, piece);
      CHECK(extras > 100 && state[SP_CR_STATE_SLOTS] == slots && state[SP_CR_STATE_EXTRA] == extras,
            "pieces cam%u: the GPU took %u slots and %u extra pieces, the CPU's bins give %llu and %llu", k,
            state[SP_CR_STATE_SLOTS], state[SP_CR_STATE_EXTRA], (unsigned long long)slots, (unsigned long long)extras);
      CHECK(p >= 50.0 && !image_is_blank(gpu, cam->width, cam->height), "pieces cam%u %s: PSNR %.2f dB < 50", k,
            pp ? "per-pixel" : "global", p);
      if (p < 50.0 || write_images) {
        char name[64];
        snprintf(name, sizeof name, "compute_pieces_cam%u_%s", k, pp ? "per_pixel" : "global");
        save_images(name, cam, gpu, ref, "ref");
      }
    }
  }
  free(gpu);
  free(whole);
  free(ref);
  free(reff);
  free(per_tile);
  splat_scene_free(&s);
}

/* Generated scenes (SH 0 and 3), the scenes given, then the cases above. */
void render_test_compute(const render_args *a) {
  const char *const *scenes = a->scenes;
  uint32_t nscenes = a->nscenes;
  for (uint32_t degree = 0; degree <= 3; degree += 3) {
    splat_scene s;
    gen_object_scene(&s, degree ? 3000 : 800, degree);
    compute_scene(degree ? "generated3" : "generated0", &s);
    splat_scene_free(&s);
  }
  for (uint32_t i = 0; i < nscenes; i++) {
    splat_scene s;
    if (load_scene(scenes[i], &s) != 0) {
      failures++;
      continue;
    }
    compute_scene(base_name(scenes[i]), &s);
    splat_scene_free(&s);
  }
  compute_big_splats();
  compute_empty_view();
  compute_overflow();
  compute_pieces();
  printf("  lowest PSNR against the reference %.2f dB (threshold 40)\n", scene_psnr_min);
}
