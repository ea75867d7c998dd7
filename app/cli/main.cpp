// trainbench-cli: runs experiment files headless, lists plugins and past runs, exports charts.
// Exit codes (also in docs/cli.md):
//   0 success; 1 some runs failed or diverged; 2 usage error; 3 invalid experiment or data;
//   4 database error; 5 stopped by the user (Ctrl-C); 6 output (PNG/CSV) could not be written;
//   7 a download failed (`datasets fetch`: network, disk).

#include "ChartExport.h"
#include "CliStreams.h"
#include "CompareCommand.h"
#include "DatasetsCommand.h"
#include "LibraryNoise.h"
#include "ProgressBar.h"
#include "ReproduceCommand.h"
#include "WorkerTimeout.h"

#include <BuildInfo.h>
#include <CostPrediction.h>
#include <DataSource.h>
#include <DataSourceRegistry.h>
#include <ExperimentKind.h>
#include <ExperimentRunner.h>
#include <ExperimentSpec.h>
#include <PluginRegistry.h>
#include <PluginTrust.h>
#include <ProcessSetup.h>
#include <ResultCsv.h>
#include <RunStore.h>
#include <StoredRuns.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QTextStream>

#ifdef TB_HAVE_MPI
#include <MpiRootExecutor.h>
#include <MpiSession.h>
#include <MpiWorkerExecutor.h>
#endif

#include <atomic>
#include <csignal>
#include <numeric>
#include <cstdio>
#include <tbb/task_arena.h>
#include <unistd.h>

namespace {

using namespace tb::cli; // Exit, out(), err() (CliStreams.h)

tb::ExperimentRunner* g_runner = nullptr;
std::atomic<int> g_interrupts{0};
std::atomic<bool> g_fetchStop{false}; // `datasets fetch`: Ctrl-C cancels the transfer, its part kept

extern "C" void onSigint(int)
{
    // Only lock-free atomic stores here: the runner's stop flag is a std::atomic<bool>.
    if (++g_interrupts > 1)
        std::_Exit(Stopped);
    if (g_runner)
        g_runner->requestStop();
    g_fetchStop.store(true);
}

/// Opens the run store at @p path (the default one when empty). Commands that only read open it
/// read-only, so that a store in a read-only folder can still be listed and exported.
std::unique_ptr<tb::RunStore> openStore(const QString& path, bool readOnly = false, int busyTimeoutMs = -1)
{
    const QString p = path.isEmpty() ? tb::RunStore::defaultPath() : path;
    QString error;
    tb::RunStore::Options options;
    options.readOnly = readOnly;
    if (busyTimeoutMs >= 0)
        options.busyTimeoutMs = busyTimeoutMs;
    auto store = tb::RunStore::open(p, options, &error);
    if (!store)
        err() << "trainbench-cli: " << error << Qt::endl;
    return store;
}

/// Writes one line to stderr at once (the store's writer thread calls this while the main thread
/// may be drawing the progress bar).
void lineToStderr(const QString& line)
{
    const QByteArray bytes = (line + QLatin1Char('\n')).toLocal8Bit();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stderr);
    std::fflush(stderr);
}

QString fmtPct(double v)
{
    return std::isfinite(v) ? QString::number(100 * v, 'f', 2) + QLatin1Char('%') : QStringLiteral("-");
}
QString fmt(double v)
{
    return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("-");
}

// Each algorithm's predicted cost (defaults) for the reference shape, by algorithm id; only
// algorithms whose trainer states one. Computed in an arena of every core, as a run with
// "threads": 0 would use.
QHash<QString, tb::CostPrediction> referenceCosts(const tb::PluginRegistry& reg, int* threads)
{
    QHash<QString, tb::CostPrediction> costs;
    *threads = tb::ExperimentSpec::allCores();
    tbb::task_arena arena(*threads);
    arena.execute([&] {
        for (const auto& a : reg.algorithms()) {
            const tb::Task task = a.info.classification ? tb::Task::Classification : tb::Task::Regression;
            const auto cost = tb::CostPrediction::forAlgorithm(reg, a.info.id, {},
                                                               tb::CostPrediction::referenceShape(task));
            if (!cost.isEmpty())
                costs.insert(a.info.id, cost);
        }
    });
    return costs;
}

QJsonObject shapeJson(const tb::ProblemShape& s)
{
    return QJsonObject{{"rows", double(s.rows)},
                       {"inputs", double(s.inputs)},
                       {"outputs", double(s.outputs)},
                       {"task", s.task == tb::Task::Classification ? "classification" : "regression"}};
}

