#include "DataSourceRegistry.h"

#include "DataKeys.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <shared_mutex>

namespace tb::data {
namespace {

struct State {
    std::shared_mutex mutex;
    std::deque<DataSourceEntry> entries; // a deque: entries never move, find() hands out pointers
};

State& state()
{
    static State s;
    return s;
}

/// Why @p info cannot be registered, or empty.
QString problemOf(const DataSourceInfo& info, const ParamSchema& common)
{
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9_-]*$"));
    static const QRegularExpression keyPattern(QStringLiteral("^[a-z_][a-z0-9_]*$"));
    for (const QString& id : QStringList{info.id} + info.formerIds)
        if (!idPattern.match(id).hasMatch())
            return QStringLiteral("data source id \"%1\" is not of the form [a-z0-9][a-z0-9_-]*").arg(id);
    for (const ParamSpec& p : info.params.specs()) {
        if (!keyPattern.match(p.key).hasMatch() || p.key == u"source")
            return QStringLiteral("data source \"%1\": key \"%2\" is not a valid key").arg(info.id, p.key);
        if (common.find(p.key))
            return QStringLiteral("data source \"%1\": key \"%2\" is one the host declares for every source")
                .arg(info.id, p.key);
    }
    if (!info.noiseKey.isEmpty() && !info.params.find(info.noiseKey))
        return QStringLiteral("data source \"%1\": its noise key \"%2\" is not one of its keys").arg(info.id, info.noiseKey);
    if (info.testSet == DataSourceInfo::TestSet::OwnOrSplit && !info.params.find(info.testKey))
        return QStringLiteral("data source \"%1\": its test key \"%2\" is not one of its keys").arg(info.id, info.testKey);
    if (!info.validationKey.isEmpty() && !info.params.find(info.validationKey))
        return QStringLiteral("data source \"%1\": its validation key \"%2\" is not one of its keys")
            .arg(info.id, info.validationKey);
    if (!info.task) {
        const ParamSpec* task = info.params.find(QStringLiteral("task"));
        if (!task || task->type != ParamType::Choice)
            return QStringLiteral("data source \"%1\": a source without a fixed task needs a \"task\" choice key").arg(info.id);
    }
    if (!(info.testFraction > 0 && info.testFraction < 1))
        return QStringLiteral("data source \"%1\": test fraction %2 is not between 0 and 1").arg(info.id).arg(info.testFraction);
    return {};
}

QString add(std::shared_ptr<const DataSourceProvider> provider, const QString& origin)
{
    if (!provider)
        return QStringLiteral("a data source that is null");
    DataSourceEntry e;
    e.provider = std::move(provider);
    e.info = e.provider->info();
    e.origin = origin;
    const ParamSchema common = DataKeys::common(e.info);
    if (const QString problem = problemOf(e.info, common); !problem.isEmpty())
        return problem;
    e.schema = e.info.params;
    e.schema.append(common);
    State& s = state();
    std::unique_lock lock(s.mutex);
    for (const DataSourceEntry& other : s.entries)
        for (const QString& id : QStringList{e.info.id} + e.info.formerIds)
            if (other.info.id == id || other.info.formerIds.contains(id))
                return QStringLiteral("data source \"%1\" is already offered by %2").arg(id, other.origin);
    s.entries.push_back(std::move(e));
    return {};
}

} // namespace

bool DataSourceRegistry::addBuiltIn(std::shared_ptr<const DataSourceProvider> provider)
{
    if (const QString problem = add(std::move(provider), QStringLiteral("built in")); !problem.isEmpty()) {
        std::fprintf(stderr, "trainbench: built-in %s\n", problem.toLocal8Bit().constData());
        std::abort();
    }
    return true;
}

QString DataSourceRegistry::addFromPlugin(std::shared_ptr<const DataSourceProvider> provider, const QString& origin)
{
    try {
        return add(std::move(provider), origin);
    } catch (const std::exception& e) {
        return QStringLiteral("its data source failed to describe itself: %1").arg(QString::fromUtf8(e.what()));
    }
}

const DataSourceEntry* DataSourceRegistry::find(const QString& id)
{
    State& s = state();
    std::shared_lock lock(s.mutex);
    for (const DataSourceEntry& e : s.entries)
        if (e.info.id == id || e.info.formerIds.contains(id))
            return &e;
    return nullptr;
}

QList<const DataSourceEntry*> DataSourceRegistry::all()
{
    State& s = state();
    QList<const DataSourceEntry*> out;
    {
        std::shared_lock lock(s.mutex);
        for (const DataSourceEntry& e : s.entries)
            out << &e;
    }
    std::sort(out.begin(), out.end(), [](const DataSourceEntry* a, const DataSourceEntry* b) {
        return a->info.order != b->info.order ? a->info.order < b->info.order : a->info.id < b->info.id;
    });
    return out;
}

QStringList DataSourceRegistry::ids()
{
    QStringList out;
    for (const DataSourceEntry* e : all())
        out << e->info.id;
    return out;
}

QJsonValue DataSourceRegistry::toJson()
{
    QJsonArray arr;
    for (const DataSourceEntry* e : all()) {
        QJsonObject o{{"source", e->info.id},
                      {"label", e->info.label},
                      {"description", e->info.description},
                      {"origin", e->origin},
                      {"params", e->schema.toJson()}};
        if (e->info.task)
            o.insert("task", DataKeys::taskName(*e->info.task));
        if (!e->info.noiseKey.isEmpty())
            o.insert("noise_key", e->info.noiseKey);
        if (!e->info.formerIds.isEmpty())
            o.insert("former_ids", QJsonArray::fromStringList(e->info.formerIds));
        arr.append(o);
    }
    return arr;
}

} // namespace tb::data
