#!/bin/bash
# The four sort algorithms side by side on the GPU machine (issue 15): the merge and radix16
# correctness suites at the device's own subgroup size, then sortbench over 4K..32M keys for
# 32- and 16-bit keys in several fresh processes.
# Usage on the GPU machine, from the repository root, after `. .gl/setup.sh`:
#   tests/bench/sorts_run.sh OUTDIR [BUILD_DIR]
set -u
out=${1:?usage: sorts_run.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
sizes=${SORTS_N:-1K,2K,3K,4K,6K,8K,12K,16K,24K,32K,48K,64K,96K,128K,192K,256K,512K,1M,2M,4M,8M,16M,32M}
mkdir -p "$out"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit $(cat "$build/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
} | tee "$out/machine.txt"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
for a in ${SORTS_SUITES:-merge radix16}; do
  for suite in full large; do
    "$build/tests/test_sort" --algo "$a" --suite "$suite" > "$out/test_sort_${a}_$suite.txt" 2>&1
    echo "test_sort --algo $a --suite $suite: rc $? ($(tail -2 "$out/test_sort_${a}_$suite.txt" | head -1))"
  done
done
# the self-test, AUTO's choices, the API, the depth-sort stage and the renderer's images with
# every algorithm, on this device
"$build/tests/test_self_test" > "$out/test_self_test.txt" 2>&1
echo "test_self_test: rc $? ($(grep 'AUTO on' "$out/test_self_test.txt"))"
"$build/tests/test_sort_api" > "$out/test_sort_api.txt" 2>&1
echo "test_sort_api: rc $?"
"$build/tests/test_depth" > "$out/test_depth.txt" 2>&1
echo "test_depth: rc $?"
"$build/tests/test_render" sortpaths --out "$out/sortpaths" --scene assets/*.ply > "$out/test_render_sortpaths.txt" 2>&1
echo "test_render sortpaths: rc $? ($(grep -c 'bit-identical.*yes' "$out/test_render_sortpaths.txt") views all bit-identical)"
unset VK_INSTANCE_LAYERS
. "$(dirname "$0")/clocks.sh"
clocks_start "$out/clocks_sortbench.csv"
"$build/tests/sortbench" --n "$sizes" --algo all --key-bits 32,16 --runs 30 --warmup 5 --processes 3 \
  > "$out/sortbench.txt" 2>&1
echo "sortbench: rc $?"
clocks_stop
cat "$out/sortbench.txt"
