#pragma once
/// @file BuildInfo.h
/// The source revision and the build this process was made from, and the CPU it runs on:
/// recorded with every experiment and run ("git_hash", "build", "cpu"), so that a re-run that
/// differs from its stored result can say whether the CPU or the build differs (issue 43).

#include <QString>

namespace tb {

/// The short git hash of the checkout when it was built, with "-dirty" when tracked files had
/// uncommitted changes ("unknown" outside a git checkout). Compiled into one generated file
/// (BuildInfo.cpp, from BuildInfo.cpp.in, rewritten at every build by cmake/GitHash.cmake when the
/// hash changed), so a new commit recompiles that file only, not every file that records or shows
/// the hash. Thread-safe.
QString gitHash();

/// How this build was compiled, as far as it decides the numbers: the compiler and its version,
/// the build type, the target (-march=native or generic x86-64), any extra flags given to CMake
/// (CMAKE_CXX_FLAGS, e.g. -mtune=…) and the vector instructions the code may use — e.g.
/// "GCC 12.2.0, Release, -march=native: AVX-512F AVX2 FMA". Two runs with the same seed, thread
/// count and parameters give the same bits when this and cpuModel() are the same. Thread-safe.
QString buildDescription();

/// The CPU this process runs on: /proc/cpuinfo's model name with its vendor, family and model
/// ("AMD EPYC 9B14 (AuthenticAMD family 25 model 17)"), or "unknown" where it cannot be read.
/// Read once per process; thread-safe.
QString cpuModel();

} // namespace tb
