/* sog_fixture.h: the small SOG scenes and images that fuzz_sog decodes meta.json against, and
 * that test_sog writes out as fuzz_sog's seeds: made the same way on every machine (a fixed
 * seed), so a seed's file names always find the images they were written with. */
#ifndef SPLAT_TESTS_SOG_FIXTURE_H
#define SPLAT_TESTS_SOG_FIXTURE_H

#include "sog_writer.h"

enum { SOG_FIXTURE_SPLATS = 64, SOG_FIXTURE_MAX = 64 };

typedef struct sog_fixture {
  sog_blob blob[SOG_FIXTURE_MAX]; /* images by the names meta.json gives them, and each set's
                                     meta.json as "<set>.json" */
  uint32_t count;
} sog_fixture;

/* A deterministic SOG_FIXTURE_SPLATS-splat scene of SH degree `degree` (free with
 * splat_scene_free). */
void sog_fixture_scene(splat_scene *s, uint32_t degree);

/* Every image set: "v2_sh0" .. "v2_sh3" (version 2, images under "sh0/" .. "sh3/"), "v1_sh0"
 * and "v1_sh3" (version 1, under "v1sh0/" and "v1sh3/"), and broken images under "bad/"
 * (quats with a bad tag, labels past the palette, too small, too big, lossy, not WebP,
 * truncated, centroids of a wrong width and too many rows). Returns 0, or -1 (out of memory). */
int sog_fixture_make(sog_fixture *f);

const sog_blob *sog_fixture_find(const sog_fixture *f, const char *name);

void sog_fixture_free(sog_fixture *f);

#endif
