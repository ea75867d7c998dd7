// The dsgd plugin as the engine sees it: loaded by the registry, run by the Runner, bad input
// failing runs with messages naming the parameter or the data, the predicted cost stored, and
// Stop that arrives while the host evaluates a checkpoint (a long predict()) cancelling the
// run within 200 ms without logging a partial point.
#include <engine/PluginRegistry.h>
#include <engine/Runner.h>

#include <QtTest>
#include <StopMeter.h>
#include <chrono>
#include <future>
#include <random>
#include <tbb/task_arena.h>
#include <thread>

using namespace tb;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

namespace {

// Points in [−1, 1]² in `classes` angular sectors (classification) or y = sin(3x₁) + x₂.
std::shared_ptr<const data::DatasetPair> problem(Task task, int classes, Eigen::Index nTrain, Eigen::Index nTest)
{
    std::mt19937_64 gen(3);
    auto make = [&](Eigen::Index n) {
        data::Dataset s;
        s.task = task;
        s.x.resize(n, 2);
        for (Eigen::Index i = 0; i < n; ++i)
            for (int j = 0; j < 2; ++j)
                s.x(i, j) = 2.0 * double(gen() >> 11) * 0x1.0p-53 - 1.0;
        if (task == Task::Regression) {
            s.y = (3.0 * s.x.col(0)).array().sin().matrix() + s.x.col(1);
        } else {
            s.labels.resize(std::size_t(n));
            for (Eigen::Index i = 0; i < n; ++i) {
                const double angle = std::atan2(s.x(i, 1), s.x(i, 0)) + M_PI;
                s.labels[std::size_t(i)] = std::min(classes - 1, int(angle / (2 * M_PI) * classes));
            }
            for (int c = 0; c < classes; ++c)
                s.classNames << QString("sector %1").arg(c);
            s.setOneHotFromLabels();
        }
        return s;
    };
    auto p = std::make_shared<data::DatasetPair>();
    p->train = make(nTrain);
    p->test = make(nTest);
    return p;
}

RunJob job(const QString& id, const QVariantMap& params, std::shared_ptr<const data::DatasetPair> d)
{
    RunJob j;
    j.algorithmId = id;
    j.label = id;
    j.params = params;
    j.data = std::move(d);
    j.threads = 2;
    return j;
}

RunResult run(const PluginRegistry& reg, const RunJob& j, const StopSource& stop, RunObserver* observer = nullptr)
{
    RunResult r;
    tbb::task_arena(2).execute([&] { r = Runner(reg, nullptr).execute(j, stop, observer); });
    return r;
}

class FirstPredictionStarted final : public RunObserver {
public:
    void costPredicted(const RunJob&, qint64, const QJsonObject& cost) override { m_cost = cost; }
    QJsonObject m_cost;
};

} // namespace

