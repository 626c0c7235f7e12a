#!/bin/bash
# Scale record (issue 12) in one batch on the GPU machine: a generated 100M-splat SH-3 scene
# rendered headless (load time, upload time, per-stage GPU times, peak GPU memory from
# nvidia-smi), and the sort at the largest count the device allows.
# Usage on the GPU machine, from the repository root, after `. .gl/setup.sh`:
#   tests/bench/large_run.sh OUTDIR [BUILD_DIR]
# Env: LARGE_N (default 100000000), LARGE_SIZE (default 1280x720), LARGE_FRAMES (default 6).
set -u
out=${1:?usage: large_run.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
n=${LARGE_N:-100000000}
size=${LARGE_SIZE:-1280x720}
frames=${LARGE_FRAMES:-6}
scene=${LARGE_SCENE:-/tmp/large_$n.ply}
mkdir -p "$out"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit $(cat "$build/COMMIT" 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  vulkaninfo 2>/dev/null | grep -E 'deviceName|driverInfo|maxStorageBufferRange|maxMemoryAllocationSize|maxBufferSize' | sort -u
  free -g | head -2
  df -h /tmp | tail -1
} | tee "$out/machine.txt"

# GPU memory in use, every 0.2 s, while the steps below run
nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader,nounits -lms 200 > "$out/gpu_memory.csv" &
smi=$!
. "$(dirname "$0")/clocks.sh" # and the clocks beside each timed run, every 20 ms
trap 'kill $smi 2>/dev/null; clocks_stop' EXIT

echo "== gen_scene $n splats, SH degree 3" | tee -a "$out/summary.txt"
t0=$(date +%s.%N)
"$build/tests/gen_scene" --count "$n" --sh-degree 3 --seed 100 --out "$scene" > "$out/gen.txt" 2>&1 || { cat "$out/gen.txt"; exit 1; }
t1=$(date +%s.%N)
echo "generated $(stat -c %s "$scene") bytes in $(python3 -c "print(round($t1 - $t0, 1))") s" | tee -a "$out/summary.txt"

echo "== splatview --headless --bench, $size, $frames frames" | tee -a "$out/summary.txt"
base=$(awk -F', ' 'NR==1{print $2}' "$out/gpu_memory.csv")
clocks_start "$out/clocks_splatview.csv"
/usr/bin/time -v "$build/viewer/splatview" --headless "$scene" --bench --frames "$frames" --warmup 1 --size "$size" \
  --timings "$out/timings.csv" > "$out/splatview.txt" 2> "$out/splatview.err"
echo "exit $?" >> "$out/splatview.txt"
clocks_stop >> "$out/splatview.txt"
cat "$out/splatview.txt" | tee -a "$out/summary.txt"
grep -E "Maximum resident|Elapsed" "$out/splatview.err" | tee -a "$out/summary.txt"
grep -v -E "^\s" "$out/splatview.err" | head -5
peak=$(awk -F', ' '{if ($2 > m) m = $2} END {print m}' "$out/gpu_memory.csv")
echo "GPU memory: ${base} MiB before, peak ${peak} MiB during the run (nvidia-smi, 0.2 s samples)" | tee -a "$out/summary.txt"
rm -f "$scene"

echo "== sort at the device's largest count" | tee -a "$out/summary.txt"
range=$(vulkaninfo 2>/dev/null | awk '/maxStorageBufferRange/ {print $NF; exit}')
alloc=$(vulkaninfo 2>/dev/null | awk '/maxMemoryAllocationSize/ {print $NF; exit}')
max=$(python3 -c "r=int('$range' or '0',0) or 1<<62; a=int('$alloc' or '0',0) or 1<<62; print(min(1<<30, r//4, a//4))")
echo "maxStorageBufferRange $range, maxMemoryAllocationSize $alloc: largest count $max" | tee -a "$out/summary.txt"
clocks_start "$out/clocks_sort_max.csv"
"$build/tests/sortbench" --n "$max" --algo onesweep,quaternary --runs 5 --warmup 1 --warmup-ms 0 --alloc separate \
  > "$out/sort_max.txt" 2>&1
echo "exit $?" >> "$out/sort_max.txt"
clocks_stop >> "$out/sort_max.txt"
cat "$out/sort_max.txt" | tee -a "$out/summary.txt"
