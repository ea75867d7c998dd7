// The trainer of the example plugin: a nearest-centroid classifier with shrinkage. Its class
// sums come from the shared training library (tb::train::DesignMatrix: parallel, stoppable).
#pragma once

#include <training/DesignMatrix.h>
#include <trainbench/Trainbench.h>

#include <stdexcept>

class CentroidTrainer final : public tb::Trainer {
public:
    explicit CentroidTrainer(double shrink) : m_shrink(shrink) {}
    /// Each run's own trainer, from this one's configuration (read once by create()).
    std::unique_ptr<tb::Trainer> fresh() const override { return std::make_unique<CentroidTrainer>(m_shrink); }

    void fit(const tb::DatasetView& data, tb::RunContext& ctx) override
    {
        if (!data.x.allFinite())
            throw std::invalid_argument("centroid: the inputs contain NaN or Inf");
        // y is one-hot: the class sums are Xᵀy (d × k), one pass over the rows in parallel.
        tb::train::DesignMatrix x(data.x, tb::train::Precision::Double, false, false);
        x.setStopToken(ctx.stopToken());
        const Eigen::MatrixXd sums = x.cross(data.y, false);
        if (x.stopped())
            return; // Stop pressed: no model; the host marks the run cancelled
        const Eigen::RowVectorXd overall = data.x.colwise().mean();
        const Eigen::VectorXd counts = data.y.colwise().sum().transpose();
        m_centroids = sums.transpose();
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
