// trainbench-cli run --mpi as a cluster user runs it, on this machine: `mpirun --oversubscribe
// -np 3` (rank 0 owns the database, two workers train), compared with one process; a worker
// killed mid-run; Ctrl-C on mpirun; --resume (issue 15).
#include <CliProcess.h>
#include <store/RunStore.h>

#include <QProcess>
#include <QtTest>

#include <csignal>
#include <thread>

using namespace tb;
using tb::testsupport::finishProcess;
using Output = tb::testsupport::CliOutput;

namespace {
const QString kMpirun = tb::testsupport::mpirunProgram();

/// Every stored number of experiment @p id that must not depend on where its cells trained:
/// status, seed, threads, parameters and each checkpoint's metrics, by (algorithm, label,
/// repeat, sweep cell); and its sweep points.
QMap<QString, QString> numbers(const RunStore& store, qint64 id)
{
    QMap<QString, QString> out;
    for (const RunRecord& r : store.runs(id)) {
        const QString key = QStringLiteral("%1|%2|%3|%4")
                                .arg(r.algorithmId, r.algorithmName)
                                .arg(r.repeat)
                                .arg(r.info.value("sweep_cell").toObject().value("index").toInt(-1));
        QStringList v{runStatusName(r.status), QString::number(r.seed), QString::number(r.threads),
                      QString::fromUtf8(QJsonDocument(QJsonObject::fromVariantMap(r.params)).toJson(QJsonDocument::Compact))};
        for (const MetricPoint& p : store.metrics(r.id))
            for (double x : {double(p.seq), p.epoch, p.loss, p.trainAccuracy, p.testAccuracy, p.trainRmse, p.testRmse})
                v << QString::number(x, 'g', 17); // every bit of the double
        out.insert(key, v.join(' '));
    }
    for (const SummaryPoint& p : store.summaryPoints(id))
        out.insert(QStringLiteral("sweep|%1|%2").arg(p.algorithmId).arg(p.x),
                   QStringLiteral("%1 %2 %3 %4 %5")
                       .arg(p.count)
                       .arg(p.trainRmseMean, 0, 'g', 17)
                       .arg(p.trainRmseStd, 0, 'g', 17)
                       .arg(p.testRmseMean, 0, 'g', 17)
                       .arg(p.testRmseStd, 0, 'g', 17));
    return out;
}
} // namespace

