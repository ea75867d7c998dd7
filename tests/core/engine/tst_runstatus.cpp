// Runner: a Stop that arrives after the trainer reached its whole budget (ridge's single solve
// was marked "cancelled" though its model was complete, issue 17) leaves the run finished; a Stop
// that cuts the budget short cancels it.

#include <data/DataSource.h>
#include <engine/PluginRegistry.h>
#include <engine/Runner.h>

#include <QtTest>

#include <sys/resource.h>

using namespace tb;

namespace {

/// Presses Stop when the checkpoint of epoch @p at is logged.
class StopAt : public RunObserver {
public:
    StopAt(StopSource& stop, double at) : m_stop(stop), m_at(at) {}
    void checkpointLogged(const RunJob&, qint64, const MetricPoint& p) override
    {
        if (p.epoch >= m_at)
            m_stop.requestStop();
    }

private:
    StopSource& m_stop;
    double m_at;
};

RunJob job(const QString& id, const QVariantMap& params)
{
    RunJob j;
    j.algorithmId = id;
    j.params = params;
    j.data = std::make_shared<const data::DatasetPair>(
        data::DataSource::load(QJsonObject{{"source", "moons"}, {"samples", 100}}, QString()));
    return j;
}

} // namespace

class TestRunStatus : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR});
        QVERIFY(m_reg.algorithm("test.sleepy") && m_reg.algorithm("linear.ridge"));
    }

    void stopAfterTheWholeBudgetFinishes()
    {
        // Ridge: one solve, one checkpoint at epoch 1 (its declared budget); Stop pressed there.
        StopSource stop;
        StopAt observer(stop, 1.0);
        const RunResult r = Runner(m_reg, nullptr).execute(job("linear.ridge", {}), stop, &observer);
        QVERIFY(stop.stopRequested());
        QCOMPARE(r.status, RunStatus::Finished);
        QVERIFY(r.last.testAccuracy > 0.5);

        // An epoch trainer stopped at its last epoch is complete too.
        StopSource stop3;
        StopAt last(stop3, 3.0);
        QCOMPARE(Runner(m_reg, nullptr).execute(job("test.sleepy", {{"epochs", 3}, {"epoch_ms", 0}}), stop3, &last).status,
                 RunStatus::Finished);
    }

    void stopBeforeTheBudgetCancels()
    {
        StopSource stop;
        StopAt early(stop, 1.0);
        const RunResult r = Runner(m_reg, nullptr).execute(job("test.sleepy", {{"epochs", 5}, {"epoch_ms", 0}}), stop, &early);
        QCOMPARE(r.status, RunStatus::Cancelled);
        QVERIFY(r.last.epoch < 5);
    }

    void outOfMemoryNamesWhatWasBuilt()
    {
        // Hidden layers of 10^5 × 10^5 weights (80 GB) under an address-space limit: the run fails
        // with a message that says what ran out of memory, not a bare "std::bad_alloc".
        QVERIFY(m_reg.algorithm("gradient.adam"));
        rlimit old{};
        QVERIFY(getrlimit(RLIMIT_AS, &old) == 0);
        rlimit tight = old;
        tight.rlim_cur = rlim_t(8) << 30; // far below 80 GB, far above what the process maps
        QVERIFY(setrlimit(RLIMIT_AS, &tight) == 0);
        StopSource stop;
        // A noise-sweep cell (no row of its own, no prediction: its experiment checked the
        // memory of all cells before they started) that allocates anyway.
        RunJob cell = job("gradient.adam", {{"hidden", QVariantList{100000, 100000}}, {"epochs", 1}});
        cell.logToStore = false;
        const RunResult r = Runner(m_reg, nullptr).execute(cell, stop, nullptr);
        // A run with its own prediction is refused before fit() allocates (issue 32).
        const RunResult refused = Runner(m_reg, nullptr).execute(
            job("gradient.adam", {{"hidden", QVariantList{100000, 100000}}, {"epochs", 1}}), stop, nullptr);
        setrlimit(RLIMIT_AS, &old);
        QCOMPARE(r.status, RunStatus::Failed);
        QVERIFY2(r.error.startsWith("out of memory while gradient.adam trained on 70×2 → 2 data (std::bad_alloc)"),
                 qPrintable(r.error));
        QCOMPARE(refused.status, RunStatus::Failed);
        QVERIFY2(refused.error.startsWith("gradient.adam: gradient.adam needs ") &&
                     refused.error.contains("sized by hidden = [100000, 100000]"),
                 qPrintable(refused.error));
        QVERIFY(!refused.info.contains("peak_memory_bytes")); // fit() never started
    }
};

QTEST_GUILESS_MAIN(TestRunStatus)
#include "tst_runstatus.moc"
