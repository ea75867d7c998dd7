#include "GlsSolver.h"

#include <training/Sampling.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace tb::lsq {
namespace {

using Clock = std::chrono::steady_clock;

// DesignMatrix keeps one Gram matrix per thread part while it sums them: the memory accounting
// assumes two parts (a 2-thread arena).
constexpr double kGramParts = 2.0;

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// @p count distinct rows of [0, n), seeded (a partial Fisher–Yates shuffle), in increasing order
// so that the subset is gathered in memory order.
std::vector<Eigen::Index> sampleRows(Eigen::Index n, Eigen::Index count, std::uint64_t seed)
{
    std::vector<Eigen::Index> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), Eigen::Index(0));
    std::mt19937_64 g(seed);
    for (Eigen::Index i = 0; i < count; ++i) {
        const Eigen::Index j = i + Eigen::Index(train::boundedDraw(g, std::uint64_t(n - i)));
        std::swap(all[std::size_t(i)], all[std::size_t(j)]);
    }
    all.resize(std::size_t(count));
    std::sort(all.begin(), all.end());
    return all;
}

} // namespace

void GlsSolver::softmaxRows(Eigen::Ref<Eigen::MatrixXd> z)
{
    const Eigen::VectorXd mx = z.rowwise().maxCoeff();
    z = (z.colwise() - mx).array().exp().matrix();
    const Eigen::VectorXd sums = z.rowwise().sum();
    z.array().colwise() /= sums.array();
}

double GlsSolver::objective(Link link, const Eigen::Ref<const Eigen::MatrixXd>& outputs,
                            const Eigen::Ref<const Eigen::MatrixXd>& y, const Eigen::MatrixXd& w, double lambda, bool bias)
{
    const Eigen::Index n = outputs.rows();
    if (n == 0)
        return 0.0;
    double loss = 0.0;
    if (link == Link::Identity) {
        loss = 0.5 * (outputs - y).squaredNorm() / double(n);
    } else {
        // Cross-entropy of the softmax for targets on the simplex: logsumexp(z) − yᵀz per row.
        const Eigen::VectorXd mx = outputs.rowwise().maxCoeff();
        const Eigen::VectorXd lse =
            mx.array() + (outputs.colwise() - mx).array().exp().rowwise().sum().log();
        const Eigen::VectorXd yz = (outputs.array() * y.array()).rowwise().sum();
        loss = (lse - yz).sum() / double(n);
    }
    const Eigen::Index p = w.rows() - (bias ? 1 : 0);
    return loss + 0.5 * lambda * w.topRows(p).squaredNorm();
}

bool GlsSolver::stopped()
{
    m_report.stopped = true;
    return false;
}

bool GlsSolver::factorise(Eigen::MatrixXd& m, StopToken stop)
{
    // m holds the Gram over the rows used; M = L·Σ̂ + λI (bias excluded) is built in place.
    const auto t0 = Clock::now();
    const Eigen::Index pb = m.rows(), p = pb - (m_settings.bias ? 1 : 0);
    m /= double(m_report.sigmaRows);
    m_report.lambda = m_settings.ridge;
    if (m_settings.relativeRidge > 0 && p > 0)
        m_report.lambda = m_settings.relativeRidge * m.topLeftCorner(p, p).trace() / double(p);
    if (m_settings.ridgeFloor > 0 && p > 0)
        m_report.lambda =
            std::max(m_report.lambda, m_settings.ridgeFloor * m.topLeftCorner(p, p).trace() / std::sqrt(double(p)));
    if (m_settings.spectrum && p > 0) {
        const auto eig = num::symmetricEigen(m.topLeftCorner(p, p), false, stop);
        if (!eig)
            return stopped();
        m_report.spectrum = eig->values;
        m_report.peakBytes = std::max(m_report.peakBytes, 2.0 * 8.0 * double(pb) * double(pb));
    }
    m *= m_settings.lipschitz;
    m.diagonal().head(p).array() += m_report.lambda;
    num::LeastSquaresOptions opt;
    opt.stop = stop;
    if (!m_factor.factorise(m, opt, &m_report.factor))
        return stopped();
    m_report.peakBytes = std::max(m_report.peakBytes, 2.0 * 8.0 * double(pb) * double(pb));
    m.resize(0, 0);
    m_report.factorSeconds += since(t0);
    return true;
}

