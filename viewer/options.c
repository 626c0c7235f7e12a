/* splatview's command line, read with getopt_long. */
#include <stdio.h>

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void splatview_usage(FILE *f) {
  fprintf(f,
          "usage: splatview [SCENE...] [options]     open .ply / .splat / .spz / SOG scenes in a window\n"
          "       splatview --headless [SCENE...] --out frame.png [options]   render offscreen\n"
          "       splatview --convert IN OUT [--lod]     rewrite a scene as .ply or .spz (OUT's extension)\n"
          "\n"
          "With no SCENE the bundled scene (%s) opens (window and --headless).\n"
          "Several SCENEs (up to 16) open side by side along x as objects of one frame, sorted\n"
          "together. A PlayCanvas SOG scene is opened by its meta.json, its folder, or a bundled\n"
          ".sog file; a streamed SOG bundle by its lod-meta.json or its folder (--lod-level).\n"
          "\n"
          "options:\n"
          "  --headless              render without a window or display (GPU servers, lavapipe)\n"
          "  --out FILE.png          headless: write the last frame\n"
          "  --size WxH              image / window size (default 1280x720)\n"
          "  --cameras FILE.json     the cameras.json written by 3DGS training\n"
          "  --camera I              start at camera I of --cameras (default 0)\n"
          "  --eye X,Y,Z --target X,Y,Z [--up X,Y,Z]   look-at camera (up default 0,-1,0)\n"
          "  --up X,Y,Z              alone: the world's up for the start view (default: from the\n"
          "                          cameras.json beside the scene, else from the splats: a flat\n"
          "                          scene's ground, a tall one's long axis, else -Y); the start\n"
          "                          view looks down at the scene from 30 degrees above, all of it\n"
          "                          in the image\n"
          "  --fovy DEG              vertical field of view (default 50)\n"
          "  --sort auto|onesweep|radix16|merge|quaternary   sort algorithm (default auto: by the\n"
          "                          device and the scene's splat count; O cycles them)\n"
          "  --key-bits 16|24|32     depth key width (default 32)\n"
          "  --key-mode depth|radial sort by view depth (default, the reference's order) or by\n"
          "                          distance to the camera (steadier while turning)\n"
          "  --raster graphics|compute|auto   raster path (default auto): quads through the\n"
          "                          graphics pipeline, or 16x16 tiles in compute; auto picks from\n"
          "                          the device, rendering nothing to choose: graphics on a CPU\n"
          "                          device (lavapipe), compute on a GPU (far faster on data-\n"
          "                          centre GPUs); a window then tries graphics for a few of its\n"
          "                          first frames (one, if it is clearly slower) and keeps it if it\n"
          "                          is clearly faster. --grid takes only graphics\n"
          "  --antialias on|off|auto anti-aliasing compensation (mip-splatting's 2D filter, gsplat's\n"
          "                          \"antialiased\" mode: opacity scaled as the 0.3 dilation widens a\n"
          "                          splat); auto (default): for scenes whose file says they were\n"
          "                          trained with it (a .ply comment, the .spz flag)\n"
          "  --order global|per-pixel   how each pixel orders its splats (default global: by their\n"
          "                          centres' depth, as 3DGS; per-pixel: by the depth along the\n"
          "                          pixel's own ray, no popping; compute raster only; L toggles)\n"
          "  --order-window N        per-pixel: slots of each pixel's window, 1..16 (default 8)\n"
          , splatview_default_scene());
  fputs(
          "  --sh-degree N           highest SH degree evaluated, 0..3 (default: the scene's)\n"
          "  --sh-precision 32|16|8  bits per SH coefficient on the GPU (default 16): 8 takes a\n"
          "                          quarter of 32's memory (a scale and offset per SH band and\n"
          "                          channel over each scene), at some 54-58 dB against 16\n"
          "  --upload-threads N      CPU threads packing the scene for the GPU, 1..64 (default:\n"
          "                          the cores, at most 16)\n"
          "  --background R,G,B      background colour in 0..1 (default 0,0,0)\n"
          "  --frames N              frames to render, then exit (default: 1 headless; windowed:\n"
          "                          until the window is closed)\n"
          "  --warmup N              frames left out of the printed statistics (still in --timings;\n"
          "                          default 3 with --bench when --frames > 10, else 0); with\n"
          "                          --headless --bench the fewest warm-up frames before the\n"
          "                          --frames measured ones, which go on until the GPU frame times\n"
          "                          settle (median of the last 10 within 2% of the 10 before; at\n"
          "                          most 1000 frames or 10 s)\n"
          "  --memory-budget MIB     the most device memory scenes may take (default: the device's);\n"
          "                          a scene above it is refused and the current one stays\n"
          "  --timings FILE.csv      one row per frame: stage times in ms, visible count, raster\n"
          "                          path (compute: its stages and pairs), level-of-detail cut\n"
          "                          (nodes, threshold, time)\n"
          "  --grid                  draw an opaque reference grid under the scene, splats depth-\n"
          "                          tested against it (the path an embedding renderer takes)\n"
          "  --bench                 render a fixed orbit of --frames frames (default 300) as fast\n"
          "                          as possible (vsync off), print per-stage median/p95/max and\n"
          "                          exit; in a window or with --headless (the same orbit)\n"
          "  --screenshot FILE.png   windowed: save the last frame (without the HUD) on exit\n"
          "  --vsync on|off          windowed: start with vsync on (default) or off\n", f);
  fputs(
          "  --stream                headless: draw frames while the (one) scene loads, each part\n"
          "                          uploaded as it is decoded; prints load: lines with the time\n"
          "                          to the first part, first frame, full scene and first full\n"
          "                          frame (without it, the blocking load's load: lines)\n"
          "  --keep-until-loaded     windowed: keep drawing the current scene while a new one\n"
          "                          loads, and swap when it is complete (default: the new one\n"
          "                          fills in as it arrives)\n"
          "  --max-load-memory MIB   the most CPU memory loading a scene may take (default: the\n"
          "                          machine's); a file that asks for more is refused\n"
          "  --lod-level N           a streamed SOG bundle (lod-meta.json) loads its level N, 0..63\n"
          "                          (default 0, the finest; 1 the next coarser); a level the\n"
          "                          bundle lacks is an error; other scenes ignore it. With\n"
          "                          --convert too\n"
          "  --lod-tree pairs|splits the level-of-detail tree a scene without a .lod gets: pairs\n"
          "                          (default up to 32M splats) merges nearest neighbours cheapest\n"
          "                          first, 2 a node\n"
          "                          (about as many interior nodes as splats); splits cuts space in\n"
          "                          parts of about 7 (a seventh as many: less to keep resident when\n"
          "                          streaming). With --convert too\n"
          "  --convert IN OUT        load IN (any scene SCENE can be) and write it to\n"
          "                          OUT as a 3DGS .ply or a .spz (version 4), then exit; no GPU\n"
          "  --lod                   with --convert: build the level-of-detail tree, write the scene\n"
          "                          in its order to OUT and the tree beside it to OUT.lod. Else:\n"
          "                          draw each scene as a level-of-detail cut, coarse merged splats\n"
          "                          far away: its tree read from SCENE.lod, or built at load (on\n"
          "                          every core). A scene with a SCENE.lod is drawn so without --lod\n"
          "  --no-lod                draw every splat of every scene, ignoring SCENE.lod files\n"
          "  --budget N              level of detail: about N nodes a frame (N >= 1), the cut's\n"
          "                          threshold steered on the GPU to it; implies --lod\n"
          "  --lod-threshold T       level of detail: keep a node once its projected error (its\n"
          "                          merge's error x the square root of its size in pixels,\n"
          "                          docs/lod.md) is at most T (> 0; default 1); not with --budget\n"
          "  --lod-blend B           level of detail: a node that has just replaced its parent fades\n"
          "                          in from the parent's look over B x the threshold (>= 0; default\n"
          "                          0.5; 0: levels switch at once)\n"
          "  --help                  this text\n"
          "\n"
          "keys (window): left drag orbit, right/middle drag pan, wheel zoom; Tab orbit/fly;\n"
          "  W A S D Q E move in fly mode (Shift faster, mouse look while left button held,\n"
          "  wheel sets the speed); F frame the scene; U cycle the up axis (the scene's, -Y,\n"
          "  +Y, +Z); 1-9 / PageUp / PageDown cameras from --cameras (or the cameras.json\n"
          "  beside the scene); O cycle the sort (auto, onesweep,\n"
          "  radix16, merge, quaternary: those the device runs); K cycle key bits 32/24/16;\n"
          "  R raster graphics/compute (not with --grid); L order global/per-pixel; V vsync on/off;\n"
          "  H hide the HUD; P screenshot (splatview-NNNN.png, without the HUD); N select the\n"
          "  next object, arrow keys move it on the screen (Shift+Up/Down: away / towards); drop\n"
          "  a .ply/.splat/.spz/\n"
          "  .sog file, a SOG folder or its meta.json on the window to open it in place of the\n"
          "  scene(s), with Shift held to add it as another object; Esc quit.\n"
          "\n"
          "environment: SPLATSORT_VALIDATION=1 enables the Khronos validation layer (any message\n"
          "makes splatview exit with status 1); SPLATSORT_DEVICE=N picks a device.\n", f);
}

