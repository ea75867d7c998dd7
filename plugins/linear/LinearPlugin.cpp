#include "LinearPlugin.h"

#include "RidgeTrainer.h"

#include <stdexcept>

namespace tb::linear {

QList<AlgorithmInfo> LinearPlugin::algorithms() const
{
    AlgorithmInfo ridge;
    ridge.id = QStringLiteral("linear.ridge");
    ridge.name = QStringLiteral("Ridge least squares");
    ridge.description = QStringLiteral("Closed-form linear least squares with an optional ridge term; one-hot targets for classification.");
    ridge.citation = QStringLiteral("Agarwal et al., Least Squares Revisited, ICML 2014, Algorithm 1 (identity link)");
    ridge.schema = ParamSchema{
        ParamSpec::real("lambda", QStringLiteral("Ridge λ"), 0.0, 0.0, 1e8,
                        QStringLiteral("Ridge term added to the Gram diagonal (0 = plain least squares).")),
        ParamSpec::boolean("relative", QStringLiteral("Relative ridge"), false,
                           QStringLiteral("Scale λ by trace(XᵀX)/d so that it does not depend on the data's units.")),
        ParamSpec::boolean("bias", QStringLiteral("Bias"), true, QStringLiteral("Append a constant-1 input column.")),
    };
    ridge.progress.compute = [](const QVariantMap&) { return 1.0; }; // one solve, one checkpoint
    return {ridge};
}

std::unique_ptr<Trainer> LinearPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    if (algorithmId != QLatin1String("linear.ridge"))
        throw std::invalid_argument("linear: unknown algorithm " + algorithmId.toStdString());
    return std::make_unique<RidgeTrainer>(params);
}

} // namespace tb::linear
