#include "LinearPlugin.h"

#include "RidgeTrainer.h"

#include <trainbench/toolkit/Ridge.h>
#include <trainbench/toolkit/TeachingPreset.h>

#include <stdexcept>

namespace tb::linear {

QList<AlgorithmInfo> LinearPlugin::algorithms() const
{
    AlgorithmInfo ridge;
    ridge.id = QStringLiteral("linear.ridge");
    ridge.name = QStringLiteral("Ridge least squares");
    ridge.description = QStringLiteral("Closed-form linear least squares with an optional ridge term; one-hot targets for "
                                       "classification. An anytime curve by conjugate gradients with iteration_ladder. Sparse "
                                       "inputs: normal equations from the sparse rows, or conjugate gradients when wide.");
    ridge.citation = QStringLiteral("Agarwal et al., Least Squares Revisited, ICML 2014, Algorithm 1 (identity link)");
    ridge.schema = ParamSchema{
        toolkit::ridgeParam(QStringLiteral("every weight, the bias included; λ = 2n·r on the Gram diagonal of "
                                           "½‖Xw − y‖² for n training rows (0 = plain least squares). Ignored when "
                                           "relative_ridge > 0.")),
        toolkit::gramRidgeParam(QStringLiteral("Ignored when relative_ridge > 0.")),
        // The range of bpls's and lsq's relative_ridge, the same quantity (docs/parameters.md):
        // at 1 the ridge equals the Gram matrix's mean eigenvalue, a penalty that dominates the fit.
        ParamSpec::real("relative_ridge", QStringLiteral("Relative ridge"), 0.0, 0.0, 1.0,
                        QStringLiteral("Ridge λ = relative_ridge·trace(XᵀX)/d, which does not depend on the data's "
                                       "units; 0 = off."),
                        true),
        ParamSpec::boolean("bias", QStringLiteral("Bias"), true, QStringLiteral("Append a constant-1 input column.")),
        // "iteration_ladder" beside LIBLINEAR's and LIBSVM's "tolerance_ladder": a ladder of
        // what each rung lists (docs/parameters.md); formerly "cg_ladder".
        ParamSpec::intList("iteration_ladder", QStringLiteral("Iteration ladder"), {}, 0, RidgeTrainer::maxCgRungs, 1,
                           RidgeTrainer::maxCgIterations,
                           QStringLiteral("An anytime curve of the same problem: conjugate gradients on the normal "
                                          "equations (CGLS, from 0) instead of the closed form, a checkpoint after "
                                          "each of these iteration counts (strictly increasing). Empty = the closed "
                                          "form, one checkpoint. Sparse inputs: the same curve on the sparse "
                                          "rows."))
            .withAlias(QStringLiteral("cg_ladder")),
        ParamSpec::real("cg_tolerance", QStringLiteral("CG tolerance"), 1e-8, 1e-15, 0.1,
                        QStringLiteral("Sparse inputs wider than %1 columns (with the bias) only, without iteration_ladder: "
                                       "conjugate gradients (never forming XᵀX) stop once ‖Aᵀ(y − Aw) − λw‖ ≤ this "
                                       "× ‖Aᵀy‖ for every output. Dense and narrower sparse inputs take the closed "
                                       "form and ignore it.")
                            .arg(RidgeTrainer::kNormalEquationsMaxWidth),
                        true),
        // "iterations", the house's name of an iterative solver's cap (docs/parameters.md).
        ParamSpec::integer("iterations", QStringLiteral("CG iterations at most"), 2000, 1,
                           RidgeTrainer::maxCgIterations,
                           QStringLiteral("Sparse inputs wider than %1 columns only, without iteration_ladder: the most "
                                          "conjugate-gradient iterations (a checkpoint every %2); dense inputs ignore "
                                          "it.")
                               .arg(RidgeTrainer::kNormalEquationsMaxWidth)
                               .arg(RidgeTrainer::kCgCheckpointEvery))
            .withAlias(QStringLiteral("cg_max_iterations")),
    };
    // A closed-form solver: one parameter, the scale-free ridge (the absolute one depends on the
    // data's units, so no default range fits every data set).
    ridge.schema.setSearch(QStringLiteral("relative_ridge"), SearchSpace::logUniform(1e-10, 1e-1));
    // Before the parameter names were unified: "lambda" and a flag "relative" that made it
    // relative. Old files keep running, with a note.
    ridge.schema.addFormatChange(toolkit::ridgeWasGram());
    // "lambda" was a Gram-diagonal λ: gram_ridge in either format.
    ridge.schema.setUpgrader([](const QVariantMap& in, QStringList* notes) {
        QVariantMap p = in;
        if (!p.contains("lambda") && !p.contains("relative"))
            return p;
        const bool relative = p.take("relative").toBool();
        const QVariant lambda = p.take("lambda");
        const QString key = relative ? QStringLiteral("relative_ridge") : QStringLiteral("gram_ridge");
        if (lambda.isValid() && !p.contains(key))
            p.insert(key, lambda);
        if (notes)
            *notes << QStringLiteral("parameters \"lambda\" and \"relative\" are deprecated: \"lambda\" is now "
                                     "\"%1\"").arg(key);
        return p;
    });
    // One solve, one checkpoint; or CG's iteration count at the last checkpoint of the ladder.
    toolkit::addTeachingPreset(ridge.schema);
    ridge.progress.compute = [](const QVariantMap& p) {
        const QVariantList ladder = p.value(QStringLiteral("iteration_ladder")).toList();
        return ladder.isEmpty() ? 1.0 : ladder.last().toDouble();
    };
    return {ridge};
}

std::unique_ptr<Trainer> LinearPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    if (algorithmId != QLatin1String("linear.ridge"))
        throw std::invalid_argument("linear: unknown algorithm " + algorithmId.toStdString());
    return std::make_unique<RidgeTrainer>(params);
}

} // namespace tb::linear