template <class Design>
bool GlsSolver::prepare(const Design& f, const GlsSettings& s, StopToken stop)
{
    m_settings = s;
    m_report = GlsReport{};
    if (s.iterations < 1 || !(s.lipschitz > 0))
        throw std::invalid_argument("lsq: GLS needs at least one iteration and L > 0");
    const auto t0 = Clock::now();
    const Eigen::Index n = f.rows(), pb = f.cols() + (s.bias ? 1 : 0);
    const double gramBytes = 8.0 * double(pb) * double(pb) * (f.precision() == train::Precision::Mixed ? 1.5 : 1.0);
    Eigen::MatrixXd m;
    if (s.sigmaRows > 0 && s.sigmaRows < n) {
        const Design sub = f.subset(sampleRows(n, s.sigmaRows, s.sampleSeed));
        m = sub.gram(s.bias);
        m_report.sigmaRows = s.sigmaRows;
        m_report.peakBytes = kGramParts * gramBytes + sub.storedBytes();
    } else {
        m = f.gram(s.bias);
        m_report.sigmaRows = n;
        m_report.peakBytes = kGramParts * gramBytes;
    }
    if (f.stopped())
        return stopped();
    m_report.gramSeconds = since(t0);
    return factorise(m, stop);
}

template <class Design>
bool GlsSolver::solveStep(const Design& f, const Eigen::Ref<const Eigen::MatrixXd>& target,
                          Eigen::MatrixXd& w)
{
    if (!m_factor.isFactorised())
        throw std::logic_error("lsq: GlsSolver::solveStep() before prepare()");
    const auto t0 = Clock::now();
    const Eigen::MatrixXd c = f.cross(target, m_settings.bias);
    if (f.stopped())
        return stopped();
    w = m_factor.solve(c / double(f.rows()));
    m_report.iterationSeconds += since(t0);
    return true;
}

template <class Design>
bool GlsSolver::fit(const Design& f, const Eigen::Ref<const Eigen::MatrixXd>& y,
                    const Eigen::MatrixXd* offset, const GlsSettings& s, StopToken stop, const Iterate& onIterate)
{
    const Eigen::Index n = f.rows(), pb = f.cols() + (s.bias ? 1 : 0), k = y.cols();
    const bool oneShot = s.link == Link::Identity && s.iterations == 1 && !(s.sigmaRows > 0 && s.sigmaRows < n);
    if (!oneShot) {
        if (!prepare(f, s, stop))
            return false;
        return run(f, y, offset, stop, onIterate);
    }
    // Identity link, one step from W = 0 with the Gram and Fᵀ(Y − O) in one pass over the rows:
    // W = (L·Σ̂ + λI)⁻¹·Fᵀ(Y − O)/n, the ridge solution for L = 1.
    m_settings = s;
    m_report = GlsReport{};
    if (y.rows() != n || (offset && (offset->rows() != n || offset->cols() != k)))
        throw std::invalid_argument("lsq: targets or offset of the wrong shape for the design");
    auto t0 = Clock::now();
    Eigen::MatrixXd target = y;
    if (offset)
        target -= *offset;
    Eigen::MatrixXd m, c;
    f.normalEquations(target, s.bias, m, c);
    if (f.stopped())
        return stopped();
    const double nk = 8.0 * double(n) * double(k);
    m_report.peakBytes = kGramParts * 8.0 * double(pb) * double(pb) *
                             (f.precision() == train::Precision::Mixed ? 1.5 : 1.0) + 2.0 * nk;
    m_report.sigmaRows = n;
    m_report.gramSeconds = since(t0);
    if (!factorise(m, stop))
        return false;
    t0 = Clock::now();
    const Eigen::MatrixXd w = m_factor.solve(c / double(n));
    Eigen::MatrixXd zw;
    f.product(w, s.bias, zw);
    if (f.stopped())
        return stopped();
    if (offset)
        zw += *offset;
    m_report.peakBytes = std::max(m_report.peakBytes, m_factor.bytes() + 3.0 * nk);
    const double obj = objective(s.link, zw, y, w, m_report.lambda, s.bias);
    m_report.iterationSeconds = since(t0);
    onIterate(1, w, zw, obj);
    return true;
}

