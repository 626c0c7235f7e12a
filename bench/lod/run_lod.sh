#!/bin/bash
# run_lod.sh BIN [SCENE[:CAMERAS.json]...]: level of detail on the GPU machine (issue 27): frame
# times, the cut and its image quality against every splat, for generated scenes and real ones.
# Run from the repository root after `. .gl/setup.sh`; BIN holds splatview, gen_scene and
# png_psnr; everything it keeps goes under $OUT (bench/lod/README.md says what and how).
#   LOD_PHASE  a (default): the generated 30M scene, then the SCENEs; b: the generated 100M;
#              all: both (longer than one 10-minute call)
#   LOD_WORK   where scenes are generated and converted (default /tmp/lod-bench; emptied at the end)
#   LOD_SIZE (1920x1080), LOD_WARMUP (30), LOD_MEASURED (120), LOD_BUDGETS ("1000000 3000000
#   10000000"), LOD_COUNTS (the phase's generated counts), LOD_VIEWS (views of a generated scene:
#   3 at 30M, 2 at 100M), LOD_DEADLINE (s, default 480: no run starts after it) override them.
set -u
BIN=${1:?usage: run_lod.sh BIN [SCENE[:CAMERAS.json]...] (OUT must be set)}
shift
: "${OUT:?set OUT to the folder for the results}"
BIN=$(cd "$BIN" && pwd) || exit 1
SV=$BIN/splatview GEN=$BIN/gen_scene PSNR=$BIN/png_psnr
[ -x "$SV" ] || SV=$BIN/../viewer/splatview # BIN = build/tests of a normal build
for t in "$SV" "$GEN" "$PSNR"; do [ -x "$t" ] || { echo "run_lod.sh: no $t" >&2; exit 1; }; done
PHASE=${LOD_PHASE:-a}
WORK=${LOD_WORK:-/tmp/lod-bench}
SIZE=${LOD_SIZE:-1920x1080}
WARMUP=${LOD_WARMUP:-30}
MEASURED=${LOD_MEASURED:-120}
BUDGETS=${LOD_BUDGETS:-1000000 3000000 10000000}
DEADLINE=${LOD_DEADLINE:-480}
case $PHASE in
a) COUNTS=${LOD_COUNTS:-30000000} ;;
b) COUNTS=${LOD_COUNTS:-100000000} ;;
all) COUNTS=${LOD_COUNTS:-30000000 100000000} ;;
*) echo "run_lod.sh: LOD_PHASE must be a, b or all" >&2; exit 1 ;;
esac
unset SPLATSORT_VALIDATION # timings without the validation layer
mkdir -p "$OUT/logs" "$OUT/csv" "$OUT/img" "$WORK" || exit 1
T0=$(date +%s)
TABLE_TSV=$OUT/table.tsv
printf 'scene\tview\tbudget\tframe_ms\tprojection_ms\tsort_ms\traster_ms\tlod_cut_ms\tcut\tthreshold_px\tpsnr_db\tssim\tpeak_gpu_mib\tsm_mhz\n' > "$TABLE_TSV"

# GNU time's peak memory and wall time in the logs of the long steps, where it is installed.
timed() { if [ -x /usr/bin/time ]; then /usr/bin/time -v "$@"; else "$@"; fi; }
log() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/run.log"; }
stamp() { date +'%Y/%m/%d %H:%M:%S.%3N'; } # nvidia-smi's timestamp format: runs and samples compare as text

# ---- the machine ------------------------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
  echo "phase: $PHASE, counts: $COUNTS, size $SIZE, warm-up $WARMUP + $MEASURED measured frames, budgets: $BUDGETS"
  echo "cpus: $(nproc), $(free -g | awk '/^Mem:/ { print $2 " GB memory" }'), disk: $(df -h "$WORK" | awk 'NR == 2 { print $4 " free of " $2 }')"
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,memory.total \
      --format=csv
  else
    echo "nvidia-smi: not found"
  fi
} | tee "$OUT/machine.txt"
command -v nvidia-smi > /dev/null && nvidia-smi -q > "$OUT/nvidia-smi-q.txt" 2>&1

# The clocks and memory beside the timed runs, every 20 ms, until the end.
SAMPLER=
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,memory.used --format=csv -lms 20 > "$OUT/clocks.csv" &
  SAMPLER=$!
