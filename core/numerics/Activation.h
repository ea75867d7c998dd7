#pragma once
/// @file Activation.h
/// Element-wise (and row-wise softmax) activation functions of the shared network type, with
/// their derivatives for back-propagation and their inverses for closed-form training (BPLS).
/// No Qt.
///
/// All functions work on n×m blocks where each row is one sample. They are pure functions:
/// thread-safe, no allocation except where noted.

#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>

namespace tb::num {

/// The activations a layer may use. ELU has α = 1.
enum class Activation {
    Identity,  ///< f(z) = z
    Sigmoid,   ///< f(z) = 1 / (1 + e^{−z}), range (0, 1)
    Tanh,      ///< f(z) = tanh z, range (−1, 1)
    Softplus,  ///< f(z) = log(1 + e^{z}), range (0, ∞)
    Elu,       ///< f(z) = z for z > 0, e^{z} − 1 otherwise; range (−1, ∞)
    Softmax    ///< row-wise: f(z)_j = e^{z_j} / Σ_t e^{z_t}; output layers only
};

/// Default clipping ε of activationInverse(): 1e-3 (the BPLS paper's reading, see ALGORITHMS.md §1).
inline constexpr double kDefaultInverseClip = 1e-3;

/// Lower-case name used in parameters and files: "identity", "sigmoid", "tanh", "softplus",
/// "elu", "softmax".
std::string_view activationName(Activation a);

/// Parses a name as returned by activationName() (case-sensitive). std::nullopt if unknown.
std::optional<Activation> activationFromName(std::string_view name);

/// All names, comma separated, for error messages and parameter choices.
std::string activationNames();

/// out = f(z). Softmax is computed per row, shifted by the row maximum (no overflow).
/// @p out must have z's shape and may alias @p z.
void activationApply(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& z, Eigen::Ref<Eigen::MatrixXd> out);
/// The same in single precision (float32 training; e^{−z} of the sigmoid overflows below −88
/// instead of −709, still giving exactly 0).
void activationApply(Activation a, const Eigen::Ref<const Eigen::MatrixXf>& z, Eigen::Ref<Eigen::MatrixXf> out);

/// Element-wise derivative f′(z), written in terms of the OUTPUT y = f(z) so that a forward
/// pass only needs to keep layer outputs: identity 1, sigmoid y(1−y), tanh 1−y², softplus
/// 1−e^{−y}, ELU (y > 0 ? 1 : y+1). Softmax has no element-wise derivative: it throws
/// std::invalid_argument (use activationBackprop(), or the softmax cross-entropy loss).
/// @p out may alias @p y.
void activationDerivative(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& y, Eigen::Ref<Eigen::MatrixXd> out);

/// Back-propagation through the activation: given the outputs y = f(z) and ∂L/∂y, writes
/// ∂L/∂z. Element-wise activations multiply by activationDerivative(); softmax applies its
/// Jacobian row by row: ∂L/∂z = y ⊙ (g − (g·y) 1). @p gradZ may alias @p gradY.
void activationBackprop(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& y,
                        const Eigen::Ref<const Eigen::MatrixXd>& gradY, Eigen::Ref<Eigen::MatrixXd> gradZ);
/// The same in single precision (float32 training).
void activationBackprop(Activation a, const Eigen::Ref<const Eigen::MatrixXf>& y,
                        const Eigen::Ref<const Eigen::MatrixXf>& gradY, Eigen::Ref<Eigen::MatrixXf> gradZ);

/// The pre-activation z with f(z) = y, clipping y into the activation's open range first so
/// that the result stays finite:
/// - identity: z = y (no clipping);
/// - sigmoid: y clipped to [ε, 1−ε], z = log(y / (1−y));
/// - tanh: y clipped to [−1+ε, 1−ε], z = atanh y;
/// - softplus: y clipped to [ε, ∞), z = log(e^{y} − 1) (computed as y + log(1 − e^{−y}));
/// - ELU: y clipped to [−1+ε, ∞), z = y for y > 0, log(1 + y) otherwise;
/// - softmax: p clipped to [ε, 1], z = log p — the inverse up to an additive constant per
///   row (softmax is shift-invariant), which is all a least-squares target needs.
/// @p epsilon must be in (0, 0.5); throws std::invalid_argument otherwise. NaN in y stays NaN.
/// @p out may alias @p y.
void activationInverse(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& y, Eigen::Ref<Eigen::MatrixXd> out,
                       double epsilon = kDefaultInverseClip);

/// The interval [lo, hi] activationInverse() clips into for @p epsilon (±∞ where unbounded).
/// Lets callers clip desired values themselves (e.g. BPLS hidden targets).
struct ClipRange {
    double lo;
    double hi;
};
ClipRange activationClipRange(Activation a, double epsilon = kDefaultInverseClip);

} // namespace tb::num
