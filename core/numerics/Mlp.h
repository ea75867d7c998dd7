#pragma once
/// @file Mlp.h
/// The fully connected feed-forward network every network-training plugin (BPLS, gradient
/// baselines, BLD) trains, so that comparisons are of algorithms, not of models. No Qt.
///
/// Layout: sizes = {d, h1, …, hH, k}; L = H + 1 weight layers, numbered 0 … L−1. Weight layer l
/// maps the width(l) values of layer l (layer 0 = the input X) to width(l+1) values:
///     Z = [N 1] · W_l,   N' = f_l(Z)
/// where the constant-1 column is present only when layer l has a bias (bias(l)), so W_l has
/// weightRows(l) = width(l) + (bias(l) ? 1 : 0) rows and width(l+1) columns; the bias weights
/// are the LAST row. Samples are rows. (Block-layer decomposition papers use a bias on the
/// input only: bias(0) true, every later layer without.)

#include "Activation.h"
#include "MlpWorkspace.h"

#include <Eigen/Core>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tb::num {

/// Losses back-propagated by Mlp::backward(), per sample i (rows of the batch):
enum class MlpLoss {
    /// ℓ_i = ½ ‖ŷ_i − y_i‖²  (any output activation).
    SquaredError,
    /// ℓ_i = −Σ_j y_ij log p_ij with p = softmax output; requires a softmax output layer and
    /// rows of y that sum to 1 (one-hot or probabilities), so that ∂ℓ/∂z = p − y.
    SoftmaxCrossEntropy
};

/// A fully connected network: weights, activations, forward and backward passes, in the
/// arithmetic of @p Scalar.
///
/// Mlp (= BasicMlp<double>) is the house's network: every plugin trains it, every model,
/// prediction and checkpoint is one. BasicMlp<float> (MlpF) is the same code in single
/// precision for trainers that offer float32 arithmetic (the gradient plugin's "precision"):
/// they train a cast() copy and publish it back as an Mlp. Both are instantiated in Mlp.cpp
/// only. Losses are returned, and summed over rows, in double for either scalar.
///
/// Thread-safety: const methods may run concurrently (each thread with its own workspace);
/// the weights must not change meanwhile.
template <class Scalar>
class BasicMlp {
public:
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
    using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
    using Workspace = BasicMlpWorkspace<Scalar>;

    /// An empty network (layerCount() == 0). Assign a real one before use.
    BasicMlp() = default;

    /// A network with layer widths @p sizes = {d, h1, …, k} (≥ 2 entries, each ≥ 1) and one
    /// activation per weight layer (@p activations.size() == sizes.size() − 1). Softmax is
    /// allowed on the output layer only. Weights start at zero; call initUniform() or
    /// initGlorot(). Throws std::invalid_argument naming the offending entry.
    BasicMlp(std::vector<Eigen::Index> sizes, std::vector<Activation> activations, bool bias = true);
    /// The same with a bias flag per weight layer (@p layerBias.size() == activations.size()).
    BasicMlp(std::vector<Eigen::Index> sizes, std::vector<Activation> activations, std::vector<bool> layerBias);

    /// Convenience: d inputs, hidden widths @p hidden (may be empty: a linear model), k
    /// outputs, one activation for all hidden layers and one for the output layer.
    static BasicMlp withHidden(Eigen::Index inputs, const std::vector<Eigen::Index>& hidden, Eigen::Index outputs,
                          Activation hiddenActivation, Activation outputActivation, bool bias = true);
    /// The same with the first layer's bias (@p inputBias) and every later layer's
    /// (@p hiddenBias) chosen separately.
    static BasicMlp withHidden(Eigen::Index inputs, const std::vector<Eigen::Index>& hidden, Eigen::Index outputs,
                          Activation hiddenActivation, Activation outputActivation, bool inputBias, bool hiddenBias);

