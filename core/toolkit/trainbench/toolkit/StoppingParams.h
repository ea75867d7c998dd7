#pragma once
/// @file StoppingParams.h
/// The shared stopping-rules block, read into the training library's tb::train::StoppingRules. Keys
/// (each only where the plugin offers it):
///  - "epochs":      passes over the training rows at most (integer, or fractional where the
///                   plugin allows it);
///  - "iterations":  iterations at most (L-BFGS, GLS …);
///  - "gradient_tolerance", "gradient_test": end when ‖∇f‖₂ ≤ gradient_tolerance·max(1, ‖w‖₂)
///                   (scaled, LBFGS++'s test) or ‖∇f‖₂ ≤ gradient_tolerance (absolute);
///  - "relative_decrease", "decrease_window": end when (f_old − f_new)/max(f_old, 1) ≤
///                   relative_decrease, f_old being f decrease_window iterations ago;
///  - "validation_fraction", "patience": early stopping on a seeded share of the training rows,
///                   when their loss has not improved for `patience` epochs.
/// The run's time budget is not a parameter: it is the host's ("time_budget_s" and
/// "time_budget_clock" of the experiment, docs/experiments.md), the same for every plugin.
///
/// Part of the SDK's bridge to the training library (trainbench/toolkit/): header-only, for
/// plugins, which link tb::training.

#include <trainbench/ParamSchema.h>

#include <training/StoppingRules.h>

