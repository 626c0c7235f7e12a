/* fuzz_cameras: libFuzzer target for the cameras.json reader (splat_cameras_parse,
 * src/scene/scene_cameras.c). Every camera it accepts must hold what splat_scene.h promises
 * and make a camera (splat_camera_from_desc, splat_camera.h); a failure must leave no array, a
 * zero count and one printable line naming the file. */
#include "fuzz_check.h"
#include "splat_camera.h"
#include "splat_scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_camera(const splat_camera_desc *d, uint32_t i) {
  FUZZ_REQUIRE(memchr(d->name, '\0', sizeof d->name) != NULL, "camera %u: name not terminated", i);
  FUZZ_REQUIRE(d->width >= 1 && d->width <= 65536 && d->height >= 1 && d->height <= 65536, "camera %u: %ux%u", i,
               d->width, d->height);
  FUZZ_REQUIRE(d->id >= -9007199254740992LL && d->id <= 9007199254740992LL, "camera %u: id %lld", i,
               (long long)d->id);
  FUZZ_REQUIRE(isfinite(d->fx) && isfinite(d->fy) && d->fx > 0.0f && d->fy > 0.0f, "camera %u: fx %g fy %g", i,
               (double)d->fx, (double)d->fy);
  for (int r = 0; r < 3; ++r) {
    FUZZ_REQUIRE(isfinite(d->position[r]), "camera %u: position not finite", i);
    for (int c = 0; c < 3; ++c) FUZZ_REQUIRE(isfinite(d->rotation[r][c]), "camera %u: rotation not finite", i);
  }
  /* A rotation: R^T R = I within the documented 1e-2 per element, det > 0. */
  const float(*R)[3] = d->rotation;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) s += (double)R[k][a] * R[k][b];
      FUZZ_REQUIRE(fabs(s - (a == b ? 1.0 : 0.0)) <= 1e-2 + 1e-6, "camera %u: (R^T R)[%d][%d] = %g", i, a, b, s);
    }
  double det = (double)R[0][0] * ((double)R[1][1] * R[2][2] - (double)R[1][2] * R[2][1]) -
               (double)R[0][1] * ((double)R[1][0] * R[2][2] - (double)R[1][2] * R[2][0]) +
               (double)R[0][2] * ((double)R[1][0] * R[2][1] - (double)R[1][1] * R[2][0]);
  FUZZ_REQUIRE(det > 0.0, "camera %u: det %g", i, det);
  splat_camera cam;
  FUZZ_REQUIRE(splat_camera_from_desc(&cam, d, 0, 0) == 0, "camera %u: accepted but unusable", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char name[] = "cameras.json";
  /* A copy of exactly `size` bytes (not NUL-terminated), so a read past the end is caught. */
  char *text = malloc(size ? size : 1);
  if (text == NULL) return 0;
  if (size) memcpy(text, data, size);
  static splat_camera_desc sentinel;
  splat_camera_desc *cams = &sentinel; /* must be overwritten */
  uint32_t count = 0xdeadbeefu;
  char err[1024];
  int rc = splat_cameras_parse(name, text, size, &cams, &count, err, sizeof err);
  free(text);
  if (rc != 0) {
    FUZZ_REQUIRE(rc == -1, "return value %d", rc);
    FUZZ_REQUIRE(cams == NULL && count == 0, "output not cleared after an error");
    fuzz_check_message(err, sizeof err, name);
    return 0;
  }
  FUZZ_REQUIRE((cams == NULL) == (count == 0), "%u cameras at %p", count, (void *)cams);
  for (uint32_t i = 0; i < count; ++i) check_camera(&cams[i], i);
  splat_cameras_free(cams);
  return 0;
}
