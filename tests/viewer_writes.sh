#!/bin/sh
# Every file splatview writes is complete or not there: --out, --timings and --convert (.ply and
# .spz) on a full device (/dev/full) and past a file-size limit (ulimit -f: writes fail with EFBIG
# part-way, as on a full disk) fail with "<path>: write failed: <why>" and a non-zero status,
# leave no file (nor a temporary one) and keep the file that was there. A file name with an
# escape sequence is printed with '?' for the ESC. A scene above --memory-budget is refused in one
# line that names it and says why.
# usage: viewer_writes.sh SPLATVIEW SCENE GEN_SCENE OUTDIR
set -u
view=$1 scene=$2 gen=$3 dir=$4/writes
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# run EXPECTED_PATTERN CMD...: CMD must exit non-zero with a line matching the pattern
run() {
  want=$1
  shift
  out=$("$@" 2>&1)
  s=$?
  printf '%s\n' "$out"
  [ $s -ne 0 ] || bad "exit status 0: $*"
  printf '%s\n' "$out" | grep -Eq -- "$want" || bad "no line matches '$want': $*"
}
# limited CMD...: CMD with its files limited to a few KiB (SIGXFSZ ignored: writes fail with EFBIG)
limited() { (trap '' XFSZ; ulimit -f 8 && MESA_SHADER_CACHE_DISABLE=true exec "$@"); }
# absent FILE: neither FILE nor a temporary file for it is left
absent() {
  [ ! -e "$1" ] || bad "$1 was left behind"
  ls "$1".tmp-* > /dev/null 2>&1 && bad "a temporary file of $1 was left behind"
  return 0
}
kept() { [ "$(cat "$1")" = "old" ] || bad "$1 was not kept as it was"; }
args="--headless $scene --size 160x120 --raster graphics"

echo "== --out, --timings, --convert to /dev/full"
run '^splatview: /dev/full: write failed: No space left on device$' "$view" $args --out /dev/full
run '^splatview: /dev/full: write failed: No space left on device$' "$view" $args --frames 3 --timings /dev/full
for ext in ply spz; do
  ln -sf /dev/full "$dir/full.$ext"
  run "full\\.$ext: write failed: No space left on device" "$view" --convert "$scene" "$dir/full.$ext"
done

echo "== past a file-size limit: nothing left, the old file kept"
echo old > "$dir/kept.png"
run 'kept\.png: write failed: File too large$' limited "$view" $args --size 640x480 --out "$dir/kept.png"
kept "$dir/kept.png"
ls "$dir"/kept.png.tmp-* > /dev/null 2>&1 && bad "a temporary PNG was left behind"
run 'new\.png: write failed: File too large$' limited "$view" $args --size 640x480 --out "$dir/new.png"
absent "$dir/new.png"
run 't\.csv: write failed: File too large$' limited "$view" $args --size 32x24 --frames 200 --timings "$dir/t.csv"
absent "$dir/t.csv"
for ext in ply spz; do
  run "c\\.$ext: write failed: File too large$" limited "$view" --convert "$scene" "$dir/c.$ext"
  absent "$dir/c.$ext"
  echo old > "$dir/k.$ext"
  run "k\\.$ext: write failed: File too large$" limited "$view" --convert "$scene" "$dir/k.$ext"
  kept "$dir/k.$ext"
done
echo "== an unwritable output"
run 'missing-dir/x\.png: cannot create: No such file or directory$' "$view" $args --out "$dir/missing-dir/x.png"
run 'missing-dir/x\.spz: cannot create: No such file or directory$' "$view" --convert "$scene" "$dir/missing-dir/x.spz"

echo "== the same writes without a limit succeed and leave only their files"
"$view" $args --frames 3 --timings "$dir/ok.csv" --out "$dir/ok.png" > /dev/null || bad "a plain run failed"
"$view" --convert "$scene" "$dir/ok.spz" > /dev/null || bad "a plain --convert failed"
[ -s "$dir/ok.png" ] && [ -s "$dir/ok.csv" ] && [ -s "$dir/ok.spz" ] || bad "a plain run's files are missing"
ls "$dir"/*.tmp-* > /dev/null 2>&1 && bad "temporary files were left behind: $(ls "$dir"/*.tmp-*)"

echo "== file names with escape sequences"
esc=$(printf '\033')
for cmd in "--headless $dir/${esc}[31mmissing.ply --out $dir/e.png" \
           "--headless $scene --size 160x120 --out $dir/no-dir/${esc}[31mx.png" \
           "--headless $scene --cameras $dir/${esc}[31mcams.json --out $dir/e.png" \
           "--convert $dir/${esc}[31mmissing.ply $dir/x.ply"; do
  out=$("$view" $cmd 2>&1) && bad "exit status 0: $cmd"
  printf '%s\n' "$out" | grep -q "$esc" && bad "an escape character was printed: $cmd"
  printf '%s\n' "$out" | grep -q '?\[31m' || bad "the name is not printed with ? for ESC: $cmd"
  printf '%s\n' "$out" | sed "s/$esc/<ESC>/g"
done

echo "== a scene above --memory-budget: one line"
"$gen" --count 30000 --sh-degree 3 --seed 12 --out "$dir/big.ply" > /dev/null || exit 1
err=$("$view" --headless "$dir/big.ply" --size 160x120 --memory-budget 4 --out "$dir/big.png" 2>&1 > /dev/null) && bad "big.ply: exit status 0"
printf '%s\n' "$err"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || bad "big.ply: the refusal is not one line"
printf '%s\n' "$err" | grep -Eq '^splatview: .*big\.ply: .*a scene of 30000 splats .*budget is 4\.00 MiB' ||
  bad "big.ply: the line does not name the file and the budget"
printf '%s\n' "$err" | grep -q VK_ERROR && bad "big.ply: the line blames a VkResult"
[ $fail -eq 0 ] && echo PASS
exit $fail