const char *splatview_default_scene(void) { return SPLATVIEW_ASSET_DIR "/leica-sofort.ply"; }

static int parse_floats(const char *s, float *out, int n) {
  for (int i = 0; i < n; i++) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* within a float's range: 1e300 would become infinity */
    if (end == s || errno || !isfinite(v) || fabs(v) > FLT_MAX) return -1;
    out[i] = (float)v;
    if (i + 1 < n) {
      if (*end != ',') return -1;
      s = end + 1;
    } else if (*end) {
      return -1;
    }
  }
  return 0;
}

static int parse_uint(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  char *end;
  errno = 0;
  /* digits only: strtoul skips leading blanks and takes a sign (' -1' would wrap to the largest) */
  if (!isdigit((unsigned char)*s)) return -1;
  unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end || errno || v < lo || v > hi) return -1;
  *out = (uint32_t)v;
  return 0;
}

/* 0..hi into an int field (the fields where -1 means "none given"). */
static int parse_index(const char *s, uint32_t hi, int *out) {
  uint32_t u;
  if (parse_uint(s, 0, hi, &u)) return -1;
  *out = (int)u;
  return 0;
}

/* Long-only options: values above every character. */
enum {
  OPT_HEADLESS = 256, OPT_BENCH, OPT_GRID, OPT_OUT, OPT_SCREENSHOT, OPT_TIMINGS, OPT_CAMERAS, OPT_SIZE, OPT_CAMERA, OPT_EYE,
  OPT_TARGET, OPT_UP, OPT_FOVY, OPT_SORT, OPT_KEY_BITS, OPT_SH_DEGREE, OPT_BACKGROUND, OPT_FRAMES, OPT_WARMUP, OPT_MEMORY_BUDGET,
  OPT_VSYNC, OPT_KEY_MODE, OPT_RASTER, OPT_ANTIALIAS, OPT_CONVERT, OPT_SH_PRECISION, OPT_UPLOAD_THREADS,
  OPT_STREAM, OPT_KEEP_UNTIL_LOADED, OPT_MAX_LOAD_MEMORY, OPT_ORDER, OPT_ORDER_WINDOW, OPT_LOD, OPT_NO_LOD,
  OPT_BUDGET, OPT_LOD_THRESHOLD, OPT_LOD_BLEND, OPT_LOD_LEVEL, OPT_LOD_TREE,
};

