#pragma once
/// @file TeachingSession.h
/// One demonstration run of one algorithm on a 2-D classification set, on a worker thread,
/// reporting decision-region frames to the UI thread.

#include <Dataset.h>

#include <QImage>
#include <QJsonArray>
#include <QObject>
#include <QRectF>
#include <QVariantMap>
#include <cstdint>
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
    double trainSeconds = 0;    ///< training clock (checkpoint evaluation excluded)
    QImage region;              ///< DecisionRegionWidget::renderRegion() of the grid
    QJsonArray layerSolves;     ///< the trainer's latest "layer_solves" fact (BPLS), else empty
    QString note;               ///< the checkpoint's note
};

/// Runs ONE trainer on its own std::thread inside a tbb::task_arena of the given thread cap,
/// with its own RunContext: the seed, the cap, a stop flag; checkpoint() evaluates predict()
/// on the region grid and on the train/test sets (tb::num::accuracy) and hands a frame to the
/// UI thread; record() keeps "layer_solves"; log() is ignored. Nothing is written to the run
/// store (teaching runs are demonstrations).
///
/// Frames are coalesced: the worker keeps only the newest undelivered frame and evaluates the
/// grid at most every @ref minFrameIntervalMs, so the UI gets ≤ 20 frames/s however fast the
/// trainer checkpoints, and the final weights always give a last frame.
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
    bool m_running = false;
    QString m_algorithmId;
};

} // namespace tb::gui
