#include "Suite.h"

#include "ExperimentKind.h"
#include "JsonPosition.h"
#include "PluginRegistry.h"

#include <data/DataSource.h>
#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace tb {
namespace {

// The task of a set for people.
QString taskName(std::optional<Task> task)
{
    return task == Task::Regression ? QStringLiteral("regression") : QStringLiteral("classification");
}

} // namespace

bool Suite::readArray(const QJsonValue& array, const QString& origin, QList<SuiteSet>* sets, QString* key,
                      QString* message)
{
    const QString arrayKey = key->isEmpty() ? QStringLiteral("datasets") : *key;
    if (!array.isArray() || array.toArray().isEmpty()) {
        *key = arrayKey;
        *message = QStringLiteral("expected a non-empty array of data sets ({\"source\": ...} or {\"name\": ..., "
                                  "\"dataset\": {...}}), got %1")
                       .arg(jsonValueText(array));
        return false;
    }
    const QJsonArray a = array.toArray();
    if (a.size() > 1000) {
        *key = arrayKey;
        *message = QStringLiteral("%1 data sets, at most 1000").arg(a.size());
        return false;
    }
    for (int i = 0; i < a.size(); ++i) {
        const QString at = QStringLiteral("%1[%2]").arg(arrayKey).arg(i);
        if (!a[i].isObject()) {
            *key = at;
            *message = QStringLiteral("expected a data-set object, got %1").arg(jsonValueText(a[i]));
            return false;
        }
        const QJsonObject entry = a[i].toObject();
        SuiteSet set;
        set.origin = QStringLiteral("%1: %2").arg(origin, at);
        if (entry.contains(QStringLiteral("dataset"))) {
            // {"name": ..., "dataset": {...}}: nothing else.
            for (auto it = entry.begin(); it != entry.end(); ++it)
                if (it.key() != u"name" && it.key() != u"dataset") {
                    *key = at + QLatin1Char('.') + it.key();
                    *message = QStringLiteral("unknown key (known: name, dataset)");
                    return false;
                }
            if (!entry.value(QStringLiteral("dataset")).isObject()) {
                *key = at + QStringLiteral(".dataset");
                *message = QStringLiteral("expected an object such as {\"source\": \"moons\"}, got %1")
                               .arg(jsonValueText(entry.value(QStringLiteral("dataset"))));
                return false;
            }
            const QJsonValue name = entry.value(QStringLiteral("name"));
            if (entry.contains(QStringLiteral("name")) && (!name.isString() || name.toString().trimmed().isEmpty())) {
                *key = at + QStringLiteral(".name");
                *message = QStringLiteral("expected a non-empty string, got %1").arg(jsonValueText(name));
                return false;
            }
            set.dataset = entry.value(QStringLiteral("dataset")).toObject();
            set.name = name.toString().trimmed();
        } else {
            set.dataset = entry;
        }
        if (const QString problem = data::DataSource::validate(set.dataset); !problem.isEmpty()) {
            *key = at;
            *message = problem;
            return false;
        }
        if (set.name.isEmpty())
            set.name = data::DataSource::describe(set.dataset);
        *sets << set;
    }
    return true;
}

