#pragma once
/// @file WinTieLoss.h
/// Wins, ties and losses of paired runs with a relative tie band (the BLD paper's count).

#include "Better.h"

#include <vector>

namespace tb::stats {

struct WinTieLossResult {
    int wins = 0;    ///< pairs where a is better than b by more than the band
    int ties = 0;    ///< pairs within the band
    int losses = 0;  ///< pairs where b is better than a by more than the band
    int dropped = 0; ///< pairs with a NaN, not counted
};

/// Pure functions; thread-safe.
class WinTieLoss {
public:
    /// Counts pair i as a tie when |a_i − b_i| ≤ band · max(|a_i|, |b_i|) — a relative band,
    /// symmetric in a and b, as in Palagi & Seccia's "a method beats the other if the returned
    /// value is better than 5 % compared with the other; otherwise we declare a tie" — else as
    /// a win or loss for a by @p better. @p band ≥ 0, default 0.05; band 0 ties only equal values.
    /// Mismatched lengths count the common prefix only.
    static WinTieLossResult count(const std::vector<double>& a, const std::vector<double>& b, Better better,
                                  double band = 0.05);
};

} // namespace tb::stats
