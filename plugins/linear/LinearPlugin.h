#pragma once

#include <trainbench/SparseTrainer.h>
#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::linear {

/// Root object of the "linear" plugin: one algorithm, "linear.ridge", which takes sparse inputs
/// as they are (RidgeTrainer is a SparseTrainer).
class LinearPlugin final : public QObject, public TrainerFactory, public SparseInputFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "linear.json")
    Q_INTERFACES(tb::TrainerFactory tb::SparseInputFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
    /// {"linear.ridge"}.
    QStringList sparseInputAlgorithms() const override { return {QStringLiteral("linear.ridge")}; }
};

} // namespace tb::linear
