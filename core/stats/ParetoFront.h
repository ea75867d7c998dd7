#pragma once
/// @file ParetoFront.h
/// The runs no other run beats on both cost and quality.

#include "Better.h"

#include <vector>

namespace tb::stats {

/// A point of a frontier chart: a cost to minimise (e.g. training seconds) and a quality.
struct FrontPoint {
    double cost = 0;
    double value = 0;
};

/// Pure functions; thread-safe.
class ParetoFront {
public:
    /// Indices of the points of @p points that no other point dominates, ordered by cost
    /// (then by input order). A point dominates another when its cost is ≤ and its value is at
    /// least as good (by @p better), one of them strictly; equal points do not dominate each
    /// other, so both are on the front. Points with a NaN cost or value are never on it.
    /// O(n log n).
    static std::vector<int> indices(const std::vector<FrontPoint>& points, Better better);
};

} // namespace tb::stats
