#pragma once
/// @file KernelSetup.h
/// What every algorithm of the plugin does before training: check the data, choose the
/// bandwidth, check that the planned memory is there.

#include "DsgdConfig.h"

#include <trainbench/Trainbench.h>

#include <QString>

namespace tb::dsgd {

/// Static helpers shared by the trainers. Thread-safe (no state).
class KernelSetup {
public:
    /// Throws std::invalid_argument naming the problem: an empty training set, inputs and
    /// targets of different lengths, NaN or Inf in the inputs or targets (with the first
    /// row and column, 1-based, and the value). Sparse inputs: their stored values are checked.
    static void checkData(const DatasetView& data);

    /// σ for @p c on the training inputs @p x: the fixed bandwidth, or bandwidth_scale × the
    /// median pairwise distance of median_rows rows drawn with deriveSeed(@p seed,
    /// kSeedMedian). Throws std::invalid_argument naming bandwidth_rule when every sampled
    /// row is the same (the median is 0).
    static double bandwidth(const DsgdConfig& c, const Eigen::Ref<const Eigen::MatrixXd>& x, std::uint64_t seed);
    /// bandwidth() on sparse training inputs: the same sampled rows, distances from the
    /// non-zeros (SparseFeatures::medianDistance()), no dense copy.
    static double bandwidth(const DsgdConfig& c, const SparseMatrix& x, std::uint64_t seed);
    /// bandwidth() of the data's inputs, dense or sparse.
    static double bandwidth(const DsgdConfig& c, const DatasetView& data, std::uint64_t seed);
    /// Bytes bandwidth() holds at its peak on @p rows × @p inputs training inputs: with the median
    /// rule, the row order, the m = min(rows, median_rows) sampled rows, their m×m products and
    /// the m(m−1)/2 distances (≈ 12 MiB for the default 1000 rows); 0 for a fixed bandwidth.
    /// Part of every trainer's "memory_bytes": it is held before the model's buffers exist.
    static double bandwidthBytes(const DsgdConfig& c, Eigen::Index rows, Eigen::Index inputs);
    /// bandwidthBytes() for sparse inputs of @p rows rows and @p nonZeros non-zeros (an upper
    /// bound: the sample holds at most every non-zero).
    static double bandwidthBytesSparse(const DsgdConfig& c, Eigen::Index rows, Eigen::Index nonZeros);

    /// Physical memory available to this process now, in bytes (Linux: MemAvailable of
    /// /proc/meminfo); +∞ when unknown.
    static double availableBytes();

    /// Throws std::invalid_argument when @p bytes exceed availableBytes(): "<algorithm>: the
    /// run would need about X GiB (<breakdown>) but Y GiB are available; lower <advice>".
    static void checkMemory(double bytes, const QString& algorithm, const QString& breakdown, const QString& advice);

    /// "1.2 GiB", "340 MiB", "12 KiB".
    static QString formatBytes(double bytes);
};

} // namespace tb::dsgd
