#pragma once
/// @file SmallMlpKernel.h
/// Forward and backward passes of a tiny Mlp (a few units per layer, a few rows per batch) in
/// plain loops over stack arrays, with the floating-point operations of Mlp's Eigen path in the
/// same order, so that a training loop of tiny networks (the BPLS paper's 1-3-2 toy networks on
/// 5 samples) gets the same numbers to the last bit without Eigen's per-call overhead on 5×3
/// matrices. No Qt.

#include "Lanes.h"
#include "Mlp.h"

#include <Eigen/Core>
#include <vector>

namespace tb::num {

/// The loss and gradient of Mlp::forwardColumns() followed by Mlp::backwardColumns() (or
/// Mlp::loss()) for networks and batches small enough that Eigen evaluates every product,
/// reduction and element-wise function of that path one coefficient at a time (fits()):
/// then each coefficient here is the same sequence of roundings — dot products summed in index
/// order, each product fused into the running sum exactly where GCC contracts Eigen's
/// (a*b + c as one fma when the build targets FMA), element-wise functions from the same libm
/// calls — and the results are bit-identical (tests/core/numerics/tst_smallmlpkernel checks it
/// on every activation and all small shapes).
///
/// Eligibility depends on the build's SIMD width P (Eigen's packet of doubles: 8 with
/// AVX-512, 4 with AVX, 2 with SSE2): a batch of m rows and every layer width below P (and at
/// most kMaxSize), width(l) + width(l+1) + m below Eigen's lazy-product threshold (20) for
/// every layer, at most kMaxLayers weight layers, and the squared error (the cross-entropy
/// always takes the general path: see fits()).
/// Beyond that Eigen's vectorised reductions and exp sum in another order, so the general path
/// must be used.
///
/// Stateless; the functions are thread-safe (the weights must not change during a call).
class SmallMlpKernel {
public:
    static constexpr int kMaxLayers = 4;           ///< weight layers at most
    static constexpr Eigen::Index kMaxSize = 7;    ///< rows of a batch and units of a layer at most

    /// The largest batch and layer width this build takes: min(kMaxSize, P − 1), or kMaxSize
    /// when Eigen does not vectorise (P = 1); 0 (the kernel is never used) when the compiler is
    /// not GCC, whose contraction of Eigen's sums the kernel reproduces.
    static Eigen::Index sizeLimit();

    /// True if the kernel reproduces the Eigen path of @p net for a batch of @p rows rows and
    /// loss @p loss (see the class comment). A network that fits m rows fits every smaller batch.
    static bool fits(const Mlp& net, Eigen::Index rows, MlpLoss loss);

    /// Σ_i ℓ_i over the samples xt.col(rows[i]) (or, with @p rows null, xt.col(first + i)),
    /// i < @p m, against the matching rows of @p y; with @p grads non-null, also writes its
    /// gradient there (shaped like the weights, as Mlp::backwardColumns() with accumulate =
    /// false). @p workspaceRows is the capacity of the MlpWorkspace the Eigen path would use
    /// (≥ m): Eigen splits a small product between its packet and scalar code by the column
    /// stride of the block it writes, so the same bits need the same stride. The caller checks
    /// that the samples exist and xt, y fit the network (as BatchGradient does). Throws
    /// std::invalid_argument unless fits(net, m, loss), workspaceRows ≥ m and, with @p grads,
    /// every gradient matrix is shaped like its layer's weights.
    static double run(const Mlp& net, MlpLoss loss, const Eigen::MatrixXd& xt,
                      const Eigen::Ref<const Eigen::MatrixXd>& y,
                      const Eigen::Index* rows, Eigen::Index first, Eigen::Index m, Eigen::Index workspaceRows,
                      std::vector<Eigen::MatrixXd>* grads);

    /// True if runLanes() takes @p net, @p rows and @p loss: fits() and no softmax layer.
    static bool fitsLanes(const Mlp& net, Eigen::Index rows, MlpLoss loss);

    /// run() for kLanes networks of @p net's shape at once (lane i of every value is replica i,
    /// e.g. a Monte-Carlo cell): the same operations in the same order, so every lane gets the
    /// bits run() gives for that replica alone (tst_smallmlpkernel). @p w[l] are layer l's
    /// weights, laid out as net.weights(l) (weightRows(l) × width(l+1), column-major);
    /// @p cols[i] the width(0) inputs of batch row i; @p y the targets, y[j·8 + i] for output j
    /// of row i; @p grads[l] (all null: loss only) receives layer l's gradient in the layout of
    /// @p w[l]. Only @p net's shape is read. Throws std::invalid_argument unless
    /// fitsLanes(net, m, loss) and workspaceRows ≥ m. Thread-safe.
    static Lanes runLanes(const Mlp& net, MlpLoss loss, const Lanes* const* w, const Lanes* const* cols,
                          const Lanes* y, Eigen::Index m, Eigen::Index workspaceRows, Lanes* const* grads);
};

} // namespace tb::num