/* The flags first, then the options that take a value. */
static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'}, {"headless", no_argument, NULL, OPT_HEADLESS},
    {"bench", no_argument, NULL, OPT_BENCH}, {"grid", no_argument, NULL, OPT_GRID},
    {"stream", no_argument, NULL, OPT_STREAM}, {"keep-until-loaded", no_argument, NULL, OPT_KEEP_UNTIL_LOADED},
    {"out", required_argument, NULL, OPT_OUT}, {"screenshot", required_argument, NULL, OPT_SCREENSHOT},
    {"timings", required_argument, NULL, OPT_TIMINGS}, {"cameras", required_argument, NULL, OPT_CAMERAS},
    {"size", required_argument, NULL, OPT_SIZE}, {"camera", required_argument, NULL, OPT_CAMERA},
    {"eye", required_argument, NULL, OPT_EYE}, {"target", required_argument, NULL, OPT_TARGET},
    {"up", required_argument, NULL, OPT_UP}, {"fovy", required_argument, NULL, OPT_FOVY},
    {"sort", required_argument, NULL, OPT_SORT}, {"key-bits", required_argument, NULL, OPT_KEY_BITS},
    {"sh-degree", required_argument, NULL, OPT_SH_DEGREE}, {"background", required_argument, NULL, OPT_BACKGROUND},
    {"frames", required_argument, NULL, OPT_FRAMES}, {"warmup", required_argument, NULL, OPT_WARMUP},
    {"memory-budget", required_argument, NULL, OPT_MEMORY_BUDGET},
    {"vsync", required_argument, NULL, OPT_VSYNC}, {"key-mode", required_argument, NULL, OPT_KEY_MODE},
    {"raster", required_argument, NULL, OPT_RASTER}, {"antialias", required_argument, NULL, OPT_ANTIALIAS},
    {"convert", required_argument, NULL, OPT_CONVERT}, {"sh-precision", required_argument, NULL, OPT_SH_PRECISION},
    {"upload-threads", required_argument, NULL, OPT_UPLOAD_THREADS},
    {"max-load-memory", required_argument, NULL, OPT_MAX_LOAD_MEMORY},
    {"order", required_argument, NULL, OPT_ORDER}, {"order-window", required_argument, NULL, OPT_ORDER_WINDOW},
    {"lod", no_argument, NULL, OPT_LOD}, {"no-lod", no_argument, NULL, OPT_NO_LOD},
    {"budget", required_argument, NULL, OPT_BUDGET}, {"lod-threshold", required_argument, NULL, OPT_LOD_THRESHOLD},
    {"lod-blend", required_argument, NULL, OPT_LOD_BLEND}, {"lod-level", required_argument, NULL, OPT_LOD_LEVEL},
    {"lod-tree", required_argument, NULL, OPT_LOD_TREE},
    {NULL, 0, NULL, 0},
};

