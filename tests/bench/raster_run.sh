#!/bin/bash
# Compute raster against the graphics raster on the GPU machine (issue 13), in one batch:
# generated SH-3 scenes (1M and 6M splats by default) rendered headless with
# `splatview --bench` at 1920x1080 (and 1280x720), OneSweep, 32-bit keys, each raster path in
# turn in the same run; then test_render's compute-raster image checks on this GPU.
# Usage on the GPU machine, from the repository root, after `. .gl/setup.sh`:
#   tests/bench/raster_run.sh OUTDIR [BUILD_DIR]
# Env: RASTER_N (default "1000000 6000000"), RASTER_SIZES (default "1920x1080 1280x720"),
#      RASTER_FRAMES (default 60, after at least 5 warm-up frames and until the frame times settle),
#      RASTER_PATHS (default "compute graphics"). nvidia-smi's clocks beside each run: OUTDIR/TAG.clocks.csv.
set -u
out=${1:?usage: raster_run.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
counts=${RASTER_N:-"1000000 6000000"}
sizes=${RASTER_SIZES:-"1920x1080 1280x720"}
frames=${RASTER_FRAMES:-60}
paths=${RASTER_PATHS:-"compute graphics"}
mkdir -p "$out"
. "$(dirname "$0")/clocks.sh"
trap clocks_stop EXIT
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit $(cat "$build/COMMIT" 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|driverInfo' | head -2
} | tee "$out/machine.txt"

for n in $counts; do
  scene=/tmp/raster_$n.ply
  [ -f "$scene" ] || "$build/tests/gen_scene" --count "$n" --sh-degree 3 --seed 100 --out "$scene" > /dev/null || exit 1
  for size in $sizes; do
    for path in $paths; do
      tag=${n}_${size}_${path}
      echo "== $n splats, $size, raster $path" | tee -a "$out/summary.txt"
      clocks_start "$out/$tag.clocks.csv"
      timeout 300 "$build/viewer/splatview" --headless "$scene" --bench --frames "$frames" --warmup 5 \
        --size "$size" --sort onesweep --key-bits 32 --raster "$path" --timings "$out/$tag.csv" \
        --out "$out/$tag.png" > "$out/$tag.txt" 2>&1
      echo "exit $?" >> "$out/$tag.txt"
      clocks_stop >> "$out/$tag.txt"
      grep -v -E "^\s*$" "$out/$tag.txt" | tee -a "$out/summary.txt"
    done
  done
done

echo "== test_render compute on this GPU (images against the CPU reference and the graphics raster)" |
  tee -a "$out/summary.txt"
SPLATSORT_VALIDATION=0 timeout 300 "$build/tests/test_render" compute --out "$out/test_render" \
  --scene assets/leica-sofort.ply > "$out/test_render_compute.txt" 2>&1
echo "exit $?" >> "$out/test_render_compute.txt"
grep -E "lowest|overflow|empty|FAIL|check|exit" "$out/test_render_compute.txt" | tee -a "$out/summary.txt"
