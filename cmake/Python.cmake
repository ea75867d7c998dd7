# Python: Debian's interpreter (python3-dev) and pybind11 (pybind11-dev), for the `trainbench`
# module (python/) and the plugin family that hosts trainers written in Python (plugins/python/).
# Debian's /usr/bin/python3 is preferred over another python3 earlier on PATH (pyenv, a venv):
# numpy, pandas and torch come from Debian's packages, which only Debian's interpreter sees.
# Without Python or pybind11 both are left out of the build, and the configure says so.
option(TB_BUILD_PYTHON "Build the Python module and the Python trainer host" ON)
set(TB_HAVE_PYTHON OFF)
if(TB_BUILD_PYTHON)
  if(NOT Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python interpreter of the module and the host")
  endif()
  find_package(Python 3.9 COMPONENTS Interpreter Development)
  if(Python_FOUND)
    set(PYBIND11_FINDPYTHON ON)
    find_package(pybind11 2.6 CONFIG)
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(TB_HAVE_PYTHON ON)
    message(STATUS "Python ${Python_VERSION} (${Python_EXECUTABLE}) and pybind11 ${pybind11_VERSION}: building the module and the Python trainer host")
  else()
    message(WARNING "Python development files or pybind11 not found (install python3-dev and pybind11-dev, "
                    "e.g. with ./run.sh): the trainbench Python module and Python trainers are not built")
  endif()
endif()
