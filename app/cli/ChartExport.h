#pragma once

#include <ExperimentRunner.h>

#include <QString>
#include <QStringList>

namespace tb::cli {

/// Writes an experiment's charts as PNG with app/charts (the GUI's builders).
/// Noise sweep: one chart, RMSE vs σ, at @p path. Learning curve: the metric (accuracy for
/// classification, RMSE for regression) against training time at @p path, against epoch at
/// "<path without .png>-epoch.png". Param sweep: the final metric against the first numeric
/// swept parameter at @p path (the others at "<base>-<key>.png"), or without one the learning
/// curves; parallel coordinates at "<base>-parallel.png" when it sweeps anything. Both curve kinds: every run's metric against training time with the
/// Pareto front at "<base>-frontier.png". Needs a QApplication. Returns false with @p error naming
/// the file on failure; @p written lists the files written.
bool writeCharts(const ExperimentResult& result, const QString& title, const QString& path, QStringList* written,
                 QString* error);

} // namespace tb::cli
