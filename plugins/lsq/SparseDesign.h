#pragma once
/// @file SparseDesign.h
/// The design of a Least Squares Revisited fit on sparse inputs: a block of sparse columns (the
/// raw inputs, or the subset of them a stage fits), optionally followed by a few dense columns
/// (the calibrated flavour's G(Ŷ)) and the implicit constant column. The operations GlsSolver
/// needs, with the same meaning as train::DesignMatrix's, computed from the non-zeros: never a
/// dense copy of the block.

#include <trainbench/SparseMatrix.h>
#include <trainbench/StopToken.h>

#include <training/DesignMatrix.h>

#include <Eigen/Core>
#include <atomic>
#include <vector>

namespace tb::lsq {

/// [S E 1]: S n×p sparse (compressed rows), E n×e dense (may be empty), the 1 column only where
/// a method's @p bias says so. Always double precision (precision() is Double: the sparse values
/// are the data's own doubles, and the Gram is exact sums of their products).
///
/// Costs: gram() Σᵢ nnzᵢ²/2 + nnz·e + n·e²; cross(), product() 2·nnz·k + 2·n·e·k;
/// productCross() both. Rows in order, one block of kBlockRows rows at a time (deterministic);
/// the stop token is polled between blocks, and once it fires stopped() is set and results are
/// meaningless.
///
/// Not thread-safe for concurrent calls; holds a reference to S when built from a reference.
class SparseDesign {
public:
    using BlockLink = train::DesignMatrix::BlockLink;

    /// References @p s (which must outlive this object) and copies @p extra (n × e, or null).
    explicit SparseDesign(const SparseMatrix& s, const Eigen::MatrixXd* extra = nullptr);
    /// Owns @p s.
    SparseDesign(SparseMatrix&& s, const Eigen::MatrixXd* extra);
    SparseDesign(SparseDesign&& other) noexcept;
    SparseDesign(const SparseDesign&) = delete;
    SparseDesign& operator=(const SparseDesign&) = delete;

    /// The columns @p columns of @p x (each in [0, x.cols()), distinct), in that order, as an
    /// n × columns.size() compressed-row matrix. O(nnz + d).
    static SparseMatrix selectColumns(const SparseMatrix& x, const std::vector<Eigen::Index>& columns);

    Eigen::Index rows() const { return sparse().rows(); }
    Eigen::Index cols() const { return sparse().cols() + m_extra.cols(); }
    train::Precision precision() const { return train::Precision::Double; }
    const SparseMatrix& sparse() const { return m_owns ? m_own : *m_ref; }

    void setStopToken(StopToken stop) { m_stop = std::move(stop); }
    bool stopped() const { return m_stopped.load(); }

    /// The rows @p rows, copied in that order (Σ̂ from a sample of rows).
    SparseDesign subset(const std::vector<Eigen::Index>& rows) const;

    /// G = [S E 1]ᵀ[S E 1] (the 1 only with @p bias), filled in full.
    Eigen::MatrixXd gram(bool bias) const;
    /// C = [S E 1]ᵀB.
    Eigen::MatrixXd cross(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias) const;
    /// gram() and cross().
    void normalEquations(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias, Eigen::MatrixXd& g,
                         Eigen::MatrixXd& c) const;
    /// Z = [S E 1]·W.
    void product(const Eigen::MatrixXd& w, bool bias, Eigen::MatrixXd& z) const;
    /// Per block of rows: Z_b = [S E 1]_b·W, @p link turns it into R_b, C += [S E 1]_bᵀR_b
    /// (train::DesignMatrix::productCross()'s contract).
    Eigen::MatrixXd productCross(const Eigen::MatrixXd& w, bool bias, const BlockLink& link,
                                 double* linkSum = nullptr) const;

    /// Bytes this object holds (an owned S and E; 0 for a referenced S without E).
    double storedBytes() const;

    /// Rows per block between two polls of the stop token.
    static constexpr Eigen::Index kBlockRows = 4096;

private:
    bool pollStop() const;
    void checkWeights(const Eigen::MatrixXd& w, bool bias) const;

    const SparseMatrix* m_ref = nullptr;
    SparseMatrix m_own;
    bool m_owns = false;
    Eigen::MatrixXd m_extra;
    StopToken m_stop;
    mutable std::atomic<bool> m_stopped{false};
};

} // namespace tb::lsq
