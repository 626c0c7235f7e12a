#!/bin/sh
# viewer_lod.sh SPLATVIEW PNG_PSNR SCENE DIR: level of detail end to end (issue 27). SCENE is
# converted with --convert DIR/lod.spz --lod, then DIR/lod.spz is viewed headless with --budget
# (the compute raster, validation on): the load line says the tree came from lod.spz.lod, the
# summary has the last frame's cut and the statistics the cut's medians, every CSV row has a cut.
# The same view with --no-lod must not read the sidecar; the two images' PSNR and SSIM are printed
# (png_psnr; neither may be blank).
set -u
sv=$1 psnr=$2 scene=$3 dir=$4
fail() { echo "viewer_lod.sh: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$sv" --convert "$scene" "$dir/lod.spz" --lod || fail "--convert --lod failed"
args="--headless $dir/lod.spz --size 320x240 --raster compute --frames 6"
out=$("$sv" $args --budget 2000 --timings "$dir/lod.csv" --out "$dir/lod.png" 2>&1)
s=$?
printf '%s\n' "$out"
[ $s -eq 0 ] || fail "the --budget run failed (exit $s)"
check() { printf '%s\n' "$out" | grep -Eq -- "$1" || fail "no line matches '$1'"; }
check '^load: level of detail for .*lod\.spz: tree read from lod\.spz\.lod \([0-9,]+ interior nodes, [0-9.]+ s\)$'
check '^LOD cut [1-9][0-9,]* nodes at threshold [0-9.e+-]+ \(budget 2,000\) \(the last frame\)$'
check '^   lod cut +[0-9.]+ '
check '^  level of detail \(6 frames\): cut median [1-9][0-9,]* nodes'
head -1 "$dir/lod.csv" | grep -q ',lod_cut,lod_threshold,lod_cut_ms$' || fail "no level-of-detail columns in the CSV"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "lod_cut") c = i; next }
         !($c > 0) { bad = 1 } END { exit !c || bad }' "$dir/lod.csv" || fail "a CSV row without a cut"
full=$("$sv" $args --no-lod --out "$dir/full.png" 2>&1) || fail "the --no-lod run failed: $full"
printf '%s\n' "$full" | grep -q -e 'level of detail' -e 'LOD cut' && fail "--no-lod drew the level of detail"
"$psnr" "$dir/full.png" "$dir/lod.png" || fail "an image is blank"
echo "viewer_lod.sh: passed"
