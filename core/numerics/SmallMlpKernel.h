#pragma once
/// @file SmallMlpKernel.h
/// Forward and backward passes of a tiny Mlp (a few units per layer, a few rows per batch) in
/// plain loops over stack arrays, without Eigen's per-call overhead on 5×3 matrices: the BPLS
/// paper's 1-3-2 toy networks on 5 samples train several times faster. No Qt.

#include "Lanes.h"
#include "Mlp.h"

#include <Eigen/Core>
#include <vector>

namespace tb::num {

/// The loss and gradient of Mlp::forwardColumns() followed by Mlp::backwardColumns() (or
/// Mlp::loss()) for networks and batches small enough (fits()), computed in an order of
/// roundings fixed in this kernel's source: dot products summed in index order, each
/// multiply-add an explicit madd() (fused when the build targets FMA; the file is compiled with
/// -ffp-contract=off, so no other sum is fused), element-wise functions from libm. So the
/// kernel's bits depend on the build's instruction set (FMA or not) and libm, never on the CPU's
/// model or the compiler's tuning: every x86-64 CPU that runs a build gets the same numbers from
/// it, and runLanes() gives run()'s bits lane by lane by construction.
///
/// It defines the arithmetic of the batches it takes (BatchGradient uses it for every one). It
/// agrees with Mlp's Eigen passes within rounding — a few ulps of each sum, tst_smallmlpkernel
/// bounds it — and is bit-identical to them only where GCC happens to contract Eigen's sums as
/// the kernel does: the order was taken from GCC's code for -march=native on the Intel Xeon
/// (AVX-512) that recorded the BPLS toy sweeps, so that their stored numbers stay as they were.
/// (Before issue 43 the kernel claimed those bits on every machine; an AMD EPYC's -march=native
/// contracted other sums, and the equality failed there.)
///
/// Small means: a batch of m ≤ kMaxSize rows, every layer at most kMaxSize wide,
/// width(l) + width(l+1) + m below 20 for every layer, at most kMaxLayers weight layers, and the
/// squared error (the cross-entropy keeps the Eigen path: see fits()). The same in every build.
///
/// Stateless; the functions are thread-safe (the weights must not change during a call).
class SmallMlpKernel {
public:
    static constexpr int kMaxLayers = 4;           ///< weight layers at most
    static constexpr Eigen::Index kMaxSize = 7;    ///< rows of a batch and units of a layer at most

    /// The largest batch and layer width the kernel takes: kMaxSize, in every build.
    static Eigen::Index sizeLimit();

    /// True if the kernel takes @p net with a batch of @p rows rows and loss @p loss (see the
    /// class comment). A network that fits m rows fits every smaller batch.
    static bool fits(const Mlp& net, Eigen::Index rows, MlpLoss loss);

    /// Σ_i ℓ_i over the samples xt.col(rows[i]) (or, with @p rows null, xt.col(first + i)),
    /// i < @p m, against the matching rows of @p y; with @p grads non-null, also writes its
    /// gradient there (shaped like the weights, as Mlp::backwardColumns() with accumulate =
    /// false). @p workspaceRows is the capacity of the MlpWorkspace the Eigen path would use
    /// (≥ m): which rows of a product take the packet order depends on that stride, as Eigen's
    /// split between its packet and scalar code does (PacketSlices). The caller checks
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
