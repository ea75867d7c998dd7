#include "DsgdTrainer.h"

#include <training/DesignMatrix.h>

#include "BatchSchedule.h"
#include "KernelSetup.h"
#include "StopScope.h"

#include <training/DesignMatrix.h>
#include <numerics/LeastSquares.h>
#include <training/TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::dsgd {
namespace {

// A cosine or sine counted as this many flops in cost predictions (a vectorised evaluation
// costs about as much as ten multiply-adds).
constexpr double kTrigFlops = 10.0;
// One counter-based draw of ω (two SplitMix64 words, a log, a square root and a cosine),
// counted as flops in cost predictions of sparse inputs.
constexpr double kDrawFlops = 30.0;

// Memory of a preconditioned step's solve: the r×r Gram and its factor, the r×k cross products;
// in mixed precision on dense inputs also the block's b×r features as float.
double preconditionBytes(const DsgdConfig& c, double b, double r, double k, bool sparse)
{
    if (c.algorithm != Algorithm::Preconditioned)
        return 0.0;
    const bool mixed = !sparse && c.precision == train::Precision::Mixed;
    return 16.0 * r * (r + k) + (mixed ? 4.0 * b * r : 0.0);
}

} // namespace

DsgdTrainer::DsgdTrainer(DsgdConfig config) : m_config(std::move(config))
{
    if (m_config.algorithm != Algorithm::Doubly && m_config.algorithm != Algorithm::Preconditioned)
        throw std::invalid_argument("dsgd: DsgdTrainer runs the doubly stochastic variants only");
}

DsgdTrainer::Plan DsgdTrainer::plan(const DsgdConfig& c, Eigen::Index rows)
{
    Plan p;
    p.batch = std::min(c.batchSize, std::max<Eigen::Index>(rows, 1));
    p.perStep = c.featuresPerStep;
    p.steps = BatchSchedule::stepsFor(std::max<Eigen::Index>(rows, 1), c.batchSize, c.epochs);
    if (c.maxFeatures > 0)
        p.steps = std::min(p.steps, c.maxFeatures / c.featuresPerStep);
    p.features = p.steps * p.perStep;
    return p;
}

void DsgdTrainer::account(double batchBytes)
{
    const double now = m_model.modelBytes() + m_model.cacheBytes() + m_model.memoBytes() + batchBytes + m_evalBytes;
    m_peakBytes = std::max(m_peakBytes, now);
}

/// One fit's steps: what they read, and the buffers and counters they reuse from step to step.
struct DsgdTrainer::Steps {
    Steps(const DatasetView& d, const KernelLoss& l, Eigen::MatrixXd t, const Plan& p, const DsgdConfig& c,
          std::uint64_t seed, StopToken token)
        : data(d), loss(l), targets(std::move(t)), plan(p), schedule(c.schedule()),
          batches(d.rows(), c.batchSize, c.epochs, deriveSeed(seed, kSeedOrder)), stop(token),
          sparse(d.isSparse()), preconditioned(c.algorithm == Algorithm::Preconditioned),
          mixedGram(preconditioned && !sparse && c.precision == train::Precision::Mixed)
    {
    }

    const DatasetView& data;
    const KernelLoss& loss;
    Eigen::MatrixXd targets;
    Plan plan;
    train::LearningRateSchedule schedule;
    BatchSchedule batches;
    StopToken stop;
    bool sparse;
    bool preconditioned;
    bool mixedGram; ///< preconditioned on dense inputs in mixed precision
    std::vector<Eigen::Index> rows;
    Eigen::MatrixXd xb, tb, f, dl, phi, alpha, g, cross;
    SparseMatrix xbs; ///< the batch's rows on sparse inputs
    int fallbacks = 0;
};

