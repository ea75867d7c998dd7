#pragma once
/// @file BldPlugin.h
/// Root object of the "bld" plugin: block-layer decomposition (B2LD, BLInG) and the baselines
/// the paper compares them with (full L-BFGS, IG).

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::bld {

/// The trainer factory. Thread-safe: algorithms() and create() keep no state.
class BldPlugin final : public QObject, public TrainerFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "bld.json")
    Q_INTERFACES(tb::TrainerFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id or a combination of parameters the
    /// schema cannot express (see BldConfig::fromParams()).
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
};

} // namespace tb::bld
