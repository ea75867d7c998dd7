#pragma once
/// @file TestRunContext.h
/// A RunContext for unit tests of trainers, in this tree and out of it (installed with the
/// SDK as <trainbench/testing/TestRunContext.h>): it records every checkpoint, fact and log
/// line, lets a test answer checkpoints, and owns a stop source a test can fire from any thread.
///
/// @code
/// tb::testing::TestRunContext ctx(/*seed=*/7, /*threads=*/2);
/// ctx.stopAfter = 3;                        // answer Stop at the third checkpoint
/// tbb::task_arena(ctx.threads()).execute([&] { trainer.fit(view, ctx); });
/// QCOMPARE(ctx.checkpoints.size(), 3u);
/// @endcode
///
/// Like the host, it refuses the facts the host records itself (reservedFactKeys()): record()
/// throws std::logic_error naming the key, so a trainer that would silently overwrite one fails
/// its own tests. Like the host, it can hold the run to a time budget (budget): its clock runs
/// from construction (or restartClock()) with the checkpoints left out, budgetSpent() says when
/// the budget is used up, and the first checkpoint after that answers Stop (stoppedByBudget).

#include "../RunContext.h"

#include <QJsonObject>
#include <QStringList>
#include <functional>
#include <stdexcept>
#include <vector>

namespace tb::testing {

class TestRunContext final : public RunContext {
public:
    explicit TestRunContext(std::uint64_t seed = 1, int threads = 1) : m_seed(seed), m_threads(threads < 1 ? 1 : threads)
    {
        restartClock();
    }

    std::uint64_t seed() const override { return m_seed; }
    int threads() const override { return m_threads; }
    StopToken stopToken() const override { return m_stop.token(); }

    /// Records @p cp and calls onCheckpoint; the answer is answerCheckpoint's when set, else
    /// Continue — and Stop once stopAfter checkpoints were seen or a stop was requested.
    CheckpointAction checkpoint(const Checkpoint& cp) override
    {
        m_clock.pause();  // the host's evaluation is not training time
        checkpoints.push_back(cp);
        if (onCheckpoint)
            onCheckpoint(cp);
        CheckpointAction action = answerCheckpoint ? answerCheckpoint(cp) : CheckpointAction::Continue;
        if (stopAfter > 0 && int(checkpoints.size()) >= stopAfter)
            action = CheckpointAction::Stop;
        if (budget.isSet() && m_clock.elapsed() >= budget.seconds) {
            stoppedByBudget = true;
            action = CheckpointAction::Stop;
        }
        if (m_stop.stopRequested())
            action = CheckpointAction::Stop;
        m_clock.start();
        return action;
    }

    bool budgetSpent() const override { return budget.isSet() && m_clock.elapsed() >= budget.seconds; }

    /// Seconds the budget's clock has counted (checkpoints left out).
    double budgetUsed() const { return m_clock.elapsed(); }
    /// Starts the budget's clock afresh (on budget.clock), e.g. right before fit().
    void restartClock()
    {
        m_clock = RunClock(budget.clock);
        m_clock.start();
    }

    void record(const QString& key, const QJsonValue& value) override
    {
        if (reservedFactKeys().contains(key))
            throw std::logic_error("record(\"" + key.toStdString() +
                                   "\"): this fact is recorded by the host; choose another key");
        records.insert(key, value);
    }
    void log(const QString& message) override { logs << message; }

    /// Fires the stop token (any thread).
    void requestStop() { m_stop.requestStop(); }
    /// The source behind stopToken(), e.g. to hand to a thread that stops the run.
    StopSource& stopSource() { return m_stop; }

    std::vector<Checkpoint> checkpoints;  ///< every checkpoint, in order
    QJsonObject records;                  ///< every fact recorded (the last value per key)
    QStringList logs;                     ///< every log line
    int stopAfter = 0;                    ///< answer Stop at this checkpoint (0 = never)
    /// Called at every checkpoint, e.g. to evaluate predict() (QVERIFY works inside it).
    std::function<void(const Checkpoint&)> onCheckpoint;
    /// Decides the answer to each checkpoint (after onCheckpoint), e.g. Stop at a condition.
    std::function<CheckpointAction(const Checkpoint&)> answerCheckpoint;
    /// The run's time budget (none by default); set it, then restartClock() for its clock.
    RunBudget budget;
    /// A checkpoint answered Stop because the budget was spent.
    bool stoppedByBudget = false;

private:
    std::uint64_t m_seed;
    int m_threads;
    StopSource m_stop;
    RunClock m_clock;
};

} // namespace tb::testing
