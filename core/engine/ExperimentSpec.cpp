#include "ExperimentSpec.h"

#include "ExperimentKind.h"

#include "JsonDuplicateKeys.h"
#include "PluginRegistry.h"

#include <DataSource.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <tbb/info.h>
#include <cmath>
#include <limits>
#include <thread>

namespace tb {
namespace {

// "line:col" of a byte offset, 1-based, for JSON syntax errors.
QString lineColumn(const QByteArray& text, int offset)
{
    int line = 1, col = 1;
    for (int i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return QStringLiteral("%1:%2").arg(line).arg(col);
}

QString shown(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::String: return QLatin1Char('"') + v.toString() + QLatin1Char('"');
    case QJsonValue::Double: return QString::number(v.toDouble(), 'g', 15);
    case QJsonValue::Bool: return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("nothing");
}

} // namespace

ParamSchema ExperimentSpec::schema()
{
    ParamSchema s;
    s.add(ParamSpec::text(QStringLiteral("name"), QStringLiteral("Name"), QStringLiteral("untitled experiment"),
                          QStringLiteral("The experiment's name, in charts and the run browser.")));
    s.add(ParamSpec::text(QStringLiteral("description"), QStringLiteral("Description"), QString(),
                          QStringLiteral("Free text for people; kept with the experiment.")));
    s.add(ParamSpec::choice(QStringLiteral("kind"), QStringLiteral("Kind"), ExperimentKinds::ids(), QString(),
                            QStringLiteral("What the experiment measures."))
              .requiredKey());
    s.add(ParamSpec::seed(QStringLiteral("seed"), QStringLiteral("Seed"),
                          QStringLiteral("Base seed: repeat r runs with deriveSeed(seed, r). Default 1."))
              .absentMeans(QStringLiteral("1")));
    s.add(ParamSpec::integer(QStringLiteral("threads"), QStringLiteral("Threads"), 0, 0, 1024,
                             QStringLiteral("Worker threads (0 = all cores).")));
    s.add(ParamSpec::real(QStringLiteral("time_budget_s"), QStringLiteral("Time budget (s)"), 0, 0,
                          std::numeric_limits<double>::infinity(), QStringLiteral("Training time of each run, 0 = none.")));
    return s;
}

std::optional<ExperimentSpec> ExperimentSpec::fromFile(const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: cannot open: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    auto spec = fromJson(f.readAll(), path, error);
    if (spec) {
        spec->sourcePath = QFileInfo(path).absoluteFilePath();
        spec->baseDir = QFileInfo(path).absolutePath();
    }
    return spec;
}

std::optional<ExperimentSpec> ExperimentSpec::fromJson(const QByteArray& json, const QString& sourceName, QString* error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        if (error)
            *error = QStringLiteral("%1:%2: %3").arg(sourceName, lineColumn(json, pe.offset), pe.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        if (error)
            *error = QStringLiteral("%1: the top level must be a JSON object").arg(sourceName);
        return std::nullopt;
    }
    auto spec = fromObject(doc.object(), sourceName, error);
    if (spec)
        for (const auto& d : JsonDuplicateKeys::find(json))
            spec->warnings << JsonDuplicateKeys::describe(d, sourceName);
    return spec;
}

std::optional<ExperimentSpec> ExperimentSpec::fromObject(const QJsonObject& o, const QString& sourceName, QString* error)
{
    auto fail = [&](const QString& key, const QString& message) -> std::optional<ExperimentSpec> {
        if (error)
            *error = QStringLiteral("%1: %2: %3").arg(sourceName, key, message);
        return std::nullopt;
    };
    ExperimentSpec s;
    // The kind first: its keys join the common ones.
    const QJsonValue kindValue = o.value("kind");
    const ExperimentKind* kind = kindValue.isString() ? ExperimentKinds::find(kindValue.toString()) : nullptr;
    if (!kind) {
        QStringList ids;
        for (const QString& id : ExperimentKinds::ids())
            ids << QLatin1Char('"') + id + QLatin1Char('"');
        return fail("kind", QStringLiteral("expected one of %1, got %2").arg(ids.join(", "), shown(kindValue)));
    }
    ParamSchema keys = schema();
    keys.append(kind->keys());
    ParamContext ctx;
    ctx.keyNames = ParamContext::KeyNames::Path;
    ctx.owner = QStringLiteral("kind \"%1\"").arg(kind->id());
    ctx.otherKeys = {QStringLiteral("dataset"), QStringLiteral("algorithms"), QStringLiteral("sweep")};
    QString message;
    const auto top = keys.normalise(o.toVariantMap(), &message, nullptr, ctx);
    if (!top) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(sourceName, message);
        return std::nullopt;
    }
    s.kind = kind->id();
    s.name = top->value("name").toString();
    s.description = top->value("description").toString();
    s.seed = top->contains("seed") ? top->value("seed").toULongLong() : 1;
    s.threads = int(top->value("threads").toLongLong());
    s.timeBudgetSeconds = top->value("time_budget_s").toDouble();
    for (const ParamSpec& k : kind->keys().specs())
        s.settings.insert(k.key, top->value(k.key));
    s.repeats = int(s.settings.value("repeats", 1).toLongLong());
    s.firstRepeat = int(s.settings.value("first_repeat", 0).toLongLong());

    if (!o.value("dataset").isObject())
        return fail("dataset", QStringLiteral("expected an object such as {\"source\": \"moons\"}, got %1").arg(shown(o.value("dataset"))));
    s.dataset = o.value("dataset").toObject();

