# cmake -P script, run by the test sdk_out_of_tree_plugin:
#   install the build tree into a temporary prefix → configure and build docs/examples/minimal-plugin
#   against it with find_package(Trainbench) → load the built plugin with the installed
#   trainbench-cli (TRAINBENCH_PLUGIN_PATH) → run one small experiment with it → install it and find
#   it next to the installed CLI. Also checks that docs/plugin-guide.md shows the example's files
#   exactly as they are built.
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR (everything is written below it), GENERATOR, CXX_COMPILER.
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "BuildExamplePlugin.cmake: -D${var}=... is required")
  endif()
endforeach()

set(example ${SOURCE_DIR}/docs/examples/minimal-plugin)
set(prefix ${WORK_DIR}/prefix)
set(pluginBuild ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/home)

# The guide shows every file of the example verbatim (the test builds what readers copy).
file(READ ${SOURCE_DIR}/docs/plugin-guide.md guide)
foreach(f CMakeLists.txt centroid.json CentroidTrainer.h CentroidPlugin.cpp TestCentroid.cpp)
  file(READ ${example}/${f} content)
  string(FIND "${guide}" "\n${content}```" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "docs/plugin-guide.md does not show docs/examples/minimal-plugin/${f} verbatim "
                        "(a fenced block holding exactly the file's text)")
  endif()
endforeach()

# Runs a command; fails the test with its output unless it exits 0. OUT receives stdout.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
endfunction()

# Fails the test unless `trainbench-cli list --json` output @json shows the plugin "centroid" found
# in @dir as loaded, offering centroid.nearest.
function(expect_loaded json dir)
  string(JSON count LENGTH "${json}" plugins)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON id GET "${json}" plugins ${i} id)
    string(JSON file GET "${json}" plugins ${i} file)
    string(FIND "${file}" "${dir}/" at)
    if(id STREQUAL "centroid" AND at EQUAL 0)
      string(JSON state GET "${json}" plugins ${i} state)
      string(JSON error ERROR_VARIABLE noError GET "${json}" plugins ${i} error)
      if(NOT state STREQUAL "loaded")
        message(FATAL_ERROR "centroid (${file}) is ${state}: ${error}")
      endif()
      string(JSON algorithm GET "${json}" plugins ${i} algorithms 0 id)
      if(NOT algorithm STREQUAL "centroid.nearest")
        message(FATAL_ERROR "centroid (${file}) lists ${algorithm}, expected centroid.nearest")
      endif()
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "trainbench-cli list does not list the centroid plugin from ${dir}:\n${json}")
endfunction()

# 1. Install Trainbench as a user would (cmake --install; the build tree is already built).
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/trainbench/Trainbench.h include/trainbench/testing/TestRunContext.h
          include/trainbench/training/DesignMatrix.h lib/cmake/Trainbench/TrainbenchConfig.cmake bin/trainbench-cli)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()

# 2. Configure and build the example against the installed package only: the build tree is not on
#    any search path, and the package registries are off.
#    No build type, as the guide's commands give none: the package makes it Release (issue 50).
run(${CMAKE_COMMAND} -S ${example} -B ${pluginBuild} -G "${GENERATOR}"
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(NOT OUT MATCHES "Build files have been written")
  message(FATAL_ERROR "unexpected configure output:\n${OUT}")
endif()
if(NOT OUT MATCHES "Trainbench: no CMAKE_BUILD_TYPE given, building Release")
  message(FATAL_ERROR "an empty build type was not made Release:\n${OUT}")
endif()
file(STRINGS ${pluginBuild}/CMakeCache.txt buildType REGEX "^CMAKE_BUILD_TYPE:")
if(NOT buildType MATCHES "=Release$")
  message(FATAL_ERROR "the plugin's build type is '${buildType}', expected Release")
endif()
run(${CMAKE_COMMAND} --build ${pluginBuild})
file(GLOB built ${pluginBuild}/centroid.so)
if(NOT built)
  message(FATAL_ERROR "the example did not produce ${pluginBuild}/centroid.so")
endif()
# The trainer's unit test with the SDK's RunContext test double (the training library's DesignMatrix inside).
run(${CMAKE_CTEST_COMMAND} --test-dir ${pluginBuild} --output-on-failure)
if(NOT OUT MATCHES "100% tests passed")
  message(FATAL_ERROR "the example's unit test did not pass:\n${OUT}")
endif()

# The installed CLI, isolated from the user's files: no plugins from ~/.local, nothing written
# outside WORK_DIR (Qt and fontconfig caches included).
set(ENV{HOME} ${WORK_DIR}/home)
set(ENV{XDG_DATA_HOME} ${WORK_DIR}/home/data)
set(ENV{XDG_CONFIG_HOME} ${WORK_DIR}/home/config)
set(ENV{XDG_CACHE_HOME} ${WORK_DIR}/home/cache)
set(ENV{QT_QPA_PLATFORM} offscreen)
set(cli ${prefix}/bin/trainbench-cli)

# 3. During development: TRAINBENCH_PLUGIN_PATH points at the plugin's build folder.
set(ENV{TRAINBENCH_PLUGIN_PATH} ${pluginBuild})
run(${cli} list --json)
expect_loaded("${OUT}" ${pluginBuild})

# 4. One small experiment with it, through the engine.
file(WRITE ${WORK_DIR}/exp.json [=[{"name": "sdk", "kind": "learning-curve", "threads": 1, "seed": 3,
  "dataset": {"source": "moons", "samples": 300, "noise": 0.05},
  "algorithms": [{"id": "centroid.nearest", "params": {"shrink": 0.1}}]}]=])
run(${cli} run ${WORK_DIR}/exp.json --no-db --quiet)
if(NOT OUT MATCHES "Nearest centroid +repeat 0 +finished .*train acc ([0-9.]+)%")
  message(FATAL_ERROR "the example plugin did not finish its run:\n${OUT}")
endif()
if(CMAKE_MATCH_1 LESS 70)
  message(FATAL_ERROR "nearest centroid reached only ${CMAKE_MATCH_1}% on two moons:\n${OUT}")
endif()

# 5. Installed: `cmake --install` puts it into the prefix's plugin folder, next to the CLI.
run(${CMAKE_COMMAND} --install ${pluginBuild})
if(NOT EXISTS ${prefix}/lib/trainbench/plugins/centroid.so)
  message(FATAL_ERROR "the example plugin was not installed into ${prefix}/lib/trainbench/plugins")
endif()
set(ENV{TRAINBENCH_PLUGIN_PATH} "")
run(${cli} list --json)
expect_loaded("${OUT}" ${prefix}/lib/trainbench/plugins)
message(STATUS "out-of-tree plugin built against the installed package, loaded, run and installed")
