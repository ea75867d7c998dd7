#include "CompareCommand.h"
#include "CliStreams.h"

#include <engine/AcrossSetsTables.h>
#include <engine/Comparison.h>
#include <engine/SelectionCurves.h>
#include <engine/ComparisonTables.h>
#include <engine/StoredRuns.h>
#include <store/RunStore.h>

#include <QCommandLineParser>
#include <QSaveFile>
#include <QTextStream>

#include <cmath>

namespace tb::cli {
namespace {

int usage(const QString& message)
{
    err() << "trainbench-cli compare: " << message << "\n"
                << "usage: trainbench-cli compare ID [ID ...] | --suite NAME  [--db FILE] [--metric KEY] [--baseline NAME] [--configurations A,B]\n"
                   "         [--test t|wilcoxon] [--alpha A] [--tie-band B] [--confidence C] [--target T] [--at T1,T2]\n"
                   "         [--control NAME] [--rope R] [--tables sets,ranks,holm,vs-control,tuning,selection,matrix,pairs,grid,time,at,frontier]\n"
                   "         [--format text|csv|markdown|latex] [--output FILE]\n";
    err().flush();
    return Usage;
}

std::optional<double> fraction(const QCommandLineParser& p, const QString& name, double def, bool open, QString* error)
{
    if (!p.isSet(name))
        return def;
    bool ok = false;
    const double v = p.value(name).toDouble(&ok);
    const bool inRange = open ? (v > 0 && v < 1) : (v >= 0 && v < 1);
    if (!ok || !inRange) {
        *error = QStringLiteral("--%1: expected a number in %2, got \"%3\"")
                     .arg(name, open ? QStringLiteral("(0, 1)") : QStringLiteral("[0, 1)"), p.value(name));
        return std::nullopt;
    }
    return v;
}

TextTable frontierTable(const QList<FrontierPoint>& points, MetricId metric, MetricId selection)
{
    const bool validation = selection != metric;
    QStringList header{QStringLiteral("configuration"), QStringLiteral("data set"), QStringLiteral("seed"),
                       QStringLiteral("training time"), RunMetric::label(metric)};
    if (validation)
        header << RunMetric::label(selection);
    header << QStringLiteral("Pareto front");
    TextTable t(header);
    t.setTitle(QStringLiteral("Every run: %1 against training time").arg(RunMetric::label(metric)));
    for (int c = 2; c < header.size() - 1; ++c)
        t.setAlign(c, TextTable::Align::Right);
    for (const FrontierPoint& f : points) {
        QStringList row{f.configuration, f.dataset, QString::number(f.seed),
                        RunMetric::format(MetricId::TrainSeconds, f.seconds), RunMetric::format(metric, f.value)};
        if (validation)
            row << RunMetric::format(selection, f.selectionValue);
        row << (f.onFront ? QStringLiteral("yes") : QString());
        t.addRow(row);
    }
    t.addNote(validation ? QStringLiteral("Pareto front, decided on %1: no run of the same data set is both faster and "
                                          "at least as good there; %2 is reported.")
                               .arg(RunMetric::label(selection), RunMetric::label(metric))
                         : QStringLiteral("Pareto front: no run of the same data set is both faster and at least as good."));
    if (!validation && RunMetric::validationOf(metric))
        t.addNote(QStringLiteral("selected on test data: the runs have no validation split (give the data set "
                                 "\"validation_fraction\")."));
    return t;
}

} // namespace

QString gridSummary(const ExperimentResult& result)
{
    const MetricId metric = RunMetric::defaultFor(result.curves);
    const auto samples = Comparison::samples(result.curves, metric);
    // A tuned comparison: how each algorithm was tuned and what was chosen, then its configurations.
    const QString tuning = result.selection.isEmpty() ? QString()
                                                      : SelectionCurves::table(result).render(TextTable::Format::Text) + "\n";
    return tuning + ComparisonTables::grid(Comparison::grid(samples), metric).render(TextTable::Format::Text);
}

namespace {

// `compare` in steps, one a method: the options read and checked, the stored curves loaded and
// chosen, the metric and the tables chosen, each table rendered, the text written.
class CompareRun {
public:
    // The options of `compare`, parsed from @p args.
    explicit CompareRun(const QStringList& args)
    {
        m_p.setApplicationDescription("Compare the configurations of stored experiments over seeds.");
        m_p.addHelpOption();
        m_p.addPositionalArgument("id", "Experiment id(s) (see `trainbench-cli runs`); several ids add their data sets as columns.");
        m_p.addOption({"db", "Run database.", "file"});
        m_p.addOption({"metric", "Metric: " + RunMetric::keys().join(", ") + " (default: test accuracy, else test RMSE).", "key"});
        m_p.addOption({"baseline", "Configuration the others are tested against (default: the first).", "name"});
        m_p.addOption({"configurations", "Compare only these configurations (comma-separated names, in this order).", "list"});
        m_p.addOption({"test", "Test behind the matrix markers: t (paired t-test, default) or wilcoxon.", "name"});
        m_p.addOption({"alpha", "Significance level of the markers, (0, 1) (default 0.05).", "a"});
        m_p.addOption({"tie-band", "Relative tie band of win/tie/loss, [0, 1) (default 0.05).", "b"});
        m_p.addOption({"confidence", "Confidence of the intervals, (0, 1) (default 0.95).", "c"});
        m_p.addOption({"target", "Target of time-to-target (default: the best value every run reaches).", "value"});
        m_p.addOption({"at", "Common training times of the \"at\" table, seconds, comma-separated (default 1,10,30,150).",
                       "list"});
        m_p.addOption({"tables", "Tables to print, comma-separated: tuning, selection, matrix, pairs, grid, time, at, "
                                 "frontier (default: selection,matrix,pairs,time,at, with tuning first for a tuned "
                                 "comparison and grid for a param sweep).", "list"});
        m_p.addOption({"suite", "Compare the newest stored run of each set of suite NAME (instead of ids).", "name"});
        m_p.addOption({"control", "Across data sets: the configuration Holm's procedure and the pair tests compare against "
                                  "(default: the best average rank).", "name"});
        m_p.addOption({"rope", "Across data sets: half-width of the Bayesian test's region of practical equivalence, in the "
                               "metric's units (default 0.01: one point of accuracy; 1 % of the median score otherwise).", "r"});
        m_p.addOption({"format", "text (default), csv, markdown or latex.", "name"});
        m_p.addOption({"output", "Write to FILE instead of standard output.", "file"});
        m_p.process(args);
    }

