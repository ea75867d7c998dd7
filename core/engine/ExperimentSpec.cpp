#include "ExperimentSpec.h"

#include "ExperimentKind.h"

#include "HostBudget.h"
#include "JsonDuplicateKeys.h"
#include "JsonPosition.h"
#include "PluginRegistry.h"
#include "PreparedConfiguration.h"
#include "Suite.h"

#include <data/DataSource.h>
#include <data/DataSourceRegistry.h>

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
    ParamSpec format = ParamSpec::make(QStringLiteral("format"), QStringLiteral("Parameter format"), ParamType::Int,
                                       QVariant(), 1, kParamsFormat);
    format.help = QStringLiteral("What the algorithms' parameters mean (docs/parameters.md): the workbench writes %1; a "
                                 "file without it was written before parameter formats (1), and its values are "
                                 "converted when it is read, each with a note.")
                      .arg(kParamsFormat);
    s.add(format.absentMeans(QStringLiteral("1")));
    // The budget's keys (HostBudget reads them, also from an algorithm entry): seconds > 0, or absent.
    ParamSpec budget = ParamSpec::make(QString::fromLatin1(kBudgetSecondsKey), QStringLiteral("Time budget (s)"),
                                       ParamType::Real, QVariant(), 0, std::numeric_limits<double>::infinity());
    budget.exclusiveMinimum = true;
    budget.help = QStringLiteral("Training time of each run on time_budget_clock; absent: no budget.");
    s.add(budget.absentMeans(QStringLiteral("no budget")));
    s.add(ParamSpec::choice(QString::fromLatin1(kBudgetClockKey), QStringLiteral("Budget clock"),
                            {QStringLiteral("wall"), QStringLiteral("cpu")}, QStringLiteral("wall"),
                            QStringLiteral("The clock of time_budget_s: \"wall\" (training time) or \"cpu\" (the "
                                           "process's CPU time while the run trains: every thread of it).")));
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
            *error = QStringLiteral("%1:%2: %3").arg(sourceName, JsonPosition::lineColumn(json, pe.offset), pe.errorString());
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

namespace {

// The file's data: one "dataset", or a suite's "datasets" or "suite" (exactly one of the three),
// and a suite set's "suite_set".
template <class Fail>
void readDatasets(const QJsonObject& o, const QString& sourceName, ExperimentSpec& s, const Fail& fail)
{
    const QStringList given = [&] {
        QStringList keys;
        for (const char* k : {"dataset", "datasets", "suite"})
            if (o.contains(QLatin1String(k)))
                keys << QString::fromLatin1(k);
        return keys;
    }();
    if (given.size() > 1) {
        fail(given.join(QStringLiteral(" and ")),
             QStringLiteral("give one of \"dataset\" (one data set), \"datasets\" or \"suite\" (several), not %1")
                 .arg(given.size() == 2 ? QStringLiteral("both") : QStringLiteral("all three")));
        return;
    }
    if (o.contains(QStringLiteral("suite_set"))) {
        QString message;
        if (!Suite::placeFromJson(o.value(QStringLiteral("suite_set")), &s.suitePlace, &message))
            fail(QStringLiteral("suite_set"), message);
    }
    if (o.contains(QStringLiteral("datasets"))) {
        QString key, message;
        if (!Suite::readArray(o.value(QStringLiteral("datasets")), sourceName, &s.suite, &key, &message))
            fail(key, message);
        s.suiteName = o.value(QStringLiteral("name")).toString();
    } else if (o.contains(QStringLiteral("suite"))) {
        const QJsonValue v = o.value(QStringLiteral("suite"));
        if (!v.isString() || v.toString().isEmpty()) {
            fail(QStringLiteral("suite"), QStringLiteral("expected the path of a suite file (e.g. \"../suites/teaching.json\"), "
                                                         "got %1").arg(jsonValueText(v)));
            return;
        }
        s.suiteFile = v.toString();
        const QString base = QFileInfo(sourceName).absolutePath();
        const QString path = QFileInfo(s.suiteFile).isAbsolute() ? s.suiteFile : base + QLatin1Char('/') + s.suiteFile;
        QString error;
        if (!Suite::readFile(path, &s.suiteName, &s.suite, &error))
            fail(QStringLiteral("suite"), error);
    } else if (!o.value(QStringLiteral("dataset")).isObject()) {
        fail(QStringLiteral("dataset"), QStringLiteral("expected an object such as {\"source\": \"moons\"} (or \"datasets\": [...] "
                                                       "for several), got %1").arg(jsonValueText(o.value("dataset"))));
        return;
    }
    if (s.suite.isEmpty()) {
        s.dataset = o.value(QStringLiteral("dataset")).toObject();
        return;
    }
    if (s.suitePlace.isSet())
        fail(QStringLiteral("suite_set"), QStringLiteral("a suite's set has one \"dataset\", not several"));
    for (const QString& problem : Suite::problems(s.suite))
        fail(given.value(0), problem);
    s.dataset = s.suite.first().dataset;
}

} // namespace

