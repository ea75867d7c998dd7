#include "IncrementalTrainer.h"

#include "BldCost.h"
#include "BldObjective.h"
#include "LayerwisePass.h"

#include <training/LearningRateSchedule.h>
#include <training/MlpObjective.h>
#include <training/Sampling.h>
#include <training/TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace tb::bld {

IncrementalTrainer::IncrementalTrainer(BldConfig config)
    : NetworkTrainer("bld"), m_config(std::move(config))
{
    if (m_config.algorithm != Algorithm::Bling && m_config.algorithm != Algorithm::Ig)
        throw std::invalid_argument("bld: IncrementalTrainer runs bld.bling and bld.ig only");
}

QJsonArray IncrementalTrainer::layerUpdates() const
{
    return layerUpdatesJson(m_stats);
}

void IncrementalTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const BldConfig& c = m_config;
    const bool blockwise = c.algorithm == Algorithm::Bling;
    checkTrainingData(data, true);
    const Eigen::Index n = data.rows();
    m_net = c.makeNetwork(data.inputs(), data.outputs(), deriveSeed(ctx.seed(), kSeedWeights));
    const int layers = m_net.layerCount();
    m_stats.assign(std::size_t(layers), LayerStats{});
    const double rho = c.rho(double(m_net.parameterCount()));
    recordNetwork(ctx);
    ctx.record("rho", rho);
    ctx.record("working_memory_bytes", BldCost(c, {n, data.inputs(), data.outputs(), data.task}).incrementalMemory());

    // The fixed partition: one seeded shuffle, then consecutive runs of batch_size rows. The
    // rows are gathered in that order once, so that every minibatch is a contiguous block.
    std::vector<Eigen::Index> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), Eigen::Index(0));
    std::mt19937_64 gen(deriveSeed(ctx.seed(), kSeedPartition));
    train::shuffle(perm, gen);
    Eigen::MatrixXd xt(data.inputs(), n), y(n, data.outputs());
    for (Eigen::Index i = 0; i < n; ++i) {
        xt.col(i) = data.x.row(perm[std::size_t(i)]).transpose();
        y.row(i) = data.y.row(perm[std::size_t(i)]);
    }
    const Eigen::Index batch = std::min(c.batchSize, n);
    const Eigen::Index batches = (n + batch - 1) / batch;

    // f over the whole set for the checkpoints: (1/P)Σ‖·‖² + ρ‖w‖² as in B2LD.
    const auto fullObjective = makeObjective(m_net, xt, y, rho, ctx.stopToken());
    train::MlpObjective& f = *fullObjective;
    const double alpha0 = c.firstStep(layers);
    train::DiminishingStep alpha(alpha0, c.stepDecay);
    ctx.record("initial_step", alpha0);
    LayerwisePass pass(m_net, batch);
    std::vector<Eigen::MatrixXd> grads = m_net.zeroGradients();
    std::vector<int> order(static_cast<std::size_t>(layers));
    std::iota(order.begin(), order.end(), 0);
    if (c.order != BlockOrder::Forward)
        std::reverse(order.begin(), order.end());

    auto objective = [&]() { return f.value(m_net.flatten()); };
    auto checkpoint = [&](double epoch, double loss) {
        if (blockwise)
            ctx.record("layer_updates", layerUpdates());
        return ctx.checkpoint(Checkpoint{epoch, loss, {}}) == CheckpointAction::Continue;
    };
    const double f0 = objective();
    if (f.interrupted() || !checkpoint(0, std::isfinite(f0) ? f0 : std::numeric_limits<double>::infinity()) ||
        !std::isfinite(f0))
        return;

    // The algorithm: one minibatch step; the loop runs the epochs, polls Stop and the host's
    // budget after every minibatch (at the budget the epoch ends there, at its fraction), and
    // checkpoints every epoch end with f over the whole training set.
    const auto start = std::chrono::steady_clock::now();
    train::TrainingLoop::Hooks hooks;
    hooks.step = [&](const train::LoopPosition& at) {
        const Eigen::Index h = at.stepInEpoch - 1;
        const Eigen::Index r0 = h * batch, m = std::min(batch, n - r0);
        const auto xb = xt.middleCols(r0, m);
        const auto yb = y.middleRows(r0, m);
        // ∇ of the minibatch's share |B_h|·(ρ/P)·‖w‖² of the penalty.
        const double penalty = 2.0 * double(m) * rho / double(n);
        const double a = alpha.current();
        if (blockwise) {
            pass.forward(m_net, xb, 0);
            for (std::size_t k = 0; k < order.size(); ++k) {
                const int l = order[k];
                if (k > 0) {
                    // The layer updated last changed its own output (forward order) or
                    // the layers after l (backward order): recompute from there.
                    pass.forward(m_net, xb, c.order == BlockOrder::Forward ? order[k - 1] : l + 1);
                }
                pass.backward(m_net, xb, yb, l, grads, false);
                auto w = m_net.mutableWeights(l);
                Eigen::MatrixXd& d = grads[std::size_t(l)];
                d = -(d + penalty * w);
                const double norm = d.norm();
                w += (a / std::max(c.normFloor, std::min(c.normCeiling, norm))) * d;
                ++m_stats[std::size_t(l)].updates;
                m_stats[std::size_t(l)].gradientNorm = norm;
            }
        } else {
            pass.forward(m_net, xb, 0);
            pass.backward(m_net, xb, yb, 0, grads, true);
            double sq = 0;
            for (int l = 0; l < layers; ++l) {
                Eigen::MatrixXd& d = grads[std::size_t(l)];
                d = -(d + penalty * m_net.weights(l));
                sq += d.squaredNorm();
            }
            const double scale = a / std::max(c.normFloor, std::min(c.normCeiling, std::sqrt(sq)));
            for (int l = 0; l < layers; ++l)
                m_net.mutableWeights(l) += scale * grads[std::size_t(l)];
        }
        alpha.next();
        return train::StepResult{};
    };
    hooks.epochLoss = [&](const train::LoopPosition& at) -> std::optional<double> {
        m_step = alpha.current();
        if (at.epoch == 0)
            ctx.record("first_epoch_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        const double fw = objective();
        if (f.interrupted())
            return std::nullopt;
        return fw;
    };
    hooks.beforeCheckpoint = [&](const train::LoopPosition&) {
        if (blockwise)
            ctx.record("layer_updates", layerUpdates());
    };
    hooks.beforeDivergence = hooks.beforeCheckpoint;
    RunLoopHost host(ctx);
    train::TrainingLoop loop(host);
    loop.pollBudget(true);
    loop.divergenceMessage([](const train::LoopPosition& at, double) {
        return QStringLiteral("epoch %1: the objective is not finite").arg(at.epoch + 1).toStdString();
    });
    const train::LoopEnd end = loop.run(train::TrainingLoop::epochs(c.epochs, batches), hooks);
    if (end != train::LoopEnd::Completed && end != train::LoopEnd::Budget)
        return;
    ctx.record("end_reason", end == train::LoopEnd::Budget ? QStringLiteral("time limit") : QStringLiteral("epochs"));
    ctx.record("step", m_step);
    ctx.record("minibatch_steps", double(alpha.iteration()));
}

QJsonObject IncrementalTrainer::predictCost(const ProblemShape& shape) const
{
    const BldCost cost(m_config, shape);
    return QJsonObject{{"flops", cost.incrementalEpochFlops()},
                       {"scope", QStringLiteral("first epoch")},
                       {"scope_measured_key", QStringLiteral("first_epoch_seconds")},
                       {"memory_bytes", cost.incrementalMemory()},
                       {"model_bytes", cost.modelBytes()}};
}

} // namespace tb::bld
