# OneSweep sort tests on lavapipe at subgroup sizes 4, 8 and 16, validation on: the general
# suite of test_sort (built by tests/CMakeLists.txt), the same with the lookback fallback forced,
# with uvec4 ballots at every size (sg 4) and with an impatient lookback (sg 8), and
# test_onesweep's tile-boundary, key-width, indirect, shared-scratch, 2D-dispatch and
# same-as-quaternary cases; also with the pass kernel's early counts forced on.
# src/sort/shaders: the OS_VARIANT_* bits, to say which pass kernel ran.
splatsort_test_executable(test_onesweep SOURCES test_onesweep.c LIBS sort_testlib
                          INCLUDES ${PROJECT_SOURCE_DIR}/src/sort/shaders)

splatsort_lavapipe_test(sort_onesweep COMMAND test_sort --algo onesweep --suite ${sort_suite})
# Forced fallback is quadratic in the tile count: the quick suite stays under ~30 tiles.
splatsort_lavapipe_test(sort_onesweep_fallback COMMAND test_sort --algo onesweep --force-fallback --suite quick)
splatsort_lavapipe_test(sort_onesweep_wide WIDTHS 128 ENV SPLATSORT_ONESWEEP_TUNING=wide=1
                        COMMAND test_sort --algo onesweep --suite quick)
# Fall back after one step without progress, reading 3 descriptors a step: lookback reads and
# fallbacks mix within one sort.
splatsort_lavapipe_test(sort_onesweep_spin1 WIDTHS 256 ENV SPLATSORT_ONESWEEP_TUNING=spin=1,window=3
                        COMMAND test_sort --algo onesweep --suite quick)
splatsort_lavapipe_test(onesweep_cases COMMAND test_onesweep)
splatsort_lavapipe_test(onesweep_cases_fallback COMMAND test_onesweep --force-fallback)
# 2^25 keys (lavapipe's maximum): thousands of tiles in one lookback chain, once.
splatsort_test(sort_onesweep_large GPU TIMEOUT 900 COMMAND test_sort --algo onesweep --suite large)
# The earlier pass-kernel designs kept for A/B measurements (tests/bench/ab_onesweep.sh) must
# stay correct too: every OS_VARIANT_* bit at once.
splatsort_lavapipe_test(sort_onesweep_variants WIDTHS 256 ENV SPLATSORT_ONESWEEP_TUNING=variant=63
                        COMMAND test_sort --algo onesweep --suite quick)
# Early counts (the default at subgroup sizes >= 32, which lavapipe does not have) forced on:
# at sg 16 every subgroup of 256 gets its own counter array, as on NVIDIA; at sg 4 and 8
# subgroups share the 16 arrays and rank in turn. The runs above take the late-counts path.
# Then the same with the fallback forced, and with the other earlier designs and uvec4 ballots.
splatsort_lavapipe_test(sort_onesweep_early ENV SPLATSORT_ONESWEEP_TUNING=early=1
                        COMMAND test_sort --algo onesweep --suite ${sort_suite})
splatsort_lavapipe_test(onesweep_cases_early ENV SPLATSORT_ONESWEEP_TUNING=early=1 COMMAND test_onesweep)
splatsort_lavapipe_test(onesweep_cases_early_fallback WIDTHS 512 ENV SPLATSORT_ONESWEEP_TUNING=early=1
                        COMMAND test_onesweep --force-fallback)
splatsort_lavapipe_test(sort_onesweep_early_variants WIDTHS 128 512
                        ENV SPLATSORT_ONESWEEP_TUNING=early=1,variant=31,wide=1
                        COMMAND test_sort --algo onesweep --suite quick)
# Two pass kernels chosen per sort by max_count (the default where early counts are, i.e. on
# NVIDIA; forced here with two=1): at sg 16 the late-counts kernel below 1M keys of max_count and
# early counts with 256 x 20-key tiles from 1M on, both verified, with one internal buffer shared
# by sorts that pick different kernels; and the depth-sort stage at both sides of 1M.
splatsort_lavapipe_test(onesweep_cases_two_kernels WIDTHS 512 ENV SPLATSORT_ONESWEEP_TUNING=two=1
                        COMMAND test_onesweep)
splatsort_lavapipe_test(sort_onesweep_two_kernels WIDTHS 512 ENV SPLATSORT_ONESWEEP_TUNING=two=1
                        COMMAND test_sort --algo onesweep --suite quick)
splatsort_lavapipe_test(depth_stage_onesweep_two_kernels WIDTHS 512 ENV SPLATSORT_ONESWEEP_TUNING=two=1
                        COMMAND test_depth --onesweep-tuned)
