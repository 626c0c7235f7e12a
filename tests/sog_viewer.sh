#!/bin/sh
# sog_viewer.sh: splatview opens a SOG scene (ctest sog_viewer).
#   sog_viewer.sh SPLATVIEW SOG_CONVERT PNG_PSNR SCENE.ply OUTDIR [XDND_DROP]
# SCENE is written as a SOG folder and a .sog bundle; splatview renders the meta.json, the folder
# and the bundle headless (identical images: the same splats), then the meta.json in a window
# under Xvfb (its screenshot must equal the headless image), then, with XDND_DROP, the folder
# dropped on the window must open. Exit 0 pass, 1 fail, 77 when xvfb-run is missing (after the
# headless part has passed).
# The raster path is pinned (graphics): --raster auto measures both paths and may pick either,
# and the two differ in rounding, so images compared bit for bit must come from one path.
set -u
sv=$1 conv=$2 psnr=$3 scene=$4 out=$5 drop=${6:-}
size=160x120
fail() { echo "sog_viewer: $*" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
"$conv" "$scene" "$out/scene_sog" > /dev/null || fail "sog_convert to a folder failed"
"$conv" "$scene" "$out/scene.sog" > /dev/null || fail "sog_convert to a bundle failed"

"$sv" --headless "$out/scene_sog/meta.json" --size $size --raster graphics --out "$out/meta.png" || fail "headless meta.json"
"$sv" --headless "$out/scene_sog" --size $size --raster graphics --out "$out/folder.png" || fail "headless folder"
"$sv" --headless "$out/scene.sog" --size $size --raster graphics --out "$out/bundle.png" || fail "headless .sog"
cmp -s "$out/meta.png" "$out/folder.png" || fail "the folder's image differs from the meta.json's"
cmp -s "$out/meta.png" "$out/bundle.png" || fail "the bundle's image differs from the meta.json's"
echo "headless: meta.json, folder and .sog give the same image"

command -v xvfb-run > /dev/null || { echo "xvfb-run not installed: window part skipped"; exit 77; }
xvfb-run -a -s "-screen 0 640x480x24" "$sv" "$out/scene_sog/meta.json" --frames 3 --size $size --raster graphics \
  --screenshot "$out/window.png" > "$out/window.txt" 2>&1 || { cat "$out/window.txt"; fail "windowed meta.json"; }
"$psnr" "$out/meta.png" "$out/window.png" 60 || fail "the window's image differs from the headless one"
echo "window: the same image as headless"

[ -n "$drop" ] || { echo "no xdnd_drop (Xlib missing): drop part skipped"; exit 0; }
# splatview on the bundled scene in the background; the SOG folder dropped on it, and the window
# closed once it says the folder opened (the drop loads on a worker thread, and a close before
# the load ends cancels it: waiting on the line, not on the clock, keeps a loaded CI honest)
xvfb-run -a -s "-screen 0 640x480x24" sh -c '"$1" --size 160x120 > "$2" 2>&1 & p=$!;
  w() { i=0; while ! grep -q "$1" "$2"; do i=$((i + 1)); [ $i -le 600 ] || return 1; sleep 0.1; done; };
  "$3" splatview "$4" && w "^opened $4: " "$2" && "$3" --close splatview; d=$?; [ $d -eq 0 ] || kill $p; wait $p; s=$?;
  [ $d -eq 0 ] || { echo "xdnd_drop or the wait failed ($d)" >&2; exit 98; }; exit $s' \
  sh "$sv" "$out/drop.txt" "$drop" "$out/scene_sog" || { cat "$out/drop.txt"; fail "window with the SOG folder dropped"; }
grep -q "opened $out/scene_sog: " "$out/drop.txt" || { cat "$out/drop.txt"; fail "the dropped SOG folder did not open"; }
echo "drop: the SOG folder opened"
