# cmake -DSCRIPT=cmake/GitHash.cmake -DTEMPLATE=core/store/BuildInfo.cpp.in -DWORK=… -P GitHashScript.cmake
# The hash every run stores comes from cmake/GitHash.cmake at build time. In a scratch git
# repository: the commit's hash; "-dirty" after a tracked file changes; a new hash after the next
# commit (the generated file rewritten, without re-running CMake); an unchanged file left untouched
# (its time stamp: nothing recompiles); "unknown" outside a git checkout.
find_package(Git REQUIRED)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/repo")
set(out "${WORK}/BuildInfo.cpp")
function(git)
  execute_process(COMMAND ${GIT_EXECUTABLE} -c user.name=t -c user.email=t@t ${ARGN}
    WORKING_DIRECTORY "${WORK}/repo" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ${ARGN}: ${err}")
  endif()
endfunction()
function(head var)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD WORKING_DIRECTORY "${WORK}/repo"
    OUTPUT_VARIABLE h OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(${var} "${h}" PARENT_SCOPE)
endfunction()
function(generate source_dir)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${source_dir} -DTEMPLATE=${TEMPLATE} -DOUTPUT=${out}
    -P ${SCRIPT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "GitHash.cmake failed (${rc})")
  endif()
endfunction()
function(expect text)
  file(READ "${out}" body)
  string(FIND "${body}" "QStringLiteral(\"${text}\")" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected the hash \"${text}\" in ${out}:\n${body}")
  endif()
endfunction()

git(init -q)
file(WRITE "${WORK}/repo/a.txt" "one\n")
git(add a.txt)
git(commit -q -m one)
head(h1)
generate("${WORK}/repo")
expect("${h1}")

# Nothing changed: the file is not rewritten (a build after a build recompiles nothing).
file(TIMESTAMP "${out}" t1 "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
generate("${WORK}/repo")
file(TIMESTAMP "${out}" t2 "%s")
if(NOT t1 STREQUAL t2)
  message(FATAL_ERROR "an unchanged hash rewrote ${out}")
endif()

file(WRITE "${WORK}/repo/a.txt" "two\n")
generate("${WORK}/repo")
expect("${h1}-dirty")

git(commit -q -a -m two)
head(h2)
if(h1 STREQUAL h2)
  message(FATAL_ERROR "two commits with one hash")
endif()
generate("${WORK}/repo")
expect("${h2}")

file(MAKE_DIRECTORY "${WORK}/plain")
generate("${WORK}/plain")
expect("unknown")
message(STATUS "GitHash.cmake: ${h1}, ${h1}-dirty, ${h2}, unknown")
