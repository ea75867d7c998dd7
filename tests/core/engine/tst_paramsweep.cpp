// The param-sweep experiment kind: the sweep object, its cells (a pure function of the spec),
// validation against the schemas, and the runner storing one run per cell.
#include <data/DataSource.h>
#include <engine/ExperimentRunner.h>
#include <engine/kinds/param_sweep/ParamSweep.h>
#include <engine/PluginRegistry.h>
#include <engine/ResultCsv.h>
#include <engine/StoredRuns.h>
#include <store/RunStore.h>
#include <engine/Runner.h>

#include <CpuTime.h>
#include <FixtureSlices.h>
#include <QtTest>
#include <mutex>
#include <thread>
#include <tbb/task_arena.h>
#include <trainbench/Seeds.h>

using namespace tb;
using tb::testsupport::fixtureSliceCounter;
using tb::testsupport::waitUntil;

namespace {
ExperimentSpec parse(const QByteArray& json)
{
    QString err;
    auto s = ExperimentSpec::fromJson(json, "sweep.json", &err);
    if (!s)
        qFatal("%s", qPrintable(err));
    return *s;
}
QString parseError(const QByteArray& json)
{
    QString err;
    const auto s = ExperimentSpec::fromJson(json, "sweep.json", &err);
    return s ? QStringLiteral("(parsed)") : err;
}

// Friedman #1 is a regression set: test.mean's RMSE grows with |offset|.
const QByteArray kBase = R"({"name": "sweep", "kind": "param-sweep", "seed": 4, "threads": 2,
    "dataset": {"source": "friedman1", "samples": 120},
    "algorithms": [{"id": "test.noise", "label": "Noise", "params": {"epochs": 2}}, {"id": "test.mean"}], )";

class Recorder : public ExperimentObserver {
public:
    void cellFinished(int cell, int configuration, const RunResult& r) override
    {
        std::lock_guard lock(m_mutex);
        cells << cell;
        configurations << configuration;
        statuses << r.status;
    }
    std::mutex m_mutex;
    QList<int> cells, configurations;
    QList<RunStatus> statuses;
};
} // namespace

