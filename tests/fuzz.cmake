# Fuzzing the parsers (CPU only): one target per family in tests/fuzz/ (fuzz_ply: PLY, 3DGS and
# compressed; fuzz_splat: .splat; fuzz_spz: .spz; fuzz_cameras: cameras.json; fuzz_sog: SOG meta.json decoded
# against images made once in memory, and bundled .sog archives; fuzz_lod: the LOD hierarchy's .lod), each checking the parser's
# invariants (fuzz/fuzz_check.h). In every build each target is also linked with a small replay
# driver that runs it once over the committed seeds (fuzz/corpus/<target>) and the inputs that
# once crashed it (fuzz/regress/<target>). With -DSPLATSORT_FUZZ=ON under clang the libFuzzer
# targets are built too (ASan + UBSan, non-recovering) and each gets a short run from the seeds.
option(SPLATSORT_FUZZ "Build the libFuzzer targets fuzz_ply, fuzz_splat, fuzz_spz, fuzz_cameras, fuzz_sog, fuzz_lod (clang only)" OFF)
if(SPLATSORT_FUZZ AND NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "SPLATSORT_FUZZ needs clang (configure with CC=clang)")
endif()

set(fuzz_dir ${CMAKE_CURRENT_LIST_DIR}/fuzz)
set(fuzz_work ${CMAKE_CURRENT_BINARY_DIR}/fuzz_work)
# The parsers' sources directly, so that the fuzzers instrument them; no Vulkan needed.
file(GLOB fuzz_sources_ply CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/scene/scene*.c)
set(fuzz_sources_splat ${fuzz_sources_ply})
set(fuzz_sources_spz ${fuzz_sources_ply})
set(fuzz_sources_lod ${fuzz_sources_ply})
# the scene sources read .spz through zlib and zstd (src/scene/CMakeLists.txt finds them there)
find_package(ZLIB REQUIRED)
if(NOT TARGET PkgConfig::ZSTD)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
endif()
foreach(t ply splat spz)
  set(fuzz_libs_${t} ZLIB::ZLIB PkgConfig::ZSTD)
endforeach()
set(fuzz_sources_cameras ${PROJECT_SOURCE_DIR}/src/scene/scene_cameras.c ${PROJECT_SOURCE_DIR}/src/render/camera.c)
# fuzz_sog makes its images with the test writer when it starts.
set(fuzz_sources_sog ${fuzz_sources_ply} ${CMAKE_CURRENT_LIST_DIR}/sog_writer.c ${fuzz_dir}/sog_fixture.c)
set(fuzz_includes ${fuzz_dir} ${PROJECT_SOURCE_DIR}/src/scene ${PROJECT_SOURCE_DIR}/src/render ${CMAKE_CURRENT_LIST_DIR})
# The scene loader also reads SOG through libwebp, cJSON and zlib (src/scene/CMakeLists.txt).
find_package(Threads REQUIRED) # scene_rows.c
foreach(t ply splat spz sog lod)
  set(fuzz_libs_${t} ZLIB::ZLIB PkgConfig::ZSTD PkgConfig::SPLAT_SCENE_DEPS Threads::Threads)
endforeach()
set(fuzz_libs_cameras PkgConfig::SPLAT_SCENE_DEPS) # the system's cJSON, not instrumented

foreach(t ply splat spz cameras sog lod)
  splatsort_test_executable(fuzz_replay_${t} SOURCES fuzz/fuzz_${t}.c fuzz/replay.c ${fuzz_sources_${t}}
                            LIBS m ${fuzz_libs_${t}} INCLUDES ${fuzz_includes})
  set(inputs ${fuzz_dir}/corpus/${t})
  if(EXISTS ${fuzz_dir}/regress/${t})
    list(APPEND inputs ${fuzz_dir}/regress/${t})
  endif()
  splatsort_test(fuzz_${t}_replay LABELS cpu fuzz COMMAND fuzz_replay_${t} ${inputs})

  if(NOT SPLATSORT_FUZZ)
    continue()
  endif()
  splatsort_test_executable(fuzz_${t} SOURCES fuzz/fuzz_${t}.c ${fuzz_sources_${t}} LIBS m ${fuzz_libs_${t}}
                            INCLUDES ${fuzz_includes})
  target_compile_options(fuzz_${t} PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
  target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer,address,undefined)
  set(dict "")
  if(EXISTS ${fuzz_dir}/${t}.dict)
    set(dict "-dict=${fuzz_dir}/${t}.dict")
  endif()
  # 30 s from the committed seeds only (the build tree's new inputs are cleared first and never
  # go to the source corpus); a crash input lands in ${fuzz_work}/<target>/. The seeds include
  # decompression bombs and claimed counts (corpus/*/budget_*, test_scene_budget seeds), and one
  # malloc over 512 MB, or an RSS over 1 GB (ASan's quarantine alone holds 256 MB; the targets
  # ran at 270-350 MB), is a finding: inputs are a few KiB, so only a claim believed without
  # checking could reach it (the memory budget, issue 25).
  set(w ${fuzz_work}/${t})
  splatsort_test(fuzz_${t} LABELS fuzz TIMEOUT 150
                 COMMAND sh -c "rm -rf '${w}' && mkdir -p '${w}/new' && exec \"$0\" -max_total_time=30 -seed=1 -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix='${w}/' ${dict} '${w}/new' '${fuzz_dir}/corpus/${t}'"
                         $<TARGET_FILE:fuzz_${t}>)
endforeach()
