#pragma once
/// @file FeatureMap.h
/// The feature generator GEN of Least Squares Revisited: an optional PCA of the inputs fitted
/// on the training set, the bandwidth (median trick), and blocks of random features regenerated
/// from seeds (tb::train::RandomFeatures).

#include "LsqConfig.h"

#include <trainbench/StopToken.h>

#include <QJsonObject>

#include <Eigen/Core>
#include <cstdint>
#include <string>

namespace tb::lsq {

/// What one fit's features are made of. Stores the PCA basis (d × q) and mean, the bandwidth
/// and the run's seed — never a random projection: block b's features are regenerated from
/// deriveSeed(seed, kBlockStream + b) whenever they are needed.
///
/// Thread-safety: fit() is not; the const methods may be called concurrently.
class FeatureMap {
public:
    /// Seed streams derived from the run seed: the median-trick sample, the rows of a sampled
    /// Σ̂, and block b of features (kBlockStream + b).
    static constexpr std::uint64_t kMedianStream = 1;
    static constexpr std::uint64_t kSigmaStream = 2;
    static constexpr std::uint64_t kBlockStream = 1000;
    /// Rows per task of project() (fixed: the same bits for any thread count).
    static constexpr Eigen::Index kRowBlock = 512;

    /// Fits the map on the training inputs @p x: the PCA (config.pca > 0) from the second moment
    /// of x (centred with config.pcaCenter), then the bandwidth of generated features. Adds what
    /// it found to @p facts ("pca", "bandwidth", "median_distance"). @p countKey names the
    /// parameter holding the feature count in messages ("feature_count" or "block_size").
    /// Returns false when @p stop fired. Throws std::invalid_argument naming the parameter when
    /// pca exceeds the inputs, a raw subset exceeds the (projected) inputs, or the median
    /// distance is 0 (all sampled rows equal). With a projection, @p projected receives the
    /// projected training inputs (project(x)); it is left empty otherwise.
    bool fit(const Eigen::Ref<const Eigen::MatrixXd>& x, const FeatureConfig& config, std::uint64_t seed,
             const std::string& countKey, StopToken stop, QJsonObject* facts, Eigen::MatrixXd& projected);

    /// True when the inputs are projected (PCA) before the features.
    bool projects() const { return m_basis.size() > 0; }
    /// The projected inputs (x − μ)·V of @p x (n × projectedInputs()), in fixed row blocks in
    /// parallel; @p x unchanged when there is no projection. Returns false on stop.
    bool project(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& z, StopToken stop = {}) const;

    /// The map of block @p block with @p count features of the projected inputs.
    train::RandomFeatures block(Eigen::Index block, Eigen::Index count) const;

    Eigen::Index inputs() const { return m_inputs; }
    /// q: the PCA dimension, or the inputs.
    Eigen::Index projectedInputs() const { return projects() ? m_basis.cols() : m_inputs; }
    double bandwidth() const { return m_bandwidth; }
    const FeatureConfig& config() const { return m_config; }
    /// Memory of what the map stores (PCA basis and mean), in bytes.
    double bytes() const { return 8.0 * double(m_basis.size() + m_mean.size() + m_shift.size()); }

private:
    FeatureConfig m_config;
    Eigen::Index m_inputs = 0;
    Eigen::MatrixXd m_basis;   ///< d × q principal directions, descending variance (empty: none)
    Eigen::VectorXd m_mean;    ///< centred PCA: the training mean (empty otherwise)
    Eigen::RowVectorXd m_shift; ///< μᵀV, subtracted from xV (empty when uncentred)
    double m_bandwidth = 1.0;
    std::uint64_t m_seed = 0;
};

} // namespace tb::lsq
