#include "Activation.h"

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tb::num {
namespace {

constexpr std::array<std::pair<Activation, std::string_view>, 6> kNames{{
    {Activation::Identity, "identity"},
    {Activation::Sigmoid, "sigmoid"},
    {Activation::Tanh, "tanh"},
    {Activation::Softplus, "softplus"},
    {Activation::Elu, "elu"},
    {Activation::Softmax, "softmax"},
}};

void checkShape(const char* what, Eigen::Index r0, Eigen::Index c0, Eigen::Index r1, Eigen::Index c1)
{
    if (r0 != r1 || c0 != c1)
        throw std::invalid_argument(std::string("activation ") + what + ": input is " + std::to_string(r0) + "x" +
                                    std::to_string(c0) + " but output is " + std::to_string(r1) + "x" +
                                    std::to_string(c1));
}

// activationApply() and activationBackprop() in the arithmetic of S (double, or float for
// float32 training): one body, so the double overloads are the code they always were.
template <class S>
using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

template <class S>
void activationApplyImpl(Activation a, const Eigen::Ref<const M<S>>& z, Eigen::Ref<M<S>> out)
{
    checkShape("apply", z.rows(), z.cols(), out.rows(), out.cols());
    switch (a) {
    case Activation::Identity:
        if (out.data() != z.data())
            out = z;
        return;
    case Activation::Sigmoid:
        // e^{−z} overflows to +inf for z < −709 (float: −88), giving exactly 0: no NaN.
        out = (S(1) + (-z.array()).exp()).inverse().matrix();
        return;
    case Activation::Tanh:
        out = z.array().tanh().matrix();
        return;
    case Activation::Softplus:
        // max(z, 0) + log1p(e^{−|z|}) never overflows.
        out = (z.array().max(S(0)) + (-z.array().abs()).exp().log1p()).matrix();
        return;
    case Activation::Elu:
        out = (z.array() > S(0)).select(z.array(), z.array().exp() - S(1)).matrix();
        return;
    case Activation::Softmax:
        // Column-major storage: work column by column on whole rows' vectors.
        for (Eigen::Index i = 0; i < z.rows(); ++i) {
            const S m = z.row(i).maxCoeff();
            out.row(i) = (z.row(i).array() - m).exp().matrix();
            out.row(i) /= out.row(i).sum();
        }
        return;
    }
}

template <class S>
void activationBackpropImpl(Activation a, const Eigen::Ref<const M<S>>& y,
                        const Eigen::Ref<const M<S>>& gradY, Eigen::Ref<M<S>> gradZ)
{
    checkShape("backprop", y.rows(), y.cols(), gradY.rows(), gradY.cols());
    checkShape("backprop", y.rows(), y.cols(), gradZ.rows(), gradZ.cols());
    switch (a) {
    case Activation::Identity:
        if (gradZ.data() != gradY.data())
            gradZ = gradY;
        return;
    case Activation::Sigmoid:
        gradZ = (gradY.array() * y.array() * (S(1) - y.array())).matrix();
        return;
    case Activation::Tanh:
        gradZ = (gradY.array() * (S(1) - y.array().square())).matrix();
        return;
    case Activation::Softplus:
        gradZ = (gradY.array() * (S(1) - (-y.array()).exp())).matrix();
        return;
    case Activation::Elu:
        gradZ = (y.array() > S(0)).select(gradY.array(), gradY.array() * (y.array() + S(1))).matrix();
        return;
    case Activation::Softmax:
        for (Eigen::Index i = 0; i < y.rows(); ++i) {
            const S s = y.row(i).dot(gradY.row(i));
            gradZ.row(i) = (y.row(i).array() * (gradY.row(i).array() - s)).matrix();
        }
        return;
    }
}

} // namespace

std::string_view activationName(Activation a)
{
    for (const auto& [act, name] : kNames)
        if (act == a)
            return name;
    return "unknown";
}

std::optional<Activation> activationFromName(std::string_view name)
{
    for (const auto& [act, n] : kNames)
        if (n == name)
            return act;
    return std::nullopt;
}

std::string activationNames()
{
    std::string s;
    for (const auto& [act, name] : kNames) {
        if (!s.empty())
            s += ", ";
        s += name;
    }
    return s;
}

void activationApply(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& z, Eigen::Ref<Eigen::MatrixXd> out)
{
    activationApplyImpl<double>(a, z, out);
}

void activationApply(Activation a, const Eigen::Ref<const Eigen::MatrixXf>& z, Eigen::Ref<Eigen::MatrixXf> out)
{
    activationApplyImpl<float>(a, z, out);
}

void activationDerivative(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& y, Eigen::Ref<Eigen::MatrixXd> out)
{
    checkShape("derivative", y.rows(), y.cols(), out.rows(), out.cols());
    switch (a) {
    case Activation::Identity:
        out.setOnes();
        return;
    case Activation::Sigmoid:
        out = (y.array() * (1.0 - y.array())).matrix();
        return;
    case Activation::Tanh:
        out = (1.0 - y.array().square()).matrix();
        return;
    case Activation::Softplus:
        // σ(z) = 1 − e^{−y}; −expm1(−y) keeps precision for tiny y.
        out = (-((-y.array()).exp() - 1.0)).matrix();
        return;
    case Activation::Elu:
        out = (y.array() > 0.0).select(Eigen::ArrayXXd::Ones(y.rows(), y.cols()), y.array() + 1.0).matrix();
        return;
    case Activation::Softmax:
        throw std::invalid_argument("activation derivative: softmax has no element-wise derivative; "
                                    "use activationBackprop() or the softmax cross-entropy loss");
    }
}

void activationBackprop(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& y,
                        const Eigen::Ref<const Eigen::MatrixXd>& gradY, Eigen::Ref<Eigen::MatrixXd> gradZ)
{
    activationBackpropImpl<double>(a, y, gradY, gradZ);
}

void activationBackprop(Activation a, const Eigen::Ref<const Eigen::MatrixXf>& y,
                        const Eigen::Ref<const Eigen::MatrixXf>& gradY, Eigen::Ref<Eigen::MatrixXf> gradZ)
{
    activationBackpropImpl<float>(a, y, gradY, gradZ);
}

ClipRange activationClipRange(Activation a, double epsilon)
{
    if (!(epsilon > 0.0 && epsilon < 0.5))
        throw std::invalid_argument("activation inverse: clipping epsilon " + std::to_string(epsilon) +
                                    " is outside (0, 0.5)");
    constexpr double inf = std::numeric_limits<double>::infinity();
    switch (a) {
    case Activation::Identity: return {-inf, inf};
    case Activation::Sigmoid: return {epsilon, 1.0 - epsilon};
    case Activation::Tanh: return {-1.0 + epsilon, 1.0 - epsilon};
    case Activation::Softplus: return {epsilon, inf};
    case Activation::Elu: return {-1.0 + epsilon, inf};
    case Activation::Softmax: return {epsilon, 1.0};
    }
    return {-inf, inf};
}

void activationInverse(Activation a, const Eigen::Ref<const Eigen::MatrixXd>& y, Eigen::Ref<Eigen::MatrixXd> out,
                       double epsilon)
{
    checkShape("inverse", y.rows(), y.cols(), out.rows(), out.cols());
    const ClipRange r = activationClipRange(a, epsilon);
    // Comparisons with NaN are false, so a NaN input stays NaN instead of becoming a plausible bound.
    const auto clip = [lo = r.lo, hi = r.hi](double v) { return v < lo ? lo : (v > hi ? hi : v); };
    switch (a) {
    case Activation::Identity:
        if (out.data() != y.data())
            out = y;
        return;
    case Activation::Sigmoid:
        out = y.unaryExpr(clip);
        out = (out.array() / (1.0 - out.array())).log().matrix();
        return;
    case Activation::Tanh:
        out = y.unaryExpr(clip);
        out = (0.5 * ((1.0 + out.array()) / (1.0 - out.array())).log()).matrix();
        return;
    case Activation::Softplus:
        out = y.unaryExpr(clip);
        out = (out.array() + (-(-out.array()).exp()).log1p()).matrix();
        return;
    case Activation::Elu:
        out = y.unaryExpr(clip);
        out = (out.array() > 0.0).select(out.array(), out.array().log1p()).matrix();
        return;
    case Activation::Softmax:
        out = y.unaryExpr(clip).array().log().matrix();
        return;
    }
}

} // namespace tb::num
