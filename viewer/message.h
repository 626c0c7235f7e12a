/* Messages that name user-given things (paths, arguments) without letting them steer the
 * terminal (message.c). */
#ifndef SPLATVIEW_MESSAGE_H
#define SPLATVIEW_MESSAGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#if defined(__GNUC__)
#define VIEWER_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define VIEWER_PRINTF(a, b)
#endif

/* Replaces, in place, every byte of s that could steer a terminal with '?': C0 controls (ESC,
 * newline included), DEL, C1 controls (U+0080..U+009F) and bytes that are not UTF-8 (a lone
 * 0x9B is CSI to some terminals). Other UTF-8 is kept. */
void viewer_printable(char *s);

/* `path` as a message may show it (viewer_printable, at most 1,000 bytes then "..."), in one of
 * eight buffers of this thread used in turn: valid until eight more calls on the thread. */
const char *viewer_path(const char *path);

/* "splatview: <message>\n" on stderr, the message made printable as one line: a path or a
 * library's message in it cannot end the line or reach the terminal as an escape sequence. */
void viewer_error(const char *fmt, ...) VIEWER_PRINTF(1, 2);

/* The renderer's log (splat_renderer_create_info.log, user = a viewer_log): each message on its
 * own line on stderr, except while `hold` is set: then the first is kept in `held` for the
 * caller to put into its own line. An upload the renderer refuses is then one line that names
 * the file and says why ("big.ply: a scene of 30000 splats ... needs about 6.5 MiB ...; the
 * renderer's memory budget is 4.00 MiB; ..."), not the renderer's line followed by a generic
 * "cannot upload (VK_ERROR_OUT_OF_DEVICE_MEMORY)". */
typedef struct viewer_log {
  pthread_mutex_t lock;
  bool hold;
  char held[1024];
} viewer_log;
void viewer_log_init(viewer_log *l);
void viewer_log_fn(void *user, const char *message);
/* Starts holding (held cleared) or stops; stopping prints a message still held. */
void viewer_log_hold(viewer_log *l, bool hold);
/* Takes the held message into out (n bytes; "" when there is none) and clears it. */
void viewer_log_take(viewer_log *l, char *out, size_t n);

#endif
