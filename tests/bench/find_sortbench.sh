# Sourced by the bench scripts: sets $bench to tests/sortbench in $BUILD, or else in the first of
# build, build-* that has one, and stops the calling script with a message when there is none.
if [ -z "${BUILD:-}" ]; then
  for d in build build-*; do
    if [ -x "$d/tests/sortbench" ]; then BUILD=$d; break; fi
  done
fi
bench=${BUILD:-build}/tests/sortbench
[ -x "$bench" ] || { echo "${0##*/}: no sortbench at $bench (set BUILD)" >&2; exit 1; }
