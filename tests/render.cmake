# The GPU splat renderer against the CPU projection (src/render/splat_project.h) and the CPU reference
# renderer (tests/refrender.h, splat_refrender in tests/CMakeLists.txt), on lavapipe with
# validation on, at its three subgroup sizes. One program: its table of tests is in test_render.c
# (`test_render --list`), the tests in test_render_<area>.c, what they share in render_common.c.
splatsort_test_executable(test_render
                          SOURCES test_render.c render_common.c test_render_graphics.c test_render_compute.c
                                  test_render_api.c test_render_objects.c test_render_scene.c test_render_storage.c
                                  test_render_upload.c test_render_stream.c test_render_order.c test_render_lod.c
                                  test_render_device.c renderer_debug.c
                          LIBS splat_refrender splatsort_tools splatsort_vkh m
                          INCLUDES ${PROJECT_SOURCE_DIR}/shaders/render ${PROJECT_SOURCE_DIR}/src/sort/shaders)
target_compile_definitions(test_render PRIVATE CHECK_SHARED_COUNTER # one failure count (tests/check.h)
                           # the renderer's SPIR-V as built (splatsort_embed_shaders), for the device limits
                           RENDER_SPV_DIR="${PROJECT_BINARY_DIR}/src/render/spv_render_spv")

# The compute raster alone (src/render/craster.h), its inputs made on the CPU, against the CPU
# reference: the same pairs, the same image (issue 36).
splatsort_test_executable(test_craster SOURCES test_craster.c LIBS splat_refrender splatsort_render splatsort_vkh m
                          INCLUDES ${PROJECT_SOURCE_DIR}/shaders/render)
splatsort_lavapipe_test(craster COMMAND test_craster)

set(render_out ${CMAKE_CURRENT_BINARY_DIR}/render_out)
file(MAKE_DIRECTORY ${render_out})
set(render_asset ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
set(render_scenes ${PROJECT_SOURCE_DIR}/../shared/scenes)

splatsort_lavapipe_test(render_projection COMMAND test_render projection --out ${render_out}/projection)
splatsort_lavapipe_test(render_image_generated COMMAND test_render image --out ${render_out}/generated)
splatsort_lavapipe_test(render_image_asset COMMAND test_render image --out ${render_out}/asset --scene ${render_asset})
splatsort_lavapipe_test(render_fused_keys COMMAND test_render fused-keys --out ${render_out}/fused)
# The per-pixel order (issue 26): the popping scene, a generated object and the bundled scene.
splatsort_lavapipe_test(render_order COMMAND test_render order --out ${render_out}/order --scene ${render_asset})
# Level-of-detail objects (issue 27): the cut drawn, budgets, the blend band.
splatsort_lavapipe_test(render_lod COMMAND test_render lod --out ${render_out}/lod)
splatsort_lavapipe_test(render_sortpaths
                        COMMAND test_render sortpaths --out ${render_out}/sortpaths --scene ${render_asset})
# The API, then the renderer in a host's frame: one process, in this order (one random sequence).
splatsort_lavapipe_test(render_api COMMAND test_render api host-pass depth-output objects stereo
                                           --out ${render_out}/api --scene ${render_asset})
# What the renderer needs of a device, and its refusal of one without it.
splatsort_lavapipe_test(render_device WIDTHS 256 COMMAND test_render device --out ${render_out}/device)
# Objects in chunks (bit-identical to one buffer), a memory budget and the frame limit refused
# with messages, and an SH-3 scene larger than one storage binding against the CPU reference:
# one subgroup size (the large scene takes ~1 GB of host memory on lavapipe).
splatsort_lavapipe_test(render_large WIDTHS 256 COMMAND test_render large --out ${render_out}/large)
# The real scenes of ../shared/scenes (skipped when absent).
set(render_scene_args)
# (The PlayCanvas compressed scenes also pass, 49-50 dB, but cost 5 s each on lavapipe.)
foreach(scene animu_yashica-t4-top8192.ply gshairlod_donut_fused.ply supersplat_fruit_drops_minimal.ply
              godot4321ba_toyota_tire.ply)
  list(APPEND render_scene_args --optional-scene ${render_scenes}/${scene})
endforeach()
splatsort_lavapipe_test(render_image_scenes COMMAND test_render image --out ${render_out}/scenes ${render_scene_args})
# The scene storage: bytes per splat at each SH precision, projection at 32- and 8-bit SH, and
# the images of each precision (generated scenes, the bundled one, the real ones when present).
splatsort_lavapipe_test(render_storage COMMAND test_render storage --out ${render_out}/storage --scene ${render_asset}
                        ${render_scene_args})
# The upload packed on several threads: the GPU buffers byte-identical to one thread's (any subgroup
# size would do: the subject is the CPU packing).
splatsort_lavapipe_test(render_upload WIDTHS 256 COMMAND test_render upload --out ${render_out}/upload)
# A streamed object (begin_object, append_object in parts): set_scene's bytes, a frame of the
# resident splats, the 8-bit tables' bound, the errors, the upload statistics.
splatsort_lavapipe_test(render_stream COMMAND test_render stream --out ${render_out}/stream)
# copybench: the host -> device copy rates an upload is bounded by (run on the GPU machine for the
# numbers, docs/performance.md); a small run here so it keeps working, validation on.
splatsort_test_executable(copybench SOURCES bench/copybench.c LIBS splatsort_vkh)
splatsort_test(copybench_lavapipe GPU LABELS sg8 ENV LP_NATIVE_VECTOR_WIDTH=256
               COMMAND copybench --mib 8 --piece-mib 1 --pieces 3 --threads 1,2 --runs 1)
# .spz: each scene against its .spz round trip on the GPU (PSNR >= 35 dB): a generated SH-3
# scene, the bundled one and two real ones; one subgroup size (the quantisation is the subject).
splatsort_lavapipe_test(render_image_spz WIDTHS 256 COMMAND test_render spz --out ${render_out}/spz
                        --scene ${render_asset} --optional-scene ${render_scenes}/animu_yashica-t4-top8192.ply
                        --optional-scene ${render_scenes}/supersplat_fruit_drops_minimal.ply)
# The compute raster (SPLAT_RASTER_COMPUTE) against the CPU reference and the graphics raster:
# generated scenes, the bundled asset and two real scenes, splats of many tiles, an empty
# view, and a pair capacity far too small (the overflow path, then growth).
splatsort_lavapipe_test(render_compute COMMAND test_render compute --out ${render_out}/compute --scene ${render_asset}
                        --optional-scene ${render_scenes}/animu_yashica-t4-top8192.ply
                        --optional-scene ${render_scenes}/supersplat_fruit_drops_minimal.ply)
