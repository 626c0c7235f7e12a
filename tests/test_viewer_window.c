/* test_viewer_window.c: runs splatview in a window under Xvfb (lavapipe) and checks that what
 * it rendered equals the headless renderer's image of the same camera, that it exits 0 (so
 * with SPLATSORT_VALIDATION=1 the validation layer said nothing, every object destroyed) and
 * that --timings writes one row per frame.
 *
 *   test_viewer_window SPLATVIEW SCENE OUTDIR [GEN_SCENE XDND_DROP]
 *   test_viewer_window --load SPLATVIEW SCENE OUTDIR GEN_SCENE XDND_DROP
 *
 * With GEN_SCENE and XDND_DROP (built where Xlib is installed) it also drops files on the
 * window: a generated scene, which must open, then a broken file, which must be reported
 * (naming the file) while the generated scene stays. With --load it checks only loading in
 * the background (test_load).
 * Exit 0 pass, 1 fail, 77 skip (xvfb-run not installed). Images and diffs stay in OUTDIR. */
#include "check.h"
#include "image.h"

#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb_image.h>

extern char **environ;

#define PSNR_MIN 40.0

/* A path in the output folder. */
typedef struct path_buf {
  char s[4096];
} path_buf;

static path_buf in_dir(const char *dir, const char *name) {
  path_buf p;
  snprintf(p.s, sizeof p.s, "%s/%s", dir, name);
  return p;
}

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
  CHECK(got == want, "%s exited with %d, expected %d", what, got, want);
}

static uint8_t *load(const char *file, int *w, int *h) {
  int n;
  uint8_t *p = stbi_load(file, w, h, &n, 4);
  CHECK(p != NULL, "cannot read %s (%s)", file, stbi_failure_reason());
  return p;
}

static void compare(const char *dir, const char *a_name, const char *b_name, int want_w, int want_h) {
  path_buf a_path = in_dir(dir, a_name), b_path = in_dir(dir, b_name), diff;
  snprintf(diff.s, sizeof diff.s, "%s/diff_%s", dir, a_name);
  int aw, ah, bw, bh;
  uint8_t *a = load(a_path.s, &aw, &ah), *b = load(b_path.s, &bw, &bh);
  if (a && b) {
    if (aw != want_w || ah != want_h || bw != want_w || bh != want_h) {
      CHECK(0, "%s is %dx%d and %s %dx%d, expected %dx%d", a_name, aw, ah, b_name, bw, bh, want_w, want_h);
    } else if (image_is_blank(a, (uint32_t)aw, (uint32_t)ah)) {
      CHECK(0, "%s is blank", a_path.s);
    } else {
      double psnr = image_psnr(a, b, (uint32_t)aw, (uint32_t)ah);
      printf("%s vs %s: PSNR %.2f dB (threshold %.0f)\n", a_name, b_name, psnr, PSNR_MIN);
      if (psnr < PSNR_MIN) image_write_diff_png(diff.s, a, b, (uint32_t)aw, (uint32_t)ah);
      CHECK(psnr >= PSNR_MIN, "%s differs from %s (diff: %s)", a_name, b_name, diff.s);
    }
  }
  stbi_image_free(a);
  stbi_image_free(b);
}

/* The CSV has a header and rows for frames 0..frames-1 in order. */
static void check_csv(const char *file, unsigned frames) {
  FILE *f = fopen(file, "r");
  CHECK(f != NULL, "%s was not written", file);
  if (!f) return;
  char line[512];
  unsigned rows = 0;
  int header = fgets(line, sizeof line, f) && !strncmp(line, "frame,projection_ms,", 20);
  while (fgets(line, sizeof line, f)) {
    unsigned frame;
    double p, s, r, t;
    int ok = sscanf(line, "%u,%lf,%lf,%lf,%lf,", &frame, &p, &s, &r, &t) == 5 && frame == rows && t > 0.0;
    CHECK(ok, "%s row %u: '%s'", file, rows, line);
    if (!ok) break;
    rows++;
  }
  fclose(f);
  CHECK(header && rows == frames, "%s: header %s, %u rows, expected %u", file, header ? "ok" : "missing", rows,
        frames);
}

