#pragma once
/// @file RunBudget.h
/// A run's time budget on a chosen clock, and the clock that measures it. The host checks the
/// budget at every checkpoint, the same way for every plugin (RunContext::budgetSpent() lets a
/// trainer whose checkpoints are far apart end at the budget itself). No Qt.

#include <algorithm>
#include <chrono>
#include <ctime>

namespace tb {

/// The clock a budget is measured on.
enum class ClockKind {
    /// Elapsed time: the host's training clock (checkpoint evaluations left out).
    Wall,
    /// CPU time of the process's threads while the run trains (checkpoint evaluations left out):
    /// independent of how busy the machine is, and of every thread the run uses, its own or a
    /// library's. It is the run's own CPU time only when the run is the only one training in
    /// the process (a learning curve, a param sweep with one cell at a time, the teaching view):
    /// cells trained in parallel share the process's threads, so no run's CPU time can be told
    /// apart — the experiment checker refuses a CPU budget there, and a run that met another one
    /// anyway says so in its facts (docs/experiments.md, "Budgets").
    Cpu
};

/// "wall" or "cpu".
inline const char* clockName(ClockKind k)
{
    return k == ClockKind::Cpu ? "cpu" : "wall";
}

/// A run's budget: seconds on a clock; no budget when seconds is 0.
struct RunBudget {
    double seconds = 0;
    ClockKind clock = ClockKind::Wall;
    bool isSet() const { return seconds > 0; }
    bool operator==(const RunBudget&) const = default;
};

/// The keys of a budget, in an experiment file and among an algorithm's parameters (where the
/// host takes them out before the schema sees the rest): seconds, and the clock.
inline constexpr const char* kBudgetSecondsKey = "time_budget_s";
inline constexpr const char* kBudgetClockKey = "time_budget_clock";

/// Measures one run's time on a clock, with pauses (the host's checkpoint evaluations).
/// Not thread-safe: the run's thread starts, pauses and reads it.
class RunClock {
public:
    explicit RunClock(ClockKind kind = ClockKind::Wall) : m_kind(kind) {}

    ClockKind kind() const { return m_kind; }
    /// Starts (or resumes) counting.
    void start()
    {
        if (!m_running) {
            m_since = now(m_kind);
            m_running = true;
        }
    }
    /// Stops counting until the next start().
    void pause()
    {
        if (m_running) {
            m_counted += std::max(0.0, now(m_kind) - m_since);
            m_running = false;
        }
    }
    /// Seconds counted so far.
    double elapsed() const { return m_counted + (m_running ? std::max(0.0, now(m_kind) - m_since) : 0.0); }

    /// Now on @p kind's clock, in seconds from an arbitrary origin: the steady clock, or the
    /// process's CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread of the process).
    static double now(ClockKind kind)
    {
        if (kind == ClockKind::Cpu) {
#if defined(CLOCK_PROCESS_CPUTIME_ID)
            timespec ts{};
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
            return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
#else
            return double(std::clock()) / CLOCKS_PER_SEC;
#endif
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }

private:
    ClockKind m_kind;
    double m_counted = 0;
    double m_since = 0;
    bool m_running = false;
};

} // namespace tb
