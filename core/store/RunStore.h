#pragma once
/// @file RunStore.h
/// Every experiment, run, checkpoint and sweep point, logged to one SQLite file.

#include "RunLog.h"
#include "RunTypes.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

class QSqlDatabase;
class QSqlError;
class QSqlQuery;

namespace tb {

class StoreWriter;
struct RunStoreReaders;

/// The run store: experiments, runs, metrics and noise-sweep points in one SQLite file.
///
/// Writes go through one writer connection on a private thread fed by a queue, in batched
/// transactions (see StoreWriter): appendMetric(), finishRun(), setRunInfo() and addSummaryPoint()
/// only enqueue and return at once; createExperiment(), createRun() and the deletes wait for their
/// commit because they return a result. Operations are applied in the order they were called, so a
/// run's finishRun() lands after the metrics appended before it — except that createExperiment()
/// and createRun(), which depend on no queued write, pass queued asynchronous writes instead of
/// waiting for them to commit. Queued writes are committed within ~100 ms (Options::batchMs). Reads use one
/// read connection per calling thread and see what has been committed: call flush() first to include queued
/// writes. Every public method is thread-safe and may be called from any thread concurrently.
///
/// The file is in WAL mode, so several processes may share it. A write that meets another
/// connection's lock waits up to Options::busyTimeoutMs (SQLite's busy timeout, in slices) and
/// says so through waiting() after Options::waitNoticeMs. Opening it marks every run left
/// "running" by a process that no longer exists as "interrupted"; runs that another live process
/// is training are left alone (see RunStoreOwner). Reads tell live runs from dead ones too, at
/// the moment they read: runs() and run() return a run still "running" in the file whose owner
/// (RunRecord::owner) has died since — killed while this store was open, or read by a read-only
/// store, which never writes — as Interrupted with the reason, and leave the row to the next
/// store opened for writing. A file of a newer schema, a non-SQLite file or
/// another application's database is refused and never modified. A file that cannot be written
/// (read-only file or folder) is refused when opened for writing, with a message saying so; open
/// it with Options::readOnly to list and export it.
///
/// Write errors (disk full, database locked longer than the busy timeout, a damaged file, a metric
/// for an unknown run) never throw or crash: the failing write is dropped, lastError() keeps the
/// message, failure() keeps the first one, and writeFailed() is emitted (from the writer thread:
/// connect with a queued connection to touch widgets, or directly to request a stop). Callers that
/// must not lose data (ExperimentRunner) stop when it is emitted and keep their results in memory.
///
/// Reads report problems through their optional @p error argument (and lastError()): a read that
/// fails part-way returns what it read and an error; when SQLite finds the file damaged the
/// message adds what `PRAGMA quick_check` says, so a damaged file is never shown as a shorter one.
class RunStore : public QObject, public RunLog {
    Q_OBJECT
public:
    /// Tuning of open(); the defaults suit interactive use.
    struct Options {
        int busyTimeoutMs = 30000; ///< longest a write waits for another process's lock, ≥ 0
        int waitNoticeMs = 1000;   ///< waiting longer than this emits waiting(), ≥ 0
        int batchMs = 100;         ///< longest queued writes wait before a commit, ≥ 1 ms
        int batchOps = 5000;       ///< most operations per write transaction, ≥ 1
        /// Open for reading only (default false): the file must exist; nothing is created,
        /// migrated or recovered, every write fails; works in a read-only folder.
        bool readOnly = false;
        /// Told when open() waits for another connection's write lock longer than waitNoticeMs
        /// ("… is locked by another connection; waiting up to 30 s to open it"), and again when
        /// that wait ends in time. Called on the store's writer thread while open() blocks; the
        /// waiting() signal cannot say it, as nothing is connected to a store not yet returned.
        std::function<void(const QString&)> onOpenWait;
    };

    /// Opens @p path, creating the file and its folders if missing, and brings an older schema up
    /// to date. Returns nullptr and a message in @p error (may be null) if the file cannot be
    /// opened or written, is not SQLite, is another application's database or has a newer schema.
    static std::unique_ptr<RunStore> open(const QString& path, QString* error);
    /// As open(path, error) with explicit options.
    static std::unique_ptr<RunStore> open(const QString& path, const Options& options, QString* error);

    /// The default file: `<generic data location>/trainbench/runs.sqlite`, i.e. the app-data
    /// location of an application named "trainbench" (~/.local/share/trainbench on Linux) whatever
    /// the calling program's name, so the GUI and the CLI share it.
    static QString defaultPath();

    /// Flushes every queued write (waiting as long as that takes), marks the runs this store
    /// created that are still "running" as "interrupted", and stops the writer thread.
    ~RunStore() override;

