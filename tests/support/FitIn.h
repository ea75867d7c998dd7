#pragma once
/// @file FitIn.h
/// A trainer's fit() and predict() as the host calls them: inside a TBB arena of a given number
/// of worker threads (the arena the trainer parallelises in).

#include <trainbench/RunContext.h>
#include <trainbench/Trainer.h>

#include <Eigen/Core>
#include <QString>

namespace tb::testsupport {

/// Runs t.fit(data, ctx) inside a tbb::task_arena of @p threads (≥ 1) threads. Exceptions from
/// fit() propagate.
void fitIn(Trainer& t, const DatasetView& data, RunContext& ctx, int threads);
/// The same with ctx.threads() threads.
void fitIn(Trainer& t, const DatasetView& data, RunContext& ctx);
/// The same on DatasetView(x, y) (regression unless the view's default says otherwise) with
/// ctx.threads() threads.
void fitIn(Trainer& t, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, RunContext& ctx);

/// The message of the std::exception fit() throws inside an arena of @p threads threads (with a
/// fresh testing::TestRunContext of seed 1 and @p threads threads), or "" when it returns.
QString fitError(Trainer& t, const DatasetView& data, int threads);

/// t.predict(x) inside a tbb::task_arena of @p threads threads.
Eigen::MatrixXd predictIn(const Trainer& t, const Eigen::MatrixXd& x, int threads);

} // namespace tb::testsupport
