/* test_cameras_json.c: the scene library's cameras.json reader (splat_cameras_load, splat_scene.h)
 * on its own, CPU only: a file as 3DGS writes it (escapes, unknown members, every field), the
 * extremes it allows; every malformed file refused with one line naming the file, where and what
 * (syntax, types, missing and repeated fields, non-finite and out-of-range numbers, a matrix that is
 * not a rotation, nesting, too many values), every truncation of a good file; and the file itself
 * checked before it is believed: a missing file, a FIFO and a directory refused at once, a file
 * over 256 MiB refused before it is read, names with escape sequences shown as '?'. Expected values
 * are written out from the format (splat_scene.h), not taken from the reader.
 *   test_cameras_json <scratch dir> */
#include "check.h"
#include "splat_scene.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[512] = ".";

static void write_file(const char *path, const char *text, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fwrite(text, 1, n, f);
  fclose(f);
}

/* As 3DGS's json.dump writes it (indentation aside), with one extra unknown member. */
static const char *good_json =
    "[{\"id\": 0, \"img_name\": \"DSC_0001\", \"width\": 640, \"height\": 480, "
    "\"position\": [1.0, 2.0, 3.0], "
    "\"rotation\": [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]], "
    "\"fy\": 400.0, \"fx\": 500.0},\n"
    " {\"id\": 17, \"img_name\": \"caf\\u00e9 \\\"2\\\"\", \"width\": 1920, \"height\": 1080,"
    " \"extra\": {\"nested\": [true, false, null, -1.5e-3]}, "
    "\"position\": [-0.5, 1e2, 0], "
    "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"fy\": 1111.5, \"fx\": 1000}]\n";

static int load_text(const char *label, const char *text, size_t n, splat_camera_desc **cams,
                     uint32_t *count, char *err, size_t err_size, char *path, size_t path_size) {
  snprintf(path, path_size, "%s/cameras_%s.json", tmpdir, label);
  write_file(path, text, n);
  return splat_cameras_load(path, cams, count, err, err_size);
}

static void test_cameras_json_good(void) {
  splat_camera_desc *cams = NULL;
  uint32_t n = 0;
  char err[512], path[600];
  int rc = load_text("good", good_json, strlen(good_json), &cams, &n, err, sizeof err, path,
                     sizeof path);
  CHECK(rc == 0, "good file rejected: %s", err);
  if (rc != 0) return;
  CHECK(n == 2, "count %u", n);
  CHECK(cams[0].id == 0 && cams[1].id == 17, "ids %lld %lld", (long long)cams[0].id,
        (long long)cams[1].id);
  CHECK(strcmp(cams[0].name, "DSC_0001") == 0, "name '%s'", cams[0].name);
  CHECK(strcmp(cams[1].name, "caf\xc3\xa9 \"2\"") == 0, "name '%s'", cams[1].name);
  CHECK(cams[0].width == 640 && cams[0].height == 480, "size");
  CHECK(cams[1].width == 1920 && cams[1].height == 1080, "size");
  CHECK_NEAR(cams[0].fx, 500.0, 0.0);
  CHECK_NEAR(cams[0].fy, 400.0, 0.0);
  CHECK_NEAR(cams[1].fy, 1111.5, 0.0);
  CHECK_NEAR(cams[1].position[1], 100.0, 0.0);
  CHECK_NEAR(cams[0].rotation[2][0], -1.0, 0.0);
  CHECK_NEAR(cams[0].rotation[0][2], 1.0, 0.0);

  splat_cameras_free(cams);

  /* An empty array is a valid, empty file. */
  rc = splat_cameras_parse("empty.json", " [ ] ", 5, &cams, &n, err, sizeof err);
  CHECK(rc == 0 && n == 0 && cams == NULL, "empty array: rc %d n %u: %s", rc, n, err);

  /* The extremes the format allows are read as written. */
  const char *big = "[{\"id\": -9007199254740992, \"img_name\": \"a\", \"width\": 65536, \"height\": 1, "
                    "\"position\": [-3.4e38, 0, 1e-45], \"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                    "\"fx\": 3e38, \"fy\": 1e-45}]";
  rc = splat_cameras_parse("big.json", big, strlen(big), &cams, &n, err, sizeof err);
  CHECK(rc == 0 && n == 1, "extreme camera rejected: %s", err);
  if (rc == 0) {
    CHECK(cams[0].id == -9007199254740992LL && cams[0].width == 65536 && cams[0].height == 1, "id %lld, %ux%u",
          (long long)cams[0].id, cams[0].width, cams[0].height);
    CHECK(cams[0].fx == 3e38f && cams[0].fy == 1e-45f && cams[0].position[0] == -3.4e38f, "fx %g fy %g x %g",
          (double)cams[0].fx, (double)cams[0].fy, (double)cams[0].position[0]);
    splat_cameras_free(cams);
  }
  splat_cameras_free(NULL);
}

