# GPU clocks beside a timed run, for the GPU scripts here (source it: . "$here/clocks.sh").
# An idle GPU drops its clock and ramps it back in steps under light, bursty work; sampled every
# 20 ms this shows (100 ms sampling missed it: docs/performance.md, "Steady timings").
#   clocks_start FILE.csv   nvidia-smi samples timestamp, SM and memory clocks and utilisation
#                           every 20 ms into FILE.csv, in the background (nothing without nvidia-smi)
#   clocks_stop             stops it and prints clocks_summary of its file
#   clocks_summary FILE.csv one line: the busy samples' (utilisation > 0) SM clock
#                           min/median/max, and how many were below the maximum SM clock
# POSIX sh; one sampler at a time.
clocks_pid=
clocks_file=

clocks_start() {
  clocks_file=$1
  command -v nvidia-smi > /dev/null || return 0
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv,nounits -lms 20 \
    > "$clocks_file" 2> /dev/null &
  clocks_pid=$!
}

clocks_stop() {
  [ -n "$clocks_pid" ] || return 0
  kill "$clocks_pid" 2> /dev/null
  wait "$clocks_pid" 2> /dev/null
  clocks_pid=
  clocks_summary "$clocks_file"
}

clocks_summary() {
  [ -s "$1" ] || return 0
  clocks_max=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits 2> /dev/null | head -1 | tr -d ' ')
  awk -F', *' 'NR > 1 && $4 + 0 > 0 { print $2 + 0 }' "$1" | sort -n |
    awk -v max="${clocks_max:-0}" -v file="$1" '
      { v[NR] = $1; if (max > 0 && $1 < max) below++ }
      END {
        if (!NR) { printf "clocks: no busy samples in %s\n", file; exit }
        med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "clocks: %d busy samples (20 ms): SM min/median/max %d/%d/%d MHz", NR, v[1], med, v[NR]
        if (max > 0) printf ", %d below the maximum %d MHz%s", below, max, below ? " (WARNING: not at full clock)" : ""
        printf " (%s)\n", file
      }'
}
