#!/bin/bash
o=$OUT/d; mkdir -p $o
timeout 560 bash gpurun/run24d_body.sh; echo "body exit $?" >> $o/machine.txt
pkill nvidia-smi
for f in $o/*.txt; do grep -q 'Elapsed (wall' $f || continue; f=${f%.txt}
  printf '%-16s rss %9s KB | wall %8s | %s\n' "$(basename $f)" "$(grep -h 'Maximum resident' $f.txt | awk '{print $NF}')" \
    "$(grep -h 'Elapsed (wall' $f.txt | awk '{print $NF}')" "$(grep -h '^load:' $f.txt | grep -v upload | sed 's/load: //' | tr '\n' ';' | cut -c1-300)"
done > $o/summary.txt
cat $o/machine.txt $o/summary.txt
rm -f /tmp/t.csv
cd $OUT && tar czf d.tgz d && rm -rf d
