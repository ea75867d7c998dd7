#include "RandomFeatureOption.h"

#include "DataError.h"
#include "DataKeys.h"
#include "MemoryBudget.h"

#include <training/FeatureMap.h>

#include <QLocale>
#include <tbb/task_arena.h>

#include <cmath>

namespace tb::data {
namespace {

const QString kKind = QStringLiteral("random_features");

train::FeatureKind kindOf(const QString& name)
{
    if (name == u"gaussian_cos_sin")
        return train::FeatureKind::GaussianCosSin;
    if (name == u"laplace_cos")
        return train::FeatureKind::LaplaceCos;
    if (name == u"random_logit")
        return train::FeatureKind::RandomLogit;
    if (name == u"raw_subset")
        return train::FeatureKind::RawSubset;
    return train::FeatureKind::GaussianCos;
}

QString shownValue(const QVariantMap& spec, const QString& key)
{
    const QVariant v = spec.value(key);
    if (v.typeId() == QMetaType::Bool)
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.typeId() == QMetaType::Double)
        return QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest);
    return v.toString();
}

/// The first non-finite input of @p x as a DataError naming @p set.
void requireFinite(const Eigen::MatrixXd& x, const QString& set)
{
    if (x.allFinite())
        return;
    for (Eigen::Index j = 0; j < x.cols(); ++j)
        for (Eigen::Index i = 0; i < x.rows(); ++i)
            if (!std::isfinite(x(i, j)))
                throw DataError::inSpec(kKind, QString::number(x(i, j)),
                                        QStringLiteral("dataset.random_features: the %1 inputs are not finite at row "
                                                       "%2, column %3 (%4); the features need finite inputs")
                                            .arg(set)
                                            .arg(i)
                                            .arg(j)
                                            .arg(x(i, j)));
}

} // namespace

ParamSchema RandomFeatureOption::keys()
{
    const QStringList none{QStringLiteral("none")};
    auto rf = [&](const ParamSpec& p) { return p.activeUnless(kKind, none); };
    ParamSchema out;
    out.add(DataKeys::choice(
        kKind, QStringLiteral("Random features"),
        {"none", "gaussian_cos", "gaussian_cos_sin", "laplace_cos", "random_logit", "raw_subset"},
        {"none (the inputs)", "Gaussian kernel: cos(ωᵀx + b)", "Gaussian kernel: cos/sin pairs",
         "Laplace kernel: cos(ωᵀx + b)", "random logits: sigmoid(ωᵀx + b)", "a random subset of the inputs"},
        QStringLiteral("none"),
        QStringLiteral("Replace every row's inputs by seeded random features, after the scaling options and "
                       "fitted on the training rows only (optional PCA, then the bandwidth by the median "
                       "trick): the generator of the lsq plugin, bit for bit (lsq.gls's features for the "
                       "same settings with seed = rf_seed), so any trainer can be given them. none: the "
                       "inputs as they are.")));
    out.add(rf(DataKeys::integer(QStringLiteral("rf_count"), QStringLiteral("Random features p"), 1, 10000000, 1000,
                                 QStringLiteral("Number of random features (gaussian_cos_sin: even; raw_subset: at "
                                                "most the (projected) inputs); memory (train + test rows) × p doubles "
                                                "is checked first."))));
    out.add(rf(DataKeys::choice(QStringLiteral("rf_bandwidth_rule"), QStringLiteral("Bandwidth rule"), {"median", "fixed"},
                                {"× median distance", "fixed σ"}, QStringLiteral("median"),
                                QStringLiteral("median: σ = rf_bandwidth × the median pairwise distance of "
                                               "rf_median_sample seeded training rows (after the PCA); fixed: σ = "
                                               "rf_bandwidth."))));
    out.add(rf(DataKeys::real(QStringLiteral("rf_bandwidth"), QStringLiteral("Bandwidth"), 0, 1e6, true, 1.0,
                              QStringLiteral("Kernel bandwidth σ of the features, or its multiple of the median "
                                             "distance (rf_bandwidth_rule)."))));
    out.add(rf(DataKeys::integer(QStringLiteral("rf_median_sample"), QStringLiteral("Median-trick rows"), 2, 20000, 2000,
                                 QStringLiteral("Training rows sampled (seeded, without replacement) for the median "
                                                "trick."))));
    out.add(rf(DataKeys::integer(QStringLiteral("rf_pca"), QStringLiteral("PCA dimensions"), 0, 100000, 0,
                                 QStringLiteral("Project the inputs on their first principal components (of the "
                                                "training rows) before the features; 0 = no projection; at most the "
                                                "number of inputs."))));
    out.add(rf(DataKeys::boolean(QStringLiteral("rf_pca_center"), QStringLiteral("Centred PCA"), false,
                                 QStringLiteral("Subtract the training mean before the PCA (lsq's default: no)."))));
    out.add(rf(DataKeys::seed(QStringLiteral("rf_seed"), QStringLiteral("Feature seed"),
                              QStringLiteral("Seed of the features (and of the median-trick sample); absent: the data "
                                             "set's seed. lsq generates the same features when its run seed equals it."))
                   .absentMeans(QStringLiteral("the data set's seed"))));
    return out;
}

