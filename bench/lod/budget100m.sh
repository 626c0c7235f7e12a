#!/bin/bash
# budget100m.sh BIN SCENE COPIES: the frame at a budget on a tiled real capture (issue 35, part 4),
# on the GPU machine: tile_scene COPIES copies of SCENE (1000 x a 90K-splat capture: ~90M splats),
# its tree (splatview --convert --lod), then per view (tile_scene --views) every splat and
# --budget 10M and 3M: median frame and stage times over frames 20..LOD_FRAMES (GPU timestamps,
# --timings) and PSNR/SSIM against every splat. Results under $OUT/budget/ (table.tsv, run.log).
set -u
BIN=$(cd "${1:?usage: budget100m.sh BIN SCENE COPIES}" && pwd); SCENE=${2:?}; COPIES=${3:?}
: "${OUT:?set OUT}"
SV=$BIN/splatview; W=${LOD_WORK:-/tmp/lod-budget}; R=$OUT/budget; FR=${LOD_FRAMES:-60}
mkdir -p "$W" "$R/img" "$R/csv" "$R/logs"
log() { echo "$(date +%T) $*" | tee -a "$R/run.log"; }
t0=$(date +%s); "$BIN/tile_scene" --scene "$SCENE" --copies "$COPIES" --out "$W/full.ply" --views "$R/views.txt" > "$R/logs/tile.txt" 2>&1 || exit 1
log "tiled in $(($(date +%s) - t0)) s: $(tail -1 "$R/logs/tile.txt")"
t0=$(date +%s); "$SV" --convert "$W/full.ply" "$W/lod.ply" --lod > "$R/logs/convert.txt" 2>&1 || { log "convert failed"; exit 1; }
log "tree in $(($(date +%s) - t0)) s"; rm -f "$W/full.ply"
med() { awk -F, -v c="$2" 'NR > 21 { print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf 'view\trun\tvisible\ttotal_ms\tprojection_ms\tsort_ms\traster_ms\tlod_cut_ms\tpsnr_db\tssim\n' > "$R/table.tsv"
while read -r view eye target up; do
  for run in full b10m b3m; do
    opt=(--no-lod); [ $run = b10m ] && opt=(--budget 10000000); [ $run = b3m ] && opt=(--budget 3000000)
    "$SV" --headless "$W/lod.ply" --size 1920x1080 --raster compute --frames "$FR" --eye "$eye" --target "$target" --up "$up" \
      "${opt[@]}" --timings "$R/csv/${view}_$run.csv" --out "$R/img/${view}_$run.png" > "$R/logs/${view}_$run.txt" 2>&1 || { log "$view $run failed"; continue; }
    c=$R/csv/${view}_$run.csv
    q="-	-"; [ $run != full ] && q=$("$BIN/png_psnr" "$R/img/${view}_full.png" "$R/img/${view}_$run.png" | sed -E 's/.*PSNR ([0-9.inf]+) dB, SSIM ([0-9.]+).*/\1\t\2/')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$view" "$run" "$(tail -1 "$c" | cut -d, -f6)" "$(med "$c" 5)" "$(med "$c" 2)" \
      "$(med "$c" 3)" "$(med "$c" 4)" "$(med "$c" 18)" "$q" >> "$R/table.tsv"
    log "$view $run done"
  done
done < "$R/views.txt"
cat "$R/table.tsv"; rm -rf "$W"
