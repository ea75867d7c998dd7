# Precompiled headers: the Qt, Eigen, oneTBB and standard headers most files include are parsed
# once per group of targets instead of once per file (docs/build-times.md has the figures).
#
# GCC uses a precompiled header only when the file is compiled with the flags it was made with:
# the same -f/-m options (-fPIC, -march=native), the same warnings (-Wpedantic defines a macro),
# and every macro it was made with defined the same way; a macro it mentions (QtTest mentions
# QT_GUI_LIB and QT_WIDGETS_LIB) must not be defined only later. Otherwise it silently parses the
# headers instead (correct, only slower; -Winvalid-pch says why). So each group has a donor
# target, an object library compiled exactly like its members, whose precompiled header the
# members reuse (REUSE_FROM):
#   tb_pch_core   Qt Core, Eigen, oneTBB, std (cmake/pch/CorePch.h): core/data, core/engine,
#                 core/cluster, the plugins, the test support, the non-GUI benchmarks
#   tb_pch_gui    + Qt Widgets, Qt Charts (GuiPch.h): app/charts, app/gui, the CLI, GUI benchmarks
#   tb_pch_tests  + QtTest (TestsPch.h): the tests that do not link Qt GUI
#   tb_pch_guitests  GuiPch.h + QtTest with widgets (GuiTestsPch.h): the chart and GUI tests
# Left out: core/numerics and core/training (no Qt; training builds with -fno-math-errno),
# core/stats and core/store (no Eigen), the fixture plugins (built without the tree's flags).
# Precompiled headers hold third-party headers only, so editing the tree's own headers never
# rebuilds them. -DTB_PCH=OFF builds without them.
option(TB_PCH "Precompile the Qt and Eigen headers most files include, shared between targets" ON)

set(TB_PCH_DIR ${CMAKE_SOURCE_DIR}/cmake/pch)

# tb_pch_donor(<donor> <header> <usage requirements...>)
function(tb_pch_donor donor header)
  if(NOT TB_PCH)
    return()
  endif()
  add_library(${donor} OBJECT ${TB_PCH_DIR}/PchDonor.cpp)
  target_link_libraries(${donor} PRIVATE ${ARGN} tb_warnings tb_optimise)
  target_precompile_headers(${donor} PRIVATE ${TB_PCH_DIR}/${header})
endfunction()

# tb_use_pch(<target> <donor>): <target> reuses <donor>'s precompiled header. Its compile flags
# must be the donor's (see above): it links the same usage requirements, tb_warnings and
# tb_optimise, and adds no compile options of its own.
function(tb_use_pch target donor)
  if(TB_PCH)
    target_precompile_headers(${target} REUSE_FROM ${donor})
  endif()
endfunction()

# The donor for a target that links @p libs: the GUI set when they bring Qt Widgets.
function(tb_pch_donor_for out tests)
  set(gui OFF)
  foreach(lib ${ARGN})
    if(lib MATCHES "^(tb::gui|tb_gui|tb::charts|tb_charts|Qt6::Widgets|Qt6::Gui|Qt6::Charts)$")
      set(gui ON)
    endif()
  endforeach()
  if(gui AND tests)
    set(${out} tb_pch_guitests PARENT_SCOPE)
  elseif(gui)
    set(${out} tb_pch_gui PARENT_SCOPE)
  elseif(tests)
    set(${out} tb_pch_tests PARENT_SCOPE)
  else()
    set(${out} tb_pch_core PARENT_SCOPE)
  endif()
endfunction()

# tb_pch_for_test(<test>): the tests' donor for <test>, from the libraries it links in the end.
# QtTest's headers look at QT_NETWORK_LIB (and QT_GUI_LIB, QT_WIDGETS_LIB), so a test that links
# Qt Network directly, or the benchmarks' harness (Qt Widgets without Charts), could use neither
# tests' header (GCC would refuse it with -Winvalid-pch and parse the headers anyway): those few
# compile without one.
function(tb_pch_for_test name)
  get_target_property(libs ${name} LINK_LIBRARIES)
  if(libs MATCHES "(^|;)(Qt6::Network|tb_bench)(;|$)")
    set_target_properties(${name} PROPERTIES DISABLE_PRECOMPILE_HEADERS ON)
    return()
  endif()
  tb_pch_donor_for(donor ON ${libs})
  tb_use_pch(${name} ${donor})
endfunction()

# QtTest's CMake package defines QT_TESTCASE_BUILDDIR and QT_TESTCASE_SOURCEDIR as each test's
# own folders; qtestcase.h mentions them, so no two test folders could share a precompiled
# header. They serve QFINDTESTDATA only, which no test here uses (fixtures come from
# TB_FIXTURES_DIR): Qt6::Test keeps only its library macro.
if(TB_PCH AND TARGET Qt6::Test)
  set_property(TARGET Qt6::Test PROPERTY INTERFACE_COMPILE_DEFINITIONS QT_TESTLIB_LIB)
endif()