    int layerCount() const { return int(m_weights.size()); }       ///< L = weight layers
    Eigen::Index inputs() const { return m_sizes.empty() ? 0 : m_sizes.front(); }
    Eigen::Index outputs() const { return m_sizes.empty() ? 0 : m_sizes.back(); }
    /// Width of layer @p l, l ∈ [0, L]: width(0) = d, width(L) = k.
    Eigen::Index width(int l) const { return m_sizes[std::size_t(l)]; }
    const std::vector<Eigen::Index>& sizes() const { return m_sizes; }
    /// Whether weight layer @p l, l ∈ [0, L), has a bias row.
    bool bias(int l) const { return m_layerBias[std::size_t(l)]; }
    const std::vector<bool>& layerBiases() const { return m_layerBias; }
    /// Rows of W_l: width(l) + 1 with a bias, width(l) without.
    Eigen::Index weightRows(int l) const { return width(l) + (bias(l) ? 1 : 0); }
    /// Activation of weight layer @p l, l ∈ [0, L).
    Activation activation(int l) const { return m_activations[std::size_t(l)]; }
    const std::vector<Activation>& activations() const { return m_activations; }
    /// "784-50-10, sigmoid/softmax, bias" for logs.
    std::string describe() const;

    /// W_l, weightRows(l) × width(l+1); the bias weights are the last row.
    const Matrix& weights(int l) const { return m_weights[std::size_t(l)]; }
    const std::vector<Matrix>& allWeights() const { return m_weights; }
    /// Replaces W_l. Throws std::invalid_argument if the shape differs.
    void setWeights(int l, const Eigen::Ref<const Matrix>& w);
    /// W_l for in-place updates (optimizers): a view of the stored weights, so no copy and no
    /// allocation; its shape cannot change. Valid until the network is assigned or destroyed;
    /// must not be written while other threads run forward() or predict() on this network.
    /// Throws std::invalid_argument for a layer outside [0, layerCount()).
    Eigen::Map<Matrix> mutableWeights(int l);
    /// The network of weight layers [@p first, @p last] with copies of their weights: its input
    /// is the output of layer first−1 (or x for first = 0). Throws std::invalid_argument for an
    /// empty or out-of-range span.
    BasicMlp slice(int first, int last) const;
    /// Replaces all weights (same shapes). Throws std::invalid_argument on a shape mismatch.
    void setAllWeights(const std::vector<Matrix>& w);

    /// A copy with every weight converted to @p To (rounded to nearest for double → float),
    /// same layers, activations and biases.
    template <class To>
    BasicMlp<To> cast() const
    {
        BasicMlp<To> out(m_sizes, m_activations, m_layerBias);
        for (int l = 0; l < layerCount(); ++l)
            out.setWeights(l, m_weights[std::size_t(l)].template cast<To>());
        return out;
    }
    /// Sets every weight from @p other (same shapes, any scalar), converted to Scalar. Throws
    /// std::invalid_argument on a shape mismatch. No allocation.
    template <class From>
    void assignFrom(const BasicMlp<From>& other)
    {
        if (other.sizes() != m_sizes)
            throw std::invalid_argument("mlp assignFrom: networks of different shapes");
        for (int l = 0; l < layerCount(); ++l)
            m_weights[std::size_t(l)] = other.weights(l).template cast<Scalar>();
    }

    /// Draws every weight, biases included, i.i.d. from U[lo, hi] (paper: [−1, 1]) using
    /// std::mt19937_64(seed) and the top 53 bits of each draw, layer by layer, column-major —
    /// identical on every platform. Throws std::invalid_argument unless lo ≤ hi, both finite.
    void initUniform(std::uint64_t seed, double lo = -1.0, double hi = 1.0);
    /// Glorot/Xavier uniform: W_l ~ U[−r, r], r = √(6 / (width(l) + width(l+1))); bias rows
    /// zero. Same generator and order as initUniform().
    void initGlorot(std::uint64_t seed);

    /// Number of weights, Σ_l weightRows(l)·width(l+1).
    Eigen::Index parameterCount() const;
    /// All weights as one vector: layer 0 first, each matrix column-major.
    Vector flatten() const;
    /// flatten() into a caller's buffer of parameterCount() entries (no allocation).
    void flattenInto(Eigen::Ref<Vector> out) const;
    /// Sets all weights from a vector in flatten() order. Throws std::invalid_argument if its
    /// size is not parameterCount().
    void unflatten(const Eigen::Ref<const Vector>& p);
    /// Any list of weight-shaped matrices (e.g. gradients) in flatten() order.
    static void flattenInto(const std::vector<Matrix>& mats, Eigen::Ref<Vector> out);
    /// Zero matrices shaped like the weights, e.g. a gradient buffer for backward().
    std::vector<Matrix> zeroGradients() const;

