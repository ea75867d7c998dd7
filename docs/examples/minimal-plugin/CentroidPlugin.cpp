// A complete Trainbench plugin: the factory of the nearest-centroid classifier.
#include "CentroidTrainer.h"

#include <QObject>

class CentroidPlugin : public QObject, public tb::TrainerFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID TrainerFactory_iid FILE "centroid.json")
    Q_INTERFACES(tb::TrainerFactory)

public:
    QList<tb::AlgorithmInfo> algorithms() const override
    {
        tb::AlgorithmInfo a;
        a.id = "centroid.nearest";
        a.name = "Nearest centroid";
        a.description = "Assigns each sample to the class with the nearest mean.";
        a.citation = "Tibshirani et al., PNAS 2002";
        a.regression = false;
        a.schema = tb::ParamSchema{tb::ParamSpec::real(
            "shrink", "Shrinkage", 0.0, 0.0, 1.0, "Pulls every class mean towards the overall mean.")};
        a.progress.compute = [](const QVariantMap&) { return 1.0; }; // one checkpoint ends the run
        return {a};
    }

    std::unique_ptr<tb::Trainer> create(const QString& id, const QVariantMap& params) const override
    {
        if (id != "centroid.nearest")
            throw std::invalid_argument("centroid: unknown algorithm");
        return std::make_unique<CentroidTrainer>(params.value("shrink").toDouble());
    }
};

#include "CentroidPlugin.moc"
