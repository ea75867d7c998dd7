#include "RandomFeatureSgdTrainer.h"

#include "BatchSchedule.h"
#include "KernelSetup.h"
#include "StopScope.h"

#include <training/Optimizer.h>
#include <training/TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::dsgd {
namespace {

constexpr double kTrigFlops = 10.0;  // as DsgdTrainer
constexpr double kDrawFlops = 30.0;  // as DsgdTrainer


} // namespace

RandomFeatureSgdTrainer::RandomFeatureSgdTrainer(DsgdConfig config) : m_config(std::move(config))
{
    if (m_config.algorithm != Algorithm::RandomFeatureSgd)
        throw std::invalid_argument("dsgd: RandomFeatureSgdTrainer runs dsgd.random_features_sgd only");
}

void RandomFeatureSgdTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const DsgdConfig& c = m_config;
    KernelSetup::checkData(data);
    m_loss.emplace(c.resolveLoss(data.task), data.task, data.outputs(), data.classNames);
    const KernelLoss& loss = *m_loss;
    const Eigen::MatrixXd targets = loss.targets(data.y);
    const Eigen::Index n = data.rows(), d = data.inputs(), k = loss.modelOutputs(), p = c.features;
    const int threads = std::max(1, ctx.threads());
    const Eigen::Index batch = std::min(c.batchSize, n);

    const bool sparse = data.isSparse();
    const Eigen::Index nnz = sparse ? Eigen::Index(data.xSparse->nonZeros()) : 0;
    const double chunks = std::ceil(double(p) / double(KernelExpansion::kChunk));
    const double cacheBytes =
        sparse ? 0.0 : std::min(c.cacheBytes(), chunks * KernelExpansion::chunkProjectionBytes(d, c.kernel, c.precision));
    const double weights = 8.0 * double(p) * double(k);
    // Weights, their optimizer state (up to two vectors) and gradient; the batch's inputs,
    // features and outputs; the host's evaluation of the training rows.
    const double batchBytes =
        sparse ? 4.0 * weights + double(sparseBytes(std::uint64_t(batch), std::uint64_t(nnz))) +
                     8.0 * double(batch) * (double(p) + 4.0 * double(k)) +
                     double(threads) * SparseFeatures::blockBytes(batch, nnz, KernelExpansion::kChunk)
               : 4.0 * weights + 8.0 * double(batch) * (double(d) + double(p) + 4.0 * double(k));
    const double evalBytes = sparse ? KernelExpansion::evaluationBytesSparse(n, nnz, data.outputs(), threads)
                                    : KernelExpansion::evaluationBytes(n, d, data.outputs(), threads, c.precision);
    KernelSetup::checkMemory(weights + cacheBytes + batchBytes + evalBytes, DsgdConfig::idOf(c.algorithm),
                             QStringLiteral("%1 features × %2 outputs, a %3-row batch, the projection cache, the "
                                            "evaluation of %4 rows")
                                 .arg(p).arg(k).arg(batch).arg(n),
                             QStringLiteral("features, batch_size or cache_mib"));

    m_bandwidth = KernelSetup::bandwidth(c, data, ctx.seed());
    train::RandomFeatures map;
    map.kind = c.kernel;
    map.inputs = d;
    map.count = p;
    map.bandwidth = m_bandwidth;
    map.seed = deriveSeed(ctx.seed(), kSeedFeatures);
    map.normalise = true;  // √(2/p): φᵀφ approximates the kernel
    m_model.reset(map, k, c.cacheBytes(), sparse ? FeatureDraw::Counter : FeatureDraw::Sequential, c.precision);
    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(p, k);
    m_model.setCoefficients(w);

    ctx.record("bandwidth", m_bandwidth);
    ctx.record("kernel", QString::fromLatin1(train::featureKindName(c.kernel)));
    ctx.record("loss_function", QString::fromLatin1(KernelLoss::name(loss.kind())));
    ctx.record("features", double(p));
    ctx.record("batch_size", double(batch));

    StopScope scope(m_stop, ctx.stopToken());
    const StopToken stop = ctx.stopToken();
    const train::LearningRateSchedule schedule = c.schedule();
    train::Optimizer optimizer(c.optimizer, p * k);
    BatchSchedule batches(n, c.batchSize, c.epochs, deriveSeed(ctx.seed(), kSeedOrder));
    std::vector<Eigen::Index> rows;
    Eigen::MatrixXd xb, tb, phi, f, dl, grad;
    SparseMatrix xbs;  // the batch's rows on sparse inputs
    m_peakBytes = weights + batchBytes + evalBytes;

    // The algorithm: one minibatch update of the feature weights; the loop polls Stop and
    // checkpoints where the batch schedule says.
    train::TrainingLoop::Hooks hooks;
    hooks.step = [&](const train::LoopPosition& at) {
        train::StepResult out;
        out.stopped = true;
        if (!batches.next(rows))
            return out;
        const Eigen::Index m = Eigen::Index(rows.size());
        if (sparse)
            xbs = SparseFeatures::selectRows(*data.xSparse, rows);
        else
            xb = data.x(rows, Eigen::all);
        tb = targets(rows, Eigen::all);
        if (!(sparse ? m_model.featuresSparse(xbs, 0, p, phi, stop) : m_model.features(xb, 0, p, phi, stop)))
            return out;
        f.noalias() = phi * w;
        out = train::StepResult{loss.evaluate(f, tb, dl), double(m), false};
        if (!std::isfinite(out.loss))
            return out;  // the loop reports the divergence
        grad.noalias() = phi.transpose() * dl;
        optimizer.beginStep();
        optimizer.apply(schedule.rate(double(at.step - 1)), 0, Eigen::Map<Eigen::VectorXd>(w.data(), w.size()),
                        Eigen::Map<const Eigen::VectorXd>(grad.data(), grad.size()), 1.0 / double(m));
        return out;
    };
    hooks.beforeCheckpoint = [&](const train::LoopPosition&) {
        m_model.setCoefficients(w);
        m_peakBytes = std::max(m_peakBytes, weights + batchBytes + evalBytes + m_model.cacheBytes());
        ctx.record("working_memory_bytes", m_peakBytes);
    };
    hooks.beforeDivergence = [&](const train::LoopPosition&) { m_model.setCoefficients(w); };
    RunLoopHost host(ctx);
    train::TrainingLoop loop(host);
    loop.checkpointWhen([&](const train::LoopPosition&) { return batches.checkpointDue(c.checkpointEvery); });
    loop.divergenceMessage([&](const train::LoopPosition& at, double l) {
        return QStringLiteral("diverged at step %1 (epoch %2): the minibatch loss is %3")
            .arg(at.step).arg(at.epochs).arg(l).toStdString();
    });
    loop.run(train::TrainingLoop::steps(batches.totalSteps(), [&] { return batches.epochsDone(); }), hooks);
}

