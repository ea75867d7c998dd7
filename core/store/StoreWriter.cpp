#include "StoreWriter.h"

#include <QSqlError>

#include <algorithm>
#include <chrono>

namespace tb {

namespace {

/// SQLite primary result code of a Qt SQL error (Qt may report extended codes: the low byte is
/// the primary code).
int primaryCode(const QSqlError& e)
{
    return e.nativeErrorCode().toInt() & 0xff;
}

QString describe(const QSqlError& e)
{
    const QString db = e.databaseText();
    return db.isEmpty() ? e.text() : db;
}

enum class Severity { Statement, Retry, Batch };

/// Constraint and SQL errors concern one statement; busy/locked may pass; anything else (disk
/// full, I/O error, corruption) means the transaction cannot go on.
Severity severity(const QSqlError& e)
{
    switch (primaryCode(e)) {
    case 0:  // not from SQLite (e.g. Qt's parameter binding)
    case 1:  // SQLITE_ERROR: bad SQL, missing table
    case 18: // SQLITE_TOOBIG
    case 19: // SQLITE_CONSTRAINT
    case 20: // SQLITE_MISMATCH
    case 25: // SQLITE_RANGE
        return Severity::Statement;
    case 5: // SQLITE_BUSY
    case 6: // SQLITE_LOCKED
        return Severity::Retry;
    default:
        return Severity::Batch;
    }
}

} // namespace

QSqlQuery* StoreWriter::Context::prepared(const QString& sql)
{
    auto it = m_cache.find(sql);
    if (it != m_cache.end())
        return &it->second;
    QSqlQuery q(m_db);
    if (!q.prepare(sql)) {
        fail(QStringLiteral("cannot prepare \"%1\": %2").arg(sql, describe(q.lastError())));
        return nullptr;
    }
    return &m_cache.emplace(sql, std::move(q)).first->second;
}

bool StoreWriter::Context::exec(QSqlQuery& q, const QString& what)
{
    if (q.exec())
        return true;
    const QSqlError e = q.lastError();
    const QString message = QStringLiteral("%1: %2").arg(what, describe(e));
    const Severity level = severity(e);
    if (level == Severity::Statement) {
        m_errors << message;
    } else if (m_fatal.isEmpty()) {
        m_fatal = message;
        m_retryable = level == Severity::Retry;
        m_fatalCode = primaryCode(e);
    }
    return false;
}

bool StoreWriter::Context::control(const QString& sql, const QString& what)
{
    QSqlQuery q(m_db);
    if (q.exec(sql))
        return true;
    // A transaction that cannot begin or commit fails the whole batch, whatever the code.
    const QSqlError e = q.lastError();
    if (m_fatal.isEmpty()) {
        m_fatal = QStringLiteral("%1: %2").arg(what, describe(e));
        m_retryable = severity(e) == Severity::Retry;
        m_fatalCode = primaryCode(e);
    }
    return false;
}

void StoreWriter::Context::fail(const QString& message)
{
    m_errors << message;
}

StoreWriter::StoreWriter(Config config, ErrorHandler onError, WaitHandler onWait)
    : m_config(std::move(config)), m_onError(std::move(onError)), m_onWait(std::move(onWait))
{
    m_config.busyTimeoutMs = std::max(0, m_config.busyTimeoutMs);
    m_config.sliceMs = std::clamp(m_config.sliceMs, 1, std::max(1, m_config.busyTimeoutMs));
}

StoreWriter::~StoreWriter()
{
    stop();
}

bool StoreWriter::start(const Init& init, QString* error)
{
    std::promise<QString> started;
    std::future<QString> result = started.get_future();
    {
        std::lock_guard lock(m_mutex);
        m_running = true;
    }
    m_thread = std::thread([this, &init, &started] { threadMain(init, started); });
    const QString message = result.get();
    if (message.isEmpty())
        return true;
    m_thread.join();
    {
        std::lock_guard lock(m_mutex);
        m_running = false;
        m_stopping = true;
    }
    if (error)
        *error = message;
    return false;
}

void StoreWriter::threadMain(const Init& init, std::promise<QString>& started)
{
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_config.connectionName);
        db.setDatabaseName(m_config.path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_config.busyTimeoutMs));
        QString error;
        if (!db.open())
            error = QStringLiteral("cannot open %1: %2").arg(m_config.path, describe(db.lastError()));
        else if (!init(db, &error) && error.isEmpty())
            error = QStringLiteral("cannot prepare %1").arg(m_config.path);
        if (!error.isEmpty()) {
            db.close();
            db = QSqlDatabase();
            QSqlDatabase::removeDatabase(m_config.connectionName);
            started.set_value(error);
            return;
        }
        // From now on a try waits one slice; runBatch() retries until busyTimeoutMs and says so.
        QSqlQuery(db).exec(QStringLiteral("PRAGMA busy_timeout = %1").arg(m_config.sliceMs));
        started.set_value(QString()); // `started` dies with start(): do not touch it below

        Context ctx(db);
        while (waitForWork())
            runBatch(ctx);
        ctx.m_cache.clear();
        db.close();
    }
    QSqlDatabase::removeDatabase(m_config.connectionName);
}