    /// Forward pass over the rows of @p x (any row range of a larger matrix, e.g.
    /// x.middleRows(r0, m)), keeping every layer's output in @p ws (see MlpWorkspace). No
    /// allocation when ws.fits(*this, x.rows()). Throws std::invalid_argument if x has not
    /// inputs() columns.
    void forward(const Eigen::Ref<const Matrix>& x, Workspace& ws) const;

    /// Outputs for all rows of @p x (n × outputs()). Allocates; runs in parallel over row
    /// blocks in the current TBB arena (rows are independent, so results do not depend on
    /// the thread count).
    Matrix predict(const Eigen::Ref<const Matrix>& x) const;

    /// Back-propagation after forward(x, ws) on the same rows: writes (or, with @p accumulate,
    /// adds) ∂/∂W_l of Σ_i ℓ_i — the SUM of the per-sample losses over the rows (see
    /// MlpLoss), so that gradients of row blocks add up; divide by the batch size for a mean.
    /// @p grads must be shaped like the weights (zeroGradients()). Returns Σ_i ℓ_i.
    /// No allocation. Throws std::invalid_argument on shape mismatches, a forward pass of
    /// another size, or SoftmaxCrossEntropy without a softmax output.
    double backward(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& y,
                    MlpLoss loss, Workspace& ws, std::vector<Matrix>& grads,
                    bool accumulate = false) const;

    /// forward() for inputs stored one sample per COLUMN: @p xt is inputs() × m, e.g. samples
    /// gathered from a transposed data matrix, where each sample is contiguous and a shuffled
    /// minibatch is a cheap column copy. Same results as forward(xt.transpose(), ws) up to
    /// rounding, without forming the transpose. No allocation when ws.fits(*this, xt.cols()).
    /// Throws std::invalid_argument if xt has not inputs() rows.
    void forwardColumns(const Eigen::Ref<const Matrix>& xt, Workspace& ws) const;

    /// backward() after forwardColumns(xt, ws) on the same samples: @p xt is inputs() × m,
    /// @p y is m × outputs() as for backward(). Same contract, checks and results.
    ///
    /// With @p firstGradientLayer = f > 0 the gradients of layers 0 … f−1 are not formed (those
    /// entries of @p grads are left untouched) but every delta is: ws.deltas[l] holds ∂Σℓ/∂Z_l
    /// (m × width(l+1)) for all l afterwards, so the caller can apply layer l's gradient
    /// [N_l 1]ᵀ·deltas[l] itself — e.g. fused into an optimizer update for batch size 1, where
    /// forming the 785×50 outer product costs more than the rest of the step.
    /// @p firstGradientLayer ∈ [0, layerCount()]; throws std::invalid_argument otherwise.
    double backwardColumns(const Eigen::Ref<const Matrix>& xt, const Eigen::Ref<const Matrix>& y,
                           MlpLoss loss, Workspace& ws, std::vector<Matrix>& grads,
                           bool accumulate = false, int firstGradientLayer = 0) const;

    /// Σ_i ℓ_i of the outputs held in @p ws (after forward()) against @p y, without gradients.
    double loss(const Eigen::Ref<const Matrix>& y, MlpLoss loss, const Workspace& ws) const;

    /// Uniform double in [0, 1) from the top 53 bits of @p bits (platform-independent,
    /// unlike std::uniform_real_distribution).
    static double uniform01(std::uint64_t bits) { return double(bits >> 11) * 0x1.0p-53; }

private:
    void checkLayer(int l, const char* what) const;
    // Shared bodies of forward()/forwardColumns() and backward()/backwardColumns(): @p x is
    // the m × inputs() input as a matrix or a transposed view. Defined in Mlp.cpp only.
    template <class Input>
    void forwardImpl(const Input& x, Workspace& ws) const;
    template <class Input>
    double backwardImpl(const Input& x, const Eigen::Ref<const Matrix>& y, MlpLoss loss, Workspace& ws,
                        std::vector<Matrix>& grads, bool accumulate, int firstGradientLayer) const;

    std::vector<Eigen::Index> m_sizes;
    std::vector<Activation> m_activations;
    std::vector<Matrix> m_weights;
    std::vector<bool> m_layerBias;
};

/// The house's network (double precision).
using Mlp = BasicMlp<double>;
/// The single-precision network of float32 training (see BasicMlp).
using MlpF = BasicMlp<float>;

extern template class BasicMlp<double>;
extern template class BasicMlp<float>;

} // namespace tb::num
