#pragma once
/// @file StoreSchema.h
/// Tables of the run store and the migrations that build them, step by step.

#include <QList>
#include <QString>
#include <QStringList>

class QSqlDatabase;

namespace tb {

/// Schema of the run store (internal to RunStore; public for tests and tools).
///
/// The version lives in `PRAGMA user_version`; `PRAGMA application_id` marks the file as a
/// Trainbench run store. Version 0 is an empty file. To change the schema, append a Migration
/// whose toVersion is one more than the last: files of every older version are brought up to date
/// step by step, inside one transaction, when a newer build opens them; a file whose version is
/// newer than latestVersion() is refused and never modified.
class StoreSchema {
public:
    /// "TBRS" (Trainbench Run Store) in `PRAGMA application_id`.
    static constexpr int applicationId = 0x54425253;

    /// One step from toVersion − 1 to toVersion: SQL statements run in order.
    struct Migration {
        int toVersion;
        QString description;
        QStringList statements;
    };

    /// All steps, in order; the first goes from 0 (empty file) to 1.
    static const QList<Migration>& migrations();

    /// The version this build writes and the newest it reads.
    static int latestVersion();

    /// Applies every step after @p fromVersion and sets user_version and application_id.
    /// Must run inside the caller's write transaction on @p db, with `PRAGMA foreign_keys = OFF`
    /// (steps rebuild referenced tables; the pragma cannot change inside a transaction, so the
    /// caller sets it before BEGIN and back after COMMIT). On failure @p error names the step and
    /// the statement, and the caller rolls back.
    static bool migrate(QSqlDatabase& db, int fromVersion, QString* error);

    /// What a file's header says about it, read without SQLite and without modifying the file.
    struct Header {
        bool exists = false;
        bool empty = true;     ///< missing or 0 bytes: a new store
        bool sqlite = false;   ///< starts with "SQLite format 3\0"
        int userVersion = 0;   ///< bytes 60–63, big-endian
        int applicationId = 0; ///< bytes 68–71, big-endian
        QString problem;       ///< why the file cannot be a run store, empty if it can
    };
    /// Reads the first 100 bytes of @p path. A header may lag behind a WAL file that has not been
    /// checkpointed yet, so callers confirm the version through SQLite before writing.
    static Header readHeader(const QString& path);

    /// The refusal for a file of a newer schema, e.g. "… was written by a newer Trainbench
    /// (schema 7; this build reads up to 1); it was not modified".
    static QString newerSchemaMessage(const QString& path, int version);
    /// The refusal for an SQLite file that belongs to another application.
    static QString foreignDatabaseMessage(const QString& path, int applicationId, int tables);
};

} // namespace tb
