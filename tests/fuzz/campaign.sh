#!/bin/sh
# A long fuzzing campaign over the targets at once (tests/fuzz/RESULTS.md records them):
#   tests/fuzz/campaign.sh BUILD OUT SECONDS PLY_JOBS SPLAT_JOBS CAMERAS_JOBS [SPZ_JOBS [SOG_JOBS]]
# BUILD is a -DSPLATSORT_FUZZ=ON build (clang); each target runs in libFuzzer's fork mode with
# that many worker processes for SECONDS, from the committed seeds, keeping going after a crash
# (-ignore_crashes=1) so that every crash of the run is kept. Under OUT/<target>/: the grown
# corpus (corpus/), crash, timeout and out-of-memory inputs (artifacts/), the log, and the
# coverage of the seeds alone and of the grown corpus (libFuzzer's cov/ft of one pass, -runs=0).
# OUT/summary.txt: one line per target. CPU time = SECONDS x jobs.
set -eu
if [ $# -ne 6 ] && [ $# -ne 7 ]; then
  echo "usage: $0 BUILD OUT SECONDS PLY_JOBS SPLAT_JOBS CAMERAS_JOBS [SPZ_JOBS [SOG_JOBS]]" >&2
  exit 2
fi
build=$1 out=$2 secs=$3 spz_jobs=${7:-0}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

# cov/ft of one pass over the given corpus folders (no mutation).
coverage() {
  "$@" -runs=0 2>&1 | sed -n 's/.*INITED cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1 ft \2 inputs \3/p' | tail -1
}

start_target() { # target jobs
  t=$1 jobs=$2 d=$out/$1
  [ "$jobs" -gt 0 ] || return 0
  mkdir -p "$d/corpus" "$d/artifacts"
  dict=""
  [ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
  "$build/tests/fuzz_$t" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$d/artifacts/" $dict "$d/corpus" "$here/corpus/$t" > "$d/log.txt" 2>&1 &
}

start_target ply "$4"
start_target splat "$5"
start_target cameras "$6"
start_target spz "$spz_jobs"
start_target sog "${8:-0}"
wait

: > "$out/summary.txt"
for t in ply splat cameras spz sog; do
  d=$out/$t
  [ -d "$d" ] || continue
  jobs=$(case $t in ply) echo "$4" ;; splat) echo "$5" ;; cameras) echo "$6" ;; spz) echo "$spz_jobs" ;; sog) echo "${8:-0}" ;; esac)
  seeds=$(coverage "$build/tests/fuzz_$t" "$here/corpus/$t")
  grown=$(coverage "$build/tests/fuzz_$t" "$d/corpus" "$here/corpus/$t")
  # The last status line of fork mode: "#<execs>: cov: .. ft: .. corp: .. exec/s: .. oom/timeout/crash: a/b/c time: ..s job: .."
  last=$(grep -E '^#[0-9]+: cov:' "$d/log.txt" | tail -1)
  execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
  otc=$(echo "$last" | sed -n 's/.*oom\/timeout\/crash: \([0-9/]*\).*/\1/p')
  artifacts=$(ls "$d/artifacts" | wc -l)
  echo "$t: ${jobs} workers x ${secs} s; executions ${execs:-?}; seeds: ${seeds:-?}; after: ${grown:-?}; oom/timeout/crash ${otc:-?}; artifacts ${artifacts}" >> "$out/summary.txt"
done
cat "$out/summary.txt"
