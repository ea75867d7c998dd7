#include "CompareCommand.h"
#include "CliStreams.h"

#include <Comparison.h>
#include <SelectionCurves.h>
#include <ComparisonTables.h>
#include <StoredRuns.h>
#include <RunStore.h>

#include <QCommandLineParser>
#include <QSaveFile>
#include <QTextStream>

#include <cmath>

namespace tb::cli {
namespace {

int usage(const QString& message)
{
    err() << "trainbench-cli compare: " << message << "\n"
                << "usage: trainbench-cli compare ID [ID ...] [--db FILE] [--metric KEY] [--baseline NAME] [--configurations A,B]\n"
                   "         [--test t|wilcoxon] [--alpha A] [--tie-band B] [--confidence C] [--target T] [--at T1,T2]\n"
                   "         [--tables matrix,pairs,grid,time,frontier] [--format text|csv|markdown|latex] [--output FILE]\n";
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

int compareCommand(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("Compare the configurations of stored experiments over seeds.");
    p.addHelpOption();
    p.addPositionalArgument("id", "Experiment id(s) (see `trainbench-cli runs`); several ids add their data sets as columns.");
    p.addOption({"db", "Run database.", "file"});
    p.addOption({"metric", "Metric: " + RunMetric::keys().join(", ") + " (default: test accuracy, else test RMSE).", "key"});
    p.addOption({"baseline", "Configuration the others are tested against (default: the first).", "name"});
    p.addOption({"configurations", "Compare only these configurations (comma-separated names, in this order).", "list"});
    p.addOption({"test", "Test behind the matrix markers: t (paired t-test, default) or wilcoxon.", "name"});
    p.addOption({"alpha", "Significance level of the markers, (0, 1) (default 0.05).", "a"});
    p.addOption({"tie-band", "Relative tie band of win/tie/loss, [0, 1) (default 0.05).", "b"});
    p.addOption({"confidence", "Confidence of the intervals, (0, 1) (default 0.95).", "c"});
    p.addOption({"target", "Target of time-to-target (default: the best value every run reaches).", "value"});
    p.addOption({"at", "Common training times of the \"at\" table, seconds, comma-separated (default 1,10,30,150).",
                 "list"});
    p.addOption({"tables", "Tables to print, comma-separated: tuning, selection, matrix, pairs, grid, time, at, frontier "
                           "(default: selection,matrix,pairs,time,at, with tuning first for a tuned comparison and grid "
                           "for a param sweep).", "list"});
    p.addOption({"format", "text (default), csv, markdown or latex.", "name"});
    p.addOption({"output", "Write to FILE instead of standard output.", "file"});
    p.process(args);

    if (p.positionalArguments().isEmpty())
        return usage(QStringLiteral("give at least one experiment id"));
    QList<qint64> ids;
    for (const QString& a : p.positionalArguments()) {
        bool ok = false;
        const qint64 id = a.toLongLong(&ok);
        if (!ok || id < 0)
            return usage(QStringLiteral("\"%1\" is not an experiment id").arg(a));
        ids << id;
    }
    const auto format = TextTable::formatFromName(p.value("format").isEmpty() ? QStringLiteral("text") : p.value("format"));
    if (!format)
        return usage(QStringLiteral("--format: expected text, csv, markdown or latex, got \"%1\"").arg(p.value("format")));
    SignificanceTest test = SignificanceTest::PairedT;
    if (p.isSet("test")) {
        if (p.value("test") == QLatin1String("wilcoxon"))
            test = SignificanceTest::Wilcoxon;
        else if (p.value("test") != QLatin1String("t"))
            return usage(QStringLiteral("--test: expected t or wilcoxon, got \"%1\"").arg(p.value("test")));
    }
    QString error;
    const auto alpha = fraction(p, "alpha", 0.05, true, &error);
    const auto band = fraction(p, "tie-band", 0.05, false, &error);
    const auto confidence = fraction(p, "confidence", 0.95, true, &error);
    if (!alpha || !band || !confidence)
        return usage(error);
    double target = NaN;
    if (p.isSet("target")) {
        bool ok = false;
        target = p.value("target").toDouble(&ok);
        if (!ok || !std::isfinite(target))
            return usage(QStringLiteral("--target: expected a number, got \"%1\"").arg(p.value("target")));
    }

    const QString dbPath = p.value("db").isEmpty() ? RunStore::defaultPath() : p.value("db");
    auto store = RunStore::open(dbPath, &error);
    if (!store) {
        err() << "trainbench-cli: " << error << Qt::endl;
        return Database;
    }
    QList<AlgorithmCurves> curves;
    ExperimentResult tuning; // the trials that chose the configurations (a tuned comparison's)
    bool sweep = false;
    for (qint64 id : ids) {
        const auto result = tb::StoredRuns::experiment(*store, id, &error);
        if (!result)
            return usage(error);
        if (!result->summary.isEmpty())
            return usage(QStringLiteral("experiment %1 is a %2: its cells are aggregated, not stored as runs "
                                        "to compare (use `export`)")
                             .arg(id)
                             .arg(result->kind));
        sweep = sweep || !result->variedKeys.isEmpty();
        curves << result->curves;
        tuning.selection << result->selection;
    }
    if (p.isSet("configurations")) {
        // Keep the named configurations in the order given; a name that matches nothing is a typo.
        const QStringList wanted = p.value("configurations").split(QLatin1Char(','), Qt::SkipEmptyParts);
        QList<AlgorithmCurves> kept;
        for (QString name : wanted) {
            name = name.trimmed();
            bool found = false;
            for (const AlgorithmCurves& c : curves)
                if ((c.configuration.isEmpty() ? c.label : c.configuration) == name) {
                    kept << c;
                    found = true;
                }
            if (!found) {
                QStringList names;
                for (const AlgorithmCurves& c : curves)
                    if (const QString n = c.configuration.isEmpty() ? c.label : c.configuration; !names.contains(n))
                        names << n;
                return usage(QStringLiteral("--configurations: no configuration \"%1\" (configurations: %2)")
                                 .arg(name, names.join(", ")));
            }
        }
        curves = kept;
    }
    MetricId metric = RunMetric::defaultFor(curves);
    if (p.isSet("metric")) {
        const auto m = RunMetric::fromKey(p.value("metric"));
        if (!m)
            return usage(QStringLiteral("--metric: expected one of %1, got \"%2\"").arg(RunMetric::keys().join(", "), p.value("metric")));
        metric = *m;
    }
    const QList<ConfigurationSample> samples = Comparison::samples(curves, metric);
    int finished = 0;
    for (const auto& s : samples)
        finished += int(s.values.size());
    if (finished == 0) {
        err() << "trainbench-cli compare: no finished runs in experiment(s) "
                    << p.positionalArguments().join(", ") << Qt::endl;
        return Invalid;
    }
    const QStringList names = Comparison::configurations(samples);
    const QString baseline = p.value("baseline");
    if (!baseline.isEmpty() && !names.contains(baseline))
        return usage(QStringLiteral("--baseline: no configuration \"%1\" (configurations: %2)").arg(baseline, names.join(", ")));

    QStringList tables = p.isSet("tables") ? p.value("tables").split(QLatin1Char(','), Qt::SkipEmptyParts)
                                           : QStringList{"selection", "matrix", "pairs", "time", "at"};
    if (!p.isSet("tables") && sweep && tuning.selection.isEmpty())
        tables.insert(1, QStringLiteral("grid"));
    if (!p.isSet("tables") && !tuning.selection.isEmpty())
        tables.prepend(QStringLiteral("tuning"));
    const QStringList known{"tuning", "selection", "matrix", "pairs", "grid", "time", "at", "frontier"};
    for (QString& t : tables) {
        t = t.trimmed();
        if (!known.contains(t))
            return usage(QStringLiteral("--tables: unknown table \"%1\" (%2)").arg(t, known.join(", ")));
    }
    QList<double> times{1, 10, 30, 150};
    if (p.isSet("at")) {
        times.clear();
        for (const QString& v : p.value("at").split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const double s = v.trimmed().toDouble(&ok);
            if (!ok || !(s > 0) || !std::isfinite(s))
                return usage(QStringLiteral("--at: expected training seconds > 0, got \"%1\"").arg(v.trimmed()));
            times << s;
        }
        if (times.isEmpty())
            return usage(QStringLiteral("--at: give at least one time"));
    }
    if (tables.contains("time") && p.isSet("target") && !RunMetric::hasCurve(metric))
        return usage(QStringLiteral("--target: %1 has no curve to reach a target on").arg(RunMetric::label(metric)));

    QStringList parts;
    for (const QString& t : tables) {
        // What needs a curve (selection on validation, targets, common times) uses the run's
        // default quality metric when time or memory is compared.
        const MetricId curveMetric = RunMetric::hasCurve(metric) ? metric : RunMetric::defaultFor(curves);
        if (t == QLatin1String("tuning"))
            parts << SelectionCurves::table(tuning).render(*format);
        else if (t == QLatin1String("selection"))
            parts << ComparisonTables::selection(Comparison::select(Comparison::samples(curves, curveMetric), curveMetric),
                                                 *confidence)
                         .render(*format);
        else if (t == QLatin1String("at"))
            parts << ComparisonTables::atTimes(
                         Comparison::atTimes(Comparison::samples(curves, curveMetric), curveMetric, times, *confidence),
                         *confidence)
                         .render(*format);
        else if (t == QLatin1String("matrix"))
            parts << ComparisonTables::matrix(Comparison::matrix(samples, metric, baseline, *alpha, test), samples).render(*format);
        else if (t == QLatin1String("pairs"))
            parts << ComparisonTables::pairwise(Comparison::pairwise(samples, metric, baseline, *band, *confidence), metric,
                                                *band, *confidence)
                         .render(*format);
        else if (t == QLatin1String("grid"))
            parts << ComparisonTables::grid(Comparison::grid(samples), metric).render(*format);
        else if (t == QLatin1String("time")) {
            parts << ComparisonTables::timeToTarget(
                         Comparison::timeToTarget(Comparison::samples(curves, curveMetric), curveMetric, target, baseline,
                                                  *confidence))
                         .render(*format);
        } else if (t == QLatin1String("frontier"))
            parts << frontierTable(Comparison::frontier(samples, metric), metric,
                                   Comparison::selectionMetric(samples, metric))
                         .render(*format);
    }
    const QString text = parts.join(QLatin1Char('\n'));
    if (p.isSet("output")) {
        QSaveFile f(p.value("output"));
        if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit()) {
            err() << "trainbench-cli: " << p.value("output") << ": cannot write: " << f.errorString() << Qt::endl;
            return Output;
        }
        return Ok;
    }
    out() << text;
    out().flush();
    return Ok;
}

} // namespace tb::cli
