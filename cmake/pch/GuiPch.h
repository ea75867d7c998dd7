// Precompiled for the charts library, the workbench, the CLI and the GUI benchmarks
// (cmake/Pch.cmake): the core set and the Qt Widgets and Qt Charts headers.
#pragma once

#include "CorePch.h"

#include <QtCharts>
#include <QtWidgets>
