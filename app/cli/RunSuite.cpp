#include "RunSuite.h"
#include "ChartExport.h"
#include "CliStreams.h"
#include "CommandSupport.h"
#include "Interrupts.h"
#include "ProgressBar.h"
#include "RunSpec.h"

#include <engine/AcrossSetsTables.h>
#include <engine/ExperimentKind.h>
#include <engine/PluginRegistry.h>
#include <engine/ResultCsv.h>
#include <engine/SuiteRunner.h>
#include <store/RunStore.h>

#include <QCommandLineParser>
#include <QFileInfo>
#include <QTextStream>

#include <csignal>
#include <unistd.h>

namespace tb::cli {
namespace {

// The lines above the bar as set @p index of @p plan starts: which set, which algorithms, what it lacks.
QStringList describeSet(const QList<SuiteSetOutcome>& plan, int index, int sets, const ExperimentSpec& spec)
{
    QStringList labels;
    for (const AlgorithmRun& a : spec.algorithms)
        labels << a.label;
    const SuiteSetOutcome& o = plan.at(index);
    const ExperimentKind* kind = ExperimentKinds::find(spec.kind);
    const int units = kind ? kind->plannedRuns(spec) : 0;
    QString line = QStringLiteral("Set %1 of %2: %3 — %4 (%5 %6)")
                       .arg(index + 1)
                       .arg(sets)
                       .arg(spec.suitePlace.set, labels.join(QStringLiteral(", ")))
                       .arg(units)
                       .arg(kind ? kind->unit(units) : QStringLiteral("runs"));
    if (o.resumedFrom >= 0)
        line += QStringLiteral(" (resuming experiment %1)").arg(o.resumedFrom);
    QStringList lines{line};
    for (const QString& g : o.gaps)
        lines << QStringLiteral("  gap: ") + g;
    return lines;
}

// What ran: sets × configurations, finished of planned runs per cell.
void printCoverage(const SuiteResult& r, const QStringList& configurations)
{
    TextTable t(QStringList{QStringLiteral("set")} + configurations);
    t.setTitle(QStringLiteral("Finished runs per set and configuration"));
    for (const SuiteSetOutcome& o : r.sets) {
        QStringList row{o.set.name};
        for (const QString& c : configurations) {
            if (!o.absent.isEmpty() || !o.ran) {
                row << (o.absent.isEmpty() ? QStringLiteral("not run") : QStringLiteral("absent"));
                continue;
            }
            int finished = 0, runs = 0;
            bool present = false;
            for (const AlgorithmCurves& curve : o.result.curves)
                if ((curve.configuration.isEmpty() ? curve.label : curve.configuration) == c) {
                    present = true;
                    runs += int(curve.statuses.size());
                    finished += int(curve.statuses.count(RunStatus::Finished));
                }
            row << (present ? QStringLiteral("%1/%2").arg(finished).arg(runs) : QStringLiteral("gap"));
        }
        t.addRow(row);
    }
    out() << "\n" << t.render(TextTable::Format::Text);
}

} // namespace

int runSuite(const ExperimentSpec& spec, const PluginRegistry& reg, RunStore* store, const QCommandLineParser& p,
             bool resume, CellExecutor* executor, const SuiteHooks& hooks)
{
    if (const int invalid = refuseInvalid(spec, reg); invalid != Ok)
        return invalid;
    announceWaits(store);
    ExperimentRunner runner(reg, store, executor);
    SuiteRunner suite(runner, reg, store);
    suite.beginSet = hooks.beginSet;
    suite.endSet = hooks.endSet;
    *runnerToStop() = &runner; // Ctrl-C stops the set that trains; the suite starts no other set after it
    catchInterrupts();
    const QList<SuiteSetOutcome> planned = suite.plan(spec, resume);
    err() << (resume ? QStringLiteral("Resuming suite \"") : QStringLiteral("Running suite \"")) << spec.name << "\" ("
          << spec.suite.size() << " data sets × " << spec.algorithms.size() << " algorithms, " << spec.kind << ", "
          << spec.effectiveThreads() << " threads" << (executor ? QStringLiteral(" per rank") : QString()) << ")"
          << (store ? QStringLiteral(" → ") + store->path() : QString()) << Qt::endl;
    for (const SuiteSetOutcome& o : std::as_const(planned))
        if (!o.absent.isEmpty())
            err() << "skipped: set \"" << o.set.name << "\" is not downloaded (" << o.set.origin << "): run `" << o.absent
                  << "`, then run the suite again with --resume" << Qt::endl;
    ProgressBar bar(!p.isSet("quiet") && isatty(STDERR_FILENO));
    bar.describeSet = [&planned](int index, int sets, const ExperimentSpec& s) {
        return describeSet(planned, index, sets, s);
    };
    QString error;
    const SuiteResult result = suite.run(spec, &bar, resume, planned, &error);
    bar.finish();
    *runnerToStop() = nullptr;
    std::signal(SIGINT, SIG_DFL);
    if (!error.isEmpty()) {
        err() << "trainbench-cli: " << error << Qt::endl;
        return Usage;
    }
    for (const QString& w : result.merged.warnings)
        err() << "warning: " << w << "\n";
    for (const SuiteSetOutcome& o : result.sets) {
        if (!o.ran)
            continue;
        out() << "\n== " << o.set.name << (o.result.experimentId >= 0 ? QStringLiteral(" (experiment %1)").arg(o.result.experimentId) : QString())
              << " ==\n";
        if (!o.result.error.isEmpty()) {
            out() << "not run: " << o.result.error << "\n";
            continue;
        }
        printRuns(o.spec, o.result);
    }
    const QList<ConfigurationSample> samples = AcrossSets::samples(result.merged.curves);
    const QStringList configurations = Comparison::configurations(samples);
    printCoverage(result, configurations);
    if (AcrossSets::applies(result.merged)) {
        const AcrossSetsResult across = AcrossSets::compute(samples);
        out() << "\n" << AcrossSetsTables::perSet(across).render(TextTable::Format::Text) << "\n"
              << AcrossSetsTables::ranks(across).render(TextTable::Format::Text);
    } else {
        out() << "\nNo comparison across sets: it needs finished runs of at least 2 configurations on at least 2 sets.\n";
    }
    for (const QString& e : result.setErrors)
        err() << "  problem: " << e << "\n";
    for (const QString& e : result.merged.runErrors)
        err() << "  problem: " << e << "\n";
    err().flush();

    int code = result.cancelled ? Stopped : (result.merged.runsFailed > 0 || !result.setErrors.isEmpty() ? RunsFailed : Ok);
    if (result.cancelled && result.storeError.isEmpty())
        adviseResume(spec, store);
    if (!result.storeError.isEmpty()) {
        code = Database;
        err() << "trainbench-cli: the suite was stopped because a write to the database failed: " << result.storeError
              << "\n";
    }
    if (p.isSet("plot")) {
        QStringList written;
        if (!writeCharts(result.merged, spec.name, p.value("plot"), &written, &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = code == Ok ? Output : code;
        }
        for (const auto& w : written)
            out() << "chart: " << QFileInfo(w).absoluteFilePath() << "\n";
    }
    if (p.isSet("csv")) {
        if (!ResultCsv::write(result.merged, p.value("csv"), &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = code == Ok ? Output : code;
        } else {
            out() << "csv: " << QFileInfo(p.value("csv")).absoluteFilePath() << "\n";
        }
    }
    if (store && !result.experimentIds.isEmpty()) {
        QStringList ids;
        for (qint64 id : result.experimentIds)
            ids << QString::number(id);
        out() << "database: " << store->path() << " (experiments " << ids.join(", ") << ")\n"
              << "compare: trainbench-cli compare --suite \"" << result.sets.first().spec.suitePlace.suite << "\" --db "
              << store->path() << "\n";
    }
    out().flush();
    return code;
}

} // namespace tb::cli
