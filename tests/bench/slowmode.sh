#!/bin/bash
# The "slow mode" experiment (issue 8): why does a sort sometimes run 2-3x slower than the
# same sort in another process or configuration? Each step runs fresh processes and records
# every run's times (--timeline: sort, the copy that restores the input in the same command
# buffer, each stage), so that a slowdown can be placed in time. The answer (issue 22): the GPU's
# clock. An idle GPU (here: during the CPU reference sort between measurements) drops its SM
# clock and ramps it back in steps; nvidia-smi, sampling beside it every 20 ms, shows it (the
# first study sampled every 100 ms, missed it and blamed host memory traffic through the
# virtualisation layer: docs/performance.md, "Steady timings"). The host-memory steps below
# (fresh, transient, ...) are kept to reproduce that study.
#
# On the GPU machine, from the project root, after `. .gl/setup.sh`:
#   tests/bench/slowmode.sh OUTDIR [BUILD_DIR]
# Environment: PROCS (processes per step, default 3), STEPS (a subset of "desc fresh
# transient cpuonly readback noverify warm idle single dedicated quaternary"; default all but
# warm, idle and single).
set -u
out=${1:?usage: slowmode.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
PROCS=${PROCS:-3}
STEPS=${STEPS:-"desc fresh transient cpuonly readback noverify dedicated quaternary"}
bench=$build/tests/sortbench
here=$(dirname "$0")
mkdir -p "$out"
has() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }

if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,utilization.memory,memory.used,clocks_event_reasons.active \
    --format=csv -lms 20 > "$out/smi.csv" 2>&1 &
  smi=$!
fi

# step NAME DESCRIPTION sortbench-args...
step() {
  local name=$1 what=$2
  shift 2
  echo "== $name: $what ($PROCS processes)"
  date -u +"%H:%M:%S.%N" > "$out/$name.start"
  rm -f "$out/$name.timeline.csv"
  "$bench" "$@" --copy --timeline "$out/$name.timeline.csv" --processes "$PROCS" --csv > "$out/$name.csv" \
    2> "$out/$name.err"
  python3 "$here/spread.py" "$out/$name.csv"
  python3 "$here/timeline.py" "$out/$name.timeline.csv"
}

D=${NDESC:-32M,16M,8M}
has desc && step desc "32M, 16M, 8M in one process, buffers for 32M, host memory kept in the process" \
  --n $D --algo onesweep --runs 20 --warmup 5 --lookback-stats
has fresh && step fresh "the same, host memory returned to the OS and faulted in anew (glibc default)" \
  --n $D --algo onesweep --runs 20 --warmup 5 --lookback-stats --host-memory fresh
has transient && step transient "the same, a fresh staging buffer for every upload and read-back" \
  --n $D --algo onesweep --runs 20 --warmup 5 --staging transient --host-memory fresh
has cpuonly && step cpuonly "fresh staging buffers, CPU reference sort but no read-back" \
  --n $D --algo onesweep --runs 20 --warmup 5 --staging transient --host-memory fresh --verify cpu-only
has readback && step readback "fresh staging buffers, read-back but no CPU reference sort" \
  --n $D --algo onesweep --runs 20 --warmup 5 --staging transient --host-memory fresh --verify readback-only
has noverify && step noverify "fresh staging buffers, neither CPU reference nor read-back" \
  --n $D --algo onesweep --runs 20 --warmup 5 --staging transient --host-memory fresh --verify none
has warm && step warm "fresh staging buffers, 200 warm-up sorts in the same submission" \
  --n $D --algo onesweep --runs 20 --warmup 200 --staging transient --host-memory fresh
has idle && step idle "16M alone, GPU idle 2 s before the submission" \
  --n ${N16:-16M} --algo onesweep --runs 20 --warmup 5 --idle-ms 2000
has single && step single "16M alone" --n ${N16:-16M} --algo onesweep --runs 20 --warmup 5
has dedicated && step dedicated "32M, 16M, 8M, four dedicated allocations, kept staging buffer" \
  --n $D --algo onesweep --runs 20 --warmup 5 --alloc dedicated
has quaternary && step quaternary "quaternary, 32M then 16M, kept staging buffer" \
  --n ${NQ:-32M,16M} --algo quaternary --runs 10 --warmup 3
[ -n "${smi:-}" ] && kill "$smi" 2> /dev/null
exit 0
