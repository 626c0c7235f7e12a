#!/bin/bash
# compare.sh BIN SCENE DECDIR COPIES: our level-of-detail cut against splat-transform's uniform
# decimation on a scene of real structure (issue 35), on the GPU machine. BIN holds splatview,
# tile_scene and png_psnr; DECDIR the decimations of SCENE made by decimate.sh (<name>.dec<P>.ply).
# Results under $OUT/<name>/ (bench/lod/README.md says what each file is).
#   1. tile_scene: COPIES copies of SCENE on a grid, and of each decimation with the same grid and
#      turns (--frame-from SCENE: decimating the tiled scene would decimate each copy alone, as
#      the copies do not touch), and the three views of the grid (aerial, mid, street);
#   2. splatview --convert --lod: the tiled scene in its tree's order and its tree;
#   3. per view: every splat (the reference image, and the visible count V), each decimation
#      drawn whole (its visible count D), and our cut with --budget D (the steering converges
#      over the frames; the last frame is kept with its visible count);
#   4. PSNR and SSIM of each image against the reference: table.tsv and table.md.
#   LOD_SIZE (1920x1080), LOD_FRAMES (60: frames of a budget run), LOD_WORK (/tmp/lod-compare),
#   LOD_SEED (35) override them; LOD_BLEND0=1 adds the cut with --lod-blend 0 (method cutb);
#   LOD_TREE=splits builds the median-split tree (splatview --lod-tree) instead of the default.
set -u
BIN=${1:?usage: compare.sh BIN SCENE DECDIR COPIES}
SCENE=${2:?usage}; DECDIR=${3:?usage}; COPIES=${4:?usage}
: "${OUT:?set OUT to the folder for the results}"
BIN=$(cd "$BIN" && pwd) || exit 1
SV=$BIN/splatview TILE=$BIN/tile_scene PSNR=$BIN/png_psnr
[ -x "$SV" ] || SV=$BIN/../viewer/splatview
for t in "$SV" "$TILE" "$PSNR"; do [ -x "$t" ] || { echo "compare.sh: no $t" >&2; exit 1; }; done
SIZE=${LOD_SIZE:-1920x1080}
FRAMES=${LOD_FRAMES:-60}
SEED=${LOD_SEED:-35}
name=$(basename "$SCENE"); name=${name%%.*}
WORK=${LOD_WORK:-/tmp/lod-compare}/$name
R=$OUT/$name
mkdir -p "$WORK" "$R/img" "$R/logs" "$R/csv"
log() { echo "$(date +%T) $*" | tee -a "$R/run.log"; }

log "tile $SCENE x $COPIES"
"$TILE" --scene "$SCENE" --copies "$COPIES" --seed "$SEED" --out "$WORK/full.ply" --views "$R/views.txt" \
  > "$R/logs/tile_full.txt" 2>&1 || { log "tile_scene failed"; exit 1; }
decs=()
for d in "$DECDIR/$name".dec*.ply; do
  [ -e "$d" ] || continue
  p=${d##*.dec}; p=${p%.ply}
  "$TILE" --scene "$d" --frame-from "$SCENE" --copies "$COPIES" --seed "$SEED" --out "$WORK/dec$p.ply" \
    > "$R/logs/tile_dec$p.txt" 2>&1 || { log "tile_scene of $d failed"; exit 1; }
  decs+=("$p")
done
IFS=$'\n' decs=($(printf '%s\n' "${decs[@]}" | sort -n)); unset IFS
log "decimations: ${decs[*]}"
t0=$(date +%s)
"$SV" --convert "$WORK/full.ply" "$WORK/lod.ply" --lod ${LOD_TREE:+--lod-tree "$LOD_TREE"} > "$R/logs/convert.txt" 2>&1 || { log "convert failed"; exit 1; }
log "tree built in $(($(date +%s) - t0)) s"
rm -f "$WORK/full.ply"

# run TAG SCENEFILE FRAMES [options]: one headless run; prints the last frame's visible count
run() {
  local tag=$1 file=$2 frames=$3; shift 3
  "$SV" --headless "$file" --size "$SIZE" --raster compute --frames "$frames" --timings "$R/csv/$tag.csv" \
    --out "$R/img/$tag.png" "$@" > "$R/logs/$tag.txt" 2>&1 || { log "$tag failed: $(tail -1 "$R/logs/$tag.txt")" >&2; return 1; }
  tail -1 "$R/csv/$tag.csv" | cut -d, -f6
}
quality() { "$PSNR" "$R/img/$1.png" "$R/img/$2.png" | sed -E 's/.*PSNR ([0-9.inf]+) dB, SSIM ([0-9.na\/]+).*/\1\t\2/'; }

printf 'scene\tview\tpercent\tmethod\tdrawn\tdrawn_pct\tpsnr_db\tssim\n' > "$R/table.tsv"
while read -r view eye target up; do
  cam=(--eye "$eye" --target "$target" --up "$up")
  V=$(run "${view}_full" "$WORK/lod.ply" 3 --no-lod "${cam[@]}") || continue
  log "$view: every splat, $V visible"
  for p in "${decs[@]}"; do
    D=$(run "${view}_dec$p" "$WORK/dec$p.ply" 3 --no-lod "${cam[@]}") || continue
    C=$(run "${view}_cut$p" "$WORK/lod.ply" "$FRAMES" --budget "$D" "${cam[@]}") || continue
    methods="dec cut"
    if [ "${LOD_BLEND0:-0}" = 1 ]; then # the cut without its fade between levels
      B0=$(run "${view}_cutb$p" "$WORK/lod.ply" "$FRAMES" --budget "$D" --lod-blend 0 "${cam[@]}") && methods="$methods cutb"
    fi
    for m in $methods; do
      n=$D; [ $m = cut ] && n=$C; [ $m = cutb ] && n=$B0
      printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n' "$name" "$view" "$p" "$m" "$n" \
        "$(awk -v n="$n" -v v="$V" 'BEGIN { print 100 * n / v }')" "$(quality "${view}_full" "${view}_$m$p")" >> "$R/table.tsv"
    done
    log "$view $p%: decimation $D drawn, cut $C"
  done
done < "$R/views.txt"

{
  echo "| view | decimated to | drawn: decimation | drawn: our cut | PSNR dB: decimation | ours | ours, blend 0 | SSIM: decimation | ours | ours, blend 0 |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' 'NR > 1 { k = $2 "\t" $3; if ($4 == "dec") { d[k] = $5; dp[k] = $7; ds[k] = $8; o[++n] = k }
                       else if ($4 == "cut") { c[k] = $5; cp[k] = $7; cs[k] = $8 } else { bp[k] = $7; bs[k] = $8 } }
              END { for (i = 1; i <= n; i++) { k = o[i]; split(k, a, "\t");
                      printf "| %s | %s%% | %s | %s | %s | %s | %s | %s | %s | %s |\n", a[1], a[2], d[k], c[k], dp[k], cp[k],
                             k in bp ? bp[k] : "-", ds[k], cs[k], k in bs ? bs[k] : "-" } }' \
    "$R/table.tsv"
} > "$R/table.md"
cat "$R/table.md"
rm -rf "$WORK"
