#include "BldPlugin.h"

#include "B2ldTrainer.h"
#include "BldConfig.h"
#include "IncrementalTrainer.h"
#include "LbfgsBaselineTrainer.h"

#include <trainbench/toolkit/TeachingPreset.h>

#include <stdexcept>

namespace tb::bld {
namespace {
const QString kCitation = QStringLiteral("Palagi & Seccia: Block layer decomposition schemes for training deep "
                                         "neural networks, J. Global Optimization 77, 97–124 (2020), doi:10.1007/s10898-019-00856-0");
}

QList<AlgorithmInfo> BldPlugin::algorithms() const
{
    AlgorithmInfo b2ld;
    b2ld.id = QStringLiteral("bld.b2ld");
    b2ld.name = QStringLiteral("B2LD (block layers, L-BFGS)");
    b2ld.description = QStringLiteral("Sweeps the layers backward, minimising the objective over one layer at a "
                                      "time with L-BFGS, safeguarded by an Armijo steepest-descent point.");
    b2ld.citation = kCitation + QStringLiteral(", Algorithm 3");
    b2ld.schema = BldConfig::schema(Algorithm::B2ld);
    toolkit::addTeachingPreset(b2ld.schema);
    b2ld.progress = ProgressRule{QStringLiteral("sweeps"), 0.0, {}};

    AlgorithmInfo lbfgs;
    lbfgs.id = QStringLiteral("bld.lbfgs");
    lbfgs.name = QStringLiteral("L-BFGS (all layers)");
    lbfgs.description = QStringLiteral("L-BFGS on every weight at once, with B2LD's objective, settings and "
                                       "stopping rules: the paper's batch baseline.");
    lbfgs.citation = kCitation + QStringLiteral(", §4.2 baseline");
    lbfgs.schema = BldConfig::schema(Algorithm::Lbfgs);
    toolkit::addTeachingPreset(lbfgs.schema);
    lbfgs.progress = ProgressRule{QStringLiteral("iterations"), 0.0, {}};

    AlgorithmInfo bling;
    bling.id = QStringLiteral("bld.bling");
    bling.name = QStringLiteral("BLInG (block layers, minibatches)");
    bling.description = QStringLiteral("For each minibatch of a fixed partition, a normalised steepest-descent "
                                       "step on one layer after another, with a diminishing step.");
    bling.citation = kCitation + QStringLiteral(", Algorithm 5");
    bling.schema = BldConfig::schema(Algorithm::Bling);
    toolkit::addTeachingPreset(bling.schema);
    bling.progress = ProgressRule{QStringLiteral("epochs"), 0.0, {}};

    AlgorithmInfo ig;
    ig.id = QStringLiteral("bld.ig");
    ig.name = QStringLiteral("IG (incremental gradient)");
    ig.description = QStringLiteral("BLInG's normalised, diminishing step on all layers at once from one minibatch "
                                    "gradient: the paper's minibatch baseline.");
    ig.citation = kCitation + QStringLiteral(", §5.2 baseline");
    ig.schema = BldConfig::schema(Algorithm::Ig);
    toolkit::addTeachingPreset(ig.schema);
    ig.progress = ProgressRule{QStringLiteral("epochs"), 0.0, {}};
    return {b2ld, lbfgs, bling, ig};
}

std::unique_ptr<Trainer> BldPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    const auto a = BldConfig::algorithmFromId(algorithmId);
    if (!a)
        throw std::invalid_argument("bld: unknown algorithm \"" + algorithmId.toStdString() + "\" (known: " +
                                    BldConfig::algorithmIds().join(", ").toStdString() + ")");
    BldConfig c = BldConfig::fromParams(*a, params);
    switch (*a) {
    case Algorithm::B2ld:
        return std::make_unique<B2ldTrainer>(std::move(c));
    case Algorithm::Lbfgs:
        return std::make_unique<LbfgsBaselineTrainer>(std::move(c));
    case Algorithm::Bling:
    case Algorithm::Ig:
        return std::make_unique<IncrementalTrainer>(std::move(c));
    }
    throw std::invalid_argument("bld: unknown algorithm");
}

} // namespace tb::bld
