#pragma once
/// @file TestRunContext.h
/// A RunContext for the BPLS tests: records checkpoints, facts and log lines, evaluates the
/// trainer's training accuracy at every checkpoint, and can request a stop.

#include <trainbench/Trainbench.h>

#include <Metrics.h>

#include <QJsonObject>
#include <QStringList>
#include <atomic>
#include <functional>
#include <vector>

class TestRunContext final : public tb::RunContext {
public:
    explicit TestRunContext(std::uint64_t seed = 1, int threads = 1) : m_seed(seed), m_threads(threads) {}

    std::uint64_t seed() const override { return m_seed; }
    int threads() const override { return m_threads; }
    bool stopRequested() const override { return stopFlag.load(); }
    tb::CheckpointAction checkpoint(const tb::Checkpoint& cp) override
    {
        checkpoints.push_back(cp);
        if (onCheckpoint)
            onCheckpoint(cp);
        if (stopAfter > 0 && int(checkpoints.size()) >= stopAfter)
            return tb::CheckpointAction::Stop;
        return tb::CheckpointAction::Continue;
    }
    void record(const QString& key, const QJsonValue& value) override { records.insert(key, value); }
    void log(const QString& message) override { logs << message; }

    std::vector<tb::Checkpoint> checkpoints;
    QJsonObject records;
    QStringList logs;
    std::atomic<bool> stopFlag{false};
    int stopAfter = 0;                                   ///< answer Stop at this checkpoint (0 = never)
    std::function<void(const tb::Checkpoint&)> onCheckpoint; ///< e.g. evaluate predict()

private:
    std::uint64_t m_seed;
    int m_threads;
};
