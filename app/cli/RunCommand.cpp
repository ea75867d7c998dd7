#include "RunCommand.h"
#include "CliStreams.h"
#include "CommandSupport.h"
#include "Interrupts.h"
#include "RunSpec.h"
#include "RunSuite.h"
#include "ServeExperiments.h"
#include "WorkerTimeout.h"

#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>

#include <QCommandLineParser>
#include <QScopeGuard>
#include <QTextStream>

#ifdef TB_HAVE_MPI
#include <cluster/MpiRootExecutor.h>
#include <cluster/MpiSession.h>
#include <cluster/MpiWorkerExecutor.h>
#endif

#include <numeric>

namespace tb::cli {
namespace {

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

#ifdef TB_HAVE_MPI
// run --mpi of a suite, rank 0: each set an experiment the workers are told in turn (as `reproduce
// --mpi` tells them its experiments); at the end they leave with rank 0's exit code.
template <class Release>
int runSuiteMpi(const tb::ExperimentSpec& spec, const tb::PluginRegistry& reg, const QCommandLineParser& p, int waitMs,
                tb::cluster::MpiSession& mpi, tb::cluster::MpiRootExecutor& root, Release& release)
{
    release.dismiss(); // quit() below ends the workers' loop instead
    auto quitOnThrow = qScopeGuard([&root] { root.quit(Invalid); });
    std::unique_ptr<tb::RunStore> store;
    int code = Ok;
    if (!p.isSet("no-db") && !(store = openStore(p.value("db"), false, waitMs))) {
        code = Database;
    } else {
        SuiteHooks hooks;
        if (mpi.size() > 1) {
            hooks.beginSet = [&root, &spec](const tb::ExperimentSpec& set) {
                root.setExperiment({set.toJson(), spec.sourcePath, spec.sourcePath, spec.baseDir});
            };
            hooks.endSet = [&root] { root.endExperiment(); };
        }
        code = runSuite(spec, reg, store.get(), p, p.isSet("resume"), mpi.size() > 1 ? &root : nullptr, hooks);
    }
    printRankLoad(root);
    if (code == Ok && !root.problems().isEmpty())
        code = RunsFailed;
    err().flush();
    root.quit(code); // last: mpirun may end the job as soon as a rank exits non-zero
    quitOnThrow.dismiss();
    if (root.lostWorkers())
        mpi.skipFinalize();
    return code;
}
#endif

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
    if (mpi.rank() != 0 && spec.isSuite())
        return serveExperiments(mpi, runnerToStop()); // each set an experiment rank 0 names, in turn
    if (mpi.rank() != 0) {
        // A worker: no database, no output but its errors; rank 0 reports the experiment.
        tb::cluster::MpiWorkerExecutor worker(mpi, reg);
        const QStringList problems = spec.validate(reg);
        if (!problems.isEmpty()) {
            worker.refuse(problems.join("; "));
            return Ok;
        }
        tb::ExperimentRunner runner(reg, nullptr, &worker);
        *runnerToStop() = &runner;
        catchInterrupts();
        bool served = false;
        struct Served : tb::ExperimentObserver {
            bool* flag;
            void experimentStarted(qint64, const tb::ExperimentSpec&, int) override { *flag = true; }
        } started;
        started.flag = &served;
        const tb::ExperimentResult r = runner.run(spec, &started);
        *runnerToStop() = nullptr;
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
    if (spec.isSuite())
        return runSuiteMpi(spec, reg, p, waitMs, mpi, root, release);
    std::unique_ptr<tb::RunStore> store;
    qint64 resumeId = -1;
    if (const int failed = openForRun(spec, p, waitMs, store, resumeId); failed != Ok)
        return failed;
    const int code = runSpec(spec, reg, store.get(), p, mpi.size() > 1 ? &root : nullptr, resumeId);
    printRankLoad(root);
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

} // namespace

int runCommand(const QStringList& args)
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
    if (spec->isSuite()) {
        // Each set is an experiment of its own: --resume finds each set's (SuiteRunner).
        std::unique_ptr<tb::RunStore> store;
        if (!p.isSet("no-db") && !(store = openStore(p.value("db"), false, waitMs)))
            return Database;
        return runSuite(*spec, reg, store.get(), p, p.isSet("resume"));
    }
    std::unique_ptr<tb::RunStore> store;
    qint64 resumeId = -1;
    if (const int failed = openForRun(*spec, p, waitMs, store, resumeId); failed != Ok)
        return failed;
    return runSpec(*spec, reg, store.get(), p, nullptr, resumeId);
}

} // namespace tb::cli
