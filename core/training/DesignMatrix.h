#pragma once
/// @file DesignMatrix.h
/// A large coefficient matrix [X 1] (a network's inputs, random features …): stored once in
/// the precision asked for, with the operations least-squares training needs on it — the
/// normal equations, the Gram matrix, cross products and the product with a weight matrix —
/// parallel over row blocks and stoppable between them. No Qt.

#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <atomic>
#include <functional>
#include <vector>

namespace tb::train {

/// Precision of the Gram matrix and cross products.
enum class Precision {
    Double, ///< double throughout (core LeastSquares gramAndCross)
    Mixed   ///< inputs stored as float, float products on row blocks of 4096 accumulated in double
};

/// Mixed precision's floor under a ridge: λ ≥ kMixedRidgeFloor·trace(G)/√p on a Gram G of p
/// columns summed from float products, so that the solves never follow the float rounding
/// noise. Entry errors are a fraction of trace/p, and a p×p matrix of such errors has a
/// spectral norm ∝ √p·trace/p = trace/√p. 2-D data with 48 random features, whose spectrum
/// falls fastest, diverge at 1e-7·trace and fit at 1e-6·trace: 7e-5/√48 = 1e-5 keeps a factor
/// 10 there. A floor of 1e-5·trace regardless of p cost 4000 random features of Fashion-MNIST
/// 1.1 points of validation accuracy against double precision (88.29 % against 89.40 %;
/// Least Squares Revisited's generalized least squares, bench/README.md).
constexpr double kMixedRidgeFloor = 7e-5;

/// Training inputs of one fit (or a subset of their rows), optionally standardised.
/// (BPLS keeps its first layer's inputs in one; Least Squares Revisited its random features.)
///
/// Parallel: every method runs TBB parallel_for in the caller's arena; row partitions are
/// fixed by the row count and the arena's concurrency, so results are deterministic for a
/// given thread count. Not thread-safe for concurrent mutation.
class DesignMatrix {
public:
    /// Copies or references @p x (n×d). Double precision without standardisation keeps a
    /// reference: @p x must outlive this object. Mixed precision stores a float copy.
    /// With @p standardise, columns are z-scored (a zero spread gives scale 1); when
    /// @p center is false only the scale is applied (no bias column to absorb a shift).
    DesignMatrix(const Eigen::Ref<const Eigen::MatrixXd>& x, Precision precision, bool standardise, bool center);

    /// Fills one block of rows: @p block is rows [r0, r0 + block.rows()) of the design, every
    /// entry to be written. Called concurrently for disjoint blocks.
    using BlockFill = std::function<void(Eigen::Index r0, Eigen::Ref<Eigen::MatrixXd> block)>;

    /// A @p rows × @p cols design computed block by block by @p fill (e.g. random features of
    /// the inputs): in mixed precision each block is computed in double and stored as float, so
    /// the n × cols double matrix never exists. Blocks of kGenerateBlock rows (the same blocks
    /// for any thread count), in parallel in the current TBB arena; @p stop is polled between
    /// blocks and, once it fires, stopped() is set and the contents are meaningless. The stop
    /// token is kept for the later operations (setStopToken()). Not standardised.
    static DesignMatrix generate(Eigen::Index rows, Eigen::Index cols, Precision precision, const BlockFill& fill,
                                 StopToken stop = {});

    /// An empty set, e.g. a buffer for assignSubset().
    DesignMatrix() = default;
    DesignMatrix(DesignMatrix&& other) noexcept;
    DesignMatrix& operator=(DesignMatrix&& other) noexcept;
    DesignMatrix(const DesignMatrix&) = delete; // large: copy explicitly with subset()
    DesignMatrix& operator=(const DesignMatrix&) = delete;

    /// The rows @p rows of this set, copied in that order (same precision and transform).
    /// Throws std::out_of_range for a row outside [0, rows()).
    DesignMatrix subset(const std::vector<Eigen::Index>& rows) const;

    /// Makes this object the rows @p rows of @p source (as subset()), reusing its storage:
    /// no allocation once it has held a set at least as large.
    void assignSubset(const DesignMatrix& source, const std::vector<Eigen::Index>& rows);

    /// False if any input is NaN or ±Inf (checked during the copy, or on the caller's data).
    bool allFinite() const { return m_finite; }

    /// A stop token polled between row blocks of normalEquations(), gram(), cross() and
    /// product() (e.g. RunContext::stopToken()). Once it fires those calls skip their
    /// remaining blocks and their results are meaningless: the caller must check stopped()
    /// and discard them. Default: never stop.
    void setStopToken(StopToken stop) { m_stop = stop; }
    /// True once the stop token fired during a call (sticky).
    bool stopped() const { return m_stopped.load(); }