std::optional<ExperimentSpec> ExperimentSpec::fromObject(const QJsonObject& o, const QString& sourceName, QString* error)
{
    // Every problem the structure lets us find, one line each ("FILE: key: message"): a file with
    // five mistakes is fixed in one go, not in five rounds.
    QStringList problems;
    auto fail = [&](const QString& key, const QString& message) {
        problems << QStringLiteral("%1: %2: %3").arg(sourceName, key, message);
    };
    ExperimentSpec s;
    // The kind first: its keys join the common ones.
    const QJsonValue kindValue = o.value("kind");
    const ExperimentKind* kind = kindValue.isString() ? ExperimentKinds::find(kindValue.toString()) : nullptr;
    if (!kind) {
        QStringList ids;
        for (const QString& id : ExperimentKinds::ids())
            ids << QLatin1Char('"') + id + QLatin1Char('"');
        fail("kind", QStringLiteral("expected one of %1, got %2").arg(ids.join(", "), jsonValueText(kindValue)));
    }
    // The budget's own reader first: its messages say what a budget is ("expected seconds > 0 (leave
    // the key out for no budget)"), the same for the file's budget and an algorithm entry's.
    HostBudget::Error budgetError;
    if (const auto b = HostBudget::fromJson(o, &budgetError)) {
        s.timeBudgetSeconds = b->seconds;
        s.timeBudgetClock = b->clock;
    } else if (!budgetError.key.isEmpty()) {
        fail(budgetError.key, budgetError.message);
    }
    // Without a kind its keys are unknown: the top-level keys are checked once the kind is right.
    if (kind) {
        ParamSchema keys = schema();
        keys.append(kind->keys());
        ParamContext ctx;
        ctx.keyNames = ParamContext::KeyNames::Path;
        ctx.owner = QStringLiteral("kind \"%1\"").arg(kind->id());
        ctx.otherKeys = QStringList{QStringLiteral("dataset"), QStringLiteral("datasets"), QStringLiteral("suite"),
                                    QStringLiteral("suite_set"), QStringLiteral("algorithms")} +
                        kind->sectionKeys();
        // normalise() stops at the first problem: the key at fault is set aside and the rest
        // checked again, until no problem is left or the problem is not one key's.
        QVariantMap given = o.toVariantMap();
        for (const char* budgetKey : {kBudgetSecondsKey, kBudgetClockKey})
            if (!budgetError.key.isEmpty() && budgetError.key == QLatin1String(budgetKey))
                given.remove(QString::fromLatin1(budgetKey));
        std::optional<QVariantMap> top;
        for (int round = 0; round < 64; ++round) {
            QString message, faultKey;
            top = keys.normalise(given, &message, nullptr, ctx, &faultKey);
            if (top)
                break;
            problems << QStringLiteral("%1: %2").arg(sourceName, message);
            if (faultKey.isEmpty() || !given.contains(faultKey))
                break;
            given.remove(faultKey);
        }
        if (top && problems.isEmpty()) {
            s.kind = kind->id();
            s.name = top->value("name").toString();
            s.description = top->value("description").toString();
            s.seed = top->contains("seed") ? top->value("seed").toULongLong() : 1;
            s.threads = int(top->value("threads").toLongLong());
            s.paramsFormat = top->contains("format") ? int(top->value("format").toLongLong()) : 1;
            // keys() returns a schema by value: held here, so that the loop does not read a destroyed one.
            const ParamSchema kindKeys = kind->keys();
            for (const ParamSpec& k : kindKeys.specs())
                s.settings.insert(k.key, top->value(k.key));
            s.repeats = int(s.settings.value("repeats", 1).toLongLong());
            s.firstRepeat = int(s.settings.value("first_repeat", 0).toLongLong());
        }
    }

    readDatasets(o, sourceName, s, fail);

    const QJsonValue algs = o.value("algorithms");
    if (!algs.isArray() || algs.toArray().isEmpty())
        fail("algorithms",
             QStringLiteral("expected a non-empty array of {\"id\": ..., \"params\": {...}}, got %1").arg(jsonValueText(algs)));
    const QJsonArray arr = algs.toArray();
    for (int i = 0; i < arr.size(); ++i) {
        const QString path = QStringLiteral("algorithms[%1]").arg(i);
        if (!arr[i].isObject()) {
            fail(path, QStringLiteral("expected an object, got %1").arg(jsonValueText(arr[i])));
            continue;
        }
        const QJsonObject a = arr[i].toObject();
        const QStringList common{QStringLiteral("id"), QStringLiteral("label"), QStringLiteral("params"),
                                 QString::fromLatin1(kBudgetSecondsKey), QString::fromLatin1(kBudgetClockKey)};
        const QStringList ofKind = kind ? kind->algorithmKeys() : QStringList{};
        AlgorithmRun r;
        for (auto it = a.begin(); it != a.end(); ++it) {
            if (ofKind.contains(it.key()))
                r.kindKeys.insert(it.key(), it.value());
            else if (!common.contains(it.key()) && kind)
                fail(path + "." + it.key(), QStringLiteral("unknown key (known: %1)").arg((common + ofKind).join(", ")));
        }
        r.id = a.value("id").toString();
        if (r.id.isEmpty())
            fail(path + ".id", QStringLiteral("expected an algorithm id string, got %1").arg(jsonValueText(a.value("id"))));
        r.label = a.value("label").toString();
        if (a.contains("params") && !a.value("params").isObject())
            fail(path + ".params", QStringLiteral("expected an object, got %1").arg(jsonValueText(a.value("params"))));
        r.params = a.value("params").toObject().toVariantMap();
        HostBudget::Error budgetError;
        r.budget = HostBudget::fromJson(a, &budgetError);
        if (!budgetError.key.isEmpty())
            fail(path + "." + budgetError.key, budgetError.message);
        s.algorithms << r;
    }

    if (kind && problems.isEmpty()) {
        // The kind's section reads a structure checked above.
        QString key, message;
        if (!kind->parseSection(o, s, &key, &message))
            fail(key, message);
    }
    if (!problems.isEmpty()) {
        if (error)
            *error = problems.join(QLatin1Char('\n'));
        return std::nullopt;
    }
    return s;
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
    // A data source's former id ("bpls-toy") becomes its id ("bpls_toy"): the same source.
    const auto renameSource = [&](QJsonObject& set, const QString& key) {
        const QString given = set.value(QStringLiteral("source")).toString();
        if (const data::DataSourceEntry* e = data::DataSourceRegistry::find(given); e && e->info.id != given) {
            notes << QStringLiteral("%1: %2.source \"%3\" is deprecated: it is now \"%4\"").arg(src, key, given, e->info.id);
            set.insert(QStringLiteral("source"), e->info.id);
        }
    };
    if (isSuite()) {
        for (SuiteSet& set : suite)
            renameSource(set.dataset, set.origin.section(QStringLiteral(": "), -1));
        dataset = suite.first().dataset;
    } else {
        renameSource(dataset, QStringLiteral("dataset"));
    }
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
        a.params = e->info.schema.upgrade(a.params, &mine, paramsFormat);
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
    // The kind's values of parameters (a sweep's, a search range's) were written in the file's
    // format too.
    if (paramsFormat < kParamsFormat)
        if (const ExperimentKind* k = ExperimentKinds::find(kind)) {
            QStringList mine;
            k->upgradeFormat(*this, registry, paramsFormat, &mine);
            for (const QString& n : std::as_const(mine))
                notes << QStringLiteral("%1: %2").arg(src, n);
        }
    paramsFormat = kParamsFormat;
    return notes;
}

