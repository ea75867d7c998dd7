#include "B2ldTrainer.h"

#include "BldCost.h"
#include "BldObjective.h"

#include <training/ArmijoSearch.h>
#include <training/DesignMatrix.h>
#include <training/LbfgsDriver.h>
#include <numerics/LeastSquares.h>
#include <training/MlpObjective.h>
#include <training/Sampling.h>

#include <QJsonArray>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace tb::bld {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Rows per block of the closed-form solve's hidden outputs, between two polls of Stop.
constexpr Eigen::Index kHiddenBlock = 4096;

} // namespace

B2ldTrainer::B2ldTrainer(BldConfig config) : NetworkTrainer("bld"), m_config(std::move(config))
{
    if (m_config.algorithm != Algorithm::B2ld)
        throw std::invalid_argument("bld: B2ldTrainer runs bld.b2ld only");
}

B2ldTrainer::~B2ldTrainer() = default;

QJsonArray B2ldTrainer::layerUpdates() const
{
    return layerUpdatesJson(m_stats);
}

void B2ldTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const BldConfig& c = m_config;
    checkTrainingData(data, true);
    const Eigen::Index n = data.rows();
    m_net = c.makeNetwork(data.inputs(), data.outputs(), deriveSeed(ctx.seed(), kSeedWeights));
    const int layers = m_net.layerCount();
    m_stats.assign(std::size_t(layers), LayerStats{});
    m_settled.assign(std::size_t(layers), false);
    m_endReason.clear();
    m_rho = c.rho(double(m_net.parameterCount()));
    recordNetwork(ctx);
    ctx.record("rho", m_rho);
    const ProblemShape shape{n, data.inputs(), data.outputs(), data.task};
    ctx.record("working_memory_bytes", workingMemory(shape));

    const Eigen::MatrixXd xt = train::transposedCopy(data.x);
    const auto owned = makeObjective(m_net, xt, data.y, m_rho, ctx.stopToken());
    train::MlpObjective& f = *owned;
    if (f.interrupted())
        return;
    m_objective = f.value(m_net.flatten());
    if (f.interrupted())
        return;
    auto checkpoint = [&](double epoch, double loss, const QString& note = {}) {
        ctx.record("layer_updates", layerUpdates());
        return ctx.checkpoint(Checkpoint{epoch, loss, note}) == CheckpointAction::Continue;
    };
    if (!std::isfinite(m_objective)) {
        checkpoint(0, std::numeric_limits<double>::infinity(), QStringLiteral("the objective is not finite"));
        return;
    }
    if (!checkpoint(0, m_objective))
        return;

    std::mt19937_64 orderGen(deriveSeed(ctx.seed(), kSeedOrder));
    std::vector<Eigen::Index> order(static_cast<std::size_t>(layers));
    double epsilon = c.blockTolerance;
    const auto firstSweepStart = Clock::now();
    bool timeUp = false;
    for (int sweep = 0; sweep < c.sweeps && !timeUp; ++sweep) {
        std::iota(order.begin(), order.end(), Eigen::Index(0));
        if (c.order == BlockOrder::Backward)
            std::reverse(order.begin(), order.end());
        else if (c.order == BlockOrder::Random)
            train::shuffle(order, orderGen);
        // Criterion ii (per block, as the paper applies it to B2LD): the sweep is quiet when no
        // visit decreased f by more than relative_decrease. A layer skipped because its block
        // gradient is below ε is not quiet: ε shrinks every sweep, so it will be worked on.
        bool quiet = true;
        for (int pos = 0; pos < layers; ++pos) {
            const int l = int(order[std::size_t(pos)]);
            LayerStats& st = m_stats[std::size_t(l)];
            if (m_settled[std::size_t(l)]) {
                ++st.skippedSettled;
                continue;
            }
            const double before = m_objective;
            const auto t0 = Clock::now();
            const Visit v = visit(f, l, epsilon, data, ctx);
            st.seconds += secondsSince(t0);
            if (v == Visit::Stopped) {
                m_endReason = QStringLiteral("stopped");
                return;
            }
            if (!std::isfinite(m_objective)) {
                ctx.log(QStringLiteral("sweep %1, layer %2: the objective is not finite").arg(sweep + 1).arg(l));
                checkpoint(sweep + double(pos + 1) / layers, std::numeric_limits<double>::infinity());
                return;
            }
            if (v == Visit::Skipped)
                quiet = false;
            if (v == Visit::Updated) {
                if ((before - m_objective) / std::max(before, 1.0) > c.relativeDecrease) {
                    quiet = false;
                    // A real change of this layer moves every other layer's optimum: wake them.
                    for (int o = 0; o < layers; ++o)
                        if (o != l)
                            m_settled[std::size_t(o)] = false;
                }
                // The host answers Stop at the budget: that is the time limit, not a Stop.
                if (!checkpoint(sweep + double(pos + 1) / layers, m_objective) && !ctx.budgetSpent()) {
                    m_endReason = QStringLiteral("stopped");
                    return;
                }
            }
            if (ctx.budgetSpent()) {
                m_endReason = QStringLiteral("time limit");
                ctx.record("sweeps_done", sweep + double(pos + 1) / layers);
                timeUp = true;
                break;
            }
        }
        if (timeUp)
            break;
        if (sweep == 0)
            ctx.record("first_sweep_seconds", secondsSince(firstSweepStart));
        epsilon *= c.toleranceDecay;
        ctx.record("sweeps_done", sweep + 1);
        // Criterion i on the whole gradient (one evaluation through every layer).
        if (c.gradientTolerance > 0) {
            if (!f.selectLayers(0, layers - 1))
                return;
            Eigen::VectorXd g;
            const Eigen::VectorXd w = m_net.flatten();
            f.evaluate(w, g);
            if (f.interrupted())
                return;
            const double norm = g.norm();
            ctx.record("gradient_norm", norm);
            if (c.gradientConverged(norm, w)) {
                m_endReason = QStringLiteral("gradient");
                break;
            }
        }
        if (quiet && c.relativeDecrease > 0) {
            m_endReason = QStringLiteral("relative decrease");
            break;
        }
        if (sweep + 1 == c.sweeps)
            m_endReason = QStringLiteral("sweeps");
    }
    ctx.log(QStringLiteral("B2LD ended (%1) at f = %2").arg(m_endReason).arg(m_objective, 0, 'g', 6));
    ctx.record("end_reason", m_endReason);
    ctx.record("layer_updates", layerUpdates());
}

