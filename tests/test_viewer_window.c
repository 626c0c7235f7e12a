/* test_viewer_window.c: runs splatview in a window under Xvfb (lavapipe) and checks that what
 * it rendered equals the headless renderer's image of the same camera, that it exits 0 (so
 * with SPLATSORT_VALIDATION=1 the validation layer said nothing, every object destroyed) and
 * that --timings writes one row per frame.
 *
 *   test_viewer_window SPLATVIEW SCENE OUTDIR [GEN_SCENE XDND_DROP]
 *
 * With GEN_SCENE and XDND_DROP (built where Xlib is installed) it also drops files on the
 * window: a generated scene, which must open, then a broken file, which must be reported
 * (naming the file) while the generated scene stays.
 * Exit 0 pass, 1 fail, 77 skip (xvfb-run not installed). Images and diffs stay in OUTDIR. */
#include "image.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb_image.h>

extern char **environ;

#define PSNR_MIN 40.0

static int failures;

static int on_path(const char *name) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  char dir[4096];
  while (*path) {
    size_t n = strcspn(path, ":");
    if (n && n + strlen(name) + 2 < sizeof dir) {
      snprintf(dir, sizeof dir, "%.*s/%s", (int)n, path, name);
      if (access(dir, X_OK) == 0) return 1;
    }
    path += n + (path[n] == ':');
  }
  return 0;
}

/* Runs argv (searched on PATH), returns its exit status, or -1 when it did not exit. */
static int run(char *const argv[]) {
  fprintf(stderr, "$");
  for (int i = 0; argv[i]; i++) fprintf(stderr, " %s", argv[i]);
  fprintf(stderr, "\n");
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0) {
    perror(argv[0]);
    return -1;
  }
  int status;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void expect_status(int got, int want, const char *what) {
  if (got != want) {
    fprintf(stderr, "FAIL: %s exited with %d, expected %d\n", what, got, want);
    failures++;
  }
}

static uint8_t *load(const char *path, int *w, int *h) {
  int n;
  uint8_t *p = stbi_load(path, w, h, &n, 4);
  if (!p) {
    fprintf(stderr, "FAIL: cannot read %s (%s)\n", path, stbi_failure_reason());
    failures++;
  }
  return p;
}

static void compare(const char *dir, const char *a_name, const char *b_name, int want_w, int want_h) {
  char a_path[4096], b_path[4096], diff[4096];
  snprintf(a_path, sizeof a_path, "%s/%s", dir, a_name);
  snprintf(b_path, sizeof b_path, "%s/%s", dir, b_name);
  snprintf(diff, sizeof diff, "%s/diff_%s", dir, a_name);
  int aw, ah, bw, bh;
  uint8_t *a = load(a_path, &aw, &ah), *b = load(b_path, &bw, &bh);
  if (a && b) {
    if (aw != want_w || ah != want_h || bw != want_w || bh != want_h) {
      fprintf(stderr, "FAIL: %s is %dx%d and %s %dx%d, expected %dx%d\n", a_name, aw, ah, b_name, bw, bh, want_w,
              want_h);
      failures++;
    } else if (image_is_blank(a, (uint32_t)aw, (uint32_t)ah)) {
      fprintf(stderr, "FAIL: %s is blank\n", a_path);
      failures++;
    } else {
      double psnr = image_psnr(a, b, (uint32_t)aw, (uint32_t)ah);
      printf("%s vs %s: PSNR %.2f dB (threshold %.0f)\n", a_name, b_name, psnr, PSNR_MIN);
      if (psnr < PSNR_MIN) {
        image_write_diff_png(diff, a, b, (uint32_t)aw, (uint32_t)ah);
        fprintf(stderr, "FAIL: %s differs from %s (diff: %s)\n", a_name, b_name, diff);
        failures++;
      }
    }
  }
  stbi_image_free(a);
  stbi_image_free(b);
}