/* What the checks after the last argument need to know about the command line. */
typedef struct parse_state {
  bool have_target, frames_given, warmup_given;
  const char *other_option; /* the first option that is not --convert, --lod or --help */
  bool lod, no_lod;         /* --lod, --no-lod given */
  const char *lod_setting;  /* the first of --budget, --lod-threshold, --lod-blend given */
} parse_state;

/* Writes the message into err and returns -1, so each check is one statement. */
__attribute__((format(printf, 3, 4))) static int refuse(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return -1;
}

static const char *option_name(int val) {
  for (const struct option *p = long_options; p->name; p++)
    if (p->val == val) return p->name;
  return "?";
}

static void set_defaults(splatview_options *o) {
  memset(o, 0, sizeof *o);
  o->width = 1280;
  o->height = 720;
  o->camera_index = -1;
  o->up[1] = -1.0f;
  o->fovy = 50.0f;
  o->sort = SPLATSORT_ALGORITHM_AUTO;
  o->key_bits = 32;
  o->sh_degree = SPLAT_SH_DEGREE_SCENE;
  o->vsync = true;
  o->lod_blend = SPLAT_LOD_BLEND_DEFAULT;
}

/* --size, --camera, --eye/--target/--up, --fovy. Returns 1 for an option that is not one of them. */
static int parse_view_value(int opt, const char *v, splatview_options *o, parse_state *st, char *err, size_t n) {
  uint32_t w, h;
  switch (opt) {
  case OPT_SIZE: {
    /* each side parsed on its own and range-checked: sscanf's %u wraps 4294967297 to 1 */
    char side[32];
    const char *x = strchr(v, 'x');
    size_t wl = x ? (size_t)(x - v) : 0;
    int bad = !x || wl == 0 || wl >= sizeof side;
    if (!bad) {
      memcpy(side, v, wl);
      side[wl] = 0;
      bad = parse_uint(side, 1, SPLATVIEW_MAX_SIDE, &w) || parse_uint(x + 1, 1, SPLATVIEW_MAX_SIDE, &h);
    }
    if (bad) return refuse(err, n, "--size '%s': expected WxH with each in 1..16384, e.g. 1920x1080", v);
  }
    o->width = w;
    o->height = h;
    o->size_given = true;
    return 0;
  case OPT_CAMERA:
    if (parse_index(v, 1000000, &o->camera_index))
      return refuse(err, n, "--camera '%s': expected a camera index (0, 1, ...)", v);
    return 0;
  case OPT_EYE:
  case OPT_TARGET:
  case OPT_UP:
    if (parse_floats(v, opt == OPT_EYE ? o->eye : opt == OPT_TARGET ? o->target : o->up, 3))
      return refuse(err, n, "--%s '%s': expected three numbers X,Y,Z", option_name(opt), v);
    if (opt == OPT_EYE) o->have_eye = true;
    if (opt == OPT_TARGET) st->have_target = true;
    if (opt == OPT_UP && o->up[0] == 0.0f && o->up[1] == 0.0f && o->up[2] == 0.0f)
      return refuse(err, n, "--up '%s': expected a direction, not 0,0,0", v);
    if (opt == OPT_UP) o->have_up = true;
    return 0;
  case OPT_FOVY:
    if (parse_floats(v, &o->fovy, 1) || o->fovy <= 0.0f || o->fovy >= 180.0f)
      return refuse(err, n, "--fovy '%s': expected degrees in (0, 180)", v);
    return 0;
  }
  return 1;
}

