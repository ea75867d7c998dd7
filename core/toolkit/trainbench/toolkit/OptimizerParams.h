#pragma once
/// @file OptimizerParams.h
/// The shared optimizer and learning-rate-schedule block: one spelling of each key, one help
/// text, one reader returning the training library's structs (tb::train::OptimizerSettings,
/// tb::train::LearningRateSchedule). Keys:
///  - "optimizer":   the update rule, sgd | momentum | nag | adagrad | rmsprop | adam (only where
///                   the plugin offers a choice; elsewhere the algorithm id fixes it);
///  - "lr":          the step size η (the base of the schedule);
///  - "momentum":    μ of momentum and NAG;      "rho": ρ of RMSProp;
///  - "beta1", "beta2": β₁, β₂ of Adam;         "epsilon": ε of AdaGrad, RMSProp and Adam
///                   (each only for a fixed rule that uses it; with the choice, the usual constants);
///  - "schedule":    how η changes with t (constant | step | inverse), where a choice is offered;
///  - "step_epochs", "step_factor": the step schedule η·step_factor^⌊t/step_epochs⌋;
///  - "inverse_decay": the inverse schedule η/(1 + inverse_decay·t) (Dai et al.'s θ/(1 + t/t₀) is
///                   inverse_decay = 1/t₀);
///  - "diminishing_decay": ε of Palagi & Seccia's α ← α(1 − εα) after every minibatch.
/// t counts the plugin's unit (OptimizerDefaults::unit: epochs, steps, minibatches).
///
/// The L2 term is not part of the block: it belongs to the objective, and each plugin declares
/// it as "ridge" with the help that states its objective (OptimizerSettings::weightDecay is set
/// from it by the plugin).
///
/// Part of the SDK's bridge to the training library (trainbench/toolkit/): header-only, for
/// plugins, which link tb::training.

#include <trainbench/ParamSchema.h>

#include <training/LearningRateSchedule.h>
#include <training/Optimizer.h>

#include <QList>
#include <QStringList>
#include <cmath>
#include <limits>
#include <optional>

namespace tb {

/// The "optimizer" choice's names, in train::Method order.
inline const QStringList& optimizerNames()
{
    static const QStringList names{QStringLiteral("sgd"),     QStringLiteral("momentum"), QStringLiteral("nag"),
                                   QStringLiteral("adagrad"), QStringLiteral("rmsprop"),  QStringLiteral("adam")};
    return names;
}

/// "sgd" … "adam".
inline QString optimizerName(train::Method m)
{
    return optimizerNames().value(int(m));
}

/// The method called @p name, or nullopt.
inline std::optional<train::Method> optimizerFromName(const QString& name)
{
    const qsizetype i = optimizerNames().indexOf(name);
    if (i < 0)
        return std::nullopt;
    return train::Method(int(i));
}

/// The usual learning rate of a method (PyTorch's defaults): 0.01 for SGD, momentum, NAG and
/// AdaGrad, 0.001 for RMSProp and Adam.
inline double usualLearningRate(train::Method m)
{
    return m == train::Method::RmsProp || m == train::Method::Adam ? 0.001 : 0.01;
}

/// The usual ε of a method (PyTorch's): 1e-10 for AdaGrad, 1e-8 otherwise.
inline double usualEpsilon(train::Method m)
{
    return m == train::Method::AdaGrad ? 1e-10 : 1e-8;
}

/// The "schedule" choice's names, in train::LearningRateSchedule::Kind order.
inline const QStringList& scheduleNames()
{
    static const QStringList names{QStringLiteral("constant"), QStringLiteral("step"), QStringLiteral("inverse"),
                                   QStringLiteral("inverse_sqrt"), QStringLiteral("diminishing")};
    return names;
}

/// What a plugin's optimizer block offers and starts from.
struct OptimizerDefaults {
    using Kind = train::LearningRateSchedule::Kind;

    /// Offer "optimizer", the choice of update rule (default @ref method); false: the rule is
    /// @ref method, fixed (e.g. by the algorithm id).
    bool offerChoice = false;
    train::Method method = train::Method::Sgd;
    /// With a fixed rule: offer the constants it uses (momentum, rho, beta1/beta2, epsilon).
    /// With the choice they are never offered: each rule takes its usual constants.
    bool offerConstants = true;
    /// ε's default for a fixed rule; NaN = usualEpsilon(method).
    double epsilon = std::numeric_limits<double>::quiet_NaN();

    /// "lr": default (NaN = usualLearningRate(method)), range, log slider, help.
    double lr = std::numeric_limits<double>::quiet_NaN();
    double lrMin = 1e-8;
    double lrMax = 10.0;
    bool lrLogScale = true;
    QString lrHelp = QStringLiteral("Step size η of every update.");
    QStringList lrAliases;  ///< former keys of "lr" in this plugin (e.g. "theta")

