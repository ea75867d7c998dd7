#pragma once
/// @file SweepResultView.h
/// The charts of a param sweep or a comparison over seeds: final metric against a parameter,
/// parallel coordinates, and the accuracy-versus-time frontier.

#include <ExperimentRunner.h>
#include <RunMetric.h>

#include <QList>
#include <QWidget>

class QComboBox;
class QTabWidget;

namespace tb::charts {
class ChartView;
class FrontierChart;
class FeatureFrontierChart;
class ParallelCoordinatesView;
class ParamSweepChart;
} // namespace tb::charts

namespace tb::gui {

/// Three tabs over the same runs: "Metric vs parameter" (charts::ParamSweepChart: mean ± std over
/// seeds, log axis when the values are; a box picks the swept parameter, only numeric ones),
/// "Parallel coordinates" (charts::ParallelCoordinatesView, coloured by the metric) and
/// "Frontier" (charts::FrontierChart: every run's metric against its training time, log time
/// axis, Pareto front marked); a fourth, "Features" (charts::FeatureFrontierChart: accuracy or
/// RMSE against time, point size = number of features, one point per stage), is enabled when runs
/// record their feature counts (Least Squares Revisited). A metric box above applies to the first three. setCurves() may be called
/// while a sweep runs (~20 times a second): only the tab in view is rebuilt at once.
/// GUI thread only.
class SweepResultView : public QWidget {
    Q_OBJECT
public:
    enum Tab { ParameterTab = 0, ParallelTab = 1, FrontierTab = 2, FeaturesTab = 3 };

    explicit SweepResultView(QWidget* parent = nullptr);

    /// The runs to show (ExperimentResult::curves, or ParamSweep::configurations() filled live).
    void setCurves(const QList<AlgorithmCurves>& curves);
    const QList<AlgorithmCurves>& curves() const { return m_curves; }
    void clear() { setCurves({}); }

    MetricId metric() const;
    void setMetric(MetricId metric);
    /// The swept parameter on the x axis of the first tab (empty when none is numeric).
    QString parameter() const;
    void setParameter(const QString& key);

    charts::ParamSweepChart* parameterChart() const { return m_paramChart; }
    charts::ParallelCoordinatesView* parallelView() const { return m_parallel; }
    charts::FrontierChart* frontierChart() const { return m_frontier; }
    charts::FeatureFrontierChart* featuresChart() const { return m_features; }
    QTabWidget* tabs() const { return m_tabs; }
    QComboBox* parameterBox() const { return m_parameter; }
    QComboBox* metricBox() const { return m_metric; }

    /// Writes the chart in view as a PNG. False with a message naming the path on failure.
    bool savePng(const QString& path, QString* error);

private:
    void refreshCurrent();

    QList<AlgorithmCurves> m_curves;
    QComboBox* m_metric = nullptr;
    QComboBox* m_parameter = nullptr;
    QTabWidget* m_tabs = nullptr;
    charts::ParamSweepChart* m_paramChart = nullptr;
    charts::ChartView* m_paramView = nullptr;
    charts::ParallelCoordinatesView* m_parallel = nullptr;
    charts::FrontierChart* m_frontier = nullptr;
    charts::ChartView* m_frontierView = nullptr;
    charts::FeatureFrontierChart* m_features = nullptr;
    bool m_dirty[4] = {false, false, false, false};
    bool m_metricChosen = false;
};

} // namespace tb::gui
