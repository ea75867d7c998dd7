#include "CellExecutor.h"

#include <atomic>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tb {

void LocalCellExecutor::run(CellPlan& plan)
{
    std::atomic<int> next{0};
    auto claim = [&] {
        for (;;) {
            const int i = next++;
            if (i >= plan.count)
                return -1;
            if (plan.skip.empty() || !plan.skip[size_t(i)])
                return i;
        }
    };
    plan.arena->execute([&] {
        tbb::parallel_for(0, std::max(1, plan.atOnce), [&](int) {
            for (int i = claim(); i >= 0 && !plan.stop->stopRequested(); i = claim())
                plan.done(i, plan.work(i, plan.log, plan.observer));
        }, tbb::simple_partitioner());
    });
}

} // namespace tb
