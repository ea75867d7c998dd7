#pragma once
/// @file LsqPlugin.h
/// Root object of the "lsq" plugin: lsq.gls (Algorithm 1), lsq.calibrated (Algorithm 2) and
/// lsq.stagewise (Algorithm 3) of Least Squares Revisited (Agarwal et al. 2014).

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::lsq {

/// The Least Squares Revisited trainer factory. Thread-safe: algorithms() and create() keep no
/// state.
class LsqPlugin final : public QObject, public TrainerFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "lsq.json")
    Q_INTERFACES(tb::TrainerFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id or a combination the schema cannot
    /// express (naming the parameter).
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
};

} // namespace tb::lsq
