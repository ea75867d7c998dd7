#pragma once
/// @file ComparisonTab.h
/// The window's "Comparison" tab: a param sweep's charts above the comparison tables, for the
/// experiment running or last run, or for runs picked in the run browser.

#include <engine/ExperimentSpec.h>
#include <charts/LearningCurveChart.h>

#include <QList>
#include <QWidget>

class QLabel;
class QSplitter;

namespace tb {
class PluginRegistry;
class RunStore;
struct AlgorithmCurves;
struct ExperimentResult;
} // namespace tb

namespace tb::gui {

class ComparisonPanel;
class SweepResultView;

/// SweepResultView (final metric against a parameter, parallel coordinates, frontier) above
/// ComparisonPanel (result matrix with markers, paired tests, time to target, grid), in a
/// splitter, with a caption saying what is shown. GUI thread only.
class ComparisonTab : public QWidget {
    Q_OBJECT
public:
    /// @p registry names unlabelled algorithms; it must outlive the tab.
    explicit ComparisonTab(const PluginRegistry& registry, QWidget* parent = nullptr);

    /// While @p spec runs: its configurations (ParamSweep::configurations for a param sweep, the
    /// algorithms otherwise) filled with the checkpoints so far, matched by label. Cheap enough
    /// for the controller's ~20 updates a second (only the chart in view is rebuilt).
    void showLive(const ExperimentSpec& spec, const QList<charts::CurveSeriesData>& curves,
                  const QList<AlgorithmCurves>& selection = {});
    /// A finished experiment (noise sweeps have nothing to compare and clear the tab).
    void showResult(const ExperimentResult& result, const QString& caption);
    /// Stored runs picked in the run browser, grouped by experiment and configuration. Returns
    /// how many runs are shown (noise-sweep rows and unknown ids are skipped).
    int showRuns(RunStore& store, const QList<qint64>& runIds);
    /// Empties the charts and tables.
    void clear();

    ComparisonPanel* panel() const { return m_panel; }
    SweepResultView* sweepView() const { return m_sweep; }
    QString caption() const;

private:
    void show(const QList<AlgorithmCurves>& curves, const QList<AlgorithmCurves>& selection = {});

    const PluginRegistry& m_registry;
    QLabel* m_caption = nullptr;
    QSplitter* m_splitter = nullptr;
    SweepResultView* m_sweep = nullptr;
    ComparisonPanel* m_panel = nullptr;
};

} // namespace tb::gui
