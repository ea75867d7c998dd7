// Precompiled for the tests of the charts and the workbench (cmake/Pch.cmake): the GUI set and
// QtTest with its widget support (QT_WIDGETS_LIB).
#pragma once

#include "GuiPch.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <future>
