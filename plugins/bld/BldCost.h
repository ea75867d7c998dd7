#pragma once
/// @file BldCost.h
/// Predicted work and memory of the plugin's algorithms for a problem shape (Trainer::
/// predictCost() and the "working_memory_bytes" fact).

#include "BldConfig.h"

#include <trainbench/Trainbench.h>

#include <vector>

namespace tb::bld {

/// Counts from the layer shapes of the configured network: W_l has rows_l = width(l) + bias
/// and cols_l = width(l+1); a pass over n rows costs 2·n·|W_l| flops forward, as much again
/// for the deltas passed down and for the gradient product. Plain data; thread-safe.
class BldCost {
public:
    BldCost(const BldConfig& config, const ProblemShape& shape);

    /// B2LD's first sweep: per layer l the forward cache (layers < l) and at most
    /// inner_iterations + 3 evaluations through layers l … L−1 (the gradient at the start,
    /// about two Armijo trials, about one evaluation per L-BFGS iteration), then one full
    /// gradient.
    double b2ldFirstSweepFlops() const;
    /// Full L-BFGS: decrease_window + 1 full forward/backward passes.
    double lbfgsWindowFlops() const;
    /// BLInG or IG: one epoch of minibatch passes and the objective at its end.
    double incrementalEpochFlops() const;

    /// Peak working memory in bytes (the largest buffers each algorithm allocates).
    double b2ldMemory() const;
    double lbfgsMemory() const;
    double incrementalMemory() const;
    /// The stored model: every weight as a double.
    double modelBytes() const { return 8.0 * m_total; }

private:
    double passFlops(int from) const;      // forward + deltas + gradients of layers ≥ from, n rows
    double evaluationBuffers(int from) const; // BatchGradient's chunk workspaces for layers ≥ from
    double dataBytes() const;
    double hostEvaluation() const; // the host's checkpoint evaluation: Mlp::predict() and the metrics

    BldConfig m_config;
    ProblemShape m_shape;
    std::vector<double> m_widths;   // d, h1, …, k
    std::vector<double> m_weights;  // |W_l|
    double m_total = 0;
};

} // namespace tb::bld
