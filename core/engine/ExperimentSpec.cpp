#include "ExperimentSpec.h"

#include "HostBudget.h"
#include "JsonDuplicateKeys.h"
#include "ParamSweep.h"
#include "PluginRegistry.h"

#include <DataSource.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <tbb/info.h>
#include <cmath>
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

class Checker {
public:
    explicit Checker(QString source) : m_source(std::move(source)) {}
    bool fail(const QString& key, const QString& message)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1: %2: %3").arg(m_source, key, message);
        return false;
    }
    bool integer(const QJsonObject& o, const QString& key, const QString& path, qint64 lo, qint64 hi, qint64& out)
    {
        if (!o.contains(key))
            return true;
        const QJsonValue v = o.value(key);
        const double d = v.toDouble(std::nan(""));
        if (!v.isDouble() || d != std::floor(d))
            return fail(path, QStringLiteral("expected an integer, got %1").arg(shown(v)));
        if (d < double(lo) || d > double(hi))
            return fail(path, QStringLiteral("%1 is outside [%2, %3]").arg(shown(v)).arg(lo).arg(hi));
        out = qint64(d);
        return true;
    }
    QString error() const { return m_error; }

private:
    QString m_source;
    QString m_error;
};

// The "sweep" object of a param-sweep into s.paramSweep.
bool parseParamSweep(const QJsonObject& o, ExperimentSpec& s, Checker& c)
{
    ParamSweepSpec& ps = s.paramSweep;
    const QJsonValue sw = o.value("sweep");
    if (!sw.isObject())
        return c.fail("sweep", QStringLiteral("a param-sweep needs {\"grid\": {\"lr\": [0.001, 0.01]}} or {\"list\": "
                                              "[{\"lr\": 0.001}, …]}, got %1")
                                   .arg(shown(sw)));
    const QJsonObject so = sw.toObject();
    static const QStringList known{"grid", "list", "datasets", "cells_at_once"};
    for (auto it = so.begin(); it != so.end(); ++it)
        if (!known.contains(it.key()))
            return c.fail("sweep." + it.key(), QStringLiteral("unknown key (known: %1)").arg(known.join(", ")));
    if (so.contains("grid") && so.contains("list"))
        return c.fail("sweep", QStringLiteral("give either \"grid\" or \"list\", not both"));
    if (so.contains("grid")) {
        if (!so.value("grid").isObject() || so.value("grid").toObject().isEmpty())
            return c.fail("sweep.grid", QStringLiteral("expected an object of parameter: values, got %1").arg(shown(so.value("grid"))));
        const QJsonObject g = so.value("grid").toObject();
        for (auto it = g.begin(); it != g.end(); ++it) {
            QString err;
            const auto values = ParamSweep::expand(it.value(), "sweep.grid." + it.key(), &err);
            if (!values)
                return c.fail(err.section(QStringLiteral(": "), 0, 0), err.section(QStringLiteral(": "), 1));
            ps.grid << SweepAxis{it.key(), it.value(), *values};
        }
    }
    if (so.contains("list")) {
        const QJsonValue l = so.value("list");
        if (!l.isArray() || l.toArray().isEmpty())
            return c.fail("sweep.list", QStringLiteral("expected a non-empty array of {parameter: value} objects, got %1").arg(shown(l)));
        const QJsonArray la = l.toArray();
        if (la.size() > ParamSweep::maxCells)
            return c.fail("sweep.list", QStringLiteral("%1 points, at most %2").arg(la.size()).arg(ParamSweep::maxCells));
        for (int i = 0; i < la.size(); ++i) {
            if (!la[i].isObject())
                return c.fail(QStringLiteral("sweep.list[%1]").arg(i), QStringLiteral("expected an object, got %1").arg(shown(la[i])));
            ps.list << la[i].toObject().toVariantMap();
        }
    }
    if (so.contains("datasets")) {
        const QJsonValue d = so.value("datasets");
        if (!d.isArray() || d.toArray().isEmpty())
            return c.fail("sweep.datasets", QStringLiteral("expected a non-empty array of dataset objects, got %1").arg(shown(d)));
        const QJsonArray da = d.toArray();
        if (da.size() > 1000)
            return c.fail("sweep.datasets", QStringLiteral("%1 options, at most 1000").arg(da.size()));
        for (int i = 0; i < da.size(); ++i) {
            if (!da[i].isObject())
                return c.fail(QStringLiteral("sweep.datasets[%1]").arg(i),
                              QStringLiteral("expected an object such as {\"train_limit\": 2000}, got %1").arg(shown(da[i])));
            ps.datasets << da[i].toObject();
        }
    }
    qint64 v = 1;
    if (!c.integer(so, "cells_at_once", "sweep.cells_at_once", 1, 1024, v))
        return false;
    ps.cellsAtOnce = int(v);
    const qint64 cells = ParamSweep::cellCount(s);
    if (cells > ParamSweep::maxCells)
        return c.fail("sweep", QStringLiteral("%1 cells (points × data sets × algorithms × repeats), at most %2")
                                   .arg(cells).arg(ParamSweep::maxCells));
    return true;
}

} // namespace