    // The steps in order; returns the CLI's exit code.
    int run()
    {
        if (const int code = readOptions(); code != Ok)
            return code;
        if (const int code = loadCurves(); code != Ok)
            return code;
        if (const int code = keepConfigurations(); code != Ok)
            return code;
        if (const int code = chooseMetric(); code != Ok)
            return code;
        if (const int code = chooseTables(); code != Ok)
            return code;
        return write(renderTables());
    }

private:
    // The ids, --format, --test and the numbers of the statistics; Ok or usage()'s code.
    int readOptions()
    {
        if (m_p.positionalArguments().isEmpty() && !m_p.isSet("suite"))
            return usage(QStringLiteral("give at least one experiment id, or --suite NAME"));
        if (!m_p.positionalArguments().isEmpty() && m_p.isSet("suite"))
            return usage(QStringLiteral("give experiment ids or --suite NAME, not both"));
        if (m_p.isSet("rope")) {
            bool ok = false;
            m_rope = m_p.value("rope").toDouble(&ok);
            if (!ok || !(m_rope >= 0) || !std::isfinite(m_rope))
                return usage(QStringLiteral("--rope: expected a number ≥ 0, got \"%1\"").arg(m_p.value("rope")));
        }
        for (const QString& a : m_p.positionalArguments()) {
            bool ok = false;
            const qint64 id = a.toLongLong(&ok);
            if (!ok || id < 0)
                return usage(QStringLiteral("\"%1\" is not an experiment id").arg(a));
            m_ids << id;
        }
        const auto format =
            TextTable::formatFromName(m_p.value("format").isEmpty() ? QStringLiteral("text") : m_p.value("format"));
        if (!format)
            return usage(QStringLiteral("--format: expected text, csv, markdown or latex, got \"%1\"").arg(m_p.value("format")));
        m_format = *format;
        if (m_p.isSet("test")) {
            if (m_p.value("test") == QLatin1String("wilcoxon"))
                m_test = SignificanceTest::Wilcoxon;
            else if (m_p.value("test") != QLatin1String("t"))
                return usage(QStringLiteral("--test: expected t or wilcoxon, got \"%1\"").arg(m_p.value("test")));
        }
        QString error;
        const auto alpha = fraction(m_p, "alpha", 0.05, true, &error);
        const auto band = fraction(m_p, "tie-band", 0.05, false, &error);
        const auto confidence = fraction(m_p, "confidence", 0.95, true, &error);
        if (!alpha || !band || !confidence)
            return usage(error);
        m_alpha = *alpha;
        m_band = *band;
        m_confidence = *confidence;
        if (m_p.isSet("target")) {
            bool ok = false;
            m_target = m_p.value("target").toDouble(&ok);
            if (!ok || !std::isfinite(m_target))
                return usage(QStringLiteral("--target: expected a number, got \"%1\"").arg(m_p.value("target")));
        }
        return Ok;
    }

