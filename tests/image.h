/* image.h: small image helpers for the image tests: PNG output (stb_image_write), PSNR,
 * a diff image and a blank-image check. Images are tightly packed RGBA8, rows top-down. */
#ifndef SPLAT_TEST_IMAGE_H
#define SPLAT_TEST_IMAGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes a w x h RGBA8 PNG. Returns 0, or -1 (nothing printed) when it cannot. */
int image_write_png(const char *path, uint32_t w, uint32_t h, const uint8_t *rgba8);

/* PSNR in dB over the RGB channels (alpha ignored), MAX = 255:
 * 10 log10(255^2 / MSE). Identical images give 999 (a large finite value). */
#define IMAGE_PSNR_IDENTICAL 999.0
double image_psnr(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h);

/* SSIM (Wang, Bovik, Sheikh and Simoncelli, IEEE TIP 2004) over the RGB channels (alpha
 * ignored): an 11x11 Gaussian window of sigma 1.5 (normalised), C1 = (0.01 L)^2, C2 = (0.03 L)^2,
 * L = 255, at every window position wholly inside the image, the SSIM map's mean per channel
 * and then over the three channels. 1 for identical images; NAN when a side is below 11
 * pixels (no window fits). */
#define IMAGE_SSIM_WINDOW 11
double image_ssim(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h);

/* Writes |a - b| per RGB channel, amplified 8x and clamped, opaque, as a PNG. */
int image_write_diff_png(const char *path, const uint8_t *a, const uint8_t *b, uint32_t w,
                         uint32_t h);

/* 1 when every pixel (all four channels) equals the first one (or the image is empty). */
int image_is_blank(const uint8_t *rgba8, uint32_t w, uint32_t h);

#ifdef __cplusplus
}
#endif

#endif
