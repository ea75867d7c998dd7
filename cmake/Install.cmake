# Install rules and the CMake package that out-of-tree plugins use:
#   find_package(Trainbench REQUIRED)
#   tb_add_plugin(myplugin SOURCES MyPlugin.cpp myplugin.json)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${CMAKE_SOURCE_DIR}/core/api/trainbench DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_SOURCE_DIR}/core/numerics/LeastSquares.h ${CMAKE_SOURCE_DIR}/core/numerics/Metrics.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trainbench/numerics)
# Lanes.h: the training library's Optimizer.h declares LaneOptimizer on it.
file(GLOB TB_NUMERICS_EXTRA_HEADERS ${CMAKE_SOURCE_DIR}/core/numerics/Mlp*.h ${CMAKE_SOURCE_DIR}/core/numerics/Activation*.h
     ${CMAKE_SOURCE_DIR}/core/numerics/Lanes.h)
if(TB_NUMERICS_EXTRA_HEADERS)
  install(FILES ${TB_NUMERICS_EXTRA_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trainbench/numerics)
endif()
# The training library (core/training): Qt-free, for out-of-tree plugins as for ours.
file(GLOB TB_TRAINING_HEADERS ${CMAKE_SOURCE_DIR}/core/training/*.h)
install(FILES ${TB_TRAINING_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trainbench/training)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/core/toolkit/trainbench DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(TARGETS tb_api tb_numerics tb_training tb_toolkit EXPORT TrainbenchTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tb_data tb_stats tb_store tb_engine tb_repro tb_charts LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT TrainbenchTargets NAMESPACE tb:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Trainbench)

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/TrainbenchConfig.cmake.in
  ${CMAKE_BINARY_DIR}/TrainbenchConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Trainbench
  PATH_VARS TB_PLUGIN_INSTALL_DIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/TrainbenchConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/TrainbenchConfig.cmake ${CMAKE_BINARY_DIR}/TrainbenchConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/TrainbenchPlugin.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Trainbench)

# The example experiments (File → Open example in the GUI; run them with trainbench-cli).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/experiments DESTINATION ${CMAKE_INSTALL_DATADIR}/trainbench)
# What a new experiment of the workbench starts with (app/gui/window/ExperimentDocument).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/defaults DESTINATION ${CMAKE_INSTALL_DATADIR}/trainbench)
# The documents, for Help → User guide (app/gui/reports/GuideViewer): the Markdown and the
# screenshots it shows; the reproduction reports' own charts stay in the source tree.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/trainbench
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "reproductions" EXCLUDE PATTERN "examples" EXCLUDE)
# The papers' claims files (trainbench-cli reproduce); they name the experiments above by relative path.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/claims DESTINATION ${CMAKE_INSTALL_DATADIR}/trainbench)
