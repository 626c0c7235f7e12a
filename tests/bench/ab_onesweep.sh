#!/bin/bash
# A/B of OneSweep pass-kernel variants and tunings in one batch: each entry of VARIANTS is a
# SPLATSORT_ONESWEEP_TUNING string ("-" = the defaults); every entry runs ROUNDS times in
# alternating order (A B C A B C ...), each in a fresh process, so that drift hits all alike.
# Prints, per size, each entry's median of its per-round medians, and the pass kernel's
# register count from the driver's pipeline statistics. An optional BASELINE sortbench (an
# older build) joins as entry "baseline".
#
# On the GPU machine, from the project root, after `. .gl/setup.sh`:
#   VARIANTS="- variant=7 wg=256" tests/bench/ab_onesweep.sh OUTDIR [BUILD_DIR]
# Environment: N (default 64K,256K,1M,3M,16M), BITS (32), RUNS (30), ROUNDS (2), BASELINE.
set -u
out=${1:?usage: ab_onesweep.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
N=${N:-64K,256K,1M,3M,16M}
BITS=${BITS:-32}
RUNS=${RUNS:-30}
ROUNDS=${ROUNDS:-2}
VARIANTS=${VARIANTS:-"- variant=7"}
mkdir -p "$out"
# nvidia-smi's clocks beside each run (OUTDIR/clocks_ENTRY_ROUND.csv), summaries in OUTDIR/clocks.txt
. "$(dirname "$0")/clocks.sh"
trap clocks_stop EXIT
rm -f "$out/clocks.txt"
csv="$out/ab.csv"
echo "entry,round,device,n,algo,key_bits,dist,median_ms,min_ms,max_ms,mpairs_per_s,verified,p90_ms,p99_ms,copy_median_ms,copy_p99_ms,copy_gb_per_s,alloc,lookback_steps,lookback_fallbacks,warmup_runs,warmup_settled,sm_clock_min_mhz,sm_clock_max_mhz" > "$csv"

for round in $(seq 1 "$ROUNDS"); do
  entries="$VARIANTS"
  [ -n "${BASELINE:-}" ] && entries="baseline $entries"
  for v in $entries; do
    tag=${v//[^a-z0-9=,]/_}_$round
    clocks_start "$out/clocks_$tag.csv"
    if [ "$v" = baseline ]; then
      "$BASELINE" --n "$N" --algo onesweep --key-bits "$BITS" --runs "$RUNS" --warmup 5 --csv 2> "$out/err_baseline_$round.txt" |
        grep -v '^device' | sed "s/^/baseline,$round,/" >> "$csv"
      clocks_stop >> "$out/clocks.txt"
      continue
    fi
    tuning=$v
    [ "$v" = - ] && tuning=
    SPLATSORT_ONESWEEP_TUNING=$tuning "$build/tests/sortbench" --n "$N" --algo onesweep --key-bits "$BITS" \
      --runs "$RUNS" --warmup 5 --csv --pipeline-stats 2> "$out/err_${v//[^a-z0-9=,]/_}_$round.txt" |
      grep -v '^device' | sed "s/^/\"$v\",$round,/" >> "$csv"
    clocks_stop >> "$out/clocks.txt"
  done
done

python3 - "$csv" "$out" <<'EOF'
import csv, glob, os, re, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
entries, sizes = [], []
for r in rows:
    if r["entry"] not in entries: entries.append(r["entry"])
    if int(r["n"]) not in sizes: sizes.append(int(r["n"]))
regs = {}
for e in entries:
    files = glob.glob(os.path.join(sys.argv[2], "err_" + re.sub(r"[^a-z0-9=,]", "_", e) + "_1.txt"))
    for line in open(files[0]) if files else []:
        m = re.search(r"onesweep pass statistics: Register Count=(\d+)", line)
        if m: regs[e] = m.group(1)
print(f"{'entry':<28} {'regs':>4} " + " ".join(f"{n:>10}" for n in sizes) + "   (median ms of round medians)")
for e in entries:
    cells = []
    for n in sizes:
        ms = [float(r["median_ms"]) for r in rows if r["entry"] == e and int(r["n"]) == n]
        bad = any(r["verified"] not in ("yes",) for r in rows if r["entry"] == e and int(r["n"]) == n)
        cells.append(f"{statistics.median(ms):>9.4f}{'!' if bad else ' '}" if ms else f"{'-':>10}")
    print(f"{e:<28} {regs.get(e, '-'):>4} " + " ".join(cells))
EOF
if [ -s "$out/clocks.txt" ]; then cat "$out/clocks.txt"; fi