    /// Absolute path of the file.
    QString path() const { return m_path; }
    /// Schema version of the file (PRAGMA user_version), −1 if it cannot be read.
    int schemaVersion() const;
    /// Runs of dead processes this open() marked "interrupted".
    int interruptedOnOpen() const { return m_interruptedOnOpen; }
    /// True when opened with Options::readOnly.
    bool isReadOnly() const { return m_options.readOnly; }

    /// Inserts @p e and returns its id, −1 on failure (see lastError()). Waits for the commit.
    /// An invalid `created` is stored as now; empty appVersion / gitHash as this build's.
    qint64 createExperiment(const ExperimentRecord& e);
    /// Queues the insert of @p r (its id is ignored) owned by this process and returns its id, −1
    /// when no id could be had. The id comes from a block this store reserved in the file
    /// (sqlite_sequence raised in one committed transaction: no other connection, in this process
    /// or another, can be given it, and it is never reused), so the row is written with the
    /// batch of the run's other writes instead of a commit of its own: a tuning of 200 trials of a
    /// few milliseconds each spent a fifth of its training time in per-run commits. Like every
    /// queued write, the row is visible to reads after the next commit (flush() waits for it), and
    /// an insert that fails later is reported through writeFailed(). Blocks start at
    /// kFirstIdBlock ids and double up to kMaxIdBlock as runs are created; the ids a store did not
    /// use are given back when it closes if no one reserved after it (otherwise they stay unused:
    /// ids may have gaps, as after deletes). experimentId −1 stores no experiment; an invalid
    /// `started` is stored as now; an empty appVersion as this build's.
    qint64 createRun(const RunRecord& r) override;
    /// Ids of the first block a store reserves, and the most of any later one.
    static constexpr qint64 kFirstIdBlock = 4, kMaxIdBlock = 256;
    /// Queues one checkpoint of @p runId; returns without waiting for disk. NaN values are stored
    /// as NULL and read back as NaN; ±Inf are kept.
    void appendMetric(qint64 runId, const MetricPoint& p) override;
    /// Queues the end of a run: status, error message, `ended` = now, and @p info merged into the
    /// run's info (keys of @p info replace existing ones). Applied after the run's earlier metrics.
    /// A run's status and its rows are one truth: a run ended as Finished whose checkpoints this
    /// store was given are not all stored (a batch of them was lost to a lock or a full disk) is
    /// stored as Failed, saying how many are missing, so that --resume trains it again.
    void finishRun(qint64 runId, RunStatus status, const QString& error = {}, const QJsonObject& info = {}) override;
    /// Queues a merge of @p info into the run's info (keys of @p info replace existing ones).
    void setRunInfo(qint64 runId, const QJsonObject& info);
    /// Claims experiment @p id for this process, in one transaction: it fails while another live
    /// process holds the claim (running or resuming it), with that process in @p holder ("pid 1234
    /// on host-a"); a claim whose process has died is taken over. createExperiment() leaves a new
    /// one unclaimed (a copy of results is nobody's run): ExperimentRunner claims what it runs.
    /// Returns false with @p holder empty when the write failed.
    bool claimExperiment(qint64 id, QString* holder);
    /// Gives up this process's claim of experiment @p id (queued; a claim of another process is left).
    void releaseExperiment(qint64 id);
    /// Queues one point of a noise sweep.
    void addSummaryPoint(qint64 experimentId, const SummaryPoint& p);
    /// Deletes an experiment with its runs, metrics and sweep points; waits. False if there was no
    /// such experiment or the delete failed.
    bool deleteExperiment(qint64 id);
    /// Deletes a run with its metrics; waits. False if there was no such run or the delete failed.
    bool deleteRun(qint64 id);
    /// Deletes the noise-sweep points of experiment @p id (a resumed sweep writes them again);
    /// waits. False if the delete failed (lastError()); true also when there were none.
    bool deleteSummaryPoints(qint64 experimentId);
    /// Replaces the tags (trimmed, empty ones dropped, duplicates once) and the note of run @p id;
    /// waits for the commit. False if there is no such run or the write failed (lastError()).
    bool setRunNotes(qint64 id, const QStringList& tags, const QString& note);
    /// Waits until every write queued before the call is committed. False if @p timeoutMs
    /// (default 30 s; < 0: no limit) passed first, or if a write failed since the previous flush()
    /// returned (then lastError() says which; with concurrent flushes one of them reports it).
    bool flush(int timeoutMs = 30000);

    // Reads. Each sets @p error (when given) to a message naming the file and the cause if the
    // read failed, also part-way, and leaves it empty otherwise; what was read is returned.

