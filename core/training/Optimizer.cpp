#include "Optimizer.h"

#include <numerics/FlushSubnormals.h>
#include <numerics/Mlp.h>

#include <numerics/Lanes.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tb::train {
namespace {

// The constants of one update, per-step values (Adam's bias corrections) folded in.
// In the optimizer's scalar T: computed in double once per update, rounded once for float.
template <class T>
struct RuleConstants {
    T lr, momentum, rho, epsilon, beta1, beta2;
    T adamStep;   // η/(1 − β₁ᵗ)
    T adamScale;  // 1/√(1 − β₂ᵗ)
};

// The floating-point mode of an update: float state flushes subnormals to zero, because
// Adam's and RMSProp's decaying state reaches them within a few hundred steps of zero gradients
// and every operation on one then costs ~100 normal ones (FlushSubnormals.h; docs/gradient.md).
// Double keeps IEEE gradual underflow: its numbers stay those of every earlier version. The
// scope is an opaque call into tb_numerics, so no float operation is moved across it.
template <class T>
struct UpdateMode {};
template <>
struct UpdateMode<float> {
    num::FlushSubnormals flush;
};

template <class T>
RuleConstants<T> constantsFor(const OptimizerSettings& s, double lr, double biasCorrection1,
                              double invSqrtBiasCorrection2)
{
    return RuleConstants<T>{T(lr),        T(s.momentum), T(s.rho),
                            T(s.epsilon), T(s.beta1),    T(s.beta2),
                            T(lr / biasCorrection1), T(invSqrtBiasCorrection2)};
}

// One parameter's update with its effective gradient g: the rules of Optimizer.h. Written per
// element so that the loops below fuse forming g, the state updates and the weight update into
// one vectorised pass (sqrt and division vectorise with -fno-math-errno, set for this library).
// T is double, float or num::Lanes (LaneOptimizer: the same expressions lane by lane).
//
// This file is compiled with -ffp-contract=off (core/training/CMakeLists.txt): each multiply-add
// is an explicit num::madd() (fused where the build targets FMA) and no other sum is fused, so
// the scalar and the lane updates round alike by construction, on every CPU and -mtune. Where a
// sum has two products, the first is fused (a·b + c·d → madd(a, b, c·d)) and w − a·b is
// madd(−a, b, w): what GCC made of these expressions when it chose, the numbers of every run
// stored before issue 43 on the machine that recorded them.
template <Method M, class T>
inline void rule(const RuleConstants<T>& c, T* __restrict w, T g, T* __restrict s1, T* __restrict s2, Eigen::Index i)
{
    using num::madd;
    using std::sqrt;
    if constexpr (M == Method::Sgd) {
        w[i] = madd(T(-c.lr), g, w[i]);
    } else if constexpr (M == Method::Momentum) {
        const T v = madd(c.momentum, s1[i], g);
        s1[i] = v;
        w[i] = madd(T(-c.lr), v, w[i]);
    } else if constexpr (M == Method::Nag) {
        const T v = madd(c.momentum, s1[i], g);
        s1[i] = v;
        w[i] = madd(T(-c.lr), madd(c.momentum, v, g), w[i]);
    } else if constexpr (M == Method::AdaGrad) {
        const T a = madd(g, g, s1[i]);
        s1[i] = a;
        w[i] -= c.lr * g / (sqrt(a) + c.epsilon);
    } else if constexpr (M == Method::RmsProp) {
        const T a = madd(c.rho, s1[i], (T(1) - c.rho) * (g * g));
        s1[i] = a;
        w[i] -= c.lr * g / (sqrt(a) + c.epsilon);
    } else {
        const T m = madd(c.beta1, s1[i], (T(1) - c.beta1) * g);
        const T v = madd(c.beta2, s2[i], (T(1) - c.beta2) * (g * g));
        s1[i] = m;
        s2[i] = v;
        w[i] -= c.adamStep * m / madd(sqrt(v), c.adamScale, c.epsilon);
    }
}

// w ← rule(gradScale·g + λ·w) over n contiguous parameters (double, float or lanes).
template <Method M, class T>
void denseKernel(const RuleConstants<T>& c, T* __restrict w, const T* __restrict g, T* __restrict s1,
                 T* __restrict s2, Eigen::Index n, T gradScale, T lambda)
{
    for (Eigen::Index i = 0; i < n; ++i)
        rule<M>(c, w, num::madd(gradScale, g[i], lambda * w[i]), s1, s2, i);
}

// One column of a layer whose gradient is the outer product: g_i = δ·a_i (+ δ in the bias row).
template <Method M, class T>
void outerKernel(const RuleConstants<T>& c, T* __restrict w, const T* __restrict a, Eigen::Index d, bool bias,
                 T delta, T lambda, T* __restrict s1, T* __restrict s2)
{
    for (Eigen::Index i = 0; i < d; ++i)
        rule<M>(c, w, num::madd(delta, a[i], lambda * w[i]), s1, s2, i);
    if (bias)
        rule<M>(c, w, num::madd(lambda, w[d], delta), s1, s2, d);
}

template <template <Method> class F, class... Args>
void dispatch(Method m, Args&&... args)
{
    switch (m) {
    case Method::Sgd: return F<Method::Sgd>::run(std::forward<Args>(args)...);
    case Method::Momentum: return F<Method::Momentum>::run(std::forward<Args>(args)...);
    case Method::Nag: return F<Method::Nag>::run(std::forward<Args>(args)...);
    case Method::AdaGrad: return F<Method::AdaGrad>::run(std::forward<Args>(args)...);
    case Method::RmsProp: return F<Method::RmsProp>::run(std::forward<Args>(args)...);
    case Method::Adam: return F<Method::Adam>::run(std::forward<Args>(args)...);
    }
}

template <Method M>
struct Dense {
    template <class... Args>
    static void run(Args&&... args) { denseKernel<M>(std::forward<Args>(args)...); }
};
template <Method M>
struct Outer {
    template <class... Args>
    static void run(Args&&... args) { outerKernel<M>(std::forward<Args>(args)...); }
};

} // namespace

