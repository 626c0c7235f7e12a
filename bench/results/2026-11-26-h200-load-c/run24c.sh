#!/bin/bash
# Issue 24 batch: 6M / 30M / 100M SH-3 .ply, 30M .spz and SOG; load (3303310) vs now; whole and --stream.
o=$OUT/c; mkdir -p $o
timeout 545 bash gpurun/run24c_body.sh; echo "body exit $?" >> $o/machine.txt
pkill nvidia-smi
for f in $o/*.txt; do grep -q 'Elapsed (wall' $f || continue; f=${f%.txt}
  printf '%-20s rss %9s KB | wall %8s | %s\n' "$(basename $f)" "$(grep -h 'Maximum resident' $f.txt | awk '{print $NF}')" \
    "$(grep -h 'Elapsed (wall' $f.txt | awk '{print $NF}')" "$(grep -h '^load:' $f.txt | tr '\n' ' ' | cut -c1-400)"
done > $o/summary.txt
grep -H "median\|phases" $o/bench*.txt >> $o/summary.txt
cat $o/summary.txt
rm -f /tmp/t.csv
cd $OUT && tar czf c.tgz c && rm -rf c
