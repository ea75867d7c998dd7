#pragma once
/// @file RandomFeatureParams.h
/// The shared random-features block, read into the training library's tb::train::FeatureMapConfig. Keys
/// (the data sets' random-features option spells the same ones with the prefix "rf_", e.g.
/// "rf_median_sample"; its kind is "random_features" too):
///  - "random_features": which features — gaussian_cos, gaussian_cos_sin, laplace_cos,
///                   random_logit, raw_subset (RandomFeatures.h), and "raw" (the inputs
///                   themselves) where the plugin offers it;
///  - "feature_count": how many (p);
///  - "bandwidth_rule", "bandwidth": median = σ is bandwidth × the median pairwise distance of
///                   median_sample seeded training rows (the median trick); fixed = σ is bandwidth;
///  - "median_sample": rows sampled for the median trick;
///  - "pca", "pca_center": principal components of the inputs kept before the features.
///
/// Part of the SDK's bridge to the training library (trainbench/toolkit/): header-only, for
/// plugins, which link tb::training.

#include <trainbench/ParamSchema.h>

#include <training/FeatureMap.h>
#include <training/RandomFeatures.h>

#include <QMap>
#include <QStringList>
#include <optional>
#include <stdexcept>

namespace tb {

/// What a plugin's random-features block offers and starts from.
struct RandomFeatureDefaults {
    /// "random_features": offered, the kinds offered (names of train::featureKindName(), and
    /// "raw"), the default, help (empty: the standard text).
    bool offerKind = true;
    QStringList kinds{QStringLiteral("gaussian_cos"), QStringLiteral("gaussian_cos_sin"), QStringLiteral("laplace_cos"),
                      QStringLiteral("random_logit"), QStringLiteral("raw_subset")};
    QString kind = QStringLiteral("gaussian_cos");
    QString kindHelp;
    /// Former keys of "random_features" in this plugin, and former spellings of its kinds
    /// (ParamSpec::withAlias / withChoiceAliases).
    QStringList kindAliases;
    QMap<QString, QString> kindChoiceAliases;
    /// "feature_count": offered, default, upper bound, help, former keys.
    bool offerCount = true;
    qlonglong count = 1000;
    qlonglong countMax = 100000;
    QString countHelp = QStringLiteral("Number of generated features p.");
    QStringList countAliases;
    /// "bandwidth_rule", "bandwidth", "median_sample".
    QString bandwidthRule = QStringLiteral("median");
    double bandwidth = 1.0;
    qlonglong medianSample = 2000;
    qlonglong medianSampleMax = 20000;
    /// "pca", "pca_center".
    bool offerPca = true;
};

/// Adds the block to @p schema (in the order of the file comment).
inline void addRandomFeatureParams(ParamSchema& schema, const RandomFeatureDefaults& d)
{
    if (d.offerKind) {
        ParamSpec kind =
            ParamSpec::choice(
                QStringLiteral("random_features"), QStringLiteral("Random features"), d.kinds, d.kind,
                d.kindHelp.isEmpty()
                    ? QStringLiteral("%1gaussian_cos: random Fourier features cos(ωᵀx + b) of the Gaussian kernel, "
                                     "ω ~ N(0, I/σ²); gaussian_cos_sin: cos/sin pairs of one ω (lower variance; p "
                                     "even); laplace_cos: the Laplace kernel's; random_logit: sigmoid(ωᵀx + b); "
                                     "raw_subset: a random subset of the (projected) inputs. Every feature is "
                                     "regenerated from its seed.")
                          .arg(d.kinds.contains(QStringLiteral("raw"))
                                   ? QStringLiteral("raw: the (projected) inputs themselves; ")
                                   : QString())
                    : d.kindHelp)
                .withChoiceAliases(d.kindChoiceAliases);
        for (const QString& old : d.kindAliases)
            kind = kind.withAlias(old);
        schema.add(kind);
    }
    if (d.offerCount) {
        ParamSpec count = ParamSpec::integer(QStringLiteral("feature_count"), QStringLiteral("Features p"), d.count, 1,
                                             d.countMax, d.countHelp);
        for (const QString& old : d.countAliases)
            count = count.withAlias(old);
        schema.add(count);
    }
    schema.add(ParamSpec::choice(QStringLiteral("bandwidth_rule"), QStringLiteral("Bandwidth rule"),
                                 {QStringLiteral("median"), QStringLiteral("fixed")}, d.bandwidthRule,
                                 QStringLiteral("median: σ = bandwidth × the median pairwise distance of median_sample "
                                                "seeded training rows (the \"median trick\"); fixed: σ = bandwidth.")));
    schema.add(ParamSpec::real(QStringLiteral("bandwidth"), QStringLiteral("Bandwidth"), d.bandwidth, 1e-6, 1e6,
                               QStringLiteral("Kernel bandwidth σ > 0, or its multiple of the median distance "
                                              "(bandwidth_rule)."),
                               true));
    schema.add(ParamSpec::integer(QStringLiteral("median_sample"), QStringLiteral("Median-trick rows"), d.medianSample,
                                  2, d.medianSampleMax,
                                  QStringLiteral("Training rows sampled (seeded, without replacement) for the median "
                                                 "trick; costs rows²·d/2."))
                   .withAlias(QStringLiteral("median_rows")));
    if (d.offerPca) {
        schema.add(ParamSpec::integer(QStringLiteral("pca"), QStringLiteral("PCA dimensions"), 0, 0, 100000,
                                      QStringLiteral("Project the inputs on their first principal components before "
                                                     "the features; 0 = no projection; at most the number of inputs.")));
        schema.add(ParamSpec::boolean(QStringLiteral("pca_center"), QStringLiteral("Centred PCA"), false,
                                      QStringLiteral("Subtract the training mean before the PCA (the authors' demo of "
                                                     "Least Squares Revisited does not).")));
    }
}

/// The feature kind called @p name (train::featureKindName()), or nullopt ("raw" is none).
inline std::optional<train::FeatureKind> featureKindFromName(const QString& name)
{
    for (train::FeatureKind k : {train::FeatureKind::GaussianCos, train::FeatureKind::GaussianCosSin,
                                 train::FeatureKind::LaplaceCos, train::FeatureKind::RandomLogit,
                                 train::FeatureKind::RawSubset})
        if (name == QLatin1String(train::featureKindName(k)))
            return k;
    return std::nullopt;
}

/// The generator's settings from parameters normalised by a schema built with
/// addRandomFeatureParams(schema, @p d): kind ("raw" sets raw; without the key: d.kind), count
/// (without the key: d.count), bandwidth rule, bandwidth, median sample, PCA.
inline train::FeatureMapConfig randomFeaturesFromParams(const QVariantMap& p, const RandomFeatureDefaults& d)
{
    train::FeatureMapConfig c;
    const QString kind = d.offerKind ? p.value(QStringLiteral("random_features")).toString() : d.kind;
    c.raw = kind == QLatin1String("raw");
    if (!c.raw) {
        const auto k = featureKindFromName(kind);
        if (!k)
            throw std::invalid_argument("parameter \"random_features\": unknown kind \"" + kind.toStdString() + "\"");
        c.kind = *k;
    }
    c.count = d.offerCount ? p.value(QStringLiteral("feature_count")).toLongLong() : d.count;
    c.bandwidthRule = p.value(QStringLiteral("bandwidth_rule")).toString() == QLatin1String("fixed")
                          ? train::BandwidthRule::Fixed
                          : train::BandwidthRule::Median;
    c.bandwidth = p.value(QStringLiteral("bandwidth")).toDouble();
    c.medianSample = p.value(QStringLiteral("median_sample")).toLongLong();
    c.pca = d.offerPca ? p.value(QStringLiteral("pca")).toLongLong() : 0;
    c.pcaCenter = d.offerPca && p.value(QStringLiteral("pca_center")).toBool();
    return c;
}

} // namespace tb
