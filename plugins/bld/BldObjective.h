#pragma once
/// @file BldObjective.h
/// The paper's objective as the training library's MlpObjective.

#include <training/MlpObjective.h>

#include <memory>

namespace tb::bld {

/// f(w) = (1/P)·Σ_p ‖y_p − net(w; x_p)‖² + ρ‖w‖² (Palagi & Seccia, problem (1) with their
/// regulariser) over the P samples that are the columns of @p xt. MlpObjective computes
/// Σ_p ℓ_p / divisor + (λ/2)‖w‖² with ℓ_p = ½‖ŷ_p − y_p‖², so divisor = P/2 and λ = 2ρ give
/// exactly f (tests/plugins/bld checks it against a direct computation). The block is every
/// layer until selectLayers().
inline std::unique_ptr<train::MlpObjective> makeObjective(num::Mlp& net, const Eigen::MatrixXd& xt,
                                                          const Eigen::Ref<const Eigen::MatrixXd>& y, double rho,
                                                          StopToken stop = {})
{
    return std::make_unique<train::MlpObjective>(net, num::MlpLoss::SquaredError, xt, y, 0.5 * double(xt.cols()),
                                                 2.0 * rho, stop);
}

} // namespace tb::bld
