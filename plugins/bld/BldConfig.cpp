#include "BldConfig.h"

#include <trainbench/toolkit/Ridge.h>

#include <cmath>
#include <stdexcept>

namespace tb::bld {
namespace {

struct AlgorithmName {
    const char* id;
    Algorithm algorithm;
};
const AlgorithmName kAlgorithms[] = {
    {"bld.b2ld", Algorithm::B2ld},
    {"bld.lbfgs", Algorithm::Lbfgs},
    {"bld.bling", Algorithm::Bling},
    {"bld.ig", Algorithm::Ig},
};

num::Activation activationNamed(const QString& name)
{
    const auto a = num::activationFromName(name.toStdString());
    if (!a)
        throw std::invalid_argument("bld: unknown activation \"" + name.toStdString() + "\"");
    return *a;
}

// The network and the objective: the same for every algorithm, so that runs compare methods.
void addModelParams(ParamSchema& s)
{
    NetworkDefaults d;
    d.hidden = {50};
    d.hiddenHelp = QStringLiteral("Widths of the hidden layers (the paper: [50], [20,20,20], [200,50,200], "
                                  "5×[50], 10×[50]; none = a linear model).");
    d.bias = true;
    d.hiddenBias = false;
    d.biasHelp = QStringLiteral("Append a constant-1 input to the first layer (the paper: on).");
    d.hiddenBiasHelp = QStringLiteral("Append a constant-1 input to every later layer (the paper: off — its "
                                      "variable counts have a bias on the input only).");
    addNetworkParams(s, d);
    s.add(ParamSpec::choice("output_activation", QStringLiteral("Output activation"),
                            {"identity", "sigmoid", "tanh"}, "identity",
                            QStringLiteral("Activation of the output layer (the paper: identity, i.e. linear).")));
    // The papers' f(w) = (1/P)Σ‖y − net(x)‖² + ρ‖w‖² is twice the common squared loss: ρ = 2r.
    s.add(toolkit::ridgeParam(QStringLiteral("every weight, biases included; the papers' ρ of (1/P)Σ‖y − net(x)‖² + "
                                             "ρ‖w‖² is 2r. Ignored when mean_square_ridge > 0.")));
    s.addFormatChange(toolkit::ridgeWasTwice(QStringLiteral("the papers' ρ of (1/P)Σ‖y − net(x)‖² + ρ‖w‖²")));
    // Not "relative_ridge": elsewhere that is relative to a Gram matrix's trace, here to the
    // number of weights.
    s.add(ParamSpec::real("mean_square_ridge", QStringLiteral("Ridge on the mean square"), 1e-3, 0.0, 100.0,
                          QStringLiteral("ρ = mean_square_ridge / (number of weights), i.e. the penalty is "
                                         "mean_square_ridge × the mean squared weight; the paper: 1e-3. 0 = use "
                                         "ridge."))
              .withAlias(QStringLiteral("relative_ridge")));
}

StoppingDefaults batchStopping(Algorithm a)
{
    StoppingDefaults d;
    if (a == Algorithm::Lbfgs) {
        d.offerIterations = true;
        d.iterations = 10000;
        d.iterationsMax = 100000000;
        d.iterationsHelp = QStringLiteral("Most L-BFGS iterations (epoch = iterations done).");
        d.offerDecreaseWindow = true;
        d.decreaseWindow = 1;
        d.decreaseWindowHelp = QStringLiteral("Criterion ii compares f now with f this many iterations ago: 1 = the "
                                              "paper's criterion as printed, f(wᵏ) − f(wᵏ⁺¹) per iteration (scipy's "
                                              "ftol test); larger windows let L-BFGS cross flat regions.");
    }
    d.offerGradientTolerance = true;
    d.gradientTolerance = 1e-3;
    d.gradientToleranceMin = 0.0;
    d.gradientToleranceMax = 1e3;
    d.gradientTest = train::GradientTest::Absolute;
    d.gradientToleranceHelp = QStringLiteral("Stops when the whole gradient passes gradient_test with this tolerance "
                                             "(the paper's criterion i: ‖∇f‖₂ ≤ 1e-3). 0 = never.");
    d.offerRelativeDecrease = true;
    d.relativeDecrease = 1e-4;
    d.relativeDecreaseHelp = QStringLiteral("The paper's criterion ii: a decrease (f_old − f_new)/max(f_old, 1) at "
                                            "most this is too small (1e-4). 0 = never.");
    return d;
}

StoppingDefaults incrementalStopping()
{
    StoppingDefaults d;
    d.offerEpochs = true;
    d.epochs = 100;
    d.epochsMax = 100000000;
    d.epochsHelp = QStringLiteral("Passes over the minibatch partition; one checkpoint each.");
    return d;
}

OptimizerDefaults incrementalSteps(bool blockwise)
{
    OptimizerDefaults d;
    d.offerConstants = false;  // a normalised steepest-descent step, not an Optimizer rule
    d.lr = 0.0;
    d.lrMin = 0.0;
    d.lrMax = 10.0;
    d.lrLogScale = false;
    d.lrHelp = blockwise ? QStringLiteral("First step length α₀ of the normalised step; 0 = the paper's 0.5 / "
                                          "max(1, L − 2) for L weight layers.")
                         : QStringLiteral("First step length α₀ of the normalised step; 0 = the paper's 0.5.");
    d.lrAliases = {QStringLiteral("initial_step")};
    d.schedule = train::LearningRateSchedule::Kind::Diminishing;
    d.unit = QStringLiteral("minibatches");
    d.diminishingDecay = 5e-3;
    d.diminishingDecayAliases = {QStringLiteral("step_decay")};
    return d;
}

void addIncrementalParams(ParamSchema& s, bool blockwise)
{
    addStoppingParams(s, incrementalStopping());
    s.add(ParamSpec::integer("batch_size", QStringLiteral("Batch size"), 128, 1, 1000000000,
                             QStringLiteral("Rows per minibatch of the fixed partition (the paper does not state "
                                            "it); values above the training rows mean one batch.")));
    addOptimizerParams(s, incrementalSteps(blockwise));
    s.add(ParamSpec::real("norm_floor", QStringLiteral("Normaliser floor"), 1e-3, 1e-12, 1e12,
                          QStringLiteral("The step is α·d / max(floor, min(ceiling, ‖d‖)) for d = −∇f_h; the "
                                         "paper prints γ = 1e-3, β = 1e6 for max{β, min{γ, ‖d‖}}, which is "
                                         "always 1e6 as written: read here as floor 1e-3, ceiling 1e6."),
                          true));
    s.add(ParamSpec::real("norm_ceiling", QStringLiteral("Normaliser ceiling"), 1e6, 1e-12, 1e12,
                          QStringLiteral("See norm_floor (≥ norm_floor)."), true));
    if (blockwise)
        s.add(ParamSpec::choice("order", QStringLiteral("Layer order"), {"backward", "forward"}, "backward",
                                QStringLiteral("Order in which each minibatch updates the layers (the paper's text "
                                               "and experiments: backward).")));
}

// Plugin 1.1.0 kept its own clock for the paper's time limits ("time_limit" seconds, 0 = none,
// on "time_clock" wall or cpu); the host's budget does that now for every plugin, on the same
// two clocks: the keys become the host's, which takes them out of the parameters.
QVariantMap upgrade(const QVariantMap& in, QStringList* notes)
{
    if (!in.contains(QStringLiteral("time_limit")) && !in.contains(QStringLiteral("time_clock")))
        return in;
    QVariantMap p = in;
    auto note = [&](const QString& n) {
        if (notes)
            *notes << n;
    };
    const QString seconds = QString::fromLatin1(kBudgetSecondsKey), clock = QString::fromLatin1(kBudgetClockKey);
    const bool given = p.contains(QStringLiteral("time_limit"));
    const QVariant limit = p.take(QStringLiteral("time_limit"));
    const QVariant clockValue = p.take(QStringLiteral("time_clock"));
    bool number = false;
    const double s = limit.toDouble(&number);
    if (!given || (number && s == 0.0)) {
        note(QStringLiteral("parameters \"time_limit\" and \"time_clock\" are deprecated: no limit (0) dropped; the "
                            "run's budget is the host's \"%1\"").arg(seconds));
        return p;
    }
    if (p.contains(seconds)) {
        note(QStringLiteral("parameter \"time_limit\" is deprecated and also given as \"%1\": %1 is used").arg(seconds));
        return p;
    }
    p.insert(seconds, limit);
    if (clockValue.isValid())
        p.insert(clock, clockValue);
    note(QStringLiteral("parameter \"time_limit\"%1 is deprecated: the run's budget is the host's \"%2\"%3, checked "
                        "at every checkpoint as for every plugin")
             .arg(clockValue.isValid() ? QStringLiteral(" (with \"time_clock\")") : QString(), seconds,
                  clockValue.isValid() ? QStringLiteral(" (with \"%1\")").arg(clock) : QString()));
    return p;
}

// Gives @p key of @p s its default search space (docs/parameters.md, "Default search spaces").
void searched(ParamSchema& s, const char* key, const SearchSpace& space)
{
    if (!s.setSearch(QString::fromLatin1(key), space))
        throw std::logic_error(std::string("bld: no parameter \"") + key + "\" to search");
}

} // namespace

QStringList BldConfig::algorithmIds()
{
    QStringList ids;
    for (const auto& a : kAlgorithms)
        ids << QString::fromLatin1(a.id);
    return ids;
}

std::optional<Algorithm> BldConfig::algorithmFromId(const QString& id)
{
    for (const auto& a : kAlgorithms)
        if (id == QLatin1String(a.id))
            return a.algorithm;
    return std::nullopt;
}

QString BldConfig::idOf(Algorithm algorithm)
{
    for (const auto& a : kAlgorithms)
        if (a.algorithm == algorithm)
            return QString::fromLatin1(a.id);
    return {};
}

ParamSchema BldConfig::schema(Algorithm a)
{
    ParamSchema s;
    s.setUpgrader(upgrade);
    switch (a) {
    case Algorithm::B2ld:
        s.add(ParamSpec::integer("sweeps", QStringLiteral("Sweeps"), 1000, 1, 100000000,
                                 QStringLiteral("Most sweeps over the layers; a checkpoint follows every block "
                                                "update (epoch = sweeps done, fractional within a sweep).")));
        s.add(ParamSpec::choice("order", QStringLiteral("Block order"), {"backward", "forward", "random"}, "backward",
                                QStringLiteral("Layer order of a sweep: backward from the output (B2LD), forward, "
                                               "or a new seeded random permutation every sweep.")));
        // "inner_iterations", the house's name of the cap of each inner (block) solve.
        s.add(ParamSpec::integer("inner_iterations", QStringLiteral("Block iterations"), 30, 1, 1000000,
                                 QStringLiteral("L-BFGS iterations per block solve at most (the paper bounds them "
                                                "without a number; it checked its clock every 30)."))
                  .withAlias(QStringLiteral("block_iterations")));
        s.add(ParamSpec::real("block_tolerance", QStringLiteral("Block tolerance ε₀"), 1e-2, 0.0, 1e3,
                              QStringLiteral("A block solve ends when ‖∇_l f‖₂ ≤ ε; a block whose gradient is "
                                             "already below ε is skipped."),
                              true));
        s.add(ParamSpec::real("tolerance_decay", QStringLiteral("Tolerance decay δ"), 0.5, 1e-6, 1.0,
                              QStringLiteral("ε ← δε after every sweep (increasing accuracy).")));
        addLbfgsParams(s, LbfgsDefaults{});
        addStoppingParams(s, batchStopping(a));
        s.add(ParamSpec::choice("output_solve", QStringLiteral("Output layer"), {"lbfgs", "closed_form"}, "lbfgs",
                                QStringLiteral("lbfgs = like every block (the paper: early exactness hurt); "
                                               "closed_form = the ridge least-squares minimiser (identity output "
                                               "only).")));
        s.add(ParamSpec::real("armijo_step", QStringLiteral("Armijo first step a"), 1.0, 1e-8, 1e8,
                              QStringLiteral("First trial step of the Armijo search along −∇_l f (halved until "
                                             "sufficient decrease)."),
                              true));
        s.add(ParamSpec::real("armijo_gamma", QStringLiteral("Armijo γ"), 1e-4, 1e-12, 0.5,
                              QStringLiteral("Sufficient-decrease constant of the Armijo search; the forcing term of "
                                             "condition 5 is (γ/a)·‖Δw_l‖²."),
                              true));
        break;
    case Algorithm::Lbfgs:
        addStoppingParams(s, batchStopping(a));
        addLbfgsParams(s, LbfgsDefaults{});
        s.add(ParamSpec::integer("checkpoint_every", QStringLiteral("Checkpoint every"), 1, 1, 1000000,
                                 QStringLiteral("Iterations between checkpoints.")));
        break;
    case Algorithm::Bling:
        addIncrementalParams(s, true);
        break;
    case Algorithm::Ig:
        addIncrementalParams(s, false);
        break;
    }
    addModelParams(s);
    // The papers' one regulariser, and the step of the incremental methods; b2ld's block
    // tolerance decides how much each block solve does.
    searched(s, "mean_square_ridge", SearchSpace::logUniform(1e-6, 1.0));
    if (a == Algorithm::B2ld)
        searched(s, "block_tolerance", SearchSpace::logUniform(1e-4, 1.0));
    if (a == Algorithm::Bling || a == Algorithm::Ig) {
        searched(s, "lr", SearchSpace::logUniform(1e-3, 1.0));
        searched(s, "batch_size", SearchSpace::logInteger(16, 1024));
    }
    return s;
}

BldConfig BldConfig::fromParams(Algorithm a, const QVariantMap& p)
{
    BldConfig c;
    c.algorithm = a;
    c.network = networkFromParams(p); // throws for init_low > init_high
    c.hidden.clear();
    for (long long h : c.network.hidden)
        c.hidden.push_back(Eigen::Index(h));
    c.activation = activationNamed(QString::fromStdString(c.network.activation));
    c.output = activationNamed(p.value("output_activation").toString());
    c.ridge = 2.0 * p.value("ridge").toDouble();  // the papers' ρ
    c.relativeRidge = p.value("mean_square_ridge").toDouble();
    const QString order = p.value("order", "backward").toString();
    c.order = order == QLatin1String("forward") ? BlockOrder::Forward
              : order == QLatin1String("random") ? BlockOrder::Random
                                                 : BlockOrder::Backward;
    switch (a) {
    case Algorithm::B2ld:
        c.sweeps = p.value("sweeps").toInt();
        c.blockIterations = p.value("inner_iterations").toInt();
        c.blockTolerance = p.value("block_tolerance").toDouble();
        c.toleranceDecay = p.value("tolerance_decay").toDouble();
        c.closedFormOutput = p.value("output_solve").toString() == QLatin1String("closed_form");
        c.armijoStep = p.value("armijo_step").toDouble();
        c.armijoGamma = p.value("armijo_gamma").toDouble();
        [[fallthrough]];
    case Algorithm::Lbfgs:
    {
        const train::LbfgsSettings ls = lbfgsFromParams(p);
        c.memory = ls.memory;
        c.strongWolfe = ls.lineSearch == train::LbfgsSettings::LineSearch::StrongWolfe;
        c.stopping = stoppingFromParams(p, batchStopping(a));
        c.gradientTolerance = c.stopping.gradientTolerance;
        c.gradientTest = c.stopping.gradientTest;
        c.relativeDecrease = c.stopping.relativeDecrease;
        if (a == Algorithm::Lbfgs) {
            c.iterations = int(c.stopping.iterations);
            c.decreaseWindow = c.stopping.decreaseWindow;
            c.checkpointEvery = p.value("checkpoint_every").toInt();
        }
        break;
    }
    case Algorithm::Bling:
    case Algorithm::Ig: {
        c.stopping = stoppingFromParams(p, incrementalStopping());
        c.epochs = int(c.stopping.epochs);
        c.batchSize = p.value("batch_size").toLongLong();
        const train::LearningRateSchedule step = scheduleFromParams(p, incrementalSteps(a == Algorithm::Bling));
        c.initialStep = step.base;
        c.stepDecay = step.decay;
        c.normFloor = p.value("norm_floor").toDouble();
        c.normCeiling = p.value("norm_ceiling").toDouble();
        break;
    }
    }
    c.check();
    return c;
}

void BldConfig::check() const
{
    if (algorithm == Algorithm::B2ld && closedFormOutput && output != num::Activation::Identity)
        throw std::invalid_argument("parameters \"output_solve\" and \"output_activation\": closed_form needs an "
                                    "identity output, got \"" + std::string(num::activationName(output)) + "\"");
    if (algorithm != Algorithm::Bling && algorithm != Algorithm::Ig)
        return;
    if (normFloor > normCeiling)
        throw std::invalid_argument(QStringLiteral("parameters \"norm_floor\" (%1) and \"norm_ceiling\" (%2): the "
                                                   "floor must not exceed the ceiling")
                                        .arg(normFloor)
                                        .arg(normCeiling)
                                        .toStdString());
    // α stays positive and decreasing only while ε·α < 1 (DiminishingStep); α₀ = 0 means
    // the paper's ≤ 0.5, which every allowed ε satisfies.
    if (initialStep * stepDecay >= 1)
        throw std::invalid_argument(QStringLiteral("parameters \"lr\" (%1) and \"diminishing_decay\" (%2): "
                                                   "their product must be below 1")
                                        .arg(initialStep)
                                        .arg(stepDecay)
                                        .toStdString());
}

num::Mlp BldConfig::makeNetwork(Eigen::Index inputs, Eigen::Index outputs, std::uint64_t seed) const
{
    num::Mlp net =
        num::Mlp::withHidden(inputs, hidden, outputs, activation, output, network.bias, network.hiddenBias);
    if (network.glorot)
        net.initGlorot(seed);
    else
        net.initUniform(seed, network.initLow, network.initHigh);
    return net;
}

double BldConfig::weightCount(Eigen::Index inputs, Eigen::Index outputs) const
{
    double total = 0, prev = double(inputs);
    bool first = true;
    for (Eigen::Index h : hidden) {
        total += (prev + ((first ? network.bias : network.hiddenBias) ? 1.0 : 0.0)) * double(h);
        prev = double(h);
        first = false;
    }
    return total + (prev + ((first ? network.bias : network.hiddenBias) ? 1.0 : 0.0)) * double(outputs);
}

double BldConfig::rho(double weights) const
{
    return relativeRidge > 0 ? relativeRidge / std::max(1.0, weights) : ridge;
}

double BldConfig::firstStep(int layers) const
{
    if (initialStep > 0)
        return initialStep;
    return algorithm == Algorithm::Bling ? 0.5 / std::max(1, layers - 2) : 0.5;
}

} // namespace tb::bld
