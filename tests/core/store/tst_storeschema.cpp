// StoreSchema: the migration steps. A file of every older version opens with its rows intact and
// the newest behaviour (issue 18: ids are never reused after a delete, also in migrated files).

#include <store/RunStore.h>
#include <store/StoreSchema.h>

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

using namespace tb;

namespace {

/// A raw connection for building old files and checking what the API does not show.
class Raw {
public:
    explicit Raw(const QString& path) : m_name(QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.open();
    }
    ~Raw() { QSqlDatabase::removeDatabase(m_name); }
    bool exec(const QString& sql) const
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        if (q.exec(sql))
            return true;
        qWarning("%s: %s", qPrintable(sql), qPrintable(q.lastError().text()));
        return false;
    }
    QVariant scalar(const QString& sql) const
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        return q.exec(sql) && q.next() ? q.value(0) : QVariant();
    }

private:
    QString m_name;
};

/// Writes a store of schema @p version (its steps only) into @p path.
bool buildVersion(const QString& path, int version)
{
    Raw raw(path);
    bool ok = raw.exec(QStringLiteral("BEGIN"));
    for (const auto& m : StoreSchema::migrations())
        if (m.toVersion <= version)
            for (const QString& s : m.statements)
                ok = ok && raw.exec(s);
    ok = ok && raw.exec(QStringLiteral("PRAGMA user_version = %1").arg(version)) &&
         raw.exec(QStringLiteral("PRAGMA application_id = %1").arg(StoreSchema::applicationId)) &&
         raw.exec(QStringLiteral("COMMIT"));
    return ok;
}

} // namespace

