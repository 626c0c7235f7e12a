/* scene.c: the public load calls: the format by content and name, files and folders (with
 * progress and cancellation), and memory; the readers are in scene_<format>.c. */
#include "scene_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), m = strlen(suffix);
  if (n < m) return false;
  for (size_t i = 0; i < m; ++i) {
    char c = name[n - m + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

static bool has_ply_magic(const uint8_t *d, size_t size) {
  return size >= 4 && memcmp(d, "ply", 3) == 0 && (d[3] == '\n' || (size >= 5 && d[3] == '\r' && d[4] == '\n'));
}

/* The format by content, then by name; *out zeroed on failure. */
static int load_memory(const uint8_t *d, size_t size, splat_scene *out, const scene_error *e) {
  bool zip_magic = size >= 4 && memcmp(d, "PK\x03\x04", 4) == 0;
  int rc;
  /* .splat has no magic, and its first bytes (a float) can look like gzip's 1f 8b or a zip's
   * "PK": the name decides for it before those magics do */
  if (has_ply_magic(d, size))
    rc = scene_load_ply(d, size, out, e);
  else if (has_suffix(e->name, ".splat"))
    rc = scene_load_splat(d, size, out, e);
  else if (scene_is_spz(d, size) || has_suffix(e->name, ".spz"))
    rc = scene_load_spz(d, size, out, e);
  else if (zip_magic)
    rc = scene_load_sog_bundle(d, size, out, e);
  else if (has_suffix(e->name, ".ply"))
    rc = scene_fail(e, "not a PLY file: it does not start with the line \"ply\"");
  else if (has_suffix(e->name, ".sog"))
    rc = scene_fail(e, "not a bundled SOG file: it is not a zip archive (no \"PK\" local header at the start)");
  else if (has_suffix(e->name, ".json"))
    rc = scene_fail(e, "a SOG meta.json names image files beside it: load it by path (splat_scene_load), "
                       "not from memory");
  else
    rc = scene_fail(e, "unknown format: no PLY magic (\"ply\" line), no .spz magic (gzip or \"NGSP\"), no zip "
                       "archive (bundled SOG), and not named *.splat");
  if (rc != 0) memset(out, 0, sizeof *out);
  return rc;
}

int splat_scene_load_memory(const void *data, size_t size, const char *name, splat_scene *out,
                            char *err, size_t err_size) {
  scene_error e = {name ? name : "<memory>", err, err_size, NULL};
  if (err != NULL && err_size > 0) err[0] = '\0';
  if (out == NULL) return scene_fail(&e, "no output scene given");
  memset(out, 0, sizeof *out);
  if (data == NULL && size > 0) return scene_fail(&e, "no data given");
  if (size == 0) return scene_fail(&e, "empty file");
  return load_memory(data, size, out, &e);
}

/* Binary .ply and .splat in pieces straight from the file (scene_decode_file); SCENE_FALLBACK
 * for anything else, and for what the whole-file path reports (a file that cannot be opened,
 * is not regular or is empty). */
static int load_pieces(const char *path, unsigned threads, splat_scene *out, const scene_error *e) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return SCENE_FALLBACK;
  struct stat st;
  uint8_t magic[5];
  int rc = SCENE_FALLBACK;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX) {
    size_t size = (size_t)st.st_size, m = size < 5 ? size : 5;
    if (pread(fd, magic, m, 0) == (ssize_t)m) {
      if (has_ply_magic(magic, m))
        rc = scene_load_ply_file(fd, size, threads, out, e);
      else if (has_suffix(path, ".splat"))
        rc = scene_load_splat_file(fd, size, threads, out, e);
    }
  }
  close(fd);
  return rc;
}

/* A zip (a .sog bundle) is read from its end first: without an end-of-central-directory record in
 * its last 65,557 bytes (22 and the longest comment) it is refused before its bulk is read. */
