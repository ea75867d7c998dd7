#pragma once
/// @file Splits.h
/// Seeded train/test splits and random subsets of a Dataset.

#include "Dataset.h"

#include <Eigen/Core>
#include <cstdint>

namespace tb::data {

/// Shuffles the rows with Rng(seed, Rng::Split) and puts round(n·testFraction) of them (at
/// least 1, at most n − 1) in the test set, the rest in the train set; each part keeps the
/// source's row order. Not stratified. Names and task are copied to both parts.
/// Throws std::invalid_argument if testFraction is not in (0, 1) or n < 2. Reentrant.
DatasetPair splitTrainTest(const Dataset& data, double testFraction, std::uint64_t seed);

/// Moves a seeded share of @p train's rows into the returned validation set: the rows are shuffled
/// with Rng(seed, Rng::Validation) and round(n·fraction) of them are held out; both parts keep
/// the source's row order. Throws std::invalid_argument when that holds out no row or every row
/// (the message says how many rows there are). Reentrant.
Dataset holdOutValidation(Dataset& train, double fraction, std::uint64_t seed);

/// @p n distinct rows drawn uniformly with Rng(seed, Rng::TrainSubset), in source order.
/// Throws std::invalid_argument unless 1 ≤ n ≤ data.rows(). Reentrant.
Dataset subsample(const Dataset& data, Eigen::Index n, std::uint64_t seed);

} // namespace tb::data
