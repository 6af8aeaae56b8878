# SPDX-License-Identifier: BSD-3-Clause
# Profile-guided optimisation (GCC): nfsscope_core and nfsscope compiled with
# the profile of an instrumented copy's runs on the bundled samples, so that
# the per-packet and per-call paths are inlined and laid out the way real
# traffic takes them. In one `cmake --build`: nfsscope_pgo_core and
# nfsscope_pgo_train (the instrumented copy, objects of their own) -> the
# training runs (cmake/pgo-train.cmake) -> the profile in pgo/use -> every
# object of nfsscope_core and nfsscope. The training is one thread with a
# fixed hash seed, so its profile does not depend on timing. Code the
# samples do not run (live capture, the view) is optimised as without a
# profile (-fprofile-partial-training). -DNFSSCOPE_PGO=OFF: no profile.

set(_pgo_default OFF)
if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND NOT CMAKE_CROSSCOMPILING AND NOT NFSSCOPE_SANITIZE
   AND NOT NFSSCOPE_FUZZ AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(_pgo_default ON)
endif()
option(NFSSCOPE_PGO "Optimise nfsscope with a profile of its runs on samples/ (GCC)"
       ${_pgo_default})
if(NOT NFSSCOPE_PGO)
  return()
endif()
if(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "NFSSCOPE_PGO needs GCC (or -DNFSSCOPE_PGO=OFF)")
endif()

set(_pgo ${CMAKE_BINARY_DIR}/pgo)
set(_pgo_gen -fprofile-generate=${_pgo}/raw)
get_target_property(_pgo_src nfsscope_core SOURCES)
get_target_property(_pgo_libs nfsscope_core LINK_LIBRARIES)
add_library(nfsscope_pgo_core STATIC EXCLUDE_FROM_ALL ${_pgo_src})
target_include_directories(nfsscope_pgo_core PUBLIC src dissectors ui)
target_link_libraries(nfsscope_pgo_core PUBLIC ${_pgo_libs})
target_compile_options(nfsscope_pgo_core PRIVATE ${_pgo_gen})
target_link_options(nfsscope_pgo_core INTERFACE ${_pgo_gen})
add_executable(nfsscope_pgo_train EXCLUDE_FROM_ALL src/main.c)
target_compile_options(nfsscope_pgo_train PRIVATE ${_pgo_gen})
target_link_libraries(nfsscope_pgo_train PRIVATE nfsscope_pgo_core)

file(GLOB _pgo_samples CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/samples/*.pcap
     ${CMAKE_SOURCE_DIR}/samples/*.pcapng)
add_custom_command(OUTPUT ${_pgo}/profile.stamp
  COMMAND ${CMAKE_COMMAND} -DTRAIN=$<TARGET_FILE:nfsscope_pgo_train> -DPGO=${_pgo}
          "-DSAMPLES=${_pgo_samples}" -P ${CMAKE_SOURCE_DIR}/cmake/pgo-train.cmake
  DEPENDS nfsscope_pgo_train ${_pgo_samples} ${CMAKE_SOURCE_DIR}/cmake/pgo-train.cmake
  COMMENT "Training run of nfsscope on samples/ for the profile-guided build"
  VERBATIM)
add_custom_target(nfsscope_pgo_profile DEPENDS ${_pgo}/profile.stamp)
add_dependencies(nfsscope_core nfsscope_pgo_profile)
add_dependencies(nfsscope nfsscope_pgo_profile)
# -Wno-missing-profile: objects the training binary did not link have none.
# -fprofile-correction: without it GCC 12 finds a few static functions of
# the NFSv4 decoder inconsistent with their callers' counts and says
# "Missing counts for called function", a warning no option turns off (an
# error under -Werror); with it GCC smooths such counts instead.
set(_pgo_use -fprofile-use=${_pgo}/use -fprofile-partial-training -fprofile-correction
    -Wno-missing-profile)
target_compile_options(nfsscope_core PRIVATE ${_pgo_use})
target_compile_options(nfsscope PRIVATE ${_pgo_use})
