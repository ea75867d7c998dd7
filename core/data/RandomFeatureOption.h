#pragma once
/// @file RandomFeatureOption.h
/// The data sets' "random_features" option: every row's inputs mapped through seeded random
/// features (tb::train::FeatureMap, the lsq plugin's generator) before any trainer sees them.

#include "Dataset.h"

#include <trainbench/ParamSchema.h>

#include <QString>
#include <QVariantMap>
#include <cstdint>

namespace tb::train {
struct FeatureMapConfig;
}

namespace tb::data {

/// Declares and reads the random-features keys of a "dataset" object (random_features, rf_count,
/// rf_bandwidth_rule, rf_bandwidth, rf_median_sample, rf_pca, rf_pca_center, rf_seed; keys()) and
/// applies them to a loaded pair (train, test and validation). Every function but keys() takes a spec normalised by the data
/// source's schema (DataSource), so defaults are filled in and types are canonical. The map is fitted on the training
/// rows only (PCA basis, median distance) and applied to both sets, so the test rows never
/// change it. The features of a pair are bit-identical to those the lsq plugin's lsq.gls
/// generates for the same settings when its run seed equals the feature seed (one
/// implementation: tb::train::FeatureMap) — with rf_pca > 0, when lsq also runs with
/// kFitThreads threads (the PCA's Gram matrix sums per-thread parts, so its last bits follow the
/// thread count; the features themselves are computed in fixed row blocks). Reentrant.
class RandomFeatureOption {
public:
    /// Threads of the map's fit (the PCA): fixed, so that the same spec gives the same features
    /// on every machine. The features are then computed in the caller's TBB arena (same bits
    /// for any thread count).
    static constexpr int kFitThreads = 1;

    /// The keys, with their defaults and ranges (the same as lsq's parameters, except the count
    /// — lsq: 4000 — and the median sample's upper bound). The rf_* keys apply only when
    /// random_features is not "none".
    static ParamSchema keys();

    /// True when @p spec asks for random features (random_features present and not "none").
    static bool enabled(const QVariantMap& spec);

    /// Empty when the keys of @p spec agree with each other, else the problem as
    /// {key, message} (message without the "dataset." prefix): an odd rf_count with
    /// gaussian_cos_sin. Types, ranges and the rf_* keys' condition are the schema's.
    static std::pair<QString, QString> conflict(const QVariantMap& spec);

    /// The generator's settings (from a normalised spec, whose defaults are filled in).
    static train::FeatureMapConfig config(const QVariantMap& spec);

    /// The feature seed: rf_seed, else @p dataSeed.
    static std::uint64_t seed(const QVariantMap& spec, std::uint64_t dataSeed);

    /// Maps the inputs of @p pair (train and test) in place when enabled(@p spec); no-op
    /// otherwise. Checks the memory of the mapped sets before allocating them (MemoryBudget,
    /// naming dataset.rf_count). Throws DataError naming the key and value at fault: rf_pca
    /// above the inputs, an rf_count a raw_subset cannot draw, a median distance of 0
    /// (rf_bandwidth_rule), non-finite inputs (the set, row and column).
    static void apply(DatasetPair& pair, const QVariantMap& spec, std::uint64_t dataSeed);

    /// Short text for descriptions, e.g. "500 gaussian_cos features (PCA 50, σ = 0.6 × median)";
    /// empty when not enabled.
    static QString describe(const QVariantMap& spec);
};

} // namespace tb::data
