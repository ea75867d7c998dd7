#include "LbfgsTrainer.h"

#include "BatchGradient.h"
#include "Sampling.h"

#include <LBFGS.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::gradient {
namespace {

// Thrown out of LBFGS++'s line search when Stop is pressed mid-evaluation.
struct StopSignal {};

// f(w) and ∇f(w) in the form LBFGS++'s line searches call.
class Objective {
public:
    Objective(num::Mlp& net, BatchGradient& engine, Eigen::Index n, double lambda, const RunContext& ctx)
        : m_net(net), m_engine(engine), m_n(n), m_lambda(lambda), m_ctx(ctx), m_grads(net.zeroGradients())
    {
    }

    double operator()(const Eigen::VectorXd& w, Eigen::VectorXd& grad)
    {
        m_net.unflatten(w);
        const BatchGradient::Result r = m_engine.gradient(m_net, nullptr, 0, m_n, m_grads, &m_ctx);
        if (r.stopped || m_ctx.stopRequested())
            throw StopSignal{};
        ++m_evaluations;
        num::Mlp::flattenInto(m_grads, grad);
        grad /= double(m_n);
        double f = r.loss / double(m_n);
        if (m_lambda > 0) {
            f += 0.5 * m_lambda * w.squaredNorm();
            grad += m_lambda * w;
        }
        return f;
    }

    long long evaluations() const { return m_evaluations; }

private:
    num::Mlp& m_net;
    BatchGradient& m_engine;
    Eigen::Index m_n;
    double m_lambda;
    const RunContext& m_ctx;
    std::vector<Eigen::MatrixXd> m_grads;
    long long m_evaluations = 0;
};

} // namespace

LbfgsTrainer::LbfgsTrainer(GradientConfig config) : m_config(std::move(config))
{
    if (!m_config.kind.lbfgs)
        throw std::invalid_argument("gradient: LbfgsTrainer runs L-BFGS only");
}

void LbfgsTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const GradientConfig& c = m_config;
    const Eigen::Index n = data.rows();
    if (n < 1)
        throw std::invalid_argument("gradient: the training set is empty");
    const num::MlpLoss loss = c.resolveLoss(data.task);
    m_net = c.makeNetwork(data.inputs(), data.outputs(), data.task, deriveSeed(ctx.seed(), kSeedWeights));
    const Eigen::MatrixXd xt = transposedCopy(data.x);
    BatchGradient engine(m_net, loss, xt, data.y, n);
    Objective f(m_net, engine, n, c.weightDecay, ctx);
    ctx.record("network", QString::fromStdString(m_net.describe()));
    ctx.record("weights", double(m_net.parameterCount()));

    LBFGSpp::LBFGSParam<double> param;
    param.m = c.memory;
    param.epsilon = c.tolerance;
    param.epsilon_rel = c.tolerance;
    param.max_iterations = c.iterations;
    param.linesearch = c.strongWolfe ? LBFGSpp::LBFGS_LINESEARCH_BACKTRACKING_STRONG_WOLFE
                                     : LBFGSpp::LBFGS_LINESEARCH_BACKTRACKING_ARMIJO;
    param.check_param();

    const Eigen::Index p = m_net.parameterCount();
    LBFGSpp::BFGSMat<double> bfgs;
    bfgs.reset(int(p), c.memory);
    Eigen::VectorXd x = m_net.flatten(), grad(p), xp(p), gradp(p), drt(p);

    auto converged = [&](const Eigen::VectorXd& g, const Eigen::VectorXd& w) {
        return g.norm() <= c.tolerance * std::max(1.0, w.norm());
    };
    auto diverged = [&](int iteration, double fx) {
        ctx.log(QStringLiteral("diverged in iteration %1: the objective is %2").arg(iteration).arg(fx));
        ctx.record("diverged_at_epoch", iteration);
        ctx.checkpoint(Checkpoint{double(iteration), std::numeric_limits<double>::infinity(), {}});
    };
    auto finish = [&] { ctx.record("function_evaluations", double(f.evaluations())); };

    double fx = 0;
    try {
        fx = f(x, grad);
    } catch (const StopSignal&) {
        return;
    }
    if (!std::isfinite(fx) || !grad.allFinite()) {
        diverged(0, fx);
        return;
    }
    if (converged(grad, x)) {
        ctx.record("converged_at_iteration", 0);
        finish();
        ctx.checkpoint(Checkpoint{0.0, fx, {}});
        return;
    }
    drt = -grad;
    double step = 1.0 / drt.norm();
    for (int k = 1; k <= c.iterations; ++k) {
        xp = x;
        gradp = grad;
        const double fxp = fx;
        QString failure;
        try {
            if (c.strongWolfe)
                LBFGSpp::LineSearchNocedalWright<double>::LineSearch(f, fx, x, grad, step, drt, xp, param);
            else
                LBFGSpp::LineSearchBacktracking<double>::LineSearch(f, fx, x, grad, step, drt, xp, param);
        } catch (const StopSignal&) {
            m_net.unflatten(xp);  // predict() must describe accepted weights
            return;
        } catch (const std::exception& e) {
            failure = QString::fromUtf8(e.what());
        }
        if (failure.isEmpty() && (!std::isfinite(fx) || !grad.allFinite())) {
            diverged(k, fx);
            return;
        }
        if (failure.isEmpty() && !(fx <= fxp))
            failure = QStringLiteral("no decrease along the search direction");
        if (!failure.isEmpty()) {
            // Nothing better than the previous point: keep it and end as converged as possible.
            x = xp;
            fx = fxp;
            m_net.unflatten(x);
            ctx.log(QStringLiteral("L-BFGS line search stopped in iteration %1: %2").arg(k).arg(failure));
            ctx.record("line_search", failure);
            finish();
            ctx.checkpoint(Checkpoint{double(k), fx, {}});
            return;
        }
        m_net.unflatten(x);
        const bool done = converged(grad, x);
        if (done) {
            ctx.record("converged_at_iteration", k);
            finish();
        }
        if (ctx.checkpoint(Checkpoint{double(k), fx, {}}) == CheckpointAction::Stop || done)
            return;
        bfgs.add_correction(x - xp, grad - gradp);
        bfgs.apply_Hv(grad, -1.0, drt);
        step = 1.0;
    }
    finish();
}

Eigen::MatrixXd LbfgsTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (m_net.layerCount() == 0)
        throw std::logic_error("gradient: predict() called before fit()");
    return m_net.predict(x);
}

QJsonObject LbfgsTrainer::predictCost(const ProblemShape& shape) const
{
    return QJsonObject{{"flops_per_evaluation", 6.0 * m_config.weightCount(shape.inputs, shape.outputs) *
                                                    double(shape.rows)}};
}

} // namespace tb::gradient
