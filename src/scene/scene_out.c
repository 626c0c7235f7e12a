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
#include <sys/stat.h>
#include <unistd.h>

int scene_out_open(scene_out *o, const char *path, const scene_error *e) {
  *o = (scene_out){.path = path};
  struct stat st;
  bool exists = lstat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    o->f = fopen(path, "wb");
    return o->f ? 0 : scene_fail(e, "cannot create: %s", strerror(errno));
  }
  static atomic_uint serial;
  size_t n = strlen(path) + 48;
  if (!(o->tmp = malloc(n))) return scene_fail(e, "out of memory");
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    snprintf(o->tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(), atomic_fetch_add(&serial, 1));
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
