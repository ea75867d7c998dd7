#pragma once
/// @file Stopwatch.h
/// Wall-clock intervals (steady clock).

#include <chrono>

namespace tb::bench {

/// Seconds since construction or the last restart(), on the steady clock. A value type; not
/// thread-safe.
class Stopwatch {
public:
    using Clock = std::chrono::steady_clock;

    Stopwatch() : m_start(Clock::now()) {}
    void restart() { m_start = Clock::now(); }
    double seconds() const { return since(m_start); }

    /// Seconds from @p t0 to now.
    static double since(Clock::time_point t0)
    {
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }

private:
    Clock::time_point m_start;
};

} // namespace tb::bench