// ---------------------------------------------------------------------------------- list
int cmdList(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("List plugins, their algorithms and parameter schemas.");
    p.addHelpOption();
    p.addOption({"json", "Print JSON instead of text."});
    p.process(args);

    tb::PluginRegistry reg;
    reg.scan();
    int costThreads = 1;
    const QHash<QString, tb::CostPrediction> costs = referenceCosts(reg, &costThreads);
    auto referenceShapeOf = [](const tb::AlgorithmInfo& a) {
        return tb::CostPrediction::referenceShape(a.classification ? tb::Task::Classification
                                                                   : tb::Task::Regression);
    };
    // Algorithms that take sparse inputs as they are (SparseTrainer.h); the others get a dense copy.
    auto isSparse = [&](const QString& id) {
        const tb::AlgorithmEntry* e = reg.algorithm(id);
        return e && e->sparseInput;
    };
    if (p.isSet("json")) {
        QJsonArray plugins;
        for (const auto& s : reg.plugins()) {
            QJsonObject o{{"file", s->filePath}, {"id", s->id}, {"name", s->name}, {"version", s->version},
                          {"family", s->family}, {"state", s->stateName()}};
            if (!s->error.isEmpty())
                o.insert("error", s->error);
            if (!s->replaces.isEmpty())
                o.insert("replaces", QJsonArray::fromStringList(s->replaces));
            QJsonArray algs;
            for (const auto& a : s->algorithms) {
                QJsonObject alg{{"id", a.id},
                                {"name", a.name},
                                {"description", a.description},
                                {"citation", a.citation},
                                {"regression", a.regression},
                                {"classification", a.classification},
                                {"sparse_inputs", isSparse(a.id)},
                                {"params", a.schema.toJson()}};
                if (costs.contains(a.id)) {
                    alg.insert("predicted_cost", costs.value(a.id).json());
                    QJsonObject shape = shapeJson(referenceShapeOf(a));
                    shape.insert("threads", costThreads);
                    alg.insert("predicted_cost_for", shape);
                }
                algs.append(alg);
            }
            o.insert("algorithms", algs);
            if (!s->dataSources.isEmpty())
                o.insert("data_sources", QJsonArray::fromStringList(s->dataSources));
            plugins.append(o);
        }
        QJsonArray folders;
        for (const tb::PluginFolder& f : reg.folders()) {
            QJsonObject o{{"path", f.path}, {"state", f.stateName()}};
            if (!f.problem.isEmpty())
                o.insert("problem", f.problem);
            folders.append(o);
        }
        QJsonObject root{{"search_paths", QJsonArray::fromStringList(reg.searchPaths())},
                         {"folders", folders},
                         {"notices", QJsonArray::fromStringList(reg.notices())},
                         {"plugins", plugins},
                         {"data_sources", tb::data::DataSourceRegistry::toJson()}};
        out() << QJsonDocument(root).toJson(QJsonDocument::Indented);
        return Ok;
    }
    // First what the user must know, then where plugins come from: they are code.
    for (const QString& n : reg.notices())
        out() << "Notice: " << n << "\n";
    out() << "Plugins are code: they run with your rights. Plugin folders, searched in this order:\n";
    for (const tb::PluginFolder& f : reg.folders()) {
        out() << "  " << f.path;
        switch (f.state) {
        case tb::PluginFolder::State::Used: break;
        case tb::PluginFolder::State::Missing: out() << "  (does not exist)"; break;
        case tb::PluginFolder::State::Refused: out() << "  (refused: " << f.problem << ")"; break;
        case tb::PluginFolder::State::Trusted: out() << "  (trusted by " << tb::PluginTrust::trustVariable << " although " << f.problem << ")"; break;
        }
        out() << "\n";
    }
    out() << "\n";
    int loaded = 0;
    for (const auto& s : reg.plugins()) {
        if (!s->isLoaded())
            continue;
        ++loaded;
        out() << s->name << " (" << s->id << " " << s->version << ")  " << s->filePath << "\n";
        if (!s->replaces.isEmpty())
            out() << "  replaces " << s->replaces.join(", ") << "\n";
        if (!s->citation.isEmpty())
            out() << "  " << s->citation << "\n";
        for (const auto& a : s->algorithms) {
            out() << "  " << a.id << " — " << a.name << (isSparse(a.id) ? "  [sparse inputs]" : "") << "\n    "
                  << a.description << "\n";
            if (const QString cost = costs.value(a.id).describe(); !cost.isEmpty())
                out() << "    predicted cost for " << tb::CostPrediction::describeShape(referenceShapeOf(a))
                      << " (Fashion-MNIST, defaults, " << costThreads << " threads): " << cost << "\n";
            for (const auto& ps : a.schema.specs())
                out() << "      " << ps.key << " (" << tb::paramTypeName(ps.type) << "): " << ps.help << "\n";
        }
        if (!s->dataSources.isEmpty())
            out() << "  data sources: " << s->dataSources.join(", ") << "\n";
        if (!s->error.isEmpty())
            out() << "  refused: " << s->error << "\n";
        out() << "\n";
    }
    int broken = 0;
    for (const auto& s : reg.plugins())
        if (!s->isLoaded()) {
            if (broken++ == 0)
                out() << "Not loaded:\n";
            out() << "  " << s->filePath << ": " << s->stateName() << ": " << s->error << "\n";
        }
    if (loaded == 0)
        out() << "No plugins found. Searched: " << reg.searchPaths().join(", ") << "\n";
    return Ok;
}