double DsgdTrainer::checkPlannedMemory(const DatasetView& data, const Plan& p, Eigen::Index k, int threads)
{
    const DsgdConfig& c = m_config;
    const Eigen::Index n = data.rows(), d = data.inputs();
    const bool sparse = data.isSparse();
    const Eigen::Index nnz = sparse ? Eigen::Index(data.xSparse->nonZeros()) : 0;
    const double modelBytes = 16.0 * double(p.features) * double(k);  // the coefficients, with vector growth
    const double chunks = std::ceil(double(p.features) / double(KernelExpansion::kChunk));
    const double cacheBytes =
        sparse ? 0.0 : std::min(c.cacheBytes(), chunks * KernelExpansion::chunkProjectionBytes(d, c.kernel, c.precision));
    const double r = double(p.perStep), b = double(p.batch);
    const double solveBytes = preconditionBytes(c, b, r, double(k), sparse);
    double batchBytes = 0;
    if (sparse) {
        // The batch's rows (at most every non-zero), its new features' blocks and its evaluation.
        batchBytes = double(sparseBytes(std::uint64_t(p.batch), std::uint64_t(nnz))) +
                     8.0 * (4.0 * b * double(k) + b * r) + solveBytes +
                     double(threads) * SparseFeatures::blockBytes(p.batch, nnz, KernelExpansion::kChunk) +
                     KernelExpansion::evaluationBytesSparse(p.batch, nnz, k, threads);
        m_evalBytes = KernelExpansion::evaluationBytesSparse(n, nnz, data.outputs(), threads) +
                      8.0 * double(KernelExpansion::kMaxMemos) * double(n) * double(k);
    } else {
        batchBytes = 8.0 * (b * double(d) + 4.0 * b * double(k) + b * r) + solveBytes +
                     KernelExpansion::evaluationBytes(p.batch, d, k, threads, c.precision);
        m_evalBytes = KernelExpansion::evaluationBytes(n, d, data.outputs(), threads, c.precision) +
                      8.0 * double(KernelExpansion::kMaxMemos) * double(n) * double(k);
    }
    KernelSetup::checkMemory(
        modelBytes + cacheBytes + batchBytes + m_evalBytes, DsgdConfig::idOf(c.algorithm),
        QStringLiteral("%1 features × %2 outputs, a %3-row batch with %4 new features, the "
                       "projection cache, the evaluation of %5 rows")
            .arg(p.features)
            .arg(k)
            .arg(p.batch)
            .arg(p.perStep)
            .arg(n),
        QStringLiteral("epochs, max_features, features_per_step, batch_size or cache_mib"));
    return batchBytes;
}

void DsgdTrainer::setUpModel(const DatasetView& data, const Plan& p, Eigen::Index k, std::uint64_t seed,
                             RunContext& ctx)
{
    const DsgdConfig& c = m_config;
    m_bandwidth = KernelSetup::bandwidth(c, data, seed);
    train::RandomFeatures map;
    map.kind = c.kernel;
    map.inputs = data.inputs();
    map.count = std::max<Eigen::Index>(p.features, c.kernel == train::FeatureKind::GaussianCosSin ? 2 : 1);
    map.bandwidth = m_bandwidth;
    map.seed = deriveSeed(seed, kSeedFeatures);
    map.normalise = false;  // √2·cos: one feature's unbiased estimate of the kernel
    m_model.reset(map, k, c.cacheBytes(), data.isSparse() ? FeatureDraw::Counter : FeatureDraw::Sequential,
                  c.precision);
    ctx.record("bandwidth", m_bandwidth);
    ctx.record("kernel", QString::fromLatin1(train::featureKindName(c.kernel)));
    ctx.record("loss_function", QString::fromLatin1(KernelLoss::name(m_loss->kind())));
    ctx.record("planned_steps", double(p.steps));
    ctx.record("planned_features", double(p.features));
    ctx.record("batch_size", double(p.batch));
}

train::StepResult DsgdTrainer::step(Steps& s, const train::LoopPosition& at, RunContext& ctx)
{
    const DsgdConfig& c = m_config;
    train::StepResult out;
    out.stopped = true;
    if (!s.batches.next(s.rows))
        return out;
    const Eigen::Index step = at.step - 1;
    const Eigen::Index m = Eigen::Index(s.rows.size());
    if (s.sparse)
        s.xbs = SparseFeatures::selectRows(*s.data.xSparse, s.rows);
    else
        s.xb = s.data.x(s.rows, Eigen::all);
    s.tb = s.targets(s.rows, Eigen::all);
    if (!(s.sparse ? m_model.evaluateSparse(s.xbs, s.f, s.stop) : m_model.evaluate(s.xb, s.f, s.stop)))
        return out;
    const double batchLoss = s.loss.evaluate(s.f, s.tb, s.dl);
    out.stopped = false;
    out.loss = batchLoss;
    out.rows = double(m);
    if (!std::isfinite(batchLoss))
        return out; // the loop reports the divergence
    const double gamma = s.schedule.rate(double(step));
    const Eigen::Index first = m_model.features();
    if (!(s.sparse ? m_model.featuresSparse(s.xbs, first, s.plan.perStep, s.phi, s.stop)
                   : m_model.features(s.xb, first, s.plan.perStep, s.phi, s.stop))) {
        out.stopped = true;
        return out;
    }
    if (s.preconditioned) {
        if (!preconditionedStep(s, m, gamma, step, ctx)) {
            out.stopped = true;
            return out;
        }
    } else {
        s.alpha.noalias() = s.phi.transpose() * s.dl;
        s.alpha *= -gamma / (double(s.plan.perStep) * double(m));
    }
    if (c.nu > 0)
        m_model.scale(1.0 - gamma * c.nu);
    m_model.append(s.alpha);
    return out;
}

