#include "TeachingSession.h"

#include "DecisionRegionWidget.h"

#include <Metrics.h>
#include <PluginRegistry.h>
#include <trainbench/RunContext.h>
#include <trainbench/Trainer.h>

#include <QMetaObject>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

namespace tb::gui {

namespace {
using Clock = std::chrono::steady_clock;

// The 200 ms stop contract of Trainer::fit(): the longest the UI thread waits for a worker.
constexpr int kStopWaitMs = 200;
} // namespace

/// Everything the worker touches: owned jointly by the session and its worker, so a worker
/// that outlives a destroyed session (a plugin breaking the stop contract) stays valid.
struct TeachingSession::Shared {
    std::mutex mutex;
    std::condition_variable doneChanged;
    bool done = false;                      // guarded by mutex
    TeachingSession* session = nullptr;     // guarded by mutex; null once the session is gone
    std::optional<TeachingFrame> pending;   // guarded by mutex: newest undelivered frame
    bool framePosted = false;               // guarded by mutex: a deliverFrame() call is queued
    StopSource stop;
    std::thread thread;

    // Set before the thread starts, then only used by it.
    std::unique_ptr<Trainer> trainer;
    std::shared_ptr<const data::DatasetPair> data;
    Eigen::MatrixXd grid;
    int gridWidth = 0, gridHeight = 0;
    std::uint64_t seed = 1;
    int threads = 1;

    bool alive()
    {
        std::lock_guard<std::mutex> lock(mutex);
        return session != nullptr;
    }

    // Calls are queued to the session's thread while it exists; Qt discards calls queued for
    // a context object destroyed before delivery.
    // Caller holds the mutex and has checked session.
    void postFinished(const QString& status)
    {
        TeachingSession* s = session;
        QMetaObject::invokeMethod(s, [s, status] { s->deliverFinished(status); }, Qt::QueuedConnection);
    }

    void publish(TeachingFrame frame)
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (!session)
            return;
        pending = std::move(frame);
        if (!framePosted) {
            framePosted = true;
            TeachingSession* s = session;
            QMetaObject::invokeMethod(s, [s] { s->deliverFrame(); }, Qt::QueuedConnection);
        }
    }
};

namespace detail {

class TeachingRun final : public RunContext {
public:
    using Shared = TeachingSession::Shared;
    explicit TeachingRun(Shared& s) : m_s(s) {}

    std::uint64_t seed() const override { return m_s.seed; }
    int threads() const override { return m_s.threads; }
    StopToken stopToken() const override { return m_stop.token(); }

    CheckpointAction checkpoint(const Checkpoint& cp) override
    {
        stopClock();
        ++m_checkpoints;
        m_lastEpoch = cp.epoch;
        m_lastNote = cp.note;
        evaluate(cp.epoch, cp.note, std::isinf(cp.loss));
        const bool stop = stopRequested();
        startClock();
        return stop ? CheckpointAction::Stop : CheckpointAction::Continue;
    }

    void record(const QString& key, const QJsonValue& value) override
    {
        if (key == QLatin1String("layer_solves") && value.isArray())
            m_layerSolves = value.toArray();
    }
    void log(const QString& message) override { Q_UNUSED(message); }

    void startClock() { m_t0 = Clock::now(); }
    void stopClock() { m_elapsed += std::chrono::duration<double>(Clock::now() - m_t0).count(); }
    bool diverged() const { return m_diverged; }

    /// After fit(): a last frame for the final weights when the newest checkpoint's frame was
    /// skipped by the throttle, or when the trainer never checkpointed.
    void finish(bool cancelled)
    {
        if (m_diverged || !m_s.alive())
            return;
        if (m_checkpoints == 0 && !cancelled)
            evaluate(m_lastEpoch, QString(), false, true);
        else if (m_checkpoints > 0 && m_skipped)
            evaluate(m_lastEpoch, m_lastNote, false, true);
    }

private:
    void evaluate(double epoch, const QString& note, bool infiniteLoss, bool force = false)
    {
        const data::DatasetPair& d = *m_s.data;
        const Trainer& t = *m_s.trainer;
        // Train and test are small (2-D teaching sets): checked at every checkpoint so that
        // divergence is caught at once; the grid only for frames that are shown.
        const Eigen::MatrixXd trainPred = t.predict(d.train.x);
        const Eigen::MatrixXd testPred = d.test.rows() > 0 ? t.predict(d.test.x) : Eigen::MatrixXd();
        if (!trainPred.allFinite() || !testPred.allFinite() || infiniteLoss) {
            m_diverged = true;
            m_stop.requestStop();
        }
        const auto now = Clock::now();
        const bool due = force || m_diverged || m_frames == 0 ||
                         now - m_lastFrame >= std::chrono::milliseconds(TeachingSession::minFrameIntervalMs);
        if (!due || !m_s.alive()) {
            m_skipped = true;
            return;
        }
        TeachingFrame f;
        f.epoch = epoch;
        f.trainAccuracy = num::accuracy(trainPred, d.train.y);
        f.testAccuracy = d.test.rows() > 0 ? num::accuracy(testPred, d.test.y) : std::numeric_limits<double>::quiet_NaN();
        f.trainSeconds = m_elapsed;
        f.region = DecisionRegionWidget::renderRegion(t.predict(m_s.grid), m_s.gridWidth, m_s.gridHeight);
        f.layerSolves = m_layerSolves;
        f.note = note;
        m_s.publish(std::move(f));
        m_lastFrame = Clock::now();
        ++m_frames;
        m_skipped = false;
    }

