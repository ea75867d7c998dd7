#include "Mlp.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace tb::num {
namespace {

std::string shape(Eigen::Index r, Eigen::Index c)
{
    return std::to_string(r) + "x" + std::to_string(c);
}

// Rows per task of predict(): large enough for efficient products, small enough to bound memory.
constexpr Eigen::Index kPredictBlock = 2048;

} // namespace

template <class Scalar>
BasicMlp<Scalar>::BasicMlp(std::vector<Eigen::Index> sizes, std::vector<Activation> activations, bool bias)
    : BasicMlp(std::move(sizes), activations, std::vector<bool>(activations.size(), bias))
{
}

template <class Scalar>
BasicMlp<Scalar>::BasicMlp(std::vector<Eigen::Index> sizes, std::vector<Activation> activations, std::vector<bool> layerBias)
    : m_sizes(std::move(sizes)), m_activations(std::move(activations)), m_layerBias(std::move(layerBias))
{
    if (m_sizes.size() < 2)
        throw std::invalid_argument("mlp: need at least 2 layer sizes (inputs and outputs), got " +
                                    std::to_string(m_sizes.size()));
    for (std::size_t i = 0; i < m_sizes.size(); ++i)
        if (m_sizes[i] < 1)
            throw std::invalid_argument("mlp: layer size " + std::to_string(i) + " is " + std::to_string(m_sizes[i]) +
                                        ", must be >= 1");
    if (m_activations.size() != m_sizes.size() - 1)
        throw std::invalid_argument("mlp: " + std::to_string(m_sizes.size() - 1) + " weight layers need as many "
                                    "activations, got " + std::to_string(m_activations.size()));
    if (m_layerBias.size() != m_activations.size())
        throw std::invalid_argument("mlp: " + std::to_string(m_activations.size()) + " weight layers need as many "
                                    "bias flags, got " + std::to_string(m_layerBias.size()));
    for (std::size_t l = 0; l + 1 < m_activations.size(); ++l)
        if (m_activations[l] == Activation::Softmax)
            throw std::invalid_argument("mlp: softmax is allowed on the output layer only, not on layer " +
                                        std::to_string(l));
    m_weights.resize(m_activations.size());
    for (int l = 0; l < layerCount(); ++l)
        m_weights[std::size_t(l)].setZero(weightRows(l), width(l + 1));
}

template <class Scalar>
BasicMlp<Scalar> BasicMlp<Scalar>::withHidden(Eigen::Index inputs, const std::vector<Eigen::Index>& hidden, Eigen::Index outputs,
                    Activation hiddenActivation, Activation outputActivation, bool bias)
{
    std::vector<Eigen::Index> sizes{inputs};
    sizes.insert(sizes.end(), hidden.begin(), hidden.end());
    sizes.push_back(outputs);
    std::vector<Activation> acts(hidden.size(), hiddenActivation);
    acts.push_back(outputActivation);
    return BasicMlp(std::move(sizes), std::move(acts), bias);
}

template <class Scalar>
BasicMlp<Scalar> BasicMlp<Scalar>::withHidden(Eigen::Index inputs, const std::vector<Eigen::Index>& hidden, Eigen::Index outputs,
                    Activation hiddenActivation, Activation outputActivation, bool inputBias, bool hiddenBias)
{
    std::vector<Eigen::Index> sizes{inputs};
    sizes.insert(sizes.end(), hidden.begin(), hidden.end());
    sizes.push_back(outputs);
    std::vector<Activation> acts(hidden.size(), hiddenActivation);
    acts.push_back(outputActivation);
    std::vector<bool> biases(acts.size(), hiddenBias);
    biases[0] = inputBias;
    return BasicMlp(std::move(sizes), std::move(acts), std::move(biases));
}

