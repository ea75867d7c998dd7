// Opening a store turns runs left "running" by dead processes into "interrupted", and leaves alone
// the runs that a live process (this one, or another) is still training.

#include <store/RunStore.h>
#include <store/RunStoreOwner.h>

#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

using namespace tb;

namespace {

/// Sets a run back to "running" with the given owner, as a crashed or live process leaves it.
bool setOwner(const QString& path, qint64 run, const RunStoreOwner& owner)
{
    const QString name = QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    bool ok = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        QSqlQuery q(db);
        ok = db.open() &&
             q.prepare(QStringLiteral("UPDATE runs SET status = 'running', ended = NULL, error = '', "
                                      "owner_host = ?, owner_boot = ?, owner_pid = ?, owner_start = ?, "
                                      "owner_token = 'someone else' WHERE id = ?"));
        if (ok) {
            q.addBindValue(owner.host);
            q.addBindValue(owner.bootId);
            q.addBindValue(owner.pid);
            q.addBindValue(owner.startTicks);
            q.addBindValue(run);
            ok = q.exec() && q.numRowsAffected() == 1;
        }
    }
    QSqlDatabase::removeDatabase(name);
    return ok;
}

/// The pid of a process that has exited and been reaped.
qint64 deadPid()
{
    QProcess p;
    p.start(QStringLiteral("/bin/true"), {});
    if (!p.waitForStarted())
        return -1;
    const qint64 pid = p.processId();
    p.waitForFinished();
    return pid;
}

} // namespace

