/* test_render lod: level-of-detail objects (splat_renderer_add_lod_object, docs/lod.md) drawn as
 * the cut chosen on the GPU each frame, on a generated SH-3 object and its tree (splat_lod_build):
 *   - a threshold far below a pixel keeps every visible leaf: the image is the whole scene's
 *     (same splats, only equal depth keys may swap) and the cut's count the CPU reference's;
 *   - the cut's count at thresholds of 1..16 px is the CPU reference's (lod_cut_reference), falls
 *     as the threshold grows, and the images stay close to the whole scene's;
 *   - a budget steers the threshold on the GPU: after a few frames the cut holds at most the
 *     budget and at least the budget's lower band, from a threshold far off at the start;
 *   - the blend band softens the switch between levels: over a slow sweep of the threshold the
 *     largest change between consecutive frames is smaller with it than without;
 *   - the object in several chunks draws the same image as in one; a scaled instance cuts as
 *     the unscaled object seen from proportionally farther;
 *   - bad calls are refused with a message. Validation is on (the harness). */
#include "render_common.h"

#include "image.h"
#include "lod_cut.h"
#include "lod_cut_shared.h"
#include "refrender.h"
#include "renderer_debug.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lod_frame {
  float tau;
  uint32_t budget;
  float blend;     /* the frame's lod_blend; 0 here: none (SPLAT_LOD_BLEND_NONE) */
  bool zero_blend; /* the frame's lod_blend left 0: the renderer's default */
  const splat_instance *instance; /* NULL: every object, untransformed */
} lod_frame;

/* One frame of the current objects, read back as 8-bit RGBA, and its timings. */
static void lod_render(const splat_camera *cam, const lod_frame *lf, uint8_t *rgba8, splat_timings *t) {
  size_t npx = (size_t)cam->width * cam->height;
  vkh_buffer rb = vkh_buffer_create(&ctx, npx * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "readback");
  VkCommandBuffer cmd = vkh_begin(&ctx);
  splat_frame f = {.camera = cam, .background = {BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]},
                   .sort = SPLATSORT_ALGORITHM_AUTO, .lod_threshold = lf->tau, .lod_budget = lf->budget,
                   .lod_blend = lf->zero_blend ? 0.0f : lf->blend > 0.0f ? lf->blend : SPLAT_LOD_BLEND_NONE,
                   .instances = lf->instance,
                   .instance_count = lf->instance ? 1 : 0};
  VK_CHECK(splat_renderer_cmd_render(renderer, cmd, &f));
  VkImage image;
  uint32_t w, h;
  splat_renderer_target(renderer, &image, &w, &h);
  copy_target(cmd, image, w, h, rb.buffer);
  vkh_submit_wait(&ctx, cmd);
  float *fl = malloc(npx * 4 * sizeof *fl);
  const uint16_t *hp = rb.mapped;
  for (size_t i = 0; i < npx * 4; i++) fl[i] = half_to_float(hp[i]);
  refrender_to_rgba8(fl, w, h, rgba8);
  free(fl);
  vkh_buffer_destroy(&ctx, &rb);
  VK_CHECK(splat_renderer_timings(renderer, 0, t));
}

static uint32_t cpu_cut(const lod_cut_tree *t, const splat_camera *cam, float tau, uint32_t *scratch) {
  struct sp_lod_cut_push pc = lod_cut_push_for(cam, SPLAT_NEAR_Z, tau);
  return lod_cut_reference(t, &pc, scratch);
}

static uint32_t add_lod(const splat_scene *s, const splat_lod *lod, uint32_t max_cut) {
  uint32_t id = UINT32_MAX;
  splat_lod_object_desc d = {.leaves = s, .lod = lod, .max_cut = max_cut};
  VK_CHECK(splat_renderer_add_lod_object(renderer, &d, &id));
  CHECK(id < SPLAT_MAX_OBJECTS, "add_lod_object returned id %u", id);
  return id;
}

static void remove_all(void) {
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++)
    if (splat_renderer_object_resident(renderer, i)) VK_CHECK(splat_renderer_remove_object(renderer, i));
}

