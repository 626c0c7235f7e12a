# The image tests' own helpers (tests/image.c: PSNR, SSIM, PNG output), CPU only. Uses
# splat_refrender (which holds image.c) from tests/CMakeLists.txt. png_psnr's own test, on the
# PNGs written here, is in viewer.cmake (where png_psnr is made).
set(image_test_dir ${CMAKE_CURRENT_BINARY_DIR}/image_out)
file(MAKE_DIRECTORY ${image_test_dir})
splatsort_test_executable(test_image SOURCES test_image.c LIBS splat_refrender m)
splatsort_test(image_ssim LABELS cpu PROPERTIES FIXTURES_SETUP image_ssim_pngs
               COMMAND test_image ${image_test_dir})