static bool in_unit_range(const float c[3]) {
  return c[0] >= 0 && c[0] <= 1 && c[1] >= 0 && c[1] <= 1 && c[2] >= 0 && c[2] <= 1;
}

/* --sort, --key-bits, --key-mode, --raster, --antialias, --sh-degree, --sh-precision, --upload-threads,
 * --background, --frames, --warmup, --vsync. Returns 1 for an option that is not one of them. */
static int parse_render_value(int opt, const char *v, splatview_options *o, parse_state *st, char *err, size_t n) {
  switch (opt) {
  case OPT_SORT:
    if (!splatsort_algorithm_from_name(v, &o->sort))
      return refuse(err, n, "--sort '%s': expected auto, onesweep, radix16, merge or quaternary", v);
    return 0;
  case OPT_KEY_BITS:
    if (parse_uint(v, 16, 32, &o->key_bits) || (o->key_bits != 16 && o->key_bits != 24 && o->key_bits != 32))
      return refuse(err, n, "--key-bits '%s': expected 16, 24 or 32", v);
    return 0;
  case OPT_KEY_MODE:
    if (!strcmp(v, "depth")) o->key_mode = SPLATSORT_DEPTH_KEY_VIEW_DEPTH;
    else if (!strcmp(v, "radial")) o->key_mode = SPLATSORT_DEPTH_KEY_RADIAL;
    else return refuse(err, n, "--key-mode '%s': expected depth or radial", v);
    return 0;
  case OPT_RASTER:
    if (!strcmp(v, "graphics")) o->raster = SPLATVIEW_RASTER_GRAPHICS;
    else if (!strcmp(v, "compute")) o->raster = SPLATVIEW_RASTER_COMPUTE;
    else if (!strcmp(v, "auto")) o->raster = SPLATVIEW_RASTER_AUTO;
    else return refuse(err, n, "--raster '%s': expected graphics, compute or auto", v);
    return 0;
  case OPT_ANTIALIAS:
    if (!strcmp(v, "on")) o->antialias = SPLAT_ANTIALIAS_ON;
    else if (!strcmp(v, "off")) o->antialias = SPLAT_ANTIALIAS_OFF;
    else if (!strcmp(v, "auto")) o->antialias = SPLAT_ANTIALIAS_AUTO;
    else return refuse(err, n, "--antialias '%s': expected on, off or auto", v);
    return 0;
  case OPT_ORDER:
    if (!strcmp(v, "global")) o->order = SPLAT_ORDER_GLOBAL;
    else if (!strcmp(v, "per-pixel")) o->order = SPLAT_ORDER_PER_PIXEL;
    else return refuse(err, n, "--order '%s': expected global or per-pixel", v);
    return 0;
  case OPT_ORDER_WINDOW:
    if (parse_uint(v, 1, SPLAT_ORDER_WINDOW_MAX, &o->order_window))
      return refuse(err, n, "--order-window '%s': expected 1..%d slots", v, SPLAT_ORDER_WINDOW_MAX);
    return 0;
  case OPT_SH_DEGREE:
    if (parse_index(v, 3, &o->sh_degree)) return refuse(err, n, "--sh-degree '%s': expected 0, 1, 2 or 3", v);
    o->sh_degree = SPLAT_SH_DEGREE(o->sh_degree); /* 0 included: degree 0 alone */
    return 0;
  case OPT_SH_PRECISION:
    if (strcmp(v, "32") && strcmp(v, "16") && strcmp(v, "8"))
      return refuse(err, n, "--sh-precision '%s': expected 32, 16 or 8 (bits per SH coefficient)", v);
    o->sh_precision = (uint32_t)atoi(v);
    return 0;
  case OPT_UPLOAD_THREADS:
    if (parse_uint(v, 1, SPLAT_MAX_UPLOAD_THREADS, &o->upload_threads))
      return refuse(err, n, "--upload-threads '%s': expected 1..%d", v, SPLAT_MAX_UPLOAD_THREADS);
    return 0;
  case OPT_BACKGROUND:
    if (parse_floats(v, o->background, 3) || !in_unit_range(o->background))
      return refuse(err, n, "--background '%s': expected R,G,B each in 0..1", v);
    return 0;
  case OPT_FRAMES:
    st->frames_given = true;
    if (parse_uint(v, 1, 10000000, &o->frames)) return refuse(err, n, "--frames '%s': expected a positive number", v);
    return 0;
  case OPT_MEMORY_BUDGET:
    if (parse_uint(v, 1, 16u << 20, &o->memory_budget_mib))
      return refuse(err, n, "--memory-budget '%s': expected MiB in 1..16777216", v);
    return 0;
  case OPT_MAX_LOAD_MEMORY:
    if (parse_uint(v, 1, 1u << 30, &o->max_load_memory_mib))
      return refuse(err, n, "--max-load-memory '%s': expected MiB in 1..1073741824", v);
    return 0;
  case OPT_LOD_LEVEL:
    if (parse_uint(v, 0, 63, &o->lod_level))
      return refuse(err, n, "--lod-level '%s': expected a level 0..63 of a streamed SOG bundle (0: the finest)", v);
    return 0;
  case OPT_LOD_TREE:
    if (strcmp(v, "pairs") && strcmp(v, "splits"))
      return refuse(err, n, "--lod-tree '%s': expected pairs or splits", v);
    o->lod_tree = strcmp(v, "pairs") ? SPLAT_LOD_SPLITS : SPLAT_LOD_PAIRS;
    return 0;
  case OPT_WARMUP:
    st->warmup_given = true;
    if (parse_uint(v, 0, 10000000, &o->warmup)) return refuse(err, n, "--warmup '%s': expected a number of frames", v);
    return 0;
  case OPT_VSYNC:
    if (strcmp(v, "on") && strcmp(v, "off")) return refuse(err, n, "--vsync '%s': expected on or off", v);
    o->vsync = !strcmp(v, "on");
    return 0;
  }
  return 1;
}

