/* splatview: open a Gaussian-splat scene in a window, or render it headless. */
#include "app.h"

int main(int argc, char **argv) {
  splatview_options o;
  char err[512];
  if (splatview_parse(argc, argv, &o, err, sizeof err) != 0) {
    fprintf(stderr, "splatview: %s\n", err);
    return 2;
  }
  if (o.help) {
    splatview_usage(stdout);
    return 0;
  }
  return o.headless ? splatview_run_headless(&o) : splatview_run_window(&o);
}
