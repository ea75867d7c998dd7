#pragma once
/// @file StoreWriter.h
/// The run store's single writer: one SQLite connection on its own thread, fed by a queue.

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QStringList>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace tb {

/// Executes write operations in batched transactions on a private thread (internal to RunStore).
///
/// Operations run in the order they were posted (one FIFO across all callers), so an operation
/// posted after another by the same thread sees its effects; only call(…, AheadOfQueued) may pass
/// queued operations (so that inserting a run need not wait for a batch of checkpoints). Asynchronous writes
/// gather for up to batchMs (or until batchOps are queued, or someone calls call() or flush()); then one
/// transaction, begun with `BEGIN IMMEDIATE`, takes the queue and commits when it is drained,
/// after batchMs, after batchOps operations, or right after an operation a caller waits for.
/// A process that dies therefore loses at most the last ~batchMs of unflushed writes.
///
/// Errors never throw: an operation that violates a constraint fails alone and the batch goes
/// on; a batch that meets a lock held by another connection is rolled back and retried, each try
/// waiting up to sliceMs in SQLite's busy handler, until busyTimeoutMs have passed since its first
/// try; then it is dropped. After waitNoticeMs of waiting the wait callback is told (and told
/// again when the wait ends), so a user learns why nothing moves. Other
/// I/O errors (disk full, read-only file, damaged file) drop the batch at once. Every failure is
/// reported through the error callback, on the writer thread.
class StoreWriter {
public:
    struct Config {
        QString path;           ///< database file
        QString connectionName; ///< unique QSqlDatabase connection name
        int busyTimeoutMs = 30000; ///< longest a batch waits for another connection's write lock
        int waitNoticeMs = 1000;   ///< waiting longer than this is reported through the wait callback
        int sliceMs = 250;         ///< SQLite busy timeout of one try (≤ busyTimeoutMs)
        int batchMs = 100;   ///< longest a transaction keeps collecting operations
        int batchOps = 5000; ///< most operations per transaction
    };

    /// What an operation sees: the connection, prepared statements cached for the connection's
    /// life, and a way to report a failure.
    class Context {
    public:
        QSqlDatabase& db() { return m_db; }
        /// A statement prepared once per connection and reused; call bindValue/exec on it.
        /// Returns nullptr after reporting the error if the SQL does not prepare.
        QSqlQuery* prepared(const QString& sql);
        /// Runs @p q; on failure reports "<what>: <sqlite message>" and returns false. A failure
        /// of the database itself (busy, disk full, I/O) also aborts the whole batch.
        bool exec(QSqlQuery& q, const QString& what);
        /// Runs a transaction-control statement (BEGIN, COMMIT); any failure aborts the batch.
        bool control(const QString& sql, const QString& what);
        /// Reports an error of this operation (the batch goes on).
        void fail(const QString& message);

    private:
        friend class StoreWriter;
        explicit Context(QSqlDatabase& db) : m_db(db) {}
        QSqlDatabase& m_db;
        std::map<QString, QSqlQuery> m_cache; ///< node-based: pointers stay valid
        QString m_fatal;                      ///< set: the batch must roll back
        bool m_retryable = false;             ///< the fatal error was "busy"/"locked"
        int m_fatalCode = 0;                  ///< SQLite's primary code of the fatal error
        QStringList m_errors;                 ///< operation errors of the current attempt
    };

    /// An operation returns a result for callers that wait (e.g. a new row id), −1 on failure.
    using Op = std::function<qint64(Context&)>;
    /// Runs once on the writer thread after the connection opened; false + message aborts start().
    using Init = std::function<bool(QSqlDatabase&, QString* error)>;
    /// Called on the writer thread with each failure message.
    using ErrorHandler = std::function<void(const QString&)>;
    /// Called on the writer thread when a write starts waiting for a lock (@p waiting true, a
    /// message saying so) and when that wait ends (@p waiting false; a message when the write went
    /// through, empty when it failed: the error callback then says why).
    using WaitHandler = std::function<void(const QString& message, bool waiting)>;

    StoreWriter(Config config, ErrorHandler onError, WaitHandler onWait = {});
    /// Drains the queue, closes the connection and joins the thread.
    ~StoreWriter();
    StoreWriter(const StoreWriter&) = delete;
    StoreWriter& operator=(const StoreWriter&) = delete;

    /// Starts the thread, opens the connection, runs @p init; blocks until done.
    bool start(const Init& init, QString* error);

    /// Queues @p op and returns at once (thread-safe; never waits for disk).
    void post(Op op);
    /// Where call() queues its operation.
    enum class Order {
        InOrder,      ///< after everything queued before (FIFO)
        AheadOfQueued ///< before queued post()ed operations, for inserts that depend on none of them
    };
    /// Queues @p op and waits until its transaction committed; its result, or −1 if it failed or
    /// its batch was dropped (thread-safe; must not be called from inside an operation).
    qint64 call(Op op, Order order = Order::InOrder);
    /// Waits until everything queued before the call has been committed or dropped. False on
    /// timeout or if a write failed since the previous flush() returned (thread-safe; with
    /// concurrent flushes one of them reports a failure). @p timeoutMs < 0 waits forever.
    bool flush(int timeoutMs);
    /// Drains the queue and stops the thread; idempotent.
    void stop();

    /// Failures reported so far (thread-safe).
    std::uint64_t errorCount() const;

private:
    struct Entry {
        Op op;
        std::uint64_t ticket = 0;
        std::shared_ptr<std::promise<qint64>> waiter;
        qint64 result = -1;
    };

    void threadMain(const Init& init, std::promise<QString>& started);
    bool waitForWork();
    void enqueue(Op op, std::shared_ptr<std::promise<qint64>> waiter, bool ahead); ///< m_mutex held
    void runBatch(Context& ctx);
    bool takeNext(Entry* out);
    void complete(std::deque<Entry>& batch, bool committed);
    void report(const QString& message);

    Config m_config;
    ErrorHandler m_onError;
    WaitHandler m_onWait;
    std::thread m_thread;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake; ///< writer waits for work
    std::condition_variable m_done; ///< flushers wait for m_completed
    std::deque<Entry> m_queue;      ///< FIFO of everything else
    std::deque<Entry> m_ahead;      ///< call(…, AheadOfQueued): taken first
    std::uint64_t m_posted = 0;     ///< tickets handed out
    std::uint64_t m_completed = 0;  ///< highest ticket committed or dropped
    std::uint64_t m_urgent = 0;     ///< commit up to this ticket without waiting for batchMs
    std::chrono::steady_clock::time_point m_firstPending; ///< when the queue last became non-empty
    std::uint64_t m_errors = 0;
    std::uint64_t m_errorsSeenByFlush = 0; ///< m_errors when a flush() last returned
    bool m_stopping = false;
    bool m_running = false;
};

} // namespace tb
