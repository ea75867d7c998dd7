#include "StopMeter.h"

#include <algorithm>
#include <stdexcept>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <thread>

namespace tb::testsupport {

QString WorkAfterStop::describe() const
{
    QString s = QStringLiteral("%1 ms of CPU time").arg(cpuMs, 0, 'f', 1);
    if (asleepMs >= 0)
        s += QStringLiteral(" and %1 ms asleep or blocked").arg(asleepMs, 0, 'f', 1);
    if (abandonedMs > 0)
        s += QStringLiteral(" (and %1 ms on threads not counted)").arg(abandonedMs, 0, 'f', 1);
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

StopMeter::StopMeter(std::vector<int> threadsBeforeTheCall, std::vector<int> notCounted)
    : m_before(std::move(threadsBeforeTheCall)), m_notCounted(std::move(notCounted)), m_all0(allThreadTimes()),
      m_cpu0(processCpuMs()),
      m_wall0(std::chrono::steady_clock::now())
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
    const double cpu = processCpuMs();
    w.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_wall0).count();
    // Threads started after the meter's "before" list and still running (abandoned work), and
    // the threads not to count.
    const auto listed = [](const std::vector<int>& v, int tid) { return std::find(v.begin(), v.end(), tid) != v.end(); };
    for (const auto& [tid, times] : allThreadTimes()) {
        if (listed(m_before, tid) && !listed(m_notCounted, tid))
            continue;
        const auto at0 = m_all0.find(tid);
        w.abandonedMs += times.cpuMs - (at0 == m_all0.end() ? 0.0 : at0->second.cpuMs);
    }
    w.cpuMs = cpu - m_cpu0 - w.abandonedMs;
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

void startThreadPool()
{
    // A parallel loop long enough for every worker of the default arena to join it.
    tbb::parallel_for(0, 4 * tbb::info::default_concurrency(),
                      [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(1)); });
}

} // namespace tb::testsupport