fi
cleanup() {
  [ -n "$SAMPLER" ] && kill "$SAMPLER" 2> /dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

# ---- one run ----------------------------------------------------------------------------------

# The median of CSV column $2 of $1 over the measured frames (frame >= WARMUP).
median() {
  awk -F, -v col="$2" -v w="$WARMUP" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
                                       c && $1 >= w { print $c }' "$1" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "-" }'
}

# Peak memory.used (MiB) and the median SM clock (MHz) of the samples between two stamps.
gpu_during() {
  [ -s "$OUT/clocks.csv" ] || { echo "- -"; return; }
  awk -F', ' -v a="$1" -v b="$2" 'NR > 1 && $1 >= a && $1 <= b { m = $4 + 0; if (m > peak) peak = m; print $2 + 0 > "/dev/stderr" }
                                  END { print (peak ? peak : "-") }' "$OUT/clocks.csv" 2> "$WORK/sm.txt" |
    tr -d '\n'
  printf ' %s\n' "$(sort -g "$WORK/sm.txt" | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }')"
}

# run NAME VIEW CFG SCENE [splatview options...]: one headless run of WARMUP + MEASURED frames at
# SIZE with the compute raster, its log, CSV and PNG kept; a row of the table once the full image
# is there (CFG "full" first in each view).
run() {
  local name=$1 view=$2 cfg=$3 scene=$4
  shift 4
  local tag=${name}_${view}_${cfg} elapsed=$(($(date +%s) - T0))
  if [ "$elapsed" -ge "$DEADLINE" ]; then
    log "$tag: skipped (past the ${DEADLINE} s deadline)"
    printf '%s\t%s\t%s\tskipped (time)\n' "$name" "$view" "$cfg" >> "$TABLE_TSV"
    return
  fi
  local a b rc
  a=$(stamp)
  "$SV" --headless "$scene" --size "$SIZE" --raster compute --warmup "$WARMUP" --frames $((WARMUP + MEASURED)) \
    --timings "$OUT/csv/$tag.csv" --out "$OUT/img/$tag.png" "$@" > "$OUT/logs/$tag.log" 2>&1
  rc=$?
  b=$(stamp)
  local csv=$OUT/csv/$tag.csv
  if [ $rc -ne 0 ]; then
    log "$tag: splatview failed (exit $rc): $(grep -m1 'splatview:' "$OUT/logs/$tag.log")"
    printf '%s\t%s\t%s\tfailed (exit %s)\n' "$name" "$view" "$cfg" "$rc" >> "$TABLE_TSV"
    return
  fi
  local q="- -"
  if [ "$cfg" != full ] && [ -f "$OUT/img/${name}_${view}_full.png" ]; then
    q=$("$PSNR" "$OUT/img/${name}_${view}_full.png" "$OUT/img/$tag.png" |
      sed -n 's/.*PSNR \([0-9.]*\) dB, SSIM \([0-9.a-z/]*\).*/\1 \2/p')
    [ -n "$q" ] || q="- -"
  fi
  local row
  row=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$name" "$view" "$cfg" \
    "$(median "$csv" total_ms)" "$(median "$csv" projection_ms)" "$(median "$csv" depth_sort_ms)" \
    "$(median "$csv" raster_ms)" "$(median "$csv" lod_cut_ms)" "$(median "$csv" lod_cut)" \
    "$(median "$csv" lod_threshold)" "${q% *}" "${q#* }" "$(gpu_during "$a" "$b" | tr ' ' '\t')")
  printf '%s\n' "$row" >> "$TABLE_TSV"
  log "$tag: $(printf '%s' "$row" | cut -f4- | tr '\t' ' ')"
}

# views NAME SCENE KIND [CAMERAS]: every view of a scene, full then each budget. KIND gen: a
# generated ball of radius 1 at the origin, framed, from the side and from above (LOD_VIEWS of
# them); else the framed view and, with a cameras.json, its camera 0. SCENE has its tree beside
# it (SCENE.lod) or not: then each budget run builds it at load (--budget implies --lod).
views() {
  local name=$1 scene=$2 kind=$3 cams=${4:-} nviews=${5:-3}
  local -a names=(frame) args=("")
  if [ "$kind" = gen ]; then
    names+=(side above)
    args+=("--eye 3.5,0,0 --target 0,0,0" "--eye 2,-2.2,-2 --target 0,0,0")
  elif [ -n "$cams" ]; then
    names+=(cam0)
    args+=("--cameras $cams --camera 0")
  fi
  local i b
  for ((i = 0; i < ${#names[@]} && i < nviews; i++)); do
    # shellcheck disable=SC2086 # the view's options are words
    run "$name" "${names[i]}" full "$scene" --no-lod ${args[i]}
    for b in $BUDGETS; do
      # shellcheck disable=SC2086
      run "$name" "${names[i]}" "$b" "$scene" --budget "$b" ${args[i]}
    done
  done
}

# Bytes free where the scenes go.
free_bytes() { df --output=avail -B1 "$WORK" | tail -1; }

# gen_scene COUNT: a ball of COUNT SH-3 splats, converted with its tree (--convert --lod, .ply: a
# .spz is written on one thread, minutes at these counts), the generated file removed. Where the
# disk cannot hold both .ply files, the generated one is viewed as it is and each budget run
# builds its tree at load (said in the log).
generated() {
  local n=$1 nviews=${LOD_VIEWS:-}
  local name=gen$((n / 1000))k raw=$WORK/gen_$n.ply conv=$WORK/lod_$n.ply
  [ $((n % 1000000)) -eq 0 ] && name=gen$((n / 1000000))M
  [ -n "$nviews" ] || { [ "$n" -ge 100000000 ] && nviews=2 || nviews=3; }
  log "$name: gen_scene --count $n --sh-degree 3 --seed 27"
  timed "$GEN" --count "$n" --sh-degree 3 --seed 27 --out "$raw" > "$OUT/logs/${name}_gen.log" 2>&1 ||
    { log "$name: gen_scene failed"; rm -f "$raw"; return; }
  local size need
  size=$(stat -c %s "$raw")
  need=$((size + size / 10 + n * 24)) # the converted .ply, slack, the .lod (~23 B a splat)
  if [ "$(free_bytes)" -gt "$need" ]; then
    log "$name: splatview --convert $raw $conv --lod"
    if timed "$SV" --convert "$raw" "$conv" --lod > "$OUT/logs/${name}_convert.log" 2>&1; then
      rm -f "$raw"
      grep -E 'converted|level of detail|Maximum resident|Elapsed' "$OUT/logs/${name}_convert.log" | tee -a "$OUT/run.log"
      views "$name" "$conv" gen "" "$nviews"
      rm -f "$conv" "$conv.lod"
      return
    fi
    log "$name: --convert --lod failed: $(grep -m1 'splatview:' "$OUT/logs/${name}_convert.log")"
    rm -f "$conv" "$conv.lod"
  else
    log "$name: $(free_bytes) bytes free, $need needed to convert: the tree is built at load in each budget run"
  fi
  views "$name" "$raw" gen "" "$nviews"
  rm -f "$raw"
}

# real SCENE[:CAMERAS]: a scene of the command line, with its sidecar when it has one, else
# converted with --convert --lod into LOD_WORK (a .ply; the original is left alone).
real() {
  local arg=$1 scene cams="" name
  scene=${arg%%:*}
  [ "$scene" != "$arg" ] && cams=${arg#*:}
  [ -z "$cams" ] && [ -f "$(dirname "$scene")/cameras.json" ] && cams=$(dirname "$scene")/cameras.json
  name=$(basename "$scene")
  name=${name%.*}
  if [ ! -e "$scene" ]; then
    log "$name: $scene not found"
    return
  fi
  local view=$scene
  if [ ! -f "$scene.lod" ]; then
    view=$WORK/$name.ply
    log "$name: splatview --convert $scene $view --lod"
    if ! timed "$SV" --convert "$scene" "$view" --lod > "$OUT/logs/${name}_convert.log" 2>&1; then
      log "$name: --convert --lod failed ($(grep -m1 'splatview:' "$OUT/logs/${name}_convert.log")): trees built at load"
      view=$scene
    fi
  fi
  views "$name" "$view" real "$cams" 2
  [ "$view" != "$scene" ] && rm -f "$view" "$view.lod"
}

for n in $COUNTS; do generated "$n"; done
if [ "$PHASE" != b ]; then
  for s in "$@"; do real "$s"; done
fi

# ---- the table --------------------------------------------------------------------------------
[ -n "$SAMPLER" ] && kill "$SAMPLER" 2> /dev/null
SAMPLER=
{
  echo "| scene | view | budget | frame ms | projection | sort | raster | lod_cut_ms | cut | threshold px | PSNR dB | SSIM | peak GPU MiB | SM MHz |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' 'NR > 1 { line = "|"; for (i = 1; i <= 14; i++) line = line " " (i <= NF && $i != "" ? $i : "") " |"; print line }' \
    "$TABLE_TSV"
  echo
  echo "Medians over the $MEASURED frames after $WARMUP warm-up frames (GPU timestamps, ms; one camera a run),"
  echo "$SIZE, compute raster. full: --no-lod; a budget: --budget N (max_cut min(leaves, 2N) rounded to 256)."
  echo "PSNR/SSIM: png_psnr of the run's last frame against the full run's (same view). lod_cut_ms is part of"
  echo "projection. Peak GPU memory and the median SM clock: nvidia-smi samples (20 ms) during the run."
} | tee "$OUT/table.md"
log "done in $(($(date +%s) - T0)) s"
