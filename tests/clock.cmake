# The benchmarks' GPU clock reader (src/tools/gpu_clock.c) without an NVIDIA driver: NVML absent,
# and a stand-in NVML library (fake_nvml.c) for the path where it is there.
add_library(fake_nvml SHARED fake_nvml.c)
set_target_properties(fake_nvml PROPERTIES OUTPUT_NAME fake-nvml)
splatsort_test_executable(test_gpu_clock SOURCES test_gpu_clock.c LIBS splatsort_gpu_clock)
splatsort_test(gpu_clock LABELS cpu bench COMMAND test_gpu_clock $<TARGET_FILE:fake_nvml>)
