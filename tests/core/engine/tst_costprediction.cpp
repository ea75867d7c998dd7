// CostPrediction, and the engine's part in it: a trainer's predicted cost reaches the observer
// before fit() and is stored with the run next to the measured time (issue 3).
#include <engine/CostPrediction.h>
#include <data/DataSource.h>
#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>

#include <QJsonDocument>
#include <QtTest>
#include <mutex>

using namespace tb;

namespace {
ExperimentSpec parse(const QByteArray& json)
{
    QString err;
    auto s = ExperimentSpec::fromJson(json, "test", &err);
    if (!s)
        qFatal("%s", qPrintable(err));
    return *s;
}

// Records the observer calls in order.
struct Spy : ExperimentObserver {
    std::mutex m;
    QStringList events; // "cost <label> <run id>", "checkpoint <label> <run id>"
    QList<QJsonObject> costs;
    QList<QByteArray> shapes;
    void costPredicted(const RunJob& job, qint64 runId, const QJsonObject& cost) override
    {
        std::lock_guard lock(m);
        events << QStringLiteral("cost %1 %2").arg(job.label).arg(runId);
        costs << cost;
        shapes << (job.data ? QByteArray::number(job.data->train.rows()) : QByteArray("no data"));
    }
    void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint&) override
    {
        std::lock_guard lock(m);
        events << QStringLiteral("checkpoint %1 %2").arg(job.label).arg(runId);
    }
};
} // namespace

