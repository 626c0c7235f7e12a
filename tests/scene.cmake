# Scene loading (CPU only): the loader tests, the gen_scene generator (built by
# tests/CMakeLists.txt) and the load benchmark. The loader's fuzz targets: tests/fuzz.cmake.
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED) # test_scene_decode gzips .spz files
splatsort_test_executable(test_scene SOURCES test_scene.c LIBS splatsort_render m Threads::Threads)

splatsort_test_executable(test_scene_parallel SOURCES test_scene_parallel.c LIBS splatsort_render m)
splatsort_test_executable(test_scene_decode SOURCES test_scene_decode.c
                          LIBS sog_writer splatsort_render ZLIB::ZLIB PkgConfig::SPLAT_SCENE_DEPS Threads::Threads m)
# The level-of-detail hierarchy (splat_lod_*): the scene library alone, and zlib for crafted files.
splatsort_test_executable(test_scene_lod SOURCES test_scene_lod.c LIBS splatsort_scene ZLIB::ZLIB m)
splatsort_test_executable(scene_load_bench SOURCES bench/scene_load_bench.c LIBS splatsort_render)
# Hostile files of issue 25 (bombs, counts a tiny file claims): refused quickly in bounded memory.
# The scene library only (its cameras.json reader too), no renderer.
splatsort_test_executable(test_scene_budget SOURCES test_scene_budget.c
                          LIBS splatsort_scene PkgConfig::SPLAT_SCENE_DEPS ZLIB::ZLIB Threads::Threads m)
# cameras.json (splat_cameras_load): good files, every malformed one named, truncations, the file's
# kind and size checked before it is read. The scene library alone.
splatsort_test_executable(test_cameras_json SOURCES test_cameras_json.c LIBS splatsort_scene m)

set(scene_test_tmp ${CMAKE_CURRENT_BINARY_DIR}/scene_tmp)
file(MAKE_DIRECTORY ${scene_test_tmp})

# scene_test(<name> [PROPERTIES ...] COMMAND ...): every scene test is CPU-only, may skip (77)
# and gets 5 minutes.
function(scene_test name)
  splatsort_test(${name} LABELS cpu scene TIMEOUT 300 SKIP_RETURN_CODE 77 ${ARGN})
endfunction()

foreach(mode synthetic policy malformed roundtrip progress)
  scene_test(scene_${mode} COMMAND test_scene ${mode} ${scene_test_tmp}/${mode})
endforeach()
foreach(mode tree merge pairs roundtrip hostile)
  scene_test(scene_lod_${mode} COMMAND test_scene_lod ${mode} ${scene_test_tmp}/lod_${mode})
endforeach()
scene_test(scene_parallel COMMAND test_scene_parallel ${scene_test_tmp}/parallel)
file(MAKE_DIRECTORY ${scene_test_tmp}/cameras)
scene_test(scene_cameras_json COMMAND test_cameras_json ${scene_test_tmp}/cameras)
scene_test(scene_budget COMMAND test_scene_budget ${scene_test_tmp}/budget ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
scene_test(scene_decode COMMAND test_scene_decode ${scene_test_tmp}/decode)
scene_test(scene_real COMMAND test_scene real ${PROJECT_SOURCE_DIR}/../shared/scenes)
scene_test(scene_asset COMMAND test_scene asset ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
scene_test(scene_gen COMMAND test_scene gen $<TARGET_FILE:gen_scene> ${scene_test_tmp}/gen)
# A small run of the benchmark, so it keeps working (the real numbers: docs/performance.md).
scene_test(scene_bench_file PROPERTIES FIXTURES_SETUP scene_bench_file
           COMMAND gen_scene --count 100000 --sh-degree 3 --seed 7 --out ${scene_test_tmp}/bench.ply)
scene_test(scene_load_bench_small PROPERTIES FIXTURES_REQUIRED scene_bench_file
           COMMAND scene_load_bench ${scene_test_tmp}/bench.ply --runs 2 --expect-count 100000)
scene_test(scene_load_bench_small_threads PROPERTIES FIXTURES_REQUIRED scene_bench_file
           COMMAND scene_load_bench ${scene_test_tmp}/bench.ply --runs 2 --threads 2 --expect-count 100000)

# The scene library stands alone: its folder configures and builds as its own project with
# Vulkan made unfindable (it is CPU only), as a host that wants only the readers would build it.
splatsort_test(scene_builds_alone LABELS cpu scene TIMEOUT 600
               COMMAND sh -c "rm -rf '${CMAKE_CURRENT_BINARY_DIR}/scene_alone' && ${CMAKE_COMMAND} -S '${PROJECT_SOURCE_DIR}/src/scene' -B '${CMAKE_CURRENT_BINARY_DIR}/scene_alone' -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=TRUE -DCMAKE_BUILD_TYPE=Release > /dev/null && ${CMAKE_COMMAND} --build '${CMAKE_CURRENT_BINARY_DIR}/scene_alone' -j2")
