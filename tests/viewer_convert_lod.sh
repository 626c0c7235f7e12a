#!/bin/sh
# viewer_convert_lod.sh SPLATVIEW TEST_SCENE_LOD SCENE DIR: splatview --convert SCENE DIR/scene.spz
# --lod writes the scene in its LOD tree's order and the tree beside it, says so in a line, and
# both read back with the tree's invariants holding (test_scene_lod check).
set -u
splatview=$1 check=$2 scene=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
out=$("$splatview" --convert "$scene" "$dir/scene.spz" --lod) || exit 1
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -Eq 'level of detail: .*scene\.spz\.lod \([0-9.]+ MB\): [0-9]+ leaves, [0-9]+ interior nodes, [0-9]+ levels above the leaves; build [0-9.]+ s, write [0-9.]+ s' ||
  { echo "viewer_convert_lod.sh: no level-of-detail line" >&2; exit 1; }
exec "$check" check "$dir/scene.spz" "$dir/scene.spz.lod"