/* --budget, --lod-threshold, --lod-blend. Returns 1 for an option that is not one of them. */
static int parse_lod_value(int opt, const char *v, splatview_options *o, parse_state *st, char *err, size_t n) {
  switch (opt) {
  case OPT_BUDGET:
    if (parse_uint(v, 1, UINT32_MAX, &o->lod_budget))
      return refuse(err, n, "--budget '%s': expected a number of nodes in 1..%u", v, UINT32_MAX);
    break;
  case OPT_LOD_THRESHOLD:
    if (parse_floats(v, &o->lod_threshold, 1) || !(o->lod_threshold > 0.0f))
      return refuse(err, n, "--lod-threshold '%s': expected a threshold above 0 (e.g. 1.5)", v);
    break;
  case OPT_LOD_BLEND:
    if (parse_floats(v, &o->lod_blend, 1) || !(o->lod_blend >= 0.0f) || !isfinite(o->lod_blend))
      return refuse(err, n, "--lod-blend '%s': expected a number >= 0 (0: no blending)", v);
    if (o->lod_blend == 0.0f) o->lod_blend = SPLAT_LOD_BLEND_NONE;
    break;
  default:
    return 1;
  }
  if (!st->lod_setting) st->lod_setting = option_name(opt);
  return 0;
}