typedef struct bad_case {
  const char *label;
  const char *text;
  const char *expect[3]; /* substrings the message must contain (besides the path) */
} bad_case;

#define CAM(fields) "{\"id\": 0, \"img_name\": \"a\", " fields "}"
#define GOODF                                                                     \
  "\"width\": 8, \"height\": 6, \"position\": [0, 0, 0], "                        \
  "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"fx\": 10, \"fy\": 10"

static void test_cameras_json_bad(void) {
  static char deep[300];
  memset(deep, '[', 100);
  deep[100] = '\0';
  const bad_case cases[] = {
      {"empty", "", {"empty file"}},
      {"spaces", "   \n ", {"2:2", "unexpected end of file"}},
      {"open", "[", {"1:2", "unexpected end of file"}},
      {"object", "{}", {"expected a JSON array"}},
      {"number_root", "42", {"expected a JSON array", "a number"}},
      {"trailing_comma", "[" CAM(GOODF) ",]", {"expected a JSON value"}},
      {"garbage_after", "[] x", {"1:4", "unexpected data after"}},
      {"not_object", "[" CAM(GOODF) ", 5]", {"camera 1", "expected an object"}},
      {"missing_fx", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [0, 0, 0], "
                             "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"fy\": 10") "]",
       {"camera 0", "\"fx\"", "missing"}},
      {"fx_string", "[" CAM(GOODF) ", " CAM("\"width\": 8, \"height\": 6, "
                                            "\"position\": [0, 0, 0], \"rotation\": [[1, 0, 0], "
                                            "[0, 1, 0], [0, 0, 1]], \"fx\": \"10\", \"fy\": 10") "]",
       {"camera 1", "\"fx\"", "expected a number, got a string"}},
      {"width_zero", "[" CAM("\"width\": 0, \"height\": 6, \"position\": [0, 0, 0], "
                             "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                             "\"fx\": 10, \"fy\": 10") "]",
       {"camera 0", "\"width\"", "got 0"}},
      {"height_fraction", "[" CAM("\"width\": 8, \"height\": 6.5, \"position\": [0, 0, 0], "
                                  "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                                  "\"fx\": 10, \"fy\": 10") "]",
       {"\"height\"", "whole number"}},
      {"fy_negative", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [0, 0, 0], "
                              "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                              "\"fx\": 10, \"fy\": -3") "]",
       {"\"fy\"", "positive"}},
      {"nan_literal", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [NaN, 0, 0], "
                              "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                              "\"fx\": 10, \"fy\": 10") "]",
       {"camera 0", "field \"position\"", "expected a JSON value"}},
      {"huge", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [1e999, 0, 0], "
                       "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                       "\"fx\": 10, \"fy\": 10") "]",
       {"\"position\"", "not finite"}},
      {"float_overflow", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [1e39, 0, 0], "
                                 "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                                 "\"fx\": 10, \"fy\": 10") "]",
       {"\"position\"", "not finite"}},
      {"position_short", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [0, 0], "
                                 "\"rotation\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                                 "\"fx\": 10, \"fy\": 10") "]",
       {"\"position\"", "expected 3 numbers, got 2"}},
      {"rotation_rows", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [0, 0, 0], "
                                "\"rotation\": [[1, 0, 0], [0, 1, 0]], "
                                "\"fx\": 10, \"fy\": 10") "]",
       {"\"rotation\"", "got 2 rows"}},
      {"rotation_scaled", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [0, 0, 0], "
                                  "\"rotation\": [[2, 0, 0], [0, 1, 0], [0, 0, 1]], "
                                  "\"fx\": 10, \"fy\": 10") "]",
       {"\"rotation\"", "not a rotation"}},
      {"rotation_mirror", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [0, 0, 0], "
                                  "\"rotation\": [[-1, 0, 0], [0, 1, 0], [0, 0, 1]], "
                                  "\"fx\": 10, \"fy\": 10") "]",
       {"\"rotation\"", "not a rotation"}},
      {"rotation_bool", "[" CAM("\"width\": 8, \"height\": 6, \"position\": [0, 0, 0], "
                                "\"rotation\": [[1, 0, 0], [0, true, 0], [0, 0, 1]], "
                                "\"fx\": 10, \"fy\": 10") "]",
       {"\"rotation\"", "got true"}},
      {"id_fraction", "[{\"id\": 0.5, \"img_name\": \"a\", " GOODF "}]", {"\"id\"", "integer"}},
      {"name_number", "[{\"id\": 1, \"img_name\": 7, " GOODF "}]",
       {"\"img_name\"", "expected a string, got a number"}},
      {"duplicate", "[{\"id\": 1, \"img_name\": \"a\", \"fx\": 3, " GOODF "}]",
       {"\"fx\"", "more than once"}},
      {"bad_escape", "[{\"id\": 1, \"img_name\": \"a\\q\", " GOODF "}]", {"bad escape"}},
      {"control_char", "[{\"id\": 1, \"img_name\": \"a\tb\", " GOODF "}]", {"control character"}},
      {"lone_surrogate", "[{\"id\": 1, \"img_name\": \"\\ud800x\", " GOODF "}]", {"surrogate"}},
      {"bad_utf8", "[{\"id\": 1, \"img_name\": \"\xc3\x28\", " GOODF "}]", {"UTF-8"}},
      {"nul_name", "[{\"id\": 1, \"img_name\": \"a\\u0000b\", " GOODF "}]", {"NUL"}},
      {"leading_zero", "[{\"id\": 01, \"img_name\": \"a\", " GOODF "}]", {"leading zero"}},
      {"dot_no_digit", "[{\"id\": 1., \"img_name\": \"a\", " GOODF "}]", {"decimal point"}},
      {"missing_colon", "[{\"id\" 1}]", {"1:8", "expected ':'"}},
      {"missing_comma", "[{\"id\": 1 \"img_name\": \"a\"}]", {"expected ',' or '}'"}},
      {"single_quotes", "[{'id': 1}]", {"member name"}},
      {"deep", deep, {"nested too deeply"}},
      {"multiline", "[\n  {\"id\": 0,\n   \"img_name\": \"a\",\n   \"width\": \"wide\"}]",
       {"4:13", "camera 0", "\"width\""}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    splat_camera_desc *cams = (splat_camera_desc *)&k; /* must be reset to NULL */
    uint32_t n = 99;
    char err[512] = "", path[600];
    int rc = load_text(cases[k].label, cases[k].text, strlen(cases[k].text), &cams, &n, err,
                       sizeof err, path, sizeof path);
    CHECK(rc != 0, "case %s accepted", cases[k].label);
    CHECK(cams == NULL && n == 0, "case %s: outputs not reset", cases[k].label);
    CHECK(strstr(err, path) != NULL, "case %s: message does not name the file: %s",
          cases[k].label, err);
    for (int e = 0; e < 3 && cases[k].expect[e]; e++)
      CHECK(strstr(err, cases[k].expect[e]) != NULL, "case %s: message lacks '%s': %s",
            cases[k].label, cases[k].expect[e], err);
    if (getenv("VERBOSE")) printf("%-16s %s\n", cases[k].label, err);
  }

  /* Every truncation of a good file is an error, never a crash or a partial success. */
  size_t len = strlen(good_json) - 1; /* without the final newline, which is optional */
  for (size_t cut = 0; cut < len; cut++) {
    splat_camera_desc *cams;
    uint32_t n;
    char err[512] = "";
    int rc = splat_cameras_parse("cut.json", good_json, cut, &cams, &n, err, sizeof err);
    CHECK(rc != 0, "truncated at %zu accepted", cut);
    CHECK(strstr(err, "cut.json") != NULL, "truncated at %zu: %s", cut, err);
  }

  splat_camera_desc *cams;
  uint32_t n;
  char err[512], path[600];
  snprintf(path, sizeof path, "%s/does-not-exist.json", tmpdir);
  CHECK(splat_cameras_load(path, &cams, &n, err, sizeof err) != 0, "missing file accepted");
  CHECK(strstr(err, path) && strstr(err, "cannot open"), "missing file message: %s", err);
  /* A FIFO given as --cameras is refused at once (it used to block in fopen forever). */
  snprintf(path, sizeof path, "%s/fifo.json", tmpdir);
  unlink(path);
  CHECK(mkfifo(path, 0600) == 0, "mkfifo %s: %s", path, strerror(errno));
  CHECK(splat_cameras_load(path, &cams, &n, err, sizeof err) != 0, "FIFO accepted");
  CHECK(strstr(err, "not a regular file") != NULL, "FIFO message: %s", err);
  unlink(path);
  /* The file's path is shown the same way: an escape sequence in it does not reach the terminal. */
  snprintf(path, sizeof path, "%s/\x1b[31mred.json", tmpdir);
  CHECK(splat_cameras_load(path, &cams, &n, err, sizeof err) != 0 && !strchr(err, '\x1b') && strstr(err, "/?[31mred.json"),
        "a path with an escape sequence: '%s'", err);
  /* Member names are shown on one line: control characters (a newline, a terminal escape,
   * the 8-bit CSI U+009B) and the line separator U+2028 become '?'. An empty name at the end
   * of input has no text at all (UBSan once reported pointer arithmetic on NULL there). */
  static const struct {
    const char *json, *expect;
  } names[] = {{"[{\"\\n\"", "\"?\""},
               {"[{\"a\\u001b[2Jb\": x", "\"a?[2Jb\""},
               {"[{\"a\\u009b2J\xc2\x9b\": x", "\"a?2J?\""},
               {"[{\"a\\u2028b\xe2\x80\xa9\": x", "\"a?b?\""},
               {"[{\"caf\xc3\xa9\": x", "\"caf\xc3\xa9\""},
               {"[{\"\": x", "\"\""},
               {"[{\"\"", ""}};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    err[0] = 0;
    int rc = splat_cameras_parse("n.json", names[k].json, strlen(names[k].json), &cams, &n, err, sizeof err);
    CHECK(rc != 0, "name case %zu accepted", k);
    CHECK(strchr(err, '\n') == NULL && strchr(err, '\x1b') == NULL, "name case %zu: control character in '%s'", k, err);
    CHECK(strstr(err, names[k].expect) != NULL, "name case %zu: '%s' lacks '%s'", k, err, names[k].expect);
  }
  /* A long name is cut at 64 bytes between characters, never inside one, so the message stays
   * valid UTF-8 (fuzz_cameras found "<62 bytes>\xf0\x9f" cut out of an emoji). */
  char json[128], want[80];
  memset(want, 'x', 63);
  snprintf(json, sizeof json, "[{\"%.63s\xf0\x9f\x98\x80\": x", want);
  snprintf(want + 63, sizeof want - 63, "\": ");
  CHECK(splat_cameras_parse("n.json", json, strlen(json), &cams, &n, err, sizeof err) != 0, "long name accepted");
  CHECK(strstr(err, want) != NULL, "long name: '%s' lacks '%s'", err, want);
  /* A NULL error buffer is allowed. */
  CHECK(splat_cameras_parse("x", "{", 1, &cams, &n, NULL, 0) != 0, "accepted");
}

