#pragma once
/// @file ComparisonTab.h
/// The window's "Comparison" tab: a param sweep's charts above the comparison tables, for the
/// experiment running or last run, or for runs picked in the run browser.

#include "runs/LiveSuiteSet.h"

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
/// splitter, with a caption saying what is shown. Runs on 2 or more data sets of 2 or more
/// configurations (a suite's, or stored experiments of one suite) also get the comparison across
/// sets: the critical-difference diagram and performance profiles above, the per-set and rank
/// tables below (AcrossSets). GUI thread only.
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
    /// While suite @p suite runs: the configurations of each of its @p sets that started, filled
    /// with their checkpoints so far, each set's named by the set (AlgorithmCurves::dataset), so
    /// that the comparison across sets grows as sets finish.
    void showLiveSuite(const ExperimentSpec& suite, const QList<LiveSuiteSet>& sets);
    /// A finished experiment (noise sweeps have nothing to compare and clear the tab).
    void showResult(const ExperimentResult& result, const QString& caption);
    /// Stored runs picked in the run browser, grouped by experiment and configuration. Returns
    /// how many runs are shown (noise-sweep rows and unknown ids are skipped). Runs of several
    /// experiments have their experiment in their labels, except when the experiments are sets of
    /// one suite (their stored "suite_set"): those are one configuration over the sets, each set's
    /// curves named by the set, and compared across sets.
    int showRuns(RunStore& store, const QList<qint64>& runIds);
    /// Empties the charts and tables.
    void clear();

    ComparisonPanel* panel() const { return m_panel; }
    SweepResultView* sweepView() const { return m_sweep; }
    QString caption() const;

private:
    void show(const QList<AlgorithmCurves>& curves, const QList<AlgorithmCurves>& selection = {});
    /// The configurations of @p spec's kind filled with the live @p curves (matched by label);
    /// empty for a kind of summary points.
    QList<AlgorithmCurves> liveConfigurations(const ExperimentSpec& spec, const QList<charts::CurveSeriesData>& curves) const;
    /// The suite that all of @p experiments are sets of (each a different set), empty when they are not.
    static QString commonSuite(const RunStore& store, const QList<qint64>& experiments);

    const PluginRegistry& m_registry;
    QLabel* m_caption = nullptr;
    QSplitter* m_splitter = nullptr;
    SweepResultView* m_sweep = nullptr;
    ComparisonPanel* m_panel = nullptr;
};

} // namespace tb::gui
