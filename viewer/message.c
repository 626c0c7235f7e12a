/* splatview's messages: what a user gave (a file name, an argument) is printed with anything a
 * terminal would act on replaced by '?' (message.h). */
#include "message.h"

#include "splat_scene.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void viewer_printable(char *s) { splat_scene_printable(s); }

const char *viewer_path(const char *path) {
  enum { SLOTS = 8, SIZE = 1024, KEEP = 1000 };
  static _Thread_local char buf[SLOTS][SIZE];
  static _Thread_local unsigned next;
  char *b = buf[next++ % SLOTS];
  if (!path) return "(null)";
  size_t n = strlen(path);
  if (n > KEEP) {
    n = KEEP;
    while (n > 0 && ((unsigned char)path[n] & 0xC0) == 0x80) n--; /* not inside a UTF-8 character */
  }
  memcpy(b, path, n);
  strcpy(b + n, strlen(path) > n ? "..." : "");
  viewer_printable(b);
  return b;
}

void viewer_error(const char *fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  viewer_printable(line);
  fprintf(stderr, "splatview: %s\n", line);
}

void viewer_log_init(viewer_log *l) {
  *l = (viewer_log){.hold = false};
  pthread_mutex_init(&l->lock, NULL);
}

void viewer_log_fn(void *user, const char *message) {
  viewer_log *l = user;
  char line[1024];
  snprintf(line, sizeof line, "%s", message);
  viewer_printable(line);
  pthread_mutex_lock(&l->lock);
  bool keep = l->hold && !l->held[0];
  if (keep) memcpy(l->held, line, sizeof line);
  pthread_mutex_unlock(&l->lock);
  if (!keep) fprintf(stderr, "%s\n", line);
}

void viewer_log_take(viewer_log *l, char *out, size_t n) {
  pthread_mutex_lock(&l->lock);
  snprintf(out, n, "%s", l->held);
  l->held[0] = 0;
  pthread_mutex_unlock(&l->lock);
}

void viewer_log_hold(viewer_log *l, bool hold) {
  char left[1024];
  viewer_log_take(l, left, sizeof left);
  pthread_mutex_lock(&l->lock);
  l->hold = hold;
  pthread_mutex_unlock(&l->lock);
  if (left[0]) fprintf(stderr, "%s\n", left);
}
