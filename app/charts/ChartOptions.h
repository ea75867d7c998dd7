#pragma once
/// @file ChartOptions.h
/// The choices a view or an export makes about a chart of the registry: metric, swept parameter,
/// log time axis, the title of an exported picture.

#include <engine/ExperimentRunner.h>
#include <engine/RunMetric.h>

#include <QString>
#include <optional>

namespace tb::charts {

/// What a view (ChartTabs, SweepResultView) or an export (trainbench-cli --plot) chooses for a
/// chart of the ChartRegistry. Every field may stay unset; a chart reads the fields it has a use
/// for and derives the others from the result. A value type.
struct ChartOptions {
    /// Learning curves in accuracy (true) or RMSE (false). Unset: accuracy when some checkpoint of
    /// the result has one (hasAccuracy()).
    std::optional<bool> classification;
    /// The final metric of the comparison charts. Unset: RunMetric::defaultFor() of the curves.
    std::optional<MetricId> metric;
    /// The swept parameter on the x axis (metric vs parameter). Empty: none chosen; the chart
    /// keeps what it shows.
    QString parameter;
    /// Training time on a log10 axis (curves against time): true log, false linear. Unset (the
    /// default): chosen by the data — log when the curves' positive training times span more than
    /// two decades (spansDecades()), so BPLS at a millisecond beside Adam at seconds is not a
    /// squiggle against the y axis.
    std::optional<bool> logTime;
    /// Set for an exported picture: the chart is titled "<title> — <what it shows>" ("<what it
    /// shows>" alone when the title is empty). Unset (the workbench): the chart keeps its own title.
    std::optional<QString> title;

    /// classification, or when unset hasAccuracy(@p result).
    bool isClassification(const ExperimentResult& result) const;
    /// metric, or when unset RunMetric::defaultFor(@p result.curves).
    MetricId metricFor(const ExperimentResult& result) const;
    /// logTime, or when unset spansDecades(@p result, 2).
    bool logTimeFor(const ExperimentResult& result) const;
    /// Whether the positive training times of @p result's curve points span more than
    /// @p decades decades (largest / smallest > 10^decades).
    static bool spansDecades(const ExperimentResult& result, double decades);
    /// "<title> — <what>", or @p what alone when title is unset or empty.
    QString titled(const QString& what) const;
    /// Whether some checkpoint of @p result's curves has a finite train or test accuracy.
    static bool hasAccuracy(const ExperimentResult& result);
    /// Whether @p result is one of curves (learning curves, configurations) rather than of summary
    /// points only: its kind's results are curves (ExperimentKind::summaryAxis() empty), or, for a
    /// result of no one kind (stored runs of several experiments), it holds curves.
    static bool holdsCurves(const ExperimentResult& result);
};

} // namespace tb::charts