/* The CSV has a header and rows for frames 0..frames-1 in order. */
static void check_csv(const char *path, unsigned frames) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "FAIL: %s was not written\n", path);
    failures++;
    return;
  }
  char line[512];
  unsigned rows = 0;
  int header = fgets(line, sizeof line, f) && !strncmp(line, "frame,projection_ms,", 20);
  while (fgets(line, sizeof line, f)) {
    unsigned frame;
    double p, s, r, t;
    if (sscanf(line, "%u,%lf,%lf,%lf,%lf,", &frame, &p, &s, &r, &t) != 5 || frame != rows || !(t > 0.0)) {
      fprintf(stderr, "FAIL: %s row %u: '%s'\n", path, rows, line);
      failures++;
      break;
    }
    rows++;
  }
  fclose(f);
  if (!header || rows != frames) {
    fprintf(stderr, "FAIL: %s: header %s, %u rows, expected %u\n", path, header ? "ok" : "missing", rows, frames);
    failures++;
  }
}

static int file_contains(const char *path, const char *needle) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  fputs(buf, stderr); /* into the test log */
  return strstr(buf, needle) != NULL;
}

/* 4. drag and drop: a generated scene opens, then a broken file is reported and the generated
 * scene stays; the last frame must equal the headless render of the generated scene from the
 * default view (a drop frames the new scene as the start view does). */