B2ldTrainer::Visit B2ldTrainer::visit(train::MlpObjective& f, int l, double epsilon, const DatasetView& data,
                                      RunContext& ctx)
{
    const BldConfig& c = m_config;
    LayerStats& st = m_stats[std::size_t(l)];
    if (c.closedFormOutput && l == m_net.layerCount() - 1)
        return closedForm(f, data, ctx);
    if (!f.selectLayers(l, l))
        return Visit::Stopped;
    const Eigen::VectorXd w0 = f.blockWeights();
    Eigen::VectorXd g(f.dimension());
    const double f0 = f.evaluate(w0, g);
    ++st.evaluations;
    if (f.interrupted()) {
        f.setBlockWeights(w0);
        return Visit::Stopped;
    }
    st.gradientNorm = g.norm();
    if (!std::isfinite(f0) || !std::isfinite(st.gradientNorm)) {
        m_objective = std::numeric_limits<double>::infinity();
        return Visit::Unchanged;
    }
    if (st.gradientNorm <= epsilon) {
        ++st.skippedGradient;
        return Visit::Skipped;
    }

    // The safeguard: one Armijo step along the block's steepest descent.
    train::ArmijoSettings as;
    as.initialStep = c.armijoStep;
    as.gamma = c.armijoGamma;
    Eigen::VectorXd wa = w0, ga = g;
    const train::ArmijoResult ar = train::armijoStep(f, wa, f0, ga, as);
    st.evaluations += ar.trials;
    if (ar.interrupted) {
        f.setBlockWeights(w0);
        return Visit::Stopped;
    }
    const double fa = ar.accepted ? ar.value : f0;

    // The candidate: L-BFGS on the block to ‖∇_l f‖₂ ≤ ε within the iteration cap.
    train::LbfgsSettings ls;
    ls.memory = c.memory;
    ls.epsilon = 0; // the absolute block tolerance is checked in the callback
    ls.maxIterations = c.blockIterations;
    ls.lineSearch = c.strongWolfe ? train::LbfgsSettings::LineSearch::StrongWolfe
                                  : train::LbfgsSettings::LineSearch::Armijo;
    const train::LbfgsDriver driver(ls, ctx.stopToken());
    Eigen::VectorXd wl = w0;
    const train::LbfgsReport rep = driver.minimise(f, wl, [&](const train::LbfgsIterate& it) {
        return it.gradient.norm() > epsilon && !ctx.budgetSpent();
    });
    st.lbfgsIterations += rep.iterations;
    st.evaluations += rep.evaluations;
    if (rep.outcome == train::LbfgsOutcome::Stopped) {
        f.setBlockWeights(w0);
        return Visit::Stopped;
    }
    bool candidate = rep.outcome != train::LbfgsOutcome::NonFinite;
    if (rep.outcome == train::LbfgsOutcome::LineSearchFailed) {
        ++st.lineSearchFailures;
        candidate = rep.iterations > 0; // else the driver returned the start itself
    }
    const double fl = rep.value;
    const double moved = (wl - w0).squaredNorm();
    // Condition 4 (no worse than the Armijo point) and 5 (forcing term σ(t) = (γ/a)·t²).
    const bool takeLbfgs =
        candidate && moved > 0 && std::isfinite(fl) && fl <= fa && f0 - fl >= c.armijoGamma / c.armijoStep * moved;
    double fNew = f0;
    if (takeLbfgs) {
        f.setBlockWeights(wl);
        fNew = fl;
        ++st.lbfgsAccepted;
    } else if (ar.accepted) {
        f.setBlockWeights(wa);
        fNew = fa;
        ++st.armijoFallbacks;
    } else {
        // Neither point decreases f: the block is at its numerical minimum.
        f.setBlockWeights(w0);
        ++st.noStep;
        st.relativeDecrease = 0;
        m_settled[std::size_t(l)] = c.relativeDecrease > 0;
        return Visit::Unchanged;
    }
    ++st.updates;
    m_objective = fNew;
    st.relativeDecrease = (f0 - fNew) / std::max(f0, 1.0);
    if (st.relativeDecrease <= c.relativeDecrease)
        m_settled[std::size_t(l)] = true;
    return Visit::Updated;
}

