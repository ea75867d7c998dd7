#include "GradientTrainer.h"

#include "GradientReplica.h"

#include <numerics/SmallMlpKernel.h>

#include <training/BatchGradient.h>
#include <training/Optimizer.h>
#include <training/Sampling.h>
#include <training/TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tbb/task_arena.h>
#include <type_traits>

namespace tb::gradient {
namespace {

double squaredNorm(const num::Mlp& net)
{
    double s = 0;
    for (const auto& w : net.allWeights())
        s += w.squaredNorm();
    return s;
}

// The rows a run trains on and the rows early stopping holds out (a seeded share of
// validationFraction; none when it is 0), each part in data order.
struct RowSplit {
    std::vector<Eigen::Index> train, validation;
};

RowSplit splitRows(Eigen::Index n, double validationFraction, std::uint64_t seed)
{
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    Eigen::Index nVal = 0;
    if (validationFraction > 0 && n >= 2) {
        nVal = std::clamp<Eigen::Index>(std::llround(validationFraction * double(n)), 1, n - 1);
        std::mt19937_64 splitGen(deriveSeed(seed, kSeedSplit));
        train::shuffle(order, splitGen);
    }
    const Eigen::Index nTrain = n - nVal;
    RowSplit split{{order.begin(), order.begin() + nTrain}, {order.begin() + nTrain, order.end()}};
    std::sort(split.train.begin(), split.train.end());
    std::sort(split.validation.begin(), split.validation.end());
    return split;
}

} // namespace

GradientTrainer::GradientTrainer(GradientConfig config) : NetworkTrainer("gradient"), m_config(std::move(config))
{
    if (m_config.kind.lbfgs)
        throw std::invalid_argument("gradient: GradientTrainer runs first-order methods, not L-BFGS");
}

void GradientTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    if (m_config.precision == Precision::Float32)
        fitIn<float>(data, ctx);
    else
        fitIn<double>(data, ctx);
}

