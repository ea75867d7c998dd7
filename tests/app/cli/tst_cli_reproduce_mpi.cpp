// trainbench-cli reproduce --mpi as a cluster user runs it, on this machine (`mpirun --oversubscribe
// -np 3`: rank 0 plans, owns the database and writes the report, two workers train the cells of
// each experiment in turn): a tiny claims file of a learning curve on generated data (with a
// claim's overrides, which the workers must receive) and a noise sweep on the toy data, its
// verdicts equal to one process's, --resume training nothing the second time; and the failure
// paths, each under a deadline so that a hang fails the test: a malformed claims file (reported
// once, every rank exits non-zero), --check (runs nothing), workers without the plugin an
// experiment needs (they refuse, rank 0 says why and exits), Ctrl-C on mpirun (nothing left
// running; --resume completes), a worker killed in the first of two experiments (left out of the
// second), --mpi with one rank (in-process).

#include <CliProcess.h>
#include <store/RunStore.h>

#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <csignal>

using namespace tb;
using tb::testsupport::CliOutput;

namespace {

/// Two claims, two experiments: a learning curve on two moons (the second claim reads Adam with
/// two epochs instead of three through "overrides": a third experiment) and a noise sweep on the
/// toy data (2 σ × 6 Monte-Carlo cells).
const QByteArray kClaims = R"({
  "paper": "small-mpi",
  "title": "A small paper for MPI",
  "claims": [
    {"id": "ridge-moons", "quote": "Ridge gets at least 60 %", "figure": {"value": 60, "unit": "%"},
     "experiment": "moons.json",
     "statistic": {"kind": "final", "algorithm": "Ridge"}, "n": 5,
     "verdict": {"rule": "mean_ci_contains_or_exceeds"}},
    {"id": "adam-two-epochs", "quote": "Adam gets 99 % in two epochs", "figure": {"value": 99, "unit": "%"},
     "experiment": "moons.json", "overrides": {"algorithm_params": {"Adam": {"epochs": 2}}},
     "statistic": {"kind": "final", "algorithm": "Adam"}, "n": 5,
     "verdict": {"rule": "mean_ci_contains_or_exceeds"}},
    {"id": "ridge-toy-rmse", "quote": "RMSE below 2 without noise", "figure": {"value": 2, "unit": "RMSE"},
     "experiment": {"name": "toy sweep", "kind": "noise-sweep", "threads": 1, "seed": 3,
                    "dataset": {"source": "bpls_toy", "function": "linear"},
                    "sweep": {"sigma": [0, 0.5]},
                    "algorithms": [{"id": "linear.ridge", "label": "Ridge"}]},
     "statistic": {"kind": "sweep", "algorithm": "Ridge", "sigma": 0, "metric": "test_rmse"}, "n": 6,
     "verdict": {"rule": "mean_ci_contains_or_below"}}
  ]
})";

const QByteArray kMoons = R"({"name": "moons for reproduce --mpi", "kind": "learning-curve", "threads": 1, "seed": 2,
    "dataset": {"source": "moons", "samples": 200, "noise": 0.3, "test_fraction": 0.3},
    "algorithms": [{"id": "linear.ridge", "label": "Ridge"},
                   {"id": "gradient.adam", "label": "Adam", "params": {"epochs": 3}}]})";

/// Cells of kClaims: 2 × (2 algorithms × 5 seeds) learning-curve runs + 2 σ × 6 noise-sweep cells.
constexpr int kCells = 2 * 2 * 5 + 2 * 6;
/// Longest any command here may take on a busy machine before the test calls it hung.
constexpr int kDeadlineMs = 240000;

} // namespace

