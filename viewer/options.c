/* splatview's command line. */
#include <stdio.h>

#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void splatview_usage(FILE *f) {
  fprintf(f,
          "usage: splatview [SCENE] [options]        open a .ply / .splat scene in a window\n"
          "       splatview --headless SCENE --out frame.png [options]   render offscreen\n"
          "\n"
          "With no SCENE the bundled scene (%s) opens.\n"
          "\n"
          "options:\n"
          "  --headless              render without a window or display (GPU servers, lavapipe)\n"
          "  --out FILE.png          headless: write the last frame\n"
          "  --size WxH              image / window size (default 1280x720)\n"
          "  --cameras FILE.json     the cameras.json written by 3DGS training\n"
          "  --camera I              start at camera I of --cameras (default 0)\n"
          "  --eye X,Y,Z --target X,Y,Z [--up X,Y,Z]   look-at camera (up default 0,-1,0)\n"
          "  --fovy DEG              vertical field of view (default 50)\n"
          "  --sort quaternary|onesweep|auto   sort path (default auto)\n"
          "  --key-bits 16|24|32     depth key width (default 32)\n"
          "  --sh-degree N           highest SH degree evaluated, 0..3 (default: the scene's)\n"
          "  --background R,G,B      background colour in 0..1 (default 0,0,0)\n"
          "  --frames N              frames to render, then exit (default: 1 headless; windowed:\n"
          "                          until the window is closed)\n"
          "  --warmup N              frames left out of the printed statistics (still in --timings;\n"
          "                          default 3 with --bench when --frames > 10, else 0)\n"
          "  --timings FILE.csv      one row per frame: stage times in ms, visible count\n"
          "  --bench                 render a fixed orbit of --frames frames (default 300) as fast\n"
          "                          as possible (vsync off), print per-stage median/p95/max and\n"
          "                          exit; in a window or with --headless (the same orbit)\n"
          "  --screenshot FILE.png   windowed: save the last frame (without the HUD) on exit\n"
          "  --vsync on|off          windowed: start with vsync on (default) or off\n"
          "  --help                  this text\n"
          "\n"
          "keys (window): left drag orbit, right/middle drag pan, wheel zoom; Tab orbit/fly;\n"
          "  W A S D Q E move in fly mode (Shift faster, mouse look while left button held,\n"
          "  wheel sets the speed); F frame the scene; U cycle the up axis (-Y, +Y, +Z);\n"
          "  1-9 / PageUp / PageDown cameras from --cameras; O cycle the sort path\n"
          "  (quaternary / onesweep); K cycle key bits 32/24/16; V vsync on/off; H hide the\n"
          "  HUD; P screenshot (splatview-NNNN.png, without the HUD); drop a .ply/.splat file\n"
          "  on the window to open it; Esc quit.\n"
          "\n"
          "environment: SPLATSORT_VALIDATION=1 enables the Khronos validation layer (any message\n"
          "makes splatview exit with status 1); SPLATSORT_DEVICE=N picks a device.\n",
          splatview_default_scene());
}

const char *splatview_default_scene(void) { return SPLATVIEW_ASSET_DIR "/leica-sofort.ply"; }

static int parse_floats(const char *s, float *out, int n) {
  for (int i = 0; i < n; i++) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v)) return -1;
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
  unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end || errno || *s == '-' || v < lo || v > hi) return -1;
  *out = (uint32_t)v;
  return 0;
}

