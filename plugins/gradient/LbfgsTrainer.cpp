#include "LbfgsTrainer.h"

#include <training/LbfgsDriver.h>
#include <training/MlpObjective.h>
#include <training/Sampling.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <tbb/task_arena.h>

namespace tb::gradient {

LbfgsTrainer::LbfgsTrainer(GradientConfig config) : NetworkTrainer("gradient"), m_config(std::move(config))
{
    if (!m_config.kind.lbfgs)
        throw std::invalid_argument("gradient: LbfgsTrainer runs L-BFGS only");
}

void LbfgsTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const GradientConfig& c = m_config;
    checkTrainingData(data, false);
    const Eigen::Index n = data.rows();
    const num::MlpLoss loss = c.resolveLoss(data.task);
    m_net = c.makeNetwork(data.inputs(), data.outputs(), data.task, deriveSeed(ctx.seed(), kSeedWeights));
    const Eigen::MatrixXd xt = train::transposedCopy(data.x);
    // f(w) = mean loss + λ/2·‖w‖² over every weight: the whole network is one block.
    train::MlpObjective f(m_net, loss, xt, data.y, double(n), c.weightDecay, ctx.stopToken());
    recordNetwork(ctx);

    const train::LbfgsDriver driver(c.lbfgs, ctx.stopToken());

    Eigen::VectorXd w = m_net.flatten();
    const train::LbfgsReport report = driver.minimise(f, w, [&](const train::LbfgsIterate& it) {
        m_net.unflatten(it.w);
        return ctx.checkpoint(Checkpoint{double(it.iteration), it.value, {}}) == CheckpointAction::Continue;
    });
    m_net.unflatten(w);  // predict() must describe the accepted weights
    auto finish = [&] { ctx.record("function_evaluations", double(report.evaluations)); };
    switch (report.outcome) {
    case train::LbfgsOutcome::Stopped:
        return;
    case train::LbfgsOutcome::NonFinite: {
        const int at = report.failedAt;
        ctx.log(QStringLiteral("diverged in iteration %1: the objective is %2").arg(at).arg(report.value));
        ctx.record("diverged_at_epoch", at);
        // Infinite loss: the host marks the run diverged at this iteration.
        ctx.checkpoint(Checkpoint{double(at), std::numeric_limits<double>::infinity(), {}});
        return;
    }
    case train::LbfgsOutcome::LineSearchFailed: {
        // Nothing better than the last accepted point: keep it and end there, saying why.
        const QString why = QString::fromStdString(report.lineSearchError);
        ctx.log(QStringLiteral("L-BFGS line search stopped in iteration %1: %2").arg(report.failedAt).arg(why));
        ctx.record("line_search", why);
        finish();
        ctx.checkpoint(Checkpoint{double(report.failedAt), report.value, {}});
        return;
    }
    case train::LbfgsOutcome::Converged:
        ctx.record("converged_at_iteration", report.iterations);
        finish();
        if (report.iterations == 0)
            ctx.checkpoint(Checkpoint{0.0, report.value, {}});
        return;
    case train::LbfgsOutcome::NoProgress:
        ctx.log(QStringLiteral("L-BFGS: iteration %1 changed no weight; ending at the numerical minimum")
                    .arg(report.iterations));
        finish();
        return;
    case train::LbfgsOutcome::Halted:
    case train::LbfgsOutcome::SmallDecrease:
    case train::LbfgsOutcome::IterationLimit:
        finish();
        return;
    }
}

QJsonObject LbfgsTrainer::predictCost(const ProblemShape& shape) const
{
    return QJsonObject{{"flops_per_evaluation", 6.0 * m_config.weightCount(shape.inputs, shape.outputs) *
                                                    double(shape.rows)},
                       {"memory_bytes", m_config.workingMemoryBytes(shape.inputs, shape.outputs, shape.rows,
                                                                    tbb::this_task_arena::max_concurrency())}};
}

} // namespace tb::gradient
