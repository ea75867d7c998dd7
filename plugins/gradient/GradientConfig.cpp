#include "GradientConfig.h"

#include <trainbench/toolkit/Ridge.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::gradient {
namespace {

struct MethodInfo {
    const char* id;
    AlgorithmKind kind;
    double learningRate;  // usual default of the method
    double epsilon;
};

const MethodInfo kMethods[] = {
    {"gradient.sgd", {false, Method::Sgd}, 0.01, 0.0},
    {"gradient.momentum", {false, Method::Momentum}, 0.01, 0.0},
    {"gradient.nag", {false, Method::Nag}, 0.01, 0.0},
    {"gradient.adagrad", {false, Method::AdaGrad}, 0.01, 1e-10},  // PyTorch's ε for AdaGrad
    {"gradient.rmsprop", {false, Method::RmsProp}, 0.001, 1e-8},
    {"gradient.adam", {false, Method::Adam}, 0.001, 1e-8},
    {"gradient.lbfgs", {true, Method::Sgd}, 0.0, 0.0},
};

const MethodInfo& info(const AlgorithmKind& k)
{
    for (const auto& m : kMethods)
        if (m.kind.lbfgs == k.lbfgs && (k.lbfgs || m.kind.method == k.method))
            return m;
    throw std::invalid_argument("gradient: unknown algorithm kind");
}

const QStringList kOutputs{"auto", "identity", "sigmoid", "tanh", "softplus", "elu", "softmax"};

num::Activation activationNamed(const QString& name)
{
    const auto a = num::activationFromName(name.toStdString());
    if (!a)
        throw std::invalid_argument("gradient: unknown activation \"" + name.toStdString() + "\"");
    return *a;
}

// The shared network block, then what the gradient methods add to the network's definition.
void addNetworkParams(ParamSchema& s)
{
    NetworkDefaults d;
    d.hiddenBiasHelp = QStringLiteral("Append a constant-1 input to every later layer (hidden biases); off with "
                                      "bias on is the block-layer papers' input-only bias.");
    tb::addNetworkParams(s, d);
    s.add(ParamSpec::choice("output_activation", QStringLiteral("Output activation"), kOutputs, "auto",
                            QStringLiteral("Activation of the output layer; auto = softmax for classification, "
                                           "identity for regression."))
              .withAlias(QStringLiteral("output")));
    // One name per loss across the plugins (docs/parameters.md): "squared", as dsgd's; the
    // former "squared_error" still loads.
    s.add(ParamSpec::choice("loss", QStringLiteral("Loss"), {"auto", "cross_entropy", "squared"}, "auto",
                            QStringLiteral("Per-sample loss averaged over a batch: cross_entropy = −Σ y log p on a "
                                           "softmax output (classification), squared = ½‖ŷ − y‖²; auto = "
                                           "cross_entropy for classification with a softmax output, else "
                                           "squared."))
              .withChoiceAliases({{QStringLiteral("squared_error"), QStringLiteral("squared")}}));
    s.add(toolkit::ridgeParam(QStringLiteral("every weight, biases included; each gradient gets the weight decay "
                                             "2r·w."))
              .withAlias(QStringLiteral("weight_decay")));
    s.addFormatChange(toolkit::ridgeWasTwice(QStringLiteral("λ of mean loss + (λ/2)·‖w‖² (weight decay λ·w)")));
}

// Gives @p key of @p s its default search space (docs/parameters.md, "Default search spaces").
void searched(ParamSchema& s, const char* key, const SearchSpace& space)
{
    if (!s.setSearch(QString::fromLatin1(key), space))
        throw std::logic_error(std::string("gradient: no parameter \"") + key + "\" to search");
}

// Tuned comparisons search the step size, the batch size and the ridge of the first-order
// methods; L-BFGS has no step size to tune, so its ridge and its memory.
void addSearchSpaces(ParamSchema& s, const AlgorithmKind& kind)
{
    searched(s, "ridge", SearchSpace::logUniform(5e-7, 5e-2));
    if (kind.lbfgs) {
        searched(s, "memory", SearchSpace::logInteger(3, 50));
        return;
    }
    searched(s, "lr", SearchSpace::logUniform(1e-4, 1.0));
    searched(s, "batch_size", SearchSpace::logInteger(1, 1024));
}

} // namespace

