#pragma once
/// @file TeachingSession.h
/// One demonstration run of one algorithm on a 2-D classification set, on a worker thread,
/// reporting decision-region frames to the UI thread.

#include <data/Dataset.h>
#include <store/RunTypes.h>

#include <QImage>

#include <limits>
#include <QJsonArray>
#include <QObject>
#include <QRectF>
#include <QVariantMap>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace tb {
class PluginRegistry;
}

namespace tb::gui {

/// What one checkpoint of a teaching run shows.
struct TeachingFrame {
    double epoch = 0;           ///< as reported by the trainer
    double trainAccuracy = 0;   ///< arg-max accuracy on the training set, [0, 1]
    double testAccuracy = 0;    ///< on the test set, [0, 1]; NaN without test rows
    double loss = 0;            ///< the trainer's loss at the checkpoint; NaN when it gives none
    double trainSeconds = 0;    ///< training clock (checkpoint evaluation and pacing excluded)
    QImage region;              ///< DecisionRegionWidget::renderRegion() of the grid
    QJsonArray layerSolves;     ///< the trainer's latest "layer_solves" fact (BPLS), else empty
    QString network;            ///< the trainer's "network" fact, e.g. "2-16-16-2, tanh/softmax, bias"
    bool final = false;         ///< the model after fit() returned
    /// The epoch whose weights the trainer keeps as its result so far (BPLS's "best_epoch" during
    /// refinement: a refinement may lower the accuracy, and the best iterate is restored at the
    /// end); NaN when the trainer reports none.
    double keptEpoch = std::numeric_limits<double>::quiet_NaN();
    /// Every checkpoint since the previous frame, this one included (frames are throttled, the
    /// live curves are not).
    QVector<MetricPoint> points;
};

/// Runs ONE trainer on its own std::thread inside a tbb::task_arena of the given thread cap,
/// through the engine's run execution (tb::Runner, no run store: teaching runs are
/// demonstrations): the same training clock, divergence check, parameter validation and failure
/// handling as every experiment's run. Its RunObserver::modelReady() hook renders the decision
/// regions from the model at a checkpoint, with the training clock stopped, and hands a frame to
/// the UI thread.
///
/// Frames are coalesced: the worker keeps only the newest undelivered frame and evaluates the
/// grid at most every @ref minFrameIntervalMs, so the UI gets ≤ 20 frames/s however fast the
/// trainer checkpoints, and the final weights always give a last frame.
///
/// Pace: setPace() makes every epoch take at least that long in wall time (the wait is outside
/// the training clock), so the regions can be watched forming; setPaused() holds the trainer at
/// its next checkpoint and step() lets it go on for one more epoch. Stop works while paused
/// (the wait polls it every 20 ms). The pace and the frame interval are kept on the session's
/// PaceClock: the steady clock unless a test sets one of its own (setPaceClock()).
///
/// Thread-safety: all methods are for the thread the session lives on (the UI thread).
/// Destroying a running session requests a stop and waits for the worker at most the 200 ms
/// stop contract; a worker still running after that is
/// detached and finishes on its own, owning everything it touches except the plugin's code
/// (keep the PluginRegistry alive longer than the session, as the main window does).
class TeachingSession : public QObject {
    Q_OBJECT
public:
    /// Minimum interval between two evaluated frames: 50 ms = at most 20 redraws per second.
    static constexpr int minFrameIntervalMs = 50;

    /// @p registry must outlive the session.
    explicit TeachingSession(const PluginRegistry& registry, QObject* parent = nullptr);
    ~TeachingSession() override;

    /// Starts @p algorithmId with @p params (normalised by its schema) on @p data (2 inputs,
    /// classification), a @p gridWidth × @p gridHeight region grid over @p bounds, run seed
    /// @p seed and @p threads workers (≥ 1; clamped). Returns false if a run is still going
    /// (stop it and wait for finished() first). Invalid parameters or data do not throw: they
    /// end the run at once with finished("failed: …"), delivered asynchronously like any end.
    bool start(const QString& algorithmId, const QVariantMap& params, std::shared_ptr<const data::DatasetPair> data,
               const QRectF& bounds, int gridWidth, int gridHeight, std::uint64_t seed, int threads = 1);
    /// Asks the trainer to stop; it returns within its 200 ms contract and the run ends with
    /// finished("cancelled"). No effect when idle.
    void stop();
    /// True from start() until finished() has been emitted.
    bool isRunning() const { return m_running; }
    /// The algorithm of the current or last run.
    QString algorithmId() const { return m_algorithmId; }

    /// Least wall time per epoch in milliseconds (0 = as fast as it trains, the default; at most
    /// 10 000). Takes effect at the next checkpoint; thread-safe like every setter below.
    void setPace(int msPerEpoch);
    int pace() const;
    /// Holds the run at its next checkpoint (true) or lets it go on (false). Default false.
    void setPaused(bool on);
    bool isPaused() const;
    /// While paused: train one more epoch, then hold again.
    void step();
    /// The epoch Pause holds the run at, once the frame of that checkpoint has been sent to the
    /// UI thread (it arrives with the next frameReady()); NaN while the run trains or is idle.
    /// Thread-safe. For tests, which can wait for the hold instead of for a time.
    double heldEpoch() const;

    /// The clock the worker paces epochs and spaces frames by: now() and sleepFor(). Default
    /// (members empty): std::chrono::steady_clock and std::this_thread::sleep_for. For tests,
    /// which can count what the pace and the frame interval do on a clock of their own instead
    /// of timing them on a shared machine (e.g. time that passes only while the worker sleeps).
    /// Both are called on the worker thread only, and must stay callable as long as a run
    /// started with them may go on (a detached worker included).
    struct PaceClock {
        std::function<std::chrono::steady_clock::time_point()> now;
        std::function<void(std::chrono::steady_clock::duration)> sleepFor;
    };
    /// Takes effect at the next start().
    void setPaceClock(PaceClock clock);

    /// Implementation detail: the state a session shares with its worker thread.
    struct Shared;

Q_SIGNALS:
    /// A new checkpoint frame (UI thread).
    void frameReady(const tb::gui::TeachingFrame& frame);
    /// The run ended: "finished", "cancelled", "diverged" or "failed: <message>" (UI thread).
    void finished(const QString& status);

private:
    void deliverFrame();
    void deliverFinished(const QString& status);
    void releaseWorker(int waitMs);

    const PluginRegistry& m_registry;
    std::shared_ptr<Shared> m_shared;
    PaceClock m_clock;
    bool m_running = false;
    QString m_algorithmId;
    int m_pace = 0;
    bool m_paused = false;
    double m_lastEpoch = 0; ///< of the last frame delivered: step() goes one epoch past it
};

} // namespace tb::gui
