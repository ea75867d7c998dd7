#pragma once

#include <ExperimentRunner.h>

#include <QElapsedTimer>
#include <mutex>

namespace tb::cli {

/// Draws "[#####.....]  45%  9/20  ETA 0:12" on stderr, at most 10 times a second, when
/// stderr is a terminal; prints nothing otherwise (logs stay clean). Thread-safe.
class ProgressBar final : public ExperimentObserver {
public:
    explicit ProgressBar(bool enabled);
    ~ProgressBar() override;

    void experimentStarted(qint64 experimentId, const ExperimentSpec& spec, int totalUnits) override;
    void progress(int done, int total) override;
    void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint& p) override;
    void runStarted(const RunJob& job, qint64 runId) override;
    /// Ends the bar's line.
    void finish();

private:
    void draw(bool force);

    bool m_enabled;
    std::mutex m_mutex;
    QElapsedTimer m_clock;
    qint64 m_lastDraw = -1000;
    int m_done = 0, m_total = 0;
    QString m_current;
    bool m_drawn = false;
};

} // namespace tb::cli
