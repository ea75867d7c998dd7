#include "ReproduceCommand.h"
#include "CliStreams.h"

#include "ChartExport.h"
#include "CommandSupport.h"
#include "ProgressBar.h"
#include "ServeExperiments.h"
#include "WorkerTimeout.h"

#include <store/BuildInfo.h>
#include <repro/ClaimEvaluator.h>
#include <repro/ClaimExperiment.h>
#include <repro/ClaimsFile.h>
#include <data/DataSource.h>
#include <data/DatasetCache.h>
#include <data/DatasetCatalog.h>
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentKind.h>
#include <engine/PluginRegistry.h>
#include <repro/ReproductionReport.h>
#include <store/RunStore.h>
#include <engine/StoredRuns.h>

#ifdef TB_HAVE_MPI
#include <cluster/MpiRootExecutor.h>
#include <cluster/MpiSession.h>
#include <cluster/MpiWorkerExecutor.h>
#endif

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScopeGuard>
#include <QSet>
#include <QTextStream>

#include <atomic>
#include <cstdio>
#include <functional>
#include <numeric>
#include <unistd.h>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "0.0.0"
#endif

namespace tb::cli {
namespace {

using namespace tb::repro;

/// The progress bar, and a count of the runs this command trained (what --resume skips).
class CountingObserver final : public ExperimentObserver {
public:
    explicit CountingObserver(ProgressBar* bar) : m_bar(bar) {}
    void experimentStarted(qint64 id, const ExperimentSpec& spec, int total) override
    {
        m_bar->experimentStarted(id, spec, total);
    }
    void progress(int done, int total) override { m_bar->progress(done, total); }
    void runStarted(const RunJob& job, qint64 runId) override
    {
        m_runs.fetch_add(1);
        m_bar->runStarted(job, runId);
    }
    void costPredicted(const RunJob& job, qint64 runId, const QJsonObject& cost) override
    {
        m_bar->costPredicted(job, runId, cost);
    }
    void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint& p) override
    {
        m_bar->checkpointLogged(job, runId, p);
    }
    int runs() const { return m_runs.load(); }

private:
    ProgressBar* m_bar;
    std::atomic<int> m_runs{0};
};

/// One distinct experiment of the claims being reproduced, run once for all its claims.
struct PlannedExperiment {
    ExperimentSpec spec;
    QJsonObject json;   ///< the object spec was parsed from (what MPI workers parse)
    QString sourceName; ///< the name spec's errors use
    QString file;   ///< as the claims file names it, or "inline"
    QString absent; ///< why its data is not here; empty when it can run
    ExperimentResult result;
    bool ran = false;
    bool reused = false;
    int trainedRuns = 0;
    QStringList charts;
    QString provenance; ///< when and by which builds its stored runs were trained
    /// --no-train read a learning curve that is not fully trained: "k of n runs stored".
    QString partial;
};

// When the experiment's stored runs were trained and by which builds: its runs may come from
// several commands (--resume) and builds, which the report must say rather than imply that this
// command trained them. Each run names its build ("git_hash" fact); older runs, their experiment's.
QString provenance(const RunStore& store, qint64 experimentId)
{
    QString error;
    const auto experiment = store.experiment(experimentId, &error);
    const QList<RunRecord> runs = store.runs(experimentId, &error);
    if (!experiment || runs.isEmpty())
        return {};
    QDateTime first, last;
    QStringList builds;
    for (const RunRecord& r : runs) {
        if (r.started.isValid() && (!first.isValid() || r.started < first))
            first = r.started;
        if (r.ended.isValid() && (!last.isValid() || r.ended > last))
            last = r.ended;
        QString hash = r.info.value(QStringLiteral("git_hash")).toString();
        if (hash.isEmpty())
            hash = experiment->gitHash;
        if (!builds.contains(hash))
            builds << hash;
    }
    const auto utc = [](const QDateTime& t) { return t.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm")); };
    return QStringLiteral("%1 run(s) trained %2 – %3 UTC by git %4")
        .arg(runs.size())
        .arg(first.isValid() ? utc(first) : QStringLiteral("?"), last.isValid() ? utc(last) : QStringLiteral("?"),
             builds.join(QStringLiteral(", ")));
}

// Why an experiment's data is not on this machine, before anything runs: the catalogue sets
// (`datasets fetch`) not in the cache, and the data files or folders its data set names that do
// not exist. Empty when everything it names is here (loading may still fail: that is reported too).
QString absentData(const ExperimentSpec& spec)
{
    QStringList catalogue, files;
    const ExperimentKind* kind = ExperimentKinds::find(spec.kind);
    for (const QJsonObject& set : kind ? kind->datasets(spec) : QList<QJsonObject>{spec.dataset}) {
        const QString source = set.value(QStringLiteral("source")).toString();
        const data::DatasetEntry* entry = data::DatasetCatalog::find(source);
        if (entry && data::DatasetCache::state(*entry) == data::DatasetCache::State::Missing &&
            !catalogue.contains(source))
            catalogue << source;
        // Path keys come back absolute (withAbsolutePaths knows the source's Path and Folder keys).
        const QJsonObject resolved = data::DataSource::withAbsolutePaths(set, spec.baseDir);
        for (auto it = resolved.begin(); it != resolved.end(); ++it) {
            const QString v = it.value().toString();
            if (v.startsWith(QLatin1Char('/')) && !QFileInfo::exists(v))
                files << QStringLiteral("dataset.%1: %2 does not exist").arg(it.key(), v);
        }
    }
    QStringList why;
    if (!catalogue.isEmpty())
        why << QStringLiteral("the catalogue data set(s) %1 are not in %2 (fetch with `trainbench-cli "
                              "datasets fetch %3`)")
                   .arg(catalogue.join(QStringLiteral(", ")), data::DatasetCache::root(),
                        catalogue.join(QLatin1Char(' ')));
    files.removeDuplicates();
    why << files;
    return why.isEmpty() ? QString() : QStringLiteral("data absent: ") + why.join(QStringLiteral("; "));
}

QString quotedArgument(const QString& a)
{
    if (!a.isEmpty() && !a.contains(QRegularExpression(QStringLiteral("[^A-Za-z0-9_./=:,@%+-]"))))
        return a;
    QString q = a;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

int usage(const QString& message)
{
    err() << "trainbench-cli reproduce: " << message << "\n"
          << "usage: trainbench-cli reproduce FILE.json [FILE.json ...] [--out DIR] [--quick] [--resume] "
             "[--no-train] [--db FILE] [--check] [--quiet]\n"
             "       mpirun -np N trainbench-cli reproduce FILE.json ... --mpi [--worker-timeout S] [options]\n";
    err().flush();
    return Usage;
}

/// The MPI job of `reproduce --mpi` as rank 0 sees it.
struct MpiJob {
    int ranks = 1;
    QString host;
    CellExecutor* executor = nullptr; ///< the root executor; null with one rank (cells train here)
    /// Before an experiment's runner starts, and after it returned.
    std::function<void(const PlannedExperiment&)> begin;
    std::function<void()> end;
};

int reproduce(const QCommandLineParser& p, const QStringList& args, ExperimentRunner** current,
              const QElapsedTimer& wall, PluginRegistry& reg, const MpiJob* mpi);


/// `reproduce --mpi`: rank 0 reproduces with an MPI root executor; the other ranks serve it.
int reproduceMpi(const QCommandLineParser& p, const QStringList& args, ExperimentRunner** current,
                 const QElapsedTimer& wall)
{
#ifndef TB_HAVE_MPI
    Q_UNUSED(p);
    Q_UNUSED(args);
    Q_UNUSED(current);
    Q_UNUSED(wall);
    err() << "trainbench-cli: --mpi needs the MPI build: Open MPI was not found when this program was built "
             "(install openmpi-bin and libopenmpi-dev, e.g. with ./run.sh, and build again)\n";
    return Usage;
#else
    QString timeoutError;
    const std::optional<double> workerTimeout = cli::workerTimeout(p, &timeoutError);
    if (!workerTimeout)
        return usage(timeoutError);
    const double timeout = *workerTimeout;
    cluster::MpiSession session(nullptr, nullptr);
    if (!session.ok()) {
        err() << "trainbench-cli: --mpi: " << session.error() << Qt::endl;
        return Usage;
    }
    if (session.rank() != 0)
        return serveExperiments(session, current);
    PluginRegistry reg; // scanned by reproduce(), before any experiment reaches run()
    cluster::MpiRootExecutor::Options options;
    options.workerTimeoutSeconds = timeout;
    options.notify = [](const QString& line) { lineToStderr(QStringLiteral("trainbench-cli: ") + line); };
    cluster::MpiRootExecutor root(session, reg, options);
    MpiJob job;
    job.ranks = session.size();
    job.host = session.host();
    if (session.size() > 1) {
        job.executor = &root;
        job.begin = [&root](const PlannedExperiment& e) {
            root.setExperiment({e.json, e.sourceName, e.spec.sourcePath, e.spec.baseDir});
        };
        job.end = [&root] { root.endExperiment(); };
    }
    // Workers never wait for a rank 0 that gave up (an exception main() reports): they end with it.
    auto quitOnThrow = qScopeGuard([&root] { root.quit(Invalid); });
    int code = reproduce(p, args, current, wall, reg, &job);
    printRankLoad(root);
    if (code == Ok && !root.problems().isEmpty())
        code = RunsFailed;
    if (code != Ok && qgetenv("OMPI_MCA_orte_enable_recovery") == "1")
        err() << "trainbench-cli: exit status " << code
              << " (mpirun --enable-recovery reports 0 whatever the ranks return; see docs/cluster.md)" << Qt::endl;
    err().flush();
    // Every worker leaves with rank 0's code (a malformed claims file ends every rank non-zero);
    // last, because mpirun may end the job as soon as a rank exits non-zero.
    root.quit(code);
    if (root.lostWorkers())
        session.skipFinalize();
    return code;
#endif
}

} // namespace

int reproduceCommand(const QStringList& args, ExperimentRunner** current)
{
    QElapsedTimer wall;
    wall.start();
    QCommandLineParser p;
    p.setApplicationDescription(
        "Re-measure papers' claims (resources/claims/*.json) and write one report per file.");
    p.addHelpOption();
    p.addPositionalArgument("files", "Claims files (resources/claims/*.json).");
    p.addOption({"out", "Folder of the reports and their charts (default: docs/reproductions).", "dir"});
    p.addOption({"quick",
                 "Only the claims each file marks quick, with their declared quick variants (fewer seeds, "
                 "less data, shorter budgets); the reports say so and are named <paper>-quick.md."});
    p.addOption({"resume",
                 "Use the runs the database already holds: an experiment stored with the same settings is "
                 "continued (only its unfinished runs train), not run again."});
    p.addOption({"no-train",
                 "Train nothing: write the reports from the runs the database holds (an experiment stored "
                 "with the same settings, finished or not); claims whose experiment is not stored say so."});
    p.addOption({"mpi",
                 "Train on the ranks of an MPI job (start with mpirun -np N, N ≥ 2): rank 0 checks the files, "
                 "owns the database and writes the reports; the other ranks train each experiment's cells "
                 "(docs/cluster.md)."});
    p.addOption({"worker-timeout",
                 "With --mpi: seconds of silence after which a worker rank counts as lost (default 30).",
                 "seconds"});
    p.addOption({"db", "Run database (default: the user's app-data folder).", "file"});
    p.addOption(
        {"check",
         "Check the files and their experiments against the plugins, print what would run, run nothing."});
    p.addOption({"quiet", "No progress bar."});
    p.process(args);

    if (p.positionalArguments().isEmpty())
        return usage(QStringLiteral("give at least one claims file"));
    if (p.isSet("worker-timeout") && !p.isSet("mpi"))
        return usage(QStringLiteral("--worker-timeout goes with --mpi"));
    if (p.isSet("mpi"))
        return reproduceMpi(p, args, current, wall);
    PluginRegistry reg;
    return reproduce(p, args, current, wall, reg, nullptr);
}

namespace {

// Everything `reproduce` does, on rank 0 of an MPI job when mpi is set, one step a method: the
// files read and checked, the distinct experiments planned, trained (or read), the reports written.
class Reproduction {
public:
    Reproduction(const QCommandLineParser& p, const QStringList& args, ExperimentRunner** current,
                 const QElapsedTimer& wall, PluginRegistry& reg, const MpiJob* mpi)
        : m_p(p), m_args(args), m_current(current), m_wall(wall), m_reg(reg), m_mpi(mpi),
          m_quick(p.isSet("quick")),
          m_outDir(p.value("out").isEmpty() ? QStringLiteral("docs/reproductions") : p.value("out"))
    {
    }

    // The steps in order; returns the CLI's exit code.
    int run()
    {
        if (!readFiles())
            return Invalid;
        if (!QDir().mkpath(m_outDir)) {
            err() << "trainbench-cli: " << m_outDir << ": cannot create the folder" << Qt::endl;
            return Output;
        }
        m_reg.scan();
        warnAboutPlugins(m_reg);
        if (!planExperiments())
            return Invalid;
        if (m_p.isSet("check"))
            return printPlan();
        m_store = openStore(m_p.value("db"));
        if (!m_store)
            return Database;
        if (!trainExperiments())
            return Database;
        for (int f = 0; f < m_files.size(); ++f)
            writeReport(f);
        out() << "database: " << m_store->path() << "\n";
        out().flush();
        err().flush();
        return m_code;
    }

private:
    // Reads every claims file before anything runs: a typo in the last file must not cost an hour.
    // False after printing the problems.
    bool readFiles()
    {
        QSet<QString> papers;
        for (const QString& path : m_p.positionalArguments()) {
            const auto file = ClaimsFile::fromFile(path, &m_problems);
            if (!file)
                continue;
            if (papers.contains(file->paper))
                m_problems << QStringLiteral(
                                  "%1: paper: \"%2\" is also the paper of an earlier file (its report would be "
                                  "overwritten)")
                                  .arg(file->path, file->paper);
            papers.insert(file->paper);
            m_files << *file;
        }
        return reportProblems();
    }

    // Prints the problems found so far; true when there are none.
    bool reportProblems() const
    {
        if (m_problems.isEmpty())
            return true;
        for (const QString& pr : m_problems)
            err() << pr << "\n";
        err().flush();
        return false;
    }

    // The experiments, each once however many claims read it (same stored settings = same
    // experiment), checked against the plugins. False after printing the problems.
    bool planExperiments()
    {
        for (const ClaimsFile& file : m_files) {
            QList<int> indices;
            for (const Claim& claim : file.claims)
                indices << planExperiment(file, claim);
            m_claimExperiment << indices;
        }
        return reportProblems();
    }

    // The index of @p claim's experiment in m_experiments (added when new), −1 when it does not run.
    int planExperiment(const ClaimsFile& file, const Claim& claim)
    {
        if (m_quick && !claim.quick.included)
            return -1;
        QString error;
        auto spec = ClaimExperiment::spec(file, claim, m_quick, &error);
        if (!spec) {
            m_problems << error;
            return -1;
        }
        for (const QString& w : spec->warnings)
            err() << "warning: " << w << "\n";
        for (const QString& note : spec->upgradeParams(m_reg))
            err() << "warning: " << note << "\n";
        const QString where = claim.experimentPath.isEmpty()
                                  ? QStringLiteral("%1: %2.experiment").arg(file.path, claim.jsonPath)
                                  : QStringLiteral("%1: %2.experiment (%3)")
                                        .arg(file.path, claim.jsonPath, claim.experimentPath);
        for (QString pr : spec->validate(m_reg)) {
            if (pr.startsWith(spec->sourcePath + QStringLiteral(": ")))
                pr = pr.mid(spec->sourcePath.size() + 2);
            m_problems << QStringLiteral("%1: %2").arg(where, pr);
        }
        const QString key =
            QString::fromUtf8(QJsonDocument(ExperimentRunner::storedSpec(*spec)).toJson(QJsonDocument::Compact));
        if (!m_experimentIndex.contains(key)) {
            PlannedExperiment e;
            e.spec = *spec;
            e.json = ClaimExperiment::json(file, claim, m_quick, &error).value_or(QJsonObject());
            e.sourceName = ClaimExperiment::sourceName(file, claim);
            e.file = experimentFile(file, claim);
            e.absent = absentData(*spec);
            m_experimentIndex.insert(key, int(m_experiments.size()));
            m_experiments << e;
        }
        return m_experimentIndex.value(key);
    }

    // The claim's experiment file as its claims file names it, or "inline".
    static QString experimentFile(const ClaimsFile& file, const Claim& claim)
    {
        return claim.experimentPath.isEmpty()
                   ? QStringLiteral("inline")
                   : QDir(QFileInfo(file.path).absolutePath()).relativeFilePath(claim.experimentPath);
    }

    // --check: the plan, each distinct experiment once with the claims that read it.
    int printPlan() const
    {
        int runs = 0, cells = 0;
        for (int i = 0; i < m_experiments.size(); ++i) {
            const PlannedExperiment& e = m_experiments[i];
            QStringList readers;
            for (int f = 0; f < m_files.size(); ++f)
                for (int c = 0; c < m_files[f].claims.size(); ++c)
                    if (m_claimExperiment[f][c] == i)
                        readers << m_files[f].paper + QLatin1Char('/') + m_files[f].claims[c].id;
            const ExperimentKind* kind = ExperimentKinds::find(e.spec.kind);
            const int units = kind ? kind->plannedRuns(e.spec) : 0;
            out() << "experiment “" << e.spec.name << "” (" << e.file << "): " << e.spec.kind << ", "
                  << e.spec.algorithms.size() << " algorithm(s), " << units << ' '
                  << (kind ? kind->unit(units) : QStringLiteral("runs"));
            if (e.spec.timeBudgetSeconds > 0)
                out() << ", budget " << e.spec.timeBudgetSeconds << " s per run";
            out() << "\n  claims: " << readers.join(QStringLiteral(", ")) << "\n";
            if (!e.absent.isEmpty())
                out() << "  not run: " << e.absent << "\n";
            else if (kind && kind->unitsAreRuns())
                runs += units;
            else
                cells += units;
        }
        out() << m_experiments.size() << " experiment(s); " << runs << " run(s)";
        if (cells > 0)
            out() << " and " << cells << " cell(s) of kinds that store statistics, not runs";
        out() << "; every file is valid\n";
        out().flush();
        return Ok;
    }

    // Trains each experiment whose data is here (with --no-train reads it from the store), until
    // Ctrl-C. False after a failed write to the database (exit code 4).
    bool trainExperiments()
    {
        int runnable = 0;
        for (const PlannedExperiment& e : m_experiments)
            runnable += e.absent.isEmpty();
        if (m_mpi && m_mpi->ranks == 1)
            err() << "warning: --mpi with one rank: the runs train in this process (start it with mpirun -np N, N ≥ 2)"
                  << Qt::endl;
        else if (m_mpi)
            err() << "MPI: " << m_mpi->ranks - 1 << " worker rank(s); rank 0 on " << m_mpi->host
                  << " owns the database and writes the reports" << Qt::endl;
        int done = 0;
        for (PlannedExperiment& e : m_experiments) {
            if (!e.absent.isEmpty()) {
                err() << "Not running \"" << e.spec.name << "\": " << e.absent << Qt::endl;
                continue;
            }
            if (m_stopped)
                break;
            ++done;
            const QString step = QStringLiteral("[%1/%2] ").arg(done).arg(runnable);
            qint64 resumeId = -1;
            if (m_p.isSet("resume") || m_p.isSet("no-train")) {
                resumeId = ExperimentRunner::resumable(*m_store, e.spec, nullptr);
            }
            if (m_p.isSet("no-train"))
                readStored(e, resumeId, step);
            else if (!train(e, resumeId, step))
                return false;
        }
        return true;
    }

    // --no-train: the stored runs as they are. A partial experiment gives the claims the seeds it
    // has, and each report says n of the n asked for.
    void readStored(PlannedExperiment& e, qint64 resumeId, const QString& step)
    {
        QString error;
        const auto stored = resumeId >= 0 ? StoredRuns::experiment(*m_store, resumeId, &error) : std::nullopt;
        if (!stored) {
            e.absent = resumeId < 0 ? QStringLiteral("not run: --no-train, and the database holds no experiment "
                                                     "with these settings")
                                    : QStringLiteral("not run: --no-train, and experiment %1 could not be "
                                                     "read: %2")
                                          .arg(resumeId)
                                          .arg(error);
            err() << "Not reading \"" << e.spec.name << "\": " << e.absent << Qt::endl;
            return;
        }
        err() << step << "Reading experiment " << resumeId << ", \"" << e.spec.name << "\" from " << m_store->path()
              << Qt::endl;
        e.result = *stored;
        e.result.experimentId = resumeId;
        e.ran = true;
        e.reused = true;
        e.provenance = provenance(*m_store, resumeId);
        // Part-trained: runs planned (by the spec, or stored) that have not ended on their own —
        // cancelled, interrupted, never started. A failed or diverged run is a result.
        // (A kind whose runs are cells of statistics, a noise sweep, keeps its own count.)
        const ExperimentKind* kind = ExperimentKinds::find(e.spec.kind);
        const bool ofRuns = kind && kind->unitsAreRuns();
        int planned = e.result.runsPlanned;
        if (ofRuns)
            planned = std::max(planned, kind->plannedRuns(e.spec));
        if (ofRuns && e.result.runsFinished + e.result.runsFailed < planned)
            e.partial = QStringLiteral("experiment %1 is partly trained (%2 of %3 runs finished)")
                            .arg(resumeId)
                            .arg(e.result.runsFinished)
                            .arg(planned);
    }

    // Trains @p e (resumes stored experiment @p resumeId ≥ 0) and notes how it went. False after a
    // failed write to the database.
    bool train(PlannedExperiment& e, qint64 resumeId, const QString& step)
    {
        ExperimentRunner runner(m_reg, m_store.get(), m_mpi ? m_mpi->executor : nullptr);
        *m_current = &runner;
        ProgressBar bar(!m_p.isSet("quiet") && isatty(STDERR_FILENO));
        CountingObserver observer(&bar);
        err() << step
              << (resumeId >= 0 ? QStringLiteral("Resuming experiment %1, \"").arg(resumeId)
                                : QStringLiteral("Running \""))
              << e.spec.name << "\" (" << e.spec.kind << ", " << e.spec.effectiveThreads() << " threads"
              << (m_mpi && m_mpi->executor ? QStringLiteral(" per rank") : QString()) << ") → " << m_store->path()
              << Qt::endl;
        if (m_mpi && m_mpi->begin)
            m_mpi->begin(e);
        e.result = resumeId >= 0 ? runner.resume(e.spec, resumeId, &observer) : runner.run(e.spec, &observer);
        if (m_mpi && m_mpi->end)
            m_mpi->end();
        bar.finish();
        *m_current = nullptr;
        e.ran = true;
        e.trainedRuns = observer.runs();
        if (e.result.experimentId >= 0)
            e.provenance = provenance(*m_store, e.result.experimentId);
        e.reused = resumeId >= 0 && e.trainedRuns == 0;
        for (const QString& w : e.result.warnings)
            err() << "warning: " << w << "\n";
        if (!e.result.storeError.isEmpty()) {
            err() << "trainbench-cli: a write to the database failed: " << e.result.storeError << Qt::endl;
            return false;
        }
        if (e.result.cancelled) {
            m_stopped = true;
            m_code = Stopped;
        }
        if (!e.result.error.isEmpty()) {
            // The experiment could not start here: its data did not load (a file that is not on
            // this machine) or it was refused before training. Its claims stay in the report.
            e.absent = QStringLiteral("not run: the experiment could not start here: %1").arg(e.result.error);
            err() << "Not run: " << e.result.error << Qt::endl;
            return true;
        }
        if (e.result.runsFailed > 0) {
            err() << "trainbench-cli: " << e.result.runsFailed << " run(s) of \"" << e.spec.name
                  << "\" failed or diverged:\n";
            for (const QString& m : e.result.runErrors)
                err() << "  problem: " << m << "\n";
            if (m_code == Ok)
                m_code = RunsFailed;
        }
        return true;
    }

    // Evaluates, charts and writes the report of file @p f, and prints its verdicts.
    void writeReport(int f)
    {
        const ClaimsFile& file = m_files[f];
        const QString base = file.paper + (m_quick ? QStringLiteral("-quick") : QString());
        QList<ClaimReport> reports;
        int chartNumber = 0;
        for (int c = 0; c < file.claims.size(); ++c)
            reports << claimReport(file, file.claims[c], m_claimExperiment[f][c], base, &chartNumber);
        showEachChartOnce(reports);
        const QString mdPath = QDir(m_outDir).filePath(base + QStringLiteral(".md"));
        QSaveFile md(mdPath);
        if (!md.open(QIODevice::WriteOnly) ||
            md.write(ReproductionReport::markdown(file, reportHeader(f), reports).toUtf8()) < 0 || !md.commit()) {
            err() << "trainbench-cli: " << mdPath << ": cannot write: " << md.errorString() << Qt::endl;
            if (m_code == Ok)
                m_code = Output;
            return;
        }
        out() << "report: " << QFileInfo(mdPath).absoluteFilePath() << "\n";
        for (const ClaimReport& r : reports) {
            out() << "  " << r.claim.id << ": "
                  << (r.notRun.isEmpty() ? verdictName(r.outcome.verdict) : QStringLiteral("inconclusive"));
            if (!r.notRun.isEmpty())
                out() << " (" << r.notRun << ")";
            else if (r.outcome.measured)
                out() << " (" << ClaimEvaluator::formatValue(r.outcome.mean, r.claim.figure.unit)
                      << ", n = " << r.outcome.n << "; paper " << ReproductionReport::figureText(r) << ")";
            out() << "\n";
        }
    }

    // One claim's entry in its report: evaluated on its experiment (index @p index, −1 when not
    // run), with the experiment's chart written the first time a claim shows it.
    ClaimReport claimReport(const ClaimsFile& file, const Claim& claim, int index, const QString& base,
                            int* chartNumber)
    {
        ClaimReport r;
        r.claim = claim;
        r.seeds = ClaimExperiment::seeds(claim, m_quick);
        r.outcome.claimId = claim.id;
        r.outcome.ruleText = ClaimEvaluator::describeRule(claim.verdict, claim.figure);
        if (index < 0) {
            r.notRun = QStringLiteral("not in the --quick subset");
            r.outcome = ClaimEvaluator::evaluate(claim, ExperimentResult{}, r.seeds);
            r.outcome.error.clear(); // nothing to find in an empty result
            r.experimentFile = experimentFile(file, claim);
            r.experimentName = r.experimentFile;
            return r;
        }
        PlannedExperiment& e = m_experiments[index];
        r.experimentName = e.spec.name;
        r.experimentFile = e.file;
        if (!e.absent.isEmpty() || !e.ran) {
            r.notRun = e.absent.isEmpty() ? QStringLiteral("not run: the command was stopped first") : e.absent;
            r.outcome = ClaimEvaluator::evaluate(claim, ExperimentResult{}, r.seeds);
            r.outcome.error.clear(); // nothing to find in an empty result
            return r;
        }
        r.experimentId = e.result.experimentId;
        r.reused = e.reused;
        r.trainedRuns = e.trainedRuns;
        r.provenance = e.provenance;
        r.partial = e.partial;
        r.outcome = ClaimEvaluator::evaluate(claim, e.result, r.seeds);
        if (!r.outcome.error.isEmpty() && !e.partial.isEmpty()) {
            // A configuration that has not trained yet, not a fault of the claims file.
            r.notRun = QStringLiteral("not run yet: %1: %2").arg(e.partial, r.outcome.error);
            r.outcome.reason = r.notRun;
            r.outcome.error.clear();
        } else if (!e.partial.isEmpty() && r.outcome.planned > 0 && r.outcome.n < r.outcome.planned) {
            // Fewer seeds than the claim asks for because the rest has not trained yet: no
            // verdict on part of the seeds (what was measured is still shown).
            r.notRun = QStringLiteral("not run yet: %1, so n = %2 of the %3 the claim asks for")
                           .arg(e.partial)
                           .arg(r.outcome.n)
                           .arg(r.outcome.planned);
            r.outcome.verdict = Verdict::Inconclusive;
            r.outcome.reason = r.notRun;
        } else if (!r.outcome.error.isEmpty()) {
            err() << file.path << ": " << claim.jsonPath << ".statistic: " << r.outcome.error << Qt::endl;
            if (m_code == Ok || m_code == RunsFailed)
                m_code = Invalid;
        }
        if (!m_charted.contains(index)) {
            // One chart per experiment (its main one), small: the report is committed.
            m_charted.insert(index);
            const QString png = QDir(m_outDir).filePath(QStringLiteral("%1-%2.png").arg(base).arg(++*chartNumber));
            QStringList written;
            QString chartError;
            if (!writeCharts(e.result, e.spec.name, png, &written, &chartError, QSize(720, 450), 1)) {
                err() << "trainbench-cli: " << chartError << Qt::endl;
                m_code = m_code == Ok ? Output : m_code;
            }
            for (const QString& w : written)
                e.charts << QFileInfo(w).fileName();
        }
        r.charts = e.charts;
        return r;
    }

    // Each chart once in a report: under the first claim that shows it.
    static void showEachChartOnce(QList<ClaimReport>& reports)
    {
        QSet<QString> shown;
        for (ClaimReport& r : reports) {
            QStringList keep;
            for (const QString& chart : r.charts)
                if (!shown.contains(chart)) {
                    keep << chart;
                    shown.insert(chart);
                }
            r.charts = keep;
        }
    }

    // The report's header for file @p f: the command, the machine, the build, the store, the time.
    ReportHeader reportHeader(int f) const
    {
        ReportHeader h;
        QStringList command{QStringLiteral("trainbench-cli reproduce")};
        for (int i = 1; i < m_args.size(); ++i)
            command << quotedArgument(m_args[i]);
        h.command = command.join(QLatin1Char(' '));
        h.claimsFile = m_p.positionalArguments().value(f);
        h.date = QDateTime::currentDateTimeUtc();
        h.cpu = tb::cpuModel();
        h.cores = ExperimentSpec::allCores();
        h.mpiRanks = m_mpi && m_mpi->executor ? m_mpi->ranks : 0;
        h.appVersion = QStringLiteral(TB_APP_VERSION);
        h.gitHash = gitHash();
        h.quick = m_quick;
        h.store = m_store->path();
        h.wallSeconds = m_wall.elapsed() / 1000.0;
        return h;
    }

    const QCommandLineParser& m_p;
    const QStringList& m_args;
    ExperimentRunner** m_current;
    const QElapsedTimer& m_wall;
    PluginRegistry& m_reg;
    const MpiJob* m_mpi;
    const bool m_quick;
    const QString m_outDir;
    QList<ClaimsFile> m_files;
    QStringList m_problems;
    QList<PlannedExperiment> m_experiments;
    QHash<QString, int> m_experimentIndex;
    QList<QList<int>> m_claimExperiment; // [file][claim] → index into m_experiments, −1 when not run
    std::unique_ptr<RunStore> m_store;
    int m_code = Ok;
    bool m_stopped = false;
    QSet<int> m_charted; // experiments whose chart is written
};

// Everything `reproduce` does, on rank 0 of an MPI job when @p mpi is set. @p reg is scanned here.
int reproduce(const QCommandLineParser& p, const QStringList& args, ExperimentRunner** current,
              const QElapsedTimer& wall, PluginRegistry& reg, const MpiJob* mpi)
{
    return Reproduction(p, args, current, wall, reg, mpi).run();
}

} // namespace

} // namespace tb::cli