    const QJsonValue algs = o.value("algorithms");
    if (!algs.isArray() || algs.toArray().isEmpty())
        return fail("algorithms",
                    QStringLiteral("expected a non-empty array of {\"id\": ..., \"params\": {...}}, got %1").arg(shown(algs)));
    const QJsonArray arr = algs.toArray();
    for (int i = 0; i < arr.size(); ++i) {
        const QString path = QStringLiteral("algorithms[%1]").arg(i);
        if (!arr[i].isObject())
            return fail(path, QStringLiteral("expected an object, got %1").arg(shown(arr[i])));
        const QJsonObject a = arr[i].toObject();
        for (auto it = a.begin(); it != a.end(); ++it)
            if (it.key() != "id" && it.key() != "label" && it.key() != "params")
                return fail(path + "." + it.key(), QStringLiteral("unknown key (known: id, label, params)"));
        AlgorithmRun r;
        r.id = a.value("id").toString();
        if (r.id.isEmpty())
            return fail(path + ".id", QStringLiteral("expected an algorithm id string, got %1").arg(shown(a.value("id"))));
        r.label = a.value("label").toString();
        if (a.contains("params") && !a.value("params").isObject())
            return fail(path + ".params", QStringLiteral("expected an object, got %1").arg(shown(a.value("params"))));
        r.params = a.value("params").toObject().toVariantMap();
        s.algorithms << r;
    }

    s.sweep = o.value("sweep");
    QString key;
    if (!kind->parseSweep(s.sweep, s, &key, &message))
        return fail(key, message);
    return s;
}

QStringList ExperimentSpec::upgradeParams(const PluginRegistry& registry)
{
    QStringList notes;
    const QString src = sourcePath.isEmpty() ? QStringLiteral("experiment") : sourcePath;
    for (int i = 0; i < algorithms.size(); ++i) {
        AlgorithmRun& a = algorithms[i];
        const AlgorithmEntry* e = registry.algorithm(a.id);
        if (!e)
            continue;
        QStringList mine;
        a.params = e->info.schema.upgrade(a.params, &mine);
        for (const QString& n : std::as_const(mine))
            notes << QStringLiteral("%1: algorithms[%2] (%3): %4").arg(src).arg(i).arg(a.id, n);
    }
    return notes;
}

QStringList ExperimentSpec::validate(const PluginRegistry& registry) const
{
    QStringList problems;
    const QString src = sourcePath.isEmpty() ? QStringLiteral("experiment") : sourcePath;
    const QString dataError = data::DataSource::validate(dataset);
    if (!dataError.isEmpty())
        problems << QStringLiteral("%1: %2").arg(src, dataError);
    // The task comes from a valid dataset only: after a dataset error, "does not do regression"
    // would be a second, unrelated message.
    const std::optional<Task> task = data::DataSource::task(dataset);
    const bool classification = task == Task::Classification;
    for (int i = 0; i < algorithms.size(); ++i) {
        const auto& a = algorithms[i];
        const QString path = QStringLiteral("algorithms[%1]").arg(i);
        const AlgorithmEntry* e = registry.algorithm(a.id);
        if (!e) {
            QStringList ids;
            for (const auto& x : registry.algorithms())
                ids << x.info.id;
            problems << QStringLiteral("%1: %2.id: unknown algorithm \"%3\" (available: %4)")
                            .arg(src, path, a.id, ids.isEmpty() ? QStringLiteral("none — no plugin loaded") : ids.join(", "));
            continue;
        }
        QString err;
        if (!e->info.schema.normalise(a.params, &err))
            problems << QStringLiteral("%1: %2.params: %3").arg(src, path, err);
        if (task && classification && !e->info.classification)
            problems << QStringLiteral("%1: %2.id: \"%3\" does not do classification").arg(src, path, a.id);
        if (task && !classification && !e->info.regression)
            problems << QStringLiteral("%1: %2.id: \"%3\" does not do regression").arg(src, path, a.id);
    }
    if (const ExperimentKind* k = ExperimentKinds::find(kind))
        for (const QString& p : k->validate(*this, registry))
            problems << QStringLiteral("%1: %2").arg(src, p);
    else
        problems << QStringLiteral("%1: kind: unknown kind \"%2\" (known: %3)").arg(src, kind, ExperimentKinds::ids().join(", "));
    return problems;
}

QJsonObject ExperimentSpec::toJson() const
{
    QJsonObject o{{"name", name}, {"kind", kind}, {"dataset", dataset}};
    if (!description.isEmpty())
        o.insert("description", description);
    QJsonArray algs;
    for (const auto& a : algorithms) {
        QJsonObject ao{{"id", a.id}, {"params", QJsonObject::fromVariantMap(a.params)}};
        if (!a.label.isEmpty())
            ao.insert("label", a.label);
        algs.append(ao);
    }
    o.insert("algorithms", algs);
    // Seeds beyond 2^53 do not survive a JSON double.
    if (seed < (std::uint64_t(1) << 53))
        o.insert("seed", double(seed));
    else
        o.insert("seed", QString::number(seed));
    o.insert("threads", effectiveThreads());
    if (timeBudgetSeconds > 0)
        o.insert("time_budget_s", timeBudgetSeconds);
    if (const ExperimentKind* k = ExperimentKinds::find(kind))
        k->write(*this, o);
    return o;
}

int ExperimentSpec::effectiveThreads() const
{
    return threads > 0 ? threads : allCores();
}

int ExperimentSpec::allCores()
{
    return std::max(1, tbb::info::default_concurrency());
}

} // namespace tb
