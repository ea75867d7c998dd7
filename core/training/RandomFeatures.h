#pragma once
/// @file RandomFeatures.h
/// Random feature maps φ(x) for kernel approximations (Rahimi & Recht 2007) and random-feature
/// least squares, every feature regenerated from a seed so that a model stores seeds and
/// weights, never the projections. Shared by Least Squares Revisited (stagewise blocks of
/// features) and the doubly stochastic gradients (one block of features per step). No Qt.
///
/// Conventions (bandwidth σ > 0):
///  - GaussianCos:    φ_j(x) = s·cos(ω_jᵀx + b_j), ω_j ~ N(0, σ⁻²I), b_j ~ U[0, 2π):
///                    E[φ(x)ᵀφ(y)] = exp(−‖x − y‖²/(2σ²)) with s = √(2/p).
///  - GaussianCosSin: pairs φ_2k = s·cos(ω_kᵀx), φ_2k+1 = s·sin(ω_kᵀx), one ω per pair (lower
///                    variance than the offset form); p must be even; same kernel and s.
///  - LaplaceCos:     as GaussianCos with ω_j's coordinates i.i.d. Cauchy(0, 1/σ): the Laplace
///                    kernel exp(−‖x − y‖₁/σ).
///  - RandomLogit:    φ_j(x) = 1/(1 + exp(−(ω_jᵀx + b_j))), ω_j ~ N(0, σ⁻²I), b_j ~ N(0, 1)
///                    (Agarwal et al. 2014 §6: logits "with weights chosen from a Gaussian of
///                    appropriate variance"); no kernel, no scale.
///  - RawSubset:      φ_j(x) = x_{c_j}, c_j a column drawn without replacement (a seeded
///                    permutation of the inputs; p ≤ d).
/// The bandwidth by the median trick: medianDistance() (σ = the median pairwise distance, i.e.
/// ω ~ N(0, I/median²), as the authors' demo code of Least Squares Revisited).
///
/// Determinism: ω_j and b_j come from std::mt19937_64(tb::deriveSeed(seed, j)) with
/// platform-independent draws (53-bit uniforms, Box–Muller, the Cauchy quantile), so feature j
/// is the same on every thread, machine and call, whether generated alone or in a block.

#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tb::train {

enum class FeatureKind { GaussianCos, GaussianCosSin, LaplaceCos, RandomLogit, RawSubset };

/// "gaussian_cos", "gaussian_cos_sin", "laplace_cos", "random_logit", "raw_subset".
const char* featureKindName(FeatureKind k);

/// A map from d inputs to p features. Plain data: copy freely; const methods are thread-safe.
struct RandomFeatures {
    FeatureKind kind = FeatureKind::GaussianCos;
    Eigen::Index inputs = 0;      ///< d ≥ 1
    Eigen::Index count = 0;       ///< p ≥ 1 (even for GaussianCosSin; ≤ d for RawSubset)
    double bandwidth = 1.0;       ///< σ > 0 (not used by RawSubset)
    std::uint64_t seed = 0;       ///< the map's seed; feature j uses deriveSeed(seed, j)
    /// Scale s of the cosine maps: √(2/count) when true (φᵀφ approximates the kernel), √2
    /// when false (one feature's unbiased estimate, as the doubly stochastic gradients use).
    bool normalise = true;

    /// Throws std::invalid_argument naming the field that is out of range.
    void check() const;

    /// The projections of features [@p first, @p first + @p n): @p omega (d × n) and
    /// @p offset (n); for GaussianCosSin, @p first and @p n count pairs' features (both even)
    /// and column k of omega is pair first/2 + k's frequency (n/2 columns); for RawSubset,
    /// omega is the 0/1 selection. Regenerated from the seed at every call.
    void projection(Eigen::Index first, Eigen::Index n, Eigen::MatrixXd& omega, Eigen::VectorXd& offset) const;

    /// RawSubset only: the input columns c_j of features [@p first, @p first + @p n) — the
    /// columns projection()'s 0/1 selection picks, without its d × n matrix (for inputs too
    /// wide for it, e.g. sparse text). Throws std::logic_error for another kind,
    /// std::out_of_range for a range outside the features.
    std::vector<Eigen::Index> subsetColumns(Eigen::Index first, Eigen::Index n) const;

