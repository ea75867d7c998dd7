// Each trainer's predicted working memory against the memory this process may use, before a run
// starts (issue 32): an experiment whose configuration cannot fit is refused before its first run
// — learning curve, noise sweep (cells side by side), param sweep (per configuration, cells at
// once) — naming the bytes and the parameter that sizes them; a single run is refused before
// fit(). test.memory predicts `alloc_mb` MiB; TRAINBENCH_MEMORY_LIMIT sets what may be used.
#include <data/DataSource.h>
#include <engine/ExperimentRunner.h>
#include <engine/MemoryCheck.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>
#include <engine/Runner.h>

#include <QTemporaryDir>
#include <QtTest>
#include <tbb/task_arena.h>

using namespace tb;

namespace {

ExperimentSpec parse(const QByteArray& json)
{
    QString err;
    auto s = ExperimentSpec::fromJson(json, "memory.json", &err);
    if (!s)
        qFatal("%s", qPrintable(err));
    return *s;
}

} // namespace

class TestMemoryCheck : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR}); }
    void init() { qputenv("TRAINBENCH_MEMORY_LIMIT", "16M"); }
    void cleanup() { qunsetenv("TRAINBENCH_MEMORY_LIMIT"); }

    void learningCurveIsRefusedBeforeItsFirstRun()
    {
        QString error;
        auto store = RunStore::open(m_dir.filePath("lc.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        ExperimentRunner runner(m_reg, store.get());
        const ExperimentResult r = runner.run(parse(R"({"name": "big", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "moons", "samples": 100},
            "algorithms": [{"id": "test.mean", "label": "Small"},
                           {"id": "test.memory", "label": "Big", "params": {"alloc_mb": 64, "epochs": 2}}]})"));
        QVERIFY2(r.error.startsWith("Big: test.memory needs 64.0 MiB of working memory for 70×2 → 2 classes, but only "
                                    "16.0 MiB is available to this process (TRAINBENCH_MEMORY_LIMIT=16M)"),
                 qPrintable(r.error));
        // The parameter that sizes it, with what its default needs; not the one that does not.
        QVERIFY2(r.error.contains("sized by alloc_mb = 64 (its default, 0, needs 0 B)"), qPrintable(r.error));
        QVERIFY2(!r.error.contains("epochs"), qPrintable(r.error));
        QCOMPARE(r.runsFinished + r.runsFailed + r.runsCancelled, 0); // not even the small one ran
        QVERIFY(store->flush());
        QVERIFY(store->experiments().isEmpty()); // a refused experiment leaves no row

        qputenv("TRAINBENCH_MEMORY_LIMIT", "1G");
        const ExperimentResult fits = runner.run(parse(R"({"name": "fits", "kind": "learning-curve", "threads": 1,
            "dataset": {"source": "moons", "samples": 100},
            "algorithms": [{"id": "test.memory", "label": "Big", "params": {"alloc_mb": 64}}]})"));
        QVERIFY2(fits.error.isEmpty(), qPrintable(fits.error));
        QCOMPARE(fits.runsFinished, 1);
    }

    void noiseSweepCountsTheCellsThatTrainAtOnce()
    {
        // 4 threads: 4 cells side by side, each 6 MiB: 24 MiB > 16 MiB. One thread: 6 MiB fits.
        ExperimentRunner runner(m_reg, nullptr);
        const QByteArray tail = R"("dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.1], "monte_carlo": 4},
            "algorithms": [{"id": "test.memory", "label": "Cells", "params": {"alloc_mb": 6}}]})";
        const ExperimentResult r = runner.run(parse(R"({"kind": "noise-sweep", "threads": 4, )" + tail));
        QVERIFY2(r.error.contains("test.memory needs 6.00 MiB of working memory for 5×1 → 2 outputs, 4 runs at "
                                  "once 24.0 MiB, but only 16.0 MiB"),
                 qPrintable(r.error));
        QVERIFY(r.summary.isEmpty());
        const ExperimentResult one = runner.run(parse(R"({"kind": "noise-sweep", "threads": 1, )" + tail));
        QVERIFY2(one.error.isEmpty(), qPrintable(one.error));
        QCOMPARE(one.runsFinished, 8);
    }

    void paramSweepNamesTheConfiguration()
    {
        ExperimentRunner runner(m_reg, nullptr);
        const ExperimentResult r = runner.run(parse(R"({"name": "sweep", "kind": "param-sweep", "threads": 1,
            "dataset": {"source": "friedman1", "samples": 120},
            "algorithms": [{"id": "test.memory", "label": "Mem"}],
            "sweep": {"grid": {"alloc_mb": [1, 2, 48]}}})"));
        QVERIFY2(r.error.startsWith("Mem alloc_mb=48: test.memory needs 48.0 MiB"), qPrintable(r.error));
        QVERIFY2(r.error.contains("sized by alloc_mb = 48"), qPrintable(r.error));
        QCOMPARE(r.runsFinished, 0);
    }

    void aRunIsRefusedBeforeFit()
    {
        // The teaching view and the benchmarks run Runner directly: the same check, before fit().
        RunJob job;
        job.algorithmId = "test.memory";
        job.label = "Big";
        job.params = {{"alloc_mb", 64}};
        job.data = std::make_shared<const data::DatasetPair>(
            data::DataSource::load(QJsonObject{{"source", "moons"}, {"samples", 100}}, QString(), {}));
        job.threads = 1;
        StopSource stop;
        RunResult r;
        tbb::task_arena(1).execute([&] { r = Runner(m_reg, nullptr).execute(job, stop); });
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.startsWith("Big: test.memory needs 64.0 MiB"), qPrintable(r.error));
        QVERIFY(r.points.isEmpty());
        QVERIFY(!r.info.contains("peak_memory_bytes")); // fit() never started
        QCOMPARE(r.info.value("predicted_cost").toObject().value("memory_bytes").toDouble(), 64.0 * (1 << 20));
    }

    void noDeclaredMemoryIsNotChecked()
    {
        const QString none = MemoryCheck::refusal(
            m_reg, {MemoryCheck::Demand{"Mean", "test.mean", {}, ProblemShape{1000000, 1000, 10, Task::Regression}, 64}});
        QCOMPARE(none, QString());
    }
};

QTEST_GUILESS_MAIN(TestMemoryCheck)
#include "tst_memorycheck.moc"