template <class Scalar>
BasicOptimizer<Scalar>::BasicOptimizer(const OptimizerSettings& settings, Eigen::Index parameterCount) : m_settings(settings)
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
}

template <class Scalar>
void BasicOptimizer<Scalar>::beginStep()
{
    ++m_t;
    if (m_settings.method == Method::Adam) {
        // η m̂/(√v̂ + ε) = (η/c₁) m / (√v/√c₂ + ε) with cᵢ = 1 − βᵢᵗ: no per-parameter division by c.
        m_biasCorrection1 = 1.0 - std::pow(m_settings.beta1, double(m_t));
        m_invSqrtBiasCorrection2 = 1.0 / std::sqrt(1.0 - std::pow(m_settings.beta2, double(m_t)));
    }
}

template <class Scalar>
void BasicOptimizer<Scalar>::checkBlock(Eigen::Index offset, Eigen::Index n) const
{
    const Eigen::Index capacity = m_settings.method == Method::Sgd ? std::numeric_limits<Eigen::Index>::max()
                                                                   : m_s1.size();
    if (offset < 0 || offset > capacity || n > capacity - offset)
        throw std::out_of_range("optimizer: block [" + std::to_string(offset) + ", " + std::to_string(offset + n) +
                                ") is outside the " + std::to_string(capacity) + " parameters");
}

template <class Scalar>
void BasicOptimizer<Scalar>::apply(double lr, Eigen::Index offset, Eigen::Ref<Vector> w,
                      const Eigen::Ref<const Vector>& g, double gradScale)
{
    const Eigen::Index n = w.size();
    if (g.size() != n)
        throw std::out_of_range("optimizer: " + std::to_string(n) + " weights but " + std::to_string(g.size()) +
                                " gradient entries");
    checkBlock(offset, n);
    [[maybe_unused]] const UpdateMode<Scalar> mode;
    dispatch<Dense>(m_settings.method, constantsFor<Scalar>(m_settings, lr, m_biasCorrection1, m_invSqrtBiasCorrection2),
                    w.data(), g.data(), state(m_s1, offset), state(m_s2, offset), n, Scalar(gradScale),
                    Scalar(m_settings.weightDecay));
}

