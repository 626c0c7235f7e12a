/* scene_splat.c: the antimatter15 .splat reader (32 bytes a splat, no header). */
#include "scene_common.h"

#include <stdio.h>
#include <stdlib.h>

/* antimatter15 .splat: per splat 3 float position, 3 float linear scale, RGBA
 * bytes (colour = 0.5 + C0 * f_dc, alpha = opacity), rotation bytes w,x,y,z
 * encoded as q*128+128. */
static void decode_rows(const scene_rows *rows, const uint8_t *data, uint64_t n, splat_scene *out, uint64_t *slot,
                        uint32_t *clamped) {
  (void)rows, (void)clamped;
  uint32_t kept = (uint32_t)*slot;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *r = data + i * 32;
    float p[3], s[3], q[4], sh[3];
    memcpy(p, r, sizeof p);
    memcpy(s, r + 12, sizeof s);
    for (int c = 0; c < 3; ++c) sh[c] = (float)(((double)r[24 + c] / 255.0 - 0.5) / SPLAT_SH_C0);
    float opacity = (float)r[27] / 255.0f;
    for (int c = 0; c < 4; ++c) q[c] = ((float)r[28 + c] - 128.0f) / 128.0f;
    kept += scene_put(out, kept, p, s, q, opacity, sh, 3);
  }
  *slot = kept;
}

static int check_size(size_t size, scene_rows *rows, const scene_error *e) {
  if (size % 32 != 0)
    return scene_fail(e, "size %zu is not a multiple of 32 bytes, so not a .splat file "
                         "(%zu bytes left over)", size, size % 32);
  *rows = (scene_rows){.count = size / 32, .offset = 0, .stride = 32, .sh_degree = 0, .decode = decode_rows};
  return 0;
}

int scene_load_splat(const uint8_t *data, size_t size, splat_scene *out, const scene_error *e) {
  scene_rows rows;
  if (check_size(size, &rows, e) != 0) return -1;
  return scene_decode_memory(data, &rows, out, e);
}

int scene_load_splat_file(int fd, size_t size, unsigned threads, splat_scene *out, const scene_error *e) {
  scene_rows rows;
  if (check_size(size, &rows, e) != 0) return -1;
  return scene_decode_file(fd, size, &rows, threads, out, e);
}
