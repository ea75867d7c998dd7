#include "BplsPlugin.h"

#include "BplsConfig.h"
#include "BplsTrainer.h"

#include <trainbench/toolkit/TeachingPreset.h>

#include <stdexcept>

namespace tb::bpls {
namespace {
const QString kCitation = QStringLiteral("Tomić, Matos-Carvalho, Beko: A Closed-form Solution for Weight Optimization "
                                         "in Fully-connected Feed-forward Neural Networks, arXiv:2401.06699 (2024)");
}

QList<AlgorithmInfo> BplsPlugin::algorithms() const
{
    AlgorithmInfo regress;
    regress.id = QStringLiteral("bpls.regress");
    regress.name = QStringLiteral("BPLS (Algorithm 1)");
    regress.description = QStringLiteral("One backward sweep of closed-form least squares per layer, for injective "
                                         "input-output maps (regression).");
    regress.citation = kCitation + QStringLiteral(", Algorithm 1");
    regress.schema = BplsConfig::schema(false);
    toolkit::addTeachingPreset(regress.schema);
    regress.progress.compute = [](const QVariantMap&) { return 1.0; }; // one sweep, one checkpoint
    regress.regression = true;
    regress.classification = false; // Algorithm 1 assumes an injective map; bpls.classify is Algorithm 2

    AlgorithmInfo classify;
    classify.id = QStringLiteral("bpls.classify");
    classify.name = QStringLiteral("BPLS (Algorithm 2)");
    classify.description = QStringLiteral("Backward least-squares sweep with re-solves from desired values, then "
                                          "refinement on the misclassified rows with weight blending.");
    classify.citation = kCitation + QStringLiteral(", Algorithm 2");
    classify.schema = BplsConfig::schema(true);
    toolkit::addTeachingPreset(classify.schema);
    // In front of a class: 50 refinements, the curve shown to the end rather than cut where the
    // misses stop falling.
    classify.schema.setTeaching(QStringLiteral("tau_max"), 50);
    classify.schema.setTeaching(QStringLiteral("stop_when_no_gain"), false);
    classify.progress = ProgressRule{QStringLiteral("tau_max"), 1.0, {}}; // the first sweep, then refinements
    classify.regression = false;
    classify.classification = true;
    return {regress, classify};
}

std::unique_ptr<Trainer> BplsPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    if (algorithmId == QLatin1String("bpls.regress"))
        return std::make_unique<BplsTrainer>(BplsConfig::fromParams(params, false));
    if (algorithmId == QLatin1String("bpls.classify"))
        return std::make_unique<BplsTrainer>(BplsConfig::fromParams(params, true));
    throw std::invalid_argument("bpls: unknown algorithm \"" + algorithmId.toStdString() +
                                "\" (known: bpls.regress, bpls.classify)");
}

} // namespace tb::bpls