template <class Scalar>
std::string BasicMlp<Scalar>::describe() const
{
    // Appends only: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string temporaries.
    std::string s;
    for (std::size_t i = 0; i < m_sizes.size(); ++i) {
        if (i)
            s += '-';
        s += std::to_string(m_sizes[i]);
    }
    s += ", ";
    for (std::size_t i = 0; i < m_activations.size(); ++i) {
        if (i)
            s += '/';
        s += activationName(m_activations[i]);
    }
    const bool all = std::all_of(m_layerBias.begin(), m_layerBias.end(), [](bool b) { return b; });
    const bool none = std::none_of(m_layerBias.begin(), m_layerBias.end(), [](bool b) { return b; });
    if (all)
        s += ", bias";
    else if (none)
        s += ", no bias";
    else if (m_layerBias[0] && std::none_of(m_layerBias.begin() + 1, m_layerBias.end(), [](bool b) { return b; }))
        s += ", input bias only";
    else {
        s += ", bias on layers";
        for (std::size_t l = 0; l < m_layerBias.size(); ++l)
            if (m_layerBias[l]) {
                s += ' ';
                s += std::to_string(l);
            }
    }
    return s;
}

template <class Scalar>
void BasicMlp<Scalar>::checkLayer(int l, const char* what) const
{
    if (l < 0 || l >= layerCount())
        throw std::invalid_argument(std::string("mlp ") + what + ": layer " + std::to_string(l) + " is outside [0, " +
                                    std::to_string(layerCount()) + ")");
}

template <class Scalar>
void BasicMlp<Scalar>::setWeights(int l, const Eigen::Ref<const Matrix>& w)
{
    checkLayer(l, "setWeights");
    Matrix& m = m_weights[std::size_t(l)];
    if (w.rows() != m.rows() || w.cols() != m.cols())
        throw std::invalid_argument("mlp setWeights: layer " + std::to_string(l) + " needs " +
                                    shape(m.rows(), m.cols()) + " weights, got " + shape(w.rows(), w.cols()));
    m = w;
}

template <class Scalar>
Eigen::Map<typename BasicMlp<Scalar>::Matrix> BasicMlp<Scalar>::mutableWeights(int l)
{
    checkLayer(l, "mutableWeights");
    Matrix& m = m_weights[std::size_t(l)];
    return Eigen::Map<Matrix>(m.data(), m.rows(), m.cols());
}

template <class Scalar>
void BasicMlp<Scalar>::setAllWeights(const std::vector<Matrix>& w)
{
    if (int(w.size()) != layerCount())
        throw std::invalid_argument("mlp setAllWeights: " + std::to_string(layerCount()) + " layers, got " +
                                    std::to_string(w.size()) + " matrices");
    for (int l = 0; l < layerCount(); ++l)
        setWeights(l, w[std::size_t(l)]);
}

template <class Scalar>
void BasicMlp<Scalar>::initUniform(std::uint64_t seed, double lo, double hi)
{
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
        throw std::invalid_argument("mlp initUniform: range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                    "] must be finite with lo <= hi");
    std::mt19937_64 gen(seed);
    for (auto& w : m_weights)
        for (Eigen::Index j = 0; j < w.cols(); ++j)
            for (Eigen::Index i = 0; i < w.rows(); ++i)
                w(i, j) = lo + (hi - lo) * uniform01(gen());
}

template <class Scalar>
void BasicMlp<Scalar>::initGlorot(std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    for (int l = 0; l < layerCount(); ++l) {
        Matrix& w = m_weights[std::size_t(l)];
        const double r = std::sqrt(6.0 / double(width(l) + width(l + 1)));
        for (Eigen::Index j = 0; j < w.cols(); ++j)
            for (Eigen::Index i = 0; i < w.rows(); ++i)
                w(i, j) = (bias(l) && i == width(l)) ? 0.0 : -r + 2.0 * r * uniform01(gen());
    }
}

template <class Scalar>
Eigen::Index BasicMlp<Scalar>::parameterCount() const
{
    Eigen::Index n = 0;
    for (const auto& w : m_weights)
        n += w.size();
    return n;
}

