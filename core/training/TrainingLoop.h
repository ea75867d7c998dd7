#pragma once
/// @file TrainingLoop.h
/// The one training loop of the families that train step by step (minibatches, iterations,
/// stages): it runs the steps, polls Stop, checkpoints on a cadence, ends at the budget, stops
/// early on held-out rows and reports divergence, so that a trainer's fit() keeps only its own
/// algorithm — a step, and what an epoch's end computes. ensmallen's callbacks are the model:
/// each policy is optional and set on the loop before run(). No Qt: the host is a LoopHost (a
/// plugin adapts its tb::RunContext with trainbench/toolkit/RunLoopHost.h).
///
/// Families whose iterations another driver owns (L-BFGS through LbfgsDriver's callback, GLS
/// through GlsSolver's) and single solves (ridge, LIBLINEAR, LIBSVM, kernel ridge) do not run in
/// it: there is no loop of theirs to take over (docs/plugin-guide.md, "The training loop").

#include <trainbench/StopToken.h>

#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace tb::train {

/// What a TrainingLoop asks of the run and reports to it.
class LoopHost {
public:
    virtual ~LoopHost() = default;
    /// True once the run must end (Stop pressed, the host's own reasons). Polled before every step.
    virtual bool stopRequested() const = 0;
    /// True once the run's time budget is spent (default: no budget).
    virtual bool budgetSpent() const { return false; }
    /// A checkpoint at @p epoch with training objective @p loss (NaN: unknown; ∞: diverged);
    /// false when the run must end now.
    virtual bool checkpoint(double epoch, double loss, const std::string& note) = 0;
    /// A line for the run's log.
    virtual void log(const std::string& line) = 0;
    /// A numeric fact of the run.
    virtual void record(const std::string& key, double value) = 0;
};

/// How a run of the loop ended.
enum class LoopEnd {
    Completed,    ///< every planned step, or the algorithm said it was done
    Stopped,      ///< Stop, a kernel that saw it, or a checkpoint answered Stop
    Budget,       ///< the host's time budget was spent (pollBudget)
    Diverged,     ///< a loss was not finite: reported with a checkpoint at ∞
    EarlyStopped  ///< the held-out loss stopped improving (earlyStopping)
};

/// "completed", "stopped", "budget", "diverged", "early stopped".
const char* loopEndName(LoopEnd e);

/// What one step did.
struct StepResult {
    /// The step's loss, summed over its rows (a minibatch's sum) — or its mean with rows = 1.
    double loss = 0;
    /// The rows the loss sums over; the checkpoints report loss sums / rows sums.
    double rows = 1;
    /// The step's kernels saw Stop (its work is incomplete): the loop ends without a checkpoint.
    bool stopped = false;
    /// The algorithm has nothing left to do: the loop ends as Completed after this step's
    /// checkpoint rules.
    bool finished = false;
};

/// Where a step is.
struct LoopPosition {
    long long step = 0;          ///< steps done, this one included (1, 2, …)
    long long epoch = 0;         ///< the epoch the step belongs to (0-based)
    long long stepInEpoch = 0;   ///< steps done in that epoch, this one included
    long long stepsPerEpoch = 0; ///< 0 for a plan by steps
    double epochs = 0;           ///< fractional epochs done after the step (Checkpoint::epoch)
};

/// The loop. Not thread-safe; one per fit().
class TrainingLoop {
public:
    /// A plan: @p epochs epochs of @p stepsPerEpoch steps (the epoch after step b of epoch e is
    /// e + (b + 1)/stepsPerEpoch); or, with byEpochs(false), @p steps steps whose epoch position
    /// epochOf() says (e.g. a schedule whose epochs end mid-batch).
    struct Plan {
        long long epochs = 1;
        long long stepsPerEpoch = 1;
        long long steps = 0;                  ///< plan by steps: how many (0: by epochs)
        std::function<double()> epochOf;      ///< plan by steps: epochs done after the current step
    };
    static Plan epochs(long long epochs, long long stepsPerEpoch) { return Plan{epochs, stepsPerEpoch, 0, {}}; }
    static Plan steps(long long steps, std::function<double()> epochOf) { return Plan{0, 0, steps, std::move(epochOf)}; }

