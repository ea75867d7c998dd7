#include "FitIn.h"

#include <trainbench/testing/TestRunContext.h>

#include <tbb/task_arena.h>

#include <exception>

namespace tb::testsupport {

void fitIn(Trainer& t, const DatasetView& data, RunContext& ctx, int threads)
{
    tbb::task_arena(threads).execute([&] { t.fit(data, ctx); });
}

void fitIn(Trainer& t, const DatasetView& data, RunContext& ctx)
{
    fitIn(t, data, ctx, ctx.threads());
}

void fitIn(Trainer& t, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, RunContext& ctx)
{
    fitIn(t, DatasetView(x, y), ctx, ctx.threads());
}

QString fitError(Trainer& t, const DatasetView& data, int threads)
{
    testing::TestRunContext ctx(1, threads);
    try {
        fitIn(t, data, ctx, threads);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

Eigen::MatrixXd predictIn(const Trainer& t, const Eigen::MatrixXd& x, int threads)
{
    Eigen::MatrixXd out;
    tbb::task_arena(threads).execute([&] { out = t.predict(x); });
    return out;
}

} // namespace tb::testsupport