class TestDsgdPlugin : public QObject {
    Q_OBJECT
private:
    PluginRegistry m_reg;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        for (const char* id : {"dsgd.doubly_stochastic", "dsgd.preconditioned", "dsgd.random_features_sgd",
                               "dsgd.kernel_ridge"})
            QVERIFY2(m_reg.algorithm(id), id);
        QCOMPARE(m_reg.plannedEpochs("dsgd.doubly_stochastic", {{"epochs", 3.5}}), 3.5);
        QCOMPARE(m_reg.plannedEpochs("dsgd.kernel_ridge", {}), 1.0);
    }

    void everyAlgorithmLearnsBothTasks_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QVariantMap>("params");
        QTest::newRow("doubly") << "dsgd.doubly_stochastic" << QVariantMap{{"epochs", 20.0}, {"batch_size", 20}, {"features_per_step", 8}, {"theta", 2.0}, {"t0", 1e4}};
        QTest::newRow("preconditioned") << "dsgd.preconditioned" << QVariantMap{{"epochs", 4.0}, {"batch_size", 200}, {"features_per_step", 128}};
        QTest::newRow("r-sgd") << "dsgd.random_features_sgd" << QVariantMap{{"epochs", 30.0}, {"theta", 2.0}, {"t0", 1e6}};
        QTest::newRow("kernel ridge") << "dsgd.kernel_ridge" << QVariantMap{};
    }
    void everyAlgorithmLearnsBothTasks()
    {
        QFETCH(QString, id);
        QFETCH(QVariantMap, params);
        StopSource stop;
        const RunResult c = run(m_reg, job(id, params, problem(Task::Classification, 3, 600, 300)), stop);
        QVERIFY2(c.status == RunStatus::Finished, qPrintable(c.error));
        qInfo("%s: 3 sectors, test accuracy %.3f; cost %s", qPrintable(id), c.last.testAccuracy,
              qPrintable(QJsonDocument(c.info.value("predicted_cost").toObject()).toJson(QJsonDocument::Compact)));
        QVERIFY(c.last.testAccuracy > 0.9);
        const RunResult r = run(m_reg, job(id, params, problem(Task::Regression, 0, 600, 300)), stop);
        QVERIFY2(r.status == RunStatus::Finished, qPrintable(r.error));
        qInfo("%s: regression, test RMSE %.3f", qPrintable(id), r.last.testRmse);
        QVERIFY2(r.last.testRmse < 0.2, qPrintable(QString::number(r.last.testRmse)));  // targets spread ~1
        QVERIFY(r.info.contains("working_memory_bytes"));
    }

    void badInputFailsTheRunNamingTheCause_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QVariantMap>("params");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bandwidth 0") << "dsgd.doubly_stochastic" << QVariantMap{{"bandwidth_rule", "fixed"}, {"bandwidth", 0.0}} << "\"bandwidth\"";
        QTest::newRow("bandwidth < 0") << "dsgd.kernel_ridge" << QVariantMap{{"bandwidth_rule", "fixed"}, {"bandwidth", -1.0}} << "\"bandwidth\"";
        QTest::newRow("lr 0") << "dsgd.preconditioned" << QVariantMap{{"lr", 0.0}} << "\"lr\"";
        QTest::newRow("lr < 0") << "dsgd.random_features_sgd" << QVariantMap{{"lr", -0.5}} << "\"lr\"";
        // Plugin 1.0.0's spelling: the message names both.
        QTest::newRow("theta 0") << "dsgd.preconditioned" << QVariantMap{{"theta", 0.0}} << "\"theta\" is deprecated: it is now \"lr\"";
        QTest::newRow("hinge, 3 classes") << "dsgd.doubly_stochastic" << QVariantMap{{"loss", "hinge"}} << "\"loss\"";
        QTest::newRow("logistic, 3 classes") << "dsgd.random_features_sgd" << QVariantMap{{"loss", "logistic"}} << "3 classes";
    }
    void badInputFailsTheRunNamingTheCause()
    {
        QFETCH(QString, id);
        QFETCH(QVariantMap, params);
        QFETCH(QString, expected);
        StopSource stop;
        const RunResult r = run(m_reg, job(id, params, problem(Task::Classification, 3, 100, 10)), stop);
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.contains(expected), qPrintable(r.error));
    }

    void nonFiniteDataFailTheRunNamingTheData()
    {
        auto p = std::make_shared<data::DatasetPair>(*problem(Task::Regression, 0, 50, 10));
        p->train.x(7, 1) = std::numeric_limits<double>::quiet_NaN();
        StopSource stop;
        for (const char* id : {"dsgd.doubly_stochastic", "dsgd.preconditioned", "dsgd.random_features_sgd",
                               "dsgd.kernel_ridge"}) {
            const RunResult r = run(m_reg, job(id, {}, p), stop);
            QCOMPARE(r.status, RunStatus::Failed);
            QVERIFY2(r.error.contains("NaN") && r.error.contains("row 8, column 2"), qPrintable(r.error));
        }
    }

    void predictedCostIncludesMemory()
    {
        FirstPredictionStarted observer;
        StopSource stop;
        const RunResult r = run(m_reg, job("dsgd.doubly_stochastic", {}, problem(Task::Regression, 0, 300, 10)), stop,
                                &observer);
        QCOMPARE(r.status, RunStatus::Finished);
        for (const char* key : {"flops", "memory_bytes", "model_bytes"})
            QVERIFY2(observer.m_cost.value(key).toDouble() > 0, key);
        QCOMPARE(r.info.value("predicted_cost").toObject(), observer.m_cost);
    }

    void stopDuringACheckpointEvaluationCancelsTheRun()
    {
        // A few training steps, then a checkpoint whose evaluation takes seconds: 200000 test
        // rows against 30000 features. Stop 1.2 s of CPU time in (600 ms on an idle machine's
        // two threads) lands inside predict(), which gives up; the host logs no partial point,
        // the run is cancelled, and its work after Stop is within the promise
        // (tests/support/StopMeter.h).
        auto p = std::make_shared<data::DatasetPair>(*problem(Task::Regression, 0, 200, 200000));
        StopSource stop;
        const RunJob j = job("dsgd.doubly_stochastic", {{"batch_size", 200}, {"features_per_step", 30000}, {"epochs", 3.0}}, p);
        const auto r = runAndStop(stop, StopWhen{.cpuMs = 1200}, [&] { return run(m_reg, j, stop); });
        QVERIFY2(!r.endedBeforeStop, "finished before Stop");
        QCOMPARE(r.value.status, RunStatus::Cancelled);
        QVERIFY2(r.value.points.isEmpty(), qPrintable(QString("%1 points logged").arg(r.value.points.size())));
        qInfo("%s", qPrintable(r.after.describe()));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }
};

QTEST_GUILESS_MAIN(TestDsgdPlugin)
#include "tst_dsgdplugin.moc"