/* Bad calls: each refused with a message, nothing added. */
static void refusals(const splat_scene *s, const splat_lod *lod) {
  uint32_t id = 7, before = log_messages;
  splat_lod_object_desc d = {.leaves = s, .lod = lod};
  CHECK(splat_renderer_add_lod_object(renderer, NULL, &id) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL desc accepted");
  CHECK(splat_renderer_add_lod_object(renderer, &d, NULL) == VK_ERROR_VALIDATION_FAILED_EXT, "NULL id accepted");
  splat_lod_object_desc next = d;
  next.next = &d;
  CHECK(splat_renderer_add_lod_object(renderer, &next, &id) == VK_ERROR_VALIDATION_FAILED_EXT, "next accepted");
  splat_scene fewer = *s;
  fewer.count = s->count - 1;
  splat_lod_object_desc other = {.leaves = &fewer, .lod = lod};
  CHECK(splat_renderer_add_lod_object(renderer, &other, &id) == VK_ERROR_VALIDATION_FAILED_EXT,
        "a tree over another scene accepted");
  CHECK(strstr(last_log, "is not the scene's") != NULL, "message: %s", last_log);
  /* a NULL array of the tree is named (issue 37: it was called a mismatch of counts) */
  splat_lod no_parent = *lod;
  no_parent.parent = NULL;
  splat_lod_object_desc bare = {.leaves = s, .lod = &no_parent};
  CHECK(splat_renderer_add_lod_object(renderer, &bare, &id) == VK_ERROR_VALIDATION_FAILED_EXT &&
            strstr(last_log, "the tree's parent array is NULL"), "NULL parent: %s", last_log);
  CHECK(log_messages >= before + 5, "refusals logged %u messages", log_messages - before);
  CHECK(id == 7 && splat_renderer_scene_count(renderer) == 0, "a refused call changed something");
}

/* The pages (bit p: page p, for the first 64) holding the leaves the CPU cut keeps. */
static uint64_t page_mask(const lod_cut_tree *t, const splat_camera *cam, float tau, uint32_t *scratch) {
  uint32_t n = cpu_cut(t, cam, tau, scratch);
  uint64_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (scratch[i] < t->leaf_count && scratch[i] / LC_PAGE_LEAVES < 64) m |= 1ull << (scratch[i] / LC_PAGE_LEAVES);
  return m;
}

/* Pages (of LC_PAGE_LEAVES leaves) holding the leaves the CPU cut keeps. */
static uint32_t pages_needed(const lod_cut_tree *t, const splat_camera *cam, float tau, uint32_t *scratch) {
  uint32_t n = cpu_cut(t, cam, tau, scratch), pages = (t->leaf_count + LC_PAGE_LEAVES - 1) / LC_PAGE_LEAVES, k = 0;
  uint8_t *seen = calloc(pages, 1);
  for (uint32_t i = 0; i < n; i++)
    if (scratch[i] < t->leaf_count && !seen[scratch[i] / LC_PAGE_LEAVES]) seen[scratch[i] / LC_PAGE_LEAVES] = 1, k++;
  free(seen);
  return k;
}

/* Streaming: a pool of exactly the pages a view needs fills over a few frames and then draws that
 * view's image, bit for bit the resident object's; before, the frames draw the interior nodes
 * (never blank, never waiting). A pool too small for two alternating views evicts the page drawn
 * longest ago and keeps drawing. */
static void stream_case(const splat_scene *s, const splat_lod *lod, const lod_cut_tree *tree, const splat_camera *cams,
                        uint32_t *scratch) {
  const uint32_t W = cams[0].width, H = cams[0].height;
  size_t npx = (size_t)W * H;
  uint8_t *want = malloc(npx * 4), *img = malloc(npx * 4), *first = malloc(npx * 4);
  splat_timings t;
  const splat_camera *cam = &cams[3]; /* the close-up */
  uint32_t pages = (s->count + LC_PAGE_LEAVES - 1) / LC_PAGE_LEAVES, need = pages;
  float tau = 24.0f; /* the finest threshold at which the close-up's cut opens only some leaf pages */
  for (; tau < 1024.0f && (need = pages_needed(tree, cam, tau, scratch)) >= pages; tau *= 1.25f) {}
  printf("  streaming: the close-up at %.1f px needs %u of %u pages\n", tau, need, pages);
  CHECK(need > 0 && need < pages, "the streaming case needs a view with some pages (%u of %u)", need, pages);
  remove_all();
  add_lod(s, lod, 0);
  lod_render(cam, &(lod_frame){.tau = tau}, want, &t);
  printf("  resident object: cut %u, visible %u\n", t.lod_cut, t.visible);
  remove_all();
  uint32_t id = UINT32_MAX;
  splat_lod_object_desc d = {.leaves = s, .lod = lod, .resident_leaves = need * LC_PAGE_LEAVES};
  VK_CHECK(splat_renderer_add_lod_object(renderer, &d, &id));
  splat_lod_stats st;
  int frames = 0;
  double p = 0;
  for (; frames < 12; frames++) {
    lod_render(cam, &(lod_frame){.tau = tau}, img, &t);
    if (frames == 0) memcpy(first, img, npx * 4);
    VK_CHECK(splat_renderer_lod_stats(renderer, id, &st));
    p = image_psnr(img, want, W, H);
    printf("  streaming frame %d: cut %u (visible %u), pages resident %u of %u (pool %u), asked %u, %.1f dB against resident\n",
           frames, t.lod_cut, t.visible, st.resident, st.pages, st.pool_pages, st.requested, p);
    CHECK(t.lod_cut > 0, "streaming frame %d draws nothing", frames);
    if (p >= 99.0) break;
  }
  CHECK(p >= 99.0, "the streamed view is %.1f dB from the resident object's after %d frames", p, frames);
  CHECK(st.pool_pages == need && st.resident == need && st.evicted == 0, "pool %u, resident %u, evicted %llu",
        st.pool_pages, st.resident, (unsigned long long)st.evicted);
  double p0 = image_psnr(first, want, W, H);
  CHECK(p0 > 10.0 && p0 < 99.0, "the first streamed frame (nothing resident) is %.1f dB from the resident image", p0);
  remove_all();
  /* a pool of one page, two views in turn: evictions, frames keep drawing */
  d.resident_leaves = 1;
  VK_CHECK(splat_renderer_add_lod_object(renderer, &d, &id));
  /* two close views (of six around the object) whose leaves are in disjoint pages, then a look
   * away between them: the first view's page ages and the second's evicts it */
  splat_camera around[6], away;
  const float up[3] = {0, -1, 0}, fwd[3] = {0, 0, 1}, origin[3] = {0, 0, 0};
  uint64_t masks[6];
  for (int k = 0; k < 6; k++) {
    float eye[3] = {0, 0, 0};
    eye[k / 2] = k & 1 ? -1.5f : 1.5f;
    CHECK(splat_camera_look_at(&around[k], eye, origin, k / 2 == 1 ? fwd : up, 60.0f, W, H) == 0, "camera");
  }
  int a = -1, b = -1;
  for (tau = 64.0f; tau < 4096.0f && a < 0; tau *= 1.25f) { /* coarser: fewer pages a view */
    for (int k = 0; k < 6; k++) masks[k] = page_mask(tree, &around[k], tau, scratch);
    for (int i = 0; i < 6 && a < 0; i++)
      for (int j = i + 1; j < 6 && a < 0; j++)
        if (masks[i] && masks[j] && !(masks[i] & masks[j])) a = i, b = j;
  }
  tau /= 1.25f;
  printf("  eviction: views %d and %d need disjoint pages at %.1f px\n", a, b, tau);
  CHECK(a >= 0, "no two close views with disjoint pages");
  if (a < 0) a = 0, b = 1;
  CHECK(splat_camera_look_at(&away, (float[3]){0, 0, -3.0f}, (float[3]){0, 0, -6.0f}, up, 60.0f, W, H) == 0, "camera");
  const splat_camera *seq[3] = {&around[a], &away, &around[b]};
  for (int f = 0; f < 9; f++) {
    lod_render(seq[f / 3], &(lod_frame){.tau = tau}, img, &t);
    CHECK(f / 3 == 1 || t.lod_cut > 0, "frame %d of the one-page pool draws nothing", f);
  }
  VK_CHECK(splat_renderer_lod_stats(renderer, id, &st));
  printf("  one-page pool, two sides and a look away between: loaded %llu, evicted %llu, resident %u\n", (unsigned long long)st.loaded,
         (unsigned long long)st.evicted, st.resident);
  CHECK(st.pool_pages == 1 && st.loaded >= 2 && st.evicted >= 1, "one-page pool: loaded %llu, evicted %llu",
        (unsigned long long)st.loaded, (unsigned long long)st.evicted);
  remove_all();
  free(want);
  free(img);
  free(first);
}


void render_test_lod(const render_args *a) {
  (void)a;
  const uint32_t W = 256, H = 192, N = 30000;
  splat_scene s;
  splat_camera cams[4];
  generated_with_cameras(&s, N, W, H, cams);
  splat_lod lod;
  char err[256];
  splat_lod_options lo = {.threads = 2};
  if (splat_lod_build(&s, &lo, &lod, err, sizeof err) != 0) {
    CHECK(0, "splat_lod_build: %s", err);
    return;
  }
  lod_cut_tree tree;
  if (lod_cut_tree_pack(&s, &lod, &tree, err, sizeof err) != 0) {
    CHECK(0, "%s", err);
    return;
  }
  uint32_t *scratch = malloc(sizeof(uint32_t) * N);
  size_t npx = (size_t)W * H;
  uint8_t *full = malloc(npx * 4), *img = malloc(npx * 4), *prev = malloc(npx * 4);
  splat_timings t;
  remove_all();
  refusals(&s, &lod);

  /* the whole scene, as a plain object, from each camera: the references */
  uint8_t *fulls[2];
  set_scene_or_die(&s);
  for (int c = 0; c < 2; c++) {
    fulls[c] = malloc(npx * 4);
    lod_render(&cams[c], &(lod_frame){0}, fulls[c], &t);
    CHECK(t.lod_cut == 0 && t.lod_cut_ms == 0, "a frame without a LOD object reports a cut");
  }
  remove_all();
  add_lod(&s, &lod, 0);
  for (int c = 0; c < 2; c++) {
    const splat_camera *cam = &cams[c];
    /* a threshold far below a pixel: every visible leaf */
    lod_render(cam, &(lod_frame){.tau = 1e-6f}, img, &t);
    uint32_t want = cpu_cut(&tree, cam, 1e-6f, scratch);
    double p = image_psnr(img, fulls[c], W, H);
    printf("  camera %d: tau 1e-6: cut %u (CPU %u), visible %u, %.1f dB against the whole scene\n", c, t.lod_cut,
           want, t.visible, p);
    CHECK(t.lod_cut == want, "camera %d: cut %u, the CPU's %u", c, t.lod_cut, want);
    CHECK(p >= 60.0, "camera %d: the finest cut is %.1f dB from the whole scene (>= 60)", c, p);
    CHECK(fabsf(t.lod_threshold - 1e-6f) < 1e-9f, "threshold read back %g", t.lod_threshold);
    /* coarser cuts */
    uint32_t last = want, finest = want;
    /* thresholds in the cut's units (error x sqrt(projected size in pixels), docs/lod.md): on these
     * balls of white-noise colour the merge costs are large, so the cut coarsens from about 16 */
    const float taus[] = {8.0f, 16.0f, 32.0f, 64.0f, 128.0f};
    for (size_t k = 0; k < sizeof taus / sizeof *taus; k++) {
      lod_render(cam, &(lod_frame){.tau = taus[k]}, img, &t);
      want = cpu_cut(&tree, cam, taus[k], scratch);
      p = image_psnr(img, fulls[c], W, H);
      printf("  camera %d: tau %4.1f: cut %6u (CPU %6u), visible %6u, %.1f dB\n", c, taus[k], t.lod_cut, want, t.visible, p);
      /* only a node's size exactly at tau may classify differently (the GPU's division) */
      CHECK(t.lod_cut + want / 1000 + 2 >= want && t.lod_cut <= want + want / 1000 + 2, "camera %d tau %g: cut %u, CPU %u",
            c, taus[k], t.lod_cut, want);
      CHECK(want <= last, "camera %d: the cut at tau %g (%u) is larger than at the finer one (%u)", c, taus[k],
            want, last);
      if (taus[k] <= 16.0f) CHECK(p >= 30.0, "camera %d: tau %g is only %.1f dB from the whole scene (>= 30)", c, taus[k], p);
      last = want;
    }
    CHECK(last < finest / 2, "camera %d: the coarsest cut (%u) is not under half the finest (%u)", c, last, finest);
  }
  const splat_camera *cam = &cams[0];
  /* a budget: from a threshold far too coarse, steered on the GPU */
  uint32_t fine = cpu_cut(&tree, cam, 1e-6f, scratch), budget = fine / 4;
  for (int frame = 0; frame < 16; frame++) {
    lod_render(cam, &(lod_frame){.tau = 64.0f, .budget = budget}, img, &t);
    printf("  budget %u, frame %2d: cut %6u at %.3f px\n", budget, frame, t.lod_cut, t.lod_threshold);
  }
  CHECK(t.lod_cut <= budget && t.lod_cut >= (uint32_t)(0.8 * budget), "budget %u: the cut holds %u after 16 frames",
        budget, t.lod_cut);
  double pb = image_psnr(img, fulls[0], W, H);
  printf("  budget %u: %.1f dB against the whole scene\n", budget, pb);
  /* 25.4 dB with the median-split tree cut by size (before issue 35), 23.0 with the pairs tree cut
   * by error: white-noise colour makes every merge costly; real captures gain (docs/lod.md) */
  CHECK(pb >= 22.5, "a quarter of the leaves is %.1f dB from the whole scene (>= 22.5)", pb);

  /* the blend: a slow sweep of the threshold, the largest change between frames; without the
   * blend, and with the frame's lod_blend left 0 (the default) */
  double worst[2] = {1e9, 1e9};
  for (int b = 0; b < 2; b++) {
    for (int k = 0; k <= 24; k++) {
      float tau = 96.0f * powf(0.5f, (float)k / 12.0f); /* 96 -> 24: the levels switch here */
      lod_render(cam, &(lod_frame){.tau = tau, .zero_blend = b == 1}, img, &t);
      if (k) {
        double p = image_psnr(img, prev, W, H);
        if (getenv("LOD_DEBUG")) printf("    blend %d tau %.2f cut %u: %.1f dB\n", b, tau, t.lod_cut, p);
        if (p < worst[b]) worst[b] = p;
      }
      memcpy(prev, img, npx * 4);
    }
  }
  printf("  threshold sweep 96 -> 24: the largest change between frames %.1f dB apart without the blend, %.1f "
         "with it\n", worst[0], worst[1]);
  CHECK(worst[1] > worst[0] + 1.0, "the blend does not soften the switch (%.1f dB vs %.1f without)", worst[1],
        worst[0]);
  /* the default band is the header's 0.5 */
  lod_render(cam, &(lod_frame){.tau = 48.0f, .zero_blend = true}, prev, &t);
  lod_render(cam, &(lod_frame){.tau = 48.0f, .blend = 0.5f}, img, &t);
  CHECK(memcmp(prev, img, npx * 4) == 0, "lod_blend 0 is not the band 0.5");

  /* several chunks: the same image */
  remove_all();
  add_lod(&s, &lod, 0);
  lod_render(cam, &(lod_frame){.tau = 48.0f}, prev, &t);
  remove_all();
  splat_renderer_debug_set_chunk_splats(renderer, 4096);
  uint32_t id = add_lod(&s, &lod, 0);
  CHECK(splat_renderer_debug_chunks(renderer, id) > 2, "the LOD object is in %u chunks",
        splat_renderer_debug_chunks(renderer, id));
  lod_render(cam, &(lod_frame){.tau = 48.0f}, img, &t);
  double pc = image_psnr(img, prev, W, H);
  printf("  %u chunks: %.1f dB against one\n", splat_renderer_debug_chunks(renderer, id), pc);
  CHECK(pc >= 60.0, "the object in chunks draws %.1f dB from one chunk", pc);
  splat_renderer_debug_set_chunk_splats(renderer, 0);

  /* a scaled instance seen from twice as far: the same cut */
  splat_instance inst = {.object = id, .model = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1}};
  splat_camera near, far;
  const float up[3] = {0, -1, 0}, origin[3] = {0, 0, 0};
  CHECK(splat_camera_look_at(&near, (float[3]){0.4f, 0.3f, -2.5f}, origin, up, 50.0f, W, H) == 0, "camera");
  CHECK(splat_camera_look_at(&far, (float[3]){0.8f, 0.6f, -5.0f}, origin, up, 50.0f, W, H) == 0, "camera");
  lod_render(&near, &(lod_frame){.tau = 48.0f}, img, &t);
  uint32_t unscaled = t.lod_cut;
  lod_render(&far, &(lod_frame){.tau = 48.0f, .instance = &inst}, prev, &t);
  printf("  scaled x2 from twice as far: cut %u, unscaled %u\n", t.lod_cut, unscaled);
  CHECK(abs((int)t.lod_cut - (int)unscaled) <= (int)(unscaled / 100 + 2), "scaled instance cut %u, unscaled %u",
        t.lod_cut, unscaled);
  remove_all();

  stream_case(&s, &lod, &tree, cams, scratch);

  for (int c = 0; c < 2; c++) free(fulls[c]);
  free(full);
  free(img);
  free(prev);
  free(scratch);
  lod_cut_tree_free(&tree);
  splat_lod_free(&lod);
  splat_scene_free(&s);
}
