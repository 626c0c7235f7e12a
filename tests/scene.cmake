# Scene loading (CPU only): the loader tests, the gen_scene generator (built by
# tests/CMakeLists.txt), the load benchmark and, with -DSPLATSORT_FUZZ=ON under clang, a
# libFuzzer target.
find_package(Threads REQUIRED)
splatsort_test_executable(test_scene SOURCES test_scene.c LIBS splatsort_render m Threads::Threads)

splatsort_test_executable(scene_load_bench SOURCES bench/scene_load_bench.c LIBS splatsort_render)

set(scene_test_tmp ${CMAKE_CURRENT_BINARY_DIR}/scene_tmp)
file(MAKE_DIRECTORY ${scene_test_tmp})

# scene_test(<name> [PROPERTIES ...] COMMAND ...): every scene test is CPU-only, may skip (77)
# and gets 5 minutes.
function(scene_test name)
  splatsort_test(${name} LABELS cpu scene TIMEOUT 300 SKIP_RETURN_CODE 77 ${ARGN})
endfunction()

foreach(mode synthetic policy malformed roundtrip)
  scene_test(scene_${mode} COMMAND test_scene ${mode} ${scene_test_tmp}/${mode})
endforeach()
scene_test(scene_real COMMAND test_scene real ${PROJECT_SOURCE_DIR}/../shared/scenes)
scene_test(scene_asset COMMAND test_scene asset ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
scene_test(scene_gen COMMAND test_scene gen $<TARGET_FILE:gen_scene> ${scene_test_tmp}/gen)
# A small run of the benchmark, so it keeps working (the real numbers: README).
scene_test(scene_bench_file PROPERTIES FIXTURES_SETUP scene_bench_file
           COMMAND gen_scene --count 100000 --sh-degree 3 --seed 7 --out ${scene_test_tmp}/bench.ply)
scene_test(scene_load_bench_small PROPERTIES FIXTURES_REQUIRED scene_bench_file
           COMMAND scene_load_bench ${scene_test_tmp}/bench.ply --runs 2 --expect-count 100000)

option(SPLATSORT_FUZZ "Build the libFuzzer scene-loader target fuzz_scene (clang only)" OFF)
if(SPLATSORT_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SPLATSORT_FUZZ needs clang (configure with CC=clang)")
  endif()
  # The loader's sources directly, instrumented; no Vulkan needed.
  file(GLOB scene_fuzz_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/splat/scene*.c)
  splatsort_test_executable(fuzz_scene SOURCES fuzz/fuzz_scene.c ${scene_fuzz_sources} LIBS m
                            INCLUDES ${PROJECT_SOURCE_DIR}/src/splat)
  target_compile_options(fuzz_scene PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
  target_link_options(fuzz_scene PRIVATE -fsanitize=fuzzer,address,undefined)
  # 25 s from the committed seeds; new inputs go to the build tree, not the source corpus.
  splatsort_test(scene_fuzz_smoke LABELS cpu scene fuzz TIMEOUT 120
                 COMMAND ${CMAKE_COMMAND} -E env
                         sh -c "mkdir -p '${scene_test_tmp}/fuzz' && exec '$<TARGET_FILE:fuzz_scene>' -max_total_time=25 -seed=1 -timeout=5 -rss_limit_mb=2048 '${scene_test_tmp}/fuzz' '${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus'")
endif()
