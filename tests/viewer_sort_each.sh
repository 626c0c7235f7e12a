#!/bin/sh
# splatview --sort with every algorithm: each headless image is the same file byte for byte as
# quaternary's (all are the same stable sort) and the summary line names the sort used.
# usage: viewer_sort_each.sh SPLATVIEW SCENE OUTDIR
set -eu
view=$1 scene=$2 out=$3
for s in quaternary onesweep radix16 merge auto; do
  line=$("$view" --headless "$scene" --sort "$s" --raster graphics --size 160x120 --out "$out/sort_$s.png")
  echo "$line"
  case $s in
    auto) echo "$line" | grep -Eq "sort (quaternary|onesweep|radix16|merge)," ;;
    *) echo "$line" | grep -q "sort $s," ;;
  esac || { echo "the line does not name the sort ($s)"; exit 1; }
  cmp "$out/sort_quaternary.png" "$out/sort_$s.png"
done