template <class Scalar>
void BasicOptimizer<Scalar>::applyOuter(double lr, Eigen::Index offset, Eigen::Ref<Matrix> w,
                           const Eigen::Ref<const Vector>& a, const Eigen::Ref<const Matrix>& delta,
                           bool bias, double gradScale)
{
    const Eigen::Index rows = w.rows(), cols = w.cols();
    if (rows != a.size() + (bias ? 1 : 0) || delta.rows() != 1 || delta.cols() != cols)
        throw std::out_of_range("optimizer: outer-product gradient of a " + std::to_string(a.size()) + "-vector and a " +
                                std::to_string(delta.rows()) + "x" + std::to_string(delta.cols()) +
                                " delta does not fit " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " weights");
    checkBlock(offset, w.size());
    const RuleConstants<Scalar> c = constantsFor<Scalar>(m_settings, lr, m_biasCorrection1, m_invSqrtBiasCorrection2);
    [[maybe_unused]] const UpdateMode<Scalar> mode;
    for (Eigen::Index j = 0; j < cols; ++j) {
        const Eigen::Index at = offset + j * rows;
        dispatch<Outer>(m_settings.method, c, w.col(j).data(), a.data(), a.size(), bias, Scalar(gradScale * delta(0, j)),
                        Scalar(m_settings.weightDecay), state(m_s1, at), state(m_s2, at));
    }
}

template <class Scalar>
void BasicOptimizer<Scalar>::step(double lr, num::BasicMlp<Scalar>& net, const std::vector<Matrix>& grads, double gradScale)
{
    if (int(grads.size()) != net.layerCount())
        throw std::out_of_range("optimizer: " + std::to_string(grads.size()) + " gradient matrices for " +
                                std::to_string(net.layerCount()) + " layers");
    beginStep();
    Eigen::Index offset = 0;
    for (int l = 0; l < net.layerCount(); ++l) {
        auto w = net.mutableWeights(l);
        const Matrix& g = grads[std::size_t(l)];
        if (g.size() != w.size())
            throw std::out_of_range("optimizer: gradient of layer " + std::to_string(l) + " has " +
                                    std::to_string(g.size()) + " entries, the weights " + std::to_string(w.size()));
        apply(lr, offset, Eigen::Map<Vector>(w.data(), w.size()),
              Eigen::Map<const Vector>(g.data(), g.size()), gradScale);
        offset += w.size();
    }
}

template class BasicOptimizer<double>;
template class BasicOptimizer<float>;

LaneOptimizer::LaneOptimizer(const OptimizerSettings& settings, Eigen::Index parameterCount) : m_settings(settings)
{
    const std::size_t n = std::size_t(parameterCount);
    if (settings.method != Method::Sgd)
        m_s1.assign(n, num::Lanes(0.0));
    if (settings.method == Method::Adam)
        m_s2.assign(n, num::Lanes(0.0));
}

void LaneOptimizer::beginStep()
{
    // Optimizer::beginStep()'s arithmetic, once for all lanes.
    ++m_t;
    if (m_settings.method == Method::Adam) {
        m_biasCorrection1 = 1.0 - std::pow(m_settings.beta1, double(m_t));
        m_invSqrtBiasCorrection2 = 1.0 / std::sqrt(1.0 - std::pow(m_settings.beta2, double(m_t)));
    }
}

void LaneOptimizer::apply(double lr, Eigen::Index offset, num::Lanes* w, const num::Lanes* raw, Eigen::Index n,
                          double gradScale)
{
    const Eigen::Index capacity = m_settings.method == Method::Sgd ? std::numeric_limits<Eigen::Index>::max()
                                                                   : Eigen::Index(m_s1.size());
    if (offset < 0 || offset > capacity || n > capacity - offset)
        throw std::out_of_range("optimizer: block [" + std::to_string(offset) + ", " + std::to_string(offset + n) +
                                ") is outside the " + std::to_string(capacity) + " parameters");
    auto state = [&](std::vector<num::Lanes>& s) { return s.empty() ? nullptr : s.data() + offset; };
    dispatch<Dense>(m_settings.method,
                    constantsFor<num::Lanes>(m_settings, lr, m_biasCorrection1, m_invSqrtBiasCorrection2), w, raw,
                    state(m_s1), state(m_s2), n, num::Lanes(gradScale), num::Lanes(m_settings.weightDecay));
}

} // namespace tb::train
