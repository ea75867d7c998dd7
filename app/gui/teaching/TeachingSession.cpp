#include "TeachingSession.h"

#include "DecisionRegionWidget.h"

#include <engine/PluginRegistry.h>
#include <engine/Runner.h>
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
    std::atomic<int> paceMs{0};
    std::atomic<bool> paused{false};
    std::atomic<double> stepUntil{-1};      // while paused: go on until this epoch
    std::atomic<double> heldAt{std::numeric_limits<double>::quiet_NaN()}; // the epoch Pause holds

    // Set before the thread starts, then only used by it.
    const PluginRegistry* registry = nullptr;
    RunJob job;
    Eigen::MatrixXd grid;
    int gridWidth = 0, gridHeight = 0;
    TeachingSession::PaceClock clock;       // complete: the session's or the default

    Clock::time_point now() const { return clock.now(); }

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
        if (pending) // an undelivered frame is replaced: its checkpoints still reach the curves
            frame.points = pending->points + frame.points;
        pending = std::move(frame);
        if (!framePosted) {
            framePosted = true;
            TeachingSession* s = session;
            QMetaObject::invokeMethod(s, [s] { s->deliverFrame(); }, Qt::QueuedConnection);
        }
    }
};

namespace detail {

/// Sees the model at every checkpoint of the engine's run: paces, pauses, renders frames.
class TeachingObserver final : public RunObserver {
public:
    explicit TeachingObserver(TeachingSession::Shared& s) : m_s(s) {}

    void modelReady(const RunJob&, const Trainer& trainer, const MetricPoint& p, const QJsonObject& facts,
                    bool final) override
    {
        if (!final)
            m_points.append(p);
        const auto now = m_s.now();
        const bool due = final || m_frames == 0 ||
                         now - m_lastFrame >= std::chrono::milliseconds(TeachingSession::minFrameIntervalMs);
        bool shown = false;
        if (due)
            shown = render(trainer, p, facts, final);
        if (final)
            return;
        waitForPace(p.epoch);
        // Held by Pause: the picture must be of the model it holds, so show this checkpoint first.
        if (holding(p.epoch)) {
            if (!shown)
                render(trainer, p, facts, false);
            m_s.heldAt = p.epoch;
            while (holding(p.epoch) && !m_s.stop.stopRequested())
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            m_s.heldAt = std::numeric_limits<double>::quiet_NaN();
        }
        m_lastEpochEnd = m_s.now();
    }

    void runFinished(const RunJob&, const RunResult& r) override
    {
        switch (r.status) {
        case RunStatus::Finished: m_status = QStringLiteral("finished"); break;
        case RunStatus::Cancelled: m_status = QStringLiteral("cancelled"); break;
        case RunStatus::Diverged: m_status = QStringLiteral("diverged"); break;
        default: m_status = QStringLiteral("failed: ") + r.error; break;
        }
    }
    QString status() const { return m_status; }

private:
    bool render(const Trainer& trainer, const MetricPoint& p, const QJsonObject& facts, bool final)
    {
        if (!m_s.alive())
            return false;
        TeachingFrame f;
        f.epoch = p.epoch;
        f.trainAccuracy = p.trainAccuracy;
        f.testAccuracy = p.testAccuracy;
        f.loss = p.loss;
        f.trainSeconds = p.trainTime;
        f.region = DecisionRegionWidget::renderRegion(trainer.predict(m_s.grid), m_s.gridWidth, m_s.gridHeight);
        f.layerSolves = facts.value(QLatin1String("layer_solves")).toArray();
        f.network = facts.value(QLatin1String("network")).toString();
        if (facts.value(QLatin1String("best_epoch")).isDouble())
            f.keptEpoch = facts.value(QLatin1String("best_epoch")).toDouble();
        f.final = final;
        f.points.swap(m_points);
        m_s.publish(std::move(f));
        m_lastFrame = m_s.now();
        ++m_frames;
        return true;
    }

    // Wall time per epoch at least the pace. The wait polls Stop every 20 ms, so Stop keeps its
    // 200 ms.
    void waitForPace(double epoch)
    {
        const int pace = m_s.paceMs.load();
        if (pace > 0 && m_lastEpochEnd) {
            const double epochs = std::max(0.0, epoch - m_lastEpoch);
            const auto until = *m_lastEpochEnd + std::chrono::microseconds(qint64(1000.0 * pace * epochs));
            for (auto now = m_s.now(); now < until && !m_s.stop.stopRequested(); now = m_s.now())
                m_s.clock.sleepFor(std::min<Clock::duration>(until - now, std::chrono::milliseconds(20)));
        }
        m_lastEpoch = epoch;
    }

    // Paused, and not stepping past this epoch.
    bool holding(double epoch) const { return m_s.paused.load() && epoch >= m_s.stepUntil.load(); }

    TeachingSession::Shared& m_s;
    Clock::time_point m_lastFrame;
    std::optional<Clock::time_point> m_lastEpochEnd;
    double m_lastEpoch = 0;
    int m_frames = 0;
    QVector<MetricPoint> m_points; // checkpoints not yet in a frame
    QString m_status = QStringLiteral("failed: the run did not end");
};

} // namespace detail

namespace {

void work(std::shared_ptr<TeachingSession::Shared> s)
{
    QString status;
    {
        detail::TeachingObserver observer(*s);
        // The engine's run execution: its clock, its divergence check, its failure handling.
        tbb::task_arena arena(s->job.threads);
        arena.execute([&] { Runner(*s->registry, nullptr).execute(s->job, s->stop, &observer); });
        status = observer.status();
    }
    s->job.data.reset();
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
    // Parameters are normalised and checked by the engine's Runner: an invalid one ends the run
    // "failed: <message naming the key>" like any experiment's run.
    s->registry = &m_registry;
    s->job.algorithmId = algorithmId;
    s->job.label = algorithmId;
    s->job.params = params;
    s->job.seed = seed;
    s->job.data = std::move(data);
    s->job.threads = std::max(1, threads);
    s->job.logToStore = false; // demonstrations: nothing is stored
    s->job.datasetDescription = QStringLiteral("teaching");
    s->grid = DecisionRegionWidget::gridPoints(bounds, gridWidth, gridHeight);
    s->gridWidth = gridWidth;
    s->gridHeight = gridHeight;
    s->paceMs = m_pace;
    s->paused = m_paused;
    s->clock.now = m_clock.now ? m_clock.now : [] { return Clock::now(); };
    s->clock.sleepFor = m_clock.sleepFor ? m_clock.sleepFor : [](Clock::duration d) { std::this_thread::sleep_for(d); };
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

void TeachingSession::setPace(int msPerEpoch)
{
    m_pace = std::clamp(msPerEpoch, 0, 10000);
    if (m_shared)
        m_shared->paceMs = m_pace;
}

int TeachingSession::pace() const
{
    return m_pace;
}

void TeachingSession::setPaused(bool on)
{
    m_paused = on;
    if (m_shared) {
        m_shared->stepUntil = -1;
        m_shared->paused = on;
    }
}

bool TeachingSession::isPaused() const
{
    return m_paused;
}

void TeachingSession::step()
{
    if (m_shared && m_paused)
        m_shared->stepUntil = m_lastEpoch + 1;
}

double TeachingSession::heldEpoch() const
{
    return m_shared ? m_shared->heldAt.load() : std::numeric_limits<double>::quiet_NaN();
}

void TeachingSession::setPaceClock(PaceClock clock)
{
    m_clock = std::move(clock);
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
    if (frame) {
        m_lastEpoch = frame->epoch;
        Q_EMIT frameReady(*frame);
    }
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
