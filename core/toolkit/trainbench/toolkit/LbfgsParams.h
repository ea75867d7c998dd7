#pragma once
/// @file LbfgsParams.h
/// The shared L-BFGS settings block, read into the training library's tb::train::LbfgsSettings. Keys:
///  - "memory":      correction pairs m kept for the inverse-Hessian approximation;
///  - "line_search": strong_wolfe (bracketing and zoom, Nocedal & Wright Alg. 3.5) or
///                   backtracking (Armijo backtracking), LBFGS++'s line searches.
/// The tolerances and the iteration budget are the stopping block's (StoppingParams.h:
/// "gradient_tolerance", "gradient_test", "iterations"); lbfgsFromParams() reads them too when
/// the schema has them.
///
/// Part of the SDK's bridge to the training library (trainbench/toolkit/): header-only, for
/// plugins, which link tb::training.

#include <trainbench/ParamSchema.h>

#include <training/LbfgsDriver.h>

namespace tb {

/// What a plugin's L-BFGS block starts from.
struct LbfgsDefaults {
    int memory = 10;
    bool strongWolfe = true;
    /// Prefix of the help texts, e.g. "L-BFGS" or "The block solves' L-BFGS".
    QString what = QStringLiteral("L-BFGS");
};

/// Adds "memory" and "line_search" to @p schema.
inline void addLbfgsParams(ParamSchema& schema, const LbfgsDefaults& d)
{
    schema.add(ParamSpec::integer(QStringLiteral("memory"), QStringLiteral("L-BFGS memory"), d.memory, 1, 1000,
                                  QStringLiteral("%1: correction pairs kept for the inverse-Hessian approximation.")
                                      .arg(d.what)));
    schema.add(ParamSpec::choice(QStringLiteral("line_search"), QStringLiteral("Line search"),
                                 {QStringLiteral("strong_wolfe"), QStringLiteral("backtracking")},
                                 d.strongWolfe ? QStringLiteral("strong_wolfe") : QStringLiteral("backtracking"),
                                 QStringLiteral("%1's line search (LBFGS++): strong_wolfe = bracketing and zoom "
                                                "(Nocedal & Wright, Alg. 3.5), backtracking = Armijo backtracking.")
                                     .arg(d.what)));
}

/// LbfgsSettings from parameters normalised by a schema with this block: memory and line search;
/// when the schema has them, "iterations" (maxIterations) and "gradient_tolerance" with
/// "gradient_test" — epsilon is the tolerance for the scaled test (LBFGS++'s), the absolute test
/// is the driver's gradientTest = Absolute. Fields not given keep LbfgsSettings' defaults.
inline train::LbfgsSettings lbfgsFromParams(const QVariantMap& p)
{
    train::LbfgsSettings s;
    s.memory = p.value(QStringLiteral("memory"), s.memory).toInt();
    s.lineSearch = p.value(QStringLiteral("line_search")).toString() == QLatin1String("backtracking")
                       ? train::LbfgsSettings::LineSearch::Armijo
                       : train::LbfgsSettings::LineSearch::StrongWolfe;
    if (p.contains(QStringLiteral("iterations")))
        s.maxIterations = p.value(QStringLiteral("iterations")).toInt();
    if (p.contains(QStringLiteral("gradient_tolerance"))) {
        s.epsilon = p.value(QStringLiteral("gradient_tolerance")).toDouble();
        s.gradientTest = p.value(QStringLiteral("gradient_test")).toString() == QLatin1String("absolute")
                             ? train::GradientTest::Absolute
                             : train::GradientTest::Scaled;
    }
    return s;
}

} // namespace tb