bool Suite::readFile(const QString& path, QString* suiteName, QList<SuiteSet>* sets, QString* error)
{
    // A suite file is a few kilobytes of JSON: a device, a folder or a huge file is a mistake, and
    // reading one whole (/dev/zero) would never end.
    constexpr qint64 kMaxSuiteBytes = 64 * 1024 * 1024;
    const QFileInfo info(path);
    if (info.exists() && !info.isFile()) {
        *error = QStringLiteral("%1: not a suite file (a %2)").arg(path, info.isDir() ? QStringLiteral("folder")
                                                                                      : QStringLiteral("device or pipe"));
        return false;
    }
    if (info.size() > kMaxSuiteBytes) {
        *error = QStringLiteral("%1: %2 bytes, more than a suite file's 64 MiB").arg(path).arg(info.size());
        return false;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot open the suite file: %2").arg(path, f.errorString());
        return false;
    }
    const QByteArray json = f.read(kMaxSuiteBytes + 1);
    if (json.size() > kMaxSuiteBytes) {
        *error = QStringLiteral("%1: more than a suite file's 64 MiB").arg(path);
        return false;
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1:%2: %3").arg(path, JsonPosition::lineColumn(json, pe.offset), pe.errorString());
        return false;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("%1: the top level must be a JSON object {\"name\": ..., \"sets\": [...]}").arg(path);
        return false;
    }
    const QJsonObject o = doc.object();
    for (auto it = o.begin(); it != o.end(); ++it)
        if (it.key() != u"name" && it.key() != u"description" && it.key() != u"sets") {
            *error = QStringLiteral("%1: %2: unknown key (known: name, description, sets)").arg(path, it.key());
            return false;
        }
    if (!o.value(QStringLiteral("name")).isString() || o.value(QStringLiteral("name")).toString().trimmed().isEmpty()) {
        *error = QStringLiteral("%1: name: expected the suite's name, got %2").arg(path, jsonValueText(o.value("name")));
        return false;
    }
    *suiteName = o.value(QStringLiteral("name")).toString().trimmed();
    QString key = QStringLiteral("sets"), message;
    QList<SuiteSet> read;
    if (!readArray(o.value(QStringLiteral("sets")), path, &read, &key, &message)) {
        *error = QStringLiteral("%1: %2: %3").arg(path, key, message);
        return false;
    }
    // The sets' files are the suite file's neighbours, wherever the experiment that names it is.
    const QString dir = QFileInfo(path).absolutePath();
    for (SuiteSet& set : read)
        set.dataset = data::DataSource::withAbsolutePaths(set.dataset, dir);
    *sets = read;
    return true;
}

QStringList Suite::problems(const QList<SuiteSet>& sets)
{
    QStringList out;
    if (sets.size() < 2)
        out << QStringLiteral("a suite needs at least 2 data sets, got %1 (one data set: write \"dataset\")").arg(sets.size());
    QHash<QString, int> names;
    for (int i = 0; i < sets.size(); ++i) {
        if (const auto it = names.constFind(sets[i].name); it != names.constEnd()) {
            out << QStringLiteral("%1: the name \"%2\" is taken by %3: give each set a \"name\" of its own")
                       .arg(sets[i].origin, sets[i].name, sets[*it].origin.section(QStringLiteral(": "), -1));
            continue;
        }
        names.insert(sets[i].name, i);
        for (int j = 0; j < i; ++j)
            if (sets[j].dataset == sets[i].dataset) {
                out << QStringLiteral("%1: the same data set as %2 (\"%3\")")
                           .arg(sets[i].origin, sets[j].origin.section(QStringLiteral(": "), -1), sets[j].name);
                break;
            }
    }
    return out;
}

QString Suite::absentBecause(const SuiteSet& set)
{
    const QString source = set.dataset.value(QStringLiteral("source")).toString();
    const data::DatasetEntry* entry = data::DatasetCatalog::find(source);
    if (!entry || data::DatasetCache::state(*entry) != data::DatasetCache::State::Missing)
        return {};
    return QStringLiteral("trainbench-cli datasets fetch %1").arg(entry->id);
}

ExperimentSpec Suite::setSpec(const ExperimentSpec& suite, int index, const PluginRegistry& registry, QStringList* gaps)
{
    ExperimentSpec s = suite;
    const SuiteSet& set = suite.suite.at(index);
    s.suite.clear();
    s.suiteFile.clear();
    s.dataset = set.dataset;
    s.name = QStringLiteral("%1 — %2").arg(set.name, suite.name); // the set first: a list cuts long names
    s.suitePlace = {suite.suiteName.isEmpty() ? suite.name : suite.suiteName, set.name, index, int(suite.suite.size())};
    const std::optional<Task> task = data::DataSource::task(set.dataset);
    s.algorithms.clear();
    for (const AlgorithmRun& a : suite.algorithms) {
        const AlgorithmEntry* e = registry.algorithm(a.id);
        AlgorithmRun kept = a;
        if (kept.label.isEmpty() && e)
            kept.label = e->info.name; // one configuration name on every set
        const bool takes = !e || !task || (*task == Task::Classification ? e->info.classification : e->info.regression);
        if (!takes) {
            if (gaps)
                *gaps << QStringLiteral("%1 on %2: a %3 set, and \"%4\" does not do %3")
                             .arg(kept.label, set.name, taskName(task), a.id);
            continue;
        }
        s.algorithms << kept;
    }
    return s;
}