class TestCostPrediction : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR});
        QVERIFY(m_reg.algorithm("test.sleepy"));
        QVERIFY(m_reg.algorithm("linear.ridge"));
    }

    void readsTheDocumentedKeys()
    {
        const CostPrediction c(QJsonObject{{"flops", 7.41e9},
                                           {"predicted_seconds", 0.42},
                                           {"scope", "first sweep"},
                                           {"scope_measured_key", "first_sweep_measured_seconds"},
                                           {"steps", QJsonArray{1, 2}}});
        QVERIFY(c.isShowable());
        QCOMPARE(c.flops(), 7.41e9);
        QCOMPARE(c.seconds(), 0.42);
        QCOMPARE(c.describe(), QStringLiteral("7.41 GFLOP, 0.42 s (first sweep)"));
        const QJsonObject info{{"measured_seconds", 1.5}, {"first_sweep_measured_seconds", 0.61}};
        QCOMPARE(c.measuredSeconds(info), 0.61);
        QCOMPARE(c.compare(info), QStringLiteral("predicted 0.42 s, measured 0.61 s (first sweep)"));

        // Flops only: the measured rate instead of a predicted time.
        const CostPrediction flopsOnly(QJsonObject{{"flops", 3e9}});
        QCOMPARE(flopsOnly.describe(), QStringLiteral("3 GFLOP"));
        QCOMPARE(flopsOnly.compare(info), QStringLiteral("predicted 3 GFLOP, measured 1.5 s = 2 GFLOP/s"));

        // Nothing the host can show (only trainer-specific keys), or nothing at all.
        const CostPrediction other(QJsonObject{{"flops_per_evaluation", 1e6}});
        QVERIFY(!other.isEmpty());
        QVERIFY(!other.isShowable());
        QVERIFY(other.describe().isEmpty() && other.compare(info).isEmpty());
        QVERIFY(CostPrediction().isEmpty());
        QVERIFY(CostPrediction::fromRunInfo(info).isEmpty());

        QCOMPARE(CostPrediction::formatFlops(512e3), QStringLiteral("512 kFLOP"));
        QCOMPARE(CostPrediction::formatFlops(12), QStringLiteral("12 FLOP"));
        QCOMPARE(CostPrediction::formatSeconds(0.0012), QStringLiteral("0.0012 s"));
        QCOMPARE(CostPrediction::formatSeconds(12.34), QStringLiteral("12.3 s"));
        QCOMPARE(CostPrediction::formatSeconds(2000), QStringLiteral("2000 s")); // not "2e+03 s"
        QCOMPARE(CostPrediction::describeShape(CostPrediction::referenceShape(Task::Classification)),
                 QStringLiteral("60000×784 → 10 classes"));
    }

    void memoryPredictionAgainstTheMeasuredPeak()
    {
        const CostPrediction c(QJsonObject{{"flops", 3e9}, {"memory_bytes", 64.0 * 1024 * 1024}});
        QCOMPARE(c.memoryBytes(), 64.0 * 1024 * 1024);
        QCOMPARE(c.describe(), QStringLiteral("3 GFLOP, 64 MiB memory"));
        const QJsonObject info{{"measured_seconds", 1.5}, {"peak_memory_bytes", 69337088.0}};
        QCOMPARE(CostPrediction::measuredMemoryBytes(info), 69337088.0);
        QCOMPARE(c.compareMemory(info), QStringLiteral("memory predicted 64 MiB, measured 66.1 MiB"));
        // No prediction: the measurement alone; neither: nothing.
        QCOMPARE(CostPrediction().compareMemory(info), QStringLiteral("peak memory 66.1 MiB"));
        QVERIFY(CostPrediction().compareMemory({}).isEmpty());
        QVERIFY(std::isnan(CostPrediction::measuredMemoryBytes({{"peak_memory_bytes", -1}})));
        QCOMPARE(CostPrediction::formatBytes(512), QStringLiteral("512 B"));
        QCOMPARE(CostPrediction::formatBytes(1536), QStringLiteral("1.5 KiB"));
        QCOMPARE(CostPrediction::formatBytes(2.2e9), QStringLiteral("2.05 GiB"));
    }

    void forAlgorithmAsksATrainerWithCompletedParameters()
    {
        // Ridge: n·d² + 2·n·d·k + d³/3 + 2·d²·k with d = 784 + bias (its default).
        const ProblemShape shape = CostPrediction::referenceShape(Task::Classification);
        const CostPrediction ridge = CostPrediction::forAlgorithm(m_reg, "linear.ridge", {}, shape);
        const double n = 60000, d = 785, k = 10;
        QCOMPARE(ridge.flops(), n * d * d + 2 * n * d * k + d * d * d / 3.0 + 2 * d * d * k);

        const CostPrediction sleepy =
            CostPrediction::forAlgorithm(m_reg, "test.sleepy", {{"epochs", 4}, {"epoch_ms", 250}}, shape);
        QCOMPARE(sleepy.seconds(), 1.0);
        QCOMPARE(sleepy.flops(), 4 * n);

        QString error;
        QVERIFY(CostPrediction::forAlgorithm(m_reg, "test.noise", {}, shape, &error).isEmpty());
        QVERIFY2(error.isEmpty(), qPrintable(error)); // states none: not an error
        QVERIFY(CostPrediction::forAlgorithm(m_reg, "no.such", {}, shape, &error).isEmpty());
        QVERIFY(error.contains("no.such"));
        QVERIFY(
            CostPrediction::forAlgorithm(m_reg, "test.sleepy", {{"epochs", -1}}, shape, &error).isEmpty());
        QVERIFY(error.contains("epochs"));
    }

    void learningCurveReportsThePredictionBeforeFitAndStoresIt()
    {
        QString err;
        auto store = RunStore::open(m_dir.filePath("lc.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const ExperimentSpec spec = parse(R"({"kind": "learning-curve", "repeats": 2, "threads": 1,
            "dataset": {"source": "moons", "samples": 120, "noise": 0.1},
            "algorithms": [{"id": "test.sleepy", "label": "S", "params": {"epochs": 3, "epoch_ms": 30}},
                           {"id": "test.noise", "label": "N", "params": {"epochs": 2}}]})");
        Spy spy;
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(spec, &spy);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QCOMPARE(res.runsFinished, 4);

        // One prediction per run, before its first checkpoint. Neither test trainer states its
        // memory, so each carries memory_unchecked; test.noise states nothing else.
        QCOMPARE(spy.costs.size(), 4);
        int stated = 0;
        for (const QJsonObject& c : spy.costs) {
            QVERIFY2(c.value("memory_unchecked").toString().contains("states no working memory"),
                     qPrintable(QJsonDocument(c).toJson()));
            stated += c.contains("predicted_seconds") ? 1 : 0;
        }
        QCOMPARE(stated, 2);
        QCOMPARE(spy.costs[0].value("predicted_seconds").toDouble(), 0.09);
        const auto rows =
            data::DataSource::load(spec.dataset, {}, data::DataOverrides{std::nullopt, spec.seed})
                .train.rows();
        QCOMPARE(spy.shapes[0], QByteArray::number(rows)); // the job carries the run's data
        const auto runs = store->runs(res.experimentId);
        QCOMPARE(runs.size(), 4);
        for (int r = 0; r < 2; ++r) {
            const QString cost = QStringLiteral("cost S %1").arg(runs[r].id);
            const int at = int(spy.events.indexOf(cost));
            QVERIFY2(at >= 0, qPrintable(spy.events.join(", ")));
            QCOMPARE(spy.events.value(at + 1), QStringLiteral("checkpoint S %1").arg(runs[r].id));
        }

        // Stored with the run, next to the measured training time; and in the result's curves.
        for (int r = 0; r < 2; ++r) {
            const CostPrediction stored = CostPrediction::fromRunInfo(runs[r].info);
            QCOMPARE(stored.seconds(), 0.09);
            QCOMPARE(stored.flops(), 3.0 * double(rows));
            const double measured = stored.measuredSeconds(runs[r].info);
            QVERIFY2(measured >= 0.08 && measured < 5, qPrintable(QString::number(measured)));
            QVERIFY(stored.compare(runs[r].info).startsWith("predicted 0.09 s, measured "));
            QCOMPARE(res.curves[0].infos.value(r).value("predicted_cost").toObject(), stored.json());
        }
        for (int r = 2; r < 4; ++r)
            QCOMPARE(runs[r].info.value("predicted_cost").toObject().keys(),
                     QStringList({"memory_unchecked", "shape"}));
        QCOMPARE(res.curves[1].infos.size(), 2);
    }

    void noiseSweepPredictsOneCellPerAlgorithm()
    {
        QString err;
        auto store = RunStore::open(m_dir.filePath("sweep.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const ExperimentSpec spec = parse(R"({"kind": "noise-sweep", "threads": 2, "seed": 3,
            "dataset": {"source": "bpls_toy", "function": "linear"},
            "sweep": {"sigma": [0, 0.5], "monte_carlo": 5},
            "algorithms": [{"id": "test.sleepy", "params": {"epochs": 2, "epoch_ms": 0}}, {"id": "linear.ridge"}]})");
        Spy spy;
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(spec, &spy);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        QCOMPARE(spy.costs.size(), 2);            // once per algorithm, not once per cell
        QCOMPARE(spy.shapes[0], QByteArray("5")); // the toy trains on x = 1, 3, 5, 7, 9
        QCOMPARE(spy.costs[0].value("flops").toDouble(), 2.0 * 5);
        const auto runs = store->runs(res.experimentId);
        QCOMPARE(runs.size(), 2);
        for (const RunRecord& r : runs)
            QCOMPARE(r.info.value("predicted_cost_per_cell").toObject(),
                     spy.costs[r.algorithmId == "test.sleepy" ? 0 : 1]);
    }
};

QTEST_GUILESS_MAIN(TestCostPrediction)
#include "tst_costprediction.moc"
