#pragma once
/// @file ModuleStore.h
/// trainbench._core.Store: a run store opened read-only, its tables as columns for pandas.

#include "PyConvert.h"

#include <memory>
#include <optional>
#include <string>

namespace tb {
class RunStore;
}

namespace tb::python {

/// A run store (RunStore) opened with Options::readOnly: nothing is created, migrated, recovered
/// or written, so it may be read while the workbench or trainbench-cli writes it (WAL), and a file
/// that is refused stays byte-identical. Each read returns {column: numpy array or list} for
/// pandas (trainbench.Store wraps them in DataFrames). Reads release the GIL while SQLite works;
/// every method may be called from any Python thread. A failed read raises StoreError with
/// RunStore's message; an id that names nothing raises KeyError.
class ModuleStore {
public:
    /// Opens @p path read-only. Throws StoreError (RunStore's message: the file does not exist,
    /// is empty, is not SQLite, is another application's database, has a newer schema …).
    explicit ModuleStore(const std::string& path);
    ~ModuleStore();

    /// Absolute path of the file.
    std::string path() const;
    /// PRAGMA user_version of the file.
    int schemaVersion() const;
    /// Closes the file; later reads raise StoreError. Reads running on other threads finish first.
    void close();
    bool isClosed() const { return !m_store; }

    /// Every experiment, oldest first: id, name, kind, created (ms since the epoch, UTC),
    /// app_version, git_hash, description, spec (the file as run, a dict).
    py::dict experiments() const;
    /// The runs of @p experiment (every run when nullopt), oldest first: id, experiment_id (−1:
    /// none), algorithm_id, algorithm_name, plugin_id, plugin_version, dataset, seed (uint64),
    /// threads, repeat, sigma (NaN outside noise sweeps), status, error, started, ended (ms), app_version,
    /// tags (tuple), note, the final metrics (RunColumns::putFinal), peak_memory_bytes, the
    /// normalised parameters as "param.KEY" (lists as tuples), and with @p withInfo the whole info
    /// (dict) as "info". KeyError when @p experiment names no experiment.
    py::dict runs(std::optional<long long> experiment, bool withInfo) const;
    /// The checkpoints of the runs @p runs names (None: every run; an int; an iterable of ints), or
    /// of experiment @p experiment's runs (not both): run_id, then RunColumns::Checkpoints' columns,
    /// by run (in the order given, else oldest first) then seq. KeyError for ids that name no run
    /// or experiment; ValueError when both are given.
    py::dict checkpoints(const py::object& runs, std::optional<long long> experiment) const;
    /// The noise sweeps' points (SummaryPoint) of @p experiment (every experiment when nullopt):
    /// experiment_id, algorithm_id, algorithm_name, x (the kind's axis: a noise sweep's σ), count,
    /// train_rmse_mean, train_rmse_std, test_rmse_mean, test_rmse_std.
    py::dict summaryPoints(std::optional<long long> experiment) const;

private:
    /// The open store, or StoreError when closed.
    std::shared_ptr<RunStore> open() const;
    /// KeyError unless @p id names an experiment of @p store.
    static void requireExperiment(const RunStore& store, long long id);

    std::shared_ptr<RunStore> m_store;
    std::string m_path;
};

} // namespace tb::python
