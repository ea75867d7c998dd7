// ExperimentRunner, SavedResult and StoredRuns when the run store fails (issue 17, "silent data loss"): a failed
// write stops the experiment with the store's message, the runs it stopped are failed (not
// "cancelled"), the results stay complete in memory and can be saved into another store as the
// rows the runner would have written; a data set that does not load leaves no experiment row.

#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <engine/SavedResult.h>
#include <engine/StoredRuns.h>
#include <store/RunStore.h>

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QUuid>
#include <QtTest>
#include <trainbench/Seeds.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

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

/// Another process's connection, on its own thread (QSqlDatabase connections belong to the
/// thread that opened them), and an ExperimentObserver: it takes the write lock at checkpoint
/// @p atCheckpoint of the experiment (inside the first run, whenever the machine lets that run
/// start; the training thread waits until the lock is taken) and holds it until release().
/// The next checkpoint waits until @p store has reported the failed write (at most a minute
/// each), so that the run trains no further before the failure, however slowly the writer
/// thread's busy wait runs.
class LockHolder : public ExperimentObserver {
public:
    LockHolder(const QString& path, RunStore& store, int atCheckpoint) : m_at(atCheckpoint)
    {
        m_watch = QObject::connect(&store, &RunStore::writeFailed, &store, [this](const QString&) {
            std::lock_guard lock(m_mutex);
            m_storeFailed = true;
            m_changed.notify_all();
        }, Qt::DirectConnection);
        m_thread = std::thread([=, this] {
            const QString name = QStringLiteral("holder-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                db.open();
                std::unique_lock lock(m_mutex);
                m_changed.wait_for(lock, std::chrono::minutes(1), [&] { return m_take || m_released; });
                const bool take = m_take && !m_released;
                lock.unlock(); // not while SQLite may wait for the store's writer
                QSqlQuery q(db);
                const bool locked = take && q.exec(QStringLiteral("BEGIN IMMEDIATE"));
                lock.lock();
                m_locked = locked;
                m_tried = true;
                m_changed.notify_all();
                m_changed.wait_for(lock, std::chrono::minutes(1), [&] { return m_released; });
                if (m_locked)
                    q.exec(QStringLiteral("ROLLBACK"));
            }
            QSqlDatabase::removeDatabase(name);
        });
    }
    ~LockHolder()
    {
        QObject::disconnect(m_watch);
        release();
        m_thread.join();
    }
    void checkpointLogged(const RunJob&, qint64, const MetricPoint&) override
    {
        std::unique_lock lock(m_mutex);
        ++m_checkpoints;
        if (m_checkpoints == m_at) {
            m_take = true;
            m_changed.notify_all();
            m_changed.wait_for(lock, std::chrono::minutes(1), [&] { return m_tried; });
        } else if (m_checkpoints == m_at + 1) {
            m_changed.wait_for(lock, std::chrono::minutes(1), [&] { return m_storeFailed; });
        }
    }
    void release()
    {
        std::lock_guard lock(m_mutex);
        m_released = true;
        m_changed.notify_all();
    }
    bool locked() const
    {
        std::lock_guard lock(m_mutex);
        return m_locked;
    }

private:
    const int m_at;
    QMetaObject::Connection m_watch;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_checkpoints = 0;
    bool m_take = false, m_tried = false, m_locked = false, m_released = false, m_storeFailed = false;
};

} // namespace