QStringList ExperimentSpec::validate(const PluginRegistry& registry) const
{
    // Values of an earlier parameter format are checked as they will run: converted.
    if (paramsFormat < kParamsFormat) {
        ExperimentSpec current = *this;
        const QStringList notes = current.upgradeParams(registry);
        QStringList problems = current.validate(registry);
        // A problem with a converted value also says what the file wrote.
        for (QString& problem : problems)
            for (int i = 0; i < algorithms.size(); ++i) {
                const QString entry = QStringLiteral("algorithms[%1]").arg(i);
                if (!problem.contains(entry + QLatin1Char('.')))
                    continue;
                for (const QString& note : notes)
                    if (note.contains(entry + QStringLiteral(" (")) && note.contains(QStringLiteral("parameter format")))
                        problem += QStringLiteral(" (") + note.section(QStringLiteral("): "), 1) + QLatin1Char(')');
            }
        return problems;
    }
    if (isSuite())
        return Suite::validate(*this, registry);
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
        // Prepared as the runs will use it (PluginRegistry::prepared(): once for the checks and
        // the runs). The plugin's create() is asked too, for a combination the schema cannot
        // express (an order within a list, one key replacing another): a bad file is refused
        // before anything runs rather than stored as a failed run.
        const auto prepared = registry.prepared(a.id, a.params);
        using Problem = PreparedConfiguration::Problem;
        switch (prepared->problem()) {
        case Problem::None:
        case Problem::UnknownAlgorithm: // registry.algorithm() knew it: cannot happen
            break;
        case Problem::Budget:
            problems << QStringLiteral("%1: %2.params.%3: %4").arg(src, path, prepared->problemKey(), prepared->budgetProblem());
            break;
        case Problem::Parameters:
        case Problem::Plugin:
            problems << QStringLiteral("%1: %2.params: %3").arg(src, path, prepared->error());
            break;
        case Problem::NoTrainer:
            problems << QStringLiteral("%1: %2.id: %3").arg(src, path, prepared->error());
            break;
        }
        const std::optional<RunBudget>& own = prepared->ownBudget();
        const std::optional<RunBudget> mine = own ? own : a.budget;
        if (mine && mine->clock == ClockKind::Cpu)
            if (const QString p = cpuBudgetProblem(src, path + "." + QLatin1String(kBudgetClockKey)); !p.isEmpty())
                problems << p;
        if (task && classification && !e->info.classification)
            problems << QStringLiteral("%1: %2.id: \"%3\" does not do classification").arg(src, path, a.id);
        if (task && !classification && !e->info.regression)
            problems << QStringLiteral("%1: %2.id: \"%3\" does not do regression").arg(src, path, a.id);
    }
    if (budget().isSet() && budget().clock == ClockKind::Cpu)
        if (const QString p = cpuBudgetProblem(src, QString::fromLatin1(kBudgetClockKey)); !p.isEmpty())
            problems << p;
    if (const ExperimentKind* k = ExperimentKinds::find(kind))
        for (const QString& p : k->validate(*this, registry))
            problems << QStringLiteral("%1: %2").arg(src, p);
    else
        problems << QStringLiteral("%1: kind: unknown kind \"%2\" (known: %3)").arg(src, kind, ExperimentKinds::ids().join(", "));
    return problems;
}