/* Too many values: an array of 1,048,577 zeros (2 MB) is refused by the count, before cJSON builds
 * a tree of it; the same count minus two is read as far as the walk goes (then refused for what
 * it is: zeros are not cameras). */
static void test_cameras_json_counts(void) {
  size_t n = (1u << 20) + 1, len = 2 * n + 1;
  char *text = malloc(len + 1);
  if (!text) return;
  text[0] = '[';
  for (size_t i = 0; i < n; i++) text[1 + 2 * i] = '0', text[2 + 2 * i] = ',';
  text[len - 1] = ']';
  splat_camera_desc *cams;
  uint32_t count;
  char err[512] = "";
  CHECK(splat_cameras_parse("zeros.json", text, len, &cams, &count, err, sizeof err) != 0 &&
            strstr(err, "more JSON values"), "1,048,577 values: '%s'", err);
  /* 1,048,575 zeros and the array: 1,048,576 values, the limit, pass the walk */
  text[2 * ((1u << 20) - 1)] = ']';
  err[0] = 0;
  CHECK(splat_cameras_parse("zeros.json", text, 2 * ((1u << 20) - 1) + 1, &cams, &count, err, sizeof err) != 0 &&
            !strstr(err, "more JSON values") && strstr(err, "camera 0") && strstr(err, "expected an object"),
        "1,048,576 values: '%s'", err);
  free(text);
}

