#pragma once
/// @file ExperimentController.h
/// Runs one experiment (or suite) at a time on a worker thread and hands its progress to the GUI
/// thread at most ~20 times a second.

#include "LiveSuiteSet.h"

#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/SuiteRunner.h>
#include <charts/LearningCurveChart.h>
#include <store/RunTypes.h>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <memory>
#include <mutex>
#include <thread>

namespace tb {
class PluginRegistry;
class RunStore;
class SuiteRunner;
} // namespace tb

namespace tb::gui {

/// Owns the worker thread of the running experiment. Training events arrive on TBB worker
/// threads; the controller only queues them there (under a mutex, no allocation-heavy work) and a
/// GUI-thread timer drains the queue every updateInterval() ms (default 50 ms, i.e. ≤ 20 updates a
/// second), so the GUI never waits on training and is never flooded by it.
///
/// A suite (ExperimentSpec::isSuite()) runs with a SuiteRunner: each set as an experiment of its
/// own, one after the other. Its curves() are the curves of the set that trains (suiteSets() has
/// every set's), the progress counts over sets × algorithms, the status names the set, the log
/// names each set as it starts with its gaps, and the result is every set's (SuiteResult::merged).
///
/// Everything but the observer runs on the GUI thread: create, call and destroy it there.
/// Destroying a controller stops its experiment and joins the worker (≤ 200 ms for conforming
/// plugins).
class ExperimentController : public QObject {
    Q_OBJECT
public:
    /// @p registry must outlive the controller.
    explicit ExperimentController(const PluginRegistry& registry, QObject* parent = nullptr);
    ~ExperimentController() override;

    /// Where runs are logged (not owned; may be null). Not while running.
    void setStore(RunStore* store);
    RunStore* store() const { return m_store; }

    /// Validates @p spec against the registry and starts it. Returns false with every problem
    /// (one per line, each naming its key) in @p error when the spec is invalid or an experiment
    /// is already running.
    /// With @p resumeId ≥ 0 (a stored experiment of @p spec that was stopped, see
    /// ExperimentRunner::resumable(); needs a store) only its unfinished runs or cells train, into
    /// the same experiment, and the result is the whole experiment (ExperimentRunner::resume()).
    /// A suite resumes when @p resumeId ≥ 0: each set its newest stored experiment with the same
    /// settings (SuiteRunner::run() with resume; the id itself is not used).
    bool start(const ExperimentSpec& spec, QString* error, qint64 resumeId = -1);
    /// Asks the running experiment to stop; trainers return within 200 ms. Safe when idle. A
    /// suite stops the set that trains and starts no other.
    void stop();
    bool isRunning() const { return m_worker.joinable(); }
    /// Processes events until the experiment has finished (finished() emitted) or @p ms passed.
    bool waitForFinished(int ms);

    /// The experiment running or last run.
    const ExperimentSpec& spec() const { return m_spec; }
    qint64 experimentId() const { return m_experimentId; }
    /// The stored experiments of the last run, in set order for a suite (one per set that stored
    /// one), else the experiment's alone; empty without a store.
    const QList<qint64>& experimentIds() const { return m_experimentIds; }
    /// Learning curves so far, one entry per configuration in the kind's order; for a suite, of
    /// the set that trains (or trained last).
    const QList<charts::CurveSeriesData>& curves() const { return m_curves; }
    /// A suite's sets as planned at start(), each with its curves so far; empty for an
    /// experiment on one data set.
    const QList<LiveSuiteSet>& suiteSets() const { return m_sets; }
    /// The set of the suite that trains (or trained last), −1 before the first and for an
    /// experiment on one data set.
    int currentSet() const { return m_currentSet; }
    /// The runs so far that choose the configurations (ExperimentResult::selection: a tuned
    /// comparison's trials, one entry per algorithm in the order they first arrive), each with
    /// its final point and facts: the tuning charts drawn live.
    const QList<AlgorithmCurves>& selection() const { return m_selection; }
    /// Summary points so far (a kind that keeps statistics instead of curves: a noise sweep).
    const QList<SummaryPoint>& summary() const { return m_summary; }
    /// What the experiment's kind says of its progress beyond counts, one line per part (a tuned
    /// comparison: each algorithm's trials and CPU seconds, and its best so far); empty when it
    /// says nothing. Shown with the status line of the run under way, logged when it ends.
    const QStringList& kindStatus() const { return m_kindStatus; }
    /// Whether the experiment's kind keeps summary points rather than curves.
    bool keepsSummary() const { return m_keepsSummary; }
    /// Result of the last finished experiment.
    const ExperimentResult& result() const { return m_result; }
    /// Share of the current learning-curve run done, 0 … 1: epochs against the planned epochs
    /// (the shipped plugins' "epochs", "iterations" or BPLS's "tau_max" + 1) or training time
    /// against the time budget, whichever is further; −1 when neither is known (noise sweeps,
    /// plugins with other parameters).
    double runFraction() const;
    /// Units (runs, or sweep cells × algorithms) done and in all; the total is 0 until the
    /// runner has loaded the data and said it.
    int unitsDone() const { return m_done; }
    int unitsTotal() const { return m_total; }
    /// The progress bar's text (QProgressBar::setFormat) for the values of progressChanged():
    /// "%v of %m runs done" while running and after a full run; "stopped: %v of %m finished"
    /// after Stop, when progressChanged() gives the runs that finished (the status line's count).
    QString progressFormat() const;
    /// Seconds since start() (or the duration of the last experiment).
    double elapsedSeconds() const;

