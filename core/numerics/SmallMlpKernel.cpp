#include "SmallMlpKernel.h"

#include "LaneExp.h"
#include "Lanes.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

// This file is compiled with -ffp-contract=off (core/numerics/CMakeLists.txt): every fused
// multiply-add below is an explicit madd() (Lanes.h: fused when the build targets FMA), and no
// other sum is fused, whatever the CPU and -mtune — so the order of every rounding is the one
// written here, and run() and runLanes() share it by construction.

namespace tb::num {
namespace {

constexpr int kLd = 8;  // leading dimension of the m × width blocks below (column-major)
static_assert(SmallMlpKernel::kMaxSize == 7 && SmallMlpKernel::kMaxSize < kLd);  // runBatch<1 … 7>
template <class T>
using BlockOf = T[kLd * kLd];

// The three ways a reduction Σ_t a_t·b_t (s = a_0·b_0, then s += a_t·b_t in index order) rounds:
// Fused, every product fused into the running sum; Pairs, the products of two consecutive terms
// rounded on their own and added in order, a last odd one fused; Unfused, every product rounded
// on its own. The choice at each site below is the kernel's definition. It was taken from what
// GCC made of Mlp.cpp's Eigen passes with -march=native on the Intel Xeon (AVX-512) that recorded
// the BPLS toy sweeps, so their numbers are the ones stored before; on other CPUs and -mtune GCC
// contracts Eigen's sums elsewhere, and the kernel then agrees with the Eigen passes within
// rounding, not to the bit (tst_smallmlpkernel bounds the difference).
enum class Sum { Fused, Pairs, Unfused };

// s + Σ_{t<n} a(t)·b(t) as one loop of such a reduction.
template <Sum S, class T, class A, class B>
inline T accumulate(T s, int n, A a, B b)
{
    int t = 0;
    if constexpr (S == Sum::Pairs)
        for (; n - t >= 2; t += 2) {
            const T p0 = a(t) * b(t), p1 = a(t + 1) * b(t + 1);
            s = s + p0;
            s = s + p1;
        }
    if constexpr (S == Sum::Unfused)
        for (; t < n; ++t) {
            const T p = a(t) * b(t);
            s = s + p;
        }
    for (; t < n; ++t)
        s = madd(T(a(t)), T(b(t)), s);
    return s;
}

// Σ_{t<n} a(t)·b(t): Eigen's redux starts from the first product.
template <Sum S, class A, class B>
inline auto reduce(int n, A a, B b)
{
    using T = decltype(a(0) * b(0));
    return accumulate<S, T>(a(0) * b(0), n - 1, [&](int t) { return a(t + 1); }, [&](int t) { return b(t + 1); });
}

// The reduction of each site (see Sum), named after the product of Mlp.cpp it computes.
constexpr Sum kForwardInput = Sum::Pairs;   // Z_0 = X·W_0: a sample's inputs and a weight column, both contiguous
constexpr Sum kForwardHidden = Sum::Pairs;  // Z_l = N_{l−1}·W_l: a row of N (strided)
constexpr Sum kGradientInput = Sum::Pairs;  // Xᵀ·Δ_0: a row of the gathered inputs (strided)
constexpr Sum kGradientHidden = Sum::Pairs; // N_{l−1}ᵀ·Δ_l: columns of both (contiguous)
constexpr Sum kBackDelta = Sum::Fused;      // Δ_l·W_lᵀ: rows of both (strided)
constexpr Sum kSquaredNorm = Sum::Pairs;    // ½‖Ŷ − Y‖², column by column
constexpr Sum kSoftmaxDot = Sum::Fused;     // yᵢ·gᵢ of a softmax row
constexpr Sum kCrossEntropy = Sum::Fused;   // yᵢ·(zᵢ − lse) of a row

// The packet rows of a product (see PacketSlices): every product fused, from +0.
template <class A, class B>
inline auto packetDot(int n, A a, B b)
{
    using T = decltype(a(0) * b(0));
    T s = 0.0;
    for (int t = 0; t < n; ++t)
        s = madd(T(a(t)), T(b(t)), s);
    return s;
}

// Which rows of a product's column sum from +0 with every product fused (packet rows) and which
// as the site's reduction: in each column, the rows from the first 32-byte-aligned one of a
// column-major block of column stride @p stride, in groups of 4 — the slices in which Eigen's
// lazy product assigns a small product with AVX (its packet path, etor_product_packet_impl). A
// fixed rule of the kernel in every build (4 also where Eigen's packets are 2 wide), so that
// AVX2 and AVX-512 builds compute the same bits.
constexpr int kLazyPacket = 4;

struct PacketSlices {
    PacketSlices(bool vectorisable, int inner, Eigen::Index stride)
        : m_on(vectorisable), m_inner(inner), m_step(int((kLazyPacket - stride % kLazyPacket) & (kLazyPacket - 1)))
    {
        setEnd();
    }
    /// Whether row @p i of the current column takes the packet path.
    bool packet(int i) const { return i >= m_start && i < m_end; }
    void nextColumn()
    {
        if (m_on) {
            m_start = std::min((m_start + m_step) % kLazyPacket, m_inner);
            setEnd();
        }
    }

private:
    void setEnd() { m_end = m_on ? m_start + ((m_inner - m_start) & ~(kLazyPacket - 1)) : 0; }
    bool m_on;
    int m_inner, m_step, m_start = 0, m_end = 0;
};

// The scalar expressions Eigen evaluates per coefficient in activationApply() (Activation.cpp).
inline double apply(Activation a, double z)
{
    switch (a) {
    case Activation::Identity: return z;
    case Activation::Sigmoid: return 1.0 / (1.0 + std::exp(-z));
    case Activation::Tanh: return std::tanh(z);
    // Eigen's max(z, 0) is std::max(z, 0.0): z unless z < 0.
    case Activation::Softplus: return (z < 0.0 ? 0.0 : z) + std::log1p(std::exp(-std::abs(z)));
    case Activation::Elu: return z > 0.0 ? z : std::exp(z) - 1.0;
    case Activation::Softmax: break;  // row-wise, see softmaxRow()
    }
    return z;
}

// activationBackprop()'s element-wise cases: ∂ℓ/∂z from ∂ℓ/∂y = @p g and the output @p y.
inline double backprop(Activation a, double y, double g)
{
    switch (a) {
    case Activation::Identity: return g;
    case Activation::Sigmoid: return g * y * (1.0 - y);
    case Activation::Tanh: return g * madd(-y, y, 1.0);
    case Activation::Softplus: return g * (1.0 - std::exp(-y));
    case Activation::Elu: return y > 0.0 ? g : g * (y + 1.0);
    case Activation::Softmax: break;  // row-wise
    }
    return g;
}

// The same per lane: identity and the sigmoid's arithmetic in vector form (laneExp(): libm's
// exp bits), every other activation lane by lane through the scalar expression.
inline Lanes apply(Activation a, Lanes z)
{
    switch (a) {
    case Activation::Identity: return z;
    case Activation::Sigmoid: return 1.0 / (1.0 + laneExp(-z));  // std::exp's bits (LaneExp.h)
    default: return eachLane(z, [a](double v) { return apply(a, v); });
    }
}

inline Lanes backprop(Activation a, Lanes y, Lanes g)
{
    switch (a) {
    case Activation::Identity: return g;
    case Activation::Sigmoid: return g * y * (1.0 - y);
    case Activation::Tanh: return g * madd(-y, y, Lanes(1.0));
    default: {
        Lanes r;
        for (int i = 0; i < kLanes; ++i)
            r.set(i, backprop(a, y[i], g[i]));
        return r;
    }
    }
}

// out = f(z) over the first M rows of @p units columns (the switch outside the loops).
template <int M, class T>
void applyLayer(Activation a, const T* z, T* out, int units)
{
    auto each = [&](auto f) {
        for (int j = 0; j < units; ++j)
            for (int i = 0; i < M; ++i)
                out[j * kLd + i] = f(z[j * kLd + i]);
    };
    switch (a) {
    case Activation::Identity: each([](T v) { return apply(Activation::Identity, v); }); return;
    case Activation::Sigmoid: each([](T v) { return apply(Activation::Sigmoid, v); }); return;
    case Activation::Tanh: each([](T v) { return apply(Activation::Tanh, v); }); return;
    case Activation::Softplus: each([](T v) { return apply(Activation::Softplus, v); }); return;
    case Activation::Elu: each([](T v) { return apply(Activation::Elu, v); }); return;
    case Activation::Softmax: break;
    }
}

// g ← ∂ℓ/∂z from ∂ℓ/∂y = g and the outputs y, element-wise activations only.
template <int M, class T>
void backpropLayer(Activation a, const T* y, T* g, int units)
{
    auto each = [&](auto f) {
        for (int j = 0; j < units; ++j)
            for (int i = 0; i < M; ++i)
                g[j * kLd + i] = f(y[j * kLd + i], g[j * kLd + i]);
    };
    switch (a) {
    case Activation::Identity: return;
    case Activation::Sigmoid: each([](T v, T d) { return backprop(Activation::Sigmoid, v, d); }); return;
    case Activation::Tanh: each([](T v, T d) { return backprop(Activation::Tanh, v, d); }); return;
    case Activation::Softplus: each([](T v, T d) { return backprop(Activation::Softplus, v, d); }); return;
    case Activation::Elu: each([](T v, T d) { return backprop(Activation::Elu, v, d); }); return;
    case Activation::Softmax: break;
    }
}

// Eigen's maxCoeff(): std::max from the first coefficient on.
inline double rowMax(const double* z, int i, int k)
{
    double mx = z[i];
    for (int j = 1; j < k; ++j)
        mx = mx < z[j * kLd + i] ? z[j * kLd + i] : mx;
    return mx;
}

// Row i of a softmax layer with k units: out = exp(z − max) / Σ.
inline void softmaxRow(const double* z, double* out, int i, int k)
{
    const double mx = rowMax(z, i, k);
    for (int j = 0; j < k; ++j)
        out[j * kLd + i] = std::exp(z[j * kLd + i] - mx);
    double s = out[i];
    for (int j = 1; j < k; ++j)
        s = s + out[j * kLd + i];
    for (int j = 0; j < k; ++j)
        out[j * kLd + i] = out[j * kLd + i] / s;
}

// The network's shape and weights, read once per call.
template <class T>
struct Layers {
    int count = 0;
    int width[SmallMlpKernel::kMaxLayers + 1] = {};
    bool bias[SmallMlpKernel::kMaxLayers] = {};
    Activation act[SmallMlpKernel::kMaxLayers] = {};
    const T* w[SmallMlpKernel::kMaxLayers] = {};
    int wr[SmallMlpKernel::kMaxLayers] = {};  // rows of W_l (its leading dimension)
};

// The forward pass, loss and (with @p grads) backward pass of a batch of M rows: @p cols[i] are
// the inputs of row i, @p yv its targets (column-major, leading dimension kLd); @p grads[l]
// (null: no backward pass) layer l's gradient, shaped like its weights.
template <int M, class T>
T runBatch(const Layers<T>& n, MlpLoss loss, const T* const* cols, const T* yv,
           Eigen::Index workspaceRows, T* const* grads)
{
    using Block = BlockOf<T>;
    constexpr bool kScalar = std::is_same_v<T, double>;
    const int last = n.count - 1;
    // (fits() bounds every width by kMaxSize; the min says so to the compiler.)
    const int k = std::min(n.width[n.count], int(SmallMlpKernel::kMaxSize));
    Block values[SmallMlpKernel::kMaxLayers];
    Block outputPre;
    // ---- forward: Z = [N 1]·W_l, the bias added after the product (Eigen's second pass) ----
    for (int l = 0; l < n.count; ++l) {
        const int in = n.width[l], out = n.width[l + 1], wr = n.wr[l];
        const T* w = n.w[l];
        T* z = l == last ? outputPre : values[l];
        // The input layer's product has no packet path (X is read transposed); the others do.
        PacketSlices slices(l > 0, M, workspaceRows);
        for (int j = 0; j < out; ++j, slices.nextColumn()) {
            const T* wj = w + j * wr;
            auto wa = [wj](int a) { return wj[a]; };
            for (int i = 0; i < M; ++i) {
                T s;
                if (l == 0) {
                    const T* x = cols[i];
                    s = reduce<kForwardInput>(in, [x](int a) { return x[a]; }, wa);
                } else {
                    const T* v = values[l - 1] + i;
                    auto va = [v](int a) { return v[a * kLd]; };
                    s = slices.packet(i) ? packetDot(in, va, wa) : reduce<kForwardHidden>(in, va, wa);
                }
                z[j * kLd + i] = s;
            }
        }
        if (n.bias[l])
            for (int j = 0; j < out; ++j) {
                const T b = w[in + j * wr];
                for (int i = 0; i < M; ++i)
                    z[j * kLd + i] = z[j * kLd + i] + b;
            }
        if (n.act[l] == Activation::Softmax) {
            if constexpr (kScalar)
                for (int i = 0; i < M; ++i)
                    softmaxRow(z, values[l], i, out);
            else
                throw std::logic_error("mlp small kernel: softmax layers are not run in lanes");
        } else {
            applyLayer<M>(n.act[l], z, values[l], out);
        }
    }
    const T* output = values[last];

    // ---- loss (Mlp::loss) ----
    T total = 0.0;
    if (loss == MlpLoss::SquaredError) {
        T d[kLd * kLd];
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < M; ++i)
                d[j * kLd + i] = output[j * kLd + i] - yv[j * kLd + i];
        T s = 0.0;
        for (int j = 0; j < k; ++j) {
            const T* dj = d + j * kLd;
            auto dt = [dj](int t) { return dj[t]; };
            s = j == 0 ? reduce<kSquaredNorm>(M, dt, dt) : accumulate<kSquaredNorm>(s, M, dt, dt);
        }
        total = 0.5 * s;
    } else if constexpr (!kScalar) {
        throw std::logic_error("mlp small kernel: the cross-entropy is not run in lanes");
    } else {
        // −Σ y·(z − logsumexp(z)) per row.
        for (int i = 0; i < M; ++i) {
            const double mx = rowMax(outputPre, i, k);
            double e = std::exp(outputPre[i] - mx);
            for (int j = 1; j < k; ++j)
                e = e + std::exp(outputPre[j * kLd + i] - mx);
            const double lse = mx + std::log(e);
            total -= reduce<kCrossEntropy>(k, [&](int j) { return yv[j * kLd + i]; },
                                           [&](int j) { return outputPre[j * kLd + i] - lse; });
        }
    }
    if (!grads)
        return total;

