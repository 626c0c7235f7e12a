#!/bin/bash
# Issue 24 progress: opening 6M and 30M SH-3 .ply files, before (0726005) and now, file in the page cache.
. .gl/setup.sh
o=$OUT/l; mkdir -p $o
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; cat gpurun/COMMITS; } | tee $o/machine.txt
gen=gpurun/v/fuse2/gen_scene
for n in 6000000 30000000; do $gen --count $n --sh-degree 3 --seed 100 --out /tmp/s$n.ply > /dev/null || exit 1; cat /tmp/s$n.ply > /dev/null; done
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,memory.used --format=csv,nounits -lms 50 > $o/clocks.csv &
smi=$!
T=/usr/bin/time; [ -x $T ] || T=
one() { local tag=$1; shift; echo "== $tag" >> $o/marks.txt; $T -v "$@" > $o/$tag.txt 2>&1; echo "exit $?" >> $o/$tag.txt; }
for n in 6000000 30000000; do
  for r in 1 2; do
    one base_${n}_r$r gpurun/v/base/splatview --headless /tmp/s$n.ply --frames 1 --size 1920x1080 --raster compute --timings $o/t.csv
    one now_${n}_r$r gpurun/v/load/splatview --headless /tmp/s$n.ply --frames 1 --size 1920x1080 --raster compute --timings $o/t.csv
    one now_up1_${n}_r$r gpurun/v/load/splatview --headless /tmp/s$n.ply --frames 1 --size 1920x1080 --raster compute --timings $o/t.csv --upload-threads 1
  done
  one bench_t1_$n gpurun/v/load/scene_load_bench /tmp/s$n.ply --runs 2 --threads 1
  one bench_t16_$n gpurun/v/load/scene_load_bench /tmp/s$n.ply --runs 2 --threads 16
done
kill $smi
for f in $o/*_r?.txt $o/bench_*.txt; do
  printf '%-26s %s | %s | rss %s KB | wall %s\n' "$(basename $f .txt)" "$(grep -h 'read and decoded' $f | head -1)" "$(grep -h 'uploaded to the GPU' $f | head -1)" \
    "$(grep -h 'Maximum resident' $f | awk '{print $NF}')" "$(grep -h 'Elapsed (wall' $f | awk '{print $NF}')"
done | tee $o/summary.txt
grep -hE "median|best|threads|RSS" $o/bench_*.txt | head -20
rm -f $o/t.csv
cd $OUT && tar czf l.tgz l && rm -rf l
