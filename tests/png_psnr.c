/* png_psnr: the PSNR and SSIM between two PNGs of one size (image.h's: RGB, MAX 255; SSIM with
 * an 11x11 Gaussian window), e.g. the compute and graphics rasters' headless images.
 * usage: png_psnr A.png B.png [MIN_DB [MIN_SSIM]]
 * Prints one line, "png_psnr: A vs B (WxH): PSNR 35.12 dB, SSIM 0.98765" (", blank" after it
 * when either image is blank; "SSIM n/a" below 11 pixels a side); exit 0, or 1 when the PSNR is
 * below MIN_DB or the SSIM below MIN_SSIM, the sizes differ or a file is unreadable, or when
 * either image is blank. */
#include "image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <stb_image.h>

int main(int argc, char **argv) {
  if (argc < 3 || argc > 5) {
    fprintf(stderr, "usage: png_psnr A.png B.png [MIN_DB [MIN_SSIM]]\n");
    return 2;
  }
  int w[2], h[2], n;
  uint8_t *img[2];
  for (int i = 0; i < 2; i++) {
    img[i] = stbi_load(argv[1 + i], &w[i], &h[i], &n, 4);
    if (!img[i]) {
      fprintf(stderr, "png_psnr: cannot read %s: %s\n", argv[1 + i], stbi_failure_reason());
      return 1;
    }
  }
  if (w[0] != w[1] || h[0] != h[1]) {
    fprintf(stderr, "png_psnr: %s is %dx%d, %s is %dx%d\n", argv[1], w[0], h[0], argv[2], w[1], h[1]);
    return 1;
  }
  double p = image_psnr(img[0], img[1], (uint32_t)w[0], (uint32_t)h[0]);
  double s = image_ssim(img[0], img[1], (uint32_t)w[0], (uint32_t)h[0]);
  int blank = image_is_blank(img[0], (uint32_t)w[0], (uint32_t)h[0]) || image_is_blank(img[1], (uint32_t)w[1], (uint32_t)h[1]);
  double min = argc >= 4 ? atof(argv[3]) : 0.0, min_ssim = argc == 5 ? atof(argv[4]) : -INFINITY;
  char ssim[32];
  if (isnan(s)) snprintf(ssim, sizeof ssim, "n/a");
  else snprintf(ssim, sizeof ssim, "%.5f", s);
  printf("png_psnr: %s vs %s (%dx%d): PSNR %.2f dB, SSIM %s%s\n", argv[1], argv[2], w[0], h[0], p, ssim,
         blank ? ", blank" : "");
  stbi_image_free(img[0]);
  stbi_image_free(img[1]);
  int ssim_ok = argc < 5 || (!isnan(s) && s >= min_ssim);
  return p >= min && ssim_ok && !blank ? 0 : 1;
}
