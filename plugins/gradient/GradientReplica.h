#pragma once
/// @file GradientReplica.h
/// One replica of a lock-step fit (GradientTrainer::fitReplicas()): its trained network and the
/// record of its minibatch losses, replayed as a run.

#include "GradientConfig.h"

#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/NetworkTrainer.h>

#include <string>
#include <vector>

namespace tb::gradient {

/// The Trainer of one replica that GradientTrainer trained in lock step. fit() trains nothing:
/// it checks the data and records the facts as GradientTrainer::fit() does, then runs the same
/// TrainingLoop (checkpoint cadence, divergence message and fact, Stop) on the recorded
/// minibatch losses, so the host sees the run GradientTrainer would have given. predict() is
/// the replica's network. Not thread-safe.
class GradientReplica final : public NetworkTrainer {
public:
    /// @p net the trained network (at a divergence: the weights before the diverging update);
    /// @p losses the loss of every minibatch trained (the first non-finite one last; fewer than
    /// planned when Stop came); @p rows the minibatch's rows; @p seed the replica's seed.
    GradientReplica(GradientConfig config, num::Mlp net, std::vector<double> losses, Eigen::Index rows,
                    std::uint64_t seed);

    /// Throws std::logic_error when ctx.seed() is not the replica's seed.
    void fit(const DatasetView& data, RunContext& ctx) override;

private:
    GradientConfig m_config;
    std::vector<double> m_losses;
    Eigen::Index m_rows;
    std::uint64_t m_seed;
};

} // namespace tb::gradient
