#include "IncrementalTrainer.h"

#include "BldCost.h"
#include "BldObjective.h"
#include "LayerwisePass.h"

#include <LearningRateSchedule.h>
#include <MlpObjective.h>
#include <Sampling.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace tb::bld {

IncrementalTrainer::IncrementalTrainer(BldConfig config)
    : m_config(std::move(config))
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
    const Eigen::Index n = data.rows();
    if (n < 1)
        throw std::invalid_argument("bld: the training set is empty");
    if (!data.x.allFinite() || !data.y.allFinite())
        throw std::invalid_argument("bld: the training data contain NaN or Inf");
    m_net = c.makeNetwork(data.inputs(), data.outputs(), deriveSeed(ctx.seed(), kSeedWeights));
    const int layers = m_net.layerCount();
    m_stats.assign(std::size_t(layers), LayerStats{});
    const double rho = c.rho(double(m_net.parameterCount()));
    ctx.record("network", QString::fromStdString(m_net.describe()));
    ctx.record("weights", double(m_net.parameterCount()));
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

    const auto start = std::chrono::steady_clock::now();
    QString end = QStringLiteral("epochs");
    for (int epoch = 0; epoch < c.epochs; ++epoch) {
        bool timeUp = false;
        for (Eigen::Index h = 0; h < batches; ++h) {
            if (ctx.stopRequested())
                return;
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
            if (ctx.budgetSpent()) {
                timeUp = true;
                break;
            }
        }
        m_step = alpha.current();
        if (epoch == 0)
            ctx.record("first_epoch_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        const double fw = objective();
        if (f.interrupted())
            return;
        // A partly finished epoch (time limit) counts as a fraction.
        const double done = timeUp ? epoch + double(std::min<long long>(batches, alpha.iteration() - epoch * batches)) / double(batches)
                                   : epoch + 1.0;
        if (!std::isfinite(fw)) {
            ctx.log(QStringLiteral("epoch %1: the objective is not finite").arg(epoch + 1));
            checkpoint(done, std::numeric_limits<double>::infinity());
            return;
        }
        // At the budget the host answers Stop (also when the epoch's objective took it there):
        // the run ends at its time limit.
        const bool more = checkpoint(done, fw);
        if (timeUp || (!more && ctx.budgetSpent())) {
            end = QStringLiteral("time limit");
            break;
        }
        if (!more)
            return;
    }
    ctx.record("end_reason", end);
    ctx.record("step", m_step);
    ctx.record("minibatch_steps", double(alpha.iteration()));
}

Eigen::MatrixXd IncrementalTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (m_net.layerCount() == 0)
        throw std::logic_error("bld: predict() called before fit()");
    return m_net.predict(x);
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