QStringList GradientConfig::algorithmIds()
{
    QStringList ids;
    for (const auto& m : kMethods)
        ids << QString::fromLatin1(m.id);
    return ids;
}

std::optional<AlgorithmKind> GradientConfig::kindFromId(const QString& id)
{
    for (const auto& m : kMethods)
        if (id == QLatin1String(m.id))
            return m.kind;
    return std::nullopt;
}

OptimizerDefaults GradientConfig::optimizerDefaults(const AlgorithmKind& kind)
{
    const MethodInfo& mi = info(kind);
    OptimizerDefaults d;
    d.method = kind.method;
    d.lr = mi.learningRate;
    d.epsilon = mi.epsilon > 0 ? mi.epsilon : std::numeric_limits<double>::quiet_NaN();
    d.lrHelp = QStringLiteral("Step size of every update.");
    using Kind = train::LearningRateSchedule::Kind;
    d.schedules = {Kind::Constant, Kind::Step, Kind::Inverse};
    d.unit = QStringLiteral("epochs");
    return d;
}

StoppingDefaults GradientConfig::stoppingDefaults(const AlgorithmKind& kind)
{
    StoppingDefaults d;
    if (kind.lbfgs) {
        d.offerIterations = true;
        d.iterations = 100;
        d.iterationsMax = 1000000;
        d.iterationsHelp = QStringLiteral("Most L-BFGS iterations; each is one checkpoint (\"epoch\") and uses one or "
                                          "more full-batch gradients.");
        d.offerGradientTolerance = true;
        d.gradientTolerance = 1e-6;
        d.gradientToleranceMin = 1e-14;
        d.gradientToleranceMax = 1.0;
        d.gradientTest = train::GradientTest::Scaled;
        return d;
    }
    d.offerEpochs = true;
    d.epochs = 10;
    d.epochsMax = 10000000;
    d.offerEarlyStopping = true;
    return d;
}

ParamSchema GradientConfig::schema(const AlgorithmKind& kind)
{
    ParamSchema s;
    if (kind.lbfgs) {
        addStoppingParams(s, stoppingDefaults(kind));
        addLbfgsParams(s, LbfgsDefaults{});
        addNetworkParams(s);
        addSearchSpaces(s, kind);
        return s;
    }
    addOptimizerParams(s, optimizerDefaults(kind));
    s.add(ParamSpec::integer("batch_size", QStringLiteral("Batch size"), 32, 1, 1000000000,
                             QStringLiteral("Samples per update; values above the training rows mean full batch.")));
    addStoppingParams(s, stoppingDefaults(kind));
    s.add(ParamSpec::boolean("shuffle", QStringLiteral("Shuffle"), true,
                             QStringLiteral("Visit the samples in a new random order every epoch (seeded from the "
                                            "run's seed).")));
    s.add(ParamSpec::integer("checkpoint_every", QStringLiteral("Checkpoint every"), 0, 0, 1000000000,
                             QStringLiteral("Extra checkpoints every this many minibatches inside an epoch "
                                            "(0 = at epoch ends only).")));
    s.add(ParamSpec::choice("precision", QStringLiteral("Precision"), {"double", "float32"}, "double",
                            QStringLiteral("Arithmetic of training. double: every number as before. float32: the "
                                           "forward and backward products, the gradients, the weights being "
                                           "trained and the optimiser's state in single precision (about twice "
                                           "as fast; the inputs are rounded to float once per run); every loss "
                                           "is summed in double, and the model, checkpoints and predictions stay "
                                           "double (the float weights converted exactly). Deterministic for a seed "
                                           "and independent of the thread count, like double, but not "
                                           "bit-identical to double: on Fashion-MNIST the same test accuracy at "
                                           "batch 128, and within the spread over seeds at batch 1, where 60000 "
                                           "single-sample steps take another trajectory (docs/gradient.md).")));
    addNetworkParams(s);
    addSearchSpaces(s, kind);
    return s;
}