bool DsgdTrainer::preconditionedStep(Steps& s, Eigen::Index m, double gamma, Eigen::Index step,
                                     RunContext& ctx)
{
    const DsgdConfig& c = m_config;
    double ridgeFloor = 0.0;
    if (s.mixedGram) {
        // The block's features as float, the Gram and cross products summed in double from float
        // products; the ridge kept above the float rounding noise.
        train::DesignMatrix design(s.phi, train::Precision::Mixed, false, false);
        design.setStopToken(s.stop);
        design.normalEquations(s.dl, false, s.g, s.cross);
        ridgeFloor = train::kMixedRidgeFloor * s.g.trace() / std::sqrt(double(s.g.rows()));
    } else {
        num::gramAndCross(s.phi, s.dl, s.g, s.cross, 0, s.stop);
    }
    if (s.stop.stopRequested())
        return false;
    num::LeastSquaresOptions opt;
    opt.ridge = std::max(double(m) * double(s.plan.perStep) * (c.nu + c.preconditionRidge), ridgeFloor);
    opt.stop = s.stop;
    num::SolveReport report;
    s.alpha = num::solveNormalEquations(s.g, s.cross, opt, &report);
    if (report.interrupted)
        return false;
    if (report.fallback && s.fallbacks++ == 0)
        ctx.log(QStringLiteral("step %1: the preconditioner solve left Cholesky: %2")
                    .arg(step + 1)
                    .arg(QString::fromStdString(report.summary())));
    s.alpha *= -gamma;
    return true;
}

void DsgdTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const DsgdConfig& c = m_config;
    KernelSetup::checkData(data);
    m_loss.emplace(c.resolveLoss(data.task), data.task, data.outputs(), data.classNames);
    const KernelLoss& loss = *m_loss;
    Eigen::MatrixXd targets = loss.targets(data.y);
    const Eigen::Index n = data.rows(), k = loss.modelOutputs();
    const std::uint64_t seed = ctx.seed();
    const Plan p = plan(c, n);

    // Memory the plan needs, checked before anything that size is allocated.
    const double batchBytes = checkPlannedMemory(data, p, k, std::max(1, ctx.threads()));
    setUpModel(data, p, k, seed, ctx);
    m_peakBytes = 0;
    account(batchBytes);

    StopScope scope(m_stop, ctx.stopToken());
    Steps s(data, loss, std::move(targets), p, c, seed, ctx.stopToken());
    const bool preconditioned = s.preconditioned;
    QJsonArray checkpointFeatures;

    // The algorithm: one step (a minibatch, a block of new features); the loop polls Stop and
    // checkpoints where the batch schedule says (log-spaced, epoch ends, checkpoint_every).
    train::TrainingLoop::Hooks hooks;
    hooks.step = [&](const train::LoopPosition& at) { return step(s, at, ctx); };
    hooks.beforeCheckpoint = [&](const train::LoopPosition&) {
        account(batchBytes);
        checkpointFeatures.append(double(m_model.features()));
        ctx.record("checkpoint_features", checkpointFeatures);
        ctx.record("working_memory_bytes", m_peakBytes);
        if (preconditioned)
            ctx.record("precondition_fallbacks", s.fallbacks);
    };
    RunLoopHost host(ctx);
    train::TrainingLoop loop(host);
    // (max_features may end the run before the batches do: its last step checkpoints too.)
    loop.checkpointWhen([&](const train::LoopPosition& at) {
        return s.batches.checkpointDue(c.checkpointEvery) || at.step == p.steps;
    });
    loop.divergenceMessage([&](const train::LoopPosition& at, double l) {
        return QStringLiteral("diverged at step %1 (epoch %2): the minibatch loss is %3")
            .arg(at.step).arg(at.epochs).arg(l).toStdString();
    });
    loop.run(train::TrainingLoop::steps(p.steps, [&] { return s.batches.epochsDone(); }), hooks);
}

Eigen::MatrixXd DsgdTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (!m_loss)
        throw std::logic_error("dsgd: predict() called before fit()");
    Eigen::MatrixXd f;
    if (!m_model.evaluate(x, f, m_stop, /*memoise=*/true))
        return {};  // Stop during a checkpoint's evaluation: the host discards it
    return m_loss->scores(f);
}

Eigen::MatrixXd DsgdTrainer::predictSparse(const SparseMatrix& x) const
{
    if (!m_loss)
        throw std::logic_error("dsgd: predictSparse() called before fit()");
    Eigen::MatrixXd f;
    if (!m_model.evaluateSparse(x, f, m_stop, /*memoise=*/true))
        return {};  // Stop during a checkpoint's evaluation: the host discards it
    return m_loss->scores(f);
}

