#include "ParamSweep.h"

#include <engine/ExperimentKind.h>
#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <engine/SettingLabel.h>

#include <data/DataSource.h>
#include <trainbench/ParamSchema.h>
#include <trainbench/Seeds.h>

#include <QJsonArray>
#include <QRegularExpression>
#include <cmath>
#include <limits>

namespace tb {

const ParamSweepSpec& ParamSweep::sweepOf(const ExperimentSpec& spec)
{
    static const ParamSweepSpec none;
    const ParamSweepSpec* sweep = spec.sectionAs<ParamSweepSpec>();
    return sweep ? *sweep : none;
}

namespace {

// 12 significant digits, integers exact: what a person would have typed.
double tidy(double v)
{
    const double r = std::round(v);
    if (r != 0 && std::fabs(v - r) <= 1e-9 * std::fabs(r))
        return r;
    return QString::number(v, 'g', 12).toDouble();
}

} // namespace

std::optional<QVariantList> ParamSweep::expand(const QJsonValue& source, const QString& path, QString* error)
{
    auto fail = [&](const QString& key, const QString& msg) -> std::optional<QVariantList> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(key, msg);
        return std::nullopt;
    };
    if (source.isArray()) {
        const QJsonArray a = source.toArray();
        if (a.isEmpty())
            return fail(path, QStringLiteral("expected at least one value"));
        if (a.size() > maxAxisValues)
            return fail(path, QStringLiteral("%1 values, at most %2").arg(a.size()).arg(maxAxisValues));
        QVariantList out;
        for (int i = 0; i < a.size(); ++i) {
            if (a[i].isNull() || a[i].isObject())
                return fail(QStringLiteral("%1[%2]").arg(path).arg(i),
                            QStringLiteral("expected a parameter value, got %1").arg(jsonValueText(a[i])));
            out << a[i].toVariant();
        }
        return out;
    }
    if (!source.isObject())
        return fail(path, QStringLiteral("expected an array of values or {\"from\": a, \"to\": b, \"count\": n, "
                                         "\"scale\": \"log\"}, got %1")
                              .arg(jsonValueText(source)));
    const QJsonObject o = source.toObject();
    for (auto it = o.begin(); it != o.end(); ++it)
        if (it.key() != "from" && it.key() != "to" && it.key() != "count" && it.key() != "scale")
            return fail(path + "." + it.key(), QStringLiteral("unknown key (known: from, to, count, scale)"));
    for (const char* k : {"from", "to"})
        if (!o.value(k).isDouble() || !std::isfinite(o.value(k).toDouble()))
            return fail(path + "." + k, QStringLiteral("expected a number, got %1").arg(jsonValueText(o.value(k))));
    const double from = o.value("from").toDouble(), to = o.value("to").toDouble();
    const QJsonValue cv = o.value("count");
    const double count = cv.toDouble(std::nan(""));
    if (!cv.isDouble() || count != std::floor(count) || count < 2 || count > maxAxisValues)
        return fail(path + ".count", QStringLiteral("expected an integer in [2, %1], got %2").arg(maxAxisValues).arg(jsonValueText(cv)));
    const QString scale = o.value("scale").toString(QStringLiteral("linear"));
    if (o.contains("scale") && !o.value("scale").isString())
        return fail(path + ".scale", QStringLiteral("expected \"linear\" or \"log\", got %1").arg(jsonValueText(o.value("scale"))));
    if (scale != QLatin1String("linear") && scale != QLatin1String("log"))
        return fail(path + ".scale", QStringLiteral("expected \"linear\" or \"log\", got \"%1\"").arg(scale));
    const bool log = scale == QLatin1String("log");
    if (log && !(from > 0 && to > 0))
        return fail(path, QStringLiteral("a log range needs from and to > 0, got %1 and %2").arg(from).arg(to));
    QVariantList out;
    const int n = int(count);
    for (int i = 0; i < n; ++i) {
        const double t = double(i) / double(n - 1);
        const double v = log ? from * std::pow(to / from, t) : from + (to - from) * t;
        out << QVariant(tidy(i == n - 1 ? to : v));
    }
    return out;
}

QList<QVariantMap> ParamSweep::points(const ParamSweepSpec& sweep)
{
    if (!sweep.list.isEmpty())
        return sweep.list;
    QList<QVariantMap> out{QVariantMap()};
    for (const SweepAxis& axis : sweep.grid) {
        QList<QVariantMap> next;
        next.reserve(out.size() * axis.values.size());
        for (const QVariantMap& p : out)
            for (const QVariant& v : axis.values) {
                QVariantMap q = p;
                q.insert(axis.key, v);
                next << q;
            }
        out = next;
    }
    return out;
}

