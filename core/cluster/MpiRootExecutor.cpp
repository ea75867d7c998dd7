#include "MpiRootExecutor.h"

#include "MpiProtocol.h"

#include <BuildInfo.h>
#include <PluginRegistry.h>
#include <RunLog.h>

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
    auto problem = [&](const QString& line) {
        m_problems << line;
        if (m_options.notify)
            m_options.notify(line);
    };
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

void MpiRootExecutor::run(CellPlan& plan)
{
    m_ran = true;
    const Clock::time_point wallStart = Clock::now();
    const std::clock_t cpuStart = std::clock();
    auto account = qScopeGuard([&] {
        m_load.wallSeconds += std::chrono::duration<double>(Clock::now() - wallStart).count();
        m_load.cpuSeconds += double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    });
    const int ranks = m_session.size();
    QList<Worker> workers(ranks);
    for (int r = 1; r < ranks; ++r) {
        workers[r].heard = Clock::now();
        workers[r].who = QStringLiteral("rank %1").arg(r);
    }
    auto problem = [&](const QString& line) {
        m_problems << line;
        if (m_options.notify)
            m_options.notify(line);
    };

    // Cells not handed out yet: those a lost worker never began first, then the plan's in order.
    std::deque<int> returned;
    int next = 0;
    auto skipped = [&](int i) { return !plan.skip.empty() && plan.skip[size_t(i)]; };
    auto remaining = [&] {
        int n = int(returned.size());
        for (int i = next; i < plan.count; ++i)
            n += !skipped(i);
        return n;
    };
    auto take = [&]() -> int {
        if (!returned.empty()) {
            const int i = returned.front();
            returned.pop_front();
            return i;
        }
        while (next < plan.count && skipped(next))
            ++next;
        return next < plan.count ? next++ : -1;
    };
    int left = remaining();
    double meanSeconds = -1; // running mean of a cell's wall time on a worker, −1 before the first

    auto beginFront = [&](Worker& w) {
        w.runIds.clear();
        w.started = Clock::now();
        w.job = plan.jobOf && !w.cells.empty() ? plan.jobOf(w.cells.front()) : RunJob();
        if (w.cells.empty())
            w.state = State::Idle;
    };
    auto lose = [&](int r, const QString& why, RunStatus status, bool giveBack) {
        Worker& w = workers[r];
        if (w.state == State::Busy && !w.cells.empty()) {
            // The cell in hand fails (or is interrupted) with the reason; its rows are finished so.
            const int cell = w.cells.front();
            w.cells.pop_front();
            plan.done(cell, plan.failed(cell, status, why, w.runIds));
            // The rest of its batch never began: another worker trains it (unless stopping).
            for (int c : w.cells)
                if (giveBack) {
                    returned.push_back(c);
                    ++left;
                }
            w.cells.clear();
        }
        w.state = State::Gone;
        m_usable[r] = 0;
    };

    const auto timeout = std::chrono::duration<double>(m_options.workerTimeoutSeconds);
    bool stopping = false;
    Clock::time_point stopDeadline;
    // Every message to a worker: one that does not take it in kSendSeconds is lost like a silent one.
    auto tell = [&](int r, Tag tag, const QByteArray& payload) {
        Worker& w = workers[r];
        if (w.lost)
            return false;
        if (sendWithin(r, tag, payload, kSendSeconds)) {
            ++m_load.sent;
            return true;
        }
        const QString why = QStringLiteral("%1 did not take a message within %2 s (the process died or its network "
                                           "is down)")
                                .arg(w.who)
                                .arg(kSendSeconds);
        problem(why);
        lose(r, why, RunStatus::Failed, !stopping);
        w.lost = true;
        return false;
    };
    if (!m_experiment.isEmpty()) {
        // `reproduce --mpi`: only the workers still in the job learn the experiment, and only when
        // it has a cell to train (a stored experiment read back costs them nothing).
        for (int r = 1; r < ranks; ++r) {
            Worker& w = workers[r];
            if (left > 0 && m_membership[r] == Membership::InJob) {
                m_told[r] = 1;
                if (tell(r, Tag::Experiment, m_experiment))
                    continue;
            }
            w.state = State::Gone;
            w.doneSent = true; // not in this experiment: it is not waiting for its Done
        }
        if (left == 0)
            return;
    }
    for (;;) {
        // 1. Everything that has arrived.
        bool any = false;
        while (auto m = poll()) {
            any = true;
            const int r = m->source;
            if (r <= 0 || r >= ranks)
                continue;
            ++m_load.received;
            Worker& w = workers[r];
            w.heard = Clock::now();
            if (m->tag == Tag::Served) { // `reproduce --mpi`: a worker refused early and has ended
                m_served[r] = 1;
                continue;
            }
            if (w.state == State::Gone) {
                // Declared lost (or not used): what it sends now is not stored, but a run waiting
                // for its row gets an answer, so the process can reach the end and exit.
                if (m->tag == Tag::CreateRun)
                    tell(r, Tag::RunId, encodeInt(-1));
                continue;
            }
            switch (m->tag) {
            case Tag::Hello: {
                const auto h = decodeHello(m->payload);
                if (!h) {
                    problem(QStringLiteral("rank %1 sent an unreadable greeting: not used").arg(r));
                    m_membership[r] = Membership::Excluded;
                    w.state = State::Gone;
                    w.doneSent = tell(r, Tag::Done, {});
                    break;
                }
                w.who = QStringLiteral("rank %1 on %2 (pid %3)").arg(r).arg(h->host).arg(h->pid);
                QStringList mismatch;
                if (h->appVersion != QStringLiteral(TB_APP_VERSION) || h->gitHash != gitHash())
                    mismatch << QStringLiteral("trainbench %1 (%2) instead of %3 (%4)")
                                    .arg(h->appVersion, h->gitHash, QStringLiteral(TB_APP_VERSION), gitHash());
                for (const AlgorithmEntry& a : m_registry.algorithms()) {
                    const QString theirs = h->pluginVersions.value(a.info.id, QStringLiteral("(missing)"));
                    if (theirs != a.plugin->version && mismatch.size() < 4)
                        mismatch << QStringLiteral("%1 %2 instead of %3").arg(a.info.id, theirs, a.plugin->version);
                }
                if (!mismatch.isEmpty()) {
                    problem(QStringLiteral("%1 is not used: its build differs from rank 0's (%2); results would not be "
                                           "reproducible from the database")
                                .arg(w.who, mismatch.join("; ")));
                    m_membership[r] = Membership::Excluded;
                    w.state = State::Gone;
                    w.doneSent = tell(r, Tag::Done, {});
                    break;
                }
                w.state = State::Idle;
                m_usable[r] = 1;
                break;
            }
            case Tag::Refused:
                problem(QStringLiteral("%1 cannot run this experiment: %2").arg(w.who, decodeText(m->payload).value_or("?")));
                w.state = State::Gone;
                w.doneSent = tell(r, Tag::Done, {});
                break;
            case Tag::CreateRun: {
                auto rec = decodeRunRecord(m->payload);
                qint64 id = -1;
                if (rec && w.state == State::Busy) {
                    if (plan.jobOf)
                        rec->experimentId = w.job.experimentId;
                    id = plan.log ? plan.log->createRun(*rec) : -1;
                    w.runIds << id;
                    if (plan.observer && plan.jobOf)
                        plan.observer->runStarted(w.job, id);
                }
                tell(r, Tag::RunId, encodeInt(id));
                break;
            }
            case Tag::Metric:
                for (const auto& [runId, point] : decodeMetrics(m->payload).value_or(QList<std::pair<qint64, MetricPoint>>{})) {
                    if (plan.log && runId >= 0 && w.runIds.contains(runId))
                        plan.log->appendMetric(runId, point);
                    if (plan.observer && plan.jobOf)
                        plan.observer->checkpointLogged(w.job, runId, point);
                }
                break;
            case Tag::FinishRun:
                if (const auto f = decodeFinish(m->payload); f && plan.log && w.runIds.contains(f->runId))
                    plan.log->finishRun(f->runId, f->status, f->error, f->info);
                break;
            case Tag::CellDone:
            case Tag::CellSkipped: {
                const bool trained = m->tag == Tag::CellDone;
                auto done = trained ? decodeCellDone(m->payload) : std::nullopt;
                const int cell = trained ? (done ? done->first : -1) : int(decodeInt(m->payload).value_or(-1));
                if (w.cells.empty() || cell != w.cells.front()) {
                    const QString why = QStringLiteral("%1 sent an unreadable or unexpected result (cell %2)").arg(w.who).arg(cell);
                    problem(why + QStringLiteral(": not used any more"));
                    lose(r, why, RunStatus::Failed, !stopping);
                    break;
                }
                w.cells.pop_front();
                if (trained) {
                    const double seconds = std::chrono::duration<double>(Clock::now() - w.started).count();
                    meanSeconds = meanSeconds < 0 ? seconds : 0.8 * meanSeconds + 0.2 * seconds;
                    m_cellsPerRank[r]++;
                    ++m_load.cells;
                    plan.done(cell, std::move(done->second));
                }
                beginFront(w);
                break;
            }
            case Tag::Heartbeat:
            default:
                break;
            }
        }

        // 2. Workers that stopped answering.
        const auto now = Clock::now();
        for (int r = 1; r < ranks; ++r) {
            Worker& w = workers[r];
            if ((w.state == State::Busy || w.state == State::Starting) && now - w.heard > timeout) {
                const QString why = QStringLiteral("%1 stopped answering for %2 s%3 (the process died, hung or lost its "
                                                   "network)")
                                        .arg(w.who)
                                        .arg(m_options.workerTimeoutSeconds)
                                        .arg(w.state == State::Busy ? QStringLiteral(" while training cell %1").arg(w.cells.front())
                                                                    : QString());
                problem(why);
                lose(r, why, RunStatus::Failed, !stopping);
                w.lost = true;
            }
        }

        // 3. Stop: no more cells; the busy workers cancel theirs. Those that have not answered
        // within kStopGrace are left (Open MPI, ending a job, kills every rank about a second
        // after its SIGTERM: what reached rank 0 must be on disk by then).
        if (plan.stop->stopRequested() && !stopping) {
            stopping = true;
            stopDeadline = Clock::now() + kStopGrace;
            for (int r = 1; r < ranks; ++r)
                if (workers[r].state == State::Busy && !workers[r].stopSent) {
                    tell(r, Tag::Stop, {});
                    workers[r].stopSent = true;
                }
        }
        if (stopping && Clock::now() > stopDeadline)
            for (int r = 1; r < ranks; ++r)
                if (workers[r].state == State::Busy) {
                    const QString why = QStringLiteral("stopped: %1 did not report its cell %2 within %3 ms of Stop")
                                            .arg(workers[r].who)
                                            .arg(workers[r].cells.front())
                                            .arg(std::chrono::duration_cast<std::chrono::milliseconds>(kStopGrace).count());
                    problem(why);
                    lose(r, why, RunStatus::Interrupted, false);
                }

        // 4. Free workers get the next batch, and so do busy ones that are about to run out of
        // short cells (the batch waits in their queue: MPI keeps one sender's messages in order).
        int alive = 0, busy = 0;
        bool mayWait = false; // a worker may be waiting for rank 0 (see kRelaxedPause)
        for (int r = 1; r < ranks; ++r)
            alive += workers[r].state != State::Gone;
        for (int r = 1; r < ranks; ++r) {
            Worker& w = workers[r];
            const bool refill = w.state == State::Busy && !w.stopSent && meanSeconds >= 0 &&
                                meanSeconds * double(w.cells.size()) < kRefillSeconds;
            if ((w.state == State::Idle || refill) && !stopping && left > 0) {
                // Short cells go in batches of about kBatchSeconds, never more than a share of
                // what is left, so the last cells still spread over every worker.
                int batch = 1;
                if (meanSeconds >= 0)
                    batch = std::clamp(int(kBatchSeconds / std::max(meanSeconds, 1e-6)), 1,
                                       std::min(kMaxBatch, std::max(1, left / (2 * std::max(alive, 1)))));
                QList<int> cells;
                for (int k = 0; k < batch; ++k)
                    if (const int c = take(); c >= 0)
                        cells << c;
                if (!tell(r, Tag::Cells, encodeCells(cells))) {
                    returned.insert(returned.begin(), cells.begin(), cells.end()); // never began
                    continue;
                }
                left -= int(cells.size());
                ++m_load.batches;
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
            busy += w.state == State::Busy;
            mayWait = mayWait || w.state == State::Starting || (w.state == State::Idle && left > 0);
        }
        const bool cellsLeft = !stopping && left > 0;
        if (busy == 0 && (!cellsLeft || alive == 0)) {
            if (cellsLeft) {
                problem(QStringLiteral("no worker rank is left to train the remaining %1 cells; they are stored as not "
                                       "started: run the experiment again with --resume")
                            .arg(left));
                plan.stop->requestStop();
            }
            break;
        }
        if (!mayWait && !plan.jobOf && !stopping)
            std::this_thread::sleep_for(kRelaxedPause); // nobody waits for an answer: let messages gather
        else if (!any)
            std::this_thread::sleep_for(kPollPause);
    }
    // Every worker that may still listen learns that there is nothing more (a worker still
    // loading its data reads this after its greeting). A lost worker is not: a blocking send to a
    // dead process over TCP never returns.
    for (int r = 1; r < ranks; ++r) {
        m_lost = m_lost || workers[r].lost;
        if (workers[r].lost)
            m_membership[r] = Membership::Lost;
    }
    for (int r = 1; r < ranks; ++r)
        if (!workers[r].doneSent && !workers[r].lost)
            tell(r, Tag::Done, encodeInt(m_lost ? 1 : 0)); // 1: a rank died, do not finalise
}

} // namespace tb::cluster
