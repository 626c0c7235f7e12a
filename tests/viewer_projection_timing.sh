#!/bin/sh
# The projection's GPU time must not depend on the raster path that follows it. On lavapipe the
# graphics path once read 0.07 ms against the compute path's 4.3 ms (same scene): its timestamps
# were stamped late (src/render/frame.c, timestamp()). Two runs' absolute times would differ with
# the machine's load, so each run's projection is taken relative to its depth sort (same frame,
# same load), and the two ratios must agree within a factor of 4 (the bug made it ~35).
# usage: viewer_projection_timing.sh SPLATVIEW GEN_SCENE OUTDIR
set -eu
view=$1 gen=$2 out=$3
"$gen" --count 100000 --sh-degree 3 --seed 5 --out "$out/timing.ply" > /dev/null
# median of a CSV column over the frames after the first two (pipelines warm)
median() {
  awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
                       NR > 3 { print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for r in graphics compute; do
  "$view" --headless "$out/timing.ply" --raster "$r" --frames 9 --size 160x120 --timings "$out/timing_$r.csv" > /dev/null
  p=$(median "$out/timing_$r.csv" projection_ms) s=$(median "$out/timing_$r.csv" depth_sort_ms)
  echo "$r: projection $p ms, depth sort $s ms (medians)"
  eval "ratio_$r=\$(awk -v p=\"\$p\" -v s=\"\$s\" 'BEGIN { print (s > 0 ? p / s : 0) }')"
done
awk -v g="$ratio_graphics" -v c="$ratio_compute" 'BEGIN {
  printf "projection / depth sort: graphics %.3f, compute %.3f\n", g, c
  if (!(g > 0 && c > 0 && g < 4 * c && c < 4 * g)) { print "the two paths disagree about the projection"; exit 1 }
}'
