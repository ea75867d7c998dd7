#include "DsgdConfig.h"

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
const QStringList kLosses{"auto", "squared", "hinge", "logistic", "multinomial_logistic"};
const QStringList kMethods{"sgd", "momentum", "nag", "adagrad", "rmsprop", "adam"};

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

void addKernelParams(ParamSchema& s, const Defaults& d, bool exact)
{
    s.add(ParamSpec::choice("kernel", QStringLiteral("Kernel"), kKernels, QString::fromLatin1(d.kernel),
                            exact ? QStringLiteral("gaussian = exp(−‖x − x′‖²/(2σ²)) (gaussian_cos_sin is the same "
                                                   "kernel here), laplace = exp(−‖x − x′‖₁/σ).")
                                  : QStringLiteral("Random features of the kernel: gaussian = √2·cos(ωᵀx + b), "
                                                   "ω ~ N(0, σ⁻²I), b ~ U[0, 2π) for exp(−‖x − x′‖²/(2σ²)); "
                                                   "gaussian_cos_sin = the same kernel from cos/sin pairs sharing one "
                                                   "ω (lower variance); laplace = Cauchy ω for exp(−‖x − x′‖₁/σ).")));
    s.add(ParamSpec::choice("bandwidth_rule", QStringLiteral("Bandwidth rule"), {"median", "fixed"}, "median",
                            QStringLiteral("median = bandwidth_scale × the median distance between median_rows "
                                           "training rows (the median trick); fixed = the bandwidth parameter.")));
    s.add(ParamSpec::real("bandwidth", QStringLiteral("Bandwidth σ"), 1.0, 0.0, 1e6,
                          QStringLiteral("Kernel bandwidth σ when bandwidth_rule is fixed; must be > 0."), true));
    s.add(ParamSpec::real("bandwidth_scale", QStringLiteral("Bandwidth scale"), 1.0, 1e-6, 1e6,
                          QStringLiteral("Multiplies the median distance when bandwidth_rule is median (the "
                                         "authors' code uses 1/√2 ≈ 0.707)."),
                          true));
    s.add(ParamSpec::integer("median_rows", QStringLiteral("Median rows"), 1000, 2, 100000,
                             QStringLiteral("Training rows (drawn with the run's seed) whose pairwise distances give "
                                            "the median trick's bandwidth.")));
    s.add(ParamSpec::real("nu", QStringLiteral("Regulariser ν"), d.nu, 0.0, 1e6,
                          exact ? QStringLiteral("ν of the objective mean ½(f(x) − y)² + ν/2·‖f‖²_H: the "
                                                 "subsample's kernel system is (K + mν·I)a = y.")
                                : QStringLiteral("ν of the objective mean loss + ν/2·‖f‖²_H: every step shrinks the "
                                                 "earlier coefficients by (1 − γ_t·ν)."),
                          true));
}

void addStochasticParams(ParamSchema& s, const Defaults& d, Algorithm a)
{
    s.add(ParamSpec::choice("loss", QStringLiteral("Loss"), kLosses, "auto",
                            QStringLiteral("squared = ½(f − y)² (kernel ridge regression; one-hot targets for "
                                           "classes), hinge = max(0, 1 − y·f) (SVM, two classes), logistic = "
                                           "log(1 + exp(−y·f)) (two classes), multinomial_logistic = softmax "
                                           "cross-entropy; auto = multinomial_logistic for classification, squared "
                                           "for regression.")));
    s.add(ParamSpec::real("theta", QStringLiteral("Step size θ"), d.theta, 0.0, 1e6,
                          QStringLiteral("Step size γ_t = θ/(1 + t/t₀) at step t (counted from 0); must be > 0."),
                          true));
    s.add(ParamSpec::real("t0", QStringLiteral("Step decay t₀"), d.t0, 1e-6, 1e12,
                          QStringLiteral("Steps over which γ halves; t₀ = 1 gives the theory's θ/t (t counted from "
                                         "1), a large t₀ an almost constant step."),
                          true));
    s.add(ParamSpec::integer("batch_size", QStringLiteral("Batch size"), d.batch, 1, 1000000000,
                             QStringLiteral("Training rows per step (a minibatch of the data points); values above "
                                            "the training rows mean full batch.")));
    s.add(ParamSpec::real("epochs", QStringLiteral("Epochs"), 1.0, 1e-6, 1e7,
                          QStringLiteral("Passes over the training rows, each in a new seeded order; fractions allowed "
                                         "(1 = the paper's stopping rule of one pass)."),
                          true));
    if (a == Algorithm::RandomFeatureSgd) {
        s.add(ParamSpec::integer("features", QStringLiteral("Features"), 256, 1, 100000000,
                                 QStringLiteral("The fixed number of random features (the paper's baselines use 2⁸ = "
                                                "256); even for gaussian_cos_sin.")));
        s.add(ParamSpec::choice("method", QStringLiteral("Update rule"), kMethods, "sgd",
                                QStringLiteral("The toolkit's update rule on the feature weights: sgd (with hinge "
                                               "loss, t0 = 1 and θ = 1/ν: Pegasos' step 1/(ν·t)), momentum, nag, "
                                               "adagrad, rmsprop or adam (their usual constants).")));
    } else {
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
                                         "are the same bits either way.")));
    s.add(ParamSpec::integer("checkpoint_every", QStringLiteral("Checkpoint every"), 0, 0, 1000000000,
                             QStringLiteral("Checkpoint after every this many steps; 0 = automatically: steps 1 to "
                                            "10, then every ×1.2, and every epoch end (for runs of at most 100 "
                                            "epochs).")));
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

