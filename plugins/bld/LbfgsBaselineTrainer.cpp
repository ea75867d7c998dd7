#include "LbfgsBaselineTrainer.h"

#include "BldCost.h"
#include "BldObjective.h"

#include <training/LbfgsDriver.h>
#include <training/MlpObjective.h>
#include <training/Sampling.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::bld {

LbfgsBaselineTrainer::LbfgsBaselineTrainer(BldConfig config)
    : NetworkTrainer("bld"), m_config(std::move(config))
{
    if (m_config.algorithm != Algorithm::Lbfgs)
        throw std::invalid_argument("bld: LbfgsBaselineTrainer runs bld.lbfgs only");
}

void LbfgsBaselineTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const BldConfig& c = m_config;
    checkTrainingData(data, true);
    const Eigen::Index n = data.rows();
    m_net = c.makeNetwork(data.inputs(), data.outputs(), deriveSeed(ctx.seed(), kSeedWeights));
    m_endReason.clear();
    const double rho = c.rho(double(m_net.parameterCount()));
    recordNetwork(ctx);
    ctx.record("rho", rho);
    ctx.record("working_memory_bytes", BldCost(c, {n, data.inputs(), data.outputs(), data.task}).lbfgsMemory());

    const auto start = std::chrono::steady_clock::now();
    const Eigen::MatrixXd xt = train::transposedCopy(data.x);
    const auto owned = makeObjective(m_net, xt, data.y, rho, ctx.stopToken()); // the same f as B2LD
    train::MlpObjective& f = *owned;
    Eigen::VectorXd w = m_net.flatten();
    m_objective = f.value(w);
    if (f.interrupted())
        return;
    auto checkpoint = [&](double epoch, double loss) {
        return ctx.checkpoint(Checkpoint{epoch, loss, {}}) == CheckpointAction::Continue;
    };
    if (!std::isfinite(m_objective)) {
        checkpoint(0, std::numeric_limits<double>::infinity());
        return;
    }
    if (!checkpoint(0, m_objective))
        return;

    train::LbfgsSettings ls;
    ls.memory = c.memory;
    ls.epsilon = 0; // criterion i (gradient_test) is checked in the callback
    ls.maxIterations = c.iterations;
    ls.lineSearch = c.strongWolfe ? train::LbfgsSettings::LineSearch::StrongWolfe
                                  : train::LbfgsSettings::LineSearch::Armijo;
    const train::LbfgsDriver driver(ls, ctx.stopToken());
    double windowStart = m_objective;
    int lastCheckpoint = 0;
    bool hostStop = false;
    const train::LbfgsReport rep = driver.minimise(f, w, [&](const train::LbfgsIterate& it) {
        m_objective = it.value;
        if (it.iteration == std::min(c.decreaseWindow, c.iterations))
            ctx.record("first_window_seconds",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (c.gradientConverged(it.gradient.norm(), it.w))
            m_endReason = QStringLiteral("gradient");
        else if (it.iteration % c.decreaseWindow == 0) {
            if (c.relativeDecrease > 0 && (windowStart - it.value) / std::max(windowStart, 1.0) <= c.relativeDecrease)
                m_endReason = QStringLiteral("relative decrease");
            windowStart = it.value;
        }
        if (m_endReason.isEmpty() && ctx.budgetSpent())
            m_endReason = QStringLiteral("time limit");
        if (it.iteration % c.checkpointEvery == 0 || !m_endReason.isEmpty()) {
            m_net.unflatten(it.w); // the accepted point (a line search may end on another)
            lastCheckpoint = it.iteration;
            if (!checkpoint(it.iteration, it.value)) {
                // The host answers Stop at the budget: that is the time limit, not a Stop.
                if (ctx.budgetSpent()) {
                    if (m_endReason.isEmpty())
                        m_endReason = QStringLiteral("time limit");
                    return false;
                }
                hostStop = true;
                return false;
            }
        }
        return m_endReason.isEmpty();
    });
    m_net.unflatten(w); // predict() must describe the accepted weights
    ctx.record("function_evaluations", double(rep.evaluations));
    ctx.record("iterations_done", rep.iterations);
    if (hostStop || rep.outcome == train::LbfgsOutcome::Stopped) {
        m_endReason = QStringLiteral("stopped");
        return;
    }
    switch (rep.outcome) {
    case train::LbfgsOutcome::NonFinite:
        ctx.log(QStringLiteral("L-BFGS: the objective is not finite in iteration %1").arg(rep.failedAt));
        checkpoint(rep.failedAt, std::numeric_limits<double>::infinity());
        return;
    case train::LbfgsOutcome::LineSearchFailed:
        m_endReason = QStringLiteral("line search");
        ctx.record("line_search", QString::fromStdString(rep.lineSearchError));
        break;
    case train::LbfgsOutcome::NoProgress:
        m_endReason = QStringLiteral("no progress");
        break;
    case train::LbfgsOutcome::IterationLimit:
        m_endReason = QStringLiteral("iterations");
        break;
    default:
        break;
    }
    m_objective = rep.value;
    ctx.record("end_reason", m_endReason);
    if (lastCheckpoint != rep.iterations)
        checkpoint(rep.iterations, rep.value);
}

QJsonObject LbfgsBaselineTrainer::predictCost(const ProblemShape& shape) const
{
    const BldCost cost(m_config, shape);
    return QJsonObject{{"flops", cost.lbfgsWindowFlops()},
                       {"scope", QStringLiteral("first window")},
                       {"scope_measured_key", QStringLiteral("first_window_seconds")},
                       {"memory_bytes", cost.lbfgsMemory()},
                       {"model_bytes", cost.modelBytes()}};
}

} // namespace tb::bld
