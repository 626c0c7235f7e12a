# splatview: input bindings (CPU only) and the window under Xvfb compared with headless renders;
# every test here is labelled "viewer". Uses splat_refrender and gen_scene from tests/CMakeLists.txt.
if(NOT TARGET splatview)
  return()
endif()

set(viewer_dir ${PROJECT_SOURCE_DIR}/viewer)
set(viewer_scene ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
splatsort_test_executable(test_input SOURCES test_input.c ${viewer_dir}/input.c ${viewer_dir}/swapchain.c
                          LIBS splatsort_render splatsort_tools splatsort_vk m INCLUDES ${viewer_dir})
splatsort_test(viewer_input LABELS cpu viewer COMMAND test_input)

set(viewer_test_dir ${CMAKE_CURRENT_BINARY_DIR}/viewer_out)
file(MAKE_DIRECTORY ${viewer_test_dir})
splatsort_test_executable(test_viewer_window SOURCES test_viewer_window.c LIBS splat_refrender PkgConfig::STB)
# Drag and drop is driven through XDND by a small Xlib client (Xlib comes with libglfw3-dev's
# recommended libx11-dev; without it that part is left out).
find_package(X11)
set(viewer_drop_args "")
if(X11_FOUND)
  splatsort_test_executable(xdnd_drop SOURCES xdnd_drop.c LIBS ${X11_LIBRARIES} INCLUDES ${X11_INCLUDE_DIR})
  set(viewer_drop_args $<TARGET_FILE:gen_scene> $<TARGET_FILE:xdnd_drop>)
endif()
# xvfb-run is a declared dependency (.ci/run): the test skips (77) only where it is missing.
splatsort_test(viewer_window GPU LABELS viewer SKIP_RETURN_CODE 77 TIMEOUT 300
               COMMAND test_viewer_window $<TARGET_FILE:splatview> ${viewer_scene} ${viewer_test_dir}
                       ${viewer_drop_args})

# --bench leaves its warm-up frames out of the statistics (and says so); a bad --warmup is named.
splatsort_test(viewer_bench_warmup GPU LABELS viewer TIMEOUT 300
               PROPERTIES PASS_REGULAR_EXPRESSION "9 frames after 3 warm-up frames.*first frame: projection"
               COMMAND splatview --headless ${viewer_scene} --bench --frames 12 --size 160x120)
splatsort_test(viewer_bad_warmup LABELS cpu viewer
               PROPERTIES PASS_REGULAR_EXPRESSION "--warmup 4: must be below --frames \\(4\\)"
               COMMAND splatview --headless ${viewer_scene} --bench --frames 4 --warmup 4)

# --size is range-checked per side (sscanf's %u once wrapped 4294967297 to 1).
splatsort_test(viewer_bad_size LABELS cpu viewer
               PROPERTIES PASS_REGULAR_EXPRESSION "--size '4294967297x4294967297': expected WxH with each in 1..16384"
               COMMAND splatview --headless ${viewer_scene} --size 4294967297x4294967297)
# A FIFO as the scene or as --cameras is refused, not waited on (the test's timeout would catch a hang).
splatsort_test(viewer_fifo_scene LABELS cpu viewer TIMEOUT 60
               PROPERTIES PASS_REGULAR_EXPRESSION "fifo.ply: not a regular file"
               COMMAND sh -c "rm -f '${viewer_test_dir}/fifo.ply' && mkfifo '${viewer_test_dir}/fifo.ply' && exec '$<TARGET_FILE:splatview>' --headless '${viewer_test_dir}/fifo.ply' --out '${viewer_test_dir}/fifo.png'")
splatsort_test(viewer_fifo_cameras LABELS cpu viewer TIMEOUT 60
               PROPERTIES PASS_REGULAR_EXPRESSION "fifo.json: not a regular file"
               COMMAND sh -c "rm -f '${viewer_test_dir}/fifo.json' && mkfifo '${viewer_test_dir}/fifo.json' && exec '$<TARGET_FILE:splatview>' --headless '${viewer_scene}' --cameras '${viewer_test_dir}/fifo.json' --out '${viewer_test_dir}/fifo.png'")

# --grid: the viewer as a host drawing its own opaque grid and the splats into one pass. The
# window's screenshot must equal the headless image, and the grid must show (the image differs
# from the one without it). The depth test itself is checked against the CPU in test_render api.
set(grid_args ${viewer_scene} --grid --frames 3 --size 320x240)
splatsort_test(viewer_grid_headless GPU LABELS viewer TIMEOUT 300 PROPERTIES FIXTURES_SETUP viewer_grid_h
               COMMAND splatview --headless ${grid_args} --out ${viewer_test_dir}/grid_headless.png)
splatsort_test(viewer_nogrid_headless GPU LABELS viewer TIMEOUT 300 PROPERTIES FIXTURES_SETUP viewer_grid_n
               COMMAND splatview --headless ${viewer_scene} --frames 3 --size 320x240
                       --out ${viewer_test_dir}/nogrid_headless.png)
splatsort_test(viewer_grid_window GPU LABELS viewer TIMEOUT 300 SKIP_RETURN_CODE 77 PROPERTIES FIXTURES_SETUP viewer_grid_w
               COMMAND sh -c "command -v xvfb-run > /dev/null || exit 77 && exec xvfb-run -a \"$0\" \"$@\""
                       $<TARGET_FILE:splatview> ${grid_args} --screenshot ${viewer_test_dir}/grid_window.png)
splatsort_test(viewer_grid_window_equals_headless LABELS gpu viewer
               COMMAND ${CMAKE_COMMAND} -E compare_files ${viewer_test_dir}/grid_headless.png
                       ${viewer_test_dir}/grid_window.png)
splatsort_test(viewer_grid_visible LABELS gpu viewer PROPERTIES WILL_FAIL TRUE
               COMMAND ${CMAKE_COMMAND} -E compare_files ${viewer_test_dir}/grid_headless.png
                       ${viewer_test_dir}/nogrid_headless.png)
# (a list-valued property: set here, not through splatsort_test's argument forwarding)
set_tests_properties(viewer_grid_window_equals_headless PROPERTIES FIXTURES_REQUIRED "viewer_grid_h;viewer_grid_w")
set_tests_properties(viewer_grid_visible PROPERTIES FIXTURES_REQUIRED "viewer_grid_h;viewer_grid_n")
