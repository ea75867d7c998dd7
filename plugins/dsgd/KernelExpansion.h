#pragma once
/// @file KernelExpansion.h
/// A kernel machine as a sum of random features regenerated from seeds: the model of the
/// doubly stochastic gradients (Dai et al. 2014, Algorithm 2) and of the random-feature
/// baseline.

#include "FeatureCache.h"
#include "SparseFeatures.h"

#include <training/DesignMatrix.h>
#include <training/RandomFeatures.h>
#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace tb::dsgd {

/// f(x) = s · Σ_{j < T} α̃_j φ_j(x) with k outputs, where φ_j is feature j of a
/// tb::train::RandomFeatures map (ω_j regenerated from deriveSeed(map.seed, j), never stored)
/// and α_j = s·α̃_j. The common scale s makes "shrink every earlier coefficient by (1 − γν)"
/// one multiplication instead of T·k (Algorithm 1, line 6).
///
/// Memory: T·k coefficients (8 bytes each) and a few scalars, independent of the input
/// dimension d; plus, optionally, a bounded cache of regenerated projections (FeatureCache)
/// and remembered partial sums of large predictions (below). Neither changes a result bit.
///
/// Evaluation order (what makes results reproducible): features are visited in chunks of
/// kChunk, chunk c = features [c·kChunk, (c+1)·kChunk) ∩ [0, T); each chunk's contribution
/// P_c = Φ_c(x)·α̃_c is computed on its own and added to the running sum in chunk order.
///  - Inputs of at least kRowPathRows rows ("row path"): chunk after chunk, the rows split into
///    fixed blocks of kRowBlock rows in parallel; every row's result is the same bits for any
///    thread count. With memoise set, the sum over the complete chunks is kept for that input
///    (recognised by its shape and a hash of its contents), so the next evaluation after more
///    features were added only computes the new chunks: the same bits as a fresh evaluation,
///    because the sum is continued in the same order.
///  - Smaller inputs (minibatches, "chunk path"): the chunks split into at most kMaxGroups
///    consecutive groups computed in parallel, the groups' sums added in group order; the
///    grouping depends on T alone, so again the same bits for any thread count.
/// Both paths poll a stop token between chunks and between row blocks.
///
/// Sparse rows (evaluateSparse(), featuresSparse()) follow the same chunk order, the same two
/// paths and the same remembered sums (recognised by a hash of the rows' offsets, columns and
/// values); each row block's features come from
/// SparseFeatures::block(), so their cost is set by the rows' non-zeros. A machine reset with
/// FeatureDraw::Counter (a model trained on sparse rows) draws ω entry by entry from counters:
/// it evaluates dense inputs by passing their non-zeros through the same sparse path, so dense
/// and sparse copies of the same rows get the same features. With FeatureDraw::Sequential (the
/// default, the dense draw) sparse rows read the occurring columns' rows of the regenerated (or
/// cached) projections.
///
/// Not thread-safe: one thread at a time (const methods included: they fill the caches); the
/// methods parallelise internally in the caller's TBB arena.
class KernelExpansion {
public:
    static constexpr Eigen::Index kChunk = 512;         ///< features per chunk (even: cos/sin pairs)
    static constexpr Eigen::Index kRowBlock = 256;      ///< rows per task on the row path
    static constexpr Eigen::Index kRowPathRows = 1024;  ///< rows from which the row path is taken
    static constexpr Eigen::Index kMemoRows = 2048;     ///< rows from which sums may be remembered
    static constexpr int kMaxGroups = 16;               ///< chunk groups on the chunk path
    static constexpr int kMaxMemos = 4;                 ///< inputs whose sums are remembered

