#include "LayerwisePass.h"

#include <numerics/Activation.h>

#include <stdexcept>
#include <string>

namespace tb::bld {

LayerwisePass::LayerwisePass(const num::Mlp& net, Eigen::Index maxRows)
{
    const int layers = net.layerCount();
    m_values.resize(std::size_t(layers));
    m_deltas.resize(std::size_t(layers));
    for (int l = 0; l < layers; ++l) {
        m_values[std::size_t(l)].resize(maxRows, net.width(l + 1));
        m_deltas[std::size_t(l)].resize(maxRows, net.width(l + 1));
    }
}

void LayerwisePass::forward(const num::Mlp& net, const Eigen::Ref<const Eigen::MatrixXd>& xt, int from)
{
    const Eigen::Index m = xt.cols();
    if (xt.rows() != net.inputs() || m > m_values.front().rows() || from < 0 || from >= net.layerCount())
        throw std::invalid_argument("bld pass: a batch of " + std::to_string(m) + " samples from layer " +
                                    std::to_string(from) + " does not fit " + net.describe());
    if (from > 0 && m != m_rows)
        throw std::logic_error("bld pass: forward from a later layer needs the same batch");
    m_rows = m;
    for (int l = from; l < net.layerCount(); ++l) {
        const Eigen::MatrixXd& w = net.weights(l);
        const Eigen::Index in = net.width(l);
        auto z = m_values[std::size_t(l)].topRows(m);
        if (l == 0)
            z.noalias() = xt.transpose() * w.topRows(in);
        else
            z.noalias() = m_values[std::size_t(l - 1)].topRows(m) * w.topRows(in);
        if (net.bias(l))
            z.rowwise() += w.row(in);
        num::activationApply(net.activation(l), z, z);
    }
}

double LayerwisePass::backward(const num::Mlp& net, const Eigen::Ref<const Eigen::MatrixXd>& xt,
                               const Eigen::Ref<const Eigen::MatrixXd>& y, int to,
                               std::vector<Eigen::MatrixXd>& grads, bool allLayers)
{
    const Eigen::Index m = m_rows;
    const int last = net.layerCount() - 1;
    if (xt.cols() != m || y.rows() != m || y.cols() != net.outputs() || to < 0 || to > last ||
        int(grads.size()) != net.layerCount())
        throw std::invalid_argument("bld pass: backward needs the forward batch of " + std::to_string(m) +
                                    " samples, its targets and one gradient per layer");
    auto out = m_values[std::size_t(last)].topRows(m);
    auto delta = m_deltas[std::size_t(last)].topRows(m);
    delta = out - y;
    const double loss = delta.squaredNorm();
    delta *= 2.0; // ∂‖ŷ − y‖²/∂ŷ
    num::activationBackprop(net.activation(last), out, delta, delta);
    for (int l = last; l >= to; --l) {
        const Eigen::Index in = net.width(l);
        const auto d = m_deltas[std::size_t(l)].topRows(m);
        if (allLayers || l == to) {
            Eigen::MatrixXd& g = grads[std::size_t(l)];
            if (l == 0)
                g.topRows(in).noalias() = xt * d;
            else
                g.topRows(in).noalias() = m_values[std::size_t(l - 1)].topRows(m).transpose() * d;
            if (net.bias(l))
                g.row(in) = d.colwise().sum();
        }
        if (l > to) {
            auto prev = m_deltas[std::size_t(l - 1)].topRows(m);
            prev.noalias() = d * net.weights(l).topRows(in).transpose();
            num::activationBackprop(net.activation(l - 1), m_values[std::size_t(l - 1)].topRows(m), prev, prev);
        }
    }
    return loss;
}

double LayerwisePass::forwardFlops(const num::Mlp& net, Eigen::Index m, int from)
{
    double f = 0;
    for (int l = from; l < net.layerCount(); ++l)
        f += 2.0 * double(m) * double(net.weights(l).size());
    return f;
}

double LayerwisePass::backwardFlops(const num::Mlp& net, Eigen::Index m, int to, bool allLayers)
{
    double f = 0;
    for (int l = to; l < net.layerCount(); ++l) {
        const double w = 2.0 * double(m) * double(net.weights(l).size());
        if (allLayers || l == to)
            f += w; // the gradient product
        if (l > to)
            f += w; // the delta passed down
    }
    return f;
}

} // namespace tb::bld
