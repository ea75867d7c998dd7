#include "RunStore.h"

#include "RunStoreOwner.h"
#include "StoreSchema.h"
#include "StoreWriter.h"

#include "BuildInfo.h"
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUrl>
#include <QUuid>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <unistd.h>
#include <thread>
#include <unordered_map>
#include <vector>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "unknown"
#endif

namespace tb {

/// Read connections of one store, one per thread that reads (QSqlDatabase connections must be
/// used only by the thread that opened them).
struct RunStoreReaders {
    std::mutex mutex;
    QString path;
    QString prefix;
    int busyTimeoutMs = 0;
    int opened = 0;
    std::unordered_map<std::thread::id, QString> names;
};

namespace {

/// Removes a thread's read connections when the thread ends, for stores still open.
struct ThreadReaders {
    std::vector<std::weak_ptr<RunStoreReaders>> stores;
    ~ThreadReaders()
    {
        for (const auto& weak : stores) {
            const auto readers = weak.lock();
            if (!readers)
                continue;
            std::lock_guard lock(readers->mutex);
            const auto it = readers->names.find(std::this_thread::get_id());
            if (it == readers->names.end())
                continue;
            const QString name = it->second;
            readers->names.erase(it);
            QSqlDatabase::removeDatabase(name);
        }
    }
};
thread_local ThreadReaders t_threadReaders;

const QString kInterruptedMessage = QStringLiteral("the process ended before the run finished");
const QString kClosedMessage = QStringLiteral("the run store was closed before the run finished");

QVariant text(const QString& s)
{
    // Qt binds a null QString as SQL NULL; the text columns are NOT NULL and "" means "none".
    return s.isNull() ? QVariant(QStringLiteral("")) : QVariant(s);
}

QVariant real(double v)
{
    // NaN means "does not apply": NULL. ±Inf are stored as SQLite's REAL infinities.
    return std::isnan(v) ? QVariant(QMetaType::fromType<double>()) : QVariant(v);
}

double realOrNaN(const QVariant& v)
{
    return v.isNull() ? NaN : v.toDouble();
}

QVariant timestamp(const QDateTime& t)
{
    return t.isValid() ? QVariant(t.toUTC().toString(Qt::ISODateWithMs))
                       : QVariant(QMetaType::fromType<QString>());
}

QDateTime parseTimestamp(const QVariant& v)
{
    if (v.isNull())
        return QDateTime();
    const QString text = v.toString();
    // What nowText() writes, "2026-12-02T21:23:05.268Z", read digit by digit: QDateTime::fromString
    // was a third of listing 100,000 runs. Anything else goes to Qt's parser.
    if (text.size() == 24 && text[4] == u'-' && text[7] == u'-' && text[10] == u'T' && text[13] == u':' &&
        text[16] == u':' && text[19] == u'.' && text[23] == u'Z') {
        bool digits = true;
        const auto field = [&](int from, int n) {
            int x = 0;
            for (int i = from; i < from + n; ++i) {
                const char16_t c = text[i].unicode();
                digits = digits && c >= u'0' && c <= u'9';
                x = 10 * x + int(c - u'0');
            }
            return x;
        };
        const QDate date(field(0, 4), field(5, 2), field(8, 2));
        const QTime time(field(11, 2), field(14, 2), field(17, 2), field(20, 3));
        if (digits && date.isValid() && time.isValid())
            return QDateTime(date, time, Qt::UTC);
    }
    return QDateTime::fromString(text, Qt::ISODateWithMs);
}

QString nowText()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

QString jsonText(const QJsonObject& o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

/// Parses a JSON column; @p problem gets a message naming the offset if it is not an object.
QJsonObject parseJson(const QVariant& v, QString* problem)
{
    const QByteArray text = v.toString().toUtf8();
    if (text.isEmpty())
        return {};
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
    if (pe.error != QJsonParseError::NoError)
        *problem = QStringLiteral("invalid JSON at offset %1: %2").arg(pe.offset).arg(pe.errorString());
    else if (!doc.isObject())
        *problem = QStringLiteral("JSON is not an object");
    return doc.object();
}

const QString kRunColumns = QStringLiteral(
    "id, experiment_id, algorithm_id, algorithm_name, plugin_id, plugin_version, params_json, dataset, seed, "
    "threads, repeat, sigma, status, error, started, ended, info_json, app_version, tags, note, owner_host, "
    "owner_boot, owner_pid, owner_start");
const QString kExperimentColumns =
    QStringLiteral("id, name, kind, spec_json, created, app_version, git_hash");
const QString kSweepColumns = QStringLiteral("algorithm_id, algorithm_name, sigma, mc, train_rmse_mean, "
                                             "train_rmse_std, test_rmse_mean, test_rmse_std");

/// Reads the info of @p runId and returns it with @p update merged in (top-level keys replaced);
/// nullopt after reporting if the run does not exist.
std::optional<QJsonObject> mergedInfo(StoreWriter::Context& ctx, qint64 runId, const QJsonObject& update,
                                      const QString& what)
{
    QSqlQuery* q = ctx.prepared(QStringLiteral("SELECT info_json FROM runs WHERE id = ?"));
    if (!q)
        return std::nullopt;
    q->bindValue(0, runId);
    if (!ctx.exec(*q, what))
        return std::nullopt;
    if (!q->next()) {
        q->finish();
        ctx.fail(QStringLiteral("%1: there is no run %2").arg(what).arg(runId));
        return std::nullopt;
    }
    QString problem;
    QJsonObject info = parseJson(q->value(0), &problem);
    q->finish();
    for (auto it = update.begin(); it != update.end(); ++it)
        info.insert(it.key(), it.value());
    return info;
}


// An experiment's claim as stored: "host\tboot id\tpid\tstart ticks".
QString claimText(const RunStoreOwner& o)
{
    return QStringLiteral("%1\t%2\t%3\t%4").arg(o.host, o.bootId).arg(o.pid).arg(o.startTicks);
}

// The owner a stored claim names; nullopt for none (empty) or a claim that cannot be read.
std::optional<RunStoreOwner> claimOwner(const QString& claim)
{
    const QStringList f = claim.split(QLatin1Char('\t'));
    if (claim.isEmpty() || f.size() != 4)
        return std::nullopt;
    RunStoreOwner o;
    o.host = f[0];
    o.bootId = f[1];
    bool ok = false;
    o.pid = f[2].toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    o.startTicks = f[3].toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    return o;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Opening and closing

std::unique_ptr<RunStore> RunStore::open(const QString& path, QString* error)
{
    return open(path, Options(), error);
}

std::unique_ptr<RunStore> RunStore::open(const QString& path, const Options& options, QString* error)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return std::unique_ptr<RunStore>();
    };
    if (path.trimmed().isEmpty())
        return fail(QStringLiteral("no run store file given"));
    if (path.startsWith(QLatin1Char(':')))
        return fail(QStringLiteral("%1: a run store must be a file on disk").arg(path));
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const QString folder = QFileInfo(absolute).absolutePath();
    if (!options.readOnly && !QDir().mkpath(folder))
        return fail(QStringLiteral("cannot create the folder %1 for the run store").arg(folder));

    // Judge the file from its header before SQLite touches it: a refused file stays byte-identical.
    const StoreSchema::Header header = StoreSchema::readHeader(absolute);
    if (!header.problem.isEmpty())
        return fail(header.problem);
    if (options.readOnly && !header.exists)
        return fail(QStringLiteral("%1 does not exist (no run has been recorded there)").arg(absolute));
    if (options.readOnly && header.empty)
        return fail(QStringLiteral("%1 is empty: no run has been recorded there").arg(absolute));

    Options o = options;
    o.busyTimeoutMs = std::max(0, o.busyTimeoutMs);
    o.waitNoticeMs = std::max(0, o.waitNoticeMs);
    o.batchMs = std::max(1, o.batchMs);
    o.batchOps = std::max(1, o.batchOps);
    // A file this user may not write is refused before SQLite opens it: SQLite would create
    // -wal and -shm beside it first, and leave them behind.
    if (!options.readOnly && header.exists) {
        const QString name = QFileInfo(absolute).fileName();
        const QString readers = QStringLiteral("Commands that only read, such as `trainbench-cli runs`, open it read-only");
        const bool sideFiles = QFileInfo::exists(absolute + QStringLiteral("-wal")) &&
                               QFileInfo::exists(absolute + QStringLiteral("-shm"));
        if (!sideFiles && ::access(QFile::encodeName(folder).constData(), W_OK) != 0)
            return fail(QStringLiteral("%1: cannot open it for writing (SQLite must be able to create %2-wal and %2-shm "
                                       "in its folder, which is read-only). %3")
                            .arg(absolute, name, readers));
        if (::access(QFile::encodeName(absolute).constData(), W_OK) != 0) {
            const int cause = errno;
            return fail(QStringLiteral("%1: cannot write to it: %2 (the file is read-only; runs cannot be recorded "
                                       "there). %3")
                            .arg(absolute, QString::fromLocal8Bit(std::strerror(cause)), readers));
        }
    }
    // A store this open created and could not set up (a full disk) is removed while it is still
    // empty, with the -wal and -shm made beside it: an empty file is not left to look like a store.
    const QString wal = absolute + QStringLiteral("-wal"), shm = absolute + QStringLiteral("-shm");
    const bool hadWal = QFileInfo::exists(wal), hadShm = QFileInfo::exists(shm);
    std::unique_ptr<RunStore> store(new RunStore(absolute, o));
    QString message;
    if (!(o.readOnly ? store->startReadOnly(&message) : store->start(&message))) {
        store.reset();
        if (!o.readOnly && !header.exists && QFileInfo(absolute).size() == 0 && QFile::remove(absolute)) {
            if (!hadWal)
                QFile::remove(wal);
            if (!hadShm)
                QFile::remove(shm);
            message += QStringLiteral(" (the empty file this open had created was removed)");
        }
        return fail(message);
    }
    return store;
}

QString RunStore::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/trainbench/runs.sqlite");
}

RunStore::RunStore(const QString& path, const Options& options)
    : m_path(path), m_options(options), m_token(QUuid::createUuid().toString(QUuid::WithoutBraces)),
      m_readers(std::make_shared<RunStoreReaders>())
{
    m_readers->path = m_path;
    m_readers->prefix = QStringLiteral("tb-runstore-%1-read-").arg(m_token);
    m_readers->busyTimeoutMs = m_options.busyTimeoutMs;
}

bool RunStore::start(QString* error)
{
    StoreWriter::Config config;
    config.path = m_path;
    config.connectionName = QStringLiteral("tb-runstore-%1-write").arg(m_token);
    config.busyTimeoutMs = m_options.busyTimeoutMs;
    config.waitNoticeMs = m_options.waitNoticeMs;
    config.batchMs = m_options.batchMs;
    config.batchOps = m_options.batchOps;
    m_writer = std::make_unique<StoreWriter>(
        config, [this](const QString& message) { recordFailure(message); },
        [this](const QString& message, bool stillWaiting) { Q_EMIT waiting(message, stillWaiting); });
    if (m_writer->start([this](QSqlDatabase& db, QString* e) { return initialise(db, e); }, error))
        return true;
    m_writer.reset();
    return false;
}

bool RunStore::startReadOnly(QString* error)
{
    // The checks of initialise() that need no write: a newer schema and foreign files are refused.
    int version = -1, appId = 0, tables = 0;
    QString message;
    const bool ok =
        read(QStringLiteral("SELECT (SELECT user_version FROM pragma_user_version), "
                            "(SELECT application_id FROM pragma_application_id), "
                            "(SELECT count(*) FROM sqlite_master WHERE type = 'table')"),
             {}, QStringLiteral("cannot read the database"),
             [&](const QSqlQuery& q) {
                 version = q.value(0).toInt();
                 appId = q.value(1).toInt();
                 tables = q.value(2).toInt();
             },
             &message);
    if (!ok) {
        *error = message;
        return false;
    }
    if (version > StoreSchema::latestVersion()) {
        *error = StoreSchema::newerSchemaMessage(m_path, version);
        return false;
    }
    if ((appId != 0 && appId != StoreSchema::applicationId) || (appId == 0 && version == 0)) {
        *error = StoreSchema::foreignDatabaseMessage(m_path, appId, tables);
        return false;
    }
    return true;
}

qint64 RunStore::refuseWrite(const QString& what)
{
    recordFailure(QStringLiteral("%1: %2: the store was opened read-only").arg(m_path, what));
    return -1;
}

bool RunStore::initialise(QSqlDatabase& db, QString* error)
{
    QSqlQuery q(db);
    auto sqlFailed = [&](const QString& what) {
        const QSqlError e = q.lastError();
        *error = QStringLiteral("%1: %2: %3").arg(m_path, what, e.databaseText().isEmpty() ? e.text() : e.databaseText());
        if ((e.nativeErrorCode().toInt() & 0xff) == 5) // SQLITE_BUSY
            *error += QStringLiteral(" (another process held the write lock for more than the %1 s this store waits)")
                          .arg(m_options.busyTimeoutMs / 1000.0, 0, 'g', 3);
        return false;
    };
    auto readInt = [&](const QString& sql, int* out) {
        if (!q.exec(sql) || !q.next())
            return false;
        *out = q.value(0).toInt();
        q.finish();
        return true;
    };

    // Read-only checks first: nothing below the refusals may write to a file we do not own.
    int version = 0, appId = 0, tables = 0;
    if (!readInt(QStringLiteral("PRAGMA user_version"), &version) ||
        !readInt(QStringLiteral("PRAGMA application_id"), &appId) ||
        !readInt(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table'"), &tables)) {
        // SQLite reports a folder it cannot create the WAL index in as "attempt to write a readonly
        // database" even for this read: say what is needed instead.
        const int code = q.lastError().nativeErrorCode().toInt() & 0xff;
        if (code == 8 || code == 14)
            return sqlFailed(QStringLiteral(
                "cannot open it for writing (SQLite must be able to create %1-wal and %1-shm in its folder; "
                "is the folder or the file read-only? Commands that only read, such as `trainbench-cli runs`, "
                "open it read-only)")
                                 .arg(QFileInfo(m_path).fileName()));
        return sqlFailed(QStringLiteral("cannot read the database (it was not modified)"));
    }
    if (version > StoreSchema::latestVersion()) {
        *error = StoreSchema::newerSchemaMessage(m_path, version);
        return false;
    }
    if ((appId != 0 && appId != StoreSchema::applicationId) || (appId == 0 && version == 0 && tables > 0)) {
        *error = StoreSchema::foreignDatabaseMessage(m_path, appId, tables);
        return false;
    }

    if (!q.exec(QStringLiteral("PRAGMA busy_timeout = %1").arg(m_options.busyTimeoutMs)))
        return sqlFailed(QStringLiteral("cannot set the busy timeout"));
    // Off while the schema may change (migrations rebuild referenced tables), on for every write after.
    if (!q.exec(QStringLiteral("PRAGMA foreign_keys = OFF")))
        return sqlFailed(QStringLiteral("cannot disable foreign keys for the schema check"));
    // WAL: readers never block the writer and several processes can share the file.
    if (!q.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !q.next())
        return sqlFailed(QStringLiteral("cannot switch to WAL mode"));
    if (q.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
        *error = QStringLiteral("%1: cannot switch to WAL mode (the file system gave \"%2\")")
                     .arg(m_path, q.value(0).toString());
        return false;
    }
    q.finish();
    // In WAL mode NORMAL loses no committed transaction when a process dies, only on power loss.
    if (!q.exec(QStringLiteral("PRAGMA synchronous = NORMAL")))
        return sqlFailed(QStringLiteral("cannot set synchronous mode"));

    // Migrate under the write lock: another process may be migrating the same file right now.
    if (!execWaitingAtOpen(db, q, QStringLiteral("BEGIN IMMEDIATE")))
        return sqlFailed(QStringLiteral("cannot lock the database to check its schema"));
    if (!readInt(QStringLiteral("PRAGMA user_version"), &version)) {
        sqlFailed(QStringLiteral("cannot read the schema version"));
        q.exec(QStringLiteral("ROLLBACK"));
        return false;
    }
    if (version > StoreSchema::latestVersion()) {
        q.exec(QStringLiteral("ROLLBACK"));
        *error = StoreSchema::newerSchemaMessage(m_path, version);
        return false;
    }
    QString migrationError;
    if (version < StoreSchema::latestVersion() && !StoreSchema::migrate(db, version, &migrationError)) {
        q.exec(QStringLiteral("ROLLBACK"));
        *error = QStringLiteral("%1: cannot update the schema from version %2: %3")
                     .arg(m_path)
                     .arg(version)
                     .arg(migrationError);
        return false;
    }
    if (!q.exec(QStringLiteral("COMMIT"))) {
        sqlFailed(QStringLiteral("cannot commit the schema"));
        q.exec(QStringLiteral("ROLLBACK"));
        return false;
    }
    if (!q.exec(QStringLiteral("PRAGMA foreign_keys = ON")))
        return sqlFailed(QStringLiteral("cannot enable foreign keys"));

    if (!probeWrite(db, error))
        return false;
    const int interrupted = recoverInterrupted(db, error);
    if (interrupted < 0)
        return false;
    m_interruptedOnOpen = interrupted;
    return true;
}

bool RunStore::probeWrite(QSqlDatabase& db, QString* error)
{
    // SQLite opens a file it may not write read-only without a word, and BEGIN IMMEDIATE still
    // succeeds: only a statement that writes fails. Find out now, not after a training.
    QSqlQuery q(db);
    bool ok = execWaitingAtOpen(db, q, QStringLiteral("BEGIN IMMEDIATE"));
    ok = ok && q.exec(QStringLiteral("UPDATE experiments SET id = id WHERE 0"));
    const QSqlError e = q.lastError();
    q.exec(QStringLiteral("ROLLBACK"));
    if (ok)
        return true;
    *error = QStringLiteral("%1: cannot write to it: %2%3")
                 .arg(m_path, e.databaseText().isEmpty() ? e.text() : e.databaseText(),
                      (e.nativeErrorCode().toInt() & 0xff) == 8
                          ? QStringLiteral(" (the file or its folder is read-only; runs cannot be recorded there)")
                          : QString());
    return false;
}

bool RunStore::execWaitingAtOpen(QSqlDatabase& db, QSqlQuery& q, const QString& sql)
{
    using Clock = std::chrono::steady_clock;
    const int timeoutMs = m_options.busyTimeoutMs;
    // Each try waits one slice in SQLite's busy handler, so the wait can be announced on time.
    QSqlQuery(db).exec(QStringLiteral("PRAGMA busy_timeout = %1").arg(std::clamp(timeoutMs, 0, 100)));
    const auto start = Clock::now();
    bool announced = false;
    bool ok = false;
    for (;;) {
        ok = q.exec(sql);
        const int code = q.lastError().nativeErrorCode().toInt() & 0xff;
        const auto waited = Clock::now() - start;
        if (ok || (code != 5 && code != 6) || waited >= std::chrono::milliseconds(timeoutMs)) // BUSY, LOCKED
            break;
        if (!announced && waited >= std::chrono::milliseconds(m_options.waitNoticeMs) && m_options.onOpenWait) {
            m_options.onOpenWait(QStringLiteral("%1 is locked by another connection; waiting up to %2 s to open it")
                                     .arg(m_path)
                                     .arg(timeoutMs / 1000.0, 0, 'g', 3));
            announced = true;
        }
    }
    if (announced && ok)
        m_options.onOpenWait(
            QStringLiteral("the other connection released %1 after %2 s; opening it")
                .arg(QFileInfo(m_path).fileName())
                .arg(std::chrono::duration<double>(Clock::now() - start).count(), 0, 'f', 1));
    QSqlQuery(db).exec(QStringLiteral("PRAGMA busy_timeout = %1").arg(timeoutMs));
    return ok;
}

int RunStore::recoverInterrupted(QSqlDatabase& db, QString* error)
{
    QSqlQuery q(db);
    auto failed = [&](const QString& what) {
        *error = QStringLiteral("%1: %2: %3").arg(m_path, what, q.lastError().text());
        q.exec(QStringLiteral("ROLLBACK"));
        return -1;
    };
    if (!execWaitingAtOpen(db, q, QStringLiteral("BEGIN IMMEDIATE")))
        return failed(QStringLiteral("cannot lock the database to recover interrupted runs"));
    if (!q.exec(QStringLiteral("SELECT id, owner_host, owner_boot, owner_pid, owner_start FROM runs "
                               "WHERE status = 'running'")))
        return failed(QStringLiteral("cannot list running runs"));
    QList<qint64> dead;
    QHash<QString, bool> alive; // one liveness check per owner
    while (q.next()) {
        RunStoreOwner owner;
        owner.host = q.value(1).toString();
        owner.bootId = q.value(2).toString();
        owner.pid = q.value(3).toLongLong();
        owner.startTicks = q.value(4).toLongLong();
        const QString key =
            QStringLiteral("%1/%2/%3/%4").arg(owner.host, owner.bootId).arg(owner.pid).arg(owner.startTicks);
        auto it = alive.find(key);
        if (it == alive.end())
            it = alive.insert(key, owner.isAlive());
        if (!it.value())
            dead << q.value(0).toLongLong();
    }
    q.finish();
    if (!q.prepare(QStringLiteral("UPDATE runs SET status = 'interrupted', ended = ?, error = ? "
                                  "WHERE id = ? AND status = 'running'")))
        return failed(QStringLiteral("cannot prepare the recovery"));
    const QString now = nowText();
    for (qint64 id : std::as_const(dead)) {
        q.bindValue(0, now);
        q.bindValue(1, kInterruptedMessage);
        q.bindValue(2, id);
        if (!q.exec())
            return failed(QStringLiteral("cannot mark run %1 interrupted").arg(id));
    }
    if (!q.exec(QStringLiteral("COMMIT")))
        return failed(QStringLiteral("cannot commit the recovery"));
    return int(dead.size());
}

RunStore::~RunStore()
{
    if (m_writer) {
        // The reserved ids this store did not use go back when no one reserved after it, so a
        // store's runs keep consecutive ids from one process to the next.
        if (m_nextRunId <= m_lastRunId) {
            const qint64 unused = m_nextRunId - 1, top = m_lastRunId;
            m_writer->post([unused, top](StoreWriter::Context& ctx) -> qint64 {
                QSqlQuery* q =
                    ctx.prepared(QStringLiteral("UPDATE sqlite_sequence SET seq = ? WHERE name = 'runs' AND seq = ?"));
                if (!q)
                    return -1;
                q->bindValue(0, unused);
                q->bindValue(1, top);
                return ctx.exec(*q, QStringLiteral("cannot give back unused run ids")) ? 0 : -1;
            });
        }
        const QString token = m_token;
        const QString now = nowText();
        m_writer->post([token, now](StoreWriter::Context& ctx) -> qint64 {
            QSqlQuery* q =
                ctx.prepared(QStringLiteral("UPDATE runs SET status = 'interrupted', ended = ?, "
                                            "error = ? WHERE owner_token = ? AND status = 'running'"));
            if (!q)
                return -1;
            q->bindValue(0, now);
            q->bindValue(1, kClosedMessage);
            q->bindValue(2, token);
            return ctx.exec(*q, QStringLiteral("cannot mark unfinished runs interrupted")) ? 0 : -1;
        });
        m_writer->stop(); // drains the queue first
        m_writer.reset();
    }
    // Connections of threads that still exist; ended threads removed their own.
    std::lock_guard lock(m_readers->mutex);
    for (const auto& [thread, name] : m_readers->names)
        QSqlDatabase::removeDatabase(name);
    m_readers->names.clear();
}

// ---------------------------------------------------------------------------------------------
// Writes

qint64 RunStore::createExperiment(const ExperimentRecord& e)
{
    if (!m_writer) {
        return refuseWrite(QStringLiteral("cannot create an experiment"));
    }
    return m_writer->call(
        [e](StoreWriter::Context& ctx) -> qint64 {
            QSqlQuery* q =
                ctx.prepared(QStringLiteral("INSERT INTO experiments (name, kind, spec_json, created, "
                                            "app_version, git_hash) VALUES (?, ?, ?, ?, ?, ?)"));
            if (!q)
                return -1;
            q->bindValue(0, text(e.name));
            q->bindValue(1, text(e.kind));
            q->bindValue(2, jsonText(e.spec));
            q->bindValue(3, e.created.isValid() ? timestamp(e.created) : QVariant(nowText()));
            q->bindValue(4, e.appVersion.isEmpty() ? QStringLiteral(TB_APP_VERSION) : e.appVersion);
            q->bindValue(5, e.gitHash.isEmpty() ? gitHash() : e.gitHash);
            if (!ctx.exec(*q, QStringLiteral("cannot create experiment \"%1\"").arg(e.name)))
                return -1;
            return q->lastInsertId().toLongLong();
        },
        StoreWriter::Order::AheadOfQueued); // a new row depends on no queued write
}

bool RunStore::claimExperiment(qint64 id, QString* holder)
{
    holder->clear();
    if (!m_writer)
        return refuseWrite(QStringLiteral("cannot claim experiment %1").arg(id)) >= 0;
    auto held = std::make_shared<QString>();
    const qint64 r = m_writer->call([id, held](StoreWriter::Context& ctx) -> qint64 {
        // BEGIN IMMEDIATE holds the write lock: no other process reads the claim between here and
        // the update.
        const QString what = QStringLiteral("cannot claim experiment %1").arg(id);
        QSqlQuery* read = ctx.prepared(QStringLiteral("SELECT claim FROM experiments WHERE id = ?"));
        if (!read)
            return -1;
        read->bindValue(0, id);
        if (!ctx.exec(*read, what))
            return -1;
        const QString claim = read->next() ? read->value(0).toString() : QString();
        read->finish();
        const RunStoreOwner& me = RunStoreOwner::current();
        if (const std::optional<RunStoreOwner> other = claimOwner(claim);
            other && !(other->pid == me.pid && other->host == me.host && other->startTicks == me.startTicks) &&
            other->isAlive()) {
            *held = other->describe();
            return 0;
        }
        QSqlQuery* write = ctx.prepared(QStringLiteral("UPDATE experiments SET claim = ? WHERE id = ?"));
        if (!write)
            return -1;
        write->bindValue(0, claimText(me));
        write->bindValue(1, id);
        return ctx.exec(*write, what) ? 1 : -1;
    });
    *holder = *held;
    return r == 1;
}

void RunStore::releaseExperiment(qint64 id)
{
    if (!m_writer)
        return;
    const QString mine = claimText(RunStoreOwner::current());
    m_writer->post([id, mine](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q = ctx.prepared(QStringLiteral("UPDATE experiments SET claim = '' WHERE id = ? AND claim = ?"));
        if (!q)
            return -1;
        q->bindValue(0, id);
        q->bindValue(1, mine);
        return ctx.exec(*q, QStringLiteral("cannot release experiment %1").arg(id)) ? 0 : -1;
    });
}

qint64 RunStore::takeRunId()
{
    const std::lock_guard lock(m_idMutex);
    if (m_nextRunId > m_lastRunId) {
        const qint64 block = m_idBlock;
        // In one transaction of its own (BEGIN IMMEDIATE holds the write lock): the largest id
        // given so far — sqlite_sequence's, or a row's above it — raised by the block. Rows
        // inserted with these ids later leave sqlite_sequence as it is (they are below it).
        const qint64 base = m_writer->call(
            [block](StoreWriter::Context& ctx) -> qint64 {
                const QString what = QStringLiteral("cannot reserve run ids");
                QSqlQuery* top = ctx.prepared(QStringLiteral(
                    "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'runs'), 0), "
                    "coalesce((SELECT max(id) FROM runs), 0)), "
                    "EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'runs')"));
                if (!top || !ctx.exec(*top, what) || !top->next())
                    return -1;
                const qint64 given = top->value(0).toLongLong();
                const bool listed = top->value(1).toBool();
                top->finish();
                QSqlQuery* raise = ctx.prepared(
                    listed ? QStringLiteral("UPDATE sqlite_sequence SET seq = ? WHERE name = 'runs'")
                           : QStringLiteral("INSERT INTO sqlite_sequence (seq, name) VALUES (?, 'runs')"));
                if (!raise)
                    return -1;
                raise->bindValue(0, given + block);
                return ctx.exec(*raise, what) ? given : -1;
            },
            StoreWriter::Order::AheadOfQueued); // depends on no queued write
        if (base < 0)
            return -1;
        m_nextRunId = base + 1;
        m_lastRunId = base + block;
        m_idBlock = std::min(2 * block, kMaxIdBlock);
    }
    return m_nextRunId++;
}

qint64 RunStore::createRun(const RunRecord& r)
{
    if (!m_writer) {
        return refuseWrite(QStringLiteral("cannot create a run"));
    }
    const qint64 id = takeRunId();
    if (id < 0)
        return -1;
    const QString token = m_token;
    const QString started = r.started.isValid() ? timestamp(r.started).toString() : nowText(); // the caller's moment, not the commit's
    // Queued in order: the run's checkpoints, posted after this returns, come after its row.
    m_writer->post(
        [r, token, id, started](StoreWriter::Context& ctx) -> qint64 {
            QSqlQuery* q = ctx.prepared(QStringLiteral(
                "INSERT INTO runs (id, experiment_id, algorithm_id, algorithm_name, plugin_id, plugin_version, "
                "params_json, dataset, seed, threads, repeat, sigma, status, error, started, ended, "
                "info_json, "
                "app_version, owner_host, owner_boot, owner_pid, owner_start, owner_token) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
            if (!q)
                return -1;
            const RunStoreOwner& me = RunStoreOwner::current();
            int i = 0;
            q->bindValue(i++, id);
            q->bindValue(i++, r.experimentId >= 0 ? QVariant(r.experimentId)
                                                  : QVariant(QMetaType::fromType<qint64>()));
            q->bindValue(i++, text(r.algorithmId));
            q->bindValue(i++, text(r.algorithmName));
            q->bindValue(i++, text(r.pluginId));
            q->bindValue(i++, text(r.pluginVersion));
            q->bindValue(i++, jsonText(QJsonObject::fromVariantMap(r.params)));
            q->bindValue(i++, text(r.dataset));
            q->bindValue(i++, QString::number(r.seed)); // decimal text keeps all 64 unsigned bits
            q->bindValue(i++, r.threads);
            q->bindValue(i++, r.repeat);
            q->bindValue(i++, real(r.sigma));
            q->bindValue(i++, runStatusName(r.status));
            q->bindValue(i++, text(r.error));
            q->bindValue(i++, started);
            q->bindValue(i++, timestamp(r.ended));
            q->bindValue(i++, jsonText(r.info));
            q->bindValue(i++, r.appVersion.isEmpty() ? QStringLiteral(TB_APP_VERSION) : r.appVersion);
            q->bindValue(i++, text(me.host));
            q->bindValue(i++, text(me.bootId));
            q->bindValue(i++, me.pid);
            q->bindValue(i++, me.startTicks);
            q->bindValue(i++, token);
            if (!ctx.exec(*q, QStringLiteral("cannot create run %1 of %2").arg(id).arg(r.algorithmId)))
                return -1;
            return id;
        });
    return id;
}

void RunStore::appendMetric(qint64 runId, const MetricPoint& p)
{
    if (!m_writer) {
        refuseWrite(QStringLiteral("cannot append checkpoint %1 to run %2").arg(p.seq).arg(runId));
        return;
    }
    {
        const std::lock_guard lock(m_appendedMutex);
        ++m_appended[runId];
    }
    m_writer->post([runId, p](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q =
            ctx.prepared(QStringLiteral("INSERT INTO metrics (run_id, seq, epoch, train_time_s, loss, "
                                        "train_acc, test_acc, train_rmse, test_rmse, val_acc, val_rmse) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        if (!q)
            return -1;
        q->bindValue(0, runId);
        q->bindValue(1, p.seq);
        q->bindValue(2, real(p.epoch));
        q->bindValue(3, real(p.trainTime));
        q->bindValue(4, real(p.loss));
        q->bindValue(5, real(p.trainAccuracy));
        q->bindValue(6, real(p.testAccuracy));
        q->bindValue(7, real(p.trainRmse));
        q->bindValue(8, real(p.testRmse));
        q->bindValue(9, real(p.validationAccuracy));
        q->bindValue(10, real(p.validationRmse));
        return ctx.exec(*q, QStringLiteral("cannot append checkpoint %1 to run %2").arg(p.seq).arg(runId))
                   ? 0
                   : -1;
    });
}

void RunStore::finishRun(qint64 runId, RunStatus status, const QString& error, const QJsonObject& info)
{
    if (!m_writer) {
        refuseWrite(QStringLiteral("cannot finish run %1").arg(runId));
        return;
    }
    const QString ended = nowText(); // the caller's moment, not the commit's
    qint64 appended = 0;
    {
        const std::lock_guard lock(m_appendedMutex);
        if (const auto it = m_appended.find(runId); it != m_appended.end()) {
            appended = it->second;
            m_appended.erase(it);
        }
    }
    m_writer->post([runId, status, error, info, ended, appended](StoreWriter::Context& ctx) -> qint64 {
        const QString what = QStringLiteral("cannot finish run %1").arg(runId);
        const std::optional<QJsonObject> merged = mergedInfo(ctx, runId, info, what);
        if (!merged)
            return -1;
        // Finished only with every checkpoint it was given: they were written before this, in
        // this transaction or an earlier one; one that was lost makes the run a failed one.
        RunStatus stored = status;
        QString storedError = error;
        if (status == RunStatus::Finished && appended > 0) {
            QSqlQuery* count = ctx.prepared(QStringLiteral("SELECT count(*) FROM metrics WHERE run_id = ?"));
            if (!count)
                return -1;
            count->bindValue(0, runId);
            if (!ctx.exec(*count, what))
                return -1;
            const qint64 have = count->next() ? count->value(0).toLongLong() : 0;
            count->finish();
            if (have < appended) {
                stored = RunStatus::Failed;
                storedError = QStringLiteral("the run finished, but %1 of its %2 checkpoints were not stored (a write to "
                                             "the store was lost): not kept as finished; --resume trains it again")
                                  .arg(appended - have)
                                  .arg(appended);
            }
        }
        QSqlQuery* q = ctx.prepared(
            QStringLiteral("UPDATE runs SET status = ?, error = ?, ended = ?, info_json = ? WHERE id = ?"));
        if (!q)
            return -1;
        q->bindValue(0, runStatusName(stored));
        q->bindValue(1, text(storedError));
        q->bindValue(2, ended);
        q->bindValue(3, jsonText(*merged));
        q->bindValue(4, runId);
        return ctx.exec(*q, what) ? 0 : -1;
    });
}

void RunStore::setRunInfo(qint64 runId, const QJsonObject& info)
{
    if (!m_writer) {
        refuseWrite(QStringLiteral("cannot record info of run %1").arg(runId));
        return;
    }
    m_writer->post([runId, info](StoreWriter::Context& ctx) -> qint64 {
        const QString what = QStringLiteral("cannot record info of run %1").arg(runId);
        const std::optional<QJsonObject> merged = mergedInfo(ctx, runId, info, what);
        if (!merged)
            return -1;
        QSqlQuery* q = ctx.prepared(QStringLiteral("UPDATE runs SET info_json = ? WHERE id = ?"));
        if (!q)
            return -1;
        q->bindValue(0, jsonText(*merged));
        q->bindValue(1, runId);
        return ctx.exec(*q, what) ? 0 : -1;
    });
}

void RunStore::addSummaryPoint(qint64 experimentId, const SummaryPoint& p)
{
    if (!m_writer) {
        refuseWrite(QStringLiteral("cannot add a sweep point to experiment %1").arg(experimentId));
        return;
    }
    m_writer->post([experimentId, p](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q = ctx.prepared(QStringLiteral(
            "INSERT INTO sweep_points (experiment_id, algorithm_id, algorithm_name, sigma, mc, "
            "train_rmse_mean, "
            "train_rmse_std, test_rmse_mean, test_rmse_std) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        if (!q)
            return -1;
        q->bindValue(0, experimentId);
        q->bindValue(1, text(p.algorithmId));
        q->bindValue(2, text(p.algorithmName));
        q->bindValue(3, real(p.x));
        q->bindValue(4, p.count);
        q->bindValue(5, real(p.trainRmseMean));
        q->bindValue(6, real(p.trainRmseStd));
        q->bindValue(7, real(p.testRmseMean));
        q->bindValue(8, real(p.testRmseStd));
        return ctx.exec(*q, QStringLiteral("cannot add the sweep point σ=%1 of %2 to experiment %3")
                                .arg(p.x)
                                .arg(p.algorithmId)
                                .arg(experimentId))
                   ? 0
                   : -1;
    });
}

bool RunStore::deleteExperiment(qint64 id)
{
    if (!m_writer) {
        return refuseWrite(QStringLiteral("cannot delete experiment %1").arg(id)) >= 0;
    }
    return m_writer->call([id](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q = ctx.prepared(QStringLiteral("DELETE FROM experiments WHERE id = ?"));
        if (!q)
            return -1;
        q->bindValue(0, id);
        if (!ctx.exec(*q, QStringLiteral("cannot delete experiment %1").arg(id)))
            return -1;
        return q->numRowsAffected() > 0 ? 1 : 0;
    }) > 0;
}

bool RunStore::deleteRun(qint64 id)
{
    if (!m_writer) {
        return refuseWrite(QStringLiteral("cannot delete run %1").arg(id)) >= 0;
    }
    return m_writer->call([id](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q = ctx.prepared(QStringLiteral("DELETE FROM runs WHERE id = ?"));
        if (!q)
            return -1;
        q->bindValue(0, id);
        if (!ctx.exec(*q, QStringLiteral("cannot delete run %1").arg(id)))
            return -1;
        return q->numRowsAffected() > 0 ? 1 : 0;
    }) > 0;
}

bool RunStore::deleteSummaryPoints(qint64 experimentId)
{
    if (!m_writer)
        return refuseWrite(QStringLiteral("cannot delete the sweep points of experiment %1").arg(experimentId)) >= 0;
    return m_writer->call([experimentId](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q = ctx.prepared(QStringLiteral("DELETE FROM sweep_points WHERE experiment_id = ?"));
        if (!q)
            return -1;
        q->bindValue(0, experimentId);
        if (!ctx.exec(*q, QStringLiteral("cannot delete the sweep points of experiment %1").arg(experimentId)))
            return -1;
        return 1;
    }) > 0;
}

bool RunStore::setRunNotes(qint64 id, const QStringList& tags, const QString& note)
{
    const QString tagText = RunRecord::splitTags(tags.join(QLatin1Char(','))).join(QStringLiteral(", "));
    return m_writer->call([id, tagText, note](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q = ctx.prepared(QStringLiteral("UPDATE runs SET tags = ?, note = ? WHERE id = ?"));
        if (!q)
            return -1;
        q->bindValue(0, tagText);
        q->bindValue(1, note);
        q->bindValue(2, id);
        if (!ctx.exec(*q, QStringLiteral("cannot store the tags and note of run %1").arg(id)))
            return -1;
        return q->numRowsAffected() > 0 ? 1 : 0;
    }) > 0;
}

bool RunStore::flush(int timeoutMs)
{
    if (!m_writer)
        return failure().isEmpty();
    return m_writer->flush(timeoutMs);
}

// ---------------------------------------------------------------------------------------------
// Reads

namespace {

/// SQLite primary result code of a Qt SQL error.
int primaryCode(const QSqlError& e)
{
    return e.nativeErrorCode().toInt() & 0xff;
}

QString describe(const QSqlError& e)
{
    return e.databaseText().isEmpty() ? e.text() : e.databaseText();
}

constexpr int kSqliteReadOnly = 8;
constexpr int kSqliteCorrupt = 11;
constexpr int kSqliteCantOpen = 14;
constexpr int kSqliteNotADb = 26;

/// Opens read connection @p name on @p path. A read-only store in a read-only folder cannot get
/// the -shm file WAL mode needs; when no -wal file holds data, the main file is complete and is
/// read as immutable instead.
bool openReader(const QString& name, const QString& path, int busyTimeoutMs, bool readOnly, QString* error)
{
    auto tryOpen = [&](bool immutable) {
        QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        QStringList options{QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(busyTimeoutMs)};
        if (readOnly)
            options << QStringLiteral("QSQLITE_OPEN_READONLY");
        if (immutable) {
            options << QStringLiteral("QSQLITE_OPEN_URI");
            d.setDatabaseName(QUrl::fromLocalFile(path).toString(QUrl::FullyEncoded) + QStringLiteral("?immutable=1"));
        } else {
            d.setDatabaseName(path);
        }
        d.setConnectOptions(options.join(QLatin1Char(';')));
        QSqlError failure;
        if (!d.open()) {
            failure = d.lastError();
        } else {
            QSqlQuery q(d);
            // Touch the schema: WAL files are opened (or found missing) on the first read.
            if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")))
                failure = q.lastError();
            else if (!readOnly)
                q.exec(QStringLiteral("PRAGMA query_only = 1")); // a read connection never writes
        }
        if (!failure.isValid())
            return QSqlError();
        d = QSqlDatabase();
        QSqlDatabase::removeDatabase(name);
        return failure;
    };
    QSqlError e = tryOpen(false);
    if (!e.isValid())
        return true;
    const bool walEmpty = QFileInfo(path + QStringLiteral("-wal")).size() == 0;
    if (readOnly && (primaryCode(e) == kSqliteReadOnly || primaryCode(e) == kSqliteCantOpen) && walEmpty) {
        const QSqlError again = tryOpen(true);
        if (!again.isValid())
            return true;
    }
    *error = QStringLiteral("cannot open %1 for reading: %2").arg(path, describe(e));
    if (readOnly && !walEmpty)
        *error += QStringLiteral(" (its -wal file holds data SQLite cannot read without writing %1-shm beside it; "
                                 "copy the file together with %1-wal to a writable folder)")
                      .arg(path);
    return false;
}

} // namespace

bool RunStore::readConnection(QSqlDatabase* db, QString* error) const
{
    std::lock_guard lock(m_readers->mutex);
    const auto id = std::this_thread::get_id();
    const auto it = m_readers->names.find(id);
    if (it != m_readers->names.end()) {
        *db = QSqlDatabase::database(it->second, false);
        return true;
    }
    const QString name = m_readers->prefix + QString::number(++m_readers->opened);
    QString message;
    if (!openReader(name, m_path, m_options.busyTimeoutMs, m_options.readOnly, &message)) {
        setError(message);
        if (error)
            *error = message;
        return false;
    }
    *db = QSqlDatabase::database(name, false);
    m_readers->names.emplace(id, name);
    auto& mine = t_threadReaders.stores;
    std::erase_if(mine, [](const std::weak_ptr<RunStoreReaders>& w) { return w.expired(); });
    mine.push_back(m_readers);
    return true;
}

QString RunStore::readProblem(QSqlDatabase& db, const QSqlError& e, const QString& what) const
{
    QString message = QStringLiteral("%1: %2: %3").arg(m_path, what, describe(e));
    const int code = primaryCode(e);
    if (code == kSqliteCorrupt || code == kSqliteNotADb) {
        const QString damage = quickCheck(db, 5);
        message += damage.isEmpty() ? QStringLiteral(" (PRAGMA quick_check finds nothing wrong)")
                                    : QStringLiteral("; the file is damaged: %1").arg(damage);
    }
    return message;
}

QString RunStore::quickCheck(QSqlDatabase& db, int maxProblems) const
{
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("PRAGMA quick_check(%1)").arg(std::max(1, maxProblems))))
        return QStringLiteral("PRAGMA quick_check failed: %1").arg(describe(q.lastError()));
    QStringList problems;
    while (q.next()) // SQLite writes one problem per line, several lines per row
        problems << q.value(0).toString().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (q.lastError().isValid())
        problems << describe(q.lastError());
    if (problems == QStringList{QStringLiteral("ok")})
        return {};
    return QStringLiteral("PRAGMA quick_check: %1 — rows on damaged pages cannot be read; `sqlite3 %2 .recover` "
                          "copies what can be saved into a new database")
        .arg(problems.join(QStringLiteral("; ")), m_path);
}

QString RunStore::checkIntegrity(int maxProblems) const
{
    QSqlDatabase db;
    QString error;
    if (!readConnection(&db, &error))
        return error;
    return quickCheck(db, maxProblems);
}

/// Runs a read: prepare, bind, exec, then @p row for each row. Any failure, also part-way
/// (a damaged page met while stepping), sets @p error and lastError() and returns false.
bool RunStore::read(const QString& sql, const QVariantList& values, const QString& what,
                    const std::function<void(const QSqlQuery&)>& row, QString* error) const
{
    if (error)
        error->clear();
    QSqlDatabase db;
    QString message;
    if (!readConnection(&db, &message)) {
        if (error)
            *error = message;
        return false;
    }
    QSqlQuery q(db);
    q.setForwardOnly(true);
    auto failed = [&] {
        const QString m = readProblem(db, q.lastError(), what);
        q.finish();
        setError(m);
        if (error)
            *error = m;
        return false;
    };
    if (!q.prepare(sql))
        return failed();
    for (int i = 0; i < values.size(); ++i)
        q.bindValue(i, values[i]);
    if (!q.exec())
        return failed();
    while (q.next())
        row(q);
    // next() is false at the end and on an error: a damaged page must not look like the end.
    if (q.lastError().isValid())
        return failed();
    return true;
}

namespace {

template <typename SetError>
ExperimentRecord experimentFromRow(const QSqlQuery& q, const QString& path, const SetError& setError)
{
    ExperimentRecord e;
    e.id = q.value(0).toLongLong();
    e.name = q.value(1).toString();
    e.kind = q.value(2).toString();
    QString problem;
    e.spec = parseJson(q.value(3), &problem);
    if (!problem.isEmpty())
        setError(QStringLiteral("%1: experiment %2, spec_json: %3").arg(path).arg(e.id).arg(problem));
    e.created = parseTimestamp(q.value(4));
    e.appVersion = q.value(5).toString();
    e.gitHash = q.value(6).toString();
    return e;
}

template <typename SetError>
RunRecord runFromRow(const QSqlQuery& q, const QString& path, const SetError& setError)
{
    RunRecord r;
    r.id = q.value(0).toLongLong();
    r.experimentId = q.value(1).isNull() ? -1 : q.value(1).toLongLong();
    r.algorithmId = q.value(2).toString();
    r.algorithmName = q.value(3).toString();
    r.pluginId = q.value(4).toString();
    r.pluginVersion = q.value(5).toString();
    QString problem;
    r.params = parseJson(q.value(6), &problem).toVariantMap();
    if (!problem.isEmpty())
        setError(QStringLiteral("%1: run %2, params_json: %3").arg(path).arg(r.id).arg(problem));
    r.dataset = q.value(7).toString();
    bool ok = false;
    r.seed = q.value(8).toString().toULongLong(&ok);
    if (!ok)
        setError(QStringLiteral("%1: run %2, seed \"%3\" is not an unsigned 64-bit integer")
                     .arg(path)
                     .arg(r.id)
                     .arg(q.value(8).toString()));
    r.threads = q.value(9).toInt();
    r.repeat = q.value(10).toInt();
    r.sigma = realOrNaN(q.value(11));
    r.status = runStatusFromName(q.value(12).toString());
    r.error = q.value(13).toString();
    r.started = parseTimestamp(q.value(14));
    r.ended = parseTimestamp(q.value(15));
    problem.clear();
    r.info = parseJson(q.value(16), &problem);
    if (!problem.isEmpty())
        setError(QStringLiteral("%1: run %2, info_json: %3").arg(path).arg(r.id).arg(problem));
    r.appVersion = q.value(17).toString();
    r.tags = RunRecord::splitTags(q.value(18).toString());
    r.note = q.value(19).toString();
    r.owner.host = q.value(20).toString();
    r.owner.bootId = q.value(21).toString();
    r.owner.pid = q.value(22).toLongLong();
    r.owner.startTicks = q.value(23).toLongLong();
    return r;
}

/// Tells live runs from dead ones as rows are read: a run still "running" whose owner process no
/// longer exists is read as Interrupted with the reason. Nothing is written (a read-only store
/// may be reading); the next store opened for writing rewrites the row. One liveness check per
/// owner and read.
class Liveness {
public:
    void judge(RunRecord& r)
    {
        if (r.status != RunStatus::Running)
            return;
        const QString key = QStringLiteral("%1/%2/%3/%4")
                                .arg(r.owner.host, r.owner.bootId)
                                .arg(r.owner.pid)
                                .arg(r.owner.startTicks);
        auto it = m_alive.find(key);
        if (it == m_alive.end())
            it = m_alive.insert(key, r.owner.isAlive());
        if (it.value())
            return;
        r.status = RunStatus::Interrupted;
        r.error = r.owner.deathMessage();
    }

private:
    QHash<QString, bool> m_alive;
};

} // namespace

int RunStore::schemaVersion() const
{
    int version = -1;
    if (!read(QStringLiteral("PRAGMA user_version"), {}, QStringLiteral("cannot read the schema version"),
              [&](const QSqlQuery& q) { version = q.value(0).toInt(); }, nullptr))
        return -1;
    return version;
}

QList<ExperimentRecord> RunStore::experiments(QString* error) const
{
    QList<ExperimentRecord> out;
    const auto onError = [this](const QString& m) { setError(m); };
    read(QStringLiteral("SELECT %1 FROM experiments ORDER BY id").arg(kExperimentColumns), {},
         QStringLiteral("cannot read the experiments"),
         [&](const QSqlQuery& q) { out << experimentFromRow(q, m_path, onError); }, error);
    return out;
}

std::optional<ExperimentRecord> RunStore::experiment(qint64 id, QString* error) const
{
    std::optional<ExperimentRecord> out;
    const auto onError = [this](const QString& m) { setError(m); };
    read(QStringLiteral("SELECT %1 FROM experiments WHERE id = ?").arg(kExperimentColumns), {id},
         QStringLiteral("cannot read experiment %1").arg(id),
         [&](const QSqlQuery& q) { out = experimentFromRow(q, m_path, onError); }, error);
    return out;
}

QList<RunRecord> RunStore::runs(qint64 experimentId, QString* error) const
{
    QList<RunRecord> out;
    const auto onError = [this](const QString& m) { setError(m); };
    Liveness liveness;
    const auto row = [&](const QSqlQuery& q) {
        out << runFromRow(q, m_path, onError);
        liveness.judge(out.last());
    };
    if (experimentId < 0)
        read(QStringLiteral("SELECT %1 FROM runs ORDER BY id").arg(kRunColumns), {},
             QStringLiteral("cannot read the runs"), row, error);
    else
        read(QStringLiteral("SELECT %1 FROM runs WHERE experiment_id = ? ORDER BY id").arg(kRunColumns),
             {experimentId}, QStringLiteral("cannot read the runs of experiment %1").arg(experimentId), row, error);
    return out;
}

const QStringList& RunStore::listingFacts()
{
    static const QStringList keys{QStringLiteral("final"), QStringLiteral("peak_memory_bytes"), QStringLiteral("cells"),
                                  QStringLiteral("cells_finished"), QStringLiteral("plugin_replaces")};
    return keys;
}

QList<RunRecord> RunStore::runListing(QString* error, int part, int parts) const
{
    // The listing's columns: parameters left out, the facts picked out by SQLite (json_patch into
    // an empty object drops the keys a run does not have). Invalid JSON is passed through whole so
    // that runFromRow() reports it for that row instead of the whole query failing.
    QStringList pairs;
    for (const QString& key : listingFacts())
        pairs << QStringLiteral("'%1', json_extract(info_json, '$.%1')").arg(key);
    const QString info = QStringLiteral("CASE WHEN json_valid(info_json) THEN json_patch('{}', json_object(%1)) "
                                        "ELSE info_json END")
                             .arg(pairs.join(QStringLiteral(", ")));
    QString columns = kRunColumns;
    columns.replace(QStringLiteral("params_json"), QStringLiteral("'{}'"));
    columns.replace(QStringLiteral("info_json"), info);
    QList<RunRecord> out;
    const auto onError = [this](const QString& m) { setError(m); };
    Liveness liveness;
    const bool split = parts > 1;
    read(QStringLiteral("SELECT %1 FROM runs %2 ORDER BY id")
             .arg(columns, split ? QStringLiteral("WHERE id % ? = ?") : QString()),
         split ? QVariantList{parts, part} : QVariantList{}, QStringLiteral("cannot read the runs"),
         [&](const QSqlQuery& q) {
             out << runFromRow(q, m_path, onError);
             liveness.judge(out.last());
         },
         error);
    return out;
}

QHash<qint64, QJsonObject> RunStore::runParameters(QString* error) const
{
    QHash<qint64, QJsonObject> out;
    read(QStringLiteral("SELECT id, params_json FROM runs"), {}, QStringLiteral("cannot read the runs' parameters"),
         [&](const QSqlQuery& q) {
             QString problem;
             const qint64 id = q.value(0).toLongLong();
             QJsonObject params = parseJson(q.value(1), &problem);
             if (!problem.isEmpty())
                 setError(QStringLiteral("%1: run %2, params_json: %3").arg(m_path).arg(id).arg(problem));
             else
                 out.insert(id, std::move(params));
         },
         error);
    return out;
}

std::optional<RunRecord> RunStore::run(qint64 id, QString* error) const
{
    std::optional<RunRecord> out;
    const auto onError = [this](const QString& m) { setError(m); };
    read(QStringLiteral("SELECT %1 FROM runs WHERE id = ?").arg(kRunColumns), {id},
         QStringLiteral("cannot read run %1").arg(id), [&](const QSqlQuery& q) { out = runFromRow(q, m_path, onError); },
         error);
    if (out)
        Liveness().judge(*out);
    return out;
}

QVector<MetricPoint> RunStore::metrics(qint64 runId, QString* error) const
{
    QVector<MetricPoint> out;
    read(QStringLiteral("SELECT seq, epoch, train_time_s, loss, train_acc, test_acc, train_rmse, test_rmse, val_acc, "
                        "val_rmse FROM metrics WHERE run_id = ? ORDER BY seq"),
         {runId}, QStringLiteral("cannot read the checkpoints of run %1").arg(runId),
         [&](const QSqlQuery& q) {
             MetricPoint p;
             p.seq = q.value(0).toInt();
             p.epoch = realOrNaN(q.value(1));
             p.trainTime = realOrNaN(q.value(2));
             p.loss = realOrNaN(q.value(3));
             p.trainAccuracy = realOrNaN(q.value(4));
             p.testAccuracy = realOrNaN(q.value(5));
             p.trainRmse = realOrNaN(q.value(6));
             p.testRmse = realOrNaN(q.value(7));
             p.validationAccuracy = realOrNaN(q.value(8));
             p.validationRmse = realOrNaN(q.value(9));
             out << p;
         },
         error);
    return out;
}

QList<SummaryPoint> RunStore::summaryPoints(qint64 experimentId, QString* error) const
{
    QList<SummaryPoint> out;
    read(QStringLiteral("SELECT %1 FROM sweep_points WHERE experiment_id = ? ORDER BY id").arg(kSweepColumns),
         {experimentId}, QStringLiteral("cannot read the sweep points of experiment %1").arg(experimentId),
         [&](const QSqlQuery& q) {
             SummaryPoint p;
             p.algorithmId = q.value(0).toString();
             p.algorithmName = q.value(1).toString();
             p.x = realOrNaN(q.value(2));
             p.count = q.value(3).toInt();
             p.trainRmseMean = realOrNaN(q.value(4));
             p.trainRmseStd = realOrNaN(q.value(5));
             p.testRmseMean = realOrNaN(q.value(6));
             p.testRmseStd = realOrNaN(q.value(7));
             out << p;
         },
         error);
    return out;
}

QString RunStore::lastError() const
{
    std::lock_guard lock(m_errorMutex);
    return m_lastError;
}

QString RunStore::failure() const
{
    std::lock_guard lock(m_errorMutex);
    return m_failure;
}

void RunStore::setError(const QString& message) const
{
    std::lock_guard lock(m_errorMutex);
    m_lastError = message;
}

void RunStore::recordFailure(const QString& message)
{
    {
        std::lock_guard lock(m_errorMutex);
        m_lastError = message;
        if (m_failure.isEmpty())
            m_failure = message;
    }
    Q_EMIT writeFailed(message);
}

} // namespace tb
