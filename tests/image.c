/* image.c: PNG output through the system stb_image_write (libstb provides the code),
 * PSNR, SSIM and diff images for the image tests. */
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

/* The window's weights: a normalised 1D Gaussian of sigma 1.5 (the 2D window is its outer product). */
static void ssim_weights(double g[IMAGE_SSIM_WINDOW]) {
  double sum = 0.0;
  for (int i = 0; i < IMAGE_SSIM_WINDOW; i++) {
    double x = i - IMAGE_SSIM_WINDOW / 2;
    g[i] = exp(-x * x / (2.0 * 1.5 * 1.5));
    sum += g[i];
  }
  for (int i = 0; i < IMAGE_SSIM_WINDOW; i++) g[i] /= sum;
}

/* The mean SSIM of channel c over the window positions inside the image: the five local moments
 * (x, y, x^2, y^2, xy) filtered along rows into `rows` (5 planes of ow x h), then down columns. */
static double ssim_channel(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h, int c, double *rows) {
  const double C1 = (0.01 * 255) * (0.01 * 255), C2 = (0.03 * 255) * (0.03 * 255);
  const uint32_t k = IMAGE_SSIM_WINDOW, ow = w - k + 1, oh = h - k + 1;
  const size_t plane = (size_t)ow * h;
  double g[IMAGE_SSIM_WINDOW];
  ssim_weights(g);
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < ow; x++) {
      double m[5] = {0, 0, 0, 0, 0};
      for (uint32_t i = 0; i < k; i++) {
        size_t p = ((size_t)y * w + x + i) * 4 + (size_t)c;
        double u = a[p], v = b[p], moment[5] = {u, v, u * u, v * v, u * v};
        for (int q = 0; q < 5; q++) m[q] += g[i] * moment[q];
      }
      for (int q = 0; q < 5; q++) rows[q * plane + (size_t)y * ow + x] = m[q];
    }
  double sum = 0.0;
  for (uint32_t y = 0; y < oh; y++)
    for (uint32_t x = 0; x < ow; x++) {
      double m[5] = {0, 0, 0, 0, 0};
      for (uint32_t i = 0; i < k; i++)
        for (int q = 0; q < 5; q++) m[q] += g[i] * rows[q * plane + (size_t)(y + i) * ow + x];
      double mx = m[0], my = m[1], vx = m[2] - mx * mx, vy = m[3] - my * my, cxy = m[4] - mx * my;
      sum += (2 * mx * my + C1) * (2 * cxy + C2) / ((mx * mx + my * my + C1) * (vx + vy + C2));
    }
  return sum / ((double)ow * oh);
}

double image_ssim(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h) {
  if (w < IMAGE_SSIM_WINDOW || h < IMAGE_SSIM_WINDOW) return NAN;
  double *rows = malloc(sizeof(double) * 5 * (size_t)(w - IMAGE_SSIM_WINDOW + 1) * h);
  if (!rows) return NAN;
  double sum = 0.0;
  for (int c = 0; c < 3; c++) sum += ssim_channel(a, b, w, h, c, rows);
  free(rows);
  return sum / 3.0;
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
