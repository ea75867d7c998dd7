#include "TrainingLoop.h"

#include <cmath>
#include <cstdio>

namespace tb::train {
namespace {

std::string number(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

} // namespace

const char* loopEndName(LoopEnd e)
{
    switch (e) {
    case LoopEnd::Completed: return "completed";
    case LoopEnd::Stopped: return "stopped";
    case LoopEnd::Budget: return "budget";
    case LoopEnd::Diverged: return "diverged";
    case LoopEnd::EarlyStopped: return "early stopped";
    }
    return "?";
}

void TrainingLoop::earlyStopping(int patience, std::function<std::optional<double>()> validationLoss,
                                 std::function<void()> saveBest, std::function<void()> restoreBest)
{
    m_patience = patience < 1 ? 1 : patience;
    m_validationLoss = std::move(validationLoss);
    m_saveBest = std::move(saveBest);
    m_restoreBest = std::move(restoreBest);
}

LoopEnd TrainingLoop::diverged(double loss, const Hooks& hooks, bool epochEnd)
{
    if (hooks.beforeDivergence)
        hooks.beforeDivergence(m_pos);
    m_host.log(m_message ? m_message(m_pos, loss)
                         : "diverged at step " + std::to_string(m_pos.step) + " (epoch " + number(m_pos.epochs) +
                               "): the " + (epochEnd ? "epoch's" : "step's") + " loss is " + number(loss));
    m_host.record("diverged_at_epoch", m_pos.epochs);
    // An infinite loss: the host marks the run diverged at this epoch.
    m_host.checkpoint(m_pos.epochs, std::numeric_limits<double>::infinity(), std::string());
    return LoopEnd::Diverged;
}

bool TrainingLoop::endEpoch(const Plan& plan, const Hooks& hooks, bool budget, LoopEnd& end)
{
    double loss = 0;
    if (hooks.epochLoss) {
        const std::optional<double> l = hooks.epochLoss(m_pos);
        if (!l) {
            end = LoopEnd::Stopped;
            return true;
        }
        if (!std::isfinite(*l)) {
            end = diverged(*l, hooks, true);
            return true;
        }
        loss = *l;
    } else {
        const double mean = m_lossSum / m_rows;
        loss = hooks.checkpointLoss ? hooks.checkpointLoss(mean) : mean;
    }
    bool stopEarly = false;
    if (m_validationLoss) {
        const std::optional<double> v = m_validationLoss();
        if (!v) {
            end = LoopEnd::Stopped;
            return true;
        }
        const long long epoch = m_pos.epoch + 1;
        if (*v < m_bestLoss) {
            m_bestLoss = *v;
            if (m_saveBest)
                m_saveBest();
            m_bestEpoch = epoch;
            m_sinceBest = 0;
        } else {
            ++m_sinceBest;
        }
        stopEarly = m_sinceBest >= m_patience;
        // The run ends with the best weights seen (Keras' restore_best_weights).
        if ((stopEarly || epoch == plan.epochs) && m_bestEpoch != epoch && m_bestEpoch > 0) {
            if (m_restoreBest)
                m_restoreBest();
            m_host.log("early stopping: restored the weights of epoch " + std::to_string(m_bestEpoch) +
                       " (validation loss " + number(m_bestLoss) + ")");
        }
        if (stopEarly) {
            m_host.record("early_stopped_at_epoch", double(epoch));
            m_host.record("best_epoch", double(m_bestEpoch));
        }
    }
    if (m_atEpochEnds || budget) {
        if (hooks.beforeCheckpoint)
            hooks.beforeCheckpoint(m_pos);
        if (!checkpoint(m_pos.epochs, loss)) {
            end = budget || (m_pollBudget && m_host.budgetSpent()) ? LoopEnd::Budget : LoopEnd::Stopped;
            return true;
        }
    }
    m_lossSum = 0;
    m_rows = 0;
    if (budget) {
        end = LoopEnd::Budget;
        return true;
    }
    if (stopEarly) {
        end = LoopEnd::EarlyStopped;
        return true;
    }
    return false;
}

LoopEnd TrainingLoop::run(const Plan& plan, const Hooks& hooks)
{
    m_pos = LoopPosition{};
    m_lossSum = 0;
    m_rows = 0;
    m_bestLoss = std::numeric_limits<double>::infinity();
    m_bestEpoch = 0;
    m_sinceBest = 0;
    const bool byEpochs = plan.steps <= 0;
    const long long perEpoch = byEpochs ? (plan.stepsPerEpoch < 1 ? 1 : plan.stepsPerEpoch) : 0;
    const long long total = byEpochs ? plan.epochs * perEpoch : plan.steps;
    for (long long s = 0; s < total; ++s) {
        const long long epoch = byEpochs ? s / perEpoch : 0, b = byEpochs ? s % perEpoch : s;
        if (byEpochs && b == 0 && hooks.beginEpoch)
            hooks.beginEpoch(epoch);
        if (m_host.stopRequested())
            return LoopEnd::Stopped;
        m_pos.step = s + 1;
        m_pos.epoch = epoch;
        m_pos.stepInEpoch = b + 1;
        m_pos.stepsPerEpoch = perEpoch;
        // The position the step reaches (the same arithmetic the trainers used: e + (b + 1)/n).
        m_pos.epochs = byEpochs ? double(epoch) + double(b + 1) / double(perEpoch) : 0.0;
        const StepResult r = hooks.step(m_pos);
        if (!byEpochs && plan.epochOf)
            m_pos.epochs = plan.epochOf();
        if (r.stopped)
            return LoopEnd::Stopped;
        if (!std::isfinite(r.loss))
            return diverged(r.loss, hooks, false);
        m_lossSum += r.loss;
        m_rows += r.rows;
        const bool budget = m_pollBudget && m_host.budgetSpent();

        if (m_due) {
            // A cadence of its own: checkpoints where it says, the loss since the previous one.
            if (m_due(m_pos)) {
                if (hooks.beforeCheckpoint)
                    hooks.beforeCheckpoint(m_pos);
                const double mean = m_lossSum / m_rows;
                m_lossSum = 0;
                m_rows = 0;
                if (!checkpoint(m_pos.epochs, hooks.checkpointLoss ? hooks.checkpointLoss(mean) : mean))
                    return m_pollBudget && m_host.budgetSpent() ? LoopEnd::Budget : LoopEnd::Stopped;
            } else if (budget) {
                if (hooks.beforeCheckpoint)
                    hooks.beforeCheckpoint(m_pos);
                const double mean = m_rows > 0 ? m_lossSum / m_rows : 0.0;
                checkpoint(m_pos.epochs, hooks.checkpointLoss ? hooks.checkpointLoss(mean) : mean);
            }
            if (budget)
                return LoopEnd::Budget;
            if (r.finished)
                return LoopEnd::Completed;
            continue;
        }

        const bool epochEnd = byEpochs && b + 1 == perEpoch;
        if (m_every > 0 && (b + 1) % m_every == 0 && !epochEnd && !budget && !r.finished) {
            if (hooks.beforeCheckpoint)
                hooks.beforeCheckpoint(m_pos);
            const double mean = m_lossSum / m_rows;
            if (!checkpoint(m_pos.epochs, hooks.checkpointLoss ? hooks.checkpointLoss(mean) : mean))
                return m_pollBudget && m_host.budgetSpent() ? LoopEnd::Budget : LoopEnd::Stopped;
        }
        if (epochEnd || budget || r.finished) {
            if (LoopEnd end{}; endEpoch(plan, hooks, budget, end))
                return end;
            if (r.finished)
                return LoopEnd::Completed;
        }
    }
    return LoopEnd::Completed;
}

} // namespace tb::train
