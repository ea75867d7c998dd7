#pragma once
/// @file RunMetric.h
/// The final numbers of a run that comparisons rank: accuracy, RMSE, loss, time, memory.

#include <store/RunTypes.h>

#include <stats/Better.h>

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace tb {

struct AlgorithmCurves;

/// What a comparison compares.
enum class MetricId {
    TestAccuracy,
    TrainAccuracy,
    TestRmse,
    TrainRmse,
    Loss,
    TrainSeconds,
    PeakMemory,
    ValidationAccuracy, ///< on the data set's validation split (NaN without one)
    ValidationRmse
};

/// Names, directions and values of the metrics. Pure functions; thread-safe.
class RunMetric {
public:
    /// "test_accuracy", "train_accuracy", "test_rmse", "train_rmse", "loss", "train_seconds",
    /// "peak_memory", "validation_accuracy", "validation_rmse": the names the CLI's --metric takes.
    static QString key(MetricId m);
    /// "test accuracy", …, "training time", "peak memory".
    static QString label(MetricId m);
    static std::optional<MetricId> fromKey(const QString& key);
    static QStringList keys();
    /// The validation counterpart of a test metric (test accuracy → validation accuracy, test
    /// RMSE → validation RMSE); nullopt for the others. What is selected on the validation split
    /// is reported on test (docs/cli.md, "Select on validation").
    static std::optional<MetricId> validationOf(MetricId m);
    /// Whether any run of @p curves measured @p m at a checkpoint (e.g. has a validation split).
    static bool anyMeasured(MetricId m, const QList<AlgorithmCurves>& curves);
    /// Accuracy is better higher; everything else lower.
    static stats::Better better(MetricId m);
    /// Whether the metric is logged at every checkpoint (not time or memory), so a curve of it
    /// can reach a target.
    static bool hasCurve(MetricId m);
    /// The metric at one checkpoint (train_seconds: the point's training time; memory: NaN).
    static double atPoint(MetricId m, const MetricPoint& p);
    /// A run's final value: its last checkpoint, or for memory its "peak_memory_bytes" fact
    /// (NaN when absent).
    static double finalValue(MetricId m, const QVector<MetricPoint>& curve, const QJsonObject& info);
    /// Test accuracy when any run has one, else test RMSE, else train RMSE, else loss.
    static MetricId defaultFor(const QList<AlgorithmCurves>& curves);
    /// One value for a table: accuracy in percent ("86.41 %"), seconds and bytes with units,
    /// others with 4 significant digits; "-" for NaN.
    static QString format(MetricId m, double v);
    /// "86.41 ± 0.32 %" style: mean ± sample std in the metric's unit.
    static QString formatMeanStd(MetricId m, double mean, double std);
};

} // namespace tb