template <class Scalar>
typename BasicMlp<Scalar>::Vector BasicMlp<Scalar>::flatten() const
{
    Vector p(parameterCount());
    flattenInto(p);
    return p;
}

template <class Scalar>
void BasicMlp<Scalar>::flattenInto(Eigen::Ref<Vector> out) const
{
    flattenInto(m_weights, out);
}

template <class Scalar>
void BasicMlp<Scalar>::flattenInto(const std::vector<Matrix>& mats, Eigen::Ref<Vector> out)
{
    Eigen::Index total = 0;
    for (const auto& m : mats)
        total += m.size();
    if (out.size() != total)
        throw std::invalid_argument("mlp flatten: buffer has " + std::to_string(out.size()) + " entries, need " +
                                    std::to_string(total));
    Eigen::Index off = 0;
    for (const auto& m : mats) {
        out.segment(off, m.size()) = Eigen::Map<const Vector>(m.data(), m.size());
        off += m.size();
    }
}

template <class Scalar>
void BasicMlp<Scalar>::unflatten(const Eigen::Ref<const Vector>& p)
{
    if (p.size() != parameterCount())
        throw std::invalid_argument("mlp unflatten: vector has " + std::to_string(p.size()) + " entries, network has " +
                                    std::to_string(parameterCount()) + " weights");
    Eigen::Index off = 0;
    for (auto& w : m_weights) {
        Eigen::Map<Vector>(w.data(), w.size()) = p.segment(off, w.size());
        off += w.size();
    }
}

template <class Scalar>
BasicMlp<Scalar> BasicMlp<Scalar>::slice(int first, int last) const
{
    if (first < 0 || last < first || last >= layerCount())
        throw std::invalid_argument("mlp slice: layers [" + std::to_string(first) + ", " + std::to_string(last) +
                                    "] of a network with " + std::to_string(layerCount()) + " layers");
    std::vector<Eigen::Index> sizes(m_sizes.begin() + first, m_sizes.begin() + last + 2);
    std::vector<Activation> acts(m_activations.begin() + first, m_activations.begin() + last + 1);
    std::vector<bool> biases(m_layerBias.begin() + first, m_layerBias.begin() + last + 1);
    BasicMlp s(std::move(sizes), std::move(acts), std::move(biases));
    for (int l = first; l <= last; ++l)
        s.m_weights[std::size_t(l - first)] = m_weights[std::size_t(l)];
    return s;
}

template <class Scalar>
std::vector<typename BasicMlp<Scalar>::Matrix> BasicMlp<Scalar>::zeroGradients() const
{
    std::vector<Matrix> g(m_weights.size());
    for (std::size_t l = 0; l < m_weights.size(); ++l)
        g[l].setZero(m_weights[l].rows(), m_weights[l].cols());
    return g;
}

template <class Scalar>
template <class Input>
void BasicMlp<Scalar>::forwardImpl(const Input& x, Workspace& ws) const
{
    const Eigen::Index m = x.rows();
    ws.reserve(*this, m);
    ws.rows = m;
    const int last = layerCount() - 1;
    for (int l = 0; l <= last; ++l) {
        const Matrix& w = m_weights[std::size_t(l)];
        const Eigen::Index in = width(l);
        // The output layer keeps its pre-activations (for a stable cross-entropy).
        auto z = (l == last) ? ws.outputPre.topRows(m) : ws.values[std::size_t(l)].topRows(m);
        if (l == 0)
            z.noalias() = x * w.topRows(in);
        else
            z.noalias() = ws.values[std::size_t(l - 1)].topRows(m) * w.topRows(in);
        if (bias(l))
            z.rowwise() += w.row(in);
        auto out = ws.values[std::size_t(l)].topRows(m);
        activationApply(m_activations[std::size_t(l)], z, out);
    }
}