    /// φ(x) of features [@p first, @p first + @p n) (n = −1: to the end) for every row of
    /// @p x (rows × d), written to @p out (rows × n, resized). Parallel over row blocks in
    /// the current TBB arena (rows are independent: the same bits for any thread count);
    /// polls @p stop between blocks and returns false if it fired (out is then meaningless).
    bool transform(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& out, StopToken stop = {},
                   Eigen::Index first = 0, Eigen::Index n = -1) const;

    /// transform() with projections from projection() (e.g. a cache of regenerated ω): the
    /// same bits as transform() of the same features.
    bool apply(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& omega,
               const Eigen::VectorXd& offset, Eigen::MatrixXd& out, StopToken stop = {}) const;

    /// apply() in mixed precision: the products x·ω of float rows @p x (the data cast to float)
    /// and @p omega (projection()'s ω cast to float) in single precision, the offsets, cosines
    /// and everything after in double. A phase then carries float rounding, at most
    /// (d + 2)·2⁻²⁴·Σ_i|x_i ω_i| (≈ 1e-6 absolute on standardised inputs); the products run at
    /// about twice double's rate. Deterministic for any thread count as apply(). Not for
    /// RawSubset (std::invalid_argument).
    bool applyMixed(const Eigen::Ref<const Eigen::MatrixXf>& x, const Eigen::MatrixXf& omega,
                    const Eigen::VectorXd& offset, Eigen::MatrixXd& out, StopToken stop = {}) const;

    /// Memory of the projections of @p n features, in bytes (what a cache of ω costs).
    double projectionBytes(Eigen::Index n) const { return 8.0 * double(inputs + 1) * double(n); }

private:
    void checkApply(Eigen::Index xCols, Eigen::Index omegaRows, Eigen::Index omegaCols,
                    const Eigen::VectorXd& offset) const;
    // The row-block loop shared by apply() and applyMixed(): product(r0, m, dst, p) writes the
    // block's phases to p (then the offsets and trigonometry follow) or fills dst itself and
    // returns false.
    template <class Product>
    bool applyBlocks(Eigen::Index rows, Eigen::Index columns, const Eigen::VectorXd& offset, Eigen::MatrixXd& out,
                     StopToken stop, const Product& product) const;
};

/// The median of the pairwise Euclidean distances between @p sampleRows rows of @p x drawn
/// without replacement with seed @p seed (all rows when there are fewer): the "median trick"
/// bandwidth. O(sampleRows² · d). Returns 0 when every sampled row is the same (the caller
/// must refuse that bandwidth). Throws std::invalid_argument for non-finite data.
double medianDistance(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index sampleRows, std::uint64_t seed);

/// The rows the median trick samples from @p n rows: the first m = min(n, max(@p sampleRows, 2))
/// of a partial Fisher–Yates shuffle of 0 … n − 1 by boundedDraw() from std::mt19937_64(@p seed),
/// in that order; empty when n < 2. The one sampler of every median-trick bandwidth —
/// medianDistance() here, the dsgd plugin's on sparse rows — so that a seed picks the same rows
/// whichever form the inputs take. Pure; thread-safe.
std::vector<Eigen::Index> medianSampleRows(Eigen::Index n, Eigen::Index sampleRows, std::uint64_t seed);

/// The median of the pairwise Euclidean distances of m sampled rows given their squared norms
/// @p norms (m entries) and @p dot(i, j), the product of rows i and j (called for i > j): each
/// squared distance is ‖a‖² + ‖b‖² − 2aᵀb clamped at 0 against rounding, the m(m − 1)/2 of them
/// in the order j = 0 … m − 1, i = j + 1 … m − 1, and the median is the upper one of an even
/// count. @p norms needs at least 2 entries. Shared by medianDistance() and the dsgd plugin's
/// sparse median, which must agree to the bit on the same rows. Thread-safe if @p dot is.
double medianPairDistance(const Eigen::VectorXd& norms,
                          const std::function<double(Eigen::Index, Eigen::Index)>& dot);

} // namespace tb::train
