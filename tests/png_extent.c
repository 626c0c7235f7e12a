/* png_extent: how much of a rendered PNG holds the scene, on a black background: the shares of
 * its rows and of its columns with a pixel above 8/255 in some channel. A scene seen edge-on is a
 * thin strip: few rows.
 * usage: png_extent IMAGE.png MIN_ROWS MIN_COLUMNS
 * Prints "png_extent: IMAGE (WxH): rows 0.62, columns 0.80"; exit 0, or 1 below a minimum or
 * when the file is unreadable. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <stb_image.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: png_extent IMAGE.png MIN_ROWS MIN_COLUMNS\n");
    return 2;
  }
  int w, h, n;
  uint8_t *img = stbi_load(argv[1], &w, &h, &n, 3);
  if (!img) {
    fprintf(stderr, "png_extent: cannot read %s: %s\n", argv[1], stbi_failure_reason());
    return 1;
  }
  char *row = calloc((size_t)h, 1), *col = calloc((size_t)w, 1);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = img + ((size_t)y * (size_t)w + (size_t)x) * 3;
      if (p[0] > 8 || p[1] > 8 || p[2] > 8) row[y] = col[x] = 1;
    }
  int rows = 0, cols = 0;
  for (int y = 0; y < h; y++) rows += row[y];
  for (int x = 0; x < w; x++) cols += col[x];
  double fr = (double)rows / h, fc = (double)cols / w;
  printf("png_extent: %s (%dx%d): rows %.2f, columns %.2f\n", argv[1], w, h, fr, fc);
  free(row), free(col);
  stbi_image_free(img);
  return fr >= atof(argv[2]) && fc >= atof(argv[3]) ? 0 : 1;
}
