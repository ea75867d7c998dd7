#pragma once
/// @file RunLoopHost.h
/// The run as the training library's TrainingLoop sees it: a tb::train::LoopHost over the
/// plugin's tb::RunContext (Stop, the host's budget, checkpoints, log lines and facts).
///
/// Part of the SDK's bridge to the training library (trainbench/toolkit/): header-only, for
/// plugins, which link tb::training.

#include <trainbench/RunContext.h>

#include <training/TrainingLoop.h>

#include <QString>

namespace tb {

/// Adapts @p ctx for a TrainingLoop. Lives as long as the fit() that creates it; not thread-safe
/// (as RunContext: the fit() thread only).
class RunLoopHost final : public train::LoopHost {
public:
    explicit RunLoopHost(RunContext& ctx) : m_ctx(ctx) {}

    bool stopRequested() const override { return m_ctx.stopRequested(); }
    bool budgetSpent() const override { return m_ctx.budgetSpent(); }
    bool checkpoint(double epoch, double loss, const std::string& note) override
    {
        return m_ctx.checkpoint(Checkpoint{epoch, loss, QString::fromStdString(note)}) == CheckpointAction::Continue;
    }
    void log(const std::string& line) override { m_ctx.log(QString::fromStdString(line)); }
    void record(const std::string& key, double value) override { m_ctx.record(QString::fromStdString(key), value); }

private:
    RunContext& m_ctx;
};

} // namespace tb
