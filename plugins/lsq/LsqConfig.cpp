#include "LsqConfig.h"

#include <stdexcept>

namespace tb::lsq {
namespace {

const QStringList kGenerators{"gaussian_cos", "gaussian_cos_sin", "laplace_cos", "random_logit", "raw_subset"};

train::FeatureKind kindFromName(const QString& name)
{
    static const std::pair<const char*, train::FeatureKind> kinds[] = {
        {"gaussian_cos", train::FeatureKind::GaussianCos}, {"gaussian_cos_sin", train::FeatureKind::GaussianCosSin},
        {"laplace_cos", train::FeatureKind::LaplaceCos},   {"random_logit", train::FeatureKind::RandomLogit},
        {"raw_subset", train::FeatureKind::RawSubset}};
    for (const auto& [n, k] : kinds)
        if (name == QLatin1String(n))
            return k;
    throw std::invalid_argument("lsq: parameter \"features\": unknown generator \"" + name.toStdString() + "\"");
}

void addFeatureParams(ParamSchema& s, Algorithm a)
{
    const bool stagewise = a == Algorithm::Stagewise;
    QStringList choices = kGenerators;
    if (!stagewise)
        choices.prepend(QStringLiteral("raw"));
    s.add(ParamSpec::choice(
        "features", QStringLiteral("Features (GEN)"), choices,
        stagewise ? QStringLiteral("gaussian_cos") : QStringLiteral("raw"),
        QStringLiteral("%1gaussian_cos: random Fourier features √(2/p)·cos(ωᵀx + b) of the Gaussian kernel, "
                       "ω ~ N(0, I/σ²); gaussian_cos_sin: cos/sin pairs of one ω (lower variance; p even); "
                       "laplace_cos: the Laplace kernel's; random_logit: sigmoid(ωᵀx + b); raw_subset: a random "
                       "subset of the (projected) inputs. Every feature is regenerated from its seed at prediction.")
            .arg(stagewise ? QString() : QStringLiteral("raw: the (projected) inputs themselves; "))));
    if (stagewise)
        s.add(ParamSpec::integer("block_size", QStringLiteral("Block size p"), 1024, 1, 100000,
                                 QStringLiteral("Features generated and fitted per stage (paper: 300, 512, 1024).")));
    else
        s.add(ParamSpec::integer("feature_count", QStringLiteral("Features p"), 4000, 1, 100000,
                                 QStringLiteral("Number of generated features (paper Table 1: 4000, 8000); not used "
                                                "with features = raw.")));
    s.add(ParamSpec::choice("bandwidth_rule", QStringLiteral("Bandwidth rule"), {"median", "fixed"},
                            QStringLiteral("median"),
                            QStringLiteral("median: σ = bandwidth × the median pairwise distance of median_sample "
                                           "seeded training rows (the \"median trick\", as the authors' demo: "
                                           "ω ~ N(0, I/σ²)); fixed: σ = bandwidth.")));
    s.add(ParamSpec::real("bandwidth", QStringLiteral("Bandwidth"), 1.0, 1e-6, 1e6,
                          QStringLiteral("Kernel bandwidth σ > 0 of gaussian/laplace/logit features, or its multiple "
                                         "of the median distance (bandwidth_rule)."),
                          true));
    s.add(ParamSpec::integer("median_sample", QStringLiteral("Median-trick rows"), 2000, 2, 20000,
                             QStringLiteral("Rows sampled (seeded, without replacement) for the median trick; "
                                            "costs rows²·d/2.")));
    s.add(ParamSpec::integer("pca", QStringLiteral("PCA dimensions"), 0, 0, 100000,
                             QStringLiteral("Project the inputs on their first principal components before the "
                                            "features (paper on MNIST: 50); 0 = no projection; at most the number "
                                            "of inputs.")));
    s.add(ParamSpec::boolean("pca_center", QStringLiteral("Centred PCA"), false,
                             QStringLiteral("Subtract the training mean before the PCA (the authors' demo does not: "
                                            "the components of the uncentred second moment).")));
    s.add(ParamSpec::boolean("bias", QStringLiteral("Bias feature"), true,
                             QStringLiteral("Append a constant-1 feature (excluded from the ridge).")));
    s.add(ParamSpec::choice("precision", QStringLiteral("Precision"), {"double", "mixed"}, QStringLiteral("mixed"),
                            QStringLiteral("mixed: features stored as float, products on float blocks summed in "
                                           "double (half the memory and bandwidth; λ is then at least 7e-5·trace(Σ̂)/√p, "
                                           "the Gram's float rounding); double: double throughout.")));
    s.add(ParamSpec::real("ridge", QStringLiteral("Ridge λ"), 0.0, 0.0, 1e8,
                          QStringLiteral("λ of the objective (1/n)Σℓᵢ + (λ/2)‖W‖² (bias excluded): added to the "
                                         "diagonal of Σ̂ = FᵀF/n, i.e. λ·n in linear.ridge's units (the authors' demo "
                                         "adds λ·√n to FᵀF). Ignored when relative_ridge > 0."),
                          true));
    s.add(ParamSpec::real("relative_ridge", QStringLiteral("Relative ridge"), 1e-6, 0.0, 1.0,
                          QStringLiteral("λ = relative_ridge × trace(Σ̂)/p, the mean eigenvalue of Σ̂ (scale-free); "
                                         "the default keeps float Gram matrices of random features positive "
                                         "definite; 0 = use ridge."),
                          true));
}

void addGlsStepParams(ParamSchema& s, bool inner)
{
    s.add(ParamSpec::real("lipschitz", QStringLiteral("Lipschitz L"), 1.0, 0.5, 1000.0,
                          QStringLiteral("L of the link: the step is W ← W − (L·Σ̂ + λI)⁻¹∇. 1 is valid for any "
                                         "1-Lipschitz link (paper), 0.5 for softmax (Gershgorin).")));
    s.add(ParamSpec::boolean("acceleration", QStringLiteral("Nesterov acceleration"), inner,
                             QStringLiteral("Nesterov's momentum in the metric of Σ̂ with adaptive (gradient) "
                                            "restart, as the authors' demo code.")));
    s.add(ParamSpec::integer("sigma_rows", QStringLiteral("Σ̂ rows"), 0, 0, 1000000000,
                             QStringLiteral("Estimate Σ̂ from a seeded sample of this many rows (the authors' demo: "
                                            "2p); 0 = all rows.")));
}

} // namespace

QString featuresName(const FeatureConfig& f)
{
    return f.raw ? QStringLiteral("raw") : QString::fromLatin1(train::featureKindName(f.kind));
}

ParamSchema LsqConfig::schema(Algorithm a)
{
    ParamSchema s;
    switch (a) {
    case Algorithm::Gls:
        s.add(ParamSpec::choice("link", QStringLiteral("Link g"), {"auto", "identity", "softmax"}, QStringLiteral("auto"),
                                QStringLiteral("identity: least squares; softmax: multinomial logistic regression "
                                               "(classification only); auto: softmax for classification, identity "
                                               "for regression.")));
        s.add(ParamSpec::integer("iterations", QStringLiteral("Iterations"), 50, 1, 100000,
                                 QStringLiteral("GLS iterations, one checkpoint each (identity link with L = 1: one "
                                                "is the solution).")));
        addGlsStepParams(s, false);
        break;
    case Algorithm::Calibrated:
        s.add(ParamSpec::integer("iterations", QStringLiteral("Iterations"), 20, 1, 100000,
                                 QStringLiteral("Residual fits, each followed by a calibration, one checkpoint each.")));
        break;
    case Algorithm::Stagewise:
        s.add(ParamSpec::choice("flavour", QStringLiteral("Stage fit"), {"linear", "logistic", "calibrated"},
                                QStringLiteral("linear"),
                                QStringLiteral("linear: least squares on each block against the residual; logistic: "
                                               "inner GLS iterations with the softmax link and the running logits as "
                                               "an offset (classification only); calibrated: least squares of the "
                                               "targets on the block plus the previous predictions (and their powers, "
                                               "calibration_degree) as extra features.")));
        s.add(ParamSpec::integer("stages", QStringLiteral("Stages"), 10, 1, 100000,
                                 QStringLiteral("Blocks of features fitted one after the other, one checkpoint each.")));
        s.add(ParamSpec::integer("inner_iterations", QStringLiteral("Inner iterations"), 20, 1, 100000,
                                 QStringLiteral("GLS iterations on each block (logistic flavour; paper: 50).")));
        addGlsStepParams(s, true);
        break;
    }
    addFeatureParams(s, a);
    if (a != Algorithm::Gls) {
        const bool stagewise = a == Algorithm::Stagewise;
        s.add(ParamSpec::integer("calibration_degree", QStringLiteral("Calibration degree"), stagewise ? 1 : 3, 1, 6,
                                 stagewise ? QStringLiteral("Calibrated flavour: powers ŷ, …, ŷ^degree of the previous "
                                                            "predictions added to each block (paper: ŷ alone).")
                                           : QStringLiteral("Calibration basis G(ỹ) = ỹ, ỹ², …, ỹ^degree element-wise "
                                                            "over all outputs (paper: 3).")));
        if (!stagewise)
            s.add(ParamSpec::boolean("calibration_constant", QStringLiteral("Calibration constant"), true,
                                     QStringLiteral("Add a constant to the calibration basis (paper: yes).")));
    }
    if (a != Algorithm::Calibrated)
        s.add(ParamSpec::boolean("record_spectrum", QStringLiteral("Record the spectrum of Σ̂"), false,
                                 QStringLiteral("Record the eigenvalues of the feature covariance Σ̂ (stagewise: of "
                                                "the first block) as the fact \"feature_spectrum\" (paper Fig. 1b); "
                                                "costs an eigendecomposition, ≈ 4p³ flops.")));
    return s;
}

LsqConfig LsqConfig::fromParams(const QVariantMap& p, Algorithm a)
{
    LsqConfig c;
    c.algorithm = a;
    const QString gen = p.value("features").toString();
    c.features.raw = gen == QLatin1String("raw");
    if (!c.features.raw)
        c.features.kind = kindFromName(gen);
    c.features.count = p.value(a == Algorithm::Stagewise ? "block_size" : "feature_count").toLongLong();
    c.features.bandwidthRule = p.value("bandwidth_rule").toString() == QLatin1String("fixed") ? BandwidthRule::Fixed
                                                                                               : BandwidthRule::Median;
    c.features.bandwidth = p.value("bandwidth").toDouble();
    c.features.medianSample = p.value("median_sample").toLongLong();
    c.features.pca = p.value("pca").toLongLong();
    c.features.pcaCenter = p.value("pca_center").toBool();
    c.features.bias = p.value("bias").toBool();
    c.precision = p.value("precision").toString() == QLatin1String("double") ? train::Precision::Double
                                                                             : train::Precision::Mixed;
    c.ridge = p.value("ridge").toDouble();
    c.relativeRidge = p.value("relative_ridge").toDouble();
    if (!(c.features.bandwidth > 0))
        throw std::invalid_argument("lsq: parameter \"bandwidth\" must be > 0, got " +
                                    std::to_string(c.features.bandwidth));
    if (!c.features.raw && c.features.count < 1)
        throw std::invalid_argument("lsq: parameter \"" +
                                    std::string(a == Algorithm::Stagewise ? "block_size" : "feature_count") +
                                    "\" must be at least 1");
    if (!c.features.raw && c.features.kind == train::FeatureKind::GaussianCosSin && c.features.count % 2 != 0)
        throw std::invalid_argument(
            "lsq: parameter \"" + std::string(a == Algorithm::Stagewise ? "block_size" : "feature_count") + "\" (" +
            std::to_string(c.features.count) + ") must be even with features = gaussian_cos_sin (cos/sin pairs)");
    switch (a) {
    case Algorithm::Gls: {
        const QString link = p.value("link").toString();
        c.autoLink = link == QLatin1String("auto");
        c.link = link == QLatin1String("identity") ? Link::Identity : Link::Softmax;
        c.iterations = p.value("iterations").toLongLong();
        break;
    }
    case Algorithm::Calibrated:
        c.iterations = p.value("iterations").toLongLong();
        c.calibrationDegree = int(p.value("calibration_degree").toLongLong());
        c.calibrationConstant = p.value("calibration_constant").toBool();
        break;
    case Algorithm::Stagewise: {
        const QString f = p.value("flavour").toString();
        c.flavour = f == QLatin1String("logistic") ? Flavour::Logistic
                    : f == QLatin1String("calibrated") ? Flavour::Calibrated
                                                       : Flavour::Linear;
        c.stages = p.value("stages").toLongLong();
        c.iterations = p.value("inner_iterations").toLongLong();
        c.calibrationDegree = int(p.value("calibration_degree").toLongLong());
        c.calibrationConstant = false;
        c.autoLink = false;
        c.link = c.flavour == Flavour::Logistic ? Link::Softmax : Link::Identity;
        break;
    }
    }
    if (a != Algorithm::Calibrated) {
        c.lipschitz = p.value("lipschitz").toDouble();
        c.acceleration = p.value("acceleration").toBool();
        c.sigmaRows = p.value("sigma_rows").toLongLong();
        c.recordSpectrum = p.value("record_spectrum").toBool();
    }
    return c;
}

} // namespace tb::lsq
