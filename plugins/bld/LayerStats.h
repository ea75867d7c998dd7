#pragma once
/// @file LayerStats.h
/// What a block-layer method did to one layer: the per-layer diagnostics recorded with a run
/// (the paper's Table 5 counts "updates per layer").

#include <QJsonArray>
#include <QJsonObject>

#include <vector>

namespace tb::bld {

/// Counters of one weight layer; plain data.
struct LayerStats {
    int updates = 0;              ///< block updates that changed the layer (L-BFGS, Armijo or closed form)
    int lbfgsAccepted = 0;        ///< updates that took the L-BFGS point (conditions 4 and 5 held)
    long long lbfgsIterations = 0;///< L-BFGS iterations run on this block
    long long evaluations = 0;    ///< function (and gradient) evaluations on this block
    int armijoFallbacks = 0;      ///< updates that took the Armijo point instead
    int lineSearchFailures = 0;   ///< block solves whose LBFGS++ line search failed
    int closedForm = 0;           ///< closed-form ridge solves (output layer, option)
    int skippedGradient = 0;      ///< visits skipped: ‖∇_l f‖ ≤ ε already
    int skippedSettled = 0;       ///< visits skipped: the last update's relative decrease was ≤ tolerance
    int noStep = 0;               ///< visits where neither point decreased f (weights kept)
    double seconds = 0;           ///< time spent on this layer's visits
    double gradientNorm = 0;      ///< ‖∇_l f‖₂ at the start of the last visit
    double relativeDecrease = 0;  ///< (f_old − f_new)/max(f_old, 1) of the last update

    /// {"layer": l, "updates": …, "lbfgs_accepted", "lbfgs_iterations", "evaluations",
    /// "armijo_fallbacks", "line_search_failures", "closed_form", "skipped_gradient",
    /// "skipped_settled", "no_step", "seconds", "gradient_norm", "relative_decrease"}.
    QJsonObject toJson(int layer) const
    {
        return QJsonObject{{"layer", layer},
                           {"updates", updates},
                           {"lbfgs_accepted", lbfgsAccepted},
                           {"lbfgs_iterations", double(lbfgsIterations)},
                           {"evaluations", double(evaluations)},
                           {"armijo_fallbacks", armijoFallbacks},
                           {"line_search_failures", lineSearchFailures},
                           {"closed_form", closedForm},
                           {"skipped_gradient", skippedGradient},
                           {"skipped_settled", skippedSettled},
                           {"no_step", noStep},
                           {"seconds", seconds},
                           {"gradient_norm", gradientNorm},
                           {"relative_decrease", relativeDecrease}};
    }
};

/// Every layer's counters, layer 0 first, as the fact "layer_updates".
inline QJsonArray layerUpdatesJson(const std::vector<LayerStats>& stats)
{
    QJsonArray a;
    for (std::size_t l = 0; l < stats.size(); ++l)
        a.append(stats[l].toJson(int(l)));
    return a;
}

} // namespace tb::bld
