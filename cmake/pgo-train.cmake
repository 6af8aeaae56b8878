# SPDX-License-Identifier: BSD-3-Clause
# The training runs of the profile-guided build (cmake/pgo.cmake):
#   cmake -DTRAIN=instrumented-nfsscope -DPGO=dir -DSAMPLES="a.pcap;b.pcap" -P pgo-train.cmake
# Runs TRAIN on each sample (one thread, a fixed hash seed: the profile is
# the same on every build), as a JSON and as a text report, then puts the
# counts under the names the optimised objects look for: GCC names a
# profile after its object's path, and the instrumented objects are those
# of nfsscope_pgo_core and nfsscope_pgo_train, not nfsscope_core and
# nfsscope.
file(REMOVE_RECURSE ${PGO}/raw ${PGO}/use)
file(MAKE_DIRECTORY ${PGO}/raw ${PGO}/use)
set(ENV{NFSSCOPE_HASH_SEED} 1)
# Addresses not randomized: the value profiles (memcpy alignments, say) hold
# pointer bits, which would make every build's profile, and binary, differ.
find_program(SETARCH setarch)
set(norand "")
if(SETARCH)
  execute_process(COMMAND ${SETARCH} -R true RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(norand ${SETARCH} -R)
  endif()
endif()
foreach(s IN LISTS SAMPLES)
  foreach(fmt json text)
    execute_process(COMMAND ${norand} ${TRAIN} -r ${s} --threads 1 -o ${fmt}
                    OUTPUT_QUIET ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "pgo-train: ${TRAIN} -r ${s} -o ${fmt} exited ${rc}")
    endif()
  endforeach()
endforeach()
file(GLOB gcda ${PGO}/raw/*.gcda)
if(NOT gcda)
  message(FATAL_ERROR "pgo-train: no profile written under ${PGO}/raw")
endif()
foreach(f IN LISTS gcda)
  get_filename_component(n ${f} NAME)
  string(REPLACE "#nfsscope_pgo_core.dir#" "#nfsscope_core.dir#" n ${n})
  string(REPLACE "#nfsscope_pgo_train.dir#" "#nfsscope.dir#" n ${n})
  file(RENAME ${f} ${PGO}/use/${n})
endforeach()
file(TOUCH ${PGO}/profile.stamp)
