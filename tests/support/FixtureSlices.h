#pragma once
/// @file FixtureSlices.h
/// The work a run of the fixture plugin's test.sleepy or test.slowpredict does, counted: both
/// sleep in 10 ms slices and poll Stop between them (tests/fixtures/plugins). A test notes the
/// count when it requests Stop and checks how many slices ran after it — a count, where a timing
/// would grow with the load of a busy machine.

#include <QString>
#include <functional>

namespace tb::testsupport {

/// The counter of slices slept so far in this process, resolved in the fixture plugin library
/// (tb_test_trainers.so) in @p pluginDir — the same library a PluginRegistry loaded from there.
/// Throws std::runtime_error naming the file when it cannot be loaded or lacks the counter.
std::function<long long()> fixtureSliceCounter(const QString& pluginDir);

/// Another of the fixture plugin's counters by its exported name: "tb_test_creates" (its factory's
/// create() calls) or "tb_test_fresh" (its trainers' fresh() copies). Throws as fixtureSliceCounter().
std::function<long long()> fixtureCounter(const QString& pluginDir, const char* name);

} // namespace tb::testsupport
