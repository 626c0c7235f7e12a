# Scene loading (CPU only): the loader tests, the gen_scene generator, the load
# benchmark and, with -DSPLATSORT_FUZZ=ON under clang, a libFuzzer target.
add_executable(gen_scene ${CMAKE_CURRENT_LIST_DIR}/gen_scene.c)
target_link_libraries(gen_scene PRIVATE m)
target_compile_options(gen_scene PRIVATE ${SPLATSORT_WARNINGS})

add_executable(test_scene ${CMAKE_CURRENT_LIST_DIR}/test_scene.c)
target_link_libraries(test_scene PRIVATE splat m)
target_compile_options(test_scene PRIVATE ${SPLATSORT_WARNINGS})

add_executable(scene_load_bench ${CMAKE_CURRENT_LIST_DIR}/bench/scene_load_bench.c)
target_link_libraries(scene_load_bench PRIVATE splat)
target_compile_options(scene_load_bench PRIVATE ${SPLATSORT_WARNINGS})

set(scene_test_tmp ${CMAKE_CURRENT_BINARY_DIR}/scene_tmp)
file(MAKE_DIRECTORY ${scene_test_tmp})
foreach(mode synthetic policy malformed roundtrip)
  add_test(NAME scene_${mode} COMMAND test_scene ${mode} ${scene_test_tmp}/${mode})
endforeach()
add_test(NAME scene_real COMMAND test_scene real ${PROJECT_SOURCE_DIR}/../shared/scenes)
add_test(NAME scene_asset COMMAND test_scene asset ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
add_test(NAME scene_gen COMMAND test_scene gen $<TARGET_FILE:gen_scene> ${scene_test_tmp}/gen)
# A small run of the benchmark, so it keeps working (the real numbers: README).
add_test(NAME scene_bench_file COMMAND gen_scene --count 100000 --sh-degree 3 --seed 7
         --out ${scene_test_tmp}/bench.ply)
add_test(NAME scene_load_bench_small COMMAND scene_load_bench ${scene_test_tmp}/bench.ply
         --runs 2 --expect-count 100000)
set_tests_properties(scene_bench_file PROPERTIES FIXTURES_SETUP scene_bench_file)
set_tests_properties(scene_load_bench_small PROPERTIES FIXTURES_REQUIRED scene_bench_file)
set_tests_properties(scene_synthetic scene_policy scene_malformed scene_roundtrip scene_real
                     scene_asset scene_gen scene_bench_file scene_load_bench_small
                     PROPERTIES LABELS "cpu;scene" TIMEOUT 300 SKIP_RETURN_CODE 77)

option(SPLATSORT_FUZZ "Build the libFuzzer scene-loader target fuzz_scene (clang only)" OFF)
if(SPLATSORT_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SPLATSORT_FUZZ needs clang (configure with CC=clang)")
  endif()
  # The loader's sources directly, instrumented; no Vulkan needed.
  file(GLOB scene_fuzz_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/splat/scene*.c)
  add_executable(fuzz_scene ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_scene.c ${scene_fuzz_sources})
  target_include_directories(fuzz_scene PRIVATE ${PROJECT_SOURCE_DIR}/src/splat)
  target_compile_options(fuzz_scene PRIVATE ${SPLATSORT_WARNINGS}
                         -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
  target_link_options(fuzz_scene PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_scene PRIVATE m)
  # 25 s from the committed seeds; new inputs go to the build tree, not the source corpus.
  add_test(NAME scene_fuzz_smoke COMMAND ${CMAKE_COMMAND} -E env
           sh -c "mkdir -p '${scene_test_tmp}/fuzz' && exec '$<TARGET_FILE:fuzz_scene>' -max_total_time=25 -seed=1 -timeout=5 -rss_limit_mb=2048 '${scene_test_tmp}/fuzz' '${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus'")
  set_tests_properties(scene_fuzz_smoke PROPERTIES LABELS "cpu;scene;fuzz" TIMEOUT 120)
endif()
