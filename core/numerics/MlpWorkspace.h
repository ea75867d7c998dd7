#pragma once
/// @file MlpWorkspace.h
/// Buffers for Mlp::forward() and Mlp::backward(), sized once for a maximum batch so that a
/// training loop does not allocate. No Qt.

#include <Eigen/Core>
#include <vector>

namespace tb::num {

template <class Scalar>
class BasicMlp;

/// Per-layer buffers of one forward/backward pass over at most capacity() rows.
///
/// Give each thread its own workspace (e.g. one per row block of a parallel minibatch
/// gradient); a workspace is not thread-safe. Mlp::forward() grows it automatically when a
/// batch is larger than its capacity or the network's shape differs — call reserve() before
/// a training loop so that this never happens inside it.
template <class Scalar>
struct BasicMlpWorkspace {
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

    BasicMlpWorkspace() = default;
    /// Same as reserve(net, maxRows).
    BasicMlpWorkspace(const BasicMlp<Scalar>& net, Eigen::Index maxRows);

    /// Makes room for batches of up to @p maxRows rows of @p net. Allocates only when the
    /// capacity is too small or the layer widths changed; never shrinks.
    void reserve(const BasicMlp<Scalar>& net, Eigen::Index maxRows);

    /// True if a batch of @p rows rows of @p net fits without allocation.
    bool fits(const BasicMlp<Scalar>& net, Eigen::Index rows) const;

    /// Rows the buffers hold (≥ every batch since the last reallocation).
    Eigen::Index capacity() const { return values.empty() ? 0 : values.front().rows(); }

    /// Output of weight layer @p l (0-based) after the last forward(): rows × width(l+1).
    /// layerOutput(layerCount−1) is the network's output.
    Eigen::Block<const Matrix> layerOutput(int l) const
    {
        return values[std::size_t(l)].topRows(rows);
    }
    /// The network's output after the last forward(): rows × outputs.
    Eigen::Block<const Matrix> output() const { return layerOutput(int(values.size()) - 1); }

    Eigen::Index rows = 0;                ///< rows of the last forward() batch
    std::vector<Eigen::Index> widths;     ///< layer widths this workspace was sized for (d, h1, …, k)
    std::vector<Matrix> values;  ///< values[l]: capacity × width(l+1), output of weight layer l
    std::vector<Matrix> deltas;  ///< deltas[l]: capacity × width(l+1), ∂loss/∂(pre-activation of layer l)
    Matrix outputPre;                    ///< capacity × outputs: pre-activations of the output layer
};

/// The workspace of Mlp (double) and of MlpF (float).
using MlpWorkspace = BasicMlpWorkspace<double>;
using MlpWorkspaceF = BasicMlpWorkspace<float>;

extern template struct BasicMlpWorkspace<double>;
extern template struct BasicMlpWorkspace<float>;

} // namespace tb::num
