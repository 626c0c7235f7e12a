# Outside hosts (tests/consumer): the installed package through find_package(), and
# add_subdirectory() of this tree with no loader symbols; each built like a consumer's own
# project and then run at lavapipe's subgroup sizes with validation on.
# Not in the sanitizer build: it tests packaging, which the normal build does; the installed
# library there is instrumented and a plain consumer build cannot link it.
if(SPLATSORT_SANITIZE)
  return()
endif()
set(consumer_dir ${CMAKE_CURRENT_BINARY_DIR}/consumer)
splatsort_test(consumer_install LABELS gpu TIMEOUT 300
               PROPERTIES FIXTURES_SETUP consumer_prefix
               COMMAND ${CMAKE_COMMAND} --install ${PROJECT_BINARY_DIR} --prefix ${consumer_dir}/prefix)
splatsort_test(consumer_package_build LABELS gpu TIMEOUT 600
               PROPERTIES FIXTURES_REQUIRED consumer_prefix FIXTURES_SETUP consumer_package
               COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/consumer/build.sh package ${CMAKE_CURRENT_LIST_DIR}/consumer
                       ${consumer_dir}/package ${consumer_dir}/prefix)
splatsort_test(consumer_subdir_build LABELS gpu TIMEOUT 600
               PROPERTIES FIXTURES_SETUP consumer_subdir
               COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/consumer/build.sh subdir ${CMAKE_CURRENT_LIST_DIR}/consumer
                       ${consumer_dir}/subdir ${PROJECT_SOURCE_DIR})
splatsort_lavapipe_test(consumer_package COMMAND ${consumer_dir}/package/consumer)
splatsort_lavapipe_test(consumer_subdir COMMAND ${consumer_dir}/subdir/consumer)
foreach(w 4 8 16)
  set_tests_properties(consumer_package_sg${w} PROPERTIES FIXTURES_REQUIRED consumer_package)
  set_tests_properties(consumer_subdir_sg${w} PROPERTIES FIXTURES_REQUIRED consumer_subdir)
endforeach()