QList<QJsonObject> ParamSweep::datasets(const ExperimentSpec& spec)
{
    if (sweepOf(spec).datasets.isEmpty())
        return {spec.dataset};
    QList<QJsonObject> out;
    for (const QJsonObject& option : sweepOf(spec).datasets) {
        if (option.contains(QStringLiteral("source"))) {
            out << option;
            continue;
        }
        QJsonObject merged = spec.dataset;
        for (auto it = option.begin(); it != option.end(); ++it)
            merged.insert(it.key(), it.value());
        out << merged;
    }
    return out;
}

qint64 ParamSweep::cellCount(const ExperimentSpec& spec)
{
    // In double, so that a product of many large axes saturates instead of overflowing.
    double points = 1;
    if (!sweepOf(spec).list.isEmpty())
        points = double(sweepOf(spec).list.size());
    else
        for (const SweepAxis& a : sweepOf(spec).grid)
            points *= double(std::max<qsizetype>(1, a.values.size()));
    const double sets = double(std::max<qsizetype>(1, sweepOf(spec).datasets.size()));
    const double n = points * sets * double(spec.algorithms.size()) * double(std::max(0, spec.repeats));
    return n >= 9e18 ? std::numeric_limits<qint64>::max() : qint64(n);
}

QList<SweepCell> ParamSweep::cells(const ExperimentSpec& spec)
{
    QList<SweepCell> out;
    if (!spec.sectionAs<ParamSweepSpec>() || cellCount(spec) > maxCells)
        return out;
    const QList<QVariantMap> pts = points(sweepOf(spec));
    const QList<QJsonObject> sets = datasets(spec);
    for (int d = 0; d < sets.size(); ++d)
        for (int rep = spec.firstRepeat; rep < spec.firstRepeat + spec.repeats; ++rep)
            for (int a = 0; a < spec.algorithms.size(); ++a)
                for (int p = 0; p < pts.size(); ++p) {
                    SweepCell c;
                    c.index = int(out.size());
                    c.datasetIndex = d;
                    c.repeat = rep;
                    c.algorithmIndex = a;
                    c.pointIndex = p;
                    // The learning curve's rule: repeat r of every configuration shares a seed,
                    // so configurations pair by repeat in the comparisons.
                    c.seed = deriveSeed(spec.seed, std::uint64_t(rep));
                    c.setting = pts[p];
                    c.params = spec.algorithms[a].params;
                    for (auto it = pts[p].begin(); it != pts[p].end(); ++it)
                        c.params.insert(it.key(), it.value());
                    c.dataset = sets[d];
                    out << c;
                }
    return out;
}

QList<AlgorithmCurves> ParamSweep::configurations(const ExperimentSpec& spec, const PluginRegistry* registry)
{
    QList<AlgorithmCurves> out;
    const QList<QJsonObject> sets = datasets(spec);
    const QList<QVariantMap> pts = points(sweepOf(spec));
    for (int d = 0; d < sets.size(); ++d) {
        const QString description = data::DataSource::describe(sets[d]);
        for (int a = 0; a < spec.algorithms.size(); ++a) {
            const AlgorithmRun& alg = spec.algorithms[a];
            const AlgorithmEntry* entry = registry ? registry->algorithm(alg.id) : nullptr;
            const QString name = !alg.label.isEmpty() ? alg.label : (entry ? entry->info.name : alg.id);
            for (const QVariantMap& p : pts) {
                AlgorithmCurves c;
                c.algorithmId = alg.id;
                c.algorithmIndex = a;
                c.setting = p;
                const QString setting = settingLabel(p);
                c.configuration = setting.isEmpty() ? name : name + QLatin1Char(' ') + setting;
                c.label = sets.size() > 1 ? c.configuration + QStringLiteral(" · ") + datasetLabel(spec, d) : c.configuration;
                c.dataset = description;
                c.datasetIndex = d;
                out << c;
            }
        }
    }
    return out;
}

int ParamSweep::configurationIndex(const ExperimentSpec& spec, const SweepCell& cell)
{
    const int nPts = int(points(sweepOf(spec)).size());
    return (cell.datasetIndex * int(spec.algorithms.size()) + cell.algorithmIndex) * nPts + cell.pointIndex;
}

QString ParamSweep::settingLabel(const QVariantMap& setting)
{
    return tb::settingLabel(setting);
}

QString ParamSweep::datasetLabel(const ExperimentSpec& spec, int index)
{
    if (index < 0 || index >= sweepOf(spec).datasets.size())
        return {};
    const QJsonObject option = sweepOf(spec).datasets[index];
    if (option.contains(QStringLiteral("source")))
        return data::DataSource::describe(option);
    QStringList parts;
    for (auto it = option.begin(); it != option.end(); ++it)
        parts << it.key() + QLatin1Char('=') + settingValueText(it.value().toVariant());
    return parts.join(QStringLiteral(", "));
}