// ---------------------------------------------------------------------------------- run
// Plugin folders refused as unsafe, trusted anyway, and plugins that replace another of their id:
// said before a run, where the user sees it.
void warnAboutPlugins(const tb::PluginRegistry& reg)
{
    for (const QString& n : reg.notices())
        err() << "warning: " << n << "\n";
    err().flush();
}

// Runs @p spec (or resumes stored experiment @p resumeId ≥ 0), with @p executor (null: this
// process), prints its summary and writes --plot / --csv: the tail of run and rerun.
int runSpec(const tb::ExperimentSpec& spec, const tb::PluginRegistry& reg, tb::RunStore* store,
            const QCommandLineParser& p, tb::CellExecutor* executor = nullptr, qint64 resumeId = -1,
            tb::ExperimentResult* kept = nullptr)
{
    QString error;
    const QStringList problems = spec.validate(reg);
    if (!problems.isEmpty()) {
        for (const auto& pr : problems)
            err() << pr << "\n";
        err().flush();
        return Invalid;
    }
    if (store)
        QObject::connect(store, &tb::RunStore::waiting, [](const QString& message, bool) {
            if (!message.isEmpty())
                lineToStderr(QStringLiteral("trainbench-cli: ") + message);
        });
    tb::ExperimentRunner runner(reg, store, executor);
    g_runner = &runner;
    std::signal(SIGINT, onSigint);
    std::signal(SIGTERM, onSigint);
    tb::cli::ProgressBar bar(!p.isSet("quiet") && isatty(STDERR_FILENO));
    err() << (resumeId >= 0 ? QStringLiteral("Resuming experiment %1, \"").arg(resumeId) : QStringLiteral("Running \""))
          << spec.name << "\" (" << spec.kind << ", " << spec.effectiveThreads()
          << " threads" << (p.isSet("mpi") ? QStringLiteral(" per rank") : QString()) << ")"
          << (store ? QStringLiteral(" → ") + store->path() : QString()) << Qt::endl;
    const tb::ExperimentResult result = resumeId >= 0 ? runner.resume(spec, resumeId, &bar) : runner.run(spec, &bar);
    bar.finish();
    if (kept)
        *kept = result;
    g_runner = nullptr;
    std::signal(SIGINT, SIG_DFL);

    for (const auto& w : result.warnings)
        err() << "warning: " << w << "\n";
    if (!result.error.isEmpty()) {
        err() << result.error << Qt::endl;
        return result.storeError.isEmpty() ? Invalid : Database;
    }
    // Summary on stdout.
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
    if (!result.variedKeys.isEmpty() && !result.curves.isEmpty())
        out() << "\n" << tb::cli::gridSummary(result);
    for (const auto& e : result.runErrors)
        err() << "  problem: " << e << "\n";
    err().flush();
    out().flush();

    int code = result.cancelled ? Stopped : (result.runsFailed > 0 ? RunsFailed : Ok);
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

// The database of `run` (none with --no-db) and, with --resume, the stored experiment it
// continues. Returns Ok, or the exit code after saying what is wrong.
int openForRun(const tb::ExperimentSpec& spec, const QCommandLineParser& p, int waitMs,
               std::unique_ptr<tb::RunStore>& store, qint64& resumeId)
{
    if (!p.isSet("no-db")) {
        store = openStore(p.value("db"), false, waitMs);
        if (!store)
            return Database;
    }
    if (p.isSet("resume")) {
        QString error;
        resumeId = tb::ExperimentRunner::resumable(*store, spec, &error);
        if (resumeId < 0) {
            err() << "trainbench-cli: " << error << Qt::endl;
            return Usage;
        }
    }
    return Ok;
}

// run --mpi: rank 0 runs the experiment with an MpiRootExecutor (and is the only rank with a
// database and output); the other ranks serve it cells until it says Done.
int runMpi(tb::ExperimentSpec& spec, const tb::PluginRegistry& reg, const QCommandLineParser& p, int waitMs)
{
#ifndef TB_HAVE_MPI
    Q_UNUSED(spec); Q_UNUSED(reg); Q_UNUSED(waitMs);
    err() << "trainbench-cli: --mpi needs the MPI build: Open MPI was not found when this program was built (install "
             "openmpi-bin and libopenmpi-dev, e.g. with ./run.sh, and build again)\n";
    Q_UNUSED(p);
    return Usage;
#else
    QString timeoutError;
    const std::optional<double> workerTimeout = tb::cli::workerTimeout(p, &timeoutError);
    if (!workerTimeout) {
        err() << "trainbench-cli: " << timeoutError << "\n";
        return Usage;
    }
    const double timeout = *workerTimeout;
    tb::cluster::MpiSession mpi(nullptr, nullptr);
    if (!mpi.ok()) {
        err() << "trainbench-cli: --mpi: " << mpi.error() << Qt::endl;
        return Usage;
    }
    if (mpi.rank() != 0) {
        // A worker: no database, no output but its errors; rank 0 reports the experiment.
        tb::cluster::MpiWorkerExecutor worker(mpi, reg);
        const QStringList problems = spec.validate(reg);
        if (!problems.isEmpty()) {
            worker.refuse(problems.join("; "));
            return Ok;
        }
        tb::ExperimentRunner runner(reg, nullptr, &worker);
        g_runner = &runner;
        std::signal(SIGINT, onSigint);
        std::signal(SIGTERM, onSigint);
        bool served = false;
        struct Served : tb::ExperimentObserver {
            bool* flag;
            void experimentStarted(qint64, const tb::ExperimentSpec&, int) override { *flag = true; }
        } started;
        started.flag = &served;
        const tb::ExperimentResult r = runner.run(spec, &started);
        g_runner = nullptr;
        if (worker.peerLost())
            mpi.skipFinalize();
        if (!served) // the experiment could not start here (e.g. its data file is missing on this node)
            worker.refuse(QStringLiteral("%1 on %2: %3").arg(QStringLiteral("rank %1").arg(mpi.rank()), mpi.host(), r.error));
        return Ok;
    }
    tb::cluster::MpiRootExecutor::Options options;
    options.workerTimeoutSeconds = timeout;
    options.notify = [](const QString& line) { lineToStderr(QStringLiteral("trainbench-cli: ") + line); };
    tb::cluster::MpiRootExecutor root(mpi, reg, options);
    auto release = qScopeGuard([&] { root.release(); }); // workers never wait for a rank 0 that gave up
    if (mpi.size() == 1)
        err() << "warning: --mpi with one rank: the cells run in this process (start it with mpirun -np N, N ≥ 2)\n";
    else
        err() << "MPI: " << mpi.size() - 1 << " worker rank(s), " << spec.effectiveThreads()
              << " thread(s) each; rank 0 on " << mpi.host() << " owns the database" << Qt::endl;
    std::unique_ptr<tb::RunStore> store;
    qint64 resumeId = -1;
    if (const int failed = openForRun(spec, p, waitMs, store, resumeId); failed != Ok)
        return failed;
    const int code = runSpec(spec, reg, store.get(), p, mpi.size() > 1 ? &root : nullptr, resumeId);
    const QList<int> cells = root.cellsPerRank();
    if (std::accumulate(cells.begin(), cells.end(), 0) > 0) { // not after an experiment that never started
        QStringList perRank;
        for (int r = 1; r < cells.size(); ++r)
            perRank << QString::number(cells[r]);
        out() << "cells per worker rank: " << perRank.join(", ") << "\n";
        out() << root.loadSummary() << "\n";
        out().flush();
    }
    if (root.lostWorkers())
        mpi.skipFinalize();
    const int exitCode = code == Ok && !root.problems().isEmpty() ? RunsFailed : code;
    if (exitCode != Ok && qgetenv("OMPI_MCA_orte_enable_recovery") == "1")
        // mpirun --enable-recovery exits 0 whatever its ranks return: say it where it is seen.
        err() << "trainbench-cli: exit status " << exitCode
              << " (mpirun --enable-recovery reports 0 whatever the ranks return; see docs/cluster.md)" << Qt::endl;
    return exitCode;
#endif
}

int cmdRun(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("Run an experiment file.");
    p.addHelpOption();
    p.addPositionalArgument("spec", "Experiment file (JSON).");
    p.addOption({"db", "Run database (default: the user's app-data folder).", "file"});
    p.addOption({"no-db", "Do not log to a database."});
    p.addOption({"threads", "Worker threads (overrides the file; 0 = all cores).", "n"});
    p.addOption({"plot", "Write the charts as PNG (learning curves: FILE and FILE-epoch).", "file.png"});
    p.addOption({"csv", "Write the results as CSV.", "file.csv"});
    p.addOption({"quiet", "No progress bar."});
    p.addOption({"wait", "Longest a database write waits for another process's lock before the experiment stops "
                         "(default 30).",
                 "seconds"});
    p.addOption({"resume", "Continue the newest stored run of this experiment (same file, same settings) in the "
                           "database: only its cells that did not finish are trained, into the same experiment."});
    p.addOption({"mpi", "Run the cells on the ranks of an MPI job (start with mpirun -np N, N ≥ 2): rank 0 owns the "
                        "database and hands out cells, the other ranks train them (docs/cluster.md)."});
    p.addOption({"threads-per-rank", "With --mpi: worker threads of each rank (overrides the file, like --threads).", "n"});
    p.addOption({"worker-timeout", "With --mpi: seconds of silence after which a worker rank counts as lost and its "
                                   "cell as failed (default 30; workers send a heartbeat every second).",
                 "seconds"});
    p.process(args);
    if (p.positionalArguments().size() != 1) {
        err() << "usage: trainbench-cli run SPEC.json [--db FILE] [--threads N] [--plot OUT.png] [--csv OUT.csv]\n";
        return Usage;
    }
    QString error;
    auto spec = tb::ExperimentSpec::fromFile(p.positionalArguments().first(), &error);
    if (!spec) {
        err() << error << Qt::endl;
        return Invalid;
    }
    for (const QString& w : spec->warnings)
        err() << "warning: " << w << "\n";
    if (p.isSet("threads") && p.isSet("threads-per-rank")) {
        err() << "trainbench-cli: give either --threads or --threads-per-rank, not both\n";
        return Usage;
    }
    for (const char* option : {"threads-per-rank", "worker-timeout"})
        if (p.isSet(option) && !p.isSet("mpi")) {
            err() << "trainbench-cli: --" << option << " goes with --mpi\n";
            return Usage;
        }
    for (const char* option : {"threads", "threads-per-rank"})
        if (p.isSet(option)) {
            bool ok = false;
            const int t = p.value(option).toInt(&ok);
            if (!ok || t < 0 || t > 1024) {
                err() << "trainbench-cli: --" << option << ": expected an integer in [0, 1024], got \"" << p.value(option)
                      << "\"\n";
                return Usage;
            }
            spec->threads = t;
        }
    tb::PluginRegistry reg;
    reg.scan();
    warnAboutPlugins(reg);
    // Former parameter spellings still run, upgraded, with a note (the stored spec is upgraded).
    for (const QString& note : spec->upgradeParams(reg))
        err() << "warning: " << note << "\n";
    int waitMs = -1;
    if (p.isSet("wait")) {
        bool ok = false;
        const double seconds = p.value("wait").toDouble(&ok);
        if (!ok || !(seconds >= 0) || seconds > 86400) {
            err() << "trainbench-cli: --wait: expected seconds in [0, 86400], got \"" << p.value("wait") << "\"\n";
            return Usage;
        }
        waitMs = int(seconds * 1000);
    }
    if (p.isSet("resume") && p.isSet("no-db")) {
        err() << "trainbench-cli: --resume continues an experiment stored in a database: it cannot go with --no-db\n";
        return Usage;
    }
    if (p.isSet("mpi"))
        return runMpi(*spec, reg, p, waitMs);
    std::unique_ptr<tb::RunStore> store;
    qint64 resumeId = -1;
    if (const int failed = openForRun(*spec, p, waitMs, store, resumeId); failed != Ok)
        return failed;
    return runSpec(*spec, reg, store.get(), p, nullptr, resumeId);
}

// ---------------------------------------------------------------------------------- rerun
int cmdRerun(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("Run a stored run (or with --experiment, a stored experiment) again with its stored "
                                "settings: algorithm, parameters, seed, thread count and data.");
    p.addHelpOption();
    p.addPositionalArgument("id", "Run id (see `trainbench-cli runs`), or experiment id with --experiment.");
    p.addOption({"experiment", "The id is an experiment's: re-run all of it."});
    p.addOption({"db", "Run database (default: the user's app-data folder); the re-run is logged to it.", "file"});
    p.addOption({"plot", "Write the charts as PNG (learning curves: FILE and FILE-epoch).", "file.png"});
    p.addOption({"csv", "Write the results as CSV.", "file.csv"});
    p.addOption({"quiet", "No progress bar."});
    p.process(args);
    bool ok = false;
    const qint64 id = p.positionalArguments().value(0).toLongLong(&ok);
    if (!ok || p.positionalArguments().size() != 1) {
        err() << "usage: trainbench-cli rerun ID [--experiment] [--db FILE] [--plot OUT.png] [--csv OUT.csv]\n";
        return Usage;
    }
    auto store = openStore(p.value("db"));
    if (!store)
        return Database;
    tb::PluginRegistry reg;
    reg.scan();
    warnAboutPlugins(reg);
    QString error;
    const auto rerun = p.isSet("experiment") ? tb::StoredRuns::rerunOfExperiment(*store, id, &error)
                                             : tb::StoredRuns::rerunOfRun(*store, reg, id, &error);
    if (!rerun) {
        err() << "trainbench-cli: " << error << Qt::endl;
        return Usage;
    }
    err() << "Re-running " << rerun->description << " with its stored settings\n";
    for (const QString& n : rerun->notes)
        err() << "  note: " << n << "\n";
    tb::ExperimentResult result;
    const int code = runSpec(rerun->spec, reg, store.get(), p, nullptr, -1, &result);
    // One stored run re-run as one run: say how its numbers compare with the stored ones, and
    // whether the CPU or the build differs (a noise-sweep run re-runs its whole sweep instead).
    if (!p.isSet("experiment") && result.error.isEmpty() && result.curves.size() == 1 &&
        result.curves.first().infos.size() == 1 && result.curves.first().statuses.value(0) == tb::RunStatus::Finished) {
        QString readError;
        if (const auto stored = store->run(id, &readError)) {
            const auto agreement = tb::StoredRuns::agreement(*stored, result.curves.first().infos.first());
            out() << "compared with the stored run: " << agreement.text << "\n";
        } else if (!readError.isEmpty()) {
            err() << "trainbench-cli: " << readError << Qt::endl;
        }
    }
    return code;
}

// ---------------------------------------------------------------------------------- runs
int cmdRuns(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("List past experiments and their runs.");
    p.addHelpOption();
    p.addOption({"db", "Run database.", "file"});
    p.addOption({"json", "Print JSON."});
    p.process(args);
    if (!p.isSet("db") && !QFileInfo::exists(tb::RunStore::defaultPath())) {
        out() << "No experiments yet (" << tb::RunStore::defaultPath() << " does not exist)\n";
        return Ok;
    }
    auto store = openStore(p.value("db"), true);
    if (!store)
        return Database;
    QString readError;
    const auto exps = store->experiments(&readError);
    if (!readError.isEmpty()) {
        err() << "trainbench-cli: " << readError << Qt::endl;
        return Database;
    }
    QJsonArray jexps;
    for (const auto& e : exps) {
        const auto runs = store->runs(e.id, &readError);
        if (!readError.isEmpty()) {
            out().flush();
            err() << "trainbench-cli: " << readError << Qt::endl;
            return Database;
        }
        if (p.isSet("json")) {
            QJsonArray jr;
            for (const auto& r : runs)
                jr.append(QJsonObject{{"id", r.id}, {"algorithm", r.algorithmId}, {"label", r.algorithmName},
                                      {"status", tb::runStatusName(r.status)}, {"seed", QString::number(r.seed)},
                                      {"threads", r.threads}, {"repeat", r.repeat}, {"error", r.error},
                                      {"plugin_version", r.pluginVersion}, {"app_version", r.appVersion},
                                      {"params", QJsonObject::fromVariantMap(r.params)}, {"info", r.info},
                                      {"owner", QJsonObject{{"host", r.owner.host}, {"pid", r.owner.pid},
                                                            {"start_ticks", r.owner.startTicks},
                                                            {"boot_id", r.owner.bootId}}}});
            jexps.append(QJsonObject{{"id", e.id}, {"name", e.name}, {"kind", e.kind},
                                     {"created", e.created.toString(Qt::ISODate)}, {"app_version", e.appVersion},
                                     {"git_hash", e.gitHash}, {"runs", jr}});
            continue;
        }
        out() << "experiment " << e.id << "  " << e.name << "  [" << e.kind << "]  "
              << e.created.toLocalTime().toString("yyyy-MM-dd hh:mm:ss") << "  app " << e.appVersion << " ("
              << e.gitHash << ")\n";
        for (const auto& r : runs) {
            const QJsonObject fin = r.info.value("final").toObject();
            QString metrics;
            if (fin.contains("test_accuracy"))
                metrics = QStringLiteral("train acc %1  test acc %2").arg(fmtPct(fin.value("train_accuracy").toDouble(NAN)),
                                                                          fmtPct(fin.value("test_accuracy").toDouble(NAN)));
            else if (fin.contains("test_rmse"))
                metrics = QStringLiteral("train RMSE %1  test RMSE %2").arg(fmt(fin.value("train_rmse").toDouble(NAN)),
                                                                            fmt(fin.value("test_rmse").toDouble(NAN)));
            else if (r.info.contains("cells"))
                metrics = QStringLiteral("%1/%2 cells finished").arg(r.info.value("cells_finished").toInt()).arg(r.info.value("cells").toInt());
            const double secs = r.ended.isValid() ? r.started.msecsTo(r.ended) / 1000.0 : NAN;
            out() << QString("  run %1  %2 %3  seed %4  %5 thr  %6 s  %7")
                         .arg(r.id, 5)
                         .arg(r.algorithmName.left(24), -24)
                         .arg(tb::runStatusName(r.status), -11)
                         .arg(r.seed)
                         .arg(r.threads)
                         .arg(fmt(secs))
                         .arg(metrics);
            if (const QString mem = tb::CostPrediction::fromRunInfo(r.info).compareMemory(r.info); !mem.isEmpty())
                out() << "  " << mem;
            if (const QString cost = tb::CostPrediction::fromRunInfo(r.info).compare(r.info); !cost.isEmpty())
                out() << "  " << cost;
            else if (const QString cell =
                         tb::CostPrediction(r.info.value("predicted_cost_per_cell").toObject()).describe();
                     !cell.isEmpty())
                out() << "  predicted " << cell << " per cell";
            if (r.status == tb::RunStatus::Running)
                out() << "  (trained by " << r.owner.describe() << ")";
            if (!r.error.isEmpty())
                out() << "  (" << r.error << ")";
            out() << "\n";
        }
    }
    if (p.isSet("json"))
        out() << QJsonDocument(QJsonObject{{"database", store->path()}, {"experiments", jexps}}).toJson();
    else if (exps.isEmpty())
        out() << "No experiments in " << store->path() << "\n";
    out().flush();
    return Ok;
}

// ---------------------------------------------------------------------------------- export
int cmdExport(const QStringList& args)
{
    QCommandLineParser p;
    p.setApplicationDescription("Export a past experiment's charts and metrics.");
    p.addHelpOption();
    p.addPositionalArgument("id", "Experiment id (see `trainbench-cli runs`).");
    p.addOption({"db", "Run database.", "file"});
    p.addOption({"plot", "PNG file.", "file.png"});
    p.addOption({"csv", "CSV file.", "file.csv"});
    p.process(args);
    bool ok = false;
    const qint64 id = p.positionalArguments().value(0).toLongLong(&ok);
    if (!ok || p.positionalArguments().size() != 1 || (!p.isSet("plot") && !p.isSet("csv"))) {
        err() << "usage: trainbench-cli export ID [--db FILE] --plot OUT.png and/or --csv OUT.csv\n";
        return Usage;
    }
    auto store = openStore(p.value("db"), true);
    if (!store)
        return Database;
    QString error;
    const auto result = tb::StoredRuns::experiment(*store, id, &error);
    if (!result) {
        err() << "trainbench-cli: " << error << Qt::endl;
        return store->lastError().isEmpty() ? Usage : Database; // an unknown id, or a failed read
    }
    const auto exp = store->experiment(id);
    int code = Ok;
    if (p.isSet("plot")) {
        QStringList written;
        if (!tb::cli::writeCharts(*result, exp ? exp->name : QString(), p.value("plot"), &written, &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = Output;
        }
        for (const auto& w : written)
            out() << "chart: " << QFileInfo(w).absoluteFilePath() << "\n";
    }
    if (p.isSet("csv")) {
        QList<qint64> runIds; // every run of the experiment, as the workbench's run browser exports them
        for (const tb::RunRecord& r : store->runs(id))
            runIds << r.id;
        if (!tb::ResultCsv::writeRuns(*store, runIds, p.value("csv"), &error)) {
            err() << "trainbench-cli: " << error << Qt::endl;
            code = Output;
        } else {
            out() << "csv: " << QFileInfo(p.value("csv")).absoluteFilePath() << "\n";
        }
    }
    out().flush();
    return code;
}

void usage()
{
    err() << "usage: trainbench-cli <command> [options]\n\n"
             "commands:\n"
             "  list [--json]                         plugins, algorithms, parameter schemas, broken plugins\n"
             "  run SPEC.json [--db FILE] [--no-db] [--threads N] [--plot OUT.png] [--csv OUT.csv] [--quiet]\n"
             "                [--wait SECONDS] [--resume]\n"
             "  mpirun -np N trainbench-cli run SPEC.json --mpi [--threads-per-rank N] [--worker-timeout S] …\n"
             "                                        the cells on the ranks of an MPI job (docs/cluster.md)\n"
             "  rerun ID [--experiment] [--db FILE] [--plot OUT.png] [--csv OUT.csv] [--quiet]\n"
             "                                        run a stored run (or experiment) again, exactly\n"
             "  runs [--db FILE] [--json]             past experiments and runs\n"
             "  export ID [--db FILE] [--plot OUT.png] [--csv OUT.csv]\n"
             "  compare ID [ID ...] [--db FILE] [--metric KEY] [--baseline NAME] [--format text|csv|markdown|latex]\n"
             "                                        result matrix, paired tests, grid, time to target (docs/cli.md)\n"
             "  reproduce CLAIMS.json... [--out DIR] [--quick] [--resume] [--no-train] [--db FILE] [--check] [--mpi]\n"
             "                                        re-measure papers' claims, one report per file (docs/reproductions);\n"
             "                                        with --mpi under mpirun, the runs train on the job's ranks\n"
             "  datasets [list|fetch|verify|path|remove] NAME… [--json] [--mirror URL] [--sha256 HEX] [--yes]\n"
             "                                        the papers' public data sets, fetched once into a cache\n"
             "  --version\n\n"
             "exit codes: 0 ok, 1 runs failed/diverged, 2 usage, 3 invalid experiment or data,\n"
             "            4 database, 5 stopped by user, 6 output not written, 7 download failed\n";
    err().flush();
}

} // namespace

int main(int argc, char** argv)
{
    tb::ProcessSetup::useHugePages(argv); // may restart the process once: first thing
    tb::cli::LibraryNoise::install();     // before QApplication, whose start-up already remarks
    // The CLI never shows a window; Qt Charts still need a QApplication to render PNGs.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName("trainbench");
    QCoreApplication::setOrganizationName("trainbench");
    QCoreApplication::setApplicationVersion(TB_APP_VERSION);

    QStringList args = app.arguments();
    if (args.size() < 2 || args[1] == "help" || args[1] == "--help" || args[1] == "-h") {
        usage();
        return args.size() < 2 ? Usage : Ok;
    }
    if (args[1] == "--version") {
        out() << "trainbench-cli " << TB_APP_VERSION << " (" << tb::gitHash() << ")\n";
        return Ok;
    }
    const QString cmd = args.takeAt(1);
    args[0] = QStringLiteral("trainbench-cli ") + cmd;
    // Loaders, trainers and the store turn their failures into messages; what still escapes
    // (memory exhausted while building charts or results, say) is reported with the command,
    // never as a bare "terminate called after throwing std::bad_alloc".
    try {
        if (cmd == "list")
            return cmdList(args);
        if (cmd == "run")
            return cmdRun(args);
        if (cmd == "rerun")
            return cmdRerun(args);
        if (cmd == "runs")
            return cmdRuns(args);
        if (cmd == "export")
            return cmdExport(args);
        if (cmd == "compare")
            return tb::cli::compareCommand(args);
        if (cmd == "reproduce") {
            std::signal(SIGINT, onSigint);
            std::signal(SIGTERM, onSigint);
            return tb::cli::reproduceCommand(args, &g_runner);
        }
        if (cmd == "datasets") {
            std::signal(SIGINT, onSigint);
            std::signal(SIGTERM, onSigint);
            return tb::cli::datasetsCommand(args, &g_fetchStop);
        }
    } catch (const std::bad_alloc&) {
        err() << "trainbench-cli " << cmd << ": out of memory (std::bad_alloc)" << Qt::endl;
        return Invalid;
    } catch (const std::exception& e) {
        err() << "trainbench-cli " << cmd << ": " << QString::fromUtf8(e.what()) << Qt::endl;
        return Invalid;
    }
    err() << "trainbench-cli: unknown command \"" << cmd << "\"\n\n";
    usage();
    return Usage;
}
