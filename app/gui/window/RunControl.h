#pragma once
/// @file RunControl.h
/// What runs and what the charts show: Run, Stop, re-runs of stored runs, stored runs overlaid on
/// the charts, and the live updates of the Charts and Comparison tabs.

#include <engine/ExperimentSpec.h>
#include <store/RunTypes.h>

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

class QAction;
class QProgressBar;
class QTabWidget;
class QWidget;

namespace tb {
class PluginRegistry;
class RunStore;
}

namespace tb::gui {

class ChartTabs;
class ComparisonTab;
class DatabaseControl;
class ExperimentController;
class ExperimentDocument;
class RunBrowser;
class WindowMessages;

/// Starts experiments on the ExperimentController — the document's (Run, Ctrl+R), or a stored run
/// or experiment again with its stored settings (the run browser's Re-run) — and stops them (Esc).
/// While one runs, the Charts tab follows its curves or sweep points and the Comparison tab its
/// configurations (rebuilt only while in view); the status bar shows the current run's and the
/// experiment's progress. Stored runs picked in the browser are overlaid on the charts (Show on
/// charts) or compared (Compare); runs deleted in the browser leave the charts. Knows what the
/// charts show, for the header of an exported chart (chartSettings()). A suite's charts follow the
/// set that trains; when it ends the Comparison tab comes forward with every set. GUI thread only.
class RunControl : public QObject {
    Q_OBJECT
public:
    /// Everything given must outlive this object; @p window is its parent and the parent of its
    /// dialogs. @p comparisonPage is the page of @p centre that holds @p comparison.
    RunControl(const PluginRegistry& registry, ExperimentController* controller, ExperimentDocument* document,
               DatabaseControl* database, ChartTabs* charts, ComparisonTab* comparison, RunBrowser* browser,
               QTabWidget* centre, QWidget* comparisonPage, WindowMessages* messages, QWidget* window);

    /// Run: validates the document's experiment and starts it. False with the problems in @p error.
    bool runExperiment(QString* error);
    /// Re-runs stored run @p runId with its stored settings. False with a message when it cannot.
    bool rerun(qint64 runId, QString* error);
    /// Re-runs stored experiment @p experimentId exactly as it was run.
    bool rerunExperiment(qint64 experimentId, QString* error);
    /// Resumes the newest stored experiment of the experiment in the panels that was stopped
    /// (ExperimentRunner::resumable(): same settings): its finished runs or noise-sweep cells
    /// are kept, the others train with the same seeds, into the same experiment. False with the
    /// reason in @p error (nothing to resume, no database, the panels' problems).
    bool resumeExperiment(QString* error);
    /// Shows stored runs on the charts (learning curves grouped by experiment and label; noise-sweep
    /// runs as their experiment's sweep points). Returns the number of runs shown.
    int overlayRuns(const QList<qint64>& runIds);
    /// Stop: the running experiment ends within 200 ms (conforming plugins).
    void stop();

    /// The experiment the charts show, when they show one that ran here (not stored runs).
    const std::optional<ExperimentSpec>& chartSpec() const { return m_chartSpec; }
    /// What an exported chart says under its title: the data set, the kind with its repeats or σ
    /// grid, seed and threads, the algorithms, the app version; for stored runs the chart header.
    QStringList chartSettings() const;

    QAction* runAction() const { return m_runAction; }
    QAction* stopAction() const { return m_stopAction; }
    /// Run → Resume stopped experiment: enabled while idle after an experiment here was stopped
    /// with some of it done (it also finds one stopped in an earlier session, when triggered).
    QAction* resumeAction() const { return m_resumeAction; }
    /// The current run's progress (shown while a learning curve runs) and the experiment's.
    QProgressBar* runProgress() const { return m_runProgress; }
    QProgressBar* progress() const { return m_progress; }

    /// Enables Run or Stop as the controller runs; emits runningChanged().
    void updateActions();

Q_SIGNALS:
    void runningChanged(bool running);

private:
    bool startSpec(const ExperimentSpec& spec, const QString& caption, QString* error, qint64 resumeId = -1);
    /// Resumes suite @p spec: each set its newest stopped experiment in @p store. False with the
    /// reason in @p error when no set has one.
    bool resumeSuite(const ExperimentSpec& spec, RunStore& store, QString* error);
    /// A suite's set @p index started: the charts now follow its curves.
    void onSuiteSetStarted(int index);
    /// The Comparison tab from the live data: the experiment's configurations, or a suite's sets.
    void showLiveComparison();
    /// The document now shows an experiment named @p name: charts of another one are cleared.
    void experimentShown(const QString& name);
    void onStarted();
    void onUpdated();
    void onFinished(const QString& summary);
    /// The window after an experiment that could not start or run: idle, the reason in the caption.
    void showNotRun(const QString& name, const QString& error);
    /// Runs deleted in the browser leave the charts (issue 18: they stayed drawn).
    void onRunsDeleted(const QList<qint64>& runIds);

    const PluginRegistry& m_registry;
    ExperimentController* m_controller;
    ExperimentDocument* m_document;
    DatabaseControl* m_database;
    ChartTabs* m_charts;
    ComparisonTab* m_comparison;
    RunBrowser* m_browser;
    QTabWidget* m_centre;
    QWidget* m_comparisonPage;
    WindowMessages* m_messages;
    QWidget* m_window;
    QAction* m_runAction;
    QAction* m_stopAction;
    QAction* m_resumeAction;
    bool m_stoppedWithResults = false; ///< the last experiment here was stopped part-way
    QProgressBar* m_runProgress;
    QProgressBar* m_progress;
    bool m_comparisonDirty = false; ///< live data newer than the Comparison tab
    QList<qint64> m_shownRuns;      ///< stored runs the charts show (overlay or the last experiment)
    std::optional<ExperimentSpec> m_chartSpec; ///< the experiment the charts show, if one (for exports)
    std::optional<RunRecord> m_rerunOf;        ///< the stored run the running experiment re-runs, if one
};

} // namespace tb::gui
