#include "GradientTrainer.h"

#include <BatchGradient.h>
#include <Optimizer.h>
#include <Sampling.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tbb/task_arena.h>

namespace tb::gradient {
namespace {

double squaredNorm(const num::Mlp& net)
{
    double s = 0;
    for (const auto& w : net.allWeights())
        s += w.squaredNorm();
    return s;
}

} // namespace

GradientTrainer::GradientTrainer(GradientConfig config) : m_config(std::move(config))
{
    if (m_config.kind.lbfgs)
        throw std::invalid_argument("gradient: GradientTrainer runs first-order methods, not L-BFGS");
}

void GradientTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const GradientConfig& c = m_config;
    const Eigen::Index n = data.rows();
    if (n < 1)
        throw std::invalid_argument("gradient: the training set is empty");
    if (data.y.rows() != n)
        throw std::invalid_argument("gradient: " + std::to_string(n) + " input rows but " +
                                    std::to_string(data.y.rows()) + " target rows");
    const num::MlpLoss loss = c.resolveLoss(data.task);
    const std::uint64_t seed = ctx.seed();
    m_net = c.makeNetwork(data.inputs(), data.outputs(), data.task, deriveSeed(seed, kSeedWeights));

    // Early stopping holds out a seeded share of the rows; both parts keep data order.
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    Eigen::Index nVal = 0;
    if (c.validationFraction > 0 && n >= 2) {
        nVal = std::clamp<Eigen::Index>(std::llround(c.validationFraction * double(n)), 1, n - 1);
        std::mt19937_64 splitGen(deriveSeed(seed, kSeedSplit));
        train::shuffle(order, splitGen);
    }
    const Eigen::Index nTrain = n - nVal;
    std::vector<Eigen::Index> trainRows(order.begin(), order.begin() + nTrain);
    std::vector<Eigen::Index> valRows(order.begin() + nTrain, order.end());
    std::sort(trainRows.begin(), trainRows.end());
    std::sort(valRows.begin(), valRows.end());
    // Unshuffled training on all rows reads contiguous samples: no gathering at all.
    const bool contiguous = !c.shuffle && nVal == 0;

    const Eigen::Index batch = std::min<Eigen::Index>(c.batchSize, nTrain);
    const Eigen::Index batches = (nTrain + batch - 1) / batch;
    const Eigen::MatrixXd xt = train::transposedCopy(data.x);
    train::BatchGradient engine(m_net, loss, xt, data.y, batch);
    std::vector<Eigen::MatrixXd> grads = m_net.zeroGradients();
    Optimizer optimizer(c.optimizer, m_net.parameterCount());
    std::mt19937_64 shuffleGen(deriveSeed(seed, kSeedShuffle));

    // Batch size 1: one forward/backward on the sample's own column and the first layer's
    // outer-product gradient fused into the update, never formed (see applyOuter()).
    num::MlpWorkspace single(m_net, 1);
    auto singleBackward = [&](Eigen::Index row) {
        const auto x = xt.middleCols(row, 1);
        m_net.forwardColumns(x, single);
        return m_net.backwardColumns(x, data.y.middleRows(row, 1), loss, single, grads, false,
                                     /*firstGradientLayer=*/1);
    };
    auto singleUpdate = [&](Eigen::Index row, double lr) {
        optimizer.beginStep();
        optimizer.applyOuter(lr, 0, m_net.mutableWeights(0), xt.col(row), single.deltas[0].topRows(1), m_net.bias(0));
        Eigen::Index offset = m_net.weights(0).size();
        for (int l = 1; l < m_net.layerCount(); ++l) {
            auto w = m_net.mutableWeights(l);
            const Eigen::MatrixXd& g = grads[std::size_t(l)];
            optimizer.apply(lr, offset, Eigen::Map<Eigen::VectorXd>(w.data(), w.size()),
                            Eigen::Map<const Eigen::VectorXd>(g.data(), g.size()));
            offset += w.size();
        }
    };

    ctx.record("network", QString::fromStdString(m_net.describe()));
    ctx.record("weights", double(m_net.parameterCount()));
    ctx.record("batch_size", double(batch));
    ctx.record("loss_function", loss == num::MlpLoss::SoftmaxCrossEntropy ? "cross_entropy" : "squared_error");
    if (nVal > 0)
        ctx.record("validation_rows", double(nVal));

