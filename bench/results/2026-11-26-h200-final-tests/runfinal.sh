#!/bin/bash
# Correctness of the final commit on this GPU (subgroup size 32): the renderer's tests (streamed
# objects, uploads, API, objects, compute raster, images), the host raster, the sort API's
# refusals, the self-test, the fault sweep; and one streamed 30M open.
. .gl/setup.sh
o=$OUT/f; mkdir -p $o
F=gpurun/v/final
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; tail -1 gpurun/COMMITS; ls /usr/share/vulkan/explicit_layer.d/ 2>&1; } > $o/machine.txt
VAL=${VAL:-0}
for t in stream upload api objects compute image host-pass large; do
  a=; case $t in compute|image|api) a="--scene assets/leica-sofort.ply";; esac
  SPLATSORT_VALIDATION=$VAL timeout 200 $F/test_render $t --out $o/t_$t $a > $o/test_$t.txt 2>&1
  echo "test_render $t: exit $? $(grep -cE 'check failed|FAIL' $o/test_$t.txt) failures; $(grep -E 'subgroup|validation' $o/test_$t.txt | head -1)"
done 2>&1 | tee $o/tests.txt
for m in into arrays multiview; do SPLATSORT_VALIDATION=$VAL timeout 200 $F/test_host_raster $m --out $o/t_h > $o/host_$m.txt 2>&1; echo "test_host_raster $m: exit $?"; done | tee -a $o/tests.txt
SPLATSORT_VALIDATION=$VAL timeout 200 $F/test_sort_api > $o/sort_api.txt 2>&1; echo "test_sort_api: exit $?" | tee -a $o/tests.txt
SPLATSORT_VALIDATION=$VAL timeout 200 $F/test_self_test > $o/self_test.txt 2>&1; echo "test_self_test: exit $?" | tee -a $o/tests.txt
SPLATSORT_VALIDATION=$VAL timeout 300 $F/test_faults > $o/faults.txt 2>&1; echo "test_faults: exit $? $(tail -2 $o/faults.txt | tr '\n' ' ')" | tee -a $o/tests.txt
$F/gen_scene --count 30000000 --sh-degree 3 --seed 100 --out /tmp/s30M.ply > /dev/null && cat /tmp/s30M.ply > /dev/null
for r in 1 2; do
  timeout 120 $F/splatview --headless /tmp/s30M.ply --frames 1 --size 1920x1080 --raster compute --timings /tmp/t.csv --stream > $o/stream30_$r.txt 2>&1; echo "stream 30M: exit $? $(grep '^load:' $o/stream30_$r.txt | grep -v upload | sed 's/load: //' | tr '\n' ';')" | tee -a $o/tests.txt
  timeout 120 $F/splatview --headless /tmp/s30M.ply --frames 1 --size 1920x1080 --raster compute --timings /tmp/t.csv > $o/whole30_$r.txt 2>&1; echo "whole 30M: exit $? $(grep '^load:' $o/whole30_$r.txt | grep -v upload | sed 's/load: //' | tr '\n' ';')" | tee -a $o/tests.txt
done
rm -rf $o/t_* /tmp/t.csv
cd $OUT && tar czf f.tgz f && rm -rf f