std::optional<QJsonValue> ParamSweep::parseValues(const QString& text, const ParamSpec& spec, QString* error)
{
    auto fail = [&](const QString& msg) -> std::optional<QJsonValue> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(spec.key, msg);
        return std::nullopt;
    };
    const QString t = text.trimmed();
    if (t.isEmpty())
        return fail(QStringLiteral("no values"));
    static const QRegularExpression range(
        QStringLiteral("^(log|lin)\\s*\\(\\s*([^,\\s]+)\\s*,\\s*([^,\\s]+)\\s*,\\s*([^,\\s)]+)\\s*\\)$"),
        QRegularExpression::CaseInsensitiveOption);
    const auto m = range.match(t);
    if (m.hasMatch()) {
        if (spec.type != ParamType::Int && spec.type != ParamType::Real)
            return fail(QStringLiteral("a range needs a numeric parameter"));
        bool ok1 = false, ok2 = false, ok3 = false;
        const double from = m.captured(2).toDouble(&ok1), to = m.captured(3).toDouble(&ok2);
        const int count = m.captured(4).toInt(&ok3);
        if (!ok1 || !ok2 || !ok3)
            return fail(QStringLiteral("expected log(from, to, count) or lin(from, to, count), got \"%1\"").arg(t));
        const QJsonObject o{{"from", from}, {"to", to}, {"count", count},
                            {"scale", m.captured(1).toLower() == QLatin1String("log") ? "log" : "linear"}};
        QString err;
        const auto values = expand(o, spec.key, &err);
        if (!values) {
            if (error)
                *error = err;
            return std::nullopt;
        }
        for (const QVariant& v : *values) {
            QString e;
            if (!ParamSchema::convert(spec, v, &e))
                return fail(e);
        }
        return QJsonValue(o);
    }
    const bool list = spec.type == ParamType::IntList || spec.type == ParamType::RealList;
    const QChar sep = list || t.contains(QLatin1Char(';')) ? QLatin1Char(';') : QLatin1Char(',');
    const QStringList items = t.split(sep, Qt::SkipEmptyParts);
    QJsonArray arr;
    for (QString item : items) {
        item = item.trimmed();
        if (item.isEmpty())
            continue;
        QVariant raw;
        switch (spec.type) {
        case ParamType::Int:
        case ParamType::Real: {
            bool ok = false;
            const double d = item.toDouble(&ok);
            if (!ok)
                return fail(QStringLiteral("\"%1\" is not a number").arg(item));
            raw = d;
            break;
        }
        case ParamType::Bool:
            if (item.compare(QLatin1String("true"), Qt::CaseInsensitive) == 0)
                raw = true;
            else if (item.compare(QLatin1String("false"), Qt::CaseInsensitive) == 0)
                raw = false;
            else
                return fail(QStringLiteral("\"%1\" is not true or false").arg(item));
            break;
        case ParamType::Choice:
        case ParamType::IntList:
        case ParamType::RealList:
        case ParamType::Text:
        case ParamType::Path:
        case ParamType::Folder:
        case ParamType::Columns:
        case ParamType::Seed:
            raw = item; // the schema reads the text (and names what is wrong with it)
            break;
        }
        QString e;
        const auto v = ParamSchema::convert(spec, raw, &e);
        if (!v)
            return fail(e);
        arr.append(QJsonValue::fromVariant(*v));
    }
    if (arr.isEmpty())
        return fail(QStringLiteral("no values"));
    if (arr.size() > maxAxisValues)
        return fail(QStringLiteral("%1 values, at most %2").arg(arr.size()).arg(maxAxisValues));
    return QJsonValue(arr);
}

QString ParamSweep::formatValues(const QJsonValue& source)
{
    if (source.isObject()) {
        const QJsonObject o = source.toObject();
        return QStringLiteral("%1(%2, %3, %4)")
            .arg(o.value("scale").toString() == QLatin1String("log") ? "log" : "lin")
            .arg(QString::number(o.value("from").toDouble(), 'g', 12))
            .arg(QString::number(o.value("to").toDouble(), 'g', 12))
            .arg(o.value("count").toInt());
    }
    QStringList parts;
    bool lists = false;
    for (const QJsonValue& v : source.toArray()) {
        if (v.isArray()) {
            lists = true;
            QStringList e;
            for (const QJsonValue& x : v.toArray())
                e << QString::number(x.toDouble(), 'g', 12);
            parts << e.join(QLatin1Char(' '));
        } else {
            parts << settingValueText(v.toVariant());
        }
    }
    return parts.join(lists ? QStringLiteral("; ") : QStringLiteral(", "));
}

} // namespace tb