static int file_contains(const char *file, const char *needle) {
  FILE *f = fopen(file, "rb");
  if (!f) return 0;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  fputs(buf, stderr); /* into the test log */
  return strstr(buf, needle) != NULL;
}

/* The shell function w PATTERN FILE waits (up to 2 minutes) for a line of FILE to match: a drop
 * is loaded in the background and a newer drop would cancel it, so each waits for the last. */
/* The windows that get drops start on the bundled scene looking along +z (yaw = pitch = 0), not
 * in its own start view (the README screenshot's): a drop frames from the current direction,
 * and the headless images they are compared with frame along +z. */
#define ALONG_Z "--eye 0,0,-10 --target 0,0,0"
#define SH_WAIT_FOR "w() { i=0; until grep -q -- \"$1\" \"$2\"; do i=$((i+1)); [ $i -le 1200 ] || return 1; sleep 0.1; done; }; "

/* 4. drag and drop: a generated scene opens, then a broken file and a scene above --memory-budget
 * are reported and the generated
 * scene stays; the last frame must equal the headless render of the generated scene from the
 * default view (a drop frames the new scene as the start view does). */
static void test_drop(char *sv, const char *dir, char *gen, char *xdnd) {
  path_buf scene = in_dir(dir, "dropped.ply"), broken = in_dir(dir, "broken.ply"), big = in_dir(dir, "big.ply");
  path_buf shot = in_dir(dir, "window_drop.png"), head = in_dir(dir, "headless_drop.png");
  path_buf out = in_dir(dir, "drop_stdout.txt"), err = in_dir(dir, "drop_stderr.txt");
  remove(shot.s);
  char *gen_args[] = {gen, "--count", "3000", "--sh-degree", "1", "--seed", "11", "--out", scene.s, NULL};
  expect_status(run(gen_args), 0, "gen_scene");
  /* 30,000 SH-3 splats need ~6.5 MiB of device memory, above the 4 MiB --memory-budget given
   * below (the bundled scene and the 3,000-splat one fit): it must be refused like an
   * out-of-memory load, and the scene on screen stay */
  char *big_args[] = {gen, "--count", "30000", "--sh-degree", "3", "--seed", "12", "--out", big.s, NULL};
  expect_status(run(big_args), 0, "gen_scene (big)");
  FILE *f = fopen(broken.s, "wb");
  CHECK(f != NULL, "cannot write %s", broken.s);
  if (!f) return;
  /* a header promising 100 splats and no data after it */
  fputs("ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\nproperty float y\n"
        "property float z\nend_header\n", f);
  fclose(f);
  /* splatview with no SCENE (the bundled one) in the background, the drops and the close
   * from xdnd_drop, on one X server */
  char script[] = "\"$1\" --size 320x240 " ALONG_Z " --memory-budget 4 --screenshot \"$2\" >\"$3\" 2>\"$4\" & p=$!; " SH_WAIT_FOR
                  "\"$5\" splatview \"$6\" && w '^opened ' \"$3\" && \"$5\" splatview \"$7\" && w broken.ply \"$4\" && "
                  "\"$5\" splatview \"$8\" && w big.ply \"$4\" && \"$5\" --close splatview; d=$?; "
                  "[ $d -eq 0 ] || kill $p; wait $p; s=$?; "
                  "[ $d -eq 0 ] || { echo \"xdnd_drop or a wait failed ($d)\" >&2; exit 98; }; exit $s";
  char *args[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24", "sh", "-c", script, "sh", sv, shot.s, out.s, err.s,
                  xdnd, scene.s, broken.s, big.s, NULL};
  expect_status(run(args), 0, "windowed with drops");
  CHECK(file_contains(out.s, "opened "), "splatview did not report opening the dropped scene");
  CHECK(file_contains(err.s, "broken.ply"), "splatview did not report the broken file by name on stderr");
  CHECK(file_contains(err.s, "big.ply") && file_contains(err.s, "budget is 4.00 MiB"),
        "splatview did not report the scene above its memory budget on stderr");
  CHECK(!file_contains(err.s, "freed first"), "the scene shown was freed for one that does not fit alone");
  char *head_args[] = {sv, "--headless", scene.s, "--size", "320x240", "--raster", "graphics", "--out", head.s, NULL};
  expect_status(run(head_args), 0, "headless, dropped scene");
  compare(dir, "window_drop.png", "headless_drop.png", 320, 240);
}

