#include "LsqConfig.h"

#include <trainbench/toolkit/Ridge.h>

#include <trainbench/toolkit/RandomFeatureParams.h>

#include <stdexcept>

namespace tb::lsq {
namespace {

// GEN: the shared random-features block ("random_features" with "raw" besides the kinds,
// "feature_count", the bandwidth, the median trick, the PCA).
RandomFeatureDefaults featureDefaults(Algorithm a)
{
    const bool stagewise = a == Algorithm::Stagewise;
    RandomFeatureDefaults d;
    if (!stagewise)
        d.kinds.prepend(QStringLiteral("raw"));
    d.kind = stagewise ? QStringLiteral("gaussian_cos") : QStringLiteral("raw");
    d.kindAliases = {QStringLiteral("features")};
    if (stagewise) {
        d.kinds.append(QStringLiteral("raw_gradient"));
        d.kindHelp = QStringLiteral(
            "gaussian_cos: random Fourier features cos(ωᵀx + b) of the Gaussian kernel, ω ~ N(0, I/σ²); "
            "gaussian_cos_sin: cos/sin pairs of one ω (lower variance; p even); laplace_cos: the Laplace kernel's; "
            "random_logit: sigmoid(ωᵀx + b); raw_subset: a random subset of the (projected) inputs, regenerated "
            "from its seed; raw_gradient: the block_size inputs with the largest gradient ‖Xᵀ(Y − Ŷ)‖ of the running "
            "predictions (softmax(Ŷ) − Y for the logistic flavour), recomputed every stage, their indices stored "
            "with the model — the paper's Table 2 setting for text (NEWS20: block 500, λ = 30; RCV1: 2 blocks of "
            "2000). Sparse inputs take raw_subset and raw_gradient (blocks of their columns, never densified); "
            "the other kinds need dense inputs.");
    }
    // Stagewise counts its features per block ("block_size", its own key).
    d.offerCount = !stagewise;
    d.count = 4000;
    d.countMax = 100000;
    d.countHelp = QStringLiteral("Number of generated features (paper Table 1: 4000, 8000); not used with "
                                 "random_features = raw.");
    d.medianSample = 2000;
    d.medianSampleMax = 20000;
    return d;
}

void addFeatureParams(ParamSchema& s, Algorithm a)
{
    const bool stagewise = a == Algorithm::Stagewise;
    addRandomFeatureParams(s, featureDefaults(a));
    if (stagewise)
        s.add(ParamSpec::integer("block_size", QStringLiteral("Block size p"), 1024, 1, 100000,
                                 QStringLiteral("Features generated and fitted per stage (paper: 300, 512, 1024).")));
    s.add(ParamSpec::boolean("bias", QStringLiteral("Bias feature"), true,
                             QStringLiteral("Append a constant-1 feature (excluded from the ridge).")));
    s.add(ParamSpec::choice("precision", QStringLiteral("Precision"), {"double", "mixed"}, QStringLiteral("mixed"),
                            QStringLiteral("mixed: features stored as float, products on float blocks summed in "
                                           "double (half the memory and bandwidth; λ is then at least 7e-5·trace(Σ̂)/√p, "
                                           "the Gram's float rounding); double: double throughout. Sparse inputs "
                                           "are always double (their blocks are the data's own doubles).")));
    // The objective (1/n)Σℓᵢ + r‖W‖² puts λ = 2r on the diagonal of Σ̂ = FᵀF/n.
    s.add(toolkit::ridgeParam(QStringLiteral("every weight but the bias feature's; λ = 2r is added to the diagonal "
                                             "of Σ̂ = FᵀF/n (the authors' demo adds λ·√n to FᵀF). Ignored when "
                                             "relative_ridge > 0.")));
    s.addFormatChange(toolkit::ridgeWasTwice(QStringLiteral("λ of (1/n)Σℓᵢ + (λ/2)‖W‖², added to the diagonal of Σ̂")));
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

// Gives @p key of @p s its default search space (docs/parameters.md, "Default search spaces").
void searched(ParamSchema& s, const char* key, const SearchSpace& space)
{
    if (!s.setSearch(QString::fromLatin1(key), space))
        throw std::logic_error(std::string("lsq: no parameter \"") + key + "\" to search");
}

} // namespace

QString featuresName(const FeatureConfig& f)
{
    if (f.gradientOrder)
        return QStringLiteral("raw_gradient");
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
    // A closed-form-like solver: its regulariser; stagewise also the bandwidth of its
    // random features (gls and calibrated default to the raw inputs, which have none).
    searched(s, "relative_ridge", SearchSpace::logUniform(1e-10, 1e-2));
    if (a == Algorithm::Stagewise)
        searched(s, "bandwidth", SearchSpace::logUniform(0.1, 10.0));
    return s;
}

LsqConfig LsqConfig::fromParams(const QVariantMap& p, Algorithm a)
{
    LsqConfig c;
    c.algorithm = a;
    // raw_gradient is raw_subset's kind with the columns chosen by the gradient (FeatureConfig).
    const bool gradientOrder = a == Algorithm::Stagewise &&
                               p.value("random_features").toString() == QLatin1String("raw_gradient");
    QVariantMap generator = p;
    if (gradientOrder)
        generator.insert("random_features", QStringLiteral("raw_subset"));
    static_cast<train::FeatureMapConfig&>(c.features) = randomFeaturesFromParams(generator, featureDefaults(a));
    c.features.gradientOrder = gradientOrder;
    if (a == Algorithm::Stagewise)
        c.features.count = p.value("block_size").toLongLong();
    c.features.bias = p.value("bias").toBool();
    c.precision = p.value("precision").toString() == QLatin1String("double") ? train::Precision::Double
                                                                             : train::Precision::Mixed;
    c.ridge = 2.0 * p.value("ridge").toDouble();  // λ on Σ̂'s diagonal
    c.relativeRidge = p.value("relative_ridge").toDouble();
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
    c.check();
    return c;
}

void LsqConfig::check() const
{
    const std::string countKey = algorithm == Algorithm::Stagewise ? "block_size" : "feature_count";
    if (!(features.bandwidth > 0))
        throw std::invalid_argument("lsq: parameter \"bandwidth\" must be > 0, got " + std::to_string(features.bandwidth));
    if (!features.raw && features.count < 1)
        throw std::invalid_argument("lsq: parameter \"" + countKey + "\" must be at least 1");
    if (!features.raw && features.kind == train::FeatureKind::GaussianCosSin && features.count % 2 != 0)
        throw std::invalid_argument("lsq: parameter \"" + countKey + "\" (" + std::to_string(features.count) +
                                    ") must be even with random_features = gaussian_cos_sin (cos/sin pairs)");
}

} // namespace tb::lsq