bool RandomFeatureOption::enabled(const QVariantMap& spec)
{
    const QVariant v = spec.value(kKind);
    return v.typeId() == QMetaType::QString && v.toString() != u"none";
}

std::pair<QString, QString> RandomFeatureOption::conflict(const QVariantMap& spec)
{
    if (!enabled(spec))
        return {};
    const train::FeatureMapConfig c = config(spec);
    if (c.kind == train::FeatureKind::GaussianCosSin && c.count % 2 != 0)
        return {QStringLiteral("rf_count"), QStringLiteral("must be even with random_features = gaussian_cos_sin "
                                                           "(cos/sin pairs), got %1")
                                                .arg(c.count)};
    return {};
}

train::FeatureMapConfig RandomFeatureOption::config(const QVariantMap& spec)
{
    train::FeatureMapConfig c;
    c.raw = false;
    c.kind = kindOf(spec.value(kKind).toString());
    c.count = Eigen::Index(spec.value(QStringLiteral("rf_count")).toLongLong());
    c.bandwidthRule = spec.value(QStringLiteral("rf_bandwidth_rule")).toString() == u"fixed"
                          ? train::BandwidthRule::Fixed
                          : train::BandwidthRule::Median;
    c.bandwidth = spec.value(QStringLiteral("rf_bandwidth")).toDouble();
    c.medianSample = Eigen::Index(spec.value(QStringLiteral("rf_median_sample")).toLongLong());
    c.pca = Eigen::Index(spec.value(QStringLiteral("rf_pca")).toLongLong());
    c.pcaCenter = spec.value(QStringLiteral("rf_pca_center")).toBool();
    return c;
}

std::uint64_t RandomFeatureOption::seed(const QVariantMap& spec, std::uint64_t dataSeed)
{
    return spec.contains(QStringLiteral("rf_seed")) ? spec.value(QStringLiteral("rf_seed")).toULongLong() : dataSeed;
}