Eigen::MatrixXd RandomFeatureSgdTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (!m_loss)
        throw std::logic_error("dsgd: predict() called before fit()");
    Eigen::MatrixXd f;
    if (!m_model.evaluate(x, f, m_stop))
        return {};  // Stop during a checkpoint's evaluation: the host discards it
    return m_loss->scores(f);
}

Eigen::MatrixXd RandomFeatureSgdTrainer::predictSparse(const SparseMatrix& x) const
{
    if (!m_loss)
        throw std::logic_error("dsgd: predictSparse() called before fit()");
    Eigen::MatrixXd f;
    if (!m_model.evaluateSparse(x, f, m_stop))
        return {};  // Stop during a checkpoint's evaluation: the host discards it
    return m_loss->scores(f);
}

QJsonObject RandomFeatureSgdTrainer::predictCost(const ProblemShape& shape) const
{
    const DsgdConfig& c = m_config;
    const Eigen::Index rows = std::max<Eigen::Index>(shape.rows, 1);
    if (shape.isSparse()) {
        // By the non-zeros (the Counter draw, no projection cache), never rows × inputs.
        const Eigen::Index nnz = shape.nonZeros;
        const double steps = double(BatchSchedule::stepsFor(rows, c.batchSize, c.epochs));
        const Eigen::Index batch = std::min(c.batchSize, rows);
        const double b = double(batch), p = double(c.features), perRow = double(nnz) / double(rows);
        const double k = double(std::max<Eigen::Index>(shape.outputs, 1));
        const double flops = steps * (b * p * (perRow * (2.0 + kDrawFlops) + kTrigFlops) + 4.0 * b * p * k + 10.0 * p * k);
        const int threads = std::max(1, tbb::this_task_arena::max_concurrency());
        const double weights = 8.0 * p * k;
        const double memory = 5.0 * weights + double(sparseBytes(std::uint64_t(batch), std::uint64_t(nnz))) +
                              8.0 * b * (p + 4.0 * k) +
                              double(threads) * SparseFeatures::blockBytes(batch, nnz, KernelExpansion::kChunk) +
                              KernelExpansion::evaluationBytesSparse(shape.rows, nnz, shape.outputs, threads) +
                              KernelSetup::bandwidthBytesSparse(c, shape.rows, nnz);
        return QJsonObject{{"flops", flops},
                           {"memory_bytes", memory},
                           {"model_bytes", weights + 64.0},
                           {"steps", steps},
                           {"features", p}};
    }
    const double steps = double(BatchSchedule::stepsFor(rows, c.batchSize, c.epochs));
    const double b = double(std::min(c.batchSize, rows)), p = double(c.features), d = double(shape.inputs);
    const double k = double(std::max<Eigen::Index>(shape.outputs, 1));
    // Per step: the batch's features, its outputs, the gradient and the update.
    const double flops = steps * (b * p * (2.0 * d + kTrigFlops) + 4.0 * b * p * k + 10.0 * p * k);
    const int threads = std::max(1, tbb::this_task_arena::max_concurrency());
    const double chunks = std::ceil(p / double(KernelExpansion::kChunk));
    const double cache =
        std::min(c.cacheBytes(), chunks * KernelExpansion::chunkProjectionBytes(shape.inputs, c.kernel, c.precision));
    const double weights = 8.0 * p * k;
    const double memory = 5.0 * weights + cache + 8.0 * b * (d + p + 4.0 * k) +
                          KernelExpansion::evaluationBytes(shape.rows, shape.inputs, shape.outputs, threads, c.precision) +
                          KernelSetup::bandwidthBytes(c, shape.rows, shape.inputs);
    return QJsonObject{{"flops", flops},
                       {"memory_bytes", memory},
                       {"model_bytes", weights + 64.0},
                       {"steps", steps},
                       {"features", p}};
}

} // namespace tb::dsgd
