#include "DsgdConfig.h"

#include <trainbench/toolkit/Ridge.h>

#include <cmath>
#include <stdexcept>

namespace tb::dsgd {
namespace {

struct AlgorithmInfoRow {
    Algorithm algorithm;
    const char* id;
};

const AlgorithmInfoRow kAlgorithms[] = {
    {Algorithm::Doubly, "dsgd.doubly_stochastic"},
    {Algorithm::Preconditioned, "dsgd.preconditioned"},
    {Algorithm::RandomFeatureSgd, "dsgd.random_features_sgd"},
    {Algorithm::KernelRidge, "dsgd.kernel_ridge"},
};

// Defaults that differ between the algorithms.
struct Defaults {
    const char* kernel;
    double nu;
    double theta;
    double t0;
    qlonglong batch;
    qlonglong perStep;
};

Defaults defaultsOf(Algorithm a)
{
    switch (a) {
    case Algorithm::Doubly: return {"gaussian", 1e-6, 1.0, 100.0, 32, 1};
    // The authors' code: cos/sin pairs, ν = 0, step 1/(1 + 10⁻⁴·j), large batches and blocks.
    case Algorithm::Preconditioned: return {"gaussian_cos_sin", 0.0, 1.0, 1e4, 8192, 2048};
    case Algorithm::RandomFeatureSgd: return {"gaussian", 1e-5, 1.0, 100.0, 32, 1};
    case Algorithm::KernelRidge: return {"gaussian", 1e-5, 1.0, 1.0, 1, 1};
    }
    return {"gaussian", 0.0, 1.0, 1.0, 32, 1};
}

const QStringList kKernels{"gaussian", "gaussian_cos_sin", "laplace"};
// One name per loss across the plugins (docs/parameters.md): "cross_entropy", as gradient's;
// the former "multinomial_logistic" still loads.
const QStringList kLosses{"auto", "squared", "hinge", "logistic", "cross_entropy"};

train::FeatureKind kernelNamed(const QString& s)
{
    if (s == QLatin1String("gaussian_cos_sin"))
        return train::FeatureKind::GaussianCosSin;
    if (s == QLatin1String("laplace"))
        return train::FeatureKind::LaplaceCos;
    return train::FeatureKind::GaussianCos;
}

std::invalid_argument paramError(const QString& message)
{
    return std::invalid_argument(message.toStdString());
}

// The random features (the shared block) or, for the exact solution, the kernel itself.
RandomFeatureDefaults featureDefaults(Algorithm a)
{
    RandomFeatureDefaults d;
    d.offerKind = a != Algorithm::KernelRidge;
    d.kinds = {QStringLiteral("gaussian_cos"), QStringLiteral("gaussian_cos_sin"), QStringLiteral("laplace_cos")};
    // The kernel's default as the block spells its features.
    d.kind = QLatin1String(defaultsOf(a).kernel) == QLatin1String("gaussian_cos_sin") ? QStringLiteral("gaussian_cos_sin")
                                                                                      : QStringLiteral("gaussian_cos");
    d.kindHelp = QStringLiteral("Random features of the kernel: gaussian_cos = √2·cos(ωᵀx + b), ω ~ N(0, σ⁻²I), "
                                "b ~ U[0, 2π) for exp(−‖x − x′‖²/(2σ²)); gaussian_cos_sin = the same kernel from "
                                "cos/sin pairs sharing one ω (lower variance); laplace_cos = Cauchy ω for "
                                "exp(−‖x − x′‖₁/σ). On sparse inputs ω is drawn entry by entry from counters (the same "
                                "kernel, another draw than on dense inputs: docs/dsgd.md).");
    d.kindAliases = {QStringLiteral("kernel")};
    d.kindChoiceAliases = {{QStringLiteral("gaussian"), QStringLiteral("gaussian_cos")},
                           {QStringLiteral("laplace"), QStringLiteral("laplace_cos")}};
    d.offerCount = a == Algorithm::RandomFeatureSgd;
    d.count = 256;
    d.countMax = 100000000;
    d.countHelp = QStringLiteral("The fixed number of random features (the paper's baselines use 2⁸ = 256); even for "
                                 "gaussian_cos_sin.");
    d.countAliases = {QStringLiteral("features")};
    d.medianSample = 1000;
    d.medianSampleMax = 100000;
    d.offerPca = false;
    return d;
}

// γ_t = lr/(1 + inverse_decay·t): Dai et al.'s θ/(1 + t/t₀) with lr = θ and inverse_decay = 1/t₀.
OptimizerDefaults stepDefaults(Algorithm a)
{
    const Defaults d = defaultsOf(a);
    OptimizerDefaults o;
    o.offerChoice = a == Algorithm::RandomFeatureSgd;
    o.offerConstants = false;
    o.lr = d.theta;
    o.lrMin = 0.0;
    o.lrMax = 1e6;
    o.lrHelp = QStringLiteral("Step size θ of γ_t = lr/(1 + inverse_decay·t) at step t (counted from 0); must be > 0.");
    o.lrAliases = {QStringLiteral("theta")};
    o.schedule = train::LearningRateSchedule::Kind::Inverse;
    o.unit = QStringLiteral("steps");
    o.inverseDecay = 1.0 / d.t0;
    o.inverseDecayMax = 1e6;
    o.inverseDecayLogScale = true;
    o.inverseDecayHelp = QStringLiteral("1/t₀ of γ_t = θ/(1 + t/t₀): the step halves after 1/inverse_decay steps; 1 "
                                        "gives the theory's θ/t (t counted from 1), a small value an almost constant "
                                        "step, 0 a constant one.");
    return o;
}

void addRidgeParam(ParamSchema& s, const Defaults& d, bool exact)
{
    // Dai et al.'s objective mean loss + ν/2·‖f‖²_H is the common one with r = ν/2 (‖f‖_H in
    // place of ‖w‖); the defaults keep their ν.
    ParamSpec ridge = toolkit::ridgeParam(
        exact ? QStringLiteral("the RKHS norm ‖f‖²_H of the kernel expansion in place of ‖w‖²; Dai et al.'s ν = 2r, "
                               "and the subsample's kernel system is (K + mν·I)a = y.")
              : QStringLiteral("the RKHS norm ‖f‖²_H of the kernel expansion in place of ‖w‖²; Dai et al.'s ν = 2r: "
                               "every step shrinks the earlier coefficients by (1 − γ_t·ν)."));
    ridge.defaultValue = 0.5 * d.nu;
    s.add(ridge.withAlias(QStringLiteral("nu")));
    s.addFormatChange(toolkit::ridgeWasTwice(QStringLiteral("Dai et al.'s ν of mean loss + ν/2·‖f‖²_H")));
}

void addKernelParams(ParamSchema& s, const Defaults& d, Algorithm a)
{
    const bool exact = a == Algorithm::KernelRidge;
    if (exact)
        s.add(ParamSpec::choice("kernel", QStringLiteral("Kernel"), kKernels, QString::fromLatin1(d.kernel),
                                QStringLiteral("gaussian = exp(−‖x − x′‖²/(2σ²)) (gaussian_cos_sin is the same "
                                               "kernel here), laplace = exp(−‖x − x′‖₁/σ).")));
    addRandomFeatureParams(s, featureDefaults(a));
    addRidgeParam(s, d, exact);
}

void addStochasticParams(ParamSchema& s, const Defaults& d, Algorithm a)
{
    s.add(ParamSpec::choice("loss", QStringLiteral("Loss"), kLosses, "auto",
                            QStringLiteral("squared = ½(f − y)² (kernel ridge regression; one-hot targets for "
                                           "classes), hinge = max(0, 1 − y·f) (SVM, two classes), logistic = "
                                           "log(1 + exp(−y·f)) (two classes), cross_entropy = softmax "
                                           "cross-entropy (multinomial logistic); auto = cross_entropy for "
                                           "classification, squared for regression."))
              .withChoiceAliases({{QStringLiteral("multinomial_logistic"), QStringLiteral("cross_entropy")}}));
    addOptimizerParams(s, stepDefaults(a));
    s.add(ParamSpec::integer("batch_size", QStringLiteral("Batch size"), d.batch, 1, 1000000000,
                             QStringLiteral("Training rows per step (a minibatch of the data points); values above "
                                            "the training rows mean full batch.")));
    StoppingDefaults stop;
    stop.offerEpochs = true;
    stop.fractionalEpochs = true;
    stop.epochs = 1.0;
    stop.epochsHelp = QStringLiteral("Passes over the training rows, each in a new seeded order; fractions allowed "
                                     "(1 = the paper's stopping rule of one pass).");
    addStoppingParams(s, stop);
    if (a != Algorithm::RandomFeatureSgd) {
        s.add(ParamSpec::integer("features_per_step", QStringLiteral("Features per step"), d.perStep, 1, 1000000,
                                 a == Algorithm::Doubly
                                     ? QStringLiteral("r new random features per step, each coefficient scaled by "
                                                      "1/r (1 = Algorithm 1 as written); even for gaussian_cos_sin.")
                                     : QStringLiteral("Features in each step's block, fitted together with their "
                                                      "covariance as preconditioner; even for gaussian_cos_sin.")));
        s.add(ParamSpec::integer("max_features", QStringLiteral("Most features"), 0, 0, 1000000000,
                                 QStringLiteral("End the run when the model holds this many features (0 = no "
                                                "limit: epochs decide).")));
    }
    if (a == Algorithm::Preconditioned)
        s.add(ParamSpec::real("precondition_ridge", QStringLiteral("Preconditioner ε"), 1e-7, 0.0, 1.0,
                              QStringLiteral("ε of the preconditioner: the block's feature covariance + (ν + ε)·I "
                                             "(the authors' code: 10⁻⁷)."),
                              true));
    s.add(ParamSpec::real("cache_mib", QStringLiteral("Projection cache (MiB)"), 256.0, 0.0, 1e6,
                          QStringLiteral("Memory for regenerated random projections ω, kept in feature order so they "
                                         "need not be regenerated at every step; 0 = regenerate every time. Results "
                                         "are the same bits either way. Unused on sparse inputs, whose ω entries are "
                                         "drawn for the occurring columns only.")));
    s.add(ParamSpec::choice("precision", QStringLiteral("Precision"), {"double", "mixed"}, QStringLiteral("double"),
                            QStringLiteral("double = every product in double precision; mixed = the random "
                                           "projections x·ω (most of a step's arithmetic) as single-precision "
                                           "products, about twice as fast on dense inputs, with the offsets, "
                                           "cosines, coefficients and sums in double: a feature differs from "
                                           "double's by ≈ 1e-6 (float rounding of its phase), far below the "
                                           "random features' own sampling error. Sparse inputs are computed in "
                                           "double either way.")));
    s.add(ParamSpec::integer("checkpoint_every", QStringLiteral("Checkpoint every"), 0, 0, 1000000000,
                             QStringLiteral("Checkpoint after every this many steps; 0 = automatically: steps 1 to "
                                            "10, then every ×1.2, and every epoch end (for runs of at most 100 "
                                            "epochs).")));
}

// Before 1.1.0 the plugin spelled the step size θ and t₀ (now lr and inverse_decay = 1/t₀) and
// split the bandwidth into "bandwidth" (fixed σ) and "bandwidth_scale" (× the median); the
// shared block has one "bandwidth" whose meaning follows bandwidth_rule.
QVariantMap upgrade(const QVariantMap& in, QStringList* notes)
{
    QVariantMap p = in;
    auto note = [&](const QString& n) {
        if (notes)
            *notes << n;
    };
    if (p.contains(QStringLiteral("t0"))) {
        const QVariant t0 = p.take(QStringLiteral("t0"));
        if (p.contains(QStringLiteral("inverse_decay"))) {
            note(QStringLiteral("parameter \"t0\" is deprecated and also given as \"inverse_decay\": inverse_decay "
                                "is used"));
        } else {
            bool ok = false;
            const double t = t0.toDouble(&ok);
            // 1/t₀ exactly as the plugin computed it before: the same step sizes, bit for bit.
            p.insert(QStringLiteral("inverse_decay"), ok && t0.typeId() != QMetaType::Bool ? QVariant(1.0 / t) : t0);
            note(QStringLiteral("parameter \"t0\" is deprecated: it is now \"inverse_decay\" = 1/t0 = %1")
                     .arg(ok ? QString::number(1.0 / t, 'g', 17) : ParamSchema::describe(t0)));
        }
    }
    if (p.contains(QStringLiteral("bandwidth_scale"))) {
        const QVariant scale = p.take(QStringLiteral("bandwidth_scale"));
        const bool fixed = p.value(QStringLiteral("bandwidth_rule")).toString() == QLatin1String("fixed");
        if (fixed) {
            note(QStringLiteral("parameter \"bandwidth_scale\" is deprecated (with bandwidth_rule \"fixed\" it was "
                                "not used): dropped"));
        } else {
            p.insert(QStringLiteral("bandwidth"), scale);
            note(QStringLiteral("parameter \"bandwidth_scale\" is deprecated: with bandwidth_rule \"median\" it is "
                                "now \"bandwidth\" (the multiple of the median distance)"));
        }
    }
    return p;
}

// Gives @p key of @p s its default search space (docs/parameters.md, "Default search spaces").
void searched(ParamSchema& s, const char* key, const SearchSpace& space)
{
    if (!s.setSearch(QString::fromLatin1(key), space))
        throw std::logic_error(std::string("dsgd: no parameter \"") + key + "\" to search");
}

} // namespace

QStringList DsgdConfig::algorithmIds()
{
    QStringList ids;
    for (const auto& a : kAlgorithms)
        ids << QString::fromLatin1(a.id);
    return ids;
}

QString DsgdConfig::idOf(Algorithm a)
{
    for (const auto& r : kAlgorithms)
        if (r.algorithm == a)
            return QString::fromLatin1(r.id);
    return {};
}

std::optional<Algorithm> DsgdConfig::fromId(const QString& id)
{
    for (const auto& a : kAlgorithms)
        if (id == QLatin1String(a.id))
            return a.algorithm;
    return std::nullopt;
}

namespace {
// The kernel's bandwidth and the ridge for every algorithm; the step size θ and the batch for
// the stochastic ones. ridge ≤ 1e-2 and lr ≤ 10 keep θ·ν < 1 (fromParams' check) everywhere in
// the space.
void addSearchSpaces(ParamSchema& s, Algorithm a)
{
    searched(s, "bandwidth", SearchSpace::logUniform(0.1, 10.0));
    searched(s, "ridge", SearchSpace::logUniform(5e-9, 5e-3));
    if (a == Algorithm::KernelRidge)
        return;
    searched(s, "lr", SearchSpace::logUniform(1e-2, 10.0));
    searched(s, "batch_size", SearchSpace::logInteger(32, 8192));
}
} // namespace

ParamSchema DsgdConfig::schema(Algorithm a)
{
    const Defaults d = defaultsOf(a);
    ParamSchema s;
    s.setUpgrader(upgrade);
    addKernelParams(s, d, a);
    if (a == Algorithm::KernelRidge) {
        s.add(ParamSpec::integer("subsample", QStringLiteral("Subsample rows"), 2000, 1, 100000,
                                 QStringLiteral("Training rows (drawn with the run's seed) the exact solution uses; "
                                                "its kernel matrix takes 8·m² bytes.")));
        addSearchSpaces(s, a);
        return s;
    }
    addStochasticParams(s, d, a);
    addSearchSpaces(s, a);
    return s;
}

DsgdConfig DsgdConfig::fromParams(Algorithm a, const QVariantMap& p)
{
    DsgdConfig c;
    c.algorithm = a;
    const RandomFeatureDefaults fd = featureDefaults(a);
    const train::FeatureMapConfig features = randomFeaturesFromParams(p, fd);
    c.kernel = a == Algorithm::KernelRidge ? kernelNamed(p.value("kernel").toString()) : features.kind;
    c.bandwidthRule = features.bandwidthRule == train::BandwidthRule::Fixed ? BandwidthRule::Fixed : BandwidthRule::Median;
    // One "bandwidth": σ with the fixed rule, the median's multiple with the median rule.
    c.bandwidth = c.bandwidthRule == BandwidthRule::Fixed ? features.bandwidth : 1.0;
    c.bandwidthScale = c.bandwidthRule == BandwidthRule::Median ? features.bandwidth : 1.0;
    c.medianRows = features.medianSample;
    c.nu = 2.0 * p.value("ridge").toDouble();  // Dai et al.'s ν
    if (a == Algorithm::KernelRidge) {
        c.subsample = p.value("subsample").toLongLong();
        c.check();
        return c;
    }

    const QString loss = p.value("loss").toString();
    if (loss == QLatin1String("squared"))
        c.loss = LossKind::Squared;
    else if (loss == QLatin1String("hinge"))
        c.loss = LossKind::Hinge;
    else if (loss == QLatin1String("logistic"))
        c.loss = LossKind::Logistic;
    else if (loss == QLatin1String("cross_entropy"))
        c.loss = LossKind::Multinomial;
    const OptimizerDefaults od = stepDefaults(a);
    const train::LearningRateSchedule step = scheduleFromParams(p, od);
    c.theta = step.base;
    c.inverseDecay = step.decay;
    c.batchSize = p.value("batch_size").toLongLong();
    c.epochs = p.value("epochs").toDouble();
    c.cacheMiB = p.value("cache_mib").toDouble();
    c.precision = p.value("precision").toString() == QLatin1String("mixed") ? train::Precision::Mixed
                                                                             : train::Precision::Double;
    c.checkpointEvery = p.value("checkpoint_every").toLongLong();
    if (a == Algorithm::RandomFeatureSgd) {
        c.features = features.count;
        c.optimizer = optimizerFromParams(p, od);
        c.optimizer.weightDecay = c.nu;
    } else {
        c.featuresPerStep = p.value("features_per_step").toLongLong();
        c.maxFeatures = p.value("max_features").toLongLong();
        if (a == Algorithm::Preconditioned)
            c.preconditionRidge = p.value("precondition_ridge").toDouble();
    }
    c.check();
    return c;
}

void DsgdConfig::check() const
{
    if (medianRows < 2 || bandwidthScale <= 0)
        throw std::invalid_argument("dsgd: parameters were not normalised by the schema");
    if (algorithm == Algorithm::KernelRidge)
        return;
    if (!(theta > 0))
        throw paramError(QStringLiteral("parameter \"lr\": the step size θ must be > 0, got %1").arg(theta));
    if (batchSize < 1 || !(epochs > 0) || !(inverseDecay >= 0))
        throw std::invalid_argument("dsgd: parameters were not normalised by the schema");
    const bool pairs = kernel == train::FeatureKind::GaussianCosSin;
    if (algorithm == Algorithm::RandomFeatureSgd) {
        if (pairs && features % 2 != 0)
            throw paramError(QStringLiteral("parameters \"feature_count\" and \"random_features\": gaussian_cos_sin "
                                            "makes features in cos/sin pairs; %1 is odd")
                                 .arg(features));
        return;
    }
    if (pairs && featuresPerStep % 2 != 0)
        throw paramError(QStringLiteral("parameters \"features_per_step\" and \"random_features\": gaussian_cos_sin "
                                        "makes features in cos/sin pairs; %1 is odd")
                             .arg(featuresPerStep));
    if (maxFeatures > 0 && maxFeatures < featuresPerStep)
        throw paramError(QStringLiteral("parameter \"max_features\": %1 is less than one step's features "
                                        "(features_per_step = %2)")
                             .arg(maxFeatures)
                             .arg(featuresPerStep));
    if (theta * nu >= 1.0)
        throw paramError(QStringLiteral("parameters \"lr\" and \"ridge\": θ·ν = lr·2·ridge = %1 ≥ 1, so the first "
                                        "steps' shrink factor 1 − γ·ν would be ≤ 0 (it must stay in (0, 1]); lower lr "
                                        "or ridge")
                             .arg(theta * nu));
}

LossKind DsgdConfig::resolveLoss(Task task) const
{
    if (algorithm == Algorithm::KernelRidge)
        return LossKind::Squared;
    if (loss)
        return *loss;
    return task == Task::Classification ? LossKind::Multinomial : LossKind::Squared;
}

train::LearningRateSchedule DsgdConfig::schedule() const
{
    train::LearningRateSchedule s;
    s.kind = train::LearningRateSchedule::Kind::Inverse;
    s.base = theta;
    s.decay = inverseDecay;
    return s;
}

} // namespace tb::dsgd
