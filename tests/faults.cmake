# Fault injection (issue 25): every fallible Vulkan call of the sort and render libraries failed in
# turn through the vkGetDeviceProcAddr they take from the host (test_faults.c), at subgroup size 8
# with validation on.
splatsort_test_executable(test_faults SOURCES test_faults.c LIBS sort_testlib splatsort_render splatsort_vkh)
splatsort_lavapipe_test(faults WIDTHS 256 COMMAND test_faults)

# The scene readers' heap allocations failed in turn: --wrap sends the static scene library's
# malloc, calloc, realloc and free through the test's own (test_faults_scene.c). CPU only.
splatsort_test_executable(test_faults_scene SOURCES test_faults_scene.c LIBS sog_writer splatsort_scene)
target_link_options(test_faults_scene PRIVATE -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)
splatsort_test(faults_scene LABELS cpu scene TIMEOUT 300 COMMAND test_faults_scene ${CMAKE_CURRENT_BINARY_DIR}/faults_tmp)
