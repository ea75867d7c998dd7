#include "LibsvmConfig.h"

#include <wrapping/ToleranceLadder.h>

#include <libsvm/svm.h>

#include <QLocale>
#include <stdexcept>

namespace tb::libsvm {
namespace {

struct Kernel {
    const char* name;
    int type;
};
const Kernel kKernels[] = {{"linear", LINEAR}, {"polynomial", POLY}, {"gaussian", RBF}, {"sigmoid", SIGMOID}};

// Gives @p key of @p s its default search space (docs/parameters.md, "Default search spaces").
void searched(ParamSchema& s, const char* key, const SearchSpace& space)
{
    if (!s.setSearch(QString::fromLatin1(key), space))
        throw std::logic_error(std::string("libsvm: no parameter \"") + key + "\" to search");
}

} // namespace

const QString LibsvmConfig::classifyId = QStringLiteral("libsvm.classify");
const QString LibsvmConfig::regressId = QStringLiteral("libsvm.regress");

ParamSchema LibsvmConfig::schema(bool regression)
{
    QStringList kernels;
    for (const Kernel& k : kKernels)
        kernels << QString::fromLatin1(k.name);
    ParamSchema s;
    s.add(ParamSpec::choice(
        "kernel", QStringLiteral("Kernel"), kernels, "gaussian",
        QStringLiteral("k(u, v) (svm-train -t): linear = u·v; polynomial = (γ·u·v + coef0)^degree; "
                       "gaussian = exp(−γ‖u − v‖²) (LIBSVM's RBF; γ = 1/(2σ²) for dsgd's and lsq's bandwidth "
                       "σ); sigmoid = tanh(γ·u·v + coef0)."))
              // One name per kernel across the plugins (docs/parameters.md): "gaussian", as dsgd's.
              .withChoiceAliases({{QStringLiteral("rbf"), QStringLiteral("gaussian")}}));
    s.add(ParamSpec::real("c", QStringLiteral("C"), 1.0, 1e-8, 1e10,
                          QStringLiteral("Weight of the training errors against the margin (svm-train -c)."),
                          true));
    s.add(ParamSpec::choice(
        "gamma_rule", QStringLiteral("γ rule"), {"inverse_features", "scale", "value"}, "inverse_features",
        QStringLiteral("How γ is set: inverse_features = 1/d (svm-train's default, d = number "
                       "of inputs), scale = 1/(d·Var(x)) over every entry of the training inputs, zeros "
                       "included (scikit-learn's \"scale\"; sparse inputs: computed from the non-zeros "
                       "alone), value = the γ parameter. The γ used is recorded with the run.")));
    s.add(
        ParamSpec::real("gamma", QStringLiteral("γ"), 1.0, 1e-12, 1e6,
                        QStringLiteral("γ of the polynomial, RBF and sigmoid kernels when gamma_rule = value "
                                       "(svm-train -g)."),
                        true));
    s.add(ParamSpec::integer("degree", QStringLiteral("Degree"), 3, 1, 100,
                             QStringLiteral("Degree of the polynomial kernel (svm-train -d).")));
    s.add(ParamSpec::real("coef0", QStringLiteral("coef0"), 0.0, -1e6, 1e6,
                          QStringLiteral("Constant of the polynomial and sigmoid kernels (svm-train -r).")));
    s.add(ParamSpec::real("cache_mib", QStringLiteral("Cache (MiB)"), 100.0, 1.0, 1e6,
                          QStringLiteral("Most memory for cached kernel rows, in MiB, taken as needed "
                                         "(svm-train -m).")));
    s.add(
        ParamSpec::real("tolerance", QStringLiteral("Stopping tolerance"), kDefaultTolerance, kToleranceMin,
                        kToleranceMax,
                        QStringLiteral("Largest violation of the optimality conditions at the end (svm-train "
                                       "-e)."),
                        true));
    s.add(wrap::ToleranceLadder::spec(QStringLiteral("svm-train -e"), kToleranceMin, kToleranceMax));
    s.add(ParamSpec::boolean(
        "shrinking", QStringLiteral("Shrinking"), true,
        QStringLiteral("Shrinking heuristics: set aside bounded variables (svm-train -h).")));
    s.add(ParamSpec::boolean(
        "probability", QStringLiteral("Probability estimates"), false,
        QStringLiteral("Fit Platt's probability model by an internal 5-fold cross-validation "
                       "(svm-train -b; about 5× the training time). Classification scores "
                       "are then the class probabilities; regression outputs are unchanged.")));
    if (regression)
        s.add(ParamSpec::real(
            "svr_epsilon", QStringLiteral("SVR ε"), 0.1, 0.0, 1e6,
            QStringLiteral("Half-width of the ε-insensitive zone of the loss (svm-train -p).")));
    // C, the one parameter LIBSVM's guide tunes with every kernel (its grid: 2⁻⁵ … 2¹⁵). γ is
    // not searched by default: it applies only with gamma_rule = value.
    searched(s, "c", SearchSpace::logUniform(1e-2, 1e4));
    return s;
}

LibsvmConfig LibsvmConfig::fromParams(bool regression, const QVariantMap& p)
{
    LibsvmConfig c;
    c.regression = regression;
    c.kernelName = p.value("kernel").toString();
    bool found = false;
    for (const Kernel& k : kKernels)
        if (c.kernelName == QLatin1String(k.name)) {
            c.kernel = k.type;
            found = true;
        }
    if (!found)
        throw std::invalid_argument("parameter \"kernel\": unknown kernel \"" + c.kernelName.toStdString() +
                                    "\"");
    c.c = p.value("c").toDouble();
    const QString rule = p.value("gamma_rule").toString();
    c.gammaRule = rule == QLatin1String("scale")   ? GammaRule::Scale
                  : rule == QLatin1String("value") ? GammaRule::Value
                                                   : GammaRule::InverseFeatures;
    c.gamma = p.value("gamma").toDouble();
    c.degree = p.value("degree").toInt();
    c.coef0 = p.value("coef0").toDouble();
    c.cacheMib = p.value("cache_mib").toDouble();
    c.tolerance = p.value("tolerance").toDouble();
    c.toleranceLadder = wrap::ToleranceLadder::fromParams(p, kToleranceMin, kToleranceMax);
    c.shrinking = p.value("shrinking").toBool();
    c.probability = p.value("probability").toBool();
    c.svrEpsilon = regression ? p.value("svr_epsilon").toDouble() : 0.1;
    c.check();
    return c;
}

void LibsvmConfig::check() const
{
    if (!toleranceLadder.empty() && tolerance != kDefaultTolerance)
        throw std::invalid_argument(
            QStringLiteral("parameter \"tolerance_ladder\": it replaces \"tolerance\" (each rung is one solve's "
                           "tolerance), which is %1 here; leave \"tolerance\" at its default %2 with a ladder")
                .arg(tolerance)
                .arg(kDefaultTolerance)
                .toStdString());
}

std::vector<double> LibsvmConfig::solveTolerances() const
{
    return toleranceLadder.empty() ? std::vector<double>{tolerance} : toleranceLadder;
}

double LibsvmConfig::effectiveGamma(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    const double d = double(x.cols());
    if (d == 0)
        return 0;
    switch (gammaRule) {
    case GammaRule::Value:
        return gamma;
    case GammaRule::Scale: {
        const double n = double(x.size());
        if (n == 0)
            return 1.0 / d;
        const double mean = x.sum() / n;
        const double var = (x.array() - mean).square().sum() / n;
        return var > 0 ? 1.0 / (d * var) : 1.0 / d;
    }
    case GammaRule::InverseFeatures:
        break;
    }
    return 1.0 / d;
}

double LibsvmConfig::effectiveGamma(const SparseMatrix& x) const
{
    const double d = double(x.cols());
    if (d == 0)
        return 0;
    switch (gammaRule) {
    case GammaRule::Value:
        return gamma;
    case GammaRule::Scale: {
        const double n = double(x.rows()) * d; // every entry, zeros included
        if (n == 0)
            return 1.0 / d;
        const double stored = double(x.nonZeros());
        const double mean = x.sum() / n;
        // Two passes as the dense form: Σ(v − mean)² over the stored entries, plus mean² for each
        // of the n·d − stored zeros.
        double squares = 0;
        for (Eigen::Index i = 0; i < x.outerSize(); ++i)
            for (SparseMatrix::InnerIterator it(x, i); it; ++it)
                squares += (it.value() - mean) * (it.value() - mean);
        const double var = (squares + (n - stored) * mean * mean) / n;
        return var > 0 ? 1.0 / (d * var) : 1.0 / d;
    }
    case GammaRule::InverseFeatures:
        break;
    }
    return 1.0 / d;
}

svm_parameter LibsvmConfig::libraryParameter(double g) const
{
    svm_parameter param{};
    param.svm_type = regression ? EPSILON_SVR : C_SVC;
    param.kernel_type = kernel;
    param.degree = degree;
    param.gamma = g;
    param.coef0 = coef0;
    param.cache_size = cacheMib;
    param.eps = tolerance;
    param.C = c;
    param.nr_weight = 0;
    param.weight_label = nullptr;
    param.weight = nullptr;
    param.nu = 0.5; // unused by C-SVC and ε-SVR
    param.p = svrEpsilon;
    param.shrinking = shrinking ? 1 : 0;
    param.probability = probability ? 1 : 0;
    return param;
}

QString LibsvmConfig::commandLineOptions(double g) const
{
    // Shortest text that reads back as the same double: the tool parses it with atof.
    auto num = [](double v) { return QString::number(v, 'g', QLocale::FloatingPointShortest); };
    QString s = QStringLiteral("-s %1 -t %2 -c %3 -g %4 -d %5 -r %6 -e %7 -m %8 -h %9")
                    .arg(regression ? EPSILON_SVR : C_SVC)
                    .arg(kernel)
                    .arg(num(c), num(g))
                    .arg(degree)
                    .arg(num(coef0), num(tolerance), num(cacheMib))
                    .arg(shrinking ? 1 : 0);
    s += QStringLiteral(" -b %1").arg(probability ? 1 : 0);
    if (regression)
        s += QStringLiteral(" -p %1").arg(num(svrEpsilon));
    return s;
}

} // namespace tb::libsvm
