#pragma once

#include <trainbench/Trainbench.h>

#include <QObject>

namespace tb::linear {

/// Root object of the "linear" plugin: one algorithm, "linear.ridge".
class LinearPlugin final : public QObject, public TrainerFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "linear.json")
    Q_INTERFACES(tb::TrainerFactory)

public:
    QList<AlgorithmInfo> algorithms() const override;
    std::unique_ptr<Trainer> create(const QString& algorithmId, const QVariantMap& params) const override;
};

} // namespace tb::linear
