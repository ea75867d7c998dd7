# tb_add_plugin() for plugins built against an installed Trainbench.
# tb_add_plugin(<target> SOURCES <sources and metadata .json> [LIBS <libs>])
# The plugin is built as a MODULE library; `cmake --install` puts it in TRAINBENCH_PLUGIN_DIR,
# where the workbench finds it (or point TRAINBENCH_PLUGIN_PATH at the build folder).
function(tb_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  # Installed into <prefix>/lib/trainbench/plugins: Trainbench's libraries are two folders up, and
  # wherever the package was found (the link path).
  set_target_properties(${target} PROPERTIES AUTOMOC ON PREFIX "" CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
    INSTALL_RPATH "$ORIGIN/../.." INSTALL_RPATH_USE_LINK_PATH ON)
  target_link_libraries(${target} PRIVATE tb::api tb::numerics tb::training tb::toolkit ${ARG_LIBS})
  install(TARGETS ${target} LIBRARY DESTINATION ${TRAINBENCH_PLUGIN_DIR})
endfunction()