    void setUpdateInterval(int ms) { m_timer.setInterval(ms); }
    int updateInterval() const { return m_timer.interval(); }
    /// The GUI-thread timer whose every timeout drains the queue: updated() comes at most once
    /// per timeout, and once more as the experiment ends. For tests, which count its timeouts
    /// instead of timing the experiment.
    const QTimer& drainTimer() const { return m_timer; }

Q_SIGNALS:
    void started();
    /// New checkpoints or summary points are in curves() / summary(). At most once per interval.
    void updated();
    void progressChanged(int done, int total);
    /// runFraction() changed (at most once per interval).
    void runProgressChanged(double fraction);
    /// Text for the status line, e.g. "run 3 of 8: Adam, repeat 2 — epoch 7, 1.3 s".
    void statusText(const QString& text);
    /// A line for the log (run started / finished / failed with its message).
    void logMessage(const QString& line);
    /// Set @p index of a suite's suiteSets() started training; curves() are now its curves.
    void suiteSetStarted(int index);
    /// The experiment ended; result() holds the outcome. @p summary is one line for the status bar.
    void finished(const QString& summary);

private:
    class Observer;
    struct Event;

    void drain();
    void workerDone();
    /// One empty curve per configuration of @p spec (one experiment, or a suite's set), with each
    /// one's planned epochs in @p plannedEpochs.
    QList<charts::CurveSeriesData> configurationCurves(const ExperimentSpec& spec, QList<double>* plannedEpochs) const;
    /// The sets of suite @p spec as its runner plans them (with @p resume: what each resumes), kept
    /// in m_sets; returns the plan for the runner.
    QList<SuiteSetOutcome> planSets(const ExperimentSpec& spec, bool resume);
    /// Set @p index of the suite begins: its curves become curves(), the log names it.
    void beginSet(int index);
    /// The status bar's summary of the finished experiment or suite.
    QString finishedSummary() const;
    /// A finished run that chooses the configurations joins selection(); false for other runs.
    bool addToSelection(const Event& e);
    int curveIndex(const QString& label, const QString& algorithmId);
    QString currentStatus() const;

    const PluginRegistry& m_registry;
    RunStore* m_store = nullptr;
    std::unique_ptr<ExperimentRunner> m_runner;
    std::unique_ptr<SuiteRunner> m_suiteRunner; ///< while a suite runs
    std::unique_ptr<Observer> m_observer;
    std::thread m_worker;
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_lastElapsed = 0;

    ExperimentSpec m_spec;
    qint64 m_experimentId = -1;
    QList<qint64> m_experimentIds;
    QList<charts::CurveSeriesData> m_curves;
    QList<LiveSuiteSet> m_sets;   ///< a suite's sets; m_curves is m_sets[m_currentSet]'s while it trains
    int m_currentSet = -1;
    QList<AlgorithmCurves> m_selection;
    QList<QList<int>> m_repeatIndex; ///< per curve: repeat number of each entry of its repeats
    QList<SummaryPoint> m_summary;
    QStringList m_kindStatus;
    bool m_keepsSummary = false;  ///< the kind keeps summary points (ExperimentKind::summaryAxis())
    bool m_routeByLabel = false;  ///< runs train side by side: checkpoints are routed by label
    ExperimentResult m_result;
    int m_done = 0;
    int m_total = 0;
    int m_runsStarted = 0;
    QString m_currentRun;
    int m_currentCurve = -1;
    int m_currentRepeat = 0;
    MetricPoint m_lastPoint;
    QList<double> m_plannedEpochs; ///< per curve; 0 when unknown

    std::mutex m_resultMutex;
    ExperimentResult m_workerResult; ///< written by the worker just before it ends
    QList<qint64> m_workerExperimentIds; ///< a suite's, written with m_workerResult
    QStringList m_workerSetErrors;       ///< a suite's sets that could not start, written with m_workerResult
};

} // namespace tb::gui