template <class Scalar>
void GradientTrainer::fitIn(const DatasetView& data, RunContext& ctx)
{
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
    using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
    constexpr bool kDouble = std::is_same_v<Scalar, double>;
    const GradientConfig& c = m_config;
    checkTrainingData(data, false);  // non-finite data diverge, reported as such
    const Eigen::Index n = data.rows();
    const num::MlpLoss loss = c.resolveLoss(data.task);
    const std::uint64_t seed = ctx.seed();
    m_net = c.makeNetwork(data.inputs(), data.outputs(), data.task, deriveSeed(seed, kSeedWeights));
    // The network being trained: m_net itself in double; in float32 a float copy of the same
    // initial weights, published back into m_net (exactly: float → double) before every
    // checkpoint, the divergence report and the end of the run — so the model, checkpoints and
    // predictions are always the house's double network.
    num::BasicMlp<Scalar> floatNet;
    num::BasicMlp<Scalar>& net = [&]() -> num::BasicMlp<Scalar>& {
        if constexpr (kDouble)
            return m_net;
        else
            return floatNet = m_net.template cast<Scalar>();
    }();
    auto publish = [&] {
        if constexpr (!kDouble)
            m_net.assignFrom(net);
    };

    RowSplit split = splitRows(n, c.stopping.validationFraction, seed);
    std::vector<Eigen::Index>& trainRows = split.train;
    const std::vector<Eigen::Index>& valRows = split.validation;
    const Eigen::Index nVal = Eigen::Index(valRows.size());
    const Eigen::Index nTrain = n - nVal;
    // Unshuffled training on all rows reads contiguous samples: no gathering at all.
    const bool contiguous = !c.shuffle && nVal == 0;

    const Eigen::Index batch = std::min<Eigen::Index>(c.batchSize, nTrain);
    const Eigen::Index batches = (nTrain + batch - 1) / batch;
    // Inputs and targets in the arithmetic of the run (float32: rounded once, here).
    const Matrix xt = train::transposedCopy<Scalar>(data.x);
    Matrix yCopy;
    if constexpr (!kDouble)
        yCopy = data.y.template cast<Scalar>();
    const Eigen::Ref<const Matrix> y = [&]() -> Eigen::Ref<const Matrix> {
        if constexpr (kDouble)
            return data.y;
        else
            return yCopy;
    }();
    train::BasicBatchGradient<Scalar> engine(net, loss, xt, y, batch);
    std::vector<Matrix> grads = net.zeroGradients();
    train::BasicOptimizer<Scalar> optimizer(c.optimizer, net.parameterCount());
    std::mt19937_64 shuffleGen(deriveSeed(seed, kSeedShuffle));

    // Batch size 1: one forward/backward on the sample's own column and the first layer's
    // outer-product gradient fused into the update, never formed (see applyOuter()).
    num::BasicMlpWorkspace<Scalar> single(net, 1);
    auto singleBackward = [&](Eigen::Index row) {
        const auto x = xt.middleCols(row, 1);
        net.forwardColumns(x, single);
        return net.backwardColumns(x, engine.targetRow(row), loss, single, grads, false,
                                   /*firstGradientLayer=*/1);
    };
    auto singleUpdate = [&](Eigen::Index row, double lr) {
        optimizer.beginStep();
        optimizer.applyOuter(lr, 0, net.mutableWeights(0), xt.col(row), single.deltas[0].topRows(1), net.bias(0));
        Eigen::Index offset = net.weights(0).size();
        for (int l = 1; l < net.layerCount(); ++l) {
            auto w = net.mutableWeights(l);
            const Matrix& g = grads[std::size_t(l)];
            optimizer.apply(lr, offset, Eigen::Map<Vector>(w.data(), w.size()),
                            Eigen::Map<const Vector>(g.data(), g.size()));
            offset += w.size();
        }
    };

    recordRunFacts(ctx, batch, loss, nVal);
    ctx.record("batch_path", QString::fromStdString(engine.pathFor(batch)));

    // The algorithm: one minibatch update per step; the loop does the rest (Stop, checkpoints
    // at epoch ends and every checkpoint_every minibatches, divergence, early stopping).
    const double penaltyScale = 0.5 * c.weightDecay;
    double lr = 0;
    train::TrainingLoop::Hooks hooks;
    hooks.beginEpoch = [&](long long e) {
        lr = c.learningRateAt(int(e));
        if (c.shuffle)
            train::shuffle(trainRows, shuffleGen);
    };
    hooks.step = [&](const train::LoopPosition& at) {
        const Eigen::Index b = at.stepInEpoch - 1;
        const Eigen::Index start = b * batch;
        const Eigen::Index m = std::min(batch, nTrain - start);
        const Eigen::Index row = contiguous ? start : trainRows[std::size_t(start)];
        typename train::BasicBatchGradient<Scalar>::Result r;
        if (batch == 1)
            r.loss = singleBackward(row);
        else if (contiguous)
            r = engine.gradient(net, nullptr, start, m, grads, ctx.stopToken());
        else
            r = engine.gradient(net, trainRows.data() + start, 0, m, grads, ctx.stopToken());
        if (!r.stopped && std::isfinite(r.loss)) {
            if (batch == 1)
                singleUpdate(row, lr);
            else
                optimizer.step(lr, net, grads, 1.0 / double(m));
        }
        return train::StepResult{r.loss, double(m), r.stopped};
    };
    // Checkpoints report the mean minibatch loss so far in the epoch + λ/2‖w‖² (of the
    // published double weights).
    hooks.checkpointLoss = [&](double mean) {
        if (penaltyScale > 0)
            publish();
        return mean + (penaltyScale > 0 ? penaltyScale * squaredNorm(m_net) : 0.0);
    };
    if constexpr (!kDouble) {
        hooks.beforeCheckpoint = [&](const train::LoopPosition&) { publish(); };
        hooks.beforeDivergence = [&](const train::LoopPosition&) { publish(); };
    }
    RunLoopHost host(ctx);
    train::TrainingLoop loop(host);
    loop.checkpointEvery(c.checkpointEvery);
    loop.divergenceMessage([&](const train::LoopPosition& at, double l) {
        return minibatchDivergenceMessage(at.epoch, at.stepInEpoch, batches, l);
    });
    std::vector<Matrix> bestWeights;
    if (nVal > 0)
        loop.earlyStopping(
            c.stopping.patience,
            [&]() -> std::optional<double> {
                const auto v = engine.loss(net, valRows.data(), 0, nVal, ctx.stopToken());
                if (v.stopped)
                    return std::nullopt;
                return v.loss / double(nVal);
            },
            [&] { bestWeights = net.allWeights(); }, [&] { net.setAllWeights(bestWeights); });
    loop.run(train::TrainingLoop::epochs(c.epochs(), batches), hooks);
    publish();
}