template <class Scalar>
void BasicMlp<Scalar>::forward(const Eigen::Ref<const Matrix>& x, Workspace& ws) const
{
    if (layerCount() == 0)
        throw std::invalid_argument("mlp forward: the network is empty");
    if (x.cols() != inputs())
        throw std::invalid_argument("mlp forward: input has " + std::to_string(x.cols()) + " columns, network expects " +
                                    std::to_string(inputs()));
    forwardImpl(x, ws);
}

template <class Scalar>
void BasicMlp<Scalar>::forwardColumns(const Eigen::Ref<const Matrix>& xt, Workspace& ws) const
{
    if (layerCount() == 0)
        throw std::invalid_argument("mlp forwardColumns: the network is empty");
    if (xt.rows() != inputs())
        throw std::invalid_argument("mlp forwardColumns: input has " + std::to_string(xt.rows()) +
                                    " rows (one sample per column), network expects " + std::to_string(inputs()));
    // Eigen's products read the transposed operand in place (packing handles the order).
    forwardImpl(xt.transpose(), ws);
}

template <class Scalar>
typename BasicMlp<Scalar>::Matrix BasicMlp<Scalar>::predict(const Eigen::Ref<const Matrix>& x) const
{
    if (x.cols() != inputs())
        throw std::invalid_argument("mlp predict: input has " + std::to_string(x.cols()) + " columns, network expects " +
                                    std::to_string(inputs()));
    const Eigen::Index n = x.rows();
    Matrix out(n, outputs());
    const Eigen::Index blocks = (n + kPredictBlock - 1) / kPredictBlock;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        Workspace ws;
        for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
            const Eigen::Index r0 = b * kPredictBlock, m = std::min(kPredictBlock, n - r0);
            forward(x.middleRows(r0, m), ws);
            out.middleRows(r0, m) = ws.output();
        }
    });
    return out;
}

template <class Scalar>
double BasicMlp<Scalar>::loss(const Eigen::Ref<const Matrix>& y, MlpLoss lossKind, const Workspace& ws) const
{
    const Eigen::Index m = ws.rows;
    if (y.rows() != m || y.cols() != outputs())
        throw std::invalid_argument("mlp loss: targets are " + shape(y.rows(), y.cols()) + ", the last forward pass gave " +
                                    shape(m, outputs()));
    // Sums in double for either scalar: cast<double>() is a no-op for double (the same
    // expression, the same bits) and widens each float term before it is added.
    if (lossKind == MlpLoss::SquaredError)
        return 0.5 * (ws.output() - y).template cast<double>().squaredNorm();
    if (m_activations.back() != Activation::Softmax)
        throw std::invalid_argument("mlp loss: softmax cross-entropy needs a softmax output layer, this one is " +
                                    std::string(activationName(m_activations.back())));
    // −Σ y·log p with log p = z − logsumexp(z): finite even where p underflows to 0.
    double total = 0;
    const auto z = ws.outputPre.topRows(m);
    for (Eigen::Index i = 0; i < m; ++i) {
        const auto zi = z.row(i).template cast<double>();
        const double zmax = zi.maxCoeff();
        const double lse = zmax + std::log((zi.array() - zmax).exp().sum());
        total -= (y.row(i).template cast<double>().array() * (zi.array() - lse)).sum();
    }
    return total;
}