static int zip_has_end(const char *path, const scene_error *e) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0; /* scene_read_file says why */
  struct stat st;
  uint8_t head[4], *tail = NULL;
  int rc = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 22 && pread(fd, head, 4, 0) == 4 &&
      memcmp(head, "PK\3\4", 4) == 0) {
    size_t n = st.st_size < 65557 ? (size_t)st.st_size : 65557;
    if ((tail = malloc(n)) != NULL && pread(fd, tail, n, (off_t)(st.st_size - (off_t)n)) == (ssize_t)n) {
      bool found = false;
      for (size_t k = n - 22 + 1; k-- > 0 && !found;) found = memcmp(tail + k, "PK\5\6", 4) == 0;
      if (!found)
        rc = scene_fail(e, "a zip without an end-of-central-directory record in its last %zu bytes (truncated, or "
                           "padded): not read further", n);
    }
  }
  free(tail);
  close(fd);
  return rc;
}

int splat_scene_load_ex2(const char *path, splat_scene *out, const splat_load_options *options, char *err,
                         size_t err_size) {
  const splat_load_progress *progress = options ? options->progress : NULL;
  scene_progress prog = {progress, false};
  scene_stream stream = {options ? options->on_part : NULL, options ? options->part_user : NULL, false, false};
  scene_pool pool = {1, options ? options->pool : NULL};
  scene_error e = {path ? path : "<null>", err, err_size, progress ? &prog : NULL, &pool, &stream,
                   options ? options->max_memory : 0, options ? options->lod_level : 0,
                   options ? options->max_splats : 0};
  if (err != NULL && err_size > 0) err[0] = '\0';
  if (out == NULL) return scene_fail(&e, "no output scene given");
  memset(out, 0, sizeof *out);
  if (path == NULL) return scene_fail(&e, "no path given");
  if (options != NULL && options->next != NULL) return scene_fail(&e, "options->next must be NULL");
  unsigned threads = options ? options->threads : 0;
  if (threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 1 ? (unsigned)n : 1;
  }
  pool.threads = threads;
  int rc;
  /* A folder is a SOG scene when it holds a meta.json. */
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    rc = scene_load_sog_dir(path, out, &e);
  } else if (has_suffix(path, "lod-meta.json")) {
    /* a streamed SOG bundle: its size is checked before it is read */
    rc = scene_load_sog_lod(path, out, &e);
  } else if ((threads == 1 && pool.host == NULL) || (rc = load_pieces(path, threads, out, &e)) == SCENE_FALLBACK) {
    uint8_t *data;
    size_t size;
    rc = zip_has_end(path, &e);
    if (rc == 0) rc = scene_read_file(path, &data, &size, &e);
    if (rc == 0) {
      /* what the decoders allocate and the file held meanwhile share the budget */
      scene_error de = e;
      uint64_t limit = scene_budget(&e);
      de.budget = limit > size ? limit - size : 1;
      /* A SOG meta.json names the images beside it, so it is read by path, not from memory. */
      if (!has_ply_magic(data, size) && has_suffix(path, ".json"))
        rc = scene_load_sog_meta(path, data, size, out, &de);
      else
        rc = load_memory(data, size, out, &de);
      free(data);
    }
  }
  /* a format that did not stream hands its scene over whole */
  if (rc == 0 && !stream.begun && scene_stream_part(&stream, out, 0, out->count, &e) != 0) {
    splat_scene_free(out);
    rc = -1;
  }
  if (rc != 0) memset(out, 0, sizeof *out);
  return prog.cancelled || stream.cancelled ? SPLAT_SCENE_CANCELLED : rc;
}

int splat_scene_load_ex(const char *path, splat_scene *out, const splat_load_progress *progress, char *err,
                        size_t err_size) {
  splat_load_options options = {.progress = progress, .threads = 1};
  return splat_scene_load_ex2(path, out, &options, err, err_size);
}

int splat_scene_load(const char *path, splat_scene *out, char *err, size_t err_size) {
  return splat_scene_load_ex(path, out, NULL, err, err_size);
}
