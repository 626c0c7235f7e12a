#!/bin/bash
# the body of run24c.sh (run under a time limit)
# Issue 24 batch: 6M / 30M / 100M SH-3 .ply, 30M .spz and SOG; load (3303310) vs now; whole and --stream.
. .gl/setup.sh
o=$OUT/c; mkdir -p $o
V=gpurun/v
{ date -u; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader; nproc; free -g | head -2; df -h /tmp | tail -1; cat gpurun/COMMITS; } > $o/machine.txt 2>&1
t0=$(date +%s)
$V/now/gen_scene --count 6000000 --sh-degree 3 --seed 100 --out /tmp/s6M.ply > /dev/null &
$V/now/gen_scene --count 30000000 --sh-degree 3 --seed 100 --out /tmp/s30M.ply > /dev/null &
wait
$V/now/splatview --convert /tmp/s30M.ply /tmp/s30M.spz > $o/convert_spz.txt 2>&1 &
$V/now/sog_convert /tmp/s30M.ply /tmp/s30M.sog > $o/convert_sog.txt 2>&1 &
$V/now/gen_scene --count 100000000 --sh-degree 3 --seed 100 --out /tmp/s100M.ply > /dev/null &
wait
ls -la /tmp/s*.* >> $o/machine.txt
for f in /tmp/s*.*; do cat $f > /dev/null; done
echo "files ready after $(( $(date +%s) - t0 )) s" | tee -a $o/machine.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,memory.used --format=csv,nounits -lms 50 > $o/clocks.csv &
smi=$!
T=/usr/bin/time
one() { local tag=$1; shift; echo "== $tag $(date +%s.%N)" >> $o/marks.txt; timeout 120 $T -v "$@" > $o/$tag.txt 2>&1; echo "exit $?" >> $o/$tag.txt; echo "== end $tag $(date +%s.%N)" >> $o/marks.txt; }
SV="--headless --frames 1 --size 1920x1080 --raster compute --timings /tmp/t.csv"
$V/now/copybench --mib 4096 --piece-mib 64 --pieces 4 --threads 16 --runs 3 > $o/copybench.txt 2>&1
for r in 1 2; do
  for n in 6M 30M; do
    one load_${n}_r$r $V/load/splatview /tmp/s$n.ply $SV
    one now_${n}_r$r $V/now/splatview /tmp/s$n.ply $SV
    one stream_${n}_r$r $V/now/splatview /tmp/s$n.ply $SV --stream
  done
done
one now_100M $V/now/splatview /tmp/s100M.ply $SV
one stream_100M $V/now/splatview /tmp/s100M.ply $SV --stream
one load_100M $V/load/splatview /tmp/s100M.ply $SV
for f in spz sog; do
  one now_30M_$f $V/now/splatview /tmp/s30M.$f $SV
  one stream_30M_$f $V/now/splatview /tmp/s30M.$f $SV --stream
  one bench1_30M_$f $V/now/scene_load_bench /tmp/s30M.$f --runs 2 --threads 1
  one bench16_30M_$f $V/now/scene_load_bench /tmp/s30M.$f --runs 2 --threads 16
done
if sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then one cold_now_30M $V/now/splatview /tmp/s30M.ply $SV; else echo "cannot drop the page cache" > $o/cold.txt; fi
kill $smi
