# The private Vulkan layer (ssvk): not a library of its own to install, but object targets that
# each library compiles into itself (its symbols made local there), so that the sort and the
# renderer share this code without depending on each other or exporting it.
#   splatsort_ssvk_objects(<name> STATIC_FUNCTIONS <bool> PARTS core|graphics...)
# makes the OBJECT target <name> from ssvk.c (core) and/or ssvk_graphics.c (graphics), position-
# independent with hidden symbols; STATIC_FUNCTIONS: whether ssvk_load may fall back to the
# linked loader's symbols. Anything linking <name>'s objects gets its include directory through
# the INTERFACE target splatsort_ssvk_headers.
include_guard(GLOBAL)
if(NOT TARGET splatsort_ssvk_headers)
  add_library(splatsort_ssvk_headers INTERFACE)
  target_include_directories(splatsort_ssvk_headers INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}>)
endif()
function(splatsort_ssvk_objects name)
  cmake_parse_arguments(ARG "" "STATIC_FUNCTIONS" "PARTS" ${ARGN})
  set(sources "")
  if(core IN_LIST ARG_PARTS)
    list(APPEND sources ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ssvk.c)
  endif()
  if(graphics IN_LIST ARG_PARTS)
    list(APPEND sources ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ssvk_graphics.c)
  endif()
  add_library(${name} OBJECT ${sources})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  target_compile_definitions(${name} PRIVATE SSVK_STATIC_VULKAN_FUNCTIONS=$<BOOL:${ARG_STATIC_FUNCTIONS}>)
  target_link_libraries(${name} PUBLIC $<BUILD_INTERFACE:splatsort_ssvk_headers> Vulkan::Headers)
  if(SPLATSORT_WARNINGS)
    target_compile_options(${name} PRIVATE ${SPLATSORT_WARNINGS})
  endif()
endfunction()
