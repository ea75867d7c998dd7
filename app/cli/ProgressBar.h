#pragma once

#include <engine/ExperimentRunner.h>

#include <QElapsedTimer>
#include <QSet>
#include <functional>
#include <mutex>

namespace tb::cli {

/// Draws "[#####.....]  45%  9/20  ETA 0:12" on stderr, at most 10 times a second, when
/// stderr is a terminal; draws nothing otherwise (logs stay clean). Also prints, on stderr and
/// above the bar, each algorithm's predicted cost once, before its first run (noise sweeps:
/// per cell), terminal or not. Thread-safe.
class ProgressBar final : public ExperimentObserver {
public:
    explicit ProgressBar(bool enabled);
    ~ProgressBar() override;

    void experimentStarted(qint64 experimentId, const ExperimentSpec& spec, int totalUnits) override;
    void progress(int done, int total) override;
    void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint& p) override;
    void runStarted(const RunJob& job, qint64 runId) override;
    /// "Ridge regression: predicted 1.2 GFLOP for 60000×784 → 10 classes", once per
    /// algorithm and prediction (repeats of one algorithm predict the same).
    void costPredicted(const RunJob& job, qint64 runId, const QJsonObject& cost) override;
    /// A suite's set starts: the lines of describeSet (if set) above the bar.
    void suiteSetStarted(int index, int sets, const ExperimentSpec& spec) override;
    /// Ends the bar's line.
    void finish();

    /// What to say as a suite's set starts (which set, its algorithms, its gaps); set before the run.
    std::function<QStringList(int index, int sets, const ExperimentSpec& spec)> describeSet;

private:
    void draw(bool force);
    /// Prints @p line on its own line, the bar (if drawn) redrawn below it. Caller holds m_mutex.
    void printAbove(const QString& line);

    bool m_enabled;
    std::mutex m_mutex;
    QElapsedTimer m_clock;
    qint64 m_lastDraw = -1000;
    int m_done = 0, m_total = 0;
    QString m_current;
    bool m_drawn = false;
    QString m_unit = QStringLiteral("run");  ///< the experiment kind's unit (ExperimentKind::unit(1))
    QSet<QString> m_predicted;
};

} // namespace tb::cli
