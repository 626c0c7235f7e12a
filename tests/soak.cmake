# The soak test (tests/test_soak.c): thousands of headless frames on lavapipe while sort paths,
# key widths and modes, scenes, objects and failed loads keep changing; the device's live
# allocations must come back to the warm-up level exactly, and the host heap must not grow from one
# cycle to the next (the median change, test_soak.c says why).
# Its two small scenes are made by gen_scene (tests/CMakeLists.txt).
splatsort_test_executable(test_soak SOURCES test_soak.c renderer_debug.c LIBS splatsort_tools splatsort_vkh m
                          INCLUDES ${PROJECT_SOURCE_DIR}/shaders/render ${PROJECT_SOURCE_DIR}/src/sort/shaders)

set(soak_dir ${CMAKE_CURRENT_BINARY_DIR}/soak_out)
file(MAKE_DIRECTORY ${soak_dir})
set(soak_args --scene ${soak_dir}/a.ply --scene ${soak_dir}/b.ply --out ${soak_dir} --cycles 12 --warmup 2)
# glibc's per-thread caches keep freed blocks that mallinfo2 counts as in use (tens of KiB of
# drift over a run); without them the heap in use is flat to within ~1 KiB.
set(soak_env GLIBC_TUNABLES=glibc.malloc.tcache_count=0)
splatsort_test(soak_scenes LABELS gpu PROPERTIES FIXTURES_SETUP soak_scenes
               COMMAND sh -c "'$<TARGET_FILE:gen_scene>' --count 3000 --sh-degree 3 --seed 11 --out '${soak_dir}/a.ply' && '$<TARGET_FILE:gen_scene>' --count 2000 --sh-degree 1 --seed 12 --shape shell --out '${soak_dir}/b.ply'")
# ~3300 frames with validation and synchronisation validation (~40 s). The layer itself keeps
# ~18 KiB a cycle here (test_soak.c says why): 384 KiB over the 10 measured cycles.
splatsort_test(soak GPU TIMEOUT 600 ENV ${soak_env} PROPERTIES FIXTURES_REQUIRED soak_scenes
               COMMAND test_soak ${soak_args} --frames 120 --host-tolerance 393216)
# The same without the layer, shorter (~600 frames): the host heap within 16 KiB (test_soak.c
# says how it is compared). Four warm-up cycles here: lavapipe's own memory settles over the
# first three short cycles (megabytes, with the compute raster's frames).
splatsort_test(soak_host_memory LABELS gpu TIMEOUT 300 ENV SPLATSORT_VALIDATION=0 ${soak_env}
               PROPERTIES FIXTURES_REQUIRED soak_scenes
               COMMAND test_soak ${soak_args} --frames 20 --warmup 4 --host-tolerance 16384)