/* The file before its text: kinds and sizes. */
static void test_cameras_json_files(void) {
  splat_camera_desc *cams;
  uint32_t n;
  char err[512], path[600];
  /* a directory */
  CHECK(splat_cameras_load(tmpdir, &cams, &n, err, sizeof err) != 0 && strstr(err, "not a regular file"),
        "a directory: '%s'", err);
  /* a file larger than 256 MiB (sparse: nothing is written) is refused at once, unread */
  snprintf(path, sizeof path, "%s/huge.json", tmpdir);
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  CHECK(fd >= 0 && ftruncate(fd, ((off_t)256 << 20) + 1) == 0, "making %s: %s", path, strerror(errno));
  if (fd >= 0) close(fd);
  err[0] = 0; /* its size in bytes: said from fstat, before a byte is read */
  CHECK(splat_cameras_load(path, &cams, &n, err, sizeof err) != 0 && strstr(err, path) &&
            strstr(err, "268435457 bytes") && strstr(err, "larger than 256 MiB"), "256 MiB + 1: '%s'", err);
  unlink(path);
}

int main(int argc, char **argv) {
  if (argc > 1) snprintf(tmpdir, sizeof tmpdir, "%s", argv[1]);
  test_cameras_json_good();
  test_cameras_json_bad();
  test_cameras_json_counts();
  test_cameras_json_files();
  return check_report("test_cameras_json");
}
