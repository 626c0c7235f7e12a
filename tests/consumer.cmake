# Outside hosts (tests/consumer): the sort's host (tests/consumer/main.c) through the installed
# package's find_package(), and add_subdirectory() of this tree with no loader symbols; the
# renderer's host (tests/consumer/render: a .ply through splatsort::scene, drawn with its own
# geometry into its own pass, checked against the CPU reference) through find_package(
# COMPONENTS scene render), pkg-config and add_subdirectory(), and the README's and
# docs/embedding.md's host code built beside it. Each is built like a consumer's own project and
# then run at lavapipe's subgroup sizes with validation on.
# Not in the sanitizer build: it tests packaging, which the normal build does; the installed
# library there is instrumented and a plain consumer build cannot link it.
if(SPLATSORT_SANITIZE)
  return()
endif()
set(consumer_dir ${CMAKE_CURRENT_BINARY_DIR}/consumer)
splatsort_test(consumer_install LABELS gpu TIMEOUT 300
               PROPERTIES FIXTURES_SETUP consumer_prefix
               COMMAND ${CMAKE_COMMAND} --install ${PROJECT_BINARY_DIR} --prefix ${consumer_dir}/prefix)
splatsort_test(consumer_package_build LABELS gpu TIMEOUT 600
               PROPERTIES FIXTURES_REQUIRED consumer_prefix FIXTURES_SETUP consumer_package
               COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/consumer/build.sh package ${CMAKE_CURRENT_LIST_DIR}/consumer
                       ${consumer_dir}/package ${consumer_dir}/prefix)
splatsort_test(consumer_subdir_build LABELS gpu TIMEOUT 600
               PROPERTIES FIXTURES_SETUP consumer_subdir
               COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/consumer/build.sh subdir ${CMAKE_CURRENT_LIST_DIR}/consumer
                       ${consumer_dir}/subdir ${PROJECT_SOURCE_DIR})
splatsort_lavapipe_test(consumer_package COMMAND ${consumer_dir}/package/consumer)
splatsort_lavapipe_test(consumer_subdir COMMAND ${consumer_dir}/subdir/consumer)
foreach(w 4 8 16)
  set_tests_properties(consumer_package_sg${w} PROPERTIES FIXTURES_REQUIRED consumer_package)
  set_tests_properties(consumer_subdir_sg${w} PROPERTIES FIXTURES_REQUIRED consumer_subdir)
endforeach()

set(render_scene ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
splatsort_test(render_consumer_package_build LABELS gpu TIMEOUT 600
               PROPERTIES FIXTURES_REQUIRED consumer_prefix FIXTURES_SETUP render_consumer_package
               COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/consumer/build.sh render-package
                       ${CMAKE_CURRENT_LIST_DIR}/consumer/render ${consumer_dir}/render_package ${consumer_dir}/prefix)
splatsort_test(render_consumer_subdir_build LABELS gpu TIMEOUT 900
               PROPERTIES FIXTURES_SETUP render_consumer_subdir
               COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/consumer/build.sh render-subdir
                       ${CMAKE_CURRENT_LIST_DIR}/consumer/render ${consumer_dir}/render_subdir ${PROJECT_SOURCE_DIR})
splatsort_lavapipe_test(render_consumer_package COMMAND ${consumer_dir}/render_package/render_consumer ${render_scene})
splatsort_lavapipe_test(render_consumer_pkgconfig WIDTHS 256
                        COMMAND ${consumer_dir}/render_package/render_consumer_pc ${render_scene})
splatsort_lavapipe_test(render_consumer_subdir COMMAND ${consumer_dir}/render_subdir/render_consumer ${render_scene})
# The first compute-raster frame at 1920x1080, where the bundled scene needs ~98,000 (tile, splat)
# pairs, more than the least first capacity (65,536): the renderer must size its pairs for it.
splatsort_lavapipe_test(render_consumer_1080p WIDTHS 256
                        COMMAND ${consumer_dir}/render_package/render_consumer ${render_scene} --size 1920x1080)
foreach(w 4 8 16)
  set_tests_properties(render_consumer_package_sg${w} PROPERTIES FIXTURES_REQUIRED render_consumer_package)
  set_tests_properties(render_consumer_subdir_sg${w} PROPERTIES FIXTURES_REQUIRED render_consumer_subdir)
endforeach()
set_tests_properties(render_consumer_pkgconfig_sg8 PROPERTIES FIXTURES_REQUIRED render_consumer_package)
set_tests_properties(render_consumer_1080p_sg8 PROPERTIES FIXTURES_REQUIRED render_consumer_package)
# The documentation's host code (README.md's renderer block, docs/embedding.md's host-pass and
# compute-raster blocks), extracted when the package's host is configured, built with it and run
# as printed: every image it draws against the CPU reference at the scene's full SH (issue 34).
foreach(page readme embedding)
  splatsort_lavapipe_test(render_snippets_${page} COMMAND ${consumer_dir}/render_package/render_snippets_${page}
                          ${render_scene})
  foreach(w 4 8 16)
    set_tests_properties(render_snippets_${page}_sg${w} PROPERTIES FIXTURES_REQUIRED render_consumer_package)
  endforeach()
endforeach()
