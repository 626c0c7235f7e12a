# Sort library tests (lavapipe, validation on) and the sortbench benchmark.
add_library(sort_testlib STATIC ${CMAKE_CURRENT_LIST_DIR}/sort_harness.c)
target_include_directories(sort_testlib PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(sort_testlib PUBLIC splatsort_vk splatsort)
target_compile_options(sort_testlib PRIVATE ${SPLATSORT_WARNINGS})

add_executable(test_sort ${CMAKE_CURRENT_LIST_DIR}/test_sort.c)
target_link_libraries(test_sort PRIVATE sort_testlib)
target_compile_options(test_sort PRIVATE ${SPLATSORT_WARNINGS})

add_executable(test_sort_api ${CMAKE_CURRENT_LIST_DIR}/test_sort_api.c)
target_link_libraries(test_sort_api PRIVATE sort_testlib)
target_compile_options(test_sort_api PRIVATE ${SPLATSORT_WARNINGS})

add_executable(test_sort_check ${CMAKE_CURRENT_LIST_DIR}/test_sort_check.c)
target_link_libraries(test_sort_check PRIVATE sort_testlib)
target_compile_options(test_sort_check PRIVATE ${SPLATSORT_WARNINGS})
add_test(NAME sort_check COMMAND test_sort_check)

add_executable(sortbench ${CMAKE_CURRENT_LIST_DIR}/bench/sortbench.c)
target_link_libraries(sortbench PRIVATE sort_testlib m)
# The internal-buffer layout, for --lookback-stats.
target_include_directories(sortbench PRIVATE ${PROJECT_SOURCE_DIR}/src/sort/shaders)
target_compile_options(sortbench PRIVATE ${SPLATSORT_WARNINGS})

splatsort_lavapipe_test(sort_quaternary COMMAND test_sort --algo quaternary --suite full)
splatsort_lavapipe_test(sort_api COMMAND test_sort_api)
# sortbench itself (1M pairs, verified against the CPU sort) once: it is a tool, and the
# correctness suites above already cover every subgroup size.
add_test(NAME sortbench_lavapipe COMMAND sortbench --n 1M --algo quaternary --runs 2 --warmup 1)
set_tests_properties(sortbench_lavapipe PROPERTIES ENVIRONMENT "SPLATSORT_VALIDATION=1" LABELS "gpu" TIMEOUT 900)
# The large suite (32M elements: the scan's level boundaries) takes minutes on lavapipe, whose
# storage range also stops at 2^27 bytes: it is run on the GPU machine (README, "Benchmarks").