QStringList Suite::validate(const ExperimentSpec& suite, const PluginRegistry& registry)
{
    const QString src = suite.sourcePath.isEmpty() ? QStringLiteral("experiment") : suite.sourcePath;
    QStringList out = problems(suite.suite);
    for (QString& p : out)
        if (!p.startsWith(src))
            p.prepend(src + QStringLiteral(": "));
    if (const ExperimentKind* kind = ExperimentKinds::find(suite.kind); kind && !kind->unitsAreRuns())
        out << QStringLiteral("%1: kind: a %2 over several data sets is not offered: its cells are aggregated, not "
                              "stored as runs to compare across sets; run each set as an experiment of its own")
                   .arg(src, kind->label().toLower());
    // Each set's problems: the ones every set has once, as one experiment's; the others under
    // their set. Entries left out of a set (gaps) shift its indices: messages name the file's.
    QHash<QString, int> seen;
    QStringList order;
    QList<QPair<int, QString>> perSet;
    static const QRegularExpression entry(QStringLiteral("algorithms\\[(\\d+)\\]"));
    for (int i = 0; i < suite.suite.size(); ++i) {
        const ExperimentSpec s = setSpec(suite, i, registry);
        if (s.algorithms.isEmpty()) {
            out << QStringLiteral("%1: no algorithm of the experiment can take this %2 set")
                       .arg(suite.suite[i].origin, taskName(data::DataSource::task(suite.suite[i].dataset)));
            continue;
        }
        QList<int> kept;
        for (const AlgorithmRun& a : s.algorithms)
            for (int j = 0; j < suite.algorithms.size(); ++j)
                if (suite.algorithms[j].id == a.id && suite.algorithms[j].params == a.params &&
                    suite.algorithms[j].kindKeys == a.kindKeys && !kept.contains(j)) {
                    kept << j;
                    break;
                }
        for (QString p : s.validate(registry)) {
            QString mapped;
            qsizetype last = 0;
            for (auto it = entry.globalMatch(p); it.hasNext();) {
                const auto m = it.next();
                mapped += p.mid(last, m.capturedStart() - last);
                mapped += QStringLiteral("algorithms[%1]").arg(kept.value(m.captured(1).toInt(), m.captured(1).toInt()));
                last = m.capturedEnd();
            }
            p = mapped + p.mid(last);
            if (!seen.contains(p))
                order << p;
            seen[p]++;
            perSet << qMakePair(i, p);
        }
    }
    const int sets = int(suite.suite.size());
    for (const QString& p : std::as_const(order))
        if (seen.value(p) == sets)
            out << p;
    for (const auto& [i, p] : std::as_const(perSet))
        if (seen.value(p) != sets)
            out << QStringLiteral("%1 (set \"%2\"): %3").arg(suite.suite[i].origin, suite.suite[i].name,
                                                            p.startsWith(src + QStringLiteral(": ")) ? p.mid(src.size() + 2) : p);
    return out;
}

QJsonObject Suite::placeToJson(const SuitePlace& place)
{
    return QJsonObject{{"suite", place.suite}, {"set", place.set}, {"index", place.index}, {"sets", place.sets}};
}

bool Suite::placeFromJson(const QJsonValue& v, SuitePlace* place, QString* message)
{
    const QJsonObject o = v.toObject();
    if (!v.isObject() || !o.value("suite").isString() || !o.value("set").isString() || !o.value("index").isDouble() ||
        !o.value("sets").isDouble() || o.value("sets").toInt() < 1 || o.value("index").toInt() < 0 ||
        o.value("index").toInt() >= o.value("sets").toInt()) {
        *message = QStringLiteral("expected {\"suite\": name, \"set\": name, \"index\": i, \"sets\": n} with 0 ≤ i < n, got %1")
                       .arg(jsonValueText(v));
        return false;
    }
    *place = {o.value("suite").toString(), o.value("set").toString(), o.value("index").toInt(), o.value("sets").toInt()};
    return true;
}

} // namespace tb
