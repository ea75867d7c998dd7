// Files the run store must refuse — newer schema, not SQLite, another application's database — are
// refused with a message naming the file and the reason, and are left byte for byte unchanged.

#include <store/RunStore.h>
#include <store/StoreSchema.h>

#include <QCryptographicHash>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <functional>

using namespace tb;

namespace {

QByteArray sha256(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

/// Runs @p statements on a fresh raw connection to @p path, then closes it.
bool rawExec(const QString& path, const QStringList& statements)
{
    const QString name = QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    bool ok = true;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        ok = db.open();
        QSqlQuery q(db);
        for (const QString& s : statements)
            ok = ok && q.exec(s);
    }
    QSqlDatabase::removeDatabase(name);
    return ok;
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestRunStoreFiles : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return QFileInfo(m_dir.filePath(name)).absoluteFilePath(); }

    /// Opens @p file expecting a refusal whose message contains every one of @p parts, and checks
    /// that the file's bytes did not change and no WAL or shared-memory file was left beside it.
    void expectRefused(const QString& file, const QStringList& parts)
    {
        const QByteArray before = sha256(file);
        QString error;
        auto store = RunStore::open(file, &error);
        QVERIFY(!store);
        for (const QString& part : parts)
            QVERIFY2(error.contains(part),
                     qPrintable(QStringLiteral("\"%1\" lacks \"%2\"").arg(error, part)));
        QCOMPARE(sha256(file), before);
        QVERIFY(!QFileInfo::exists(file + QStringLiteral("-wal")));
        QVERIFY(!QFileInfo::exists(file + QStringLiteral("-shm")));
    }

private Q_SLOTS:
    void init() { QTest::failOnWarning(QRegularExpression(QStringLiteral(".*"))); } // Qt SQL only warns

    void newerSchemaIsRefusedAndNotModified()
    {
        const QString file = path(QStringLiteral("future.sqlite"));
        QVERIFY(
            rawExec(file, {QStringLiteral("CREATE TABLE runs (id INTEGER PRIMARY KEY, future_column TEXT)"),
                           QStringLiteral("INSERT INTO runs (future_column) VALUES ('from the future')"),
                           QStringLiteral("PRAGMA application_id = 1413632595"), // "TBRS"
                           QStringLiteral("PRAGMA user_version = 99")}));
        QString error;
        const QByteArray before = sha256(file);
        QVERIFY(!RunStore::open(file, &error));
        QCOMPARE(error, file + QStringLiteral(" was written by a newer Trainbench (schema 99; this build reads up "
                                              "to %1); it was not modified")
                                   .arg(StoreSchema::latestVersion()));
        QCOMPARE(sha256(file), before);
        expectRefused(file, {QStringLiteral("schema 99")}); // and again: still refused, still unchanged
    }

    void newerSchemaStillInTheWalIsRefused()
    {
        // The file header lags behind a WAL that was not checkpointed: the version must be read
        // through SQLite too. A live connection of the "newer Trainbench" keeps the WAL in place.
        const QString file = path(QStringLiteral("future-wal.sqlite"));
        QVERIFY(rawExec(file, {QStringLiteral("PRAGMA journal_mode = WAL"),
                               QStringLiteral("CREATE TABLE runs (id INTEGER PRIMARY KEY)"),
                               QStringLiteral("PRAGMA application_id = 1413632595"),
                               QStringLiteral("PRAGMA user_version = 1")}));
        const QString name = QStringLiteral("newer-process");
        {
            QSqlDatabase newer = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            newer.setDatabaseName(file);
            QVERIFY(newer.open());
            QSqlQuery q(newer);
            QVERIFY(q.exec(QStringLiteral("PRAGMA wal_autocheckpoint = 0")));
            QVERIFY(q.exec(QStringLiteral("PRAGMA user_version = 7")));
            const QByteArray before = sha256(file);
            QString error;
            QVERIFY(!RunStore::open(file, &error));
            QVERIFY2(error.contains(QStringLiteral("schema 7; this build reads up to %1").arg(StoreSchema::latestVersion())),
                     qPrintable(error));
            QCOMPARE(sha256(file), before);
        }
        QSqlDatabase::removeDatabase(name);
    }

