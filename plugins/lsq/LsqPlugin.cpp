#include "LsqPlugin.h"

#include "CalibratedTrainer.h"
#include "GlsTrainer.h"
#include "LsqConfig.h"
#include "StagewiseTrainer.h"

#include <trainbench/toolkit/TeachingPreset.h>

#include <stdexcept>

namespace tb::lsq {
namespace {
const QString kCitation = QStringLiteral("Agarwal, Kakade, Karampatziakis, Song, Valiant: Least Squares Revisited: "
                                         "Scalable Approaches for Multi-class Prediction, ICML 2014");
}

QList<AlgorithmInfo> LsqPlugin::algorithms() const
{
    AlgorithmInfo gls;
    gls.id = QStringLiteral("lsq.gls");
    gls.name = QStringLiteral("Generalized least squares (LSR Alg. 1)");
    gls.description = QStringLiteral("Σ̂ = FᵀF/n factorised once, then W ← W − (L·Σ̂ + λI)⁻¹·Ê[(ŷ − y)xᵀ]: least squares "
                                     "(identity link) or multinomial logistic regression (softmax) on raw or random "
                                     "features.");
    gls.citation = kCitation + QStringLiteral(", Algorithm 1");
    gls.schema = LsqConfig::schema(Algorithm::Gls);
    toolkit::addTeachingPreset(gls.schema);
    gls.progress = ProgressRule{QStringLiteral("iterations"), 0.0, {}};

    AlgorithmInfo cls;
    cls.id = QStringLiteral("lsq.calibrated");
    cls.name = QStringLiteral("Calibrated least squares (LSR Alg. 2)");
    cls.description = QStringLiteral("Fits the residual by least squares, then calibrates on powers of the "
                                     "predictions and projects onto the probability simplex; the link is learnt.");
    cls.citation = kCitation + QStringLiteral(", Algorithm 2");
    cls.schema = LsqConfig::schema(Algorithm::Calibrated);
    toolkit::addTeachingPreset(cls.schema);
    cls.progress = ProgressRule{QStringLiteral("iterations"), 0.0, {}};

    AlgorithmInfo stage;
    stage.id = QStringLiteral("lsq.stagewise");
    stage.name = QStringLiteral("Stagewise least squares (LSR Alg. 3)");
    stage.description = QStringLiteral("Fits block after block of random features against the running predictions "
                                       "(linear, logistic or calibrated stages); features regenerated from seeds.");
    stage.citation = kCitation + QStringLiteral(", Algorithm 3");
    stage.schema = LsqConfig::schema(Algorithm::Stagewise);
    toolkit::addTeachingPreset(stage.schema);
    stage.progress = ProgressRule{QStringLiteral("stages"), 0.0, {}};
    return {gls, cls, stage};
}

std::unique_ptr<Trainer> LsqPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    if (algorithmId == QLatin1String("lsq.gls"))
        return std::make_unique<GlsTrainer>(LsqConfig::fromParams(params, Algorithm::Gls));
    if (algorithmId == QLatin1String("lsq.calibrated"))
        return std::make_unique<CalibratedTrainer>(LsqConfig::fromParams(params, Algorithm::Calibrated));
    if (algorithmId == QLatin1String("lsq.stagewise"))
        return std::make_unique<StagewiseTrainer>(LsqConfig::fromParams(params, Algorithm::Stagewise));
    throw std::invalid_argument("lsq: unknown algorithm \"" + algorithmId.toStdString() +
                                "\" (known: lsq.gls, lsq.calibrated, lsq.stagewise)");
}

} // namespace tb::lsq
