# cmake -DSOURCE_DIR=… -DBUILD_DIR=… -DGENERATOR=… -DTESTS="a;b;…" [-DFLAGS=…] -P GenericBuildCheck.cmake
# ctest's generic_x86_64 (tests/CMakeLists.txt): the tests labelled "bits" — those that compare
# two code paths of one build to the bit (a kernel and the general path, lock step and one by one,
# thread counts, resume) — built and run once more in a build for generic x86-64
# (-DTB_NATIVE=OFF: SSE2, no FMA, GCC's generic tuning). A test that holds only for the code the
# compiler generates for the developer's own CPU fails here, on that developer's machine, before
# it fails on another CPU (issue 43: four tests passed on the Intel Xeon the code was written on
# and failed on an AMD EPYC). The sub-build is incremental: configured once, rebuilt when sources
# change.
foreach(v SOURCE_DIR BUILD_DIR GENERATOR TESTS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "GenericBuildCheck.cmake: -D${v}=… is required")
  endif()
endforeach()
if(NOT EXISTS "${BUILD_DIR}/CMakeCache.txt")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${BUILD_DIR}" -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
            -DTB_NATIVE=OFF -DTB_GENERIC_CHECK=OFF -DTB_BUILD_GUI=OFF -DTB_BUILD_BENCH=OFF "-DCMAKE_CXX_FLAGS=${FLAGS}"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(REMOVE "${BUILD_DIR}/CMakeCache.txt")
    message(FATAL_ERROR "configuring the generic x86-64 build in ${BUILD_DIR} failed (${rc})")
  endif()
endif()
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BUILD_DIR}" -j ${cores} --target ${TESTS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the bit-identity tests for generic x86-64 in ${BUILD_DIR} failed (${rc})")
endif()
list(JOIN TESTS "|" alternatives)
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir "${BUILD_DIR}" --output-on-failure -j ${cores}
                        -R "^(${alternatives})$" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a bit-identity test failed in the generic x86-64 build (${BUILD_DIR}): a test that holds "
                      "only for -march=native's code is a test that fails on another CPU")
endif()
