#include "MpiWorkerExecutor.h"

#include "MpiProtocol.h"

#include <store/BuildInfo.h>
#include <engine/PluginRegistry.h>

#include <QCoreApplication>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace tb::cluster {
namespace {
/// Longest a worker waits for rank 0 to take a message before it gives up on the job.
constexpr double kRootSendSeconds = 60;
/// Checkpoints logged within this time of the last Metric message wait for the next one.
constexpr auto kMetricInterval = std::chrono::milliseconds(20);

/// Rank 0 took nothing for kRootSendSeconds: it is gone, and so is the experiment's database; a
/// worker left waiting would keep mpirun from ever ending.
[[noreturn]] void rootGone(int rank)
{
    std::fprintf(stderr, "trainbench-cli: rank %d: rank 0 took no message for %.0f s; it is gone, this worker stops\n",
                 rank, kRootSendSeconds);
    std::_Exit(1);
}
} // namespace

MpiWorkerExecutor::MpiWorkerExecutor(const MpiSession& session, const PluginRegistry& registry)
    : m_session(session), m_registry(registry)
{
    m_heartbeat = std::thread([this] { heartbeat(); });
}

MpiWorkerExecutor::~MpiWorkerExecutor()
{
    {
        // Under the lock: the heartbeat thread cannot miss the notification between its test of
        // m_quit and its wait (every run would end up to 20 ms later).
        std::lock_guard lock(m_wakeMutex);
        m_quit = true;
    }
    m_wake.notify_all();
    if (m_heartbeat.joinable())
        m_heartbeat.join();
}

void MpiWorkerExecutor::heartbeat()
{
    using namespace std::chrono;
    auto last = steady_clock::now() - seconds(1);
    while (!m_quit) {
        {
            std::lock_guard lock(m_mpi);
            if (!m_metrics.isEmpty() && steady_clock::now() - m_metricsSent >= kMetricInterval)
                flushMetricsLocked();
            if (steady_clock::now() - last >= seconds(1)) {
                if (!sendWithin(0, Tag::Heartbeat, {}, kRootSendSeconds))
                    rootGone(m_session.rank());
                last = steady_clock::now();
            }
            if (poll(0, int(Tag::Stop))) {
                m_stopFromRoot = true;
            }
        }
        if (m_stopFromRoot)
            if (StopSource* s = m_stop.load())
                s->requestStop();
        std::unique_lock lock(m_wakeMutex);
        m_wake.wait_for(lock, milliseconds(20), [this] { return m_quit.load(); });
    }
}

void MpiWorkerExecutor::sendLocked(int tag, const QByteArray& payload)
{
    std::lock_guard lock(m_mpi);
    flushMetricsLocked();
    if (!sendWithin(0, Tag(tag), payload, kRootSendSeconds))
        rootGone(m_session.rank());
}

void MpiWorkerExecutor::flushMetricsLocked()
{
    if (m_metrics.isEmpty())
        return;
    if (!sendWithin(0, Tag::Metric, encode(m_metrics), kRootSendSeconds))
        rootGone(m_session.rank());
    m_metrics.clear();
    m_metricsSent = std::chrono::steady_clock::now();
}

std::pair<int, QByteArray> MpiWorkerExecutor::waitFor(std::initializer_list<int> tags)
{
    for (;;) {
        {
            std::lock_guard lock(m_mpi);
            for (int tag : tags)
                if (auto m = poll(0, tag))
                    return {tag, m->payload};
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

void MpiWorkerExecutor::refuse(const QString& why)
{
    sendLocked(int(Tag::Refused), encodeText(why));
    waitFor({int(Tag::Done)});
}

std::optional<ExperimentMessage> MpiWorkerExecutor::nextExperiment(int* exitCode)
{
    for (;;) {
        const auto [tag, payload] = waitFor({int(Tag::Experiment), int(Tag::Quit)});
        if (tag == int(Tag::Quit)) {
            const Quit q = decodeQuit(payload).value_or(Quit{1, false});
            *exitCode = q.exitCode;
            m_peerLost = m_peerLost || q.peerLost;
            return std::nullopt;
        }
        {
            // A Stop rank 0 sent before this experiment's message was for an earlier one (MPI keeps
            // one sender's messages in order: it has arrived by now).
            std::lock_guard lock(m_mpi);
            while (poll(0, int(Tag::Stop))) {
            }
            m_stopFromRoot = false;
        }
        if (auto e = decodeExperiment(payload))
            return e;
        // Unreadable: say so as a refusal (rank 0 then sends this experiment's Done) and wait for
        // the next one.
        refuse(QStringLiteral("rank %1 received an unreadable experiment").arg(m_session.rank()));
        experimentServed();
    }
}

void MpiWorkerExecutor::experimentServed()
{
    sendLocked(int(Tag::Served), {});
}

qint64 MpiWorkerExecutor::createRun(const RunRecord& r)
{
    // One run of this rank at a time asks for its row: the answer cannot belong to another.
    sendLocked(int(Tag::CreateRun), encode(r));
    return decodeInt(waitFor({int(Tag::RunId)}).second).value_or(-1);
}

void MpiWorkerExecutor::appendMetric(qint64 runId, const MetricPoint& p)
{
    if (runId < 0)
        return;
    std::lock_guard lock(m_mpi);
    m_metrics.append({runId, p});
    // The first checkpoint after a quiet spell goes at once; a burst waits for the interval's end
    // (the heartbeat thread, the run's end or the next checkpoint sends it).
    if (std::chrono::steady_clock::now() - m_metricsSent >= kMetricInterval)
        flushMetricsLocked();
}

void MpiWorkerExecutor::finishRun(qint64 runId, RunStatus status, const QString& error, const QJsonObject& info)
{
    if (runId >= 0)
        sendLocked(int(Tag::FinishRun), encodeFinish(runId, status, error, info));
}

void MpiWorkerExecutor::run(CellPlan& plan)
{
    m_stop = plan.stop;
    Hello hello;
    hello.appVersion = QStringLiteral(TB_APP_VERSION);
    hello.gitHash = gitHash();
    hello.host = m_session.host();
    hello.pid = qint64(::getpid());
    for (const AlgorithmEntry& a : m_registry.algorithms())
        hello.pluginVersions.insert(a.info.id, a.plugin->version);
    sendLocked(int(Tag::Hello), encode(hello));
    for (;;) {
        const auto [tag, payload] = waitFor({int(Tag::Cells), int(Tag::Done)});
        if (tag == int(Tag::Done)) {
            m_peerLost = m_peerLost || decodeInt(payload).value_or(0) == 1;
            break;
        }
        for (const int cell : decodeCells(payload).value_or(QList<int>{})) {
            if (cell < 0 || cell >= plan.count) {
                const QString why = QStringLiteral("rank %1 was sent cell %2 of %3").arg(m_session.rank()).arg(cell).arg(plan.count);
                sendLocked(int(Tag::CellDone), encode(cell, plan.failed(0, RunStatus::Failed, why, {})));
                continue;
            }
            if (plan.stop->stopRequested()) {
                // Stopped: the rest of the batch never begins (rank 0 stores it as not started).
                sendLocked(int(Tag::CellSkipped), encodeInt(cell));
                continue;
            }
            CellOutput out;
            plan.arena->execute([&] { out = plan.work(cell, this, nullptr); });
            sendLocked(int(Tag::CellDone), encode(cell, out));
        }
    }
    m_stop = nullptr;
}

} // namespace tb::cluster
