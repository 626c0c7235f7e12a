/* image.c: PNG output through the system stb_image_write (libstb provides the code),
 * PSNR and diff images for the image tests. */
#include "image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

int image_write_png(const char *path, uint32_t w, uint32_t h, const uint8_t *rgba8) {
  if (!path || !rgba8 || w == 0 || h == 0 || w > 65535 || h > 65535) return -1;
  return stbi_write_png(path, (int)w, (int)h, 4, rgba8, (int)(w * 4)) ? 0 : -1;
}

double image_psnr(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h) {
  size_t n = (size_t)w * h;
  if (n == 0) return IMAGE_PSNR_IDENTICAL;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      double d = (double)a[i * 4 + (size_t)c] - (double)b[i * 4 + (size_t)c];
      sum += d * d;
    }
  if (sum == 0.0) return IMAGE_PSNR_IDENTICAL;
  double mse = sum / (double)(n * 3);
  return 10.0 * log10(255.0 * 255.0 / mse);
}

int image_write_diff_png(const char *path, const uint8_t *a, const uint8_t *b, uint32_t w,
                         uint32_t h) {
  size_t n = (size_t)w * h;
  if (n == 0) return -1;
  uint8_t *d = malloc(n * 4);
  if (!d) return -1;
  for (size_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) {
      int v = abs((int)a[i * 4 + (size_t)c] - (int)b[i * 4 + (size_t)c]) * 8;
      d[i * 4 + (size_t)c] = (uint8_t)(v > 255 ? 255 : v);
    }
    d[i * 4 + 3] = 255;
  }
  int rc = image_write_png(path, w, h, d);
  free(d);
  return rc;
}

int image_is_blank(const uint8_t *rgba8, uint32_t w, uint32_t h) {
  size_t n = (size_t)w * h;
  for (size_t i = 1; i < n; i++)
    if (memcmp(rgba8 + i * 4, rgba8, 4) != 0) return 0;
  return 1;
}