GradientConfig GradientConfig::fromParams(const AlgorithmKind& kind, const QVariantMap& p)
{
    GradientConfig c;
    c.kind = kind;
    c.network = networkFromParams(p);  // throws for init_low > init_high
    const QString out = p.value("output_activation").toString();
    if (out != QLatin1String("auto")) {
        const auto a = num::activationFromName(out.toStdString());
        if (!a)
            throw std::invalid_argument("gradient: parameter \"output_activation\": unknown activation \"" +
                                        out.toStdString() + "\"");
        c.output = *a;
    }
    const QString loss = p.value("loss").toString();
    c.loss = loss == QLatin1String("cross_entropy") ? LossChoice::CrossEntropy
             : loss == QLatin1String("squared") ? LossChoice::SquaredError
                                                      : LossChoice::Auto;
    c.weightDecay = 2.0 * p.value("ridge").toDouble();  // the gradient of r·‖w‖² is 2r·w
    c.stopping = stoppingFromParams(p, stoppingDefaults(kind));
    if (kind.lbfgs) {
        c.lbfgs = lbfgsFromParams(p);
    } else {
        const OptimizerDefaults od = optimizerDefaults(kind);
        c.optimizer = optimizerFromParams(p, od);
        c.optimizer.weightDecay = c.weightDecay;
        c.schedule = scheduleFromParams(p, od);
        c.batchSize = p.value("batch_size").toLongLong();
        c.shuffle = p.value("shuffle").toBool();
        c.checkpointEvery = p.value("checkpoint_every").toInt();
        const QString precision = p.value("precision").toString();
        if (precision == QLatin1String("float32"))
            c.precision = Precision::Float32;
        else if (precision != QLatin1String("double"))
            throw std::invalid_argument("gradient: parameter \"precision\": expected \"double\" or \"float32\", got \"" +
                                        precision.toStdString() + "\"");
    }
    c.check();
    return c;
}

void GradientConfig::check() const
{
    if (!num::activationFromName(network.activation))
        throw std::invalid_argument("gradient: parameter \"activation\": unknown activation \"" + network.activation +
                                    "\"");
    if (loss == LossChoice::CrossEntropy && output && *output != num::Activation::Softmax)
        throw std::invalid_argument("parameters \"loss\" and \"output_activation\": cross_entropy needs a softmax "
                                    "output, got \"" + std::string(num::activationName(*output)) + "\"");
    if (kind.lbfgs) {
        if (lbfgs.maxIterations < 1)
            throw std::invalid_argument("gradient: parameter \"iterations\" must be ≥ 1: the parameters were not "
                                        "normalised by the schema");
        return;
    }
    if (schedule.base <= 0 || batchSize < 1 || epochs() < 1 || schedule.every < 1)
        throw std::invalid_argument(QStringLiteral("gradient: parameters \"lr\" (%1), \"batch_size\" (%2), \"epochs\" "
                                                   "(%3) and \"step_epochs\" (%4) must be positive: the parameters were "
                                                   "not normalised by the schema")
                                        .arg(schedule.base)
                                        .arg(batchSize)
                                        .arg(epochs())
                                        .arg(schedule.every)
                                        .toStdString());
}

std::vector<Eigen::Index> GradientConfig::hiddenWidths() const
{
    return {network.hidden.begin(), network.hidden.end()};
}

num::Activation GradientConfig::hiddenActivation() const
{
    return activationNamed(QString::fromStdString(network.activation));
}

double GradientConfig::learningRateAt(int epoch) const
{
    return schedule.rate(double(epoch));
}

num::MlpLoss GradientConfig::resolveLoss(Task task) const
{
    const bool classification = task == Task::Classification;
    switch (loss) {
    case LossChoice::CrossEntropy:
        if (!classification)
            throw std::invalid_argument("gradient: parameter \"loss\": cross_entropy needs a classification "
                                        "dataset (one-hot targets); this one is regression");
        return num::MlpLoss::SoftmaxCrossEntropy;
    case LossChoice::SquaredError:
        return num::MlpLoss::SquaredError;
    case LossChoice::Auto:
        break;
    }
    const num::Activation out = output.value_or(classification ? num::Activation::Softmax : num::Activation::Identity);
    return classification && out == num::Activation::Softmax ? num::MlpLoss::SoftmaxCrossEntropy
                                                             : num::MlpLoss::SquaredError;
}

