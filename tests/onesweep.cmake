# OneSweep sort tests on lavapipe at subgroup sizes 4, 8 and 16, validation on: the general
# suite of test_sort (sort.cmake builds it), the same with the lookback fallback forced, with
# uvec4 ballots at every size (sg 4) and with an impatient lookback (sg 8), and test_onesweep's
# tile-boundary, key-width, indirect, shared-scratch, 2D-dispatch and same-as-quaternary cases.
add_executable(test_onesweep ${CMAKE_CURRENT_LIST_DIR}/test_onesweep.c)
target_link_libraries(test_onesweep PRIVATE sort_testlib)
target_compile_options(test_onesweep PRIVATE ${SPLATSORT_WARNINGS})

# onesweep_gpu_test(<name> <environment> <widths> <command...>): splatsort_lavapipe_test
# (tests/CMakeLists.txt) with extra environment and a choice of subgroup sizes.
function(onesweep_gpu_test name env widths)
  splatsort_lavapipe_test(${name} WIDTHS ${widths} ENV ${env} COMMAND ${ARGN})
endfunction()

onesweep_gpu_test(sort_onesweep "" "128;256;512" $<TARGET_FILE:test_sort> --algo onesweep --suite full)
# Forced fallback is quadratic in the tile count: the quick suite stays under ~30 tiles.
onesweep_gpu_test(sort_onesweep_fallback "" "128;256;512" $<TARGET_FILE:test_sort> --algo onesweep --force-fallback --suite quick)
onesweep_gpu_test(sort_onesweep_wide "SPLATSORT_ONESWEEP_TUNING=wide=1" "128" $<TARGET_FILE:test_sort> --algo onesweep --suite quick)
# Fall back after one step without progress, reading 3 descriptors a step: lookback reads and
# fallbacks mix within one sort.
onesweep_gpu_test(sort_onesweep_spin1 "SPLATSORT_ONESWEEP_TUNING=spin=1,window=3" "256" $<TARGET_FILE:test_sort> --algo onesweep --suite quick)
onesweep_gpu_test(onesweep_cases "" "128;256;512" $<TARGET_FILE:test_onesweep>)
onesweep_gpu_test(onesweep_cases_fallback "" "128;256;512" $<TARGET_FILE:test_onesweep> --force-fallback)
# 2^25 keys (lavapipe's maximum): thousands of tiles in one lookback chain, once.
add_test(NAME sort_onesweep_large COMMAND test_sort --algo onesweep --suite large)
set_tests_properties(sort_onesweep_large PROPERTIES ENVIRONMENT "SPLATSORT_VALIDATION=1" LABELS "gpu" TIMEOUT 900)
# The earlier pass-kernel designs kept for A/B measurements (tests/bench/ab_onesweep.sh) must
# stay correct too: every OS_VARIANT_* bit at once.
onesweep_gpu_test(sort_onesweep_variants "SPLATSORT_ONESWEEP_TUNING=variant=15" "256" $<TARGET_FILE:test_sort> --algo onesweep --suite quick)
