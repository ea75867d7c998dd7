#include "BatchGradient.h"

#include <numerics/SmallMlpKernel.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tb::train {

template <class Scalar>
BasicBatchGradient<Scalar>::BasicBatchGradient(const Net& net, num::MlpLoss loss, const Matrix& xt,
                             const Eigen::Ref<const Matrix>& y, Eigen::Index maxRows)
    : m_loss(loss), m_xt(xt), m_y(y)
{
    if (xt.rows() != net.inputs() || y.cols() != net.outputs() || xt.cols() != y.rows())
        throw std::invalid_argument("gradient: inputs " + std::to_string(xt.cols()) + "x" + std::to_string(xt.rows()) +
                                    " and targets " + std::to_string(y.rows()) + "x" + std::to_string(y.cols()) +
                                    " do not fit the network " + net.describe());
    ensureChunks(net, std::max<Eigen::Index>(1, maxRows));
    // The kernel's limits grow no easier with more rows: the largest batch it takes (double
    // precision only: it reproduces the double Eigen passes' bits).
    if constexpr (std::is_same_v<Scalar, double>)
        while (m_smallRows < num::SmallMlpKernel::kMaxSize && num::SmallMlpKernel::fits(net, m_smallRows + 1, loss))
            ++m_smallRows;
}

template <class Scalar>
int BasicBatchGradient<Scalar>::chunkCount(Eigen::Index m)
{
    if (m < 2 * kChunkRows)
        return 1;
    return int(std::min<Eigen::Index>(kMaxChunks, m / kChunkRows));
}

template <class Scalar>
void BasicBatchGradient<Scalar>::ensureChunks(const Net& net, Eigen::Index m)
{
    if (m <= m_capacity && !m_chunks.empty())
        return;
    const int chunks = chunkCount(m);
    const Eigen::Index perChunk = (m + chunks - 1) / chunks;
    const Eigen::Index block = std::min(kBlockRows, perChunk);
    m_chunks.resize(std::size_t(std::max<int>(chunks, int(m_chunks.size()))));
    for (std::size_t c = 0; c < m_chunks.size(); ++c) {
        Chunk& ch = m_chunks[c];
        ch.ws.reserve(net, block);
        if (c > 0 && ch.grad.empty())
            ch.grad = net.zeroGradients();
        if (block > 1 && ch.xbuf.cols() < block) {
            ch.xbuf.resize(net.inputs(), block);
            ch.ybuf.resize(block, net.outputs());
        }
    }
    m_capacity = m;
}

template <class Scalar>
typename BasicBatchGradient<Scalar>::Result BasicBatchGradient<Scalar>::gradient(const Net& net, const Eigen::Index* rows, Eigen::Index first,
                                              Eigen::Index m, std::vector<Matrix>& grad,
                                              StopToken stop)
{
    return run(net, rows, first, m, &grad, stop);
}

template <class Scalar>
typename BasicBatchGradient<Scalar>::Result BasicBatchGradient<Scalar>::loss(const Net& net, const Eigen::Index* rows, Eigen::Index first,
                                          Eigen::Index m, StopToken stop)
{
    return run(net, rows, first, m, nullptr, stop);
}

