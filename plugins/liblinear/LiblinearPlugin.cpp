#include "LiblinearPlugin.h"

#include "LiblinearConfig.h"
#include "LiblinearTrainer.h"

#include <algorithm>
#include <stdexcept>

namespace tb::liblinear {

QList<AlgorithmInfo> LiblinearPlugin::algorithms() const
{
    const QString citation =
        QStringLiteral("Fan, Chang, Hsieh, Wang & Lin, LIBLINEAR: A Library for Large Linear "
                       "Classification, JMLR 9, 2008");
    AlgorithmInfo classify;
    classify.id = LiblinearConfig::classifyId;
    classify.name = QStringLiteral("LIBLINEAR classifier");
    classify.description = QStringLiteral(
        "Debian's LIBLINEAR 2.3 itself: L2/L1-regularised logistic regression and linear SVMs, one-vs-rest "
        "or Crammer–Singer multi-class, the solver a parameter like liblinear-train -s. Single-threaded.");
    classify.citation = citation;
    classify.schema = LiblinearConfig::schema(false);
    // One checkpoint per solve: one, or one per rung of the tolerance ladder.
    const auto solves = [](const QVariantMap& p) {
        return std::max(1.0, double(p.value(QStringLiteral("tolerance_ladder")).toList().size()));
    };
    classify.progress.compute = solves;
    classify.regression = false;
    classify.classification = true;

    AlgorithmInfo regress;
    regress.id = LiblinearConfig::regressId;
    regress.name = QStringLiteral("LIBLINEAR regression");
    regress.description = QStringLiteral(
        "Debian's LIBLINEAR 2.3 itself: L2-regularised support vector regression (L2- or L1-loss, primal or "
        "dual), one model per output. Single-threaded.");
    regress.citation = citation;
    regress.schema = LiblinearConfig::schema(true);
    regress.progress.compute = solves;
    regress.regression = true;
    regress.classification = false;
    return {classify, regress};
}

std::unique_ptr<Trainer> LiblinearPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    if (algorithmId != LiblinearConfig::classifyId && algorithmId != LiblinearConfig::regressId)
        throw std::invalid_argument("liblinear: unknown algorithm \"" + algorithmId.toStdString() +
                                    "\" (known: " + LiblinearConfig::classifyId.toStdString() + ", " +
                                    LiblinearConfig::regressId.toStdString() + ")");
    const bool regression = algorithmId == LiblinearConfig::regressId;
    return std::make_unique<LiblinearTrainer>(LiblinearConfig::fromParams(regression, params));
}

QStringList LiblinearPlugin::sparseInputAlgorithms() const
{
    // Both hand the library its own sparse rows, built from compressed rows as they are.
    return {LiblinearConfig::classifyId, LiblinearConfig::regressId};
}

} // namespace tb::liblinear