static int set_scene(splatview_options *o, const char *path, char *err, size_t n) {
  if (o->scene_count == SPLATVIEW_MAX_SCENES)
    return refuse(err, n, "more than %d scenes given ('%s' is one too many)", SPLATVIEW_MAX_SCENES, path);
  o->scenes[o->scene_count++] = path;
  o->scene = o->scenes[0];
  return 0;
}

/* One getopt_long result: an option, the SCENE (1), a missing value (':') or an unknown
 * option ('?'). */
static int apply(int opt, char **argv, splatview_options *o, parse_state *st, char *err, size_t n) {
  if (opt != 1 && opt != ':' && opt != '?' && opt != 'h' && opt != OPT_CONVERT && opt != OPT_LOD &&
      opt != OPT_LOD_LEVEL && opt != OPT_LOD_TREE && !st->other_option)
    st->other_option = option_name(opt);
  switch (opt) {
  case 1: return set_scene(o, optarg, err, n);
  case ':': return refuse(err, n, "--%s needs a value (see --help)", option_name(optopt));
  case '?': /* optopt: the character of an unknown short option, else 0 or a long option's value */
    if (optopt > 0 && optopt < 256) return refuse(err, n, "unknown option '-%c' (see --help)", optopt);
    return refuse(err, n, "unknown option '%s' (see --help)", argv[optind - 1]);
  case 'h': o->help = true; return 0;
  case OPT_HEADLESS: o->headless = true; return 0;
  case OPT_BENCH: o->bench = true; return 0;
  case OPT_GRID: o->grid = true; return 0;
  case OPT_STREAM: o->stream = true; return 0;
  case OPT_KEEP_UNTIL_LOADED: o->keep_until_loaded = true; return 0;
  case OPT_OUT: o->out = optarg; return 0;
  case OPT_SCREENSHOT: o->screenshot = optarg; return 0;
  case OPT_TIMINGS: o->timings = optarg; return 0;
  case OPT_CAMERAS: o->cameras = optarg; return 0;
  case OPT_CONVERT: o->convert_in = optarg; return 0;
  case OPT_LOD: st->lod = true; return 0;
  case OPT_NO_LOD: st->no_lod = true; return 0;
  }
  int r = parse_view_value(opt, optarg, o, st, err, n);
  if (r > 0) r = parse_lod_value(opt, optarg, o, st, err, n);
  return r <= 0 ? r : parse_render_value(opt, optarg, o, st, err, n);
}

/* The options that depend on each other, and the defaults that depend on others. */
/* Whether --convert can write `path`: it ends in .ply or .spz, any case. */
static bool convert_target_ok(const char *path) {
  size_t n = strlen(path);
  return n > 4 && (strcasecmp(path + n - 4, ".ply") == 0 || strcasecmp(path + n - 4, ".spz") == 0);
}

/* --convert IN OUT: OUT came as the SCENE; nothing else goes with it. */
static int check_convert(splatview_options *o, const parse_state *st, char *err, size_t n) {
  if (!o->scene) return refuse(err, n, "--convert needs IN and OUT: splatview --convert IN OUT");
  if (o->scene_count > 1) return refuse(err, n, "--convert takes one IN and one OUT ('%s' is one too many)", o->scenes[1]);
  if (st->other_option) return refuse(err, n, "--convert takes no other options (--%s given)", st->other_option);
  o->convert_out = o->scene;
  o->scene = NULL;
  o->scene_count = 0;
  if (!convert_target_ok(o->convert_out))
    return refuse(err, n, "--convert: cannot write '%s': OUT must end in .ply or .spz", o->convert_out);
  return 0;
}

