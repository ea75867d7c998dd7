#pragma once
/// @file GradientTrainer.h
/// Minibatch training of the shared network with SGD, momentum, NAG, AdaGrad, RMSProp or Adam.

#include "GradientConfig.h"

#include <numerics/Mlp.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/NetworkTrainer.h>

namespace tb::gradient {

/// One run of a first-order method (see GradientConfig for the parameters, Optimizer for the
/// update rules).
///
/// Each epoch visits the training rows in a fresh order (Fisher–Yates from
/// deriveSeed(seed, kSeedShuffle)) in minibatches of batch_size rows; each minibatch is one
/// update with the mean gradient of the batch (+ λw). Checkpoints: every epoch end with the
/// epoch's mean minibatch loss (+ λ/2‖w‖²) and, with checkpoint_every = k, after every k-th
/// minibatch with the running mean so far. Stop is polled before every minibatch and between
/// row blocks of large ones. A non-finite minibatch loss ends the run: the trainer logs the
/// epoch and minibatch, records "diverged_at_epoch" and reports a checkpoint with an infinite
/// loss at the fractional epoch reached, which the host marks as divergence.
///
/// fit() is the update rule only: the training library's TrainingLoop runs the epochs (Stop, the
/// checkpoint cadence, divergence, early stopping), NetworkTrainer gives predict() (network
/// outputs: class probabilities or regression values).
///
/// precision "float32" trains a float copy of the network (float inputs, products, gradients,
/// weights and optimiser state; losses summed in double) and publishes it into the double
/// network before every checkpoint and at the end (GradientConfig::precision).
///
/// Not thread-safe (the host calls it from one thread); fit() parallelises over row chunks in
/// the run's arena (see BatchGradient), with results independent of the thread count.
///
/// Lock step (LockstepTrainer): with double precision, no validation split, no weight decay,
/// the squared error, one minibatch per epoch (batch_size ≥ the training rows, at least 2) and a
/// network num::SmallMlpKernel::fitsLanes() takes, it trains num::kLanes replicas at once —
/// the kernel and the update rule in num::Lanes, each lane the arithmetic of fit() on its own
/// replica (its own initial weights and row order), so every replica gets fit()'s bits.
class GradientTrainer final : public NetworkTrainer, public LockstepTrainer {
public:
    explicit GradientTrainer(GradientConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<GradientTrainer>(config()); }

    /// num::kLanes for the cases above, else 0.
    int lockstepWidth(const ProblemShape& shape) const override;
    void fitReplicas(const std::vector<DatasetView>& data, const std::vector<std::uint64_t>& seeds,
                     StopToken stop) override;
    /// A GradientReplica.
    std::unique_ptr<Trainer> replica(int r) override;

    void fit(const DatasetView& data, RunContext& ctx) override;
    /// {"flops": whole run, "flops_per_epoch": …}: 6·P flops per sample and epoch for P
    /// weights (forward 2P, backward 4P); "memory_bytes": GradientConfig::workingMemoryBytes().
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const GradientConfig& config() const { return m_config; }

private:
    // fit() in the arithmetic of Scalar: double (the default) or float (precision "float32").
    template <class Scalar>
    void fitIn(const DatasetView& data, RunContext& ctx);
    // The facts of a run: the network, the batch and loss used, float32, the held-out rows.
    void recordRunFacts(RunContext& ctx, Eigen::Index batch, num::MlpLoss loss, Eigen::Index validationRows) const;

    GradientConfig m_config;
    std::vector<std::unique_ptr<Trainer>> m_replicas;  // fitReplicas()' results, taken by replica()
};

} // namespace tb::gradient
