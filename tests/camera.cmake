# Camera maths, cameras.json, the CPU projection and the CPU reference renderer (CPU only).

# The reference renderer and image helpers, for every image test (GPU tests link this).
if(NOT TARGET PkgConfig::STB)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(STB REQUIRED IMPORTED_TARGET stb)
endif()
add_library(splat_refrender STATIC ${CMAKE_CURRENT_SOURCE_DIR}/refrender.c
            ${CMAKE_CURRENT_SOURCE_DIR}/image.c)
target_include_directories(splat_refrender PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(splat_refrender PUBLIC splat splat_tools PkgConfig::STB m)
target_compile_options(splat_refrender PRIVATE ${SPLATSORT_WARNINGS})

set(camera_test_dir ${CMAKE_CURRENT_BINARY_DIR}/camera_out)
file(MAKE_DIRECTORY ${camera_test_dir})

add_executable(test_camera ${CMAKE_CURRENT_SOURCE_DIR}/test_camera.c)
target_link_libraries(test_camera PRIVATE splat_tools m)
target_compile_options(test_camera PRIVATE ${SPLATSORT_WARNINGS})
add_test(NAME camera COMMAND test_camera ${camera_test_dir})

add_executable(test_project ${CMAKE_CURRENT_SOURCE_DIR}/test_project.c)
target_link_libraries(test_project PRIVATE splat m)
target_compile_options(test_project PRIVATE ${SPLATSORT_WARNINGS})
add_test(NAME project COMMAND test_project)

add_executable(test_refrender ${CMAKE_CURRENT_SOURCE_DIR}/test_refrender.c)
target_link_libraries(test_refrender PRIVATE splat_refrender m)
target_compile_options(test_refrender PRIVATE ${SPLATSORT_WARNINGS})
add_test(NAME refrender COMMAND test_refrender ${camera_test_dir})

# Real scenes (skipped when ../shared/scenes is absent): render, check, write a PNG.
foreach(scene animu_leica-sofort-top8192 supersplat_fruit_drops_minimal)
  add_test(NAME refrender_scene_${scene}
           COMMAND test_refrender ${camera_test_dir}
                   ${PROJECT_SOURCE_DIR}/../shared/scenes/${scene}.ply)
  set_tests_properties(refrender_scene_${scene} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
set_tests_properties(camera project refrender PROPERTIES LABELS cpu)