static void test_drop(char *sv, const char *dir, char *gen, char *xdnd) {
  char scene[4096], broken[4096], shot[4096], head[4096], out[4096], err[4096];
  snprintf(scene, sizeof scene, "%s/dropped.ply", dir);
  snprintf(broken, sizeof broken, "%s/broken.ply", dir);
  snprintf(shot, sizeof shot, "%s/window_drop.png", dir);
  snprintf(head, sizeof head, "%s/headless_drop.png", dir);
  snprintf(out, sizeof out, "%s/drop_stdout.txt", dir);
  snprintf(err, sizeof err, "%s/drop_stderr.txt", dir);
  remove(shot);
  char *gen_args[] = {gen, "--count", "3000", "--sh-degree", "1", "--seed", "11", "--out", scene, NULL};
  expect_status(run(gen_args), 0, "gen_scene");
  FILE *f = fopen(broken, "wb");
  if (!f) {
    fprintf(stderr, "FAIL: cannot write %s\n", broken);
    failures++;
    return;
  }
  /* a header promising 100 splats and no data after it */
  fputs("ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\nproperty float y\n"
        "property float z\nend_header\n", f);
  fclose(f);
  /* splatview with no SCENE (the bundled one) in the background, the drops and the close
   * from xdnd_drop, on one X server */
  char script[] = "\"$1\" --size 320x240 --screenshot \"$2\" >\"$3\" 2>\"$4\" & p=$!; "
                  "\"$5\" --close splatview \"$6\" \"$7\"; d=$?; [ $d -eq 0 ] || kill $p; wait $p; s=$?; "
                  "[ $d -eq 0 ] || { echo \"xdnd_drop failed ($d)\" >&2; exit 98; }; exit $s";
  char *args[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24", "sh", "-c", script, "sh", sv, shot, out, err,
                  xdnd, scene, broken, NULL};
  expect_status(run(args), 0, "windowed with drops");
  if (!file_contains(out, "opened ")) {
    fprintf(stderr, "FAIL: splatview did not report opening the dropped scene\n");
    failures++;
  }
  if (!file_contains(err, "broken.ply")) {
    fprintf(stderr, "FAIL: splatview did not report the broken file by name on stderr\n");
    failures++;
  }
  char *head_args[] = {sv, "--headless", scene, "--size", "320x240", "--out", head, NULL};
  expect_status(run(head_args), 0, "headless, dropped scene");
  compare(dir, "window_drop.png", "headless_drop.png", 320, 240);
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 6) {
    fprintf(stderr, "usage: test_viewer_window SPLATVIEW SCENE OUTDIR [GEN_SCENE XDND_DROP]\n");
    return 1;
  }
  if (!on_path("xvfb-run")) {
    printf("SKIP: xvfb-run is not installed (apt-get install xvfb xauth)\n");
    return 77;
  }
  char *sv = argv[1], *scene = argv[2];
  const char *dir = argv[3];
  char win_png[4096], head_png[4096], csv[4096], cams[4096], win_cam[4096], head_cam[4096];
  snprintf(win_png, sizeof win_png, "%s/window_bench.png", dir);
  snprintf(head_png, sizeof head_png, "%s/headless_bench.png", dir);
  snprintf(csv, sizeof csv, "%s/window_timings.csv", dir);
  snprintf(cams, sizeof cams, "%s/cameras.json", dir);
  snprintf(win_cam, sizeof win_cam, "%s/window_camera.png", dir);
  snprintf(head_cam, sizeof head_cam, "%s/headless_camera.png", dir);
  remove(win_png);
  remove(csv);
  remove(win_cam);

  /* 1. --bench: the same fixed orbit in a window and headless; the last frames must match */
  char *xvfb[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24"};
  char *win1[] = {xvfb[0], xvfb[1], xvfb[2], xvfb[3], sv, scene, "--bench", "--frames", "3", "--size", "320x240",
                  "--screenshot", win_png, "--timings", csv, NULL};
  expect_status(run(win1), 0, "windowed --bench");
  char *head1[] = {sv, "--headless", scene, "--bench", "--frames", "3", "--size", "320x240", "--out", head_png, NULL};
  expect_status(run(head1), 0, "headless --bench");
  compare(dir, "window_bench.png", "headless_bench.png", 320, 240);
  check_csv(csv, 3);

  /* 2. the interactive path (no --bench, HUD drawn) starting at a cameras.json camera:
   * the window's size has the training camera's aspect, so both render the same camera */
  FILE *f = fopen(cams, "w");
  if (!f) {
    fprintf(stderr, "FAIL: cannot write %s\n", cams);
    return 1;
  }
  /* two cameras looking along +z (world y down) at the bundled scene's middle */
  fprintf(f, "[{\"id\": 0, \"img_name\": \"a\", \"width\": 640, \"height\": 480, \"position\": [-1.7, 1.9, -4],"
             " \"rotation\": [[1,0,0],[0,1,0],[0,0,1]], \"fx\": 600, \"fy\": 600},\n"
             " {\"id\": 1, \"img_name\": \"b\", \"width\": 640, \"height\": 480, \"position\": [-1.2, 1.5, -2],"
             " \"rotation\": [[1,0,0],[0,1,0],[0,0,1]], \"fx\": 500, \"fy\": 520}]\n");
  fclose(f);
  char *win2[] = {xvfb[0], xvfb[1], xvfb[2], xvfb[3], sv, scene, "--cameras", cams, "--camera", "1", "--frames", "2",
                  "--size", "320x240", "--key-bits", "24", "--screenshot", win_cam, NULL};
  expect_status(run(win2), 0, "windowed, cameras.json");
  char *head2[] = {sv, "--headless", scene, "--cameras", cams, "--camera", "1", "--size", "320x240",
                   "--key-bits", "24", "--out", head_cam, NULL};
  expect_status(run(head2), 0, "headless, cameras.json");
  compare(dir, "window_camera.png", "headless_camera.png", 320, 240);

  /* 3. a scene that does not load: a clear failure, not a crash */
  char *win3[] = {xvfb[0], xvfb[1], xvfb[2], xvfb[3], sv, "/nonexistent/scene.ply", "--frames", "1", NULL};
  expect_status(run(win3), 1, "windowed, missing scene");

  if (argc == 6) test_drop(sv, dir, argv[4], argv[5]);

  if (failures) {
    fprintf(stderr, "test_viewer_window: %d failures\n", failures);
    return 1;
  }
  printf("test_viewer_window: passed\n");
  return 0;
}
