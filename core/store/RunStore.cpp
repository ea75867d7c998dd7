#include "RunStore.h"

#include "RunStoreOwner.h"
#include "StoreSchema.h"
#include "StoreWriter.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUuid>

#include <thread>
#include <unordered_map>
#include <vector>

#ifndef TB_APP_VERSION
#define TB_APP_VERSION "unknown"
#endif
#ifndef TB_GIT_HASH
#define TB_GIT_HASH "unknown"
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
    return v.isNull() ? QDateTime() : QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
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
    "threads, repeat, sigma, status, error, started, ended, info_json, app_version, tags, note");
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
    if (!QDir().mkpath(folder))
        return fail(QStringLiteral("cannot create the folder %1 for the run store").arg(folder));

    // Judge the file from its header before SQLite touches it: a refused file stays byte-identical.
    const StoreSchema::Header header = StoreSchema::readHeader(absolute);
    if (!header.problem.isEmpty())
        return fail(header.problem);

    Options o = options;
    o.busyTimeoutMs = std::max(0, o.busyTimeoutMs);
    o.batchMs = std::max(1, o.batchMs);
    o.batchOps = std::max(1, o.batchOps);
    o.attempts = std::max(1, o.attempts);
    std::unique_ptr<RunStore> store(new RunStore(absolute, o));
    QString message;
    if (!store->start(&message))
        return fail(message);
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
    config.batchMs = m_options.batchMs;
    config.batchOps = m_options.batchOps;
    config.attempts = m_options.attempts;
    m_writer = std::make_unique<StoreWriter>(config, [this](const QString& message) {
        setError(message);
        Q_EMIT writeFailed(message);
    });
    if (m_writer->start([this](QSqlDatabase& db, QString* e) { return initialise(db, e); }, error))
        return true;
    m_writer.reset();
    return false;
}

bool RunStore::initialise(QSqlDatabase& db, QString* error)
{
    QSqlQuery q(db);
    auto sqlFailed = [&](const QString& what) {
        *error = QStringLiteral("%1: %2: %3")
                     .arg(m_path, what,
                          q.lastError().databaseText().isEmpty() ? q.lastError().text()
                                                                 : q.lastError().databaseText());
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
        !readInt(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table'"), &tables))
        return sqlFailed(QStringLiteral("cannot read the database (it was not modified)"));
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
    if (!q.exec(QStringLiteral("PRAGMA foreign_keys = ON")))
        return sqlFailed(QStringLiteral("cannot enable foreign keys"));
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
    if (!q.exec(QStringLiteral("BEGIN IMMEDIATE")))
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

    const int interrupted = recoverInterrupted(db, error);
    if (interrupted < 0)
        return false;
    m_interruptedOnOpen = interrupted;
    return true;
}

int RunStore::recoverInterrupted(QSqlDatabase& db, QString* error)
{
    QSqlQuery q(db);
    auto failed = [&](const QString& what) {
        *error = QStringLiteral("%1: %2: %3").arg(m_path, what, q.lastError().text());
        q.exec(QStringLiteral("ROLLBACK"));
        return -1;
    };
    if (!q.exec(QStringLiteral("BEGIN IMMEDIATE")))
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
            q->bindValue(5, e.gitHash.isEmpty() ? QStringLiteral(TB_GIT_HASH) : e.gitHash);
            if (!ctx.exec(*q, QStringLiteral("cannot create experiment \"%1\"").arg(e.name)))
                return -1;
            return q->lastInsertId().toLongLong();
        },
        StoreWriter::Order::AheadOfQueued); // a new row depends on no queued write
}