double GradientConfig::weightCount(Eigen::Index inputs, Eigen::Index outputs) const
{
    double total = 0;
    double prev = double(inputs);
    bool first = true;
    auto biasOf = [&] { return (first ? network.bias : network.hiddenBias) ? 1.0 : 0.0; };
    for (long long h : network.hidden) {
        total += (prev + biasOf()) * double(h);
        prev = double(h);
        first = false;
    }
    return total + (prev + biasOf()) * double(outputs);
}

double GradientConfig::workingMemoryBytes(Eigen::Index inputs, Eigen::Index outputs, Eigen::Index rows,
                                          int threads) const
{
    const double n = double(rows), d = double(inputs), k = double(outputs), w = weightCount(inputs, outputs);
    double widths = k; // neurons past the input layer: the forward values and deltas of one row
    for (long long h : network.hidden)
        widths += double(h);
    // Weight-sized vectors held at once. First-order: network, gradient, two optimiser states
    // (Adam), early stopping's best weights. L-BFGS: network, flat iterate, gradient, direction,
    // the line search's trial point and gradient, and `memory` (s, y) correction pairs.
    const double vectors = kind.lbfgs ? 6.0 + 2.0 * lbfgs.memory : 5.0;
    // BatchGradient (L-BFGS: over all rows): up to 16 chunks, each with forward/backward buffers
    // of at most 256 rows and gathered inputs/targets; every chunk but the first its own gradient.
    const double batch = kind.lbfgs ? n : std::min(double(batchSize), n);
    const double chunks = batch < 128 ? 1.0 : std::min(16.0, std::floor(batch / 64.0));
    const double block = std::min(256.0, std::ceil(batch / chunks));
    const double engine = chunks * block * (2.0 * widths + 2.0 * k + d) + (chunks - 1.0) * w;
    // The transposed input copy, the gradient engine's transposed targets (first-order methods)
    // and the row orders; the host's evaluation: Mlp::predict() keeps
    // values and deltas of up to 2048 rows per thread, plus predictions and targets of both sets.
    const double copies = n * d + (kind.lbfgs ? 0.0 : n * k) + 3.0 * n;
    const double evaluation = std::max(1, threads) * std::min(n, 2048.0) * (2.0 * widths + k) + 4.0 * n * k;
    if (!kind.lbfgs && precision == Precision::Float32) {
        // Float32: the weight vectors, the engine and the input copy (plus two copies of the targets)
        // in 4 bytes an entry; the published double network, the row orders and the host's
        // evaluation in 8.
        return 4.0 * (vectors * w + engine + n * d + 2.0 * n * k) + 8.0 * (w + 3.0 * n + evaluation);
    }
    return 8.0 * (vectors * w + engine + copies + evaluation);
}

num::Mlp GradientConfig::makeNetwork(Eigen::Index inputs, Eigen::Index outputs, Task task, std::uint64_t seed) const
{
    const num::MlpLoss l = resolveLoss(task);
    num::Activation out = output.value_or(task == Task::Classification ? num::Activation::Softmax
                                                                       : num::Activation::Identity);
    if (l == num::MlpLoss::SoftmaxCrossEntropy)
        out = num::Activation::Softmax;
    num::Mlp net = num::Mlp::withHidden(inputs, hiddenWidths(), outputs, hiddenActivation(), out, network.bias,
                                        network.hiddenBias);
    if (network.glorot)
        net.initGlorot(seed);
    else
        net.initUniform(seed, network.initLow, network.initHigh);
    return net;
}

std::string minibatchDivergenceMessage(long long epoch, long long stepInEpoch, Eigen::Index batches, double loss)
{
    return QStringLiteral("diverged in epoch %1 (minibatch %2 of %3): the minibatch loss is %4")
        .arg(epoch + 1)
        .arg(stepInEpoch)
        .arg(batches)
        .arg(loss)
        .toStdString();
}

} // namespace tb::gradient
