# splatview: input bindings (CPU only) and the window under Xvfb compared with headless renders.
if(NOT TARGET splatview)
  return()
endif()

set(viewer_dir ${PROJECT_SOURCE_DIR}/viewer)
add_executable(test_input ${CMAKE_CURRENT_SOURCE_DIR}/test_input.c ${viewer_dir}/input.c ${viewer_dir}/swapchain.c)
target_include_directories(test_input PRIVATE ${viewer_dir})
target_link_libraries(test_input PRIVATE splat splat_tools splatsort_vk m)
target_compile_options(test_input PRIVATE ${SPLATSORT_WARNINGS})
add_test(NAME viewer_input COMMAND test_input)
set_tests_properties(viewer_input PROPERTIES LABELS cpu)

set(viewer_test_dir ${CMAKE_CURRENT_BINARY_DIR}/viewer_out)
file(MAKE_DIRECTORY ${viewer_test_dir})
add_executable(test_viewer_window ${CMAKE_CURRENT_SOURCE_DIR}/test_viewer_window.c)
target_link_libraries(test_viewer_window PRIVATE splat_refrender PkgConfig::STB)
target_compile_options(test_viewer_window PRIVATE ${SPLATSORT_WARNINGS})
# Drag and drop is driven through XDND by a small Xlib client (Xlib comes with libglfw3-dev's
# recommended libx11-dev; without it that part is left out).
find_package(X11)
set(viewer_drop_args "")
if(X11_FOUND AND TARGET gen_scene)
  add_executable(xdnd_drop ${CMAKE_CURRENT_SOURCE_DIR}/xdnd_drop.c)
  target_include_directories(xdnd_drop PRIVATE ${X11_INCLUDE_DIR})
  target_link_libraries(xdnd_drop PRIVATE ${X11_LIBRARIES})
  target_compile_options(xdnd_drop PRIVATE ${SPLATSORT_WARNINGS})
  set(viewer_drop_args $<TARGET_FILE:gen_scene> $<TARGET_FILE:xdnd_drop>)
endif()
# xvfb-run is a declared dependency (.ci/run): the test skips (77) only where it is missing.
add_test(NAME viewer_window
         COMMAND test_viewer_window $<TARGET_FILE:splatview> ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply
                 ${viewer_test_dir} ${viewer_drop_args})
set_tests_properties(viewer_window PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu TIMEOUT 300
                     ENVIRONMENT "SPLATSORT_VALIDATION=1")

# --bench leaves its warm-up frames out of the statistics (and says so); a bad --warmup is named.
add_test(NAME viewer_bench_warmup
         COMMAND splatview --headless ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply --bench --frames 12
                 --size 160x120)
set_tests_properties(viewer_bench_warmup PROPERTIES LABELS gpu TIMEOUT 300 ENVIRONMENT "SPLATSORT_VALIDATION=1"
                     PASS_REGULAR_EXPRESSION "9 frames after 3 warm-up frames.*first frame: projection")
add_test(NAME viewer_bad_warmup
         COMMAND splatview --headless ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply --bench --frames 4 --warmup 4)
set_tests_properties(viewer_bad_warmup PROPERTIES LABELS cpu
                     PASS_REGULAR_EXPRESSION "--warmup 4: must be below --frames \\(4\\)")
