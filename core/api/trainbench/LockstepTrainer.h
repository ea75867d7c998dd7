#pragma once
/// @file LockstepTrainer.h
/// Trainers that fit several independent replicas of one run together — the Monte-Carlo cells of
/// a noise sweep (same algorithm and parameters, each cell its own data and seed), advanced in
/// lock step so that SIMD lanes hold replicas.
///
/// A trainer offers it by implementing LockstepTrainer besides Trainer (multiple inheritance);
/// the host finds it with dynamic_cast on the trainer create() returned, asks lockstepWidth()
/// for the cells' shape and, when it is 2 or more, calls fitReplicas() once for up to that many
/// cells, then runs each cell as an ordinary run with the trainer replica(r) gives: its fit()
/// reports exactly the checkpoints, facts, log lines and errors the trainer would have reported
/// training that cell alone, and predict() is that cell's model — so the host evaluates, stores
/// and fails (a diverging replica is its own cell's failure) every cell as before. Every other
/// trainer — and every plugin built before this interface existed — trains its cells one by one.
/// The interface changes no layout of Trainer or TrainerFactory: the plugin API version is
/// unchanged (docs/plugin-guide.md, "Lock-step replicas").

#include "DatasetView.h"
#include "StopToken.h"
#include "Trainer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace tb {

/// Implemented, besides Trainer, by a trainer that can fit replicas in lock step. Same threading
/// contract as Trainer: one thread at a time.
class LockstepTrainer {
public:
    virtual ~LockstepTrainer() = default;

    /// How many replicas of a problem of @p shape (dense inputs) fitReplicas() takes at once
    /// with this trainer's parameters; below 2 (e.g. parameters the lock-step path does not
    /// cover) the host trains the cells one by one with fit().
    virtual int lockstepWidth(const ProblemShape& shape) const = 0;

    /// Trains replicas r = 0 … data.size() − 1 together, replica r on @p data[r] with the seed
    /// @p seeds[r] (the seed its own run's RunContext::seed() gives). All views must have the
    /// shape lockstepWidth() was asked about and at most that many; otherwise it throws
    /// std::invalid_argument and the host trains the cells one by one. Polls @p stop between
    /// epochs. A replica's own failure (its data, its divergence) is not thrown here: replica(r)'s
    /// fit() reports it. Call once per trainer.
    virtual void fitReplicas(const std::vector<DatasetView>& data, const std::vector<std::uint64_t>& seeds,
                             StopToken stop) = 0;

    /// Replica @p r after fitReplicas(): a Trainer whose fit(data[r], ctx) reports what fit() of
    /// this trainer on data[r] with ctx.seed() = seeds[r] would have (without training again)
    /// and whose predict() is replica r's model. Throws std::out_of_range for a replica that was
    /// not fitted, std::logic_error when asked twice for the same one.
    virtual std::unique_ptr<Trainer> replica(int r) = 0;
};

} // namespace tb
