#include "KernelRidgeTrainer.h"

#include "KernelSetup.h"
#include "StopScope.h"

#include <numerics/FirstTouch.h>
#include <training/Sampling.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace tb::dsgd {
namespace {

constexpr Eigen::Index kRowBlock = 256;  // rows of a per task (and per stop poll)
constexpr double kExpFlops = 10.0;       // an exponential counted as ten flops

} // namespace

KernelRidgeTrainer::KernelRidgeTrainer(DsgdConfig config) : m_config(std::move(config))
{
    if (m_config.algorithm != Algorithm::KernelRidge)
        throw std::invalid_argument("dsgd: KernelRidgeTrainer runs dsgd.kernel_ridge only");
}

bool KernelRidgeTrainer::kernelMatrix(train::FeatureKind kind, double sigma, const Eigen::Ref<const Eigen::MatrixXd>& a,
                                      const Eigen::Ref<const Eigen::MatrixXd>& b, Eigen::MatrixXd& out, StopToken stop)
{
    if (a.cols() != b.cols())
        throw std::invalid_argument("kernel matrix: " + std::to_string(a.cols()) + " against " +
                                    std::to_string(b.cols()) + " columns");
    const Eigen::Index rows = a.rows(), cols = b.rows();
    out.resize(rows, cols);
    // Each row block writes every column: fault the matrix in first, in pieces Stop can end between.
    if (!num::touchPolled(out.data(), std::size_t(out.size()) * sizeof(double), [&] { return stop.stopRequested(); }))
        return false;
    const bool laplace = kind == train::FeatureKind::LaplaceCos;
    const Eigen::RowVectorXd bNorms = b.rowwise().squaredNorm().transpose();
    const Eigen::MatrixXd bt = b.transpose();
    const double g = 1.0 / (2.0 * sigma * sigma);
    std::atomic<bool> stopped{false};
    const Eigen::Index blocks = (rows + kRowBlock - 1) / kRowBlock;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        for (Eigen::Index blk = r.begin(); blk < r.end(); ++blk) {
            if (stop.stopRequested()) {
                stopped = true;
                return;
            }
            const Eigen::Index r0 = blk * kRowBlock, m = std::min(kRowBlock, rows - r0);
            auto dst = out.middleRows(r0, m);
            if (laplace) {
                for (Eigen::Index j = 0; j < cols; ++j)
                    for (Eigen::Index i = 0; i < m; ++i)
                        dst(i, j) = std::exp(-(a.row(r0 + i) - b.row(j)).cwiseAbs().sum() / sigma);
                continue;
            }
            // ‖x − y‖² = ‖x‖² + ‖y‖² − 2xᵀy, clamped at 0 against rounding.
            dst.noalias() = -2.0 * a.middleRows(r0, m) * bt;
            dst.colwise() += a.middleRows(r0, m).rowwise().squaredNorm();
            dst.rowwise() += bNorms;
            dst = (-g * dst.array().max(0.0)).exp().matrix();
        }
    });
    return !stopped;
}

void KernelRidgeTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const DsgdConfig& c = m_config;
    KernelSetup::checkData(data);
    const Eigen::Index n = data.rows(), d = data.inputs(), k = data.outputs();
    const Eigen::Index m = std::min(c.subsample, n);
    const double md = double(m);
    // K, the solver's shifted copy and its factor (a fourth m² for the eigen fallback).
    KernelSetup::checkMemory(8.0 * (4.0 * md * md + md * double(d + k)) +
                                 8.0 * double(kRowBlock) * md * std::max(1, ctx.threads()),
                             DsgdConfig::idOf(c.algorithm),
                             QStringLiteral("the %1 × %1 kernel matrix of the subsample and its factorisation").arg(m),
                             QStringLiteral("subsample"));

    m_bandwidth = KernelSetup::bandwidth(c, data.x, ctx.seed());
    ctx.record("bandwidth", m_bandwidth);
    ctx.record("kernel", c.kernel == train::FeatureKind::LaplaceCos ? "laplace" : "gaussian");
    ctx.record("subsample_rows", double(m));

    // A seeded sample without replacement (a partial Fisher–Yates shuffle), kept in data order.
    std::vector<Eigen::Index> rows(static_cast<std::size_t>(n));
    std::iota(rows.begin(), rows.end(), Eigen::Index(0));
    if (m < n) {
        std::mt19937_64 gen(deriveSeed(ctx.seed(), kSeedSubsample));
        for (Eigen::Index i = 0; i < m; ++i)
            std::swap(rows[std::size_t(i)], rows[std::size_t(i + Eigen::Index(train::boundedDraw(gen, std::uint64_t(n - i))))]);
        rows.resize(std::size_t(m));
        std::sort(rows.begin(), rows.end());
    }
    Eigen::MatrixXd centres = data.x(rows, Eigen::all);
    const Eigen::MatrixXd y = data.y(rows, Eigen::all);

    StopScope scope(m_stop, ctx.stopToken());
    Eigen::MatrixXd kmat;
    if (!kernelMatrix(c.kernel, m_bandwidth, centres, centres, kmat, ctx.stopToken()))
        return;
    num::LeastSquaresOptions opt;
    opt.ridge = md * c.nu;
    opt.stop = ctx.stopToken();
    num::SolveReport report;
    Eigen::MatrixXd a = num::solveNormalEquations(kmat, y, opt, &report);
    if (report.interrupted)
        return;
    m_report = report;
    ctx.record("kernel_ridge_solve", QString::fromStdString(report.summary()));
    if (report.fallback)
        ctx.log(QStringLiteral("kernel ridge: %1").arg(QString::fromStdString(report.summary())));
    // The objective at the solution: mean ½‖Ka − y‖² + ν/2·aᵀKa.
    const Eigen::MatrixXd ka = kmat * a;
    const double objective = 0.5 * (ka - y).squaredNorm() / md + 0.5 * c.nu * (a.array() * ka.array()).sum();
    m_centres = std::move(centres);
    m_coefficients = std::move(a);
    m_fitted = true;
    ctx.record("working_memory_bytes", 8.0 * (3.0 * md * md + md * double(d + k)));
    ctx.checkpoint(Checkpoint{1.0, objective, {}});
}

Eigen::MatrixXd KernelRidgeTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (!m_fitted)
        throw std::logic_error("dsgd: predict() called before fit()");
    if (x.cols() != m_centres.cols())
        throw std::invalid_argument("dsgd: the data have " + std::to_string(x.cols()) +
                                    " columns, the model was trained on " + std::to_string(m_centres.cols()));
    const Eigen::Index rows = x.rows();
    Eigen::MatrixXd out(rows, m_coefficients.cols());
    std::atomic<bool> stopped{false};
    const Eigen::Index blocks = (rows + kRowBlock - 1) / kRowBlock;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        Eigen::MatrixXd kb;
        for (Eigen::Index blk = r.begin(); blk < r.end(); ++blk) {
            const Eigen::Index r0 = blk * kRowBlock, m = std::min(kRowBlock, rows - r0);
            if (m_stop.stopRequested() ||
                !kernelMatrix(m_config.kernel, m_bandwidth, x.middleRows(r0, m), m_centres, kb, m_stop)) {
                stopped = true;
                return;
            }
            out.middleRows(r0, m).noalias() = kb * m_coefficients;
        }
    });
    if (stopped)
        return {};  // Stop during a checkpoint's evaluation: the host discards it
    return out;
}

QJsonObject KernelRidgeTrainer::predictCost(const ProblemShape& shape) const
{
    const double m = double(std::min(m_config.subsample, std::max<Eigen::Index>(shape.rows, 1)));
    const double d = double(shape.inputs), k = double(std::max<Eigen::Index>(shape.outputs, 1));
    const double flops = m * m * (2.0 * d + kExpFlops) + m * m * m / 3.0 + 2.0 * m * m * k;
    const int threads = std::max(1, tbb::this_task_arena::max_concurrency());
    return QJsonObject{{"flops", flops},
                       {"memory_bytes", 8.0 * (3.0 * m * m + m * (d + k) + double(kRowBlock) * m * threads) +
                                            KernelSetup::bandwidthBytes(m_config, shape.rows, shape.inputs)},
                       {"model_bytes", 8.0 * m * (d + k)},
                       {"rows", m}};
}

} // namespace tb::dsgd