QString ExperimentSpec::kindName(Kind k)
{
    switch (k) {
    case Kind::NoiseSweep: return QStringLiteral("noise-sweep");
    case Kind::ParamSweep: return QStringLiteral("param-sweep");
    case Kind::LearningCurve: break;
    }
    return QStringLiteral("learning-curve");
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
    Checker c(sourceName);
    ExperimentSpec s;
    auto done = [&]() -> std::optional<ExperimentSpec> {
        if (!c.error().isEmpty()) {
            if (error)
                *error = c.error();
            return std::nullopt;
        }
        return s;
    };
    static const QSet<QString> known{"name",    "kind",    "dataset",       "algorithms", "repeats",
                                     "first_repeat", "seed", "threads", "time_budget_s", "time_budget_clock",
                                     "sweep", "description"};
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!known.contains(it.key())) {
            c.fail(it.key(), QStringLiteral("unknown key (known: %1)").arg(QStringList(known.values()).join(", ")));
            return done();
        }

    s.name = o.value("name").toString(QStringLiteral("untitled experiment"));
    if (o.contains("description") && !o.value("description").isString()) {
        c.fail("description", QStringLiteral("expected a string, got %1").arg(shown(o.value("description"))));
        return done();
    }
    s.description = o.value("description").toString();
    const QString kind = o.value("kind").toString();
    if (kind == QLatin1String("learning-curve"))
        s.kind = Kind::LearningCurve;
    else if (kind == QLatin1String("noise-sweep"))
        s.kind = Kind::NoiseSweep;
    else if (kind == QLatin1String("param-sweep"))
        s.kind = Kind::ParamSweep;
    else {
        c.fail("kind", QStringLiteral("expected \"learning-curve\", \"noise-sweep\" or \"param-sweep\", got %1")
                           .arg(shown(o.value("kind"))));
        return done();
    }

    if (!o.value("dataset").isObject()) {
        c.fail("dataset", QStringLiteral("expected an object such as {\"source\": \"moons\"}, got %1").arg(shown(o.value("dataset"))));
        return done();
    }
    s.dataset = o.value("dataset").toObject();

    const QJsonValue algs = o.value("algorithms");
    if (!algs.isArray() || algs.toArray().isEmpty()) {
        c.fail("algorithms", QStringLiteral("expected a non-empty array of {\"id\": ..., \"params\": {...}}, got %1").arg(shown(algs)));
        return done();
    }
    const QJsonArray arr = algs.toArray();
    for (int i = 0; i < arr.size(); ++i) {
        const QString path = QStringLiteral("algorithms[%1]").arg(i);
        if (!arr[i].isObject()) {
            c.fail(path, QStringLiteral("expected an object, got %1").arg(shown(arr[i])));
            return done();
        }
        const QJsonObject a = arr[i].toObject();
        for (auto it = a.begin(); it != a.end(); ++it)
            if (it.key() != "id" && it.key() != "label" && it.key() != "params" && it.key() != kBudgetSecondsKey &&
                it.key() != kBudgetClockKey) {
                c.fail(path + "." + it.key(),
                       QStringLiteral("unknown key (known: id, label, params, time_budget_s, time_budget_clock)"));
                return done();
            }
        AlgorithmRun r;
        r.id = a.value("id").toString();
        if (r.id.isEmpty()) {
            c.fail(path + ".id", QStringLiteral("expected an algorithm id string, got %1").arg(shown(a.value("id"))));
            return done();
        }
        r.label = a.value("label").toString();
        if (a.contains("params") && !a.value("params").isObject()) {
            c.fail(path + ".params", QStringLiteral("expected an object, got %1").arg(shown(a.value("params"))));
            return done();
        }
        r.params = a.value("params").toObject().toVariantMap();
        HostBudget::Error budgetError;
        r.budget = HostBudget::fromJson(a, &budgetError);
        if (!budgetError.key.isEmpty()) {
            c.fail(path + "." + budgetError.key, budgetError.message);
            return done();
        }
        s.algorithms << r;
    }

    qint64 v = 1;
    if (!c.integer(o, "repeats", "repeats", 1, 1000, v))
        return done();
    s.repeats = int(v);
    v = 0;
    if (!c.integer(o, "first_repeat", "first_repeat", 0, 1000000, v))
        return done();
    s.firstRepeat = int(v);
    if (o.contains("seed")) {
        // Seeds are 64-bit; JSON numbers are doubles, so large seeds may be given as strings.
        const QJsonValue sv = o.value("seed");
        bool ok = false;
        std::uint64_t seed = 0;
        if (sv.isString())
            seed = sv.toString().toULongLong(&ok);
        else if (sv.isDouble() && sv.toDouble() >= 0 && sv.toDouble() == std::floor(sv.toDouble()) && sv.toDouble() < 9007199254740992.0) {
            seed = std::uint64_t(sv.toDouble());
            ok = true;
        }
        if (!ok) {
            c.fail("seed", QStringLiteral("expected a non-negative integer (or a decimal string for seeds ≥ 2^53), got %1").arg(shown(sv)));
            return done();
        }
        s.seed = seed;
    }
    v = 0;
    if (!c.integer(o, "threads", "threads", 0, 1024, v))
        return done();
    s.threads = int(v);
    HostBudget::Error budgetError;
    if (const auto b = HostBudget::fromJson(o, &budgetError)) {
        s.timeBudgetSeconds = b->seconds;
        s.timeBudgetClock = b->clock;
    } else if (!budgetError.key.isEmpty()) {
        c.fail(budgetError.key, budgetError.message);
        return done();
    }

    if (s.kind == Kind::NoiseSweep) {
        const QJsonValue sw = o.value("sweep");
        if (!sw.isObject()) {
            c.fail("sweep", QStringLiteral("a noise-sweep needs {\"sigma\": [...], \"monte_carlo\": N}, got %1").arg(shown(sw)));
            return done();
        }
        const QJsonObject so = sw.toObject();
        for (auto it = so.begin(); it != so.end(); ++it)
            if (it.key() != "sigma" && it.key() != "monte_carlo") {
                c.fail("sweep." + it.key(), QStringLiteral("unknown key (known: sigma, monte_carlo)"));
                return done();
            }
        const QJsonValue sig = so.value("sigma");
        if (!sig.isArray() || sig.toArray().isEmpty()) {
            c.fail("sweep.sigma", QStringLiteral("expected a non-empty array of noise levels, got %1").arg(shown(sig)));
            return done();
        }
        const QJsonArray sa = sig.toArray();
        for (int i = 0; i < sa.size(); ++i) {
            const double d = sa[i].toDouble(-1);
            if (!sa[i].isDouble() || !(d >= 0) || !std::isfinite(d)) {
                c.fail(QStringLiteral("sweep.sigma[%1]").arg(i), QStringLiteral("expected σ ≥ 0, got %1").arg(shown(sa[i])));
                return done();
            }
            s.sigmas << d;
        }
        v = 1;
        if (!c.integer(so, "monte_carlo", "sweep.monte_carlo", 1, 1000000, v))
            return done();
        s.monteCarlo = int(v);
        for (const char* key : {"repeats", "first_repeat"})
            if (o.contains(key)) {
                c.fail(key, QStringLiteral("a noise-sweep repeats through sweep.monte_carlo; remove \"%1\"").arg(key));
                return done();
            }
    } else if (s.kind == Kind::ParamSweep) {
        if (!parseParamSweep(o, s, c))
            return done();
    } else if (o.contains("sweep")) {
        c.fail("sweep", QStringLiteral("only a noise-sweep or a param-sweep has a sweep; this experiment is a learning-curve"));
        return done();
    }
    return done();
}