class TestRunStoreRecovery : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void init() { QTest::failOnWarning(QRegularExpression(QStringLiteral(".*"))); } // Qt SQL only warns

    void ownerIdentityOfThisProcess()
    {
        const RunStoreOwner& me = RunStoreOwner::current();
        QCOMPARE(me.pid, QCoreApplication::applicationPid());
        QVERIFY(!me.host.isEmpty());
        QVERIFY2(me.startTicks > 0 && !me.bootId.isEmpty(), "this test runs on Linux with /proc");
        QVERIFY(me.isAlive());
        qint64 ticks = 0;
        bool zombie = true;
        QVERIFY(RunStoreOwner::readProcStat(me.pid, &ticks, &zombie));
        QCOMPARE(ticks, me.startTicks);
        QVERIFY(!zombie);
    }

    void onlyRunsOfDeadProcessesBecomeInterrupted()
    {
        const QString path = m_dir.filePath(QStringLiteral("recovery.sqlite"));
        const RunStoreOwner& me = RunStoreOwner::current();

        QProcess sleeper; // a live process other than this one
        sleeper.start(QStringLiteral("/bin/sleep"), {QStringLiteral("60")});
        QVERIFY(sleeper.waitForStarted());
        RunStoreOwner live = me;
        live.pid = sleeper.processId();
        bool zombie = false;
        QVERIFY(RunStoreOwner::readProcStat(live.pid, &live.startTicks, &zombie));

        RunStoreOwner dead = me;
        dead.pid = deadPid();
        QVERIFY(dead.pid > 0);
        RunStoreOwner reused = me; // our pid, but a different process start: the pid was reused
        reused.startTicks = me.startTicks + 1;
        RunStoreOwner rebooted = me;
        rebooted.bootId = QStringLiteral("00000000-0000-0000-0000-000000000000");
        RunStoreOwner elsewhere = me;
        elsewhere.host = me.host + QStringLiteral("-other");

        const QList<std::pair<RunStoreOwner, RunStatus>> cases = {
            {dead, RunStatus::Interrupted},     {reused, RunStatus::Interrupted},
            {rebooted, RunStatus::Interrupted}, {elsewhere, RunStatus::Interrupted},
            {me, RunStatus::Running},           {live, RunStatus::Running},
        };
        QList<qint64> ids;
        QString error;
        {
            auto store = RunStore::open(path, &error);
            QVERIFY2(store, qPrintable(error));
            for (int i = 0; i < cases.size(); ++i) {
                RunRecord r;
                r.algorithmId = QStringLiteral("case%1").arg(i);
                ids << store->createRun(r);
            }
            const qint64 finished = store->createRun({});
            store->finishRun(finished, RunStatus::Finished);
        } // closing marks them interrupted; setOwner puts them back to "running" with other owners
        for (int i = 0; i < cases.size(); ++i)
            QVERIFY(setOwner(path, ids[i], cases[i].first));

        {
            auto store = RunStore::open(path, &error);
            QVERIFY2(store, qPrintable(error));
            QCOMPARE(store->interruptedOnOpen(), 4);
            for (int i = 0; i < cases.size(); ++i) {
                const auto r = store->run(ids[i]);
                QVERIFY(r);
                QVERIFY2(r->status == cases[i].second,
                         qPrintable(QStringLiteral("case %1: %2").arg(i).arg(runStatusName(r->status))));
                if (cases[i].second == RunStatus::Interrupted) {
                    QCOMPARE(r->error, QStringLiteral("the process ended before the run finished"));
                    QVERIFY(r->ended.isValid());
                } else {
                    QVERIFY(r->error.isEmpty() && !r->ended.isValid());
                }
            }
            QCOMPARE(store->runs().last().status, RunStatus::Finished); // finished runs are never touched
        }

        // Once the other process is gone (killed, then reaped), its run is interrupted too.
        sleeper.kill();
        QVERIFY(sleeper.waitForFinished());
        QVERIFY(!live.isAlive());
        QVERIFY(setOwner(path, ids[4], me)); // our own case went "interrupted" when the store closed
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->interruptedOnOpen(), 1);
        QCOMPARE(store->run(ids[5])->status, RunStatus::Interrupted);
        QCOMPARE(store->run(ids[4])->status, RunStatus::Running);
    }

    // Issue 32: a run whose process dies while a store is open (the workbench's), or that a
    // read-only store reads (`trainbench-cli runs`), is read as interrupted, never as running;
    // the reader writes nothing.
    void readersTellADeadOwnerFromALiveOne()
    {
        const QString path = m_dir.filePath(QStringLiteral("readers.sqlite"));
        QProcess trainer; // plays the process that trains the run
        trainer.start(QStringLiteral("/bin/sleep"), {QStringLiteral("60")});
        QVERIFY(trainer.waitForStarted());
        RunStoreOwner owner = RunStoreOwner::current();
        owner.pid = trainer.processId();
        bool zombie = false;
        QVERIFY(RunStoreOwner::readProcStat(owner.pid, &owner.startTicks, &zombie));

        QString error;
        qint64 id = -1;
        {
            auto store = RunStore::open(path, &error);
            QVERIFY2(store, qPrintable(error));
            RunRecord r;
            r.algorithmId = QStringLiteral("test.sleepy");
            id = store->createRun(r);
        }
        QVERIFY(setOwner(path, id, owner));

        auto writer = RunStore::open(path, &error); // open while the trainer lives
        QVERIFY2(writer, qPrintable(error));
        RunStore::Options ro;
        ro.readOnly = true;
        auto reader = RunStore::open(path, ro, &error);
        QVERIFY2(reader, qPrintable(error));
        for (RunStore* s : {writer.get(), reader.get()}) {
            QCOMPARE(s->run(id)->status, RunStatus::Running);
            QCOMPARE(s->runs().value(0).status, RunStatus::Running);
            QCOMPARE(s->run(id)->owner.pid, owner.pid);
            QVERIFY(s->run(id)->owner.isAlive());
        }

        trainer.kill();
        QVERIFY(trainer.waitForFinished());
        for (RunStore* s : {writer.get(), reader.get()}) {
            const auto one = s->run(id);
            QVERIFY(one);
            QCOMPARE(one->status, RunStatus::Interrupted);
            QCOMPARE(one->error, QStringLiteral("the process that trained it (pid %1 on %2) ended before the run finished")
                                     .arg(owner.pid)
                                     .arg(owner.host));
            QVERIFY(!one->ended.isValid()); // when it died is not known
            QCOMPARE(s->runs().value(0).status, RunStatus::Interrupted);
            QCOMPARE(s->runs(-1).size(), 1);
        }
        // Nothing was written: the row is rewritten by the next store opened for writing.
        writer.reset();
        reader.reset();
        {
            const QString name = QStringLiteral("raw-check");
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                QVERIFY(q.exec(QStringLiteral("SELECT status FROM runs WHERE id = %1").arg(id)) && q.next());
                QCOMPARE(q.value(0).toString(), QStringLiteral("running"));
            }
            QSqlDatabase::removeDatabase(name);
        }
        auto again = RunStore::open(path, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->interruptedOnOpen(), 1);
        QCOMPARE(again->run(id)->error, QStringLiteral("the process ended before the run finished"));
    }

    void zombieCountsAsDead()
    {
        // A child that exited but was not reaped yet still answers kill(pid, 0); /proc says "Z".
        const pid_t child = ::fork();
        if (child == 0)
            ::_exit(0); // only async-signal-safe calls in the child of a threaded process
        QVERIFY(child > 0);
        RunStoreOwner owner = RunStoreOwner::current();
        owner.pid = child;
        qint64 ticks = 0;
        bool zombie = false;
        QTRY_VERIFY_WITH_TIMEOUT(RunStoreOwner::readProcStat(child, &ticks, &zombie) && zombie, 5000);
        owner.startTicks = ticks;
        QVERIFY(!owner.isAlive());
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(!RunStoreOwner::readProcStat(child, &ticks, &zombie)); // reaped: no /proc entry
        QVERIFY(!owner.isAlive());
    }
};

QTEST_GUILESS_MAIN(TestRunStoreRecovery)
#include "tst_runstore_recovery.moc"
