/* The viewer's output files (the PNG, the --timings CSV): complete under their name or not there
 * at all, and every write checked (out_file.c). */
#ifndef SPLATVIEW_OUT_FILE_H
#define SPLATVIEW_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A regular file (or a new one) is written under a temporary name in the same folder
 * ("<path>.tmp-<pid>-<n>") and renamed over `path` by viewer_out_close once every byte is written
 * and the file closed without error; anything else (/dev/full, /dev/stdout, a FIFO, a symbolic
 * link) is written in place, since a rename would replace it. */
typedef struct viewer_out {
  FILE *f;
  char *path;
  char *tmp; /* NULL: written in place */
} viewer_out;

/* Returns 0, or -1 with "<path>: cannot create: <strerror>" in err. */
int viewer_out_open(viewer_out *o, const char *path, char *err, size_t err_size);
/* Checks every write so far (ferror), the flush and the close, then renames: returns 0, or -1
 * with "<path>: write failed: <strerror>" in err and the temporary file removed. Accepts a
 * zeroed viewer_out (0). */
int viewer_out_close(viewer_out *o, char *err, size_t err_size);
/* Closes and removes the temporary file (after a failure of the caller's). Accepts a zeroed one. */
void viewer_out_discard(viewer_out *o);

#endif