/* 4b. a drop with Shift held adds the dropped scene as a second object beside the bundled one:
 * the summary counts both (8,192 + 3,000 splats) and the last frame, framed from the start
 * direction, equals the headless render of the two scenes on the command line. */
static void test_shift_drop(char *sv, char *bundled, const char *dir, char *xdnd) {
  path_buf scene = in_dir(dir, "dropped.ply"); /* test_drop's */
  path_buf shot = in_dir(dir, "window_shift_drop.png"), head = in_dir(dir, "headless_shift_drop.png");
  path_buf out = in_dir(dir, "shift_drop_stdout.txt"), err = in_dir(dir, "shift_drop_stderr.txt");
  remove(shot.s);
  char script[] = "\"$1\" --size 320x240 " ALONG_Z " --raster graphics --screenshot \"$2\" >\"$3\" 2>\"$4\" & p=$!; " SH_WAIT_FOR
                  "\"$5\" --shift splatview \"$6\" && w '^added ' \"$3\" && \"$5\" --close splatview; d=$?; "
                  "[ $d -eq 0 ] || kill $p; wait $p; s=$?; "
                  "[ $d -eq 0 ] || { echo \"xdnd_drop or a wait failed ($d)\" >&2; exit 98; }; exit $s";
  char *args[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24", "sh", "-c", script, "sh", sv, shot.s, out.s, err.s,
                  xdnd, scene.s, NULL};
  expect_status(run(args), 0, "windowed with a Shift drop");
  CHECK(file_contains(out.s, "object 2 of 2"), "the Shift drop did not add a second object");
  CHECK(file_contains(out.s, "leica-sofort.ply + 1 more: 11192 splats"), "the summary does not count both objects");
  char *head_args[] = {sv, "--headless", bundled, scene.s, "--size", "320x240", "--raster", "graphics",
                       "--out", head.s, NULL};
  expect_status(run(head_args), 0, "headless, two scenes");
  compare(dir, "window_shift_drop.png", "headless_shift_drop.png", 320, 240);
}

/* 4c. a streamed drop that the memory budget holds alone but not beside the scene shown: the
 * scene shown is freed first (said on stderr), the new one opens, and the last frame equals its
 * headless image. 22,000 SH-3 splats take ~3.9 MiB with their frame buffers, under the 4 MiB
 * budget alone, above it beside the 3,000-splat scene (~0.3 MiB). test_drop checks that a scene
 * that does not fit alone leaves the scene shown as it was. */
static long number_in_line(const char *file, const char *start, const char *needle, const char *before);
static void test_budget_stream(char *sv, const char *dir, char *gen, char *xdnd) {
  path_buf scene = in_dir(dir, "dropped.ply"), mid = in_dir(dir, "budget_mid.ply"); /* dropped.ply: test_drop's */
  path_buf shot = in_dir(dir, "window_budget.png"), head = in_dir(dir, "headless_budget.png");
  path_buf out = in_dir(dir, "budget_stdout.txt"), err = in_dir(dir, "budget_stderr.txt");
  remove(shot.s);
  char *mid_args[] = {gen, "--count", "22000", "--sh-degree", "3", "--seed", "13", "--out", mid.s, NULL};
  expect_status(run(mid_args), 0, "gen_scene (budget)");
  char script[] = "\"$1\" \"$6\" --size 320x240 " ALONG_Z " --raster graphics --memory-budget 4 --screenshot \"$2\" "
                  ">\"$3\" 2>\"$4\" & p=$!; " SH_WAIT_FOR
                  "\"$5\" splatview \"$7\" && w '^opened .*budget_mid.ply' \"$3\" && \"$5\" --close splatview; d=$?; "
                  "[ $d -eq 0 ] || kill $p; wait $p; s=$?; "
                  "[ $d -eq 0 ] || { echo \"xdnd_drop or a wait failed ($d)\" >&2; exit 98; }; exit $s";
  char *args[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24", "sh", "-c", script, "sh", sv, shot.s, out.s, err.s,
                  xdnd, scene.s, mid.s, NULL};
  expect_status(run(args), 0, "windowed, a streamed drop that fits only alone");
  CHECK(file_contains(err.s, "which was freed first"), "the scene shown was not freed for the budget (or not said)");
  CHECK(number_in_line(out.s, "opened ", "budget_mid.ply", ": ") == 22000, "budget_mid.ply was not opened");
  char *head_args[] = {sv, "--headless", mid.s, "--size", "320x240", "--raster", "graphics", "--out", head.s, NULL};
  expect_status(run(head_args), 0, "headless, budget scene");
  compare(dir, "window_budget.png", "headless_budget.png", 320, 240);
}

