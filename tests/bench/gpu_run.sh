#!/bin/bash
# All GPU measurements of the performance record (docs/performance.md) in one batch (the GPU machine is
# lent for minutes at a time).
# Usage on the GPU machine, from the repository root, after `. .gl/setup.sh`:
#   tests/bench/gpu_run.sh OUTDIR [BUILD_DIR]
# Writes CSV/TXT logs into OUTDIR and prints the tables. Steps can be chosen with
# GPU_STEPS="cub spread render slow large" (default: all but large).
set -u
out=${1:?usage: gpu_run.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
steps=${GPU_STEPS:-"cub spread render slow"}
here=$(dirname "$0")
mkdir -p "$out"
has() { case " $steps " in *" $1 "*) return 0;; esac; return 1; }
log() { echo "== $*" | tee -a "$out/summary.txt"; }
# nvidia-smi's clocks every 20 ms beside each timed step, OUTDIR/clocks_STEP.csv, and a one-line
# summary (compare_cub.sh and slowmode.sh sample their own runs)
. "$here/clocks.sh"
trap clocks_stop EXIT

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit $(cat "$build/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
  vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|driverInfo|apiVersion' | head -3
} | tee "$out/machine.txt"

if has cub; then
  log "CUB and splatsort side by side (32/24/16-bit keys)"
  N=${CUB_N:-64K,256K,1M,3M,6M,16M,32M} BUILD=$build OUT="$out/cub" sh "$here/compare_cub.sh" 2>&1 |
    tee "$out/cub_compare.txt" | tee -a "$out/summary.txt"
fi

if has spread; then
  log "spread over 8 fresh processes x 50 runs, 16M and 32M"
  clocks_start "$out/clocks_spread.csv"
  "$build/tests/sortbench" --n 16M,32M --algo onesweep,quaternary --runs 50 --processes 8 --csv \
    > "$out/spread.csv" 2> "$out/spread.err"
  clocks_stop | tee -a "$out/summary.txt"
  python3 "$here/spread.py" "$out/spread.csv" | tee -a "$out/summary.txt"
  log "the same with --verify full (a CPU reference sort of every configuration before measuring)"
  clocks_start "$out/clocks_spread_full.csv"
  "$build/tests/sortbench" --n 16M,32M --algo onesweep,quaternary --runs 50 --processes 8 --csv --verify full \
    > "$out/spread_full.csv" 2> "$out/spread_full.err"
  clocks_stop | tee -a "$out/summary.txt"
  python3 "$here/spread.py" "$out/spread_full.csv" | tee -a "$out/summary.txt"
  log "per-stage medians"
  clocks_start "$out/clocks_stages.csv"
  "$build/tests/sortbench" --n 64K,256K,1M,3M,6M,16M,32M --algo onesweep,quaternary --runs 50 --stages --copy \
    --pipeline-stats 2>&1 | tee "$out/stages.txt" >> "$out/summary.txt"
  clocks_stop | tee -a "$out/summary.txt"
fi

if has render; then
  log "renderer: 6M generated SH-3 scene at 1920x1080, OneSweep 32-bit keys, 4 fresh processes"
  "$build/tests/gen_scene" --count 6000000 --sh-degree 3 --seed 7 --out /tmp/scene_6M.ply > /dev/null
  for p in 1 2 3 4; do
    echo "-- process $p" | tee -a "$out/summary.txt"
    clocks_start "$out/clocks_render_6M_$p.csv"
    timeout 150 "$build/viewer/splatview" --headless /tmp/scene_6M.ply --bench --frames 30 --size 1920x1080 \
      --sort onesweep --key-bits 32 --timings "$out/render_6M_$p.csv" 2>&1 | tee -a "$out/summary.txt"
    clocks_stop | tee -a "$out/summary.txt"
  done
fi

if has slow; then
  log "slow-mode check: 32M, 16M, 8M in one process (the old reproducer), 4 fresh processes"
  PROCS=4 STEPS="desc" "$here/slowmode.sh" "$out/slow" "$build" 2>&1 | tee -a "$out/summary.txt"
fi

if has large; then
  log "large sort tests (scan levels) with validation"
  for a in quaternary onesweep; do
    SPLATSORT_VALIDATION=1 timeout 240 "$build/tests/test_sort" --algo $a --suite large 2>&1 | tail -4 |
      tee -a "$out/summary.txt"
  done
fi
