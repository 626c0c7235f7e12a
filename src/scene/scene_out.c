/* scene_out.c: the writers' output file. A regular file (or a new one) is written under a
 * temporary name in the same folder and renamed over `path` only once every byte is written and
 * the file closed without error, so a full disk or a failed write never leaves a partial file
 * (and never destroys the file that was there). Anything else (a device such as /dev/full, a
 * FIFO, a symbolic link) is written in place: renaming over it would replace it. */
#include "scene_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

/* The temporary beside `path`: "<path>.tmp-<pid>-<n>", or, where that name would pass NAME_MAX
 * (a legal name of 230 bytes or more), ".splatsort-<pid>-<n>.tmp" in the same folder. */
static void temp_name(char *out, size_t n, const char *path, unsigned serial) {
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  if (strlen(base) + 32 <= NAME_MAX) {
    snprintf(out, n, "%s.tmp-%ld-%u", path, (long)getpid(), serial);
    return;
  }
  snprintf(out, n, "%.*s.splatsort-%ld-%u.tmp", (int)(base - path), path, (long)getpid(), serial);
}

/* A path that is there but not a regular file (a FIFO, /dev/null, a terminal) is written as it is,
 * opened without blocking: a FIFO nobody reads is refused (ENXIO) rather than waited on. */
static FILE *open_special(const char *path, int *error) {
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *error = errno == ENXIO ? ENXIO : errno;
    return NULL;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "wb");
  if (!f) *error = errno, close(fd);
  return f;
}

int scene_out_open(scene_out *o, const char *path, const scene_error *e) {
  *o = (scene_out){.path = path};
  struct stat st;
  bool exists = lstat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    int error = 0;
    o->f = open_special(path, &error);
    return o->f ? 0 : scene_fail(e, "cannot %s: %s", error == ENXIO ? "write (a FIFO nobody reads?)" : "create",
                                 strerror(error));
  }
  static atomic_uint serial;
  size_t n = strlen(path) + 48;
  if (!(o->tmp = malloc(n))) return scene_fail(e, "out of memory");
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    temp_name(o->tmp, n, path, atomic_fetch_add(&serial, 1));
    fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* 0666 less the umask, as fopen */
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    int err = errno;
    free(o->tmp);
    o->tmp = NULL;
    return scene_fail(e, "cannot create: %s", strerror(err));
  }
  if (exists) (void)fchmod(fd, st.st_mode & 07777); /* the replaced file's permissions */
  if (!(o->f = fdopen(fd, "wb"))) {
    int err = errno;
    close(fd);
    scene_out_discard(o);
    return scene_fail(e, "cannot create: %s", strerror(err));
  }
  return 0;
}

int scene_out_close(scene_out *o, const scene_error *e) {
  int err = 0;
  if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
  if (fclose(o->f) != 0 && !err) err = errno ? errno : EIO;
  o->f = NULL;
  if (!err && o->tmp && rename(o->tmp, o->path) != 0) err = errno;
  scene_out_discard(o);
  return err ? scene_fail(e, "write failed: %s", strerror(err)) : 0;
}

void scene_out_discard(scene_out *o) {
  if (o->f) fclose(o->f);
  if (o->tmp) remove(o->tmp); /* after a successful rename there is nothing under this name */
  free(o->tmp);
  *o = (scene_out){0};
}