RunBudget ExperimentSpec::budgetOf(int index) const
{
    if (index >= 0 && index < algorithms.size() && algorithms[index].budget)
        return *algorithms[index].budget;
    return budget();
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
        if (const QString renamed = registry.renamedNote(a.id); !renamed.isEmpty()) {
            notes << QStringLiteral("%1: algorithms[%2]: %3").arg(src).arg(i).arg(renamed);
            a.id = e->info.id;
        }
        QStringList mine;
        a.params = e->info.schema.upgrade(a.params, &mine);
        // A budget among the parameters (a plugin's former own time limit, upgraded) is the
        // host's: it becomes the entry's, unless the entry gives one itself. A bad value stays
        // where it is, for validate() to name.
        HostBudget::Error error;
        QVariantMap rest = a.params;
        if (const auto b = HostBudget::takeFromParams(rest, &error)) {
            a.params = rest;
            if (a.budget)
                mine << QStringLiteral("params.%1 ignored: the entry's own %1 is used").arg(QLatin1String(kBudgetSecondsKey));
            else {
                a.budget = b;
                mine << QStringLiteral("the run's budget (%1) is the host's: algorithms[%2].%3")
                            .arg(HostBudget::describe(*b))
                            .arg(i)
                            .arg(QLatin1String(kBudgetSecondsKey));
            }
        }
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
        QVariantMap params = e->info.schema.upgrade(a.params);
        HostBudget::Error budgetError;
        const auto own = HostBudget::takeFromParams(params, &budgetError);
        if (!budgetError.key.isEmpty())
            problems << QStringLiteral("%1: %2.params.%3: %4").arg(src, path, budgetError.key, budgetError.message);
        else if (!e->info.schema.normalise(params, &err))
            problems << QStringLiteral("%1: %2.params: %3").arg(src, path, err);
        const std::optional<RunBudget> mine = own ? own : a.budget;
        if (mine && mine->clock == ClockKind::Cpu && !cpuBudgetMeasurable())
            problems << cpuBudgetProblem(src, path + "." + QLatin1String(kBudgetClockKey));
        if (task && classification && !e->info.classification)
            problems << QStringLiteral("%1: %2.id: \"%3\" does not do classification").arg(src, path, a.id);
        if (task && !classification && !e->info.regression)
            problems << QStringLiteral("%1: %2.id: \"%3\" does not do regression").arg(src, path, a.id);
    }
    if (budget().isSet() && budget().clock == ClockKind::Cpu && !cpuBudgetMeasurable())
        problems << cpuBudgetProblem(src, QString::fromLatin1(kBudgetClockKey));
    if (kind == Kind::ParamSweep)
        problems << validateParamSweep(registry, src);
    if (kind == Kind::NoiseSweep && dataError.isEmpty() && !data::DataSource::hasNoiseLevel(dataset))
        problems << QStringLiteral("%1: dataset.source: a noise-sweep needs a generator with a noise level "
                                   "(e.g. \"bpls-toy\"), got \"%2\"")
                        .arg(src, dataset.value("source").toString());
    return problems;
}

