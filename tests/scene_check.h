/* What the scene-format tests (test_scene, test_spz, test_sog) check of a load that must fail:
 * nothing loaded, the scene zeroed, and one line that starts with the file's name and says
 * what is wrong. */
#ifndef TESTS_SCENE_CHECK_H
#define TESTS_SCENE_CHECK_H

#include "check.h"
#include "splat_scene.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static inline bool is_zero_scene(const splat_scene *s) {
  static const splat_scene zero;
  return memcmp(s, &zero, sizeof zero) == 0;
}

/* rc and err (err_size bytes) from a loader that was given `name`: the load must have failed
 * (a scene it loaded anyway is freed), left the scene zeroed, and written a terminated,
 * one-line message starting "<name>: " that holds every "|"-separated word of `words`. */
static inline void check_load_failure(const char *name, int rc, splat_scene *s, const char *err, size_t err_size,
                                      const char *words) {
  CHECK(rc == -1, "%s: loaded, but should fail with '%s'", name, words);
  if (rc == 0) splat_scene_free(s);
  if (rc != -1) return;
  CHECK(is_zero_scene(s), "%s: scene not zeroed on failure", name);
  CHECK(memchr(err, '\0', err_size) != NULL, "%s: message not terminated", name);
  size_t len = strlen(name);
  CHECK(strncmp(err, name, len) == 0 && strncmp(err + len, ": ", 2) == 0, "%s: message '%s' does not start with the name",
        name, err);
  CHECK(strchr(err, '\n') == NULL, "%s: message has a newline", name);
  char w[512];
  snprintf(w, sizeof w, "%s", words);
  for (char *tok = strtok(w, "|"); tok; tok = strtok(NULL, "|"))
    CHECK(strstr(err, tok) != NULL, "%s: message '%s' lacks '%s'", name, err, tok);
}

/* The bytes, loaded from memory under `name`, must fail as check_load_failure says. */
static inline void expect_load_error(const char *name, const void *data, size_t size, const char *words) {
  splat_scene s;
  char err[1024];
  memset(&s, 0xa5, sizeof s);
  memset(err, 'X', sizeof err);
  int rc = splat_scene_load_memory(data, size, name, &s, err, sizeof err);
  check_load_failure(name, rc, &s, err, sizeof err, words);
}

#endif
