#!/bin/bash
# Issue 24 final .ply batch (body): 6M / 30M / 100M SH-3 .ply, load (3303310) vs now, whole and --stream.
. .gl/setup.sh
o=$OUT/d; mkdir -p $o
V=gpurun/v
{ date -u; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader; nproc; cat gpurun/COMMITS; } > $o/machine.txt 2>&1
t0=$(date +%s)
for n in 6 30 100; do $V/now/gen_scene --count ${n}000000 --sh-degree 3 --seed 100 --out /tmp/s${n}M.ply > /dev/null & done
wait
for f in /tmp/s*.ply; do cat $f > /dev/null; done
echo "files ready after $(( $(date +%s) - t0 )) s" >> $o/machine.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,memory.used --format=csv,nounits -lms 50 > $o/clocks.csv &
T=/usr/bin/time
one() { local tag=$1; shift; echo "== $tag $(date +%s.%N)" >> $o/marks.txt; timeout 120 $T -v "$@" > $o/$tag.txt 2>&1; echo "exit $?" >> $o/$tag.txt; echo "== end $tag $(date +%s.%N)" >> $o/marks.txt; }
SV="--headless --frames 1 --size 1920x1080 --raster compute --timings /tmp/t.csv"
for r in 1 2 3; do
  for n in 6M 30M; do
    [ $r = 1 ] && one load_${n}_r$r $V/load/splatview /tmp/s$n.ply $SV
    one now_${n}_r$r $V/now/splatview /tmp/s$n.ply $SV
    one stream_${n}_r$r $V/now/splatview /tmp/s$n.ply $SV --stream
  done
done
for r in 1 2; do
  one now_100M_r$r $V/now/splatview /tmp/s100M.ply $SV
  one stream_100M_r$r $V/now/splatview /tmp/s100M.ply $SV --stream
done
one load_100M_r1 $V/load/splatview /tmp/s100M.ply $SV
