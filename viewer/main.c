/* splatview: open a Gaussian-splat scene in a window, render it headless, or convert it. */
#include "app.h"
#include "convert.h"
#include "message.h"

int main(int argc, char **argv) {
  splatview_options o;
  char err[512];
  if (splatview_parse(argc, argv, &o, err, sizeof err) != 0) {
    viewer_error("%s", err);
    return 2;
  }
  app_set_load_options(&o);
  if (o.help) {
    splatview_usage(stdout);
    return 0;
  }
  if (o.convert_in) return splatview_convert(o.convert_in, o.convert_out, o.convert_lod);
  return o.headless ? splatview_run_headless(&o) : splatview_run_window(&o);
}