namespace tb {

/// What a plugin's stopping block offers and starts from.
struct StoppingDefaults {
    /// "epochs": offered, default, upper bound, fractional (real) or integer, help.
    bool offerEpochs = false;
    double epochs = 10;
    double epochsMax = 1e7;
    bool fractionalEpochs = false;
    QString epochsHelp = QStringLiteral("Passes over the training set.");
    /// "iterations".
    bool offerIterations = false;
    qlonglong iterations = 100;
    qlonglong iterationsMax = 1000000;
    QString iterationsHelp = QStringLiteral("Most iterations.");
    /// "gradient_tolerance" and "gradient_test".
    bool offerGradientTolerance = false;
    double gradientTolerance = 1e-6;
    double gradientToleranceMin = 0.0;
    double gradientToleranceMax = 1.0;
    train::GradientTest gradientTest = train::GradientTest::Scaled;
    QString gradientToleranceHelp;  ///< empty: the standard text
    /// "relative_decrease" (and "decrease_window" with offerDecreaseWindow).
    bool offerRelativeDecrease = false;
    double relativeDecrease = 1e-4;
    QString relativeDecreaseHelp;   ///< empty: the standard text
    bool offerDecreaseWindow = false;
    int decreaseWindow = 1;
    QString decreaseWindowHelp;     ///< empty: the standard text
    /// "validation_fraction" and "patience".
    bool offerEarlyStopping = false;
    double validationFraction = 0.0;
    int patience = 5;
};

/// Adds the offered keys to @p schema (in the order of the file comment).
inline void addStoppingParams(ParamSchema& schema, const StoppingDefaults& d)
{
    if (d.offerEpochs) {
        if (d.fractionalEpochs)
            schema.add(ParamSpec::real(QStringLiteral("epochs"), QStringLiteral("Epochs"), d.epochs, 1e-6, d.epochsMax,
                                       d.epochsHelp, true));
        else
            schema.add(ParamSpec::integer(QStringLiteral("epochs"), QStringLiteral("Epochs"), qlonglong(d.epochs), 1,
                                          qlonglong(d.epochsMax), d.epochsHelp));
    }
    if (d.offerIterations)
        schema.add(ParamSpec::integer(QStringLiteral("iterations"), QStringLiteral("Iterations"), d.iterations, 1,
                                      d.iterationsMax, d.iterationsHelp));
    if (d.offerGradientTolerance) {
        schema.add(ParamSpec::real(QStringLiteral("gradient_tolerance"), QStringLiteral("Gradient tolerance"),
                                   d.gradientTolerance, d.gradientToleranceMin, d.gradientToleranceMax,
                                   d.gradientToleranceHelp.isEmpty()
                                       ? QStringLiteral("Ends the run when the gradient norm passes gradient_test with "
                                                        "this tolerance.%1")
                                             .arg(d.gradientToleranceMin > 0 ? QString() : QStringLiteral(" 0 = never."))
                                       : d.gradientToleranceHelp,
                                   true)
                       .withAlias(QStringLiteral("tolerance")));
        schema.add(ParamSpec::choice(QStringLiteral("gradient_test"), QStringLiteral("Gradient test"),
                                     {QStringLiteral("scaled"), QStringLiteral("absolute")},
                                     QString::fromLatin1(train::gradientTestName(d.gradientTest)),
                                     QStringLiteral("scaled: ‖∇f‖₂ ≤ gradient_tolerance·max(1, ‖w‖₂) (LBFGS++'s test, "
                                                    "independent of the weights' scale); absolute: ‖∇f‖₂ ≤ "
                                                    "gradient_tolerance (Palagi & Seccia's criterion i).")));
    }
    if (d.offerRelativeDecrease)
        schema.add(ParamSpec::real(QStringLiteral("relative_decrease"), QStringLiteral("Relative decrease"),
                                   d.relativeDecrease, 0.0, 0.5,
                                   d.relativeDecreaseHelp.isEmpty()
                                       ? QStringLiteral("Ends the run when f decreased by at most this, relative to "
                                                        "max(f, 1), over the last decrease_window iterations. 0 = never.")
                                       : d.relativeDecreaseHelp,
                                   true));
    if (d.offerDecreaseWindow)
        schema.add(ParamSpec::integer(QStringLiteral("decrease_window"), QStringLiteral("Decrease window"),
                                      d.decreaseWindow, 1, 1000000,
                                      d.decreaseWindowHelp.isEmpty()
                                          ? QStringLiteral("relative_decrease compares f now with f this many "
                                                           "iterations ago.")
                                          : d.decreaseWindowHelp));
    if (d.offerEarlyStopping) {
        schema.add(ParamSpec::real(QStringLiteral("validation_fraction"), QStringLiteral("Validation fraction"),
                                   d.validationFraction, 0.0, 0.5,
                                   QStringLiteral("Early stopping: share of the training rows held out (seeded) to stop "
                                                  "when their loss has not improved for `patience` epochs; the best "
                                                  "weights are kept. 0 = off.")));
        schema.add(ParamSpec::integer(QStringLiteral("patience"), QStringLiteral("Patience"), d.patience, 1, 1000000,
                                      QStringLiteral("Early stopping: epochs without a better validation loss.")));
    }
}

/// The rules from parameters normalised by a schema built with addStoppingParams(schema, @p d):
/// the offered keys; the others stay off (0) or at @p d's values.
inline train::StoppingRules stoppingFromParams(const QVariantMap& p, const StoppingDefaults& d)
{
    train::StoppingRules r;
    if (d.offerEpochs)
        r.epochs = p.value(QStringLiteral("epochs")).toDouble();
    if (d.offerIterations)
        r.iterations = p.value(QStringLiteral("iterations")).toLongLong();
    if (d.offerGradientTolerance) {
        r.gradientTolerance = p.value(QStringLiteral("gradient_tolerance")).toDouble();
        r.gradientTest = p.value(QStringLiteral("gradient_test")).toString() == QLatin1String("absolute")
                             ? train::GradientTest::Absolute
                             : train::GradientTest::Scaled;
    }
    if (d.offerRelativeDecrease)
        r.relativeDecrease = p.value(QStringLiteral("relative_decrease")).toDouble();
    r.decreaseWindow = d.offerDecreaseWindow ? p.value(QStringLiteral("decrease_window")).toInt() : d.decreaseWindow;
    if (d.offerEarlyStopping) {
        r.validationFraction = p.value(QStringLiteral("validation_fraction")).toDouble();
        r.patience = p.value(QStringLiteral("patience")).toInt();
    }
    return r;
}

} // namespace tb