ParamSchema DsgdConfig::schema(Algorithm a)
{
    const Defaults d = defaultsOf(a);
    ParamSchema s;
    addKernelParams(s, d, a == Algorithm::KernelRidge);
    if (a == Algorithm::KernelRidge) {
        s.add(ParamSpec::integer("subsample", QStringLiteral("Subsample rows"), 2000, 1, 100000,
                                 QStringLiteral("Training rows (drawn with the run's seed) the exact solution uses; "
                                                "its kernel matrix takes 8·m² bytes.")));
        return s;
    }
    addStochasticParams(s, d, a);
    return s;
}

DsgdConfig DsgdConfig::fromParams(Algorithm a, const QVariantMap& p)
{
    DsgdConfig c;
    c.algorithm = a;
    c.kernel = kernelNamed(p.value("kernel").toString());
    c.bandwidthRule = p.value("bandwidth_rule").toString() == QLatin1String("fixed") ? BandwidthRule::Fixed
                                                                                     : BandwidthRule::Median;
    c.bandwidth = p.value("bandwidth").toDouble();
    c.bandwidthScale = p.value("bandwidth_scale").toDouble();
    c.medianRows = p.value("median_rows").toLongLong();
    c.nu = p.value("nu").toDouble();
    if (c.bandwidthRule == BandwidthRule::Fixed && !(c.bandwidth > 0))
        throw paramError(QStringLiteral("parameter \"bandwidth\": %1 is not a bandwidth; with bandwidth_rule \"fixed\" "
                                        "it must be > 0")
                             .arg(c.bandwidth));
    if (c.medianRows < 2 || c.bandwidthScale <= 0)
        throw std::invalid_argument("dsgd: parameters were not normalised by the schema");
    if (a == Algorithm::KernelRidge) {
        c.subsample = p.value("subsample").toLongLong();
        return c;
    }

    const QString loss = p.value("loss").toString();
    if (loss == QLatin1String("squared"))
        c.loss = LossKind::Squared;
    else if (loss == QLatin1String("hinge"))
        c.loss = LossKind::Hinge;
    else if (loss == QLatin1String("logistic"))
        c.loss = LossKind::Logistic;
    else if (loss == QLatin1String("multinomial_logistic"))
        c.loss = LossKind::Multinomial;
    c.theta = p.value("theta").toDouble();
    c.t0 = p.value("t0").toDouble();
    c.batchSize = p.value("batch_size").toLongLong();
    c.epochs = p.value("epochs").toDouble();
    c.cacheMiB = p.value("cache_mib").toDouble();
    c.checkpointEvery = p.value("checkpoint_every").toLongLong();
    if (!(c.theta > 0))
        throw paramError(QStringLiteral("parameter \"theta\": the step size θ must be > 0, got %1").arg(c.theta));
    if (c.batchSize < 1 || !(c.epochs > 0) || !(c.t0 > 0))
        throw std::invalid_argument("dsgd: parameters were not normalised by the schema");
    const bool pairs = c.kernel == train::FeatureKind::GaussianCosSin;

    if (a == Algorithm::RandomFeatureSgd) {
        c.features = p.value("features").toLongLong();
        if (pairs && c.features % 2 != 0)
            throw paramError(QStringLiteral("parameters \"features\" and \"kernel\": gaussian_cos_sin makes features in "
                                            "cos/sin pairs; %1 is odd")
                                 .arg(c.features));
        const QString m = p.value("method").toString();
        using train::Method;
        c.optimizer.method = m == QLatin1String("momentum") ? Method::Momentum
                             : m == QLatin1String("nag")    ? Method::Nag
                             : m == QLatin1String("adagrad") ? Method::AdaGrad
                             : m == QLatin1String("rmsprop") ? Method::RmsProp
                             : m == QLatin1String("adam")    ? Method::Adam
                                                             : Method::Sgd;
        c.optimizer.weightDecay = c.nu;
        if (c.optimizer.method == Method::AdaGrad)
            c.optimizer.epsilon = 1e-10;  // PyTorch's, as the gradient plugin
        return c;
    }

    c.featuresPerStep = p.value("features_per_step").toLongLong();
    c.maxFeatures = p.value("max_features").toLongLong();
    if (a == Algorithm::Preconditioned)
        c.preconditionRidge = p.value("precondition_ridge").toDouble();
    if (pairs && c.featuresPerStep % 2 != 0)
        throw paramError(QStringLiteral("parameters \"features_per_step\" and \"kernel\": gaussian_cos_sin makes "
                                        "features in cos/sin pairs; %1 is odd")
                             .arg(c.featuresPerStep));
    if (c.maxFeatures > 0 && c.maxFeatures < c.featuresPerStep)
        throw paramError(QStringLiteral("parameter \"max_features\": %1 is less than one step's features "
                                        "(features_per_step = %2)")
                             .arg(c.maxFeatures)
                             .arg(c.featuresPerStep));
    if (c.theta * c.nu >= 1.0)
        throw paramError(QStringLiteral("parameters \"theta\" and \"nu\": θ·ν = %1 ≥ 1, so the first steps' shrink "
                                        "factor 1 − γ·ν would be ≤ 0 (it must stay in (0, 1]); lower theta or nu")
                             .arg(c.theta * c.nu));
    return c;
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
    s.decay = 1.0 / t0;
    return s;
}

} // namespace tb::dsgd