bool StoreWriter::waitForWork()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        if (m_queue.empty() && m_ahead.empty()) {
            if (m_stopping)
                return false;
            m_wake.wait(lock);
            continue;
        }
        if (m_stopping || !m_ahead.empty() || m_urgent > m_completed ||
            m_queue.size() >= std::size_t(m_config.batchOps))
            return true;
        // Let asynchronous writes gather for up to batchMs: one transaction for many rows, and
        // callers are not woken against the writer thread for every row.
        const auto deadline = m_firstPending + std::chrono::milliseconds(m_config.batchMs);
        if (std::chrono::steady_clock::now() >= deadline)
            return true;
        m_wake.wait_until(lock, deadline);
    }
}

bool StoreWriter::takeNext(Entry* out)
{
    std::lock_guard lock(m_mutex);
    std::deque<Entry>& from = m_ahead.empty() ? m_queue : m_ahead;
    if (from.empty())
        return false;
    *out = std::move(from.front());
    from.pop_front();
    return true;
}

void StoreWriter::runBatch(Context& ctx)
{
    using Clock = std::chrono::steady_clock;
    std::deque<Entry> batch;
    const auto firstTry = Clock::now();
    const auto deadline = firstTry + std::chrono::milliseconds(m_config.busyTimeoutMs);
    bool announced = false; // the wait callback was told that we wait
    for (int attempt = 1;; ++attempt) {
        ctx.m_fatal.clear();
        ctx.m_retryable = false;
        ctx.m_fatalCode = 0;
        ctx.m_errors.clear();
        const auto t0 = Clock::now();
        // IMMEDIATE takes the write lock up front (waiting up to one slice), so no statement
        // inside the batch can meet a lock it cannot wait for.
        if (ctx.control(QStringLiteral("BEGIN IMMEDIATE"), QStringLiteral("cannot begin a transaction"))) {
            for (Entry& e : batch) { // entries of a failed attempt, replayed in order
                e.result = e.op(ctx);
                if (!ctx.m_fatal.isEmpty())
                    break;
            }
            // Someone waits: what is queued already joins the transaction, up to kJoinWaiter
            // entries (a run's new row commits with the previous run's end and rows: one commit
            // per run, not two), but the writer does not wait for more.
            constexpr std::size_t kJoinWaiter = 64;
            std::size_t waiterAt = 0; // 1 + the batch index of the first entry someone waits for
            for (std::size_t k = 0; k < batch.size() && !waiterAt; ++k)
                if (batch[k].waiter)
                    waiterAt = k + 1;
            while (ctx.m_fatal.isEmpty()) {
                if (!batch.empty() &&
                    ((waiterAt && batch.size() >= waiterAt + kJoinWaiter) || batch.size() >= std::size_t(m_config.batchOps) ||
                     Clock::now() - t0 >= std::chrono::milliseconds(m_config.batchMs)))
                    break; // commit now: someone waits, or the batch is big or old enough
                Entry e;
                if (!takeNext(&e))
                    break; // drained
                batch.push_back(std::move(e));
                batch.back().result = batch.back().op(ctx);
                if (batch.back().waiter && !waiterAt)
                    waiterAt = batch.size();
            }
            if (ctx.m_fatal.isEmpty() &&
                ctx.control(QStringLiteral("COMMIT"), QStringLiteral("cannot commit"))) {
                if (announced && m_onWait)
                    m_onWait(QStringLiteral("%1: the other connection released the lock after %2 s; writing again")
                                 .arg(m_config.path)
                                 .arg(std::chrono::duration<double>(Clock::now() - firstTry).count(), 0, 'f', 1),
                             false);
                for (const QString& message : std::as_const(ctx.m_errors))
                    report(message);
                complete(batch, true);
                return;
            }
        }
        // Disk full or I/O errors may already have rolled back; a second ROLLBACK then just fails.
        QSqlQuery(ctx.db()).exec(QStringLiteral("ROLLBACK"));
        const auto now = Clock::now();
        if (ctx.m_retryable && now < deadline) {
            if (!announced && now - firstTry >= std::chrono::milliseconds(m_config.waitNoticeMs) && m_onWait) {
                announced = true;
                m_onWait(QStringLiteral("%1 is locked by another connection (%2); waiting up to %3 s to write")
                             .arg(m_config.path, ctx.m_fatal)
                             .arg(m_config.busyTimeoutMs / 1000.0, 0, 'g', 3),
                         true);
            }
            continue;
        }
        if (announced && m_onWait)
            m_onWait(QString(), false);
        if (batch.empty()) { // could not even begin: drop what waits, so flush() and callers return
            Entry e;
            while (batch.size() < std::size_t(m_config.batchOps) && takeNext(&e))
                batch.push_back(std::move(e));
        }
        const QString waited =
            ctx.m_retryable
                ? QStringLiteral(" (another connection held the write lock for more than %1 s; %2 tries)")
                      .arg(std::chrono::duration<double>(now - firstTry).count(), 0, 'f', 1)
                      .arg(attempt)
                : QString();
        report(QStringLiteral("%1 queued write(s) to %2 were lost: %3%4")
                   .arg(batch.size())
                   .arg(m_config.path, ctx.m_fatal, waited));
        // A full disk (or a file past its size limit, an I/O error): move what the WAL holds into
        // the database and truncate the WAL, which gives its space back, so that the small writes
        // that follow — the stopped runs' status — can still land. Fails harmlessly when even
        // that needs space the disk does not have.
        if (ctx.m_fatalCode == 13 || ctx.m_fatalCode == 10) // SQLITE_FULL, SQLITE_IOERR
            QSqlQuery(ctx.db()).exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
        complete(batch, false);
        return;
    }
}

