# Included by each library's CMakeLists.txt (src/sort, src/scene, src/render), standing alone or
# in the whole project. Two helpers:
#   splatsort_export_library(<name> OBJECTS <object targets...> SYMBOLS <glob...> EXPORT_NAME <n>
#                            [SHARED])
#     <name>_static: the static library a host gets (installed as lib<OUTPUT>.a), its objects
#     linked into one with every global symbol but the <glob>s made local, so a host's own symbols
#     (or another of our libraries' private copies) never collide with ours; and, with SHARED,
#     <name>_shared with a versioned soname exporting only the <glob>s.
#   splatsort_install_library(<component> TARGETS <t...> HEADERS <h...> PC_NAME <n>
#                             PC_DESCRIPTION <d> [PC_REQUIRES ...] [PC_REQUIRES_PRIVATE ...]
#                             [PC_LIBS_PRIVATE ...] [LIB <name>])
#     installs the targets in the export set of <component> (splatsort-<component>-targets.cmake),
#     the headers under include/splatsort/, a pkg-config file, and (once) the package's
#     splatsortConfig.cmake and version file.
# In every directory that includes this file (GNUInstallDirs sets directory variables).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
include_guard(GLOBAL)

function(splatsort_export_library name)
  cmake_parse_arguments(ARG "SHARED" "EXPORT_NAME;OUTPUT_NAME" "OBJECTS;SYMBOLS" ${ARGN})
  set(keep "")
  foreach(g ${ARG_SYMBOLS})
    list(APPEND keep --keep-global-symbol=${g})
  endforeach()
  list(JOIN ARG_SYMBOLS "; " map_globs)
  set(objects "")
  foreach(o ${ARG_OBJECTS})
    list(APPEND objects $<TARGET_OBJECTS:${o}>)
  endforeach()
  add_library(${name}_static STATIC ${objects})
  set_target_properties(${name}_static PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME} EXPORT_NAME ${ARG_EXPORT_NAME}
                        ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/export)
  find_program(SPLATSORT_OBJCOPY NAMES objcopy ${CMAKE_OBJCOPY})
  if(SPLATSORT_OBJCOPY AND CMAKE_LINKER AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    set(merged ${CMAKE_CURRENT_BINARY_DIR}/export/${ARG_OUTPUT_NAME}_merged.o)
    add_custom_command(TARGET ${name}_static POST_BUILD
      COMMAND ${CMAKE_LINKER} -r -o ${merged} --whole-archive $<TARGET_FILE:${name}_static>
      COMMAND ${SPLATSORT_OBJCOPY} --wildcard ${keep} ${merged}
      COMMAND ${CMAKE_COMMAND} -E rm -f $<TARGET_FILE:${name}_static>
      COMMAND ${CMAKE_AR} rcs $<TARGET_FILE:${name}_static> ${merged}
      COMMENT "lib${ARG_OUTPUT_NAME}.a: only the ${map_globs} API global" VERBATIM)
  endif()
  if(ARG_SHARED)
    add_library(${name}_shared SHARED ${objects})
    set(map ${CMAKE_CURRENT_BINARY_DIR}/export/${ARG_OUTPUT_NAME}.map)
    file(WRITE ${map} "{\n  global: ${map_globs};\n  local: *;\n};\n")
    set_target_properties(${name}_shared PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME} EXPORT_NAME ${ARG_EXPORT_NAME}_shared
                          VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
                          LINK_DEPENDS ${map})
    target_link_options(${name}_shared PRIVATE -Wl,--version-script=${map})
  endif()
endfunction()

function(splatsort_install_library component)
  cmake_parse_arguments(ARG "" "PC_NAME;PC_DESCRIPTION;LIB"
                        "TARGETS;HEADERS;PC_REQUIRES;PC_REQUIRES_PRIVATE;PC_LIBS_PRIVATE" ${ARGN})
  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/splatsort)
  install(TARGETS ${ARG_TARGETS} EXPORT splatsort-${component}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${ARG_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/splatsort)
  install(EXPORT splatsort-${component}-targets NAMESPACE splatsort:: DESTINATION ${cmake_dir})
  get_property(config_done GLOBAL PROPERTY SPLATSORT_CONFIG_INSTALLED)
  if(NOT config_done)
    set_property(GLOBAL PROPERTY SPLATSORT_CONFIG_INSTALLED ON)
    configure_package_config_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/splatsortConfig.cmake.in
                                  ${PROJECT_BINARY_DIR}/splatsortConfig.cmake INSTALL_DESTINATION ${cmake_dir})
    write_basic_package_version_file(${PROJECT_BINARY_DIR}/splatsortConfigVersion.cmake
                                     VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
    install(FILES ${PROJECT_BINARY_DIR}/splatsortConfig.cmake ${PROJECT_BINARY_DIR}/splatsortConfigVersion.cmake
            DESTINATION ${cmake_dir})
  endif()
  # pkg-config: relocatable (the prefix is wherever the package was installed); Libs carries an
  # rpath to the install's libdir, so a program linked from a non-system prefix finds the
  # shared library when it starts. `pkg-config --static` adds what the static library needs.
  string(REPLACE ";" ", " pc_requires "${ARG_PC_REQUIRES}")
  string(REPLACE ";" ", " pc_requires_private "${ARG_PC_REQUIRES_PRIVATE}")
  string(REPLACE ";" " " pc_libs_private "${ARG_PC_LIBS_PRIVATE}")
  set(pc_name ${ARG_PC_NAME})
  set(pc_description ${ARG_PC_DESCRIPTION})
  set(pc_lib ${ARG_LIB})
  file(RELATIVE_PATH pc_up ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/splatsort.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc_name}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc_name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