class TestStoreSchema : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void stepsAreNumberedOneByOne()
    {
        const auto& steps = StoreSchema::migrations();
        QVERIFY(!steps.isEmpty());
        for (qsizetype i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps[i].toVersion, int(i + 1));
            QVERIFY(!steps[i].description.isEmpty());
        }
        QCOMPARE(StoreSchema::latestVersion(), steps.last().toVersion);
    }

    void idsAreNeverReusedAfterADelete()
    {
        QString error;
        auto store = RunStore::open(m_dir.filePath(QStringLiteral("ids.sqlite")), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 e1 = store->createExperiment({});
        const qint64 e2 = store->createExperiment({});
        RunRecord r;
        r.experimentId = e2;
        const qint64 r1 = store->createRun(r);
        const qint64 r2 = store->createRun(r);
        QVERIFY(e1 > 0 && e2 > e1 && r2 > r1);
        // Delete the newest of each: without AUTOINCREMENT SQLite hands out max(id)+1 again.
        QVERIFY(store->deleteRun(r2));
        const qint64 r3 = store->createRun(r);
        QVERIFY2(r3 > r2, qPrintable(QStringLiteral("run id %1 after deleting %2").arg(r3).arg(r2)));
        QVERIFY(store->deleteExperiment(e2)); // takes r1 and r3 with it
        const qint64 e3 = store->createExperiment({});
        QVERIFY2(e3 > e2, qPrintable(QStringLiteral("experiment id %1 after deleting %2").arg(e3).arg(e2)));
        r.experimentId = e3;
        QVERIFY(store->createRun(r) > r3);
    }

    void version1FileIsMigratedWithItsRows()
    {
        const QString path = m_dir.filePath(QStringLiteral("v1.sqlite"));
        QVERIFY(buildVersion(path, 1));
        {
            Raw raw(path);
            QVERIFY(raw.exec(QStringLiteral("PRAGMA journal_mode = WAL")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO experiments (id, name, created) VALUES "
                                            "(1, 'one', '2024-01-01T00:00:00.000Z'), (2, 'two', '2024-01-02T00:00:00.000Z')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO runs (id, experiment_id, algorithm_id, seed, status, started) "
                                            "VALUES (1, 1, 'a', '18446744073709551615', 'finished', '2024-01-01T00:00:00.000Z'), "
                                            "(2, 2, 'b', '7', 'failed', '2024-01-02T00:00:00.000Z'), "
                                            "(3, 2, 'c', '8', 'running', '2024-01-02T00:00:00.000Z')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO metrics (run_id, seq, epoch) VALUES (1, 0, 0.5), (1, 1, 1.0), (2, 0, 1.0)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO sweep_points (experiment_id, sigma) VALUES (2, 0.1)")));
        }
        QString error;
        auto store = RunStore::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion(), StoreSchema::latestVersion());
        // Every row survived, with its id and values.
        QCOMPARE(store->experiments().size(), 2);
        QCOMPARE(store->experiment(2)->name, QStringLiteral("two"));
        QCOMPARE(store->runs().size(), 3);
        QCOMPARE(store->run(1)->seed, std::uint64_t(18446744073709551615ull));
        QCOMPARE(store->run(2)->status, RunStatus::Failed);
        QCOMPARE(store->run(3)->status, RunStatus::Interrupted); // its owner (none recorded) is gone
        QCOMPARE(store->metrics(1).size(), 2);
        QCOMPARE(store->summaryPoints(2).size(), 1);
        {
            Raw raw(path);
            QVERIFY(raw.scalar(QStringLiteral("SELECT sql FROM sqlite_master WHERE name = 'runs'")).toString().contains(
                QLatin1String("AUTOINCREMENT")));
            QVERIFY(raw.scalar(QStringLiteral("SELECT sql FROM sqlite_master WHERE name = 'experiments'"))
                        .toString()
                        .contains(QLatin1String("AUTOINCREMENT")));
            // The indexes of the rebuilt runs table are back.
            QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
                                               "name IN ('runs_by_experiment', 'runs_running')"))
                         .toInt(),
                     2);
            QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM pragma_foreign_key_check")).toInt(), 0);
        }
        // Foreign keys still cascade through the rebuilt tables.
        QVERIFY(store->deleteExperiment(2));
        QVERIFY(!store->run(2) && !store->run(3));
        QVERIFY(store->metrics(2).isEmpty() && store->summaryPoints(2).isEmpty());
        QCOMPARE(store->metrics(1).size(), 2);
        // And the deleted ids stay unused.
        QVERIFY(store->createExperiment({}) > 2);
        QVERIFY(store->createRun({}) > 3);
    }

    void failedMigrationLeavesTheFileAtItsVersion()
    {
        // A v1 file whose runs table lacks a column the copy needs: the step fails, is rolled back,
        // the message names the step, and the file keeps version 1 and its rows.
        const QString path = m_dir.filePath(QStringLiteral("broken-v1.sqlite"));
        {
            Raw raw(path);
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE experiments (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', "
                                            "kind TEXT NOT NULL DEFAULT '', spec_json TEXT NOT NULL DEFAULT '{}', "
                                            "created TEXT NOT NULL, app_version TEXT NOT NULL DEFAULT '', "
                                            "git_hash TEXT NOT NULL DEFAULT '')")));
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE runs (id INTEGER PRIMARY KEY, status TEXT, owner_host TEXT, "
                                            "owner_boot TEXT, owner_pid INTEGER, owner_start INTEGER)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO experiments (name, created) VALUES ('kept', 'x')")));
            QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = 1")));
            QVERIFY(raw.exec(QStringLiteral("PRAGMA application_id = %1").arg(StoreSchema::applicationId)));
        }
        QString error;
        QVERIFY(!RunStore::open(path, &error));
        QVERIFY2(error.contains(QLatin1String("schema step 2")) && error.contains(QLatin1String("AUTOINCREMENT")),
                 qPrintable(error));
        Raw raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA user_version")).toInt(), 1);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT name FROM experiments")).toString(), QStringLiteral("kept"));
        QVERIFY(!raw.scalar(QStringLiteral("SELECT sql FROM sqlite_master WHERE name = 'experiments'"))
                     .toString()
                     .contains(QLatin1String("AUTOINCREMENT")));
    }
};

QTEST_GUILESS_MAIN(TestStoreSchema)
#include "tst_storeschema.moc"