class TestStoreFailures : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR});
        QVERIFY(m_reg.algorithm("test.sleepy"));
    }

    void failedWriteStopsTheExperimentAndTheResultsCanBeSavedElsewhere()
    {
        const QString path = m_dir.filePath(QStringLiteral("locked.sqlite"));
        RunStore::Options o;
        o.busyTimeoutMs = 300; // short, so that the test's lock outlasts it
        QString error;
        auto store = RunStore::open(path, o, &error);
        QVERIFY2(store, qPrintable(error));
        // Three repeats of a 1.6 s run; the lock comes at the first one's 10th checkpoint and is
        // held until the experiment has ended, past any timeout; the 11th checkpoint waits for
        // the failure.
        const ExperimentSpec spec = parse(R"({"name": "locked out", "kind": "learning-curve", "repeats": 3,
            "seed": 11, "threads": 1, "dataset": {"source": "moons", "samples": 100},
            "algorithms": [{"id": "test.sleepy", "label": "Sleepy", "params": {"epochs": 80, "epoch_ms": 20}}]})");
        ExperimentResult result;
        const auto t0 = std::chrono::steady_clock::now();
        {
            LockHolder holder(path, *store, 10);
            result = ExperimentRunner(m_reg, store.get()).run(spec, &holder);
            holder.release();
            QVERIFY(holder.locked());
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QVERIFY2(result.storeError.contains(path) && result.storeError.contains(QLatin1String("locked")),
                 qPrintable(result.storeError));
        QVERIFY(!result.cancelled); // nobody pressed Stop
        // Stopped at the failure, not after 4.8 s of runs: the repeats after the failed one never
        // trained (counted by what ran, not by the wall clock, which a busy machine stretches).
        QCOMPARE(result.curves.size(), 1);
        const AlgorithmCurves& c = result.curves.first();
        qInfo("experiment ended after %.2f s, its first run after %d checkpoints (reported, not asserted)", wall,
              int(c.repeats.first().size()));
        QCOMPARE(c.statuses.size(), 3);
        for (int r = 1; r < 3; ++r)
            QVERIFY2(c.statuses[r] != RunStatus::Finished && c.repeats[r].isEmpty(),
                     qPrintable(QString("repeat %1 trained after the store failed").arg(r)));
        QCOMPARE(c.statuses.first(), RunStatus::Failed);
        QVERIFY2(c.errors.first().startsWith(QLatin1String("stopped because the run store failed: ")),
                 qPrintable(c.errors.first()));
        QVERIFY(c.repeats.first().size() >= 10);  // what trained before the stop is kept …
        QVERIFY(c.repeats.first().size() < 80);   // … and the run did stop
        QVERIFY(result.runsFailed >= 1);
        QVERIFY(!result.runErrors.isEmpty());

        // Save the session's results into another store: the same curves, reproducible rows.
        auto other = RunStore::open(m_dir.filePath(QStringLiteral("elsewhere.sqlite")), &error);
        QVERIFY2(other, qPrintable(error));
        const qint64 id = saveResult(*other, spec, result, m_reg, &error);
        QVERIFY2(id > 0, qPrintable(error));
        const auto exp = other->experiment(id);
        QVERIFY(exp);
        QCOMPARE(exp->name, QStringLiteral("locked out"));
        QCOMPARE(exp->spec.value("seed").toInteger(), 11);
        const auto runs = other->runs(id);
        QCOMPARE(runs.size(), c.repeats.size());
        for (int i = 0; i < runs.size(); ++i) {
            QCOMPARE(runs[i].algorithmId, QStringLiteral("test.sleepy"));
            QCOMPARE(runs[i].repeat, i);
            QCOMPARE(runs[i].seed, deriveSeed(11, std::uint64_t(i))); // as ExperimentRunner seeds repeat i
            QCOMPARE(runs[i].params.value("epochs").toInt(), 80);
            QVERIFY(runs[i].params.contains("epoch_ms"));
            QCOMPARE(runs[i].status, c.statuses[i]);
            QCOMPARE(runs[i].error, c.errors[i]);
            QCOMPARE(runs[i].pluginVersion, m_reg.algorithm("test.sleepy")->plugin->version);
        }
        const auto loaded = StoredRuns::experiment(*other, id, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->curves.size(), 1);
        QCOMPARE(loaded->curves.first().repeats.size(), c.repeats.size());
        for (int i = 0; i < c.repeats.size(); ++i) {
            QCOMPARE(loaded->curves.first().repeats[i].size(), c.repeats[i].size());
            for (int k = 0; k < c.repeats[i].size(); ++k) {
                QCOMPARE(loaded->curves.first().repeats[i][k].epoch, c.repeats[i][k].epoch);
                QCOMPARE(loaded->curves.first().repeats[i][k].testAccuracy, c.repeats[i][k].testAccuracy);
            }
        }
        QVERIFY(other->failure().isEmpty());
    }

    void dataThatDoesNotLoadLeavesNoExperimentRow()
    {
        QString error;
        auto store = RunStore::open(m_dir.filePath(QStringLiteral("nodata.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        const ExperimentSpec spec = parse(R"({"kind": "learning-curve", "dataset": {"source": "csv",
            "file": "/nonexistent/x.csv", "target": "y", "task": "regression", "test_fraction": 0.2},
            "algorithms": [{"id": "linear.ridge"}]})");
        const ExperimentResult r = ExperimentRunner(m_reg, store.get()).run(spec);
        QVERIFY2(r.error.contains("/nonexistent/x.csv"), qPrintable(r.error));
        QCOMPARE(r.experimentId, -1);
        QVERIFY(r.storeError.isEmpty());
        QVERIFY(store->experiments().isEmpty());
        QVERIFY(store->runs().isEmpty());
    }

    void anExperimentThatCannotBeRecordedDoesNotStart()
    {
        const QString path = m_dir.filePath(QStringLiteral("readonly.sqlite"));
        QString error;
        RunStore::open(path, &error); // create it
        RunStore::Options o;
        o.readOnly = true;
        auto store = RunStore::open(path, o, &error);
        QVERIFY2(store, qPrintable(error));
        const ExperimentSpec spec = parse(R"({"kind": "learning-curve", "dataset": {"source": "moons"},
            "algorithms": [{"id": "test.sleepy", "params": {"epochs": 3}}]})");
        const ExperimentResult r = ExperimentRunner(m_reg, store.get()).run(spec);
        QVERIFY2(r.error.contains(QLatin1String("cannot record the experiment")) && r.error.contains(path),
                 qPrintable(r.error));
        QVERIFY2(r.storeError.contains(QLatin1String("read-only")), qPrintable(r.storeError));
        QVERIFY(r.curves.isEmpty());
        QCOMPARE(r.runsFinished, 0);
    }
};

QTEST_GUILESS_MAIN(TestStoreFailures)
#include "tst_storefailures.moc"
