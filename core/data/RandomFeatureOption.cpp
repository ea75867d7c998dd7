#include "RandomFeatureOption.h"

#include "DataError.h"
#include "MemoryBudget.h"

#include <FeatureMap.h>

#include <QJsonValue>
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

QString shownValue(const QJsonObject& spec, const QString& key)
{
    const QJsonValue v = spec.value(key);
    if (v.isString())
        return v.toString();
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest);
    return {};
}

std::uint64_t seedOf(const QJsonValue& v)
{
    return v.isString() ? v.toString().toULongLong() : std::uint64_t(v.toDouble());
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

bool RandomFeatureOption::enabled(const QJsonObject& spec)
{
    const QJsonValue v = spec.value(kKind);
    return v.isString() && v.toString() != u"none";
}

std::pair<QString, QString> RandomFeatureOption::conflict(const QJsonObject& spec)
{
    if (!enabled(spec)) {
        for (auto it = spec.begin(); it != spec.end(); ++it)
            if (it.key().startsWith(QLatin1String("rf_")))
                return {it.key(), QStringLiteral("only used with random features; set random_features to a "
                                                 "generator (e.g. \"gaussian_cos\") or remove %1")
                                      .arg(it.key())};
        return {};
    }
    const train::FeatureMapConfig c = config(spec);
    if (c.kind == train::FeatureKind::GaussianCosSin && c.count % 2 != 0)
        return {QStringLiteral("rf_count"), QStringLiteral("must be even with random_features = gaussian_cos_sin "
                                                           "(cos/sin pairs), got %1")
                                                .arg(c.count)};
    return {};
}

train::FeatureMapConfig RandomFeatureOption::config(const QJsonObject& spec)
{
    train::FeatureMapConfig c;
    c.raw = false;
    c.kind = kindOf(spec.value(kKind).toString());
    c.count = Eigen::Index(spec.value(QStringLiteral("rf_count")).toDouble(1000));
    c.bandwidthRule = spec.value(QStringLiteral("rf_bandwidth_rule")).toString() == u"fixed"
                          ? train::BandwidthRule::Fixed
                          : train::BandwidthRule::Median;
    c.bandwidth = spec.value(QStringLiteral("rf_bandwidth")).toDouble(1.0);
    c.medianSample = Eigen::Index(spec.value(QStringLiteral("rf_median_sample")).toDouble(2000));
    c.pca = Eigen::Index(spec.value(QStringLiteral("rf_pca")).toDouble(0));
    c.pcaCenter = spec.value(QStringLiteral("rf_pca_center")).toBool(false);
    return c;
}

std::uint64_t RandomFeatureOption::seed(const QJsonObject& spec, std::uint64_t dataSeed)
{
    return spec.contains(QStringLiteral("rf_seed")) ? seedOf(spec.value(QStringLiteral("rf_seed"))) : dataSeed;
}

void RandomFeatureOption::apply(DatasetPair& pair, const QJsonObject& spec, std::uint64_t dataSeed)
{
    if (!enabled(spec))
        return;
    const train::FeatureMapConfig c = config(spec);
    const Eigen::Index d = pair.train.inputs();
    const std::uint64_t rows = std::uint64_t(pair.train.rows()) + std::uint64_t(pair.test.rows());
    // The mapped sets, the projected rows of the larger set (a temporary of project()) and the
    // PCA's d × d Gram, eigenvectors and workspace: all sized by the spec, checked first.
    const std::uint64_t projected =
        c.pca > 0 ? MemoryBudget::bytesOf(std::uint64_t(std::max(pair.train.rows(), pair.test.rows())),
                                          std::uint64_t(std::min<Eigen::Index>(c.pca, d)))
                  : 0;
    const std::uint64_t pcaBytes = c.pca > 0 ? 3 * MemoryBudget::bytesOf(std::uint64_t(d), std::uint64_t(d)) : 0;
    const std::uint64_t mapped = MemoryBudget::bytesOf(rows, std::uint64_t(c.count));
    MemoryBudget::require(mapped > UINT64_MAX - projected - pcaBytes ? UINT64_MAX : mapped + projected + pcaBytes,
                          QStringLiteral("%1 × %2 random features (dataset.rf_count = %2) of %3 train and test rows")
                              .arg(spec.value(kKind).toString())
                              .arg(c.count)
                              .arg(rows),
                          {}, QStringLiteral("dataset.rf_count"));
    requireFinite(pair.train.x, QStringLiteral("training"));
    requireFinite(pair.test.x, QStringLiteral("test"));

    train::FeatureMapKeys keys;
    keys.pca = "rf_pca";
    keys.count = "rf_count";
    keys.bandwidthRule = "rf_bandwidth_rule";
    keys.name = [](const std::string& key) { return "dataset." + key; }; // "dataset.rf_pca asks for …"
    train::FeatureMap map;
    Eigen::MatrixXd projectedTrain, train, test;
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
    for (Dataset* set : {&pair.train, &pair.test}) {
        set->featureNames.clear(); // the features have no names of their own
        set->description += text;
    }
}

QString RandomFeatureOption::describe(const QJsonObject& spec)
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
