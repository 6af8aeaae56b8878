# SPDX-License-Identifier: BSD-3-Clause
# tests/fuzz/fuzz.cmake: fuzz targets (see tests/fuzz/README.md).
#
# Always: replay_<target> = onefile.c + <target>.c, a plain program that
# replays the committed corpus and every past crash; ctest runs it as
# fuzz_replay_<target> (under gcc + ASan/UBSan in CI).
# With -DNFSSCOPE_FUZZ=ON and clang: fuzz_<target>, the libFuzzer binary,
# with the core library instrumented for coverage.
option(NFSSCOPE_FUZZ "Build the libFuzzer targets in tests/fuzz (clang only)" OFF)

set(NFSSCOPE_FUZZ_TARGETS fuzz_pcap fuzz_capfile fuzz_stream fuzz_nfs3 fuzz_nfs4 fuzz_rpc fuzz_http)
set(_fz ${CMAKE_CURRENT_LIST_DIR})

foreach(t IN LISTS NFSSCOPE_FUZZ_TARGETS)
  add_executable(replay_${t} ${_fz}/onefile.c ${_fz}/${t}.c)
  target_include_directories(replay_${t} PRIVATE ${_fz})
  target_link_libraries(replay_${t} PRIVATE nfsscope_core)

  # Re-globbed at build time, so a new regression file needs no re-configure
  # by hand; a directory is passed only when it holds something.
  set(_dirs "")
  foreach(d corpus regressions)
    file(GLOB _files CONFIGURE_DEPENDS ${_fz}/${d}/${t}/*)
    if(_files)
      list(APPEND _dirs ${_fz}/${d}/${t})
    endif()
  endforeach()
  if(_dirs)
    add_test(NAME fuzz_replay_${t} COMMAND replay_${t} ${_dirs})
    set_tests_properties(fuzz_replay_${t} PROPERTIES TIMEOUT 600)
  endif()
endforeach()

if(NFSSCOPE_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NFSSCOPE_FUZZ needs clang (-DCMAKE_C_COMPILER=clang)")
  endif()
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
  check_c_source_compiles("
    #include <stddef.h>
    #include <stdint.h>
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }"
    NFSSCOPE_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT NFSSCOPE_HAVE_LIBFUZZER)
    message(FATAL_ERROR "clang cannot link -fsanitize=fuzzer: apt-get install libclang-rt-14-dev")
  endif()

  # Coverage for everything the targets reach; ASan+UBSan unless the build
  # already chose sanitizers (NFSSCOPE_SANITIZE applies to every target).
  set(_fz_san "")
  if(NOT NFSSCOPE_SANITIZE)
    set(_fz_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_compile_options(nfsscope_core PRIVATE ${_fz_san})
    target_link_options(nfsscope_core INTERFACE -fsanitize=address,undefined)
  endif()
  target_compile_options(nfsscope_core PRIVATE -fsanitize=fuzzer-no-link)
  foreach(t IN LISTS NFSSCOPE_FUZZ_TARGETS)
    add_executable(${t} ${_fz}/${t}.c)
    target_include_directories(${t} PRIVATE ${_fz})
    target_compile_options(${t} PRIVATE -fsanitize=fuzzer ${_fz_san})
    target_link_options(${t} PRIVATE -fsanitize=fuzzer ${_fz_san})
    target_link_libraries(${t} PRIVATE nfsscope_core)
  endforeach()
endif()