    // Opens the store and reads each experiment's curves (several ids: their data sets side by side).
    int loadCurves()
    {
        QString error;
        const QString dbPath = m_p.value("db").isEmpty() ? RunStore::defaultPath() : m_p.value("db");
        auto store = RunStore::open(dbPath, &error);
        if (!store) {
            err() << "trainbench-cli: " << error << Qt::endl;
            return Database;
        }
        if (m_p.isSet("suite") && !suiteIds(*store, m_p.value("suite"), &error))
            return usage(error);
        for (qint64 id : m_ids) {
            const auto result = tb::StoredRuns::experiment(*store, id, &error);
            if (!result)
                return usage(error);
            if (!result->summary.isEmpty())
                return usage(QStringLiteral("experiment %1 is a %2: its cells are aggregated, not stored as runs "
                                            "to compare (use `export`)")
                                 .arg(id)
                                 .arg(result->kind));
            m_sweep = m_sweep || !result->variedKeys.isEmpty();
            m_curves << result->curves;
            m_tuning.selection << result->selection;
        }
        return Ok;
    }

    // --suite NAME: the newest stored experiment of each of the suite's sets, in set order.
    bool suiteIds(const RunStore& store, const QString& suite, QString* error)
    {
        QString readError;
        const QList<ExperimentRecord> all = store.experiments(&readError);
        if (!readError.isEmpty()) {
            *error = readError;
            return false;
        }
        QMap<int, qint64> newest;
        QStringList suites;
        for (const ExperimentRecord& e : all) {
            const QJsonObject place = e.spec.value(QStringLiteral("suite_set")).toObject();
            const QString name = place.value(QStringLiteral("suite")).toString();
            if (!name.isEmpty() && !suites.contains(name))
                suites << name;
            if (name == suite)
                newest[place.value(QStringLiteral("index")).toInt()] = std::max(newest.value(place.value("index").toInt(), -1), e.id);
        }
        if (newest.isEmpty()) {
            *error = QStringLiteral("--suite: %1 holds no set of a suite \"%2\" (suites there: %3)")
                         .arg(store.path(), suite, suites.isEmpty() ? QStringLiteral("none") : suites.join(", "));
            return false;
        }
        m_ids = newest.values();
        return true;
    }

    // --configurations: keeps the named configurations in the order given; a name that matches
    // nothing is a typo.
    int keepConfigurations()
    {
        if (!m_p.isSet("configurations"))
            return Ok;
        const QStringList wanted = m_p.value("configurations").split(QLatin1Char(','), Qt::SkipEmptyParts);
        QList<AlgorithmCurves> kept;
        for (QString name : wanted) {
            name = name.trimmed();
            bool found = false;
            for (const AlgorithmCurves& c : m_curves)
                if ((c.configuration.isEmpty() ? c.label : c.configuration) == name) {
                    kept << c;
                    found = true;
                }
            if (!found) {
                QStringList names;
                for (const AlgorithmCurves& c : m_curves)
                    if (const QString n = c.configuration.isEmpty() ? c.label : c.configuration; !names.contains(n))
                        names << n;
                return usage(QStringLiteral("--configurations: no configuration \"%1\" (configurations: %2)")
                                 .arg(name, names.join(", ")));
            }
        }
        m_curves = kept;
        return Ok;
    }

