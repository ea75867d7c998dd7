#pragma once
/// @file Optimizer.h
/// The update rules of the first-order methods and their per-parameter state.

#include <Eigen/Core>
#include <numerics/Lanes.h>
#include <vector>

namespace tb::num {
template <class Scalar>
class BasicMlp;
}

namespace tb::train {

/// The first-order methods. Their rules (PyTorch's conventions; t counts updates from 1,
/// η is the learning rate of this update, g the gradient of the minibatch objective including
/// the weight-decay term λ·w):
/// - Sgd:      w ← w − η g
/// - Momentum: v ← μ v + g;            w ← w − η v            (heavy ball)
/// - Nag:      v ← μ v + g;            w ← w − η (g + μ v)    (Nesterov, Sutskever et al. 2013)
/// - AdaGrad:  s ← s + g²;             w ← w − η g / (√s + ε)
/// - RmsProp:  s ← ρ s + (1 − ρ) g²;   w ← w − η g / (√s + ε)
/// - Adam:     m ← β₁ m + (1 − β₁) g;  v ← β₂ v + (1 − β₂) g²;
///             w ← w − η m̂ / (√v̂ + ε) with m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ)
/// State (v, s, m) starts at zero and persists across epochs for the whole run.
enum class Method { Sgd, Momentum, Nag, AdaGrad, RmsProp, Adam };

/// Constants of the rules above. Ranges are enforced by the parameter schema.
struct OptimizerSettings {
    Method method = Method::Sgd;
    double momentum = 0.9;     ///< μ of Momentum and Nag, [0, 1)
    double rho = 0.9;          ///< ρ of RmsProp, [0, 1)
    double beta1 = 0.9;        ///< β₁ of Adam, [0, 1)
    double beta2 = 0.999;      ///< β₂ of Adam, [0, 1)
    double epsilon = 1e-8;     ///< ε of AdaGrad, RmsProp and Adam, > 0
    double weightDecay = 0.0;  ///< λ ≥ 0: adds λ·w to every gradient (L2 penalty λ/2·‖w‖²)
};

/// Applies one method's rule to a parameter vector, keeping its state.
///
/// Parameters are addressed by their offset in a flattened parameter vector (e.g.
/// num::Mlp::flatten() order), so that a network's layers can be updated one block at a time
/// without copying them into one vector. Not thread-safe; no allocation after construction.
///
/// @p Scalar is the type of the weights, gradients and state: Optimizer (double) for every
/// trainer; OptimizerF (float) for float32 training, whose rules run in single precision with
/// the per-step constants (learning rate, Adam's bias corrections 1 − βᵗ) computed in double
/// and rounded once per step, and whose updates flush subnormal numbers to zero (state below
/// 1.18·10⁻³⁸ becomes 0: num::FlushSubnormals; double keeps gradual underflow).
template <class Scalar>
class BasicOptimizer {
public:
    using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

    /// State for @p parameterCount parameters, all zero; t = 0.
    BasicOptimizer(const OptimizerSettings& settings, Eigen::Index parameterCount);

    /// Starts the next update: t ← t + 1 (Adam's bias correction uses t).
    void beginStep();

    /// Updates the parameters [@p offset, @p offset + w.size()) at learning rate @p lr with the
    /// gradient g = @p gradScale · @p raw + λ·w (e.g. gradScale = 1/m turns a sum over a batch
    /// of m samples into a mean; the rule adds the weight decay itself). Call beginStep() once
    /// before the blocks of one update. Throws std::out_of_range if the block does not fit the
    /// state or the sizes differ.
    void apply(double lr, Eigen::Index offset, Eigen::Ref<Vector> w,
               const Eigen::Ref<const Vector>& raw, double gradScale = 1.0);

    /// apply() for a layer whose gradient is one sample's outer product, without forming it:
    /// the weights @p w (rows × cols, column-major as num::Mlp stores them, starting at
    /// @p offset) get the raw gradient g_ij = a_i·δ_j, and, when @p bias is set, g_rj = δ_j in
    /// the last row r = a.size(). @p delta is 1 × cols. Same rule and scaling as apply().
    /// Throws std::out_of_range on inconsistent sizes.
    void applyOuter(double lr, Eigen::Index offset, Eigen::Ref<Matrix> w,
                    const Eigen::Ref<const Vector>& a, const Eigen::Ref<const Matrix>& delta,
                    bool bias, double gradScale = 1.0);

    /// One whole update of @p net: beginStep(), then apply() to every layer with @p grads
    /// (shaped like the weights, as num::Mlp::backward() writes them) scaled by @p gradScale.
    void step(double lr, num::BasicMlp<Scalar>& net, const std::vector<Matrix>& grads, double gradScale = 1.0);

    const OptimizerSettings& settings() const { return m_settings; }
    /// Updates begun so far.
    long long steps() const { return m_t; }
    /// First state vector: v (Momentum, Nag), s (AdaGrad, RmsProp), m (Adam); empty for Sgd.
    const Vector& state1() const { return m_s1; }
    /// Second state vector: v of Adam; empty otherwise.
    const Vector& state2() const { return m_s2; }

private:
    void checkBlock(Eigen::Index offset, Eigen::Index n) const;
    // The state entries from @p offset on, or null for a method without that state.
    static Scalar* state(Vector& s, Eigen::Index offset) { return s.size() ? s.data() + offset : nullptr; }

    OptimizerSettings m_settings;
    long long m_t = 0;
    Vector m_s1;
    Vector m_s2;
    double m_biasCorrection1 = 1.0;         // Adam: 1 − β₁ᵗ
    double m_invSqrtBiasCorrection2 = 1.0;  // Adam: 1/√(1 − β₂ᵗ)
};

/// The update rules on double weights (every trainer's).
using Optimizer = BasicOptimizer<double>;
/// The update rules on float weights (float32 training).
using OptimizerF = BasicOptimizer<float>;

extern template class BasicOptimizer<double>;
extern template class BasicOptimizer<float>;

/// Optimizer on num::kLanes independent parameter vectors at once (lane i of every value is
/// replica i: the Monte-Carlo cells a trainer advances in lock step): every lane gets the bits
/// Optimizer gives that replica alone — the same rule, compiled from the same template in the
/// same file, applied to num::Lanes, its multiply-adds placed in the source (num::madd) rather
/// than by the compiler, so on every CPU (tst_gradienttrainer compares every weight). The per-step
/// constants (learning rate, Adam's bias corrections) are shared by the lanes and computed
/// once per step. Not thread-safe; no allocation after construction.
class LaneOptimizer {
public:
    /// State for @p parameterCount parameters per lane, all zero; t = 0.
    LaneOptimizer(const OptimizerSettings& settings, Eigen::Index parameterCount);

    /// Optimizer::beginStep().
    void beginStep();
    /// Optimizer::apply() on the @p n lane values @p w[0 … n) at @p offset, with the raw gradient
    /// @p raw. Throws std::out_of_range if the block does not fit the state.
    void apply(double lr, Eigen::Index offset, num::Lanes* w, const num::Lanes* raw, Eigen::Index n,
               double gradScale = 1.0);

private:
    OptimizerSettings m_settings;
    long long m_t = 0;
    std::vector<num::Lanes> m_s1;
    std::vector<num::Lanes> m_s2;
    double m_biasCorrection1 = 1.0;
    double m_invSqrtBiasCorrection2 = 1.0;
};

} // namespace tb::train