    // ---- backward (Mlp::backwardColumns with accumulate = false) ----
    Block deltas[SmallMlpKernel::kMaxLayers];
    T* dOut = deltas[last];
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < M; ++i)
            dOut[j * kLd + i] = output[j * kLd + i] - yv[j * kLd + i];
    if (loss == MlpLoss::SquaredError) {
        if (n.act[last] == Activation::Softmax) {
            if constexpr (!kScalar)
                throw std::logic_error("mlp small kernel: softmax layers are not run in lanes");
            else
            for (int i = 0; i < M; ++i) {
                const double s = reduce<kSoftmaxDot>(k, [&](int j) { return output[j * kLd + i]; },
                                                     [&](int j) { return dOut[j * kLd + i]; });
                for (int j = 0; j < k; ++j)
                    dOut[j * kLd + i] = output[j * kLd + i] * (dOut[j * kLd + i] - s);
            }
        } else {
            backpropLayer<M>(n.act[last], output, dOut, k);
        }
    }
    for (int l = last; l >= 0; --l) {
        const int in = n.width[l], out = n.width[l + 1], wr = n.wr[l];
        const T* d = deltas[l];
        T* g = grads[l];
        // [N 1]ᵀ·Δ: sums over the batch rows in row order. Only Xᵀ·Δ_0 has a packet path (X is
        // read as it is stored; a hidden layer's N transposed).
        PacketSlices slices(l == 0, in, wr);
        for (int j = 0; j < out; ++j, slices.nextColumn()) {
            const T* dj = d + j * kLd;
            auto di = [dj](int i) { return dj[i]; };
            for (int a = 0; a < in; ++a) {
                T s;
                if (l == 0) {
                    auto xa = [cols, a](int i) { return cols[i][a]; };
                    s = slices.packet(a) ? packetDot(M, xa, di) : reduce<kGradientInput>(M, xa, di);
                } else {
                    const T* v = values[l - 1] + a * kLd;
                    s = reduce<kGradientHidden>(M, [v](int i) { return v[i]; }, di);
                }
                g[a + j * wr] = s;
            }
            if (n.bias[l]) {
                T s = dj[0];
                for (int i = 1; i < M; ++i)
                    s = s + dj[i];
                g[in + j * wr] = s;
            }
        }
        if (l > 0) {
            // Δ_{l−1} = f'(N_{l−1}) ∘ (Δ_l · W_lᵀ), W_l without its bias row.
            const T* w = n.w[l];
            T* prev = deltas[l - 1];
            PacketSlices rowsOf(true, M, workspaceRows);
            for (int a = 0; a < in; ++a, rowsOf.nextColumn()) {
                auto wa = [w, a, wr](int j) { return w[a + j * wr]; };
                for (int i = 0; i < M; ++i) {
                    auto dij = [d, i](int j) { return d[j * kLd + i]; };
                    prev[a * kLd + i] = rowsOf.packet(i) ? packetDot(out, dij, wa) : reduce<kBackDelta>(out, dij, wa);
                }
            }
            backpropLayer<M>(n.act[l - 1], values[l - 1], prev, in);
        }
    }
    return total;
}

