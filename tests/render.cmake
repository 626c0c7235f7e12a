# The GPU splat renderer against the CPU projection (src/splat/project.h) and the CPU reference
# renderer (tests/refrender.h), on lavapipe with validation on, at its three subgroup sizes.
add_executable(test_render ${CMAKE_CURRENT_LIST_DIR}/test_render.c ${CMAKE_CURRENT_LIST_DIR}/renderer_debug.c)
target_include_directories(test_render PRIVATE ${PROJECT_SOURCE_DIR}/shaders/splat)
target_link_libraries(test_render PRIVATE splat_refrender splat_tools splatsort_vk m)
target_compile_options(test_render PRIVATE ${SPLATSORT_WARNINGS})

set(render_out ${CMAKE_CURRENT_BINARY_DIR}/render_out)
file(MAKE_DIRECTORY ${render_out})
set(render_asset ${PROJECT_SOURCE_DIR}/assets/leica-sofort.ply)
set(render_scenes ${PROJECT_SOURCE_DIR}/../shared/scenes)

# name, then the test_render arguments; registered at each lavapipe subgroup size.
macro(splat_render_test name)
  splatsort_lavapipe_test(${name} COMMAND test_render ${ARGN})
endmacro()

splat_render_test(render_projection projection --out ${render_out}/projection)
splat_render_test(render_image_generated image --out ${render_out}/generated)
splat_render_test(render_image_asset image --out ${render_out}/asset --scene ${render_asset})
splat_render_test(render_sortpaths sortpaths --out ${render_out}/sortpaths --scene ${render_asset})
splat_render_test(render_api api --out ${render_out}/api --scene ${render_asset})
# The real scenes of ../shared/scenes (skipped when absent).
set(render_scene_args)
# (The PlayCanvas compressed scenes also pass, 49-50 dB, but cost 5 s each on lavapipe.)
foreach(scene animu_yashica-t4-top8192.ply gshairlod_donut_fused.ply supersplat_fruit_drops_minimal.ply
              godot4321ba_toyota_tire.ply)
  list(APPEND render_scene_args --optional-scene ${render_scenes}/${scene})
endforeach()
splat_render_test(render_image_scenes image --out ${render_out}/scenes ${render_scene_args})
