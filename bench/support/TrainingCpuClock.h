#pragma once
/// @file TrainingCpuClock.h
/// The process's CPU time spent training, with the host's pauses.

#include "CpuTime.h"

namespace tb::bench {

/// Process CPU time that runs while the host's training clock runs: feed it every
/// RunObserver::trainingClock() call of one run. Meaningful while one run trains in the process
/// at a time. Not thread-safe (the Runner calls trainingClock() from the training thread).
class TrainingCpuClock {
public:
    /// The host's clock started (@p running true) or stopped (false); a repeated stop is ignored.
    void update(bool running)
    {
        const double now = CpuTime::process();
        if (running)
            m_start = now;
        else if (m_running)
            m_seconds += now - m_start;
        m_running = running;
    }
    /// CPU seconds counted so far (up to the last stop).
    double seconds() const { return m_seconds; }

private:
    double m_start = 0;
    double m_seconds = 0;
    bool m_running = false;
};

} // namespace tb::bench
