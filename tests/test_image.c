/* test_image: the image tests' own helpers (image.c) against cases worked by hand: SSIM of
 * identical images, of two constant images (the closed form), symmetry, images too small for
 * its window; optionally writes the two constant images for png_psnr's test (viewer.cmake). */
#include "check.h"
#include "image.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *image(uint32_t w, uint32_t h) { return malloc((size_t)w * h * 4); }

static void fill(uint8_t *img, uint32_t w, uint32_t h, uint8_t r, uint8_t g, uint8_t b) {
  const uint8_t px[4] = {r, g, b, 255};
  for (size_t i = 0; i < (size_t)w * h; i++) memcpy(img + i * 4, px, 4);
}

/* A deterministic pattern with detail at every scale the window sees (xorshift noise). */
static void noise(uint8_t *img, uint32_t w, uint32_t h, uint32_t seed) {
  uint32_t x = seed;
  for (size_t i = 0; i < (size_t)w * h * 4; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    img[i] = (uint8_t)(x >> 24);
  }
}

/* SSIM of two constant images: every window has sigma 0 and covariance 0, so the contrast-structure
 * term is C2 / C2 = 1 and each channel's value is (2 a b + C1) / (a^2 + b^2 + C1). */
static double constant_ssim(double a, double b) {
  const double C1 = (0.01 * 255) * (0.01 * 255);
  return (2 * a * b + C1) / (a * a + b * b + C1);
}

int main(int argc, char **argv) {
  const uint32_t w = 64, h = 48;
  uint8_t *a = image(w, h), *b = image(w, h);
  if (!a || !b) return 1;

  noise(a, w, h, 1);
  memcpy(b, a, (size_t)w * h * 4);
  CHECK_NEAR(image_ssim(a, b, w, h), 1.0, 1e-12);

  /* constant against constant: the closed form, per channel, averaged over the three */
  fill(a, w, h, 100, 0, 255);
  fill(b, w, h, 120, 0, 200);
  double expect = (constant_ssim(100, 120) + constant_ssim(0, 0) + constant_ssim(255, 200)) / 3;
  CHECK_NEAR(image_ssim(a, b, w, h), expect, 1e-9);
  CHECK_NEAR(constant_ssim(100, 120), 24006.5025 / 24406.5025, 1e-12); /* the formula worked by hand */
  CHECK_NEAR(image_ssim(b, a, w, h), expect, 1e-9);

  /* noise: below 1, symmetric, lower for stronger noise */
  noise(a, w, h, 2);
  memcpy(b, a, (size_t)w * h * 4);
  for (size_t i = 0; i < (size_t)w * h * 4; i += 7) b[i] = (uint8_t)(b[i] ^ 0x10);
  double mild = image_ssim(a, b, w, h);
  CHECK(mild < 1.0 && mild > 0.5, "mild noise: SSIM %.6f", mild);
  CHECK_NEAR(image_ssim(b, a, w, h), mild, 1e-12);
  noise(b, w, h, 3);
  double unrelated = image_ssim(a, b, w, h);
  CHECK(unrelated < mild && fabs(unrelated) < 0.1, "unrelated noise: SSIM %.6f (mild %.6f)", unrelated, mild);

  /* no 11x11 window fits */
  CHECK(isnan(image_ssim(a, b, 10, 48)), "10 pixels wide: not NAN");
  CHECK(isnan(image_ssim(a, b, 64, 10)), "10 pixels high: not NAN");
  CHECK(!isnan(image_ssim(a, b, 11, 11)), "11x11: NAN");

  if (argc == 2) { /* the constant pair for png_psnr: 100 against 120 in every channel */
    char path[4096];
    fill(a, w, h, 100, 100, 100);
    fill(b, w, h, 120, 120, 120);
    snprintf(path, sizeof path, "%s/ssim_100.png", argv[1]);
    CHECK(image_write_png(path, w, h, a) == 0, "cannot write %s", path);
    snprintf(path, sizeof path, "%s/ssim_120.png", argv[1]);
    CHECK(image_write_png(path, w, h, b) == 0, "cannot write %s", path);
    printf("expected SSIM of the pair: %.5f\n", constant_ssim(100, 120));
  }
  free(a);
  free(b);
  return check_report("test_image");
}