template <class Scalar>
template <class Input>
double BasicMlp<Scalar>::backwardImpl(const Input& x, const Eigen::Ref<const Matrix>& y, MlpLoss lossKind,
                         Workspace& ws, std::vector<Matrix>& grads, bool accumulate,
                         int firstGradientLayer) const
{
    // The callers checked the workspace and the input's shape.
    const Eigen::Index m = x.rows();
    if (int(grads.size()) != layerCount())
        throw std::invalid_argument("mlp backward: " + std::to_string(grads.size()) + " gradient matrices for " +
                                    std::to_string(layerCount()) + " layers");
    for (int l = 0; l < layerCount(); ++l) {
        const auto& g = grads[std::size_t(l)];
        if (g.rows() != weightRows(l) || g.cols() != width(l + 1))
            throw std::invalid_argument("mlp backward: gradient of layer " + std::to_string(l) + " is " +
                                        shape(g.rows(), g.cols()) + ", weights are " +
                                        shape(weightRows(l), width(l + 1)));
    }
    const double total = loss(y, lossKind, ws); // also checks y's shape and the output activation

    const int last = layerCount() - 1;
    auto deltaOut = ws.deltas[std::size_t(last)].topRows(m);
    deltaOut = ws.output() - y;
    if (lossKind == MlpLoss::SquaredError)
        activationBackprop(m_activations.back(), ws.output(), deltaOut, deltaOut);
    // Cross-entropy through softmax: ∂ℓ/∂z = p − y, already there.

    for (int l = last; l >= 0; --l) {
        const Eigen::Index in = width(l);
        const auto delta = ws.deltas[std::size_t(l)].topRows(m);
        Matrix& g = grads[std::size_t(l)];
        if (l < firstGradientLayer) {
            // The caller applies this layer's gradient from the deltas itself.
        } else if (l == 0) {
            if (accumulate)
                g.topRows(in).noalias() += x.transpose() * delta;
            else
                g.topRows(in).noalias() = x.transpose() * delta;
        } else {
            const auto input = ws.values[std::size_t(l - 1)].topRows(m);
            if (accumulate)
                g.topRows(in).noalias() += input.transpose() * delta;
            else
                g.topRows(in).noalias() = input.transpose() * delta;
        }
        if (bias(l) && l >= firstGradientLayer) {
            if (accumulate)
                g.row(in) += delta.colwise().sum();
            else
                g.row(in) = delta.colwise().sum();
        }
        if (l > 0) {
            auto prev = ws.deltas[std::size_t(l - 1)].topRows(m);
            prev.noalias() = delta * m_weights[std::size_t(l)].topRows(in).transpose();
            activationBackprop(m_activations[std::size_t(l - 1)], ws.values[std::size_t(l - 1)].topRows(m), prev, prev);
        }
    }
    return total;
}

template <class Scalar>
double BasicMlp<Scalar>::backward(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& y,
                     MlpLoss lossKind, Workspace& ws, std::vector<Matrix>& grads, bool accumulate) const
{
    const Eigen::Index m = x.rows();
    if (!ws.fits(*this, m) || ws.rows != m)
        throw std::invalid_argument("mlp backward: call forward() on the same " + std::to_string(m) +
                                    " rows with this workspace first");
    if (x.cols() != inputs())
        throw std::invalid_argument("mlp backward: input has " + std::to_string(x.cols()) + " columns, network expects " +
                                    std::to_string(inputs()));
    return backwardImpl(x, y, lossKind, ws, grads, accumulate, 0);
}

template <class Scalar>
double BasicMlp<Scalar>::backwardColumns(const Eigen::Ref<const Matrix>& xt, const Eigen::Ref<const Matrix>& y,
                            MlpLoss lossKind, Workspace& ws, std::vector<Matrix>& grads,
                            bool accumulate, int firstGradientLayer) const
{
    if (firstGradientLayer < 0 || firstGradientLayer > layerCount())
        throw std::invalid_argument("mlp backwardColumns: first gradient layer " + std::to_string(firstGradientLayer) +
                                    " is outside [0, " + std::to_string(layerCount()) + "]");
    const Eigen::Index m = xt.cols();
    if (!ws.fits(*this, m) || ws.rows != m)
        throw std::invalid_argument("mlp backwardColumns: call forwardColumns() on the same " + std::to_string(m) +
                                    " samples with this workspace first");
    if (xt.rows() != inputs())
        throw std::invalid_argument("mlp backwardColumns: input has " + std::to_string(xt.rows()) +
                                    " rows (one sample per column), network expects " + std::to_string(inputs()));
    return backwardImpl(xt.transpose(), y, lossKind, ws, grads, accumulate, firstGradientLayer);
}

template class BasicMlp<double>;
template class BasicMlp<float>;

} // namespace tb::num