qint64 RunStore::createRun(const RunRecord& r)
{
    const QString token = m_token;
    return m_writer->call(
        [r, token](StoreWriter::Context& ctx) -> qint64 {
            QSqlQuery* q = ctx.prepared(QStringLiteral(
                "INSERT INTO runs (experiment_id, algorithm_id, algorithm_name, plugin_id, plugin_version, "
                "params_json, dataset, seed, threads, repeat, sigma, status, error, started, ended, "
                "info_json, "
                "app_version, owner_host, owner_boot, owner_pid, owner_start, owner_token) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
            if (!q)
                return -1;
            const RunStoreOwner& me = RunStoreOwner::current();
            int i = 0;
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
            q->bindValue(i++, r.started.isValid() ? timestamp(r.started) : QVariant(nowText()));
            q->bindValue(i++, timestamp(r.ended));
            q->bindValue(i++, jsonText(r.info));
            q->bindValue(i++, r.appVersion.isEmpty() ? QStringLiteral(TB_APP_VERSION) : r.appVersion);
            q->bindValue(i++, text(me.host));
            q->bindValue(i++, text(me.bootId));
            q->bindValue(i++, me.pid);
            q->bindValue(i++, me.startTicks);
            q->bindValue(i++, token);
            if (!ctx.exec(*q, QStringLiteral("cannot create a run of %1").arg(r.algorithmId)))
                return -1;
            return q->lastInsertId().toLongLong();
        },
        StoreWriter::Order::AheadOfQueued); // a new row depends on no queued write
}

void RunStore::appendMetric(qint64 runId, const MetricPoint& p)
{
    m_writer->post([runId, p](StoreWriter::Context& ctx) -> qint64 {
        QSqlQuery* q =
            ctx.prepared(QStringLiteral("INSERT INTO metrics (run_id, seq, epoch, train_time_s, loss, "
                                        "train_acc, test_acc, train_rmse, test_rmse) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
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
        return ctx.exec(*q, QStringLiteral("cannot append checkpoint %1 to run %2").arg(p.seq).arg(runId))
                   ? 0
                   : -1;
    });
}

void RunStore::finishRun(qint64 runId, RunStatus status, const QString& error, const QJsonObject& info)
{
    const QString ended = nowText(); // the caller's moment, not the commit's
    m_writer->post([runId, status, error, info, ended](StoreWriter::Context& ctx) -> qint64 {
        const QString what = QStringLiteral("cannot finish run %1").arg(runId);
        const std::optional<QJsonObject> merged = mergedInfo(ctx, runId, info, what);
        if (!merged)
            return -1;
        QSqlQuery* q = ctx.prepared(
            QStringLiteral("UPDATE runs SET status = ?, error = ?, ended = ?, info_json = ? WHERE id = ?"));
        if (!q)
            return -1;
        q->bindValue(0, runStatusName(status));
        q->bindValue(1, text(error));
        q->bindValue(2, ended);
        q->bindValue(3, jsonText(*merged));
        q->bindValue(4, runId);
        return ctx.exec(*q, what) ? 0 : -1;
    });
}

void RunStore::setRunInfo(qint64 runId, const QJsonObject& info)
{
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

void RunStore::addSweepPoint(qint64 experimentId, const SweepPoint& p)
{
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
        q->bindValue(3, real(p.sigma));
        q->bindValue(4, p.monteCarlo);
        q->bindValue(5, real(p.trainRmseMean));
        q->bindValue(6, real(p.trainRmseStd));
        q->bindValue(7, real(p.testRmseMean));
        q->bindValue(8, real(p.testRmseStd));
        return ctx.exec(*q, QStringLiteral("cannot add the sweep point σ=%1 of %2 to experiment %3")
                                .arg(p.sigma)
                                .arg(p.algorithmId)
                                .arg(experimentId))
                   ? 0
                   : -1;
    });
}

bool RunStore::deleteExperiment(qint64 id)
{
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
    return m_writer->flush(timeoutMs);
}

// ---------------------------------------------------------------------------------------------
// Reads

bool RunStore::readConnection(QSqlDatabase* db) const
{
    std::lock_guard lock(m_readers->mutex);
    const auto id = std::this_thread::get_id();
    const auto it = m_readers->names.find(id);
    if (it != m_readers->names.end()) {
        *db = QSqlDatabase::database(it->second, false);
        return true;
    }
    const QString name = m_readers->prefix + QString::number(++m_readers->opened);
    {
        QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        d.setDatabaseName(m_path);
        d.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_options.busyTimeoutMs));
        if (!d.open()) {
            setError(QStringLiteral("cannot open %1 for reading: %2").arg(m_path, d.lastError().text()));
            d = QSqlDatabase();
            QSqlDatabase::removeDatabase(name);
            return false;
        }
        QSqlQuery(d).exec(QStringLiteral("PRAGMA query_only = 1")); // a read connection never writes
        *db = d;
    }
    m_readers->names.emplace(id, name);
    auto& mine = t_threadReaders.stores;
    std::erase_if(mine, [](const std::weak_ptr<RunStoreReaders>& w) { return w.expired(); });
    mine.push_back(m_readers);
    return true;
}

namespace {

/// Prepares and runs a read; false after recording the error.
template <typename SetError>
bool runRead(QSqlQuery& q, const QString& sql, const QVariantList& values, const SetError& setError)
{
    q.setForwardOnly(true);
    if (!q.prepare(sql)) {
        setError(QStringLiteral("cannot prepare \"%1\": %2").arg(sql, q.lastError().text()));
        return false;
    }
    for (int i = 0; i < values.size(); ++i)
        q.bindValue(i, values[i]);
    if (!q.exec()) {
        setError(QStringLiteral("cannot read (%1): %2").arg(sql, q.lastError().text()));
        return false;
    }
    return true;
}

} // namespace

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
    return r;
}

} // namespace

int RunStore::schemaVersion() const
{
    QSqlDatabase db;
    if (!readConnection(&db))
        return -1;
    QSqlQuery q(db);
    if (!runRead(q, QStringLiteral("PRAGMA user_version"), {}, [this](const QString& m) { setError(m); }) ||
        !q.next())
        return -1;
    return q.value(0).toInt();
}

