#include "StoreSchema.h"

#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

namespace tb {

namespace {

// The first schema: experiments, runs, their metrics, the noise sweeps' points.
StoreSchema::Migration initialSchema()
{
    return {1,
            QStringLiteral("initial schema"),
            {
                QStringLiteral("CREATE TABLE experiments ("
                               " id INTEGER PRIMARY KEY,"
                               " name TEXT NOT NULL DEFAULT '',"
                               " kind TEXT NOT NULL DEFAULT '',"
                               " spec_json TEXT NOT NULL DEFAULT '{}',"
                               " created TEXT NOT NULL," // ISO 8601 UTC with milliseconds
                               " app_version TEXT NOT NULL DEFAULT '',"
                               " git_hash TEXT NOT NULL DEFAULT '')"),
                // seed is decimal text: SQLite integers are signed 64-bit, seeds use all 64 bits.
                // owner_* identify the process that created the run (see RunStoreOwner).
                QStringLiteral("CREATE TABLE runs ("
                               " id INTEGER PRIMARY KEY,"
                               " experiment_id INTEGER REFERENCES experiments(id) ON DELETE CASCADE,"
                               " algorithm_id TEXT NOT NULL DEFAULT '',"
                               " algorithm_name TEXT NOT NULL DEFAULT '',"
                               " plugin_id TEXT NOT NULL DEFAULT '',"
                               " plugin_version TEXT NOT NULL DEFAULT '',"
                               " params_json TEXT NOT NULL DEFAULT '{}',"
                               " dataset TEXT NOT NULL DEFAULT '',"
                               " seed TEXT NOT NULL DEFAULT '0',"
                               " threads INTEGER NOT NULL DEFAULT 1,"
                               " repeat INTEGER NOT NULL DEFAULT 0,"
                               " sigma REAL," // NULL: not a noise-sweep run
                               " status TEXT NOT NULL DEFAULT 'running',"
                               " error TEXT NOT NULL DEFAULT '',"
                               " started TEXT NOT NULL,"
                               " ended TEXT,"
                               " info_json TEXT NOT NULL DEFAULT '{}',"
                               " app_version TEXT NOT NULL DEFAULT '',"
                               " owner_host TEXT NOT NULL DEFAULT '',"
                               " owner_boot TEXT NOT NULL DEFAULT '',"
                               " owner_pid INTEGER NOT NULL DEFAULT 0,"
                               " owner_start INTEGER NOT NULL DEFAULT 0,"
                               " owner_token TEXT NOT NULL DEFAULT '')"),
                QStringLiteral("CREATE INDEX runs_by_experiment ON runs(experiment_id, id)"),
                // Opening a store scans running runs; a partial index keeps that cheap in big files.
                QStringLiteral("CREATE INDEX runs_running ON runs(id) WHERE status = 'running'"),
                // NULL metric = not applicable (NaN in MetricPoint).
                QStringLiteral("CREATE TABLE metrics ("
                               " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                               " seq INTEGER NOT NULL,"
                               " epoch REAL,"
                               " train_time_s REAL,"
                               " loss REAL,"
                               " train_acc REAL,"
                               " test_acc REAL,"
                               " train_rmse REAL,"
                               " test_rmse REAL,"
                               " PRIMARY KEY (run_id, seq)) WITHOUT ROWID"),
                QStringLiteral("CREATE TABLE sweep_points ("
                               " id INTEGER PRIMARY KEY,"
                               " experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
                               " algorithm_id TEXT NOT NULL DEFAULT '',"
                               " algorithm_name TEXT NOT NULL DEFAULT '',"
                               " sigma REAL,"
                               " mc INTEGER NOT NULL DEFAULT 0,"
                               " train_rmse_mean REAL,"
                               " train_rmse_std REAL,"
                               " test_rmse_mean REAL,"
                               " test_rmse_std REAL)"),
                QStringLiteral("CREATE INDEX sweep_points_by_experiment ON sweep_points(experiment_id, id)"),
            }};
}

// Ids are never reused after a delete (issue 18): an exported "run-19.csv" must keep naming
// the run it came from. SQLite cannot add AUTOINCREMENT to a column, so both tables are
// rebuilt (the "12 steps" of https://sqlite.org/lang_altertable.html#otheralter): migrate()
// runs with foreign keys off, so dropping the old tables cascades nothing. Copying the rows
// seeds sqlite_sequence with the largest id kept; ids deleted above it before this step
// cannot be known and may be given once more.
StoreSchema::Migration idsNeverReused()
{
    return {2,
            QStringLiteral("ids are never reused (AUTOINCREMENT)"),
            {
                QStringLiteral("CREATE TABLE experiments_v2 ("
                               " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                               " name TEXT NOT NULL DEFAULT '',"
                               " kind TEXT NOT NULL DEFAULT '',"
                               " spec_json TEXT NOT NULL DEFAULT '{}',"
                               " created TEXT NOT NULL,"
                               " app_version TEXT NOT NULL DEFAULT '',"
                               " git_hash TEXT NOT NULL DEFAULT '')"),
                QStringLiteral(
                    "INSERT INTO experiments_v2 (id, name, kind, spec_json, created, app_version, git_hash)"
                    " SELECT id, name, kind, spec_json, created, app_version, git_hash FROM experiments"),
                QStringLiteral("DROP TABLE experiments"),
                QStringLiteral("ALTER TABLE experiments_v2 RENAME TO experiments"),
                QStringLiteral("CREATE TABLE runs_v2 ("
                               " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                               " experiment_id INTEGER REFERENCES experiments(id) ON DELETE CASCADE,"
                               " algorithm_id TEXT NOT NULL DEFAULT '',"
                               " algorithm_name TEXT NOT NULL DEFAULT '',"
                               " plugin_id TEXT NOT NULL DEFAULT '',"
                               " plugin_version TEXT NOT NULL DEFAULT '',"
                               " params_json TEXT NOT NULL DEFAULT '{}',"
                               " dataset TEXT NOT NULL DEFAULT '',"
                               " seed TEXT NOT NULL DEFAULT '0',"
                               " threads INTEGER NOT NULL DEFAULT 1,"
                               " repeat INTEGER NOT NULL DEFAULT 0,"
                               " sigma REAL,"
                               " status TEXT NOT NULL DEFAULT 'running',"
                               " error TEXT NOT NULL DEFAULT '',"
                               " started TEXT NOT NULL,"
                               " ended TEXT,"
                               " info_json TEXT NOT NULL DEFAULT '{}',"
                               " app_version TEXT NOT NULL DEFAULT '',"
                               " owner_host TEXT NOT NULL DEFAULT '',"
                               " owner_boot TEXT NOT NULL DEFAULT '',"
                               " owner_pid INTEGER NOT NULL DEFAULT 0,"
                               " owner_start INTEGER NOT NULL DEFAULT 0,"
                               " owner_token TEXT NOT NULL DEFAULT '')"),
                QStringLiteral(
                    "INSERT INTO runs_v2 (id, experiment_id, algorithm_id, algorithm_name, plugin_id,"
                    " plugin_version, params_json, dataset, seed, threads, repeat, sigma, status, error,"
                    " started, ended, info_json, app_version, owner_host, owner_boot, owner_pid,"
                    " owner_start, owner_token)"
                    " SELECT id, experiment_id, algorithm_id, algorithm_name, plugin_id,"
                    " plugin_version, params_json, dataset, seed, threads, repeat, sigma, status, error,"
                    " started, ended, info_json, app_version, owner_host, owner_boot, owner_pid,"
                    " owner_start, owner_token FROM runs"),
                QStringLiteral("DROP TABLE runs"), // drops its indexes too
                QStringLiteral("ALTER TABLE runs_v2 RENAME TO runs"),
                QStringLiteral("CREATE INDEX runs_by_experiment ON runs(experiment_id, id)"),
                QStringLiteral("CREATE INDEX runs_running ON runs(id) WHERE status = 'running'"),
            }};
}

} // namespace

const QList<StoreSchema::Migration>& StoreSchema::migrations()
{
    // Append new steps at the end; never edit a released step (files in the wild already ran it).
    static const QList<Migration> steps = {
        initialSchema(),
        idsNeverReused(),
        // The run browser's lab notebook: tags (comma-separated, trimmed) and a free-text note
        // per run, written by the user, never by a run.
        {3,
         QStringLiteral("run tags and notes"),
         {
             QStringLiteral("ALTER TABLE runs ADD COLUMN tags TEXT NOT NULL DEFAULT ''"),
             QStringLiteral("ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''"),
         }},
        // Every checkpoint measured on the validation set too (NULL: the run's data set had none).
        {4,
         QStringLiteral("validation metrics"),
         {
             QStringLiteral("ALTER TABLE metrics ADD COLUMN val_acc REAL"),
             QStringLiteral("ALTER TABLE metrics ADD COLUMN val_rmse REAL"),
         }},
        // Which process runs or resumes an experiment now ("host\tboot id\tpid\tstart ticks", empty:
        // none): a second resume of it waits for that process or refuses, instead of deleting its runs.
        {5,
         QStringLiteral("experiment claims"),
         {
             QStringLiteral("ALTER TABLE experiments ADD COLUMN claim TEXT NOT NULL DEFAULT ''"),
         }},
    };
    return steps;
}

int StoreSchema::latestVersion()
{
    return migrations().last().toVersion;
}

bool StoreSchema::migrate(QSqlDatabase& db, int fromVersion, QString* error)
{
    QSqlQuery q(db);
    // Steps rebuild tables that others reference: a DROP with foreign keys on would cascade.
    if (!q.exec(QStringLiteral("PRAGMA foreign_keys")) || !q.next() || q.value(0).toInt() != 0) {
        *error =
            QStringLiteral("foreign keys must be off while the schema changes (set PRAGMA foreign_keys = OFF "
                           "before the transaction)");
        return false;
    }
    q.finish();
    for (const Migration& m : migrations()) {
        if (m.toVersion <= fromVersion)
            continue;
        for (qsizetype i = 0; i < m.statements.size(); ++i) {
            if (!q.exec(m.statements[i])) {
                *error = QStringLiteral("schema step %1 (%2), statement %3 failed: %4")
                             .arg(m.toVersion)
                             .arg(m.description)
                             .arg(i + 1)
                             .arg(q.lastError().text());
                return false;
            }
        }
        // PRAGMA takes no bound parameters; the values are integers of our own.
        if (!q.exec(QStringLiteral("PRAGMA user_version = %1").arg(m.toVersion))) {
            *error =
                QStringLiteral("cannot set schema version %1: %2").arg(m.toVersion).arg(q.lastError().text());
            return false;
        }
    }
    if (!q.exec(QStringLiteral("PRAGMA application_id = %1").arg(applicationId))) {
        *error = QStringLiteral("cannot set application id: %1").arg(q.lastError().text());
        return false;
    }
    return true;
}

StoreSchema::Header StoreSchema::readHeader(const QString& path)
{
    Header h;
    QFileInfo info(path);
    h.exists = info.exists();
    if (!h.exists)
        return h;
    if (info.isDir()) {
        h.empty = false;
        h.problem = QStringLiteral("%1 is a folder, not a run store file").arg(path);
        return h;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        h.empty = false;
        h.problem = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return h;
    }
    const QByteArray bytes = f.read(100);
    h.empty = bytes.isEmpty();
    if (h.empty)
        return h; // SQLite treats a 0-byte file as a new database
    static const QByteArray magic("SQLite format 3\0", 16);
    if (!bytes.startsWith(magic)) {
        QByteArray shown = bytes.left(16);
        for (char& c : shown)
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
                c = '.';
        h.problem = QStringLiteral("%1 is not an SQLite database: its first bytes (offset 0–%2) are \"%3\", "
                                   "expected \"SQLite format 3\"; it was not modified")
                        .arg(path)
                        .arg(shown.size() - 1)
                        .arg(QString::fromLatin1(shown));
        return h;
    }
    if (bytes.size() < 100) {
        h.problem = QStringLiteral("%1 is a truncated SQLite database: %2 bytes, the header alone has 100; "
                                   "it was not modified")
                        .arg(path)
                        .arg(bytes.size());
        return h;
    }
    h.sqlite = true;
    auto be32 = [&](int offset) {
        const auto* p = reinterpret_cast<const unsigned char*>(bytes.constData() + offset);
        return static_cast<int>((quint32(p[0]) << 24) | (quint32(p[1]) << 16) | (quint32(p[2]) << 8) | p[3]);
    };
    h.userVersion = be32(60);
    h.applicationId = be32(68);
    if (h.userVersion > latestVersion())
        h.problem = newerSchemaMessage(path, h.userVersion);
    else if (h.applicationId != 0 && h.applicationId != applicationId)
        h.problem = foreignDatabaseMessage(path, h.applicationId, -1);
    return h;
}

QString StoreSchema::newerSchemaMessage(const QString& path, int version)
{
    return QStringLiteral("%1 was written by a newer Trainbench (schema %2; this build reads up to %3); "
                          "it was not modified")
        .arg(path)
        .arg(version)
        .arg(latestVersion());
}

QString StoreSchema::foreignDatabaseMessage(const QString& path, int appId, int tables)
{
    if (appId != 0)
        return QStringLiteral("%1 is an SQLite database of another application (application_id 0x%2, "
                              "Trainbench uses 0x%3); it was not modified")
            .arg(path)
            .arg(quint32(appId), 8, 16, QLatin1Char('0'))
            .arg(quint32(applicationId), 8, 16, QLatin1Char('0'));
    return QStringLiteral(
               "%1 is an SQLite database but not a Trainbench run store (it holds %2 tables and no "
               "Trainbench schema version); it was not modified")
        .arg(path)
        .arg(tables);
}

} // namespace tb
