#pragma once
/// @file SparseFeatures.h
/// Random features of sparse rows (text corpora of up to millions of columns) at a cost set by
/// the non-zeros, not the width.

#include <training/RandomFeatures.h>
#include <trainbench/SparseMatrix.h>

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace tb::dsgd {

/// How a model's projections ω_j are drawn.
///  - Sequential: as tb::train::RandomFeatures::projection() (feature j's d entries drawn in
///    order from std::mt19937_64(deriveSeed(seed, j))): the dense inputs' draw, unchanged. Any
///    ω_j[c] needs the c draws before it, so X·Ω costs d·p draws whatever the non-zeros.
///  - Counter: entry ω_j[c] computed on its own from (map seed, j, c) by a counter-based
///    generator (SparseFeatures::omegaEntry()), so X·Ω over sparse rows costs nnz·p draws. The
///    same kernel's random features, a different draw: a model trained with it differs from
///    the Sequential model of the same seed (equally valid; docs/dsgd.md, "Sparse inputs").
enum class FeatureDraw { Sequential, Counter };

/// Counter-based projections and the features of sparse rows. Stateless; thread-safe.
///
/// The counter draw of ω_f[c] (f = feature j, or pair k for gaussian_cos_sin): a frequency key
/// K_f = deriveSeed(map.seed, f) (SplitMix64 finalisers), two 64-bit words
/// mix64(K_f ^ mix64(2c + s)) for s = 0, 1, their top 53 bits as uniforms u₀, u₁ ∈ [0, 1);
/// gaussian kernels: ω = √(−2 ln(1 − u₀))·cos(2πu₁)/σ (Box–Muller); laplace: ω = tan(π(u₀ −
/// ½))/σ (the Cauchy quantile). The offset b_j = 2π·u from mix64(K_j ^ kOffsetTag). Every
/// value depends on (seed, f, c) alone: the same on every thread, block and call.
class SparseFeatures {
public:
    /// Distinct columns gathered per piece of a row block: bounds the Ω rows held at once to
    /// kColumnPiece × (one chunk's frequencies) per worker, whatever the rows' non-zeros.
    static constexpr Eigen::Index kColumnPiece = 1024;

    /// K_f of frequency @p f of @p map.
    static std::uint64_t frequencyKey(const train::RandomFeatures& map, Eigen::Index f);
    /// The counter draw of ω_f[@p column] for the frequency key @p key (see the class comment).
    static double omegaEntry(const train::RandomFeatures& map, std::uint64_t key, Eigen::Index column);
    /// The counter draw of feature @p j's offset b_j ∈ [0, 2π) (0 for gaussian_cos_sin pairs).
    static double offset(const train::RandomFeatures& map, Eigen::Index j);

    /// Features [@p first, @p first + @p n) of rows [@p r0, @p r0 + @p m) of @p x (m × n in
    /// @p out, resized): products z = Σ_c x_c·ω_f[c] over each row's non-zeros in column order,
    /// then s·cos(z + b) (or s·cos z, s·sin z pairs), s = √(2/count) or √2 (map.normalise).
    /// With @p omega/@p offsets null, ω and b are the Counter draws; otherwise they are the
    /// Sequential projections of these features (d × columns and columns, from
    /// RandomFeatures::projection()) and only the rows of the occurring columns are read.
    /// Kinds: gaussian_cos, gaussian_cos_sin, laplace_cos (std::invalid_argument otherwise).
    static void block(const train::RandomFeatures& map, const SparseMatrix& x, Eigen::Index r0, Eigen::Index m,
                      Eigen::Index first, Eigen::Index n, const Eigen::MatrixXd* omega,
                      const Eigen::VectorXd* offsets, Eigen::MatrixXd& out);

    /// Peak temporary bytes of one block() call on rows holding @p blockNonZeros non-zeros,
    /// @p rows rows and @p n features (the Ω piece, products, features and column lists).
    static double blockBytes(Eigen::Index rows, Eigen::Index blockNonZeros, Eigen::Index n);

    /// Rows @p rows of @p x, in that order, as a compressed matrix of the same width.
    static SparseMatrix selectRows(const SparseMatrix& x, const std::vector<Eigen::Index>& rows);

    /// The median trick on sparse rows: the median pairwise Euclidean distance between
    /// @p sampleRows rows drawn by tb::train::medianSampleRows(), the sampler of
    /// tb::train::medianDistance() (same seed, same rows), distances from ‖a‖² + ‖b‖² − 2aᵀb
    /// over the non-zeros (no dense copy), their median by tb::train::medianPairDistance().
    /// O(m·nnz-per-row·…) for the m×m products of the sample. Returns 0 when every sampled row
    /// is the same; throws std::invalid_argument for non-finite values.
    static double medianDistance(const SparseMatrix& x, Eigen::Index sampleRows, std::uint64_t seed);
    /// Peak bytes of medianDistance() on @p rows rows holding @p nonZeros non-zeros.
    static double medianBytes(Eigen::Index rows, Eigen::Index nonZeros, Eigen::Index sampleRows);

    /// The first non-finite stored value as "row r, column c is v" (1-based); empty if none.
    static std::string firstNonFinite(const SparseMatrix& x);
};

} // namespace tb::dsgd