    // The metric (--metric or the curves' default), its samples, and the baseline they are tested against.
    int chooseMetric()
    {
        m_metric = RunMetric::defaultFor(m_curves);
        if (m_p.isSet("metric")) {
            const auto m = RunMetric::fromKey(m_p.value("metric"));
            if (!m)
                return usage(QStringLiteral("--metric: expected one of %1, got \"%2\"")
                                 .arg(RunMetric::keys().join(", "), m_p.value("metric")));
            m_metric = *m;
        }
        m_samples = Comparison::samples(m_curves, m_metric);
        int finished = 0;
        for (const auto& s : m_samples)
            finished += int(s.values.size());
        if (finished == 0) {
            err() << "trainbench-cli compare: no finished runs in experiment(s) "
                  << m_p.positionalArguments().join(", ") << Qt::endl;
            return Invalid;
        }
        const QStringList names = Comparison::configurations(m_samples);
        m_baseline = m_p.value("baseline");
        if (!m_baseline.isEmpty() && !names.contains(m_baseline))
            return usage(QStringLiteral("--baseline: no configuration \"%1\" (configurations: %2)")
                             .arg(m_baseline, names.join(", ")));
        return Ok;
    }

    // --tables (by default those that suit the experiments), --at's times, and whether --target fits.
    int chooseTables()
    {
        m_tables = m_p.isSet("tables") ? m_p.value("tables").split(QLatin1Char(','), Qt::SkipEmptyParts)
                                       : QStringList{"selection", "matrix", "pairs", "time", "at"};
        if (!m_p.isSet("tables") && m_sweep && m_tuning.selection.isEmpty())
            m_tables.insert(1, QStringLiteral("grid"));
        if (!m_p.isSet("tables") && !m_tuning.selection.isEmpty())
            m_tables.prepend(QStringLiteral("tuning"));
        if (!m_p.isSet("tables") && spansSets())
            m_tables = QStringList{"sets", "ranks", "holm", "vs-control"} + m_tables;
        const QStringList known{"sets",  "ranks", "holm", "vs-control", "tuning", "selection",
                                "matrix", "pairs", "grid", "time",       "at",     "frontier"};
        for (QString& t : m_tables) {
            t = t.trimmed();
            if (!known.contains(t))
                return usage(QStringLiteral("--tables: unknown table \"%1\" (%2)").arg(t, known.join(", ")));
        }
        if (m_p.isSet("at")) {
            m_times.clear();
            for (const QString& v : m_p.value("at").split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                bool ok = false;
                const double s = v.trimmed().toDouble(&ok);
                if (!ok || !(s > 0) || !std::isfinite(s))
                    return usage(QStringLiteral("--at: expected training seconds > 0, got \"%1\"").arg(v.trimmed()));
                m_times << s;
            }
            if (m_times.isEmpty())
                return usage(QStringLiteral("--at: give at least one time"));
        }
        if (m_p.isSet("control") && !Comparison::configurations(m_samples).contains(m_p.value("control")))
            return usage(QStringLiteral("--control: no configuration \"%1\" (configurations: %2)")
                             .arg(m_p.value("control"), Comparison::configurations(m_samples).join(", ")));
        for (const char* t : {"ranks", "holm", "vs-control"})
            if (m_tables.contains(QLatin1String(t)) && !spansSets())
                return usage(QStringLiteral("--tables %1: a rank test needs at least 2 data sets and 2 configurations "
                                            "with finished runs; these experiments have %2 and %3")
                                 .arg(QLatin1String(t))
                                 .arg(datasetCount())
                                 .arg(Comparison::configurations(m_samples).size()));
        if (spansSets())
            m_across = AcrossSets::compute(AcrossSets::samples(m_curves, metricAsked()), metricAsked(), m_p.value("control"),
                                           m_alpha);
        if (m_tables.contains("time") && m_p.isSet("target") && !RunMetric::hasCurve(m_metric))
            return usage(QStringLiteral("--target: %1 has no curve to reach a target on").arg(RunMetric::label(m_metric)));
        return Ok;
    }

    // Every chosen table in the chosen format, in the order asked for.
    QString renderTables() const
    {
        QStringList parts;
        for (const QString& t : m_tables)
            parts << renderTable(t);
        return parts.join(QLatin1Char('\n'));
    }

