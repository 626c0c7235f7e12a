#!/bin/sh
# Sweeps OneSweep tuning knobs (SPLATSORT_ONESWEEP_TUNING, see src/sort/onesweep.c) with
# sortbench and prints each setting's timings with per-stage medians, then a summary table
# (median ms per N, fastest first at the largest N).
#
# On the GPU machine, from the project root: . .gl/setup.sh; tests/bench/tune_onesweep.sh
# Environment: N (default 3M,16M,32M), RUNS (20), BUILD (build directory), TUNINGS (space-
# separated list; "default" = the built-in choice).
set -eu
N=${N:-3M,16M,32M}
RUNS=${RUNS:-20}
TUNINGS=${TUNINGS:-"default wg=256,keys=15 wg=256,keys=23 wg=384,keys=15 wg=384,keys=23 wg=512,keys=12 wg=512,keys=18 wg=512,keys=20 window=4 window=16 hu=16 hc=1 hc=8"}
. "$(dirname "$0")/find_sortbench.sh"

summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
for t in $TUNINGS; do
  [ "$t" = default ] && env_t="" || env_t=$t
  echo "== $t"
  SPLATSORT_ONESWEEP_TUNING=$env_t "$bench" --n "$N" --algo onesweep --key-bits 32 --runs "$RUNS" --warmup 3 \
    --stages 2>&1 | tee /dev/stderr | awk -v t="$t" '$2 == "onesweep" { printf "%s %s %s %s\n", t, $1, $5, $10 }' >> "$summary" || true
done 2>&1
echo
echo "== summary: median ms (verified) by N"
awk '{ key[$1]; n[$2]; v[$1" "$2] = $3 ($4 == "yes" ? "" : "!") } END {
  nn = 0; for (x in n) ns[++nn] = x + 0
  for (i = 1; i <= nn; i++) for (j = i + 1; j <= nn; j++) if (ns[j] < ns[i]) { y = ns[i]; ns[i] = ns[j]; ns[j] = y }
  printf "%-24s", "tuning"; for (i = 1; i <= nn; i++) printf " %12u", ns[i]; printf "\n"
  for (k in key) { printf "%-24s", k; for (i = 1; i <= nn; i++) printf " %12s", v[k" "ns[i]]; printf "\n" }
}' "$summary" | { read -r head; echo "$head"; sort -k"$(echo "$N" | tr ',' '\n' | wc -l | awk '{print $1 + 1}')" -g; }
