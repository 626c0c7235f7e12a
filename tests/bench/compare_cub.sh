#!/bin/sh
# Runs CUB's radix sort (tests/bench/cub_sort.cu, built here with nvcc) and splatsort's
# sortbench on the same sizes and key widths, prints one side-by-side table with the ratio
# ours/CUB, and plots throughput against N (SVG; needs python3 + matplotlib).
#
# On the GPU machine, from the project root, with a build carried over (see
# ../shared/gpu/README.md):
#   . .gl/setup.sh; tests/bench/compare_cub.sh
# Environment: N (default 1M,3M,6M,16M,32M), BITS (32,24,16), RUNS (50), WARMUP (5),
# ALGOS (quaternary,onesweep), BUILD (build directory; default: the first of build, build-*
# with tests/sortbench), OUT (results directory, default bench-out), ARCH (sm_90).
# nvidia-smi samples the clocks beside each run (clocks.sh): OUT/clocks_cub.csv, clocks_splatsort.csv.
set -eu
here=$(dirname "$0")
N=${N:-1M,3M,6M,16M,32M}
BITS=${BITS:-32,24,16}
RUNS=${RUNS:-50}
WARMUP=${WARMUP:-5}
ALGOS=${ALGOS:-quaternary,onesweep}
ARCH=${ARCH:-sm_90}
OUT=${OUT:-bench-out}
mkdir -p "$OUT"

. "$here/find_sortbench.sh"
. "$here/clocks.sh"

echo "== building cub_sort ($ARCH)" >&2
nvcc -O3 -arch="$ARCH" -o "$OUT/cub_sort" "$here/cub_sort.cu"

echo "== CUB" >&2
clocks_start "$OUT/clocks_cub.csv"
"$OUT/cub_sort" --n "$N" --key-bits "$BITS" --runs "$RUNS" --warmup "$WARMUP" > "$OUT/cub.csv"
clocks_stop >&2
echo "== sortbench ($ALGOS)" >&2
status=0
clocks_start "$OUT/clocks_splatsort.csv"
"$bench" --n "$N" --algo "$ALGOS" --key-bits "$BITS" --runs "$RUNS" --warmup "$WARMUP" --csv > "$OUT/splatsort.csv" || status=$?
clocks_stop >&2

python3 "$here/compare.py" "$OUT/cub.csv" "$OUT/splatsort.csv" | tee "$OUT/compare.txt" || status=1
for b in $(echo "$BITS" | tr ',' ' '); do
  python3 "$here/plot.py" "$OUT/cub.csv" "$OUT/splatsort.csv" --bits "$b" -o "$OUT/throughput_${b}bit.svg" ||
    echo "compare_cub.sh: plotting failed (is matplotlib installed?)" >&2
done
exit $status
