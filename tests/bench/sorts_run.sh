#!/bin/bash
# The four sort algorithms side by side on the GPU machine (issue 15): the merge and radix16
# correctness suites at the device's own subgroup size, then sortbench over 4K..32M keys for
# 32- and 16-bit keys in several fresh processes.
# Usage on the GPU machine, from the repository root, after `. .gl/setup.sh`:
#   tests/bench/sorts_run.sh OUTDIR [BUILD_DIR]
set -u
out=${1:?usage: sorts_run.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
sizes=${SORTS_N:-4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M,8M,16M,32M}
mkdir -p "$out"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit $(cat "$build/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
} | tee "$out/machine.txt"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
for a in merge radix16; do
  for suite in full large; do
    "$build/tests/test_sort" --algo "$a" --suite "$suite" > "$out/test_sort_${a}_$suite.txt" 2>&1
    echo "test_sort --algo $a --suite $suite: rc $? ($(tail -2 "$out/test_sort_${a}_$suite.txt" | head -1))"
  done
done
unset VK_INSTANCE_LAYERS
"$build/tests/sortbench" --n "$sizes" --algo all --key-bits 32,16 --runs 30 --warmup 5 --processes 3 \
  > "$out/sortbench.txt" 2>&1
echo "sortbench: rc $?"
cat "$out/sortbench.txt"
