// A complete Trainbench plugin: a nearest-centroid classifier with shrinkage.
#include <trainbench/Trainbench.h>

#include <QObject>
#include <stdexcept>

namespace {

class CentroidTrainer final : public tb::Trainer {
public:
    explicit CentroidTrainer(double shrink) : m_shrink(shrink) {}

    void fit(const tb::DatasetView& data, tb::RunContext& ctx) override
    {
        if (!data.x.allFinite())
            throw std::invalid_argument("centroid: the inputs contain NaN or Inf");
        const Eigen::RowVectorXd overall = data.x.colwise().mean();
        // y is one-hot: class means are (yᵀX) / counts.
        const Eigen::VectorXd counts = data.y.colwise().sum().transpose();
        m_centroids = data.y.transpose() * data.x;
        for (Eigen::Index c = 0; c < m_centroids.rows(); ++c) {
            if (counts(c) > 0)
                m_centroids.row(c) /= counts(c);
            m_centroids.row(c) = (1 - m_shrink) * m_centroids.row(c) + m_shrink * overall;
        }
        ctx.checkpoint(tb::Checkpoint{1.0});
    }

    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override
    {
        // Score = −squared distance to each centroid; the host takes the arg-max.
        Eigen::MatrixXd scores = 2.0 * x * m_centroids.transpose();
        scores.rowwise() -= m_centroids.rowwise().squaredNorm().transpose();
        return scores;
    }

private:
    double m_shrink;
    Eigen::MatrixXd m_centroids; // k × d
};

} // namespace

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
