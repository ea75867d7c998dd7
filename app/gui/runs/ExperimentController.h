#pragma once
/// @file ExperimentController.h
/// Runs one experiment at a time on a worker thread and hands its progress to the GUI thread at
/// most ~20 times a second.

#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
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
} // namespace tb

namespace tb::gui {

/// Owns the worker thread of the running experiment. Training events arrive on TBB worker
/// threads; the controller only queues them there (under a mutex, no allocation-heavy work) and a
/// GUI-thread timer drains the queue every updateInterval() ms (default 50 ms, i.e. ≤ 20 updates a
/// second), so the GUI never waits on training and is never flooded by it.
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
    bool start(const ExperimentSpec& spec, QString* error, qint64 resumeId = -1);
    /// Asks the running experiment to stop; trainers return within 200 ms. Safe when idle.
    void stop();
    bool isRunning() const { return m_worker.joinable(); }
    /// Processes events until the experiment has finished (finished() emitted) or @p ms passed.
    bool waitForFinished(int ms);

    /// The experiment running or last run.
    const ExperimentSpec& spec() const { return m_spec; }
    qint64 experimentId() const { return m_experimentId; }
    /// Learning curves so far, one entry per algorithm of the spec in spec order.
    const QList<charts::CurveSeriesData>& curves() const { return m_curves; }
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
    /// The experiment ended; result() holds the outcome. @p summary is one line for the status bar.
    void finished(const QString& summary);

private:
    class Observer;
    struct Event;

    void drain();
    void workerDone();
    /// A finished run that chooses the configurations joins selection(); false for other runs.
    bool addToSelection(const Event& e);
    int curveIndex(const QString& label, const QString& algorithmId);
    QString currentStatus() const;

    const PluginRegistry& m_registry;
    RunStore* m_store = nullptr;
    std::unique_ptr<ExperimentRunner> m_runner;
    std::unique_ptr<Observer> m_observer;
    std::thread m_worker;
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_lastElapsed = 0;

    ExperimentSpec m_spec;
    qint64 m_experimentId = -1;
    QList<charts::CurveSeriesData> m_curves;
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
};

} // namespace tb::gui