QStringList ExperimentSpec::validateParamSweep(const PluginRegistry& registry, const QString& src) const
{
    QStringList problems;
    for (int i = 0; i < algorithms.size(); ++i) {
        const AlgorithmEntry* e = registry.algorithm(algorithms[i].id);
        if (!e)
            continue; // reported by validate()
        const ParamSchema& schema = e->info.schema;
        auto unknown = [&](const QString& path, const QString& key) {
            QStringList keys;
            for (const auto& sp : schema.specs())
                keys << sp.key;
            problems << QStringLiteral("%1: %2: \"%3\" is not a parameter of \"%4\" (its parameters: %5)")
                            .arg(src, path, key, algorithms[i].id, keys.join(", "));
        };
        // A former spelling would be upgraded at run time and could lose to the current key in
        // the algorithm's params: the sweep would silently not vary. Sweeps name current keys.
        auto renamed = [&](const QString& path, const QString& key, const QVariant& value) {
            const QVariantMap up = schema.upgrade(QVariantMap{{key, value}});
            if (up.size() != 1 || up.firstKey() == key || !schema.find(up.firstKey()))
                return false;
            problems << QStringLiteral("%1: %2: \"%3\" is now \"%4\"; sweep it by its current name")
                            .arg(src, path, key, up.firstKey());
            return true;
        };
        // The budget among the parameters is the host's (validate() checks it): not the schema's.
        QVariantMap base = schema.upgrade(algorithms[i].params);
        HostBudget::takeFromParams(base, nullptr);
        for (const SweepAxis& axis : paramSweep.grid) {
            const QString path = QStringLiteral("sweep.grid.") + axis.key;
            if (!schema.find(axis.key)) {
                if (!renamed(path, axis.key, axis.values.value(0)))
                    unknown(path, axis.key);
                continue;
            }
            for (int v = 0; v < axis.values.size(); ++v) {
                QVariantMap params = base;
                params.insert(axis.key, axis.values[v]);
                QString err;
                if (!schema.normalise(params, &err)) {
                    problems << QStringLiteral("%1: %2[%3]: %4").arg(src, path).arg(v).arg(err);
                    break;
                }
            }
        }
        for (int p = 0; p < paramSweep.list.size(); ++p) {
            const QString path = QStringLiteral("sweep.list[%1]").arg(p);
            const QVariantMap& point = paramSweep.list[p];
            bool known = true;
            for (auto it = point.begin(); it != point.end(); ++it)
                if (!schema.find(it.key())) {
                    if (!renamed(path + "." + it.key(), it.key(), it.value()))
                        unknown(path + "." + it.key(), it.key());
                    known = false;
                }
            if (!known)
                break;
            QVariantMap params = base;
            for (auto it = point.begin(); it != point.end(); ++it)
                params.insert(it.key(), it.value());
            QString err;
            if (!schema.normalise(params, &err)) {
                problems << QStringLiteral("%1: %2: %3").arg(src, path, err);
                break;
            }
        }
    }
    const QList<QJsonObject> sets = ParamSweep::datasets(*this);
    for (int d = 0; d < paramSweep.datasets.size(); ++d) {
        const QString path = QStringLiteral("sweep.datasets[%1]").arg(d);
        const QString err = data::DataSource::validate(sets[d]);
        if (!err.isEmpty()) {
            problems << QStringLiteral("%1: %2: %3").arg(src, path, err);
            continue;
        }
        const bool classification = data::DataSource::task(sets[d]) == Task::Classification;
        for (const AlgorithmRun& a : algorithms) {
            const AlgorithmEntry* e = registry.algorithm(a.id);
            if (e && (classification ? !e->info.classification : !e->info.regression))
                problems << QStringLiteral("%1: %2: \"%3\" does not do %4")
                                .arg(src, path, a.id, classification ? "classification" : "regression");
        }
    }
    return problems;
}

