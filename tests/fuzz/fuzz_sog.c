/* fuzz_sog: libFuzzer target for the SOG reader (src/scene/scene_sog*.c). An input that starts
 * like a zip archive ("PK\3\4") is loaded as a bundled .sog named fuzz.sog; any other input is a
 * meta.json, parsed (sog_parse_meta) and decoded against images made once at start-up
 * (sog_fixture.h: good sets of every SH degree and version, and broken images), so that a
 * mutated meta.json reaches the decoder with images it can read. fuzz_check.h's invariants are
 * checked on every result. */
#include "fuzz_check.h"
#include "scene_sog.h"
#include "sog_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sog_fixture fixture;
static int fixture_state; /* 0 not made, 1 made, -1 failed */

/* The images by name, as the folder beside a meta.json would give them. */
static int fetch_fixture(void *user, const char *name, const uint8_t **data, size_t *size, void **owned,
                         const scene_error *e) {
  (void)user;
  const sog_blob *b = sog_fixture_find(&fixture, name);
  char tok[64];
  if (b == NULL) return scene_fail(e, "%s: cannot open: No such file or directory", scene_token(tok, name, strlen(name)));
  /* a copy of exactly the file's bytes, so that a read past its end is caught */
  uint8_t *copy = malloc(b->size ? b->size : 1);
  if (copy == NULL) return scene_fail(e, "out of memory");
  memcpy(copy, b->data, b->size);
  *data = copy;
  *size = b->size;
  *owned = copy;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 4 && memcmp(data, "PK\x03\x04", 4) == 0) {
    fuzz_scene(data, size, "fuzz.sog");
    return 0;
  }
  if (fixture_state == 0) fixture_state = sog_fixture_make(&fixture) == 0 ? 1 : -1;
  FUZZ_REQUIRE(fixture_state == 1, "could not make the fixture images");
  static const char name[] = "meta.json";
  char *text = malloc(size ? size : 1); /* exactly `size` bytes, no NUL after them */
  if (text == NULL) return 0;
  if (size) memcpy(text, data, size);
  char err[1024];
  scene_error e = {name, err, sizeof err};
  splat_scene s;
  memset(&s, 0xa5, sizeof s); /* the decoder must overwrite all of it */
  sog_meta m;
  int rc = sog_parse_meta(text, size, &m, &e);
  free(text);
  if (rc == 0) rc = sog_decode(&m, fetch_fixture, NULL, &s, &e);
  else memset(&s, 0, sizeof s); /* the parser had no scene to clear */
  fuzz_check_scene(rc, &s, err, sizeof err, name);
  return 0;
}