/* The number in a line of `file` that starts with `start`, contains `needle` and has `before`
 * right before the number ("%u"); -1 when there is none. */
static long number_in_line(const char *file, const char *start, const char *needle, const char *before) {
  FILE *f = fopen(file, "r");
  if (!f) return -1;
  char line[4096];
  long n = -1;
  while (n < 0 && fgets(line, sizeof line, f)) {
    const char *b = strstr(line, before);
    unsigned x;
    if (!strncmp(line, start, strlen(start)) && strstr(line, needle) && b && sscanf(b + strlen(before), "%u", &x) == 1)
      n = x;
  }
  fclose(f);
  return n;
}

/* 5b. a drop streams in place of the scene shown (window_stream.h): large.ply dropped on a window
 * showing small.ply is drawn as it arrives; a broken file dropped then cancels it half-way and
 * fails itself, and small.ply, kept on the GPU meanwhile, comes back: the last frame equals the
 * headless image of small.ply in the view a drop frames (the default view). */
static void test_stream_restore(char *sv, const char *dir, path_buf *large, path_buf *small, char *xdnd) {
  path_buf broken = in_dir(dir, "broken_stream.ply"), shot = in_dir(dir, "window_stream_restore.png");
  path_buf head = in_dir(dir, "headless_stream_restore.png");
  path_buf out = in_dir(dir, "stream_restore_stdout.txt"), err = in_dir(dir, "stream_restore_stderr.txt");
  remove(shot.s);
  FILE *f = fopen(broken.s, "wb");
  CHECK(f != NULL, "cannot write %s", broken.s);
  if (!f) return;
  fputs("ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\nend_header\n", f);
  fclose(f);
  char script[] = "\"$1\" \"$6\" --size 320x240 " ALONG_Z " --raster graphics --screenshot \"$2\" >\"$3\" 2>\"$4\" & "
                  "p=$!; " SH_WAIT_FOR
                  "\"$5\" splatview \"$7\" && w '^streaming .*large.ply' \"$3\" && \"$5\" splatview \"$8\" && "
                  "w broken_stream.ply \"$4\" && \"$5\" --close splatview; d=$?; "
                  "[ $d -eq 0 ] || kill $p; wait $p; s=$?; "
                  "[ $d -eq 0 ] || { echo \"xdnd_drop or a wait failed ($d)\" >&2; exit 98; }; exit $s";
  char *args[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24", "sh", "-c", script, "sh", sv, shot.s, out.s, err.s,
                  xdnd, small->s, large->s, broken.s, NULL};
  expect_status(run(args), 0, "windowed, a streamed drop cancelled");
  file_contains(out.s, ""); /* both into the log */
  file_contains(err.s, "");
  CHECK(number_in_line(out.s, "cancelled loading ", "large.ply", "after ") >= 0,
        "the streamed load of large.ply was not cancelled by the drop after it");
  CHECK(!file_contains(out.s, "opened "), "a scene was opened");
  char *head_args[] = {sv, "--headless", small->s, "--size", "320x240", "--raster", "graphics", "--out", head.s, NULL};
  expect_status(run(head_args), 0, "headless, small scene");
  compare(dir, "window_stream_restore.png", "headless_stream_restore.png", 320, 240);
}

/* 5. loading in the background. A large file (1M SH-3 splats, 248 MB; all but 3,000 under the
 * opacity cull, so lavapipe draws it quickly) dropped and a small one right after: the newest
 * drop wins, the large load is cancelled and the small scene opens. The large file dropped
 * again: it loads while the window goes on drawing frames of the small scene (counted in the
 * viewer's "loaded" line), then it is shown. Dropped a third time with the window closed at
 * once: the load is cancelled and the viewer exits cleanly (0: joined, nothing leaked that
 * the validation layer would see). The last frame must equal the headless image of the large
 * scene, as must a window that opens with it as its first scene (the loading screen). */