template <class Scalar>
typename BasicBatchGradient<Scalar>::Result BasicBatchGradient<Scalar>::run(const Net& net, const Eigen::Index* rows, Eigen::Index first,
                                         Eigen::Index m, std::vector<Matrix>* grad, StopToken stop)
{
    if (m < 1)
        throw std::invalid_argument("gradient: empty batch");
    if (!rows && (first < 0 || first + m > m_xt.cols()))
        throw std::out_of_range("gradient: samples [" + std::to_string(first) + ", " + std::to_string(first + m) +
                                ") outside the " + std::to_string(m_xt.cols()) + " samples");
    ensureChunks(net, m);
    if (rows && m > 1)
        ensureTransposedTargets();  // before the chunks read it in parallel
    m_stopped.store(false, std::memory_order_relaxed);
    const int chunks = chunkCount(m);
    if (chunks == 1 && m_smallKernel && m <= m_smallRows) {  // m_smallRows is 0 for float
        if constexpr (std::is_same_v<Scalar, double>) {
            // The workspace the Eigen path would use (its capacity decides how Eigen splits a
            // product between packets and scalars): grown as forward() grows it, so that both
            // paths stay in step whichever ran before. (The network keeps its shape: see the
            // constructor.)
            Chunk& ch = m_chunks[0];
            if (m > ch.ws.capacity())
                ch.ws.reserve(net, m);
            double sum = 0;
            sum += num::SmallMlpKernel::run(net, m_loss, m_xt, m_y, rows, first, m, ch.ws.capacity(), grad);
            ch.loss = sum;
        }
    } else if (chunks == 1) {
        runChunk(0, net, rows, first, 0, m, grad, stop);
    } else {
        tbb::parallel_for(
            tbb::blocked_range<int>(0, chunks, 1),
            [&](const tbb::blocked_range<int>& r) {
                for (int c = r.begin(); c < r.end(); ++c)
                    runChunk(c, net, rows, first, c * m / chunks, (c + 1) * m / chunks, grad, stop);
            },
            tbb::simple_partitioner());
    }
    Result res;
    res.stopped = m_stopped.load(std::memory_order_relaxed);
    // Fixed summation order: chunk 0, 1, 2 … whatever thread ran them.
    for (int c = 0; c < chunks; ++c)
        res.loss += m_chunks[std::size_t(c)].loss;
    if (grad)
        for (int c = 1; c < chunks; ++c)
            for (std::size_t l = 0; l < grad->size(); ++l)
                (*grad)[l] += m_chunks[std::size_t(c)].grad[l];
    return res;
}

template <class Scalar>
void BasicBatchGradient<Scalar>::runChunk(int c, const Net& net, const Eigen::Index* rows, Eigen::Index first,
                             Eigen::Index begin, Eigen::Index end, std::vector<Matrix>* grad,
                             StopToken stop)
{
    Chunk& ch = m_chunks[std::size_t(c)];
    std::vector<Matrix>* g = grad ? (c == 0 ? grad : &ch.grad) : nullptr;
    const Eigen::Index block = std::max<Eigen::Index>(1, std::min(kBlockRows, ch.ws.capacity()));
    double sum = 0;
    bool firstBlock = true;
    auto pass = [&](const Eigen::Ref<const Matrix>& xin, const Eigen::Ref<const Matrix>& yin) {
        net.forwardColumns(xin, ch.ws);
        if (g)
            sum += net.backwardColumns(xin, yin, m_loss, ch.ws, *g, /*accumulate=*/!firstBlock);
        else
            sum += net.loss(yin, m_loss, ch.ws);
        firstBlock = false;
    };
    for (Eigen::Index s = begin; s < end; s += block) {
        if (s > begin && stop.stopRequested()) {
            m_stopped.store(true, std::memory_order_relaxed);
            break;
        }
        const Eigen::Index len = std::min(block, end - s);
        if (!rows) {
            pass(m_xt.middleCols(first + s, len), m_y.middleRows(first + s, len));
        } else if (len == 1) {
            // One sample is already a contiguous column: no copy. (Dynamic-size blocks bind to
            // Ref without a temporary, unlike the vector-typed col()/row().)
            pass(m_xt.middleCols(rows[s], 1), m_y.middleRows(rows[s], 1));
        } else {
            auto xb = ch.xbuf.leftCols(len);
            auto yb = ch.ybuf.topRows(len);
            // The copy waits on memory (random samples of a large matrix): the next sample's
            // column is prefetched while this one is copied, and each target row comes from the
            // transposed targets (one cache line instead of one per output).
            constexpr Eigen::Index kLine = 64 / Eigen::Index(sizeof(Scalar));
            const Eigen::Index d = m_xt.rows();
            for (Eigen::Index j = 0; j < len; ++j) {
                if (j + 1 < len) {
                    const Scalar* next = m_xt.col(rows[s + j + 1]).data();
                    for (Eigen::Index i = 0; i < d; i += kLine)
                        __builtin_prefetch(next + i);
                }
                xb.col(j) = m_xt.col(rows[s + j]);
                yb.row(j) = m_yt.col(rows[s + j]).transpose();
            }
            pass(xb, yb);
        }
    }
    ch.loss = sum;
}

template class BasicBatchGradient<double>;
template class BasicBatchGradient<float>;

} // namespace tb::train
