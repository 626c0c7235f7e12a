#!/bin/bash
# Issue 23 batch: every variant's splatview on the same generated SH-3 scenes at 1920x1080,
# compute raster, OneSweep, 32-bit keys, alternating processes, clocks and memory sampled.
. .gl/setup.sh
o=$OUT/r; mkdir -p $o
V=${VARIANTS:-"base blend pairs fuse storage"}
T=${TESTBIN:-storage}
TESTS=${TESTS-projection fused-keys storage compute image sortpaths api host-pass stereo objects large}
FINAL=${FINAL:-storage}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; cat gpurun/COMMITS 2>/dev/null; } | tee $o/machine.txt
gen=gpurun/v/fuse2/gen_scene; [ -x $gen ] || gen=gpurun/base/gen_scene
for n in 1000000 6000000; do $gen --count $n --sh-degree 3 --seed 100 --out /tmp/s$n.ply > /dev/null || exit 1; done
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,memory.used --format=csv,nounits -lms 20 > $o/clocks.csv &
smi=$!
one() { # variant n extra-args...
  local v=$1 n=$2; shift 2
  local tag=${v}_${n}${TAGX}
  echo "== $tag $(date +%T.%N)" >> $o/marks.txt
  timeout 240 gpurun/v/$v/splatview --headless /tmp/s$n.ply --bench --frames ${FRAMES:-60} --warmup 5 --size 1920x1080 \
    --sort onesweep --key-bits 32 --raster compute "$@" > $o/$tag.txt 2>&1
  echo "exit $? end $(date +%T.%N)" >> $o/$tag.txt
}
for round in 1 2; do
  for n in 6000000 1000000; do
    for v in $V; do
      TAGX=_r$round one $v $n
      if [ "$v" = storage ] || [ "$v" = fuse2 ] || [ "$v" = blendA ] || [ "$v" = blendB ]; then TAGX=_r${round}_sh8 one $v $n --sh-precision 8; fi
    done
  done
done
# the graphics raster, one process each
if [ -n "$GRAPHICS" ]; then
  for n in 6000000 1000000; do for v in base $FINAL; do TAGX=_r1_graphics one $v $n --raster graphics; done; done
fi
# 30M splats: today's build against the final one (16- and 8-bit SH), one process each
if [ -n "$BIG" ]; then
  $gen --count 30000000 --sh-degree 3 --seed 100 --out /tmp/s30000000.ply > /dev/null
  FRAMES=30 TAGX=_r1 one base 30000000
  FRAMES=30 TAGX=_r1 one $FINAL 30000000
  FRAMES=30 TAGX=_r1_sh8 one $FINAL 30000000 --sh-precision 8
fi
kill $smi
# correctness on this GPU (subgroup size 32): images against the CPU reference, keys, compute raster
for t in $TESTS; do
  a=; case $t in compute|image|sortpaths|api) a="--scene assets/leica-sofort.ply";; esac
  SPLATSORT_VALIDATION=0 timeout 200 gpurun/v/$T/test_render $t --out $o/t_$t $a > $o/test_$t.txt 2>&1
  echo "test_render $t: exit $? $(grep -cE 'check failed|FAIL' $o/test_$t.txt) failures; $(grep -E 'lowest|subgroup' $o/test_$t.txt | head -2 | tr '\n' ' ')"
done 2>&1 | tee $o/tests.txt
for v in $EXTRATESTS; do
  SPLATSORT_VALIDATION=0 timeout 200 gpurun/v/$v/test_render compute host-pass --out $o/t_x --scene assets/leica-sofort.ply > $o/test_compute_$v.txt 2>&1
  echo "$v test_render compute host-pass: exit $? $(grep -E 'lowest' $o/test_compute_$v.txt | head -1)" | tee -a $o/tests.txt
done
rm -rf $o/t_*
python3 gpurun/sum23.py $o | tee $o/summary.txt
cd $OUT && tar czf r.tgz r && rm -rf r
