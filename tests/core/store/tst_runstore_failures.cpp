// The run store when the disk, the lock or the file fails (issue 17, "silent data loss"): every
// failed write is reported with the file and the cause and kept as failure(); a lock held by
// another process is waited for within a bound, and the wait is announced; a read-only store
// reads and refuses writes; a damaged file is reported by reads instead of looking shorter.

#include <store/RunStore.h>

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <sys/resource.h>
#include <thread>

using namespace tb;

namespace {

/// A raw connection on the calling thread, removed when the guard dies.
class Raw {
public:
    explicit Raw(const QString& path) : m_name(QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.open();
    }
    ~Raw() { QSqlDatabase::removeDatabase(m_name); }
    bool exec(const QString& sql) const { return QSqlQuery(QSqlDatabase::database(m_name)).exec(sql); }
    QList<QVariant> column(const QString& sql) const
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        QList<QVariant> out;
        if (q.exec(sql))
            while (q.next())
                out << q.value(0);
        return out;
    }

private:
    QString m_name;
};

QByteArray sha256(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256) : QByteArray();
}

RunRecord aRun(qint64 experimentId)
{
    RunRecord r;
    r.experimentId = experimentId;
    r.algorithmId = QStringLiteral("test.algorithm");
    // Long parameters spread the runs table over many pages (the damaged-page test needs that).
    r.params = {{QStringLiteral("note"), QString(400, QLatin1Char('p'))}};
    return r;
}

/// Limits the size of every file this process writes (RLIMIT_FSIZE) while it lives: a full
/// disk without mounting one. SIGXFSZ is ignored so that a write past the limit fails with EFBIG.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &m_old);
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit = m_old;
        limit.rlim_cur = bytes;
        m_ok = setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit()
    {
        setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_oldHandler);
    }
    bool ok() const { return m_ok; }

private:
    rlimit m_old{};
    void (*m_oldHandler)(int) = nullptr;
    bool m_ok = false;
};

} // namespace

