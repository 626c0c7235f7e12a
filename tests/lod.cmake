# Level of detail (issue 27): the cut of a splat_lod tree on the GPU (src/render/lod_cut.h) against
# its CPU reference, on lavapipe at its three subgroup sizes with validation on.
splatsort_test_executable(test_lod_cut SOURCES test_lod_cut.c LIBS splatsort_render splatsort_vkh m
                          INCLUDES ${PROJECT_SOURCE_DIR}/shaders/render)
splatsort_lavapipe_test(lod_cut COMMAND test_lod_cut)
