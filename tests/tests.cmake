# End-to-end tests: the built binary on real captures.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(NFSSCOPE_PCAPS "${CMAKE_SOURCE_DIR}/../shared/pcaps/public" CACHE PATH
    "Public NFS captures with tshark truth (read-only; never copied into the repo)")

add_test(NAME e2e_public COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/e2e_public.py
         $<TARGET_FILE:nfsscope> ${NFSSCOPE_PCAPS})
set_tests_properties(e2e_public PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