class TestRunStoreFailures : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void lockHeldTooLongIsAnnouncedThenReported()
    {
        const QString file = path(QStringLiteral("locked.sqlite"));
        RunStore::Options o;
        o.busyTimeoutMs = 1500;
        o.waitNoticeMs = 200;
        QString error;
        auto store = RunStore::open(file, o, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->createRun(aRun(-1));
        QVERIFY(store->flush()); // the run's row is in before the lock is taken
        QSignalSpy waiting(store.get(), &RunStore::waiting);
        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        Raw holder(file);
        QVERIFY(holder.exec(QStringLiteral("BEGIN IMMEDIATE")));
        MetricPoint p;
        store->appendMetric(run, p);
        // Bounded: the write gives up by itself while the lock is still held — the failure comes,
        // and the flush returns; the 60 s only guard against a wait without end. Not at once:
        // it announced the wait first, and tried again and again (one try waits one slice of
        // SQLite's busy handler) — what it did is counted, how long it took is not timed.
        QVERIFY(!store->flush(60000));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(waiting.count(), 2);
        const QString notice = waiting.at(0).at(0).toString();
        QVERIFY2(notice.contains(file) && notice.contains(QLatin1String("locked")) &&
                     notice.contains(QLatin1String("waiting up to 1.5 s")),
                 qPrintable(notice));
        QCOMPARE(waiting.at(0).at(1).toBool(), true);
        QCOMPARE(waiting.at(1).at(0).toString(), QString()); // the wait is over, in vain
        QCOMPARE(waiting.at(1).at(1).toBool(), false);
        QVERIFY2(store->failure().contains(file) && store->failure().contains(QLatin1String("1 queued write(s)")) &&
                     store->failure().contains(QLatin1String("locked")),
                 qPrintable(store->failure()));
        const QRegularExpressionMatch tries =
            QRegularExpression(QStringLiteral("; (\\d+) tries\\)")).match(store->failure());
        QVERIFY2(tries.hasMatch() && tries.captured(1).toInt() >= 2, qPrintable(store->failure()));
        QVERIFY(holder.exec(QStringLiteral("ROLLBACK")));
        // The first failure stays, also after later writes succeed.
        p.seq = 1;
        store->appendMetric(run, p);
        QVERIFY(store->flush());
        QCOMPARE(store->metrics(run).size(), 1);
        QVERIFY(!store->failure().isEmpty());
    }

    void aLockHeldAtOpenIsAnnouncedAndWaitedFor()
    {
        // Another connection holds the write lock as the store opens: open() waits, says so after
        // waitNoticeMs, and opens once the lock is released; held past the busy timeout, it
        // fails naming the lock. The holder lets go only when the wait has been announced, so
        // the test needs no clock.
        const QString file = path(QStringLiteral("locked-at-open.sqlite"));
        {
            QString error;
            QVERIFY2(RunStore::open(file, &error), qPrintable(error));
        }
        std::mutex m;
        std::condition_variable cv;
        bool holding = false, announced = false, tookLock = false;
        std::thread holder([&] {
            Raw raw(file);
            const bool took = raw.exec(QStringLiteral("BEGIN IMMEDIATE"));
            std::unique_lock lock(m);
            tookLock = took;
            holding = true;
            cv.notify_all();
            cv.wait(lock, [&] { return announced; });
            raw.exec(QStringLiteral("ROLLBACK"));
        });
        {
            std::unique_lock lock(m);
            cv.wait(lock, [&] { return holding; });
        }
        QVERIFY(tookLock);
        QStringList notices;
        RunStore::Options o;
        o.busyTimeoutMs = 600000; // only a guard: the holder lets go once the wait is announced
        o.waitNoticeMs = 100;
        o.onOpenWait = [&](const QString& message) {
            std::lock_guard lock(m);
            notices << message;
            announced = true;
            cv.notify_all();
        };
        QString error;
        auto store = RunStore::open(file, o, &error);
        holder.join();
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(notices.size(), 2);
        QVERIFY2(notices[0] == file + QStringLiteral(" is locked by another connection; waiting up to 600 s to open it"),
                 qPrintable(notices[0]));
        QVERIFY2(notices[1].startsWith(QStringLiteral("the other connection released locked-at-open.sqlite after ")) &&
                     notices[1].endsWith(QStringLiteral(" s; opening it")),
                 qPrintable(notices[1]));
        QVERIFY(store->createRun(aRun(-1)) > 0);
        store.reset();

        // Held past the busy timeout: announced once, then refused with the cause.
        Raw raw(file);
        QVERIFY(raw.exec(QStringLiteral("BEGIN IMMEDIATE")));
        notices.clear();
        o.busyTimeoutMs = 400;
        o.onOpenWait = [&](const QString& message) { notices << message; };
        QVERIFY(!RunStore::open(file, o, &error));
        QVERIFY2(error.contains(file) && error.contains(QLatin1String("locked")) &&
                     error.contains(QLatin1String("more than the 0.4 s this store waits")),
                 qPrintable(error));
        QCOMPARE(notices.size(), 1);
        QVERIFY(raw.exec(QStringLiteral("ROLLBACK")));
    }

    void aRunWhoseCheckpointsWereLostIsNotStoredAsFinished()
    {
        // Issue 50, item 1: a batch of checkpoints lost to a lock held past the busy timeout, the
        // run's end written after the lock went. The store must not call the run finished with
        // rows missing: it is failed, says how many are missing, and a resume trains it again.
        const QString file = path(QStringLiteral("lost-rows.sqlite"));
        RunStore::Options o;
        o.busyTimeoutMs = 300;
        o.waitNoticeMs = 100;
        QString error;
        auto store = RunStore::open(file, o, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 lost = store->createRun(aRun(-1));
        const qint64 whole = store->createRun(aRun(-1));
        MetricPoint p;
        for (int i = 0; i < 3; ++i) { // stored
            p.seq = i;
            store->appendMetric(lost, p);
        }
        QVERIFY(store->flush());
        {
            Raw holder(file);
            QVERIFY(holder.exec(QStringLiteral("BEGIN IMMEDIATE")));
            for (int i = 3; i < 8; ++i) { // lost: the lock outlasts the busy timeout
                p.seq = i;
                store->appendMetric(lost, p);
            }
            QVERIFY(!store->flush(60000));
            QVERIFY(holder.exec(QStringLiteral("ROLLBACK")));
        }
        p.seq = 8;
        store->appendMetric(lost, p);
        store->finishRun(lost, RunStatus::Finished);
        for (int i = 0; i < 4; ++i) { // every row stored: finished as it says
            p.seq = i;
            store->appendMetric(whole, p);
        }
        store->finishRun(whole, RunStatus::Finished);
        QVERIFY(store->flush());
        const auto a = store->run(lost);
        QVERIFY(a);
        QCOMPARE(store->metrics(lost).size(), 4);
        QCOMPARE(a->status, RunStatus::Failed);
        QVERIFY2(a->error.contains(QLatin1String("5 of its 9 checkpoints were not stored")) &&
                     a->error.contains(QLatin1String("--resume trains it again")),
                 qPrintable(a->error));
        const auto b = store->run(whole);
        QVERIFY(b);
        QCOMPARE(b->status, RunStatus::Finished);
        QVERIFY(b->error.isEmpty());
        QCOMPARE(store->metrics(whole).size(), 4);
    }

    void lockReleasedInTimeLosesNothing()
    {
        const QString file = path(QStringLiteral("brief-lock.sqlite"));
        RunStore::Options o;
        o.busyTimeoutMs = 20000;
        o.waitNoticeMs = 100;
        QString error;
        auto store = RunStore::open(file, o, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->createRun(aRun(-1));
        QSignalSpy waiting(store.get(), &RunStore::waiting);
        // Another process's transaction, which ends once the store has said that it waits for
        // it: so the writes meet the lock, and the lock goes while they wait, however the
        // threads are scheduled. (The notice is emitted on the writer thread.)
        std::mutex mutex;
        std::condition_variable changed;
        bool noticed = false;
        connect(store.get(), &RunStore::waiting, store.get(), [&](const QString&, bool stillWaiting) {
            std::lock_guard lock(mutex);
            noticed = noticed || stillWaiting;
            changed.notify_all();
        }, Qt::DirectConnection);
        std::atomic<bool> locked{false}, lockTried{false}, noticeSeen{false};
        std::thread other([&] {
            Raw holder(file);
            locked = holder.exec(QStringLiteral("BEGIN IMMEDIATE"));
            lockTried = true;
            std::unique_lock lock(mutex);
            noticeSeen = changed.wait_for(lock, std::chrono::minutes(1), [&] { return noticed; });
            lock.unlock();
            holder.exec(QStringLiteral("COMMIT"));
        });
        while (!lockTried)
            std::this_thread::yield();
        QVERIFY(locked);
        for (int i = 0; i < 50; ++i) {
            MetricPoint p;
            p.seq = i;
            store->appendMetric(run, p);
        }
        const bool flushed = store->flush(60000);
        other.join();
        QVERIFY(noticeSeen);
        QVERIFY(flushed);
        QCOMPARE(store->metrics(run).size(), 50);
        QVERIFY(store->failure().isEmpty());
        QCOMPARE(waiting.count(), 2);
        QVERIFY(waiting.at(0).at(0).toString().contains(QLatin1String("waiting")));
        QVERIFY(waiting.at(0).at(1).toBool());
        QVERIFY2(waiting.at(1).at(0).toString().contains(QLatin1String("released the lock after")),
                 qPrintable(waiting.at(1).at(0).toString()));
        QVERIFY(!waiting.at(1).at(1).toBool());
    }

    void fullDiskFailsLoudly()
    {
        const QString file = path(QStringLiteral("full.sqlite"));
        QString error;
        auto store = RunStore::open(file, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->createRun(aRun(-1));
        QVERIFY(run > 0);
        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        {
            FileSizeLimit limit(256 * 1024); // the WAL may not grow past 256 KiB
            QVERIFY(limit.ok());
            for (int i = 0; i < 40; ++i) // 40 × 20 kB of facts: far past the limit
                store->setRunInfo(run, {{QStringLiteral("blob%1").arg(i), QString(20000, QLatin1Char('x'))}});
            QVERIFY(!store->flush());
        }
        QVERIFY(failed.count() >= 1);
        const QString f = store->failure();
        QVERIFY2(f.contains(file) && f.contains(QLatin1String("were lost")) &&
                     (f.contains(QLatin1String("disk")) || f.contains(QLatin1String("full"))),
                 qPrintable(f));
    }

    void aFullDiskAtOpenLeavesNoEmptyStore()
    {
        // The disk is full as a new store is opened: SQLite creates the file and cannot write its
        // first page. The open fails naming the file, and leaves no 0-byte file that a later
        // open would take for a new store and a reader for an empty one.
        const QString file = path(QStringLiteral("full-at-open.sqlite"));
        QString error;
        std::unique_ptr<RunStore> store;
        {
            FileSizeLimit limit(0);
            QVERIFY(limit.ok());
            store = RunStore::open(file, &error);
        }
        QVERIFY(!store);
        QVERIFY2(error.contains(file) && error.contains(QLatin1String("removed")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(file));
        QVERIFY(!QFileInfo::exists(file + QStringLiteral("-wal")));
        QVERIFY(!QFileInfo::exists(file + QStringLiteral("-shm")));
        // A store that was there before is never removed, full disk or not.
        QVERIFY2(RunStore::open(file, &error), qPrintable(error));
        const QByteArray before = sha256(file);
        {
            FileSizeLimit limit(0);
            store = RunStore::open(file, &error);
        }
        store.reset();
        QVERIFY(QFileInfo::exists(file));
        QCOMPARE(sha256(file), before);
    }

    void readOnlyStoreReadsAndRefusesWrites()
    {
        const QString file = path(QStringLiteral("ro.sqlite"));
        QString error;
        qint64 run = -1;
        {
            auto store = RunStore::open(file, &error);
            QVERIFY2(store, qPrintable(error));
            run = store->createRun(aRun(store->createExperiment({})));
            store->finishRun(run, RunStatus::Finished);
        }
        const QByteArray before = sha256(file);
        RunStore::Options o;
        o.readOnly = true;
        auto store = RunStore::open(file, o, &error);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(store->isReadOnly());
        QCOMPARE(store->runs(-1, &error).size(), 1);
        QVERIFY(error.isEmpty());
        QCOMPARE(store->run(run)->status, RunStatus::Finished);
        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        QCOMPARE(store->createExperiment({}), -1);
        store->appendMetric(run, {});
        QCOMPARE(failed.count(), 2);
        QVERIFY2(store->failure().contains(QLatin1String("read-only")), qPrintable(store->failure()));
        QVERIFY(!store->flush());
        store.reset();
        QCOMPARE(sha256(file), before);

        QVERIFY(!RunStore::open(path(QStringLiteral("missing.sqlite")), o, &error));
        QVERIFY2(error.contains(QLatin1String("does not exist")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("missing.sqlite"))));
    }

    void damagedPageIsReportedByReadsAndWrites()
    {
        const QString file = path(QStringLiteral("damaged.sqlite"));
        QString error;
        QList<qint64> ids;
        {
            auto store = RunStore::open(file, &error);
            QVERIFY2(store, qPrintable(error));
            const qint64 e = store->createExperiment({});
            for (int i = 0; i < 120; ++i) {
                ids << store->createRun(aRun(e));
                store->finishRun(ids.last(), RunStatus::Finished);
            }
            QVERIFY(store->flush());
        } // closing the last connection checkpoints the WAL into the file
        qint64 page = 0, pageSize = 0;
        {
            Raw raw(file);
            const auto leaves = raw.column(QStringLiteral("SELECT pageno FROM dbstat WHERE name = 'runs' AND "
                                                          "pagetype = 'leaf' ORDER BY pageno"));
            QVERIFY2(leaves.size() >= 4, "the runs table should span several pages");
            page = leaves.at(leaves.size() * 3 / 4).toLongLong(); // a page late in the table
            pageSize = raw.column(QStringLiteral("PRAGMA page_size")).value(0).toLongLong();
        }
        QSqlDatabase::removeDatabase(QString()); // nothing else holds the file open
        QVERIFY(!QFileInfo::exists(file + QStringLiteral("-wal")) || QFileInfo(file + QStringLiteral("-wal")).size() == 0);
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.seek((page - 1) * pageSize));
            QVERIFY(f.write(QByteArray(64, char(0x7f))) == 64); // an invalid b-tree page header
        }

        auto store = RunStore::open(file, &error);
        QVERIFY2(store, qPrintable(error));
        const auto runs = store->runs(-1, &error);
        QVERIFY2(runs.size() < ids.size(), "a damaged page cannot be read");
        QVERIFY2(error.contains(file) && error.contains(QLatin1String("malformed")) &&
                     error.contains(QLatin1String("quick_check")),
                 qPrintable(error));
        QCOMPARE(store->lastError(), error);
        QVERIFY(!store->checkIntegrity().isEmpty());
        // Ids past the damage: either this read fails with the same kind of message, or it works.
        int failedReads = 0;
        for (qint64 id : ids) {
            store->run(id, &error);
            failedReads += !error.isEmpty();
        }
        QVERIFY(failedReads > 0);
        // A write into the damaged page fails loudly too.
        for (qint64 id : ids)
            store->finishRun(id, RunStatus::Cancelled);
        QVERIFY(!store->flush());
        QVERIFY2(store->failure().contains(QLatin1String("malformed")), qPrintable(store->failure()));
    }

    void soundFileHasNoIntegrityProblem()
    {
        QString error;
        auto store = RunStore::open(path(QStringLiteral("sound.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        store->createRun(aRun(-1));
        QCOMPARE(store->checkIntegrity(), QString());
        QVERIFY(store->failure().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestRunStoreFailures)
#include "tst_runstore_failures.moc"
