#include "RidgeTrainer.h"

#include <CgLeastSquares.h>

#include <QJsonArray>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tbb/task_arena.h>

namespace tb::linear {

RidgeTrainer::RidgeTrainer(const QVariantMap& params)
    : m_ridge(params.value("ridge").toDouble()),
      m_relativeRidge(params.value("relative_ridge").toDouble()),
      m_bias(params.value("bias").toBool())
{
    const QVariantList ladder = params.value("cg_ladder").toList();
    QStringList shown;
    for (const QVariant& v : ladder)
        shown << v.toString();
    auto fail = [&](const QString& why) {
        return std::invalid_argument(
            QStringLiteral("parameter \"cg_ladder\": [%1] %2").arg(shown.join(", "), why).toStdString());
    };
    if (ladder.size() > maxCgRungs)
        throw fail(QStringLiteral("has %1 counts, at most %2").arg(ladder.size()).arg(maxCgRungs));
    for (const QVariant& v : ladder) {
        const int m = v.toInt();
        if (m < 1 || m > maxCgIterations)
            throw fail(QStringLiteral("holds %1, outside [1, %2]").arg(m).arg(maxCgIterations));
        if (!m_cgLadder.empty() && m <= m_cgLadder.back())
            throw fail(QStringLiteral("is not strictly increasing: %1 follows %2").arg(m).arg(m_cgLadder.back()));
        m_cgLadder.push_back(m);
    }
}

void RidgeTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    if (!data.x.allFinite() || !data.y.allFinite())
        throw std::invalid_argument("linear: the training data contain NaN or Inf");
    const Eigen::Index n = data.rows(), d = data.inputs();
    Eigen::MatrixXd a(n, d + (m_bias ? 1 : 0));
    // The copy is the first touch of n·d doubles: on a machine where page faults are slow (this
    // VM: about 0.5 s for 20000 × 1500) it would outlast the 200 ms Stop promise, so it goes in
    // column blocks of about 16 MB with a poll of Stop between them (the same values).
    const Eigen::Index block = std::max<Eigen::Index>(1, Eigen::Index(2) * 1024 * 1024 / std::max<Eigen::Index>(n, 1));
    for (Eigen::Index j = 0; j < d; j += block) {
        if (ctx.stopRequested())
            return;  // Stop: no model, as below
        const Eigen::Index w = std::min(block, d - j);
        a.middleCols(j, w) = data.x.middleCols(j, w);
    }
    if (m_bias)
        a.col(d).setOnes();
    if (m_cgLadder.empty())
        fitClosedForm(a, data, ctx);
    else
        fitCg(a, data, ctx);
}

void RidgeTrainer::fitClosedForm(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx)
{
    num::LeastSquaresOptions opt;
    opt.ridge = m_ridge;
    opt.relativeRidge = m_relativeRidge;  // takes precedence when > 0
    opt.stop = ctx.stopToken();  // polled inside the Gram accumulation and large factorisations
    num::SolveReport rep;
    Eigen::MatrixXd w = num::solveLeastSquares(a, data.y, opt, &rep);
    if (rep.interrupted)
        return;  // Stop: no model (predict() keeps refusing), the host marks the run cancelled
    m_w = std::move(w);
    ctx.record("solver", QString::fromStdString(rep.summary()));
    ctx.record("gram_seconds", rep.gramSeconds);
    ctx.record("solve_seconds", rep.solveSeconds);
    ctx.checkpoint(Checkpoint{1.0, std::numeric_limits<double>::quiet_NaN(),
                              rep.fallback ? QString::fromStdString(rep.summary()) : QString()});
}

void RidgeTrainer::fitCg(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx)
{
    // The same λ as the closed form: relative_ridge·trace(AᵀA)/d when set, trace(AᵀA) = ‖A‖²_F.
    double lambda = m_ridge;
    if (m_relativeRidge > 0 && a.cols() > 0)
        lambda = m_relativeRidge * a.squaredNorm() / double(a.cols());
    num::CgLeastSquares cg(a, data.y, lambda, ctx.stopToken());
    if (cg.stopped())
        return; // Stop before the first iterate: no model, the run is cancelled
    ctx.record("solver", QStringLiteral("conjugate gradients on the normal equations (CGLS) from 0, λ = %1")
                             .arg(lambda, 0, 'g', 6));
    ctx.record("ridge_used", lambda);
    const double n = double(std::max<Eigen::Index>(a.rows(), 1));
    QJsonArray residuals;
    for (const int m : m_cgLadder) {
        if (!cg.iterateTo(m))
            return; // Stop: the last checkpoint's model stays
        m_w = cg.solution();
        residuals.append(cg.relativeNormalResidual());
        ctx.record("cg_relative_residuals", residuals);
        // The clock runs on: iterate m's time from the start of fit() is its own cost.
        if (ctx.checkpoint(Checkpoint{double(m), cg.objective() / n, {}}) == CheckpointAction::Stop)
            return;
    }
}

Eigen::MatrixXd RidgeTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (m_w.size() == 0)
        throw std::logic_error("linear: predict() called before fit() completed");
    const Eigen::Index d = m_w.rows() - (m_bias ? 1 : 0);
    if (x.cols() != d)
        throw std::invalid_argument("linear: predict() got " + std::to_string(x.cols()) + " inputs, the model has " +
                                    std::to_string(d));
    Eigen::MatrixXd out = x * m_w.topRows(d);
    if (m_bias)
        out.rowwise() += m_w.row(d);
    return out;
}

QJsonObject RidgeTrainer::predictCost(const ProblemShape& s) const
{
    const double n = double(s.rows), d = double(s.inputs + (m_bias ? 1 : 0)), k = double(s.outputs);
    if (!m_cgLadder.empty()) {
        // AᵀY once, then per iteration one product with A and one with Aᵀ. Memory: the design
        // and the targets, CG's few d×k and n×k vectors, the host's evaluation.
        const double iterations = double(m_cgLadder.back());
        const double memory = 8.0 * (n * d + n * k + 6 * d * k + 2 * n * k + 4 * n * k);
        return QJsonObject{{"flops", 2 * n * d * k + iterations * 4 * n * d * k},
                           {"iteration_flops", 4 * n * d * k},
                           {"iterations", iterations},
                           {"memory_bytes", memory}};
    }
    // Gram (symmetric rank-n update: n·d² multiply-adds) + cross products + Cholesky + 2k triangular solves.
    const double flops = n * d * d + 2 * n * d * k + d * d * d / 3.0 + 2 * d * d * k;
    // Working memory, an upper bound: the design [X 1] and a copy of the targets, a Gram and
    // cross product per row chunk (one per thread, ≥ 256 rows each), the summed Gram with its
    // factor (or, for a singular one, the eigen fallback's vectors and workspace), the weights,
    // and the host's evaluation (predictions and targets of the training and test sets).
    const double chunks = std::max(1.0, std::min(double(tbb::this_task_arena::max_concurrency()), std::floor(n / 256)));
    const double memory = 8.0 * (n * d + n * k + chunks * (d * d + d * k) + 5 * d * d + 2 * d * k + 4 * n * k);
    return QJsonObject{{"flops", flops},
                       {"gram_flops", n * d * d},
                       {"factorisation_flops", d * d * d / 3.0},
                       {"memory_bytes", memory}};
}

} // namespace tb::linear
