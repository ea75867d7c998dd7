#include "RandomFeatures.h"

#include "Sampling.h"

#include <trainbench/Seeds.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#if defined(TB_HAVE_LIBMVEC) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
// glibc's vector maths library (libmvec, part of libc6): cos and sin of four doubles, ≤ 4 ulp.
// Eigen 3.4 has no vectorised cos for double, and the scalar cos was 40 % of a stagewise run.
extern "C" __m256d _ZGVdN4v_cos(__m256d);
extern "C" __m256d _ZGVdN4v_sin(__m256d);
#define TB_LIBMVEC 1
#endif

namespace tb::train {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Rows per task of transform(): large enough for an efficient product, small enough that the
// stop token is polled every few milliseconds.
constexpr Eigen::Index kRowBlock = 512;

enum class Trig { Cos, Sin };

// y[i] = s·cos(x[i]) (or sin) for n contiguous values. Every value, the last few included, goes
// through the same vector routine (the tail padded), so a feature's bits do not depend on where
// its row falls in a block: blocks, single rows and any thread count agree bit for bit.
void scaledTrig(Trig t, const double* x, double* y, Eigen::Index n, double s)
{
#ifdef TB_LIBMVEC
    const __m256d vs = _mm256_set1_pd(s);
    auto f = [t](__m256d v) { return t == Trig::Cos ? _ZGVdN4v_cos(v) : _ZGVdN4v_sin(v); };
    Eigen::Index i = 0;
    for (; i + 4 <= n; i += 4)
        _mm256_storeu_pd(y + i, _mm256_mul_pd(vs, f(_mm256_loadu_pd(x + i))));
    if (i < n) {
        alignas(32) double in[4] = {0, 0, 0, 0}, out[4];
        std::copy(x + i, x + n, in);
        _mm256_store_pd(out, _mm256_mul_pd(vs, f(_mm256_load_pd(in))));
        std::copy(out, out + (n - i), y + i);
    }
#else
    for (Eigen::Index i = 0; i < n; ++i)
        y[i] = s * (t == Trig::Cos ? std::cos(x[i]) : std::sin(x[i]));
#endif
}

// Uniform in [0, 1) from the top 53 bits (platform-independent).
double uniform01(std::mt19937_64& g)
{
    return double(g() >> 11) * 0x1.0p-53;
}

// Standard normals by Box–Muller, two per pair of uniforms (platform-independent, unlike
// std::normal_distribution).
class Normals {
public:
    explicit Normals(std::mt19937_64& g) : m_g(g) {}
    double next()
    {
        if (m_has) {
            m_has = false;
            return m_spare;
        }
        const double u1 = 1.0 - uniform01(m_g);  // (0, 1]: log is finite
        const double u2 = uniform01(m_g);
        const double r = std::sqrt(-2.0 * std::log(u1));
        m_spare = r * std::sin(2.0 * kPi * u2);
        m_has = true;
        return r * std::cos(2.0 * kPi * u2);
    }

private:
    std::mt19937_64& m_g;
    double m_spare = 0;
    bool m_has = false;
};

double scaleOf(const RandomFeatures& f)
{
    return f.normalise ? std::sqrt(2.0 / double(f.count)) : std::sqrt(2.0);
}

// The seeded permutation of the input columns that RawSubset draws its features from.
std::vector<Eigen::Index> columnOrder(const RandomFeatures& f)
{
    std::vector<Eigen::Index> cols(static_cast<std::size_t>(f.inputs));
    std::iota(cols.begin(), cols.end(), Eigen::Index(0));
    std::mt19937_64 g(deriveSeed(f.seed, 0));
    shuffle(cols, g);
    return cols;
}

} // namespace

const char* featureKindName(FeatureKind k)
{
    switch (k) {
    case FeatureKind::GaussianCos: return "gaussian_cos";
    case FeatureKind::GaussianCosSin: return "gaussian_cos_sin";
    case FeatureKind::LaplaceCos: return "laplace_cos";
    case FeatureKind::RandomLogit: return "random_logit";
    case FeatureKind::RawSubset: return "raw_subset";
    }
    return "?";
}

void RandomFeatures::check() const
{
    auto fail = [](const std::string& m) { throw std::invalid_argument("random features: " + m); };
    if (inputs < 1)
        fail("need at least one input, got " + std::to_string(inputs));
    if (count < 1)
        fail("the number of features must be at least 1, got " + std::to_string(count));
    if (kind == FeatureKind::GaussianCosSin && count % 2 != 0)
        fail("the cos/sin pair map needs an even number of features, got " + std::to_string(count));
    if (kind == FeatureKind::RawSubset && count > inputs)
        fail("a random subset of " + std::to_string(count) + " raw features needs at least as many inputs, the data "
             "have " + std::to_string(inputs));
    if (kind != FeatureKind::RawSubset && !(bandwidth > 0 && std::isfinite(bandwidth)))
        fail("the bandwidth must be a positive number, got " + std::to_string(bandwidth));
}

