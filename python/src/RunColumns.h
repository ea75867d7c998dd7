#pragma once
/// @file RunColumns.h
/// The columns that trainbench.Store's frames and trainbench.run()'s Result share: a run's final
/// metrics, its parameters, its checkpoints.

#include "PyConvert.h"

#include <store/RunTypes.h>

#include <QJsonObject>
#include <QSet>
#include <QVariantMap>
#include <QVector>

#include <vector>

namespace tb::python {

/// Builders of the columns common to the module's frames. Call with the GIL held.
class RunColumns {
public:
    /// The final metrics, one column each, from each run's info["final"] (Runner's facts):
    /// epochs, loss, train/validation/test accuracy and RMSE, train_seconds, train_cpu_seconds —
    /// always present (NaN where a run has none) — then any other numeric key of "final" found
    /// (NaN where absent), named as in "final" unless that clashes with @p taken (then "final.KEY").
    static void putFinal(Columns& c, const std::vector<QJsonObject>& infos, const QSet<QString>& taken);
    /// The info fact "peak_memory_bytes" of each run (NaN when not measured).
    static void putPeakMemory(Columns& c, const std::vector<QJsonObject>& infos);
    /// One object column "<prefix><key>" per key found in any of @p params (sorted by key), the
    /// values as Python objects (lists as tuples), None where a run has no such key.
    static void putParams(Columns& c, const std::vector<QVariantMap>& params, const QString& prefix);

    /// A noise sweep's statistics, one row per point: algorithm_id, algorithm_name, x, count,
    /// train_rmse_mean, train_rmse_std, test_rmse_mean, test_rmse_std.
    static void putSummary(Columns& c, const QList<SummaryPoint>& points);

    /// The metric columns of checkpoints, in this order: seq, epoch, train_time, loss,
    /// train_accuracy, validation_accuracy, test_accuracy, train_rmse, validation_rmse, test_rmse.
    struct Checkpoints {
        std::vector<std::int64_t> seq;
        std::vector<double> epoch, trainTime, loss, trainAccuracy, validationAccuracy, testAccuracy,
            trainRmse, validationRmse, testRmse;
        void reserve(std::size_t n);
        void append(const MetricPoint& p);
        std::size_t size() const { return seq.size(); }
        void putInto(Columns& c) const;
    };
};

} // namespace tb::python
