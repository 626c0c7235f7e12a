#!/bin/bash
# decimate.sh SCENE OUTDIR [PERCENT...]: the baseline of the LOD comparison (compare.sh, issue 35):
# splat-transform 3.7.0's uniform decimation of one capture at each PERCENT (default 2 5 10 20 35
# 50 70), written as OUTDIR/<name>.dec<P>.ply. Run where node and npm are (not the GPU machine, which
# reaches no registry); splat-transform is installed once into $ST_DIR (default
# ~/.cache/splatsort-splat-transform-3.7.0), pinned. CPU only (-g cpu).
set -eu
SCENE=${1:?usage: decimate.sh SCENE OUTDIR [PERCENT...]}
OUTDIR=${2:?usage: decimate.sh SCENE OUTDIR [PERCENT...]}
shift 2
PERCENTS=${*:-2 5 10 20 35 50 70}
ST_DIR=${ST_DIR:-$HOME/.cache/splatsort-splat-transform-3.7.0}
ST=$ST_DIR/node_modules/.bin/splat-transform
if [ ! -x "$ST" ]; then
  mkdir -p "$ST_DIR"
  npm install --prefix "$ST_DIR" --no-audit --no-fund @playcanvas/splat-transform@3.7.0 >&2
fi
"$ST" --version 2>&1 | grep -q '3\.7\.0' || { echo "decimate.sh: $ST is not splat-transform 3.7.0" >&2; exit 1; }
mkdir -p "$OUTDIR"
name=$(basename "$SCENE"); name=${name%%.*}
for p in $PERCENTS; do
  out=$OUTDIR/$name.dec$p.ply
  [ -s "$out" ] && continue
  "$ST" -q -w -g cpu "$SCENE" -d "$p%" "$out" >&2
  echo "$out"
done
