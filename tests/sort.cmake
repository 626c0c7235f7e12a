# Sort library tests (lavapipe, validation on) and the sortbench benchmark. test_sort and
# sort_testlib come from tests/CMakeLists.txt (onesweep.cmake runs test_sort too).
splatsort_test_executable(test_sort_api SOURCES test_sort_api.c LIBS sort_testlib)
splatsort_test_executable(test_sort_check SOURCES test_sort_check.c LIBS sort_testlib)
# src/sort/shaders: the internal-buffer layout, for --lookback-stats.
splatsort_test_executable(sortbench SOURCES bench/sortbench.c LIBS sort_testlib splatsort_gpu_clock m
                          INCLUDES ${PROJECT_SOURCE_DIR}/src/sort/shaders)

splatsort_test(sort_check LABELS cpu COMMAND test_sort_check)
splatsort_lavapipe_test(sort_quaternary COMMAND test_sort --algo quaternary --suite ${sort_suite})
# radix16: also its tile and scan-level boundaries, and its output against quaternary's.
splatsort_lavapipe_test(sort_radix16 COMMAND test_sort --algo radix16 --suite ${sort_suite})
# merge (Batcher's odd-even merge sort): also runs of 2, 4, 8 and 16 tiles merged.
splatsort_lavapipe_test(sort_merge COMMAND test_sort --algo merge --suite ${sort_suite})
splatsort_lavapipe_test(sort_api COMMAND test_sort_api)
# The creation-time self-test (pass, injected wrong order and stall, fallback) and AUTO's choice.
splatsort_test_executable(test_self_test SOURCES test_self_test.c LIBS sort_testlib)
splatsort_lavapipe_test(sort_self_test COMMAND test_self_test)
# No injected fault: lavapipe at LP_NATIVE_VECTOR_WIDTH=2048 reports subgroup size 64 but runs
# 16-wide (Mesa 22.3), and OneSweep, sized by the reported size, sorts wrongly there. With the
# self-test every sorter must still sort correctly: the self-test catches the real failure.
splatsort_test(sort_self_test_misreported GPU LABELS sg8 TIMEOUT 300 ENV LP_NATIVE_VECTOR_WIDTH=2048
               COMMAND test_self_test --trust-device)
# sortbench itself (1M pairs, verified against the CPU sort) once: it is a tool, and the
# correctness suites above already cover every subgroup size. The 1M run warms up with a fixed
# count (--warmup-max-ms 0: a settling warm-up is minutes of lavapipe); a small one settles.
splatsort_test(sortbench_lavapipe GPU LABELS sg8 ENV LP_NATIVE_VECTOR_WIDTH=256 TIMEOUT 900 COMMAND sortbench --n 1M --algo quaternary --runs 2 --warmup 1 --warmup-max-ms 0)
splatsort_test(sortbench_settle_lavapipe GPU LABELS sg8 ENV LP_NATIVE_VECTOR_WIDTH=256 TIMEOUT 300
               COMMAND sortbench --n 4K --algo onesweep,radix16 --runs 5 --warmup-ms 0 --warmup-max-ms 2000)
# The large suite (32M elements: the scan's level boundaries) takes minutes on lavapipe, whose
# storage range also stops at 2^27 bytes: it is run on the GPU machine (docs/performance.md, "Benchmarks").

# stagebench: the depth-sort stage's time (key pass and sort); a small run so it keeps working.
splatsort_test_executable(stagebench SOURCES bench/stagebench.c LIBS sort_testlib splatsort_gpu_clock m)
splatsort_test(stagebench_lavapipe GPU LABELS sg8 ENV LP_NATIVE_VECTOR_WIDTH=256 TIMEOUT 300 COMMAND stagebench --n 20000 --algo all --key-bits 32,16 --runs 2 --warmup-max-ms 200 --key-pass one,three)

# The depth-sort stage against a CPU reference: visible set and order, view-depth and radial keys.
splatsort_test_executable(test_depth SOURCES test_depth.c LIBS sort_testlib m)
splatsort_lavapipe_test(depth_stage COMMAND test_depth)
# The same suite with the key pass's other forms: the three-dispatch one (kept for A/B), and the
# one-pass lookback's forward-progress fallback on every tile.
splatsort_lavapipe_test(depth_stage_three_pass COMMAND test_depth --three-pass)
splatsort_lavapipe_test(depth_stage_fallback COMMAND test_depth --force-fallback)
