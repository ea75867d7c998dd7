#include "MlpObjective.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::train {
namespace {

// Rows per task of the forward cache: large enough for efficient products.
constexpr Eigen::Index kCacheBlock = 1024;

} // namespace

MlpObjective::MlpObjective(num::Mlp& net, num::MlpLoss loss, const Eigen::MatrixXd& xt,
                           const Eigen::Ref<const Eigen::MatrixXd>& y, double lossDivisor, double l2, StopToken stop)
    : m_net(net), m_loss(loss), m_xt(xt), m_y(y), m_divisor(lossDivisor), m_l2(l2), m_stop(stop)
{
    if (net.layerCount() == 0)
        throw std::invalid_argument("objective: the network is empty");
    if (xt.rows() != net.inputs() || y.cols() != net.outputs() || xt.cols() != y.rows())
        throw std::invalid_argument("objective: inputs " + std::to_string(xt.cols()) + "x" + std::to_string(xt.rows()) +
                                    " and targets " + std::to_string(y.rows()) + "x" + std::to_string(y.cols()) +
                                    " do not fit the network " + net.describe());
    if (!(lossDivisor > 0) || !std::isfinite(lossDivisor))
        throw std::invalid_argument("objective: the loss divisor must be positive, got " + std::to_string(lossDivisor));
    if (!(l2 >= 0) || !std::isfinite(l2))
        throw std::invalid_argument("objective: the L2 weight must be ≥ 0, got " + std::to_string(l2));
    if (!selectLayers(0, net.layerCount() - 1))
        m_interrupted = true;
}

MlpObjective::~MlpObjective() = default;

bool MlpObjective::selectLayers(int first, int last)
{
    const int layers = m_net.layerCount();
    if (first < 0 || last < first || last >= layers)
        throw std::invalid_argument("objective: layers [" + std::to_string(first) + ", " + std::to_string(last) +
                                    "] are not a block of a network with " + std::to_string(layers) + " layers");
    m_first = first;
    m_last = last;
    m_dimension = 0;
    m_fixedSquaredNorm = 0;
    for (int l = 0; l < layers; ++l) {
        if (l >= first && l <= last)
            m_dimension += m_net.weights(l).size();
        else
            m_fixedSquaredNorm += m_net.weights(l).squaredNorm();
    }
    m_engine.reset();
    m_interrupted = false;
    const Eigen::Index n = m_xt.cols();
    if (first == 0) {
        m_tail.reset();
        m_hiddenT.resize(0, 0);
        m_engine = std::make_unique<BatchGradient>(m_net, m_loss, m_xt, m_y, n);
        m_grads = m_net.zeroGradients();
        return true;
    }
    // The layers before the block are fixed: their output on every row is computed once.
    const num::Mlp head = m_net.slice(0, first - 1);
    m_tail = std::make_unique<num::Mlp>(m_net.slice(first, layers - 1));
    m_hiddenT.resize(head.outputs(), n);
    std::atomic<bool> stopped{false};
    const Eigen::Index blocks = (n + kCacheBlock - 1) / kCacheBlock;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        num::MlpWorkspace ws;
        for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
            if (m_stop.stopRequested()) {
                stopped = true;
                return;
            }
            const Eigen::Index r0 = b * kCacheBlock, m = std::min(kCacheBlock, n - r0);
            head.forwardColumns(m_xt.middleCols(r0, m), ws);
            m_hiddenT.middleCols(r0, m) = ws.output().transpose();
        }
    });
    if (stopped) {
        m_interrupted = true;
        return false;
    }
    m_engine = std::make_unique<BatchGradient>(*m_tail, m_loss, m_hiddenT, m_y, n);
    m_grads = m_tail->zeroGradients();
    return true;
}

Eigen::VectorXd MlpObjective::blockWeights() const
{
    Eigen::VectorXd w(m_dimension);
    Eigen::Index off = 0;
    for (int l = m_first; l <= m_last; ++l) {
        const Eigen::MatrixXd& wl = m_net.weights(l);
        w.segment(off, wl.size()) = Eigen::Map<const Eigen::VectorXd>(wl.data(), wl.size());
        off += wl.size();
    }
    return w;
}

void MlpObjective::setBlockWeights(const Eigen::VectorXd& w)
{
    if (w.size() != m_dimension)
        throw std::invalid_argument("objective: " + std::to_string(w.size()) + " weights for a block of " +
                                    std::to_string(m_dimension));
    Eigen::Index off = 0;
    for (int l = m_first; l <= m_last; ++l) {
        auto wl = m_net.mutableWeights(l);
        const Eigen::Index size = wl.size();
        Eigen::Map<Eigen::VectorXd>(wl.data(), size) = w.segment(off, size);
        if (m_tail) {
            auto tl = m_tail->mutableWeights(l - m_first);
            Eigen::Map<Eigen::VectorXd>(tl.data(), size) = w.segment(off, size);
        }
        off += size;
    }
}

double MlpObjective::run(const Eigen::VectorXd& w, Eigen::VectorXd* grad)
{
    if (!m_engine)
        throw std::logic_error("objective: the block's forward cache was interrupted; call selectLayers() again");
    setBlockWeights(w);
    const num::Mlp& net = m_tail ? *m_tail : m_net;
    const Eigen::Index n = m_xt.cols();
    const BatchGradient::Result r = grad ? m_engine->gradient(net, nullptr, 0, n, m_grads, m_stop)
                                         : m_engine->loss(net, nullptr, 0, n, m_stop);
    m_interrupted = r.stopped;
    if (r.stopped)
        return std::numeric_limits<double>::quiet_NaN();
    double f = r.loss / m_divisor;
    if (grad) {
        grad->resize(m_dimension);
        // The block's layers in the gradient list: the tail's first layers, or layers first…last.
        const int base = m_tail ? 0 : m_first;
        Eigen::Index off = 0;
        for (int l = base; l <= base + (m_last - m_first); ++l) {
            const Eigen::MatrixXd& g = m_grads[std::size_t(l)];
            grad->segment(off, g.size()) = Eigen::Map<const Eigen::VectorXd>(g.data(), g.size());
            off += g.size();
        }
        *grad /= m_divisor;
    }
    if (m_l2 > 0) {
        f += 0.5 * m_l2 * (w.squaredNorm() + m_fixedSquaredNorm);
        if (grad)
            *grad += m_l2 * w;
    }
    if (grad)
        m_lastGradientNorm = grad->norm();
    return f;
}

double MlpObjective::evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& grad)
{
    return run(w, &grad);
}

double MlpObjective::value(const Eigen::VectorXd& w)
{
    return run(w, nullptr);
}

} // namespace tb::train
