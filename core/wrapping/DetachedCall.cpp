#include "DetachedCall.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace tb::wrap {
namespace {

// What a run() and its thread share. Owned jointly: whichever lets go last frees it.
struct Shared {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;        // the work returned (or threw) and was destroyed
    std::exception_ptr error; // the work's exception, for the waiter
    std::string output;       // printed text the waiter has not taken yet
    std::atomic<bool> abandoned{false};
    bool unwind = true; // Abandon::Unwind; set before the thread starts
};

// Thrown through the library's frames on an abandoned thread. Deliberately not a
// std::exception: nothing on the way may mistake it for an error and handle it.
struct AbandonedSignal {};

thread_local Shared* t_shared = nullptr;
// Trivially destructible: an abandoned thread may still count down while the process exits.
std::atomic<int> g_live{0};

} // namespace

DetachedCall::Outcome DetachedCall::run(std::function<void()> work, const StopToken& stop,
                                        const std::function<void(const QString&)>& onLine, Abandon abandon,
                                        std::chrono::milliseconds poll)
{
    if (stop.stopRequested())
        return Outcome::Abandoned;
    auto shared = std::make_shared<Shared>();
    shared->unwind = abandon == Abandon::Unwind;
    g_live.fetch_add(1);
    try {
        std::thread([shared, work = std::move(work)]() mutable {
            t_shared = shared.get();
            try {
                work();
            } catch (const AbandonedSignal&) {
                // Unwound on purpose: nobody waits for the result.
            } catch (...) {
                std::lock_guard lock(shared->mutex);
                shared->error = std::current_exception();
            }
            // Free what the work owns (the problem copy, an unused result) here and now, not
            // whenever the last reference to the lambda happens to go.
            work = nullptr;
            t_shared = nullptr;
            {
                std::lock_guard lock(shared->mutex);
                shared->done = true;
            }
            shared->cv.notify_all();
            g_live.fetch_sub(1);
        }).detach();
    } catch (...) {
        g_live.fetch_sub(1);
        throw;
    }

    std::string partial; // the start of a line whose newline has not come yet
    auto deliver = [&](const std::string& text, bool last) {
        partial += text;
        std::size_t start = 0;
        for (std::size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1)
            onLine(QString::fromLocal8Bit(partial.data() + start, qsizetype(nl - start)));
        partial.erase(0, start);
        if (last && !partial.empty())
            onLine(QString::fromLocal8Bit(partial));
    };

    std::unique_lock lock(shared->mutex);
    for (;;) {
        shared->cv.wait_for(lock, poll, [&] { return shared->done; });
        const bool done = shared->done;
        std::string text;
        text.swap(shared->output);
        std::exception_ptr error = shared->error;
        lock.unlock();
        deliver(text, done);
        if (done) {
            if (error)
                std::rethrow_exception(error);
            return Outcome::Finished;
        }
        if (stop.stopRequested()) {
            shared->abandoned.store(true);
            return Outcome::Abandoned;
        }
        lock.lock();
    }
}

void DetachedCall::print(const char* text)
{
    Shared* s = t_shared;
    if (!s || !text)
        return;
    if (s->abandoned.load(std::memory_order_relaxed)) {
        if (s->unwind)
            throw AbandonedSignal{};
        return; // nobody reads it any more
    }
    std::lock_guard lock(s->mutex);
    s->output += text;
}

bool DetachedCall::abandoned()
{
    const Shared* s = t_shared;
    return s && s->abandoned.load(std::memory_order_relaxed);
}

void DetachedCall::throwIfAbandoned()
{
    if (abandoned())
        throw AbandonedSignal{};
}

int DetachedCall::liveThreads()
{
    return g_live.load();
}

} // namespace tb::wrap
