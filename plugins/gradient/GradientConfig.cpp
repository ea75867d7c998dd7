#include "GradientConfig.h"

#include <algorithm>
#include <cmath>
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
    s.add(ParamSpec::choice("loss", QStringLiteral("Loss"), {"auto", "cross_entropy", "squared_error"}, "auto",
                            QStringLiteral("Per-sample loss averaged over a batch: cross_entropy = −Σ y log p on a "
                                           "softmax output (classification), squared_error = ½‖ŷ − y‖²; auto = "
                                           "cross_entropy for classification with a softmax output, else "
                                           "squared_error.")));
    s.add(ParamSpec::real("weight_decay", QStringLiteral("Weight decay λ"), 0.0, 0.0, 100.0,
                          QStringLiteral("L2 penalty λ/2·‖w‖² on all weights (biases included), i.e. λ·w added to "
                                         "every gradient.")));
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

ParamSchema GradientConfig::schema(const AlgorithmKind& kind)
{
    const MethodInfo& mi = info(kind);
    ParamSchema s;
    if (kind.lbfgs) {
        s.add(ParamSpec::integer("iterations", QStringLiteral("Iterations"), 100, 1, 1000000,
                                 QStringLiteral("Most L-BFGS iterations; each is one checkpoint (\"epoch\") and uses "
                                                "one or more full-batch gradients.")));
        s.add(ParamSpec::integer("memory", QStringLiteral("Memory"), 10, 1, 1000,
                                 QStringLiteral("Correction pairs kept for the inverse-Hessian approximation.")));
        s.add(ParamSpec::real("tolerance", QStringLiteral("Gradient tolerance"), 1e-6, 1e-14, 1.0,
                              QStringLiteral("Stops when ‖∇f‖ ≤ tolerance·max(1, ‖w‖)."), true));
        s.add(ParamSpec::choice("line_search", QStringLiteral("Line search"), {"strong_wolfe", "backtracking"},
                                "strong_wolfe",
                                QStringLiteral("strong_wolfe = bracketing and zoom (Nocedal & Wright, Alg. 3.5), "
                                               "backtracking = Armijo backtracking.")));
        addNetworkParams(s);
        return s;
    }
    s.add(ParamSpec::real("lr", QStringLiteral("Learning rate η"), mi.learningRate, 1e-8, 10.0,
                          QStringLiteral("Step size of every update."), true));
    switch (kind.method) {
    case Method::Momentum:
    case Method::Nag:
        s.add(ParamSpec::real("momentum", QStringLiteral("Momentum μ"), 0.9, 0.0, 0.9999,
                              QStringLiteral("Weight of the previous velocity.")));
        break;
    case Method::RmsProp:
        s.add(ParamSpec::real("rho", QStringLiteral("Decay ρ"), 0.9, 0.0, 0.9999,
                              QStringLiteral("Decay of the running mean of squared gradients.")));
        break;
    case Method::Adam:
        s.add(ParamSpec::real("beta1", QStringLiteral("β₁"), 0.9, 0.0, 0.9999,
                              QStringLiteral("Decay of the first-moment estimate.")));
        s.add(ParamSpec::real("beta2", QStringLiteral("β₂"), 0.999, 0.0, 0.999999,
                              QStringLiteral("Decay of the second-moment estimate.")));
        break;
    case Method::Sgd:
    case Method::AdaGrad:
        break;
    }
    if (kind.method == Method::AdaGrad || kind.method == Method::RmsProp || kind.method == Method::Adam)
        s.add(ParamSpec::real("epsilon", QStringLiteral("ε"), mi.epsilon, 1e-16, 1.0,
                              QStringLiteral("Added to the root of the squared-gradient estimate."), true));
    s.add(ParamSpec::integer("batch_size", QStringLiteral("Batch size"), 32, 1, 1000000000,
                             QStringLiteral("Samples per update; values above the training rows mean full batch.")));
    s.add(ParamSpec::integer("epochs", QStringLiteral("Epochs"), 10, 1, 10000000,
                             QStringLiteral("Passes over the training set.")));
    s.add(ParamSpec::boolean("shuffle", QStringLiteral("Shuffle"), true,
                             QStringLiteral("Visit the samples in a new random order every epoch (seeded from the "
                                            "run's seed).")));
    s.add(ParamSpec::choice("schedule", QStringLiteral("Schedule"), {"constant", "step", "inverse"}, "constant",
                            QStringLiteral("Learning rate after e completed epochs: constant η; step "
                                           "η·step_factor^⌊e/step_epochs⌋; inverse η/(1 + inverse_decay·e).")));
    s.add(ParamSpec::integer("step_epochs", QStringLiteral("Step every"), 10, 1, 10000000,
                             QStringLiteral("Epochs between rate reductions of the step schedule.")));
    s.add(ParamSpec::real("step_factor", QStringLiteral("Step factor"), 0.5, 1e-6, 1.0,
                          QStringLiteral("Factor applied by the step schedule.")));
    s.add(ParamSpec::real("inverse_decay", QStringLiteral("Inverse decay"), 0.1, 0.0, 1e6,
                          QStringLiteral("Decay rate of the inverse (1/t) schedule, per epoch.")));
    s.add(ParamSpec::real("validation_fraction", QStringLiteral("Validation fraction"), 0.0, 0.0, 0.5,
                          QStringLiteral("Early stopping: share of the training rows held out (seeded) to stop "
                                         "when their loss has not improved for `patience` epochs; the best "
                                         "weights are kept. 0 = off.")));
    s.add(ParamSpec::integer("patience", QStringLiteral("Patience"), 5, 1, 1000000,
                             QStringLiteral("Early stopping: epochs without a better validation loss.")));
    s.add(ParamSpec::integer("checkpoint_every", QStringLiteral("Checkpoint every"), 0, 0, 1000000000,
                             QStringLiteral("Extra checkpoints every this many minibatches inside an epoch "
                                            "(0 = at epoch ends only).")));
    addNetworkParams(s);
    return s;
}