    /// An empty machine (no features) over @p map (map.count = the most features it will
    /// hold) with @p outputs outputs and a projection cache of at most @p cacheBytes bytes
    /// (0 = regenerate every projection every time; the Counter draw keeps no cache), its
    /// projections drawn as @p draw says (default Sequential, the dense draw). Throws
    /// std::invalid_argument from map.check(), or for a Counter draw of a kind other than the
    /// gaussian and laplace features.
    /// With @p precision Mixed, dense rows' products x·ω run in single precision
    /// (RandomFeatures::applyMixed(); the cache then also keeps each chunk's ω as float);
    /// everything else — offsets, cosines, coefficients, sums — stays double, and sparse rows
    /// are computed as with Double.
    void reset(const train::RandomFeatures& map, Eigen::Index outputs, double cacheBytes,
               FeatureDraw draw = FeatureDraw::Sequential, train::Precision precision = train::Precision::Double);
    FeatureDraw draw() const { return m_draw; }
    train::Precision precision() const { return m_precision; }

    const train::RandomFeatures& map() const { return m_map; }
    Eigen::Index features() const { return m_features; }  ///< T
    Eigen::Index outputs() const { return m_outputs; }     ///< k
    Eigen::Index inputs() const { return m_map.inputs; }   ///< d

    /// Appends features T … T + r − 1 with coefficients @p alpha (r × k, the α themselves, not
    /// α̃). Throws std::out_of_range beyond map.count, std::invalid_argument on a shape mismatch
    /// or an odd r with cos/sin pairs.
    void append(const Eigen::Ref<const Eigen::MatrixXd>& alpha);
    /// Multiplies every coefficient by @p factor > 0 (O(1); renormalises the stored α̃ when s
    /// becomes tiny, which forgets the remembered sums).
    void scale(double factor);
    /// Replaces all coefficients by @p alpha (T × k, T ≤ map.count): the random-feature
    /// baseline's weights after an update. Forgets the remembered sums.
    void setCoefficients(const Eigen::Ref<const Eigen::MatrixXd>& alpha);
    /// The coefficients α (T × k).
    Eigen::MatrixXd coefficients() const;

    /// Features [@p first, @p first + @p n) of the rows of @p x: rows × n, projections from
    /// the cache where it holds them exactly. Returns false if @p stop fired (out is then
    /// meaningless). Throws std::invalid_argument on a column mismatch.
    bool features(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index first, Eigen::Index n, Eigen::MatrixXd& out,
                  StopToken stop = {}) const;

    /// f(x) for the rows of @p x (rows × d): rows × k, in the order described above. Returns
    /// false if @p stop fired (out is then meaningless; remembered sums stay valid). Throws
    /// std::invalid_argument on a column mismatch.
    bool evaluate(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::MatrixXd& out, StopToken stop = {},
                  bool memoise = false) const;

    /// features() for sparse rows (compressed, d columns): the same features as features() of
    /// the rows made dense, up to rounding (the products are summed in column order). Chunk
    /// pieces in parallel. Throws std::invalid_argument on a column mismatch.
    bool featuresSparse(const SparseMatrix& x, Eigen::Index first, Eigen::Index n, Eigen::MatrixXd& out,
                        StopToken stop = {}) const;
    /// evaluate() for sparse rows (@p memoise as there). Throws std::invalid_argument on a
    /// column mismatch or an uncompressed matrix.
    bool evaluateSparse(const SparseMatrix& x, Eigen::MatrixXd& out, StopToken stop = {}, bool memoise = false) const;

