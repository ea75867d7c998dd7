#pragma once
/// @file ImageFolderLimits.h
/// What the IDX sources (fashion-mnist, idx) share: their train_limit / test_limit keys and the
/// loading of a limited set.

#include <data/DataError.h>
#include <data/DataKeys.h>
#include <data/IdxLoader.h>

#include <QLocale>

namespace tb::data::idx {

/// The "train_limit" and "test_limit" keys.
inline void addLimitKeys(ParamSchema& params, const QString& trainHelp, const QString& testHelp)
{
    params.add(DataKeys::integer(QStringLiteral("train_limit"), QStringLiteral("Train limit"), 1, 1e12, QVariant(), trainHelp)
                   .absentMeans(QStringLiteral("all")));
    params.add(DataKeys::integer(QStringLiteral("test_limit"), QStringLiteral("Test limit"), 1, 1e12, QVariant(), testHelp)
                   .absentMeans(QStringLiteral("all")));
}

/// The limit under @p key: −1 when not given.
inline Eigen::Index limit(const QVariantMap& spec, const QString& key)
{
    return spec.contains(key) ? Eigen::Index(spec.value(key).toLongLong()) : Eigen::Index(-1);
}

/// IdxLoader::load(), its "limit" errors re-raised under the spec key that set the limit.
inline Dataset load(const QString& images, const QString& labels, const IdxLoader::Options& o, const QString& key,
                    const QVariantMap& spec)
{
    try {
        return IdxLoader::load(images, labels, o);
    } catch (const DataError& e) {
        if (e.key() != u"limit")
            throw;
        throw DataError(e.file(), -1, -1, QStringLiteral("dataset.") + key,
                        QString::number(spec.value(key).toDouble(), 'g', QLocale::FloatingPointShortest),
                        QStringLiteral("dataset.%1: %2").arg(key, e.message()));
    }
}

/// ", train N, test M" for the limits given.
inline QString describeLimits(const QVariantMap& spec)
{
    QString t;
    if (spec.contains(QStringLiteral("train_limit")))
        t += QStringLiteral(", train %1").arg(spec.value(QStringLiteral("train_limit")).toLongLong());
    if (spec.contains(QStringLiteral("test_limit")))
        t += QStringLiteral(", test %1").arg(spec.value(QStringLiteral("test_limit")).toLongLong());
    return t;
}

} // namespace tb::data::idx