B2ldTrainer::Visit B2ldTrainer::closedForm(train::MlpObjective& f, const DatasetView& data, RunContext& ctx)
{
    const int last = m_net.layerCount() - 1;
    LayerStats& st = m_stats[std::size_t(last)];
    if (!f.selectLayers(last, last))
        return Visit::Stopped;
    const Eigen::VectorXd w0 = f.blockWeights();
    const double f0 = m_objective;
    const Eigen::Index n = data.rows();
    const StopToken stop = ctx.stopToken();
    // H: the last hidden layer's outputs on every row (the inputs for a linear model).
    Eigen::MatrixXd hidden;
    if (last > 0) {
        const num::Mlp head = m_net.slice(0, last - 1);
        hidden.resize(n, head.outputs());
        for (Eigen::Index r0 = 0; r0 < n; r0 += kHiddenBlock) {
            if (stop.stopRequested())
                return Visit::Stopped;
            const Eigen::Index m = std::min(kHiddenBlock, n - r0);
            hidden.middleRows(r0, m) = head.predict(data.x.middleRows(r0, m));
        }
    }
    const Eigen::Ref<const Eigen::MatrixXd> h = last > 0 ? Eigen::Ref<const Eigen::MatrixXd>(hidden) : data.x;
    Eigen::MatrixXd g, cross;
    train::DesignMatrix::augmentedNormalEquations(h, data.y, m_net.bias(last), g, cross, stop);
    if (stop.stopRequested())
        return Visit::Stopped;
    // ∇ of (1/P)‖HW − Y‖² + ρ‖W‖² vanishes at (HᵀH + PρI)W = HᵀY.
    num::LeastSquaresOptions opt;
    opt.ridge = double(n) * m_rho;
    opt.stop = stop;
    num::SolveReport report;
    const Eigen::MatrixXd w = num::solveNormalEquations(g, cross, opt, &report);
    if (report.interrupted)
        return Visit::Stopped;
    const Eigen::VectorXd wv = Eigen::Map<const Eigen::VectorXd>(w.data(), w.size());
    const double fNew = f.value(wv);
    ++st.evaluations;
    if (f.interrupted()) {
        f.setBlockWeights(w0);
        return Visit::Stopped;
    }
    st.gradientNorm = 0;
    if (!(fNew <= f0)) {
        // Rounding only (the minimiser of a convex quadratic cannot be worse): keep W.
        f.setBlockWeights(w0);
        ++st.noStep;
        m_settled[std::size_t(last)] = m_config.relativeDecrease > 0;
        return Visit::Unchanged;
    }
    ++st.closedForm;
    ++st.updates;
    m_objective = fNew;
    st.relativeDecrease = (f0 - fNew) / std::max(f0, 1.0);
    if (st.relativeDecrease <= m_config.relativeDecrease)
        m_settled[std::size_t(last)] = true;
    if (report.fallback)
        ctx.log(QStringLiteral("output layer: %1").arg(QString::fromStdString(report.summary())));
    return Visit::Updated;
}

double B2ldTrainer::workingMemory(const ProblemShape& shape) const
{
    return BldCost(m_config, shape).b2ldMemory();
}

QJsonObject B2ldTrainer::predictCost(const ProblemShape& shape) const
{
    const BldCost cost(m_config, shape);
    return QJsonObject{{"flops", cost.b2ldFirstSweepFlops()},
                       {"scope", QStringLiteral("first sweep")},
                       {"scope_measured_key", QStringLiteral("first_sweep_seconds")},
                       {"memory_bytes", cost.b2ldMemory()},
                       {"model_bytes", cost.modelBytes()}};
}

} // namespace tb::bld
