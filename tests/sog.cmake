# The SOG reader (CPU only): round trips through the test writer (tests/sog_writer.h), every
# error, corruption loops, and files PlayCanvas's tools wrote (tests/data/sog), streamed (LOD)
# bundles included. Its fuzz target:
# tests/fuzz.cmake (fuzz_sog); its image test: tests/render.cmake (render_sog).
add_library(sog_writer STATIC sog_writer.c fuzz/sog_fixture.c)
target_include_directories(sog_writer PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
target_link_libraries(sog_writer PUBLIC splatsort_scene PkgConfig::SPLAT_SCENE_DEPS m)
target_compile_options(sog_writer PRIVATE ${SPLATSORT_WARNINGS})

splatsort_test_executable(test_sog SOURCES test_sog.c LIBS sog_writer splatsort_render m
                          )
# PLY -> SOG for benchmarks and by hand: sog_convert IN.ply OUT_FOLDER|OUT.sog [--version 1|2]
splatsort_test_executable(sog_convert SOURCES sog_convert.c LIBS sog_writer splatsort_render)

set(sog_test_tmp ${CMAKE_CURRENT_BINARY_DIR}/sog_tmp)
file(MAKE_DIRECTORY ${sog_test_tmp})
foreach(mode roundtrip malformed corrupt)
  splatsort_test(sog_${mode} LABELS cpu scene TIMEOUT 300 COMMAND test_sog ${mode} ${sog_test_tmp}/${mode})
endforeach()
splatsort_test(sog_real LABELS cpu scene TIMEOUT 120 SKIP_RETURN_CODE 77
               COMMAND test_sog real ${CMAKE_CURRENT_SOURCE_DIR}/data/sog)
# A streamed (LOD) bundle splat-transform wrote (tests/data/sog/st-lod3k): each level against its own
# reading of it; then copies of it edited into every refusal and into bundles that still load.
splatsort_test(sog_lod_real LABELS cpu scene TIMEOUT 120 SKIP_RETURN_CODE 77
               COMMAND test_sog lod_real ${CMAKE_CURRENT_SOURCE_DIR}/data/sog)
splatsort_test(sog_lod LABELS cpu scene TIMEOUT 300 SKIP_RETURN_CODE 77
               COMMAND test_sog lod ${CMAKE_CURRENT_SOURCE_DIR}/data/sog ${sog_test_tmp}/lod)
# A small run of the load benchmark on a SOG folder, so it keeps working (the numbers: docs/performance.md).
splatsort_test(sog_bench_file LABELS cpu scene TIMEOUT 300 PROPERTIES FIXTURES_SETUP sog_bench_file
               COMMAND sh -c "$<TARGET_FILE:gen_scene> --count 20000 --sh-degree 3 --seed 7 --out '${sog_test_tmp}/bench.ply' && $<TARGET_FILE:sog_convert> '${sog_test_tmp}/bench.ply' '${sog_test_tmp}/bench_sog'")
splatsort_test(sog_load_bench_small LABELS cpu scene TIMEOUT 300 PROPERTIES FIXTURES_REQUIRED sog_bench_file
               COMMAND scene_load_bench ${sog_test_tmp}/bench_sog --runs 2 --expect-count 20000)

# A scene against its SOG encoding on the GPU (test_render sog, in tests/test_render_scene.c;
# test_render itself is render.cmake's): the generated scene and the bundled one, PSNR against the original's image.
if(TARGET test_render)
  target_link_libraries(test_render PRIVATE sog_writer)
  splatsort_lavapipe_test(render_sog WIDTHS 256
                          COMMAND test_render sog --out ${CMAKE_CURRENT_BINARY_DIR}/render_out/sog
                                  --scene ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
endif()

# splatview opens a SOG scene by its meta.json, its folder and a .sog bundle, headless and in a
# window (the same image each way), and by drag and drop (tests/sog_viewer.sh).
if(TARGET splatview)
  # --lod-level reaches the bundle reader (CPU only, through --convert): level 1 of the committed
  # bundle has 1,500 splats; a level it lacks and a bad value are one line each.
  set(sog_lod_bundle ${CMAKE_CURRENT_SOURCE_DIR}/data/sog/st-lod3k)
  splatsort_test(sog_viewer_lod_level LABELS cpu viewer PROPERTIES PASS_REGULAR_EXPRESSION "1500 splats, SH degree 0"
                 COMMAND splatview --convert ${sog_lod_bundle}/lod-meta.json ${sog_test_tmp}/lod_level1.ply --lod-level 1)
  splatsort_test(sog_viewer_lod_level_absent LABELS cpu viewer
                 PROPERTIES PASS_REGULAR_EXPRESSION "st-lod3k: lod-meta.json: level 5 asked for \\(splat_load_options.lod_level\\), but the bundle has 2"
                 COMMAND splatview --convert ${sog_lod_bundle} ${sog_test_tmp}/lod_level5.ply --lod-level 5)
  splatsort_test(sog_viewer_lod_level_bad LABELS cpu viewer
                 PROPERTIES PASS_REGULAR_EXPRESSION "--lod-level '64': expected a level 0\\.\\.63"
                 COMMAND splatview --headless ${sog_lod_bundle} --lod-level 64 --out ${sog_test_tmp}/lod_bad.png)
  # xdnd_drop and png_psnr are made by viewer.cmake, which is read after this file
  set(sog_viewer_drop "$<$<TARGET_EXISTS:xdnd_drop>:$<TARGET_FILE:xdnd_drop>>")
  splatsort_test(sog_viewer GPU LABELS viewer TIMEOUT 600 SKIP_RETURN_CODE 77
                 COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sog_viewer.sh $<TARGET_FILE:splatview>
                         $<TARGET_FILE:sog_convert> $<TARGET_FILE:png_psnr> ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply
                         ${CMAKE_CURRENT_BINARY_DIR}/viewer_out/sog ${sog_viewer_drop})
endif()
