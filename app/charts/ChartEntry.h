#pragma once
/// @file ChartEntry.h
/// One chart of the ChartRegistry: its id, title, the results it applies to and how it is built.

#include "ChartOptions.h"
#include "ChartPlot.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace tb::charts {

/// Where the workbench shows a chart.
enum class ChartPlace {
    Curves,     ///< the "Charts" tab (ChartTabs): curves that grow while an experiment runs
    Comparison, ///< the "Comparison" tab's charts (SweepResultView): the configurations' final results
};

/// One chart: everything the workbench and trainbench-cli need to offer it. A chart registers its
/// entry from its own .cpp file (ChartRegistry::Registration); nothing else names it. A value type.
struct ChartEntry {
    /// Stable id, lower-case letters, digits and '-' (e.g. "frontier"): what experiment kinds and
    /// tests name the chart by. Unique in the registry.
    QString id;
    /// The tab's title for @p options (e.g. "Accuracy vs time" or "RMSE vs time"). Required.
    std::function<QString(const ChartOptions& options)> title;
    /// The tab's tooltip; may be empty.
    QString toolTip;
    /// The workbench's view that shows it.
    ChartPlace place = ChartPlace::Comparison;
    /// Position among the charts, smallest first: the tabs' order in each view and the order in
    /// which an export writes its files. Equal orders are sorted by id.
    int order = 0;
    /// Whether the result has what the chart draws. The Comparison view disables the tab of a
    /// chart that does not apply to the runs it shows (the Charts view keeps all its tabs: they
    /// fill while an experiment runs); an export writes only charts that apply. Required.
    std::function<bool(const ExperimentResult& result)> applies;
    /// Whether `trainbench-cli --plot` writes the chart for a result it applies to (an export
    /// shows a choice of the charts; e.g. a param sweep's learning curves give way to the metric
    /// against the swept parameter). Unset: never (a chart of the workbench only).
    std::function<bool(const ExperimentResult& result)> exportedFor;
    /// An export's file for this chart is "OUT-<fileSuffix>.png" (the first chart an export
    /// writes is OUT.png itself). Lower-case letters, digits, '-' and '_'; required when
    /// exportedFor is set.
    QString fileSuffix;
    /// For a chart drawn against one of several parameters: the parameters an export draws it
    /// against, one file each named by the parameter (ChartOptions::parameter is set to it).
    /// Unset: one file.
    std::function<QStringList(const ExperimentResult& result)> exportParameters;
    /// A new plot for @p options (a view builds it once and calls ChartPlot::show() as data
    /// arrive; an export builds one per file). Required.
    std::function<std::unique_ptr<ChartPlot>(const ChartOptions& options)> build;

    /// A title that does not depend on the options.
    static std::function<QString(const ChartOptions&)> fixedTitle(const QString& title);
    /// Whether an export of @p result writes this chart: exportedFor is set, the chart applies
    /// and exportedFor(@p result) says so.
    bool isExportedFor(const ExperimentResult& result) const;
};

} // namespace tb::charts