    /// All experiments, oldest first.
    QList<ExperimentRecord> experiments(QString* error = nullptr) const;
    /// nullopt when there is no such experiment (error empty) or the read failed (error set).
    std::optional<ExperimentRecord> experiment(qint64 id, QString* error = nullptr) const;
    /// Runs of one experiment, or of all when @p experimentId is −1; oldest first.
    QList<RunRecord> runs(qint64 experimentId = -1, QString* error = nullptr) const;
    std::optional<RunRecord> run(qint64 id, QString* error = nullptr) const;
    /// Every run the way a list of tens of thousands shows it, oldest first: each RunRecord without
    /// its parameters (params empty) and with only the facts of listingFacts() in its info (SQLite
    /// picks them out of the stored JSON; a row whose info is not valid JSON comes whole, reported
    /// as runs() reports it). Run statuses are judged as runs() judges them. The whole record is
    /// run(id). What the run browser reads: a fraction of runs()'s time and memory. With @p parts
    /// > 1 only the runs whose id modulo @p parts is @p part: parts read on several threads at once.
    QList<RunRecord> runListing(QString* error = nullptr, int part = 0, int parts = 1) const;
    /// The info keys runListing() keeps.
    static const QStringList& listingFacts();
    /// The parameters of every run, by run id, as stored (JSON objects): what a filter on parameters
    /// reads beside runListing(). A row whose parameters are not valid JSON is left out and reported.
    QHash<qint64, QJsonObject> runParameters(QString* error = nullptr) const;
    /// Checkpoints of one run in seq order.
    QVector<MetricPoint> metrics(qint64 runId, QString* error = nullptr) const;
    /// Sweep points of one experiment in insertion order.
    QList<SummaryPoint> summaryPoints(qint64 experimentId, QString* error = nullptr) const;

    /// `PRAGMA quick_check` of the file: empty when it is sound, else SQLite's first problems
    /// (at most @p maxProblems) and a hint on recovering the rest. Reads the whole file.
    QString checkIntegrity(int maxProblems = 5) const;

    /// The most recent error of a write or a read, empty if none yet.
    QString lastError() const;
    /// The first write that failed since open(), empty while none did (thread-safe).
    QString failure() const;

Q_SIGNALS:
    /// A queued write failed; emitted on the writer thread.
    void writeFailed(const QString& message);
    /// A write waits for another process's lock (@p waiting true; @p message says so and for how
    /// long it may wait), or that wait ended (@p waiting false; @p message says the write went
    /// through, or is empty when it failed: writeFailed() follows). Emitted on the writer thread.
    void waiting(const QString& message, bool waiting);

private:
    RunStore(const QString& path, const Options& options);
    bool start(QString* error);
    bool initialise(QSqlDatabase& db, QString* error);
    int recoverInterrupted(QSqlDatabase& db, QString* error);
    void setError(const QString& message) const;
    void recordFailure(const QString& message);
    bool probeWrite(QSqlDatabase& db, QString* error);
    /// Runs @p sql, which takes the write lock, on @p q (a query of @p db), trying again while another connection
    /// holds it (one try waits one slice) and saying so through Options::onOpenWait.
    bool execWaitingAtOpen(QSqlDatabase& db, QSqlQuery& q, const QString& sql);
    bool startReadOnly(QString* error);
    /// This thread's read connection, opened on first use.
    bool readConnection(QSqlDatabase* db, QString* error = nullptr) const;
    bool read(const QString& sql, const QVariantList& values, const QString& what,
              const std::function<void(const QSqlQuery&)>& row, QString* error) const;
    QString readProblem(QSqlDatabase& db, const QSqlError& e, const QString& what) const;
    QString quickCheck(QSqlDatabase& db, int maxProblems) const;
    /// Reports a write refused because the store is read-only; returns −1.
    qint64 refuseWrite(const QString& what);
    /// The next run id of this store's reserved block, reserving a new block when it is spent;
    /// −1 when the reservation failed (reported).
    qint64 takeRunId();

    QString m_path;
    Options m_options;
    QString m_token; ///< unique per RunStore: names connections, tags the runs it creates
    int m_interruptedOnOpen = 0;
    std::unique_ptr<StoreWriter> m_writer;
    std::shared_ptr<RunStoreReaders> m_readers;
    mutable std::mutex m_errorMutex;
    /// Per run: the checkpoints appendMetric() was given, until finishRun() checks them.
    std::mutex m_appendedMutex;
    std::unordered_map<qint64, qint64> m_appended;
    /// Run ids reserved in the file and not yet used: (m_nextRunId − 1, m_lastRunId], guarded by
    /// m_idMutex; m_idBlock is the size of the next reservation.
    std::mutex m_idMutex;
    qint64 m_nextRunId = 0, m_lastRunId = -1, m_idBlock = kFirstIdBlock;
    mutable QString m_lastError;
    QString m_failure; ///< guarded by m_errorMutex
};

} // namespace tb
