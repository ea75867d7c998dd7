#include "GradientReplica.h"

#include <training/TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>

#include <stdexcept>

namespace tb::gradient {

GradientReplica::GradientReplica(GradientConfig config, num::Mlp net, std::vector<double> losses, Eigen::Index rows,
                                 std::uint64_t seed)
    : NetworkTrainer("gradient"), m_config(std::move(config)), m_losses(std::move(losses)), m_rows(rows), m_seed(seed)
{
    m_net = std::move(net);
}

void GradientReplica::fit(const DatasetView& data, RunContext& ctx)
{
    // GradientTrainer::fitIn()'s steps, in its order, for the case fitReplicas() covers (double,
    // no validation split, no weight decay, one minibatch an epoch).
    checkTrainingData(data, false);
    if (ctx.seed() != m_seed)
        throw std::logic_error("gradient: a lock-step replica trained with seed " + std::to_string(m_seed) +
                               " was run with seed " + std::to_string(ctx.seed()));
    if (data.rows() != m_rows)
        throw std::logic_error("gradient: a lock-step replica trained on " + std::to_string(m_rows) +
                               " rows was run on " + std::to_string(data.rows()));
    const GradientConfig& c = m_config;
    recordNetwork(ctx);
    ctx.record("batch_size", double(m_rows));
    ctx.record("loss_function", "squared");
    // What the same run alone takes: lock step covers only networks and batches that
    // SmallMlpKernel's lanes fit (lockstepWidth()), and those take the kernel one by one too.
    ctx.record("batch_path", "small_mlp_kernel");

    const Eigen::Index batches = 1;
    train::TrainingLoop::Hooks hooks;
    hooks.step = [&](const train::LoopPosition& at) {
        const std::size_t s = std::size_t(at.step - 1);
        if (s >= m_losses.size())  // Stop came during the lock-step fit
            return train::StepResult{0.0, double(m_rows), true};
        return train::StepResult{m_losses[s], double(m_rows), false};
    };
    // fitIn()'s mean + λ/2‖w‖² with λ = 0 (fitReplicas() takes no weight decay).
    hooks.checkpointLoss = [](double mean) { return mean + 0.0; };
    RunLoopHost host(ctx);
    train::TrainingLoop loop(host);
    loop.checkpointEvery(c.checkpointEvery);
    loop.divergenceMessage([&](const train::LoopPosition& at, double l) {
        return minibatchDivergenceMessage(at.epoch, at.stepInEpoch, batches, l);
    });
    loop.run(train::TrainingLoop::epochs(c.epochs(), batches), hooks);
}

} // namespace tb::gradient