template <class T>
T dispatchRows(int m, const Layers<T>& n, MlpLoss loss, const T* const* cols, const T* yv, Eigen::Index workspaceRows,
               T* const* grads)
{
    switch (m) {
    case 1: return runBatch<1>(n, loss, cols, yv, workspaceRows, grads);
    case 2: return runBatch<2>(n, loss, cols, yv, workspaceRows, grads);
    case 3: return runBatch<3>(n, loss, cols, yv, workspaceRows, grads);
    case 4: return runBatch<4>(n, loss, cols, yv, workspaceRows, grads);
    case 5: return runBatch<5>(n, loss, cols, yv, workspaceRows, grads);
    case 6: return runBatch<6>(n, loss, cols, yv, workspaceRows, grads);
    default: return runBatch<7>(n, loss, cols, yv, workspaceRows, grads);
    }
}

} // namespace

Eigen::Index SmallMlpKernel::sizeLimit()
{
    return kMaxSize;
}

bool SmallMlpKernel::fits(const Mlp& net, Eigen::Index rows, MlpLoss loss)
{
    const int layers = net.layerCount();
    const Eigen::Index limit = sizeLimit();
    if (limit < 1 || layers < 1 || layers > kMaxLayers || rows < 1 || rows > limit)
        return false;
    // Squared error only: the cross-entropy of tiny networks keeps the Eigen path it always had
    // (no toy sweep uses it), so that its runs' numbers stay as they were.
    if (loss != MlpLoss::SquaredError)
        return false;
    for (int l = 0; l <= layers; ++l)
        if (net.width(l) > limit)
            return false;
    // The bound of Eigen's coefficient-wise (lazy) products, whose order the kernel took: larger
    // products keep the Eigen path, as they always did.
    for (int l = 0; l < layers; ++l)
        if (net.width(l) + net.width(l + 1) + rows >= EIGEN_GEMM_TO_COEFFBASED_THRESHOLD)
            return false;
    return true;
}