    void textFileIsRefused()
    {
        const QString file = path(QStringLiteral("not-a-database.csv"));
        QVERIFY(QFile::copy(QStringLiteral(TB_STORE_FIXTURES "/not-a-database.csv"), file));
        expectRefused(file, {file, QStringLiteral("is not an SQLite database"), QStringLiteral("offset 0"),
                             QStringLiteral("\"id,label.1,cat.2\""), QStringLiteral("it was not modified")});
    }

    void truncatedDatabaseIsRefused()
    {
        const QString file = path(QStringLiteral("truncated.sqlite"));
        QVERIFY(writeFile(file, QByteArray("SQLite format 3\0\x10\0", 19)));
        expectRefused(file, {file, QStringLiteral("truncated"), QStringLiteral("19 bytes")});
    }

    void otherApplicationsDatabaseIsRefused()
    {
        const QString file = path(QStringLiteral("notes.sqlite"));
        QVERIFY(rawExec(file, {QStringLiteral("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")}));
        expectRefused(file, {file, QStringLiteral("not a Trainbench run store"), QStringLiteral("1 tables")});

        const QString tagged = path(QStringLiteral("tagged.sqlite"));
        QVERIFY(rawExec(tagged, {QStringLiteral("PRAGMA application_id = 305419896")})); // 0x12345678
        expectRefused(tagged, {tagged, QStringLiteral("another application"), QStringLiteral("0x12345678")});
    }

    void folderIsRefused()
    {
        const QString folder = path(QStringLiteral("a-folder"));
        QVERIFY(QDir().mkpath(folder));
        QString error;
        QVERIFY(!RunStore::open(folder, &error));
        QVERIFY2(error.contains(QLatin1String("is a folder")), qPrintable(error));
        QVERIFY(!RunStore::open(QString(), &error));
        QCOMPARE(error, QStringLiteral("no run store file given"));
    }

    void emptyFileBecomesAStore()
    {
        // SQLite treats a 0-byte file as a new database (e.g. one made by QTemporaryFile or touch).
        const QString file = path(QStringLiteral("empty.sqlite"));
        QVERIFY(writeFile(file, {}));
        QString error;
        auto store = RunStore::open(file, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion(), StoreSchema::latestVersion());
    }

    void currentSchemaReopensWithoutMigrating()
    {
        const QString file = path(QStringLiteral("current.sqlite"));
        QString error;
        qint64 run = -1;
        {
            auto store = RunStore::open(file, &error);
            QVERIFY2(store, qPrintable(error));
            run = store->createRun({});
            store->finishRun(run, RunStatus::Finished);
        }
        auto store = RunStore::open(file, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion(), StoreSchema::latestVersion());
        QCOMPARE(store->runs().size(), 1);
        QCOMPARE(store->run(run)->status, RunStatus::Finished);
    }

    // Steps 2 and 3 (ids never reused, run tags and notes): a version-1 file with runs is brought up to date, its runs
    // kept, and tags and notes can then be stored and read back.
    void versionOneFileGainsTagsAndNotes()
    {
        const QString file = path(QStringLiteral("v1.sqlite"));
        QStringList v1 = StoreSchema::migrations().first().statements;
        v1 << QStringLiteral("INSERT INTO runs (algorithm_id, started) VALUES ('linear.ridge', '2024-01-01T00:00:00.000Z')")
           << QStringLiteral("PRAGMA application_id = %1").arg(StoreSchema::applicationId)
           << QStringLiteral("PRAGMA user_version = 1");
        QVERIFY(rawExec(file, v1));
        QString error;
        auto store = RunStore::open(file, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion(), StoreSchema::latestVersion());
        QVERIFY(StoreSchema::latestVersion() >= 2);
        const QList<RunRecord> runs = store->runs();
        QCOMPARE(runs.size(), 1);
        QVERIFY(runs[0].tags.isEmpty());
        QVERIFY(runs[0].note.isEmpty());
        QVERIFY(store->setRunNotes(runs[0].id, {" baseline", "paper ", "", "baseline"}, "ridge, λ from the paper"));
        QCOMPARE(store->run(runs[0].id)->tags, (QStringList{"baseline", "paper"}));
        QCOMPARE(store->run(runs[0].id)->note, QString("ridge, λ from the paper"));
        QVERIFY(!store->setRunNotes(12345, {"x"}, {})); // no such run
    }
};

QTEST_GUILESS_MAIN(TestRunStoreFiles)
#include "tst_runstore_files.moc"
