#include "RidgeTrainer.h"

#include <algorithm>
#include <stdexcept>

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
    return QJsonObject{{"flops", flops},
                       {"gram_flops", n * d * d},
                       {"factorisation_flops", d * d * d / 3.0}};
}

} // namespace tb::linear
