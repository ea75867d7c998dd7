#pragma once
/// @file MlpObjective.h
/// The training objective of a feed-forward network as an Objective over a block of its
/// layers, the other layers fixed:
///     f(W) = Σ_i ℓ_i(W) / lossDivisor + (λ/2)·‖W_all‖²
/// with ℓ the per-sample loss of num::MlpLoss (½‖ŷ − y‖² or softmax cross-entropy), summed over
/// the rows given, and the L2 penalty on every weight of the network (the fixed layers' part
/// is a constant). The block's parameters are its layers' weights in num::Mlp::flatten() order.
/// No Qt.

#include "BatchGradient.h"
#include "Objective.h"

#include <numerics/Mlp.h>
#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <memory>
#include <vector>

namespace tb::train {

/// See the file comment. Evaluation writes the block's weights into the caller's network, so
/// that the network always holds the last point evaluated.
///
/// Reuse of forward values: for a block starting at layer f > 0 the output of layer f−1 on
/// every row (which the block cannot change) is computed once when the block is selected; an
/// evaluation then runs forward and backward through layers f … L−1 only. Memory: that cache,
/// n × width(f) doubles, plus the transposed inputs held by the caller.
///
/// Parallel: evaluations run BatchGradient in the current TBB arena (fixed chunking: the same
/// results for any thread count). Not thread-safe.
class MlpObjective final : public Objective {
public:
    /// @p net is trained in place and must outlive this object. @p xt holds the samples as
    /// columns (inputs × n, Sampling's transposedCopy()) and @p y the targets (n × outputs);
    /// both must outlive this object. @p lossDivisor > 0 (n for a mean), @p l2 ≥ 0 the λ of
    /// the penalty. The block is every layer until selectLayers(). Throws
    /// std::invalid_argument on inconsistent shapes or settings.
    MlpObjective(num::Mlp& net, num::MlpLoss loss, const Eigen::MatrixXd& xt, const Eigen::Ref<const Eigen::MatrixXd>& y,
                 double lossDivisor, double l2 = 0.0, StopToken stop = {});
    ~MlpObjective() override;

    /// Makes layers [@p first, @p last] the block (0 ≤ first ≤ last < L). Reads the current
    /// weights of the layers before @p first (the forward cache) and after @p last (fixed).
    /// Call it again after changing weights outside the block. Polls the stop token while it
    /// builds the cache: returns false if it was interrupted (the objective is then unusable
    /// until the next successful call).
    bool selectLayers(int first, int last);
    int firstLayer() const { return m_first; }
    int lastLayer() const { return m_last; }

    Eigen::Index dimension() const override { return m_dimension; }
    double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& grad) override;
    double value(const Eigen::VectorXd& w) override;
    bool interrupted() const override { return m_interrupted; }

    /// The block's current weights (from the network), flattened.
    Eigen::VectorXd blockWeights() const;
    /// Writes @p w into the block's layers of the network (and of the internal tail).
    void setBlockWeights(const Eigen::VectorXd& w);

    /// The block's gradient alone, per layer, of the last evaluate() (for diagnostics).
    double lastGradientNorm() const { return m_lastGradientNorm; }

private:
    double run(const Eigen::VectorXd& w, Eigen::VectorXd* grad);

    num::Mlp& m_net;
    num::MlpLoss m_loss;
    const Eigen::MatrixXd& m_xt;
    Eigen::Ref<const Eigen::MatrixXd> m_y;
    double m_divisor;
    double m_l2;
    StopToken m_stop;
    int m_first = 0, m_last = 0;
    Eigen::Index m_dimension = 0;
    double m_fixedSquaredNorm = 0;      // ‖W‖² of the layers outside the block
    // For a block starting at layer f > 0: the tail network (layers f … L−1) and the output of
    // layer f−1 on every row, one sample per column.
    std::unique_ptr<num::Mlp> m_tail;
    Eigen::MatrixXd m_hiddenT;
    std::unique_ptr<BatchGradient> m_engine;
    std::vector<Eigen::MatrixXd> m_grads;
    bool m_interrupted = false;
    double m_lastGradientNorm = 0;
};

} // namespace tb::train
