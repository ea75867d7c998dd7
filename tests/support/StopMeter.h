#pragma once
/// @file StopMeter.h
/// Stop checks that fail only for real reasons. The promise (Trainer::fit(), StopToken, every
/// stoppable kernel) is that Stop takes effect within 200 ms. The wall time from Stop to return
/// is that promise only on an idle machine: with other jobs on the cores it grows with their
/// load, whatever the code does. What the code controls is the work it does after the flag is
/// set — how long it runs on before its next poll, and that it returns then — and that work,
/// measured in CPU time, is the same on a busy machine as on an idle one. So a test asserts that
/// the call was interrupted (its status, its result flag) and that the CPU time spent after Stop
/// is within the promise (withinPromise()); the wall time is reported, never asserted. The
/// latency in wall time is measured by bench/stop_latency on a quiet machine.

#include "CpuTime.h"

#include <trainbench/StopToken.h>

#include <QString>
#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <vector>
#include <optional>
#include <type_traits>

namespace tb::testsupport {

/// Stop's promise: a requested stop takes effect within this many milliseconds.
inline constexpr double kStopPromiseMs = 200.0;

/// The work done between a Stop request and the return of the call it stopped.
struct WorkAfterStop {
    double cpuMs = 0;    ///< CPU time of the measured threads after Stop
    double wallMs = 0;   ///< wall time after Stop: reported, never asserted
    double asleepMs = -1; ///< one thread measured: the wall time it neither ran nor waited for a CPU
                          ///< (sleeping, blocked) after Stop; −1 when every thread is measured
    double otherMs = 0;   ///< several threads measured: CPU time after Stop of the threads that do
                          ///< not count (not in cpuMs; StopMeter says which)

    /// True when the work after Stop is within kStopPromiseMs. Every thread measured: the CPU
    /// time after Stop, summed over the threads that ran, is at most the promise — on an idle
    /// machine that work is what the caller waits for (when nothing sleeps), on a busy one it
    /// stays the same. One thread measured: its CPU time plus the time it slept or was blocked,
    /// i.e. its wall time without the time it waited for a CPU (which is what other jobs add),
    /// is at most the promise — so a thread that sleeps long before its next poll fails too.
    bool withinPromise() const { return cpuMs + std::max(asleepMs, 0.0) <= kStopPromiseMs; }
    /// "12.3 ms of CPU time after Stop (45.6 ms wall; the promise: 200 ms)".
    QString describe() const;
};

/// A thread's scheduler account and the wall clock at one moment, taken on that thread
/// (ThreadMark::now()), e.g. as a stopped call returns on it.
struct ThreadMark {
    ThreadTimes times;
    std::chrono::steady_clock::time_point wall;
    /// The calling thread's mark. Throws std::runtime_error when the kernel keeps no scheduler
    /// account of threads (CONFIG_SCHED_INFO).
    static ThreadMark now();
};

/// Measures the work after Stop: construct it right before requesting Stop, call finish() once
/// the stopped call has returned.
///
/// The threads that count are the ones that can work for the call: those given (the thread
/// that runs the call and TBB's worker threads — threadPoolIds() — or, in a GUI test, every
/// thread but the GUI thread), and threads started after @c threadsBefore that ended by
/// finish(). Threads started since and still running are work the call abandoned on a thread
/// of its own by design (wrap::DetachedCall, the eigen route of the least-squares solver), which
/// goes on after the call and is not what Stop waits for; other threads (say, a library call an
/// earlier test abandoned) are no part of the call. Neither counts (WorkAfterStop::otherMs).
///
/// Given one thread id instead (currentThreadId() on that thread, which must still be running),
/// only that thread counts, and that thread takes a ThreadMark as the call returns, for
/// finish(mark).
class StopMeter {
public:
    /// Threads @p counted count, and those started after @p threadsBefore (threadIds()) that
    /// ended by finish().
    StopMeter(std::vector<int> counted, std::vector<int> threadsBefore);
    /// Only thread @p tid counts. Throws std::runtime_error when the kernel keeps no account of it.
    explicit StopMeter(int tid);
    /// The work from construction until now (the meter of one thread throws).
    WorkAfterStop finish() const;
    /// The work of the one thread, until it took @p atReturn.
    WorkAfterStop finish(const ThreadMark& atReturn) const;

private:
    bool m_oneThread = false;
    ThreadTimes m_times0;
    std::vector<int> m_counted, m_before;
    std::map<int, ThreadTimes> m_all0;
    double m_cpu0 = 0;
    std::chrono::steady_clock::time_point m_wall0;
};

/// Starts TBB's pool of worker threads (default concurrency) if it is not running yet and
/// returns their ids (the threads that ran a task of a parallel loop long enough for all).
std::vector<int> threadPoolIds();

/// When runAndStop() requests Stop: once @c ready() is true (when given; waited for at most
/// @c readyCpuMs of the process's CPU time), then after a further @c cpuMs of CPU time. Counted
/// in CPU time, the Stop lands at the same point of the work however busy the machine is.
/// @c callingThread: measure only the thread that runs the call (for calls that leave work
/// running on a thread of their own after Stop, by design); else every thread of the process.
/// @c beforeStop, when given, runs right before Stop is requested (e.g. to note how many units
/// of work were done by then, so that the test can count those done after the flag).
struct StopWhen {
    double cpuMs = 100;
    std::function<bool()> ready = {};
    double readyCpuMs = 1000;
    bool callingThread = false;
    std::function<void()> beforeStop = {};
};

/// What runAndStop() saw.
template <class R>
struct StoppedCall {
    R value;                      ///< what the call returned
    bool endedBeforeStop = false; ///< the call returned before Stop (which then proves nothing)
    WorkAfterStop after;          ///< the work after Stop
};

/// Runs @p call on a thread of its own, requests Stop through @p stop as @p when says, and
/// measures the work done until @p call returns. @p call must return a value (e.g. the stopped
/// call's report or status).
template <class Call>
StoppedCall<std::invoke_result_t<Call&>> runAndStop(StopSource& stop, const StopWhen& when, Call call)
{
    using R = std::invoke_result_t<Call&>;
    static_assert(!std::is_void_v<R>, "runAndStop: the call must return a value");
    std::promise<int> tidPromise;
    ThreadMark atReturn;
    const std::vector<int> pool = threadPoolIds();
    const std::vector<int> threadsBefore = threadIds();
    const double c0 = processCpuMs();
    std::future<R> fut = std::async(std::launch::async, [&] {
        tidPromise.set_value(currentThreadId());
        R r = call();
        if (when.callingThread)
            atReturn = ThreadMark::now();
        return r;
    });
    const int tid = tidPromise.get_future().get();
    const auto ended = [&] { return fut.wait_for(std::chrono::seconds(0)) == std::future_status::ready; };
    double from = c0;
    if (when.ready) {
        waitForCpu(c0, when.readyCpuMs, [&] { return ended() || when.ready(); });
        from = processCpuMs();
    }
    waitForCpu(from, when.cpuMs, ended);
    const bool before = ended();
    const std::optional<StopMeter> oneThread = when.callingThread && !before ? std::optional<StopMeter>(StopMeter(tid))
                                                                              : std::nullopt;
    if (when.beforeStop)
        when.beforeStop();
    std::vector<int> counted = pool;
    counted.push_back(tid);
    const StopMeter everyThread(counted, threadsBefore);
    stop.requestStop();
    R value = fut.get();
    return StoppedCall<R>{std::move(value), before, oneThread ? oneThread->finish(atReturn) : everyThread.finish()};
}

} // namespace tb::testsupport
