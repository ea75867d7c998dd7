#pragma once
/// @file LearningRateSchedule.h
/// Step sizes as functions of training progress, shared by every first-order method.

namespace tb::train {

/// A step size η(t) for t = completed units (epochs for the gradient baselines, steps for the
/// doubly stochastic gradients):
/// - Constant: η;
/// - Step:     η·factor^⌊t / every⌋;
/// - Inverse:  η / (1 + decay·t)  (decay = 1/t₀ gives the θ/(1 + t/t₀) rule of Dai et al.;
///             with η = θ·t₀… the θ/t rule is its limit);
/// - InverseSqrt: η / √(1 + decay·t);
/// - Diminishing: Palagi & Seccia's α_{k+1} = α_k·(1 − decay·α_k) from α₀ = η (see
///   DiminishingStep, which a loop steps through; rate(t) recomputes the recursion, O(t)).
/// Plain data: copy freely; rate() is thread-safe.
struct LearningRateSchedule {
    enum class Kind { Constant, Step, Inverse, InverseSqrt, Diminishing };

    Kind kind = Kind::Constant;
    double base = 0.01;    ///< η > 0
    double every = 10;     ///< Step: units between reductions, > 0
    double factor = 0.5;   ///< Step: factor per reduction, (0, 1]
    double decay = 0.1;    ///< Inverse, InverseSqrt: ≥ 0; Diminishing: ε > 0 with ε·η < 1

    /// η(t) for @p t ≥ 0 completed units.
    double rate(double t) const;
};

/// The diminishing step of Palagi & Seccia's incremental methods (BLInG, IG):
/// α_{k+1} = α_k·(1 − ε·α_k), which decreases to 0 with Σα_k = ∞ for 0 < ε·α₀ < 1.
/// Stateful: next() advances k. Not thread-safe.
class DiminishingStep {
public:
    /// @p alpha0 > 0 and @p epsilon > 0 with ε·α₀ < 1 (else α would not stay positive).
    DiminishingStep(double alpha0, double epsilon);
    /// α_k, the step of the current iteration.
    double current() const { return m_alpha; }
    /// Advances to α_{k+1} and returns it.
    double next();
    long long iteration() const { return m_k; }

private:
    double m_alpha;
    double m_epsilon;
    long long m_k = 0;
};

} // namespace tb::train