    /// The algorithm, as callbacks (only step is required).
    struct Hooks {
        /// Before the first step of epoch @p epoch (0-based): the epoch's step size, shuffle.
        std::function<void(long long epoch)> beginEpoch;
        /// One step (minibatch, iteration, stage).
        std::function<StepResult(const LoopPosition&)> step;
        /// The loss a checkpoint reports from the window's mean step loss (default: the mean),
        /// e.g. the mean plus the penalty λ/2·‖w‖².
        std::function<double(double mean)> checkpointLoss;
        /// At an epoch's end (also one the budget cut short): the loss its checkpoint reports
        /// instead of checkpointLoss(mean), e.g. f over every training row; nullopt when Stop
        /// interrupted it (the loop ends without a checkpoint).
        std::function<std::optional<double>(const LoopPosition&)> epochLoss;
        /// Before every checkpoint of the cadence (not the divergence report): facts to record
        /// with it, a model to publish for predict().
        std::function<void(const LoopPosition&)> beforeCheckpoint;
        /// Before the divergence report: e.g. publish the weights predict() should show.
        std::function<void(const LoopPosition&)> beforeDivergence;
    };

    explicit TrainingLoop(LoopHost& host) : m_host(host) {}

    // ---- policies (ensmallen's callbacks) ----

    /// Checkpoint at every epoch end (default on).
    void checkpointAtEpochEnds(bool on) { m_atEpochEnds = on; }
    /// Also checkpoint after every @p steps-th step of an epoch, its last step excepted (that is
    /// the epoch end's); 0 = off. The loss is the mean since the epoch began.
    void checkpointEvery(long long steps) { m_every = steps; }
    /// Checkpoint after every step for which @p due(position) holds, instead of the rules above
    /// (e.g. log-spaced); the loss is the mean since the previous checkpoint. Called once per step.
    void checkpointWhen(std::function<bool(const LoopPosition&)> due) { m_due = std::move(due); }
    /// Poll the host's budget after every step: when spent, the epoch ends there (its end
    /// checkpoint at the fractional epoch reached) and so does the run (LoopEnd::Budget). A
    /// checkpoint the host answers with Stop because of the budget ends it the same way.
    void pollBudget(bool on) { m_pollBudget = on; }
    /// Early stopping at epoch ends: @p validationLoss (nullopt: Stop interrupted it) is watched;
    /// @p saveBest keeps the weights of a new best; after @p patience epochs without one — or at
    /// the last epoch — the best weights come back (@p restoreBest, as Keras's
    /// restore_best_weights) before that epoch's checkpoint, and the run ends (EarlyStopped).
    /// Records "early_stopped_at_epoch" and "best_epoch".
    void earlyStopping(int patience, std::function<std::optional<double>()> validationLoss,
                       std::function<void()> saveBest, std::function<void()> restoreBest);
    /// How a non-finite step loss is logged: "diverged at step S (epoch E): the loss is L" by
    /// default. The report also records "diverged_at_epoch" and checkpoints at ∞.
    void divergenceMessage(std::function<std::string(const LoopPosition&, double loss)> message)
    {
        m_message = std::move(message);
    }

    /// Runs @p plan. Returns how it ended; after Stopped or Diverged the trainer returns from fit().
    LoopEnd run(const Plan& plan, const Hooks& hooks);

    /// The position after the last step taken.
    const LoopPosition& position() const { return m_pos; }
    /// Epoch (1-based) of the best held-out loss; 0 before one.
    long long bestEpoch() const { return m_bestEpoch; }

private:
    LoopEnd diverged(double loss, const Hooks& hooks, bool epochEnd);
    bool checkpoint(double epoch, double loss) { return m_host.checkpoint(epoch, loss, std::string()); }
    // The end of an epoch at m_pos: its checkpoint (and early stopping). True when the loop ends here, with @p end. (Not std::optional<LoopEnd>: GCC built that
    // return value in memory byte by byte and read it back whole, a stalled store every epoch —
    // half of this function's time in a lock-step toy sweep's replay.)
    bool endEpoch(const Plan& plan, const Hooks& hooks, bool budget, LoopEnd& end);

    LoopHost& m_host;
    bool m_atEpochEnds = true;
    long long m_every = 0;
    std::function<bool(const LoopPosition&)> m_due;
    bool m_pollBudget = false;
    int m_patience = 0;
    std::function<std::optional<double>()> m_validationLoss;
    std::function<void()> m_saveBest, m_restoreBest;
    std::function<std::string(const LoopPosition&, double)> m_message;

    LoopPosition m_pos;
    double m_lossSum = 0, m_rows = 0;   // since the window began
    double m_bestLoss = std::numeric_limits<double>::infinity();
    long long m_bestEpoch = 0, m_sinceBest = 0;
};

} // namespace tb::train
