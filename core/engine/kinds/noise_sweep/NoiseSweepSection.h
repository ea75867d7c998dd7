#pragma once
/// @file NoiseSweepSection.h
/// A noise sweep's "sweep" object: {"sigma": [σ …], "monte_carlo": N}.

#include <engine/KindSection.h>

#include <QVector>

namespace tb {

/// The σ grid and the Monte-Carlo repetitions of a noise sweep (its kind section): cell
/// s·monteCarlo + m trains on the generator's data at σ = sigmas[s] with seed deriveSeed(seed, cell).
struct NoiseSweepSection : KindSection {
    QVector<double> sigmas;  ///< σ ≥ 0, finite, at least one
    int monteCarlo = 1;      ///< cells per σ, 1 … 1,000,000
};

} // namespace tb
