#pragma once
/// @file GradientPlugin.h
/// Root object of the "gradient" plugin.

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::gradient {

/// Offers gradient.sgd, gradient.momentum, gradient.nag, gradient.adagrad, gradient.rmsprop,
/// gradient.adam (minibatch first-order methods, GradientTrainer) and gradient.lbfgs
/// (full-batch L-BFGS, LbfgsTrainer), all on the shared network type. Thread-safe.
class GradientPlugin final : public QObject, public TrainerFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "gradient.json")
    Q_INTERFACES(tb::TrainerFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id or a parameter combination the schema
    /// cannot express (see GradientConfig::fromParams()).
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
};

} // namespace tb::gradient
