#pragma once
/// @file RunSpec.h
/// The tail that `run` and `rerun` share: an experiment run, its summary, --plot and --csv.

#include <QtGlobal>

class QCommandLineParser;

namespace tb {
class CellExecutor;
class PluginRegistry;
class RunStore;
struct ExperimentResult;
struct ExperimentSpec;
} // namespace tb

namespace tb::cli {

/// Runs @p spec (or resumes stored experiment @p resumeId ≥ 0) into @p store (null: none), with
/// @p executor (null: this process), prints its summary and writes --plot / --csv as @p p asks;
/// Ctrl-C stops it (Interrupts.h). @p kept, when given, receives the result. Returns the CLI's
/// exit code: 0 ok, 1 runs failed or diverged, 3 invalid, 4 database, 5 stopped, 6 output not written.
/// Checks @p spec against @p reg: Ok, or Invalid after printing every problem on stderr.
int refuseInvalid(const ExperimentSpec& spec, const PluginRegistry& reg);
/// Says on stderr, as it happens, that @p store (may be null) waits for another process's lock.
void announceWaits(RunStore* store);

/// After Stop: on stderr, that what finished is in @p store and the command that trains the rest
/// (`run FILE --db DB --resume`); nothing without a store or a file (a re-run).
void adviseResume(const ExperimentSpec& spec, const RunStore* store);

/// One line per run of @p result (its status, time and final metrics), or a noise sweep's
/// statistics per value of its axis, on standard output.
void printRuns(const ExperimentSpec& spec, const ExperimentResult& result);

int runSpec(const ExperimentSpec& spec, const PluginRegistry& reg, RunStore* store, const QCommandLineParser& p,
            CellExecutor* executor = nullptr, qint64 resumeId = -1, ExperimentResult* kept = nullptr);

} // namespace tb::cli
