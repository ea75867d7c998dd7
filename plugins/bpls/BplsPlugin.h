#pragma once
/// @file BplsPlugin.h
/// Root object of the "bpls" plugin: bpls.regress (Algorithm 1) and bpls.classify (Algorithm 2).

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::bpls {

/// The BPLS trainer factory. Thread-safe: algorithms() and create() keep no state.
class BplsPlugin final : public QObject, public TrainerFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "bpls.json")
    Q_INTERFACES(tb::TrainerFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    /// Throws std::invalid_argument for an unknown id or init_low > init_high.
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
};

} // namespace tb::bpls
