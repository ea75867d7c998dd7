#include "DsgdPlugin.h"

#include "DsgdConfig.h"
#include "DsgdTrainer.h"
#include "KernelRidgeTrainer.h"
#include "RandomFeatureSgdTrainer.h"

#include <trainbench/toolkit/TeachingPreset.h>

#include <stdexcept>

namespace tb::dsgd {
namespace {

const char* kPaper = "Dai, Xie, He, Liang, Raj, Balcan, Song: Scalable Kernel Methods via Doubly Stochastic "
                     "Gradients, NIPS 2014";

struct Description {
    Algorithm algorithm;
    const char* name;
    const char* description;
    const char* citation;
};

const Description kDescriptions[] = {
    {Algorithm::Doubly, "Doubly stochastic gradients",
     "Kernel machine grown by functional gradient steps on random data points and random features regenerated from "
     "seeds (Algorithm 1; r features per step).",
     ", Algorithms 1 and 2"},
    {Algorithm::Preconditioned, "Doubly stochastic gradients, block-preconditioned",
     "Each step fits a new block of random features with the block's covariance as preconditioner (the authors' "
     "code).",
     "; zixu1986/Doubly_Stochastic_Gradients"},
    {Algorithm::RandomFeatureSgd, "Random features + SGD (r-SGD / r-Pegasos)",
     "A fixed set of random features (2⁸ in the paper's baselines) with weights trained by minibatch SGD.",
     "; Rahimi & Recht, NIPS 2007; Shalev-Shwartz et al., ICML 2007"},
    {Algorithm::KernelRidge, "Exact kernel ridge regression (subsample)",
     "The closed-form kernel ridge solution on a seeded subsample of the training rows.",
     "; the exact solution the doubly stochastic gradients converge to"},
};

} // namespace

QList<AlgorithmInfo> DsgdPlugin::algorithms() const
{
    QList<AlgorithmInfo> out;
    for (const Description& d : kDescriptions) {
        AlgorithmInfo a;
        a.id = DsgdConfig::idOf(d.algorithm);
        a.name = QString::fromUtf8(d.name);
        a.description = QString::fromUtf8(d.description);
        a.citation = QString::fromUtf8(kPaper) + QString::fromUtf8(d.citation);
        a.schema = DsgdConfig::schema(d.algorithm);
        toolkit::addTeachingPreset(a.schema);
        if (d.algorithm == Algorithm::KernelRidge)
            a.progress.compute = [](const QVariantMap&) { return 1.0; };  // one solve, one checkpoint
        else
            a.progress.parameter = QStringLiteral("epochs");  // Checkpoint::epoch = rows visited / n
        a.regression = true;
        a.classification = true;
        out << a;
    }
    return out;
}

QStringList DsgdPlugin::sparseInputAlgorithms() const
{
    return {DsgdConfig::idOf(Algorithm::Doubly), DsgdConfig::idOf(Algorithm::Preconditioned),
            DsgdConfig::idOf(Algorithm::RandomFeatureSgd)};
}

std::unique_ptr<Trainer> DsgdPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    const auto a = DsgdConfig::fromId(algorithmId);
    if (!a)
        throw std::invalid_argument("dsgd: unknown algorithm \"" + algorithmId.toStdString() + "\" (known: " +
                                    DsgdConfig::algorithmIds().join(", ").toStdString() + ")");
    DsgdConfig config = DsgdConfig::fromParams(*a, params);
    switch (*a) {
    case Algorithm::Doubly:
    case Algorithm::Preconditioned:
        return std::make_unique<DsgdTrainer>(std::move(config));
    case Algorithm::RandomFeatureSgd:
        return std::make_unique<RandomFeatureSgdTrainer>(std::move(config));
    case Algorithm::KernelRidge:
        return std::make_unique<KernelRidgeTrainer>(std::move(config));
    }
    throw std::invalid_argument("dsgd: unknown algorithm");
}

} // namespace tb::dsgd