    /// Bytes of the model: the coefficients' storage (capacity) and the scalars.
    double modelBytes() const;
    /// Bytes the projection cache holds now.
    double cacheBytes() const { return m_cache.bytes(); }
    /// Bytes of the remembered sums.
    double memoBytes() const;
    /// Peak temporary bytes of one evaluate() of @p rows rows on @p threads workers (the
    /// regenerated projections, feature blocks and partial sums), for memory predictions.
    static double evaluationBytes(Eigen::Index rows, Eigen::Index inputs, Eigen::Index outputs, int threads,
                                  train::Precision precision = train::Precision::Double);
    /// An upper bound of the peak temporary bytes of one evaluateSparse() of @p rows rows holding
    /// @p nonZeros non-zeros with the Counter draw (per worker a block's Ω piece, products,
    /// features and column lists; per group a partial sum; the sum, a copy of remembered sums
    /// and the result; the remembered sums themselves are counted by the caller).
    static double evaluationBytesSparse(Eigen::Index rows, Eigen::Index nonZeros, Eigen::Index outputs, int threads);
    /// Bytes of one chunk's projections for @p inputs inputs and @p kind (with their float
    /// copy in Mixed precision).
    static double chunkProjectionBytes(Eigen::Index inputs, train::FeatureKind kind,
                                       train::Precision precision = train::Precision::Double);

private:
    struct Memo {
        std::uint64_t hash = 0;
        Eigen::Index rows = 0, cols = 0;
        std::uint64_t version = 0;
        Eigen::Index chunks = 0;  ///< complete chunks summed in sums
        Eigen::MatrixXd sums;     ///< rows × k: Σ over those chunks of Φ_c α̃_c
        std::uint64_t lastUse = 0;
    };

    /// The projections of features [first, first + n) of chunk @p chunk: the cached entry, or
    /// regenerated into @p local (and cached when the piece starts the chunk and fits).
    const FeatureCache::Entry& projection(Eigen::Index chunk, Eigen::Index first, Eigen::Index n,
                                          FeatureCache::Entry& local) const;
    /// acc += Φ(x)·α̃ of the features of @p e (a fresh product, then one addition); @p x is a
    /// block of double rows, or of their float copy in Mixed precision.
    template <class Rows>
    void addChunk(const Rows& x, const FeatureCache::Entry& e, Eigen::Ref<Eigen::MatrixXd> acc) const;
    /// The features of @p e's projections for the rows of @p x: double rows with the double
    /// ω, float rows (Mixed precision) with the float ω.
    bool applyEntry(const Eigen::Ref<const Eigen::MatrixXd>& x, const FeatureCache::Entry& e, Eigen::MatrixXd& out,
                    StopToken stop) const;
    bool applyEntry(const Eigen::Ref<const Eigen::MatrixXf>& x, const FeatureCache::Entry& e, Eigen::MatrixXd& out,
                    StopToken stop) const;
    Memo* memoFor(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
    Memo* memoFor(std::uint64_t hash, Eigen::Index rows, Eigen::Index cols) const;
    // The sum over the feature chunks, one schedule for dense and sparse rows (row blocks in
    // parallel for many rows, groups of chunks for few; @p memo remembers the complete chunks).
    // withChunk(c, body) calls body(addRows) once, where addRows(r0, m, out) adds chunk c's
    // features of rows [r0, r0 + m) times the coefficients to out (m×k).
    template <class WithChunk>
    bool sumChunks(Eigen::Index rows, Memo* memo, StopToken stop, const WithChunk& withChunk, Eigen::MatrixXd& out) const;
    void checkInput(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
    void checkSparse(const SparseMatrix& x) const;
    /// acc += Φ(rows [r0, r0 + m) of x)·α̃ of chunk @p chunk's features.
    void addChunkSparse(const SparseMatrix& x, Eigen::Index r0, Eigen::Index m, Eigen::Index chunk,
                        Eigen::Ref<Eigen::MatrixXd> acc) const;

    train::RandomFeatures m_map;
    FeatureDraw m_draw = FeatureDraw::Sequential;
    train::Precision m_precision = train::Precision::Double;
    Eigen::Index m_outputs = 0;
    Eigen::Index m_features = 0;
    std::vector<double> m_alpha;  ///< α̃, k per feature (feature-major: a k × T column-major matrix)
    double m_scale = 1.0;         ///< s
    std::uint64_t m_version = 0;  ///< bumped whenever α̃ of existing features change
    mutable FeatureCache m_cache;
    mutable std::vector<Memo> m_memos;
    mutable std::uint64_t m_uses = 0;
};

} // namespace tb::dsgd
