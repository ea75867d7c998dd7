#pragma once
/// @file ResultCsv.h
/// The one CSV format of results, written by `trainbench-cli run --csv`, `trainbench-cli export
/// --csv` and the workbench's run browser alike (docs/cli.md, "CSV files").

#include "ExperimentRunner.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace tb {

class RunStore;

/// Writes results as CSV with a header row. Columns, in order (see columns()):
/// experiment_id, run_id, algorithm_id, label, repeat, seed, status, sigma, monte_carlo, seq,
/// epoch, train_time_s, loss, train_accuracy, test_accuracy, train_rmse, train_rmse_std,
/// test_rmse, test_rmse_std, validation_accuracy, validation_rmse (the last two empty without a
/// validation split).
///  - A learning-curve run gives one row per checkpoint (seq 0, 1 …); a run without any
///    checkpoint (failed at once, or never started because Stop came first) one row with its
///    status and empty metrics, so no run is left out.
///  - A noise-sweep run gives one row per σ: sigma, monte_carlo (cells that went into the
///    statistics) and the mean and standard deviation of train and test RMSE over them; the
///    checkpoint columns are empty.
///  - repeat is the 0-based repeat number r of the experiment file's first_repeat and of the
///    seed rule seed_r = deriveSeed(seed, r); seed is the run's seed as a decimal integer.
///  - Accuracies are fractions in [0, 1]; times are training seconds (the clock stops while a
///    checkpoint is evaluated). Numbers are written in their shortest exact form; a value that
///    does not apply (or NaN) is an empty field; ids are empty when nothing was stored.
///  - A param-sweep run adds two kinds of columns after these: dataset (the data-set option's
///    description) and one per swept parameter (sorted by key; a list as "50 20").
/// Files are replaced atomically (QSaveFile): a failed write never leaves half a file.
class ResultCsv {
public:
    /// The header row's names, in order.
    static const QStringList& columns();

    /// Writes @p result (as ExperimentRunner::run() returns it, or StoredRuns::experiment()).
    /// False with @p error naming the path on failure.
    static bool write(const ExperimentResult& result, const QString& path, QString* error);
    /// Writes the stored runs @p runIds in the given order, read from @p store. False with
    /// @p error naming the path (or the run whose checkpoints could not be read) on failure.
    static bool writeRuns(const RunStore& store, const QList<qint64>& runIds, const QString& path, QString* error);
};

} // namespace tb
