#!/bin/bash
# All GPU measurements in one batch (the GPU machine is lent for minutes at a time).
# Usage on the GPU machine, from the repository root, after `. .gl/setup.sh`:
#   tests/bench/gpu_run.sh OUTDIR [BUILD_DIR]
# Writes CSV/TXT logs into OUTDIR and prints the tables. Steps can be chosen with
# GPU_STEPS="cub dists large render" (default: all).
set -u
out=${1:?usage: gpu_run.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
steps=${GPU_STEPS:-"cub dists large render"}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/$build/gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
has() { case " $steps " in *" $1 "*) return 0;; esac; return 1; }
log() { echo "== $*" | tee -a "$out/summary.txt"; }

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit $(cat "$build/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
  vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|driverInfo|apiVersion' | head -3
} | tee "$out/machine.txt"

if has dists; then
  log "sortbench: key distributions at 16M"
  "$build/tests/sortbench" --n 16M --algo onesweep,quaternary --dist all --runs 20 --warmup 5 \
      > "$out/sortbench_dists.txt" 2>&1
  tee -a "$out/summary.txt" < "$out/sortbench_dists.txt"
fi

if has cub && [ -f tests/bench/compare_cub.sh ]; then
  log "CUB comparison"
  N=1M,3M,4M,6M,16M,32M BUILD=$build OUT="$out/cub" sh tests/bench/compare_cub.sh 2>&1 | tee "$out/cub_compare.txt" | tee -a "$out/summary.txt"
fi

if has large; then
  log "large sort tests (scan levels) with validation"
  for a in quaternary onesweep; do
    SPLATSORT_VALIDATION=1 timeout 240 "$build/tests/test_sort" --algo $a --suite large 2>&1 | tail -4 | tee -a "$out/summary.txt"
  done
fi

if has render; then
  log "renderer: generated scenes at 1920x1080"
  for n in 1000000 6000000; do
    "$build/tests/gen_scene" --count $n --sh-degree 3 --seed 7 --out /tmp/scene_$n.ply > /dev/null
  done
  for n in 1000000 6000000; do
    for sort in onesweep quaternary; do
      for bits in 32 24 16; do
        frames=30; [ $n -gt 1000000 ] && frames=12
        echo "-- n=$n sort=$sort key_bits=$bits" | tee -a "$out/summary.txt"
        timeout 120 "$build/viewer/splatview" --headless /tmp/scene_$n.ply --bench --frames $frames --size 1920x1080 \
          --sort $sort --key-bits $bits --timings "$out/render_${n}_${sort}_${bits}.csv" 2>&1 | tee -a "$out/summary.txt"
      done
    done
  done
fi
