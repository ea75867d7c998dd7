#pragma once
/// @file SweepResultView.h
/// The charts of a param sweep or a comparison over seeds: one tab per chart of the registry
/// placed in the Comparison tab (final metric against a parameter, parallel coordinates, the
/// accuracy-versus-time frontier, …).

#include <charts/ChartOptions.h>
#include <engine/ExperimentRunner.h>
#include <engine/RunMetric.h>

#include <QList>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QTabWidget;

namespace tb::charts {
class ChartPlot;
class FrontierChart;
class FeatureFrontierChart;
class ParallelCoordinatesView;
class ParamSweepChart;
struct ChartEntry;
} // namespace tb::charts

namespace tb::gui {

/// One tab per chart of the ChartRegistry placed in the Comparison tab
/// (charts::ChartPlace::Comparison), in the registry's order, over the same runs. Today: "Metric vs
/// parameter" (charts::ParamSweepChart: mean ± std over seeds, log axis when the values are; a box
/// picks the swept parameter, only numeric ones), "Parallel coordinates"
/// (charts::ParallelCoordinatesView, coloured by the metric), "Frontier" (charts::FrontierChart:
/// every run's metric against its training time, log time axis, Pareto front marked) and
/// "Features" (charts::FeatureFrontierChart: accuracy or RMSE against time, point size = number of
/// features, for runs that record them). A tab is enabled only while its chart applies to the runs
/// (ChartEntry::applies); the first tab comes forward when it becomes enabled (a sweep brings its
/// chart back), the critical-difference diagram when it does (runs across data sets: a suite's),
/// and a view left on a tab that is disabled falls back to the frontier. A metric box
/// above applies to every chart that draws a metric. setCurves() may be called while a sweep runs
/// (~20 times a second): only the tab in view is rebuilt at once. GUI thread only.
class SweepResultView : public QWidget {
    Q_OBJECT
public:
    explicit SweepResultView(QWidget* parent = nullptr);
    ~SweepResultView() override;

    /// The runs to show (ExperimentResult::curves, or ParamSweep::configurations() filled live).
    /// @p selection: the runs that chose the configurations (ExperimentResult::selection, a tuned
    /// comparison's trials), for the charts that draw them.
    void setCurves(const QList<AlgorithmCurves>& curves, const QList<AlgorithmCurves>& selection = {});
    const QList<AlgorithmCurves>& curves() const { return m_data.curves; }
    void clear() { setCurves({}); }

    MetricId metric() const;
    void setMetric(MetricId metric);
    /// The swept parameter on the x axis of "Metric vs parameter" (empty when none is numeric).
    QString parameter() const;
    void setParameter(const QString& key);

    /// The tab of chart @p id (ChartEntry::id), −1 when there is none.
    int indexOf(const QString& id) const;
    charts::ParamSweepChart* parameterChart() const;       ///< "metric-vs-parameter"
    charts::ParallelCoordinatesView* parallelView() const; ///< "parallel-coordinates"
    charts::FrontierChart* frontierChart() const;          ///< "frontier"
    charts::FeatureFrontierChart* featuresChart() const;   ///< "feature-frontier"
    QTabWidget* tabs() const { return m_tabs; }
    QComboBox* parameterBox() const { return m_parameter; }
    QComboBox* metricBox() const { return m_metric; }

    /// Writes the chart in view as a PNG. False with a message naming the path on failure.
    bool savePng(const QString& path, QString* error);

private:
    /// One tab: the registry's entry and the plot it built.
    struct Tab {
        const charts::ChartEntry* entry = nullptr;
        std::unique_ptr<charts::ChartPlot> plot;
        bool dirty = false; ///< data newer than its chart
    };

    void refreshCurrent();
    void markAllDirty();
    QObject* target(const QString& id) const;

    ExperimentResult m_data; ///< the runs shown (curves and selection)
    bool m_showedTuning = false; ///< the tuning tab was brought forward for the selection shown
    QComboBox* m_metric = nullptr;
    QComboBox* m_parameter = nullptr;
    QTabWidget* m_tabs = nullptr;
    std::vector<Tab> m_tabList;
    bool m_metricChosen = false;
};

} // namespace tb::gui
