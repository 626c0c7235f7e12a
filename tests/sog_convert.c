/* sog_convert: any scene splat_scene_load reads, written as SOG by the test writer
 * (tests/sog_writer.h): a folder (meta.json and images) or, for a name ending in .sog, a bundle.
 *   sog_convert IN OUT_FOLDER|OUT.sog [--version 1|2] [--deflate]
 * For benchmarks and by hand; the writer's codebooks and palette are simpler than
 * splat-transform's (sog_writer.h), so prefer splat-transform for scenes people will look at. */
#include "splat_scene.h"
#include "sog_writer.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  sog_write_options o = {0};
  bool deflate = false;
  const char *in = NULL, *out = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--version") && i + 1 < argc) o.version = (uint32_t)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--deflate")) deflate = true;
    else if (!in) in = argv[i];
    else if (!out) out = argv[i];
    else in = NULL, i = argc;
  }
  if (!in || !out) {
    fprintf(stderr, "usage: sog_convert IN OUT_FOLDER|OUT.sog [--version 1|2] [--deflate]\n");
    return 2;
  }
  splat_scene s;
  char err[512];
  double t0 = now_seconds();
  if (splat_scene_load(in, &s, err, sizeof err) != 0) {
    fprintf(stderr, "sog_convert: %s\n", err);
    return 1;
  }
  double t1 = now_seconds();
  sog_output so;
  int rc = sog_write(&s, &o, &so, err, sizeof err);
  splat_scene_free(&s);
  double t2 = now_seconds();
  size_t n = strlen(out), bytes = 0;
  if (rc == 0 && n > 4 && !strcmp(out + n - 4, ".sog")) {
    uint8_t *z = sog_output_zip(&so, deflate, &bytes);
    rc = z ? sog_save_file(out, z, bytes, err, sizeof err) : (snprintf(err, sizeof err, "out of memory"), -1);
    free(z);
  } else if (rc == 0) {
    rc = sog_output_save(&so, out, err, sizeof err);
    for (uint32_t i = 0; i < so.count; ++i) bytes += so.blob[i].size;
  }
  sog_output_free(&so);
  if (rc != 0) {
    fprintf(stderr, "sog_convert: %s\n", err);
    return 1;
  }
  printf("sog_convert: %s -> %s: %.1f MB (read %.2f s, encode %.2f s)\n", in, out, bytes / 1e6, t1 - t0, t2 - t1);
  return 0;
}
