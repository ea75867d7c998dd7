#pragma once
/// @file BatchGradient.h
/// Loss and gradient of a network over a set of samples, in parallel over fixed row chunks.

#include <numerics/Mlp.h>
#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <atomic>
#include <string>
#include <vector>

namespace tb::train {

/// Computes Σ_i ℓ_i and its gradient over a minibatch (or the whole training set) of samples
/// that are columns of a transposed input matrix, reusing per-chunk buffers: no allocation
/// after construction for batches up to the capacity.
///
/// Work is split into chunks of consecutive batch rows that run as TBB tasks in the current
/// arena; each chunk runs forward/backward over blocks of at most kBlockRows rows into its own
/// gradient buffer, and the chunk sums are added in chunk order. The chunking depends only on
/// the batch size, never on the thread count or the scheduling, so results are identical for
/// any number of threads. A batch of fewer than 2·kChunkRows rows is one chunk and runs on the
/// calling thread without any task dispatch (batch size 1 costs one forward and one backward).
/// A one-chunk batch of a tiny network (num::SmallMlpKernel::fits(): the BPLS paper's 1-3-2 toy
/// networks on their 5 samples) runs in num::SmallMlpKernel instead of Eigen: the same numbers
/// to the last bit, several times faster (useSmallKernel()).
///
/// @p Scalar is the arithmetic of the passes (BatchGradient: double; BatchGradientF: float, for
/// float32 training, with inputs and targets given as float): the products and each chunk's
/// gradient are in Scalar, every loss is summed in double (per block, per chunk, over chunks).
///
/// Not thread-safe: one caller at a time.
template <class Scalar>
class BasicBatchGradient {
public:
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
    using Net = num::BasicMlp<Scalar>;

    static constexpr Eigen::Index kChunkRows = 64;   ///< rows per chunk at least (parallel batches)
    static constexpr int kMaxChunks = 16;            ///< chunks at most
    static constexpr Eigen::Index kBlockRows = 256;  ///< rows per forward/backward pass in a chunk

    /// What a call produced.
    struct Result {
        double loss = 0;       ///< Σ_i ℓ_i over the batch (NaN/Inf when the network diverged)
        bool stopped = false;  ///< the run's Stop was seen midway: loss and gradient are incomplete
    };

    /// @p xt holds one sample per column (inputs × n), @p y the targets (n × outputs); both must
    /// outlive this object and keep their storage. @p maxRows is the largest batch to expect
    /// (larger ones still work but allocate once). Every call's network must have the shape of
    /// @p net (the checks of the data, and the choice of num::SmallMlpKernel, are made here).
    BasicBatchGradient(const Net& net, num::MlpLoss loss, const Matrix& xt, const Eigen::Ref<const Matrix>& y,
                       Eigen::Index maxRows);

    /// Σ_i ℓ_i and its gradient (a sum over samples, not a mean) into @p grad (shaped like the
    /// weights) for the samples @p rows[0 … m), or, when @p rows is null, for the contiguous
    /// samples [first, first + m) (no gathering). @p stop is polled between
    /// row blocks.
    Result gradient(const Net& net, const Eigen::Index* rows, Eigen::Index first, Eigen::Index m,
                    std::vector<Matrix>& grad, StopToken stop = {});

    /// Σ_i ℓ_i only (forward passes), same sample selection as gradient().
    Result loss(const Net& net, const Eigen::Index* rows, Eigen::Index first, Eigen::Index m,
                StopToken stop = {});

    /// The targets of sample @p row as a 1 × outputs matrix over contiguous storage (the engine
    /// keeps the targets transposed): a batch-1 backward reads one cache line, not one per output.
    /// The first call makes that transposed copy (n × outputs entries, also made by the first
    /// gathered batch); full-batch and contiguous callers never pay for it.
    Eigen::Map<const Matrix> targetRow(Eigen::Index row)
    {
        ensureTransposedTargets();
        return Eigen::Map<const Matrix>(m_yt.col(row).data(), 1, m_yt.rows());
    }

    /// Chunks a batch of @p m rows is split into: 1 below 2·kChunkRows, else
    /// min(kMaxChunks, ⌊m / kChunkRows⌋).
    static int chunkCount(Eigen::Index m);

    /// Whether batches that num::SmallMlpKernel takes run there (default true) or always
    /// through Mlp's Eigen passes. Both give the same bits; false is for tests and benchmarks
    /// that compare the two. (Double precision only: float32 never takes the kernel.)
    void useSmallKernel(bool on) { m_smallKernel = on; }

    /// Which code a batch of @p m rows runs: "small_mlp_kernel" (num::SmallMlpKernel), "eigen"
    /// (Mlp's Eigen passes) or "eigen, N chunks in parallel" — the run's fact "batch_path", so a
    /// benchmark on another CPU can say whether it took the path it was tuned on.
    std::string pathFor(Eigen::Index m) const
    {
        const int chunks = chunkCount(m);
        if (chunks == 1)
            return m_smallKernel && m <= m_smallRows ? "small_mlp_kernel" : "eigen";
        return "eigen, " + std::to_string(chunks) + " chunks in parallel";
    }

private:
    struct Chunk {
        num::BasicMlpWorkspace<Scalar> ws;
        std::vector<Matrix> grad;  // chunk 0 writes into the caller's buffer instead
        Matrix xbuf;               // gathered inputs, inputs × block rows
        Matrix ybuf;               // gathered targets, block rows × outputs
        double loss = 0;
    };

    Result run(const Net& net, const Eigen::Index* rows, Eigen::Index first, Eigen::Index m,
               std::vector<Matrix>* grad, StopToken stop);
    void runChunk(int c, const Net& net, const Eigen::Index* rows, Eigen::Index first, Eigen::Index begin,
                  Eigen::Index end, std::vector<Matrix>* grad, StopToken stop);
    void ensureChunks(const Net& net, Eigen::Index m);
    void ensureTransposedTargets()
    {
        if (m_yt.size() == 0 && m_y.size() > 0)
            m_yt = m_y.transpose();
    }

    num::MlpLoss m_loss;
    const Matrix& m_xt;
    Eigen::Ref<const Matrix> m_y;
    Matrix m_yt;  // the targets transposed (outputs × n) once gathering needs them: contiguous per sample
    std::vector<Chunk> m_chunks;
    Eigen::Index m_capacity = 0;  // batch rows the chunks are sized for
    std::atomic<bool> m_stopped{false};
    bool m_smallKernel = true;
    Eigen::Index m_smallRows = 0;  // the largest batch num::SmallMlpKernel takes (0: none)
};

/// The engine of double-precision training (every trainer's).
using BatchGradient = BasicBatchGradient<double>;
/// The engine of float32 training.
using BatchGradientF = BasicBatchGradient<float>;

extern template class BasicBatchGradient<double>;
extern template class BasicBatchGradient<float>;

} // namespace tb::train
