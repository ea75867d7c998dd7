#pragma once
/// @file LiblinearPlugin.h
/// Root object of the "liblinear" plugin.

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::liblinear {

/// Offers liblinear.classify (LIBLINEAR's classification solvers) and liblinear.regress (its SVR
/// solvers), both LiblinearTrainer; see LiblinearConfig for why solvers are a parameter.
/// Thread-safe.
class LiblinearPlugin final : public QObject, public TrainerFactory, public SparseInputFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "liblinear.json")
    Q_INTERFACES(tb::TrainerFactory tb::SparseInputFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id.
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
    /// Both algorithms: their trainers take sparse inputs as they are (SparseTrainer).
    QStringList sparseInputAlgorithms() const override;
};

} // namespace tb::liblinear
