/* xdnd_drop: drops files on an X11 window the way a file manager does (the XDND protocol,
 * version 5, text/uri-list), so splatview's drag-and-drop can be tested under Xvfb.
 *
 *   xdnd_drop [--shift] [--close] TITLE FILE...
 *
 * Waits (up to 60 s) for a top-level window whose name contains TITLE and that accepts drops,
 * drops each FILE on it in turn (one drop each, waiting for the window to finish it), then
 * with --close asks the window to close (WM_DELETE_WINDOW, as a window manager's close button).
 * With --shift the window is sent a Shift key press before the drops and its release after
 * them (a synthetic KeyPress, as a user holding Shift while dropping).
 * Exit 0 when every drop was accepted and finished, 1 otherwise. */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_S 60.0

static Display *dpy;
static Atom XdndAware, XdndEnter, XdndPosition, XdndStatus, XdndDrop, XdndFinished, XdndSelection, XdndActionCopy,
    uri_list, WM_PROTOCOLS, WM_DELETE_WINDOW;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void send_message(Window to, Atom type, long l0, long l1, long l2, long l3, long l4) {
  XEvent e;
  memset(&e, 0, sizeof e);
  e.xclient.type = ClientMessage;
  e.xclient.display = dpy;
  e.xclient.window = to;
  e.xclient.message_type = type;
  e.xclient.format = 32;
  e.xclient.data.l[0] = l0;
  e.xclient.data.l[1] = l1;
  e.xclient.data.l[2] = l2;
  e.xclient.data.l[3] = l3;
  e.xclient.data.l[4] = l4;
  XSendEvent(dpy, to, False, NoEventMask, &e);
  XFlush(dpy);
}

/* Left Shift pressed or released on window `to`. */
static void send_shift(Window to, int press) {
  XEvent e;
  memset(&e, 0, sizeof e);
  e.xkey.type = press ? KeyPress : KeyRelease;
  e.xkey.display = dpy;
  e.xkey.window = to;
  e.xkey.root = DefaultRootWindow(dpy);
  e.xkey.time = CurrentTime;
  e.xkey.keycode = XKeysymToKeycode(dpy, XK_Shift_L);
  e.xkey.same_screen = True;
  XSendEvent(dpy, to, True, press ? KeyPressMask : KeyReleaseMask, &e);
  XFlush(dpy);
}

static int accepts_drops(Window w) {
  Atom type;
  int format;
  unsigned long n, after;
  unsigned char *data = NULL;
  int ok = XGetWindowProperty(dpy, w, XdndAware, 0, 1, False, AnyPropertyType, &type, &format, &n, &after, &data) ==
               Success &&
           type != None && n > 0;
  if (data) XFree(data);
  return ok;
}

static Window find_window(const char *title) {
  double deadline = now_s() + TIMEOUT_S;
  while (now_s() < deadline) {
    Window root_ret, parent, *children = NULL;
    unsigned int count = 0;
    Window found = 0;
    if (XQueryTree(dpy, DefaultRootWindow(dpy), &root_ret, &parent, &children, &count)) {
      for (unsigned int i = 0; i < count && !found; i++) {
        char *name = NULL;
        if (XFetchName(dpy, children[i], &name) && name) {
          if (strstr(name, title) && accepts_drops(children[i])) found = children[i];
          XFree(name);
        }
      }
      if (children) XFree(children);
    }
    if (found) return found;
    usleep(100000);
  }
  return 0;
}

/* "file://" + the absolute path, bytes outside a safe set percent-encoded, CRLF-ended. */
static int file_uri(const char *path, char *out, size_t n) {
  char abs[PATH_MAX];
  if (!realpath(path, abs)) {
    fprintf(stderr, "xdnd_drop: %s: no such file\n", path);
    return -1;
  }
  size_t o = (size_t)snprintf(out, n, "file://");
  for (const unsigned char *p = (const unsigned char *)abs; *p && o + 4 < n; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/._-~", *p))
      out[o++] = (char)*p;
    else
      o += (size_t)snprintf(out + o, n - o, "%%%02X", *p);
  }
  if (o + 3 > n) return -1;
  memcpy(out + o, "\r\n", 3);
  return 0;
}

/* Serves the window's request for the dropped data. */
static void answer_selection(const XSelectionRequestEvent *req, const char *uri) {
  XEvent reply;
  memset(&reply, 0, sizeof reply);
  reply.xselection.type = SelectionNotify;
  reply.xselection.display = dpy;
  reply.xselection.requestor = req->requestor;
  reply.xselection.selection = req->selection;
  reply.xselection.target = req->target;
  reply.xselection.time = req->time;
  reply.xselection.property = None;
  if (req->target == uri_list && req->property != None) {
    XChangeProperty(dpy, req->requestor, req->property, uri_list, 8, PropModeReplace, (const unsigned char *)uri,
                    (int)strlen(uri));
    reply.xselection.property = req->property;
  }
  XSendEvent(dpy, req->requestor, False, NoEventMask, &reply);
  XFlush(dpy);
}

