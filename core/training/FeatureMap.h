#pragma once
/// @file FeatureMap.h
/// The feature generator GEN of Least Squares Revisited (Agarwal et al. 2014): an optional PCA
/// of the inputs fitted on the training set, the bandwidth (median trick), and blocks of random
/// features regenerated from seeds (RandomFeatures). One implementation for the lsq plugin
/// (which generates its features inside fit()) and the data sets' "random_features" option
/// (tb::data::DataSource, which hands any trainer the mapped rows). No Qt.

#include "RandomFeatures.h"

#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tb::train {

/// How the bandwidth σ of the Gaussian / Laplace / logit features is chosen.
enum class BandwidthRule {
    Median, ///< σ = bandwidth × the median pairwise distance of a seeded sample of rows
    Fixed   ///< σ = bandwidth
};

/// The generator's settings (the lsq plugin's GEN parameters).
struct FeatureMapConfig {
    bool raw = true;                          ///< the (projected) inputs themselves, no generator
    FeatureKind kind = FeatureKind::GaussianCos;
    Eigen::Index count = 1000;                ///< features (of one block)
    BandwidthRule bandwidthRule = BandwidthRule::Median;
    double bandwidth = 1.0;                   ///< > 0; a multiple of the median distance or σ itself
    Eigen::Index medianSample = 2000;         ///< rows sampled for the median trick (≥ 2)
    Eigen::Index pca = 0;                     ///< principal components kept first; 0 = none
    bool pcaCenter = false;                   ///< centre before the PCA (the authors' demo: no)
};

/// The names under which a caller's user wrote the settings, for messages: the lsq plugin's
/// parameters ("lsq: parameter \"pca\" asks for …") or a data set's keys ("dataset.rf_pca asks
/// for …"). Messages continue name(key) with " asks for", " (value) exceeds" or " = median:".
struct FeatureMapKeys {
    std::string kind = "random_features";
    std::string pca = "pca";
    std::string count = "feature_count";
    std::string bandwidthRule = "bandwidth_rule";
    /// Formats the start of a message about @p key: "lsq: parameter \"pca\"" by default.
    std::string (*name)(const std::string& key) = [](const std::string& key) {
        return "lsq: parameter \"" + key + "\"";
    };
};

/// A setting the data cannot take (pca above the inputs, …): std::invalid_argument whose
/// what() names the setting as FeatureMapKeys wrote it, and key() the setting's key.
class FeatureMapError : public std::invalid_argument {
public:
    FeatureMapError(std::string key, const std::string& message) : std::invalid_argument(message), m_key(std::move(key)) {}
    const std::string& key() const { return m_key; }

private:
    std::string m_key;
};

/// What fit() found, for the run's facts.
struct FeatureMapFit {
    Eigen::Index pcaDimensions = 0;    ///< 0: no projection
    bool pcaCentred = false;
    double varianceKept = 1.0;         ///< share of the second moment's trace kept by the PCA
    bool hasBandwidth = false;         ///< false for raw inputs and raw_subset
    bool hasMedian = false;            ///< bandwidth_rule = median
    double medianDistance = 0.0;
    double bandwidth = 1.0;
};

/// What one fit's features are made of. Stores the PCA basis (d × q) and mean, the bandwidth
/// and the seed — never a random projection: block b's features are regenerated from
/// deriveSeed(seed, kBlockStream + b) whenever they are needed.
///
/// Thread-safety: fit() is not; the const methods may be called concurrently.
class FeatureMap {
public:
    /// Seed streams derived from the seed: the median-trick sample, the rows of a sampled
    /// Σ̂ (used by the lsq plugin), and block b of features (kBlockStream + b).
    static constexpr std::uint64_t kMedianStream = 1;
    static constexpr std::uint64_t kSigmaStream = 2;
    static constexpr std::uint64_t kBlockStream = 1000;
    /// Rows per task of project() (fixed: the same bits for any thread count).
    static constexpr Eigen::Index kRowBlock = 512;

    /// Fits the map on the training inputs @p x: the PCA (config.pca > 0) from the second moment
    /// of x (centred with config.pcaCenter), then the bandwidth of generated features. Returns
    /// false when @p stop fired. Throws FeatureMapError naming the setting (as @p keys spells it)
    /// when pca exceeds the inputs, a raw subset exceeds the (projected) inputs, or the median
    /// distance is 0 (all sampled rows equal); std::invalid_argument for non-finite inputs.
    /// With a projection, @p projected receives the projected training inputs (project(x)); it
    /// is left empty otherwise. @p info (may be null) receives what was found.
    bool fit(const Eigen::Ref<const Eigen::MatrixXd>& x, const FeatureMapConfig& config, std::uint64_t seed,
             const FeatureMapKeys& keys, StopToken stop, FeatureMapFit* info, Eigen::MatrixXd& projected);

    /// True when the inputs are projected (PCA) before the features.
    bool projects() const { return m_basis.size() > 0; }
    /// The projected inputs (x − μ)·V of @p x (n × projectedInputs()), in fixed row blocks in
    /// parallel; @p x unchanged when there is no projection. Returns false on stop. Throws
    /// std::invalid_argument when @p x does not have inputs() columns.
    bool project(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& z, StopToken stop = {}) const;

    /// The map of block @p block with @p count features of the projected inputs.
    RandomFeatures block(Eigen::Index block, Eigen::Index count) const;

    /// The features of block 0 (config().count of them; the projected inputs with raw = true)
    /// of every row of @p x: project() then block(0, count).transform(). Exactly the features
    /// the lsq plugin's lsq.gls and lsq.calibrated fit for the same settings and seed. Returns
    /// false on stop.
    bool features(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& out, StopToken stop = {}) const;

    Eigen::Index inputs() const { return m_inputs; }
    /// q: the PCA dimension, or the inputs.
    Eigen::Index projectedInputs() const { return projects() ? m_basis.cols() : m_inputs; }
    /// Columns of features(): config().count, or projectedInputs() with raw = true.
    Eigen::Index outputs() const { return m_config.raw ? projectedInputs() : m_config.count; }
    double bandwidth() const { return m_bandwidth; }
    const FeatureMapConfig& config() const { return m_config; }
    /// Memory of what the map stores (PCA basis and mean), in bytes.
    double bytes() const { return 8.0 * double(m_basis.size() + m_mean.size() + m_shift.size()); }

private:
    FeatureMapConfig m_config;
    Eigen::Index m_inputs = 0;
    Eigen::MatrixXd m_basis;   ///< d × q principal directions, descending variance (empty: none)
    Eigen::VectorXd m_mean;    ///< centred PCA: the training mean (empty otherwise)
    Eigen::RowVectorXd m_shift; ///< μᵀV, subtracted from xV (empty when uncentred)
    double m_bandwidth = 1.0;
    std::uint64_t m_seed = 0;
};

} // namespace tb::train
