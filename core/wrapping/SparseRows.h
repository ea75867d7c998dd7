#pragma once
/// @file SparseRows.h
/// The workbench's inputs, dense or sparse, as the {index, value} rows LIBLINEAR and LIBSVM read.

#include <trainbench/SparseMatrix.h>

#include <Eigen/Core>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <climits>
#include <cmath>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace tb::wrap {

/// Sparse rows in the layout both libraries read (LIBLINEAR's feature_node, LIBSVM's svm_node:
/// `struct { int index; double value; }`): row i is a run of nodes with 1-based column indices in
/// increasing order, zeros left out, optionally one more node {d + 1, bias} (LIBLINEAR's bias
/// feature), then a terminator {-1, 0}. All rows live in one allocation, built once without a
/// text round trip, with the same values the inputs hold.
///
/// The inputs are a dense matrix or a tb::SparseMatrix (compressed rows, a text corpus of a
/// million columns): both go through the same node rule (putEntry(), endRow()), so the same data
/// gives the same nodes bit for bit whichever form it comes in — explicit zeros of a sparse
/// matrix are left out as a dense matrix's zeros are. A sparse matrix is read as it is: no dense
/// row, let alone a dense copy, is ever made of it.
///
/// Memory: 16 bytes a stored node (non-zeros + bias + terminator per row) plus 8 bytes a row
/// for the row pointers; bytesUpperBound() is the figure for a dense matrix without zeros,
/// sparseBytesUpperBound() for a sparse one whose stored entries are all non-zero.
///
/// Thread-safety: construction parallelises over row blocks in the caller's TBB arena; a built
/// object is read-only (rows() hands out non-const pointers because the libraries' structs
/// declare them so; they do not write through them).
template <class Node> class SparseRows {
public:
    SparseRows() = default;
    SparseRows(const SparseRows&) = delete;
    SparseRows& operator=(const SparseRows&) = delete;
    SparseRows(SparseRows&&) noexcept = default;
    SparseRows& operator=(SparseRows&&) noexcept = default;

    /// Builds the rows of @p x (n×d). @p bias ≥ 0 appends the node {d + 1, bias} to every row;
    /// a negative bias appends none. @p who starts every message (e.g. "liblinear").
    /// Throws std::invalid_argument for a non-finite entry (naming its row, column and value,
    /// 0-based) and for shapes the libraries' int indices cannot hold; std::runtime_error when
    /// the memory cannot be allocated (naming the amount).
    SparseRows(const Eigen::Ref<const Eigen::MatrixXd>& x, double bias, const std::string& who)
    {
        const Eigen::Index n = x.rows(), d = x.cols();
        requireFinite(x, who, "training input");
        // Row blocks read contiguous pieces of each column of a column-major x.
        build(
            n, d, bias, who,
            [&](Eigen::Index begin, Eigen::Index end, std::size_t* count) {
                for (Eigen::Index j = 0; j < d; ++j)
                    for (Eigen::Index i = begin; i < end; ++i)
                        count[i - begin] += x(i, j) != 0.0 ? 1 : 0;
            },
            [&](Eigen::Index begin, Eigen::Index end, Node** cursor) {
                for (Eigen::Index j = 0; j < d; ++j)
                    for (Eigen::Index i = begin; i < end; ++i)
                        putEntry(cursor[i - begin], j, x(i, j));
            });
    }

    /// Builds the rows of the sparse @p x (n×d, compressed or not), reading its stored entries
    /// only: time and memory grow with the non-zeros, never with n·d. Same rows as the dense
    /// constructor gives for x made dense. Throws as that one, and std::invalid_argument naming
    /// the row for column indices that are out of range or not strictly increasing within a row
    /// (LIBSVM's kernels merge rows by index and would silently miscount).
    SparseRows(const SparseMatrix& x, double bias, const std::string& who)
    {
        const Eigen::Index n = x.rows(), d = x.cols();
        requireValid(x, who, "training input");
        build(
            n, d, bias, who,
            [&](Eigen::Index begin, Eigen::Index end, std::size_t* count) {
                for (Eigen::Index i = begin; i < end; ++i)
                    for (SparseMatrix::InnerIterator it(x, i); it; ++it)
                        count[i - begin] += it.value() != 0.0 ? 1 : 0;
            },
            [&](Eigen::Index begin, Eigen::Index end, Node** cursor) {
                for (Eigen::Index i = begin; i < end; ++i)
                    for (SparseMatrix::InnerIterator it(x, i); it; ++it)
                        putEntry(cursor[i - begin], it.index(), it.value());
            });
    }

    /// The row pointers (count() of them), as the libraries' problem structs take them.
    Node** rows() { return m_rows.data(); }
    Eigen::Index count() const { return Eigen::Index(m_rows.size()); }
    /// Stored input entries (bias nodes and terminators not counted).
    std::size_t nonzeros() const { return m_nonzeros; }
    /// Memory held, in bytes.
    std::size_t bytes() const { return m_nodes.size() * sizeof(Node) + m_rows.size() * sizeof(Node*); }

    /// bytes() for an @p n × @p d matrix without zeros: the most a problem of that shape takes.
    static double bytesUpperBound(double n, double d, bool bias)
    {
        return n * (d + (bias ? 2 : 1)) * double(sizeof(Node)) + n * double(sizeof(Node*));
    }

    /// bytes() for @p n sparse rows holding @p nonZeros stored entries in all, none of them zero:
    /// the most such a problem takes, whatever its width.
    static double sparseBytesUpperBound(double n, double nonZeros, bool bias)
    {
        return (nonZeros + n * (bias ? 2 : 1)) * double(sizeof(Node)) + n * double(sizeof(Node*));
    }

    /// Writes row @p i of @p x into @p out (room for x.cols() + 2 nodes) in the same layout;
    /// for prediction, one row at a time.
    static void fillRow(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index i, double bias, Node* out)
    {
        const Eigen::Index d = x.cols();
        for (Eigen::Index j = 0; j < d; ++j)
            putEntry(out, j, x(i, j));
        endRow(out, d, bias);
    }

    /// Writes row @p i of the sparse @p x into @p out (room for storedInRow(x, i) + 2 nodes) in
    /// the same layout, reading the row's stored entries only; for prediction. The caller checks
    /// the row (requireValid()) if it may be malformed.
    static void fillRow(const SparseMatrix& x, Eigen::Index i, double bias, Node* out)
    {
        for (SparseMatrix::InnerIterator it(x, i); it; ++it)
            putEntry(out, it.index(), it.value());
        endRow(out, x.cols(), bias);
    }

    /// Stored entries of row @p i of @p x (explicit zeros included): fillRow() writes at most
    /// this many nodes plus the bias node and the terminator.
    static Eigen::Index storedInRow(const SparseMatrix& x, Eigen::Index i)
    {
        return x.isCompressed() ? Eigen::Index(x.outerIndexPtr()[i + 1] - x.outerIndexPtr()[i])
                                : Eigen::Index(x.innerNonZeroPtr()[i]);
    }

    /// Throws std::invalid_argument naming the first non-finite entry of @p x (row-major order,
    /// 0-based row and column) as "<who>: <what> [row, column] is <value>".
    static void requireFinite(const Eigen::Ref<const Eigen::MatrixXd>& x, const std::string& who,
                              const char* what)
    {
        if (x.allFinite())
            return;
        for (Eigen::Index i = 0; i < x.rows(); ++i)
            for (Eigen::Index j = 0; j < x.cols(); ++j)
                if (!std::isfinite(x(i, j)))
                    throw std::invalid_argument(who + ": " + what + " [row " + std::to_string(i) +
                                                ", column " + std::to_string(j) + "] is " +
                                                std::to_string(x(i, j)));
    }

    /// Throws std::invalid_argument for the first fault of the sparse @p x in row order: a
    /// non-finite entry (as requireFinite() words it), a column index outside [0, d) or one not
    /// greater than the one before it in its row ("<who>: <what> row 3 has column 7 after column
    /// 9; columns must be strictly increasing within a row"). One pass over the stored entries.
    static void requireValid(const SparseMatrix& x, const std::string& who, const char* what)
    {
        const Eigen::Index d = x.cols();
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
            Eigen::Index previous = -1;
            for (SparseMatrix::InnerIterator it(x, i); it; ++it) {
                const Eigen::Index j = it.index();
                if (!std::isfinite(it.value()))
                    throw std::invalid_argument(who + ": " + what + " [row " + std::to_string(i) +
                                                ", column " + std::to_string(j) + "] is " +
                                                std::to_string(it.value()));
                if (j < 0 || j >= d)
                    throw std::invalid_argument(who + ": " + what + " row " + std::to_string(i) +
                                                " has column " + std::to_string(j) + ", outside the " +
                                                std::to_string(d) + " columns of the matrix");
                if (j <= previous)
                    throw std::invalid_argument(who + ": " + what + " row " + std::to_string(i) +
                                                " has column " + std::to_string(j) + " after column " +
                                                std::to_string(previous) +
                                                "; columns must be strictly increasing within a row");
                previous = j;
            }
        }
    }

