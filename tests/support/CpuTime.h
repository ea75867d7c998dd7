#pragma once
/// @file CpuTime.h
/// CPU time, for tests that must hold on a machine busy with other jobs: the CPU time a piece
/// of work takes does not grow when other processes share the cores, its wall time does.

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <vector>
#include <pthread.h>

namespace tb::testsupport {

/// CPU time used so far by every thread of this process, in milliseconds
/// (CLOCK_PROCESS_CPUTIME_ID: user and system time, to the nanosecond).
double processCpuMs();

/// CPU time used so far by the thread @p thread of this process (e.g. a std::thread's
/// native_handle(); pthread_self() for the calling thread), in milliseconds.
double threadCpuMs(pthread_t thread);

/// The calling thread's kernel id (gettid()), for threadTimes().
int currentThreadId();

/// One thread's scheduler account so far (Linux /proc/self/task/<tid>/schedstat): the time it
/// ran and the time it was ready to run but waited for a CPU — which grows with the load of
/// other jobs, where the rest of its wall time (sleeping, blocked) does not.
struct ThreadTimes {
    double cpuMs = 0;  ///< time on a CPU
    double waitMs = 0; ///< time runnable, waiting for a CPU
};
/// The scheduler account of thread @p tid of this process (0 = the calling thread); nullopt
/// when the kernel keeps none (no CONFIG_SCHED_INFO) or the thread has ended.
std::optional<ThreadTimes> threadTimes(int tid = 0);

/// The kernel ids of this process's threads now (/proc/self/task).
std::vector<int> threadIds();
/// The scheduler account of every thread of this process now, by kernel id (threads the kernel
/// keeps no account of are left out).
std::map<int, ThreadTimes> allThreadTimes();

/// Blocks until this process has used @p ms of CPU time more than @p sinceMs (a processCpuMs()
/// value), until @p done returns true (checked first, then every millisecond), or until
/// @p wallLimit has passed — whichever comes first. Returns true when the CPU time was reached.
/// The waiting itself costs next to no CPU time. A delay counted in CPU time lands at the same
/// point of the work however many other jobs share the cores, where a delay in wall time lands
/// earlier on a busy machine.
bool waitForCpu(double sinceMs, double ms, const std::function<bool()>& done = {},
                std::chrono::milliseconds wallLimit = std::chrono::minutes(2));

/// Blocks until @p condition returns true (checked first, then every 5 ms) or @p limit has
/// passed; returns the condition's last value. For conditions that become true on their own
/// (a thread ending); @p limit guards against a hang, it is not a latency figure.
bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit = std::chrono::minutes(1));

} // namespace tb::testsupport
