#!/bin/sh
# faults_stress.sh TEST_FAULTS OUT_DIR: several fault sweeps at once (issue 33), each with other
# upload settings (packing threads, splats per staging piece) and its own share of the cases, so
# that the sweeps' failure paths run beside each other and beside the rest of the suite. Each
# sweep names every case before it starts (OUT_DIR/sweep_N.cases, flushed); a failed sweep's log
# is printed, and its last case line says which case to replay with test_faults --only C.
set -u
bin=$1 out=$2
rm -rf "$out" && mkdir -p "$out" || { echo "faults_stress: cannot make $out"; exit 1; }
# threads, splats a piece, stride, offset: small pieces wrap the four-piece ring many times (652,
# 1,112 and 387 cases: about 18 runs each, as CI's time allows)
set -- "8 16 36 1" "16 7 64 5" "2 64 22 3"
n=0 pids=""
for s in "$@"; do
  set -- $s
  "$bin" --upload-threads "$1" --piece-splats "$2" --stride "$3" --offset "$4" --log "$out/sweep_$n.cases" \
    > "$out/sweep_$n.log" 2>&1 &
  pids="$pids $!"
  n=$((n + 1))
done
n=0 bad=0
for p in $pids; do
  if wait "$p"; then
    tail -n 1 "$out/sweep_$n.log"
  else
    echo "faults_stress: sweep $n failed (exit $?); its log:"
    cat "$out/sweep_$n.log"
    bad=1
  fi
  n=$((n + 1))
done
[ "$bad" = 0 ] && echo "faults_stress: $n sweeps at once passed"
exit "$bad"
