#pragma once
/// @file ModuleRun.h
/// trainbench._core.run(): an experiment run in the Python process, training on a C++ thread
/// while the calling thread waits with the GIL released.

#include "PyConvert.h"

#include <optional>
#include <string>

namespace tb::python {

/// Runs experiments for trainbench.run() (python/trainbench/_run.py documents the Python side).
class ModuleRun {
public:
    /// What to run and how. The strings are UTF-8 (paths in the file system's encoding).
    struct Request {
        std::string spec; ///< a file's path (isPath) or the JSON text of a spec
        bool isPath = true;
        std::optional<std::string> db; ///< run store to write (created if missing); none: nothing stored
        std::optional<int> threads;    ///< overrides the spec's "threads"; 0 = all cores, ≤ 1024
        bool resume = false; ///< continue the newest stored run of the spec in db (as `run --resume`)
    };

    /// Runs @p request like `trainbench-cli run`: the spec is read (ExperimentSpec::fromFile, or
    /// fromJson with relative paths against the current folder), former parameter spellings are
    /// upgraded (notes through @p notify), the threads override applied, and the spec checked
    /// against the process's registry (ModuleRegistry): a problem raises ValueError with the
    /// spec's own messages, one per line. @p request.db opens (or creates) a store for writing:
    /// failure raises StoreError. A suite (ExperimentSpec::isSuite()) runs set by set through
    /// SuiteRunner, as app/cli/RunSuite.cpp does.
    ///
    /// Training runs on a C++ thread with the GIL released. The calling thread waits in slices of
    /// at most 50 ms; after each it takes the GIL and: passes the store's notices (a lock held by
    /// another process …) to @p notify(str), calls @p progress(done, total) when the progress
    /// changed (events are queued by the observer on the training threads; the callback runs on
    /// the calling thread only), and calls PyErr_CheckSignals(). When that raises
    /// (KeyboardInterrupt on Ctrl-C — only Python's main thread receives signals), or @p progress
    /// or @p notify raise, it requests a stop (ExperimentRunner::requestStop(), SuiteRunner's for a
    /// suite), waits for the runner to finish cleanly — stored runs kept, the stopped ones marked
    /// cancelled as the runner does, the store flushed and closed — and then re-raises that
    /// exception; further Ctrl-C meanwhile are swallowed (the stop takes effect within the
    /// plugins' 200 ms). No C++ lock the training threads need is held while the GIL is.
    ///
    /// Returns the result as a dict (trainbench.Result wraps it): experiment_id, kind, cancelled,
    /// error, store_error, warnings, wall_seconds, counts, run_errors, varied_keys, suite_sets,
    /// experiment_ids, set_errors, and columns for frames: runs, checkpoints, selection_runs,
    /// selection_checkpoints, summary. Raises ExperimentError when the experiment could not start
    /// (ExperimentResult::error; for a suite: when no set could).
    static py::dict run(const Request& request, const py::object& progress, const py::object& notify);
};

} // namespace tb::python
