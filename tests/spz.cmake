# .spz (src/splat/scene_spz.c): the reader against the test's own encoder and containers, the
# writer against the format's quantisation bounds, malformed files. The fuzz target is in
# tests/fuzz.cmake.
find_package(ZLIB REQUIRED)
if(NOT TARGET PkgConfig::ZSTD)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
endif()
splatsort_test_executable(test_spz SOURCES test_spz.c LIBS splatsort_render ZLIB::ZLIB PkgConfig::ZSTD m)

set(spz_test_tmp ${CMAKE_CURRENT_BINARY_DIR}/spz_tmp)
file(MAKE_DIRECTORY ${spz_test_tmp})
foreach(mode roundtrip legacy malformed)
  splatsort_test(scene_spz_${mode} LABELS cpu scene TIMEOUT 300 COMMAND test_spz ${mode} ${spz_test_tmp}/${mode})
endforeach()
