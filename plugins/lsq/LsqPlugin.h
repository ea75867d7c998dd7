#pragma once
/// @file LsqPlugin.h
/// Root object of the "lsq" plugin: lsq.gls (Algorithm 1), lsq.calibrated (Algorithm 2) and
/// lsq.stagewise (Algorithm 3) of Least Squares Revisited (Agarwal et al. 2014).

#include <trainbench/SparseTrainer.h>
#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::lsq {

/// The Least Squares Revisited trainer factory. Thread-safe: algorithms() and create() keep no
/// state.
class LsqPlugin final : public QObject, public TrainerFactory, public SparseInputFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "lsq.json")
    Q_INTERFACES(tb::TrainerFactory tb::SparseInputFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id or a combination the schema cannot
    /// express (naming the parameter).
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
    /// lsq.gls (random_features = raw) and lsq.stagewise (raw_subset, raw_gradient) take sparse
    /// inputs as they are; their other settings (random projections, a PCA) are refused on
    /// sparse data with a message naming these. lsq.calibrated sees dense inputs only.
    QStringList sparseInputAlgorithms() const override
    {
        return {QStringLiteral("lsq.gls"), QStringLiteral("lsq.stagewise")};
    }
};

} // namespace tb::lsq
