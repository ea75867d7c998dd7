// Precompiled for the tests that do not link Qt GUI (cmake/Pch.cmake): the core set and QtTest.
#pragma once

#include "CorePch.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <future>
