#pragma once
/// @file BudgetClock.h
/// The training time of a run as the trainer itself can measure it, for the paper's time
/// limits: wall or process CPU time, with the host's checkpoints left out.

#include "BldConfig.h"

#include <trainbench/Trainbench.h>

#include <chrono>

namespace tb::bld {

/// Measures time from start(), excluding the time spent inside checkpoint() — the host
/// evaluates the model and logs there with its own training clock stopped, so on the wall
/// clock this is the host's training time. Not thread-safe: the trainer's thread only.
class BudgetClock {
public:
    /// @p limit seconds (0 = none) on @p kind.
    BudgetClock(TimeClock kind, double limit) : m_kind(kind), m_limit(limit) {}

    void start();
    /// Seconds counted since start().
    double elapsed() const;
    /// True when a limit is set and elapsed() reached it.
    bool expired() const { return m_limit > 0 && elapsed() >= m_limit; }
    double limit() const { return m_limit; }

    /// ctx.checkpoint(cp) with the clock paused meanwhile.
    CheckpointAction checkpoint(RunContext& ctx, const Checkpoint& cp);

    /// Now on @p kind's clock, in seconds (process CPU time or steady wall time).
    static double now(TimeClock kind);

private:
    TimeClock m_kind;
    double m_limit;
    double m_start = 0;
    double m_paused = 0;
};

} // namespace tb::bld
