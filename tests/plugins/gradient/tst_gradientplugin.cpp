// The gradient plugin as the engine sees it: loaded by the registry, run by the Runner.
// Divergence must reach the run's status with its epoch, in learning curves (checkpoints
// evaluated) and in noise sweeps (not evaluated); combinations the schema cannot express must
// fail the run with a message naming the parameters.
#include <engine/ExperimentRunner.h>
#include <engine/ExperimentSpec.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>
#include <engine/Runner.h>
#include <engine/StoredRuns.h>

#include <QTemporaryDir>
#include <QtTest>
#include <random>
#include <tbb/task_arena.h>

using namespace tb;

namespace {

std::shared_ptr<const data::DatasetPair> regression(double scale)
{
    std::mt19937_64 gen(3);
    auto make = [&](Eigen::Index n) {
        data::Dataset s;
        s.task = Task::Regression;
        s.x.resize(n, 3);
        s.y.resize(n, 2);
        for (Eigen::Index i = 0; i < n; ++i) {
            for (int j = 0; j < 3; ++j)
                s.x(i, j) = double(gen() >> 11) * 0x1.0p-53 - 0.5;
            s.y(i, 0) = scale * (s.x(i, 0) + 2 * s.x(i, 1));
            s.y(i, 1) = scale * s.x(i, 2);
        }
        return s;
    };
    auto p = std::make_shared<data::DatasetPair>();
    p->train = make(40);
    p->test = make(10);
    return p;
}

RunJob job(const QString& id, const QVariantMap& params, std::shared_ptr<const data::DatasetPair> d)
{
    RunJob j;
    j.algorithmId = id;
    j.params = params;
    j.data = std::move(d);
    j.threads = 2;
    return j;
}

} // namespace