double SmallMlpKernel::run(const Mlp& net, MlpLoss loss, const Eigen::MatrixXd& xt,
                           const Eigen::Ref<const Eigen::MatrixXd>& y, const Eigen::Index* rows, Eigen::Index first,
                           Eigen::Index mRows, Eigen::Index workspaceRows, std::vector<Eigen::MatrixXd>* grads)
{
    if (!fits(net, mRows, loss))
        throw std::invalid_argument("mlp small kernel: the network " + net.describe() + " and a batch of " +
                                    std::to_string(mRows) + " rows are outside its limits");
    if (workspaceRows < mRows)
        throw std::invalid_argument("mlp small kernel: a workspace of " + std::to_string(workspaceRows) +
                                    " rows cannot hold a batch of " + std::to_string(mRows));
    Layers<double> n;
    n.count = net.layerCount();
    double* g[kMaxLayers] = {};
    if (grads && int(grads->size()) != n.count)
        throw std::invalid_argument("mlp small kernel: " + std::to_string(grads->size()) + " gradient matrices for " +
                                    std::to_string(n.count) + " layers");
    for (int l = 0; l <= n.count; ++l)
        n.width[l] = int(net.width(l));
    for (int l = 0; l < n.count; ++l) {
        n.bias[l] = net.bias(l);
        n.act[l] = net.activation(l);
        n.w[l] = net.weights(l).data();
        n.wr[l] = int(net.weightRows(l));
        if (grads) {
            Eigen::MatrixXd& gl = (*grads)[std::size_t(l)];
            if (gl.rows() != net.weightRows(l) || gl.cols() != net.width(l + 1))
                throw std::invalid_argument("mlp small kernel: the gradient buffers do not have the shapes of the "
                                            "weights of " + net.describe());
            g[l] = gl.data();
        }
    }
    const int m = int(mRows);
    const Eigen::Index ldx = xt.rows(), ldy = y.outerStride();
    const double* cols[kLd];  // each sample's inputs: a column of xt
    double yv[kLd * kLd];     // the targets, gathered
    for (int i = 0; i < m; ++i) {
        const Eigen::Index r = rows ? rows[i] : first + i;
        cols[i] = xt.data() + r * ldx;
        for (int j = 0; j < n.width[n.count]; ++j)
            yv[j * kLd + i] = y.data()[r + j * ldy];
    }
    return dispatchRows(m, n, loss, cols, yv, workspaceRows, grads ? g : nullptr);
}

