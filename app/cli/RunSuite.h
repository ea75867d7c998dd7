#pragma once
/// @file RunSuite.h
/// `run` of a suite (an experiment over several data sets, engine/Suite.h): each set's runs, the
/// coverage of sets × configurations, the comparison across sets, --plot and --csv of them all.

#include <QtGlobal>

#include <functional>

class QCommandLineParser;

namespace tb {
class CellExecutor;
class PluginRegistry;
class RunStore;
struct ExperimentSpec;
} // namespace tb

namespace tb::cli {

/// Before and after each set's experiment (`run --mpi`: which experiment the worker ranks serve).
struct SuiteHooks {
    std::function<void(const ExperimentSpec& set)> beginSet;
    std::function<void()> endSet;
};

/// Runs (or with @p resume continues) suite @p spec into @p store (null: none), its cells on
/// @p executor (null: this process); Ctrl-C stops it. Exit codes as runSpec()'s.
int runSuite(const ExperimentSpec& spec, const PluginRegistry& reg, RunStore* store, const QCommandLineParser& p,
             bool resume, CellExecutor* executor = nullptr, const SuiteHooks& hooks = {});

} // namespace tb::cli
