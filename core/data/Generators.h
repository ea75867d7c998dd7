#pragma once
/// @file Generators.h
/// Synthetic datasets: the BPLS paper's toy functions, 2-D teaching sets, Friedman #1.

#include "Dataset.h"

#include <Eigen/Core>
#include <cstdint>

namespace tb::data {

/// The two toy input/output relations of the BPLS paper (Tomić et al. 2024, §III-A).
enum class BplsToyFunction {
    Linear,   ///< ỹ1 = −x/3 + 2, ỹ2 = 2x − 1 (Fig. 4)
    Nonlinear ///< ỹ1 = 1/(1+exp(log10(x^(−3/2)))), ỹ2 = 1/(1+exp(x^(−1/4))) (Fig. 5)
};

/// Deterministic synthetic data. Every generator draws from Rng(seed, Rng::Generate) (and the
/// toy's noise from Rng(seed, Rng::Noise)) with portable uniform and Box–Muller draws, so the
/// same arguments give bit-identical data on every platform (up to the last ulp of the C
/// library's log/sin/cos). Invalid arguments throw std::invalid_argument with a message that
/// names the argument. All functions are reentrant.
class Generators {
public:
    /// Clean targets (ỹ1, ỹ2) of @p f at input @p x (x > 0 for Nonlinear).
    static Eigen::RowVector2d bplsToyTargets(BplsToyFunction f, double x);

    /// The paper's toy problem: train x = 1, 3, 5, 7, 9 with N(0, sigma²) noise added to every
    /// training target; test x = 2, 4, 6, 8, 10 clean. d = 1 (no bias column), k = 2,
    /// Regression. @p sigma ≥ 0 (0 gives exactly the formulas).
    static DatasetPair bplsToy(BplsToyFunction f, double sigma, std::uint64_t seed);

    /// Two interleaving half circles (the upper one centred at 0, the lower at (1, 0.5)),
    /// points evenly spaced along each arc plus N(0, noise²) on both coordinates.
    /// @p samples ≥ 2, split evenly between the 2 classes (the first class gets the odd one).
    static Dataset moons(Eigen::Index samples, double noise, std::uint64_t seed);

    /// Two concentric circles of radius 1 (class "outer") and @p factor (class "inner",
    /// 0 < factor < 1), evenly spaced angles plus N(0, noise²) on both coordinates.
    static Dataset circles(Eigen::Index samples, double noise, std::uint64_t seed, double factor = 0.5);

    /// Two interleaved spiral arms of 1.5 turns each (radius 0 → 1), plus N(0, noise²).
    static Dataset spirals(Eigen::Index samples, double noise, std::uint64_t seed);

    /// XOR: points uniform in the four unit quadrants of [−1, 1]²; class "same sign" for
    /// quadrants (+,+) and (−,−), "opposite sign" otherwise; plus N(0, noise²) on both
    /// coordinates (which may carry a point across an axis).
    static Dataset xorQuadrants(Eigen::Index samples, double noise, std::uint64_t seed);

    /// Friedman #1 regression: x ~ U[0, 1]^d (@p features = d ≥ 5, only the first five
    /// matter), y = 10 sin(π x1 x2) + 20 (x3 − 0.5)² + 10 x4 + 5 x5 + N(0, noise²).
    static Dataset friedman1(Eigen::Index samples, Eigen::Index features, double noise, std::uint64_t seed);
};

} // namespace tb::data
