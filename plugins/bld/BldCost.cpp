#include "BldCost.h"

#include <training/BatchGradient.h>

#include <tbb/task_arena.h>

#include <algorithm>

namespace tb::bld {

BldCost::BldCost(const BldConfig& config, const ProblemShape& shape) : m_config(config), m_shape(shape)
{
    m_widths.push_back(double(shape.inputs));
    for (Eigen::Index h : config.hidden)
        m_widths.push_back(double(h));
    m_widths.push_back(double(shape.outputs));
    for (std::size_t l = 0; l + 1 < m_widths.size(); ++l) {
        const bool bias = l == 0 ? config.network.bias : config.network.hiddenBias;
        m_weights.push_back((m_widths[l] + (bias ? 1.0 : 0.0)) * m_widths[l + 1]);
        m_total += m_weights.back();
    }
}

double BldCost::passFlops(int from) const
{
    double w = 0;
    for (std::size_t l = std::size_t(from); l < m_weights.size(); ++l)
        w += m_weights[l];
    return 6.0 * double(m_shape.rows) * w;
}

double BldCost::b2ldFirstSweepFlops() const
{
    const double n = double(m_shape.rows);
    double flops = 0, head = 0;
    for (std::size_t l = 0; l < m_weights.size(); ++l) {
        flops += 2.0 * n * head + double(m_config.blockIterations + 3) * passFlops(int(l));
        head += m_weights[l];
    }
    return flops + passFlops(0);
}

double BldCost::lbfgsWindowFlops() const
{
    return double(m_config.decreaseWindow + 1) * passFlops(0);
}

double BldCost::incrementalEpochFlops() const
{
    const double n = double(m_shape.rows);
    const int layers = int(m_weights.size());
    // Per row of a minibatch: IG one forward and one full backward; BLInG (backward order)
    // per layer l the forward of the layers after l and the backward down to l (gradient of
    // W_l only).
    double perRow = 0;
    if (m_config.algorithm == Algorithm::Ig) {
        perRow = 6.0 * m_total;
    } else {
        for (int l = 0; l < layers; ++l) {
            double after = 0;
            for (int j = l + 1; j < layers; ++j)
                after += m_weights[std::size_t(j)];
            perRow += 2.0 * after /* forward */ + 2.0 * after /* deltas */ + 2.0 * m_weights[std::size_t(l)];
        }
        perRow += 2.0 * m_total - 2.0 * m_weights.back(); // the first forward of every minibatch
    }
    return n * perRow + 2.0 * n * m_total; // + f(w) at the checkpoint
}

double BldCost::dataBytes() const
{
    // The transposed inputs (or the gathered copy) and the targets.
    return 8.0 * double(m_shape.rows) * double(m_shape.inputs + m_shape.outputs);
}

double BldCost::hostEvaluation() const
{
    // Mlp::predict() keeps the values of every layer of up to 2048 rows per thread (two buffers
    // a layer), plus the predictions and targets of both sets. Left out, the examples' peaks
    // were 19–44 % above the prediction (bench/README.md, "Memory predictions").
    const double n = double(m_shape.rows), k = double(m_shape.outputs);
    double widths = 0;
    for (std::size_t l = 1; l < m_widths.size(); ++l)
        widths += m_widths[l];
    const double threads = std::max(1, tbb::this_task_arena::max_concurrency());
    return 8.0 * (threads * std::min(n, 2048.0) * (2.0 * widths + k) + 4.0 * n * k);
}

double BldCost::evaluationBuffers(int from) const
{
    const Eigen::Index n = m_shape.rows;
    const int chunks = train::BatchGradient::chunkCount(n);
    const double rows = double(std::min<Eigen::Index>(train::BatchGradient::kBlockRows, (n + chunks - 1) / chunks));
    double widths = 0, tail = 0;
    for (std::size_t l = std::size_t(from); l < m_weights.size(); ++l) {
        widths += m_widths[l + 1];
        tail += m_weights[l];
    }
    // Per chunk: values and deltas of every layer; chunks after the first their own gradient.
    return 8.0 * (chunks * 2.0 * rows * (widths + m_widths.back()) + (chunks - 1) * tail + tail);
}

double BldCost::b2ldMemory() const
{
    const double n = double(m_shape.rows);
    double peak = 0;
    for (std::size_t l = 0; l < m_weights.size(); ++l) {
        const double cache = l > 0 ? 8.0 * n * m_widths[l] : 0.0;
        // L-BFGS: 2·memory correction vectors and about eight block-sized vectors (the
        // driver's iterate, gradient, direction and copies; the Armijo and start points).
        const double lbfgs = 8.0 * m_weights[l] * (2.0 * m_config.memory + 8.0);
        peak = std::max(peak, cache + lbfgs + evaluationBuffers(int(l)));
    }
    if (m_config.closedFormOutput && m_widths.size() > 2) {
        const double h = m_widths[m_widths.size() - 2] + 1;
        peak = std::max(peak, 8.0 * (n * h + 2.0 * h * h + h * m_widths.back()) + evaluationBuffers(0));
    }
    // The full gradient after each sweep.
    peak = std::max(peak, 8.0 * 3.0 * m_total + evaluationBuffers(0));
    return dataBytes() + peak + hostEvaluation();
}

double BldCost::lbfgsMemory() const
{
    return dataBytes() + 8.0 * m_total * (2.0 * m_config.memory + 8.0) + evaluationBuffers(0) + hostEvaluation();
}

double BldCost::incrementalMemory() const
{
    const double batch = double(std::min<Eigen::Index>(m_config.batchSize, std::max<Eigen::Index>(1, m_shape.rows)));
    double widths = 0;
    for (std::size_t l = 1; l < m_widths.size(); ++l)
        widths += m_widths[l];
    // The gathered copy of the data, the minibatch pass (values and deltas), one gradient per
    // layer, the objective's evaluation buffers.
    return dataBytes() + 8.0 * (2.0 * batch * widths + m_total) + evaluationBuffers(0) + hostEvaluation();
}

} // namespace tb::bld