    Eigen::Index rows() const { return m_rows; }
    Eigen::Index cols() const { return m_cols; }
    Precision precision() const { return m_precision; }
    /// Column means and scales applied (empty when not standardised).
    const Eigen::VectorXd& mean() const { return m_mean; }
    const Eigen::VectorXd& scale() const { return m_scale; }

    /// G = [X 1]ᵀ[X 1] and C = [X 1]ᵀB (the 1 column only when @p bias), G filled in full.
    /// Double: core LeastSquares gramAndCross plus column sums. Mixed: float products on
    /// blocks of kMixedBlock rows, each accumulated into double.
    void normalEquations(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias, Eigen::MatrixXd& g,
                         Eigen::MatrixXd& c) const;

    /// G = [X 1]ᵀ[X 1] alone (filled in full), same precision rules as normalEquations().
    Eigen::MatrixXd gram(bool bias) const;

    /// C = [X 1]ᵀB alone, same precision rules as normalEquations().
    Eigen::MatrixXd cross(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias) const;

    /// Z = [X 1]·W (W has cols()+1 rows with @p bias, else cols()); n × W.cols(), written to
    /// @p z (resized only if its shape differs).
    void product(const Eigen::MatrixXd& w, bool bias, Eigen::MatrixXd& z) const;

    /// Turns one block of products Z_b = [X 1]_b·W (rows [r0, r0 + z.rows())) into the block of
    /// a right-hand side R_b in place, and returns a number to be summed over blocks (e.g. the
    /// block's loss). Called concurrently for disjoint blocks.
    using BlockLink = std::function<double(Eigen::Index r0, Eigen::Ref<Eigen::MatrixXd> z)>;

    /// One pass over the rows for generalized linear models: per block of fusedBlockRows() rows,
    /// Z_b = [X 1]_b·W, then @p link turns Z_b into R_b (e.g. softmax(Z_b) − Y_b), then
    /// C += [X 1]_bᵀ·R_b. Returns C ((cols() [+1]) × W.cols()) and, in @p linkSum, the sum of the
    /// link's numbers. The same arithmetic as product() then cross() but one read of X instead of
    /// two, with the block in cache: the iterations of generalized least squares are bound by
    /// memory bandwidth. Parts and blocks as normalEquations() (deterministic for a given thread
    /// count; partial sums added in part order); mixed precision: float products, R_b rounded to
    /// float, sums in double. Polls the stop token between blocks (results then meaningless).
    Eigen::MatrixXd productCross(const Eigen::MatrixXd& w, bool bias, const BlockLink& link,
                                 double* linkSum = nullptr) const;

    /// Rows per block of productCross(): about 512 KiB of X (in cache while it is used twice),
    /// between 32 and 4096 rows; depends only on cols() and the precision.
    Eigen::Index fusedBlockRows() const;

    /// Bytes of the stored inputs (0 when a double design references the caller's matrix).
    double storedBytes() const
    {
        return m_precision == Precision::Mixed ? 4.0 * double(m_float.size()) : 8.0 * double(m_ownDouble.size());
    }

    /// The same as normalEquations() for any double matrix A (hidden layers), polling @p stop
    /// between row blocks (num::gramAndCross); once it fires the results are meaningless.
    static void augmentedNormalEquations(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                         const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias, Eigen::MatrixXd& g,
                                         Eigen::MatrixXd& c, StopToken stop = {});

    /// Rows per float product in mixed precision: each block's float sums cover at most
    /// this many rows before they are added in double (fewer for Gram matrices wider than
    /// ~700 columns, so that the stop token is polled every ~10⁹ multiply-adds).
    static constexpr Eigen::Index kMixedBlock = 4096;
    /// Rows per call of the core gramAndCross() in double precision (the stop token is
    /// polled between calls).
    static constexpr Eigen::Index kDoubleChunk = 16384;
    /// Rows per block of generate().
    static constexpr Eigen::Index kGenerateBlock = 512;

private:
    void accumulate(const Eigen::MatrixXd* b, bool wantGram, bool bias, Eigen::MatrixXd* g, Eigen::MatrixXd* c) const;
    void doubleNormalEquations(const Eigen::Ref<const Eigen::MatrixXd>& b, bool wantCross, bool bias, Eigen::MatrixXd& g,
                               Eigen::MatrixXd& c) const;
    bool pollStop() const;
    Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> doubleView() const;

    Precision m_precision = Precision::Double;
    Eigen::Index m_rows = 0, m_cols = 0;
    // Double data: either the caller's (pointer + stride) or m_ownDouble.
    const double* m_data = nullptr;
    Eigen::Index m_stride = 0;
    Eigen::MatrixXd m_ownDouble; ///< may have more rows than m_rows (capacity, see assignSubset)
    Eigen::MatrixXf m_float;     ///< same
    bool m_finite = true;
    StopToken m_stop;
    mutable std::atomic<bool> m_stopped{false};
    Eigen::VectorXd m_mean, m_scale;
};

} // namespace tb::train
