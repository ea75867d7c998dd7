#pragma once
/// @file SparseRows.h
/// The workbench's dense inputs as the {index, value} rows LIBLINEAR and LIBSVM read.

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
/// feature), then a terminator {-1, 0}. All rows live in one allocation, built once from the
/// dense matrix without a text round trip, with the same values the matrix holds.
///
/// Memory: 16 bytes a stored node (non-zeros + bias + terminator per row) plus 8 bytes a row
/// for the row pointers; bytesUpperBound() is the figure for a matrix without zeros.
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
        // Count per row, over row blocks (contiguous pieces of each column of a column-major x).
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, n, kRowBlock), [&](const auto& r) {
            for (Eigen::Index j = 0; j < d; ++j)
                for (Eigen::Index i = r.begin(); i < r.end(); ++i)
                    offset[std::size_t(i) + 1] += x(i, j) != 0.0 ? 1 : 0;
        });
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
            std::vector<std::size_t> cursor(offset.begin() + r.begin(), offset.begin() + r.end());
            for (Eigen::Index j = 0; j < d; ++j)
                for (Eigen::Index i = r.begin(); i < r.end(); ++i) {
                    const double v = x(i, j);
                    if (v != 0.0) {
                        Node& node = base[cursor[std::size_t(i - r.begin())]++];
                        node.index = int(j + 1);
                        node.value = v;
                    }
                }
            for (Eigen::Index i = r.begin(); i < r.end(); ++i) {
                std::size_t& c = cursor[std::size_t(i - r.begin())];
                if (bias >= 0) {
                    base[c].index = int(d + 1);
                    base[c++].value = bias;
                }
                base[c].index = -1;
                base[c].value = 0;
                m_rows[std::size_t(i)] = base + offset[std::size_t(i)];
            }
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

    /// Writes row @p i of @p x into @p out (room for x.cols() + 2 nodes) in the same layout;
    /// for prediction, one row at a time.
    static void fillRow(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index i, double bias, Node* out)
    {
        const Eigen::Index d = x.cols();
        for (Eigen::Index j = 0; j < d; ++j) {
            const double v = x(i, j);
            if (v != 0.0) {
                out->index = int(j + 1);
                (out++)->value = v;
            }
        }
        if (bias >= 0) {
            out->index = int(d + 1);
            (out++)->value = bias;
        }
        out->index = -1;
        out->value = 0;
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

private:
    static constexpr Eigen::Index kRowBlock = 1024;

    std::vector<Node> m_nodes;
    std::vector<Node*> m_rows;
    std::size_t m_nonzeros = 0;
};

} // namespace tb::wrap
