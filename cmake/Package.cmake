# The Debian package: `cpack -G DEB` in the build tree (after a full build) writes
# trainbench_<version>_<arch>.deb with everything `cmake --install` installs — the workbench, the
# CLI, the plugins, the Python module (python/CMakeLists.txt), the SDK (headers and the CMake
# package of Install.cmake) and the example experiments — under /usr. The binaries find their libraries through their relative rpath
# ($ORIGIN/../lib) and their plugins relative to themselves (PluginRegistry's
# <executable dir>/<TB_PLUGIN_RELATIVE_DIR>), so the unpacked tree works wherever it lies
# (tests/package unpacks it with dpkg -x and runs the CLI from there).
set(CPACK_PACKAGE_NAME trainbench)
set(CPACK_PACKAGE_VENDOR "Trainbench")
# The Maintainer field (required by dpkg); the default is the author of this tree's commits.
set(TB_PACKAGE_MAINTAINER "Trainbench maintainers <maintainers@users.noreply.a-seed-b0b4ab0a.example>"
    CACHE STRING "The Debian package's Maintainer field")
set(CPACK_PACKAGE_CONTACT "${TB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Workbench for comparing training algorithms")
set(CPACK_PACKAGE_DESCRIPTION
    "A Qt 6 workbench (trainbench) and its command line (trainbench-cli) for comparing ways to train\n\
neural networks and kernel machines: least squares (BPLS), block-layer decomposition, doubly\n\
stochastic kernel gradients, LIBLINEAR, LIBSVM and the usual gradient optimizers, each a plugin.\n\
Includes the plugin SDK (headers and CMake package) and the example experiments.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The shared libraries the binaries link (Qt, oneTBB, zlib, LIBLINEAR, LIBSVM, Open MPI, …)
# become Depends through dpkg-shlibdeps; this package's own libraries are found through the
# binaries' $ORIGIN rpath. What no binary links but the programs load or need at run time is
# named here: Qt's SQLite driver (the run store) and a font for charts rendered offscreen.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6sql6-sqlite, fonts-dejavu-core")
# Building an out-of-tree plugin against the SDK (find_package(Trainbench)) needs the headers of
# what the SDK's CMake package finds, and a compiler.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake, g++, qt6-base-dev, libeigen3-dev, libtbb-dev")
# The Python module (python/, lib/python3/dist-packages/trainbench) is built for this build's
# interpreter (its ABI tag names the version) and returns pandas frames: without them the rest of
# the package works, so they are recommended, not required.
if(TB_HAVE_PYTHON)
  math(EXPR tb_python_next_minor "${Python_VERSION_MINOR} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS
    ", python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}), python3 (<< ${Python_VERSION_MAJOR}.${tb_python_next_minor}), python3-numpy, python3-pandas")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "dataset-fashion-mnist, liblbfgspp-dev")
include(CPack)
