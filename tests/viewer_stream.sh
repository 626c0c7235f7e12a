#!/bin/sh
# splatview --headless --stream: a generated SH-3 scene drawn while it loads (in several parts)
# ends in the blocking load's image, byte for byte; both print their load: phases in order with
# growing times; a truncated file fails with one message naming it and a non-zero status.
# usage: viewer_stream.sh SPLATVIEW GEN_SCENE OUTDIR
set -eu
view=$1 gen=$2 out=$3
"$gen" --count 30000 --sh-degree 3 --seed 5 --out "$out/stream.ply" > /dev/null
args="--raster graphics --size 160x120 --frames 2"

# the load: lines' phases, one a line, and a check that their times never go back
phases() { grep '^load:' | sed -E 's/^load: ([a-z: ]*[a-z:]) .*/\1/'; }
ordered() {
  grep -E '^load: [a-z ]+ [0-9.]+ s' | awk '{ t = $(NF - 1); for (i = 2; i < NF; i++) if ($i ~ /^[0-9.]+$/) { t = $i; break }
    if (t + 0 < last) { print "load: times go back at: " $0; exit 1 } last = t + 0 }'
}

blocking=$("$view" --headless "$out/stream.ply" $args --out "$out/stream_blocking.png")
echo "$blocking"
want="decoded
uploaded
first full frame
upload: validate"
[ "$(echo "$blocking" | phases)" = "$want" ] || { echo "blocking: the load: lines are not: $want"; exit 1; }
echo "$blocking" | ordered

streamed=$("$view" --headless "$out/stream.ply" $args --stream --out "$out/stream_streamed.png")
echo "$streamed"
want="first part
first frame
full scene
first full frame
upload: validate"
[ "$(echo "$streamed" | phases)" = "$want" ] || { echo "--stream: the load: lines are not: $want"; exit 1; }
echo "$streamed" | ordered
echo "$streamed" | grep -Eq '^load: full scene [0-9.]+ s \(30000 splats in ([2-9]|[1-9][0-9]+) parts' ||
  { echo "--stream: the scene did not arrive in several parts"; exit 1; }
cmp "$out/stream_blocking.png" "$out/stream_streamed.png"

# a file cut in the middle of its rows: parts arrive, then the load fails
size=$(wc -c < "$out/stream.ply")
head -c $((size * 2 / 3 + 7)) "$out/stream.ply" > "$out/stream_cut.ply"
if "$view" --headless "$out/stream_cut.ply" $args --stream --out "$out/stream_cut.png" > "$out/stream_cut.log" 2>&1
then echo "--stream: a truncated file was drawn"; exit 1; fi
cat "$out/stream_cut.log"
[ "$(grep -c '^splatview: ' "$out/stream_cut.log")" = 1 ] && grep -q "^splatview: .*stream_cut.ply" "$out/stream_cut.log" ||
  { echo "--stream: a truncated file did not fail with one message naming it"; exit 1; }
[ ! -e "$out/stream_cut.png" ] || { echo "--stream: a truncated file wrote an image"; exit 1; }
