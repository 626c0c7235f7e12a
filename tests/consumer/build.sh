#!/bin/sh
# Configures and builds tests/consumer as an outside project would (ctest's consumer tests).
#   build.sh package SOURCE_DIR BUILD_DIR PREFIX   against the package installed in PREFIX, after
#                                                 checking its libraries export only the API
#   build.sh subdir  SOURCE_DIR BUILD_DIR TREE     add_subdirectory() of the splatsort tree TREE,
#                                                 then checks the program references no vk* symbol
#   build.sh render-package SOURCE_DIR BUILD_DIR PREFIX   the renderer's host (tests/consumer/render)
#                                                 against the installed package, and the same
#                                                 program compiled with pkg-config alone
#   build.sh render-subdir  SOURCE_DIR BUILD_DIR TREE     the renderer's host, add_subdirectory()
set -eu
mode=$1 src=$2 out=$3 where=$4
rm -rf "$out"
pc_path="$where/lib/pkgconfig:$where/lib64/pkgconfig"
if [ "$mode" = render-package ] || [ "$mode" = render-subdir ]; then
  if [ "$mode" = render-package ]; then
    cmake -S "$src" -B "$out" -DCMAKE_PREFIX_PATH="$where" -DCMAKE_BUILD_TYPE=Release
  else
    cmake -S "$src" -B "$out" -DCONSUMER_FROM_SOURCE=ON -DSPLATSORT_SOURCE="$where" -DCMAKE_BUILD_TYPE=Release
  fi
  cmake --build "$out" -j2
  if [ "$mode" = render-package ]; then
    # pkg-config alone: the shaders with glslc, the program against the shared libraries (the
    # .pc files' rpath lets it start from this non-system prefix)
    mkdir -p "$out/pc"
    for stage in vert frag; do glslc -mfmt=c -o "$out/pc/host_$stage.inc" "$src/host.$stage"; done
    cc -std=c11 -O2 -I"$out/pc" -I"$src/../.." -o "$out/render_consumer_pc" "$src/main.c" "$src/host.c" "$src/../../refrender.c" \
      $(PKG_CONFIG_PATH="$pc_path" pkg-config --cflags --libs splatsort-render) -lm
    # the libraries it runs with are the installed ones
    ldd "$out/render_consumer_pc" | grep -q "$where" || { echo "build.sh: render_consumer_pc does not run with the installed libraries" >&2; exit 1; }
  fi
  exit 0
fi
if [ "$mode" = package ]; then
  cmake -S "$src" -B "$out" -DCMAKE_PREFIX_PATH="$where" -DCMAKE_BUILD_TYPE=Release
else
  cmake -S "$src" -B "$out" -DCONSUMER_FROM_SOURCE=ON -DSPLATSORT_SOURCE="$where" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$out" -j2
if [ "$mode" = package ]; then
  # the pkg-config file is enough to compile and link a host too
  if command -v pkg-config > /dev/null; then
    cc -std=c11 -o "$out/consumer_pc" "$src/main.c" $(PKG_CONFIG_PATH="$pc_path" pkg-config --cflags --libs splatsort) -lm
  fi
  # the installed libraries define no global symbol but their API: splatsort_* (sort),
  # splat_scene_*, splat_lod_* and splat_cameras_* (scene), splat_* (render)
  for lib in "$where"/lib*/libsplatsort*.a "$where"/lib*/libsplatsort*.so; do
    [ -e "$lib" ] || continue
    case "$lib" in *.so) table=-D ;; *) table=-g ;; esac
    case "$lib" in *splatsort_scene*) api=' splat_\(scene\|lod\|cameras\)_' ;; *splatsort_render*) api=' splat_' ;; *) api=' splatsort_' ;; esac
    if nm "$table" --defined-only "$lib" 2>/dev/null | grep -E ' [A-Z] ' | grep -v "$api"; then
      echo "build.sh: $lib exports more than the API (listed above)" >&2
      exit 1
    fi
  done
fi
if [ "$mode" = subdir ]; then
  if nm -u "$out/consumer" | grep -E ' vk[A-Z]'; then
    echo "build.sh: the consumer references Vulkan loader symbols (listed above)" >&2
    exit 1
  fi
  # and the subproject built only the sort library
  if [ -e "$out/splatsort/src/scene" ] || [ -e "$out/splatsort/src/render" ] || [ -e "$out/splatsort/viewer" ] ||
     [ -e "$out/splatsort/tests" ]; then
    echo "build.sh: add_subdirectory() built more than the sort library" >&2
    exit 1
  fi
fi