int splatview_parse(int argc, char **argv, splatview_options *o, char *err, size_t n) {
  memset(o, 0, sizeof *o);
  o->width = 1280;
  o->height = 720;
  o->camera_index = -1;
  o->up[1] = -1.0f;
  o->fovy = 50.0f;
  o->sort = SPLATSORT_ALGORITHM_AUTO;
  o->key_bits = 32;
  o->sh_degree = -1;
  o->vsync = true;
  bool have_target = false, frames_given = false, warmup_given = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                               \
  if (!v) {                                                        \
    snprintf(err, n, "%s needs a value (see --help)", a);          \
    return -1;                                                     \
  }                                                                \
  i++;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      o->help = true;
    } else if (!strcmp(a, "--headless")) {
      o->headless = true;
    } else if (!strcmp(a, "--bench")) {
      o->bench = true;
    } else if (!strcmp(a, "--out")) {
      NEED_VALUE();
      o->out = v;
    } else if (!strcmp(a, "--screenshot")) {
      NEED_VALUE();
      o->screenshot = v;
    } else if (!strcmp(a, "--timings")) {
      NEED_VALUE();
      o->timings = v;
    } else if (!strcmp(a, "--cameras")) {
      NEED_VALUE();
      o->cameras = v;
    } else if (!strcmp(a, "--size")) {
      NEED_VALUE();
      unsigned w, h;
      char tail;
      if (sscanf(v, "%ux%u%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384) {
        snprintf(err, n, "--size '%s': expected WxH with each in 1..16384, e.g. 1920x1080", v);
        return -1;
      }
      o->width = w;
      o->height = h;
      o->size_given = true;
    } else if (!strcmp(a, "--camera")) {
      NEED_VALUE();
      uint32_t c;
      if (parse_uint(v, 0, 1000000, &c)) {
        snprintf(err, n, "--camera '%s': expected a camera index (0, 1, ...)", v);
        return -1;
      }
      o->camera_index = (int)c;
    } else if (!strcmp(a, "--eye") || !strcmp(a, "--target") || !strcmp(a, "--up")) {
      NEED_VALUE();
      float *dst = a[2] == 'e' ? o->eye : a[2] == 't' ? o->target : o->up;
      if (parse_floats(v, dst, 3)) {
        snprintf(err, n, "%s '%s': expected three numbers X,Y,Z", a, v);
        return -1;
      }
      if (a[2] == 'e') o->have_eye = true;
      if (a[2] == 't') have_target = true;
    } else if (!strcmp(a, "--fovy")) {
      NEED_VALUE();
      if (parse_floats(v, &o->fovy, 1) || o->fovy <= 0.0f || o->fovy >= 180.0f) {
        snprintf(err, n, "--fovy '%s': expected degrees in (0, 180)", v);
        return -1;
      }
    } else if (!strcmp(a, "--sort")) {
      NEED_VALUE();
      if (!strcmp(v, "quaternary")) o->sort = SPLATSORT_ALGORITHM_QUATERNARY;
      else if (!strcmp(v, "onesweep")) o->sort = SPLATSORT_ALGORITHM_ONESWEEP;
      else if (!strcmp(v, "auto")) o->sort = SPLATSORT_ALGORITHM_AUTO;
      else {
        snprintf(err, n, "--sort '%s': expected quaternary, onesweep or auto", v);
        return -1;
      }
    } else if (!strcmp(a, "--key-bits")) {
      NEED_VALUE();
      if (parse_uint(v, 16, 32, &o->key_bits) || (o->key_bits != 16 && o->key_bits != 24 && o->key_bits != 32)) {
        snprintf(err, n, "--key-bits '%s': expected 16, 24 or 32", v);
        return -1;
      }
    } else if (!strcmp(a, "--sh-degree")) {
      NEED_VALUE();
      uint32_t d;
      if (parse_uint(v, 0, 3, &d)) {
        snprintf(err, n, "--sh-degree '%s': expected 0, 1, 2 or 3", v);
        return -1;
      }
      o->sh_degree = (int)d;
    } else if (!strcmp(a, "--background")) {
      NEED_VALUE();
      if (parse_floats(v, o->background, 3) || o->background[0] < 0 || o->background[0] > 1 ||
          o->background[1] < 0 || o->background[1] > 1 || o->background[2] < 0 || o->background[2] > 1) {
        snprintf(err, n, "--background '%s': expected R,G,B each in 0..1", v);
        return -1;
      }
    } else if (!strcmp(a, "--frames")) {
      NEED_VALUE();
      if (parse_uint(v, 1, 10000000, &o->frames)) {
        snprintf(err, n, "--frames '%s': expected a positive number", v);
        return -1;
      }
      frames_given = true;
    } else if (!strcmp(a, "--warmup")) {
      NEED_VALUE();
      if (parse_uint(v, 0, 10000000, &o->warmup)) {
        snprintf(err, n, "--warmup '%s': expected a number of frames", v);
        return -1;
      }
      warmup_given = true;
    } else if (!strcmp(a, "--vsync")) {
      NEED_VALUE();
      if (strcmp(v, "on") && strcmp(v, "off")) {
        snprintf(err, n, "--vsync '%s': expected on or off", v);
        return -1;
      }
      o->vsync = !strcmp(v, "on");
    } else if (a[0] == '-' && a[1]) {
      snprintf(err, n, "unknown option '%s' (see --help)", a);
      return -1;
    } else if (o->scene) {
      snprintf(err, n, "more than one scene given ('%s' and '%s')", o->scene, a);
      return -1;
    } else {
      o->scene = a;
    }
#undef NEED_VALUE
  }
  if (o->help) return 0;
  if (o->have_eye != have_target) {
    snprintf(err, n, "--eye and --target go together");
    return -1;
  }
  if (o->camera_index >= 0 && !o->cameras) {
    snprintf(err, n, "--camera needs --cameras FILE.json");
    return -1;
  }
  if (o->cameras && o->have_eye) {
    snprintf(err, n, "--cameras and --eye/--target both give the camera: choose one");
    return -1;
  }
  if (o->headless && !o->scene) {
    snprintf(err, n, "--headless needs a SCENE file");
    return -1;
  }
  if (o->headless && !o->out && !o->bench && !o->timings && !(frames_given && o->frames > 1)) {
    snprintf(err, n, "--headless needs --out FILE.png (or --bench / --timings)");
    return -1;
  }
  if (!frames_given) o->frames = o->bench ? 300 : (o->headless ? 1 : 0);
  if (!warmup_given) o->warmup = o->bench && o->frames > 10 ? 3 : 0;
  if (o->warmup && o->warmup >= o->frames) {
    snprintf(err, n, "--warmup %u: must be below --frames (%u)", o->warmup, o->frames);
    return -1;
  }
  return 0;
}