    // One table, @p t one of chooseTables()'s known names.
    QString renderTable(const QString& t) const
    {
        // What needs a curve (selection on validation, targets, common times) uses the run's
        // default quality metric when time or memory is compared.
        const MetricId curveMetric = RunMetric::hasCurve(m_metric) ? m_metric : RunMetric::defaultFor(m_curves);
        if (t == QLatin1String("sets"))
            return AcrossSetsTables::perSet(m_across).render(m_format);
        if (t == QLatin1String("ranks"))
            return AcrossSetsTables::ranks(m_across).render(m_format);
        if (t == QLatin1String("holm"))
            return AcrossSetsTables::holm(m_across).render(m_format);
        if (t == QLatin1String("vs-control"))
            return AcrossSetsTables::pairs(m_across, m_rope).render(m_format);
        if (t == QLatin1String("tuning"))
            return SelectionCurves::table(m_tuning).render(m_format);
        if (t == QLatin1String("selection"))
            return ComparisonTables::selection(Comparison::select(Comparison::samples(m_curves, curveMetric), curveMetric),
                                               m_confidence)
                .render(m_format);
        if (t == QLatin1String("at"))
            return ComparisonTables::atTimes(Comparison::atTimes(Comparison::samples(m_curves, curveMetric), curveMetric,
                                                                 m_times, m_confidence),
                                             m_confidence)
                .render(m_format);
        if (t == QLatin1String("matrix"))
            return ComparisonTables::matrix(Comparison::matrix(m_samples, m_metric, m_baseline, m_alpha, m_test), m_samples)
                .render(m_format);
        if (t == QLatin1String("pairs"))
            return ComparisonTables::pairwise(Comparison::pairwise(m_samples, m_metric, m_baseline, m_band, m_confidence),
                                              m_metric, m_band, m_confidence)
                .render(m_format);
        if (t == QLatin1String("grid"))
            return ComparisonTables::grid(Comparison::grid(m_samples), m_metric).render(m_format);
        if (t == QLatin1String("time"))
            return ComparisonTables::timeToTarget(Comparison::timeToTarget(Comparison::samples(m_curves, curveMetric),
                                                                           curveMetric, m_target, m_baseline,
                                                                           m_confidence))
                .render(m_format);
        // "frontier"
        return frontierTable(Comparison::frontier(m_samples, m_metric), m_metric,
                             Comparison::selectionMetric(m_samples, m_metric))
            .render(m_format);
    }

    // The text to --output's file, or to standard output.
    int write(const QString& text) const
    {
        if (m_p.isSet("output")) {
            QSaveFile f(m_p.value("output"));
            if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit()) {
                err() << "trainbench-cli: " << m_p.value("output") << ": cannot write: " << f.errorString() << Qt::endl;
                return Output;
            }
            return Ok;
        }
        out() << text;
        out().flush();
        return Ok;
    }

    // The metric --metric asked for, nullopt for each set's own.
    std::optional<MetricId> metricAsked() const
    {
        return m_p.isSet("metric") ? std::optional<MetricId>(m_metric) : std::nullopt;
    }
    int datasetCount() const
    {
        QStringList sets;
        for (const ConfigurationSample& s : m_samples)
            if (!s.values.isEmpty() && !sets.contains(s.dataset))
                sets << s.dataset;
        return int(sets.size());
    }
    // Whether the runs span data sets enough to rank configurations over them.
    bool spansSets() const
    {
        QStringList configurations;
        for (const ConfigurationSample& s : m_samples)
            if (!s.values.isEmpty() && !configurations.contains(s.configuration))
                configurations << s.configuration;
        return datasetCount() >= 2 && configurations.size() >= 2;
    }

    QCommandLineParser m_p;
    QList<qint64> m_ids;
    AcrossSetsResult m_across;
    double m_rope = NaN;
    TextTable::Format m_format = TextTable::Format::Text;
    SignificanceTest m_test = SignificanceTest::PairedT;
    double m_alpha = 0.05;
    double m_band = 0.05;
    double m_confidence = 0.95;
    double m_target = NaN;
    QList<AlgorithmCurves> m_curves;
    ExperimentResult m_tuning; // the trials that chose the configurations (a tuned comparison's selection)
    bool m_sweep = false; // a param sweep among the experiments: its grid is a default table
    MetricId m_metric{};
    QList<ConfigurationSample> m_samples;
    QString m_baseline;
    QStringList m_tables;
    QList<double> m_times{1, 10, 30, 150};
};

} // namespace

int compareCommand(const QStringList& args)
{
    return CompareRun(args).run();
}

} // namespace tb::cli