class TestCliMpi : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QProcessEnvironment environment() const
    {
        return tb::testsupport::cliEnvironment(m_dir.filePath("home"),
                                               QStringLiteral(TB_TEST_PLUGIN_DIR ":" TB_PLUGIN_BUILD_DIR));
    }

    static QStringList mpirun(int ranks, bool recovery)
    {
        return tb::testsupport::mpirunArguments(ranks, recovery) << QStringLiteral(TB_BIN_DIR "/trainbench-cli");
    }

    Output finish(QProcess& p, int timeoutMs = 180000) { return finishProcess(p, timeoutMs); }

    Output cli(const QStringList& args)
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.start(QStringLiteral(TB_BIN_DIR "/trainbench-cli"), args);
        return finish(p);
    }

    // Starts `mpirun … trainbench-cli ARGS` in @p p (the tests that stop or kill ranks wait on it).
    void startMpi(QProcess& p, int ranks, const QStringList& args, bool recovery = false)
    {
        p.setProcessEnvironment(environment());
        p.start(kMpirun, mpirun(ranks, recovery) + args);
    }

    Output mpi(int ranks, const QStringList& args, bool recovery = false)
    {
        QProcess p;
        startMpi(p, ranks, args, recovery);
        return finish(p);
    }

    QString writeSpec(const QString& name, const QByteArray& json)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(json);
        return f.fileName();
    }

    std::unique_ptr<RunStore> open(const QString& db)
    {
        QString error;
        RunStore::Options o;
        o.readOnly = true;
        auto s = RunStore::open(db, o, &error);
        if (!s)
            qWarning("%s", qPrintable(error));
        return s;
    }

    /// The pid of rank @p rank of the trainbench-cli processes running @p spec, or 0.
    static qint64 rankPid(const QString& spec, int rank) { return tb::testsupport::mpiRankPid(spec, rank); }

    /// Waits (up to a minute) until @p db holds at least @p n runs of status @p status — with
    /// @p checkpointed, runs with at least one checkpoint stored, i.e. training past their start
    /// — however slowly the job starts on a loaded machine.
    bool waitForRuns(const QString& db, RunStatus status, int n, bool checkpointed = false)
    {
        for (int i = 0; i < 600; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (!QFileInfo::exists(db))
                continue;
            QString error;
            RunStore::Options o;
            o.readOnly = true;
            auto store = RunStore::open(db, o, &error);
            int count = 0;
            for (const RunRecord& r : store ? store->runs() : QList<RunRecord>())
                count += r.status == status && (!checkpointed || !store->metrics(r.id).isEmpty());
            if (count >= n)
                return true;
        }
        return false;
    }

    /// Runs @p spec once in one process and once on 3 ranks; the databases' numbers must be equal.
    void compareWithOneProcess(const QString& spec, const QString& tag, int cells)
    {
        const QString one = m_dir.filePath(tag + "-one.sqlite"), many = m_dir.filePath(tag + "-mpi.sqlite");
        const Output a = cli({"run", spec, "--db", one, "--quiet"});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        const Output b = mpi(3, {"run", spec, "--mpi", "--db", many, "--quiet"});
        QVERIFY2(b.code == 0, qPrintable(b.out + b.err));
        QVERIFY2(b.err.contains("2 worker rank(s)"), qPrintable(b.err));
        // Dynamic hand-out: the workers' cells add up to the experiment's. Not that both trained
        // some: on a busy machine one worker may finish every short cell before the other starts.
        const QRegularExpressionMatch served =
            QRegularExpression(R"(cells per worker rank: (\d+), (\d+))").match(b.out);
        QVERIFY2(served.hasMatch(), qPrintable(b.out));
        QCOMPARE(served.captured(1).toInt() + served.captured(2).toInt(), cells);
        // Rank 0's own account: every cell's result is a message in, every batch one out.
        const QRegularExpressionMatch load =
            QRegularExpression(R"(rank 0: (\d+) messages in, (\d+) out \((\d+) batches of cells\) in [0-9.]+ s; [0-9.]+ s of CPU, [0-9.]+ µs a message)")
                .match(b.out);
        QVERIFY2(load.hasMatch(), qPrintable(b.out));
        QVERIFY2(load.captured(1).toInt() >= cells, qPrintable(b.out));
        QVERIFY2(load.captured(3).toInt() >= 1 && load.captured(3).toInt() <= cells, qPrintable(b.out));
        QVERIFY2(load.captured(2).toInt() >= load.captured(3).toInt(), qPrintable(b.out));
        auto sa = open(one), sb = open(many);
        QVERIFY(sa && sb);
        QCOMPARE(sb->experiments().size(), 1);
        const auto na = numbers(*sa, sa->experiments().first().id), nb = numbers(*sb, sb->experiments().first().id);
        QVERIFY(!na.isEmpty());
        QCOMPARE(nb.keys(), na.keys());
        for (const QString& k : na.keys())
            QCOMPARE(nb[k], na[k]);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
    }

    void learningCurveMatchesOneProcessExactly()
    {
        // Adam's minibatches and initialisation come from each run's seed: any mismatch in the seed
        // derivation or the message encoding changes a digit.
        compareWithOneProcess(writeSpec("lc.json", R"({"name": "lc", "kind": "learning-curve", "repeats": 4, "seed": 7, "threads": 1,
            "dataset": {"source": "moons", "samples": 300, "noise": 0.2},
            "algorithms": [{"id": "gradient.adam", "params": {"epochs": 4}}, {"id": "linear.ridge"}]})"), "lc", 8);
    }

    void noiseSweepMatchesOneProcessExactly()
    {
        compareWithOneProcess(writeSpec("ns.json", R"({"name": "ns", "kind": "noise-sweep", "seed": 3, "threads": 1,
            "dataset": {"source": "bpls_toy", "function": "nonlinear"},
            "sweep": {"sigma": [0, 0.1, 0.3], "monte_carlo": 6},
            "algorithms": [{"id": "linear.ridge"}, {"id": "bpls.regress"}]})"), "ns", 18);
    }

    void lockstepNoiseSweepMatchesOneProcessExactly()
    {
        // gradient.adam fits its cells in lock step, 8 at a time: a σ's 11 Monte-Carlo cells are two
        // work items (packs of 8 and 3), which the ranks train as one process does.
        compareWithOneProcess(writeSpec("nsl.json", R"({"name": "nsl", "kind": "noise-sweep", "seed": 5, "threads": 1,
            "dataset": {"source": "bpls_toy", "function": "nonlinear"},
            "sweep": {"sigma": [0, 0.3], "monte_carlo": 11},
            "algorithms": [{"id": "gradient.adam", "params": {"epochs": 20, "hidden": [3], "activation": "sigmoid",
                            "output_activation": "sigmoid", "init": "uniform"}},
                           {"id": "bpls.regress"}]})"), "nsl", 4);
    }

    void paramSweepMatchesOneProcessExactly()
    {
        compareWithOneProcess(writeSpec("ps.json", R"({"name": "ps", "kind": "param-sweep", "seed": 4, "threads": 1, "repeats": 2,
            "dataset": {"source": "friedman1", "samples": 150},
            "algorithms": [{"id": "gradient.sgd", "params": {"epochs": 3}}],
            "sweep": {"grid": {"lr": [0.01, 0.1]}}})"), "ps", 4);
    }

    void tunedComparisonMatchesOneProcessExactly()
    {
        // The trials are the cells the ranks train (3 algorithms × 4); rank 0 chooses and trains the
        // final runs (3 × 2 seeds × tuned and defaults): every row as one process stores it.
        compareWithOneProcess(writeSpec("tc.json", R"({"name": "tc", "kind": "tuned-comparison", "seed": 2, "threads": 1,
            "dataset": {"source": "moons", "samples": 300, "noise": 0.2, "validation_fraction": 0.25},
            "algorithms": [{"id": "gradient.adam", "params": {"epochs": 4}, "search": {"lr": {"log_uniform": [0.001, 0.1]}}},
                           {"id": "gradient.sgd", "params": {"epochs": 4}, "search": {"lr": {"log_uniform": [0.001, 1]}}},
                           {"id": "linear.ridge", "search": {"ridge": {"log_uniform": [0.0001, 10]}}}],
            "tuning": {"trials": 4, "seed": 9}, "final": {"seeds": 2}})"), "tc", 12);
    }

    void tunedComparisonWithHalvingMatchesOneProcessExactly()
    {
        // Successive halving: the ranks share rung 0 (2 algorithms × 6 trials); rank 0 promotes
        // and trains rungs 1 and 2 (3 and 1 runs each) and the final runs: the rows of one process.
        compareWithOneProcess(writeSpec("th.json", R"({"name": "th", "kind": "tuned-comparison", "seed": 2, "threads": 1,
            "dataset": {"source": "moons", "samples": 300, "noise": 0.2, "validation_fraction": 0.25},
            "algorithms": [{"id": "gradient.adam", "params": {"epochs": 8}, "search": {"lr": {"log_uniform": [0.001, 0.1]}}},
                           {"id": "gradient.sgd", "params": {"epochs": 8}, "search": {"lr": {"log_uniform": [0.001, 1]}}}],
            "tuning": {"trials": 6, "seed": 9, "halving": {"eta": 2, "min_fraction": 0.25}}, "final": {"seeds": 1}})"), "th", 12);
    }

    void tunedComparisonWithACpuBudgetIsRefusedUnderMpi()
    {
        const QString spec = writeSpec("tcc.json", R"({"name": "tcc", "kind": "tuned-comparison", "threads": 1,
            "dataset": {"source": "moons", "samples": 100, "validation_fraction": 0.25},
            "algorithms": [{"id": "linear.ridge", "search": {"ridge": {"log_uniform": [0.0001, 10]}}}],
            "tuning": {"cpu_seconds": 1}})");
        const Output b = mpi(3, {"run", spec, "--mpi", "--db", m_dir.filePath("tcc.sqlite"), "--quiet"});
        QVERIFY2(b.code != 0, qPrintable(b.out + b.err));
        QVERIFY2(b.err.contains("tuning.cpu_seconds: a CPU-seconds budget"), qPrintable(b.err));
    }

    void aKilledWorkerFailsOnlyItsCellAndResumeFinishesTheRest()
    {
        // With --enable-recovery the job outlives a worker: its cell fails with the reason, the
        // other worker trains the rest; --resume then trains only the failed cell.
        const QString spec = writeSpec("kill.json", R"({"name": "kill", "kind": "learning-curve", "repeats": 6, "seed": 7, "threads": 1,
            "dataset": {"source": "moons", "samples": 200},
            "algorithms": [{"id": "test.sleepy", "params": {"epochs": 15, "epoch_ms": 100}}]})");
        const QString db = m_dir.filePath("kill.sqlite");
        QProcess p;
        startMpi(p, 3, QStringList{"run", spec, "--mpi", "--db", db, "--quiet",
                                   "--worker-timeout", "3"}, true);
        QVERIFY(p.waitForStarted());
        // Each cell takes 1.5 s: once two runs are training — a checkpoint of each is in the
        // file, so both workers are past handing over their cells — rank 2 holds one of them.
        QVERIFY(waitForRuns(db, RunStatus::Running, 2, true));
        const qint64 victim = rankPid("kill.json", 2);
        QVERIFY2(victim > 0, "rank 2 not found");
        QCOMPARE(::kill(pid_t(victim), SIGKILL), 0);
        const Output o = finish(p);
        QVERIFY2(o.err.contains(QStringLiteral("rank 2 on")) && o.err.contains("stopped answering"), qPrintable(o.err));
        // mpirun --enable-recovery exits 0 whatever the ranks return: rank 0 says its status.
        QVERIFY2(o.err.contains("exit status 1"), qPrintable(o.err));
        auto store = open(db);
        QVERIFY(store);
        const qint64 id = store->experiments().first().id;
        QList<qint64> finished;
        int failed = 0;
        for (const RunRecord& r : store->runs(id)) {
            if (r.status == RunStatus::Finished)
                finished << r.id;
            else {
                QCOMPARE(r.status, RunStatus::Failed);
                QVERIFY2(r.error.contains("stopped answering"), qPrintable(r.error));
                failed++;
            }
        }
        QCOMPARE(failed, 1);
        QCOMPARE(finished.size(), 5);
        QCOMPARE(store->runs(id).size(), 6);
        store.reset();

        const Output again = mpi(3, {"run", spec, "--mpi", "--db", db, "--quiet", "--resume"});
        QVERIFY2(again.code == 0, qPrintable(again.out + again.err));
        QVERIFY2(again.err.contains(QStringLiteral("Resuming experiment %1").arg(id)), qPrintable(again.err));
        store = open(db);
        QCOMPARE(store->experiments().size(), 1);
        const QList<RunRecord> runs = store->runs(id);
        QCOMPARE(runs.size(), 6);
        for (const RunRecord& r : runs) {
            QCOMPARE(r.status, RunStatus::Finished);
            QVERIFY(finished.contains(r.id) || r.id > finished.last()); // the five kept, one new
        }
    }

    void aKilledWorkerHoldingShortCellsLosesOnlyTheCellInHand()
    {
        // Cells of 10 ms go out in batches of about 50 ms, and a worker about to run out gets its
        // next batch in advance: killed, it holds up to two batches. Only the cell it was training
        // fails; the other worker trains the rest of both.
        const QString spec = writeSpec("killshort.json", R"({"name": "killshort", "kind": "noise-sweep", "seed": 5, "threads": 1,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.1], "monte_carlo": 400},
            "algorithms": [{"id": "test.sleepy", "params": {"epochs": 1, "epoch_ms": 10}}]})");
        const QString db = m_dir.filePath("killshort.sqlite");
        QProcess p;
        startMpi(p, 3, QStringList{"run", spec, "--mpi", "--db", db, "--quiet",
                                   "--worker-timeout", "3"}, true);
        QVERIFY(p.waitForStarted());
        // Kill rank 2 once cells have come back (both workers have had batches by then, as a
        // rule; if rank 2 was slower to start, no cell of it fails, which the checks allow).
        bool going = false;
        for (int i = 0; i < 600 && !going; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            RunStore::Options ro;
            ro.readOnly = true;
            QString error;
            if (auto s = QFileInfo::exists(db) ? RunStore::open(db, ro, &error) : nullptr)
                for (const RunRecord& r : s->runs())
                    going = going || s->metrics(r.id).size() >= 40;
        }
        QVERIFY(going);
        const qint64 victim = rankPid("killshort.json", 2);
        QVERIFY2(victim > 0, "rank 2 not found");
        QCOMPARE(::kill(pid_t(victim), SIGKILL), 0);
        const Output o = finish(p);
        // Rank 0 notices either the silence or, sending it the next batch in advance, that the
        // dead process does not take it: both are a lost worker (docs/cluster.md).
        QVERIFY2(o.err.contains(QStringLiteral("rank 2 on"))
                     && (o.err.contains("stopped answering") || o.err.contains("did not take a message")),
                 qPrintable(o.err));
        auto store = open(db);
        QVERIFY(store);
        const QList<RunRecord> runs = store->runs(store->experiments().first().id);
        QCOMPARE(runs.size(), 1);
        const int finished = runs.first().info.value("cells_finished").toInt();
        const int failed = runs.first().info.value("cells_failed").toInt();
        QVERIFY2(failed <= 1, qPrintable(QString::number(failed)));
        QCOMPARE(finished + failed, 800); // every cell of the lost batches was trained elsewhere
        QCOMPARE(store->metrics(runs.first().id).size(), finished);
    }

    void ctrlCOnMpirunKeepsWhatArrivedAndResumeCompletes()
    {
        // Ctrl-C on mpirun: Open MPI sends SIGTERM to every rank; rank 0 stops handing out cells,
        // stores what arrived, marks the rest, and exits non-zero. Nothing is left "running".
        const QString spec = writeSpec("stop.json", R"({"name": "stop", "kind": "learning-curve", "repeats": 6, "seed": 8, "threads": 1,
            "dataset": {"source": "moons", "samples": 200},
            "algorithms": [{"id": "test.sleepy", "params": {"epochs": 10, "epoch_ms": 100}}]})");
        const QString db = m_dir.filePath("stop.sqlite");
        QProcess p;
        startMpi(p, 3, QStringList{"run", spec, "--mpi", "--db", db, "--quiet"});
        QVERIFY(p.waitForStarted());
        QVERIFY(waitForRuns(db, RunStatus::Finished, 1)); // a cell done, …
        QVERIFY(waitForRuns(db, RunStatus::Running, 1, true)); // … another one training
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        const Output o = finish(p);
        QVERIFY2(o.code != 0, qPrintable(o.out + o.err));
        auto store = open(db);
        QVERIFY(store);
        const qint64 id = store->experiments().first().id;
        int finished = 0;
        for (const RunRecord& r : store->runs(id)) {
            QVERIFY2(r.status != RunStatus::Running, qPrintable(QString("run %1 left running").arg(r.id)));
            finished += r.status == RunStatus::Finished;
        }
        QVERIFY2(finished >= 1 && finished < 6, qPrintable(QString::number(finished)));
        store.reset();
        const Output again = mpi(3, {"run", spec, "--mpi", "--db", db, "--quiet", "--resume"});
        QVERIFY2(again.code == 0, qPrintable(again.out + again.err));
        store = open(db);
        QCOMPARE(store->runs(id).size(), 6);
        for (const RunRecord& r : store->runs(id))
            QCOMPARE(r.status, RunStatus::Finished);
    }

    void optionsOutsideMpiAreRefusedWithTheReason()
    {
        const QString spec = writeSpec("opt.json", R"({"name": "opt", "kind": "learning-curve", "dataset": {"source": "moons"},
            "algorithms": [{"id": "linear.ridge"}]})");
        Output o = cli({"run", spec, "--no-db", "--threads-per-rank", "2"});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("--threads-per-rank goes with --mpi"), qPrintable(o.err));
        o = cli({"run", spec, "--no-db", "--resume"});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("--no-db"), qPrintable(o.err));
        o = cli({"run", spec, "--db", m_dir.filePath("none.sqlite"), "--resume"});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("nothing to resume"), qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestCliMpi)
#include "tst_cli_mpi.moc"
