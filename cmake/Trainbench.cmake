# Build conventions shared by every target of the tree.

# ccache, when it is installed, as the compiler launcher (not a dependency: without it the
# compiler runs directly). A launcher given by the user (-DCMAKE_CXX_COMPILER_LAUNCHER=… or the
# environment variable of that name) is kept. Precompiled headers need the sloppiness below, or
# ccache refuses to cache any file compiled with one (ccache manual, "Precompiled headers").
option(TB_CCACHE "Use ccache as the compiler launcher when it is installed" ON)
if(TB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(TB_CCACHE_PROGRAM ccache)
  if(TB_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${TB_CCACHE_PROGRAM})
  endif()
endif()
if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "(^|/)ccache$")
  find_program(TB_ENV_PROGRAM env) # /usr/bin/env starts in 1 ms, `cmake -E env` in 30
  if(NOT TB_ENV_PROGRAM)
    set(TB_ENV_PROGRAM ${CMAKE_COMMAND} -E env)
  endif()
  set(CMAKE_CXX_COMPILER_LAUNCHER ${TB_ENV_PROGRAM}
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()

set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
# Plugins land next to the executables, where the registry looks first.
set(TB_PLUGIN_OUTPUT_DIR ${CMAKE_BINARY_DIR}/bin/plugins)
set(TB_PLUGIN_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/trainbench/plugins)
# Installed binaries find the libraries relative to themselves (relocatable prefix).
set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR};$ORIGIN/../..")

add_library(tb_warnings INTERFACE)
# GCC 12 reports a false -Wmaybe-uninitialized inside its own avx512fintrin.h for Eigen code.
target_compile_options(tb_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-maybe-uninitialized)
add_library(tb_optimise INTERFACE)
if(TB_NATIVE)
  target_compile_options(tb_optimise INTERFACE -march=native)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/Pch.cmake)

# The git hash is written at every build by cmake/GitHash.cmake (core/store's tb_git_hash target).
# The executables do not relink when only a shared library of theirs changed (a new hash relinks
# libtrainbench-store alone, not the hundred programs that load it).
set(CMAKE_LINK_DEPENDS_NO_SHARED ON)

# tb_add_plugin(<target> SOURCES ... [LIBS ...])
# A trainer plugin: a MODULE library built against tb::api, tb::numerics and tb::training.
function(tb_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    AUTOMOC ON
    LIBRARY_OUTPUT_DIRECTORY ${TB_PLUGIN_OUTPUT_DIR}
    PREFIX "")
  target_link_libraries(${target} PRIVATE tb::api tb::numerics tb::training tb::toolkit tb_warnings tb_optimise ${ARG_LIBS})
  tb_use_pch(${target} tb_pch_core)
  install(TARGETS ${target} LIBRARY DESTINATION ${TB_PLUGIN_INSTALL_DIR})
  # Every plugin joins trainbench-apps (and the conformance suite) by being added here.
  set_property(GLOBAL APPEND PROPERTY TB_PLUGIN_TARGETS ${target})
endfunction()

# trainbench-apps: what ./run.sh runs — the workbench, the CLI, every plugin of plugins/ and the
# Python module (python/, when built) — and nothing else (no tests, benchmarks or fuzz harnesses).
# Called once plugins/ and python/ are added.
function(tb_add_apps_target)
  get_property(plugins GLOBAL PROPERTY TB_PLUGIN_TARGETS)
  add_custom_target(trainbench-apps)
  add_dependencies(trainbench-apps trainbench-cli ${plugins})
  if(TARGET trainbench)
    add_dependencies(trainbench-apps trainbench)
  endif()
  if(TARGET tb_python_module)
    add_dependencies(trainbench-apps tb_python_module)
  endif()
endfunction()

# tb_add_test(<name> SOURCES ... [LIBS ...] [LABELS ...] [TIMEOUT s])
# One QtTest program, registered with CTest under the offscreen platform. No test runs alone:
# the Stop checks count the work after Stop (tests/support/StopMeter.h), not the wall time, so
# they hold beside other tests on a busy machine.
function(tb_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES AUTOMOC ON RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  # tests/support: test data and helpers shared by the unit tests, compiled once (tb_test_support).
  target_link_libraries(${name} PRIVATE Qt6::Test tb_test_support tb_warnings tb_optimise ${ARG_LIBS})
  # The precompiled header is chosen once the test's folder has added its own links (the test's
  # CMakeLists may link more after this call): tb_pch_for_test in cmake/Pch.cmake.
  if(TB_PCH)
    # (EVAL: a deferred call's arguments are expanded when it runs, so the name is written in now.)
    cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL tb_pch_for_test [[${name}]])")
  endif()
  # A test's Q_OBJECT class is in its .cpp (which includes its .moc): AUTOMOC's own file is empty,
  # and loading a precompiled header would be all it costs.
  set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${name}_autogen/mocs_compilation.cpp
    PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  target_compile_definitions(${name} PRIVATE
    TB_FIXTURES_DIR="${CMAKE_SOURCE_DIR}/tests/fixtures"
    TB_PLUGIN_BUILD_DIR="${TB_PLUGIN_OUTPUT_DIR}"
    TB_BIN_DIR="${CMAKE_BINARY_DIR}/bin"
    TB_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT}
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;TRAINBENCH_PLUGIN_PATH=${TB_PLUGIN_OUTPUT_DIR}")
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

# tb_bit_identity_tests(<test>...): tests (of tb_add_test, in this folder) that compare code paths
# of one build to the bit — a kernel and the general path, lock step and one by one, thread
# counts, resume. They get the label "bits", and ctest's generic_x86_64 builds and runs them once
# more for generic x86-64 (tests/CMakeLists.txt, cmake/GenericBuildCheck.cmake), so that one that
# holds only for the code generated for the developer's own CPU fails there too.
function(tb_bit_identity_tests)
  foreach(t ${ARGN})
    set_property(TEST ${t} APPEND PROPERTY LABELS bits)
    set_property(GLOBAL APPEND PROPERTY TB_BITS_TESTS ${t})
  endforeach()
endfunction()
