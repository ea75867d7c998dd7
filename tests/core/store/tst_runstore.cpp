// RunStore in one process: every record type round-trips, writes are applied in call order,
// concurrent writers lose nothing, deletes cascade, and write errors are reported, not fatal.

#include <store/RunStore.h>
#include <store/StoreSchema.h>

#include <QJsonArray>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <algorithm>
#include <set>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

using namespace tb;

namespace {

/// Exact comparison where NaN equals NaN: the store must give back the very bits it was given.
bool same(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

RunRecord sampleRun(qint64 experimentId, std::uint64_t seed)
{
    RunRecord r;
    r.experimentId = experimentId;
    r.algorithmId = QStringLiteral("gradient.adam");
    r.algorithmName = QStringLiteral("Adam");
    r.pluginId = QStringLiteral("gradient");
    r.pluginVersion = QStringLiteral("1.2.3");
    r.params = {{QStringLiteral("lr"), 0.001},
                {QStringLiteral("hidden"), QVariantList{64, 32}},
                {QStringLiteral("activation"), QStringLiteral("tanh")},
                {QStringLiteral("nesterov"), true}};
    r.dataset = QStringLiteral("bpls-toy-linear σ=0.1");
    r.seed = seed;
    r.threads = 4;
    r.repeat = 2;
    r.sigma = 0.25;
    r.started = QDateTime::fromMSecsSinceEpoch(1700000000123, Qt::UTC);
    r.info = {{QStringLiteral("rank"), 17}};
    r.appVersion = QStringLiteral("9.9.9");
    return r;
}

/// A raw connection for checks the API does not offer; removed when the guard dies.
class RawConnection {
public:
    explicit RawConnection(const QString& path)
        : m_name(QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.open();
    }
    ~RawConnection() { QSqlDatabase::removeDatabase(m_name); }
    QSqlDatabase db() const { return QSqlDatabase::database(m_name); }
    QVariant scalar(const QString& sql) const
    {
        QSqlQuery q(db());
        return q.exec(sql) && q.next() ? q.value(0) : QVariant();
    }
    bool exec(const QString& sql) const { return QSqlQuery(db()).exec(sql); }

private:
    QString m_name;
};

} // namespace

class TestRunStore : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString dbPath(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void init()
    {
        // Qt SQL warns instead of failing (e.g. "connection … is still in use"): treat it as a failure.
        QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
    }

    void anExperimentIsClaimedOnlyByWhoRunsIt()
    {
        // A created experiment (also a copy of results, SavedResult) is nobody's until a process
        // claims it; its own claimant may claim it again; after release, anyone may.
        QString error;
        const QString path = dbPath(QStringLiteral("claims.sqlite"));
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        ExperimentRecord e;
        e.name = QStringLiteral("copied");
        const qint64 id = store->createExperiment(e);
        QVERIFY(id > 0);
        const QString claimSql = QStringLiteral("SELECT claim FROM experiments WHERE id = %1").arg(id);
        {
            RawConnection raw(path);
            QCOMPARE(raw.scalar(claimSql).toString(), QString());
        }
        QString holder;
        QVERIFY(store->claimExperiment(id, &holder));
        QVERIFY(holder.isEmpty());
        const RunStoreOwner& me = RunStoreOwner::current();
        {
            RawConnection raw(path);
            QCOMPARE(raw.scalar(claimSql).toString(),
                     QStringLiteral("%1\t%2\t%3\t%4").arg(me.host, me.bootId).arg(me.pid).arg(me.startTicks));
        }
        QVERIFY(store->claimExperiment(id, &holder)); // this process again
        store->releaseExperiment(id);
        QVERIFY(store->flush());
        RawConnection raw(path);
        QCOMPARE(raw.scalar(claimSql).toString(), QString());
    }

    void createsFileFoldersAndSchema()
    {
        const QString path = dbPath(QStringLiteral("deep/er/runs.sqlite"));
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(QFileInfo::exists(path));
        QCOMPARE(store->path(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(store->schemaVersion(), StoreSchema::latestVersion());
        RawConnection raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA application_id")).toInt(), 0x54425253);
        QCOMPARE(
            raw.scalar(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
                .toInt(),
            4);
    }

    void defaultPathIsTheTrainbenchDataFolder()
    {
        QStandardPaths::setTestModeEnabled(true); // keep the user's real data folder out of tests
        const QString path = RunStore::defaultPath();
        QVERIFY(QFileInfo(path).isAbsolute());
        QVERIFY2(path.endsWith(QLatin1String("/trainbench/runs.sqlite")), qPrintable(path));
        QStandardPaths::setTestModeEnabled(false);
    }

    void everyRecordRoundTrips()
    {
        const QString path = dbPath(QStringLiteral("roundtrip.sqlite"));
        QString error;
        qint64 expId = -1, runMax = -1, runHigh = -1, runLoose = -1;
        ExperimentRecord e;
        e.name = QStringLiteral("Fig. 4 — noise sweep");
        e.kind = QStringLiteral("noise-sweep");
        e.spec = {{QStringLiteral("threads"), 4},
                  {QStringLiteral("algorithms"), QJsonArray{QStringLiteral("bpls"), QStringLiteral("adam")}},
                  {QStringLiteral("sigma"), QJsonArray{0.0, 0.1, 0.2}}};
        e.created = QDateTime::fromMSecsSinceEpoch(1699999999987, Qt::UTC);
        e.appVersion = QStringLiteral("0.1.0");
        e.gitHash = QStringLiteral("abcdef012345");

        // Seeds above 2^63 do not fit SQLite's signed integers: they must come back bit for bit.
        const std::uint64_t maxSeed = 0xFFFFFFFFFFFFFFFFull;
        const std::uint64_t highSeed = (1ull << 63) + 12345;

        QVector<MetricPoint> points;
        for (int i = 0; i < 5; ++i) {
            MetricPoint p;
            p.seq = i;
            p.epoch = i * 0.25;
            p.trainTime = 0.1 * i + 1e-9;
            p.loss = i == 3 ? std::numeric_limits<double>::infinity() : 1.0 / (i + 1);
            p.trainAccuracy = i == 1 ? NaN : 0.9 + i * 1e-3; // NaN in the middle of real values
            p.trainRmse = i == 4 ? -std::numeric_limits<double>::infinity() : NaN;
            points << p;
        }
        SummaryPoint s1{QStringLiteral("bpls"), QStringLiteral("BPLS"), 0.1, 20, 0.11, 0.01, 0.12, 0.02};
        SummaryPoint s2{QStringLiteral("adam"), QStringLiteral("Adam"), 0.2, 0, NaN, NaN, NaN, NaN};
        {
            auto store = RunStore::open(path, &error);
            QVERIFY2(store, qPrintable(error));
            expId = store->createExperiment(e);
            QVERIFY2(expId > 0, qPrintable(store->lastError()));
            runMax = store->createRun(sampleRun(expId, maxSeed));
            runHigh = store->createRun(sampleRun(expId, highSeed));
            RunRecord loose = sampleRun(-1, 0);
            loose.sigma = NaN;
            loose.started = QDateTime(); // stored as now
            runLoose = store->createRun(loose);
            QVERIFY(runMax > 0 && runHigh > runMax && runLoose > runHigh);
            for (const MetricPoint& p : points)
                store->appendMetric(runMax, p);
            store->addSummaryPoint(expId, s1);
            store->addSummaryPoint(expId, s2);
            store->finishRun(runMax, RunStatus::Diverged, QStringLiteral("loss became inf at seq 3"),
                             {{QStringLiteral("final_loss"), 0.5}});
            QVERIFY(store->flush());
            QVERIFY2(store->lastError().isEmpty(), qPrintable(store->lastError()));
        }
        auto store = RunStore::open(path, &error); // read back through a fresh open
        QVERIFY2(store, qPrintable(error));

        const auto exps = store->experiments();
        QCOMPARE(exps.size(), 1);
        const auto e2 = store->experiment(expId);
        QVERIFY(e2);
        for (const ExperimentRecord& r : {exps[0], *e2}) {
            QCOMPARE(r.id, expId);
            QCOMPARE(r.name, e.name);
            QCOMPARE(r.kind, e.kind);
            QCOMPARE(r.spec, e.spec);
            QCOMPARE(r.created, e.created);
            QCOMPARE(r.appVersion, e.appVersion);
            QCOMPARE(r.gitHash, e.gitHash);
        }
        QVERIFY(!store->experiment(expId + 100));

        const auto r = store->run(runMax);
        QVERIFY(r);
        const RunRecord want = sampleRun(expId, maxSeed);
        QCOMPARE(r->seed, maxSeed);
        QCOMPARE(store->run(runHigh)->seed, highSeed);
        QCOMPARE(r->experimentId, expId);
        QCOMPARE(r->algorithmId, want.algorithmId);
        QCOMPARE(r->algorithmName, want.algorithmName);
        QCOMPARE(r->pluginId, want.pluginId);
        QCOMPARE(r->pluginVersion, want.pluginVersion);
        // JSON turns ints into numbers: compare in the JSON domain, where the values are equal.
        QCOMPARE(QJsonObject::fromVariantMap(r->params), QJsonObject::fromVariantMap(want.params));
        QCOMPARE(r->dataset, want.dataset);
        QCOMPARE(r->threads, 4);
        QCOMPARE(r->repeat, 2);
        QCOMPARE(r->sigma, 0.25);
        QCOMPARE(r->status, RunStatus::Diverged);
        QCOMPARE(r->error, QStringLiteral("loss became inf at seq 3"));
        QCOMPARE(r->started, want.started);
        QVERIFY(r->ended.isValid() && r->ended >= r->started);
        QCOMPARE(r->info, (QJsonObject{{QStringLiteral("rank"), 17}, {QStringLiteral("final_loss"), 0.5}}));
        QCOMPARE(r->appVersion, QStringLiteral("9.9.9"));

        const auto loose = store->run(runLoose);
        QVERIFY(loose);
        QCOMPARE(loose->experimentId, qint64(-1));
        QVERIFY(std::isnan(loose->sigma));
        QCOMPARE(loose->seed, std::uint64_t(0));
        QVERIFY(loose->started.isValid());
        // Still "running" when the first store closed: that store marked it interrupted.
        QCOMPARE(loose->status, RunStatus::Interrupted);
        QVERIFY(loose->ended >= loose->started);

        QCOMPARE(store->runs(expId).size(), 2);
        QCOMPARE(store->runs().size(), 3);
        QCOMPARE(store->runs(expId + 100).size(), 0);

        const auto got = store->metrics(runMax);
        QCOMPARE(got.size(), points.size());
        for (int i = 0; i < points.size(); ++i) {
            QCOMPARE(got[i].seq, points[i].seq);
            QVERIFY(same(got[i].epoch, points[i].epoch));
            QVERIFY(same(got[i].trainTime, points[i].trainTime));
            QVERIFY(same(got[i].loss, points[i].loss));
            QVERIFY(same(got[i].trainAccuracy, points[i].trainAccuracy));
            QVERIFY(same(got[i].testAccuracy, points[i].testAccuracy));
            QVERIFY(same(got[i].trainRmse, points[i].trainRmse));
            QVERIFY(same(got[i].testRmse, points[i].testRmse));
        }
        QVERIFY(std::isinf(got[3].loss) && std::isnan(got[1].trainAccuracy) && std::isnan(got[0].testRmse));
        RawConnection raw(path); // NaN is NULL on disk, so SQL aggregates skip it
        QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM metrics WHERE test_acc IS NULL")).toInt(),
                 5);

        const auto sweeps = store->summaryPoints(expId);
        QCOMPARE(sweeps.size(), 2);
        for (const auto& [a, b] : {std::pair{sweeps[0], s1}, std::pair{sweeps[1], s2}}) {
            QCOMPARE(a.algorithmId, b.algorithmId);
            QCOMPARE(a.algorithmName, b.algorithmName);
            QCOMPARE(a.x, b.x);
            QCOMPARE(a.count, b.count);
            QVERIFY(same(a.trainRmseMean, b.trainRmseMean) && same(a.trainRmseStd, b.trainRmseStd));
            QVERIFY(same(a.testRmseMean, b.testRmseMean) && same(a.testRmseStd, b.testRmseStd));
        }
    }

    void finishIsOrderedAfterTheRunsMetrics()
    {
        // Tiny batches so the metrics, the info updates and the finish span many transactions.
        RunStore::Options options;
        options.batchOps = 7;
        QString error;
        auto store = RunStore::open(dbPath(QStringLiteral("order.sqlite")), options, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->createRun(sampleRun(-1, 1));
        QVERIFY(run > 0);
        constexpr int n = 2000;

        // A reader that sees the run finished must already see all of its metrics.
        std::atomic<int> seenAtFinish{-1};
        std::thread reader([&] {
            for (;;) {
                const auto r = store->run(run);
                if (r && r->status == RunStatus::Finished) {
                    seenAtFinish = int(store->metrics(run).size());
                    return;
                }
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        });
        for (int i = 0; i < n; ++i) {
            MetricPoint p;
            p.seq = i;
            store->appendMetric(run, p);
            if (i % 500 == 0)
                store->setRunInfo(run, {{QStringLiteral("last"), i}, {QStringLiteral("seen"), i}});
        }
        store->setRunInfo(run, {{QStringLiteral("last"), -1}});
        store->finishRun(run, RunStatus::Finished, {}, {{QStringLiteral("last"), n}});
        store->setRunInfo(run, {{QStringLiteral("after"), true}});
        QVERIFY(store->flush());
        reader.join();
        QCOMPARE(seenAtFinish.load(), n);
        const auto r = store->run(run);
        // Later writes win key by key; keys not mentioned survive: FIFO order across all calls.
        QCOMPARE(r->info, (QJsonObject{{QStringLiteral("rank"), 17},
                                       {QStringLiteral("last"), n},
                                       {QStringLiteral("seen"), 1500},
                                       {QStringLiteral("after"), true}}));
    }

    void concurrentAppendsLoseNothing()
    {
        QString error;
        auto store = RunStore::open(dbPath(QStringLiteral("threads.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        constexpr int threads = 4, perThread = 5000;
        std::vector<qint64> own(threads);
        for (int t = 0; t < threads; ++t)
            own[t] = store->createRun(sampleRun(-1, std::uint64_t(t)));
        const qint64 shared = store->createRun(sampleRun(-1, 99));
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
            workers.emplace_back([&, t] {
                for (int i = 0; i < perThread; ++i) {
                    MetricPoint p;
                    p.seq = i;
                    p.loss = t * 1e6 + i; // identifies the writer
                    store->appendMetric(own[t], p);
                    p.seq = t * perThread + i; // disjoint seq ranges in one run
                    store->appendMetric(shared, p);
                    if (i % 1000 == 0)
                        store->flush(); // flushes racing appends must not lose them either
                }
            });
        for (auto& w : workers)
            w.join();
        QVERIFY(store->flush());
        QVERIFY2(store->lastError().isEmpty(), qPrintable(store->lastError()));
        for (int t = 0; t < threads; ++t) {
            const auto m = store->metrics(own[t]);
            QCOMPARE(m.size(), perThread);
            for (int i = 0; i < perThread; ++i)
                QCOMPARE(m[i].loss, t * 1e6 + i);
        }
        const auto m = store->metrics(shared);
        QCOMPARE(m.size(), threads * perThread);
        for (int i = 0; i < m.size(); ++i)
            QCOMPARE(m[i].seq, i);
    }

    void readsFromManyThreadsWhileWriting()
    {
        QString error;
        auto store = RunStore::open(dbPath(QStringLiteral("readers.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->createRun(sampleRun(-1, 5));
        QVERIFY(store->flush()); // the row is queued like the checkpoints: readers see it once committed
        constexpr int n = 3000;
        std::atomic<bool> writing{true};
        std::atomic<int> badReads{0};
        std::vector<std::thread> readers;
        for (int t = 0; t < 3; ++t)
            readers.emplace_back([&] {
                qsizetype last = 0;
                while (writing) {
                    const auto m = store->metrics(run); // each thread opens its own connection
                    // Committed batches only grow, and always as a prefix 0..k-1.
                    if (m.size() < last || (!m.isEmpty() && m.last().seq != m.size() - 1) || !store->run(run))
                        ++badReads;
                    last = m.size();
                }
            });
        for (int i = 0; i < n; ++i) {
            MetricPoint p;
            p.seq = i;
            store->appendMetric(run, p);
            if (i % 100 == 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        QVERIFY(store->flush());
        writing = false;
        for (auto& r : readers)
            r.join();
        QCOMPARE(badReads.load(), 0);
        QCOMPARE(store->metrics(run).size(), n);
    }

    void storeClosedWhileAReaderThreadLives()
    {
        // The store removes the connection of a thread that is still alive; the thread's exit must
        // then neither touch the dead store nor warn (init() fails the test on any warning).
        QString error;
        auto store = RunStore::open(dbPath(QStringLiteral("reader-outlives.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->createRun(sampleRun(-1, 5));
        QVERIFY(store->flush());
        std::atomic<int> stage{0};
        std::atomic<bool> readOk{false};
        std::thread reader([&] {
            readOk = store->run(run).has_value();
            stage = 1;
            while (stage != 2)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
        while (stage != 1)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        store.reset();
        stage = 2;
        reader.join();
        QVERIFY(readOk);
        // A new store in the same place and thread gets fresh connections.
        store = RunStore::open(dbPath(QStringLiteral("reader-outlives.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->run(run)->status, RunStatus::Interrupted);
    }

    void deletesCascade()
    {
        QString error;
        const QString path = dbPath(QStringLiteral("delete.sqlite"));
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 a = store->createExperiment({});
        const qint64 b = store->createExperiment({});
        const qint64 ra = store->createRun(sampleRun(a, 1));
        const qint64 rb1 = store->createRun(sampleRun(b, 2));
        const qint64 rb2 = store->createRun(sampleRun(b, 3));
        for (qint64 run : {ra, rb1, rb2})
            for (int i = 0; i < 10; ++i) {
                MetricPoint p;
                p.seq = i;
                store->appendMetric(run, p);
            }
        store->addSummaryPoint(a, {});
        store->addSummaryPoint(b, {});
        QVERIFY(store->flush());

        QVERIFY(store->deleteRun(rb2));
        QVERIFY(!store->deleteRun(rb2)); // already gone
        QVERIFY(!store->run(rb2));
        QVERIFY(store->metrics(rb2).isEmpty());
        QVERIFY(store->deleteExperiment(a));
        QVERIFY(!store->deleteExperiment(a));
        QVERIFY(!store->experiment(a));
        QVERIFY(store->runs(a).isEmpty() && store->summaryPoints(a).isEmpty() && store->metrics(ra).isEmpty());
        // The other experiment is untouched.
        QCOMPARE(store->runs(b).size(), 1);
        QCOMPARE(store->metrics(rb1).size(), 10);
        QCOMPARE(store->summaryPoints(b).size(), 1);
        RawConnection raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM metrics")).toInt(), 10);
    }

    void badWriteIsReportedAndTheBatchGoesOn()
    {
        QString error;
        auto store = RunStore::open(dbPath(QStringLiteral("badwrite.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        QSignalSpy spy(store.get(), &RunStore::writeFailed);
        const qint64 run = store->createRun(sampleRun(-1, 1));
        MetricPoint p;
        store->appendMetric(run, p);
        store->appendMetric(424242, p); // no such run: foreign key
        p.seq = 1;
        store->appendMetric(run, p);
        store->appendMetric(run, p); // duplicate seq: primary key
        store->finishRun(777777, RunStatus::Finished);
        p.seq = 2;
        store->appendMetric(run, p);
        QVERIFY(!store->flush()); // false: writes failed since the last flush
        QCOMPARE(spy.count(), 3);
        const QString fk = spy.at(0).at(0).toString();
        QVERIFY2(fk.contains(QLatin1String("run 424242")) && fk.contains(QLatin1String("FOREIGN KEY")),
                 qPrintable(fk));
        QVERIFY2(spy.at(1).at(0).toString().contains(QLatin1String("checkpoint 1 to run")),
                 qPrintable(spy.at(1).at(0).toString()));
        QVERIFY2(store->lastError().contains(QLatin1String("no run 777777")), qPrintable(store->lastError()));
        QCOMPARE(store->metrics(run).size(), 3); // seq 0, 1, 2: the good rows of the batch survive
        QCOMPARE(store->run(run)->status, RunStatus::Running);
        QVERIFY(store->flush()); // nothing failed since
    }

    void lockedDatabaseDropsTheBatchAndRecovers()
    {
        const QString path = dbPath(QStringLiteral("locked.sqlite"));
        RunStore::Options options;
        options.busyTimeoutMs = 300;
        QString error;
        auto store = RunStore::open(path, options, &error);
        QVERIFY2(store, qPrintable(error));
        QSignalSpy spy(store.get(), &RunStore::writeFailed);
        const qint64 run = store->createRun(sampleRun(-1, 1));
        QVERIFY(store->flush()); // the run's row is in before the lock is taken
        RawConnection holder(path); // another writer that keeps the write lock too long
        QVERIFY(holder.exec(QStringLiteral("BEGIN IMMEDIATE")));
        MetricPoint p;
        store->appendMetric(run, p);
        store->appendMetric(run, p);
        QVERIFY(!store->flush(20000));
        QCOMPARE(spy.count(), 1);
        const QString message = store->lastError();
        QVERIFY2(message.contains(QLatin1String("locked")) && message.contains(QLatin1String("for more than 0.")),
                 qPrintable(message));
        QCOMPARE(store->failure(), message);
        QVERIFY(holder.exec(QStringLiteral("ROLLBACK")));
        p.seq = 5;
        store->appendMetric(run, p);
        QVERIFY(store->flush());
        const auto m = store->metrics(run);
        QCOMPARE(m.size(), 1);
        QCOMPARE(m[0].seq, 5);
    }

    void closingMarksItsOwnUnfinishedRunsInterrupted()
    {
        const QString path = dbPath(QStringLiteral("close.sqlite"));
        QString error;
        qint64 unfinished = -1, done = -1, other = -1;
        auto keeper = RunStore::open(path, &error); // a second store of this live process
        QVERIFY2(keeper, qPrintable(error));
        other = keeper->createRun(sampleRun(-1, 3));
        QVERIFY(keeper->flush());
        {
            auto store = RunStore::open(path, &error);
            QVERIFY2(store, qPrintable(error));
            QCOMPARE(store->interruptedOnOpen(), 0); // keeper's run belongs to a live process
            unfinished = store->createRun(sampleRun(-1, 1));
            done = store->createRun(sampleRun(-1, 2));
            store->finishRun(done, RunStatus::Cancelled);
        }
        const auto r = keeper->run(unfinished);
        QCOMPARE(r->status, RunStatus::Interrupted);
        QCOMPARE(r->error, QStringLiteral("the run store was closed before the run finished"));
        QVERIFY(r->ended.isValid());
        QCOMPARE(keeper->run(done)->status, RunStatus::Cancelled);
        QCOMPARE(keeper->run(other)->status, RunStatus::Running); // another store's run is not ours
    }

    // Run ids come from blocks each store reserves in the file: two stores creating runs in
    // turn (two processes would do the same through the file) never get the same id, a deleted
    // run's id is never given again, and a store that closes gives back the ids it did not use
    // when no one reserved after it — so one process after another keeps consecutive ids.
    void runIdsAreReservedInBlocksAndNeverShared()
    {
        const QString path = dbPath(QStringLiteral("ids.sqlite"));
        QString error;
        auto a = RunStore::open(path, &error);
        QVERIFY2(a, qPrintable(error));
        auto b = RunStore::open(path, &error);
        QVERIFY2(b, qPrintable(error));
        std::set<qint64> ids;
        std::vector<qint64> fromA;
        for (int i = 0; i < 40; ++i) { // past the first blocks of both: several reservations each
            const qint64 x = a->createRun(sampleRun(-1, std::uint64_t(i))),
                         y = b->createRun(sampleRun(-1, std::uint64_t(100 + i)));
            QVERIFY(x > 0 && y > 0);
            QVERIFY2(ids.insert(x).second && ids.insert(y).second, qPrintable(QStringLiteral("%1 %2").arg(x).arg(y)));
            fromA.push_back(x);
        }
        QVERIFY(a->flush() && b->flush());
        QCOMPARE(a->runs(-1).size(), 80);
        for (int i = 0; i < 40; ++i) // each row is the run its id was given for
            QCOMPARE(a->run(fromA[std::size_t(i)])->seed, sampleRun(-1, std::uint64_t(i)).seed);
        // A store's own ids increase: its runs keep the order they were created in.
        QVERIFY(std::is_sorted(fromA.begin(), fromA.end()));
        const qint64 top = *ids.rbegin();
        QVERIFY(a->deleteRun(top));
        a.reset();
        b.reset();
        // Both closed: the last to reserve gave its unused ids back, down to its last run (deleted
        // since, so its id is not given again).
        auto c = RunStore::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->createRun(sampleRun(-1, 7)), top + 1);
        QCOMPARE(c->createRun(sampleRun(-1, 8)), top + 2);
        c.reset();
        auto d = RunStore::open(path, &error);
        QVERIFY2(d, qPrintable(error));
        QCOMPARE(d->createRun(sampleRun(-1, 9)), top + 3);
        QVERIFY(d->flush());
        QCOMPARE(d->run(top + 3)->seed, sampleRun(-1, 9).seed);
        QVERIFY(!d->run(top).has_value());
    }

    // Issue 49: the run browser lists 100,000 runs from runListing(): the rows as runs() reads
    // them, without parameters and with only the facts a row shows; a row whose info is not JSON
    // is reported and the others still listed.
    void runListingKeepsTheRowsFactsAndLeavesOutParameters()
    {
        QString error;
        const QString path = dbPath(QStringLiteral("listing.sqlite"));
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        QList<qint64> ids;
        for (int i = 0; i < 3; ++i) {
            RunRecord r = sampleRun(-1, std::uint64_t(10 + i));
            r.params = {{QStringLiteral("lr"), 0.01 * (i + 1)}, {QStringLiteral("hidden"), QVariantList{16, 16}}};
            r.tags = {QStringLiteral("lab")};
            ids << store->createRun(r);
            store->finishRun(ids.last(), RunStatus::Finished, {},
                             {{QStringLiteral("final"), QJsonObject{{QStringLiteral("test_accuracy"), 0.5 + 0.1 * i}}},
                              {QStringLiteral("peak_memory_bytes"), 1024.0 * (i + 1)},
                              {QStringLiteral("layer_solves"), QJsonArray{QJsonObject{{QStringLiteral("layer"), 1}}}},
                              {QStringLiteral("cpu"), QStringLiteral("a CPU")}});
        }
        QVERIFY(store->flush());
        const QList<RunRecord> whole = store->runs(-1);
        QList<RunRecord> listed = store->runListing(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(listed.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const RunRecord& l = listed[i];
            const RunRecord& w = whole[i];
            QCOMPARE(l.id, w.id);
            QCOMPARE(l.seed, w.seed);
            QCOMPARE(l.status, RunStatus::Finished);
            QCOMPARE(l.tags, w.tags);
            QCOMPARE(l.algorithmName, w.algorithmName);
            QVERIFY(l.params.isEmpty());
            QCOMPARE(w.params.size(), 2);
            // Only the listing's facts, with their values.
            const QStringList keys = l.info.keys();
            QCOMPARE(QSet<QString>(keys.begin(), keys.end()),
                     (QSet<QString>{QStringLiteral("final"), QStringLiteral("peak_memory_bytes")}));
            QCOMPARE(l.info.value(QStringLiteral("final")), w.info.value(QStringLiteral("final")));
            QCOMPARE(l.info.value(QStringLiteral("peak_memory_bytes")).toDouble(), 1024.0 * (i + 1));
        }
        QCOMPARE(store->runParameters().value(ids[1]).value(QStringLiteral("lr")).toDouble(), 0.02);
        // In two parts (what two threads read): the even ids and the odd ones, each once.
        const QList<RunRecord> even = store->runListing(&error, 0, 2), odd = store->runListing(&error, 1, 2);
        QCOMPARE(even.size() + odd.size(), 3);
        for (const RunRecord& r : even)
            QCOMPARE(r.id % 2, 0);
        for (const RunRecord& r : odd)
            QCOMPARE(r.id % 2, 1);

        // One row's facts damaged by hand: that row is reported, the others listed as before.
        {
            RawConnection raw(path);
            QVERIFY(raw.exec(QStringLiteral("UPDATE runs SET info_json = '{\"final\": [1,' WHERE id = %1").arg(ids[1])));
        }
        listed = store->runListing(&error);
        QCOMPARE(listed.size(), 3);
        QVERIFY2(error.isEmpty(), qPrintable(error)); // a row's problem is not the query's
        QVERIFY2(store->lastError().contains(QStringLiteral("run %1, info_json").arg(ids[1])), qPrintable(store->lastError()));
        QCOMPARE(listed[2].info.value(QStringLiteral("final")), whole[2].info.value(QStringLiteral("final")));
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
