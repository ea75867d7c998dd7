#include "BudgetClock.h"

#include <ctime>

namespace tb::bld {

double BudgetClock::now(TimeClock kind)
{
    if (kind == TimeClock::Cpu) {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void BudgetClock::start()
{
    m_start = now(m_kind);
    m_paused = 0;
}

double BudgetClock::elapsed() const
{
    return now(m_kind) - m_start - m_paused;
}

CheckpointAction BudgetClock::checkpoint(RunContext& ctx, const Checkpoint& cp)
{
    const double t0 = now(m_kind);
    const CheckpointAction a = ctx.checkpoint(cp);
    m_paused += now(m_kind) - t0;
    return a;
}

} // namespace tb::bld
