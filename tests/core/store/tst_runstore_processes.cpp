// Several processes and one run store: a writer killed with SIGKILL mid-run leaves a sound file with
// every flushed checkpoint, and two live processes writing at once lose nothing and do not mark
// each other's runs interrupted. tb_store_child (TB_STORE_CHILD) is the other process.

#include <store/RunStore.h>

#include <QDeadlineTimer>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <thread>
#include <vector>

using namespace tb;

namespace {

/// Next stdout line of @p p without its newline; empty on timeout or exit.
QString readLine(QProcess& p, int timeoutMs = 30000)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!p.canReadLine()) {
        if (deadline.hasExpired() || !p.waitForReadyRead(int(deadline.remainingTime())))
            if (!p.canReadLine())
                return {};
    }
    return QString::fromUtf8(p.readLine()).trimmed();
}

/// Reads lines until one starts with @p prefix; returns the rest of that line.
QString expectLine(QProcess& p, const QString& prefix, int timeoutMs = 30000)
{
    for (;;) {
        const QString line = readLine(p, timeoutMs);
        if (line.isEmpty())
            return QStringLiteral("<no line; stderr: %1>").arg(QString::fromUtf8(p.readAllStandardError()));
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed();
    }
}

QVariant rawScalar(const QString& path, const QString& sql)
{
    const QString name = QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    QVariant v;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        QSqlQuery q(db);
        if (db.open() && q.exec(sql) && q.next())
            v = q.value(0);
    }
    QSqlDatabase::removeDatabase(name);
    return v;
}

} // namespace

class TestRunStoreProcesses : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void init() { QTest::failOnWarning(QRegularExpression(QStringLiteral(".*"))); } // Qt SQL only warns

    void killedWriterLosesNoFlushedCheckpoint()
    {
        const QString path = m_dir.filePath(QStringLiteral("killed.sqlite"));
        // Three kills on one file, each followed by a check that finds the dead child's run.
        for (int round = 0; round < 3; ++round) {
            QProcess child;
            child.start(QStringLiteral(TB_STORE_CHILD), {path, QStringLiteral("kill"), QStringLiteral("10")});
            QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
            // Our check after the previous kill already marked that run: nothing is left to interrupt.
            QCOMPARE(expectLine(child, QStringLiteral("interrupted-on-open")), QStringLiteral("0"));
            bool ok = false;
            const qint64 run = expectLine(child, QStringLiteral("run")).toLongLong(&ok);
            QVERIFY(ok);
            int committed = 0;
            while (committed < 300 + 100 * round) {
                committed = expectLine(child, QStringLiteral("committed")).toInt(&ok);
                QVERIFY(ok);
            }
            // Let it run on for a few ms, different each round, so the kill lands while it writes.
            std::this_thread::sleep_for(std::chrono::milliseconds(2 + 7 * round));
            child.kill(); // SIGKILL: no destructor, no final flush
            QVERIFY(child.waitForFinished());
            QCOMPARE(child.exitStatus(), QProcess::CrashExit);
            // Lines printed between our last read and the kill count too.
            const QStringList rest =
                QString::fromUtf8(child.readAllStandardOutput()).split(QLatin1Char('\n'));
            for (const QString& line : rest)
                if (line.startsWith(QLatin1String("committed ")))
                    committed = line.mid(10).toInt();

            QCOMPARE(rawScalar(path, QStringLiteral("PRAGMA integrity_check")).toString(),
                     QStringLiteral("ok"));
            QString error;
            auto store = RunStore::open(path, &error);
            QVERIFY2(store, qPrintable(error));
            QCOMPARE(store->interruptedOnOpen(), 1);
            const auto r = store->run(run);
            QVERIFY(r);
            QCOMPARE(r->status, RunStatus::Interrupted);
            QCOMPARE(r->error, QStringLiteral("the process ended before the run finished"));
            const auto points = store->metrics(run);
            QVERIFY2(points.size() >= committed,
                     qPrintable(QStringLiteral("%1 points stored, %2 reported committed")
                                    .arg(points.size())
                                    .arg(committed)));
            qInfo("round %d: %d points reported committed, %d found", round, committed, int(points.size()));
            for (int i = 0; i < points.size(); ++i)
                QCOMPARE(points[i].seq, i); // a prefix: batches commit whole or not at all
            QVERIFY(std::isnan(points[7].testAccuracy) && points[8].testAccuracy > 0.5);
        }
    }

    void twoLiveProcessesShareOneFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("shared.sqlite"));
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 mine = store->createRun({});
        QVERIFY(mine > 0);

        constexpr int childPoints = 20000, perThread = 10000, threads = 2;
        QProcess child;
        child.start(QStringLiteral(TB_STORE_CHILD),
                    {path, QStringLiteral("append"), QString::number(childPoints)});
        QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
        // The child opened the file while our run was running: it must have left it alone.
        QCOMPARE(expectLine(child, QStringLiteral("interrupted-on-open")), QStringLiteral("0"));
        bool ok = false;
        const qint64 theirs = expectLine(child, QStringLiteral("run")).toLongLong(&ok);
        QVERIFY(ok && theirs != mine);

        std::vector<std::thread> writers; // appending while the child appends
        for (int t = 0; t < threads; ++t)
            writers.emplace_back([&, t] {
                for (int i = 0; i < perThread; ++i) {
                    MetricPoint p;
                    p.seq = t * perThread + i;
                    store->appendMetric(mine, p);
                    if (i % 64 == 63)
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
            });
        for (auto& w : writers)
            w.join();
        QVERIFY2(store->flush(), qPrintable(store->lastError()));
        QCOMPARE(expectLine(child, QStringLiteral("appended"), 120000), QString::number(childPoints));

        QCOMPARE(store->run(mine)->status, RunStatus::Running);
        QCOMPARE(store->run(theirs)->status, RunStatus::Running);
        {
            auto second = RunStore::open(path, &error); // opening again while the child lives
            QVERIFY2(second, qPrintable(error));
            QCOMPARE(second->interruptedOnOpen(), 0);
            QCOMPARE(second->run(theirs)->status, RunStatus::Running);
        }

        child.write("finish\n");
        QCOMPARE(expectLine(child, QStringLiteral("done")), QString());
        QVERIFY(child.waitForFinished());
        QCOMPARE(child.exitStatus(), QProcess::NormalExit);
        QCOMPARE(child.exitCode(), 0);

        store->finishRun(mine, RunStatus::Finished);
        QVERIFY(store->flush());
        QCOMPARE(store->metrics(mine).size(), threads * perThread);
        QCOMPARE(store->metrics(theirs).size(), childPoints);
        QCOMPARE(rawScalar(path, QStringLiteral("SELECT count(*) FROM metrics")).toInt(),
                 threads * perThread + childPoints);
        QCOMPARE(store->run(mine)->status, RunStatus::Finished);
        QCOMPARE(store->run(theirs)->status, RunStatus::Finished);
        QVERIFY2(store->lastError().isEmpty(), qPrintable(store->lastError()));
    }
};

QTEST_GUILESS_MAIN(TestRunStoreProcesses)
#include "tst_runstore_processes.moc"