void GradientTrainer::recordRunFacts(RunContext& ctx, Eigen::Index batch, num::MlpLoss loss, Eigen::Index validationRows) const
{
    recordNetwork(ctx);
    ctx.record("batch_size", double(batch));
    ctx.record("loss_function", loss == num::MlpLoss::SoftmaxCrossEntropy ? "cross_entropy" : "squared");
    if (m_config.precision == Precision::Float32)
        ctx.record("precision", "float32");
    if (validationRows > 0)
        ctx.record("validation_rows", double(validationRows));
}

QJsonObject GradientTrainer::predictCost(const ProblemShape& shape) const
{
    const double rows = double(shape.rows) * (1.0 - m_config.stopping.validationFraction);
    const double perEpoch = 6.0 * m_config.weightCount(shape.inputs, shape.outputs) * rows;
    // A checkpoint at every epoch end and every checkpoint_every minibatches within an epoch.
    const double batches = std::ceil(std::max(rows, 1.0) / double(std::max<Eigen::Index>(m_config.batchSize, 1)));
    const double perEpochCheckpoints =
        1.0 + (m_config.checkpointEvery > 0 ? std::floor(batches / double(m_config.checkpointEvery)) : 0.0);
    return QJsonObject{{"flops", perEpoch * m_config.epochs()},
                       {"flops_per_epoch", perEpoch},
                       {"checkpoints", perEpochCheckpoints * m_config.epochs()},
                       {"memory_bytes", m_config.workingMemoryBytes(shape.inputs, shape.outputs, shape.rows,
                                                                    tbb::this_task_arena::max_concurrency())}};
}

} // namespace tb::gradient

