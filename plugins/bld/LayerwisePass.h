#pragma once
/// @file LayerwisePass.h
/// Forward and backward passes over one minibatch that start or stop at any layer: what the
/// incremental block-layer method (BLInG) needs to update one layer after another on the same
/// minibatch without recomputing the layers that did not change.

#include <numerics/Mlp.h>

#include <Eigen/Core>
#include <vector>

namespace tb::bld {

/// Buffers and passes for minibatches of at most maxRows samples of one network shape.
///
/// The loss is the paper's E = Σ_p ‖ŷ_p − y_p‖² over the minibatch (a sum, no ½). Layer l's
/// output on the batch stays in the buffers until a forward pass recomputes it, so after
/// changing W_l only layers l … L−1 need forward(…, l) — and a gradient of W_l needs the
/// backward pass from the output down to l only.
///
/// Single-threaded by design: BLInG and IG update the weights after every small minibatch,
/// a sequential chain. Not thread-safe; no allocation after construction for batches up to
/// maxRows.
class LayerwisePass {
public:
    LayerwisePass(const num::Mlp& net, Eigen::Index maxRows);

    /// Runs weight layers [@p from, L) on the samples @p xt (inputs × m, one per column,
    /// m ≤ maxRows). The outputs of layers before @p from must be those of this batch with
    /// the current weights (from an earlier forward() of the same batch).
    void forward(const num::Mlp& net, const Eigen::Ref<const Eigen::MatrixXd>& xt, int from);

    /// After forward() of this batch up to the output: back-propagates E against @p y
    /// (m × outputs) from the output down to layer @p to, writing ∂E/∂W_l into grads[l] for
    /// every l in [to, L) when @p allLayers, else for l = to only (the others are untouched).
    /// @p grads must be shaped like the weights. Returns E.
    double backward(const num::Mlp& net, const Eigen::Ref<const Eigen::MatrixXd>& xt,
                    const Eigen::Ref<const Eigen::MatrixXd>& y, int to, std::vector<Eigen::MatrixXd>& grads,
                    bool allLayers);

    /// Output of weight layer @p l for the current batch (m × width(l+1)).
    Eigen::Block<const Eigen::MatrixXd> output(int l) const { return m_values[std::size_t(l)].topRows(m_rows); }

    /// Floating-point operations of forward(from) and of backward(to, allLayers) for a batch
    /// of @p m rows of @p net (multiply and add counted separately; activations not counted).
    static double forwardFlops(const num::Mlp& net, Eigen::Index m, int from);
    static double backwardFlops(const num::Mlp& net, Eigen::Index m, int to, bool allLayers);

private:
    std::vector<Eigen::MatrixXd> m_values;  // maxRows × width(l+1)
    std::vector<Eigen::MatrixXd> m_deltas;  // maxRows × width(l+1): ∂E/∂(pre-activation of layer l)
    Eigen::Index m_rows = 0;
};

} // namespace tb::bld
