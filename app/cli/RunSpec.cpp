#include "RunSpec.h"
#include "ChartExport.h"
#include "CliStreams.h"
#include "CommandSupport.h"
#include "CompareCommand.h"
#include "Interrupts.h"
#include "ProgressBar.h"

#include <engine/CostPrediction.h>
#include <data/DataSource.h>
#include <engine/ExperimentKind.h>
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <engine/ResultCsv.h>
#include <store/RunStore.h>

#include <QCommandLineParser>
#include <QFileInfo>
#include <QTextStream>

#include <cmath>
#include <csignal>
#include <unistd.h>

namespace tb::cli {

int refuseInvalid(const tb::ExperimentSpec& spec, const tb::PluginRegistry& reg)
{
    const QStringList problems = spec.validate(reg);
    for (const auto& pr : problems)
        err() << pr << "\n";
    err().flush();
    return problems.isEmpty() ? Ok : Invalid;
}

void announceWaits(tb::RunStore* store)
{
    if (store)
        QObject::connect(store, &tb::RunStore::waiting, [](const QString& message, bool) {
            if (!message.isEmpty())
                lineToStderr(QStringLiteral("trainbench-cli: ") + message);
        });
}

void adviseResume(const tb::ExperimentSpec& spec, const tb::RunStore* store)
{
    if (!store || spec.sourcePath.isEmpty())
        return;
    err() << "trainbench-cli: stopped; what finished is stored in " << store->path() << ": `trainbench-cli run "
          << spec.sourcePath << " --db " << store->path() << " --resume` trains the rest" << Qt::endl;
}

void printRuns(const tb::ExperimentSpec& spec, const tb::ExperimentResult& result)
{
    // One line per run (a noise sweep: per value of its axis) on stdout.
    const tb::ExperimentKind* kind = tb::ExperimentKinds::find(spec.kind);
    if (!result.summary.isEmpty()) {
        // Statistics per value of the kind's axis (a noise sweep's σ) over n runs each.
        const QString axis = kind ? kind->summaryAxis() : QStringLiteral("x");
        out() << QStringLiteral("%1 %2 %3   train RMSE (mean±std)   test RMSE (mean±std)\n")
                     .arg(QStringLiteral("algorithm"), -30)
                     .arg(axis.left(8), 8)
                     .arg(QStringLiteral("n"), 5);
        for (const auto& sp : result.summary)
            out() << QString("%1 %2 %3   %4 ± %5      %6 ± %7\n")
                         .arg(sp.algorithmName.left(30), -30)
                         .arg(sp.x, 5, 'g', 3)
                         .arg(sp.count, 5)
                         .arg(fmt(sp.trainRmseMean), 9).arg(fmt(sp.trainRmseStd), -9)
                         .arg(fmt(sp.testRmseMean), 9).arg(fmt(sp.testRmseStd), -9);
    } else {
        // The task of each data-set option, from the file: a run without a checkpoint has no
        // metric that could tell accuracy from RMSE.
        QList<bool> classification;
        for (const QJsonObject& set : kind ? kind->datasets(spec) : QList<QJsonObject>{spec.dataset})
            classification << (tb::data::DataSource::task(set) == tb::Task::Classification);
        for (const auto& c : result.curves)
            for (int r = 0; r < c.repeats.size(); ++r) {
                const auto& pts = c.repeats[r];
                const tb::MetricPoint last = pts.isEmpty() ? tb::MetricPoint{} : pts.last();
                out() << QString("%1 repeat %2  %3  epochs %4  time %5 s  ")
                             .arg(c.label.left(28), -28).arg(c.repeatNumbers.value(r, r))
                             .arg(tb::runStatusName(c.statuses.value(r)), -9)
                             .arg(fmt(last.epoch)).arg(fmt(last.trainTime));
                if (std::isfinite(last.trainAccuracy) || classification.value(c.datasetIndex)) {
                    out() << "train acc " << fmtPct(last.trainAccuracy);
                    if (std::isfinite(last.validationAccuracy))
                        out() << "  validation acc " << fmtPct(last.validationAccuracy);
                    out() << "  test acc " << fmtPct(last.testAccuracy);
                } else {
                    out() << "train RMSE " << fmt(last.trainRmse);
                    if (std::isfinite(last.validationRmse))
                        out() << "  validation RMSE " << fmt(last.validationRmse);
                    out() << "  test RMSE " << fmt(last.testRmse);
                }
                if (pts.isEmpty())
                    out() << "  (no checkpoint)";
                if (const QString e = c.errors.value(r); !e.isEmpty() && c.statuses.value(r) != tb::RunStatus::Finished)
                    out() << "  (" << e << ")";
                const QJsonObject info = c.infos.value(r);
                if (const QString mem = tb::CostPrediction::fromRunInfo(info).compareMemory(info); !mem.isEmpty())
                    out() << "  " << mem;
                if (const QString cost = tb::CostPrediction::fromRunInfo(info).compare(info); !cost.isEmpty())
                    out() << "  " << cost;
                out() << "\n";
            }
    }
}

int runSpec(const tb::ExperimentSpec& spec, const tb::PluginRegistry& reg, tb::RunStore* store,
            const QCommandLineParser& p, tb::CellExecutor* executor, qint64 resumeId, tb::ExperimentResult* kept)
{
    QString error;
    if (const int invalid = refuseInvalid(spec, reg); invalid != Ok)
        return invalid;
    announceWaits(store);
    tb::ExperimentRunner runner(reg, store, executor);
    *runnerToStop() = &runner;
    catchInterrupts();
    tb::cli::ProgressBar bar(!p.isSet("quiet") && isatty(STDERR_FILENO));
    err() << (resumeId >= 0 ? QStringLiteral("Resuming experiment %1, \"").arg(resumeId) : QStringLiteral("Running \""))
          << spec.name << "\" (" << spec.kind << ", " << spec.effectiveThreads()
          << " threads" << (executor ? QStringLiteral(" per rank") : QString()) << ")"  // an executor: the MPI ranks
          << (store ? QStringLiteral(" → ") + store->path() : QString()) << Qt::endl;
    const tb::ExperimentResult result = resumeId >= 0 ? runner.resume(spec, resumeId, &bar) : runner.run(spec, &bar);
    bar.finish();
    if (kept)
        *kept = result;
    *runnerToStop() = nullptr;
    std::signal(SIGINT, SIG_DFL);

    for (const auto& w : result.warnings)
        err() << "warning: " << w << "\n";
    if (!result.error.isEmpty()) {
        err() << result.error << Qt::endl;
        return result.storeError.isEmpty() ? Invalid : Database;
    }
    printRuns(spec, result);
    if (!result.variedKeys.isEmpty() && !result.curves.isEmpty())
        out() << "\n" << tb::cli::gridSummary(result);
    for (const auto& e : result.runErrors)
        err() << "  problem: " << e << "\n";
    err().flush();
    out().flush();

    int code = result.cancelled ? Stopped : (result.runsFailed > 0 ? RunsFailed : Ok);
    if (result.cancelled && result.storeError.isEmpty())
        adviseResume(spec, store);
    if (!result.storeError.isEmpty()) {
        // Loud, and after the summary so it is the last thing read: the database holds less than
        // was trained; the results above and in --csv / --plot are the complete ones.
        code = Database;
        err() << "trainbench-cli: the experiment was stopped because a write to the database failed: "
              << result.storeError << "\n";
        err() << (p.isSet("csv") ? QStringLiteral("trainbench-cli: the results of this session are written to %1 "
                                                  "(the database may lack some of them)")
                                       .arg(QFileInfo(p.value("csv")).absoluteFilePath())
                                 : QStringLiteral("trainbench-cli: the results above are not all in the database; run "
                                                  "again with --csv FILE to keep them, or with --db OTHER.sqlite"))
              << Qt::endl;
    }
    if (p.isSet("plot")) {
        QStringList written;
        if (!tb::cli::writeCharts(result, spec.name, p.value("plot"), &written, &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = Output;
        }
        for (const auto& w : written)
            out() << "chart: " << QFileInfo(w).absoluteFilePath() << "\n";
    }
    if (p.isSet("csv")) {
        if (!tb::ResultCsv::write(result, p.value("csv"), &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = Output;
        } else {
            out() << "csv: " << QFileInfo(p.value("csv")).absoluteFilePath() << "\n";
        }
    }
    if (store && result.storeError.isEmpty())
        out() << "database: " << store->path() << " (experiment " << result.experimentId << ")\n";
    out().flush();
    // Output files are reported as failed (6) only when the database kept everything.
    return code == Output && !result.storeError.isEmpty() ? Database : code;
}

} // namespace tb::cli