static void test_load(char *sv, const char *dir, char *gen, char *xdnd) {
  path_buf large = in_dir(dir, "large.ply"), small = in_dir(dir, "small.ply");
  path_buf shot = in_dir(dir, "window_load.png"), head = in_dir(dir, "headless_load.png");
  path_buf first = in_dir(dir, "window_load_first.png");
  path_buf out = in_dir(dir, "load_stdout.txt"), err = in_dir(dir, "load_stderr.txt");
  path_buf out2 = in_dir(dir, "load_first_stdout.txt");
  remove(shot.s);
  remove(first.s);
  char *large_args[] = {gen, "--count", "1000000", "--sh-degree", "3", "--seed", "21", "--visible", "3000",
                        "--out", large.s, NULL};
  expect_status(run(large_args), 0, "gen_scene (large)");
  char *small_args[] = {gen, "--count", "2000", "--sh-degree", "0", "--seed", "22", "--out", small.s, NULL};
  expect_status(run(small_args), 0, "gen_scene (small)");
  char script[] = "\"$1\" --size 320x240 " ALONG_Z " --screenshot \"$2\" >\"$3\" 2>\"$4\" & p=$!; " SH_WAIT_FOR
                  "\"$5\" splatview \"$6\" \"$7\" && w '^opened .*small.ply' \"$3\" && "
                  "\"$5\" splatview \"$6\" && w '^opened .*large.ply' \"$3\" && \"$5\" --close splatview \"$6\"; d=$?; "
                  "[ $d -eq 0 ] || kill $p; wait $p; s=$?; "
                  "[ $d -eq 0 ] || { echo \"xdnd_drop or a wait failed ($d)\" >&2; exit 98; }; exit $s";
  char *args[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24", "sh", "-c", script, "sh", sv, shot.s, out.s, err.s,
                  xdnd, large.s, small.s, NULL};
  expect_status(run(args), 0, "windowed, loading in the background");
  file_contains(out.s, ""); /* both into the log */
  file_contains(err.s, "");
  long cancelled = number_in_line(out.s, "cancelled loading ", "large.ply", "after ");
  CHECK(cancelled >= 0, "the first load of large.ply was not cancelled by the drop after it");
  CHECK(number_in_line(out.s, "opened ", "small.ply", ": ") == 2000, "small.ply was not opened (2000 splats)");
  long frames = number_in_line(out.s, "loaded ", "large.ply", "splats/s), ");
  printf("frames drawn while large.ply loaded: %ld\n", frames);
  CHECK(frames >= 3, "the window drew %ld frames while large.ply loaded, expected at least 3", frames);
  CHECK(number_in_line(out.s, "opened ", "large.ply", ": ") == 1000000, "large.ply was not opened (1,000,000 splats)");
  CHECK(file_contains(out.s, "(the window closed)"), "the load running at the close was not cancelled");
  char *head_args[] = {sv, "--headless", large.s, "--size", "320x240", "--raster", "graphics", "--out", head.s, NULL};
  expect_status(run(head_args), 0, "headless, large scene");
  compare(dir, "window_load.png", "headless_load.png", 320, 240);

  /* the large file as the first scene: it loads under the loading screen (when the window is
   * up before it is done), then the same image */
  char script2[] = "\"$1\" \"$2\" --size 320x240 --frames 3 --screenshot \"$3\" >\"$4\"";
  char *args2[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24", "sh", "-c", script2, "sh", sv, large.s, first.s,
                   out2.s, NULL};
  expect_status(run(args2), 0, "windowed, large first scene");
  printf("loading screen frames: %ld\n", number_in_line(out2.s, "loaded ", "large.ply", "splats/s), "));
  compare(dir, "window_load_first.png", "headless_load.png", 320, 240);
  test_stream_restore(sv, dir, &large, &small, xdnd);
  remove(large.s);
}