class TestGradientPlugin : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        for (const char* id : {"gradient.sgd", "gradient.momentum", "gradient.nag", "gradient.adagrad",
                               "gradient.rmsprop", "gradient.adam", "gradient.lbfgs"})
            QVERIFY2(m_reg.algorithm(id), id);
    }

    void divergenceIsMarkedWithItsEpoch_data()
    {
        QTest::addColumn<bool>("evaluate");
        QTest::newRow("learning curve (checkpoints evaluated)") << true;
        QTest::newRow("noise sweep (checkpoints not evaluated)") << false;
    }
    void divergenceIsMarkedWithItsEpoch()
    {
        QFETCH(bool, evaluate);
        // SGD at η = 10 on a linear model with targets of size 100: the loss overflows within
        // a few hundred full-batch updates.
        RunJob j = job("gradient.sgd", {{"lr", 10.0}, {"hidden", QVariantList{}}, {"batch_size", 40}, {"epochs", 5000}},
                       regression(100.0));
        j.evaluateCheckpoints = evaluate;
        StopSource stop;
        RunResult r;
        tbb::task_arena(2).execute([&] { r = Runner(m_reg, nullptr).execute(j, stop); });
        QCOMPARE(r.status, RunStatus::Diverged);
        const double at = r.info.value("diverged_at_epoch").toDouble();
        QVERIFY(at >= 2 && at < 5000);
        QVERIFY2(r.error.contains(QString("epoch %1").arg(at)), qPrintable(r.error));
        QVERIFY2(r.info.value("log").toArray().first().toString().contains(QString("diverged in epoch %1").arg(int(at))),
                 qPrintable(QJsonDocument(r.info).toJson()));
    }

    void unexpressibleCombinationsFailTheRun()
    {
        StopSource stop;
        RunResult r;
        tbb::task_arena(2).execute([&] {
            r = Runner(m_reg, nullptr).execute(job("gradient.adam", {{"init_low", 1.0}, {"init_high", -1.0}}, regression(1.0)),
                                               stop);
        });
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.contains("init_low") && r.error.contains("init_high"), qPrintable(r.error));
        tbb::task_arena(2).execute([&] {
            r = Runner(m_reg, nullptr).execute(job("gradient.sgd", {{"loss", "cross_entropy"}}, regression(1.0)), stop);
        });
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.contains("cross_entropy") && r.error.contains("regression"), qPrintable(r.error));
    }

    void factsAreRecordedWithTheRun()
    {
        StopSource stop;
        RunResult r;
        tbb::task_arena(2).execute([&] {
            r = Runner(m_reg, nullptr).execute(job("gradient.adam", {{"epochs", 2}, {"batch_size", 1000}, {"hidden", QVariantList{4}}},
                                                   regression(1.0)),
                                               stop);
        });
        QCOMPARE(r.status, RunStatus::Finished);
        QCOMPARE(r.info.value("network").toString(), QString("3-4-2, sigmoid/identity, bias"));
        QCOMPARE(r.info.value("batch_size").toDouble(), 40.0);  // clamped to the training rows
        QCOMPARE(r.info.value("weights").toDouble(), 4.0 * 4 + 5 * 2);
        // 6 flops per weight and sample: 2 epochs × 40 samples × 26 weights × 6.
        QCOMPARE(r.info.value("predicted_cost").toObject().value("flops").toDouble(), 2 * 40 * 26 * 6.0);
        QCOMPARE(r.points.size(), 2);
    }

    // A float32 run's row holds the parameter: the stored run re-runs as float32, to the bit
    // (deterministic for a seed and thread count), and differs from the double run.
    void float32RunIsStoredAndRerunsFromItsRow()
    {
        QTemporaryDir dir;
        QString err;
        auto store = RunStore::open(dir.filePath("runs.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const auto spec = ExperimentSpec::fromJson(R"({"kind": "learning-curve", "threads": 2, "seed": 5,
            "dataset": {"source": "moons", "samples": 300, "noise": 0.2},
            "algorithms": [{"id": "gradient.adam", "label": "float32",
                            "params": {"epochs": 3, "batch_size": 16, "hidden": [8], "precision": "float32"}},
                           {"id": "gradient.adam", "label": "double",
                            "params": {"epochs": 3, "batch_size": 16, "hidden": [8]}}]})",
                                                   "precision.json", &err);
        QVERIFY2(spec, qPrintable(err));
        const ExperimentResult res = ExperimentRunner(m_reg, store.get()).run(*spec);
        QVERIFY2(res.error.isEmpty(), qPrintable(res.error));
        const QList<RunRecord> runs = store->runs(res.experimentId, &err);
        QCOMPARE(runs.size(), 2);
        const RunRecord& f = runs[0].params.value("precision") == "float32" ? runs[0] : runs[1];
        const RunRecord& d = &f == &runs[0] ? runs[1] : runs[0];
        QCOMPARE(f.params.value("precision").toString(), QString("float32"));
        QCOMPARE(d.params.value("precision").toString(), QString("double"));  // the default, stored too
        QCOMPARE(f.info.value("precision").toString(), QString("float32"));
        QCOMPARE(f.status, RunStatus::Finished);
        QVERIFY(f.info.value("final").toObject().value("loss") != d.info.value("final").toObject().value("loss"));

        const auto rerun = StoredRuns::rerunOfRun(*store, m_reg, f.id, &err);
        QVERIFY2(rerun, qPrintable(err));
        QCOMPARE(rerun->spec.algorithms.first().params.value("precision").toString(), QString("float32"));
        const ExperimentResult again = ExperimentRunner(m_reg, nullptr).run(rerun->spec);
        QVERIFY2(again.error.isEmpty(), qPrintable(again.error));
        const MetricPoint& last = again.curves.first().repeats.first().last();
        const QJsonObject stored = f.info.value("final").toObject();
        QCOMPARE(last.loss, stored.value("loss").toDouble());
        QCOMPARE(last.trainAccuracy, stored.value("train_accuracy").toDouble());
        QCOMPARE(last.testAccuracy, stored.value("test_accuracy").toDouble());
    }
};

QTEST_GUILESS_MAIN(TestGradientPlugin)
#include "tst_gradientplugin.moc"
