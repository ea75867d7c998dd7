#include "GradientPlugin.h"

#include "GradientConfig.h"
#include "GradientTrainer.h"
#include "LbfgsTrainer.h"

#include <trainbench/toolkit/TeachingPreset.h>

#include <stdexcept>

namespace tb::gradient {
namespace {

struct Description {
    const char* id;
    const char* name;
    const char* description;
    const char* citation;
};

const Description kDescriptions[] = {
    {"gradient.sgd", "SGD", "Minibatch stochastic gradient descent.",
     "Robbins & Monro 1951; Bottou 2010"},
    {"gradient.momentum", "SGD with momentum", "Minibatch SGD with heavy-ball momentum.",
     "Polyak 1964; Qian, Neural Networks 12(1), 1999"},
    {"gradient.nag", "NAG", "Minibatch SGD with Nesterov's accelerated gradient.",
     "Nesterov 1983; Sutskever et al., ICML 2013"},
    {"gradient.adagrad", "AdaGrad", "Per-weight step sizes from the sum of squared gradients.",
     "Duchi, Hazan & Singer, JMLR 12, 2011"},
    {"gradient.rmsprop", "RMSProp", "Per-weight step sizes from a running mean of squared gradients.",
     "Tieleman & Hinton, COURSERA lecture 6.5, 2012"},
    {"gradient.adam", "Adam", "Adaptive moment estimation with bias correction.",
     "Kingma & Ba, ICLR 2015"},
    {"gradient.lbfgs", "L-BFGS (full batch)", "Limited-memory BFGS on all weights at once; the quasi-Newton reference.",
     "Liu & Nocedal, Math. Programming 45, 1989; LBFGS++"},
};

} // namespace

QList<AlgorithmInfo> GradientPlugin::algorithms() const
{
    QList<AlgorithmInfo> out;
    for (const Description& d : kDescriptions) {
        AlgorithmInfo a;
        a.id = QString::fromLatin1(d.id);
        a.name = QString::fromUtf8(d.name);
        a.description = QString::fromUtf8(d.description);
        a.citation = QString::fromUtf8(d.citation);
        const AlgorithmKind kind = *GradientConfig::kindFromId(a.id);
        a.schema = GradientConfig::schema(kind);
        toolkit::addTeachingPreset(a.schema);
        // Checkpoint::epoch counts epochs (first-order methods) or iterations (L-BFGS).
        a.progress.parameter = kind.lbfgs ? QStringLiteral("iterations") : QStringLiteral("epochs");
        a.regression = true;
        a.classification = true;
        out << a;
    }
    return out;
}

std::unique_ptr<Trainer> GradientPlugin::create(const QString& algorithmId, const QVariantMap& params) const
{
    const auto kind = GradientConfig::kindFromId(algorithmId);
    if (!kind)
        throw std::invalid_argument("gradient: unknown algorithm \"" + algorithmId.toStdString() + "\" (known: " +
                                    GradientConfig::algorithmIds().join(", ").toStdString() + ")");
    GradientConfig config = GradientConfig::fromParams(*kind, params);
    if (kind->lbfgs)
        return std::make_unique<LbfgsTrainer>(std::move(config));
    return std::make_unique<GradientTrainer>(std::move(config));
}

} // namespace tb::gradient