/* --lod, --no-lod and the cut's settings when viewing. */
static int check_lod(splatview_options *o, const parse_state *st, char *err, size_t n) {
  if (st->lod && st->no_lod) return refuse(err, n, "--lod and --no-lod: choose one");
  if (st->no_lod && st->lod_setting)
    return refuse(err, n, "--%s sets the level-of-detail cut, which --no-lod turns off: choose one", st->lod_setting);
  if (o->lod_budget && o->lod_threshold > 0.0f)
    return refuse(err, n, "--budget and --lod-threshold both set the cut's threshold (the budget steers it): "
                          "choose one");
  o->lod = st->no_lod ? SPLATVIEW_LOD_OFF : st->lod || o->lod_budget ? SPLATVIEW_LOD_ON : SPLATVIEW_LOD_AUTO;
  if (o->stream && o->lod == SPLATVIEW_LOD_ON)
    return refuse(err, n, "--stream draws the scene as it arrives, level of detail only a whole scene: not with "
                          "--%s", st->lod ? "lod" : "budget");
  return 0;
}

static int check_together(splatview_options *o, const parse_state *st, char *err, size_t n) {
  o->convert_lod = st->lod && o->convert_in;
  if (o->convert_in) return check_convert(o, st, err, n);
  if (check_lod(o, st, err, n) != 0) return -1;
  if (o->have_eye != st->have_target) return refuse(err, n, "--eye and --target go together");
  if (o->camera_index >= 0 && !o->cameras) return refuse(err, n, "--camera needs --cameras FILE.json");
  if (o->cameras && o->have_eye)
    return refuse(err, n, "--cameras and --eye/--target both give the camera: choose one");
  if (!o->scene_count) o->scene = o->scenes[o->scene_count++] = splatview_default_scene();
  if (o->order == SPLAT_ORDER_PER_PIXEL && (o->grid || o->raster == SPLATVIEW_RASTER_GRAPHICS))
    return refuse(err, n, "--order per-pixel needs the compute raster (%s)",
                  o->grid ? "--grid takes only the graphics raster" : "not --raster graphics");
  if (o->order == SPLAT_ORDER_PER_PIXEL) o->raster = SPLATVIEW_RASTER_COMPUTE; /* auto: the one that orders so */
  if (o->grid && o->raster == SPLATVIEW_RASTER_COMPUTE)
    return refuse(err, n, "--raster compute cannot be used with --grid: the grid's pass takes only the graphics "
                          "raster (use --raster graphics or auto)");
  if (o->headless && !o->out && !o->bench && !o->timings && !(st->frames_given && o->frames > 1))
    return refuse(err, n, "--headless needs --out FILE.png (or --bench / --timings)");
  if (!st->frames_given) o->frames = o->bench ? 300 : (o->headless ? 1 : 0);
  if (!st->warmup_given) o->warmup = o->bench && o->frames > 10 ? 3 : 0;
  if (o->warmup && o->warmup >= o->frames)
    return refuse(err, n, "--warmup %u: must be below --frames (%u)", o->warmup, o->frames);
  return 0;
}

int splatview_parse(int argc, char **argv, splatview_options *o, char *err, size_t n) {
  set_defaults(o);
  parse_state st = {0};
  opterr = 0; /* the messages are ours */
  optind = 0; /* glibc: a fresh scan, also when called again */
  /* "-": the arguments in command-line order (the SCENE comes back as 1), so errors are found
   * in that order whatever POSIXLY_CORRECT says; ":": a missing value comes back as ':' */
  int opt;
  while ((opt = getopt_long(argc, argv, "-:h", long_options, NULL)) != -1)
    if (apply(opt, argv, o, &st, err, n) != 0) return -1;
  for (; optind < argc; optind++) /* after "--" every argument is a SCENE */
    if (set_scene(o, argv[optind], err, n) != 0) return -1;
  if (o->help) return 0;
  return check_together(o, &st, err, n);
}