/* Waits for a client message of `type` to src, answering selection requests meanwhile. */
static int wait_for(Window src, Atom type, const char *uri, XClientMessageEvent *out) {
  double deadline = now_s() + TIMEOUT_S;
  while (now_s() < deadline) {
    while (XPending(dpy)) {
      XEvent e;
      XNextEvent(dpy, &e);
      if (e.type == SelectionRequest) answer_selection(&e.xselectionrequest, uri);
      if (e.type == ClientMessage && e.xclient.window == src && e.xclient.message_type == type) {
        *out = e.xclient;
        return 0;
      }
    }
    usleep(10000);
  }
  return -1;
}

static int drop(Window src, Window target, const char *path) {
  char uri[3 * PATH_MAX + 16];
  if (file_uri(path, uri, sizeof uri) != 0) return -1;
  int x, y;
  Window child;
  XWindowAttributes wa;
  XGetWindowAttributes(dpy, target, &wa);
  XTranslateCoordinates(dpy, target, DefaultRootWindow(dpy), wa.width / 2, wa.height / 2, &x, &y, &child);
  XSetSelectionOwner(dpy, XdndSelection, src, CurrentTime);
  send_message(target, XdndEnter, (long)src, 5L << 24, (long)uri_list, 0, 0);
  send_message(target, XdndPosition, (long)src, 0, ((long)x << 16) | (y & 0xFFFF), CurrentTime, (long)XdndActionCopy);
  XClientMessageEvent m;
  if (wait_for(src, XdndStatus, uri, &m) != 0) {
    fprintf(stderr, "xdnd_drop: %s: the window did not answer the drag\n", path);
    return -1;
  }
  if (!(m.data.l[1] & 1)) {
    fprintf(stderr, "xdnd_drop: %s: the window refused the drop\n", path);
    send_message(target, XInternAtom(dpy, "XdndLeave", False), (long)src, 0, 0, 0, 0);
    return -1;
  }
  send_message(target, XdndDrop, (long)src, 0, CurrentTime, 0, 0);
  if (wait_for(src, XdndFinished, uri, &m) != 0) {
    fprintf(stderr, "xdnd_drop: %s: the window did not finish the drop\n", path);
    return -1;
  }
  printf("xdnd_drop: dropped %s\n", path);
  return 0;
}

int main(int argc, char **argv) {
  int i = 1, close_after = 0, shift = 0;
  if (i < argc && !strcmp(argv[i], "--shift")) shift = 1, i++;
  if (i < argc && !strcmp(argv[i], "--close")) close_after = 1, i++;
  if (argc - i < 1) {
    fprintf(stderr, "usage: xdnd_drop [--shift] [--close] TITLE FILE...\n");
    return 1;
  }
  const char *title = argv[i++];
  if (!(dpy = XOpenDisplay(NULL))) {
    fprintf(stderr, "xdnd_drop: cannot open the X display\n");
    return 1;
  }
  XdndAware = XInternAtom(dpy, "XdndAware", False);
  XdndEnter = XInternAtom(dpy, "XdndEnter", False);
  XdndPosition = XInternAtom(dpy, "XdndPosition", False);
  XdndStatus = XInternAtom(dpy, "XdndStatus", False);
  XdndDrop = XInternAtom(dpy, "XdndDrop", False);
  XdndFinished = XInternAtom(dpy, "XdndFinished", False);
  XdndSelection = XInternAtom(dpy, "XdndSelection", False);
  XdndActionCopy = XInternAtom(dpy, "XdndActionCopy", False);
  uri_list = XInternAtom(dpy, "text/uri-list", False);
  WM_PROTOCOLS = XInternAtom(dpy, "WM_PROTOCOLS", False);
  WM_DELETE_WINDOW = XInternAtom(dpy, "WM_DELETE_WINDOW", False);

  Window target = find_window(title);
  if (!target) {
    fprintf(stderr, "xdnd_drop: no window named '%s' accepting drops within %.0f s\n", title, TIMEOUT_S);
    XCloseDisplay(dpy);
    return 1;
  }
  Window src = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
  int status = 0;
  if (shift) send_shift(target, 1);
  for (; i < argc; i++)
    if (drop(src, target, argv[i]) != 0) status = 1;
  if (shift) send_shift(target, 0);
  if (close_after) send_message(target, WM_PROTOCOLS, (long)WM_DELETE_WINDOW, CurrentTime, 0, 0, 0);
  XDestroyWindow(dpy, src);
  XCloseDisplay(dpy);
  return status;
}