int main(int argc, char **argv) {
  bool load_only = argc > 1 && !strcmp(argv[1], "--load");
  if (load_only) argc--, argv++;
  if ((argc != 4 && argc != 6) || (load_only && argc != 6)) {
    fprintf(stderr, "usage: test_viewer_window [--load] SPLATVIEW SCENE OUTDIR [GEN_SCENE XDND_DROP]\n");
    return 1;
  }
  if (!on_path("xvfb-run")) {
    printf("SKIP: xvfb-run is not installed (apt-get install xvfb xauth)\n");
    return 77;
  }
  if (load_only) {
    test_load(argv[1], argv[3], argv[4], argv[5]);
    return check_report("test_viewer_window --load");
  }
  char *sv = argv[1], *scene = argv[2];
  const char *dir = argv[3];
  path_buf win_png = in_dir(dir, "window_bench.png"), head_png = in_dir(dir, "headless_bench.png");
  path_buf csv = in_dir(dir, "window_timings.csv"), cams = in_dir(dir, "window_cameras.json");
  path_buf win_cam = in_dir(dir, "window_camera.png"), head_cam = in_dir(dir, "headless_camera.png");
  remove(win_png.s);
  remove(csv.s);
  remove(win_cam.s);

  /* 1. --bench: the same fixed orbit in a window and headless; the last frames must match */
  char *xvfb[] = {"xvfb-run", "-a", "-s", "-screen 0 640x480x24"};
  char *win1[] = {xvfb[0], xvfb[1], xvfb[2], xvfb[3], sv, scene, "--bench", "--frames", "3", "--size", "320x240", "--raster", "graphics",
                  "--screenshot", win_png.s, "--timings", csv.s, NULL};
  expect_status(run(win1), 0, "windowed --bench");
  char *head1[] = {sv, "--headless", scene, "--bench", "--frames", "3", "--size", "320x240", "--raster", "graphics", "--out", head_png.s, NULL};
  expect_status(run(head1), 0, "headless --bench");
  compare(dir, "window_bench.png", "headless_bench.png", 320, 240);
  check_csv(csv.s, 3);

  /* 2. the interactive path (no --bench, HUD drawn) starting at a cameras.json camera:
   * the window's size has the training camera's aspect, so both render the same camera */
  FILE *f = fopen(cams.s, "w");
  if (!f) {
    fprintf(stderr, "test_viewer_window: cannot write %s\n", cams.s);
    return 1;
  }
  /* two cameras looking along +z (world y down) at the bundled scene's middle */
  fprintf(f, "[{\"id\": 0, \"img_name\": \"a\", \"width\": 640, \"height\": 480, \"position\": [-1.7, 1.9, -4],"
             " \"rotation\": [[1,0,0],[0,1,0],[0,0,1]], \"fx\": 600, \"fy\": 600},\n"
             " {\"id\": 1, \"img_name\": \"b\", \"width\": 640, \"height\": 480, \"position\": [-1.2, 1.5, -2],"
             " \"rotation\": [[1,0,0],[0,1,0],[0,0,1]], \"fx\": 500, \"fy\": 520}]\n");
  fclose(f);
  char *win2[] = {xvfb[0], xvfb[1], xvfb[2], xvfb[3], sv, scene, "--cameras", cams.s, "--camera", "1", "--frames", "2",
                  "--size", "320x240", "--raster", "graphics", "--key-bits", "24", "--screenshot", win_cam.s, NULL};
  expect_status(run(win2), 0, "windowed, cameras.json");
  char *head2[] = {sv, "--headless", scene, "--cameras", cams.s, "--camera", "1", "--size", "320x240", "--raster", "graphics",
                   "--key-bits", "24", "--out", head_cam.s, NULL};
  expect_status(run(head2), 0, "headless, cameras.json");
  compare(dir, "window_camera.png", "headless_camera.png", 320, 240);

  /* 3. a scene that does not load: a clear failure, not a crash */
  char *win3[] = {xvfb[0], xvfb[1], xvfb[2], xvfb[3], sv, "/nonexistent/scene.ply", "--frames", "1", NULL};
  expect_status(run(win3), 1, "windowed, missing scene");

  if (argc == 6) {
    test_drop(sv, dir, argv[4], argv[5]);
    test_shift_drop(sv, scene, dir, argv[5]);
    test_budget_stream(sv, dir, argv[4], argv[5]);
  }

  return check_report("test_viewer_window");
}
