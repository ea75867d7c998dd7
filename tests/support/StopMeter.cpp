#include "StopMeter.h"

#include <algorithm>
#include <stdexcept>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <mutex>
#include <set>
#include <thread>

namespace tb::testsupport {

QString WorkAfterStop::describe() const
{
    QString s = QStringLiteral("%1 ms of CPU time").arg(cpuMs, 0, 'f', 1);
    if (asleepMs >= 0)
        s += QStringLiteral(" and %1 ms asleep or blocked").arg(asleepMs, 0, 'f', 1);
    if (otherMs > 0.05)
        s += QStringLiteral(" (and %1 ms on threads that are no part of the call)").arg(otherMs, 0, 'f', 1);
    return s + QStringLiteral(" after Stop (%1 ms wall; the promise: %2 ms)")
                   .arg(wallMs, 0, 'f', 1)
                   .arg(kStopPromiseMs, 0, 'f', 0);
}

ThreadMark ThreadMark::now()
{
    const auto times = threadTimes();
    if (!times)
        throw std::runtime_error("ThreadMark: no /proc/thread-self/schedstat (a kernel without CONFIG_SCHED_INFO)");
    return ThreadMark{*times, std::chrono::steady_clock::now()};
}

StopMeter::StopMeter(std::vector<int> counted, std::vector<int> threadsBefore)
    : m_counted(std::move(counted)), m_before(std::move(threadsBefore)), m_all0(allThreadTimes()),
      m_cpu0(processCpuMs()), m_wall0(std::chrono::steady_clock::now())
{
}

StopMeter::StopMeter(int tid) : m_oneThread(true)
{
    const auto times = threadTimes(tid);
    if (!times)
        throw std::runtime_error("StopMeter: no scheduler account of thread " + std::to_string(tid) +
                                 " (ended, or a kernel without CONFIG_SCHED_INFO)");
    m_times0 = *times;
    m_wall0 = std::chrono::steady_clock::now();
}

WorkAfterStop StopMeter::finish() const
{
    if (m_oneThread)
        throw std::logic_error("StopMeter: a meter of one thread finishes with that thread's ThreadMark");
    WorkAfterStop w;
    const double process = processCpuMs() - m_cpu0;
    const auto all1 = allThreadTimes();
    w.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_wall0).count();
    const auto listed = [](const std::vector<int>& v, int tid) { return std::find(v.begin(), v.end(), tid) != v.end(); };
    // Threads still running: counted when listed; the rest (abandoned by the call, or no part
    // of it) not. What the process spent beyond the running threads went to threads that ended
    // meanwhile: the call's own short-lived threads.
    double running = 0;
    for (const auto& [tid, times] : all1) {
        const auto at0 = m_all0.find(tid);
        const double spent = times.cpuMs - (at0 == m_all0.end() ? 0.0 : at0->second.cpuMs);
        running += spent;
        if (listed(m_counted, tid))
            w.cpuMs += spent;
        else
            w.otherMs += spent;
    }
    w.cpuMs += std::max(0.0, process - running);
    return w;
}

WorkAfterStop StopMeter::finish(const ThreadMark& atReturn) const
{
    if (!m_oneThread)
        throw std::logic_error("StopMeter: finish(ThreadMark) needs the meter of one thread");
    WorkAfterStop w;
    w.cpuMs = atReturn.times.cpuMs - m_times0.cpuMs;
    w.wallMs = std::chrono::duration<double, std::milli>(atReturn.wall - m_wall0).count();
    const double waited = atReturn.times.waitMs - m_times0.waitMs;
    w.asleepMs = std::max(0.0, w.wallMs - w.cpuMs - waited);
    return w;
}

std::vector<int> threadPoolIds()
{
    // A parallel loop long enough for every worker of the default arena to take a task of it.
    std::mutex mutex;
    std::set<int> ids;
    tbb::parallel_for(0, 8 * tbb::info::default_concurrency(), [&](int) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const std::lock_guard lock(mutex);
        ids.insert(currentThreadId());
    });
    ids.erase(currentThreadId());
    return std::vector<int>(ids.begin(), ids.end());
}

} // namespace tb::testsupport
