#pragma once
/// @file BuildInfo.h
/// The source revision this build was made from, recorded with every experiment and run.

#include <QString>

namespace tb {

/// The short git hash of the checkout when it was built, with "-dirty" when tracked files had
/// uncommitted changes ("unknown" outside a git checkout). Compiled into one generated file
/// (BuildInfo.cpp, from BuildInfo.cpp.in, rewritten at every build by cmake/GitHash.cmake when the
/// hash changed), so a new commit recompiles that file only, not every file that records or shows
/// the hash. Thread-safe.
QString gitHash();

} // namespace tb