void StoreWriter::complete(std::deque<Entry>& batch, bool committed)
{
    if (batch.empty())
        return;
    for (Entry& e : batch)
        if (e.waiter)
            e.waiter->set_value(committed ? e.result : -1);
    std::lock_guard lock(m_mutex);
    // Everything taken so far is done; what is still queued is not. Each queue is in ticket order.
    std::uint64_t firstOpen = m_posted + 1;
    if (!m_queue.empty())
        firstOpen = std::min(firstOpen, m_queue.front().ticket);
    if (!m_ahead.empty())
        firstOpen = std::min(firstOpen, m_ahead.front().ticket);
    m_completed = firstOpen - 1;
    m_done.notify_all();
}

void StoreWriter::report(const QString& message)
{
    {
        std::lock_guard lock(m_mutex);
        ++m_errors;
    }
    if (m_onError)
        m_onError(message);
}

void StoreWriter::post(Op op)
{
    std::unique_lock lock(m_mutex);
    if (!m_running || m_stopping) {
        lock.unlock();
        report(QStringLiteral("write to %1 ignored: the store is closed").arg(m_config.path));
        return;
    }
    enqueue(std::move(op), nullptr, false);
}

void StoreWriter::enqueue(Op op, std::shared_ptr<std::promise<qint64>> waiter, bool ahead)
{
    // Wake the writer only when it has to start its batch timer, when the batch is full, or when
    // someone waits: waking it for every row would cost the caller a context switch.
    Entry e;
    e.op = std::move(op);
    e.ticket = ++m_posted;
    e.waiter = std::move(waiter);
    if (ahead) {
        m_ahead.push_back(std::move(e));
        m_wake.notify_one();
        return;
    }
    const bool wasEmpty = m_queue.empty();
    if (wasEmpty)
        m_firstPending = std::chrono::steady_clock::now();
    if (e.waiter)
        m_urgent = e.ticket;
    m_queue.push_back(std::move(e));
    if (wasEmpty || m_urgent == m_posted || m_queue.size() == std::size_t(m_config.batchOps))
        m_wake.notify_one();
}

qint64 StoreWriter::call(Op op, Order order)
{
    auto waiter = std::make_shared<std::promise<qint64>>();
    std::future<qint64> result = waiter->get_future();
    {
        std::unique_lock lock(m_mutex);
        if (!m_running || m_stopping) {
            lock.unlock();
            report(QStringLiteral("write to %1 ignored: the store is closed").arg(m_config.path));
            return -1;
        }
        enqueue(std::move(op), waiter, order == Order::AheadOfQueued);
    }
    return result.get();
}

bool StoreWriter::flush(int timeoutMs)
{
    std::unique_lock lock(m_mutex);
    const std::uint64_t target = m_posted;
    if (m_urgent < target) { // commit now rather than when the batch timer expires
        m_urgent = target;
        m_wake.notify_one();
    }
    auto done = [&] { return m_completed >= target; };
    if (timeoutMs < 0)
        m_done.wait(lock, done);
    else if (!m_done.wait_for(lock, std::chrono::milliseconds(timeoutMs), done))
        return false;
    const bool clean = m_errors == m_errorsSeenByFlush;
    m_errorsSeenByFlush = m_errors;
    return clean;
}

void StoreWriter::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_running)
            return;
        m_stopping = true;
        m_wake.notify_all();
    }
    if (m_thread.joinable())
        m_thread.join();
    std::lock_guard lock(m_mutex);
    m_running = false;
}

std::uint64_t StoreWriter::errorCount() const
{
    std::lock_guard lock(m_mutex);
    return m_errors;
}

} // namespace tb
