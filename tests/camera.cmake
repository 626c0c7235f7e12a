# Camera maths, cameras.json, the CPU projection, the compute raster's pair estimate and the CPU
# reference renderer (CPU only).
# Uses splat_refrender and the helpers of tests/CMakeLists.txt.

set(camera_test_dir ${CMAKE_CURRENT_BINARY_DIR}/camera_out)
file(MAKE_DIRECTORY ${camera_test_dir})

splatsort_test_executable(test_camera SOURCES test_camera.c LIBS splatsort_tools m)
splatsort_test(camera LABELS cpu COMMAND test_camera ${camera_test_dir})

splatsort_test_executable(test_project SOURCES test_project.c LIBS splatsort_render m)
splatsort_test(project LABELS cpu COMMAND test_project)

# The pairs a compute-raster frame needs, estimated before it is recorded, against the reference's count.
splatsort_test_executable(test_pair_estimate SOURCES test_pair_estimate.c LIBS splat_refrender m)
splatsort_test(pair_estimate LABELS cpu COMMAND test_pair_estimate)

splatsort_test_executable(test_refrender SOURCES test_refrender.c LIBS splat_refrender m)
# The pairs a scene file needs with the bins and with the square binning (not a test: a tool).
splatsort_test_executable(refrender_pairs SOURCES refrender_pairs.c LIBS splat_refrender m)
splatsort_test(refrender LABELS cpu COMMAND test_refrender ${camera_test_dir})

# Real scenes (skipped when ../shared/scenes is absent): render, check, write a PNG.
foreach(scene animu_leica-sofort-top8192 supersplat_fruit_drops_minimal)
  splatsort_test(refrender_scene_${scene} LABELS cpu SKIP_RETURN_CODE 77
                 COMMAND test_refrender ${camera_test_dir} ${PROJECT_SOURCE_DIR}/../shared/scenes/${scene}.ply)
endforeach()

# Temporal stability of the blend orders (GLOBAL, WINDOW, EXACT) along an orbit: a table and an SVG.
splatsort_test_executable(test_stability SOURCES test_stability.c LIBS splat_refrender m)
splatsort_test(stability LABELS cpu COMMAND test_stability ${camera_test_dir})
splatsort_test(stability_scene_animu_leica-sofort-top8192 LABELS cpu SKIP_RETURN_CODE 77
               COMMAND test_stability ${camera_test_dir} ${PROJECT_SOURCE_DIR}/../shared/scenes/animu_leica-sofort-top8192.ply)

# The start view from a scene's shape (src/tools/scene_shape.c): generated flat, tall, lying and
# round scenes turned by known rotations, the cameras' up; then the captures of ../shared/scenes
# (skipped when it is absent) against the up seen in their renders.
splatsort_test_executable(test_start_view SOURCES test_start_view.c LIBS splatsort_tools m)
splatsort_test(start_view LABELS cpu COMMAND test_start_view)
splatsort_test(start_view_scenes LABELS cpu SKIP_RETURN_CODE 77
               COMMAND test_start_view --scenes ${PROJECT_SOURCE_DIR}/../shared/scenes)