    std::vector<Eigen::MatrixXd> bestWeights;
    double bestVal = std::numeric_limits<double>::infinity();
    int bestEpoch = 0, sinceBest = 0;
    const double penaltyScale = 0.5 * c.weightDecay;

    for (int e = 0; e < c.epochs; ++e) {
        const double lr = c.learningRateAt(e);
        if (c.shuffle)
            train::shuffle(trainRows, shuffleGen);
        double lossSum = 0;
        for (Eigen::Index b = 0; b < batches; ++b) {
            if (ctx.stopRequested())
                return;
            const Eigen::Index start = b * batch;
            const Eigen::Index m = std::min(batch, nTrain - start);
            const Eigen::Index row = contiguous ? start : trainRows[std::size_t(start)];
            train::BatchGradient::Result r;
            if (batch == 1)
                r.loss = singleBackward(row);
            else if (contiguous)
                r = engine.gradient(m_net, nullptr, start, m, grads, ctx.stopToken());
            else
                r = engine.gradient(m_net, trainRows.data() + start, 0, m, grads, ctx.stopToken());
            if (r.stopped)
                return;
            if (!std::isfinite(r.loss)) {
                const double at = double(e) + double(b + 1) / double(batches);
                ctx.log(QStringLiteral("diverged in epoch %1 (minibatch %2 of %3): the minibatch loss is %4")
                            .arg(e + 1).arg(b + 1).arg(batches).arg(r.loss));
                ctx.record("diverged_at_epoch", at);
                // Infinite loss: the host marks the run diverged at this epoch.
                ctx.checkpoint(Checkpoint{at, std::numeric_limits<double>::infinity(), {}});
                return;
            }
            lossSum += r.loss;
            if (batch == 1)
                singleUpdate(row, lr);
            else
                optimizer.step(lr, m_net, grads, 1.0 / double(m));
            if (c.checkpointEvery > 0 && (b + 1) % c.checkpointEvery == 0 && b + 1 < batches) {
                const double mid = lossSum / double(start + m) +
                                   (penaltyScale > 0 ? penaltyScale * squaredNorm(m_net) : 0.0);
                if (ctx.checkpoint(Checkpoint{double(e) + double(b + 1) / double(batches), mid, {}}) ==
                    CheckpointAction::Stop)
                    return;
            }
        }
        const double epochLoss = lossSum / double(nTrain) + (penaltyScale > 0 ? penaltyScale * squaredNorm(m_net) : 0.0);

        bool stopEarly = false;
        if (nVal > 0) {
            const train::BatchGradient::Result v = engine.loss(m_net, valRows.data(), 0, nVal, ctx.stopToken());
            if (v.stopped)
                return;
            const double valLoss = v.loss / double(nVal);
            if (valLoss < bestVal) {
                bestVal = valLoss;
                bestWeights = m_net.allWeights();
                bestEpoch = e + 1;
                sinceBest = 0;
            } else {
                ++sinceBest;
            }
            stopEarly = sinceBest >= c.patience;
            // The run ends with the best weights seen, as Keras' restore_best_weights.
            if ((stopEarly || e + 1 == c.epochs) && bestEpoch != e + 1 && !bestWeights.empty()) {
                m_net.setAllWeights(bestWeights);
                ctx.log(QStringLiteral("early stopping: restored the weights of epoch %1 (validation loss %2)")
                            .arg(bestEpoch).arg(bestVal));
            }
            if (stopEarly) {
                ctx.record("early_stopped_at_epoch", e + 1);
                ctx.record("best_epoch", bestEpoch);
            }
        }
        if (ctx.checkpoint(Checkpoint{double(e + 1), epochLoss, {}}) == CheckpointAction::Stop || stopEarly)
            return;
    }
}

Eigen::MatrixXd GradientTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (m_net.layerCount() == 0)
        throw std::logic_error("gradient: predict() called before fit()");
    return m_net.predict(x);
}

QJsonObject GradientTrainer::predictCost(const ProblemShape& shape) const
{
    const double rows = double(shape.rows) * (1.0 - m_config.validationFraction);
    const double perEpoch = 6.0 * m_config.weightCount(shape.inputs, shape.outputs) * rows;
    return QJsonObject{{"flops", perEpoch * m_config.epochs},
                       {"flops_per_epoch", perEpoch},
                       {"memory_bytes", m_config.workingMemoryBytes(shape.inputs, shape.outputs, shape.rows,
                                                                    tbb::this_task_arena::max_concurrency())}};
}

} // namespace tb::gradient