    /// The schedules offered as the "schedule" choice (empty: none offered; the schedule is
    /// @ref schedule, fixed), and the default.
    QList<Kind> schedules;
    Kind schedule = Kind::Constant;
    /// What t counts, for the help texts: "epochs", "steps", "minibatches".
    QString unit = QStringLiteral("epochs");
    /// "step_epochs", "step_factor" (with the step schedule).
    qlonglong stepEvery = 10;
    double stepFactor = 0.5;
    /// "inverse_decay" (with the inverse schedules): default, range, help.
    double inverseDecay = 0.1;
    double inverseDecayMax = 1e6;
    bool inverseDecayLogScale = false;
    QString inverseDecayHelp;
    /// "diminishing_decay" (with the diminishing schedule), and its former keys.
    double diminishingDecay = 5e-3;
    QStringList diminishingDecayAliases;

    /// True when the schedule @p k can be in effect (offered or fixed).
    bool uses(Kind k) const { return schedules.isEmpty() ? schedule == k : schedules.contains(k); }
};

/// Adds the block to @p schema (in the order of the file comment).
inline void addOptimizerParams(ParamSchema& schema, const OptimizerDefaults& d)
{
    using Kind = train::LearningRateSchedule::Kind;
    using train::Method;
    if (d.offerChoice)
        schema.add(ParamSpec::choice(QStringLiteral("optimizer"), QStringLiteral("Update rule"), optimizerNames(),
                                     optimizerName(d.method),
                                     QStringLiteral("The update rule: sgd, momentum (heavy ball), nag "
                                                    "(Nesterov), adagrad, rmsprop or adam, each with its usual "
                                                    "constants (μ = 0.9, ρ = 0.9, β = 0.9/0.999, ε = 1e-8; AdaGrad "
                                                    "1e-10)."))
                       .withAlias(QStringLiteral("method")));
    const double lr = std::isnan(d.lr) ? usualLearningRate(d.method) : d.lr;
    ParamSpec lrSpec = ParamSpec::real(QStringLiteral("lr"), QStringLiteral("Learning rate η"), lr, d.lrMin, d.lrMax,
                                       d.lrHelp, d.lrLogScale);
    for (const QString& old : d.lrAliases)
        lrSpec = lrSpec.withAlias(old);
    schema.add(lrSpec);
    if (!d.offerChoice && d.offerConstants) {
        const Method m = d.method;
        if (m == Method::Momentum || m == Method::Nag)
            schema.add(ParamSpec::real(QStringLiteral("momentum"), QStringLiteral("Momentum μ"), 0.9, 0.0, 0.9999,
                                       QStringLiteral("Weight of the previous velocity.")));
        if (m == Method::RmsProp)
            schema.add(ParamSpec::real(QStringLiteral("rho"), QStringLiteral("Decay ρ"), 0.9, 0.0, 0.9999,
                                       QStringLiteral("Decay of the running mean of squared gradients.")));
        if (m == Method::Adam) {
            schema.add(ParamSpec::real(QStringLiteral("beta1"), QStringLiteral("β₁"), 0.9, 0.0, 0.9999,
                                       QStringLiteral("Decay of the first-moment estimate.")));
            schema.add(ParamSpec::real(QStringLiteral("beta2"), QStringLiteral("β₂"), 0.999, 0.0, 0.999999,
                                       QStringLiteral("Decay of the second-moment estimate.")));
        }
        if (m == Method::AdaGrad || m == Method::RmsProp || m == Method::Adam)
            schema.add(ParamSpec::real(QStringLiteral("epsilon"), QStringLiteral("ε"),
                                       std::isnan(d.epsilon) ? usualEpsilon(m) : d.epsilon, 1e-16, 1.0,
                                       QStringLiteral("Added to the root of the squared-gradient estimate."), true));
    }
    if (!d.schedules.isEmpty()) {
        QStringList names;
        for (Kind k : d.schedules)
            names << scheduleNames().value(int(k));
        QStringList rules;
        if (d.schedules.contains(Kind::Constant))
            rules << QStringLiteral("constant η");
        if (d.schedules.contains(Kind::Step))
            rules << QStringLiteral("step η·step_factor^⌊t/step_epochs⌋");
        if (d.schedules.contains(Kind::Inverse))
            rules << QStringLiteral("inverse η/(1 + inverse_decay·t)");
        if (d.schedules.contains(Kind::InverseSqrt))
            rules << QStringLiteral("inverse_sqrt η/√(1 + inverse_decay·t)");
        if (d.schedules.contains(Kind::Diminishing))
            rules << QStringLiteral("diminishing α ← α(1 − diminishing_decay·α)");
        schema.add(ParamSpec::choice(QStringLiteral("schedule"), QStringLiteral("Schedule"), names,
                                     scheduleNames().value(int(d.schedule)),
                                     QStringLiteral("Learning rate after t completed %1: %2.")
                                         .arg(d.unit, rules.join(QStringLiteral("; ")))));
    }
    if (d.uses(Kind::Step)) {
        schema.add(ParamSpec::integer(QStringLiteral("step_epochs"), QStringLiteral("Step every"), d.stepEvery, 1,
                                      10000000,
                                      QStringLiteral("%1 between rate reductions of the step schedule.")
                                          .arg(d.unit.left(1).toUpper() + d.unit.mid(1))));
        schema.add(ParamSpec::real(QStringLiteral("step_factor"), QStringLiteral("Step factor"), d.stepFactor, 1e-6, 1.0,
                                   QStringLiteral("Factor applied by the step schedule.")));
    }
    if (d.uses(Kind::Inverse) || d.uses(Kind::InverseSqrt))
        schema.add(ParamSpec::real(QStringLiteral("inverse_decay"), QStringLiteral("Inverse decay"), d.inverseDecay,
                                   0.0, d.inverseDecayMax,
                                   d.inverseDecayHelp.isEmpty()
                                       ? QStringLiteral("Decay rate of the inverse (1/t) schedule, per %1 (1/t₀ of "
                                                        "the rule η/(1 + t/t₀)).")
                                             .arg(d.unit.chopped(1))
                                       : d.inverseDecayHelp,
                                   d.inverseDecayLogScale));
    if (d.uses(Kind::Diminishing)) {
        ParamSpec decay = ParamSpec::real(QStringLiteral("diminishing_decay"), QStringLiteral("Diminishing decay ε"),
                                          d.diminishingDecay, 1e-9, 0.99,
                                          QStringLiteral("ε of the diminishing step α ← α(1 − εα) after every %1 "
                                                         "(Palagi & Seccia: 5e-3); ε·lr must stay below 1.")
                                              .arg(d.unit.chopped(1)),
                                          true);
        for (const QString& old : d.diminishingDecayAliases)
            decay = decay.withAlias(old);
        schema.add(decay);
    }
}

/// The update rule and its constants from parameters normalised by a schema built with
/// addOptimizerParams(schema, @p d): the "optimizer" choice (or d.method), the offered
/// constants, the usual ones elsewhere. weightDecay stays 0: set it from the plugin's "ridge".
inline train::OptimizerSettings optimizerFromParams(const QVariantMap& p, const OptimizerDefaults& d)
{
    train::OptimizerSettings s;
    s.method = d.method;
    if (d.offerChoice)
        s.method = optimizerFromName(p.value(QStringLiteral("optimizer")).toString()).value_or(d.method);
    s.momentum = p.value(QStringLiteral("momentum"), 0.9).toDouble();
    s.rho = p.value(QStringLiteral("rho"), 0.9).toDouble();
    s.beta1 = p.value(QStringLiteral("beta1"), 0.9).toDouble();
    s.beta2 = p.value(QStringLiteral("beta2"), 0.999).toDouble();
    s.epsilon = p.value(QStringLiteral("epsilon"), usualEpsilon(s.method)).toDouble();
    return s;
}

/// The step-size schedule from parameters normalised by a schema built with
/// addOptimizerParams(schema, @p d): base = "lr", the kind ("schedule" or d.schedule) and its
/// constants. The Diminishing kind's α₀ is "lr" as given (a plugin with a "0 = the paper's"
/// rule replaces it).
inline train::LearningRateSchedule scheduleFromParams(const QVariantMap& p, const OptimizerDefaults& d)
{
    using Kind = train::LearningRateSchedule::Kind;
    train::LearningRateSchedule s;
    s.base = p.value(QStringLiteral("lr")).toDouble();
    s.kind = d.schedule;
    if (!d.schedules.isEmpty()) {
        const qsizetype k = scheduleNames().indexOf(p.value(QStringLiteral("schedule")).toString());
        if (k >= 0)
            s.kind = Kind(int(k));
    }
    s.every = double(p.value(QStringLiteral("step_epochs"), d.stepEvery).toLongLong());
    s.factor = p.value(QStringLiteral("step_factor"), d.stepFactor).toDouble();
    if (s.kind == Kind::Diminishing)
        s.decay = p.value(QStringLiteral("diminishing_decay"), d.diminishingDecay).toDouble();
    else
        s.decay = p.value(QStringLiteral("inverse_decay"), d.inverseDecay).toDouble();
    return s;
}

} // namespace tb
