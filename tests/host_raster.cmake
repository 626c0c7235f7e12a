# The renderer as a host embeds it (tests/test_host_raster.c): the compute raster over the
# host's own colour and depth images (splat_renderer_cmd_render_into) against the CPU reference
# and the graphics host pass, on lavapipe with validation on, at its three subgroup sizes.
splatsort_test_executable(test_host_raster SOURCES test_host_raster.c
                          LIBS splat_refrender splatsort_tools splatsort_vkh m)
set(host_raster_out ${CMAKE_CURRENT_BINARY_DIR}/host_raster_out)
file(MAKE_DIRECTORY ${host_raster_out})
splatsort_lavapipe_test(render_host_into COMMAND test_host_raster into --out ${host_raster_out}/into)
splatsort_lavapipe_test(render_host_arrays COMMAND test_host_raster arrays --out ${host_raster_out}/arrays)
splatsort_lavapipe_test(render_host_multiview COMMAND test_host_raster multiview --out ${host_raster_out}/multiview)
splatsort_lavapipe_test(render_host_first COMMAND test_host_raster first --out ${host_raster_out}/first)
