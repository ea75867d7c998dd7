# cmake -P script: install → configure the example → build → load it with trainbench-cli.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/docs/examples/minimal-plugin -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${CMAKE_COMMAND} --install ${WORK_DIR}/build)
if(NOT EXISTS ${prefix}/lib/trainbench/plugins/centroid.so)
  message(FATAL_ERROR "the example plugin was not installed into ${prefix}/lib/trainbench/plugins")
endif()

# The installed CLI finds the installed plugin next to itself (../lib/trainbench/plugins).
set(ENV{TRAINBENCH_PLUGIN_PATH} "")
run(${prefix}/bin/trainbench-cli list --json)
if(NOT OUT MATCHES "\"centroid.nearest\"")
  message(FATAL_ERROR "trainbench-cli does not list centroid.nearest:\n${OUT}")
endif()
file(WRITE ${WORK_DIR}/exp.json [=[{"kind": "learning-curve", "threads": 1,
  "dataset": {"source": "moons", "samples": 300, "noise": 0.05},
  "algorithms": [{"id": "centroid.nearest", "params": {"shrink": 0.1}}]}]=])
run(${prefix}/bin/trainbench-cli run ${WORK_DIR}/exp.json --no-db --quiet)
if(NOT OUT MATCHES "finished")
  message(FATAL_ERROR "the example plugin did not finish its run:\n${OUT}")
endif()
message(STATUS "out-of-tree plugin built, installed, listed and run")
