#pragma once
/// @file SparseMatrix.h
/// The sparse input matrix of text-sized problems (LIBSVM files with millions of columns).

#include <Eigen/SparseCore>

#include <cstdint>

namespace tb {

/// Sparse inputs, n×d: compressed rows (each row's non-zeros contiguous, columns strictly
/// increasing within a row, no explicit zeros), double values, 32-bit column indices and row
/// offsets — the index type LIBLINEAR and LIBSVM use, so their rows are built without a dense
/// copy. Both d and the number of non-zeros are at most SparseMatrix::maxIndex (2^31 − 1); the
/// loaders refuse larger data with the line at fault. Always compressed (makeCompressed()).
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

/// The largest width and number of non-zeros a tb::SparseMatrix holds (2^31 − 1).
inline constexpr std::int64_t SparseMaxIndex = 2147483647;

/// Bytes a compressed tb::SparseMatrix of @p rows rows and @p nonZeros non-zeros takes: a
/// value and a column index per non-zero, an offset per row.
inline std::uint64_t sparseBytes(std::uint64_t rows, std::uint64_t nonZeros)
{
    return nonZeros * (sizeof(double) + sizeof(int)) + (rows + 1) * sizeof(int);
}

} // namespace tb