namespace tb::gradient {

namespace {

// Replica data → lane @p ln of a lock-step batch: row i of the batch is row rows[i] of the
// replica's x (n × d) and y (n × k), both row-major; xs[(i·d + a)·8 + ln], ys[(j·8 + i)·8 + ln].
// D and K > 0: d and k known when compiled (the toy networks' 1 to 4 inputs and outputs), so the
// copies of a row are straight-line code; 0: read from @p d and @p k. (With loops of one or two
// turns of unknown length the gathers were a fifth of a toy sweep's time.)
template <int D, int K>
void gatherLaneOf(int ln, const Eigen::Index* __restrict rows, const double* __restrict x, const double* __restrict y,
                  Eigen::Index n, Eigen::Index d, Eigen::Index k, double* __restrict xs, double* __restrict ys)
{
    constexpr int W = num::kLanes;
    if constexpr (D > 0) {
        d = D;
        k = K;
    }
    for (Eigen::Index i = 0; i < n; ++i) {
        const double* xrow = x + rows[i] * d;
        const double* yrow = y + rows[i] * k;
        for (Eigen::Index a = 0; a < d; ++a)
            xs[(i * d + a) * W + ln] = xrow[a];
        for (Eigen::Index j = 0; j < k; ++j)
            ys[(j * 8 + i) * W + ln] = yrow[j];
    }
}

using GatherLane = void (*)(int, const Eigen::Index*, const double*, const double*, Eigen::Index, Eigen::Index,
                            Eigen::Index, double*, double*);

template <int D>
constexpr std::array<GatherLane, 4> gathersWithInputs()
{
    return {&gatherLaneOf<D, 1>, &gatherLaneOf<D, 2>, &gatherLaneOf<D, 3>, &gatherLaneOf<D, 4>};
}

// The gather for d inputs and k outputs: a straight-line one for 1 ≤ d, k ≤ 4, the general one otherwise.
GatherLane gatherLane(Eigen::Index d, Eigen::Index k)
{
    static constexpr std::array<std::array<GatherLane, 4>, 4> kSmall{
        gathersWithInputs<1>(), gathersWithInputs<2>(), gathersWithInputs<3>(), gathersWithInputs<4>()};
    return d >= 1 && d <= 4 && k >= 1 && k <= 4 ? kSmall[std::size_t(d - 1)][std::size_t(k - 1)] : &gatherLaneOf<0, 0>;
}

} // namespace

int GradientTrainer::lockstepWidth(const ProblemShape& shape) const
{
    const GradientConfig& c = m_config;
    if (c.precision != Precision::Double || c.stopping.validationFraction > 0 || c.weightDecay != 0 || shape.isSparse() ||
        shape.rows < 2 || shape.inputs < 1 || shape.outputs < 1 || c.batchSize < shape.rows)
        return 0;
    const num::MlpLoss loss = c.resolveLoss(shape.task);
    if (loss != num::MlpLoss::SquaredError)
        return 0;
    try {
        const num::Mlp net = c.makeNetwork(shape.inputs, shape.outputs, shape.task, 0);
        return num::SmallMlpKernel::fitsLanes(net, shape.rows, loss) ? num::kLanes : 0;
    } catch (const std::exception&) {
        return 0;  // fit() reports what is wrong with the shape
    }
}

void GradientTrainer::fitReplicas(const std::vector<DatasetView>& data, const std::vector<std::uint64_t>& seeds,
                                  StopToken stop)
{
    using num::Lanes;
    constexpr int W = num::kLanes;
    const GradientConfig& c = m_config;
    const int count = int(data.size());
    if (count < 1 || count > W || seeds.size() != data.size())
        throw std::invalid_argument("gradient: fitReplicas takes 1 to " + std::to_string(W) +
                                    " replicas with one seed each, got " + std::to_string(data.size()) + " and " +
                                    std::to_string(seeds.size()) + " seeds");
    const ProblemShape shape{data[0].rows(), data[0].inputs(), data[0].outputs(), data[0].task};
    if (lockstepWidth(shape) < count)
        throw std::invalid_argument("gradient: these parameters and data are not trained in lock step");
    const Eigen::Index n = shape.rows, d = shape.inputs, k = shape.outputs;
    const num::MlpLoss loss = c.resolveLoss(shape.task);
    // Each replica's data, row-major and contiguous (read once per epoch in its row order), and
    // its network with fit()'s initial weights.
    std::vector<double> xr(static_cast<std::size_t>(count * n * d)), yr(static_cast<std::size_t>(count * n * k));
    std::vector<num::Mlp> nets;
    for (int r = 0; r < count; ++r) {
        const DatasetView& v = data[std::size_t(r)];
        if (v.rows() != n || v.inputs() != d || v.outputs() != k || v.y.rows() != n || v.isSparse() ||
            v.task != shape.task)
            throw std::invalid_argument("gradient: lock-step replicas need data of one shape; replica " +
                                        std::to_string(r) + " differs from replica 0");
        for (Eigen::Index i = 0; i < n; ++i) {
            for (Eigen::Index a = 0; a < d; ++a)
                xr[std::size_t((r * n + i) * d + a)] = v.x(i, a);
            for (Eigen::Index j = 0; j < k; ++j)
                yr[std::size_t((r * n + i) * k + j)] = v.y(i, j);
        }
        nets.push_back(c.makeNetwork(d, k, shape.task, deriveSeed(seeds[std::size_t(r)], kSeedWeights)));
    }
    const num::Mlp& proto = nets[0];
    const int layers = proto.layerCount();

    // All weights (and gradients) in one lane vector, layer after layer, each layer laid out as
    // Mlp's (weightRows × width, column-major) — the flattened order Optimizer::step() walks.
    // Lanes past the replicas repeat replica 0 (their results are never read).
    Eigen::Index parameters = 0;
    Eigen::Index offset[num::SmallMlpKernel::kMaxLayers + 1] = {};
    for (int l = 0; l < layers; ++l)
        offset[l + 1] = parameters += proto.weights(l).size();
    std::vector<Lanes> w(static_cast<std::size_t>(parameters)), g(static_cast<std::size_t>(parameters), Lanes(0.0));
    auto lane = [](std::vector<Lanes>& v) { return reinterpret_cast<double*>(v.data()); };  // [i·W + lane]
    for (int l = 0; l < layers; ++l)
        for (int ln = 0; ln < W; ++ln) {
            const double* src = nets[std::size_t(ln < count ? ln : 0)].weights(l).data();
            for (Eigen::Index i = offset[l]; i < offset[l + 1]; ++i)
                lane(w)[i * W + ln] = src[i - offset[l]];
        }
    const Lanes* wp[num::SmallMlpKernel::kMaxLayers] = {};
    Lanes* gp[num::SmallMlpKernel::kMaxLayers] = {};
    for (int l = 0; l < layers; ++l) {
        wp[l] = w.data() + offset[l];
        gp[l] = g.data() + offset[l];
    }

    // Each replica's row order and generator, as fit() has them.
    std::vector<std::mt19937_64> shuffleGen;
    std::vector<std::vector<Eigen::Index>> rowsOf(static_cast<std::size_t>(count));
    for (int r = 0; r < count; ++r) {
        rowsOf[std::size_t(r)].resize(std::size_t(n));
        std::iota(rowsOf[std::size_t(r)].begin(), rowsOf[std::size_t(r)].end(), Eigen::Index(0));
        shuffleGen.emplace_back(deriveSeed(seeds[std::size_t(r)], kSeedShuffle));
    }
    // The batch in lanes: inputs xs[i·d + a], targets ys[j·8 + i] (SmallMlpKernel::runLanes()).
    std::vector<Lanes> xs(static_cast<std::size_t>(n * d)), ys(64, Lanes(0.0));
    const Lanes* cols[8] = {};
    for (Eigen::Index i = 0; i < n; ++i)
        cols[i] = xs.data() + i * d;
    const GatherLane gatherInto = gatherLane(d, k);
    auto gather = [&](int ln, int r, const std::vector<Eigen::Index>& rows) {
        gatherInto(ln, rows.data(), xr.data() + r * n * d, yr.data() + r * n * k, n, d, k, lane(xs), lane(ys));
    };
    for (int ln = count; ln < W; ++ln)
        gather(ln, 0, rowsOf[0]);  // unchanged from here on

    std::vector<std::vector<double>> losses(static_cast<std::size_t>(count));
    for (auto& l : losses)
        l.reserve(std::size_t(c.epochs()));
    std::vector<char> running(static_cast<std::size_t>(count), 1);  // not diverged
    int left = count;
    train::LaneOptimizer optimizer(c.optimizer, parameters);
    const double gradScale = 1.0 / double(n);
    auto publish = [&](int r) {
        for (int l = 0; l < layers; ++l) {
            double* dst = nets[std::size_t(r)].mutableWeights(l).data();
            for (Eigen::Index i = offset[l]; i < offset[l + 1]; ++i)
                dst[i - offset[l]] = lane(w)[i * W + r];
        }
    };
    for (int e = 0; e < c.epochs() && left > 0 && !stop.stopRequested(); ++e) {
        const double lr = c.learningRateAt(e);
        // Each replica's own row order (fit()'s shuffle, its own generator), gathered.
        for (int r = 0; r < count; ++r) {
            if (c.shuffle)
                train::shuffle(rowsOf[std::size_t(r)], shuffleGen[std::size_t(r)]);
            gather(r, r, rowsOf[std::size_t(r)]);
        }
        // BatchGradient's sums (0 + (0 + kernel loss)), then Optimizer::step(lr, net, grads, 1/m).
        const Lanes total = 0.0 + (0.0 + num::SmallMlpKernel::runLanes(proto, loss, wp, cols, ys.data(), n, n, gp));
        for (int r = 0; r < count; ++r) {
            if (!running[std::size_t(r)])
                continue;
            losses[std::size_t(r)].push_back(total[r]);
            if (!std::isfinite(total[r])) {
                // fit() ends here without this update: the replica's model is its weights now.
                running[std::size_t(r)] = 0;
                --left;
                publish(r);
            }
        }
        if (left == 0)
            break;
        optimizer.beginStep();
        optimizer.apply(lr, 0, w.data(), g.data(), parameters, gradScale);
    }
    m_replicas.clear();
    for (int r = 0; r < count; ++r) {
        if (running[std::size_t(r)])
            publish(r);
        m_replicas.push_back(std::make_unique<GradientReplica>(c, std::move(nets[std::size_t(r)]),
                                                               std::move(losses[std::size_t(r)]), n,
                                                               seeds[std::size_t(r)]));
    }
}

std::unique_ptr<Trainer> GradientTrainer::replica(int r)
{
    if (r < 0 || r >= int(m_replicas.size()))
        throw std::out_of_range("gradient: no lock-step replica " + std::to_string(r) + " (" +
                                std::to_string(m_replicas.size()) + " fitted)");
    if (!m_replicas[std::size_t(r)])
        throw std::logic_error("gradient: lock-step replica " + std::to_string(r) + " was taken already");
    return std::move(m_replicas[std::size_t(r)]);
}

} // namespace tb::gradient
