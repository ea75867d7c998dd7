#include "LiblinearConfig.h"

#include <wrapping/ToleranceLadder.h>

#include <linear.h>

#include <QLocale>
#include <stdexcept>

namespace tb::liblinear {

const QString LiblinearConfig::classifyId = QStringLiteral("liblinear.classify");
const QString LiblinearConfig::regressId = QStringLiteral("liblinear.regress");

const std::vector<Solver>& LiblinearConfig::solvers()
{
    // Types, default tolerances and randomness as in LIBLINEAR 2.3 (train.c, linear.cpp).
    static const std::vector<Solver> all{
        {"l2r_lr_primal", L2R_LR, 0.01, false, false, false,
         "L2-regularised logistic regression, primal, trust-region Newton"},
        {"l2r_l2loss_svc_dual", L2R_L2LOSS_SVC_DUAL, 0.1, false, true, false,
         "L2-regularised L2-loss (squared hinge) SVC, dual coordinate descent"},
        {"l2r_l2loss_svc_primal", L2R_L2LOSS_SVC, 0.01, false, false, false,
         "L2-regularised L2-loss (squared hinge) SVC, primal, trust-region Newton"},
        {"l2r_l1loss_svc_dual", L2R_L1LOSS_SVC_DUAL, 0.1, false, true, false,
         "L2-regularised L1-loss (hinge) SVC, dual coordinate descent"},
        {"mcsvm_cs", MCSVM_CS, 0.1, false, true, false,
         "Crammer–Singer multi-class SVC, dual coordinate descent"},
        {"l1r_l2loss_svc", L1R_L2LOSS_SVC, 0.01, false, true, true,
         "L1-regularised L2-loss SVC, primal coordinate descent"},
        {"l1r_lr", L1R_LR, 0.01, false, true, true, "L1-regularised logistic regression, newGLMNET"},
        {"l2r_lr_dual", L2R_LR_DUAL, 0.1, false, true, false,
         "L2-regularised logistic regression, dual coordinate descent"},
        {"l2r_l2loss_svr_primal", L2R_L2LOSS_SVR, 0.0001, true, false, false,
         "L2-regularised L2-loss SVR, primal, trust-region Newton"},
        {"l2r_l2loss_svr_dual", L2R_L2LOSS_SVR_DUAL, 0.1, true, true, false,
         "L2-regularised L2-loss SVR, dual coordinate descent"},
        {"l2r_l1loss_svr_dual", L2R_L1LOSS_SVR_DUAL, 0.1, true, true, false,
         "L2-regularised L1-loss SVR, dual coordinate descent"},
    };
    return all;
}

const Solver* LiblinearConfig::solverNamed(const QString& name)
{
    for (const Solver& s : solvers())
        if (name == QLatin1String(s.name))
            return &s;
    return nullptr;
}

namespace {
// Gives @p key of @p s its default search space (docs/parameters.md, "Default search spaces").
void searched(ParamSchema& s, const char* key, const SearchSpace& space)
{
    if (!s.setSearch(QString::fromLatin1(key), space))
        throw std::logic_error(std::string("liblinear: no parameter \"") + key + "\" to search");
}

} // namespace

ParamSchema LiblinearConfig::schema(bool regression)
{
    QStringList names, lines, defaults;
    for (const Solver& s : solvers()) {
        if (s.regression != regression)
            continue;
        names << QString::fromLatin1(s.name);
        lines << QStringLiteral("%1 (-s %2) = %3")
                     .arg(QLatin1String(s.name))
                     .arg(s.type)
                     .arg(QString::fromUtf8(s.what));
        defaults << QStringLiteral("%1 for %2").arg(s.defaultTolerance).arg(QLatin1String(s.name));
    }
    ParamSchema schema;
    schema.add(ParamSpec::choice(
        "solver", QStringLiteral("Solver"), names,
        regression ? QStringLiteral("l2r_l2loss_svr_primal") : QStringLiteral("l2r_l2loss_svc_dual"),
        QStringLiteral("LIBLINEAR's solver (liblinear-train -s): %1. %2")
            .arg(lines.join(QStringLiteral("; ")),
                 regression
                     ? QStringLiteral("liblinear-train has no regression default; the primal solver is the "
                                      "most accurate.")
                     : QStringLiteral("Multi-class: one-vs-rest, except mcsvm_cs; the default is "
                                      "liblinear-train's."))));
    schema.add(ParamSpec::real("c", QStringLiteral("C"), 1.0, 1e-8, 1e10,
                               QStringLiteral("Weight of the loss against the regulariser ½‖w‖² (or ‖w‖₁): "
                                              "min reg(w) + C·Σ loss (liblinear-train -c)."),
                               true));
    schema.add(
        ParamSpec::real("tolerance", QStringLiteral("Stopping tolerance"), 0.0, 0.0, 100.0,
                        QStringLiteral("The solver's stopping tolerance (liblinear-train -e; what it bounds "
                                       "depends on the solver, see docs/liblinear.md); 0 = "
                                       "liblinear-train's default: %1.")
                            .arg(defaults.join(QStringLiteral(", ")))));
    schema.add(wrap::ToleranceLadder::spec(QStringLiteral("liblinear-train -e"), kLadderMin, kLadderMax));
    schema.add(
        ParamSpec::real("bias_value", QStringLiteral("Bias feature value"), 1.0, -1.0, 1e6,
                        QStringLiteral("Every row gets one more input of this value, whose weight is the "
                                       "intercept (regularised like the others); negative = no intercept "
                                       "(liblinear-train -B; the tool's default is -1). A value, not the on/off "
                                       "\"bias\" of other plugins."))
            .withAlias(QStringLiteral("bias")));
    if (regression)
        schema.add(ParamSpec::real("svr_epsilon", QStringLiteral("SVR ε"), 0.1, 0.0, 1e6,
                                   QStringLiteral("Half-width of the ε-insensitive zone of the SVR loss "
                                                  "(liblinear-train -p).")));
    // C, the one parameter of every solver (LIBLINEAR's own -C search: its regularisation path).
    searched(schema, "c", SearchSpace::logUniform(1e-3, 1e3));
    return schema;
}

LiblinearConfig LiblinearConfig::fromParams(bool regression, const QVariantMap& p)
{
    LiblinearConfig c;
    c.regression = regression;
    const QString name = p.value("solver").toString();
    c.solver = solverNamed(name);
    if (!c.solver)
        throw std::invalid_argument(
            QStringLiteral("parameter \"solver\": \"%1\" is not a %2 solver of LIBLINEAR")
                .arg(name, regression ? "regression" : "classification")
                .toStdString());
    c.c = p.value("c").toDouble();
    c.givenTolerance = p.value("tolerance").toDouble();
    c.tolerance = c.givenTolerance > 0 ? c.givenTolerance : c.solver->defaultTolerance;
    c.toleranceLadder = wrap::ToleranceLadder::fromParams(p, kLadderMin, kLadderMax);
    c.bias = p.value("bias_value").toDouble();
    if (c.bias < 0)
        c.bias = -1;
    c.svrEpsilon = regression ? p.value("svr_epsilon").toDouble() : 0.1;
    c.check();
    return c;
}

void LiblinearConfig::check() const
{
    if (!solver || solver->regression != regression)
        throw std::invalid_argument(QStringLiteral("parameter \"solver\": \"%1\" is not a %2 solver of LIBLINEAR")
                                        .arg(QString::fromLatin1(solver ? solver->name : "none"),
                                             regression ? "regression" : "classification")
                                        .toStdString());
    if (!toleranceLadder.empty() && givenTolerance > 0)
        throw std::invalid_argument(
            QStringLiteral("parameter \"tolerance_ladder\": it replaces \"tolerance\" (each rung is one solve's "
                           "tolerance), which is %1 here; leave \"tolerance\" at 0 with a ladder")
                .arg(givenTolerance)
                .toStdString());
}

std::vector<double> LiblinearConfig::solveTolerances() const
{
    return toleranceLadder.empty() ? std::vector<double>{tolerance} : toleranceLadder;
}

parameter LiblinearConfig::libraryParameter() const
{
    parameter param{};
    param.solver_type = solver->type;
    param.eps = tolerance;
    param.C = c;
    param.nr_weight = 0;
    param.weight_label = nullptr;
    param.weight = nullptr;
    param.p = svrEpsilon;
    param.init_sol = nullptr;
    return param;
}

QString LiblinearConfig::commandLineOptions() const
{
    // Shortest text that reads back as the same double: the tool parses it with strtod.
    auto num = [](double v) { return QString::number(v, 'g', QLocale::FloatingPointShortest); };
    QString s =
        QStringLiteral("-s %1 -c %2 -e %3 -B %4").arg(solver->type).arg(num(c), num(tolerance), num(bias));
    if (regression)
        s += QStringLiteral(" -p %1").arg(num(svrEpsilon));
    return s;
}

} // namespace tb::liblinear
