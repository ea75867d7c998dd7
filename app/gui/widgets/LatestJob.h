#pragma once
/// @file LatestJob.h
/// Work for a widget done on QThreadPool::globalInstance(), the newest job's result handed back on
/// the widget's thread.

#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace tb::gui {

/// Runs jobs off the GUI thread for @p owner and delivers only the newest one's result, on the
/// owner's thread: start() supersedes every job before it (a superseded job still queued does not
/// run; one running finishes and its result is dropped). The application waits for the pool's
/// tasks on exit. wait() blocks until no job runs — what an owner calls before anything a job
/// reads (a store) goes away. GUI thread only, apart from the jobs themselves.
template <typename Result>
class LatestJob {
public:
    /// @p deliver is called on @p owner's thread with the newest job's result; never after
    /// @p owner is destroyed.
    LatestJob(QObject* owner, std::function<void(Result)> deliver)
        : m_owner(owner), m_deliver(std::move(deliver)), m_shared(std::make_shared<Shared>())
    {
    }
    ~LatestJob()
    {
        supersede();
        wait();
    }
    LatestJob(const LatestJob&) = delete;
    LatestJob& operator=(const LatestJob&) = delete;

    /// Runs @p work on the pool; its result is delivered unless another start() or supersede()
    /// comes first.
    void start(std::function<Result()> work)
    {
        const quint64 generation = ++m_generation;
        m_shared->latest = generation;
        {
            const std::lock_guard lock(m_shared->mutex);
            ++m_shared->running;
        }
        QThreadPool::globalInstance()->start([shared = m_shared, generation, work = std::move(work),
                                              owner = QPointer<QObject>(m_owner), this] {
            if (shared->latest == generation) { // else superseded while queued: the newer job reports
                Result r = work();
                if (shared->latest == generation && owner)
                    QMetaObject::invokeMethod(
                        owner.data(),
                        [this, shared, generation, r = std::move(r)]() mutable {
                            // Still the newest, and this LatestJob still alive (its destructor
                            // supersedes first): deliver.
                            if (shared->latest == generation && m_generation == generation) {
                                m_generation = 0;
                                m_busy = false;
                                m_deliver(std::move(r));
                            }
                        },
                        Qt::QueuedConnection);
            }
            const std::lock_guard lock(shared->mutex);
            --shared->running;
            shared->done.notify_all();
        });
        m_busy = true;
    }
    /// Drops the results of every job started so far.
    void supersede()
    {
        m_shared->latest = ++m_generation;
        m_busy = false;
    }
    /// True from start() until the newest job's result is delivered (or supersede()).
    bool isBusy() const { return m_busy; }
    /// Blocks until no job of this LatestJob runs or waits in the pool's queue.
    void wait()
    {
        std::unique_lock lock(m_shared->mutex);
        m_shared->done.wait(lock, [&] { return m_shared->running == 0; });
    }

private:
    struct Shared {
        std::mutex mutex;
        std::condition_variable done;
        int running = 0;                ///< jobs started and not yet ended
        std::atomic<quint64> latest{0}; ///< generation of the newest job
    };

    QObject* m_owner;
    std::function<void(Result)> m_deliver;
    std::shared_ptr<Shared> m_shared;
    quint64 m_generation = 0;
    bool m_busy = false;
};

} // namespace tb::gui