QJsonObject DsgdTrainer::predictCost(const ProblemShape& shape) const
{
    if (shape.isSparse())
        return predictSparseCost(shape);
    const DsgdConfig& c = m_config;
    const Plan p = plan(c, shape.rows);
    const double d = double(shape.inputs), k = double(std::max<Eigen::Index>(shape.outputs, 1));
    const double b = double(p.batch), r = double(p.perStep), s = double(p.steps);
    const double perFeatureRow = 2.0 * d + kTrigFlops + 2.0 * k;  // projection, cosine, coefficients
    // Step t predicts the batch with t·r features and makes r new ones.
    double flops = b * r * perFeatureRow * s * (s - 1) / 2.0 + s * b * r * (2.0 * d + kTrigFlops);
    if (c.algorithm == Algorithm::Preconditioned)
        flops += s * (b * r * r + 2.0 * b * r * k + r * r * r / 3.0 + 2.0 * r * r * k);
    else
        flops += s * 2.0 * b * r * k;
    const int threads = std::max(1, tbb::this_task_arena::max_concurrency());
    const double chunks = std::ceil(double(p.features) / double(KernelExpansion::kChunk));
    const double cache =
        std::min(c.cacheBytes(), chunks * KernelExpansion::chunkProjectionBytes(shape.inputs, c.kernel, c.precision));
    const double model = 8.0 * double(p.features) * k;
    // Held throughout: the model (and its copy), the projection cache, a step's batch, the
    // remembered sums, the preconditioner. On top, either the bandwidth's median (computed and
    // freed before the first step) or the steps' evaluation buffers (kept from step to step) with
    // a checkpoint's evaluation of the training set — as account() counts them.
    const double phase = std::max(
        KernelSetup::bandwidthBytes(c, shape.rows, shape.inputs),
        KernelExpansion::evaluationBytes(p.batch, shape.inputs, shape.outputs, threads, c.precision) +
            KernelExpansion::evaluationBytes(shape.rows, shape.inputs, shape.outputs, threads, c.precision));
    double memory = 2.0 * model + cache + 8.0 * (b * d + 4.0 * b * k + b * r) +
                    8.0 * KernelExpansion::kMaxMemos * double(shape.rows) * k + preconditionBytes(c, b, r, k, false) +
                    phase;
    return QJsonObject{{"flops", flops},
                       {"memory_bytes", memory},
                       {"model_bytes", model + 64.0},
                       {"steps", double(p.steps)},
                       {"features", double(p.features)}};
}

QJsonObject DsgdTrainer::predictSparseCost(const ProblemShape& shape) const
{
    // As fit() plans a sparse run: the Counter draw (no projection cache), every block bounded by
    // the non-zeros, never rows × inputs.
    const DsgdConfig& c = m_config;
    const Plan p = plan(c, shape.rows);
    const Eigen::Index nnz = shape.nonZeros;
    const double perRow = double(nnz) / double(std::max<Eigen::Index>(shape.rows, 1));
    const double k = double(std::max<Eigen::Index>(shape.outputs, 1));
    const double b = double(p.batch), r = double(p.perStep), s = double(p.steps);
    const double project = perRow * (2.0 + kDrawFlops);  // one feature of one row: its non-zeros' draws
    const double perFeatureRow = project + kTrigFlops + 2.0 * k;
    double flops = b * r * perFeatureRow * s * (s - 1) / 2.0 + s * b * r * (project + kTrigFlops);
    if (c.algorithm == Algorithm::Preconditioned)
        flops += s * (b * r * r + 2.0 * b * r * k + r * r * r / 3.0 + 2.0 * r * r * k);
    else
        flops += s * 2.0 * b * r * k;
    const int threads = std::max(1, tbb::this_task_arena::max_concurrency());
    const double model = 8.0 * double(p.features) * k;
    // As the dense prediction: the bandwidth's median or the evaluations, never both at once.
    const double phase = std::max(KernelSetup::bandwidthBytesSparse(c, shape.rows, nnz),
                                  KernelExpansion::evaluationBytesSparse(p.batch, nnz, shape.outputs, threads) +
                                      KernelExpansion::evaluationBytesSparse(shape.rows, nnz, shape.outputs, threads));
    double memory = 2.0 * model + double(sparseBytes(std::uint64_t(p.batch), std::uint64_t(nnz))) +
                    8.0 * (4.0 * b * k + b * r) +
                    double(threads) * SparseFeatures::blockBytes(p.batch, nnz, KernelExpansion::kChunk) +
                    8.0 * KernelExpansion::kMaxMemos * double(shape.rows) * k + preconditionBytes(c, b, r, k, true) +
                    phase;
    return QJsonObject{{"flops", flops},
                       {"memory_bytes", memory},
                       {"model_bytes", model + 64.0},
                       {"steps", double(p.steps)},
                       {"features", double(p.features)}};
}

} // namespace tb::dsgd
