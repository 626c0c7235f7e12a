#!/bin/bash
# Issue 24, second slice, first look: copy rates, and where 30M's open goes (now vs load=3303310).
. .gl/setup.sh
o=$OUT/m; mkdir -p $o
{ date -u; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader; nproc; free -g | head -2; cat gpurun/COMMITS; } | tee $o/machine.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,memory.used --format=csv,nounits -lms 50 > $o/clocks.csv &
smi=$!
V=gpurun/v
$V/now/copybench --mib 4096 --piece-mib 16 --pieces 4 --threads 1,4,8,16 --runs 5 2>&1 | tee $o/copybench.txt
$V/now/copybench --mib 4096 --piece-mib 64 --pieces 4 --threads 16 --runs 5 2>&1 | tee $o/copybench64.txt
for n in 1000 6000000 30000000; do $V/now/gen_scene --count $n --sh-degree 3 --seed 100 --out /tmp/s$n.ply > /dev/null || exit 1; cat /tmp/s$n.ply > /dev/null; done
T=/usr/bin/time
one() { local tag=$1; shift; $T -v "$@" > $o/$tag.txt 2>&1; echo "exit $?" >> $o/$tag.txt; }
for r in 1 2; do
  for v in load now; do
    one ${v}_tiny_r$r $V/$v/splatview --headless /tmp/s1000.ply --frames 1 --size 1920x1080 --raster compute --timings $o/t.csv
    for n in 6000000 30000000; do
      one ${v}_${n}_r$r $V/$v/splatview --headless /tmp/s$n.ply --frames 1 --size 1920x1080 --raster compute --timings $o/t.csv
    done
  done
  one now_up1_30000000_r$r $V/now/splatview --headless /tmp/s30000000.ply --frames 1 --size 1920x1080 --raster compute --timings $o/t.csv --upload-threads 1
done
one bench16_30M $V/now/scene_load_bench /tmp/s30000000.ply --runs 3 --threads 16
kill $smi
for f in $o/*_r?.txt $o/bench*.txt; do
  printf '%-24s rss %9s KB | wall %s | user %s sys %s\n' "$(basename $f .txt)" "$(grep -h 'Maximum resident' $f | awk '{print $NF}')" \
    "$(grep -h 'Elapsed (wall' $f | awk '{print $NF}')" "$(grep -h 'User time' $f | awk '{print $NF}')" "$(grep -h 'System time' $f | awk '{print $NF}')"
done | tee $o/summary.txt
grep -hE "median|threads" $o/bench16_30M.txt | head
rm -f $o/t.csv