void RandomFeatures::projection(Eigen::Index first, Eigen::Index n, Eigen::MatrixXd& omega,
                                Eigen::VectorXd& offset) const
{
    check();
    if (first < 0 || n < 0 || first + n > count)
        throw std::out_of_range("random features: [" + std::to_string(first) + ", " + std::to_string(first + n) +
                                ") outside the " + std::to_string(count) + " features");
    const Eigen::Index d = inputs;
    switch (kind) {
    case FeatureKind::RawSubset: {
        const auto cols = columnOrder(*this);
        omega.setZero(d, n);
        offset.setZero(n);
        for (Eigen::Index j = 0; j < n; ++j)
            omega(cols[std::size_t(first + j)], j) = 1.0;
        return;
    }
    case FeatureKind::GaussianCosSin: {
        if (first % 2 != 0 || n % 2 != 0)
            throw std::invalid_argument("random features: cos/sin pairs start and end at even features");
        omega.resize(d, n / 2);
        offset.setZero(n / 2);
        for (Eigen::Index k = 0; k < n / 2; ++k) {
            std::mt19937_64 g(deriveSeed(seed, std::uint64_t(first / 2 + k)));
            Normals z(g);
            for (Eigen::Index i = 0; i < d; ++i)
                omega(i, k) = z.next() / bandwidth;
        }
        return;
    }
    case FeatureKind::GaussianCos:
    case FeatureKind::LaplaceCos:
    case FeatureKind::RandomLogit:
        break;
    }
    omega.resize(d, n);
    offset.resize(n);
    for (Eigen::Index j = 0; j < n; ++j) {
        std::mt19937_64 g(deriveSeed(seed, std::uint64_t(first + j)));
        if (kind == FeatureKind::LaplaceCos) {
            for (Eigen::Index i = 0; i < d; ++i)
                omega(i, j) = std::tan(kPi * (uniform01(g) - 0.5)) / bandwidth;  // Cauchy(0, 1/σ) quantile
            offset(j) = 2.0 * kPi * uniform01(g);
            continue;
        }
        Normals z(g);
        for (Eigen::Index i = 0; i < d; ++i)
            omega(i, j) = z.next() / bandwidth;
        offset(j) = kind == FeatureKind::RandomLogit ? z.next() : 2.0 * kPi * uniform01(g);
    }
}

std::vector<Eigen::Index> RandomFeatures::subsetColumns(Eigen::Index first, Eigen::Index n) const
{
    if (kind != FeatureKind::RawSubset)
        throw std::logic_error("random features: subsetColumns() of a map that is not raw_subset");
    check();
    if (first < 0 || n < 0 || first + n > count)
        throw std::out_of_range("random features: [" + std::to_string(first) + ", " + std::to_string(first + n) +
                                ") outside the " + std::to_string(count) + " features");
    const auto cols = columnOrder(*this);
    return std::vector<Eigen::Index>(cols.begin() + first, cols.begin() + first + n);
}

bool RandomFeatures::transform(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& out, StopToken stop,
                               Eigen::Index first, Eigen::Index n) const
{
    if (n < 0)
        n = count - first;
    Eigen::MatrixXd omega;
    Eigen::VectorXd offset;
    projection(first, n, omega, offset);
    return apply(x, omega, offset, out, stop);
}

bool RandomFeatures::apply(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& omega,
                           const Eigen::VectorXd& offset, Eigen::MatrixXd& out, StopToken stop) const
{
    checkApply(x.cols(), omega.rows(), omega.cols(), offset);
    std::vector<Eigen::Index> selected;
    if (kind == FeatureKind::RawSubset) {
        selected.resize(std::size_t(omega.cols()));
        for (Eigen::Index j = 0; j < omega.cols(); ++j)
            omega.col(j).maxCoeff(&selected[std::size_t(j)]);
    }
    return applyBlocks(x.rows(), omega.cols(), offset, out, stop,
                       [&](Eigen::Index r0, Eigen::Index m, Eigen::Ref<Eigen::MatrixXd> dst, Eigen::MatrixXd& p) {
                           if (kind == FeatureKind::RawSubset) {
                               for (Eigen::Index j = 0; j < omega.cols(); ++j)
                                   dst.col(j) = x.middleRows(r0, m).col(selected[std::size_t(j)]);
                               return false;
                           }
                           p.noalias() = x.middleRows(r0, m) * omega;
                           return true;
                       });
}

bool RandomFeatures::applyMixed(const Eigen::Ref<const Eigen::MatrixXf>& x, const Eigen::MatrixXf& omega,
                                const Eigen::VectorXd& offset, Eigen::MatrixXd& out, StopToken stop) const
{
    if (kind == FeatureKind::RawSubset)
        throw std::invalid_argument("random features: raw_subset features are columns of the data, not products");
    checkApply(x.cols(), omega.rows(), omega.cols(), offset);
    return applyBlocks(x.rows(), omega.cols(), offset, out, stop,
                       [&](Eigen::Index r0, Eigen::Index m, Eigen::Ref<Eigen::MatrixXd>, Eigen::MatrixXd& p) {
                           // The float product's own buffer is the worker thread's and outlives
                           // the call (a fresh one would be new, kernel-zeroed pages every block).
                           thread_local Eigen::MatrixXf pf;
                           pf.resize(m, omega.cols());
                           pf.noalias() = x.middleRows(r0, m) * omega;
                           p = pf.cast<double>();
                           return true;
                       });
}

