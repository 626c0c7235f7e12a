/* Placeholder until the windowed viewer lands (issue 5). */
#include "app.h"

int splatview_run_window(const splatview_options *o) {
  (void)o;
  fprintf(stderr, "splatview: the windowed viewer is not built yet; use --headless\n");
  return 1;
}
