#!/bin/sh
# Configures and builds tests/consumer as an outside project would (ctest's consumer tests).
#   build.sh package SOURCE_DIR BUILD_DIR PREFIX   against the package installed in PREFIX, after
#                                                 checking its libraries export only the API
#   build.sh subdir  SOURCE_DIR BUILD_DIR TREE     add_subdirectory() of the splatsort tree TREE,
#                                                 then checks the program references no vk* symbol
set -eu
mode=$1 src=$2 out=$3 where=$4
rm -rf "$out"
if [ "$mode" = package ]; then
  cmake -S "$src" -B "$out" -DCMAKE_PREFIX_PATH="$where" -DCMAKE_BUILD_TYPE=Release
else
  cmake -S "$src" -B "$out" -DCONSUMER_FROM_SOURCE=ON -DSPLATSORT_SOURCE="$where" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$out" -j2
if [ "$mode" = package ]; then
  # the pkg-config file is enough to compile and link a host too
  if command -v pkg-config > /dev/null; then
    PKG_CONFIG_PATH="$where/lib/pkgconfig:$where/lib64/pkgconfig" cc -std=c11 -o "$out/consumer_pc" "$src/main.c" \
      $(PKG_CONFIG_PATH="$where/lib/pkgconfig:$where/lib64/pkgconfig" pkg-config --cflags --libs splatsort) -lm
  fi
  # the installed libraries define no global symbol but the splatsort_* API
  for lib in "$where"/lib*/libsplatsort.a "$where"/lib*/libsplatsort.so; do
    [ -e "$lib" ] || continue
    case "$lib" in *.so) table=-D ;; *) table=-g ;; esac
    if nm "$table" --defined-only "$lib" 2>/dev/null | grep -E ' [A-Z] ' | grep -v ' splatsort_'; then
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
  if [ -e "$out/splatsort/src/splat" ] || [ -e "$out/splatsort/viewer" ] || [ -e "$out/splatsort/tests" ]; then
    echo "build.sh: add_subdirectory() built more than the sort library" >&2
    exit 1
  fi
fi