GradientConfig GradientConfig::fromParams(const AlgorithmKind& kind, const QVariantMap& p)
{
    GradientConfig c;
    c.kind = kind;
    c.network = networkFromParams(p);  // throws for init_low > init_high
    c.hidden.clear();
    for (long long h : c.network.hidden)
        c.hidden.push_back(Eigen::Index(h));
    c.activation = activationNamed(QString::fromStdString(c.network.activation));
    const QString out = p.value("output_activation").toString();
    if (out != QLatin1String("auto"))
        c.output = activationNamed(out);
    const QString loss = p.value("loss").toString();
    c.loss = loss == QLatin1String("cross_entropy") ? LossChoice::CrossEntropy
             : loss == QLatin1String("squared_error") ? LossChoice::SquaredError
                                                      : LossChoice::Auto;
    c.init = c.network.glorot ? InitKind::Glorot : InitKind::Uniform;
    c.initLow = c.network.initLow;
    c.initHigh = c.network.initHigh;
    c.weightDecay = p.value("weight_decay").toDouble();
    if (c.loss == LossChoice::CrossEntropy && c.output && *c.output != num::Activation::Softmax)
        throw std::invalid_argument(QStringLiteral("parameters \"loss\" and \"output_activation\": cross_entropy needs "
                                                   "a softmax output, got \"%1\"").arg(out).toStdString());

    if (kind.lbfgs) {
        c.iterations = p.value("iterations").toInt();
        c.memory = p.value("memory").toInt();
        c.tolerance = p.value("tolerance").toDouble();
        c.strongWolfe = p.value("line_search").toString() == QLatin1String("strong_wolfe");
        return c;
    }
    c.optimizer.method = kind.method;
    c.optimizer.weightDecay = c.weightDecay;
    c.optimizer.momentum = p.value("momentum", 0.9).toDouble();
    c.optimizer.rho = p.value("rho", 0.9).toDouble();
    c.optimizer.beta1 = p.value("beta1", 0.9).toDouble();
    c.optimizer.beta2 = p.value("beta2", 0.999).toDouble();
    c.optimizer.epsilon = p.value("epsilon", 1e-8).toDouble();
    c.schedule.base = p.value("lr").toDouble();
    c.batchSize = p.value("batch_size").toLongLong();
    c.epochs = p.value("epochs").toInt();
    c.shuffle = p.value("shuffle").toBool();
    const QString sched = p.value("schedule").toString();
    using Kind = train::LearningRateSchedule::Kind;
    c.schedule.kind = sched == QLatin1String("step")      ? Kind::Step
                      : sched == QLatin1String("inverse") ? Kind::Inverse
                                                          : Kind::Constant;
    c.schedule.every = p.value("step_epochs").toInt();
    c.schedule.factor = p.value("step_factor").toDouble();
    c.schedule.decay = p.value("inverse_decay").toDouble();
    c.validationFraction = p.value("validation_fraction").toDouble();
    c.patience = p.value("patience").toInt();
    c.checkpointEvery = p.value("checkpoint_every").toInt();
    if (c.schedule.base <= 0 || c.batchSize < 1 || c.epochs < 1 || c.schedule.every < 1)
        throw std::invalid_argument("gradient: parameters were not normalised by the schema");
    return c;
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
    for (Eigen::Index h : hidden) {
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
    for (Eigen::Index h : hidden)
        widths += double(h);
    // Weight-sized vectors held at once. First-order: network, gradient, two optimiser states
    // (Adam), early stopping's best weights. L-BFGS: network, flat iterate, gradient, direction,
    // the line search's trial point and gradient, and `memory` (s, y) correction pairs.
    const double vectors = kind.lbfgs ? 6.0 + 2.0 * memory : 5.0;
    // BatchGradient (L-BFGS: over all rows): up to 16 chunks, each with forward/backward buffers
    // of at most 256 rows and gathered inputs/targets; every chunk but the first its own gradient.
    const double batch = kind.lbfgs ? n : std::min(double(batchSize), n);
    const double chunks = batch < 128 ? 1.0 : std::min(16.0, std::floor(batch / 64.0));
    const double block = std::min(256.0, std::ceil(batch / chunks));
    const double engine = chunks * block * (2.0 * widths + 2.0 * k + d) + (chunks - 1.0) * w;
    // The transposed input copy and the row orders; the host's evaluation: Mlp::predict() keeps
    // values and deltas of up to 2048 rows per thread, plus predictions and targets of both sets.
    const double copies = n * d + 3.0 * n;
    const double evaluation = std::max(1, threads) * std::min(n, 2048.0) * (2.0 * widths + k) + 4.0 * n * k;
    return 8.0 * (vectors * w + engine + copies + evaluation);
}

num::Mlp GradientConfig::makeNetwork(Eigen::Index inputs, Eigen::Index outputs, Task task, std::uint64_t seed) const
{
    const num::MlpLoss l = resolveLoss(task);
    num::Activation out = output.value_or(task == Task::Classification ? num::Activation::Softmax
                                                                       : num::Activation::Identity);
    if (l == num::MlpLoss::SoftmaxCrossEntropy)
        out = num::Activation::Softmax;
    num::Mlp net = num::Mlp::withHidden(inputs, hidden, outputs, activation, out, network.bias, network.hiddenBias);
    if (init == InitKind::Glorot)
        net.initGlorot(seed);
    else
        net.initUniform(seed, initLow, initHigh);
    return net;
}

} // namespace tb::gradient
