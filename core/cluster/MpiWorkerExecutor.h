#pragma once
/// @file MpiWorkerExecutor.h
/// A worker rank of `trainbench-cli run --mpi` and `reproduce --mpi`: trains the cells rank 0
/// hands it and sends back every run row, checkpoint and result as it happens.

#include "MpiProtocol.h"
#include "MpiSession.h"

#include <engine/CellExecutor.h>
#include <store/RunLog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace tb {
class PluginRegistry;
}

namespace tb::cluster {

/// The executor of a worker rank. The constructor greets nobody yet but starts a heartbeat
/// thread (one small message to rank 0 per second, so rank 0 can tell a long cell from a dead
/// process) that also listens for rank 0's Stop. run() greets rank 0 with this build's versions,
/// then trains one cell at a time in the plan's arena until rank 0 says Done; the runs' writes go
/// to rank 0 (createRun waits for the row id). isWorker(): the experiment's own rows are rank 0's.
/// Several experiments in one job (`reproduce --mpi`): nextExperiment() waits for the next one
/// (or rank 0's Quit), the caller runs it (run() or refuse()), then experimentServed().
///
/// Thread-safety: every MPI call of this rank goes through one mutex (the training thread, the
/// heartbeat thread and TBB workers that checkpoint may all send).
class MpiWorkerExecutor final : public CellExecutor, private RunLog {
public:
    MpiWorkerExecutor(const MpiSession& session, const PluginRegistry& registry);
    ~MpiWorkerExecutor() override;

    void run(CellPlan& plan) override;
    bool isWorker() const override { return true; }
    bool distributes() const override { return true; }

    /// After run(): rank 0 said that a rank of the job died (do not call MPI_Finalize).
    bool peerLost() const { return m_peerLost; }
    /// This rank cannot run the experiment (its data did not load here, say): tells rank 0 why
    /// instead of greeting it, and waits for rank 0's Done.
    void refuse(const QString& why);

    /// `reproduce --mpi`: waits for rank 0's next experiment and returns it; std::nullopt when
    /// rank 0 says there are no more (then @p exitCode is rank 0's exit code, and peerLost() says
    /// whether a rank died). Stop requests rank 0 sent for an earlier experiment are dropped.
    std::optional<ExperimentMessage> nextExperiment(int* exitCode);
    /// `reproduce --mpi`: after the experiment of nextExperiment() was run (or refused): tells
    /// rank 0 that everything this rank had to send for it has been sent.
    void experimentServed();

private:
    qint64 createRun(const RunRecord& r) override;
    void appendMetric(qint64 runId, const MetricPoint& p) override;
    void finishRun(qint64 runId, RunStatus status, const QString& error, const QJsonObject& info) override;

    /// Sends a message to rank 0, after the checkpoints still held (rank 0 must read a run's
    /// checkpoints before its end and its cell's result).
    void sendLocked(int tag, const QByteArray& payload);
    /// Sends the checkpoints held, if any. Call with m_mpi locked.
    void flushMetricsLocked();
    /// Waits for rank 0's next message with one of @p tags; returns its tag and payload.
    std::pair<int, QByteArray> waitFor(std::initializer_list<int> tags);
    void heartbeat();

    const MpiSession& m_session;
    const PluginRegistry& m_registry;
    std::mutex m_mpi;
    std::atomic<bool> m_quit{false};
    std::mutex m_wakeMutex;
    std::condition_variable m_wake; ///< ends the heartbeat thread's pause at once when m_quit is set
    bool m_peerLost = false;
    std::atomic<bool> m_stopFromRoot{false};
    std::atomic<StopSource*> m_stop{nullptr};
    std::thread m_heartbeat;
    /// Checkpoints not sent yet (guarded by m_mpi): those logged within kMetricInterval of the last
    /// Metric message go in the next one, so a run checkpointing every few milliseconds costs
    /// rank 0 one message per interval instead of one per checkpoint.
    QList<std::pair<qint64, MetricPoint>> m_metrics;
    std::chrono::steady_clock::time_point m_metricsSent;
};

} // namespace tb::cluster
