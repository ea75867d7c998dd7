#include "Optimizer.h"

#include <Mlp.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tb::gradient {
namespace {

// Rules run over chunks that stay in L1 while Eigen makes its passes over them (each
// statement below is one vectorised pass).
constexpr Eigen::Index kChunk = 512;

} // namespace

Optimizer::Optimizer(const OptimizerSettings& settings, Eigen::Index parameterCount) : m_settings(settings)
{
    switch (settings.method) {
    case Method::Sgd:
        break;
    case Method::Momentum:
    case Method::Nag:
    case Method::AdaGrad:
    case Method::RmsProp:
        m_s1.setZero(parameterCount);
        break;
    case Method::Adam:
        m_s1.setZero(parameterCount);
        m_s2.setZero(parameterCount);
        break;
    }
    m_scratch.resize(kChunk);
}

void Optimizer::beginStep()
{
    ++m_t;
    if (m_settings.method == Method::Adam) {
        // η m̂/(√v̂ + ε) = (η/c₁) m / (√v/√c₂ + ε) with cᵢ = 1 − βᵢᵗ: no per-parameter division by c.
        m_biasCorrection1 = 1.0 - std::pow(m_settings.beta1, double(m_t));
        m_invSqrtBiasCorrection2 = 1.0 / std::sqrt(1.0 - std::pow(m_settings.beta2, double(m_t)));
    }
}

void Optimizer::checkBlock(Eigen::Index offset, Eigen::Index n) const
{
    const Eigen::Index capacity = m_settings.method == Method::Sgd ? std::numeric_limits<Eigen::Index>::max()
                                                                   : m_s1.size();
    if (offset < 0 || offset > capacity || n > capacity - offset)
        throw std::out_of_range("optimizer: block [" + std::to_string(offset) + ", " + std::to_string(offset + n) +
                                ") is outside the " + std::to_string(capacity) + " parameters");
}

void Optimizer::update(double lr, Eigen::Index offset, double* wp, const double* gp, Eigen::Index len)
{
    const OptimizerSettings& s = m_settings;
    Eigen::Map<Eigen::ArrayXd> wc(wp, len);
    const Eigen::Map<const Eigen::ArrayXd> gc(gp, len);
    switch (s.method) {
    case Method::Sgd:
        wc -= lr * gc;
        break;
    case Method::Momentum: {
        auto v = m_s1.segment(offset, len).array();
        v = s.momentum * v + gc;
        wc -= lr * v;
        break;
    }
    case Method::Nag: {
        auto v = m_s1.segment(offset, len).array();
        v = s.momentum * v + gc;
        wc -= lr * (gc + s.momentum * v);
        break;
    }
    case Method::AdaGrad: {
        auto acc = m_s1.segment(offset, len).array();
        acc += gc.square();
        wc -= lr * gc / (acc.sqrt() + s.epsilon);
        break;
    }
    case Method::RmsProp: {
        auto acc = m_s1.segment(offset, len).array();
        acc = s.rho * acc + (1.0 - s.rho) * gc.square();
        wc -= lr * gc / (acc.sqrt() + s.epsilon);
        break;
    }
    case Method::Adam: {
        auto m = m_s1.segment(offset, len).array();
        auto v = m_s2.segment(offset, len).array();
        m = s.beta1 * m + (1.0 - s.beta1) * gc;
        v = s.beta2 * v + (1.0 - s.beta2) * gc.square();
        wc -= (lr / m_biasCorrection1) * m / (v.sqrt() * m_invSqrtBiasCorrection2 + s.epsilon);
        break;
    }
    }
}

void Optimizer::apply(double lr, Eigen::Index offset, Eigen::Ref<Eigen::VectorXd> w,
                      const Eigen::Ref<const Eigen::VectorXd>& g, double gradScale)
{
    const Eigen::Index n = w.size();
    if (g.size() != n)
        throw std::out_of_range("optimizer: " + std::to_string(n) + " weights but " + std::to_string(g.size()) +
                                " gradient entries");
    checkBlock(offset, n);
    const double lambda = m_settings.weightDecay;
    for (Eigen::Index c = 0; c < n; c += kChunk) {
        const Eigen::Index len = std::min(kChunk, n - c);
        // The effective gradient, formed once per chunk unless it is the raw one.
        const double* gp = g.data() + c;
        if (lambda != 0.0) {
            m_scratch.head(len) = gradScale * g.segment(c, len) + lambda * w.segment(c, len);
            gp = m_scratch.data();
        } else if (gradScale != 1.0) {
            m_scratch.head(len) = gradScale * g.segment(c, len);
            gp = m_scratch.data();
        }
        update(lr, offset + c, w.data() + c, gp, len);
    }
}

void Optimizer::applyOuter(double lr, Eigen::Index offset, Eigen::Ref<Eigen::MatrixXd> w,
                           const Eigen::Ref<const Eigen::VectorXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& delta,
                           bool bias, double gradScale)
{
    const Eigen::Index rows = w.rows(), cols = w.cols();
    if (rows != a.size() + (bias ? 1 : 0) || delta.rows() != 1 || delta.cols() != cols)
        throw std::out_of_range("optimizer: outer-product gradient of a " + std::to_string(a.size()) + "-vector and a " +
                                std::to_string(delta.rows()) + "x" + std::to_string(delta.cols()) +
                                " delta does not fit " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " weights");
    checkBlock(offset, w.size());
    if (m_scratch.size() < rows)
        m_scratch.resize(rows);  // once per run: a layer is wider than a chunk
    const double lambda = m_settings.weightDecay;
    const Eigen::Index d = a.size();
    for (Eigen::Index j = 0; j < cols; ++j) {
        const double dj = gradScale * delta(0, j);
        auto g = m_scratch.head(rows);
        if (lambda != 0.0)
            g.head(d) = dj * a + lambda * w.col(j).head(d);
        else
            g.head(d) = dj * a;
        if (bias)
            g(d) = dj + lambda * w(d, j);
        update(lr, offset + j * rows, w.col(j).data(), g.data(), rows);
    }
}

void Optimizer::step(double lr, num::Mlp& net, const std::vector<Eigen::MatrixXd>& grads, double gradScale)
{
    if (int(grads.size()) != net.layerCount())
        throw std::out_of_range("optimizer: " + std::to_string(grads.size()) + " gradient matrices for " +
                                std::to_string(net.layerCount()) + " layers");
    beginStep();
    Eigen::Index offset = 0;
    for (int l = 0; l < net.layerCount(); ++l) {
        auto w = net.mutableWeights(l);
        const Eigen::MatrixXd& g = grads[std::size_t(l)];
        if (g.size() != w.size())
            throw std::out_of_range("optimizer: gradient of layer " + std::to_string(l) + " has " +
                                    std::to_string(g.size()) + " entries, the weights " + std::to_string(w.size()));
        apply(lr, offset, Eigen::Map<Eigen::VectorXd>(w.data(), w.size()),
              Eigen::Map<const Eigen::VectorXd>(g.data(), g.size()), gradScale);
        offset += w.size();
    }
}

} // namespace tb::gradient
