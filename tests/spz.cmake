# .spz (src/scene/scene_spz.c): the reader against the test's own encoder and containers, the
# writer against the format's quantisation bounds, malformed files, splatview --convert, and the
# load benchmark on a .spz. The fuzz target is in tests/fuzz.cmake.
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

if(TARGET splatview)
  # .ply -> .spz -> .ply through the viewer's --convert, and what it refuses.
  splatsort_test(viewer_convert LABELS cpu viewer TIMEOUT 300
                 COMMAND test_spz convert $<TARGET_FILE:splatview> ${spz_test_tmp}/convert)
  splatsort_test(viewer_convert_bad_ext LABELS cpu viewer
                 PROPERTIES PASS_REGULAR_EXPRESSION "--convert: cannot write '.*out.txt': OUT must end in .ply or .spz"
                 COMMAND splatview --convert ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply ${spz_test_tmp}/out.txt)
  # The load benchmark on a .spz (scene.cmake's 100,000-splat SH-3 .ply, converted): it keeps working.
  splatsort_test(scene_bench_file_spz LABELS cpu scene TIMEOUT 300
                 PROPERTIES FIXTURES_REQUIRED scene_bench_file FIXTURES_SETUP scene_bench_file_spz
                 COMMAND splatview --convert ${CMAKE_CURRENT_BINARY_DIR}/scene_tmp/bench.ply ${spz_test_tmp}/bench.spz)
  splatsort_test(scene_load_bench_small_spz LABELS cpu scene TIMEOUT 300 PROPERTIES FIXTURES_REQUIRED scene_bench_file_spz
                 COMMAND scene_load_bench ${spz_test_tmp}/bench.spz --runs 2 --expect-count 100000)
endif()
