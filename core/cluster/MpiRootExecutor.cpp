#include "MpiRootExecutor.h"

#include "MpiProtocol.h"

#include <store/BuildInfo.h>
#include <engine/PluginRegistry.h>
#include <store/RunLog.h>

#include <QCoreApplication>
#include <QHash>
#include <QScopeGuard>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <deque>
#include <thread>

namespace tb::cluster {
namespace {

using Clock = std::chrono::steady_clock;
/// How long rank 0 waits, after Stop, for the busy workers' cancelled cells (the plugins'
/// promise is 200 ms; the rest is for the last checkpoint's evaluation and the messages).
constexpr auto kStopGrace = std::chrono::milliseconds(600);
/// A batch is sized to take about this long, so that tiny cells (a noise sweep's least-squares
/// fits take well under a millisecond) are not dominated by one message round trip each.
constexpr double kBatchSeconds = 0.05;
constexpr int kMaxBatch = 256;
/// A worker whose cells in hand are expected to take less than this gets its next batch at once
/// (short cells only): it never waits for rank 0 between batches, however late rank 0 is scheduled
/// on a busy machine. Longer cells are not queued, so that the last ones still go to whichever
/// worker is free first.
constexpr double kRefillSeconds = kBatchSeconds / 2;
/// Rank 0's pause between two looks at its messages: short while a worker may be waiting for an
/// answer (its greeting, its next batch, a run's row id), longer while every worker has queued
/// cells and none of them asks for row ids (a noise sweep): then rank 0 wakes a few hundred times a
/// second instead of thousands, and leaves the CPU to the workers on a node it shares with them.
constexpr auto kPollPause = std::chrono::microseconds(200);
constexpr auto kRelaxedPause = std::chrono::milliseconds(2);
/// Longest rank 0 waits for a worker to take a message before counting it lost.
constexpr double kSendSeconds = 5;

enum class State { Starting, Idle, Busy, Gone };

struct Worker {
    State state = State::Starting;
    QString who;               ///< "rank 2 on node7 (pid 4242)"
    std::deque<int> cells;     ///< its batch; the front is the cell it trains
    RunJob job;                ///< the front cell's job (learning curves, param sweeps), for the observer
    QList<qint64> runIds;      ///< rows the front cell's runs created
    Clock::time_point heard;   ///< the last message of any kind
    Clock::time_point started; ///< when the front cell began (its batch arrived, or the previous cell ended)
    bool stopSent = false;
    bool doneSent = false;     ///< told that there are no more cells
    bool lost = false;         ///< silent past the timeout: never sent anything again
};

} // namespace

MpiRootExecutor::MpiRootExecutor(const MpiSession& session, const PluginRegistry& registry, Options options)
    : m_session(session), m_registry(registry), m_options(std::move(options))
{
    m_cellsPerRank = QList<int>(session.size(), 0);
    m_usable = QList<int>(session.size(), 0);
    m_membership = QList<Membership>(session.size(), Membership::InJob);
    m_told = QList<int>(session.size(), 0);
    m_served = QList<int>(session.size(), 0);
}

void MpiRootExecutor::setExperiment(const ExperimentMessage& experiment)
{
    m_experiment = encode(experiment);
    m_told.fill(0);
    m_served.fill(0);
}

void MpiRootExecutor::endExperiment()
{
    const auto timeout = std::chrono::duration<double>(m_options.workerTimeoutSeconds);
    QList<Clock::time_point> heard(m_session.size(), Clock::now());
    auto pending = [&](int r) {
        return m_told[r] && !m_served[r] && m_membership[r] != Membership::Lost;
    };
    auto losing = [&](int r, const QString& why) {
        problem(why);
        m_membership[r] = Membership::Lost;
        m_lost = true;
    };
    for (;;) {
        bool waiting = false;
        for (int r = 1; r < m_session.size(); ++r)
            waiting = waiting || pending(r);
        if (!waiting)
            break;
        bool any = false;
        while (auto m = poll()) {
            any = true;
            const int r = m->source;
            if (r <= 0 || r >= m_session.size())
                continue;
            heard[r] = Clock::now();
            if (m->tag == Tag::Served)
                m_served[r] = 1;
            else if (m->tag == Tag::CreateRun && m_membership[r] != Membership::Lost &&
                     !sendWithin(r, Tag::RunId, encodeInt(-1), kSendSeconds))
                // A run still under way there (its worker was dropped mid-batch) trains unstored.
                losing(r, QStringLiteral("rank %1 did not take a message within %2 s (the process died or its "
                                         "network is down)")
                              .arg(r)
                              .arg(kSendSeconds));
            // Anything else belongs to the experiment that ended: dropped.
        }
        const auto now = Clock::now();
        for (int r = 1; r < m_session.size(); ++r)
            if (pending(r) && now - heard[r] > timeout)
                losing(r, QStringLiteral("rank %1 stopped answering for %2 s at the end of an experiment (the "
                                         "process died, hung or lost its network)")
                              .arg(r)
                              .arg(m_options.workerTimeoutSeconds));
        if (!any)
            std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    m_experiment.clear();
    m_told.fill(0);
    m_served.fill(0);
}

void MpiRootExecutor::quit(int exitCode)
{
    if (m_quit)
        return;
    m_quit = true;
    Quit q;
    q.exitCode = exitCode;
    q.peerLost = m_lost;
    for (int r = 1; r < m_session.size(); ++r)
        if (m_membership[r] != Membership::Lost)
            sendWithin(r, Tag::Quit, encode(q), kSendSeconds);
}

void MpiRootExecutor::release()
{
    if (m_ran)
        return;
    m_ran = true;
    for (int r = 1; r < m_session.size(); ++r)
        sendWithin(r, Tag::Done, {}, kSendSeconds);
}

QString MpiRootExecutor::loadSummary() const
{
    if (m_load.wallSeconds <= 0)
        return {};
    const qint64 messages = m_load.received + m_load.sent;
    return QStringLiteral("rank 0: %1 messages in, %2 out (%3 batches of cells) in %4 s; %5 s of CPU, %6 µs a message")
        .arg(m_load.received)
        .arg(m_load.sent)
        .arg(m_load.batches)
        .arg(m_load.wallSeconds, 0, 'f', 2)
        .arg(m_load.cpuSeconds, 0, 'f', 3)
        .arg(messages > 0 ? 1e6 * m_load.cpuSeconds / double(messages) : 0.0, 0, 'f', 1);
}

// One run(): the cells not handed out yet, the workers and what each holds, and the steps of rank
// 0's loop, each a method. It keeps the executor's per-rank bookkeeping (membership, load, the
// ranks told the experiment) as it goes.
class MpiRootExecutor::Round {
public:
    Round(MpiRootExecutor& executor, CellPlan& plan)
        : m_x(executor), m_plan(plan), m_ranks(executor.m_session.size()), m_workers(m_ranks),
          m_timeout(executor.m_options.workerTimeoutSeconds)
    {
        for (int r = 1; r < m_ranks; ++r) {
            m_workers[r].heard = Clock::now();
            m_workers[r].who = QStringLiteral("rank %1").arg(r);
        }
        m_left = remaining();
    }

    /// `reproduce --mpi`: only the workers still in the job learn the experiment, and only when it
    /// has a cell to train (a stored experiment read back costs them nothing). False when there is
    /// none: the round is over before it began.
    bool tellExperiment()
    {
        for (int r = 1; r < m_ranks; ++r) {
            Worker& w = m_workers[r];
            if (m_left > 0 && m_x.m_membership[r] == Membership::InJob) {
                m_x.m_told[r] = 1;
                if (tell(r, Tag::Experiment, m_x.m_experiment))
                    continue;
            }
            w.state = State::Gone;
            w.doneSent = true; // not in this experiment: it is not waiting for its Done
        }
        return m_left > 0;
    }

    /// 1. Everything that has arrived; true when anything did.
    bool receive()
    {
        bool any = false;
        while (auto m = poll()) {
            any = true;
            const int r = m->source;
            if (r <= 0 || r >= m_ranks)
                continue;
            ++m_x.m_load.received;
            Worker& w = m_workers[r];
            w.heard = Clock::now();
            if (m->tag == Tag::Served) { // `reproduce --mpi`: a worker refused early and has ended
                m_x.m_served[r] = 1;
                continue;
            }
            if (w.state == State::Gone) {
                // Declared lost (or not used): what it sends now is not stored, but a run waiting
                // for its row gets an answer, so the process can reach the end and exit.
                if (m->tag == Tag::CreateRun)
                    tell(r, Tag::RunId, encodeInt(-1));
                continue;
            }
            handle(r, *m);
        }
        return any;
    }

    /// 2. Workers that stopped answering are lost, failing the cell in hand.
    void dropSilentWorkers()
    {
        const auto now = Clock::now();
        for (int r = 1; r < m_ranks; ++r) {
            Worker& w = m_workers[r];
            if ((w.state == State::Busy || w.state == State::Starting) && now - w.heard > m_timeout) {
                const QString why =
                    QStringLiteral("%1 stopped answering for %2 s%3 (the process died, hung or lost its "
                                   "network)")
                        .arg(w.who)
                        .arg(m_x.m_options.workerTimeoutSeconds)
                        .arg(w.state == State::Busy
                                 ? QStringLiteral(" while training cell %1").arg(w.cells.front())
                                 : QString());
                m_x.problem(why);
                lose(r, why, RunStatus::Failed, !m_stopping);
                w.lost = true;
            }
        }
    }

    /// 3. Stop: no more cells; the busy workers cancel theirs. Those that have not answered within
    /// kStopGrace are left (Open MPI, ending a job, kills every rank about a second after its
    /// SIGTERM: what reached rank 0 must be on disk by then).
    void handleStop()
    {
        if (m_plan.stop->stopRequested() && !m_stopping) {
            m_stopping = true;
            m_stopDeadline = Clock::now() + kStopGrace;
            for (int r = 1; r < m_ranks; ++r)
                if (m_workers[r].state == State::Busy && !m_workers[r].stopSent) {
                    tell(r, Tag::Stop, {});
                    m_workers[r].stopSent = true;
                }
        }
        if (m_stopping && Clock::now() > m_stopDeadline)
            for (int r = 1; r < m_ranks; ++r)
                if (m_workers[r].state == State::Busy) {
                    const QString why =
                        QStringLiteral("stopped: %1 did not report its cell %2 within %3 ms of Stop")
                            .arg(m_workers[r].who)
                            .arg(m_workers[r].cells.front())
                            .arg(std::chrono::duration_cast<std::chrono::milliseconds>(kStopGrace).count());
                    m_x.problem(why);
                    lose(r, why, RunStatus::Interrupted, false);
                }
    }

    /// 4. Free workers get the next batch, and so do busy ones that are about to run out of short
    /// cells (the batch waits in their queue: MPI keeps one sender's messages in order).
    void handOut()
    {
        m_alive = m_busy = 0;
        m_mayWait = false;
        for (int r = 1; r < m_ranks; ++r)
            m_alive += m_workers[r].state != State::Gone;
        for (int r = 1; r < m_ranks; ++r) {
            Worker& w = m_workers[r];
            const bool refill = w.state == State::Busy && !w.stopSent && m_meanSeconds >= 0 &&
                                m_meanSeconds * double(w.cells.size()) < kRefillSeconds;
            if ((w.state == State::Idle || refill) && !m_stopping && m_left > 0)
                sendBatch(r);
            m_busy += w.state == State::Busy;
            m_mayWait = m_mayWait || w.state == State::Starting || (w.state == State::Idle && m_left > 0);
        }
    }

    /// After handOut(): true when nothing is left to wait for — every cell done or, at Stop or with
    /// no worker left, none training. Cells left without a worker are said and stored as not
    /// started (Stop).
    bool over()
    {
        const bool cellsLeft = !m_stopping && m_left > 0;
        if (m_busy > 0 || (cellsLeft && m_alive > 0))
            return false;
        if (cellsLeft) {
            m_x.problem(QStringLiteral(
                            "no worker rank is left to train the remaining %1 cells; they are stored as not "
                            "started: run the experiment again with --resume")
                            .arg(m_left));
            m_plan.stop->requestStop();
        }
        return true;
    }

    /// Rank 0's pause before its next look at the messages (kPollPause, kRelaxedPause).
    void pause(bool anyArrived) const
    {
        if (!m_mayWait && !m_plan.jobOf && !m_stopping)
            std::this_thread::sleep_for(kRelaxedPause); // nobody waits for an answer: let messages gather
        else if (!anyArrived)
            std::this_thread::sleep_for(kPollPause);
    }

    /// Every worker that may still listen learns that there is nothing more (a worker still loading
    /// its data reads this after its greeting). A lost worker is not: a blocking send to a dead
    /// process over TCP never returns.
    void finish()
    {
        for (int r = 1; r < m_ranks; ++r) {
            m_x.m_lost = m_x.m_lost || m_workers[r].lost;
            if (m_workers[r].lost)
                m_x.m_membership[r] = Membership::Lost;
        }
        for (int r = 1; r < m_ranks; ++r)
            if (!m_workers[r].doneSent && !m_workers[r].lost)
                tell(r, Tag::Done, encodeInt(m_x.m_lost ? 1 : 0)); // 1: a rank died, do not finalise
    }

private:
    // One message of a worker in the round.
    void handle(int r, const Message& m)
    {
        Worker& w = m_workers[r];
        switch (m.tag) {
        case Tag::Hello:
            greet(r, m.payload);
            break;
        case Tag::Refused:
            m_x.problem(QStringLiteral("%1 cannot run this experiment: %2")
                            .arg(w.who, decodeText(m.payload).value_or("?")));
            w.state = State::Gone;
            w.doneSent = tell(r, Tag::Done, {});
            break;
        case Tag::CreateRun:
            createRun(r, m.payload);
            break;
        case Tag::Metric:
            for (const auto& [runId, point] :
                 decodeMetrics(m.payload).value_or(QList<std::pair<qint64, MetricPoint>>{})) {
                if (m_plan.log && runId >= 0 && w.runIds.contains(runId))
                    m_plan.log->appendMetric(runId, point);
                if (m_plan.observer && m_plan.jobOf)
                    m_plan.observer->checkpointLogged(w.job, runId, point);
            }
            break;
        case Tag::FinishRun:
            if (const auto f = decodeFinish(m.payload); f && m_plan.log && w.runIds.contains(f->runId))
                m_plan.log->finishRun(f->runId, f->status, f->error, f->info);
            break;
        case Tag::CellDone:
        case Tag::CellSkipped:
            cellEnded(r, m);
            break;
        case Tag::Heartbeat:
        default:
            break;
        }
    }

    // A worker's greeting: used when its build is rank 0's, else excluded with the reason.
    void greet(int r, const QByteArray& payload)
    {
        Worker& w = m_workers[r];
        const auto h = decodeHello(payload);
        if (!h) {
            exclude(r, QStringLiteral("rank %1 sent an unreadable greeting: not used").arg(r));
            return;
        }
        w.who = QStringLiteral("rank %1 on %2 (pid %3)").arg(r).arg(h->host).arg(h->pid);
        QStringList mismatch;
        if (h->appVersion != QStringLiteral(TB_APP_VERSION) || h->gitHash != gitHash())
            mismatch << QStringLiteral("trainbench %1 (%2) instead of %3 (%4)")
                            .arg(h->appVersion, h->gitHash, QStringLiteral(TB_APP_VERSION), gitHash());
        for (const AlgorithmEntry& a : m_x.m_registry.algorithms()) {
            const QString theirs = h->pluginVersions.value(a.info.id, QStringLiteral("(missing)"));
            if (theirs != a.plugin->version && mismatch.size() < 4)
                mismatch << QStringLiteral("%1 %2 instead of %3").arg(a.info.id, theirs, a.plugin->version);
        }
        if (!mismatch.isEmpty()) {
            exclude(r, QStringLiteral(
                           "%1 is not used: its build differs from rank 0's (%2); results would not be "
                           "reproducible from the database")
                           .arg(w.who, mismatch.join("; ")));
            return;
        }
        w.state = State::Idle;
        m_x.m_usable[r] = 1;
    }

    // A worker not used in this job: told so, and never asked again.
    void exclude(int r, const QString& why)
    {
        m_x.problem(why);
        m_x.m_membership[r] = Membership::Excluded;
        m_workers[r].state = State::Gone;
        m_workers[r].doneSent = tell(r, Tag::Done, {});
    }

    // A run of the cell in hand asks for its row: created in the store, its id sent back (−1: none).
    void createRun(int r, const QByteArray& payload)
    {
        Worker& w = m_workers[r];
        auto rec = decodeRunRecord(payload);
        qint64 id = -1;
        if (rec && w.state == State::Busy) {
            if (m_plan.jobOf)
                rec->experimentId = w.job.experimentId;
            id = m_plan.log ? m_plan.log->createRun(*rec) : -1;
            w.runIds << id;
            if (m_plan.observer && m_plan.jobOf)
                m_plan.observer->runStarted(w.job, id);
        }
        tell(r, Tag::RunId, encodeInt(id));
    }

    // The cell in hand was trained (its output) or skipped; the next of the batch begins. Any other
    // cell than the one in hand is a fault: the worker is not used any more.
    void cellEnded(int r, const Message& m)
    {
        Worker& w = m_workers[r];
        const bool trained = m.tag == Tag::CellDone;
        auto done = trained ? decodeCellDone(m.payload) : std::nullopt;
        const int cell = trained ? (done ? done->first : -1) : int(decodeInt(m.payload).value_or(-1));
        if (w.cells.empty() || cell != w.cells.front()) {
            const QString why =
                QStringLiteral("%1 sent an unreadable or unexpected result (cell %2)").arg(w.who).arg(cell);
            m_x.problem(why + QStringLiteral(": not used any more"));
            lose(r, why, RunStatus::Failed, !m_stopping);
            return;
        }
        w.cells.pop_front();
        if (trained) {
            const double seconds = std::chrono::duration<double>(Clock::now() - w.started).count();
            m_meanSeconds = m_meanSeconds < 0 ? seconds : 0.8 * m_meanSeconds + 0.2 * seconds;
            m_x.m_cellsPerRank[r]++;
            ++m_x.m_load.cells;
            m_plan.done(cell, std::move(done->second));
        }
        beginFront(w);
    }

    // Worker r's next batch. Short cells go in batches of about kBatchSeconds, never more than a
    // share of what is left, so the last cells still spread over every worker.
    void sendBatch(int r)
    {
        Worker& w = m_workers[r];
        int batch = 1;
        if (m_meanSeconds >= 0)
            batch = std::clamp(int(kBatchSeconds / std::max(m_meanSeconds, 1e-6)), 1,
                               std::min(kMaxBatch, std::max(1, m_left / (2 * std::max(m_alive, 1)))));
        QList<int> cells;
        for (int k = 0; k < batch; ++k)
            if (const int c = take(); c >= 0)
                cells << c;
        if (!tell(r, Tag::Cells, encodeCells(cells))) {
            m_returned.insert(m_returned.begin(), cells.begin(), cells.end()); // never began
            return;
        }
        m_left -= int(cells.size());
        ++m_x.m_load.batches;
        w.heard = Clock::now();
        if (w.state == State::Busy) {
            w.cells.insert(w.cells.end(), cells.begin(), cells.end()); // after the cells in hand
        } else {
            w.cells.assign(cells.begin(), cells.end());
            w.state = State::Busy;
            w.stopSent = false;
            beginFront(w);
        }
    }

    bool skipped(int i) const { return !m_plan.skip.empty() && m_plan.skip[size_t(i)]; }

    // Cells not handed out yet: those a lost worker never began first, then the plan's in order.
    int remaining() const
    {
        int n = int(m_returned.size());
        for (int i = m_next; i < m_plan.count; ++i)
            n += !skipped(i);
        return n;
    }

    // The next cell to hand out; −1 when none is left.
    int take()
    {
        if (!m_returned.empty()) {
            const int i = m_returned.front();
            m_returned.pop_front();
            return i;
        }
        while (m_next < m_plan.count && skipped(m_next))
            ++m_next;
        return m_next < m_plan.count ? m_next++ : -1;
    }

    void beginFront(Worker& w) const
    {
        w.runIds.clear();
        w.started = Clock::now();
        w.job = m_plan.jobOf && !w.cells.empty() ? m_plan.jobOf(w.cells.front()) : RunJob();
        if (w.cells.empty())
            w.state = State::Idle;
    }

    // Worker r is gone: the cell in hand fails (or is interrupted) with the reason, its rows
    // finished so; the rest of its batch never began and goes to another worker (@p giveBack:
    // unless stopping).
    void lose(int r, const QString& why, RunStatus status, bool giveBack)
    {
        Worker& w = m_workers[r];
        if (w.state == State::Busy && !w.cells.empty()) {
            const int cell = w.cells.front();
            w.cells.pop_front();
            m_plan.done(cell, m_plan.failed(cell, status, why, w.runIds));
            for (int c : w.cells)
                if (giveBack) {
                    m_returned.push_back(c);
                    ++m_left;
                }
            w.cells.clear();
        }
        w.state = State::Gone;
        m_x.m_usable[r] = 0;
    }

    // Every message to a worker: one that does not take it in kSendSeconds is lost like a silent one.
    bool tell(int r, Tag tag, const QByteArray& payload)
    {
        Worker& w = m_workers[r];
        if (w.lost)
            return false;
        if (sendWithin(r, tag, payload, kSendSeconds)) {
            ++m_x.m_load.sent;
            return true;
        }
        const QString why =
            QStringLiteral("%1 did not take a message within %2 s (the process died or its network "
                           "is down)")
                .arg(w.who)
                .arg(kSendSeconds);
        m_x.problem(why);
        lose(r, why, RunStatus::Failed, !m_stopping);
        w.lost = true;
        return false;
    }

    MpiRootExecutor& m_x;
    CellPlan& m_plan;
    const int m_ranks;
    QList<Worker> m_workers;
    const std::chrono::duration<double> m_timeout;
    std::deque<int> m_returned; ///< cells a lost worker never began, handed out first
    int m_next = 0;             ///< the plan's next cell not handed out
    int m_left = 0;             ///< cells not handed out yet
    double m_meanSeconds = -1;  ///< running mean of a cell's wall time on a worker, −1 before the first
    bool m_stopping = false;
    Clock::time_point m_stopDeadline;
    int m_alive = 0, m_busy = 0; ///< of the last handOut()
    bool m_mayWait = false;      ///< a worker may be waiting for rank 0 (see kRelaxedPause)
};

void MpiRootExecutor::problem(const QString& line)
{
    m_problems << line;
    if (m_options.notify)
        m_options.notify(line);
}

void MpiRootExecutor::run(CellPlan& plan)
{
    m_ran = true;
    const Clock::time_point wallStart = Clock::now();
    const std::clock_t cpuStart = std::clock();
    auto account = qScopeGuard([&] {
        m_load.wallSeconds += std::chrono::duration<double>(Clock::now() - wallStart).count();
        m_load.cpuSeconds += double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    });
    Round round(*this, plan);
    if (!m_experiment.isEmpty() && !round.tellExperiment())
        return;
    for (;;) {
        const bool any = round.receive();
        round.dropSilentWorkers();
        round.handleStop();
        round.handOut();
        if (round.over())
            break;
        round.pause(any);
    }
    round.finish();
}

} // namespace tb::cluster