void RandomFeatureOption::apply(DatasetPair& pair, const QVariantMap& spec, std::uint64_t dataSeed)
{
    if (!enabled(spec))
        return;
    const train::FeatureMapConfig c = config(spec);
    const Eigen::Index d = pair.train.inputs();
    const std::uint64_t rows =
        std::uint64_t(pair.train.rows()) + std::uint64_t(pair.test.rows()) + std::uint64_t(pair.validation.rows());
    // The mapped sets, the projected rows of the larger set (a temporary of project()) and the
    // PCA's d × d Gram, eigenvectors and workspace: all sized by the spec, checked first.
    const std::uint64_t projected =
        c.pca > 0 ? MemoryBudget::bytesOf(std::uint64_t(std::max(pair.train.rows(), pair.test.rows())),
                                          std::uint64_t(std::min<Eigen::Index>(c.pca, d)))
                  : 0;
    const std::uint64_t pcaBytes = c.pca > 0 ? 3 * MemoryBudget::bytesOf(std::uint64_t(d), std::uint64_t(d)) : 0;
    const std::uint64_t mapped = MemoryBudget::bytesOf(rows, std::uint64_t(c.count));
    MemoryBudget::require(mapped > UINT64_MAX - projected - pcaBytes ? UINT64_MAX : mapped + projected + pcaBytes,
                          QStringLiteral("%1 × %2 random features (dataset.rf_count = %2) of %3 %4 rows")
                              .arg(spec.value(kKind).toString())
                              .arg(c.count)
                              .arg(rows)
                              .arg(pair.hasValidation() ? QStringLiteral("train, validation and test") : QStringLiteral("train and test")),
                          {}, QStringLiteral("dataset.rf_count"));
    requireFinite(pair.train.x, QStringLiteral("training"));
    requireFinite(pair.test.x, QStringLiteral("test"));
    requireFinite(pair.validation.x, QStringLiteral("validation"));

    train::FeatureMapKeys keys;
    keys.pca = "rf_pca";
    keys.count = "rf_count";
    keys.bandwidthRule = "rf_bandwidth_rule";
    keys.name = [](const std::string& key) { return "dataset." + key; }; // "dataset.rf_pca asks for …"
    train::FeatureMap map;
    Eigen::MatrixXd projectedTrain, train, test, validation;
    try {
        // The PCA's Gram sums per-thread parts (DesignMatrix: bits fixed for a given concurrency):
        // fitted with kFitThreads whatever the machine, so the spec alone fixes the features.
        tbb::task_arena(kFitThreads).execute(
            [&] { map.fit(pair.train.x, c, seed(spec, dataSeed), keys, {}, nullptr, projectedTrain); });
        // The training rows are already projected by fit(): transform them directly.
        if (map.projects())
            map.block(0, c.count).transform(projectedTrain, train);
        else
            map.features(pair.train.x, train);
        projectedTrain.resize(0, 0);
        map.features(pair.test.x, test);
        if (pair.hasValidation())
            map.features(pair.validation.x, validation);
    } catch (const train::FeatureMapError& e) {
        const QString key = QString::fromStdString(e.key());
        throw DataError::inSpec(QStringLiteral("dataset.") + key, shownValue(spec, key), QString::fromUtf8(e.what()));
    } catch (const std::invalid_argument& e) {
        throw DataError::inSpec(QStringLiteral("dataset.random_features"), shownValue(spec, kKind),
                                QStringLiteral("dataset.random_features: %1").arg(QString::fromUtf8(e.what())));
    }
    const QString text = QStringLiteral(", %1").arg(describe(spec));
    pair.train.x = std::move(train);
    pair.test.x = std::move(test);
    if (pair.hasValidation())
        pair.validation.x = std::move(validation);
    for (Dataset* set : {&pair.train, &pair.test, &pair.validation}) {
        set->featureNames.clear(); // the features have no names of their own
        set->description += text;
    }
}

QString RandomFeatureOption::describe(const QVariantMap& spec)
{
    if (!enabled(spec))
        return {};
    const train::FeatureMapConfig c = config(spec);
    QStringList details;
    if (c.pca > 0)
        details << QStringLiteral("PCA %1").arg(c.pca);
    if (c.kind != train::FeatureKind::RawSubset)
        details << (c.bandwidthRule == train::BandwidthRule::Median
                        ? QStringLiteral("σ = %1 × median").arg(c.bandwidth, 0, 'g', 6)
                        : QStringLiteral("σ = %1").arg(c.bandwidth, 0, 'g', 6));
    return QStringLiteral("%1 %2 features%3")
        .arg(c.count)
        .arg(spec.value(kKind).toString())
        .arg(details.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(details.join(QStringLiteral(", "))));
}

} // namespace tb::data
