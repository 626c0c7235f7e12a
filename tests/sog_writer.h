/* sog_writer.h: a test-only writer of PlayCanvas SOG scenes (the format: src/scene/scene_sog.h),
 * so the tests can make SOG files of every SH degree and version from scenes they know.
 *
 * Version 2 follows splat-transform's writer (writers/write-sog.ts) in layout and quantisation:
 * texture width ceil(sqrt(n) / 4) * 4 and height ceil(n / width / 4) * 4, positions as 16 bits
 * truncated after sign(x) ln(|x| + 1), quaternion components and opacity truncated to bytes,
 * file names and meta.json members as it writes them, stored zip entries with data
 * descriptors for a bundle. Version 1 follows the sogs Python tool (sogs_compression.py): a
 * square texture (the count must be a square), per-channel mins/maxs, bytes rounded.
 * What differs, as encoder choices the format leaves open: splats keep their order (no Morton
 * or PLAS sort); codebooks are 256 evenly spaced values over the data's range (splat-transform
 * fits them to the data), each value taking the nearest; the SH palette is every splat's own
 * SH when there are at most `palette_max` splats, else `palette_max` groups of splats scattered
 * over the scene (sog_palette_groups), each entry the SH of its group's first splat (no
 * k-means: lossy, but labels as varied as a real file's, for load timing); the
 * WebP images are encoded with `exact` on, so bytes under a zero opacity survive (the simple
 * libwebp call splat-transform makes may change them). */
#ifndef SPLAT_TESTS_SOG_WRITER_H
#define SPLAT_TESTS_SOG_WRITER_H

#include "splat_scene.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sog_write_options {
  uint32_t version;     /* 1 or 2; 0 means 2 */
  uint32_t palette_max; /* SH palette entries at most, 1..65536; 0 means 65536 */
  const char *model;    /* meta.json's "model" (version 2), or NULL for none */
  const char *prefix;   /* put before every image's file name ("sub/" puts them in a folder) */
} sog_write_options;

/* One written file, in memory. */
typedef struct sog_blob {
  char name[48];
  uint8_t *data;
  size_t size;
} sog_blob;

/* meta.json first, then the images in meta.json's order. */
typedef struct sog_output {
  sog_blob blob[8];
  uint32_t count;
} sog_output;

/* The writer's SH palette for n splats and `entries` entries (entries < n): splat i takes entry
 * label[i] (every entry is used), whose values are those of splat first[entry]. Splats are
 * spread over the entries by a permutation, so neighbouring splats take unrelated entries as
 * k-means labels do. */
void sog_palette_groups(uint32_t n, uint32_t entries, uint32_t *label, uint32_t *first);

/* Encodes s. Returns 0, or -1 with a message in err. */
int sog_write(const splat_scene *s, const sog_write_options *o, sog_output *out, char *err, size_t err_size);

/* The blob called `name`, or NULL. */
sog_blob *sog_output_find(sog_output *out, const char *name);

/* Writes every blob into the folder dir (created when missing). */
int sog_output_save(const sog_output *out, const char *dir, char *err, size_t err_size);

/* A .sog bundle of the blobs: stored entries with data descriptors as splat-transform writes,
 * or deflated ones (which the engine reads too). Returns a malloc'd block, or NULL. */
uint8_t *sog_output_zip(const sog_output *out, bool deflate, size_t *size);

void sog_output_free(sog_output *out);

/* rgba (w x h) as a WebP in b->data (malloc'd; b->name untouched): lossless as the writer's
 * images, or lossy (quality 90) for tests of what the reader refuses. Returns 0 or -1. */
int sog_encode_webp(const uint8_t *rgba, uint32_t w, uint32_t h, bool lossless, sog_blob *b);

/* Writes size bytes to path. Returns 0, or -1 with a message in err. */
int sog_save_file(const char *path, const void *data, size_t size, char *err, size_t err_size);
/* The bytes of the file at path into a malloc'd block (*data, NUL-terminated after *size bytes,
 * so a text file is a C string). Returns 0, or -1. */
int sog_load_file(const char *path, uint8_t **data, size_t *size);

#endif