template <class Design>
bool GlsSolver::run(const Design& f, const Eigen::Ref<const Eigen::MatrixXd>& y,
                    const Eigen::MatrixXd* offset, StopToken stop, const Iterate& onIterate)
{
    if (!m_factor.isFactorised())
        throw std::logic_error("lsq: GlsSolver::run() before prepare()");
    const GlsSettings& s = m_settings;
    const Eigen::Index n = f.rows(), p = f.cols(), k = y.cols(), pb = p + (s.bias ? 1 : 0);
    if (y.rows() != n)
        throw std::invalid_argument("lsq: the targets have " + std::to_string(y.rows()) + " rows, the design " +
                                    std::to_string(n));
    if (offset && (offset->rows() != n || offset->cols() != k))
        throw std::invalid_argument("lsq: offset of the wrong shape");
    if (m_factor.dimension() != pb)
        throw std::invalid_argument("lsq: the design does not match the prepared factorisation");
    auto t0 = Clock::now();
    const double lambda = m_report.lambda;
    const double nk = 8.0 * double(n) * double(k);
    m_report.peakBytes = std::max(m_report.peakBytes, m_factor.bytes() + 4.0 * nk + 6.0 * 8.0 * double(pb) * double(k));

    // One fused pass at the point P: outputs Z(P) = O + F·P into zp, gradient from R = g(Z) − Y.
    Eigen::MatrixXd zp(n, k);
    const train::DesignMatrix::BlockLink link = [&](Eigen::Index r0, Eigen::Ref<Eigen::MatrixXd> z) {
        const Eigen::Index rows = z.rows();
        if (offset)
            z += offset->middleRows(r0, rows);
        zp.middleRows(r0, rows) = z;
        if (s.link == Link::Softmax)
            softmaxRows(z);
        z -= y.middleRows(r0, rows);
        return 0.0;
    };
    const auto gradientAt = [&](const Eigen::MatrixXd& point, Eigen::MatrixXd& grad) {
        grad = f.productCross(point, s.bias, link) / double(n);
        grad.topRows(p) += lambda * point.topRows(p);
        return !f.stopped();
    };

    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(pb, k), point = w, grad, next, previous, zw, zwPrev;
    if (!gradientAt(point, grad))
        return stopped();
    zw = zp;
    double theta = 1.0;
    for (Eigen::Index t = 1; t <= s.iterations; ++t) {
        if (stop.stopRequested())
            return stopped();
        next = point - m_factor.solve(grad);
        double beta = 0.0;
        if (s.acceleration) {
            const double thetaNext = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * theta * theta));
            beta = (theta - 1.0) / thetaNext;
            theta = thetaNext;
            // Gradient restart (O'Donoghue & Candès 2015): the step went uphill along ∇ at P.
            if ((grad.array() * (next - w).array()).sum() > 0.0) {
                beta = 0.0;
                theta = 1.0;
                ++m_report.restarts;
            }
        }
        previous.swap(w);
        w = next;
        zwPrev.swap(zw);
        if (t < s.iterations) {
            point = w + beta * (w - previous);
            if (!gradientAt(point, grad))
                return stopped();
            // Z(P) = (1 + β)·Z(W) − β·Z(W_prev), solved for Z(W).
            if (beta > 0)
                zw = (zp + beta * zwPrev) / (1.0 + beta);
            else
                zw = zp;
        } else {
            f.product(w, s.bias, zw);
            if (f.stopped())
                return stopped();
            if (offset)
                zw += *offset;
        }
        const double obj = objective(s.link, zw, y, w, lambda, s.bias);
        m_report.iterationSeconds += since(t0); // the callback (a checkpoint) is not the solver's time
        if (!onIterate(t, w, zw, obj))
            return true;
        t0 = Clock::now();
    }
    return true;
}

// The dense designs (random features, raw inputs) and the sparse ones (raw inputs or blocks of
// their columns on sparse data): the same algorithm on either.
#define TB_GLS_INSTANTIATE(Design)                                                                                    \
    template bool GlsSolver::prepare<Design>(const Design&, const GlsSettings&, StopToken);                          \
    template bool GlsSolver::solveStep<Design>(const Design&, const Eigen::Ref<const Eigen::MatrixXd>&,                \
                                               Eigen::MatrixXd&);                                                      \
    template bool GlsSolver::fit<Design>(const Design&, const Eigen::Ref<const Eigen::MatrixXd>&,                      \
                                         const Eigen::MatrixXd*, const GlsSettings&, StopToken, const Iterate&);       \
    template bool GlsSolver::run<Design>(const Design&, const Eigen::Ref<const Eigen::MatrixXd>&,                      \
                                         const Eigen::MatrixXd*, StopToken, const Iterate&);
TB_GLS_INSTANTIATE(train::DesignMatrix)
TB_GLS_INSTANTIATE(SparseDesign)
#undef TB_GLS_INSTANTIATE

} // namespace tb::lsq
