# cmake -DSOURCE_DIR=… -DTEMPLATE=…/BuildInfo.cpp.in -DOUTPUT=…/BuildInfo.cpp -P GitHash.cmake
# Run at every build (core/store's tb_git_hash target), not only at configure time: the hash a run
# stores must be the commit that was built, also after a commit or a checkout without re-running
# CMake. "-dirty" marks a build of a work tree with uncommitted changes to tracked files.
# configure_file() rewrites OUTPUT only when its text changes, so an unchanged hash rebuilds nothing.
set(TB_GIT_HASH "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE hash RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND hash)
    set(TB_GIT_HASH "${hash}")
    execute_process(COMMAND ${GIT_EXECUTABLE} diff-index --quiet HEAD --
      WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE dirty OUTPUT_QUIET ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND TB_GIT_HASH "-dirty")
    endif()
  endif()
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
