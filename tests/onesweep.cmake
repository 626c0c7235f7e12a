# OneSweep sort tests on lavapipe at subgroup sizes 4, 8 and 16, validation on: the general
# suite of test_sort (sort.cmake builds it), the same with the lookback fallback forced and with
# uvec4 ballots at every size, and test_onesweep's tile-boundary / scratch / 2D dispatch cases.
add_executable(test_onesweep ${CMAKE_CURRENT_LIST_DIR}/test_onesweep.c)
target_link_libraries(test_onesweep PRIVATE sort_testlib)
target_compile_options(test_onesweep PRIVATE ${SPLATSORT_WARNINGS})

# lavapipe's subgroup size follows LP_NATIVE_VECTOR_WIDTH: 128 -> 4, 256 -> 8, 512 -> 16.
function(onesweep_gpu_test name env)
  foreach(w 128 256 512)
    math(EXPR sg "${w} / 32")
    add_test(NAME ${name}_sg${sg} COMMAND ${ARGN})
    set_tests_properties(${name}_sg${sg} PROPERTIES
      ENVIRONMENT "LP_NATIVE_VECTOR_WIDTH=${w};SPLATSORT_VALIDATION=1;${env}"
      LABELS "gpu" TIMEOUT 900)
  endforeach()
endfunction()

onesweep_gpu_test(sort_onesweep "" $<TARGET_FILE:test_sort> --algo onesweep --suite full)
# Forced fallback is quadratic in the tile count: the quick suite stays under ~30 tiles.
onesweep_gpu_test(sort_onesweep_fallback "" $<TARGET_FILE:test_sort> --algo onesweep --force-fallback --suite quick)
onesweep_gpu_test(sort_onesweep_wide "SPLATSORT_ONESWEEP_TUNING=wide=1" $<TARGET_FILE:test_sort> --algo onesweep --suite quick)
onesweep_gpu_test(onesweep_cases "" $<TARGET_FILE:test_onesweep>)
onesweep_gpu_test(onesweep_cases_fallback "" $<TARGET_FILE:test_onesweep> --force-fallback)
