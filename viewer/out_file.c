/* The viewer's output files: a temporary name renamed on success, so that a full disk or a
 * failed write never leaves a partial PNG or CSV (out_file.h). */
#include "out_file.h"
#include "message.h"

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

static int fail(const char *path, const char *what, int error, char *err, size_t n) {
  snprintf(err, n, "%s: %s: %s", viewer_path(path), what, strerror(error));
  return -1;
}

int viewer_out_open(viewer_out *o, const char *path, char *err, size_t n) {
  *o = (viewer_out){0};
  struct stat st;
  bool exists = lstat(path, &st) == 0;
  if (!(o->path = strdup(path))) return fail(path, "cannot create", ENOMEM, err, n);
  if (exists && !S_ISREG(st.st_mode)) {
    int error = 0;
    if ((o->f = open_special(path, &error))) return 0;
    viewer_out_discard(o);
    return fail(path, error == ENXIO ? "cannot write (a FIFO nobody reads?)" : "cannot create", error, err, n);
  }
  static atomic_uint serial;
  size_t size = strlen(path) + 48;
  int fd = -1, error = ENOMEM;
  if ((o->tmp = malloc(size)))
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
      temp_name(o->tmp, size, path, atomic_fetch_add(&serial, 1));
      fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* less the umask, as fopen */
      error = errno;
      if (fd < 0 && error != EEXIST) break;
    }
  if (fd >= 0) {
    if (exists) (void)fchmod(fd, st.st_mode & 07777); /* the replaced file's permissions */
    if ((o->f = fdopen(fd, "w"))) return 0;
    error = errno;
    close(fd);
  } else {
    free(o->tmp); /* nothing was created */
    o->tmp = NULL;
  }
  viewer_out_discard(o);
  return fail(path, "cannot create", error, err, n);
}

int viewer_out_close(viewer_out *o, char *err, size_t n) {
  if (!o->f) return 0;
  int error = 0;
  if (fflush(o->f) != 0 || ferror(o->f)) error = errno ? errno : EIO;
  if (fclose(o->f) != 0 && !error) error = errno ? errno : EIO;
  o->f = NULL;
  if (!error && o->tmp && rename(o->tmp, o->path) != 0) error = errno;
  int rc = error ? fail(o->path, "write failed", error, err, n) : 0;
  viewer_out_discard(o);
  return rc;
}

void viewer_out_discard(viewer_out *o) {
  if (o->f) fclose(o->f);
  if (o->tmp) remove(o->tmp); /* after a rename nothing is left under this name */
  free(o->tmp);
  free(o->path);
  *o = (viewer_out){0};
}