QJsonObject ExperimentSpec::toJson() const
{
    QJsonObject o{{"name", name}, {"kind", kindName(kind)}, {"dataset", dataset}};
    if (!description.isEmpty())
        o.insert("description", description);
    QJsonArray algs;
    for (const auto& a : algorithms) {
        QJsonObject ao{{"id", a.id}, {"params", QJsonObject::fromVariantMap(a.params)}};
        if (!a.label.isEmpty())
            ao.insert("label", a.label);
        if (a.budget)
            HostBudget::toJson(*a.budget, ao);
        algs.append(ao);
    }
    o.insert("algorithms", algs);
    // Seeds beyond 2^53 do not survive a JSON double.
    if (seed < (std::uint64_t(1) << 53))
        o.insert("seed", double(seed));
    else
        o.insert("seed", QString::number(seed));
    o.insert("threads", effectiveThreads());
    HostBudget::toJson(budget(), o);
    if (kind == Kind::NoiseSweep) {
        QJsonArray sa;
        for (double s : sigmas)
            sa.append(s);
        o.insert("sweep", QJsonObject{{"sigma", sa}, {"monte_carlo", monteCarlo}});
    } else {
        if (kind == Kind::ParamSweep) {
            QJsonObject sw;
            if (!paramSweep.grid.isEmpty()) {
                QJsonObject g;
                for (const SweepAxis& a : paramSweep.grid)
                    g.insert(a.key, a.source);
                sw.insert("grid", g);
            }
            if (!paramSweep.list.isEmpty()) {
                QJsonArray l;
                for (const QVariantMap& p : paramSweep.list)
                    l.append(QJsonObject::fromVariantMap(p));
                sw.insert("list", l);
            }
            if (!paramSweep.datasets.isEmpty()) {
                QJsonArray d;
                for (const QJsonObject& x : paramSweep.datasets)
                    d.append(x);
                sw.insert("datasets", d);
            }
            if (paramSweep.cellsAtOnce != 1)
                sw.insert("cells_at_once", paramSweep.cellsAtOnce);
            o.insert("sweep", sw);
        }
        o.insert("repeats", repeats);
        if (firstRepeat > 0)
            o.insert("first_repeat", firstRepeat);
    }
    return o;
}

bool ExperimentSpec::cpuBudgetMeasurable() const
{
    if (kind == Kind::NoiseSweep)
        return effectiveThreads() == 1;  // its cells train on every thread at once
    if (kind == Kind::ParamSweep)
        return paramSweep.cellsAtOnce <= 1;
    return true;  // a learning curve trains one run at a time
}

QString ExperimentSpec::cpuBudgetProblem(const QString& src, const QString& key) const
{
    return QStringLiteral("%1: %2: a budget on the cpu clock needs one run at a time in the process (the process's "
                          "CPU time is then the run's); this %3 trains %4 cells at once, whose CPU time cannot be told "
                          "apart: use \"wall\", or train one cell at a time (%5)")
        .arg(src, key, kindName(kind))
        .arg(kind == Kind::NoiseSweep ? effectiveThreads() : paramSweep.cellsAtOnce)
        .arg(kind == Kind::NoiseSweep ? QStringLiteral("\"threads\": 1") : QStringLiteral("\"sweep.cells_at_once\": 1"));
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