void RandomFeatures::checkApply(Eigen::Index xCols, Eigen::Index omegaRows, Eigen::Index omegaCols,
                                const Eigen::VectorXd& offset) const
{
    if (xCols != inputs)
        throw std::invalid_argument("random features: the data have " + std::to_string(xCols) +
                                    " columns, the map was drawn for " + std::to_string(inputs));
    if (omegaRows != inputs || offset.size() != omegaCols)
        throw std::invalid_argument("random features: projections of the wrong shape");
}

template <class Product>
bool RandomFeatures::applyBlocks(Eigen::Index rows, Eigen::Index columns, const Eigen::VectorXd& offset,
                                 Eigen::MatrixXd& out, StopToken stop, const Product& product) const
{
    const bool pairs = kind == FeatureKind::GaussianCosSin;
    const Eigen::Index n = pairs ? 2 * columns : columns;
    out.resize(rows, n);
    const double s = scaleOf(*this);
    std::atomic<bool> stopped{false};
    const Eigen::Index blocks = (rows + kRowBlock - 1) / kRowBlock;
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        Eigen::MatrixXd p;
        for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
            if (stop.stopRequested()) {
                stopped = true;
                return;
            }
            const Eigen::Index r0 = b * kRowBlock, m = std::min(kRowBlock, rows - r0);
            auto dst = out.middleRows(r0, m);
            if (!product(r0, m, dst, p))  // the block is written (raw columns)
                continue;
            if (pairs) {
                for (Eigen::Index k = 0; k < columns; ++k) {
                    scaledTrig(Trig::Cos, p.col(k).data(), dst.col(2 * k).data(), m, s);
                    scaledTrig(Trig::Sin, p.col(k).data(), dst.col(2 * k + 1).data(), m, s);
                }
                continue;
            }
            p.rowwise() += offset.transpose();
            if (kind == FeatureKind::RandomLogit)
                dst = (1.0 / (1.0 + (-p.array()).exp())).matrix();
            else
                for (Eigen::Index j = 0; j < n; ++j)
                    scaledTrig(Trig::Cos, p.col(j).data(), dst.col(j).data(), m, s);
        }
    });
    return !stopped;
}

double medianDistance(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index sampleRows, std::uint64_t seed)
{
    if (!x.allFinite())
        throw std::invalid_argument("median trick: the data contain NaN or Inf");
    const std::vector<Eigen::Index> rows = medianSampleRows(x.rows(), sampleRows, seed);
    const Eigen::Index m = Eigen::Index(rows.size());
    if (m < 2)
        return 0.0;
    Eigen::MatrixXd s(m, x.cols());
    for (Eigen::Index i = 0; i < m; ++i)
        s.row(i) = x.row(rows[std::size_t(i)]);
    const Eigen::VectorXd norms = s.rowwise().squaredNorm();
    const Eigen::MatrixXd dots = s * s.transpose();
    return medianPairDistance(norms, [&dots](Eigen::Index i, Eigen::Index j) { return dots(i, j); });
}

std::vector<Eigen::Index> medianSampleRows(Eigen::Index n, Eigen::Index sampleRows, std::uint64_t seed)
{
    const Eigen::Index m = std::min(n, std::max<Eigen::Index>(sampleRows, 2));
    if (m < 2)
        return {};
    // A seeded sample without replacement: the first m of a partial Fisher–Yates shuffle.
    std::vector<Eigen::Index> rows(static_cast<std::size_t>(n));
    std::iota(rows.begin(), rows.end(), Eigen::Index(0));
    std::mt19937_64 g(seed);
    for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index j = i + Eigen::Index(boundedDraw(g, std::uint64_t(n - i)));
        std::swap(rows[std::size_t(i)], rows[std::size_t(j)]);
    }
    rows.resize(std::size_t(m));
    return rows;
}

double medianPairDistance(const Eigen::VectorXd& norms,
                          const std::function<double(Eigen::Index, Eigen::Index)>& dot)
{
    const Eigen::Index m = norms.size();
    // ‖a − b‖² = ‖a‖² + ‖b‖² − 2aᵀb, clamped at 0 against rounding.
    std::vector<double> d2;
    d2.reserve(std::size_t(m * (m - 1) / 2));
    for (Eigen::Index j = 0; j < m; ++j)
        for (Eigen::Index i = j + 1; i < m; ++i)
            d2.push_back(std::max(0.0, norms(i) + norms(j) - 2.0 * dot(i, j)));
    auto mid = d2.begin() + std::ptrdiff_t(d2.size() / 2);
    std::nth_element(d2.begin(), mid, d2.end());
    return std::sqrt(*mid);
}

} // namespace tb::train