private:
    static constexpr Eigen::Index kRowBlock = 1024;

    // The node rule both forms share: a non-zero entry (row's column j, 0-based) becomes
    // {j + 1, v}; zeros, −0 included, are left out.
    static void putEntry(Node*& out, Eigen::Index j, double v)
    {
        if (v != 0.0) {
            out->index = int(j + 1);
            (out++)->value = v;
        }
    }

    // The end of every row: the bias node {d + 1, bias} when bias ≥ 0, then the terminator.
    static void endRow(Node*& out, Eigen::Index d, double bias)
    {
        if (bias >= 0) {
            out->index = int(d + 1);
            (out++)->value = bias;
        }
        out->index = -1;
        (out++)->value = 0;
    }

    // The allocation and layout both constructors share. count(begin, end, c) adds the number
    // of non-zeros of rows [begin, end) to c[i − begin]; fill(begin, end, cursor) writes those
    // rows' entries with putEntry() through cursor[i − begin]. Both run over row blocks in
    // parallel; endRow() closes every row here.
    template <class Count, class Fill>
    void build(Eigen::Index n, Eigen::Index d, double bias, const std::string& who, Count count, Fill fill)
    {
        if (n > INT_MAX || d > INT_MAX - 2)
            throw std::invalid_argument(who + ": " + std::to_string(n) + " rows × " + std::to_string(d) +
                                        " inputs exceed the library's int indices");
        const std::size_t extra = bias >= 0 ? 2 : 1; // bias node, terminator
        std::vector<std::size_t> offset;
        try {
            offset.assign(std::size_t(n) + 1, 0);
        } catch (const std::bad_alloc&) {
            throw std::runtime_error(who + ": out of memory for the row offsets of " + std::to_string(n) +
                                     " rows");
        }
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, n, kRowBlock),
                          [&](const auto& r) { count(r.begin(), r.end(), offset.data() + r.begin() + 1); });
        for (Eigen::Index i = 0; i < n; ++i)
            offset[std::size_t(i) + 1] += offset[std::size_t(i)] + extra;
        const std::size_t nodes = offset[std::size_t(n)];
        m_nonzeros = nodes - extra * std::size_t(n);
        try {
            m_nodes.resize(nodes);
            m_rows.resize(std::size_t(n));
        } catch (const std::bad_alloc&) {
            throw std::runtime_error(
                who + ": the sparse copy of the training set (" + std::to_string(n) + " rows, " +
                std::to_string(m_nonzeros) + " non-zeros) needs " +
                std::to_string((nodes * sizeof(Node) + std::size_t(n) * sizeof(Node*)) >> 20) +
                " MiB, which could not be allocated");
        }
        Node* base = m_nodes.data();
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, n, kRowBlock), [&](const auto& r) {
            std::vector<Node*> cursor(std::size_t(r.end() - r.begin()));
            for (Eigen::Index i = r.begin(); i < r.end(); ++i)
                cursor[std::size_t(i - r.begin())] = base + offset[std::size_t(i)];
            fill(r.begin(), r.end(), cursor.data());
            for (Eigen::Index i = r.begin(); i < r.end(); ++i) {
                endRow(cursor[std::size_t(i - r.begin())], d, bias);
                m_rows[std::size_t(i)] = base + offset[std::size_t(i)];
            }
        });
    }

    std::vector<Node> m_nodes;
    std::vector<Node*> m_rows;
    std::size_t m_nonzeros = 0;
};

} // namespace tb::wrap
