#!/bin/bash
# The compute raster with crowded tiles against evenly spread ones (issue 36), in one batch on
# the GPU machine, each case rendered by every splatview given in turn (A/B in the same run):
#   even:   a generated SH-3 ball (gen_scene --seed 100) framed whole at 1080p: its pairs spread
#           over most of the image;
#   far:    the same ball from 8 radii away, and from 16: every pair in the few tiles it covers;
#   tiled:  with CROWD_SCENE, CROWD_COPIES copies of that capture on a grid (tile_scene), from
#           tile_scene's views (aerial: the whole grid from above; mid; street).
# splatview --headless --bench, OneSweep, 32-bit keys, raster compute, medians after the warm-up;
# nvidia-smi's clocks beside each run; the share of tiles each image covers (tile_share.py).
# Usage on the GPU machine, from the repository root, after `. .gl/setup.sh`:
#   bench/raster/crowd_run.sh OUTDIR BINDIR NAME=SPLATVIEW [NAME=SPLATVIEW ...]
# BINDIR holds gen_scene and tile_scene. Env: CROWD_N (default 6000000), CROWD_FRAMES (60),
# CROWD_SCENE (a capture; none: no tiled case), CROWD_COPIES (100), CROWD_SIZE (1920x1080).
set -u
out=${1:?usage: crowd_run.sh OUTDIR BINDIR NAME=SPLATVIEW...}
bin=${2:?usage: crowd_run.sh OUTDIR BINDIR NAME=SPLATVIEW...}
shift 2
n=${CROWD_N:-6000000}
frames=${CROWD_FRAMES:-60}
size=${CROWD_SIZE:-1920x1080}
here=$(dirname "$0")
mkdir -p "$out"
. "$here/../../tests/bench/clocks.sh"
trap clocks_stop EXIT
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  for a in "$@"; do echo "binary ${a%%=*}: $(cat "${a#*=}.commit" 2>/dev/null)"; done
} | tee "$out/machine.txt"

ball=/tmp/crowd_ball_$n.ply
[ -f "$ball" ] || "$bin/gen_scene" --count "$n" --sh-degree 3 --seed 100 --out "$ball" > /dev/null || exit 1
cases=("even|$ball|" "far8|$ball|--eye 0,0,-8 --target 0,0,0" "far16|$ball|--eye 0,0,-16 --target 0,0,0")
if [ -n "${CROWD_SCENE:-}" ]; then
  tiled=/tmp/crowd_tiled.ply
  "$bin/tile_scene" --scene "$CROWD_SCENE" --copies "${CROWD_COPIES:-100}" --out "$tiled" --views "$out/views.txt" \
    > "$out/tile_scene.txt" 2>&1 || exit 1
  while read -r v eye target up; do cases+=("tiled_$v|$tiled|--eye $eye --target $target --up $up"); done < "$out/views.txt"
fi

printf '%-14s %-8s %10s %9s %9s %9s %9s %9s %10s  %s\n' case binary pairs pairs_ms tsort_ms blend_ms raster_ms \
  total_ms blend_ns/pr tiles | tee "$out/table.txt"
for c in "${cases[@]}"; do
  IFS='|' read -r name scene view <<< "$c"
  for a in "$@"; do
    tag=${name}_${a%%=*}
    clocks_start "$out/$tag.clocks.csv"
    # shellcheck disable=SC2086 # $view is a list of options
    timeout 300 "${a#*=}" --headless "$scene" --bench --frames "$frames" --warmup 5 --size "$size" --sort onesweep \
      --key-bits 32 --raster compute $view --timings "$out/$tag.csv" --out "$out/$tag.png" > "$out/$tag.txt" 2>&1
    echo "exit $?" >> "$out/$tag.txt"
    clocks_stop >> "$out/$tag.txt"
    med() { awk -v s="$1" '$0 ~ "^ *"s" +[0-9.]+ " {print $(NF-3)}' "$out/$tag.txt" | head -1; }
    pairs=$(sed -n 's/.*up to \([0-9]*\) (tile, splat) pairs.*/\1/p' "$out/$tag.txt")
    blend=$(med blend)
    share=$(python3 "$here/tile_share.py" "$out/$tag.png" 2>&1 | sed 's/covered //')
    printf '%-14s %-8s %10s %9s %9s %9s %9s %9s %10s  %s\n' "$name" "${a%%=*}" "$pairs" "$(med pairs)" \
      "$(med 'tile sort')" "$blend" "$(med raster)" "$(med total)" \
      "$(awk -v b="$blend" -v p="$pairs" 'BEGIN { if (p > 0) printf "%.3f", b * 1e6 / p }')" "$share" |
      tee -a "$out/table.txt"
  done
done
