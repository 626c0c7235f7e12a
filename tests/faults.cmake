# Fault injection (issues 25 and 33, docs/tests.md "Fault injection"). test_faults: every fallible
# Vulkan call the sort and render libraries make in create -> sort -> renderer -> scene -> a
# graphics and a compute frame -> a streamed level-of-detail object and two frames of it ->
# destroy, failed in turn through the vkGetDeviceProcAddr they take from the host, at subgroup
# size 8 with validation on (299 cases, each named before it runs; 122 s alone on two cores, 0.4 s
# a run). The sanitizer build fails every tenth call (~3.5 s a run under ASan; the release build
# covers them all).
splatsort_test_executable(test_faults SOURCES test_faults.c renderer_debug.c LIBS sort_testlib splatsort_render splatsort_vkh
                          INCLUDES ${PROJECT_SOURCE_DIR}/shaders/render ${PROJECT_SOURCE_DIR}/src/sort/shaders)
set(faults_args)
if(SPLATSORT_SANITIZE)
  set(faults_args --stride 10)
endif()
splatsort_lavapipe_test(faults WIDTHS 256 COMMAND test_faults ${faults_args})

# Several sweeps at once with other upload settings (tests/faults_stress.sh; issue 33: a SIGBUS
# seen once in a CI run), ~55 runs in all. The release build only: the sanitizer
# build's sweep covers the calls, and this is about timing.
if(NOT SPLATSORT_SANITIZE)
  splatsort_test(faults_stress GPU LABELS stress TIMEOUT 900 ENV LP_NATIVE_VECTOR_WIDTH=256
                 COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/faults_stress.sh $<TARGET_FILE:test_faults>
                         ${CMAKE_CURRENT_BINARY_DIR}/faults_stress)
endif()

# The scene readers' heap allocations failed in turn: --wrap sends the static scene library's
# malloc, calloc, realloc and free through the test's own (test_faults_scene.c). CPU only, < 1 s.
splatsort_test_executable(test_faults_scene SOURCES test_faults_scene.c LIBS sog_writer splatsort_scene)
target_link_options(test_faults_scene PRIVATE -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)
splatsort_test(faults_scene LABELS cpu scene TIMEOUT 300 COMMAND test_faults_scene ${CMAKE_CURRENT_BINARY_DIR}/faults_tmp)