QJsonObject ExperimentSpec::toJson() const
{
    QJsonObject o{{"name", name}, {"kind", kind}};
    if (!suiteFile.isEmpty()) {
        o.insert("suite", suiteFile);
    } else if (isSuite()) {
        QJsonArray sets;
        for (const SuiteSet& set : suite)
            sets.append(QJsonObject{{"name", set.name}, {"dataset", set.dataset}});
        o.insert("datasets", sets);
    } else {
        o.insert("dataset", dataset);
    }
    if (suitePlace.isSet())
        o.insert("suite_set", Suite::placeToJson(suitePlace));
    if (!description.isEmpty())
        o.insert("description", description);
    QJsonArray algs;
    for (const auto& a : algorithms) {
        QJsonObject ao{{"id", a.id}, {"params", QJsonObject::fromVariantMap(a.params)}};
        if (!a.label.isEmpty())
            ao.insert("label", a.label);
        if (a.budget)
            HostBudget::toJson(*a.budget, ao);
        for (auto it = a.kindKeys.begin(); it != a.kindKeys.end(); ++it)
            ao.insert(it.key(), it.value());
        algs.append(ao);
    }
    o.insert("algorithms", algs);
    // Seeds beyond 2^53 do not survive a JSON double.
    if (seed < (std::uint64_t(1) << 53))
        o.insert("seed", double(seed));
    else
        o.insert("seed", QString::number(seed));
    o.insert("threads", effectiveThreads());
    o.insert("format", paramsFormat);
    HostBudget::toJson(budget(), o);
    if (const ExperimentKind* k = ExperimentKinds::find(kind))
        k->write(*this, o);
    return o;
}

QString ExperimentSpec::cpuBudgetProblem(const QString& src, const QString& key) const
{
    const ExperimentKind* k = ExperimentKinds::find(kind);
    const QString why = k ? k->sideBySide(*this) : QString();
    if (why.isEmpty())
        return {};
    return QStringLiteral("%1: %2: a budget on the cpu clock needs one run at a time in the process (the process's "
                          "CPU time is then the run's); this %3 cannot tell its runs' CPU time apart (%4), or use \"wall\"")
        .arg(src, key, kind, why);
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
