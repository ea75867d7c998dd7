#pragma once
/// @file DsgdPlugin.h
/// Root object of the "dsgd" plugin.

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::dsgd {

/// Offers dsgd.doubly_stochastic and dsgd.preconditioned (DsgdTrainer), the random-feature
/// baseline dsgd.random_features_sgd (RandomFeatureSgdTrainer) and exact kernel ridge
/// regression on a subsample, dsgd.kernel_ridge (KernelRidgeTrainer). The three random-feature
/// algorithms take sparse inputs as they are (SparseInputFactory; their trainers are
/// SparseTrainers); kernel ridge takes dense inputs only. Thread-safe.
class DsgdPlugin final : public QObject, public TrainerFactory, public SparseInputFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "dsgd.json")
    Q_INTERFACES(tb::TrainerFactory tb::SparseInputFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id or parameters the schema cannot check
    /// (see DsgdConfig::fromParams()).
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
    /// dsgd.doubly_stochastic, dsgd.preconditioned and dsgd.random_features_sgd.
    QStringList sparseInputAlgorithms() const override;
};

} // namespace tb::dsgd