    Shared& m_s;
    StopSource m_stop{&m_s.stop};  // the session's Stop, or this run's divergence
    Clock::time_point m_t0 = Clock::now();
    Clock::time_point m_lastFrame;
    double m_elapsed = 0;
    double m_lastEpoch = 0;
    QString m_lastNote;
    int m_checkpoints = 0;
    int m_frames = 0;
    bool m_skipped = false;
    bool m_diverged = false;
    QJsonArray m_layerSolves;
};

} // namespace detail

namespace {

void work(std::shared_ptr<TeachingSession::Shared> s)
{
    QString status;
    try {
        const data::Dataset& train = s->data->train;
        DatasetView view(train.x, train.y, train.task);
        view.classNames = train.classNames;
        view.featureNames = train.featureNames;
        detail::TeachingRun ctx(*s);
        tbb::task_arena arena(s->threads);
        arena.execute([&] {
            ctx.startClock();
            s->trainer->fit(view, ctx);
            ctx.stopClock();
            ctx.finish(s->stop.stopRequested());
        });
        status = ctx.diverged() ? QStringLiteral("diverged")
                   : s->stop.stopRequested() ? QStringLiteral("cancelled")
                                  : QStringLiteral("finished");
    } catch (const std::exception& e) {
        status = QStringLiteral("failed: ") + QString::fromUtf8(e.what());
    } catch (...) {
        status = QStringLiteral("failed: unknown exception");
    }
    s->trainer.reset(); // plugin code runs here, not on the UI thread
    {
        std::lock_guard<std::mutex> lock(s->mutex);
        if (s->session) {
            s->postFinished(status);
        }
        s->done = true;
    }
    s->doneChanged.notify_all();
}

} // namespace

TeachingSession::TeachingSession(const PluginRegistry& registry, QObject* parent)
    : QObject(parent), m_registry(registry)
{
}

TeachingSession::~TeachingSession()
{
    releaseWorker(kStopWaitMs);
}

void TeachingSession::releaseWorker(int waitMs)
{
    if (!m_shared)
        return;
    std::shared_ptr<Shared> s = std::move(m_shared);
    {
        std::lock_guard<std::mutex> lock(s->mutex);
        s->session = nullptr;
    }
    s->stop.requestStop();
    if (!s->thread.joinable())
        return;
    std::unique_lock<std::mutex> lock(s->mutex);
    const bool done = s->doneChanged.wait_for(lock, std::chrono::milliseconds(waitMs), [&] { return s->done; });
    lock.unlock();
    if (done) {
        s->thread.join();
    } else {
        // The trainer broke the stop contract: don't freeze the UI; the worker owns its state.
        qWarning("teaching: %s did not stop within %d ms; leaving it to finish in the background",
                 qPrintable(m_algorithmId), waitMs);
        s->thread.detach();
    }
}

bool TeachingSession::start(const QString& algorithmId, const QVariantMap& params,
                            std::shared_ptr<const data::DatasetPair> data, const QRectF& bounds, int gridWidth,
                            int gridHeight, std::uint64_t seed, int threads)
{
    if (m_running)
        return false;
    releaseWorker(kStopWaitMs); // the previous run has finished: this only joins
    m_running = true;
    m_algorithmId = algorithmId;
    auto s = std::make_shared<Shared>();
    s->session = this;
    auto failLater = [this](const QString& message) {
        QMetaObject::invokeMethod(this, [this, message] { deliverFinished(QStringLiteral("failed: ") + message); },
                                  Qt::QueuedConnection);
        return true;
    };
    if (!data)
        return failLater(QStringLiteral("no data"));
    if (data->train.inputs() != 2 || !data->train.isClassification() || data->train.rows() == 0)
        return failLater(QStringLiteral("the teaching view needs a 2-D classification set, got %1 inputs, %2")
                             .arg(data->train.inputs())
                             .arg(data->train.isClassification() ? QStringLiteral("classification")
                                                                 : QStringLiteral("regression")));
    if (gridWidth <= 0 || gridHeight <= 0 || bounds.isEmpty())
        return failLater(QStringLiteral("empty region grid %1x%2").arg(gridWidth).arg(gridHeight));
    try {
        s->trainer = m_registry.create(algorithmId, params);
    } catch (const std::exception& e) {
        return failLater(QString::fromUtf8(e.what()));
    }
    if (!s->trainer)
        return failLater(QStringLiteral("%1: the plugin returned no trainer").arg(algorithmId));
    s->data = std::move(data);
    s->grid = DecisionRegionWidget::gridPoints(bounds, gridWidth, gridHeight);
    s->gridWidth = gridWidth;
    s->gridHeight = gridHeight;
    s->seed = seed;
    s->threads = std::max(1, threads);
    m_shared = s;
    try {
        s->thread = std::thread(work, s);
    } catch (const std::system_error& e) {
        m_shared.reset();
        return failLater(QStringLiteral("cannot start a worker thread: %1").arg(QString::fromUtf8(e.what())));
    }
    return true;
}

void TeachingSession::stop()
{
    if (m_shared)
        m_shared->stop.requestStop();
}

void TeachingSession::deliverFrame()
{
    if (!m_shared)
        return;
    std::optional<TeachingFrame> frame;
    {
        std::lock_guard<std::mutex> lock(m_shared->mutex);
        frame.swap(m_shared->pending);
        m_shared->framePosted = false;
    }
    if (frame)
        Q_EMIT frameReady(*frame);
}

void TeachingSession::deliverFinished(const QString& status)
{
    // Frames are queued before the end: take a frame still pending (none normally).
    deliverFrame();
    releaseWorker(kStopWaitMs); // the worker has ended or is returning: a join
    m_running = false;
    Q_EMIT finished(status);
}

} // namespace tb::gui