class TestParamSweep : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR}); }

    void rangesExpandToTidyValues()
    {
        QString err;
        const auto log = ParamSweep::expand(QJsonObject{{"from", 1e-4}, {"to", 0.1}, {"count", 4}, {"scale", "log"}}, "g", &err);
        QVERIFY2(log, qPrintable(err));
        // 1e-4·10^k computed in floating point is 0.0010000000000000002 etc.; a person wrote 0.001.
        QCOMPARE(*log, (QVariantList{1e-4, 1e-3, 1e-2, 0.1}));
        const auto lin = ParamSweep::expand(QJsonObject{{"from", 32}, {"to", 128}, {"count", 4}}, "g", &err);
        QCOMPARE(*lin, (QVariantList{32.0, 64.0, 96.0, 128.0}));
        const auto list = ParamSweep::expand(QJsonArray{1, "sgd", QJsonArray{50, 20}}, "g", &err);
        QCOMPARE(list->size(), 3);
        QVERIFY(!ParamSweep::expand(QJsonObject{{"from", -1}, {"to", 1}, {"count", 3}, {"scale", "log"}}, "sweep.grid.lr", &err));
        QVERIFY2(err.startsWith("sweep.grid.lr: ") && err.contains("> 0"), qPrintable(err));
        QVERIFY(!ParamSweep::expand(QJsonObject{{"from", 1}, {"to", 2}, {"count", 1e9}}, "sweep.grid.lr", &err));
        QVERIFY2(err.startsWith("sweep.grid.lr.count: "), qPrintable(err));
        QVERIFY(!ParamSweep::expand(QJsonArray{}, "g", &err));
    }

    void wrongSweepsNameTheirKey_data()
    {
        QTest::addColumn<QByteArray>("sweep");
        QTest::addColumn<QString>("key");
        QTest::newRow("missing") << QByteArray(R"("repeats": 1})") << "sweep.json: sweep: a param-sweep needs";
        QTest::newRow("unknown key") << QByteArray(R"("sweep": {"grids": {}}})") << "sweep.json: sweep.grids: unknown key";
        QTest::newRow("both") << QByteArray(R"("sweep": {"grid": {"offset": [1]}, "list": [{"offset": 1}]}})") << "either \"grid\" or \"list\"";
        QTest::newRow("bad range") << QByteArray(R"("sweep": {"grid": {"offset": {"from": 0, "to": 1, "count": 1}}}})") << "sweep.json: sweep.grid.offset.count:";
        QTest::newRow("list item") << QByteArray(R"("sweep": {"list": [{"offset": 1}, 3]}})") << "sweep.json: sweep.list[1]: expected an object";
        QTest::newRow("dataset item") << QByteArray(R"("sweep": {"datasets": ["big"]}})") << "sweep.json: sweep.datasets[0]:";
        QTest::newRow("cells at once") << QByteArray(R"("sweep": {"cells_at_once": 0}})") << "sweep.json: sweep.cells_at_once: 0 is outside";
        // 1000 × 1000 points × 2 algorithms: refused before anything is built.
        QTest::newRow("too many cells") << QByteArray(R"("sweep": {"grid": {"offset": {"from": 0, "to": 1, "count": 1000},
            "epochs": {"from": 1, "to": 1000, "count": 1000}}}})") << "2000000 cells";
    }
    void wrongSweepsNameTheirKey()
    {
        QFETCH(QByteArray, sweep);
        QFETCH(QString, key);
        const QString err = parseError(kBase + sweep);
        QVERIFY2(err.contains(key), qPrintable(err));
    }

    void cellsAreAPureOrderedFunctionOfTheSpec()
    {
        const ExperimentSpec spec = parse(kBase + R"("repeats": 2, "first_repeat": 3,
            "sweep": {"grid": {"offset": [0, 1, 2], "epochs": [1, 3]}, "datasets": [{"samples": 100}, {"noise": 0.5}]}})");
        QCOMPARE(ParamSweep::cellCount(spec), qint64(6 * 2 * 2 * 2));
        const QList<QVariantMap> points = ParamSweep::points(ParamSweep::sweepOf(spec));
        QCOMPARE(points.size(), 6);
        // Axes in key order (epochs, offset), the last varying fastest.
        QCOMPARE(points[0], (QVariantMap{{"epochs", 1.0}, {"offset", 0.0}}));
        QCOMPARE(points[1], (QVariantMap{{"epochs", 1.0}, {"offset", 1.0}}));
        QCOMPARE(points[3], (QVariantMap{{"epochs", 3.0}, {"offset", 0.0}}));
        const QList<QJsonObject> sets = ParamSweep::datasets(spec);
        QCOMPARE(sets[0].value("samples").toInt(), 100);
        QCOMPARE(sets[1].value("samples").toInt(), 120); // the base's, with the option's noise
        QCOMPARE(sets[1].value("noise").toDouble(), 0.5);
        QCOMPARE(ParamSweep::datasetLabel(spec, 1), QStringLiteral("noise=0.5"));

        const QList<SweepCell> cells = ParamSweep::cells(spec);
        QCOMPARE(cells.size(), 48);
        // Order: data set, repeat, algorithm, point.
        QCOMPARE(cells[0].repeat, 3);
        QCOMPARE(cells[5].pointIndex, 5);
        QCOMPARE(cells[6].algorithmIndex, 1);
        QCOMPARE(cells[12].repeat, 4);
        QCOMPARE(cells[24].datasetIndex, 1);
        for (int i = 0; i < cells.size(); ++i) {
            const SweepCell& c = cells[i];
            QCOMPARE(c.index, i);
            // Every configuration's repeat r shares deriveSeed(seed, r): paired by seed.
            QCOMPARE(c.seed, deriveSeed(4, std::uint64_t(c.repeat)));
            QCOMPARE(c.params.value("offset"), points[c.pointIndex].value("offset"));
            QCOMPARE(c.params.value("epochs"), points[c.pointIndex].value("epochs")); // the sweep wins over params
            QCOMPARE(c.dataset, sets[c.datasetIndex]);
        }
        // Saved and read back, the spec gives the same cells.
        QString err;
        const auto again = ExperimentSpec::fromObject(spec.toJson(), "again", &err);
        QVERIFY2(again, qPrintable(err));
        const QList<SweepCell> cells2 = ParamSweep::cells(*again);
        QCOMPARE(cells2.size(), cells.size());
        for (int i = 0; i < cells.size(); ++i) {
            QCOMPARE(cells2[i].seed, cells[i].seed);
            QCOMPARE(cells2[i].params, cells[i].params);
        }
        // A list sweeps exactly its points; no grid and no list is one point (seeds only).
        QCOMPARE(ParamSweep::points(ParamSweep::sweepOf(parse(kBase + R"("sweep": {"list": [{"offset": 1}, {"offset": 2, "epochs": 4}]}})"))).size(), 2);
        QCOMPARE(ParamSweep::points(ParamSweep::sweepOf(parse(kBase + R"("sweep": {}})"))), QList<QVariantMap>{QVariantMap()});
    }

    void validateChecksEveryPointAgainstTheSchemas()
    {
        const ExperimentSpec unknown = parse(kBase + R"("sweep": {"grid": {"lr": [0.1]}}})");
        QStringList problems = unknown.validate(m_reg);
        QVERIFY2(problems.size() == 2 && problems[0].contains("sweep.grid.lr: \"lr\" is not a parameter of \"test.noise\""),
                 qPrintable(problems.join('\n')));
        const ExperimentSpec range = parse(kBase + R"("sweep": {"grid": {"offset": [1, 5000]}}})");
        problems = range.validate(m_reg);
        QVERIFY2(!problems.isEmpty() && problems[0].contains("sweep.grid.offset[1]: parameter \"offset\": expected"),
                 qPrintable(problems.join('\n')));
        const ExperimentSpec list = parse(kBase + R"("sweep": {"list": [{"offset": 1}, {"epochs": "many"}]}})");
        problems = list.validate(m_reg);
        QVERIFY2(!problems.isEmpty() && problems[0].contains("sweep.list[1]: parameter \"epochs\""), qPrintable(problems.join('\n')));
        const ExperimentSpec sets = parse(kBase + R"("sweep": {"datasets": [{"samples": -3}]}})");
        problems = sets.validate(m_reg);
        QVERIFY2(!problems.isEmpty() && problems[0].contains("sweep.datasets[0]: dataset.samples"), qPrintable(problems.join('\n')));
        QVERIFY(parse(kBase + R"("sweep": {"grid": {"offset": [0, 1]}}})").validate(m_reg).isEmpty());
        // Ridge's "lambda" is now "ridge": a sweep must use the current name (a former one could
        // lose against the algorithm's own current key and the sweep would not vary).
        const ExperimentSpec old = parse(R"({"kind": "param-sweep", "dataset": {"source": "moons"},
            "algorithms": [{"id": "linear.ridge"}], "sweep": {"grid": {"lambda": [0.1, 1]}}})");
        problems = old.validate(m_reg);
        QVERIFY2(problems.size() == 1 && problems[0].contains("sweep.grid.lambda: \"lambda\" is now \"gram_ridge\""),
                 qPrintable(problems.join('\n')));
    }

    void valuesAsTypedInAForm()
    {
        const ParamSpec real = ParamSpec::real("lr", "Rate", 0.01, 1e-6, 1, "Step.", true);
        QString err;
        auto v = ParamSweep::parseValues("0.0001, 0.001,0.01", real, &err);
        QVERIFY2(v, qPrintable(err));
        QCOMPARE(v->toArray(), (QJsonArray{0.0001, 0.001, 0.01}));
        v = ParamSweep::parseValues("log(1e-4, 1e-1, 4)", real, &err);
        QVERIFY2(v && v->isObject(), qPrintable(err));
        QCOMPARE(v->toObject().value("scale").toString(), QStringLiteral("log"));
        QCOMPARE(ParamSweep::formatValues(*v), QStringLiteral("log(0.0001, 0.1, 4)"));
        QVERIFY(!ParamSweep::parseValues("0.1, 5", real, &err)); // 5 is outside 1e-06 to 1
        QVERIFY2(err.contains("got 5"), qPrintable(err));
        QVERIFY(!ParamSweep::parseValues("log(1e-9, 1, 3)", real, &err));
        QVERIFY(!ParamSweep::parseValues("fast", real, &err));
        QVERIFY2(err.contains("\"fast\" is not a number"), qPrintable(err));
        const ParamSpec layers = ParamSpec::intList("hidden", "Hidden", {50}, 1, 8, 1, 4096, "Sizes.");
        v = ParamSweep::parseValues("50; 100, 50", layers, &err);
        QVERIFY2(v, qPrintable(err));
        QCOMPARE(v->toArray(), (QJsonArray{QJsonArray{50}, QJsonArray{100, 50}}));
        QCOMPARE(ParamSweep::formatValues(*v), QStringLiteral("50; 100 50"));
        const ParamSpec choice = ParamSpec::choice("rule", "Rule", {"a", "b"}, "a", "Rule.");
        QCOMPARE(ParamSweep::parseValues("a, b", choice, &err)->toArray(), (QJsonArray{"a", "b"}));
        QVERIFY(!ParamSweep::parseValues("a, c", choice, &err));
    }

    void runnerStoresOneRunPerCell()
    {
        QString err;
        auto store = RunStore::open(m_dir.filePath("sweep.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        ExperimentRunner runner(m_reg, store.get());
        const ExperimentSpec spec = parse(kBase + R"("repeats": 2, "sweep": {"grid": {"offset": [0, 0.5, 2]}}})");
        QVERIFY(spec.validate(m_reg).isEmpty());
        Recorder rec;
        const ExperimentResult res = runner.run(spec, &rec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QCOMPARE(res.kind, QStringLiteral("param-sweep"));
        QCOMPARE(res.runsFinished, 12);
        QCOMPARE(rec.cells.size(), 12);
        QCOMPARE(res.variedKeys, QStringList{"offset"});
        QCOMPARE(res.curves.size(), 6); // 2 algorithms × 3 offsets
        QCOMPARE(res.curves[1].configuration, QStringLiteral("Noise offset=0.5"));
        QCOMPARE(res.curves[3].configuration, QStringLiteral("test.mean offset=0"));
        for (const AlgorithmCurves& c : res.curves) {
            QCOMPARE(c.repeats.size(), 2);
            QCOMPARE(c.repeatNumbers, (QList<int>{0, 1}));
        }
        // test.mean's RMSE grows with the offset it adds: the grid's answer is known.
        const double r0 = res.curves[3].repeats[0].last().trainRmse, r05 = res.curves[4].repeats[0].last().trainRmse,
                     r2 = res.curves[5].repeats[0].last().trainRmse;
        QVERIFY(r0 < r05 && r05 < r2);
        // RMSE² = variance + offset² for a constant prediction offset from the mean.
        QVERIFY(std::fabs(r2 * r2 - r0 * r0 - 4.0) < 1e-9);

        const QList<RunRecord> runs = store->runs(res.experimentId);
        QCOMPARE(runs.size(), 12);
        for (const RunRecord& r : runs) {
            QCOMPARE(r.status, RunStatus::Finished);
            QVERIFY(r.params.contains("offset") && r.params.contains("epoch_ms")); // complete parameters
            QCOMPARE(r.seed, deriveSeed(4, std::uint64_t(r.repeat)));
            QVERIFY(r.info.contains("sweep_cell"));
            QVERIFY(r.info.contains("peak_memory_bytes")); // one cell at a time: measured
        }
        // Reloaded from the store, the result has the same configurations and numbers.
        const auto loaded = StoredRuns::experiment(*store, res.experimentId, &err);
        QVERIFY2(loaded, qPrintable(err));
        QCOMPARE(loaded->kind, QStringLiteral("param-sweep"));
        QCOMPARE(loaded->curves.size(), 6);
        QCOMPARE(loaded->variedKeys, QStringList{"offset"});
        for (int i = 0; i < 6; ++i) {
            QCOMPARE(loaded->curves[i].configuration, res.curves[i].configuration);
            QCOMPARE(loaded->curves[i].setting, res.curves[i].setting);
            QCOMPARE(loaded->curves[i].repeats[1].last().trainRmse, res.curves[i].repeats[1].last().trainRmse);
        }
        QVERIFY(ResultCsv::write(*loaded, m_dir.filePath("sweep.csv"), &err));
        QFile csv(m_dir.filePath("sweep.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QVERIFY(csv.readLine().trimmed().endsWith(",dataset,offset"));
    }

    void eachCellRunsAloneWithTheSameResult()
    {
        // What a distributed runner relies on: cell i run by itself, from the spec alone, gives
        // the numbers it gives inside the whole sweep.
        const ExperimentSpec spec = parse(kBase + R"("repeats": 2, "sweep": {"grid": {"offset": [0, 1]}}})");
        ExperimentRunner runner(m_reg, nullptr);
        const ExperimentResult all = runner.run(spec);
        const QList<SweepCell> cells = ParamSweep::cells(spec);
        const SweepCell& cell = cells[5]; // repeat 1, test.noise, offset 1
        QCOMPARE(cell.repeat, 1);
        RunJob job;
        job.algorithmId = spec.algorithms[cell.algorithmIndex].id;
        job.params = cell.params;
        job.seed = cell.seed;
        job.data = std::make_shared<const data::DatasetPair>(
            data::DataSource::load(cell.dataset, {}, data::DataOverrides{std::nullopt, spec.seed}));
        job.threads = 2;
        StopSource stop;
        RunResult alone;
        tbb::task_arena(2).execute([&] { alone = Runner(m_reg, nullptr).execute(job, stop); });
        const AlgorithmCurves& c = all.curves[cell.algorithmIndex * 2 + cell.pointIndex];
        QCOMPARE(alone.points.size(), c.repeats[1].size());
        for (int i = 0; i < alone.points.size(); ++i)
            QCOMPARE(alone.points[i].trainRmse, c.repeats[1][i].trainRmse);
    }

    void parallelCellsSayWhyMemoryIsMissing()
    {
        const ExperimentSpec spec = parse(kBase + R"("sweep": {"grid": {"offset": [0, 1, 2, 3]}, "cells_at_once": 2}})");
        ExperimentRunner runner(m_reg, nullptr);
        const ExperimentResult res = runner.run(spec);
        QCOMPARE(res.runsFinished, 8);
        for (const AlgorithmCurves& c : res.curves) {
            QVERIFY(!c.infos[0].contains("peak_memory_bytes"));
            QVERIFY2(QJsonDocument(c.infos[0].value("log").toArray()).toJson().contains("2 sweep cells trained at once"),
                     qPrintable(QJsonDocument(c.infos[0]).toJson()));
        }
    }

    void badDataSetOptionFailsBeforeAnyRun()
    {
        const ExperimentSpec spec = parse(kBase + R"("sweep": {"datasets": [{"samples": 50}, {"source": "csv", "file": "/nonexistent.csv",
            "target": "y", "task": "regression", "test_fraction": 0.2}]}})");
        Recorder rec;
        const ExperimentResult res = ExperimentRunner(m_reg, nullptr).run(spec, &rec);
        QVERIFY2(res.error.startsWith("sweep.datasets[1]: ") && res.error.contains("nonexistent.csv"), qPrintable(res.error));
        QVERIFY(rec.cells.isEmpty());
    }

    void stopEndsTheSweep()
    {
        const ExperimentSpec spec = parse(R"({"kind": "param-sweep", "threads": 2, "dataset": {"source": "friedman1", "samples": 60},
            "algorithms": [{"id": "test.sleepy", "params": {"epochs": 1000, "epoch_ms": 50}}], "repeats": 3,
            "sweep": {"grid": {"offset": [0, 1]}}})");
        // test.sleepy works in 10 ms slices and polls Stop between them. Stop once it has slept
        // 30 slices: the sweep is cancelled, and after the flag at most the slice under way and
        // one that began as the count was read run — counted, not timed, so a busy machine
        // cannot fail it (the cells run one at a time).
        const auto slices = fixtureSliceCounter(TB_TEST_PLUGIN_DIR);
        ExperimentRunner runner(m_reg, nullptr);
        ExperimentResult res;
        const long long s0 = slices();
        std::thread th([&] { res = runner.run(spec); });
        const bool running = waitUntil([&] { return slices() - s0 >= 30; });
        const long long atStop = slices();
        runner.requestStop();
        th.join();
        QVERIFY2(running, "test.sleepy never slept 30 slices");
        QVERIFY(res.cancelled);
        QVERIFY2(slices() - atStop <= 2, qPrintable(QString("%1 slices after Stop").arg(slices() - atStop)));
        QCOMPARE(res.curves[0].statuses.value(0), RunStatus::Cancelled);
        // Cells that never started are still part of the sweep: cancelled, without checkpoints.
        QCOMPARE(res.curves[1].repeats.size(), 3);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(res.curves[1].statuses.value(r), RunStatus::Cancelled);
            QVERIFY(res.curves[1].repeats[r].isEmpty());
        }
        QVERIFY(res.runsNotStarted >= 3);
        QCOMPARE(res.runsPlanned, 6);
    }
};

QTEST_MAIN(TestParamSweep)
#include "tst_paramsweep.moc"
