#pragma once
/// @file CpuTime.h
/// CPU clocks for benchmarks on a shared machine, where wall time measures the load as much as
/// the work.

#include <ctime>

namespace tb::bench {

/// CPU time in seconds since an unspecified start. Thread-safe.
class CpuTime {
public:
    /// CPU time of the whole process: every thread, user and system (CLOCK_PROCESS_CPUTIME_ID).
    static double process() { return read(CLOCK_PROCESS_CPUTIME_ID); }
    /// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID).
    static double thread() { return read(CLOCK_THREAD_CPUTIME_ID); }

private:
    static double read(clockid_t clock)
    {
        timespec ts{};
        clock_gettime(clock, &ts);
        return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
    }
};

} // namespace tb::bench
