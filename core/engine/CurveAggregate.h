#pragma once
/// @file CurveAggregate.h
/// Mean ± std of the repeats of one algorithm's learning curve, per checkpoint index.

#include <store/RunTypes.h>

#include <QList>
#include <QVector>

namespace tb {

/// Statistics of one metric at one checkpoint over the repeats that have a value there.
struct MetricStat {
    double mean = NaN; ///< NaN when no repeat has a (non-NaN) value
    double std = NaN;  ///< sample standard deviation (n − 1); 0 for one value; NaN for none
    int count = 0;     ///< values that went into the statistics (NaNs skipped)
};

/// One aggregated checkpoint: the repeats' points at the same index.
struct AggregatePoint {
    int index = 0;          ///< checkpoint index (position in each repeat's vector)
    int count = 0;          ///< repeats that reached this index
    double epoch = NaN;     ///< mean epoch over those repeats (NaNs skipped)
    double trainTime = NaN; ///< mean training time in seconds over those repeats (NaNs skipped)
    MetricStat loss;
    MetricStat trainAccuracy;
    MetricStat testAccuracy;
    MetricStat trainRmse;
    MetricStat testRmse;
    MetricStat validationAccuracy; ///< NaN mean without a validation split
    MetricStat validationRmse;
};

/// Aggregates repeated learning curves point by point. Pure functions: thread-safe.
class CurveAggregate {
public:
    /// Aggregates @p repeats (each a run's checkpoints in order) by checkpoint index. Repeats may differ
    /// in length: point i is aggregated over the repeats that have at least i + 1 points, and
    /// AggregatePoint::count says how many. The result has as many points as the longest repeat
    /// (empty for no repeats). NaN values are skipped metric by metric.
    static QVector<AggregatePoint> aggregate(const QList<QVector<MetricPoint>>& repeats);

    /// NaN-aware mean and sample standard deviation of @p values (two-pass, so no cancellation for
    /// large offsets). Infinite values propagate into mean and std.
    static MetricStat stat(const QVector<double>& values);
};

} // namespace tb
