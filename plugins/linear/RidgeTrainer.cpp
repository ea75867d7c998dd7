#include "RidgeTrainer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tbb/task_arena.h>

namespace tb::linear {

RidgeTrainer::RidgeTrainer(const QVariantMap& params)
    : m_ridge(params.value("ridge").toDouble()),
      m_relativeRidge(params.value("relative_ridge").toDouble()),
      m_bias(params.value("bias").toBool())
{
}

void RidgeTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    if (!data.x.allFinite() || !data.y.allFinite())
        throw std::invalid_argument("linear: the training data contain NaN or Inf");
    const Eigen::Index n = data.rows(), d = data.inputs();
    Eigen::MatrixXd a(n, d + (m_bias ? 1 : 0));
    a.leftCols(d) = data.x;
    if (m_bias)
        a.col(d).setOnes();

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
