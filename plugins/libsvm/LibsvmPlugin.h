#pragma once
/// @file LibsvmPlugin.h
/// Root object of the "libsvm" plugin.

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::libsvm {

/// Offers libsvm.classify (C-SVC) and libsvm.regress (ε-SVR), both LibsvmTrainer with the
/// kernel as a parameter; see LibsvmConfig. Thread-safe.
class LibsvmPlugin final : public QObject, public TrainerFactory, public SparseInputFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "libsvm.json")
    Q_INTERFACES(tb::TrainerFactory tb::SparseInputFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id.
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
    /// Both algorithms: their trainers take sparse inputs as they are (SparseTrainer).
    QStringList sparseInputAlgorithms() const override;
};

} // namespace tb::libsvm
