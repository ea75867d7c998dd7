#include "ClaimsFile.h"

#include "ClaimExperiment.h"
#include "ClaimMetric.h"
#include "FactPath.h"

#include <engine/ExperimentKind.h>
#include <engine/JsonPosition.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

namespace tb::repro {
namespace {

/// Reads typed keys of one JSON object, each problem a message naming the file, the key's path
/// and the value found.
class ObjectReader {
public:
    ObjectReader(const QJsonObject& o, const QString& file, const QString& path, QStringList* problems)
        : m_o(o), m_file(file), m_path(path), m_problems(problems)
    {
    }

    QString keyPath(const QString& key) const
    {
        return m_path.isEmpty() ? key : m_path + QLatin1Char('.') + key;
    }
    void problem(const QString& key, const QString& message) const
    {
        *m_problems << QStringLiteral("%1: %2: %3").arg(m_file, keyPath(key), message);
    }
    bool has(const QString& key) const { return m_o.contains(key); }
    QJsonValue value(const QString& key) const { return m_o.value(key); }

    QString string(const QString& key, bool required, const QString& def = {}) const
    {
        const QJsonValue v = m_o.value(key);
        if (v.isUndefined()) {
            if (required)
                problem(key, QStringLiteral("missing (a text is required)"));
            return def;
        }
        if (!v.isString() || (required && v.toString().trimmed().isEmpty())) {
            problem(key, QStringLiteral("expected a non-empty text, got %1").arg(jsonValueText(v)));
            return def;
        }
        return v.toString();
    }
    double number(const QString& key, bool required, double def = NAN) const
    {
        const QJsonValue v = m_o.value(key);
        if (v.isUndefined()) {
            if (required)
                problem(key, QStringLiteral("missing (a number is required)"));
            return def;
        }
        if (!v.isDouble() || !std::isfinite(v.toDouble())) {
            problem(key, QStringLiteral("expected a number, got %1").arg(jsonValueText(v)));
            return def;
        }
        return v.toDouble();
    }
    int integer(const QString& key, bool required, int def = 0) const
    {
        const QJsonValue v = m_o.value(key);
        if (v.isUndefined()) {
            if (required)
                problem(key, QStringLiteral("missing (a whole number is required)"));
            return def;
        }
        const double d = v.toDouble(NAN);
        if (!v.isDouble() || d != std::floor(d) || std::abs(d) > 1e9) {
            problem(key, QStringLiteral("expected a whole number, got %1").arg(jsonValueText(v)));
            return def;
        }
        return int(d);
    }
    QJsonObject object(const QString& key, bool required) const
    {
        const QJsonValue v = m_o.value(key);
        if (v.isUndefined()) {
            if (required)
                problem(key, QStringLiteral("missing (an object is required)"));
            return {};
        }
        if (!v.isObject()) {
            problem(key, QStringLiteral("expected an object, got %1").arg(jsonValueText(v)));
            return {};
        }
        return v.toObject();
    }
    QJsonArray array(const QString& key, bool required) const
    {
        const QJsonValue v = m_o.value(key);
        if (v.isUndefined()) {
            if (required)
                problem(key, QStringLiteral("missing (an array is required)"));
            return {};
        }
        if (!v.isArray()) {
            problem(key, QStringLiteral("expected an array, got %1").arg(jsonValueText(v)));
            return {};
        }
        return v.toArray();
    }
    /// Every key not in @p known is a problem (a typo, usually).
    void onlyKeys(const QStringList& known) const
    {
        for (auto it = m_o.begin(); it != m_o.end(); ++it)
            if (!known.contains(it.key()))
                *m_problems << QStringLiteral("%1: %2: unknown key (known: %3)")
                                   .arg(m_file, keyPath(it.key()), known.join(QStringLiteral(", ")));
    }

private:
    QJsonObject m_o;
    QString m_file;
    QString m_path;
    QStringList* m_problems;
};

// Which statistic needs which keys, and which rules fit it.
bool needsAgainst(const QString& kind)
{
    return kind == QLatin1String("win_tie_loss") || kind == QLatin1String("difference") ||
           kind == QLatin1String("time_ratio");
}

bool readsFacts(const QString& kind)
{
    return kind == QLatin1String("fact") || kind == QLatin1String("fact_ratio") ||
           kind == QLatin1String("fact_difference");
}

// A fact path key ("fact", "over"): well formed, or a problem naming it.
QString readFactPath(const ObjectReader& r, const QString& key, bool required)
{
    const QString path = r.string(key, required);
    if (!path.isEmpty() && !FactPath::isValid(path))
        r.problem(key, QStringLiteral("\"%1\" is not a fact path: keys (a letter or '_', then letters, "
                                      "digits, '_', '-') joined by '.', an array element as [i], e.g. "
                                      "\"layer_updates[0].updates\" or \"final.loss\"")
                           .arg(path));
    return path;
}

void readFactStatistic(const ObjectReader& r, ClaimStatistic* s)
{
    s->fact = readFactPath(r, QStringLiteral("fact"), true);
    if (s->kind == QLatin1String("fact")) {
        for (const char* key : {"against", "over"})
            if (r.has(key))
                r.problem(key, QStringLiteral("a \"fact\" statistic reads one fact of one configuration, "
                                              "got %1 (fact_ratio and fact_difference take it)")
                                   .arg(jsonValueText(r.value(key))));
    } else {
        if (r.has("against"))
            s->against = r.string("against", true);
        if (r.has("over"))
            s->over = readFactPath(r, QStringLiteral("over"), true);
        if (!r.has("against") && !r.has("over"))
            r.problem("over", QStringLiteral("missing: %1 compares \"%2\" with a second fact of the same run "
                                             "(\"over\": its path) or with the same fact of another "
                                             "configuration (\"against\": its name); neither is given")
                                  .arg(s->kind, s->fact));
    }
    if (r.has("metric"))
        r.problem("metric", QStringLiteral("a %1 statistic reads the run's facts, not a metric: got %2")
                                .arg(s->kind, jsonValueText(r.value("metric"))));
    s->metric.clear();
}

void readStatistic(const ObjectReader& r, ClaimStatistic* s)
{
    r.onlyKeys({"kind", "algorithm", "against", "metric", "seconds", "target", "tie_band", "x", "from",
                "sigma", "dataset", "fact", "over"});
    s->kind = r.string("kind", true);
    if (!s->kind.isEmpty() && !ClaimsFile::statisticKinds().contains(s->kind))
        r.problem("kind", QStringLiteral("unknown statistic \"%1\" (known: %2)")
                              .arg(s->kind, ClaimsFile::statisticKinds().join(QStringLiteral(", "))));
    s->algorithm = r.string("algorithm", true);
    if (readsFacts(s->kind)) {
        readFactStatistic(r, s);
        s->dataset = r.string("dataset", false);
        return;
    }
    for (const char* key : {"fact", "over"})
        if (r.has(key))
            r.problem(key, QStringLiteral("only fact, fact_ratio and fact_difference read run facts, got %1 "
                                          "with statistic \"%2\"")
                               .arg(jsonValueText(r.value(key)), s->kind));
    if (needsAgainst(s->kind))
        s->against = r.string("against", true);
    else if (r.has("against"))
        r.problem("against", QStringLiteral("only win_tie_loss, difference, time_ratio, fact_ratio and "
                                            "fact_difference compare two configurations, got %1 with "
                                            "statistic \"%2\"")
                                 .arg(jsonValueText(r.value("against")), s->kind));
    if (s->kind == QLatin1String("sweep"))
        s->metric = QStringLiteral("test_rmse");
    s->metric = r.string("metric", false, s->metric);
    if (s->kind == QLatin1String("sweep")) {
        if (s->metric != QLatin1String("test_rmse") && s->metric != QLatin1String("train_rmse"))
            r.problem(
                "metric",
                QStringLiteral("a noise sweep measures test_rmse or train_rmse, got \"%1\"").arg(s->metric));
    } else if (!ClaimMetric::fromKey(s->metric)) {
        r.problem("metric", QStringLiteral("unknown metric \"%1\" (known: %2)")
                                .arg(s->metric, ClaimMetric::keys().join(QStringLiteral(", "))));
    }
    if (s->kind == QLatin1String("at_time")) {
        s->seconds = r.number("seconds", true);
        if (std::isfinite(s->seconds) && !(s->seconds > 0))
            r.problem("seconds", QStringLiteral("expected training seconds > 0, got %1").arg(s->seconds));
    }
    if (s->kind == QLatin1String("time_to_target") || s->kind == QLatin1String("time_ratio"))
        s->target = r.number("target", true);
    if (s->kind == QLatin1String("win_tie_loss")) {
        s->tieBand = r.number("tie_band", false, 0.05);
        if (!(s->tieBand >= 0 && s->tieBand < 1))
            r.problem("tie_band", QStringLiteral("expected a number in [0, 1), got %1").arg(s->tieBand));
    }
    if (s->kind == QLatin1String("slope")) {
        s->x = r.string("x", false, s->x);
        if (s->x != QLatin1String("epoch") && s->x != QLatin1String("time"))
            r.problem("x", QStringLiteral("expected \"epoch\" or \"time\", got \"%1\"").arg(s->x));
        s->from = r.number("from", false, 0);
        if (!(s->from >= 0))
            r.problem("from", QStringLiteral("expected a number ≥ 0, got %1").arg(s->from));
    }
    if (s->kind == QLatin1String("sweep"))
        s->sigma = r.number("sigma", true);
    s->dataset = r.string("dataset", false);
}

void readVerdict(const ObjectReader& r, const ClaimStatistic& s, VerdictRule* v)
{
    r.onlyKeys({"rule", "fraction"});
    v->rule = r.string("rule", true);
    if (v->rule.isEmpty())
        return;
    if (!ClaimsFile::verdictRules().contains(v->rule)) {
        r.problem("rule", QStringLiteral("unknown verdict rule \"%1\" (known: %2)")
                              .arg(v->rule, ClaimsFile::verdictRules().join(QStringLiteral(", "))));
        return;
    }
    const bool counts = s.kind == QLatin1String("win_tie_loss");
    const bool countRule = ClaimsFile::isCountRule(v->rule);
    if (counts != countRule)
        r.problem("rule", counts
                              ? QStringLiteral("a win_tie_loss statistic is decided by \"wins_at_least\" or "
                                               "\"wins_at_most\", got \"%1\"")
                                    .arg(v->rule)
                              : QStringLiteral("\"%1\" decides a win_tie_loss statistic only, this "
                                               "claim's statistic is \"%2\"")
                                    .arg(v->rule, s.kind));
    if (countRule) {
        v->fraction = r.number("fraction", true);
        const bool atMost = v->rule == QLatin1String("wins_at_most");
        if (std::isfinite(v->fraction) &&
            !(atMost ? v->fraction >= 0 && v->fraction <= 1 : v->fraction > 0 && v->fraction <= 1))
            r.problem("fraction", QStringLiteral("expected a share of the pairs in %1, got %2")
                                      .arg(atMost ? QStringLiteral("[0, 1]") : QStringLiteral("(0, 1]"))
                                      .arg(v->fraction));
    } else if (r.has("fraction")) {
        r.problem("fraction", QStringLiteral("only \"wins_at_least\" and \"wins_at_most\" take a fraction, "
                                             "got %1 with rule \"%2\"")
                                  .arg(jsonValueText(r.value("fraction")), v->rule));
    }
}

void readOverrides(const ObjectReader& r, const QString& key, QJsonObject* out)
{
    *out = r.object(key, false);
    const QStringList known = ClaimExperiment::overrideKeys();
    for (auto it = out->begin(); it != out->end(); ++it)
        if (!known.contains(it.key()))
            r.problem(key + QLatin1Char('.') + it.key(),
                      QStringLiteral("unknown override (known: %1)").arg(known.join(QStringLiteral(", "))));
}

/// "readings": each an object {id, text}, ids unique in the file.
void readReadings(const ObjectReader& top, const QString& path, QStringList* problems, ClaimsFile* file)
{
    const QJsonArray readings = top.array("readings", false);
    for (int i = 0; i < readings.size(); ++i) {
        const QString at = QStringLiteral("readings[%1]").arg(i);
        if (!readings[i].isObject()) {
            top.problem(
                at, QStringLiteral("expected an object {id, text}, got %1").arg(jsonValueText(readings[i])));
            continue;
        }
        const ObjectReader r(readings[i].toObject(), path, at, problems);
        r.onlyKeys({"id", "text"});
        Reading reading{r.string("id", true), r.string("text", true)};
        if (!reading.id.isEmpty() && file->reading(reading.id))
            r.problem("id", QStringLiteral("\"%1\" is already the id of an earlier reading").arg(reading.id));
        file->readings << reading;
    }
}

/// A claim's "experiment": a file's path, relative to the claims file's @p folder (it must
/// exist), or an experiment object.
void readExperimentRef(const ObjectReader& r, const QDir& folder, Claim* c)
{
    const QJsonValue exp = r.value("experiment");
    if (exp.isString() && !exp.toString().isEmpty()) {
        c->experimentPath = QDir::cleanPath(folder.absoluteFilePath(exp.toString()));
        if (!QFileInfo(c->experimentPath).isFile())
            r.problem("experiment", QStringLiteral("no experiment file \"%1\" (looked for %2)")
                                        .arg(exp.toString(), c->experimentPath));
    } else if (exp.isObject()) {
        c->experimentInline = exp.toObject();
    } else {
        r.problem("experiment",
                  exp.isUndefined()
                      ? QStringLiteral("missing (an experiment file's path or an experiment object)")
                      : QStringLiteral("expected an experiment file's path or an experiment object, "
                                       "got %1")
                            .arg(jsonValueText(exp)));
    }
}

/// A claim's "n" (its seeds, at least 5 unless "n_reason" says why fewer) and "n_reason".
void readSeeds(const ObjectReader& r, Claim* c)
{
    c->n = r.integer("n", true, 0);
    c->nReason = r.string("n_reason", false);
    // Absent or not a whole number: said by integer() already.
    const bool nWhole = r.value("n").isDouble() && double(c->n) == r.value("n").toDouble();
    if (!nWhole)
        c->n = 0;
    else if (c->n < 1)
        r.problem("n", QStringLiteral("expected at least 1 seed, got %1").arg(c->n));
    else if (c->n < 5 && c->nReason.trimmed().isEmpty())
        r.problem("n", QStringLiteral(
                           "%1 seeds: a claim needs at least 5 seeds (or feature draws) for its interval, "
                           "or an \"n_reason\" saying why fewer")
                           .arg(c->n));
}

/// A claim's "readings": ids of the file's readings.
void readReadingRefs(const ObjectReader& r, const ClaimsFile& file, Claim* c)
{
    const QJsonArray refs = r.array("readings", false);
    for (int k = 0; k < refs.size(); ++k) {
        const QString id = refs[k].toString();
        if (!refs[k].isString() || !file.reading(id))
            r.problem(
                QStringLiteral("readings[%1]").arg(k),
                QStringLiteral("no reading %1 in this file (readings: %2)").arg(jsonValueText(refs[k]), [&] {
                    QStringList all;
                    for (const Reading& rd : file.readings)
                        all << rd.id;
                    return all.isEmpty() ? QStringLiteral("none") : all.join(QStringLiteral(", "));
                }()));
        else
            c->readings << id;
    }
}

/// A claim's "quick": true, false, or an object {n, overrides, note}.
void readQuick(const ObjectReader& r, const QString& path, QStringList* problems, Claim* c)
{
    const QJsonValue quick = r.value("quick");
    if (quick.isBool()) {
        c->quick.included = quick.toBool();
    } else if (quick.isObject()) {
        c->quick.included = true;
        const ObjectReader q(quick.toObject(), path, r.keyPath("quick"), problems);
        q.onlyKeys({"n", "overrides", "note"});
        c->quick.n = q.integer("n", false, 0);
        if (q.has("n") && c->quick.n < 1)
            q.problem("n", QStringLiteral("expected at least 1 seed, got %1").arg(c->quick.n));
        readOverrides(q, QStringLiteral("overrides"), &c->quick.overrides);
        c->quick.note = q.string("note", false);
    } else if (!quick.isUndefined()) {
        r.problem("quick", QStringLiteral("expected true, false or an object {n, overrides, note}, got %1")
                               .arg(jsonValueText(quick)));
    }
}

/// Claim @p o, at "claims[@p at]" of the file: its texts, figure, experiment and overrides,
/// statistic, verdict, seeds, readings and quick variant; @p ids are the claims' ids so far.
Claim readClaim(const QJsonObject& o, const QString& at, const QString& path, const QDir& folder,
                const ClaimsFile& file, QSet<QString>* ids, QStringList* problems)
{
    Claim c;
    c.id = o.value("id").toString();
    // Messages name the claim by its id when it has one: the path alone is hard to find.
    c.jsonPath = c.id.isEmpty() ? at : QStringLiteral("%1 (\"%2\")").arg(at, c.id);
    const ObjectReader r(o, path, c.jsonPath, problems);
    r.onlyKeys({"id", "quote", "where", "figure", "experiment", "overrides", "statistic", "n", "n_reason",
                "verdict", "readings", "data", "quick", "note"});
    c.id = r.string("id", true);
    if (!c.id.isEmpty() && ids->contains(c.id))
        r.problem("id", QStringLiteral("\"%1\" is already the id of an earlier claim").arg(c.id));
    ids->insert(c.id);
    c.quote = r.string("quote", true);
    c.where = r.string("where", false);
    c.data = r.string("data", false);
    c.note = r.string("note", false);

    const ObjectReader fig(r.object("figure", true), path, r.keyPath("figure"), problems);
    if (r.value("figure").isObject()) {
        fig.onlyKeys({"value", "unit"});
        c.figure.value = fig.number("value", true);
        c.figure.unit = fig.string("unit", true);
    }
    readExperimentRef(r, folder, &c);
    readOverrides(r, QStringLiteral("overrides"), &c.overrides);

    if (r.value("statistic").isObject())
        readStatistic(ObjectReader(r.object("statistic", true), path, r.keyPath("statistic"), problems),
                      &c.statistic);
    else
        r.object("statistic", true);
    if (r.value("verdict").isObject())
        readVerdict(ObjectReader(r.object("verdict", true), path, r.keyPath("verdict"), problems),
                    c.statistic, &c.verdict);
    else
        r.object("verdict", true);

    readSeeds(r, &c);
    readReadingRefs(r, file, &c);
    readQuick(r, path, problems, &c);
    return c;
}

} // namespace

QStringList ClaimsFile::statisticKinds()
{
    return {"final", "at_time", "time_to_target", "time_ratio", "win_tie_loss",   "difference",
            "slope", "sweep",   "fact",           "fact_ratio", "fact_difference"};
}

bool ClaimsFile::isCountRule(const QString& rule)
{
    return rule == QLatin1String("wins_at_least") || rule == QLatin1String("wins_at_most");
}

QStringList ClaimsFile::verdictRules()
{
    return {"mean_ci_contains_or_exceeds",
            "mean_ci_contains_or_below",
            "mean_ci_contains",
            "mean_ci_above",
            "mean_ci_below",
            "ratio_at_least",
            "wins_at_least",
            "wins_at_most"};
}

const Reading* ClaimsFile::reading(const QString& id) const
{
    for (const Reading& r : readings)
        if (r.id == id)
            return &r;
    return nullptr;
}

std::optional<ClaimsFile> ClaimsFile::fromFile(const QString& path, QStringList* problems)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *problems << QStringLiteral("%1: cannot open: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    return fromJson(f.readAll(), QFileInfo(path).absoluteFilePath(), problems);
}

std::optional<ClaimsFile> ClaimsFile::fromJson(const QByteArray& json, const QString& path,
                                               QStringList* problems)
{
    const int before = int(problems->size());
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *problems << QStringLiteral("%1:%2: %3").arg(path, JsonPosition::lineColumn(json, pe.offset), pe.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *problems << QStringLiteral("%1: the top level must be a JSON object").arg(path);
        return std::nullopt;
    }
    ClaimsFile file;
    file.path = path;
    const QDir folder = QFileInfo(path).absoluteDir();
    const ObjectReader top(doc.object(), path, {}, problems);
    top.onlyKeys({"paper", "title", "citation", "description", "readings", "claims"});
    file.paper = top.string("paper", true);
    static const QRegularExpression paperName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_-]*$"));
    if (!file.paper.isEmpty() && !paperName.match(file.paper).hasMatch())
        top.problem("paper",
                    QStringLiteral("names the report's file: letters, digits, '-' and '_' only, got \"%1\"")
                        .arg(file.paper));
    file.title = top.string("title", true);
    file.citation = top.string("citation", false);

    readReadings(top, path, problems, &file);

    const QJsonArray claims = top.array("claims", true);
    if (top.has("claims") && top.value("claims").isArray() && claims.isEmpty())
        top.problem("claims", QStringLiteral("expected at least one claim, got an empty array"));
    QSet<QString> ids;
    for (int i = 0; i < claims.size(); ++i) {
        const QString at = QStringLiteral("claims[%1]").arg(i);
        if (!claims[i].isObject()) {
            top.problem(at, QStringLiteral("expected an object, got %1").arg(jsonValueText(claims[i])));
            continue;
        }
        file.claims << readClaim(claims[i].toObject(), at, path, folder, file, &ids, problems);
    }
    if (problems->size() > before)
        return std::nullopt;
    return file;
}

} // namespace tb::repro