class TestCliReproduceMpi : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QProcessEnvironment environment(const QString& plugins = QStringLiteral(TB_PLUGIN_BUILD_DIR)) const
    {
        QProcessEnvironment env = tb::testsupport::cliEnvironment(m_dir.filePath("home"), plugins);
        env.insert("TRAINBENCH_NO_HUGEPAGES", "1");
        return env;
    }

    CliOutput start(const QString& program, const QStringList& args, const QProcessEnvironment& env)
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_dir.path());
        p.start(program, args);
        return tb::testsupport::finishProcess(p, kDeadlineMs);
    }

    /// trainbench-cli @p args on @p ranks MPI ranks.
    CliOutput mpi(int ranks, const QStringList& args)
    {
        return start(tb::testsupport::mpirunProgram(),
                     tb::testsupport::mpirunArguments(ranks) << QStringLiteral(TB_BIN_DIR "/trainbench-cli") << args,
                     environment());
    }

    /// trainbench-cli @p args in one process (no mpirun).
    CliOutput cli(const QStringList& args) { return start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args, environment()); }

    QString write(const QString& name, const QByteArray& bytes)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(f.fileName()));
        return f.fileName();
    }

    QString read(const QString& name)
    {
        QFile f(m_dir.filePath(name));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }

    /// Runs of @p db by status name, and experiments (key "experiments").
    QMap<QString, int> stored(const QString& db)
    {
        QMap<QString, int> counts;
        QString error;
        RunStore::Options o;
        o.readOnly = true;
        auto store = RunStore::open(db, o, &error);
        if (!store) {
            qWarning("%s", qPrintable(error));
            return counts;
        }
        for (const RunRecord& r : store->runs()) {
            counts[runStatusName(r.status)]++;
            if (r.status == RunStatus::Running && !store->metrics(r.id).isEmpty())
                counts["training"]++; // running, with a checkpoint stored: past its start
        }
        counts["experiments"] = int(store->experiments().size());
        return counts;
    }

    /// The verdict lines of stdout ("  ridge-moons: holds (86.67 %, n = 5; paper 60.00 %)").
    static QStringList verdictLines(const QString& out)
    {
        QStringList lines;
        for (const QString& line : out.split('\n'))
            if (line.startsWith("  "))
                lines << line;
        return lines;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        write("moons.json", kMoons);
        write("small.json", kClaims);
    }

    void reproducesOnThreeRanksAsInOneProcess()
    {
        const QString db = m_dir.filePath("mpi.sqlite");
        const CliOutput o = mpi(3, {"reproduce", "small.json", "--mpi", "--db", db, "--out", "out", "--quiet"});
        QVERIFY2(!o.timedOut && o.code == 0, qPrintable(o.out + o.err));
        QVERIFY2(o.err.contains("MPI: 2 worker rank(s)"), qPrintable(o.err));
        // Every cell of the three experiments went to a worker (rank 0 trains none).
        const auto cells = QRegularExpression(R"(cells per worker rank: (\d+), (\d+))").match(o.out);
        QVERIFY2(cells.hasMatch(), qPrintable(o.out));
        QCOMPARE(cells.captured(1).toInt() + cells.captured(2).toInt(), kCells);

        const QString md = read("out/small-mpi.md");
        QVERIFY2(!md.isEmpty(), "no report written");
        const QList<QPair<QString, QString>> verdicts = {{"ridge-moons", "holds"},
                                                         {"adam-two-epochs", "does not hold"},
                                                         {"ridge-toy-rmse", "holds"}};
        for (const auto& [claim, verdict] : verdicts)
            QVERIFY2(md.contains(QStringLiteral("### %1\n").arg(claim)) &&
                         o.out.contains(QStringLiteral("  %1: %2 (").arg(claim, verdict)),
                     qPrintable(claim + "\n" + o.out));
        QCOMPARE(md.count("**Verdict: "), 3);
        QVERIFY2(md.contains("- Runs this command trained: on 3 MPI ranks (`--mpi`;"), qPrintable(md));
        // Rank 0 alone wrote the database: 20 learning-curve runs, one noise-sweep run per algorithm.
        const QMap<QString, int> s = stored(db);
        QCOMPARE(s.value("experiments"), 3);
        QCOMPARE(s.value("finished"), 2 * 2 * 5 + 1);
        QCOMPARE(s.size(), 2); // nothing but finished runs

        // The same claims in one process measure the same (the workers ran the claims' experiments,
        // overrides included, with the same seeds).
        const CliOutput one = cli({"reproduce", "small.json", "--db", m_dir.filePath("one.sqlite"), "--out", "one",
                                   "--quiet"});
        QVERIFY2(!one.timedOut && one.code == 0, qPrintable(one.out + one.err));
        QCOMPARE(verdictLines(o.out), verdictLines(one.out));
        QCOMPARE(verdictLines(o.out).size(), 3);
    }

    void resumeOnThreeRanksTrainsNothing()
    {
        const QString db = m_dir.filePath("mpi.sqlite");
        const QMap<QString, int> before = stored(db);
        QVERIFY(before.value("finished") > 0);
        const CliOutput o =
            mpi(3, {"reproduce", "small.json", "--mpi", "--resume", "--db", db, "--out", "out", "--quiet"});
        QVERIFY2(!o.timedOut && o.code == 0, qPrintable(o.out + o.err));
        QCOMPARE(o.err.count("Resuming experiment "), 3);
        QVERIFY2(!o.out.contains("cells per worker rank"), qPrintable(o.out)); // no cell went out
        QCOMPARE(stored(db), before);
        const QString md = read("out/small-mpi.md");
        QCOMPARE(md.count("read back, nothing left to train"), 3);
        QCOMPARE(md.count("**Verdict: "), 3);
    }

    void malformedClaimsFileEndsEveryRankAtOnce()
    {
        QByteArray bad = kClaims;
        bad.replace("\"n\": 6,", "\"n\": 2,");
        QVERIFY(bad != kClaims);
        const QString path = write("bad.json", bad);
        const QString db = m_dir.filePath("bad.sqlite");
        const CliOutput o = mpi(3, {"reproduce", "bad.json", "--mpi", "--db", db, "--out", "out-bad", "--quiet"});
        QVERIFY2(!o.timedOut, qPrintable(o.err));
        QCOMPARE(o.code, 3);
        const QString message = path + ": claims[2] (\"ridge-toy-rmse\").n: 2 seeds";
        QVERIFY2(o.err.count(message) == 1, qPrintable(o.err)); // rank 0 says it, once
        QVERIFY(!QFileInfo::exists(db));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("out-bad/small-mpi.md")));
    }

    void checkWithMpiRunsNothing()
    {
        const QString db = m_dir.filePath("check.sqlite");
        const CliOutput o = mpi(3, {"reproduce", "small.json", "--mpi", "--check", "--db", db});
        QVERIFY2(!o.timedOut && o.code == 0, qPrintable(o.out + o.err));
        QCOMPARE(o.out.count("every file is valid"), 1);
        QCOMPARE(o.out.count("experiment “"), 3);
        QVERIFY(!o.out.contains("cells per worker rank"));
        QVERIFY(!QFileInfo::exists(db));
    }

    void workersWithoutThePluginRefuse()
    {
        // Rank 0 has the test plugins, the workers (another node's install, say) do not: each
        // refuses the experiment with the reason, rank 0 says it and, with no worker left, stores
        // the cells as not started and exits as stopped, ending every rank.
        write("plugin.json", R"({"paper": "plugin", "title": "A plugin the workers lack",
          "claims": [{"id": "mean", "quote": "q", "figure": {"value": 50, "unit": "%"},
            "experiment": {"name": "needs test.mean", "kind": "learning-curve", "threads": 1,
                           "dataset": {"source": "moons", "samples": 100},
                           "algorithms": [{"id": "test.mean", "label": "Mean", "params": {"epochs": 2}}]},
            "statistic": {"kind": "final", "algorithm": "Mean"}, "n": 5,
            "verdict": {"rule": "mean_ci_contains_or_exceeds"}}]})");
        const QString db = m_dir.filePath("plugin.sqlite");
        const QStringList args{"reproduce", "plugin.json", "--mpi", "--db", db, "--out", "out-plugin", "--quiet"};
        const QString cliPath = QStringLiteral(TB_BIN_DIR "/trainbench-cli");
        // Open MPI's MPMD form: rank 0 with the test plugins, ranks 1 and 2 with the build's only.
        const QStringList mpmd = QStringList{"--oversubscribe", "-np", "1", "-x",
                                             "TRAINBENCH_PLUGIN_PATH=" TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR,
                                             cliPath}
                                 + args + QStringList{":", "-np", "2", "-x", "TRAINBENCH_PLUGIN_PATH=" TB_PLUGIN_BUILD_DIR,
                                                      cliPath}
                                 + args;
        const CliOutput o = start(tb::testsupport::mpirunProgram(), mpmd, environment());
        QVERIFY2(!o.timedOut, qPrintable(o.err));
        QCOMPARE(o.code, 5);
        for (int rank : {1, 2})
            QVERIFY2(o.err.contains(QStringLiteral("rank %1 cannot run this experiment: ").arg(rank)) &&
                         o.err.contains("unknown algorithm \"test.mean\""),
                     qPrintable(o.err));
        QVERIFY2(o.err.contains("no worker rank is left to train the remaining 5 cells"), qPrintable(o.err));
        QVERIFY2(read("out-plugin/plugin.md").contains("**Verdict: inconclusive**"), qPrintable(o.out));
        const QMap<QString, int> s = stored(db);
        QCOMPARE(s.value("finished"), 0);
        QCOMPARE(s.value("cancelled"), 5);
    }

    void ctrlCOnMpirunStopsCleanlyAndResumeCompletes()
    {
        // mpirun forwards Ctrl-C to every rank as SIGTERM: rank 0 stops the experiment under way,
        // stores what arrived and marks the rest; nothing is left "running". --resume --mpi then
        // trains only what did not finish.
        const QByteArray sleepy = R"({"paper": "sleepy", "title": "Slow cells",
          "claims": [{"id": "s1", "quote": "q", "figure": {"value": 10, "unit": "%"},
            "experiment": {"name": "sleepy", "kind": "learning-curve", "threads": 1,
                           "dataset": {"source": "moons", "samples": 100},
                           "algorithms": [{"id": "test.sleepy", "label": "S", "params": {"epochs": 10, "epoch_ms": 100}}]},
            "statistic": {"kind": "final", "algorithm": "S"}, "n": 6,
            "verdict": {"rule": "mean_ci_contains_or_exceeds"}}]})";
        write("sleepy.json", sleepy);
        const QString db = m_dir.filePath("sleepy.sqlite");
        const QStringList args{"reproduce", "sleepy.json", "--mpi", "--db", db, "--out", "out-sleepy", "--quiet"};
        const QProcessEnvironment env = environment(QStringLiteral(TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR));
        QProcess p;
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_dir.path());
        p.start(tb::testsupport::mpirunProgram(),
                tb::testsupport::mpirunArguments(3) << QStringLiteral(TB_BIN_DIR "/trainbench-cli") << args);
        QVERIFY(p.waitForStarted());
        bool oneFinished = false; // each cell takes a second: a cell done, another one training
        for (int i = 0; i < 1200 && !oneFinished && p.state() == QProcess::Running; ++i) {
            QThread::msleep(100);
            const QMap<QString, int> s = QFileInfo::exists(db) ? stored(db) : QMap<QString, int>();
            oneFinished = s.value("finished") >= 1 && s.value("training") >= 1;
        }
        QVERIFY2(oneFinished, "no run finished while another trained");
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        const CliOutput o = tb::testsupport::finishProcess(p, kDeadlineMs);
        QVERIFY2(!o.timedOut, qPrintable(o.err));
        QVERIFY2(o.code != 0, qPrintable(o.out + o.err));
        QMap<QString, int> s = stored(db);
        QVERIFY2(!s.contains("running"), qPrintable(QString::number(s.value("running"))));
        QVERIFY2(s.value("finished") >= 1 && s.value("finished") < 6, qPrintable(QString::number(s.value("finished"))));

        const CliOutput again = start(tb::testsupport::mpirunProgram(),
                                      tb::testsupport::mpirunArguments(3)
                                          << QStringLiteral(TB_BIN_DIR "/trainbench-cli") << args << "--resume",
                                      env);
        QVERIFY2(!again.timedOut && again.code == 0, qPrintable(again.out + again.err));
        s = stored(db);
        QCOMPARE(s.value("experiments"), 1);
        QCOMPARE(s.value("finished"), 6);
        QCOMPARE(s.size(), 2);
        QCOMPARE(read("out-sleepy/sleepy.md").count("**Verdict: "), 1);
    }

    void aKilledWorkerIsLeftOutOfTheLaterExperiments()
    {
        // With --enable-recovery the job outlives a worker killed during the first experiment: its
        // cell fails with the reason, the other worker trains the rest of that experiment and all
        // of the second, and the lost rank is never waited for again (the job ends).
        QByteArray claims = R"({"paper": "killed", "title": "A worker dies",
          "claims": [EXPERIMENT_1, EXPERIMENT_2]})";
        const QByteArray claim = R"({"id": "ID", "quote": "q", "figure": {"value": 10, "unit": "%"},
            "experiment": {"name": "ID", "kind": "learning-curve", "threads": 1, "seed": SEED,
                           "dataset": {"source": "moons", "samples": 100},
                           "algorithms": [{"id": "test.sleepy", "label": "S", "params": {"epochs": 15, "epoch_ms": 100}}]},
            "statistic": {"kind": "final", "algorithm": "S"}, "n": 6,
            "verdict": {"rule": "mean_ci_contains_or_exceeds"}})";
        claims.replace("EXPERIMENT_1", QByteArray(claim).replace("ID", "first").replace("SEED", "1"));
        claims.replace("EXPERIMENT_2", QByteArray(claim).replace("ID", "second").replace("SEED", "2"));
        write("killed.json", claims);
        const QString db = m_dir.filePath("killed.sqlite");
        QProcess p;
        p.setProcessEnvironment(environment(QStringLiteral(TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR)));
        p.setWorkingDirectory(m_dir.path());
        p.start(tb::testsupport::mpirunProgram(),
                tb::testsupport::mpirunArguments(3, true)
                    << QStringLiteral(TB_BIN_DIR "/trainbench-cli")
                    << QStringList{"reproduce", "killed.json", "--mpi", "--db", db, "--out", "out-killed", "--quiet",
                                   "--worker-timeout", "3"});
        QVERIFY(p.waitForStarted());
        // Each cell takes 1.5 s: once two runs are training — a checkpoint of each is in the
        // file, so both workers are past handing over their cells — rank 2 holds one of them.
        bool twoRunning = false;
        for (int i = 0; i < 1200 && !twoRunning && p.state() == QProcess::Running; ++i) {
            QThread::msleep(100);
            twoRunning = QFileInfo::exists(db) && stored(db).value("training") >= 2;
        }
        QVERIFY2(twoRunning, "two runs never trained at once");
        const qint64 victim = tb::testsupport::mpiRankPid("killed.json", 2);
        QVERIFY2(victim > 0, "rank 2 not found");
        QCOMPARE(::kill(pid_t(victim), SIGKILL), 0);
        const CliOutput o = tb::testsupport::finishProcess(p, kDeadlineMs);
        QVERIFY2(!o.timedOut, qPrintable(o.err));
        QVERIFY2(o.err.contains("rank 2 on") && o.err.contains("stopped answering"), qPrintable(o.err));
        // mpirun --enable-recovery exits 0 whatever the ranks return: rank 0 says its status.
        QVERIFY2(o.err.contains("exit status 1"), qPrintable(o.err));
        QString error;
        RunStore::Options options;
        options.readOnly = true;
        auto store = RunStore::open(db, options, &error);
        QVERIFY2(store, qPrintable(error));
        const QList<ExperimentRecord> experiments = store->experiments();
        QCOMPARE(experiments.size(), 2);
        QMap<QString, int> first, second;
        for (const RunRecord& r : store->runs(experiments[0].id))
            first[runStatusName(r.status)]++;
        for (const RunRecord& r : store->runs(experiments[1].id))
            second[runStatusName(r.status)]++;
        QCOMPARE(first.value("failed"), 1);
        QCOMPARE(first.value("finished"), 5);
        QCOMPARE(second.value("finished"), 6);
        QCOMPARE(second.size(), 1);
        QCOMPARE(read("out-killed/killed.md").count("**Verdict: "), 2);
    }

    void oneRankTrainsInThisProcess()
    {
        const QString db = m_dir.filePath("single.sqlite");
        const CliOutput o = cli({"reproduce", "small.json", "--mpi", "--db", db, "--out", "single", "--quiet"});
        QVERIFY2(!o.timedOut && o.code == 0, qPrintable(o.out + o.err));
        QVERIFY2(o.err.contains("warning: --mpi with one rank: the runs train in this process"), qPrintable(o.err));
        QVERIFY(!o.out.contains("cells per worker rank"));
        const QString md = read("single/small-mpi.md");
        QCOMPARE(md.count("**Verdict: "), 3);
        QVERIFY(!md.contains("MPI ranks"));
        QCOMPARE(stored(db).value("finished"), 2 * 2 * 5 + 1);
    }

    void workerTimeoutIsChecked()
    {
        // Every rank finds it before MPI starts: none waits for another.
        const CliOutput o = mpi(3, {"reproduce", "small.json", "--mpi", "--worker-timeout", "0.5"});
        QVERIFY2(!o.timedOut, qPrintable(o.err));
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("--worker-timeout: expected seconds in [1, 86400], got \"0.5\""), qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestCliReproduceMpi)
#include "tst_cli_reproduce_mpi.moc"