bool SmallMlpKernel::fitsLanes(const Mlp& net, Eigen::Index rows, MlpLoss loss)
{
    if (!fits(net, rows, loss))
        return false;
    for (int l = 0; l < net.layerCount(); ++l)
        if (net.activation(l) == Activation::Softmax)
            return false;
    return true;
}

Lanes SmallMlpKernel::runLanes(const Mlp& net, MlpLoss loss, const Lanes* const* w, const Lanes* const* cols,
                               const Lanes* y, Eigen::Index mRows, Eigen::Index workspaceRows, Lanes* const* grads)
{
    if (!fitsLanes(net, mRows, loss))
        throw std::invalid_argument("mlp small kernel: the network " + net.describe() + " and a batch of " +
                                    std::to_string(mRows) + " rows are outside its limits in lanes");
    if (workspaceRows < mRows)
        throw std::invalid_argument("mlp small kernel: a workspace of " + std::to_string(workspaceRows) +
                                    " rows cannot hold a batch of " + std::to_string(mRows));
    Layers<Lanes> n;
    n.count = net.layerCount();
    for (int l = 0; l <= n.count; ++l)
        n.width[l] = int(net.width(l));
    for (int l = 0; l < n.count; ++l) {
        n.bias[l] = net.bias(l);
        n.act[l] = net.activation(l);
        n.w[l] = w[l];
        n.wr[l] = int(net.weightRows(l));
    }
    return dispatchRows(int(mRows), n, loss, cols, y, workspaceRows, grads);
}

} // namespace tb::num
