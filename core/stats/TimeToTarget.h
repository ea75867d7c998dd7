#pragma once
/// @file TimeToTarget.h
/// When a learning curve first reaches a target metric.

#include "Better.h"

#include <vector>

namespace tb::stats {

/// One observed point of a learning curve: training seconds and the metric then.
struct CurvePoint {
    double time = 0;
    double value = 0;
};

/// When a curve reached a target.
struct TimeToTargetResult {
    bool reached = false;
    /// Training time of the first checkpoint at or beyond the target (NaN if never). The
    /// curve is only observed at checkpoints, so the target was reached at some time in
    /// (lastMissTime, time]: this is the honest upper end, never an interpolation.
    double time = 0;
    /// Training time of the checkpoint before, where the target was not yet reached (0 when
    /// the first checkpoint already reached it; NaN if never reached).
    double lastMissTime = 0;
    int index = -1;  ///< index of that checkpoint in the curve, −1 if never
    double best = 0; ///< best value the curve reached (NaN for an empty curve)
};

/// Pure functions; thread-safe.
class TimeToTarget {
public:
    /// First point of @p curve (in checkpoint order) whose value is at least as good as
    /// @p target in direction @p better. Points with a NaN value or time are skipped.
    static TimeToTargetResult reach(const std::vector<CurvePoint>& curve, double target, Better better);

    /// The default target of a comparison: the best value that every curve of @p curves
    /// reaches, i.e. the worst of the curves' best values (so every run has a time). NaN when
    /// @p curves is empty or a curve has no finite value.
    static double commonTarget(const std::vector<std::vector<CurvePoint>>& curves, Better better);
};

} // namespace tb::stats
