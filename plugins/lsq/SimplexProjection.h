#pragma once
/// @file SimplexProjection.h
/// Euclidean projection onto the probability simplex {p : p ≥ 0, Σp = 1} (Duchi, Shalev-Shwartz,
/// Singer & Chandra, "Efficient projections onto the l1-ball for learning in high dimensions",
/// ICML 2008, Fig. 1): the "clip" of calibrated least squares (Agarwal et al. 2014, Algorithm 2).

#include <Eigen/Core>

namespace tb::lsq {

/// argmin_p ‖p − v‖² over the probability simplex, written to @p out (same size as @p v; may
/// alias it). Sorts a copy of v: O(k log k). Non-finite entries are the caller's to refuse (the
/// result is then meaningless). Pure; thread-safe.
void projectOntoSimplex(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& v,
                        Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> out);

/// Projects every row of @p m onto the simplex in place (rows are independent: the same bits
/// for any thread count), in parallel over row blocks in the current TBB arena.
void projectRowsOntoSimplex(Eigen::Ref<Eigen::MatrixXd> m);

} // namespace tb::lsq
