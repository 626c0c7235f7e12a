# The validation layer itself: synchronisation validation (on in every GPU test, src/vk/vkh.c)
# must report hazards recorded on purpose, so that its silence elsewhere means something.
# Not in the sanitizer build, whose GPU tests run without synchronisation validation
# (tests/CMakeLists.txt says why).
if(SPLATSORT_SANITIZE)
  return()
endif()
splatsort_test_executable(test_syncval SOURCES test_syncval.c LIBS sort_testlib)
splatsort_test(syncval_fires GPU TIMEOUT 300 COMMAND test_syncval)
