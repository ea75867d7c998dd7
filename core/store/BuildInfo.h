#pragma once
/// @file BuildInfo.h
/// The source revision this build was configured from, recorded with every experiment and run.

#include <QString>

namespace tb {

/// The short git hash of the checkout at configure time ("unknown" outside a git checkout).
/// Compiled into one generated file (BuildInfo.cpp, from BuildInfo.cpp.in), so a new commit
/// recompiles that file only, not every file that records or shows the hash. Thread-safe.
QString gitHash();

} // namespace tb