QList<ExperimentRecord> RunStore::experiments() const
{
    QList<ExperimentRecord> out;
    QSqlDatabase db;
    if (!readConnection(&db))
        return out;
    QSqlQuery q(db);
    if (!runRead(q, QStringLiteral("SELECT %1 FROM experiments ORDER BY id").arg(kExperimentColumns), {},
                 [this](const QString& m) { setError(m); }))
        return out;
    while (q.next())
        out << experimentFromRow(q, m_path, [this](const QString& m) { setError(m); });
    return out;
}

std::optional<ExperimentRecord> RunStore::experiment(qint64 id) const
{
    QSqlDatabase db;
    if (!readConnection(&db))
        return std::nullopt;
    QSqlQuery q(db);
    const auto onError = [this](const QString& m) { setError(m); };
    if (!runRead(q, QStringLiteral("SELECT %1 FROM experiments WHERE id = ?").arg(kExperimentColumns), {id},
                 onError) ||
        !q.next())
        return std::nullopt;
    return experimentFromRow(q, m_path, onError);
}

QList<RunRecord> RunStore::runs(qint64 experimentId) const
{
    QList<RunRecord> out;
    QSqlDatabase db;
    if (!readConnection(&db))
        return out;
    QSqlQuery q(db);
    const auto onError = [this](const QString& m) { setError(m); };
    const bool ok =
        experimentId < 0
            ? runRead(q, QStringLiteral("SELECT %1 FROM runs ORDER BY id").arg(kRunColumns), {}, onError)
            : runRead(
                  q,
                  QStringLiteral("SELECT %1 FROM runs WHERE experiment_id = ? ORDER BY id").arg(kRunColumns),
                  {experimentId}, onError);
    if (!ok)
        return out;
    while (q.next())
        out << runFromRow(q, m_path, onError);
    return out;
}

std::optional<RunRecord> RunStore::run(qint64 id) const
{
    QSqlDatabase db;
    if (!readConnection(&db))
        return std::nullopt;
    QSqlQuery q(db);
    const auto onError = [this](const QString& m) { setError(m); };
    if (!runRead(q, QStringLiteral("SELECT %1 FROM runs WHERE id = ?").arg(kRunColumns), {id}, onError) ||
        !q.next())
        return std::nullopt;
    return runFromRow(q, m_path, onError);
}

QVector<MetricPoint> RunStore::metrics(qint64 runId) const
{
    QVector<MetricPoint> out;
    QSqlDatabase db;
    if (!readConnection(&db))
        return out;
    QSqlQuery q(db);
    if (!runRead(q,
                 QStringLiteral(
                     "SELECT seq, epoch, train_time_s, loss, train_acc, test_acc, train_rmse, test_rmse "
                     "FROM metrics WHERE run_id = ? ORDER BY seq"),
                 {runId}, [this](const QString& m) { setError(m); }))
        return out;
    while (q.next()) {
        MetricPoint p;
        p.seq = q.value(0).toInt();
        p.epoch = realOrNaN(q.value(1));
        p.trainTime = realOrNaN(q.value(2));
        p.loss = realOrNaN(q.value(3));
        p.trainAccuracy = realOrNaN(q.value(4));
        p.testAccuracy = realOrNaN(q.value(5));
        p.trainRmse = realOrNaN(q.value(6));
        p.testRmse = realOrNaN(q.value(7));
        out << p;
    }
    return out;
}

QList<SweepPoint> RunStore::sweepPoints(qint64 experimentId) const
{
    QList<SweepPoint> out;
    QSqlDatabase db;
    if (!readConnection(&db))
        return out;
    QSqlQuery q(db);
    if (!runRead(q,
                 QStringLiteral("SELECT %1 FROM sweep_points WHERE experiment_id = ? ORDER BY id")
                     .arg(kSweepColumns),
                 {experimentId}, [this](const QString& m) { setError(m); }))
        return out;
    while (q.next()) {
        SweepPoint p;
        p.algorithmId = q.value(0).toString();
        p.algorithmName = q.value(1).toString();
        p.sigma = realOrNaN(q.value(2));
        p.monteCarlo = q.value(3).toInt();
        p.trainRmseMean = realOrNaN(q.value(4));
        p.trainRmseStd = realOrNaN(q.value(5));
        p.testRmseMean = realOrNaN(q.value(6));
        p.testRmseStd = realOrNaN(q.value(7));
        out << p;
    }
    return out;
}

QString RunStore::lastError() const
{
    std::lock_guard lock(m_errorMutex);
    return m_lastError;
}

void RunStore::setError(const QString& message) const
{
    std::lock_guard lock(m_errorMutex);
    m_lastError = message;
}

} // namespace tb
